"""JSON Schemas (Draft 2020-12) for hookd's wire: envelopes and every hook event.

The event schemas are generated from the msgspec types of :mod:`hookd.events`
(``msgspec.json.schema_components``, then tidied), so they cannot drift from
what :mod:`hookd.events.validation` enforces. The envelope schemas are written here by
hand. ``schemas/`` in the repository holds :func:`write_schemas`' output; a test
keeps it equal to what this module generates.

Names are paths without the ``.json`` suffix: ``envelope/control-request``,
``events/PreToolUse.input``, ``events/PreToolUse.output``, ...
"""

from __future__ import annotations

import copy
import functools
import json
import typing
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, Final

import msgspec

from hookd import events
from hookd.wire.errors import ErrorKind

__all__ = [
    "BASE_URI",
    "DIALECT",
    "get_schema",
    "render_schema",
    "schema_names",
    "write_schemas",
]

DIALECT: Final = "https://json-schema.org/draft/2020-12/schema"
BASE_URI: Final = "https://hookd.dev/schemas/"
_REF_PREFIX: Final = "#/$defs/"

Schema = dict[str, Any]


def schema_names() -> list[str]:
    """Every schema's name: the envelopes, then two per event in catalogue order."""
    return [*ENVELOPES, *(f"events/{e}.{kind}" for e in events.EVENTS for kind in _EVENT_KINDS)]


def get_schema(name: str) -> Schema:
    """The schema called ``name`` (a fresh copy); KeyError if there is none."""
    return copy.deepcopy(_schema(name))


def render_schema(name: str) -> str:
    """The schema as the text of its file: 2-space indented JSON and a newline."""
    return json.dumps(_schema(name), indent=2, ensure_ascii=False) + "\n"


def write_schemas(directory: str | Path) -> list[Path]:
    """Write every schema to ``directory/<name>.json``; return the paths written."""
    root = Path(directory)
    written = []
    for name in schema_names():
        path = root / f"{name}.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(render_schema(name), encoding="utf-8")
        written.append(path)
    return written


# ------------------------------------------------------------------------ building


@functools.cache
def _schema(name: str) -> Schema:
    if name in ENVELOPES:
        body = ENVELOPES[name]
    else:
        event, _, kind = name.removeprefix("events/").rpartition(".")
        if not name.startswith("events/") or event not in events.EVENTS or kind not in _EVENT_KINDS:
            raise KeyError(name)
        body = _EVENT_KINDS[kind](event)
    return {"$schema": DIALECT, "$id": f"{BASE_URI}{name}.json", **body}


#: How each block style reads in an output schema's description.
_BLOCKED_BY: Final = {
    "permission_decision": 'A hook blocks it with hookSpecificOutput.permissionDecision "deny".',
    "permission_request": 'A hook blocks it with hookSpecificOutput.decision.behavior "deny".',
    "decision": 'A hook blocks it with decision "block" and a reason.',
    "none": "A hook cannot block it.",
}


def _input_body(event: str) -> Schema:
    spec = events.EVENTS[event]
    field = spec.matcher_field
    matcher = f"Matchers are compared with {field}." if field else "It takes no matcher."
    description = f"{(spec.input_type.__doc__ or '').strip()} {matcher} Extra fields are allowed."
    return _document(f"{event} hook input", spec.input_type.__name__, description)


def _output_body(event: str) -> Schema:
    spec = events.EVENTS[event]
    refs = [spec.output_type.__name__, events.AsyncOutput.__name__]
    description = (
        f"What a {event} hook may answer: the synchronous output, or the async form. "
        f"Unknown fields are errors. {_BLOCKED_BY[spec.block_style]}"
    )
    head = {"title": f"{event} hook output", "description": description}
    return _tidy({**head, "anyOf": [{"$ref": _REF_PREFIX + name} for name in refs]})


_EVENT_KINDS: Final[dict[str, Callable[[str], Schema]]] = {
    "input": _input_body,
    "output": _output_body,
}


def _document(title: str, root_name: str, description: str) -> Schema:
    """A document whose top level is component ``root_name`` itself, inlined."""
    components = _components()
    root = {k: v for k, v in components[root_name].items() if k not in ("title", "description")}
    return _tidy({"title": title, "description": description, **root})


def _tidy(document: Schema) -> Schema:
    """Attach the ``$defs`` the document reaches and clean msgspec's output."""
    components = _components()
    reached = _reachable(document, components)
    if reached:
        document["$defs"] = {name: components[name] for name in sorted(reached)}
    cleaned: Schema = _clean(document)
    return cleaned


@functools.cache
def _components() -> dict[str, Schema]:
    types: list[Any] = [events.AsyncOutput]
    for spec in events.EVENTS.values():
        types += [spec.input_type, spec.output_type]
    _, components = msgspec.json.schema_components(types, ref_template=_REF_PREFIX + "{name}")
    return components


def _reachable(node: Any, components: dict[str, Schema]) -> set[str]:
    seen: set[str] = set()
    stack = [node]
    while stack:
        for ref in _refs(stack.pop()):
            name = ref.removeprefix(_REF_PREFIX)
            if name not in seen:
                seen.add(name)
                stack.append(components[name])
    return seen


def _refs(node: Any) -> Iterator[str]:
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "$ref" and isinstance(value, str):
                yield value
            else:
                yield from _refs(value)
    elif isinstance(node, list):
        for item in node:
            yield from _refs(item)


def _clean(node: Any) -> Any:
    """Drop OpenAPI's ``discriminator`` and empty ``required``; enums in declared order."""
    if isinstance(node, list):
        return [_clean(item) for item in node]
    if not isinstance(node, dict):
        return node
    out = {}
    for key, value in node.items():
        if key == "discriminator" or (key == "required" and value == []):
            continue
        is_enum = key == "enum" and isinstance(value, list)
        out[key] = _declared_order(value) if is_enum else _clean(value)
    return out


def _declared_order(values: list[Any]) -> list[Any]:
    """msgspec sorts enum values; put them back in their ``Literal``'s order."""
    return list(_literal_orders().get(frozenset(values), values))


@functools.cache
def _literal_orders() -> dict[frozenset[Any], tuple[Any, ...]]:
    orders: dict[frozenset[Any], tuple[Any, ...]] = {}
    seen: set[Any] = set()
    stack: list[Any] = [events.AsyncOutput]
    for spec in events.EVENTS.values():
        stack += [spec.input_type, spec.output_type]
    while stack:
        tp = stack.pop()
        if isinstance(tp, type) and issubclass(tp, msgspec.Struct):
            if tp not in seen:
                seen.add(tp)
                stack += typing.get_type_hints(tp).values()
        elif typing.get_origin(tp) is typing.Literal:
            orders.setdefault(frozenset(typing.get_args(tp)), typing.get_args(tp))
        else:
            stack += typing.get_args(tp)
    return orders


# ----------------------------------------------------------------------- envelopes

_ID: Final = {"type": ["string", "integer"], "description": "echoed as sent"}
_RPC_VERSION: Final = {"const": "2.0"}


def _body(subtype: str, required: list[str], properties: Schema) -> Schema:
    """``then`` branch for one request subtype."""
    condition = {"properties": {"subtype": {"const": subtype}}, "required": ["subtype"]}
    return {"if": condition, "then": {"required": required, "properties": properties}}


_CONTROL_REQUEST: Final[Schema] = {
    "title": "control_request",
    "description": "A request of the control protocol, in either direction. Extra fields are "
    "allowed: the CLI adds fields in every release.",
    "type": "object",
    "required": ["type", "request_id", "request"],
    "properties": {
        "type": {"const": "control_request"},
        "request_id": {"type": "string", "description": "chosen by the sender; opaque"},
        "request": {
            "type": "object",
            "required": ["subtype"],
            "properties": {"subtype": {"type": "string"}},
            "allOf": [
                _body(
                    "hook_callback",
                    ["callback_id", "input"],
                    {
                        "callback_id": {"type": "string"},
                        "input": {"type": "object"},
                        "tool_use_id": {"type": ["string", "null"]},
                    },
                ),
                _body(
                    "can_use_tool",
                    ["tool_name", "input"],
                    {"tool_name": {"type": "string"}, "input": {"type": "object"}},
                ),
                _body(
                    "hook_dispatch",
                    ["event", "input"],
                    {
                        "event": {"type": "string"},
                        "input": {"type": "object"},
                        "tool_use_id": {"type": ["string", "null"]},
                    },
                ),
            ],
        },
    },
}

_CONTROL_RESPONSE: Final[Schema] = {
    "title": "control_response",
    "description": "The one answer to a control_request: success or error. "
    "request_id sits inside response.",
    "type": "object",
    "required": ["type", "response"],
    "properties": {
        "type": {"const": "control_response"},
        "response": {
            "oneOf": [
                {
                    "type": "object",
                    "required": ["subtype", "request_id"],
                    "properties": {
                        "subtype": {"const": "success"},
                        "request_id": {"type": "string"},
                        "response": {"type": "object", "description": "the payload"},
                    },
                },
                {
                    "type": "object",
                    "required": ["subtype", "request_id", "error"],
                    "properties": {
                        "subtype": {"const": "error"},
                        "request_id": {"type": "string"},
                        "error": {"type": "string", "description": "human-readable text"},
                        "error_code": {
                            "type": "string",
                            "description": "machine-readable code, e.g. unknown_callback",
                        },
                    },
                },
            ]
        },
    },
}

_CONTROL_CANCEL: Final[Schema] = {
    "title": "control_cancel_request",
    "description": "Withdraws a request in flight. Never answered.",
    "type": "object",
    "required": ["type", "request_id"],
    "properties": {
        "type": {"const": "control_cancel_request"},
        "request_id": {"type": "string", "description": "the id of the withdrawn request"},
    },
}

_RPC_REQUEST: Final[Schema] = {
    "title": "JSON-RPC 2.0 request",
    "description": "A request; without id, a notification (never answered).",
    "type": "object",
    "required": ["jsonrpc", "method"],
    "properties": {
        "jsonrpc": _RPC_VERSION,
        "method": {"type": "string"},
        "params": {"type": ["object", "array"]},
        "id": _ID,
    },
    "additionalProperties": False,
}

_RPC_RESPONSE: Final[Schema] = {
    "title": "JSON-RPC 2.0 response",
    "description": "The success answer to a JSON-RPC request.",
    "type": "object",
    "required": ["jsonrpc", "id", "result"],
    "properties": {"jsonrpc": _RPC_VERSION, "id": _ID, "result": {}},
    "additionalProperties": False,
}

_RPC_ERROR: Final[Schema] = {
    "title": "JSON-RPC 2.0 error",
    "description": "hookd's error answer: the JSON-RPC code and, in data.error_code, the "
    "string code of the same error-table row. id is null when the request's id was unreadable.",
    "type": "object",
    "required": ["jsonrpc", "id", "error"],
    "properties": {
        "jsonrpc": _RPC_VERSION,
        "id": {"type": ["string", "integer", "null"]},
        "error": {
            "type": "object",
            "required": ["code", "message", "data"],
            "properties": {
                "code": {"enum": [kind.jsonrpc_code for kind in ErrorKind]},
                "message": {"type": "string"},
                "data": {
                    "type": "object",
                    "required": ["error_code"],
                    "properties": {"error_code": {"enum": [kind.error_code for kind in ErrorKind]}},
                },
            },
            "additionalProperties": False,
        },
    },
    "additionalProperties": False,
}

ENVELOPES: Final[dict[str, Schema]] = {
    "envelope/control-request": _CONTROL_REQUEST,
    "envelope/control-response": _CONTROL_RESPONSE,
    "envelope/control-cancel-request": _CONTROL_CANCEL,
    "envelope/jsonrpc-request": _RPC_REQUEST,
    "envelope/jsonrpc-response": _RPC_RESPONSE,
    "envelope/jsonrpc-error": _RPC_ERROR,
}

"""JSON Schemas (Draft 2020-12) of every hook event's input and output.

Generated from the msgspec types of :mod:`hookd.events`
(``msgspec.json.schema_components``, then tidied), so they cannot drift from
what :mod:`hookd.events.validation` enforces. Names are ``events/<Event>.input``
and ``events/<Event>.output``; :mod:`hookd.published` adds the envelopes and
writes them all.
"""

from __future__ import annotations

import functools
import typing
from collections.abc import Callable, Iterator
from typing import Any, Final

import msgspec

from hookd import events

__all__ = ["event_schema", "event_schema_names"]

_REF_PREFIX: Final = "#/$defs/"

Schema = dict[str, Any]


def event_schema_names() -> list[str]:
    """Two names per event, in catalogue order."""
    return [f"events/{e}.{kind}" for e in events.EVENTS for kind in _EVENT_KINDS]


@functools.cache
def event_schema(name: str) -> Schema:
    """The body of event schema ``name`` (shared: copy before changing); KeyError if none."""
    event, _, kind = name.removeprefix("events/").rpartition(".")
    if not name.startswith("events/") or event not in events.EVENTS or kind not in _EVENT_KINDS:
        raise KeyError(name)
    return _EVENT_KINDS[kind](event)


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

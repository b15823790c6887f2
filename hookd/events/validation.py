"""Checks of hook outputs and inputs against the event catalogue: the hot path.

Every output goes through :func:`prepare_output` before it is sent. The check
is a typed conversion into the event's msgspec Struct (well under a
microsecond for a typical output). Only when that fails is jsonschema loaded
and the event's schema compiled (once per event, cached) to say precisely what
is wrong: the JSON path and the rule broken, e.g.
``hookSpecificOutput.permissionDecision: 'maybe' is not one of allow, deny, ask, defer``.

Events not in the catalogue are passed through: an output only has to be a
JSON object, and an input is not checked at all (the caller logs a warning).
This keeps hookd usable with a CLI newer than its catalogue.
"""

from __future__ import annotations

from typing import Any

import msgspec

from hookd.errors import InvalidOutputError
from hookd.events import EVENT_SPECS, AsyncOutput, EventSpec
from hookd.events.explain import ASYNC, Where, explain, output_hints, show
from hookd.json_words import json_type

__all__ = ["check_input", "prepare_output", "sdk_renamed", "validate_output"]


def sdk_renamed(result: dict[str, Any]) -> dict[str, Any]:
    """The SDK's shallow rename: ``continue_`` -> ``continue``, ``async_`` -> ``async``."""
    out = dict(result)
    for py_name, wire_name in (("continue_", "continue"), ("async_", "async")):
        if py_name in out:
            out[wire_name] = out.pop(py_name)
    return out


def prepare_output(event: str, output: dict[str, Any]) -> dict[str, Any]:
    """Check ``output`` for ``event``; fill a missing ``hookSpecificOutput.hookEventName``.

    Returns the output to send (a new dict when something was filled in, else
    ``output`` itself). Raises :class:`InvalidOutputError` naming the problem.
    """
    if not isinstance(output, dict):
        raise InvalidOutputError(f"output: expected object, got {json_type(output)}")
    spec = EVENT_SPECS.get(event)
    if spec is None:
        return output
    specific = output.get("hookSpecificOutput")
    if spec.hook_specific_type is not None and isinstance(specific, dict):
        name = specific.get("hookEventName")
        if name is None:
            output = _with_event_name(spec, output, specific)
        elif name != spec.name:
            raise InvalidOutputError(_mismatch(spec, name))
    target = AsyncOutput if "async" in output else spec.output_type  # _convert, written out
    try:
        msgspec.convert(output, target)
    except msgspec.ValidationError as exc:
        raise InvalidOutputError(_explained(spec, target, output, exc)) from None
    return output


def validate_output(event: str, output: Any) -> str | None:
    """What is wrong with ``output`` as sent on the wire for ``event``, or None.

    Unlike :func:`prepare_output` nothing is filled in: ``hookEventName`` must be there.
    """
    if not isinstance(output, dict):
        return f"output: expected object, got {json_type(output)}"
    spec = EVENT_SPECS.get(event)
    return None if spec is None else _check_output(spec, output)


def check_input(event: str, input: dict[str, Any]) -> str | None:
    """What is wrong with a hook ``input`` for ``event``, or None.

    Names the field, e.g. ``input.tool_name: required field missing for PreToolUse``.
    Unknown fields are fine; an event not in the catalogue is not checked.
    """
    spec = EVENT_SPECS.get(event)
    if spec is None:
        return None
    if not isinstance(input, dict):
        return f"input: expected object, got {json_type(input)} for {event}"
    name = input.get("hook_event_name", event)
    if name != event:
        return f"input.hook_event_name: {show(name)} does not match the event {event}"
    try:
        msgspec.convert(input, spec.input_type)
    except msgspec.ValidationError as exc:
        message = explain(f"events/{event}.input", None, input, exc, Where("input"))
        return f"{message} for {event}"
    return None


def _with_event_name(
    spec: EventSpec, output: dict[str, Any], specific: dict[str, Any]
) -> dict[str, Any]:
    """A copy of ``output`` with ``hookSpecificOutput.hookEventName`` filled in, first."""
    rest = {k: v for k, v in specific.items() if k != "hookEventName"}
    return {**output, "hookSpecificOutput": {"hookEventName": spec.name, **rest}}


def _check_output(spec: EventSpec, output: dict[str, Any]) -> str | None:
    specific = output.get("hookSpecificOutput")
    if spec.hook_specific_type is not None and isinstance(specific, dict):
        name = specific.get("hookEventName", spec.name)
        if name != spec.name:
            return _mismatch(spec, name)
    return _convert(spec, output)


def _mismatch(spec: EventSpec, name: Any) -> str:
    return f"hookSpecificOutput.hookEventName: {show(name)} does not match the event {spec.name}"


def _convert(spec: EventSpec, output: dict[str, Any]) -> str | None:
    """The typed check of ``output``: None, or what is wrong with it."""
    target = AsyncOutput if "async" in output else spec.output_type
    try:
        msgspec.convert(output, target)
    except msgspec.ValidationError as exc:
        return _explained(spec, target, output, exc)
    return None


def _explained(
    spec: EventSpec, target: type[Any], output: dict[str, Any], exc: msgspec.ValidationError
) -> str:
    """What the typed check of ``output`` against ``target`` found wrong, in words."""
    where = Where("output", output_hints(spec)) if target is spec.output_type else ASYNC
    return explain(f"events/{spec.name}.output", target.__name__, output, exc, where)

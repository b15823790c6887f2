"""Realistic hook inputs for every event, as Claude Code 2.1.330 sends them.

Each event's input starts from the fields the CLI sends (common fields in the
CLI's order: ``session_id``, ``transcript_path``, ``cwd``, ``prompt_id``,
``permission_mode``, ``hook_event_name``, then the event's own), with plausible
values. Any field can be overridden; :data:`OMIT` leaves one out. The result
is checked against the event's input schema, and a field the event does not
have is refused (with the closest name), so a test cannot fire an input the
CLI would never send. ``extra=`` adds fields newer than hookd's catalogue.
"""

from __future__ import annotations

import difflib
import itertools
import os
import uuid
from collections.abc import Mapping
from typing import Any, Final

import msgspec

from hookd.errors import HookdError
from hookd.events import EVENTS
from hookd.events.validation import check_input
from hookd.json_words import json_type
from hookd.testing.samples import EXTRA, tool_input_for

__all__ = ["OMIT", "InputError", "Inputs", "tool_input_for"]

JsonObject = dict[str, Any]


class _Omit:
    def __repr__(self) -> str:
        return "OMIT"


#: Pass as a field's value to leave the field out of the input.
OMIT: Final = _Omit()


class InputError(HookdError, ValueError):
    """An input the CLI would never send: unknown event, unknown field, wrong type."""


#: Events whose input has no ``prompt_id`` / no ``permission_mode`` (as observed).
_NO_PROMPT_ID: Final = frozenset({"SessionStart", "Setup"})
_NO_PERMISSION_MODE: Final = frozenset({"SessionEnd", "SessionStart", "Setup"})
_TOOL_EVENTS: Final = frozenset(
    {"PreToolUse", "PostToolUse", "PostToolUseFailure", "PermissionRequest", "PermissionDenied"}
)
_TOOL_USE_ID_EVENTS: Final = _TOOL_EVENTS - {"PermissionRequest"}


class Inputs:
    """Builds inputs for one test session: its ids, its working directory."""

    def __init__(self, session_id: str | None = None, cwd: str | None = None) -> None:
        self.session_id = session_id or str(uuid.uuid4())
        self.cwd = cwd
        self._ids = itertools.count(1)

    def next_tool_use_id(self) -> str:
        return f"toolu_test_{next(self._ids):04d}"

    def common(self, event: str, cwd: str, session_id: str) -> JsonObject:
        project = cwd.replace(os.sep, "-").replace(".", "-")
        out: JsonObject = {
            "session_id": session_id,
            "transcript_path": os.path.join(
                os.path.expanduser("~"), ".claude", "projects", project, f"{session_id}.jsonl"
            ),
            "cwd": cwd,
        }
        if event not in _NO_PROMPT_ID:
            out["prompt_id"] = str(uuid.uuid4())
        if event not in _NO_PERMISSION_MODE:
            out["permission_mode"] = "default"
        out["hook_event_name"] = event
        return out

    def build(
        self, event: str, fields: Mapping[str, Any], extra: Mapping[str, Any] | None = None
    ) -> JsonObject:
        """The input of ``event`` with ``fields`` overridden; checked like the CLI's own."""
        spec = EVENTS.get(event)
        if spec is None:
            close = difflib.get_close_matches(event, list(EVENTS), n=1)
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            raise InputError(f"{event!r} is not a hook event{hint}")
        known = {f.encode_name for f in msgspec.structs.fields(spec.input_type)}
        for name in fields:
            if name not in known:
                close = difflib.get_close_matches(name, sorted(known), n=1)
                hint = f" (did you mean {close[0]!r}?)" if close else ""
                raise InputError(
                    f"{event} input has no field {name!r}{hint}; pass extra={{...}} for "
                    "fields newer than hookd's catalogue"
                )
        cwd = str(fields.get("cwd") or self.cwd or os.getcwd())
        session_id = str(fields.get("session_id") or self.session_id)
        out = self.common(event, cwd, session_id)
        tool_name = str(fields.get("tool_name", "Bash"))
        out.update(self._specific(event, cwd, tool_name, fields))
        out.update(fields)
        out.update(extra or {})
        out = {k: v for k, v in out.items() if v is not OMIT}
        if event in _TOOL_EVENTS and not isinstance(out.get("tool_input", {}), dict):
            got = json_type(out["tool_input"])  # the schema's `{}` takes anything; the CLI not
            raise InputError(f"input.tool_input: expected object, got {got} for {event}")
        problem = check_input(event, out)
        if problem is not None:
            raise InputError(problem)
        return out

    def _specific(
        self, event: str, cwd: str, tool_name: str, fields: Mapping[str, Any]
    ) -> JsonObject:
        out: JsonObject = {}
        if event in _TOOL_EVENTS:
            tool_input = fields.get("tool_input")
            if tool_input is None or tool_input is OMIT:
                tool_input = tool_input_for(tool_name, cwd)
            out = {"tool_name": tool_name, "tool_input": tool_input}
            if event in _TOOL_USE_ID_EVENTS:
                out["tool_use_id"] = self.next_tool_use_id()
        return {**out, **EXTRA[event](self.next_tool_use_id, cwd, tool_name)}

"""Scripted model answers for Gemini CLI's hidden ``--fake-responses-non-strict FILE`` mode,
and its local telemetry file read back.

The file holds one JSON object a line, ``{"method": "generateContentStream", "response":
[<GenerateContentResponse>, ...]}``; each model call takes the first line left of its method.
A ``functionCall`` part in an answer runs that tool. With telemetry on (``target: "local"``,
``logPrompts``) the CLI writes every request it sends the model (``gemini_cli.api_request``,
its ``request_text`` the JSON of the contents) and every hook call (``gemini_cli.hook_call``)
to ``outfile``, as pretty-printed JSON objects one after another.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

__all__ = ["reply", "shell_call", "telemetry_events", "user_settings", "write_responses"]

Json = dict[str, Any]


def _answer(*parts: Json) -> Json:
    content = {"role": "model", "parts": list(parts)}
    return {
        "method": "generateContentStream",
        "response": [{"candidates": [{"content": content, "finishReason": "STOP"}]}],
    }


def shell_call(command: str) -> Json:
    """A model turn that asks for ``run_shell_command`` with ``command``."""
    return _answer({"functionCall": {"name": "run_shell_command", "args": {"command": command}}})


def reply(text: str) -> Json:
    """A model turn that answers with text and ends the session."""
    return _answer({"text": text})


def write_responses(path: Path, turns: Iterable[Json]) -> Path:
    path.write_text("".join(json.dumps(turn) + "\n" for turn in turns))
    return path


def user_settings(telemetry: Path) -> Json:
    """``~/.gemini/settings.json`` for an offline run: API-key auth (``GEMINI_API_KEY``), no
    folder trust prompt, every request and hook call logged to ``telemetry``."""
    return {
        "security": {
            "auth": {"selectedType": "gemini-api-key"},
            "folderTrust": {"enabled": False},
        },
        "telemetry": {
            "enabled": True,
            "target": "local",
            "outfile": str(telemetry),
            "logPrompts": True,
        },
    }


def telemetry_events(path: Path, name: str) -> list[Json]:
    """The attributes of each log record named ``name`` (``gemini_cli.api_request``, ...)."""
    text = path.read_text()
    decoder = json.JSONDecoder()
    found: list[Json] = []
    at = 0
    while (at := _skip_space(text, at)) < len(text):
        record, at = decoder.raw_decode(text, at)
        attributes = record.get("attributes") if isinstance(record, dict) else None
        if isinstance(attributes, dict) and attributes.get("event.name") == name:
            found.append(attributes)
    return found


def _skip_space(text: str, at: int) -> int:
    while at < len(text) and text[at].isspace():
        at += 1
    return at

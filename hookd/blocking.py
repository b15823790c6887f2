"""The events whose call gates something: a hook failing there blocks by default, and a
call hookd cannot answer at all is refused, on every entrance and in every agent's dialect.

Imported by the shim's fast path (:mod:`hookd.daemon.fastcall`): standard names only, not
even :mod:`typing` (which imports :mod:`re`)."""

from __future__ import annotations

__all__ = ["BLOCKING_EVENTS"]

#: Claude Code's names; each agent's dialect maps its own events onto these.
BLOCKING_EVENTS = frozenset({"PreToolUse", "PermissionRequest", "UserPromptSubmit"})

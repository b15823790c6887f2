"""The Claude Code settings entries that point the CLI at a hooks module's daemon.

Every entry hookd writes carries the module's key: http entries in their URL's
query (``?hookd=KEY``, which the server ignores), command entries as a shell
comment at the end (``#hookd=KEY``). That is how a later install replaces them
and ``uninstall`` removes them, leaving everything else in the file alone.
Only values the CLI accepts are written: an invalid ``onFailure`` makes the
CLI skip the whole settings file without a word.
"""

from __future__ import annotations

import math
import re
import shlex
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

__all__ = [
    "COMMAND_EVENTS",
    "MODULE",
    "ON_FAILURE_EVENTS",
    "ROUTED_EVENTS",
    "EventHooks",
    "Target",
    "entries",
    "is_ours",
    "merge",
    "strip",
]

JsonObject = dict[str, Any]

#: Events served through the ``hookd call`` shim, whatever the module holds (in project scope,
#: SessionStart only; the others when the module has hooks for them): the CLI never sends
#: SessionStart and Setup to an http hook, and the prompt's shim starts the daemon before it
#: forwards the prompt (an http hook run beside a starting daemon would find no one there).
COMMAND_EVENTS = ("SessionStart", "Setup", "UserPromptSubmit")
#: Events routed to the daemon with no matcher, whatever the module holds at install time, in
#: local and user scope (a project-scope shim is a process per call: there only the module's
#: events, with its matchers): the daemon matches, so a hook or an event added by a later save
#: is served. Left out, and routed
#: only when the module has them at install: the events whose mere hook changes what the CLI
#: does (CwdChanged and FileChanged start watchers, and FileChanged's matcher names the files;
#: WorktreeCreate and WorktreeRemove replace git's own; ConfigChange holds settings edits for
#: review; MessageDisplay is called for every streamed piece of text).
ROUTED_EVENTS = (
    "PreToolUse", "PostToolUse", "PostToolUseFailure", "PostToolBatch", "PermissionRequest",
    "PermissionDenied", "Notification", "UserPromptExpansion", "Stop", "StopFailure",
    "SubagentStart", "SubagentStop", "PreCompact", "PostCompact", "PreModelSwitch",
    "PostModelSwitch", "TeammateIdle", "TaskCreated", "TaskCompleted", "Elicitation",
    "ElicitationResult", "InstructionsLoaded", "DirectoryAdded", "SessionEnd",
)  # fmt: skip
#: Events on which the CLI honours ``"onFailure": "block"``.
ON_FAILURE_EVENTS = frozenset(
    {"PreToolUse", "PermissionRequest", "UserPromptSubmit", "PostToolUse"}
)
#: Shims that block what they guard when the daemon cannot answer (exit 2), unless fail-open.
_BLOCKING_SHIMS = frozenset({"UserPromptSubmit"})
#: Seconds allowed to ``hookd up`` (and to a shim that may have to start the daemon).
START_BUDGET_S = 30
#: Seconds added to a hook's own timeout for the trip to the daemon and back.
TRANSPORT_MARGIN_S = 1
_SIMPLE_MATCHER = re.compile(r"[A-Za-z0-9_]+(\|[A-Za-z0-9_]+)*")


@dataclass(frozen=True, slots=True)
class EventHooks:
    """What the settings need to know about one event's hooks in the module."""

    event: str
    timeouts_s: tuple[float, ...]
    matchers: tuple[str | None, ...]
    blocks: bool
    sequential: bool = False
    least_s: float = 0.0  # the default hook timeout: room for a hook a later save adds

    @property
    def budget_s(self) -> int:
        """The longest the daemon may take for the event: the hooks run at once or in turn."""
        total = sum(self.timeouts_s) if self.sequential else max(self.timeouts_s, default=0)
        return math.ceil(max(total, self.least_s)) + TRANSPORT_MARGIN_S

    @property
    def matcher(self) -> str | None:
        """One matcher selecting every tool the hooks may want, or None for all.

        Only plain name lists are joined; anything else leaves the choice to the daemon.
        """
        names: list[str] = []
        for m in self.matchers:
            if m is None or not _SIMPLE_MATCHER.fullmatch(m):
                return None
            names += [n for n in m.split("|") if n not in names]
        return "|".join(names) or None


#: Stands for the hooks module among :meth:`Target.command`'s words.
MODULE = "\0module"


@dataclass(frozen=True, slots=True)
class Target:
    """Where the daemon listens and how the CLI authenticates and starts it.

    ``port`` None: settings shared through git (project scope), where nothing may
    depend on one checkout. Every handler is then a ``hookd call`` command, which
    finds the module through ``$CLAUDE_PROJECT_DIR`` and its daemon's port and token
    in the user's state directory (an http hook's URL cannot vary per checkout).
    """

    key: str
    port: int | None
    hookd: Sequence[str]
    module: str  # the hooks file as one shell word
    token: str | None  # None when every handler is a command (port None)
    fail_open: bool = False

    def url(self, event: str) -> str:
        return f"http://127.0.0.1:{self.port}/hook/{event}?hookd={self.key}"

    def command(self, *words: str, pinned: Sequence[str] = ()) -> str:
        """The command line; ``pinned`` words follow the port, and only where hookd is named
        by its path (local and user scope): an older ``hookd`` on a teammate's PATH reads
        project-scope commands too."""
        argv = [*self.hookd, *words]
        if self.port is not None:
            argv += ["--port", str(self.port), *pinned]
        line = " ".join(self.module if w == MODULE else shlex.quote(w) for w in argv)
        return f"{line} #hookd={self.key}"

    def headers(self) -> JsonObject:
        return {"headers": {"Authorization": f"Bearer {self.token}"}}

    def shim(self, e: EventHooks) -> JsonObject:
        """The ``hookd call`` command handler of ``e``."""
        portable, blocks = self.port is None, self.blocks(e)
        words = ["call", e.event, "--hooks", MODULE]
        if not blocks and (portable or e.event in _BLOCKING_SHIMS):
            words.append("--fail-open")
        # the whole answer within the event's budget: a daemon that stalls is a failure
        # before the CLI's own timeout (which would let the action go on)
        command = self.command(*words, pinned=("--deadline", str(e.budget_s)))
        out = {"type": "command", "command": command, "timeout": e.budget_s + START_BUDGET_S}
        if portable and blocks:  # a shim that cannot run (no `hookd` on PATH) blocks too
            out["onFailure"] = "block"
        return out

    def matcher(self, e: EventHooks) -> str | None:
        """The group's matcher: none on a routed event (the daemon matches), except in
        project scope, where every call is a process and only the module's tools are sent."""
        routed = e.event in ROUTED_EVENTS or e.event in COMMAND_EVENTS
        return None if routed and self.port is not None else e.matcher

    def blocks(self, e: EventHooks) -> bool:
        """Whether a failure to answer ``e`` blocks the action."""
        return e.blocks and not self.fail_open and e.event in ON_FAILURE_EVENTS


def entries(target: Target, events: Iterable[EventHooks]) -> dict[str, list[JsonObject]]:
    """The matcher groups to add, by event: ``events`` holds one entry per event to route."""
    out: dict[str, list[JsonObject]] = {}
    for e in events:
        if e.event in COMMAND_EVENTS or target.port is None:
            handler = target.shim(e)
        else:
            handler = {"type": "http", "url": target.url(e.event), "timeout": e.budget_s}
            handler |= target.headers()
            if target.blocks(e):
                handler["onFailure"] = "block"
        out.setdefault(e.event, []).append(_group(handler, target.matcher(e)))
    return out


def _group(handler: JsonObject, matcher: str | None) -> JsonObject:
    return {"matcher": matcher, "hooks": [handler]} if matcher else {"hooks": [handler]}


def is_ours(handler: Any, key: str | None) -> bool:
    """Whether ``handler`` was written for the module ``key`` (any module when None)."""
    if not isinstance(handler, dict):
        return False
    mark = f"hookd={key}" if key is not None else "hookd="
    match handler.get("type"):
        case "http":
            url = handler.get("url")
            return isinstance(url, str) and re.search(rf"[?&]{re.escape(mark)}", url) is not None
        case "command":
            command = handler.get("command")
            found = isinstance(command, str) and re.search(rf" #{re.escape(mark)}", command)
            return found is not None and found is not False
    return False


def strip(settings: JsonObject, key: str | None) -> int:
    """Remove the handlers written for ``key`` (in place); how many went.

    A matcher group left without handlers goes too, and an event left without groups.
    """
    hooks = settings.get("hooks")
    if not isinstance(hooks, dict):
        return 0
    removed = 0
    for event in list(hooks):
        groups = hooks[event]
        if not isinstance(groups, list):
            continue
        kept_groups = []
        for group in groups:
            handlers = group.get("hooks") if isinstance(group, dict) else None
            if not isinstance(handlers, list):
                kept_groups.append(group)
                continue
            kept = [h for h in handlers if not is_ours(h, key)]
            removed += len(handlers) - len(kept)
            if kept or not handlers:
                kept_groups.append({**group, "hooks": kept})
        if kept_groups or not groups:
            hooks[event] = kept_groups
        else:
            del hooks[event]
    return removed


def merge(settings: JsonObject, key: str, added: dict[str, list[JsonObject]]) -> None:
    """Replace the module's entries in ``settings`` (in place) with ``added``."""
    strip(settings, key)
    hooks = settings.setdefault("hooks", {})
    if not isinstance(hooks, dict):
        raise ValueError('"hooks" in the settings file is not an object')
    for event, groups in added.items():
        current = hooks.setdefault(event, [])
        if not isinstance(current, list):
            raise ValueError(f'"hooks.{event}" in the settings file is not a list')
        current.extend(groups)

"""Load the ``hooks`` section of Claude Code settings files as command hooks.

Shape: ``{"hooks": {EVENT: [{"matcher": M, "hooks": [HANDLER, ...]}, ...]}}``
with ``HANDLER = {"type": "command", "command": "...", "timeout": 30}``. Each
command handler becomes one registration (its own id, its own matcher entry),
with the entry's ``timeout``, else Claude Code's 600 s (not ``--timeout``,
which is the default of Python callbacks).
hookd extensions on a handler: ``"retry": {"attempts", "backoff", "multiplier",
"maxBackoff", "exitCodes"}`` and ``"onFailure": "continue" | "block"``.

A file that cannot be read or is not a JSON object raises :class:`SettingsError`.
Everything else is checked entry by entry: a bad entry is skipped and reported,
named by its path (``settings.json: hooks.PreToolUse[0].hooks[1]: ...``), and
the other entries still load.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Annotated, Any, Final, Literal

import msgspec

from hookd.command.hook import add_command
from hookd.core.matcher import MatcherError, compile_matcher
from hookd.core.registration import CustomEvent
from hookd.core.registry import Registry, RetryPolicy
from hookd.errors import HookdError
from hookd.events import EVENTS
from hookd.events.names import unknown_event
from hookd.json_words import json_type, msgspec_problem

__all__ = ["COMMAND_TIMEOUT_S", "SettingsError", "load_settings", "project_dir"]

#: Hook types of Claude Code that hookd does not run.
OTHER_TYPES: Final = frozenset({"http", "prompt", "agent", "mcp_tool"})
#: Handler fields hookd cannot honour: an entry that sets one is skipped.
UNSUPPORTED: Final = ("if", "async", "asyncRewake", "once")

#: A command handler's timeout when its entry sets none: Claude Code's default for commands.
COMMAND_TIMEOUT_S: Final = 600.0

NonNegative = Annotated[float, msgspec.Meta(ge=0)]


class SettingsError(HookdError):
    """A settings file that cannot be used at all (unreadable, or not a JSON object)."""


class RetryEntry(msgspec.Struct, rename="camel", forbid_unknown_fields=True):
    """``"retry"`` (a hookd extension): seconds for the backoffs."""

    attempts: Annotated[int, msgspec.Meta(ge=1)] = 3
    backoff: NonNegative = 0.1
    multiplier: Annotated[float, msgspec.Meta(ge=1)] = 2.0
    max_backoff: NonNegative = 2.0
    exit_codes: list[Annotated[int, msgspec.Meta(ge=1, le=255)]] = []

    def policy(self) -> RetryPolicy:
        return RetryPolicy(
            attempts=self.attempts,
            backoff_s=self.backoff,
            multiplier=self.multiplier,
            max_backoff_s=self.max_backoff,
            exit_codes=frozenset(self.exit_codes),
        )


class CommandEntry(msgspec.Struct, rename="camel"):
    """One ``{"type": "command", ...}`` handler (timeout in seconds)."""

    type: str
    command: Annotated[str, msgspec.Meta(min_length=1)]
    timeout: Annotated[float, msgspec.Meta(gt=0)] | None = None
    args: list[str] | None = None
    shell: Literal["sh", "bash"] = "sh"
    status_message: str | None = None
    retry: RetryEntry | None = None
    on_failure: Literal["continue", "block"] | None = None
    if_: str | None = msgspec.field(default=None, name="if")
    async_: bool = msgspec.field(default=False, name="async")
    async_rewake: bool = False
    once: bool = False


_KNOWN_FIELDS: Final = frozenset(f.encode_name for f in msgspec.structs.fields(CommandEntry))


def load_settings(paths: list[str], registry: Registry) -> list[str]:
    """Register the command hooks of every file in ``paths``; return the warnings."""
    loader = _Loader(registry)
    for path in paths:
        loader.load_file(path)
    return loader.warnings


def project_dir(path: str | Path) -> str | None:
    """The project root of a settings file kept in ``<root>/.claude/``, else None."""
    parent = Path(path).resolve().parent
    return str(parent.parent) if parent.name == ".claude" else None


def read_settings(path: str) -> dict[str, Any]:
    """The JSON object in ``path``; :class:`SettingsError` if there is none."""
    try:
        data = Path(path).read_bytes()
    except OSError as exc:
        raise SettingsError(f"{path}: cannot read: {exc.strerror or exc}") from None
    try:
        value = msgspec.json.decode(data)
    except msgspec.DecodeError as exc:
        raise SettingsError(f"{path}: not valid JSON: {exc}") from None
    if not isinstance(value, dict):
        raise SettingsError(f"{path}: expected a JSON object, got {_json_kind(value)}")
    return value


class _Loader:
    """Walks settings files, registering good entries and collecting warnings."""

    def __init__(self, registry: Registry) -> None:
        self.registry = registry
        self.warnings: list[str] = []
        self._seen: dict[tuple[Any, ...], str] = {}

    def warn(self, where: str, message: str) -> None:
        self.warnings.append(f"{where}: {message}")

    def load_file(self, path: str) -> None:
        settings = read_settings(path)
        if settings.get("disableAllHooks") is True:
            self.warn(path, "disableAllHooks is true: no hooks loaded from this file")
            return
        hooks = settings.get("hooks")
        if hooks is None:
            self.warn(path, 'no "hooks" section')
        elif not isinstance(hooks, dict):
            self.warn(f"{path}: hooks", f"expected an object, got {_json_kind(hooks)}; skipped")
        else:
            root = project_dir(path)
            for event, groups in hooks.items():
                self._load_event(path, root, event, groups)

    def _load_event(self, path: str, root: str | None, event: str, groups: Any) -> None:
        where = f"{path}: hooks.{event}"
        if event not in EVENTS:
            self.warn(where, f"{unknown_event(event)}; registered anyway")
            event = CustomEvent(event)
        if not isinstance(groups, list):
            self.warn(
                where, f"expected a list of matcher groups, got {_json_kind(groups)}; skipped"
            )
            return
        for index, group in enumerate(groups):
            for handler_where, matcher, handler in self._handlers(f"{where}[{index}]", group):
                self._load_handler(handler_where, root, event, matcher, handler)

    def _handlers(self, where: str, group: Any) -> Iterator[tuple[str, str | None, Any]]:
        if not isinstance(group, dict):
            self.warn(where, f"expected a matcher group object, got {_json_kind(group)}; skipped")
            return
        matcher, handlers = group.get("matcher"), group.get("hooks")
        if matcher is not None and not isinstance(matcher, str):
            self.warn(where, f"matcher must be a string, got {_json_kind(matcher)}; skipped")
            return
        try:
            compile_matcher(matcher)
        except MatcherError as exc:
            self.warn(where, f"{exc}; skipped")
            return
        if not isinstance(handlers, list):
            self.warn(
                where, f'"hooks" must be a list of handlers, got {_json_kind(handlers)}; skipped'
            )
            return
        for index, handler in enumerate(handlers):
            yield f"{where}.hooks[{index}]", matcher, handler

    def _load_handler(
        self, where: str, root: str | None, event: str, matcher: str | None, handler: Any
    ) -> None:
        entry = self._parse(where, handler)
        if entry is None:
            return
        key = (event, matcher, entry.shell, entry.command, tuple(entry.args or ()))
        if key in self._seen:
            self.warn(where, f"same command as {self._seen[key]}; registered once")
            return
        try:
            reg = add_command(
                self.registry,
                event,
                entry.command,
                matcher=matcher,
                timeout=entry.timeout if entry.timeout is not None else COMMAND_TIMEOUT_S,
                on_failure=entry.on_failure,
                retry=entry.retry.policy() if entry.retry is not None else None,
                args=entry.args,
                shell=entry.shell,
                project_dir=root,
            )
        except HookdError as exc:
            self.warn(where, f"{exc}; skipped")
            return
        self._seen[key] = f"{where} ({reg.callback_id})"

    def _parse(self, where: str, handler: Any) -> CommandEntry | None:
        """The handler as a :class:`CommandEntry`, or None (with a warning) if unusable."""
        if not isinstance(handler, dict):
            self.warn(where, f"expected a handler object, got {_json_kind(handler)}; skipped")
            return None
        kind = handler.get("type")
        if kind != "command":
            self.warn(where, _type_problem(kind))
            return None
        try:
            entry = msgspec.convert(handler, CommandEntry)
        except msgspec.ValidationError as exc:
            self.warn(*_located(where, str(exc)))
            return None
        used = [name for name in UNSUPPORTED if handler.get(name) not in (None, False)]
        if used:
            names = ", ".join(f'"{name}"' for name in used)
            self.warn(where, f"{names} not supported by hookd; skipped")
            return None
        for name in sorted(set(handler) - _KNOWN_FIELDS):
            self.warn(where, f'unknown field "{name}" ignored')
        if entry.retry is not None and not entry.retry.exit_codes:
            self.warn(where, 'retry has no "exitCodes": the command is never retried')
        return entry


def _type_problem(kind: Any) -> str:
    if kind in OTHER_TYPES:
        return f'hook type "{kind}" is not supported by hookd (only "command"); skipped'
    if kind is None:
        return 'missing "type"; skipped'
    return f"unknown hook type {msgspec.json.encode(kind).decode()}; skipped"


def _located(where: str, message: str) -> tuple[str, str]:
    """Move msgspec's ``- at `$.x`` suffix into the entry path."""
    problem = msgspec_problem(message)
    what = problem.what
    return f"{where}{problem.path}", f"{what[:1].lower()}{what[1:]}; skipped"


def _json_kind(value: Any) -> str:
    kind = json_type(value, integers=False)
    return kind if kind == "null" else f"{'an' if kind[0] in 'ao' else 'a'} {kind}"

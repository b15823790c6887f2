"""The registry: user callbacks under sequential ids ``hook_1``, ``hook_2``, ...

Ids follow registration order (event, then matcher, then callback) with one
counter per registry; registration is safe from several threads. The
``initialize`` answer is built from here, and so is every ``hook_callback``
lookup.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Mapping
from typing import Any

import msgspec

from hookd.core.health import Health, Quarantine
from hookd.core.registration import (
    BLOCKING_BY_DEFAULT,
    DEFAULT_TIMEOUT_S,
    HookCallable,
    HookMatcher,
    OnFailure,
    Registration,
    RegistrationError,
    RetryPolicy,
    Runner,
    check_callable,
    check_event,
    check_timeout,
    default_on_failure,
    matcher_fields,
)
from hookd.core.runner import choose_runner, detect_runner, wanted_input_type
from hookd.core.sessions import SessionStates

#: The attribute ``@hookd.shadow`` sets on a callback.
SHADOW_MARK = "__hookd_shadow__"

__all__ = [
    "BLOCKING_BY_DEFAULT",
    "DEFAULT_TIMEOUT_S",
    "SHADOW_MARK",
    "HookMatcher",
    "OnFailure",
    "Registration",
    "RegistrationError",
    "Registry",
    "RetryPolicy",
    "Runner",
    "default_on_failure",
    "detect_runner",
]


class _Group(msgspec.Struct):
    event: str
    matcher: str | None
    timeout_s: float | None
    on_failure: OnFailure | None
    sequential: bool
    ids: list[str] = msgspec.field(default_factory=list)


class Registry:
    """Callbacks by id; the single source of the ``initialize`` hooks map."""

    def __init__(
        self, *, default_timeout_s: float = DEFAULT_TIMEOUT_S, quarantine: Quarantine | None = None
    ) -> None:
        check_timeout(default_timeout_s, "default timeout")
        self.default_timeout_s = default_timeout_s
        self._lock = threading.Lock()
        self._by_id: dict[str, Registration] = {}
        self._groups: list[_Group] = []
        self.can_use_tool: HookCallable | None = None
        self.state = SessionStates()
        #: The hooks that failed lately, and those quarantined (:mod:`hookd.core.health`).
        self.health = Health(quarantine if quarantine is not None else Quarantine())
        #: A content hash of the module's files (set by the loader): the decision log's version.
        self.version = ""
        #: The module's own redaction patterns (its module-level ``redact`` list).
        self.redact: tuple[str, ...] = ()
        #: Every hook registered from now on is a shadow hook (``--shadow``).
        self.shadow_all = False
        #: Some registration is a shadow hook.
        self.has_shadow = False

    # -- registration -------------------------------------------------------

    def add_hooks(self, hooks: Mapping[str, Iterable[Any]]) -> list[Registration]:
        """Register an SDK-shaped ``hooks`` dict: ``{event: [HookMatcher, ...]}``."""
        if not isinstance(hooks, Mapping):
            raise RegistrationError(
                f"hooks must be a dict of event -> matchers, not {type(hooks).__name__}"
            )
        added: list[Registration] = []
        for event, matchers in hooks.items():
            if isinstance(matchers, str | bytes) or not isinstance(matchers, Iterable):
                raise RegistrationError(f"hooks[{event!r}] must be a list of HookMatcher")
            for index, m in enumerate(matchers):
                added += self.add_matcher(event, m, where=f"hooks[{event!r}][{index}]")
        return added

    def add_matcher(self, event: str, m: Any, *, where: str = "matcher") -> list[Registration]:
        """Register one matcher: a :class:`HookMatcher` or any object shaped like one."""
        check_event(event, where)
        event = str(event)  # a CustomEvent is a plain name from here on
        fields = matcher_fields(m, where)
        with self._lock:
            group = _Group(
                event,
                fields["matcher"],
                fields["timeout"],
                fields["on_failure"],
                fields["sequential"],
            )
            self._groups.append(group)
            return [self._add_locked(group, cb, fields["retry"], where) for cb in fields["hooks"]]

    def add(
        self,
        event: str,
        callback: HookCallable,
        *,
        matcher: str | None = None,
        timeout: float | None = None,
        on_failure: OnFailure | None = None,
        retry: RetryPolicy | None = None,
        runner: Runner | None = None,
    ) -> Registration:
        """Register one callback under its own matcher entry."""
        m = HookMatcher(
            matcher=matcher, hooks=[callback], timeout=timeout, on_failure=on_failure, retry=retry
        )
        reg = self.add_matcher(event, m, where=f"@hook({event!r})")[0]
        if runner is not None:
            reg = msgspec.structs.replace(
                reg, runner=runner, runner_why=f"runner={runner!r} given", runner_doubt=None
            )
            with self._lock:
                self._by_id[reg.callback_id] = reg
        return reg

    def _add_locked(
        self, group: _Group, callback: Any, retry: RetryPolicy | None, where: str
    ) -> Registration:
        check_callable(callback, where)
        callback_id = f"hook_{len(self._by_id) + 1}"
        timeout_s = group.timeout_s if group.timeout_s is not None else self.default_timeout_s
        choice = choose_runner(callback)
        reg = Registration(
            callback_id=callback_id,
            event=group.event,
            matcher=group.matcher,
            callback=callback,
            timeout_s=timeout_s,
            timeout_declared=group.timeout_s is not None,
            on_failure=group.on_failure or default_on_failure(group.event),
            runner=choice.runner,
            runner_why=choice.why,
            runner_doubt=choice.doubt,
            group=len(self._groups) - 1,
            sequential=group.sequential,
            retry=retry,
            input_type=wanted_input_type(callback),
            shadow=self.shadow_all or bool(getattr(callback, SHADOW_MARK, False)),
        )
        self.has_shadow = self.has_shadow or reg.shadow
        self._by_id[callback_id] = reg
        group.ids.append(callback_id)
        return reg

    def mark_shadow(self, callback: Any) -> None:
        """Make the registrations of ``callback`` made so far shadow hooks."""
        with self._lock:
            for callback_id, reg in self._by_id.items():
                if reg.callback is callback and not reg.shadow:
                    self._by_id[callback_id] = msgspec.structs.replace(reg, shadow=True)
                    self.has_shadow = True

    # -- lookups ------------------------------------------------------------

    def get(self, callback_id: str) -> Registration | None:
        """The registration for ``callback_id``, or None."""
        return self._by_id.get(callback_id)

    def __len__(self) -> int:
        return len(self._by_id)

    def registrations(self) -> list[Registration]:
        """Every registration in id order."""
        with self._lock:
            return list(self._by_id.values())

    def for_event(self, event: str) -> list[Registration]:
        """Every registration of ``event`` in id order."""
        return [r for r in self.registrations() if r.event == event]

    def hooks_map(self) -> dict[str, list[dict[str, Any]]]:
        """The ``hooks`` object of ``initialize``: the same ids every time."""
        out: dict[str, list[dict[str, Any]]] = {}
        with self._lock:
            for g in self._groups:
                entry: dict[str, Any] = {"matcher": g.matcher, "hookCallbackIds": list(g.ids)}
                entry["timeout"] = (
                    g.timeout_s if g.timeout_s is not None else self.default_timeout_s
                )
                entry["onFailure"] = g.on_failure or default_on_failure(g.event)
                if g.sequential:
                    entry["sequential"] = True
                out.setdefault(g.event, []).append(entry)
        return out

    def doubts(self) -> list[str]:
        """Warnings worth giving at load: callbacks whose runner may be the wrong one."""
        return [
            f"{r.callback_id} ({r.name}) runs on {r.runner}: {r.runner_doubt}"
            for r in self.registrations()
            if r.runner_doubt
        ]

    def session_state(self, session_id: str | None) -> dict[str, Any]:
        """The ``state`` dict shared by every hook of one session."""
        return self.state.for_session(session_id)

    def end_session(self, session_id: str | None) -> None:
        """Free a session's ``state`` (after its SessionEnd hooks)."""
        self.state.end(session_id)

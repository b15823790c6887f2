"""The registry: user callbacks under sequential ids ``hook_1``, ``hook_2``, ...

Ids follow registration order (event, then matcher, then callback) with one
counter per registry; registration is safe from several threads. The
``initialize`` answer is built from here, and so is every ``hook_callback``
lookup.
"""

from __future__ import annotations

import inspect
import math
import threading
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, get_type_hints

from hookd.errors import HookdError

if TYPE_CHECKING:
    from hookd.dispatch import DispatchResult

__all__ = [
    "BLOCKING_BY_DEFAULT",
    "DEFAULT_TIMEOUT_S",
    "HookMatcher",
    "Registration",
    "Registry",
    "RetryPolicy",
    "Runner",
]

OnFailure = Literal["continue", "block"]
Runner = Literal["trio", "asyncio", "thread"]
HookCallable = Callable[..., Any]

DEFAULT_TIMEOUT_S = 30.0
#: Events that block on a hook failure unless the matcher says otherwise.
BLOCKING_BY_DEFAULT = frozenset({"PreToolUse", "PermissionRequest", "UserPromptSubmit"})


class RegistrationError(HookdError):
    """A hooks module or a registration call that cannot be accepted."""


@dataclass(frozen=True, slots=True)
class RetryPolicy:
    """Retries for an idempotent hook, always inside the hook's own deadline.

    A callback is retried only when it raises :class:`hookd.RetryableHookError`
    (a command hook: when it exits with one of ``exit_codes``).
    """

    attempts: int = 3
    backoff_s: float = 0.1
    multiplier: float = 2.0
    max_backoff_s: float = 2.0
    exit_codes: frozenset[int] = frozenset()

    def __post_init__(self) -> None:
        if self.attempts < 1:
            raise RegistrationError("retry attempts must be at least 1")
        if self.backoff_s < 0 or self.max_backoff_s < 0 or self.multiplier < 1:
            raise RegistrationError("retry backoff must be >= 0 and multiplier >= 1")


@dataclass(slots=True)
class HookMatcher:
    """The Claude Agent SDK's matcher shape: which callbacks run for which tools.

    ``timeout`` is in seconds. ``on_failure`` picks the failure policy
    (``None``: the event's default). ``sequential`` and ``retry`` are hookd
    extensions.
    """

    matcher: str | None = None
    hooks: list[HookCallable] = field(default_factory=list)
    timeout: float | None = None
    on_failure: OnFailure | None = None
    sequential: bool = False
    retry: RetryPolicy | None = None


@dataclass(frozen=True, slots=True)
class Registration:
    """One callback under its id, with everything the executor needs."""

    callback_id: str
    event: str
    matcher: str | None
    callback: HookCallable
    timeout_s: float
    timeout_declared: bool
    on_failure: OnFailure
    runner: Runner
    group: int
    sequential: bool = False
    retry: RetryPolicy | None = None
    input_type: type[Any] | None = None

    @property
    def name(self) -> str:
        """A readable name for logs: the callback's qualified name."""
        return getattr(self.callback, "__qualname__", None) or repr(self.callback)


@dataclass(slots=True)
class _Group:
    event: str
    matcher: str | None
    timeout_s: float | None
    on_failure: OnFailure | None
    sequential: bool
    ids: list[str] = field(default_factory=list)


class Registry:
    """Callbacks by id; the single source of the ``initialize`` hooks map."""

    def __init__(self, *, default_timeout_s: float = DEFAULT_TIMEOUT_S) -> None:
        _check_timeout(default_timeout_s, "default timeout")
        self.default_timeout_s = default_timeout_s
        self._lock = threading.Lock()
        self._by_id: dict[str, Registration] = {}
        self._groups: list[_Group] = []
        self.can_use_tool: HookCallable | None = None
        self.state: dict[str, dict[str, Any]] = {}

    # -- registration -------------------------------------------------------

    def add_hooks(self, hooks: Mapping[str, Iterable[Any]]) -> list[Registration]:
        """Register an SDK-shaped ``hooks`` dict: ``{event: [HookMatcher, ...]}``."""
        if not isinstance(hooks, Mapping):
            raise RegistrationError(
                f"hooks must be a dict of event -> matchers, not {_kind(hooks)}"
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
        if not isinstance(event, str) or not event:
            raise RegistrationError(f"{where}: event name must be a non-empty string")
        fields = _matcher_fields(m, where)
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
            reg = _replace_runner(reg, runner)
            with self._lock:
                self._by_id[reg.callback_id] = reg
        return reg

    def _add_locked(
        self, group: _Group, callback: Any, retry: RetryPolicy | None, where: str
    ) -> Registration:
        _check_callable(callback, where)
        callback_id = f"hook_{len(self._by_id) + 1}"
        timeout_s = group.timeout_s if group.timeout_s is not None else self.default_timeout_s
        reg = Registration(
            callback_id=callback_id,
            event=group.event,
            matcher=group.matcher,
            callback=callback,
            timeout_s=timeout_s,
            timeout_declared=group.timeout_s is not None,
            on_failure=group.on_failure or default_on_failure(group.event),
            runner=detect_runner(callback),
            group=len(self._groups) - 1,
            sequential=group.sequential,
            retry=retry,
            input_type=_wanted_input_type(callback),
        )
        self._by_id[callback_id] = reg
        group.ids.append(callback_id)
        return reg

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

    async def dispatch(
        self, event: str, input_data: dict[str, Any], tool_use_id: str | None = None
    ) -> DispatchResult:
        """Run ``event``'s matching hooks and merge their outputs (see :mod:`hookd.dispatch`)."""
        from hookd.dispatch import dispatch

        return await dispatch(self, event, input_data, tool_use_id)

    def session_state(self, session_id: str | None) -> dict[str, Any]:
        """The ``state`` dict shared by every hook of one session."""
        return self.state.setdefault(session_id or "", {})


# ----------------------------------------------------------------------- helpers


def default_on_failure(event: str) -> OnFailure:
    """``block`` for events that guard an action, ``continue`` for the rest."""
    return "block" if event in BLOCKING_BY_DEFAULT else "continue"


def _kind(value: object) -> str:
    return type(value).__name__


def _check_timeout(value: object, what: str) -> None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise RegistrationError(f"{what} must be a number of seconds, not {_kind(value)}")
    if not math.isfinite(value) or value <= 0:
        raise RegistrationError(f"{what} must be a positive number of seconds, not {value!r}")


def _matcher_fields(m: Any, where: str) -> dict[str, Any]:
    if not hasattr(m, "hooks"):
        raise RegistrationError(f"{where}: expected a HookMatcher, got {_kind(m)}")
    hooks = list(getattr(m, "hooks", None) or [])
    matcher = getattr(m, "matcher", None)
    if matcher is not None and not isinstance(matcher, str):
        raise RegistrationError(f"{where}: matcher must be a string or None")
    timeout = getattr(m, "timeout", None)
    if timeout is not None:
        _check_timeout(timeout, f"{where}: timeout")
    on_failure = getattr(m, "on_failure", None)
    if on_failure not in (None, "continue", "block"):
        raise RegistrationError(f"{where}: on_failure must be 'continue', 'block' or None")
    retry = getattr(m, "retry", None)
    if retry is not None and not isinstance(retry, RetryPolicy):
        raise RegistrationError(f"{where}: retry must be a hookd.RetryPolicy")
    sequential = bool(getattr(m, "sequential", False))
    return {
        "matcher": matcher,
        "hooks": hooks,
        "timeout": timeout,
        "on_failure": on_failure,
        "retry": retry,
        "sequential": sequential,
    }


def _check_callable(callback: Any, where: str) -> None:
    if not callable(callback):
        raise RegistrationError(f"{where}: hook {callback!r} is not callable")
    try:
        inspect.signature(callback).bind(None, None, None)
    except TypeError:
        name = getattr(callback, "__qualname__", repr(callback))
        raise RegistrationError(
            f"{where}: hook {name} must accept (input_data, tool_use_id, context)"
        ) from None
    except ValueError:
        pass  # builtins without a signature: trust them


def detect_runner(callback: Any) -> Runner:
    """Where a callback runs: trio, the asyncio loop thread, or a worker thread.

    Coroutine functions run on trio unless marked (``runner="asyncio"``) or
    written for asyncio: their code uses asyncio (or the Claude Agent SDK), or
    uses neither library while their module imports asyncio and not trio.
    """
    marked = getattr(callback, "__hookd_runner__", None)
    if marked in ("trio", "asyncio", "thread"):
        return marked  # type: ignore[no-any-return]
    target = inspect.unwrap(callback)
    call = getattr(target, "__call__", None)  # noqa: B004 - callable objects
    if not (inspect.iscoroutinefunction(target) or inspect.iscoroutinefunction(call)):
        return "thread"
    fn = target if inspect.isfunction(target) else getattr(call, "__func__", call)
    globs: dict[str, Any] = getattr(fn, "__globals__", None) or {}
    code = getattr(fn, "__code__", None)
    used = _libraries(globs, _names(code)) if code is not None else set()
    if not used:
        used = _libraries(globs, globs)
        if "trio" in used:
            return "trio"
    return "asyncio" if "asyncio" in used and "trio" not in used else "trio"


def _names(code: Any) -> set[str]:
    """Global names a code object (and the code nested in it) refers to."""
    names = set(code.co_names)
    for const in code.co_consts:
        if inspect.iscode(const):
            names |= _names(const)
    return names


def _libraries(globs: Mapping[str, Any], names: Iterable[str]) -> set[str]:
    """Which of trio / asyncio the given global names come from."""
    found: set[str] = set()
    for name in names:
        value = globs.get(name)
        if value is None:
            continue
        origin = value.__name__ if inspect.ismodule(value) else getattr(value, "__module__", "")
        root = str(origin or "").split(".")[0]
        if root in ("asyncio", "claude_agent_sdk", "anyio"):
            found.add("asyncio" if root != "anyio" else "anyio")
        elif root == "trio":
            found.add("trio")
    return found


def _wanted_input_type(callback: Any) -> type[Any] | None:
    """The msgspec Struct a callback asks for as its first parameter, if any."""
    try:
        params = list(inspect.signature(callback).parameters.values())
    except (TypeError, ValueError):
        return None
    if not params:
        return None
    try:
        wanted = get_type_hints(callback).get(params[0].name)
    except Exception:  # an annotation that does not resolve: try hookd's own input types
        wanted = _event_type_named(params[0].annotation)
    import msgspec

    if isinstance(wanted, type) and issubclass(wanted, msgspec.Struct):
        return wanted
    return None


def _event_type_named(annotation: object) -> type[Any] | None:
    if not isinstance(annotation, str):
        return None
    from hookd import events

    found = getattr(events, annotation.rsplit(".", 1)[-1], None)
    return found if isinstance(found, type) else None


def _replace_runner(reg: Registration, runner: Runner) -> Registration:
    from dataclasses import replace

    return replace(reg, runner=runner)

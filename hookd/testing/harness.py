"""Load a hooks module for a test and fire events at it, in-process, as ``hookd serve`` runs them.

The same registry, executor (timeouts, runners, failure policy, output
validation) and dispatch (matchers, parallel or sequential groups, the merge)
as the server; only the transport is missing. hookd's log lines are kept out
of the test's output: a failing hook's traceback is on its
:class:`~hookd.testing.result.HookOutcome` instead.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import dataclasses
import functools
import itertools
import os
from collections.abc import Awaitable, Callable, Mapping
from typing import Any, TypeVar

import msgspec
import sniffio
import trio

from hookd import agents
from hookd.core.health import Quarantine
from hookd.core.loader import load_hooks
from hookd.core.registry import DEFAULT_TIMEOUT_S, Registry
from hookd.engine.call import HookCall
from hookd.engine.kernel import Kernel
from hookd.engine.verdict import Verdict
from hookd.errors import HookdError
from hookd.testing.capture import captured_logs
from hookd.testing.dialects import agent_payload
from hookd.testing.inputs import Inputs, tool_input_for
from hookd.testing.permission import PermissionResult, ask_permission
from hookd.testing.result import FireResult, HookOutcome

__all__ = ["Hooks", "load"]

T = TypeVar("T")
JsonObject = dict[str, Any]
_request_ids = itertools.count(1)


def load(
    spec: str,
    *,
    timeout: float = DEFAULT_TIMEOUT_S,
    validate: bool = True,
    can_use_tool: str | None = None,
    session_id: str | None = None,
    cwd: str | None = None,
    quarantine: Quarantine | None = None,
) -> Hooks:
    """Load the hooks module ``spec`` (a file path or ``package.module``) as ``hookd serve`` would.

    ``timeout`` is the default hook timeout (``hookd serve --timeout``);
    ``validate=False`` is ``--no-validate``; ``can_use_tool`` names the
    permission callback (``--can-use-tool``); ``quarantine`` when a hook
    that keeps timing out is quarantined (``--quarantine-after`` and its kin; the
    defaults otherwise). Errors in the module raise
    :class:`hookd.HookdError` with the message ``hookd check`` prints.
    """
    registry = Registry(default_timeout_s=timeout, quarantine=quarantine)
    registry = load_hooks(spec, registry, can_use_tool=can_use_tool)
    return Hooks(registry, spec, validate=validate, session_id=session_id, cwd=cwd)


class Hooks:
    """A loaded hooks module: fire events at it, ask its permission callback, read its state."""

    def __init__(
        self,
        registry: Registry,
        spec: str = "<registry>",
        *,
        validate: bool = True,
        session_id: str | None = None,
        cwd: str | None = None,
    ) -> None:
        self.registry = registry
        self.spec = spec
        self.validate = validate
        self.inputs = Inputs(session_id, cwd)
        self.kernel = Kernel(registry, validate=validate)

    # -- inputs and state ---------------------------------------------------

    @property
    def session_id(self) -> str:
        """The ``session_id`` of every input unless a test passes its own."""
        return self.inputs.session_id

    def input(
        self, event: str, /, *, extra: Mapping[str, Any] | None = None, **fields: Any
    ) -> JsonObject:
        """The input the CLI would send for ``event``, with ``fields`` overridden."""
        return self.inputs.build(event, fields, extra)

    @property
    def state(self) -> dict[str, Any]:
        """``context.state`` of this test session's hooks (the default ``session_id``)."""
        return self.registry.session_state(self.session_id)

    def session_state(self, session_id: str) -> dict[str, Any]:
        """``context.state`` of the hooks of another session."""
        return self.registry.session_state(session_id)

    def reset(self) -> None:
        """Forget the state of every session and every hook's failures, as a fresh ``hookd
        serve`` would start."""
        self.registry.state.clear()
        self.registry.health.clear()

    # -- firing -------------------------------------------------------------

    async def fire(
        self,
        event: str,
        /,
        *,
        agent: str = "claude",
        extra: Mapping[str, Any] | None = None,
        **fields: Any,
    ) -> FireResult:
        """Fire ``event`` with a realistic input (``fields`` override it); await the result.

        Runs on trio directly (pytest-trio, with its fake clock if the test uses
        one); under asyncio (pytest-asyncio, anyio) in a worker thread. With
        ``agent`` (``"gemini"``, ...) the call goes through that agent's dialect:
        see :meth:`fire_as`.
        """
        if agent != "claude":
            return await _on_any_loop(functools.partial(self._fire_as, agent, event, extra, fields))
        data = self.input(event, extra=extra, **fields)
        return await _on_any_loop(functools.partial(self._fire, event, data))

    def fire_sync(
        self,
        event: str,
        /,
        *,
        clock: trio.abc.Clock | None = None,
        agent: str = "claude",
        extra: Mapping[str, Any] | None = None,
        **fields: Any,
    ) -> FireResult:
        """:meth:`fire` for a test that is not async; ``clock`` (e.g.
        ``trio.testing.MockClock(autojump_threshold=0)``) drives the timeouts."""
        if agent != "claude":
            call = functools.partial(self._fire_as, agent, event, extra, fields)
            return _run_blocking(call, clock)
        data = self.input(event, extra=extra, **fields)
        return _run_blocking(functools.partial(self._fire, event, data), clock)

    async def ask_permission(
        self, tool_name: str, tool_input: JsonObject | None = None, **context: Any
    ) -> PermissionResult:
        """Ask the permission callback (``can_use_tool``) about one tool call."""
        call = functools.partial(self._ask, tool_name, tool_input, context)
        return await _on_any_loop(call)

    def ask_permission_sync(
        self, tool_name: str, tool_input: JsonObject | None = None, **context: Any
    ) -> PermissionResult:
        """:meth:`ask_permission` for a test that is not async."""
        return _run_blocking(functools.partial(self._ask, tool_name, tool_input, context), None)

    async def _fire(self, event: str, data: JsonObject) -> FireResult:
        request_id = f"test-{next(_request_ids)}"
        tool_use_id = data.get("tool_use_id")
        call = HookCall(
            event,
            data,
            tool_use_id if isinstance(tool_use_id, str) else None,
            request_id,
            ask_permission=True,
            via="kit",
        )
        with captured_logs(request_id) as logs:
            verdict = await self.kernel.handle(call)
        assert verdict is not None  # no scope: never withdrawn
        if verdict.problem is not None:
            raise HookdError(f"{event}: {verdict.problem.message}")
        encoded = agents.dialect("claude").encode(verdict, call)
        return dataclasses.replace(_read(event, data, verdict, logs), encoded=encoded)

    async def _fire_as(
        self, agent: str, event: str, extra: Mapping[str, Any] | None, fields: Mapping[str, Any]
    ) -> FireResult:
        """Fire through ``agent``'s dialect: its payload, decoded, answered, encoded back."""
        try:
            built = agent_payload(agents.dialect(agent), event, self.input, extra, fields)
        except ValueError as exc:
            raise HookdError(str(exc)) from None
        call = built.dialect.decode(built.agent_event, built.payload)
        if isinstance(call, agents.Unsupported):
            raise HookdError(call.reason)
        call.request_id = f"test-{next(_request_ids)}"
        with captured_logs(call.request_id) as logs:
            verdict = await self.kernel.handle(call)
        assert verdict is not None  # no scope: never withdrawn
        result = _read(call.event, call.input, verdict, logs)
        encoded = built.dialect.encode(verdict, call)
        return dataclasses.replace(result, agent=agent, payload=built.payload, encoded=encoded)

    async def _ask(
        self, tool_name: str, tool_input: JsonObject | None, context: Mapping[str, Any]
    ) -> PermissionResult:
        if tool_input is None:
            tool_input = tool_input_for(tool_name, self.inputs.cwd or os.getcwd())
        return await ask_permission(self.kernel, tool_name, tool_input, context)

    def __repr__(self) -> str:
        ids = ", ".join(
            f"{r.callback_id}={r.event}:{r.name}" for r in self.registry.registrations()
        )
        return f"<hookd.testing.Hooks {self.spec}: {ids or 'no hooks'}>"


def _read(event: str, data: JsonObject, verdict: Verdict, logs: Mapping[str, str]) -> FireResult:
    outcomes = []
    for ran in verdict.ran:
        record = ran.record()
        outcomes.append(
            HookOutcome(
                id=record.callback_id,
                name=ran.reg.name,
                outcome=record.outcome,
                elapsed_ms=record.elapsed_ms,
                output=record.output,
                error=record.error,
                traceback=logs.get(record.callback_id),
            )
        )
    conflicts = tuple(msgspec.to_builtins(c) for c in verdict.conflicts)
    return FireResult(event, data, verdict.output, tuple(outcomes), conflicts)


# ------------------------------------------------------------------- event loops


def _library() -> str | None:
    try:
        return sniffio.current_async_library()
    except sniffio.AsyncLibraryNotFoundError:
        return None


async def _on_any_loop(call: Callable[[], Awaitable[T]]) -> T:
    """Await ``call()`` on trio here, or in a thread running trio from any other loop."""
    if _library() == "trio":
        return await call()
    loop = asyncio.get_running_loop()
    return await loop.run_in_executor(None, functools.partial(trio.run, call))


def _run_blocking(call: Callable[[], Awaitable[T]], clock: trio.abc.Clock | None) -> T:
    library = _library()
    if library == "trio":
        raise HookdError("fire_sync() cannot run inside a trio test: use `await hooks.fire(...)`")
    run = functools.partial(trio.run, call, clock=clock)
    if library is None:
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            return run()
    with concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="hookd-testing") as pool:
        return pool.submit(run).result()

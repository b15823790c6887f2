"""Claude Code command hooks served as hookd callbacks.

A :class:`CommandHook` is an ordinary async callback, so the executor gives it
the same deadline, retries, output validation and failure policy as a Python
hook. Each call runs the command with the hook input as JSON on stdin, in the
input's ``cwd``, in its own process group (killed as a whole on timeout); the
exit status becomes the answer as :mod:`hookd.command.exit_code` says. A command that
cannot start is a non-blocking error, like a non-zero exit.
"""

from __future__ import annotations

import os
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any, Final

import msgspec
import structlog

from hookd.command.exit_code import CommandHookError, clip, fails_hook, interpret, text
from hookd.command.process import GRACE_S, run_process
from hookd.command.result import MAX_OUTPUT_BYTES, Finished
from hookd.core.context import HookContext
from hookd.core.registry import OnFailure, Registration, Registry, RetryPolicy
from hookd.errors import RetryableHookError

__all__ = ["CommandHook", "add_command"]

log = structlog.get_logger("hookd.command")

_LABEL_CHARS: Final = 60
_LOG_CHARS: Final = 2000

Spawn = Callable[..., Awaitable[Finished]]


class CommandHook:
    """One command hook: ``sh -c COMMAND`` (or ``COMMAND ARGS...``) per call.

    ``retry`` must be the policy the hook is registered with (:func:`add_command`
    does both): an exit status in ``retry.exit_codes`` asks for another attempt,
    except on the last one, which is answered like any other exit.
    """

    __hookd_runner__: Final = "trio"

    def __init__(
        self,
        command: str,
        *,
        args: Sequence[str] | None = None,
        shell: str = "sh",
        project_dir: str | None = None,
        retry: RetryPolicy | None = None,
        max_output_bytes: int = MAX_OUTPUT_BYTES,
        grace_s: float = GRACE_S,
        spawn: Spawn = run_process,
    ) -> None:
        self.command = command
        self.argv = [command, *args] if args is not None else [shell, "-c", command]
        self.project_dir = project_dir
        self.retry = retry
        self.max_output_bytes = max_output_bytes
        self.grace_s = grace_s
        self.spawn = spawn
        self.label = clip(" ".join([command, *(args or [])]), _LABEL_CHARS)
        self.__qualname__ = f"command `{self.label}`"

    def __repr__(self) -> str:
        return f"CommandHook({self.argv!r})"

    async def __call__(
        self, input_data: dict[str, Any], tool_use_id: str | None, context: HookContext
    ) -> dict[str, Any]:
        started = time.monotonic()
        try:
            done = await self.spawn(
                self.argv,
                input_bytes=msgspec.json.encode(input_data),
                cwd=_cwd(input_data) or self.project_dir or os.environ.get("CLAUDE_PROJECT_DIR"),
                env=self.environment(input_data, context),
                max_output_bytes=self.max_output_bytes,
                grace_s=self.grace_s,
            )
        except (OSError, ValueError) as exc:  # ValueError: a NUL byte in the command
            return self._not_started(context, exc)
        self._log(context, done, started)
        if self._retryable(done.returncode, context):
            raise RetryableHookError(f"{self.label} exited with {done.returncode}")
        return interpret(context.event, done, self.label, self.max_output_bytes)

    def environment(self, input_data: Mapping[str, Any], context: HookContext) -> dict[str, str]:
        """hookd's environment plus ``CLAUDE_PROJECT_DIR`` and the ``HOOKD_*`` variables."""
        env = dict(os.environ)
        project = self.project_dir or env.get("CLAUDE_PROJECT_DIR") or _cwd(input_data)
        env["CLAUDE_PROJECT_DIR"] = project or os.getcwd()
        env["HOOKD_EVENT"] = context.event
        env["HOOKD_CALLBACK_ID"] = context.callback_id
        env["HOOKD_ATTEMPT"] = str(context.attempt)
        return env

    def _retryable(self, returncode: int, context: HookContext) -> bool:
        policy = self.retry
        return (
            policy is not None
            and returncode in policy.exit_codes
            and context.attempt < policy.attempts
        )

    def _not_started(self, context: HookContext, exc: Exception) -> dict[str, Any]:
        reason = str(exc)
        if isinstance(exc, OSError) and exc.strerror:
            reason = exc.strerror + (f": {exc.filename}" if exc.filename else "")
        message = f"hook command `{self.label}` could not start: {reason}"
        log.warning(
            "command.not_started",
            request_id=context.request_id,
            callback_id=context.callback_id,
            _event=context.event,
            error=message,
        )
        if fails_hook(context.event):
            raise CommandHookError(message)
        return {"systemMessage": message}

    def _log(self, context: HookContext, done: Finished, started: float) -> None:
        level = log.info if done.returncode == 0 else log.warning
        level(
            "command.exited",
            request_id=context.request_id,
            callback_id=context.callback_id,
            _event=context.event,
            command=self.label,
            exit_code=done.returncode,
            attempt=context.attempt,
            elapsed_ms=round((time.monotonic() - started) * 1000, 3),
            stdout=clip(text(done.stdout), _LOG_CHARS) or None,
            stderr=clip(text(done.stderr), _LOG_CHARS) or None,
        )


def _cwd(input_data: Mapping[str, Any]) -> str | None:
    """The input's ``cwd``, only if it is an absolute path to an existing directory.

    It comes from the wire: anything else is ignored rather than trusted.
    """
    cwd = input_data.get("cwd")
    if isinstance(cwd, str) and "\0" not in cwd and os.path.isabs(cwd) and os.path.isdir(cwd):
        return cwd
    return None


def add_command(
    registry: Registry,
    event: str,
    command: str,
    *,
    matcher: str | None = None,
    timeout: float | None = None,
    on_failure: OnFailure | None = None,
    retry: RetryPolicy | None = None,
    args: Sequence[str] | None = None,
    shell: str = "sh",
    project_dir: str | None = None,
) -> Registration:
    """Register a command hook for ``event`` (``timeout`` in seconds), like ``Registry.add``."""
    hook = CommandHook(command, args=args, shell=shell, project_dir=project_dir, retry=retry)
    return registry.add(
        event,
        hook,
        matcher=matcher,
        timeout=timeout,
        on_failure=on_failure,
        retry=retry,
        runner="trio",
    )

"""Retries for idempotent hooks, on tenacity, inside the hook's own deadline.

Imported only when a hook has a retry policy: tenacity stays off the start-up path.
"""

from __future__ import annotations

import structlog
import tenacity
import trio

from hookd.core.context import HookContext
from hookd.core.registry import Registration
from hookd.errors import RetryableHookError

__all__ = ["retrying"]

log = structlog.get_logger("hookd.retry")


def retrying(reg: Registration, ctx: HookContext) -> tenacity.AsyncRetrying:
    """A tenacity loop for ``reg``: retries only on :class:`RetryableHookError`."""
    policy = reg.retry
    assert policy is not None

    def before_sleep(state: tenacity.RetryCallState) -> None:
        ctx.attempt = state.attempt_number + 1
        exc = state.outcome.exception() if state.outcome else None
        log.warning(
            "hook.retrying",
            request_id=ctx.request_id,
            callback_id=reg.callback_id,
            attempt=state.attempt_number,
            error=str(exc) or type(exc).__name__,
            sleep_s=round(state.upcoming_sleep, 3),
        )

    return tenacity.AsyncRetrying(
        stop=tenacity.stop_after_attempt(policy.attempts),
        wait=tenacity.wait_exponential(
            multiplier=policy.backoff_s, exp_base=policy.multiplier, max=policy.max_backoff_s
        ),
        retry=tenacity.retry_if_exception_type(RetryableHookError),
        sleep=trio.sleep,
        before_sleep=before_sleep,
        reraise=True,
    )

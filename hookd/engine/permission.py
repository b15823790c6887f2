"""``can_use_tool``: permission questions answered by the hooks module's callback.

The callback is ``can_use_tool(tool_name, input, context)`` and returns an
allow (optionally with a rewritten input) or a deny with a message: a dict with
``behavior``, or the Claude Agent SDK's ``PermissionResultAllow`` /
``PermissionResultDeny`` objects.
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass, field
from typing import Any

import structlog
import trio

from hookd import wire
from hookd.core.policy import Answer
from hookd.core.registry import Registry, detect_runner
from hookd.engine.aio import run_on_asyncio
from hookd.engine.tracebacks import user_traceback
from hookd.wire.errors import NO_PERMISSION_CALLBACK_TEXT, ErrorKind

__all__ = ["PermissionContext", "answer_can_use_tool", "permission_payload"]

log = structlog.get_logger("hookd.permission")


@dataclass(slots=True)
class PermissionContext:
    """The third argument of ``can_use_tool``, shaped like the SDK's context."""

    request_id: str | int | None
    tool_use_id: str | None
    suggestions: list[Any] = field(default_factory=list)
    blocked_path: str | None = None
    decision_reason: str | None = None
    agent_id: str | None = None
    signal: None = None


async def answer_can_use_tool(
    registry: Registry, request_id: wire.RequestId | None, body: wire.CanUseTool
) -> Answer:
    """Run the permission callback with hookd's default timeout; shape its answer."""
    fn = registry.can_use_tool
    if fn is None:
        return Answer(
            "unsupported",
            error_kind=ErrorKind.UNSUPPORTED_REQUEST,
            message=NO_PERMISSION_CALLBACK_TEXT,
        )
    ctx = PermissionContext(
        request_id,
        body.tool_use_id,
        list(body.permission_suggestions or []),
        body.blocked_path,
        body.decision_reason,
        body.agent_id,
    )
    with trio.move_on_after(registry.default_timeout_s) as scope:
        try:
            result = await _call(fn, body.tool_name, body.input, ctx)
            payload = permission_payload(result, body.input)
        except Exception as exc:
            log.error(
                "permission.raised",
                request_id=request_id,
                error=repr(exc),
                traceback=user_traceback(exc),
            )
            return Answer(
                "exception",
                error_kind=ErrorKind.HOOK_EXECUTION_ERROR,
                message=str(exc) or type(exc).__name__,
            )
    if scope.cancelled_caught:
        return Answer(
            "timeout",
            error_kind=ErrorKind.HOOK_TIMEOUT,
            message=f"can_use_tool gave no answer within {registry.default_timeout_s:g}s",
        )
    return Answer("ok", payload=payload, event="can_use_tool")


async def _call(fn: Any, tool_name: str, tool_input: dict[str, Any], ctx: Any) -> Any:
    match detect_runner(fn):
        case "trio":
            return await fn(tool_name, tool_input, ctx)
        case "asyncio":
            return await run_on_asyncio(fn, tool_name, tool_input, ctx)
        case _:
            result = await trio.to_thread.run_sync(
                fn, tool_name, tool_input, ctx, abandon_on_cancel=True
            )
            if inspect.isawaitable(result):
                raise TypeError("can_use_tool returned an awaitable from a plain function")
            return result


def permission_payload(result: Any, original_input: dict[str, Any]) -> dict[str, Any]:
    """The wire answer for a permission result (dict or SDK object)."""
    fields = result if isinstance(result, dict) else _object_fields(result)
    behavior = fields.get("behavior")
    if behavior == "allow":
        updated = fields.get("updatedInput", fields.get("updated_input"))
        out: dict[str, Any] = {
            "behavior": "allow",
            "updatedInput": updated if updated is not None else original_input,
        }
        perms = fields.get("updatedPermissions", fields.get("updated_permissions"))
        if perms:
            out["updatedPermissions"] = [_to_dict(p) for p in perms]
        return out
    if behavior == "deny":
        deny: dict[str, Any] = {"behavior": "deny", "message": str(fields.get("message") or "")}
        if fields.get("interrupt"):
            deny["interrupt"] = True
        return deny
    raise TypeError(
        "can_use_tool must return an allow or a deny (a dict with 'behavior', or "
        f"PermissionResultAllow / PermissionResultDeny), not {type(result).__name__}"
    )


def _object_fields(result: Any) -> dict[str, Any]:
    names = ("behavior", "updated_input", "updated_permissions", "message", "interrupt")
    return {n: getattr(result, n) for n in names if hasattr(result, n)}


def _to_dict(value: Any) -> Any:
    to_dict = getattr(value, "to_dict", None)
    return to_dict() if callable(to_dict) else value

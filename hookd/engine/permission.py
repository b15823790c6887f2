"""``can_use_tool``: the permission callback, run as one more hook.

The callback is ``can_use_tool(tool_name, input, context)`` and returns an
allow (optionally with a rewritten input) or a deny with a message: a dict with
``behavior``, or the Claude Agent SDK's ``PermissionResultAllow`` /
``PermissionResultDeny`` objects. hookd wraps it in a :class:`Registration`
(:func:`permission_registration`) so the executor runs it as it runs every
hook: the same deadline, runners, watchdog and exception recovery. Its result
is checked by :func:`permission_payload`: anything but an allow or a deny is an
invalid output.
"""

from __future__ import annotations

from typing import Any, Final

import msgspec

from hookd.core.context import HookContext
from hookd.core.registration import HookCallable, Registration
from hookd.core.registry import detect_runner
from hookd.errors import InvalidOutputError

__all__ = [
    "PERMISSION_ID",
    "PermissionContext",
    "permission_output",
    "permission_payload",
    "permission_registration",
]

#: The callback id the permission callback runs under (logs, stats, records).
PERMISSION_ID: Final = "can_use_tool"


class PermissionContext(HookContext, kw_only=True):
    """The third argument of ``can_use_tool``: the SDK's fields plus a hook's context."""

    suggestions: list[Any] = msgspec.field(default_factory=list)
    blocked_path: str | None = None
    decision_reason: str | None = None
    agent_id: str | None = None


def permission_registration(fn: HookCallable, event: str, timeout_s: float) -> Registration:
    """``fn`` as a hook of ``event`` (its input: ``{"tool_name", "tool_input"}``)."""
    runner = detect_runner(fn)
    callback: HookCallable
    if runner == "thread":

        def callback(data: dict[str, Any], _tool_use_id: str | None, ctx: Any) -> Any:
            return fn(data["tool_name"], data["tool_input"], ctx)

    else:

        async def callback(data: dict[str, Any], _tool_use_id: str | None, ctx: Any) -> Any:
            return await fn(data["tool_name"], data["tool_input"], ctx)

    callback.__qualname__ = getattr(fn, "__qualname__", PERMISSION_ID)
    return Registration(
        callback_id=PERMISSION_ID,
        event=event,
        matcher=None,
        callback=callback,
        timeout_s=timeout_s,
        timeout_declared=False,
        on_failure="block",
        runner=runner,
        group=0,
    )


def permission_payload(result: Any) -> dict[str, Any]:
    """The wire answer for a permission result (dict or SDK object); raises
    :class:`InvalidOutputError` for anything that is neither an allow nor a deny.

    An allow without ``updatedInput`` is left without it: the caller fills in the original.
    """
    fields = result if isinstance(result, dict) else _object_fields(result)
    behavior = fields.get("behavior")
    if behavior == "allow":
        out: dict[str, Any] = {"behavior": "allow"}
        updated = fields.get("updatedInput", fields.get("updated_input"))
        if updated is not None:
            out["updatedInput"] = updated
        perms = fields.get("updatedPermissions", fields.get("updated_permissions"))
        if perms:
            out["updatedPermissions"] = [_to_dict(p) for p in perms]
        return out
    if behavior == "deny":
        deny: dict[str, Any] = {"behavior": "deny", "message": str(fields.get("message") or "")}
        if fields.get("interrupt"):
            deny["interrupt"] = True
        return deny
    raise InvalidOutputError(
        "can_use_tool must return an allow or a deny (a dict with 'behavior', or "
        f"PermissionResultAllow / PermissionResultDeny), not {type(result).__name__}"
    )


def permission_output(event: str, payload: dict[str, Any]) -> dict[str, Any]:
    """A permission answer as a PermissionRequest hook's output (``decision``)."""
    return {"hookSpecificOutput": {"hookEventName": event, "decision": payload}}


def _object_fields(result: Any) -> dict[str, Any]:
    names = ("behavior", "updated_input", "updated_permissions", "message", "interrupt")
    return {n: getattr(result, n) for n in names if hasattr(result, n)}


def _to_dict(value: Any) -> Any:
    to_dict = getattr(value, "to_dict", None)
    return to_dict() if callable(to_dict) else value

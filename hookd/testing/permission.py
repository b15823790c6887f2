"""Asking a hooks module's permission callback (``can_use_tool``) in a test, as the CLI asks it."""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from hookd.engine.handler import Handler, PermissionCall
from hookd.testing.capture import captured_logs

__all__ = ["PermissionResult", "ask_permission"]

JsonObject = dict[str, Any]
_ids = itertools.count(1)


@dataclass(frozen=True, slots=True)
class PermissionResult:
    """The answer the CLI would get: ``behavior`` allow / deny, or ``error`` when the
    callback failed (raised, timed out, returned something else, or there is none)."""

    behavior: Literal["allow", "deny", "error"]
    output: JsonObject | None
    message: str | None = None
    error: str | None = None

    @property
    def updated_input(self) -> JsonObject | None:
        return None if self.output is None else self.output.get("updatedInput")

    @property
    def allowed(self) -> bool:
        return self.behavior == "allow"


async def ask_permission(
    handler: Handler, tool_name: str, tool_input: JsonObject, context: Mapping[str, Any]
) -> PermissionResult:
    """Ask the module's ``can_use_tool`` as ``hookd serve`` answers a ``can_use_tool`` request.

    ``context`` takes the request's own fields: ``tool_use_id``,
    ``permission_suggestions``, ``blocked_path``, ``decision_reason``, ``agent_id``.
    """
    fields = dict(context)
    if "permission_suggestions" in fields:
        fields["suggestions"] = fields.pop("permission_suggestions")
    request_id = f"permission-{next(_ids)}"
    call = PermissionCall(tool_name, tool_input, request_id=request_id, **fields)
    with captured_logs(request_id):
        answer = await handler.permission(call)
    assert answer is not None  # no scope: never withdrawn
    if answer.payload is None:
        return PermissionResult("error", None, error=answer.message)
    payload = answer.payload
    message = payload.get("message")
    return PermissionResult(
        payload["behavior"], payload, message if isinstance(message, str) else None
    )

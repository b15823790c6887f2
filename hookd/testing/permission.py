"""Asking a hooks module's permission callback (``can_use_tool``) in a test, as the CLI asks it."""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from hookd.engine.call import PermissionCall
from hookd.engine.kernel import Kernel
from hookd.testing.capture import captured_logs

__all__ = ["PermissionResult", "ask_permission"]

JsonObject = dict[str, Any]
_ids = itertools.count(1)


@dataclass(frozen=True, slots=True)
class PermissionResult:
    """The answer the CLI would get: ``behavior`` allow / deny, or ``error`` when the
    callback failed (raised, timed out, returned something else, or there is none);
    ``outcome`` names how it ended, as hookd's log does (``ok``, ``aborted``,
    ``exception``, ``timeout``, ``invalid_output``, ``unsupported`` ...)."""

    behavior: Literal["allow", "deny", "error"]
    output: JsonObject | None
    message: str | None = None
    error: str | None = None
    outcome: str = "ok"

    @property
    def updated_input(self) -> JsonObject | None:
        return None if self.output is None else self.output.get("updatedInput")

    @property
    def allowed(self) -> bool:
        return self.behavior == "allow"


async def ask_permission(
    kernel: Kernel, tool_name: str, tool_input: JsonObject, context: Mapping[str, Any]
) -> PermissionResult:
    """Ask the module's ``can_use_tool`` as ``hookd serve`` answers a ``can_use_tool`` request.

    ``context`` takes the request's own fields: ``tool_use_id``,
    ``permission_suggestions``, ``blocked_path``, ``decision_reason``, ``agent_id``.
    """
    fields = dict(context)
    if "permission_suggestions" in fields:
        fields["suggestions"] = fields.pop("permission_suggestions")
    request_id = f"permission-{next(_ids)}"
    call = PermissionCall(tool_name, tool_input, request_id=request_id, via="kit", **fields)
    with captured_logs(request_id):
        verdict = await kernel.handle(call)
    assert verdict is not None  # no scope: never withdrawn
    if verdict.problem is not None:
        return PermissionResult(
            "error", None, error=verdict.problem.message, outcome=verdict.outcome
        )
    answer = verdict.ran[0].answer
    if answer.payload is None:
        return PermissionResult("error", None, error=answer.message, outcome=answer.outcome)
    payload = answer.payload
    message = payload.get("message")
    return PermissionResult(
        payload["behavior"],
        payload,
        message if isinstance(message, str) else None,
        outcome=answer.outcome,
    )

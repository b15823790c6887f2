"""What every agent dialect shares: the table type, decoding by table, and the answer's meaning.

A :class:`Dialect` is data: the agent's event names, tool names and input
field renames, each mapped onto Claude Code's (the vocabulary hooks are
written in). :func:`decode` applies the tables to one payload and gives the
:class:`~hookd.engine.call.HookCall` the kernel answers;
:func:`payload` applies them backwards (the testing kit builds an agent's
real payload from Claude's). Only the encoder, which turns the verdict into
what the agent accepts, is code, one per agent beside its table; each reads
the verdict through :class:`Intent`, the merged Claude-shaped output taken
apart into what it means.

When hookd could not answer a call at all (no hooks loaded, a bad input), a
blocking event (:data:`BLOCKING`) gets a deny in every dialect: exit 2 with
one line on stderr, which every agent reads as "do not run it".
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Annotated, Any, Final, get_args, get_origin

import msgspec

from hookd.blocking import BLOCKING_EVENTS
from hookd.engine.call import HookCall
from hookd.engine.verdict import Verdict
from hookd.events import EVENTS

__all__ = [
    "BLOCKING",
    "Dialect",
    "Encoded",
    "Intent",
    "Unsupported",
    "decode",
    "failed_closed",
    "payload",
]

#: Claude events whose call gates something: hookd failing to answer means "no".
BLOCKING: Final = BLOCKING_EVENTS

#: What the agent must send itself: without them the input is invalid (a blocking call fails
#: closed) rather than a tool named "" that no matcher selects.
_NEVER_FILLED: Final = frozenset({"tool_name", "tool_input"})
#: What a missing required input field of Claude's is filled with, by its type.
_ZERO: Final[dict[Any, Any]] = {str: "", bool: False}


class Unsupported(msgspec.Struct, frozen=True):
    """An agent event hookd does not map (no Claude Code counterpart): the reason, one line."""

    reason: str


class Encoded(msgspec.Struct, frozen=True):
    """What the agent's command hook prints and exits with.

    stderr carries text only with a non-zero exit, and stdout only with exit
    0: one of the two is the answer (the HTTP route sends just that one).
    """

    stdout: bytes = b""
    exit_code: int = 0
    stderr: str = ""

    @property
    def stdout_json(self) -> dict[str, Any] | None:
        """stdout parsed as JSON (None when it is empty)."""
        if not self.stdout:
            return None
        parsed: dict[str, Any] = json.loads(self.stdout)
        return parsed


Encoder = Callable[["Verdict", HookCall], Encoded]
#: Reshapes a decoded input (after the renames) into Claude's: per agent, optional.
Reshape = Callable[[dict[str, Any]], dict[str, Any]]


class Dialect(msgspec.Struct, frozen=True):
    """One agent's dialect as tables, plus its encoder.

    ``events`` and ``tools`` map the agent's names to Claude's; ``fields``
    renames top-level input fields (agent name to Claude name); ``extra``
    lists the fields the agent adds that Claude lacks, dropped when the kit
    builds a payload from Claude's for another agent.
    """

    agent: str
    events: Mapping[str, str]
    tools: Mapping[str, str]
    encoder: Encoder
    fields: Mapping[str, str] = msgspec.field(default_factory=dict)
    sent: frozenset[str] | None = None  # the top-level fields the agent sends (None: all)
    reshape: Reshape | None = None
    unshape: Reshape | None = None

    def claude_event(self, agent_event: str) -> str | None:
        """Claude's name for the agent's event (None: no counterpart)."""
        return self.events.get(agent_event)

    def agent_event(self, claude_event: str) -> str | None:
        """The agent's name for Claude's event (the first listed, when there are several)."""
        for theirs, ours in self.events.items():
            if ours == claude_event:
                return theirs
        return None

    def agent_tool(self, claude_tool: str) -> str:
        for theirs, ours in self.tools.items():
            if ours == claude_tool:
                return theirs
        return claude_tool

    def decode(self, agent_event: str, body: dict[str, Any]) -> HookCall | Unsupported:
        return decode(self, agent_event, body)

    def encode(self, verdict: Verdict, call: HookCall) -> Encoded:
        return self.encoder(verdict, call)


def decode(dialect: Dialect, agent_event: str, body: dict[str, Any]) -> HookCall | Unsupported:
    """The call in Claude's vocabulary for one payload of ``dialect``'s agent."""
    event = dialect.claude_event(agent_event)
    if event is None:
        return Unsupported(f"{dialect.agent} event {agent_event!r} has no Claude Code counterpart")
    data = {dialect.fields.get(key, key): value for key, value in body.items()}
    if dialect.reshape is not None:
        data = dialect.reshape(data)
    data["hook_event_name"] = event
    own_tool = data.get("tool_name")
    if isinstance(own_tool, str):
        data["tool_name"] = dialect.tools.get(own_tool, own_tool)
    _fill_required(event, data)
    tool_use_id = data.get("tool_use_id")
    return HookCall(
        event,
        data,
        tool_use_id if isinstance(tool_use_id, str) and tool_use_id else None,
        agent=dialect.agent,
        ask_permission=True,
        agent_event=agent_event,
        agent_tool=own_tool if isinstance(own_tool, str) else None,
        via=f"agent/{dialect.agent}",
        shows_message=shows_message(dialect, agent_event),
    )


#: (agent, agent event) -> whether its answer shows a ``systemMessage`` (found once each).
_SHOWN: dict[tuple[str, str], bool] = {}
_PROBE: Final = "hookd-probe-message"


def shows_message(dialect: Dialect, agent_event: str) -> bool:
    """Whether ``dialect``'s answer to ``agent_event`` carries a ``systemMessage`` to the
    user: found by encoding one, once per event (a session's note waits for such an answer)."""
    found = _SHOWN.get((dialect.agent, agent_event))
    if found is None:
        event = dialect.claude_event(agent_event) or agent_event
        call = HookCall(event, {}, agent=dialect.agent, agent_event=agent_event)
        encoded = dialect.encode(Verdict(event, output={"systemMessage": _PROBE}), call)
        shown = encoded.stdout_json if encoded.exit_code == 0 and encoded.stdout else None
        found = shown is not None and _PROBE in str(shown.get("systemMessage", ""))
        _SHOWN[dialect.agent, agent_event] = found
    return found


def _fill_required(event: str, data: dict[str, Any]) -> None:
    """Give each required Claude field the agent does not send (or sends as null, as Codex's
    ``transcript_path``) its type's zero value."""
    spec = EVENTS.get(event)
    if spec is None:
        return
    for field in msgspec.structs.fields(spec.input_type):
        name, kind = field.encode_name, field.type
        if not field.required or data.get(name) is not None or name in _NEVER_FILLED:
            continue
        if get_origin(kind) is Annotated:
            kind = get_args(kind)[0]
        if name not in data or kind in _ZERO:  # missing, or null where Claude has a string
            data[name] = _ZERO.get(kind)


def payload(
    dialect: Dialect,
    claude_event: str,
    claude_input: dict[str, Any],
    agent_event: str | None = None,
) -> dict[str, Any]:
    """The payload ``dialect``'s agent sends for a Claude-shaped input (the kit's direction);
    ``agent_event`` picks one of several names the agent has for the event."""
    back = {ours: theirs for theirs, ours in dialect.fields.items()}
    data = dict(claude_input)
    tool = data.get("tool_name")
    if isinstance(tool, str):
        data["tool_name"] = dialect.agent_tool(tool)
    agent_event = agent_event or dialect.agent_event(claude_event) or claude_event
    data["hook_event_name"] = agent_event
    data = {back.get(key, key): value for key, value in data.items()}
    if dialect.unshape is not None:
        data = dialect.unshape(data)
    if dialect.sent is not None:
        data = {key: value for key, value in data.items() if key in dialect.sent}
    return data


class Intent(msgspec.Struct):
    """A merged Claude-shaped output, taken apart into what it asks of the agent.

    ``decision`` is the tool decision (PreToolUse ``permissionDecision``, or
    a PermissionRequest ``behavior``); ``block`` the top-level
    ``decision: "block"`` of the other events; ``halt`` is ``continue: false``.
    """

    event: str
    decision: str | None = None
    reason: str | None = None
    updated_input: dict[str, Any] | None = None
    context: str | None = None
    block: bool = False
    block_reason: str | None = None
    halt: bool = False
    stop_reason: str | None = None
    system_message: str | None = None
    interrupt: bool = False

    @classmethod
    def of(cls, verdict: Verdict) -> Intent:
        output = verdict.with_notes()
        specific = output.get("hookSpecificOutput")
        specific = specific if isinstance(specific, dict) else {}
        intent = cls(
            verdict.event,
            decision=_str(specific.get("permissionDecision")),
            reason=_str(specific.get("permissionDecisionReason")),
            updated_input=_dict(specific.get("updatedInput")),
            context=_str(specific.get("additionalContext")),
            block=output.get("decision") == "block",
            block_reason=_str(output.get("reason")),
            halt=output.get("continue") is False,
            stop_reason=_str(output.get("stopReason")),
            system_message=_str(output.get("systemMessage")),
        )
        permission = specific.get("decision")
        if isinstance(permission, dict):  # PermissionRequest's {behavior, message, ...}
            intent.decision = _str(permission.get("behavior"))
            intent.reason = _str(permission.get("message"))
            intent.updated_input = _dict(permission.get("updatedInput"))
            intent.interrupt = permission.get("interrupt") is True
        return intent

    @property
    def empty(self) -> bool:
        """True when the output asks nothing of the agent."""
        return self == Intent(self.event)

    def tool_decision(self, approval_needed: str) -> tuple[str | None, str | None]:
        """The PreToolUse decision of an agent that knows only allow and deny, and its reason:
        a halt, a block and an ask are denials (an ask says ``approval_needed`` first); an
        input rewrite that no hook denied is an allow."""
        if self.halt:
            return "deny", self.stop_reason
        if self.block:
            return "deny", self.block_reason
        if self.decision == "ask":
            return "deny", f"{approval_needed}: {self.reason}" if self.reason else approval_needed
        if self.decision == "deny":
            return "deny", self.reason
        if self.updated_input is not None and self.decision in (None, "allow"):
            return "allow", None
        return None, None


def failed_closed(verdict: Verdict, agent: str) -> Encoded | None:
    """Exit 2 and a one-line reason when hookd could not answer a blocking call; else None."""
    problem = verdict.problem
    if problem is None:
        return None
    reason = " ".join(problem.message.split())
    if verdict.event not in BLOCKING:  # a non-blocking error in every agent: shown, not obeyed
        return Encoded(exit_code=1, stderr=f"hookd: {reason}")
    return Encoded(exit_code=2, stderr=f"hookd could not check this {agent} call: {reason}")


def dumps(value: dict[str, Any]) -> bytes:
    """Compact JSON for stdout; nothing at all for an empty object."""
    return json.dumps(value, separators=(",", ":")).encode() if value else b""


def _str(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _dict(value: Any) -> dict[str, Any] | None:
    return value if isinstance(value, dict) else None

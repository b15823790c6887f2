"""The process ``hookd whatif`` starts: it loads the candidate module and answers stored calls.

``python -P -m hookd.cli.whatif_child CANDIDATE``. Each call goes through the
testing kit (:func:`hookd.testing.load`, ``fire_sync(event, agent=...)``), so
through the one request handler and, for another agent's call, through that
agent's dialect, as the daemon would answer it. No decision log is kept.

The wire is JSON lines on private duplicates of fds 0 and 1 (fd 1 then points
at stderr, so a hook that prints cannot corrupt it). The first line out is
``{"loaded": {"version": ..., "redact": [...]}}`` or ``{"error": "..."}`` (the
load error, then exit 1); then one line out per line in: ``{"event", "agent",
"input"}`` in, ``{"decision", "reason", "hooks", "failure"}`` out.
"""

from __future__ import annotations

import json
import os
import sys
from typing import IO, Any

import msgspec

from hookd.decision.meaning import decision_of, failure_word
from hookd.errors import HookdError
from hookd.events import EVENTS
from hookd.testing import OMIT, Hooks, load

__all__ = ["answer", "main"]


def _wire() -> tuple[IO[str], IO[str]]:
    """Private duplicates of stdin and stdout; fd 1 then writes to stderr, fd 0 reads nothing."""
    reader = os.fdopen(os.dup(0), "r", encoding="utf-8")
    writer = os.fdopen(os.dup(1), "w", encoding="utf-8")
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    return reader, writer


def _fields(event: str, data: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """The stored input as the kit's fields (the rest left out) and extra fields."""
    spec = EVENTS.get(event)
    if spec is None:
        raise HookdError(f"{event!r} is not a hook event")
    known = {f.encode_name for f in msgspec.structs.fields(spec.input_type)}
    fields = {name: data.get(name, OMIT) for name in known}
    return fields, {k: v for k, v in data.items() if k not in known}


def answer(hooks: Hooks, event: str, agent: str, data: dict[str, Any]) -> dict[str, Any]:
    """What ``hooks`` decides on one stored call, in the decision log's words."""
    try:
        fields, extra = _fields(event, data)
        result = hooks.fire_sync(event, agent=agent, extra=extra, **fields)
    except HookdError as exc:  # an input hookd cannot run (it says why)
        return {"decision": "none", "reason": str(exc), "hooks": [], "failure": "refused"}
    decision, reason = decision_of(result.output)
    failures = [(h.name, word) for h in result.hooks if (word := failure_word(h.outcome))]
    names = [h.name for h in result.hooks if h.output and decision_of(h.output)[0] == decision]
    if decision == "none" or not names:  # nothing decided, or a failure did (its policy)
        names = [name for name, _ in failures]
    return {
        "decision": decision,
        "reason": reason,
        "hooks": list(dict.fromkeys(names)),
        "failure": failures[0][1] if failures else None,
    }


def _send(writer: IO[str], message: dict[str, Any]) -> None:
    writer.write(json.dumps(message, default=repr) + "\n")
    writer.flush()


def main(argv: list[str] | None = None) -> int:
    """Load the candidate named in ``argv``, then answer calls until stdin ends."""
    (candidate,) = sys.argv[1:] if argv is None else argv
    reader, writer = _wire()
    try:
        hooks = load(candidate)
    except Exception as exc:  # the module's own error, as `hookd check` words it
        _send(writer, {"error": " ".join(str(exc).split()) or type(exc).__name__})
        return 1
    version = hooks.registry.version
    _send(writer, {"loaded": {"version": version, "redact": list(hooks.registry.redact)}})
    for line in reader:
        call = json.loads(line)
        _send(writer, answer(hooks, call["event"], call["agent"], call["input"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())

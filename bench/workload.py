"""The requests every contender is fed, pre-encoded, and the check of their answers.

A :class:`Block` holds ``n`` ``hook_callback`` lines joined in one ``bytes`` plus
the offset of each line, so the client can write any run of requests as one
zero-copy slice. Long runs cycle through the block; a request id then comes back
only after ``n`` other requests, far more than any window keeps in flight.
"""

from __future__ import annotations

import random
from array import array
from dataclasses import dataclass
from typing import Any, Final

import msgspec

__all__ = [
    "ALLOW",
    "INIT_REQUEST",
    "AnswerError",
    "Block",
    "build_block",
    "callback_id_of",
    "check_answers",
    "single_request",
]

ALLOW: Final[dict[str, Any]] = {
    "hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "allow"}
}
INIT_REQUEST: Final = (
    b'{"type":"control_request","request_id":"init","request":{"subtype":"initialize"}}\n'
)

SESSION_ID: Final = "5c1e9a4e-3f0b-4d7a-9a39-2f4c8b7e0d11"
CWD: Final = "/home/dev/acme-api"
TRANSCRIPT: Final = f"/home/dev/.claude/projects/-home-dev-acme-api/{SESSION_ID}.jsonl"
COMMANDS: Final = (
    ("git status --short", "Show working tree status"),
    ("git diff --stat HEAD~1", "Summarise the last commit's changes"),
    ("ls -la src/acme_api", "List the package files"),
    ("python -m pytest -q tests/test_orders.py -x", "Run the order tests"),
    ("rg -n 'def create_order' src", "Find where orders are created"),
    ("cat pyproject.toml", "Read the project configuration"),
    ("npm run lint -- --fix", "Lint and fix the frontend"),
    ("docker compose ps", "Check which services are running"),
    ("grep -rn TODO src | head -20", "List open TODOs"),
    ("make typecheck", "Type-check the project"),
    ("curl -s localhost:8000/health | jq .", "Probe the local health endpoint"),
    ("find . -name '*.py' -newer setup.cfg | wc -l", "Count recently changed files"),
)
_B62: Final = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"


class AnswerError(Exception):
    """A contender wrote an answer that is not the expected allow."""


@dataclass(frozen=True)
class Block:
    """``n`` encoded request lines, back to back, and where each starts."""

    data: bytes
    offsets: array[int]
    ids: frozenset[str]

    @property
    def n(self) -> int:
        return len(self.offsets) - 1


def _request(index: int, callback_id: str, rng: random.Random) -> dict[str, Any]:
    command, description = COMMANDS[index % len(COMMANDS)]
    tool_use_id = "toolu_01" + "".join(rng.choice(_B62) for _ in range(22))
    hook_input = {
        "session_id": SESSION_ID,
        "transcript_path": TRANSCRIPT,
        "cwd": CWD,
        "permission_mode": "default",
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": command, "description": description},
        "tool_use_id": tool_use_id,
    }
    return {
        "type": "control_request",
        "request_id": f"r{index}",
        "request": {
            "subtype": "hook_callback",
            "callback_id": callback_id,
            "input": hook_input,
            "tool_use_id": tool_use_id,
        },
    }


def build_block(n: int, callback_id: str, seed: int = 1) -> Block:
    """Encode ``n`` distinct PreToolUse ``hook_callback`` requests (ids ``r0``..)."""
    rng = random.Random(seed)
    lines = [msgspec.json.encode(_request(i, callback_id, rng)) + b"\n" for i in range(n)]
    offsets = array("q", [0])
    for line in lines:
        offsets.append(offsets[-1] + len(line))
    return Block(b"".join(lines), offsets, frozenset(f"r{i}" for i in range(n)))


def single_request(request_id: str, callback_id: str) -> bytes:
    """One request line with its own id (handshake and warm-up probes)."""
    message = _request(0, callback_id, random.Random(0))
    message["request_id"] = request_id
    return msgspec.json.encode(message) + b"\n"


def callback_id_of(payload: Any, default: str) -> str:
    """``hooks.PreToolUse[0].hookCallbackIds[0]`` of an initialize payload, else ``default``."""
    try:
        found = payload["hooks"]["PreToolUse"][0]["hookCallbackIds"][0]
    except (KeyError, IndexError, TypeError):
        return default
    return found if isinstance(found, str) else default


def check_answers(lines: list[bytes], ids: frozenset[str]) -> int:
    """Fully parse ``lines``; each must be a success carrying the allow for a known id.

    Returns how many lines were checked. Ids must be distinct within the sample.
    """
    seen: set[str] = set()
    for line in lines:
        try:
            message = msgspec.json.decode(line)
            response = message["response"]
            request_id = response["request_id"]
            ok = (
                message["type"] == "control_response"
                and response["subtype"] == "success"
                and response["response"] == ALLOW
                and request_id in ids
                and request_id not in seen
            )
        except (msgspec.DecodeError, KeyError, TypeError) as exc:
            raise AnswerError(f"unreadable answer {line[:200]!r}: {exc}") from exc
        if not ok:
            raise AnswerError(f"wrong answer {line[:300]!r}")
        seen.add(request_id)
    return len(seen)

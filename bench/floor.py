"""The floor: the simplest correct Python answerer of hook callbacks.

A blocking loop over stdin lines; each line is decoded with msgspec (to plain
Python objects, as a hook would receive them), answered, written and flushed at
once (one ``write`` per answer: no batching, no registry, no timeouts, no
validation). ``initialize`` gets an empty success; the hook always allows.
"""

from __future__ import annotations

import sys
from typing import Any, Final

import msgspec

ALLOW: Final = {
    "hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "allow"}
}


def answer(message: Any) -> dict[str, Any]:
    """The control_response for one decoded control_request."""
    request_id = message["request_id"]
    match message["request"]["subtype"]:
        case "hook_callback":
            body = {"subtype": "success", "request_id": request_id, "response": ALLOW}
        case "initialize":
            body = {"subtype": "success", "request_id": request_id, "response": {}}
        case other:
            body = {"subtype": "error", "request_id": request_id, "error": f"unsupported: {other}"}
    return {"type": "control_response", "response": body}


def main() -> None:
    decode, encode = msgspec.json.decode, msgspec.json.encode
    out = sys.stdout.buffer
    for line in sys.stdin.buffer:
        message = decode(line)
        if message.get("type") == "control_request":
            out.write(encode(answer(message)) + b"\n")
            out.flush()


if __name__ == "__main__":
    main()

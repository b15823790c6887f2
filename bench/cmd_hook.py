"""A Claude Code style command hook: hook input JSON on stdin, the decision on stdout."""

from __future__ import annotations

import json
import sys


def main() -> None:
    hook_input = json.load(sys.stdin)
    output = {
        "hookSpecificOutput": {
            "hookEventName": hook_input["hook_event_name"],
            "permissionDecision": "allow",
        }
    }
    json.dump(output, sys.stdout)


if __name__ == "__main__":
    main()

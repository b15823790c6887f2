"""Qwen Code (``@qwen-code/qwen-code``): Claude's events and answers, Gemini's tool names.

Qwen Code is a fork of Gemini CLI that took Claude Code's hook contract: the
same event names, input fields and accepted answers, so only its tools are
renamed (its shell tool arrives as ``run_shell_command``, observed; the other
names are Gemini's, which it inherited).

=================  ===================================================
Qwen Code          Claude Code (what the hook sees)
=================  ===================================================
Claude's events    the same events (others, e.g. MessageDisplay: as is
                   when Claude has them, else unsupported)
run_shell_command  Bash
write_file /       Write / Edit / Read
replace /
read_file
glob / grep        Glob / Grep
answer             Claude's shape, as it is
hookd cannot       blocking event: exit 2 + one line on stderr (Qwen runs
answer             the tool on exit 1); else exit 1
=================  ===================================================
"""

from __future__ import annotations

from types import MappingProxyType
from typing import Final

from hookd.agents.dialect import Dialect, Encoded, dumps, failed_closed
from hookd.engine.call import HookCall
from hookd.engine.verdict import Verdict

__all__ = ["DIALECT"]

EVENTS: Final = MappingProxyType(
    {
        name: name
        for name in (
            "PreToolUse",
            "PermissionRequest",
            "PostToolUse",
            "PostToolUseFailure",
            "UserPromptSubmit",
            "Stop",
            "SubagentStart",
            "SubagentStop",
            "SessionStart",
            "SessionEnd",
            "PreCompact",
            "PostCompact",
            "Notification",
            "MessageDisplay",
        )
    }
)
TOOLS: Final = MappingProxyType(
    {
        "run_shell_command": "Bash",
        "write_file": "Write",
        "replace": "Edit",
        "read_file": "Read",
        "glob": "Glob",
        "grep": "Grep",
    }
)


def encode(verdict: Verdict, call: HookCall) -> Encoded:
    """Claude's merged output as it is; exit 2 when hookd could not answer a blocking call."""
    failed = failed_closed(verdict, "Qwen Code")
    if failed is not None:
        return failed
    return Encoded(dumps(verdict.with_notes()))


DIALECT: Final = Dialect("qwen", EVENTS, TOOLS, encode)

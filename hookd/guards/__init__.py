"""Ready guards: hooks to list in a hooks module as they are.

::

    from hookd import HookMatcher
    from hookd.guards import destructive_commands

    hooks = {"PreToolUse": [HookMatcher(matcher="Bash", hooks=[destructive_commands()])]}

:class:`Checker` is the same guard without the hook around it (``hookd guard`` uses it):
``Checker.make().check("rm -rf ~").reason()``. :data:`PACKS` lists the rule packs and the
ids of their rules.
"""

from __future__ import annotations

from hookd.guards.check import PACKS, RULES, Checker, Report
from hookd.guards.destructive import destructive_commands
from hookd.guards.paths import SYSTEM_TEMP
from hookd.guards.rule import Finding, Rule

__all__ = [
    "PACKS",
    "RULES",
    "SYSTEM_TEMP",
    "Checker",
    "Finding",
    "Report",
    "Rule",
    "destructive_commands",
]

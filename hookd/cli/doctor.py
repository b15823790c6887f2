"""``hookd doctor``: one line per check of each agent set up to call hookd in this project, the
fix under each one that fails; exit 0 when every one holds, 1 otherwise (nothing set up too).

What a human reads is redacted and escaped for the terminal (a reload error may quote an
agent's input; a path may hold anything); ``--json`` is JSON's own escapes.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys

from hookd.daemon.here import current_project
from hookd.daemon.paths import PathError
from hookd.install.doctor import Install, diagnose
from hookd.redact import escape_controls, redactor_for

__all__ = ["doctor_main"]

_NOTHING_FIX = "hookd install HOOKS (your hooks module; `hookd new` writes a starter one)"


def doctor_main(args: argparse.Namespace) -> int:
    """Diagnose the project the user is in; print, and exit 0 only when all is well."""
    root = current_project()
    try:
        found = diagnose(root)
    except (PathError, OSError) as exc:
        print(escape_controls(f"hookd doctor: error: {exc}"), file=sys.stderr)
        return 1
    found = [_redacted(install) for install in found]
    well = bool(found) and all(i.ok for i in found)
    if args.json:
        print(json.dumps({"project": str(root), "ok": well,
                          "installs": [i.as_json() for i in found]}, indent=2))  # fmt: skip
        return 0 if well else 1
    for line in _lines(str(root), found):
        print(escape_controls(line))
    return 0 if well else 1


def _redacted(install: Install) -> Install:
    """What looks like a secret masked in each check's text (a reload error quotes the
    module's error, which may quote an input)."""
    redact = redactor_for().text
    checks = [dataclasses.replace(c, detail=redact(c.detail)) for c in install.checks]
    return dataclasses.replace(install, checks=checks)


def _lines(root: str, found: list[Install]) -> list[str]:
    if not found:
        return [
            f"hookd doctor: {root}: no agent here is set up to call hookd",
            f"        fix: {_NOTHING_FIX}",
        ]
    lines = [f"hookd doctor: {root}"]
    for install in found:
        lines.append(f"{install.agent}: {install.file} ({install.scope} scope) -> {install.module}")
        for check in install.checks:
            lines.append(f"  {'ok  ' if check.ok else 'FAIL'}  {check.name}: {check.detail}")
            if check.fix is not None and not check.ok:
                lines.append(f"        fix: {check.fix}")
    failed = sum(not c.ok for i in found for c in i.checks)
    if failed:
        lines.append(f"hookd doctor: {failed} problem{'' if failed == 1 else 's'}: run each fix")
    else:
        lines.append("hookd doctor: every agent above calls hookd")
    return lines

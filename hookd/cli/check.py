"""``hookd check``: load the hooks and settings, print what would be served and how."""

from __future__ import annotations

import argparse
import sys

from hookd.cli.serving import load_options
from hookd.command.hook import CommandHook
from hookd.command.settings_hooks import COMMAND_TIMEOUT_S
from hookd.core.registration import Registration
from hookd.errors import HookdError
from hookd.redact import escape_controls
from hookd.serve.service import load_registry

__all__ = ["check", "registration_rows"]

HEADER = ("ID", "EVENT", "MATCHER", "TIMEOUT", "ON_FAILURE", "RUNS ON", "WHY THERE", "CALLBACK")

#: How the timeout column reads: a hook's own timeout, or which default gave it.
PYTHON_DEFAULT = "(default)"  # --timeout, for Python callbacks
COMMAND_DEFAULT = "(command default)"  # Claude Code's 600 s, for command hooks


def _timeout(reg: Registration) -> str:
    if isinstance(reg.callback, CommandHook):
        is_default = reg.timeout_s == COMMAND_TIMEOUT_S
        return f"{reg.timeout_s:g}s" + (f" {COMMAND_DEFAULT}" if is_default else "")
    return f"{reg.timeout_s:g}s" + ("" if reg.timeout_declared else f" {PYTHON_DEFAULT}")


def registration_rows(registrations: list[Registration]) -> list[tuple[str, ...]]:
    """The table ``hookd check`` prints, header first."""
    rows: list[tuple[str, ...]] = [HEADER]
    for reg in registrations:
        command = isinstance(reg.callback, CommandHook)
        rows.append(
            (
                reg.callback_id,
                reg.event,
                reg.matcher or "*",
                _timeout(reg),
                reg.on_failure,
                reg.runner,
                "a command: a subprocess per call" if command else reg.runner_why,
                reg.name,
            )
        )
    return rows


def _print_table(rows: list[tuple[str, ...]]) -> None:
    rows = [tuple(escape_controls(cell) for cell in row) for row in rows]  # settings files' text
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    for row in rows:
        print("  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip())


def check(args: argparse.Namespace) -> int:
    """Print the registration table of the hooks and settings, or a clear error."""
    try:
        registry = load_registry(load_options(args))
    except (HookdError, ValueError) as exc:
        print(escape_controls(f"hookd check: error: {exc}", multiline=True), file=sys.stderr)
        return 1
    registrations = registry.registrations()
    if registrations:
        _print_table(registration_rows(registrations))
    else:
        print("no hook callbacks")
    if registry.can_use_tool is not None:
        print(f"can_use_tool: {getattr(registry.can_use_tool, '__qualname__', 'callable')}")
    return 0

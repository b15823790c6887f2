"""The CLI's command line in ``hookd run``: the flags it must carry, added when missing."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

__all__ = ["DEFAULT_COMMAND", "CommandError", "complete_command"]

DEFAULT_COMMAND: Final = ("claude",)
STREAM_JSON: Final = "stream-json"
#: Flags whose value ``hookd run`` needs, added when missing.
REQUIRED_VALUES: Final = (("--output-format", STREAM_JSON), ("--input-format", STREAM_JSON))
PERMISSION_TOOL: Final = "--permission-prompt-tool"


class CommandError(ValueError):
    """CLI_COMMAND sets a flag to a value ``hookd run`` cannot work with."""


def _flag_value(argv: Sequence[str], flag: str) -> str | None:
    """The value given to ``flag`` (``--flag v`` or ``--flag=v``), or None if absent."""
    for index, arg in enumerate(argv):
        if arg == flag:
            return argv[index + 1] if index + 1 < len(argv) else ""
        if arg.startswith(flag + "="):
            return arg.partition("=")[2]
    return None


def complete_command(argv: Sequence[str], *, can_use_tool: bool) -> list[str]:
    """``argv`` with the flags ``hookd run`` needs added at the end (before a ``--``).

    At the end, so that a launcher (``npx claude``, ``node cli.js``) keeps its
    own arguments. Raises :class:`CommandError` when a required flag has
    another value.
    """
    command = list(argv or DEFAULT_COMMAND)
    end = command.index("--") if "--" in command else len(command)
    rest = command[1:end]
    added: list[str] = []
    for flag, wanted in REQUIRED_VALUES:
        value = _flag_value(rest, flag)
        if value is None:
            added += [flag, wanted]
        elif value != wanted:
            raise CommandError(f"{flag} {value!r}: hookd run needs {flag} {wanted}")
    if "--verbose" not in rest:
        added.append("--verbose")
    if can_use_tool and _flag_value(rest, PERMISSION_TOOL) is None:
        added += [PERMISSION_TOOL, "stdio"]
    return [*command[:end], *added, *command[end:]]

"""The ``hookd`` console script: ``hookd up``'s fast path, else the full command line.

Claude Code runs ``hookd up`` at SessionStart and on every prompt; when the
daemon already answers, :func:`hookd.daemon.fastup.quick_up` says so without the
parsers (argparse alone is a third of the command's start-up).
"""

from __future__ import annotations

import sys

__all__ = ["main"]


def main() -> int:
    """Entry point of the ``hookd`` console script and of ``python -m hookd``."""
    words = sys.argv[1:]
    if words[:1] == ["up"]:
        from hookd.daemon.fastup import quick_up

        done = quick_up(words[1:])
        if done is not None:
            return done
    from hookd.cli.main import main as full_main

    return full_main(words)

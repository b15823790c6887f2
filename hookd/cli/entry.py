"""The ``hookd`` console script: the fast paths of ``up`` and ``call``, else the full command line.

Claude Code runs the ``hookd call`` shim at SessionStart and on every prompt; when
the daemon already answers, :func:`hookd.daemon.fastcall.quick_call` passes the event
on (and :func:`hookd.daemon.fastup.quick_up` answers ``hookd up``) without the
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
    elif words[:1] == ["call"]:
        from hookd.daemon.fastcall import quick_call

        done = quick_call(words[1:])
        if done is not None:
            return done
    from hookd.cli.main import main as full_main

    return full_main(words)

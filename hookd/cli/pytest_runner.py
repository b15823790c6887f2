"""``hookd test [PYTEST ARGS]``: pytest run by the interpreter hookd itself runs on.

Installed with ``uv tool install`` or ``pipx``, hookd lives in an environment of its own
and pytest is not on ``PATH``; ``hookd test`` finds it beside hookd (the ``test`` extra),
and when it is missing says in one line what installs it for the way hookd was installed.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import sys
from pathlib import Path
from typing import Any

__all__ = ["DESCRIPTION", "add_test_parser", "install_hint", "test_main"]

DESCRIPTION = """\
Run pytest with the Python hookd is installed in, so the tests `hookd new` wrote (and any
others using hookd.testing) run however hookd was installed (uv tool, pipx, a venv).
Every argument goes to pytest: `hookd test test_hooks.py -k deny -q`.
"""


def add_test_parser(subparsers: Any) -> argparse.ArgumentParser:
    """The parser ``hookd --help`` lists (``hookd test`` itself passes its words to pytest)."""
    p: argparse.ArgumentParser = subparsers.add_parser(
        "test",
        help="run pytest with hookd's own Python (for the tests `hookd new` writes)",
        description=DESCRIPTION,
    )
    p.add_argument("pytest_args", nargs="*", metavar="ARG", help="passed to pytest as given")
    return p


def install_hint(prefix: str = sys.prefix) -> str:
    """The command that adds pytest to the environment at ``prefix``."""
    parts = Path(prefix).parts
    if "uv" in parts and "tools" in parts:
        return "uv tool install --force 'hookd[test]'"
    if "pipx" in parts:
        return "pipx inject hookd pytest pytest-trio"
    return f"{sys.executable} -m pip install 'pytest>=8' pytest-trio"


def test_main(words: list[str]) -> int:
    """Replace this process by ``python -m pytest WORDS``; 2 with one line if pytest is
    missing."""
    if words in (["-h"], ["--help"]):
        print(f"usage: hookd test [PYTEST ARGS...]\n\n{DESCRIPTION}", end="")
        return 0
    if importlib.util.find_spec("pytest") is None:
        print(
            f"hookd test: error: pytest is not installed beside hookd ({sys.prefix}); "
            f"run: {install_hint()}",
            file=sys.stderr,
        )
        return 2
    sys.stdout.flush()
    os.execv(sys.executable, [sys.executable, "-m", "pytest", *words])

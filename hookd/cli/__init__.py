"""Every argparse parser and the ``hookd`` console script's ``main``."""

from hookd.cli.main import main

__all__ = ["main"]

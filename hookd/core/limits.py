"""Sizes hookd refuses to go past, whichever way a hook answers."""

from __future__ import annotations

from typing import Final

__all__ = ["MAX_OUTPUT_BYTES"]

#: The largest answer a hook may give, as JSON (a Python hook's return value) or as a command
#: hook's stdout. Past it the answer is the hook's invalid output: its failure policy applies,
#: and the event loop never spends seconds checking a 50 MB reason.
MAX_OUTPUT_BYTES: Final = 1024 * 1024

"""Bounded numbers from the command line and the environment: one parser, one-line errors.

Every number hookd takes from a user (an option, an environment variable) goes
through a :class:`Bound`: ASCII digits only (``int('²')`` raises, ``int('٣')``
does not), finite, and within a range that names its unit. What is refused is
said in one line, ``must be a number of seconds above 0 and at most 86400, not
'nan'``, that the caller prefixes with the option or the variable. No imports
beyond :mod:`math` and :mod:`hookd.errors`: ``hookd up``'s fast path checks its words
with it.
"""

from __future__ import annotations

import math

from hookd.errors import HookdError

TYPE_CHECKING = False  # without importing typing (R-D22)
if TYPE_CHECKING:
    from collections.abc import Callable, Mapping

__all__ = [
    "BYTES",
    "COUNT",
    "DAYS",
    "IDLE_SECONDS",
    "LIMIT",
    "PORT",
    "RECORD_ID",
    "SECONDS",
    "Bound",
    "BoundError",
    "env_number",
    "option",
]

#: The longest timeout, or deadline, hookd takes: a day.
MAX_SECONDS = 86_400.0
#: The longest idle time before a daemon exits: a year.
MAX_IDLE_SECONDS = 365 * 86_400.0
#: Size bounds (lines, bodies, logs, stores): 64 GiB.
MAX_BYTES = 64 * 1024**3
#: Counts (requests in flight, connections) and how many records to show.
MAX_COUNT = 1_000_000_000
#: Record ids are SQLite integers.
MAX_RECORD_ID = 2**63 - 1
#: How much of a refused text the error line repeats.
_ECHOED = 40


class BoundError(HookdError, ValueError):
    """A number that is not one, or out of its range; the message is one line."""


class Bound:
    """A range of numbers, its unit, and what 0 means when 0 is allowed.

    ``above`` excludes ``low`` itself (a timeout above 0); ``zero`` names what 0
    means where it is allowed (``never``, ``all``).
    """

    __slots__ = ("above", "high", "low", "unit", "whole", "zero")

    def __init__(
        self,
        low: float,
        high: float,
        *,
        whole: bool = False,
        unit: str = "",
        above: bool = False,
        zero: str = "",
    ) -> None:
        self.low = low
        self.high = high
        self.whole = whole
        self.unit = unit
        self.above = above
        self.zero = zero

    def describe(self) -> str:
        """``a whole number from 1 to 1000``, ``a number of seconds above 0 and at most 86400``."""
        kind = "a whole number" if self.whole else "a number"
        if self.unit:
            kind += f" of {self.unit}"
        low = _shown(self.low) + (f" ({self.zero})" if self.zero and self.low == 0 else "")
        if self.above:
            return f"{kind} above {low} and at most {_shown(self.high)}"
        return f"{kind} from {low} to {_shown(self.high)}"

    def parse(self, text: str) -> float:
        """``text`` as a number within the bound (an int when ``whole``); :class:`BoundError`."""
        word = text.strip()
        value = _number(word, self.whole) if word.isascii() else None
        if value is None or not self.holds(value):
            shown = text if len(text) <= _ECHOED else text[:_ECHOED] + "..."
            raise BoundError(f"must be {self.describe()}, not {shown!r}")
        return value

    def accepts(self, text: str) -> bool:
        """Whether :meth:`parse` takes ``text``."""
        try:
            self.parse(text)
        except BoundError:
            return False
        return True

    def holds(self, value: float) -> bool:
        """Whether ``value`` is finite and within the bound."""
        if isinstance(value, float) and not math.isfinite(value):
            return False  # (an int is finite, and may be too large for a float)
        if value < self.low or value > self.high:
            return False
        return not (self.above and value == self.low)


def _shown(value: float) -> str:
    """``86400``, ``9223372036854775807``, ``0.5``: whole values without an exponent."""
    return str(int(value)) if float(value).is_integer() else f"{value:g}"


def _number(word: str, whole: bool) -> float | None:
    try:
        return int(word) if whole else float(word)
    except ValueError:  # also digits past int()'s limit
        return None


#: A timeout or deadline in seconds: above 0, at most a day.
SECONDS = Bound(0, MAX_SECONDS, unit="seconds", above=True)
#: ``--idle-exit``: 0 never exits; at most a year.
IDLE_SECONDS = Bound(0, MAX_IDLE_SECONDS, unit="seconds", zero="never")
#: An age bound in days: above 0, at most ten years.
DAYS = Bound(0, 3650, unit="days", above=True)
#: A size bound in bytes: at least 1, at most 64 GiB.
BYTES = Bound(1, MAX_BYTES, whole=True, unit="bytes")
#: A count (requests, connections): at least 1.
COUNT = Bound(1, MAX_COUNT, whole=True)
#: ``--limit N`` of ``hookd log`` and ``hookd whatif``: 0 shows them all.
LIMIT = Bound(0, MAX_COUNT, whole=True, zero="all")
#: A TCP port a daemon listens on.
PORT = Bound(1, 65535, whole=True)
#: A decision record's id (``hookd log --why ID``).
RECORD_ID = Bound(1, MAX_RECORD_ID, whole=True)


def option(bound: Bound) -> Callable[[str], float]:
    """An argparse ``type=`` for ``bound``: argparse prints ``argument --X: must be ...``."""

    def convert(text: str) -> float:
        try:
            return bound.parse(text)
        except BoundError as exc:
            import argparse

            raise argparse.ArgumentTypeError(str(exc)) from None

    convert.__name__ = bound.unit or "number"  # argparse names the type in some messages
    return convert


def env_number(
    name: str, bound: Bound, default: float, environ: Mapping[str, str] | None = None
) -> float:
    """``$name`` within ``bound``, ``default`` when unset or empty; :class:`BoundError` naming
    the variable otherwise."""
    import os

    text = (os.environ if environ is None else environ).get(name, "")
    if not text.strip():
        return default
    try:
        return bound.parse(text)
    except BoundError as exc:
        raise BoundError(f"${name}: {exc}") from None

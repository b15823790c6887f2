"""Masking values that look like secrets, for what hookd shows: log lines, ``hookd log``.

One function for text (:func:`redact_text`) and one for decoded JSON
(:func:`redact_value`). Built in: bearer tokens and ``Authorization`` values,
API keys (``sk-...``, ``ghp_...``/``github_pat_...``, ``AKIA...``,
``xox?-...``), ``password=...``/``--password x`` and their kin, PEM private key
blocks; and, in a JSON object, the whole value of a key named like a secret.
A hooks module adds its own regular expressions with a module-level ``redact``
list: each match is masked, or only its group named ``secret`` when it has one.

Standard library only: every layer may use it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import Any, Final

__all__ = ["MASK", "Redactor", "compile_patterns", "redact_text", "redact_value"]

MASK: Final = "[redacted]"

#: Built-in patterns; a group named ``secret`` is what is masked, else the whole match.
BUILTIN: Final = (
    r"-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----(?s:.*?)-----END [A-Z0-9 ]*PRIVATE KEY-----",
    r"(?i)\bbearer\s+(?P<secret>[A-Za-z0-9._~+/=-]{6,})",
    r"(?i)\bauthorization\"?\s*[:=]\s*\"?(?:(?:basic|token)\s+)?(?P<secret>[^\s\",;}]{6,})",
    r"\bsk-[A-Za-z0-9_-]{16,}",
    r"\b(?:gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,})",
    r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b",
    r"\bxox[abposr]-[A-Za-z0-9-]{10,}",
    r"(?i)(?:password|passwd|passphrase|secret|api[_-]?key|access[_-]?token|auth[_-]?token)"
    r"\"?\s*[:=]\s*\"?(?P<secret>[^\s\"'&,;}]+)",
    r"(?i)--(?:password|passwd|secret|token|api-key)(?:=|\s+)(?P<secret>[^\s\"']+)",
)

#: A JSON key whose whole value is a secret.
_SECRET_KEY: Final = re.compile(
    r"(?i)^(?:password|passwd|passphrase|secret|client_secret|api[_-]?key|access[_-]?token|"
    r"auth[_-]?token|refresh[_-]?token|private[_-]?key|authorization)$"
)


def compile_patterns(patterns: Iterable[str]) -> list[re.Pattern[str]]:
    """Compile ``patterns``; ``re.error`` names the first that is not a valid expression."""
    return [re.compile(p) for p in patterns]


def _masker(match: re.Match[str]) -> str:
    if "secret" in match.re.groupindex and match.group("secret") is not None:
        start, end = match.span("secret")
        whole = match.group(0)
        offset = match.start(0)
        return whole[: start - offset] + MASK + whole[end - offset :]
    return MASK


class Redactor:
    """The built-in patterns plus ``extra`` (a hooks module's own), compiled once."""

    def __init__(self, extra: Sequence[str] = ()) -> None:
        self.patterns = compile_patterns((*BUILTIN, *extra))

    def text(self, text: str) -> str:
        for pattern in self.patterns:
            text = pattern.sub(_masker, text)
        return text

    def value(self, value: Any) -> Any:
        """``value`` (decoded JSON) with every string redacted and secret-named keys masked."""
        if isinstance(value, str):
            return self.text(value)
        if isinstance(value, dict):
            return {
                k: MASK
                if isinstance(k, str) and _SECRET_KEY.match(k) and isinstance(v, str | int)
                else self.value(v)
                for k, v in value.items()
            }
        if isinstance(value, list):
            return [self.value(v) for v in value]
        return value


_default: Redactor | None = None


def _redactor(extra: Sequence[str]) -> Redactor:
    global _default
    if extra:
        return Redactor(extra)
    if _default is None:
        _default = Redactor()
    return _default


def redact_text(text: str, extra: Sequence[str] = ()) -> str:
    """``text`` with secrets masked (the built-in patterns and ``extra``)."""
    return _redactor(extra).text(text)


def redact_value(value: Any, extra: Sequence[str] = ()) -> Any:
    """Decoded JSON with secrets masked: strings by pattern, secret-named keys wholly."""
    return _redactor(extra).value(value)

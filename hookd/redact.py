"""What hookd shows, made safe: secrets masked (:func:`redact_text`, :func:`redact_value`) and
what a terminal would obey escaped (:func:`escape_controls`).

Masked, built in (each rule is tried only where its anchor, a word its matches start with,
is in the text: text with none of them costs one ``lower()`` and a ``str.find`` per anchor):

* private key blocks (``-----BEGIN ... PRIVATE KEY-----``; a block cut short: to the end);
* ``Authorization`` values and bearer tokens; credentials in URLs (``scheme://user:PASS@``,
  Azure ``sig=``), Slack and Discord webhook paths; ``curl -u user:PASS``, ``mysql -pPASS``,
  ``sshpass -p PASS``;
* tokens by their published prefix: ``sk-`` (with a digit), Stripe ``sk_``/``rk_``
  ``live``/``test`` and ``whsec_``, ``ghp_``/``gho_``/``ghu_``/``ghs_``/``ghr_``/
  ``github_pat_``, GitLab ``glpat-``/``gldt-``/``glrt-``/``glptt-``, ``AKIA``/``ASIA``,
  ``xox?-``, Google ``AIza``, ``npm_``, ``hf_``, ``pypi-AgE``, SendGrid ``SG.``, JWTs;
* the value after ``=``, ``:`` or ``:=`` of a name that ends in a secret word (:data:`SECRET_NAME`:
  ``GITHUB_TOKEN=``, ``aws_secret_access_key =``, ``"db_password":``, ``AccountKey=``), and of a
  ``--flag`` that does (``--password x``, ``--api-key='x y'``); a quoted value whole, an unquoted
  one to the next space or ``,;&|<>{}``. A value that is a shell variable (``$PW``) or a call or
  subscript (``read_token()``, ``os.environ[...]``) is left: it is not the secret itself.
  ``TOKEN_COUNT=5``, ``max_tokens=``, ``--token-file x``, ``password_reset.py`` stay: the secret
  word must end the name.

In decoded JSON (:meth:`Redactor.value`) the whole value of a key named like a secret (a string
or a number) is masked as well. A hooks module adds its own regular expressions with a
module-level ``redact`` list: each match is masked, or only its group named ``secret``.

Standard library only: every layer may use it.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Sequence
from typing import Any, Final

__all__ = [
    "MASK",
    "Redactor",
    "compile_patterns",
    "escape_controls",
    "redact_text",
    "redact_value",
    "redactor_for",
    "secret_name",
]

MASK: Final = "[redacted]"

#: Whose key a ``KEY`` is when the key is a secret (``API_KEY``, ``AccountKey``, ``secret-key``).
_KEY_OWNERS: Final = (
    "api", "access", "secret", "private", "master", "signing", "encryption", "account", "client",
    "app", "auth",
)  # fmt: skip
#: A word that names a secret when it ends a name (``GITHUB_TOKEN``, ``clientSecret``); each
#: alternative starts at the word itself (what a name holds before it, lookbehinds check).
SECRET_NAME: Final = (
    r"(?:token|secret|passw(?:or)?d|passphrase|(?<=[_.-])pass|(?<=_)pwd|(?:"
    + "|".join(f"(?<={owner})|(?<={owner}[_-])" for owner in _KEY_OWNERS)
    + r")key)"
)
#: A value: quoted (whole), or unquoted up to a space or a delimiter; not ``$VAR``, not code.
_VALUE: Final = (
    r"""(?:'(?P<secret_q>[^'\n]+)'|"(?P<secret_dq>[^"\n]+)"|"""
    r"""(?!\$|[A-Za-z_][\w.]*[(\[])(?P<secret>[^\s'"`,;&|<>{}]+))"""
)
_KEY_BLOCK: Final = r"-----(?:BEGIN|END)[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----"

#: Built-in rules: (anchors, the pattern). A match starts where one of the anchors (lower
#: case) is found in the lower-cased text, and only there is the pattern tried. A group named
#: ``secret`` (or ``secret_...``) is what is masked, else the whole match.
BUILTIN: Final[tuple[tuple[tuple[str, ...], str], ...]] = (
    (("-----begin",),
     rf"-----BEGIN[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----(?s:.*?)(?:{_KEY_BLOCK}|\Z)"),
    (("bearer",), r"(?i)\bbearer[ \t]+(?![A-Za-z][a-z]*\b)(?P<secret>[A-Za-z0-9._~+/=-]{8,})"),
    (("authorization",),
     r"(?i)\bauthorization[\"']?[ \t]*[:=][ \t]*[\"']?(?:(?:basic|bearer|token|digest)[ \t]+)?"
     r"(?P<secret>[^\s\"',;}]{6,})"),
    (("sk-",), r"(?<![A-Za-z0-9_-])sk-(?=[A-Za-z0-9_-]*[0-9])[A-Za-z0-9_-]{16,}"),
    (("sk_live_", "sk_test_", "rk_live_", "rk_test_"),
     r"\b(?:sk|rk)_(?:live|test)_[0-9A-Za-z]{10,}"),
    (("whsec_",), r"\bwhsec_[0-9A-Za-z+/=]{20,}"),
    (("ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"),
     r"\b(?:gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,})"),
    (("glpat-", "gldt-", "glrt-", "glptt-"), r"\bgl(?:pat|dt|rt|ptt)-[0-9A-Za-z_-]{20,}"),
    (("akia", "asia"), r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b"),
    (("xox",), r"\bxox[abposr]-[A-Za-z0-9-]{10,}"),
    (("aiza",), r"\bAIza[0-9A-Za-z_-]{35}"),
    (("npm_",), r"\bnpm_[A-Za-z0-9]{36}\b"),
    (("hf_",), r"\bhf_[A-Za-z0-9]{30,}\b"),
    (("pypi-",), r"\bpypi-AgE[A-Za-z0-9_-]{40,}"),
    (("sg.",), r"\bSG\.[A-Za-z0-9_-]{16,}\.[A-Za-z0-9_-]{16,}"),
    (("eyj",), r"\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*"),
    (("hooks.slack.com",),
     r"hooks\.slack\.com/(?:services|workflows|triggers)/(?P<secret>[A-Za-z0-9_/-]{8,})"),
    (("discord",), r"discord(?:app)?\.com/api/webhooks/(?P<secret>[0-9]+/[A-Za-z0-9_-]+)"),
    (("://",), r"://[^\s/?#@:'\"]*:(?P<secret>[^\s/?#@'\"]+)@"),
    (("sig=",), r"(?<=[?&])sig=(?P<secret>[^&\s'\"]+)"),
    (("curl",),
     r"\bcurl\b[^\n|;&]*?[ \t](?:-u[ \t]*|--user(?:=|[ \t]+))(?:'[^':\n]*:(?P<secret_q>[^'\n]+)'"
     r"|\"[^\":\n]*:(?P<secret_dq>[^\"\n]+)\"|[^\s:'\"]*:(?P<secret>[^\s'\"]+))"),
    (("mysql", "mariadb"),
     r"\b(?:mysql(?:dump|admin|import|show|check)?|mariadb(?:-dump)?)\b[^\n|;&]*?[ \t]-p"
     r"(?:'(?P<secret_q>[^'\n]+)'|\"(?P<secret_dq>[^\"\n]+)\"|(?P<secret>[^\s'\"]+))"),
    (("sshpass",), rf"\bsshpass\b[^\n|;&]*?[ \t]-p[ \t]*{_VALUE}"),
    (("--",), rf"(?i)--[a-z0-9-]*?{SECRET_NAME}(?:=|[ \t]+)(?!-){_VALUE}"),
    (("token", "secret", "pass", "pwd", "key"),
     rf"(?i){SECRET_NAME}[\"']?[ \t]*(?::=|=|:(?!//))[ \t]*{_VALUE}"),
)  # fmt: skip

#: A JSON key whose whole value is a secret: it ends in a secret word, or is one.
_SECRET_KEY: Final = re.compile(rf"(?i)(?:{SECRET_NAME}|^pass|^authorization)$")


@functools.lru_cache(maxsize=1024)
def secret_name(name: str) -> bool:
    """Whether a JSON key ``name`` names a secret (``token``, ``GITHUB_TOKEN``, ``apiKey``)."""
    return _SECRET_KEY.search(name) is not None


def compile_patterns(patterns: Iterable[str]) -> list[re.Pattern[str]]:
    """Compile ``patterns``; ``re.error`` names the first that is not a valid expression."""
    return [re.compile(p) for p in patterns]


def _found(lowered: str, anchors: tuple[str, ...]) -> list[int]:
    """Where each of ``anchors`` is in ``lowered``, in order."""
    starts: list[int] = []
    for anchor in anchors:
        at = lowered.find(anchor)
        while at >= 0:
            starts.append(at)
            at = lowered.find(anchor, at + 1)
    return sorted(starts) if len(anchors) > 1 else starts


class _Rule:
    """One compiled pattern, the anchors where its matches start, and the groups it masks."""

    __slots__ = ("anchors", "groups", "pattern")

    def __init__(self, pattern: re.Pattern[str], anchors: tuple[str, ...] = ()) -> None:
        self.pattern = pattern
        self.anchors = anchors
        self.groups = sorted(
            index for name, index in pattern.groupindex.items()
            if name == "secret" or name.startswith("secret_")
        )  # fmt: skip

    def mask(self, match: re.Match[str]) -> str:
        spans = [match.span(g) for g in self.groups if match.start(g) >= 0]
        if not spans:
            return MASK
        whole, offset, pieces, at = match.group(0), match.start(0), [], 0
        for start, end in spans:
            pieces += [whole[at : start - offset], MASK]
            at = end - offset
        return "".join(pieces) + whole[at:]

    def apply(self, text: str, lowered: str) -> str:
        """``text`` with this rule's matches masked (``lowered`` is ``text.lower()``)."""
        if not self.anchors or len(lowered) != len(text):  # no anchors, or they would move
            return self.pattern.sub(self.mask, text)
        pieces: list[str] = []
        at = 0
        for start in _found(lowered, self.anchors):
            if start < at:
                continue  # within the last match
            match = self.pattern.match(text, start)
            if match is not None:
                pieces += [text[at:start], self.mask(match)]
                at = match.end()
        return "".join(pieces) + text[at:] if pieces else text


@functools.cache
def _builtin_rules() -> tuple[_Rule, ...]:
    return tuple(_Rule(re.compile(pattern), anchors) for anchors, pattern in BUILTIN)


class Redactor:
    """The built-in rules plus ``extra`` (a hooks module's own patterns), compiled once."""

    def __init__(self, extra: Sequence[str] = ()) -> None:
        self.rules = (*_builtin_rules(), *(_Rule(p) for p in compile_patterns(extra)))
        self._anchors = tuple(dict.fromkeys(a for rule in self.rules for a in rule.anchors))
        self._wanted = [frozenset(rule.anchors) for rule in self.rules]
        self._always = any(not rule.anchors for rule in self.rules)  # a module's own pattern

    def text(self, text: str) -> str:
        """``text`` with every match of a rule masked."""
        lowered = text.lower()
        present = {anchor for anchor in self._anchors if anchor in lowered}
        if not present and not self._always:
            return text
        for rule, wanted in zip(self.rules, self._wanted, strict=True):
            if wanted and wanted.isdisjoint(present):
                continue
            masked = rule.apply(text, lowered)
            if masked is not text:  # a mask makes no anchor: what was present stays a superset
                text, lowered = masked, masked.lower()
        return text

    def value(self, value: Any) -> Any:
        """``value`` (decoded JSON) with every string redacted and secret-named keys masked."""
        if isinstance(value, str):
            return self.text(value)
        if isinstance(value, dict):
            return {
                k: MASK
                if isinstance(k, str) and isinstance(v, str | int) and secret_name(k)
                else self.value(v)
                for k, v in value.items()
            }
        if isinstance(value, list):
            return [self.value(v) for v in value]
        return value


@functools.lru_cache(maxsize=64)
def _cached(extra: tuple[str, ...]) -> Redactor:
    return Redactor(extra)


def redactor_for(extra: Sequence[str] = ()) -> Redactor:
    """The (cached) redactor of the built-in rules and ``extra``."""
    return _cached(tuple(extra))


def redact_text(text: str, extra: Sequence[str] = ()) -> str:
    """``text`` with secrets masked (the built-in rules and ``extra``)."""
    return redactor_for(extra).text(text)


def redact_value(value: Any, extra: Sequence[str] = ()) -> Any:
    """Decoded JSON with secrets masked: strings by pattern, secret-named keys wholly."""
    return redactor_for(extra).value(value)


# -- what a terminal would obey ------------------------------------------------------------

#: C0 controls, DEL, C1 controls, and the bidirectional marks, embeddings, overrides and
#: isolates (U+061C, U+200E, U+200F, U+202A-U+202E, U+2066-U+2069).
_CONTROL_CLASS: Final = "\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069"
_CONTROLS: Final = re.compile(f"[{_CONTROL_CLASS}]")
_CONTROLS_BUT_LINES: Final = re.compile(f"(?![\n\t])[{_CONTROL_CLASS}]")


def _escaped(match: re.Match[str]) -> str:
    code = ord(match.group(0))
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def escape_controls(text: str, *, multiline: bool = False) -> str:
    """``text`` as a terminal may print it: each control character (C0, DEL, C1) and bidi
    control written as ``\\x1b`` or ``\\u202e``; newlines and tabs kept when ``multiline``.

    A backslash is left as it is, so ``\\x1b`` in the text and an escaped ESC read alike.
    """
    return (_CONTROLS_BUT_LINES if multiline else _CONTROLS).sub(_escaped, text)

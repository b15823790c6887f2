"""From a command as written to the commands it runs: wrappers peeled, payloads parsed again.

``sudo env X=1 nice rm -rf /`` is ``rm -rf /`` reached through three wrappers; ``bash -c
TEXT``, ``eval``, ``ssh HOST TEXT``, ``watch``, ``trap`` and a shell fed a heredoc run TEXT,
parsed again (through ``payload``); ``xargs``, ``find -exec`` and ``parallel`` run their
command once per item, with arguments only known then (a word that is not static).
"""

from __future__ import annotations

import posixpath
from collections.abc import Callable
from dataclasses import dataclass, replace

from hookd.shell._tables import (
    SHELL_VALUED,
    SHELLS,
    SSH_VALUED,
    WRAPPERS,
    Wrapper,
    interpreter_of,
    options,
)
from hookd.shell._walk import PIPED, Raw
from hookd.shell.model import Command

__all__ = ["Payload", "Where", "expand"]

Words = list[tuple[str | None, str]]
#: A word made up for what only exists at run time (xargs' input, find's ``{}``).
_ITEM = (None, "{item}")
_XARGS_VALUED = options(
    "-a -d -E -e -I -L -l -n -P -s --arg-file --delimiter --eof --replace --max-lines "
    "--max-args --max-procs --max-chars --process-slot-var"
)
_PARALLEL_VALUED = options(
    "-j -S -a -d -P --jobs --sshlogin --arg-file --delimiter --joblog --results --tmpdir --timeout"
)
_WATCH_VALUED = options("-n --interval -q --equexit")


@dataclass(frozen=True, slots=True)
class Where:
    """How a command is reached: through what, how deep in payloads, on which host."""

    via: tuple[str, ...] = ()
    depth: int = 0
    remote: bool = False
    repeated: bool = False

    def through(self, label: str, *, repeated: bool = False) -> Where:
        return replace(self, via=(*self.via, label), repeated=self.repeated or repeated)


#: Parses a payload's text (a shell script) reached the given way.
Payload = Callable[[str, Where], list[Command]]


def expand(raw: Raw, where: Where, payload: Payload) -> list[Command]:
    """The commands ``raw`` runs."""
    return _Peeler(raw, payload).run(raw.words, replace(where, repeated=where.repeated or
                                                        raw.repeated))  # fmt: skip


class _Peeler:
    def __init__(self, raw: Raw, payload: Payload) -> None:
        self.raw = raw
        self.payload = payload

    def make(self, words: Words, where: Where, code: str | None = None,
             language: str | None = None) -> Command:  # fmt: skip
        return Command(
            argv=tuple(value if value is not None else source for value, source in words),
            dynamic=frozenset(i for i, (value, _) in enumerate(words) if value is None),
            via=where.via, code=code, language=language, repeated=where.repeated,
            remote=where.remote, redirects=tuple(self.raw.redirects), text=self.raw.text,
        )  # fmt: skip

    def text(self, words: Words, label: str, where: Where) -> list[Command]:
        """Parse the words joined as a script; a word not static makes it unknown."""
        if not words:
            return []
        # a word with expansions is read from its source: "rm -rf $D" is rm with a word not
        # known, and a payload that is nothing but an expansion is a command not known
        text = " ".join(v if v is not None else _unquoted(s) for v, s in words)
        return self.payload(text, where.through(label))

    def run(self, words: Words, where: Where) -> list[Command]:
        stdin = self.raw.stdin
        for _ in range(64):
            if not words:
                return []
            head = words[0][0]
            if head is None:
                return [self.make(words, where)]
            name = posixpath.basename(head) or head
            wrapper = WRAPPERS.get(name)
            if wrapper is not None:
                if name == "env" and (split := _env_split(words)) is not None:
                    return self.text([split], "env -S", where)
                rest = _after_options(words[1:], wrapper)
                if not rest:
                    return [self.make(words, where)]
                words, where = rest, where.through(name)
                continue
            special = _SPECIAL.get(name)
            if special is not None:
                return special(self, words, where)
            if name in SHELLS:
                return self.shell(words, where, stdin)
            interpreter = interpreter_of(name)
            if interpreter is not None:
                return [self.interpreter(words, where, stdin)]
            return [self.make(words, where)]
        return [self.make(words, where)]

    def shell(self, words: Words, where: Where, stdin: str | None) -> list[Command]:
        name = posixpath.basename(words[0][0] or "")
        command_flag = from_stdin = False
        index = 1
        while index < len(words):
            value = words[index][0] or ""
            if value in SHELL_VALUED:
                index += 2
                continue
            if value in ("-", "--"):
                from_stdin = value == "-"
                index += 1
                break
            if value[:1] in "-+" and len(value) > 1:
                letters = value[1:] if not value.startswith("--") else ""
                command_flag = command_flag or "c" in letters
                from_stdin = from_stdin or "s" in letters
                index += 1
                continue
            break
        operands = words[index:]
        if command_flag:
            return self.text(operands[:1], f"{name} -c", where)
        if operands and not from_stdin:
            return [self.make(words, where)]  # a script file: not visible here
        return self.fed(words, where, stdin, name)

    def fed(self, words: Words, where: Where, stdin: str | None, name: str) -> list[Command]:
        """A shell reading its script from stdin."""
        if stdin is None:
            return [self.make(words, where)]  # interactive: runs what a person types
        if stdin == PIPED:
            return [self.make([(None, "<stdin>")], where.through(f"stdin of {name}"))]
        return self.payload(stdin, where.through(f"stdin of {name}"))

    def interpreter(self, words: Words, where: Where, stdin: str | None) -> Command:
        name = posixpath.basename(words[0][0] or "")
        spec = interpreter_of(name)
        assert spec is not None
        index = 1
        while index < len(words):
            value = words[index][0]
            if value is None:
                break
            code_flag = value in spec.flags or (
                bool(spec.cluster) and value[:1] == "-" and value[1:2] != "-"
                and value[-1] in spec.cluster and value[1:].isalpha()
            )  # fmt: skip
            if code_flag:
                code = words[index + 1] if index + 1 < len(words) else (None, "")
                return self.make(words, where, code[0] if code[0] is not None else code[1],
                                 spec.language)  # fmt: skip
            if value in spec.valued:
                index += 2
                continue
            if value == "-" or not value.startswith("-"):
                break
            index += 1
        reads_stdin = index >= len(words) or words[index][0] == "-"
        if reads_stdin and stdin is not None:
            return self.make(words, where, "" if stdin == PIPED else stdin, spec.language)
        return self.make(words, where)


def _unquoted(source: str) -> str:
    """A double-quoted word's inside (its expansions stay expansions), else the word."""
    if len(source) > 1 and source[0] == source[-1] == '"':
        return source[1:-1]
    return source


def _after_options(words: Words, wrapper: Wrapper) -> Words:
    """The words after a wrapper's options, assignments and positionals (empty: runs nothing)."""
    index = 0
    while index < len(words):
        value = words[index][0]
        if value is None:
            break
        if value in wrapper.not_run:
            return []
        if value == "--":
            index += 1
            break
        if value.startswith("-") and len(value) > 1:
            index += 2 if value in wrapper.valued else 1
            continue
        if wrapper.assignments and "=" in value and not value.startswith("="):
            index += 1
            continue
        break
    return words[index + wrapper.positional :]


def _env_split(words: Words) -> tuple[str | None, str] | None:
    """``env -S 'rm -rf /'``: the string env splits and runs."""
    for index, (value, _) in enumerate(words[1:], start=1):
        if value in ("-S", "--split-string") and index + 1 < len(words):
            return words[index + 1]
        if value is not None and value.startswith("--split-string="):
            return (value.partition("=")[2], value)
    return None


def _xargs(self: _Peeler, words: Words, where: Where) -> list[Command]:
    replace_with = None
    index = 1
    while index < len(words):
        value = words[index][0]
        if value is None or not value.startswith("-") or value == "--":
            index += value == "--"
            break
        if value in ("-I", "--replace") and index + 1 < len(words):
            replace_with = words[index + 1][0]
        elif value.startswith("-I") and len(value) > 2:
            replace_with = value[2:]
        index += 2 if value in _XARGS_VALUED else 1
    inner = words[index:] or [("echo", "echo")]
    if replace_with:
        inner = [_ITEM if v is not None and replace_with in v else (v, s) for v, s in inner]
    else:
        inner = [*inner, _ITEM]
    return self.run(inner, where.through("xargs", repeated=True))


def _find(self: _Peeler, words: Words, where: Where) -> list[Command]:
    found = [self.make(words, where)]
    starts = []
    for value, _ in words[1:]:
        if value is None or value[:1] in ("-", "(", "!", ","):
            break
        starts.append(value)
    # what {} stands for: a path under find's one starting point, when there is one
    item = (None, f"{starts[0].rstrip('/')}/{{item}}") if len(starts) == 1 else _ITEM
    index = 1
    while index < len(words):
        value = words[index][0]
        index += 1
        if value not in ("-exec", "-execdir", "-ok", "-okdir"):
            continue
        end = index
        while end < len(words) and words[end][0] not in (";", "+"):
            end += 1
        inner = [item if v is not None and "{}" in v else (v, s) for v, s in words[index:end]]
        found += self.run(inner, where.through(f"find {value}", repeated=True))
        index = end + 1
    return found


def _parallel(self: _Peeler, words: Words, where: Where) -> list[Command]:
    index = 1
    while index < len(words) and (words[index][0] or "").startswith("-"):
        index += 2 if words[index][0] in _PARALLEL_VALUED else 1
    end = next((i for i in range(index, len(words)) if words[i][0] in (":::", "::::")),
               len(words))  # fmt: skip
    inner = words[index:end]
    if not any("{" in (v or "") for v, _ in inner):
        inner = [*inner, ("{}", "{}")]
    return self.text(inner, "parallel", replace(where, repeated=True))


def _watch(self: _Peeler, words: Words, where: Where) -> list[Command]:
    index = 1
    while index < len(words) and (words[index][0] or "").startswith("-"):
        index += 2 if words[index][0] in _WATCH_VALUED else 1
    return self.text(words[index:], "watch", replace(where, repeated=True))


def _ssh(self: _Peeler, words: Words, where: Where) -> list[Command]:
    index = 1
    while index < len(words) and (words[index][0] or "").startswith("-"):
        index += 2 if words[index][0] in SSH_VALUED else 1
    index += 1  # the host; OpenSSH reads options after it too, up to "--"
    while index < len(words) and (words[index][0] or "").startswith("-"):
        ended = words[index][0] == "--"
        index += 2 if words[index][0] in SSH_VALUED else 1
        if ended:
            break
    if len(words) <= index:
        return [self.make(words, where)]  # an interactive login
    return self.text(words[index:], "ssh", replace(where, remote=True))


def _su(self: _Peeler, words: Words, where: Where) -> list[Command]:
    for index, (value, _) in enumerate(words[:-1]):
        if value in ("-c", "--command"):
            return self.text(words[index + 1 : index + 2], "su -c", where)
    return [self.make(words, where)]


def _eval(self: _Peeler, words: Words, where: Where) -> list[Command]:
    return self.text(words[1:], "eval", where)


def _trap(self: _Peeler, words: Words, where: Where) -> list[Command]:
    if len(words) < 2 or words[1][0] in ("-", "-l", "-p", "--"):
        return [self.make(words, where)]
    return self.text(words[1:2], "trap", where)


_SPECIAL: dict[str, Callable[[_Peeler, Words, Where], list[Command]]] = {
    "xargs": _xargs,
    "find": _find,
    "parallel": _parallel,
    "watch": _watch,
    "ssh": _ssh,
    "su": _su,
    "eval": _eval,
    "trap": _trap,
}

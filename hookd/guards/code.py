"""The ``code`` pack: interpreter one-liners (``python -c``, ``node -e``, ``perl -e``,
``ruby -e``, a heredoc fed to one) that delete trees, and the shell commands they start.

Code is not shell: it is read by its library calls, not parsed. A recursive delete call is
caught with its first literal argument (allowed when that names an allowed path); a call that
starts a process (``os.system``, ``subprocess.run``, ``execSync``, ``system``, backticks) has
its literal command parsed as shell and checked like the line itself (:func:`shell_texts`).
"""

from __future__ import annotations

import re
import shlex
from typing import Final

from hookd.guards.paths import Place, Scope
from hookd.guards.rule import Rule
from hookd.shell import Command

__all__ = ["CODE_RULES", "shell_texts"]

_DELETE: Final = re.compile(
    r"\b(rmtree|remove_tree|rm_rf|rm_r|rmSync|rmdirSync|rimraf|removedirs|remove_dir|"
    r"remove_entry(?:_secure)?|emptyDirSync|emptyDir|removeSync|fs\.rm|fs\.promises\.rm|"
    r"promises\.rm|rmdir_p)\b(?=\s*[(\s'\"$@\w])"  # called: not a word in a regex or a comment
)
_RUNNER: Final = re.compile(
    r"\b(os\.system|os\.popen|subprocess\.\w+|check_output|check_call|Popen|getoutput|"
    r"execSync|exec|execFile|execFileSync|spawn|spawnSync|system|shell_exec|passthru|popen|"
    r"qx|%x|Open3\.\w+|IO\.popen)\s*[\(\{\[]?"
)
_LITERAL: Final = re.compile(
    r"""'''(.*?)'''|\"\"\"(.*?)\"\"\"|'((?:[^'\\]|\\.)*)'|"((?:[^"\\]|\\.)*)"|`([^`]*)`""",
    re.S,
)
_SPAN: Final = 4000


def _literals(text: str) -> list[tuple[int, int, str]]:
    """(start, end, value) of each string literal, escapes kept but for \\\\ and \\'."""
    found = []
    for match in _LITERAL.finditer(text):
        value = next(g for g in match.groups() if g is not None) if any(match.groups()) else ""
        found.append((match.start(), match.end(), value.replace("\\\\", "\\")))
    return found


def _call_arguments(code: str, start: int, literals: list[tuple[int, int, str]]) -> list[str]:
    """The literals inside the call whose arguments begin at ``start``, up to its closing
    bracket (or the end of the statement)."""
    depth = 0
    end = min(len(code), start + _SPAN)
    for index in range(start, end):
        char = code[index]
        inside = next((lit for lit in literals if lit[0] <= index < lit[1]), None)
        if inside is not None:
            continue
        if char in "([{":
            depth += 1
        elif char in ")]}":
            depth -= 1
            if depth <= 0:
                end = index
                break
        elif char in ";\n" and depth <= 0:
            end = index
            break
    return [value for lo, hi, value in literals if lo >= start and hi <= end + 1]


def shell_texts(command: Command) -> list[str]:
    """The shell command lines the code starts, as far as its literals say."""
    code = command.code or ""
    literals = _literals(code)
    texts = [value for lo, _, value in literals if code[lo] == "`" and command.language != "node"]
    for match in _RUNNER.finditer(code):
        words = _call_arguments(code, match.end() - (match[0][-1:] in "([{"), literals)
        if not words:
            continue
        bracket = code[match.end() - 1 : match.end() + 1]
        listed = "[" in bracket or (len(words) > 1 and match[1].startswith(("subprocess", "spawn")))
        texts.append(shlex.join(words) if listed else words[0])
    return texts


def _delete(command: Command, scope: Scope) -> str | None:
    code = command.code
    if not code:
        return None
    literals = _literals(code)
    for match in _DELETE.finditer(code):
        if any(lo <= match.start() < hi for lo, hi, _ in literals):
            continue  # the name inside a string: printed, not called
        words = _call_arguments(code, match.end(), literals)
        target = words[0] if words else None
        if target is None or scope.place(target) is not Place.ALLOWED:
            shown = repr(target) if target is not None else "a path not known before it runs"
            return f"deletes {shown} recursively ({match[1]}), outside the allowed paths"
    return None


CODE_RULES: Final = (
    Rule("code-recursive-delete", "code", frozenset(), _delete,
         "rmtree, rm_rf, rmSync and co. in python -c, node -e, perl -e, ruby -e"),
)  # fmt: skip

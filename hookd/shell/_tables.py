"""What the wrappers, shells and interpreters are, as tables: names, and which options take a
value (so that the command they run is found after them)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Final

__all__ = [
    "INTERPRETERS",
    "SHELLS",
    "SHELL_VALUED",
    "SSH_VALUED",
    "WRAPPERS",
    "Interpreter",
    "Wrapper",
    "interpreter_of",
    "options",
]


@dataclass(frozen=True, slots=True)
class Wrapper:
    """A program that runs the command in its arguments.

    ``valued``: options whose value is the next word (``sudo -u root``); ``positional``: how
    many words come between the options and the command (``timeout 5 CMD``, ``chroot DIR CMD``);
    ``assignments``: ``NAME=VALUE`` words may stand first (``env``); ``not_run``: with one of
    these options it runs nothing (``command -v rm`` only looks rm up).
    """

    valued: frozenset[str] = frozenset()
    positional: int = 0
    assignments: bool = False
    not_run: frozenset[str] = frozenset()


def options(words: str) -> frozenset[str]:
    """The option names in ``words``, separated by spaces."""
    return frozenset(words.split())


def _w(valued: str = "", positional: int = 0, *, assignments: bool = False,
       not_run: str = "") -> Wrapper:  # fmt: skip
    return Wrapper(frozenset(valued.split()), positional, assignments, frozenset(not_run.split()))


WRAPPERS: Final[dict[str, Wrapper]] = {
    "sudo": _w("-u -g -C -D -h -p -r -t -U -T -R --user --group --host --prompt --chdir "
               "--close-from --role --type --other-user --command-timeout --chroot",
               not_run="-l --list -v --validate -k -K -e --edit -V --version"),
    "doas": _w("-u -C"),
    "run0": _w("-u -g -D --user --group --chdir --unit --property --description --setenv"),
    "pkexec": _w("--user"),
    "env": _w("-u -C --unset --chdir -P -a --argv0", assignments=True),
    "nice": _w("-n --adjustment"),
    "ionice": _w("-c -n -p -P -u --class --classdata"),
    "nohup": _w(),
    "time": _w("-f -o --format --output"),
    "timeout": _w("-s -k --signal --kill-after", positional=1),
    "command": _w(not_run="-v -V"),
    "builtin": _w(),
    "exec": _w("-a"),
    "stdbuf": _w("-i -o -e --input --output --error"),
    "setsid": _w(),
    "unbuffer": _w(),
    "chrt": _w(positional=1),
    "taskset": _w(positional=1),
    "chroot": _w("--userspec --groups", positional=1),
    "flock": _w("-w -E --timeout --conflict-exit-code", positional=1),
    "strace": _w("-e -o -p -s -u -E -a -b -I -O -P -S -X"),
    "ltrace": _w("-e -o -p -s -u -n -a -A -D -F -l -L -S -w -x"),
    "caffeinate": _w("-t -w"),
    "busybox": _w(),
    "firejail": _w(),
    "proxychains": _w("-f"),
    "proxychains4": _w("-f"),
    "torsocks": _w(),
    "nsenter": _w("-t -S -G --target --setuid --setgid"),
    "unshare": _w(),
    "systemd-run": _w("-u -p -E -M --unit --property --setenv --machine --description --uid "
                      "--gid --working-directory"),
    "script": _w(),
    "sg": _w(positional=1),
    "with-contenv": _w(),
    "dbus-run-session": _w(),
    "xvfb-run": _w("-n -s -f -e --server-num --server-args --auth-file --error-file"),
}  # fmt: skip

#: Programs that run a shell script given as ``-c TEXT`` or read from stdin.
SHELLS: Final = frozenset(
    {"sh", "bash", "zsh", "dash", "ksh", "mksh", "ash", "yash", "posh", "rbash", "fish", "csh",
     "tcsh"}
)  # fmt: skip
#: Shell options whose value is the next word.
SHELL_VALUED: Final = frozenset({"-o", "+o", "-O", "+O", "--rcfile", "--init-file"})
#: ssh options whose value is the next word.
SSH_VALUED: Final = options("-b -B -c -D -E -e -F -I -i -J -L -l -m -O -o -p -Q -R -S -W -w")


@dataclass(frozen=True, slots=True)
class Interpreter:
    """A language's one-liner flags: ``-c CODE`` (python), ``-e CODE`` (node, perl, ruby).

    ``cluster``: the flag may end a cluster of single-letter flags (``perl -ne``);
    ``valued``: options whose value is the next word.
    """

    language: str
    flags: frozenset[str]
    cluster: str = ""
    valued: frozenset[str] = frozenset()


INTERPRETERS: Final = (
    (re.compile(r"python[0-9.]*|pypy[0-9.]*"),
     Interpreter("python", frozenset({"-c"}), "c", frozenset({"-W", "-X", "-m", "-Q"}))),
    (re.compile(r"node|nodejs|bun"),
     Interpreter("node", frozenset({"-e", "--eval", "-p", "--print"}), "",
                 frozenset({"-r", "--require", "--import", "--loader"}))),
    (re.compile(r"perl[0-9.]*"),
     Interpreter("perl", frozenset({"-e", "-E"}), "eE", frozenset({"-I", "-M", "-m", "-x"}))),
    (re.compile(r"ruby[0-9.]*|jruby"),
     Interpreter("ruby", frozenset({"-e"}), "e", frozenset({"-I", "-r", "-C", "-E"}))),
    (re.compile(r"php[0-9.]*"), Interpreter("php", frozenset({"-r"}), "", frozenset({"-d"}))),
    (re.compile(r"deno"), Interpreter("node", frozenset({"eval"}))),
)  # fmt: skip


def interpreter_of(name: str) -> Interpreter | None:
    for pattern, interpreter in INTERPRETERS:
        if pattern.fullmatch(name):
            return interpreter
    return None

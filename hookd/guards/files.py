"""Rules of the ``filesystem``, ``permissions`` and ``disk`` packs: deletion that cannot be
undone, ownership and modes changed over a whole tree, devices and file systems overwritten."""

from __future__ import annotations

import re
from typing import Final

from hookd.guards.paths import EVERYTHING_HERE, Place, Scope
from hookd.guards.rule import Rule, read_args
from hookd.shell import Command

__all__ = ["FILE_RULES"]

#: find tests that narrow what -delete removes to some names (a delete of matching files).
_NAME_TESTS: Final = frozenset(
    {"-name", "-iname", "-path", "-ipath", "-wholename", "-iwholename", "-regex", "-iregex",
     "-lname", "-ilname"}
)  # fmt: skip
_SAFE_DEVICES: Final = re.compile(
    r"/dev/(null|zero|full|random|urandom|stdin|stdout|stderr|tty\w*|pts/.*|fd/.*|shm/.*|ptmx)"
)
_MKFS_NAMES: Final = frozenset(
    {"mkfs", "mke2fs", "mkswap", "mkdosfs", "mkntfs", "mkexfatfs", "newfs"}
)
_WIPERS: Final = frozenset({"wipefs", "sgdisk", "blkdiscard", "parted", "sfdisk"})
_LISTS: Final = ("-l", "--list", "-d", "--dump", "-V", "--verify", "-s", "--show-size")
_MKFS: Final = re.compile(r"mkfs(\..+)?|mke2fs|mkswap|mkdosfs|mkntfs|mkexfatfs|newfs(_\w+)?")


def _where(word: str, place: Place) -> str:
    return f"{word!r} (not known before it runs)" if place is Place.UNKNOWN else repr(word)


def _rm(command: Command, scope: Scope) -> str | None:
    args = read_args(command)
    if "no-preserve-root" in args.long:
        return "deletes with --no-preserve-root"
    recursive = args.has("-r", "-R", "--recursive")
    forced = args.has("-f", "--force")
    for word, static in args.operands:
        place = scope.place(word, static=static)
        if recursive and place is not Place.ALLOWED:
            return f"deletes {_where(word, place)} recursively, outside the allowed paths"
        if place is Place.CRITICAL or (forced and static and word in EVERYTHING_HERE):
            return f"deletes {word!r}, which holds everything there"
    return None


def _find_delete(command: Command, scope: Scope) -> str | None:
    if "-delete" not in command.args:
        return None
    starts = []
    for index, word in enumerate(command.args, start=1):
        if word[:1] in ("-", "(", "!", ",") and command.is_static(index):
            break
        starts.append((word, command.is_static(index)))
    narrowed = any(word in _NAME_TESTS for word in command.args)
    for word, static in starts or [(".", True)]:
        place = scope.place(word, static=static)
        if place is Place.CRITICAL or (not narrowed and place is not Place.ALLOWED):
            return f"deletes everything it finds under {_where(word, place)}"
    return None


def _shred(command: Command, scope: Scope) -> str | None:
    args = read_args(command, valued=("-n", "-s", "--iterations", "--size", "--random-source"))
    for word, static in args.operands:
        place = scope.place(word, static=static)
        if place is not Place.ALLOWED:
            return f"overwrites {_where(word, place)} beyond recovery"
    return None


def _unlink(command: Command, scope: Scope) -> str | None:
    for word, static in read_args(command).operands:
        place = scope.place(word, static=static)
        if place is Place.CRITICAL or (command.repeated and place is not Place.ALLOWED):
            return f"deletes {_where(word, place)} once per item, outside the allowed paths"
    return None


def _recursive_owner(command: Command, scope: Scope) -> str | None:
    args = read_args(command, valued=("--reference", "--from"))
    if not args.has("-R", "--recursive"):
        return None
    targets = args.operands if "reference" in args.values else args.operands[1:]
    for word, static in targets:
        if scope.place(word, static=static) is Place.CRITICAL:
            return f"changes {word!r} and everything below it"
    return None


def _device(word: str) -> bool:
    return word.startswith("/dev/") and not _SAFE_DEVICES.fullmatch(word)


def _dd(command: Command, _scope: Scope) -> str | None:
    for index, word in enumerate(command.args, start=1):
        if word.startswith("of=") and (_device(word[3:]) or not command.is_static(index)):
            return f"writes over the device {word[3:]!r}"
    return None


def _mkfs(command: Command, _scope: Scope) -> str | None:
    for index, word in enumerate(command.args, start=1):
        if _device(word) or (not command.is_static(index) and not word.startswith("-")):
            return f"makes a new file system on {word!r}"
    return None


def _wipe(command: Command, _scope: Scope) -> str | None:
    args = read_args(command, valued=("-o", "--offset", "-t", "--types", "-b", "--backup"))
    erases = {
        "wipefs": args.has("-a", "--all", "-o", "--offset"),
        "sgdisk": args.has("-Z", "--zap-all", "-z", "--zap", "-o", "--clear"),
        "blkdiscard": True,
        "parted": any(w in ("mklabel", "rm", "mkpart", "resizepart") for w, _ in args.operands),
        "sfdisk": not args.has(
            "-l", "--list", "-d", "--dump", "-V", "--verify", "-s", "--show-size"
        ),
    }.get(command.name or "", False)
    device = next((w for w, _ in args.operands if _device(w)), None)
    if erases and device is not None:
        return f"erases the partition table or signatures of {device!r}"
    return None


def _write_device(command: Command, _scope: Scope) -> str | None:
    for operator, target in command.redirects:
        if ">" in operator and target is not None and _device(target):
            return f"writes over the device {target!r}"
    return None


FILE_RULES: Final = (
    Rule("rm-recursive", "filesystem", frozenset({"rm"}), _rm,
         "rm -r/-R outside the allowed paths; rm -f of /, ~, a system folder or everything here"),
    Rule("find-delete", "filesystem", frozenset({"find"}), _find_delete,
         "find -delete of a whole tree outside the allowed paths, or under /, ~, a system folder"),
    Rule("shred", "filesystem", frozenset({"shred"}), _shred,
         "shred outside the allowed paths"),
    Rule("unlink-loop", "filesystem", frozenset({"unlink"}), _unlink,
         "unlink run per item (a loop, xargs, find -exec) outside the allowed paths"),
    Rule("chmod-recursive", "permissions", frozenset({"chmod", "chown", "chgrp"}),
         _recursive_owner, "chmod/chown/chgrp -R on /, ~ or a system folder"),
    Rule("dd-device", "disk", frozenset({"dd"}), _dd, "dd of=/dev/..."),
    Rule("mkfs", "disk", _MKFS_NAMES, _mkfs, "mkfs and co. on a device"),
    Rule("wipe-device", "disk", _WIPERS, _wipe,
         "wipefs -a, sgdisk -Z, blkdiscard, parted mklabel/rm, sfdisk on a device"),
    Rule("write-device", "disk", frozenset(), _write_device, "> /dev/sdX onto a device"),
)  # fmt: skip


def is_mkfs(name: str) -> bool:
    """``mkfs.ext4`` and co. (the rule table lists the bare names)."""
    return bool(_MKFS.fullmatch(name))

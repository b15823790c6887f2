"""Rules of the ``git`` pack: git commands that throw away work git cannot give back
(uncommitted changes, untracked files, commits others have, the reflog)."""

from __future__ import annotations

from typing import Final

from hookd.guards.paths import Scope
from hookd.guards.rule import Args, Rule, read_args
from hookd.shell import Command

__all__ = ["GIT_RULES", "git_subcommand"]

#: git's own options before the subcommand that take a value as the next word.
_GLOBAL_VALUED: Final = frozenset(
    {"-C", "-c", "--git-dir", "--work-tree", "--namespace", "--exec-path", "--super-prefix",
     "--config-env", "--list-cmds", "--attr-source"}
)  # fmt: skip


def git_subcommand(command: Command) -> tuple[str, int] | None:
    """git's subcommand and the index of its first argument, after git's own options."""
    index = 1
    words = command.argv
    while index < len(words):
        word = words[index]
        if not command.is_static(index):
            return None
        if word in _GLOBAL_VALUED:
            index += 2
        elif word.startswith("-"):
            index += 1
        else:
            return word, index + 1
    return None


def _args(command: Command, sub: str, valued: tuple[str, ...] = ()) -> Args | None:
    found = git_subcommand(command)
    if found is None or found[0] != sub:
        return None
    return read_args(command, found[1], valued)


def _reset(command: Command, _scope: Scope) -> str | None:
    args = _args(command, "reset")
    if args is not None and args.has("--hard"):
        return "throws away uncommitted changes"
    return None


def _clean(command: Command, _scope: Scope) -> str | None:
    args = _args(command, "clean", ("-e", "--exclude"))
    if args is None or args.has("-n", "--dry-run", "-i", "--interactive"):
        return None
    if args.has("-f", "--force") and args.has("-d", "-x", "-X"):
        return "deletes untracked files and folders for good"
    return None


def _checkout(command: Command, _scope: Scope) -> str | None:
    args = _args(
        command, "checkout", ("-b", "-B", "--orphan", "--conflict", "--pathspec-from-file")
    )
    if args is None or args.has("-p", "--patch", "-b", "-B", "--orphan"):
        return None
    words = [w for w, _ in args.operands]
    dashes = "--" in command.argv[2:]
    if args.has("-f", "--force") or (dashes and words) or {".", ":/", "*"} & set(words):
        return "overwrites uncommitted changes in the work tree"
    return None


def _restore(command: Command, _scope: Scope) -> str | None:
    args = _args(command, "restore", ("-s", "--source", "--pathspec-from-file"))
    if args is None or args.has("-p", "--patch") or not args.operands:
        return None
    if args.has("-S", "--staged") and not args.has("-W", "--worktree"):
        return None
    return "overwrites uncommitted changes in the work tree"


def _switch(command: Command, _scope: Scope) -> str | None:
    args = _args(command, "switch", ("-c", "-C", "--orphan"))
    if args is not None and args.has("--discard-changes", "-f", "--force"):
        return "throws away uncommitted changes"
    return None


def _push(command: Command, _scope: Scope) -> str | None:
    args = _args(command, "push", ("-o", "--push-option", "--repo", "--receive-pack", "--exec"))
    if args is None or any(name.startswith("force-with-lease") for name in args.long):
        return None
    plus = next((w for w, _ in args.operands[1:] if w.startswith("+")), None)
    if args.has("-f", "--force", "--mirror") or plus is not None:
        shown = f"with {plus!r}" if plus is not None else "with force"
        return f"rewrites the remote's history ({shown}, without --force-with-lease)"
    return None


def _branch(command: Command, _scope: Scope) -> str | None:
    args = _args(command, "branch")
    if args is None:
        return None
    if args.has("-D") or (args.has("-d", "--delete") and args.has("-f", "--force")):
        return "deletes a branch whether or not it was merged"
    return None


def _stash(command: Command, _scope: Scope) -> str | None:
    args = _args(command, "stash")
    if args is not None and args.operands and args.operands[0][0] in ("drop", "clear"):
        return "throws away stashed changes"
    return None


def _history(command: Command, _scope: Scope) -> str | None:
    found = git_subcommand(command)
    if found is not None and found[0] in ("filter-branch", "filter-repo"):
        return "rewrites every commit of the repository"
    args = _args(command, "reflog")
    if args is not None and args.operands and args.operands[0][0] in ("expire", "delete"):
        return "deletes reflog entries, the way back to lost commits"
    return None


def _rule(rule: str, check: object, summary: str) -> Rule:
    assert callable(check)
    return Rule(rule, "git", frozenset({"git"}), check, summary)


GIT_RULES: Final = (
    _rule("git-reset-hard", _reset, "git reset --hard"),
    _rule("git-clean", _clean, "git clean -f with -d, -x or -X (not -n, -i)"),
    _rule("git-checkout-discard", _checkout, "git checkout -- PATHS, checkout ., checkout -f"),
    _rule("git-restore", _restore, "git restore PATHS over the work tree (--staged alone is fine)"),
    _rule("git-switch-discard", _switch, "git switch --discard-changes / -f"),
    _rule("git-push-force", _push, "git push --force / -f / +REF / --mirror without a lease"),
    _rule("git-branch-force-delete", _branch, "git branch -D"),
    _rule("git-stash-drop", _stash, "git stash drop / clear"),
    _rule("git-history-rewrite", _history, "git filter-branch / filter-repo, reflog expire/delete"),
)

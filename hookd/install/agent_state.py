"""What each agent CLI's own settings say about the hooks hookd installed: switched off, trusted.

Read from the pinned CLIs (Claude Code 2.1, Codex 0.169, Gemini CLI 0.61, Copilot CLI 1.0.102,
Qwen Code 0.24), never written: trust is the user's step.

Switches (:data:`SWITCHES`; the most specific file that sets one decides, a managed or
system file first): Claude Code's ``disableAllHooks``, Codex's ``[features] hooks`` (and
its older name ``codex_hooks``), Gemini CLI's ``hooksConfig.enabled``, Copilot CLI's and
Qwen Code's ``disableAllHooks``, Droid's ``hooks.hooksDisabled`` (read in Droid 0.225's bundle:
its settings.json, the project's before the user's; Cline has no such switch), and a Claude
Code managed ``allowManagedHooksOnly`` (only an organisation's own hooks run). Gemini CLI
also skips a hook whose command its ``hooksConfig.disabled`` lists, Codex one whose
``[hooks.state."KEY"] enabled`` is false.

Trust: Codex reads a project's ``.codex/`` only when ``[projects."ROOT"] trust_level =
"trusted"``, and runs a hook only when ``[hooks.state."KEY"] trusted_hash`` in the user's
``config.toml`` is the hash of the hook as it is now (KEY: ``FILE:event:GROUP:INDEX``; the
hash: SHA-256 of the canonical JSON of the event and the normalized handler, as Codex's
``version_for_toml``). Gemini CLI runs project hooks only in a trusted folder (its
``trustedFolders.json``: the longest rule that holds the folder decides) while folder trust
is on (``security.folderTrust.enabled``, on by default).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import tomllib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hookd.install.installed import Entry, read_object, shown_path

__all__ = [
    "SWITCHES",
    "Finding",
    "Switch",
    "codex_hook_hash",
    "codex_project_trusted",
    "codex_untrusted",
    "gemini_disabled",
    "gemini_folder_trusted",
    "switched_off",
]

Files = Callable[[Path], list[Path]]


@dataclass(frozen=True, slots=True)
class Finding:
    """Why an agent will not call hookd, and what to run."""

    detail: str
    fix: str


@dataclass(frozen=True, slots=True)
class Switch:
    """A setting that turns every hook of an agent off: where it may be (most specific first,
    given the project), under which keys, and the value that turns hooks off."""

    files: Files
    keys: tuple[tuple[str, ...], ...]
    off: bool
    toml: bool = False


def _home(variable: str, folder: str) -> Path:
    given = os.environ.get(variable)
    return Path(given) if given else Path.home() / folder


def _system(variable: str, default: str) -> Path:
    return Path(os.environ.get(variable) or default)


def _codex_home() -> Path:
    return _home("CODEX_HOME", ".codex")


def _gemini_system() -> Path:
    return _system("GEMINI_CLI_SYSTEM_SETTINGS_PATH", "/etc/gemini-cli/settings.json")


_CLAUDE_MANAGED = Path("/etc/claude-code/managed-settings.json")


SWITCHES: dict[str, tuple[Switch, ...]] = {
    "claude": (
        Switch(
            lambda root: [
                _CLAUDE_MANAGED,
                root / ".claude" / "settings.local.json",
                root / ".claude" / "settings.json",
                Path.home() / ".claude" / "settings.json",
            ],
            (("disableAllHooks",),),
            off=True,
        ),
        # an organisation's: only its own (managed) hooks run, and hookd's are not
        Switch(lambda root: [_CLAUDE_MANAGED], (("allowManagedHooksOnly",),), off=True),
    ),
    "codex": (
        Switch(
            lambda root: [root / ".codex" / "config.toml", _codex_home() / "config.toml"],
            (("features", "hooks"), ("features", "codex_hooks")),
            off=False,
            toml=True,
        ),
    ),
    "gemini": (
        Switch(
            lambda root: [
                _gemini_system(),
                root / ".gemini" / "settings.json",
                Path.home() / ".gemini" / "settings.json",
            ],
            (("hooksConfig", "enabled"),),
            off=False,
        ),
    ),
    "copilot": (
        Switch(
            lambda root: [
                root / ".github" / "copilot" / "settings.local.json",
                root / ".github" / "copilot" / "settings.json",
                _home("COPILOT_HOME", ".copilot") / "settings.json",
            ],
            (("disableAllHooks",),),
            off=True,
        ),
    ),
    "droid": (
        Switch(
            lambda root: [
                root / ".factory" / "settings.json",
                Path.home() / ".factory" / "settings.json",
            ],
            (("hooks", "hooksDisabled"),),
            off=True,
        ),
    ),
    "qwen": (
        Switch(
            lambda root: [
                _system("QWEN_CODE_SYSTEM_SETTINGS_PATH", "/etc/qwen-code/settings.json"),
                root / ".qwen" / "settings.json",
                Path.home() / ".qwen" / "settings.json",
            ],
            (("disableAllHooks",),),
            off=True,
        ),
    ),
}


def _read(path: Path, *, toml: bool) -> dict[str, Any]:
    """The file's settings; empty when it is missing or cannot be read (the agent would
    complain of it itself)."""
    try:
        if toml:
            return tomllib.loads(path.read_text(encoding="utf-8"))
        return read_object(path) or {}
    except (OSError, UnicodeDecodeError, ValueError):
        return {}


def _dig(value: Any, keys: Sequence[str]) -> Any:
    for key in keys:
        value = value.get(key) if isinstance(value, dict) else None
    return value


def switched_off(agent: str, root: Path) -> Finding | None:
    """Whether the agent's own settings turn all its hooks off for the project ``root`` (none
    known for OpenCode, Kilo CLI and pi, which load every plugin in their folders)."""
    for switch in SWITCHES.get(agent, ()):
        found = _decided(switch, root)
        if found is not None:
            path, keys, value = found
            if value != switch.off:
                continue
            shown, name = shown_path(path, root), ".".join(keys)
            word = json.dumps(value)  # true, false: as TOML and JSON both write it
            said = f"{keys[-1]} = {word}" if switch.toml else f"{name}: {word}"
            return Finding(
                f"{said} in {shown} turns every {agent} hook off", f"remove {name} from {shown}"
            )
    return None


def _decided(switch: Switch, root: Path) -> tuple[Path, tuple[str, ...], bool] | None:
    """The most specific file that sets the switch, the key it sets, and its value."""
    for path in switch.files(root):
        value = _read(path, toml=switch.toml)
        for keys in switch.keys:
            found = _dig(value, keys)
            if isinstance(found, bool):
                return path, keys, found
    return None


# -- Codex -----------------------------------------------------------------------------------

_SESSION_END_MAX_S = 3  # Codex clamps a SessionEnd hook's timeout to 1-3 s (default 1)
_MATCHER_EVENTS = frozenset(
    {"pre_tool_use", "permission_request", "post_tool_use", "pre_compact", "post_compact",
     "session_start"}
)  # fmt: skip


def _snake(event: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", event).lower()


def codex_hook_hash(event: str, entry: Entry) -> str:
    """The hash Codex keeps as ``trusted_hash`` once the user approves this hook."""
    label = _snake(event)
    handler = entry.handler
    timeout = handler.get("timeout")
    seconds = timeout if isinstance(timeout, int) and not isinstance(timeout, bool) else None
    if label == "session_end":
        seconds = min(max(seconds or 1, 1), _SESSION_END_MAX_S)
    else:
        seconds = max(600 if seconds is None else seconds, 1)
    normal: dict[str, Any] = {
        "type": "command",
        "command": handler.get("command"),
        "timeout": seconds,
        "async": handler.get("async") is True,
    }
    if isinstance(handler.get("statusMessage"), str):
        normal["statusMessage"] = handler["statusMessage"]
    identity: dict[str, Any] = {"event_name": label, "hooks": [normal]}
    if entry.matcher is not None and label in _MATCHER_EVENTS:
        identity["matcher"] = entry.matcher
    text = json.dumps(identity, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return "sha256:" + hashlib.sha256(text.encode()).hexdigest()


def _codex_config() -> tuple[Path, dict[str, Any]]:
    path = _codex_home() / "config.toml"
    return path, _read(path, toml=True)


def codex_project_trusted(root: Path) -> Finding | None:
    """Codex reads a project's ``.codex/`` only in a project its config trusts."""
    path, config = _codex_config()
    projects = config.get("projects")
    for name in dict.fromkeys((str(root), os.path.realpath(root))):
        entry = projects.get(name) if isinstance(projects, dict) else None
        if isinstance(entry, dict) and entry.get("trust_level") == "trusted":
            return None
    shown = shown_path(path, None)
    return Finding(
        f"codex reads {root}/.codex/ only in a trusted project, and {shown} does not trust it",
        f'add [projects."{root}"] trust_level = "trusted" to {shown}',
    )


def codex_untrusted(hooks_file: Path, entries: list[Entry]) -> tuple[list[str], list[str]]:
    """Of the module's entries in a Codex hooks file: the events of those not approved (never,
    or changed since), and of those the user turned off (``/hooks``)."""
    _, config = _codex_config()
    state = _dig(config, ("hooks", "state"))
    state = state if isinstance(state, dict) else {}
    untrusted, off = [], []
    for e in entries:
        key = f"{hooks_file}:{_snake(e.agent_event)}:{e.group}:{e.index}"
        found = state.get(key)
        found = found if isinstance(found, dict) else {}
        if found.get("enabled") is False:
            off.append(e.agent_event)
        if found.get("trusted_hash") != codex_hook_hash(e.agent_event, e):
            untrusted.append(e.agent_event)
    return untrusted, off


# -- Gemini CLI ------------------------------------------------------------------------------


def gemini_folder_trusted(root: Path) -> Finding | None:
    """Gemini CLI runs a project's hooks only in a trusted folder, while folder trust is on."""
    said = os.environ.get("GEMINI_CLI_TRUST_WORKSPACE")
    if said == "true":
        return None
    if said == "false":
        return Finding(
            "$GEMINI_CLI_TRUST_WORKSPACE is false: gemini trusts no folder",
            "unset GEMINI_CLI_TRUST_WORKSPACE",
        )
    for path in (_gemini_system(), Path.home() / ".gemini" / "settings.json"):
        if _dig(_read(path, toml=False), ("security", "folderTrust", "enabled")) is False:
            return None  # folder trust off: every folder's hooks run
    rules = _gemini_trusted_folders()
    if _gemini_rule(_read(rules, toml=False), root) is True:
        return None
    return Finding(
        f"gemini runs project hooks only in a trusted folder, and {shown_path(rules, None)} "
        f"does not trust {root}",
        f"trust {root} in gemini (it asks when it starts there; or /permissions)",
    )


def _gemini_trusted_folders() -> Path:
    given = os.environ.get("GEMINI_CLI_TRUSTED_FOLDERS_PATH")
    return Path(given) if given else Path.home() / ".gemini" / "trustedFolders.json"


def _gemini_rule(rules: dict[str, Any], folder: Path) -> bool | None:
    """The longest rule whose folder holds ``folder``: trusted (True), distrusted (False)."""
    where = os.path.realpath(folder)
    best, verdict = -1, None
    for rule, level in rules.items():
        base = os.path.dirname(rule) if level == "TRUST_PARENT" else rule
        base = os.path.realpath(os.path.expanduser(base))
        held = where == base or where.startswith(base.rstrip(os.sep) + os.sep)
        if held and len(rule) > best:
            best, verdict = len(rule), level in ("TRUST_FOLDER", "TRUST_PARENT")
    return verdict


def gemini_disabled(root: Path, commands: list[str]) -> Finding | None:
    """Gemini CLI skips a hook whose command its ``hooksConfig.disabled`` names."""
    for path in SWITCHES["gemini"][0].files(root):
        listed = _dig(_read(path, toml=False), ("hooksConfig", "disabled"))
        named = [c for c in commands if isinstance(listed, list) and c in listed]
        if named:
            shown = shown_path(path, root)
            return Finding(
                f"{shown} lists {len(named)} of hookd's commands in hooksConfig.disabled",
                f"remove them from hooksConfig.disabled in {shown} (or /hooks enable in gemini)",
            )
    return None

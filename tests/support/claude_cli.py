"""Locating and launching the real Claude Code CLI offline (against a fake API on 127.0.0.1)."""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path
from typing import Any

__all__ = ["MODEL", "cli_args", "cli_env", "find_claude", "user_message"]

MODEL = "claude-sonnet-4-5"

# Variables copied from the caller's environment when set; everything else is left out.
_PASSED_THROUGH = ("LANG", "LC_ALL", "TZ")


def find_claude() -> Path | None:
    """The CLI binary bundled with ``claude_agent_sdk``, or ``None`` if it is not installed."""
    spec = importlib.util.find_spec("claude_agent_sdk")
    if spec is None or not spec.submodule_search_locations:
        return None
    for location in spec.submodule_search_locations:
        binary = Path(location) / "_bundled" / "claude"
        if binary.is_file() and os.access(binary, os.X_OK):
            return binary
    return None


def cli_env(home: Path, base_url: str) -> dict[str, str]:
    """A clean environment for one CLI run: private ``HOME``, fake API, no outside traffic.

    ``TMPDIR`` is ``home/tmp`` (created here), so the scratch files the CLI writes to the
    temp directory stay inside ``home`` too.
    """
    tmp = home / "tmp"
    tmp.mkdir(parents=True, exist_ok=True)
    inherited = {k: os.environ[k] for k in _PASSED_THROUGH if k in os.environ}
    return {
        **inherited,
        "PATH": os.environ.get("PATH", os.defpath),
        "HOME": str(home),
        "TMPDIR": str(tmp),
        "ANTHROPIC_BASE_URL": base_url,
        "ANTHROPIC_API_KEY": "dummy",
        "DISABLE_TELEMETRY": "1",
        "DISABLE_ERROR_REPORTING": "1",
        "DISABLE_AUTOUPDATER": "1",
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        "CLAUDE_CODE_ENTRYPOINT": "sdk-py",
        "CLAUDE_CODE_SDK_READS_SESSION_STATE": "1",
    }


def cli_args(
    binary: Path,
    *,
    permission_prompt_tool: bool = False,
    permission_mode: str = "default",
    model: str = MODEL,
    extra: tuple[str, ...] = (),
) -> list[str]:
    """The argv for a stream-json session of the CLI at ``binary``.

    ``permission_prompt_tool`` adds ``--permission-prompt-tool stdio`` so the CLI asks the host
    with ``can_use_tool`` control requests. As root the CLI refuses ``bypassPermissions``.
    """
    args = [
        str(binary),
        "--output-format", "stream-json",
        "--verbose",
        "--input-format", "stream-json",
        "--system-prompt", "",
        "--model", model,
        "--permission-mode", permission_mode,
    ]  # fmt: skip
    if permission_prompt_tool:
        args += ["--permission-prompt-tool", "stdio"]
    return [*args, *extra]


def user_message(prompt: str) -> dict[str, Any]:
    """The stdin line (before JSON encoding) that submits ``prompt`` as a user turn."""
    return {
        "type": "user",
        "message": {"role": "user", "content": prompt},
        "parent_tool_use_id": None,
        "session_id": "default",
    }

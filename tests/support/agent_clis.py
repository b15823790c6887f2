"""The other agent CLIs at pinned versions, installed with npm into a cache the runs reuse.

``make test`` needs Node and npm (and npm's registry) on a new machine; each package is
installed once per version into ``$HOOKD_AGENT_CACHE`` (default ``~/.cache/hookd-tests/npm``),
under a lock, so parallel tests and later runs share it. A missing Node is an error, not a
skip: the real CLIs are the proof.
"""

from __future__ import annotations

import fcntl
import os
import shutil
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

__all__ = ["PINNED", "AgentCli", "agent_cli", "cache_root", "shared_cache"]


@dataclass(frozen=True, slots=True)
class AgentCli:
    agent: str
    package: str
    version: str
    bin: str  # the executable's name in node_modules/.bin
    #: Further packages installed beside it (a platform build published at another version).
    extra: tuple[str, ...] = ()


PINNED = {
    "codex": AgentCli("codex", "@openai/codex", "0.169.0", "codex"),
    "gemini": AgentCli("gemini", "@google/gemini-cli", "0.61.0", "gemini"),
    "copilot": AgentCli("copilot", "@github/copilot", "1.0.102", "copilot"),
    "qwen": AgentCli("qwen", "@qwen-code/qwen-code", "0.24.4", "qwen"),
    "droid": AgentCli(
        "droid", "@factory/cli", "0.225.1", "droid", ("@factory/cli-linux-x64@0.225.2",)
    ),
    "opencode": AgentCli("opencode", "opencode-ai", "1.18.33", "opencode"),
    "kilo": AgentCli("kilo", "@kilocode/cli", "7.8.1", "kilo", ("@kilocode/cli-linux-x64@7.7.9",)),
    "pi": AgentCli("pi", "@mariozechner/pi-coding-agent", "0.73.1", "pi"),
    "cline": AgentCli("cline", "cline", "3.0.65", "cline"),
}

#: One npm install may fetch a few hundred MB on a new machine.
_INSTALL_TIMEOUT_S = 900


def cache_root() -> Path:
    given = os.environ.get("HOOKD_AGENT_CACHE")
    return Path(given) if given else Path.home() / ".cache" / "hookd-tests" / "npm"


@contextmanager
def shared_cache(name: str) -> Iterator[Path]:
    """The cache folder ``name`` that runs of one CLI share (Copilot CLI unpacks its package
    into its own on a first run), held under a lock while a run uses it: tests running in
    parallel (``make pytest``) never unpack into it at once."""
    folder = cache_root() / name
    folder.mkdir(parents=True, exist_ok=True)
    with (cache_root() / f".{name}.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        yield folder


def agent_cli(agent: str) -> Path:
    """The pinned CLI's executable, installed first if this cache does not hold it yet."""
    cli = PINNED[agent]
    prefix = cache_root() / f"{cli.agent}-{cli.version}"
    binary = prefix / "node_modules" / ".bin" / cli.bin
    if binary.exists():
        return binary
    npm = shutil.which("npm")
    if npm is None:
        raise RuntimeError("npm is not on PATH: the agent CLI tests install their CLIs with it")
    prefix.mkdir(parents=True, exist_ok=True)
    with (prefix.parent / f".{cli.agent}.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not binary.exists():
            done = subprocess.run(
                [npm, "install", "--prefix", str(prefix), "--no-audit", "--no-fund",
                 "--loglevel=error", f"{cli.package}@{cli.version}", *cli.extra],
                capture_output=True, text=True, timeout=_INSTALL_TIMEOUT_S, check=False,
            )  # fmt: skip
            if done.returncode != 0 or not binary.exists():
                raise RuntimeError(
                    f"npm install {cli.package}@{cli.version} failed: {done.stderr.strip()[-800:]}"
                )
    return binary


def main() -> int:
    """Install every pinned CLI that the cache lacks; one line each."""
    for agent, cli in PINNED.items():
        print(f"{cli.package}@{cli.version}: {agent_cli(agent)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""Shared pytest configuration."""

from pathlib import Path

import pytest

from tests.faults.faultkit import FIGURES
from tests.support.claude_cli import find_claude


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "real_cli: runs the real Claude Code CLI offline against a fake API"
    )
    config.addinivalue_line("markers", "req(*ids): the protocol/SPEC.md requirements a test covers")


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    """The fuzz and soak figures, after the progress dots."""
    figures = terminalreporter.config.stash.get(FIGURES, [])
    if figures:
        terminalreporter.section("figures")
        for text in figures:
            terminalreporter.write_line(text)


@pytest.fixture(scope="session")
def claude() -> Path:
    """The Claude Code CLI bundled with claude-agent-sdk (the dev extra)."""
    binary = find_claude()
    if binary is None:
        pytest.skip("the Claude Code CLI bundled with claude_agent_sdk is not installed")
    return binary

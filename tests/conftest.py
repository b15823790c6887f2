"""Shared pytest configuration."""

from collections.abc import Generator
from pathlib import Path

import pytest

from tests.faults.faultkit import FIGURES
from tests.support.claude_cli import find_claude

#: Where a worker's figures travel to the controller under pytest-xdist (on the test's report).
_FIGURES_PROPERTY = "hookd_figures"


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "real_cli: runs the real Claude Code CLI offline against a fake API"
    )
    config.addinivalue_line("markers", "req(*ids): the protocol/SPEC.md requirements a test covers")
    config.addinivalue_line(
        "markers",
        "serial: bounds wall-clock times of a second or so; `make pytest` runs these tests in a "
        "pass of their own after the parallel one, on a machine no other test keeps busy",
    )


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    """On an xdist worker, the figures a test kept go to the controller with its teardown
    report (the worker's own terminal is not shown)."""
    report = yield
    if call.when == "teardown" and hasattr(item.config, "workerinput"):
        figures = item.config.stash.get(FIGURES, [])
        if figures:
            report.user_properties.append((_FIGURES_PROPERTY, list(figures)))
            figures.clear()
    return report


def _forwarded(terminalreporter: pytest.TerminalReporter) -> list[str]:
    """The figures the xdist workers sent with their tests' reports."""
    found: list[str] = []
    for reports in terminalreporter.stats.values():
        for report in reports:
            for name, value in getattr(report, "user_properties", ()):
                if name == _FIGURES_PROPERTY:
                    found += value
    return found


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    """The fuzz and soak figures, after the progress dots."""
    figures = [*terminalreporter.config.stash.get(FIGURES, []), *_forwarded(terminalreporter)]
    if figures:
        terminalreporter.section("figures")
        for text in figures:
            terminalreporter.write_line(text)


@pytest.fixture(scope="session")
def claude() -> Path:
    """The Claude Code CLI bundled with claude_agent_sdk (the dev extra)."""
    binary = find_claude()
    if binary is None:
        pytest.skip("the Claude Code CLI bundled with claude_agent_sdk is not installed")
    return binary

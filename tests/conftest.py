"""Shared pytest configuration."""

import pytest


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "real_cli: runs the real Claude Code CLI offline against a fake API"
    )
    config.addinivalue_line("markers", "req(*ids): the protocol/SPEC.md requirements a test covers")

"""hookd's pytest plugin (the ``pytest11`` entry point): fixtures and a marker for hook tests.

- ``hookd_hooks``: ``hooks = hookd_hooks("hooks.py")`` loads a hooks module
  (:func:`hookd.testing.load`); a relative path is looked up beside the test
  file first, then from the current directory.
- ``hookd_replay``: ``hookd_replay("session.jsonl", hooks="hooks.py")`` replays
  a recorded session and fails with ``hookd replay``'s diff.
- ``@pytest.mark.hookd_replay("session.jsonl", hooks="hooks.py")``: the same,
  before the test body runs.

pytest imports this module in every run of every project where hookd is
installed, so it imports nothing from hookd until a test asks for it.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from hookd.testing.harness import Hooks
    from hookd.transcript.replay import ReplayResult

__all__ = ["hookd_hooks", "hookd_replay"]

MARKER = "hookd_replay"


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        f"{MARKER}(transcript, hooks=None, **options): replay a recorded hookd session "
        "against a hooks module and fail with the field-level diff",
    )


def _beside(base: Path, spec: str | Path | None) -> str | None:
    """``spec`` resolved beside the test file when it names a file there."""
    if spec is None:
        return None
    text = str(spec)
    candidate = base / text
    if not Path(text).is_absolute() and candidate.exists():
        return str(candidate)
    return text


def _replay(
    base: Path, transcript: str | Path, hooks: Any, options: dict[str, Any]
) -> ReplayResult:
    from hookd.testing.pinning import assert_replays

    __tracebackhide__ = True
    return assert_replays(
        _beside(base, transcript) or str(transcript), _beside(base, hooks), **options
    )


@pytest.fixture
def hookd_hooks(request: pytest.FixtureRequest) -> Callable[..., Hooks]:
    """Load a hooks module for this test: ``hookd_hooks("hooks.py", timeout=5)``."""
    from hookd.testing.harness import load

    base = Path(str(request.node.path)).parent

    def loader(spec: str | Path, **options: Any) -> Hooks:
        return load(_beside(base, spec) or str(spec), **options)

    return loader


@pytest.fixture
def hookd_replay(request: pytest.FixtureRequest) -> Callable[..., ReplayResult]:
    """Replay a transcript against a hooks module; fail with ``hookd replay``'s diff."""
    base = Path(str(request.node.path)).parent

    def replayer(
        transcript: str | Path, hooks: str | Path | None = None, **options: Any
    ) -> ReplayResult:
        __tracebackhide__ = True
        return _replay(base, transcript, hooks, options)

    return replayer


def pytest_runtest_call(item: pytest.Item) -> None:
    """Tests marked ``hookd_replay`` replay their transcripts before the body runs."""
    __tracebackhide__ = True
    base = Path(str(item.path)).parent
    for mark in item.iter_markers(MARKER):
        if not mark.args:
            raise pytest.UsageError(f"{item.nodeid}: @pytest.mark.{MARKER} needs a transcript")
        options = dict(mark.kwargs)
        hooks = options.pop("hooks", None)
        failure = None
        try:
            _replay(base, mark.args[0], hooks, options)
        except AssertionError as exc:
            failure = str(exc)
        except Exception as exc:  # a transcript or module that cannot be read: one line
            from hookd.errors import HookdError

            if not isinstance(exc, HookdError | OSError):
                raise
            failure = f"@pytest.mark.{MARKER}: {exc}"
        if failure is not None:
            pytest.fail(failure, pytrace=False)

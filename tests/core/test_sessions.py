"""Per-session state: one dict per session, freed on end, capped oldest-idle first."""

from __future__ import annotations

import pytest

from hookd.core.sessions import SessionStates


def test_one_state_per_session_and_none_shares_the_empty_id() -> None:
    states = SessionStates()
    states.for_session("a")["n"] = 1
    assert states.for_session("a") == {"n": 1}
    assert states.for_session("b") == {}
    assert states.for_session(None) is states.for_session("")


@pytest.mark.req("R-077")
def test_end_frees_the_state() -> None:
    states = SessionStates()
    states.for_session("a")["n"] = 1
    states.end("a")
    assert "a" not in states
    assert states.for_session("a") == {}
    states.end("never-seen")  # no error


@pytest.mark.req("R-077")
def test_cap_evicts_the_session_idle_longest() -> None:
    states = SessionStates(max_sessions=2)
    states.for_session("a")["n"] = 1
    states.for_session("b")["n"] = 2
    states.for_session("a")  # a used again: b is now the idle one
    states.for_session("c")
    assert list(states) == ["a", "c"]
    assert states.for_session("a") == {"n": 1}


def test_cap_must_be_positive() -> None:
    with pytest.raises(ValueError, match="at least 1"):
        SessionStates(max_sessions=0)

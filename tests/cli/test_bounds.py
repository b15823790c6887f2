"""Every number hookd takes from its command line or its environment is bounded: nan, inf,
negative, absurdly large (1e9 s) and non-ASCII digits are refused in one line, never a
traceback, and usage errors exit 2. Through the console script, as a user types them."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from hookd.bounds import IDLE_SECONDS, SECONDS, Bound, BoundError, env_number
from hookd.daemon.where import module_key
from hookd.decision import STORE_NAME
from hookd.decision.store import Store, rows_of
from tests.cli.console import hookd, module, one_line_error
from tests.daemon.support import Box
from tests.daemon.support import hookd as box_hookd

HOOKS = """
    from hookd import HookMatcher

    async def guard(input_data, tool_use_id, context):
        return None

    hooks = {"PreToolUse": [HookMatcher(matcher="Bash", hooks=[guard])]}
"""

#: (words, the option refused); HOOKS stands for a real hooks file.
REFUSED = [
    (("serve", "HOOKS", "--timeout", "nan"), "--timeout"),
    (("serve", "HOOKS", "--timeout", "-1"), "--timeout"),
    (("serve", "HOOKS", "--timeout", "1e9"), "--timeout"),
    (("serve", "HOOKS", "--http", "0", "--idle-exit", "inf"), "--idle-exit"),
    (("serve", "HOOKS", "--http", "0", "--header-timeout", "1e9"), "--header-timeout"),
    (("serve", "HOOKS", "--http", "0", "--max-body-bytes", "1e30"), "--max-body-bytes"),
    (("serve", "HOOKS", "--max-in-flight", "-3"), "--max-in-flight"),
    (("serve", "HOOKS", "--decision-log", "--decision-log-max-days", "1e9"),
     "--decision-log-max-days"),
    (("up", "HOOKS", "--idle-exit", "nan"), "--idle-exit"),
    (("up", "HOOKS", "--idle-exit", "-1"), "--idle-exit"),
    (("up", "HOOKS", "--port", "\u0663"), "--port"),  # an Arabic-Indic 3: int() takes it
    (("up", "HOOKS", "--decision-log-max-bytes", "-1"), "--decision-log-max-bytes"),
    (("install", "HOOKS", "--port", "70000"), "--port"),
    (("log", "--limit", "-1"), "--limit"),
    (("log", "--why", "\u00b2"), "--why"),  # '²'.isdigit() is True, int('²') raises
    (("log", "--why", "99999999999999999999999"), "--why"),
    (("whatif", "HOOKS", "--limit", "-1"), "--limit"),
    (("whatif", "HOOKS", "--load-timeout", "0"), "--load-timeout"),
    (("replay", "t.jsonl", "--timeout", "nan"), "--timeout"),
    (("replay", "t.jsonl", "--speed", "-1"), "--speed"),
    (("run", "--hooks", "HOOKS", "--init-timeout", "1e9"), "--init-timeout"),
    (("check", "HOOKS", "--timeout", "inf"), "--timeout"),
]  # fmt: skip


@pytest.mark.req("R-D75", "R-L52")
@pytest.mark.parametrize(("words", "option"), REFUSED, ids=[" ".join(w) for w, _ in REFUSED])
def test_a_number_out_of_its_bounds_is_one_usage_line(
    tmp_path: Path, words: tuple[str, ...], option: str
) -> None:
    hooks = module(tmp_path / "hooks.py", HOOKS)
    argv = [hooks if w == "HOOKS" else w for w in words]
    proc = hookd(*argv, cwd=tmp_path, env={"XDG_STATE_HOME": str(tmp_path / "state")})
    assert proc.returncode == 2 and proc.stdout == ""
    line = one_line_error(proc, words[0])
    value = words[words.index(option) + 1]
    assert line.startswith(f"hookd {words[0]}: error: argument {option}: must be "), line
    assert line.endswith(f", not {value!r}"), line
    assert not (tmp_path / "state").exists()  # refused before anything ran


@pytest.mark.req("R-D75")
@pytest.mark.parametrize("port", ["\u00b2", "9" * 5000, "65536"])
def test_an_http_port_that_is_not_one_is_one_line(tmp_path: Path, port: str) -> None:
    hooks = module(tmp_path / "hooks.py", HOOKS)
    proc = hookd("serve", hooks, "--http", f"127.0.0.1:{port}")
    assert proc.returncode == 2
    line = one_line_error(proc, "serve")
    assert line.startswith("hookd serve: error: --http: expected [HOST:]PORT with PORT 0-65535")


@pytest.mark.req("R-D76")
@pytest.mark.parametrize(
    ("variable", "value", "bound"),
    [
        ("HOOKD_DECISION_LOG_MAX_DAYS", "nan", "a number of days above 0 and at most 3650"),
        ("HOOKD_DECISION_LOG_MAX_DAYS", "1e9", "a number of days above 0 and at most 3650"),
        ("HOOKD_DECISION_LOG_MAX_BYTES", "-1", "a whole number of bytes from 1 to 68719476736"),
        ("HOOKD_DECISION_LOG_MAX_BYTES", "1.5e6", "a whole number of bytes from 1 to 68719476736"),
    ],
)
def test_a_numeric_variable_out_of_its_bounds_is_one_line(
    tmp_path: Path, variable: str, value: str, bound: str
) -> None:
    hooks = module(tmp_path / "hooks.py", HOOKS)
    store = tmp_path / "decisions.sqlite3"
    proc = hookd("serve", hooks, "--decision-log", str(store), env={variable: value})
    assert proc.returncode == 2 and proc.stdout == ""
    line = one_line_error(proc, "serve")
    assert line == f"hookd serve: error: ${variable}: must be {bound}, not {value!r}"
    assert not store.exists()


def test_the_one_helper_reads_bounds_from_options_and_the_environment() -> None:
    assert SECONDS.parse(" 2.5 ") == 2.5 and IDLE_SECONDS.parse("0") == 0
    assert Bound(1, 10, whole=True).parse("10") == 10
    for text in ("nan", "inf", "-inf", "-1", "0", "1e9", "86400.5", "\u0661", "", "1_e3"):
        with pytest.raises(BoundError, match="must be a number of seconds above 0"):
            SECONDS.parse(text)
    assert env_number("T", SECONDS, 7.0, {}) == 7.0
    assert env_number("T", SECONDS, 7.0, {"T": " "}) == 7.0
    assert env_number("T", SECONDS, 7.0, {"T": "3"}) == 3.0
    with pytest.raises(BoundError, match=r"^\$T: must be .*, not 'inf'$"):
        env_number("T", SECONDS, 7.0, {"T": "inf"})


def _logged(box: Box, n: int) -> Path:
    """A hooks module whose decision log holds ``n`` records (the store's API)."""
    hooks = Path(module(box.project / "hooks.py", HOOKS))
    state = box.state / "hookd" / "daemons" / module_key(str(hooks.resolve()))
    state.mkdir(parents=True)
    rows = [{"time": time.time(), "agent": "claude", "event": "PreToolUse", "tool": "Bash",
             "decision": "deny", "reason": f"no {i}", "shadow": 0, "input": "{}"}
            for i in range(n)]  # fmt: skip
    store = Store(str(state / STORE_NAME))
    store.add(rows_of(rows))
    store.close()
    return hooks


@pytest.mark.req("R-L52")
def test_log_limit_zero_lists_every_record_and_why_takes_any_stored_id(tmp_path: Path) -> None:
    box = Box(tmp_path)
    box.env()  # makes its folders
    hooks = _logged(box, 60)
    every = box_hookd(box, "log", str(hooks), "--limit", "0", "--json")
    assert every.returncode == 0, every.stderr
    assert [json.loads(line)["id"] for line in every.stdout.splitlines()] == list(range(1, 61))
    default = box_hookd(box, "log", str(hooks), "--json")
    assert len(default.stdout.splitlines()) == 50  # the default is unchanged
    two = box_hookd(box, "log", str(hooks), "--limit", "2")
    assert len(two.stdout.splitlines()) == 3  # the header and two records
    why = box_hookd(box, "log", str(hooks), "--why", "60")
    assert why.returncode == 0 and why.stdout.startswith("record 60: PreToolUse Bash -> deny")
    missing = box_hookd(box, "log", str(hooks), "--why", str(2**63 - 1))
    assert (missing.returncode, missing.stderr) == (1, f"hookd log: error: no record {2**63 - 1}\n")

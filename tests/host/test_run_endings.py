"""How ``hookd run`` ends: exit codes and the line that says why, with the real CLI offline.

0 finished, 1 initialize refused, 3 the CLI exited early, 4 a hook stopped the run,
5 a hook blocked the prompt, 130/143 interrupted; plain-text prompts on stdin, one
turn each; API retries shown in the progress view.
"""

from __future__ import annotations

import os
import signal
from pathlib import Path

import pytest
import trio

from tests.cli.console import hookd, module
from tests.support.fake_anthropic import FakeAnthropic, message_texts, run_tool_then_done, text
from tests.support.host_run import bare_cli, run_hookd

HOOKS = """
    from hookd import HookMatcher

    async def guard(input_data, tool_use_id, context):
        return None

    hooks = {"PreToolUse": [HookMatcher(matcher="Bash", hooks=[guard])]}
"""


@pytest.mark.parametrize(("cli", "code"), [("true", 0), ("false", 1)])
@pytest.mark.req("R-209")
def test_a_cli_that_exits_at_once_is_said_and_fails(tmp_path: Path, cli: str, code: int) -> None:
    hooks = module(tmp_path / "hooks.py", HOOKS)
    proc = hookd("run", "--hooks", hooks, "-p", "hello", "--", cli)
    assert proc.returncode == 3, proc.stderr
    assert proc.stderr.splitlines()[-1] == (
        f"hookd run: error: the CLI exited (code {code}) before answering initialize: "
        "no prompt ran (its own messages, if any, are above)"
    )


def test_run_help_documents_the_exit_codes() -> None:
    text_ = hookd("run", "--help").stdout
    for line in ("0  ", "1  ", "3  ", "4  ", "5  ", "127", "130"):
        assert f"\n  {line}" in text_, text_


@pytest.mark.req("R-209")
async def test_hook_abort_exits_4_and_says_why(claude: Path, tmp_path: Path) -> None:
    with FakeAnthropic(run_tool_then_done(["touch x"])) as api:
        run = await run_hookd("host_abort.py", bare_cli(claude), api, tmp_path)
    assert run.returncode == 4, run.stderr
    assert run.stderr.splitlines()[-1] == (
        "hookd run: stopped by a hook: stopped by hookd: policy violation"
    )


@pytest.mark.req("R-209")
async def test_a_blocked_prompt_exits_5_and_says_why(claude: Path, tmp_path: Path) -> None:
    with FakeAnthropic([text("never")]) as api:
        run = await run_hookd("host_block_prompt.py", bare_cli(claude), api, tmp_path)
    assert run.returncode == 5, run.stderr
    assert run.stderr.splitlines()[-1] == (
        "hookd run: prompt blocked by a hook: prompts about secrets are not allowed"
    )
    assert api.message_requests == []  # the model was never asked


@pytest.mark.req("R-209", "R-210")
async def test_ctrl_c_exits_130_and_says_so(claude: Path, tmp_path: Path) -> None:
    started = tmp_path / "started.fifo"
    os.mkfifo(started)

    async def interrupt(proc: trio.Process) -> None:
        await trio.to_thread.run_sync(started.read_text)  # the hook is running
        proc.send_signal(signal.SIGINT)

    with FakeAnthropic(run_tool_then_done(["echo hi"])) as api:
        run = await run_hookd(
            "host_wait.py",
            bare_cli(claude),
            api,
            tmp_path,
            args=["--progress", "always"],
            extra_env={"HOOKD_TEST_STARTED": str(started)},
            while_running=interrupt,
        )
    assert run.returncode == 130, run.stderr
    assert run.stderr.splitlines()[-1] == "hookd run: interrupted (SIGINT): the CLI was stopped"
    assert "= error: ()" not in run.stderr and "= done: ()" not in run.stderr


@pytest.mark.req("R-204")
async def test_plain_text_prompts_on_stdin_are_one_turn_each(claude: Path, tmp_path: Path) -> None:
    with FakeAnthropic([text("first answer")]) as api:
        run = await run_hookd(
            "host_context.py",
            bare_cli(claude),
            api,
            tmp_path,
            prompt=None,
            stdin=b"list the TODOs\nnow the FIXMEs\n",
        )
    assert run.returncode == 0, run.stderr
    assert len(run.of_type("result")) == 2
    turns = [r for r in api.message_requests if r.get("tools")]
    assert len(turns) == 2
    assert "list the TODOs" in message_texts(turns[0], "user")[-1]
    assert "now the FIXMEs" not in " ".join(message_texts(turns[0]))  # not joined to turn one
    assert "now the FIXMEs" in message_texts(turns[1], "user")[-1]
    assert "input.invalid" not in run.stderr


@pytest.mark.req("R-211")
async def test_api_retries_show_in_the_progress_view(claude: Path, tmp_path: Path) -> None:
    with FakeAnthropic([text("done")], overloaded=1) as api:
        run = await run_hookd(
            "host_allow.py", bare_cli(claude), api, tmp_path, args=["--progress", "always"]
        )
    assert run.returncode == 0, run.stderr
    (line,) = [x for x in run.stderr.splitlines() if x.startswith("  ~ API")]
    assert line.startswith("  ~ API 529 ") and ": retry 1/" in line


@pytest.mark.req("R-211")
async def test_the_clis_stderr_stays_out_of_the_progress_view(claude: Path, tmp_path: Path) -> None:
    kept = tmp_path / "cli-stderr.log"
    with FakeAnthropic(run_tool_then_done(["echo hi"])) as api:
        run = await run_hookd(
            "host_post_fails.py",
            bare_cli(claude),
            api,
            tmp_path,
            args=["--progress", "always", "--cli-stderr", str(kept)],
        )
    assert run.returncode == 0, run.stderr
    ours = [line for line in run.stderr.splitlines() if not line.startswith("{")]
    assert max(len(line) for line in ours) < 300, "\n".join(ours)
    assert kept.stat().st_size > 0
    (noted,) = [line for line in ours if line.startswith("  ! the CLI wrote ")]
    assert f"bytes to stderr (kept in {kept}): " in noted
    assert "audit store unreachable" in kept.read_text()

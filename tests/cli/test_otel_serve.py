"""OpenTelemetry export from ``hookd serve`` over a pipe; without the extra, one warning line;
``hookd up`` and ``hookd install`` hand ``--otel-endpoint`` to the daemon."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from hookd.daemon.lifecycle import StartOptions, serve_argv
from hookd.daemon.paths import daemon_paths
from hookd.engine.otel import wanted
from tests.cli.console import answers, hookd, lines, module
from tests.cli.test_decision_log_serve import GUARD, callback
from tests.support.otlp_receiver import attributes, otlp_receiver

FAST = {"OTEL_BSP_SCHEDULE_DELAY": "100", "OTEL_METRIC_EXPORT_INTERVAL": "200"}


@pytest.mark.req("R-L20")
def test_serve_over_a_pipe_exports_a_span_per_answer(tmp_path: Path) -> None:
    hooks = module(tmp_path / "hooks.py", GUARD)
    sent = lines(callback("a", "ls"), callback("b", "rm -rf /"))
    with otlp_receiver() as (url, received):
        done = hookd("serve", hooks, stdin=sent, env={**FAST, "OTEL_EXPORTER_OTLP_ENDPOINT": url})
        assert done.returncode == 0, done.stderr
        spans = [attributes(span.attributes) for span in received.spans()]
    assert answers(done.stdout)["b"]["response"]["hookSpecificOutput"]["permissionDecision"]
    by_decision = {span["decision"]: span for span in spans}
    assert set(by_decision) == {"none", "deny"} and len(spans) == 2
    assert by_decision["deny"]["hook_name"] == "guard"
    assert "hook_name" not in by_decision["none"]  # no hook decided
    assert by_decision["deny"]["session.id"] == "s9"
    assert by_decision["deny"]["tool_name"] == "Bash"


@pytest.mark.req("R-L24")
def test_without_the_extra_one_warning_line_and_the_same_answers(tmp_path: Path) -> None:
    hooks = module(tmp_path / "hooks.py", GUARD)
    hidden = tmp_path / "hide" / "opentelemetry"
    hidden.mkdir(parents=True)
    (hidden / "__init__.py").write_text("raise ImportError('opentelemetry is not installed')\n")
    env = {"PYTHONPATH": str(hidden.parent), "OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:9"}
    sent = lines(callback("a", "ls"), callback("b", "rm -rf /"))
    done = hookd("serve", hooks, "--log-format", "json", stdin=sent, env=env)
    assert done.returncode == 0, done.stderr
    plain = hookd("serve", hooks, stdin=sent)
    assert answers(done.stdout) == answers(plain.stdout)
    (warning,) = [line for line in done.stderr.splitlines() if "otel" in line]
    assert json.loads(warning)["msg"] == "otel.unavailable"
    assert "pip install 'hookd[otel]'" in warning


@pytest.mark.req("R-L24")
def test_importing_hookd_and_its_writer_does_not_import_opentelemetry() -> None:
    code = (
        "import sys, hookd, hookd.engine.decisions, hookd.engine.otel\n"
        "print(sorted(m for m in sys.modules if m.startswith('opentelemetry')))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"


@pytest.mark.req("R-L20")
@pytest.mark.parametrize(
    ("endpoint", "env", "expected"),
    [
        (None, {}, (False, False)),
        ("http://c:4318", {}, (True, True)),
        (None, {"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318"}, (True, True)),
        (None, {"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://c/v1/traces"}, (True, False)),
        (None, {"OTEL_EXPORTER_OTLP_METRICS_ENDPOINT": "http://c/v1/metrics"}, (False, True)),
        ("http://c:4318", {"OTEL_SDK_DISABLED": "true"}, (False, False)),
    ],
)
def test_which_signals_are_exported(
    endpoint: str | None, env: dict[str, str], expected: tuple[bool, bool]
) -> None:
    assert wanted(endpoint, env) == expected


@pytest.mark.req("R-L25")
def test_the_daemon_is_started_with_the_endpoint_given_or_installed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(tmp_path / "run"))
    (tmp_path / "run").mkdir(mode=0o700)
    paths = daemon_paths(Path(module(tmp_path / "hooks.py", GUARD)))
    given = serve_argv(paths, StartOptions(20001, "t" * 32, otel_endpoint="http://c:4318"))
    assert given[given.index("--otel-endpoint") + 1] == "http://c:4318"
    assert "--otel-endpoint" not in serve_argv(paths, StartOptions(20001, "t" * 32))
    paths.record.write_text(json.dumps({"otel_endpoint": "http://installed:4318"}))
    installed = serve_argv(paths, StartOptions(20001, "t" * 32))
    assert installed[installed.index("--otel-endpoint") + 1] == "http://installed:4318"


@pytest.mark.req("R-L25")
def test_help_names_the_option() -> None:
    for command in ("serve", "up", "install"):
        shown = hookd(command, "--help")
        assert "--otel-endpoint URL" in shown.stdout, command

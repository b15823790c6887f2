"""The daemon ``hookd install --otel-endpoint URL`` starts exports each answer to a real
OTLP/HTTP receiver; the endpoint is remembered for every later start."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.daemon.support import Box, hookd
from tests.daemon.test_decision_log import bash, call
from tests.support.otlp_receiver import attributes, otlp_receiver

FAST = {"OTEL_BSP_SCHEDULE_DELAY": "100", "OTEL_METRIC_EXPORT_INTERVAL": "200"}


@pytest.mark.req("R-L25", "R-L20", "R-L21", "R-L23")
def test_install_remembers_the_endpoint_and_the_daemon_exports(box: Box, module: Path) -> None:
    with otlp_receiver() as (url, received):
        installed = hookd(box, "install", str(module), "--otel-endpoint", url, "--no-start")
        assert installed.returncode == 0, installed.stderr
        (state,) = box.daemon_dirs()
        assert json.loads((state / "install.json").read_text())["otel_endpoint"] == url
        env = box.env(**FAST)
        started = hookd(box, "up", str(module), "--quiet", env=env)  # no option: the install's
        assert started.returncode == 0, started.stderr
        denied = call(box, module, bash("echo forbidden", session="s-daemon"))
        assert denied["hookSpecificOutput"]["permissionDecision"] == "deny"
        assert call(box, module, bash("ls", session="s-daemon")) == {}
        stopped = hookd(box, "down", str(module))  # SIGTERM: what is left is flushed
        assert stopped.returncode == 0, stopped.stderr
        spans = [attributes(span.attributes) for span in received.spans()]
        metrics = received.latest_metrics()
    assert sorted(span["decision"] for span in spans) == ["deny", "none"]
    (deny,) = [span for span in spans if span["decision"] == "deny"]
    assert deny["hook_name"].endswith("guard") and deny["session.id"] == "s-daemon"
    assert deny["agent"] == "claude" and deny["tool_name"] == "Bash"
    calls = {
        attributes(p.attributes)["decision"]: p.as_int
        for p in metrics["hookd.calls"].sum.data_points
    }
    assert calls == {"deny": 1, "none": 1}

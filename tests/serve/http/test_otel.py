"""OpenTelemetry export from the real ``hookd serve --http`` process to a real OTLP/HTTP
receiver: a span per answered call, and the call, denial, failure and latency metrics."""

from __future__ import annotations

import socket
from pathlib import Path
from typing import Any

import pytest
import trio

from tests.serve.http.client import serve_http
from tests.serve.http.test_transport import pre
from tests.support.otlp_receiver import Received, attributes, otlp_receiver

#: Short export intervals (ms), through the standard variables.
FAST = {"OTEL_BSP_SCHEDULE_DELAY": "100", "OTEL_METRIC_EXPORT_INTERVAL": "200"}


def _points(metric: Any) -> dict[str, Any]:
    """A metric's data points by their decision (and failure kind)."""
    data = metric.histogram if metric.WhichOneof("data") == "histogram" else metric.sum
    out: dict[str, Any] = {}
    for point in data.data_points:
        labels = attributes(point.attributes)
        assert labels["agent"] == "claude" and labels["hook_event"] == "PreToolUse"
        failure = labels.get("hookd.failure")
        key = labels["decision"] + (f"/{failure}" if failure else "")
        out[key] = point
    return out


async def _three_calls(tmp_path: Path, env: dict[str, str], *args: str) -> None:
    async with serve_http(tmp_path, *args, env={**FAST, **env}) as served:
        client = await served.client()
        for command in ("rm -rf /", "ls", "raise it"):
            reply = await client.post("PreToolUse", pre(command, session="s-otel"))
            assert reply.status == 200
    # the process has exited (SIGTERM): what it had was flushed before it did


def _spans_by_command(received: Received) -> dict[str, dict[str, Any]]:
    spans = received.spans()
    assert len(spans) == 3, spans
    out = {}
    for span in spans:
        assert span.name == "hookd.hook_call"
        assert span.end_time_unix_nano >= span.start_time_unix_nano > 0
        found = attributes(span.attributes)
        out[found["decision"] + ("/failed" if "hookd.failure" in found else "")] = found
    return out


@pytest.mark.req("R-L20", "R-L23")
async def test_a_span_per_answer_reaches_a_real_otlp_receiver(tmp_path: Path) -> None:
    with otlp_receiver() as (url, received):
        await _three_calls(tmp_path, {"OTEL_EXPORTER_OTLP_ENDPOINT": url})
        spans = _spans_by_command(received)
        assert not received.refused
    common = {"hook_event": "PreToolUse", "tool_name": "Bash", "session.id": "s-otel",
              "agent": "claude"}  # fmt: skip
    assert spans["deny"] == {
        **common,
        "decision": "deny",
        "hook_name": "guard",
        "hookd.module_version": spans["deny"]["hookd.module_version"],
    }
    assert len(spans["deny"]["hookd.module_version"]) == 12
    assert spans["allow"]["decision"] == "allow" and spans["allow"]["hook_name"] == "guard"
    failed = next(v for k, v in spans.items() if k.endswith("/failed"))
    assert failed["hookd.failure"] == "raised" and failed["hook_name"] == "guard"
    assert {r.get("service.name") for r in received.resources()} == {"hookd"}


@pytest.mark.req("R-L21", "R-L23")
async def test_metrics_count_calls_denials_failures_and_latency(tmp_path: Path) -> None:
    with otlp_receiver() as (url, received):
        await _three_calls(tmp_path, {}, "--otel-endpoint", url)
        metrics = received.latest_metrics()
        assert received.spans(), "--otel-endpoint exports traces too"
    calls = _points(metrics["hookd.calls"])
    assert {k: p.as_int for k, p in calls.items()} == {"deny": 2, "allow": 1}
    assert metrics["hookd.calls"].sum.is_monotonic
    assert {k: p.as_int for k, p in _points(metrics["hookd.denials"]).items()} == {"deny": 2}
    failures = _points(metrics["hookd.failures"])
    assert {k: p.as_int for k, p in failures.items()} == {"deny/raised": 1}
    latency = metrics["hookd.latency"]
    assert latency.unit == "ms"
    counts = {k: p.count for k, p in _points(latency).items()}
    assert counts == {"deny": 2, "allow": 1}
    assert all(p.sum > 0 for p in _points(latency).values())


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.mark.req("R-L22")
async def test_a_collector_that_is_down_costs_the_answers_nothing(tmp_path: Path) -> None:
    url = f"http://127.0.0.1:{_closed_port()}"
    env = {**FAST, "OTEL_EXPORTER_OTLP_ENDPOINT": url}
    with trio.fail_after(60):  # generous: 200 answers take well under a second
        async with serve_http(tmp_path, env=env) as served:
            client = await served.client()
            for n in range(200):
                reply = await client.post("PreToolUse", pre("rm x" if n % 2 else "ls"))
                assert reply.status == 200
            status = (await client.request("GET", "/status")).json()
            assert "decision_log" not in status  # export only: no store is kept
    assert served.proc.returncode == 0

"""OpenTelemetry export of the answers: one span per call, and counts and latency as metrics.

Export is on when an OTLP endpoint is named: ``--otel-endpoint URL``, or the
standard ``OTEL_EXPORTER_OTLP_ENDPOINT`` (traces and metrics),
``OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`` (traces) or
``OTEL_EXPORTER_OTLP_METRICS_ENDPOINT`` (metrics). The decision writer's thread
(:mod:`hookd.engine.decisions`) hands each answer's record to :meth:`Export.answer`,
off the request path; the SDK's ``BatchSpanProcessor`` and
``PeriodicExportingMetricReader`` send them with the OTLP/HTTP exporters from their
own threads, so a collector that is slow or down costs the answers nothing.

``opentelemetry`` is imported here only when export is on (the ``hookd[otel]`` extra);
without it, one warning line at start and nothing else.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Final

import structlog

from hookd.decision.store import DecisionRow
from hookd.redact import redactor_for

__all__ = [
    "CLOSE_TIMEOUT_S",
    "ENDPOINT_ENV",
    "METRICS",
    "METRICS_ENDPOINT_ENV",
    "SPAN_NAME",
    "TRACES_ENDPOINT_ENV",
    "Export",
    "open_export",
    "wanted",
]

log = structlog.get_logger("hookd.otel")

ENDPOINT_ENV: Final = "OTEL_EXPORTER_OTLP_ENDPOINT"
TRACES_ENDPOINT_ENV: Final = "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"
METRICS_ENDPOINT_ENV: Final = "OTEL_EXPORTER_OTLP_METRICS_ENDPOINT"
#: The name of the span of each answered call.
SPAN_NAME: Final = "hookd.hook_call"
#: The metrics: name -> (kind, unit, description).
METRICS: Final = {
    "hookd.calls": ("counter", "{call}", "hook calls answered"),
    "hookd.denials": ("counter", "{call}", "hook calls answered with a denial"),
    "hookd.failures": ("counter", "{call}", "hook calls where a hook failed"),
    "hookd.latency": ("histogram", "ms", "time from a call's arrival to its answer"),
}
#: Seconds the exit waits for the last spans and metrics to be sent.
CLOSE_TIMEOUT_S: Final = 2.0
#: Seconds between two log lines about the same export failure (a collector that is down).
QUIET_S: Final = 60.0


def wanted(endpoint: str | None, environ: Mapping[str, str] = os.environ) -> tuple[bool, bool]:
    """(traces, metrics): which signals an endpoint is named for."""
    if environ.get("OTEL_SDK_DISABLED", "").strip().lower() == "true":
        return False, False
    both = bool(endpoint) or bool(environ.get(ENDPOINT_ENV))
    return both or bool(environ.get(TRACES_ENDPOINT_ENV)), both or bool(
        environ.get(METRICS_ENDPOINT_ENV)
    )


def _signal_url(endpoint: str | None, path: str) -> str | None:
    """The exporter's URL for ``--otel-endpoint`` (None: the exporter reads the environment)."""
    return None if not endpoint else endpoint.rstrip("/") + path


class Export:
    """The tracer and the instruments the writer thread records answers with."""

    def __init__(self, tracer: Any, meter: Any, stops: list[Callable[[float], Any]]) -> None:
        self._tracer = tracer
        self._stops = stops  # each provider's shutdown, given its time in ms
        self._instruments: dict[str, Any] = {}
        if meter is not None:
            for name, (kind, unit, description) in METRICS.items():
                make = meter.create_histogram if kind == "histogram" else meter.create_counter
                self._instruments[name] = make(name, unit=unit, description=description)

    def answer(self, row: DecisionRow, patterns: Sequence[str] = ()) -> None:
        """Export one answer, from its decision log row (:mod:`hookd.engine.decisions`); the
        span's text attributes redacted (built-in patterns and ``patterns``, the module's)."""
        agent, event, decision, failure = row.agent, row.event, row.decision, row.failure
        if self._tracer is not None:
            self._span(row, _span_attributes(row, patterns))
        if not self._instruments:
            return
        labels = {"agent": agent, "hook_event": event, "decision": decision}
        self._instruments["hookd.calls"].add(1, labels)
        self._instruments["hookd.latency"].record(row.elapsed_ms, labels)
        if decision == "deny":
            self._instruments["hookd.denials"].add(1, labels)
        if failure:
            self._instruments["hookd.failures"].add(1, {**labels, "hookd.failure": failure})

    def _span(self, row: DecisionRow, attributes: dict[str, Any]) -> None:
        from opentelemetry.trace import SpanKind, Status, StatusCode

        end_ns = int(row.time * 1e9)
        start_ns = end_ns - int(row.elapsed_ms * 1e6)
        span = self._tracer.start_span(
            SPAN_NAME, kind=SpanKind.SERVER, attributes=attributes, start_time=start_ns
        )
        if row.failure:
            span.set_status(Status(StatusCode.ERROR, row.failure))
        span.end(end_time=end_ns)

    def close(self, timeout_s: float = CLOSE_TIMEOUT_S) -> None:
        """Send what is left, waiting at most ``timeout_s`` (a collector that is down does not
        hold the exit)."""
        deadline_ms = timeout_s * 1000

        def shut() -> None:
            for stop in self._stops:
                try:
                    stop(deadline_ms)
                except Exception as exc:
                    log.warning("otel.shutdown_failed", error=str(exc))

        thread = threading.Thread(target=shut, name="hookd-otel-close", daemon=True)
        started = time.monotonic()
        thread.start()
        thread.join(timeout_s)
        if thread.is_alive():
            log.warning("otel.shutdown_timed_out", after_s=round(time.monotonic() - started, 3))


def _span_attributes(row: DecisionRow, patterns: Sequence[str] = ()) -> dict[str, Any]:
    found: dict[str, Any] = {
        "hook_event": row.event,
        "decision": row.decision,
        "agent": row.agent,
        "hookd.module_version": row.version,
    }
    optional = {"hook_name": row.hooks, "tool_name": row.tool, "session.id": row.session_id,
                "hookd.failure": row.failure}  # fmt: skip
    found.update((key, value) for key, value in optional.items() if value)
    redactor = redactor_for(patterns)  # a session id or tool name is the agent's text
    return {k: redactor.text(v) if isinstance(v, str) else v for k, v in found.items()}


def open_export(endpoint: str | None, service_version: str) -> Export | None:
    """The export ``endpoint`` and the environment ask for, started; None when none is
    asked for, or the ``otel`` extra is not installed (one warning line)."""
    traces, metrics = wanted(endpoint)
    if not (traces or metrics):
        return None
    try:
        return _open(endpoint, service_version, traces=traces, metrics=metrics)
    except ImportError as exc:
        log.warning(
            "otel.unavailable",
            message="an OTLP endpoint is set but the otel extra is not installed "
            "(pip install 'hookd[otel]'): nothing is exported",
            error=str(exc),
        )
        return None


class _SdkLines(logging.Handler):
    """The SDK's own errors as ``otel.export_failed`` lines, each kind at most once per
    :data:`QUIET_S` (its retries' warnings are not shown)."""

    def __init__(self) -> None:
        super().__init__(logging.ERROR)
        self._last: dict[str, float] = {}

    def emit(self, record: logging.LogRecord) -> None:
        now = time.monotonic()
        kind = str(record.msg)
        if now - self._last.get(kind, -QUIET_S) < QUIET_S:
            return
        self._last[kind] = now
        log.warning("otel.export_failed", error=record.getMessage(), quiet_s=QUIET_S)


def _quiet_sdk() -> None:
    sdk = logging.getLogger("opentelemetry")
    sdk.setLevel(logging.ERROR)
    sdk.propagate = False
    if not any(isinstance(h, _SdkLines) for h in sdk.handlers):
        sdk.addHandler(_SdkLines())


def _open(endpoint: str | None, service_version: str, *, traces: bool, metrics: bool) -> Export:
    from opentelemetry.sdk.resources import Resource

    _quiet_sdk()

    attributes = {"service.version": service_version}
    if not os.environ.get("OTEL_SERVICE_NAME"):
        attributes["service.name"] = "hookd"
    resource = Resource.create(attributes)
    stops: list[Callable[[float], Any]] = []
    tracer = meter = None
    if traces:
        tracer, provider = _tracer(endpoint, resource)
        stops.append(lambda _ms: provider.shutdown())  # bounded by close()'s thread join
    if metrics:
        meter, meters = _meter(endpoint, resource)
        stops.append(lambda ms: meters.shutdown(timeout_millis=ms))
    log.info("otel.exporting", traces=traces, metrics=metrics, endpoint=endpoint)
    return Export(tracer, meter, stops)


def _tracer(endpoint: str | None, resource: Any) -> tuple[Any, Any]:
    from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import BatchSpanProcessor

    provider = TracerProvider(resource=resource, shutdown_on_exit=False)
    exporter = OTLPSpanExporter(endpoint=_signal_url(endpoint, "/v1/traces"))
    provider.add_span_processor(BatchSpanProcessor(exporter))
    return provider.get_tracer("hookd"), provider


def _meter(endpoint: str | None, resource: Any) -> tuple[Any, Any]:
    from opentelemetry.exporter.otlp.proto.http.metric_exporter import OTLPMetricExporter
    from opentelemetry.sdk.metrics import MeterProvider
    from opentelemetry.sdk.metrics.export import PeriodicExportingMetricReader

    exporter = OTLPMetricExporter(endpoint=_signal_url(endpoint, "/v1/metrics"))
    reader = PeriodicExportingMetricReader(exporter)
    provider = MeterProvider(metric_readers=[reader], resource=resource, shutdown_on_exit=False)
    return provider.get_meter("hookd"), provider

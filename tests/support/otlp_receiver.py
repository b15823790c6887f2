"""A real OTLP/HTTP receiver for the tests: ``POST /v1/traces`` and ``/v1/metrics`` with
``application/x-protobuf`` bodies, decoded with ``opentelemetry-proto``, on 127.0.0.1."""

from __future__ import annotations

import gzip
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from opentelemetry.proto.collector.metrics.v1.metrics_service_pb2 import (
    ExportMetricsServiceRequest,
)
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from opentelemetry.proto.common.v1.common_pb2 import AnyValue, KeyValue

__all__ = ["Received", "attributes", "otlp_receiver"]


@dataclass
class Received:
    """What the receiver was sent: decoded requests, and the bodies it could not read."""

    traces: list[ExportTraceServiceRequest] = field(default_factory=list)
    metrics: list[ExportMetricsServiceRequest] = field(default_factory=list)
    refused: list[str] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def spans(self) -> list[Any]:
        with self.lock:
            return [
                span
                for request in self.traces
                for resource in request.resource_spans
                for scope in resource.scope_spans
                for span in scope.spans
            ]

    def resources(self) -> list[dict[str, Any]]:
        with self.lock:
            found = [r.resource for q in self.traces for r in q.resource_spans]
            found += [r.resource for q in self.metrics for r in q.resource_metrics]
        return [attributes(resource.attributes) for resource in found]

    def latest_metrics(self) -> dict[str, Any]:
        """Each metric by name, as the last request that carried it had it (cumulative)."""
        out: dict[str, Any] = {}
        with self.lock:
            for request in self.metrics:
                for resource in request.resource_metrics:
                    for scope in resource.scope_metrics:
                        for metric in scope.metrics:
                            out[metric.name] = metric
        return out


def _value(value: AnyValue) -> Any:
    kind = value.WhichOneof("value")
    return None if kind is None else getattr(value, kind)


def attributes(pairs: Any) -> dict[str, Any]:
    """OTLP ``KeyValue`` list -> dict."""
    found: list[KeyValue] = list(pairs)
    return {pair.key: _value(pair.value) for pair in found}


_KINDS: dict[str, tuple[type[Any], str]] = {
    "/v1/traces": (ExportTraceServiceRequest, "traces"),
    "/v1/metrics": (ExportMetricsServiceRequest, "metrics"),
}


def _handler(received: Received) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
            if self.headers.get("Content-Encoding") == "gzip":
                body = gzip.decompress(body)
            kind = _KINDS.get(self.path)
            if kind is None or self.headers.get("Content-Type") != "application/x-protobuf":
                with received.lock:
                    received.refused.append(f"{self.path} {self.headers.get('Content-Type')}")
                self.send_response(404)
                self.end_headers()
                return
            message = kind[0]()
            message.ParseFromString(body)
            with received.lock:
                getattr(received, kind[1]).append(message)
            self.send_response(200)
            self.send_header("Content-Type", "application/x-protobuf")
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, format: str, *args: Any) -> None:
            pass

    return Handler


@contextmanager
def otlp_receiver() -> Iterator[tuple[str, Received]]:
    """(base URL, what was received) of a receiver running for the block."""
    received = Received()
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(received))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", received
    finally:
        server.shutdown()
        server.server_close()
        thread.join(10)

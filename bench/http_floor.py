"""The floor of an http hook: a server that answers ``{}`` to every POST and does nothing else.

The standard library's threaded HTTP server with ``TCP_NODELAY`` and the whole
answer in one write (the two things that keep an http hook at a few
milliseconds). What a session with http hooks to it adds is what any http hook
server adds at least: the CLI's own cost of an http hook.
"""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

__all__ = ["floor_server"]

ANSWER = b"{}"


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive, as the CLI's client expects

    def setup(self) -> None:
        super().setup()
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def log_message(self, format: str, *args: object) -> None:
        pass

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        head = (
            "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
            f"Content-Length: {len(ANSWER)}\r\n\r\n"
        )
        self.wfile.write(head.encode() + ANSWER)


@contextmanager
def floor_server() -> Iterator[int]:
    """A running floor server on 127.0.0.1; yields its port."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05})
    thread.start()
    try:
        yield int(server.server_address[1])
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)

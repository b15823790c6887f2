"""A small keep-alive HTTP/1.1 client over a real socket, and a running ``hookd serve --http``."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import h11
import trio

__all__ = ["Client", "Reply", "Served", "serve_http"]

TOKEN = "test-token-0123456789abcdef"
ROOT = Path(__file__).resolve().parents[3]
HOOKS = ROOT / "tests" / "hooks" / "http_guard.py"


@dataclass(frozen=True, slots=True)
class Reply:
    status: int
    headers: dict[str, str]
    body: bytes

    def json(self) -> Any:
        return json.loads(self.body) if self.body else None


class Client:
    """One keep-alive connection; requests go one after another."""

    def __init__(self, stream: trio.SocketStream, host: str = "127.0.0.1") -> None:
        self.stream = stream
        self.host = host
        self.conn = h11.Connection(h11.CLIENT)

    @classmethod
    async def connect(cls, port: int) -> Client:
        return cls(await trio.open_tcp_stream("127.0.0.1", port))

    async def request(
        self,
        method: str,
        target: str,
        body: bytes = b"",
        *,
        token: str | None = TOKEN,
        headers: Sequence[tuple[str, str]] = (),
        host: str | None = None,
    ) -> Reply:
        hdrs = [("Host", host or self.host), ("Content-Length", str(len(body)))]
        if token is not None:
            hdrs.append(("Authorization", f"Bearer {token}"))
        hdrs += list(headers)
        data = self.conn.send(h11.Request(method=method, target=target, headers=hdrs))
        data += self.conn.send(h11.Data(data=body)) if body else b""
        data += self.conn.send(h11.EndOfMessage())
        await self.stream.send_all(data)
        return await self.read_reply()

    async def post(self, event: str, input_data: dict[str, Any], **kw: Any) -> Reply:
        body = json.dumps(input_data, separators=(",", ":")).encode()
        return await self.request("POST", f"/hook/{event}", body, **kw)

    async def read_reply(self) -> Reply:
        status, headers, chunks = 0, {}, []
        while True:
            try:
                event = self.conn.next_event()
            except h11.RemoteProtocolError as exc:
                raise EOFError(f"the server closed the connection: {exc}") from None
            if event is h11.NEED_DATA:
                self.conn.receive_data(await self.stream.receive_some(65536))
            elif isinstance(event, h11.Response):
                status = event.status_code
                headers = {k.decode(): v.decode() for k, v in event.headers}
            elif isinstance(event, h11.Data):
                chunks.append(bytes(event.data))
            elif isinstance(event, h11.EndOfMessage):
                if self.conn.our_state is h11.DONE and self.conn.their_state is h11.DONE:
                    self.conn.start_next_cycle()
                return Reply(status, headers, b"".join(chunks))
            elif isinstance(event, h11.ConnectionClosed):
                raise EOFError("the server closed the connection")

    async def aclose(self) -> None:
        await self.stream.aclose()


@dataclass
class Served:
    """A running ``hookd serve --http`` process."""

    proc: trio.Process
    port: int
    ready: dict[str, Any]
    ready_file: Path
    stderr: list[str] = field(default_factory=list)
    changed: trio.Event = field(default_factory=trio.Event)

    async def client(self) -> Client:
        return await Client.connect(self.port)

    async def wait_line(self, text: str) -> str:
        """The first stderr line containing ``text``, once it is written."""
        while True:
            for line in self.stderr:
                if text in line:
                    return line
            self.changed = trio.Event()
            await self.changed.wait()


async def _read_lines(stream: trio.abc.ReceiveStream, box: list[Served], ready: trio.Event) -> None:
    buf = b""
    lines = box[0].stderr
    async for chunk in stream:
        buf += chunk
        *done, buf = buf.split(b"\n")
        for raw in done:
            text = raw.decode("utf-8", "replace")
            lines.append(text)
            if '"http.ready"' in text:
                ready.set()
        box[0].changed.set()
    ready.set()
    box[0].changed.set()


@asynccontextmanager
async def serve_http(
    tmp_path: Path,
    *args: str,
    hooks: Path | str = HOOKS,
    env: dict[str, str] | None = None,
    token_file: bool = True,
) -> AsyncIterator[Served]:
    """Start ``hookd serve HOOKS --http 0`` (ready file; the token in a file or in
    ``$HOOKD_TOKEN``); SIGTERM it at the end."""
    environ = {k: v for k, v in os.environ.items() if k not in ("HOOKD_TOKEN", "HOOKD_RECORD")}
    ready_file = tmp_path / "ready.json"
    hookd = Path(sys.executable).with_name("hookd")
    argv = [str(hookd), "serve", str(hooks), "--http", "127.0.0.1:0",
            "--ready-file", str(ready_file), "--log-format", "json", *args]  # fmt: skip
    if token_file:
        (tmp_path / "token").write_text(TOKEN + "\n")
        argv += ["--token-file", str(tmp_path / "token")]
    else:
        environ["HOOKD_TOKEN"] = TOKEN
    proc = await trio.lowlevel.open_process(
        argv, stdin=subprocess.DEVNULL, stderr=subprocess.PIPE, env={**environ, **(env or {})}
    )
    assert proc.stderr is not None
    served = Served(proc, 0, {}, ready_file)
    ready = trio.Event()
    try:
        async with trio.open_nursery() as nursery:
            nursery.start_soon(_read_lines, proc.stderr, [served], ready)
            with trio.fail_after(30):
                await ready.wait()
            assert ready_file.exists(), "\n".join(served.stderr)
            served.ready = json.loads(ready_file.read_text())
            served.port = int(served.ready["port"])
            yield served
            proc.terminate()
            with trio.fail_after(30):
                await proc.wait()
            nursery.cancel_scope.cancel()
    finally:
        if proc.returncode is None:
            proc.kill()
            with trio.CancelScope(shield=True):
                await proc.wait()

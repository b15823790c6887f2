"""What a local process or a web page can send to ``hookd serve --http``, on a live server."""

from __future__ import annotations

import contextlib
import json
from pathlib import Path

import pytest
import trio

from tests.serve.http.client import TOKEN, serve_http
from tests.serve.http.test_transport import decision, pre

BODY = json.dumps(pre("ls")).encode()


@pytest.mark.req("R-520")
async def test_no_token_or_a_wrong_one_is_401(tmp_path: Path) -> None:
    async with serve_http(tmp_path) as served:
        for token, headers in [
            (None, ()),
            ("wrong", ()),
            (TOKEN + "x", ()),
            (TOKEN[:-1], ()),
            (None, (("Authorization", TOKEN),)),  # no "Bearer "
            (None, (("Authorization", f"Basic {TOKEN}"),)),
            (TOKEN, (("Authorization", f"Bearer {TOKEN}"),)),  # two of them
        ]:
            for target, method, body in [
                ("/hook/PreToolUse", "POST", BODY),
                ("/status", "GET", b""),
            ]:
                client = await served.client()
                reply = await client.request(method, target, body, token=token, headers=headers)
                assert reply.status == 401, (token, headers, target)
                assert reply.headers["www-authenticate"].startswith("Bearer")
                assert reply.headers["connection"] == "close"
                await client.aclose()
        client = await served.client()
        status = (await client.request("GET", "/status")).json()
        assert status["requests"] == 0  # no refused request reached a hook
        assert status["hooks"][0]["calls"] == 0


@pytest.mark.req("R-521")
async def test_origin_header_and_foreign_host_are_403(tmp_path: Path) -> None:
    async with serve_http(tmp_path) as served:
        refused = [
            {"headers": (("Origin", "https://evil.example"),)},
            {"headers": (("Origin", "null"),)},
            {"headers": (("Origin", f"http://127.0.0.1:{served.port}"),)},
            {"host": "evil.example"},
            {"host": f"evil.example:{served.port}"},
            {"host": "127.0.0.1.nip.io"},
            {"host": "10.1.2.3"},
            {"host": "[fd00::2]:80"},
        ]
        for kw in refused:
            client = await served.client()
            reply = await client.request("POST", "/hook/PreToolUse", BODY, **kw)  # type: ignore[arg-type]
            assert reply.status == 403, kw
            await client.aclose()
        for host in ("localhost", f"localhost:{served.port}", "127.0.0.1", "127.0.0.2:1", "[::1]"):
            client = await served.client()
            reply = await client.request("POST", "/hook/PreToolUse", BODY, host=host)
            assert reply.status == 200, host
            await client.aclose()


@pytest.mark.req("R-522")
async def test_oversized_body_is_413(tmp_path: Path) -> None:
    async with serve_http(tmp_path, "--max-body-bytes", "4096") as served:
        big = json.dumps({**pre("ls"), "pad": "x" * 10_000}).encode()
        client = await served.client()
        with trio.fail_after(20):
            reply = await client.request("POST", "/hook/PreToolUse", big)
        assert (reply.status, reply.headers["connection"]) == (413, "close")
        assert "4096" in reply.json()["error"]
        # chunked, without a Content-Length: cut off as the body streams in
        client = await served.client()
        await client.stream.send_all(
            b"POST /hook/PreToolUse HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            + f"Authorization: Bearer {TOKEN}\r\nTransfer-Encoding: chunked\r\n\r\n".encode()
        )
        with trio.fail_after(20):
            for _ in range(8):
                await client.stream.send_all(b"400\r\n" + b"x" * 1024 + b"\r\n")
            reply = await client.read_reply()
        assert reply.status == 413
        ok = await (await served.client()).post("PreToolUse", pre("ls"))
        assert ok.status == 200


@pytest.mark.req("R-523")
async def test_a_head_trickled_slower_than_the_header_timeout_is_cut_off(tmp_path: Path) -> None:
    async with serve_http(tmp_path, "--header-timeout", "0.5") as served:
        stream = await trio.open_tcp_stream("127.0.0.1", served.port)
        head = (
            b"POST /hook/PreToolUse HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            + f"Authorization: Bearer {TOKEN}\r\nContent-Length: {len(BODY)}\r\n\r\n".encode()
        )
        closed = trio.Event()
        got = bytearray()

        async def watch() -> None:
            while data := await stream.receive_some(4096):
                got.extend(data)
            closed.set()

        sent = 0
        with trio.fail_after(60):
            async with trio.open_nursery() as nursery:
                nursery.start_soon(watch)
                try:
                    for byte in head:
                        await stream.send_all(bytes([byte]))
                        sent += 1
                        with trio.move_on_after(0.2):  # one byte per 0.2 s: the attack's pace
                            await closed.wait()
                        if closed.is_set():
                            break
                except trio.BrokenResourceError:
                    pass  # reset by the server: closed too
                await closed.wait()
        assert sent < len(head)  # cut off before the head was complete
        assert bytes(got) == b""  # never answered
        ok = await (await served.client()).post("PreToolUse", pre("ls"))
        assert ok.status == 200


@pytest.mark.req("R-524")
async def test_a_thousand_idle_connections_then_a_request_is_still_answered(
    tmp_path: Path,
) -> None:
    async with serve_http(tmp_path) as served:
        idle: list[trio.SocketStream] = []
        with trio.fail_after(60):
            for _ in range(1000):
                idle.append(await trio.open_tcp_stream("127.0.0.1", served.port))
            client = await served.client()
            reply = await client.post("PreToolUse", pre("rm x"))
        assert reply.status == 200
        assert reply.json()["hookSpecificOutput"]["permissionDecision"] == "deny"
        status = (await client.request("GET", "/status")).json()
        assert status["connections"] <= 256  # the default cap: the oldest idle ones were closed
        for stream in idle:
            await stream.aclose()


@pytest.mark.req("R-525")
async def test_busy_connections_at_the_cap_make_a_new_one_get_503(tmp_path: Path) -> None:
    async with serve_http(tmp_path, "--max-connections", "2") as served:

        async def wait(gate: str) -> None:
            client = await served.client()
            with contextlib.suppress(EOFError, trio.BrokenResourceError):
                await client.post("PreToolUse", pre(f"wait {gate}", tool="Slow"))

        with trio.fail_after(30):
            async with trio.open_nursery() as nursery:
                nursery.start_soon(wait, "a")
                await served.wait_line("waiting a")
                nursery.start_soon(wait, "b")
                await served.wait_line("waiting b")
                third = await served.client()
                reply = await third.post("PreToolUse", pre("ls"))  # refused once past the gate
                assert (reply.status, reply.headers["connection"]) == (503, "close")
                served.proc.terminate()  # ends the two waiting requests


HALF_HEAD = b"POST /hook/PreToolUse HTTP/1.1\r\nHost: 127.0.0.1\r\n"  # and then nothing more


@pytest.mark.req("R-527")
async def test_600_half_sent_heads_without_the_token_leave_token_holders_served(
    tmp_path: Path,
) -> None:
    async with serve_http(tmp_path) as served:
        kept = [await served.client() for _ in range(3)]  # the CLI's keep-alive connections
        for client in kept:
            assert (await client.post("PreToolUse", pre("ls"))).status == 200
        hostile: list[trio.SocketStream] = []
        with trio.fail_after(60):
            for _ in range(600):  # a local program without the token
                hostile.append(await trio.open_tcp_stream("127.0.0.1", served.port))
                await hostile[-1].send_all(HALF_HEAD)
        with trio.fail_after(3):
            fresh = await served.client()
            reply = await fresh.post("PreToolUse", pre("rm x"))
            assert (reply.status, decision(reply)) == (200, "deny")
            for client in kept:  # the same connections, not closed to make room
                reply = await client.post("PreToolUse", pre("rm y"))
                assert (reply.status, decision(reply)) == (200, "deny")
            status = (await fresh.request("GET", "/status")).json()
        assert status["connections"] <= 128 + 4  # the oldest unauthenticated ones were closed
        for stream in hostile:
            await stream.aclose()


@pytest.mark.req("R-527")
async def test_past_the_unauthenticated_budget_the_oldest_such_connection_is_closed(
    tmp_path: Path,
) -> None:
    async with serve_http(tmp_path, "--max-unauthenticated", "2") as served:
        kept = await served.client()
        assert (await kept.post("PreToolUse", pre("ls"))).status == 200  # has shown the token
        oldest, second = [await trio.open_tcp_stream("127.0.0.1", served.port) for _ in "ab"]
        for stream in (oldest, second):
            await stream.send_all(HALF_HEAD)
        with trio.fail_after(10):  # hookd takes connections in in the order they came
            newest = await trio.open_tcp_stream("127.0.0.1", served.port)
            await newest.send_all(HALF_HEAD)
            assert await oldest.receive_some(4096) == b""  # closed to make room
            rest = f"Authorization: Bearer {TOKEN}\r\nContent-Length: {len(BODY)}\r\n\r\n"
            for stream in (second, newest):  # still open: they finish their heads and are answered
                await stream.send_all(rest.encode() + BODY)
                answer = b""
                while b'"allow"' not in answer:
                    answer += await stream.receive_some(4096)
                assert answer.startswith(b"HTTP/1.1 200 ")
            reply = await kept.post("PreToolUse", pre("rm x"))  # never counted with them
            assert (reply.status, decision(reply)) == (200, "deny")


@pytest.mark.req("R-528")
async def test_a_connection_without_the_token_has_the_auth_timeout_for_its_first_head(
    tmp_path: Path,
) -> None:
    async with serve_http(tmp_path, "--auth-timeout", "0.5", "--header-timeout", "600") as served:
        client = await served.client()
        assert (await client.post("PreToolUse", pre("ls"))).status == 200
        silent = await trio.open_tcp_stream("127.0.0.1", served.port)
        half = await trio.open_tcp_stream("127.0.0.1", served.port)
        await half.send_all(HALF_HEAD)
        with trio.fail_after(30):  # far under the header and idle timeouts
            assert await half.receive_some(4096) == b""  # closed unanswered
            assert await silent.receive_some(4096) == b""
        # the keep-alive connection that showed the token has been idle as long: still open
        reply = await client.post("PreToolUse", pre("rm x"))
        assert (reply.status, decision(reply)) == (200, "deny")

"""Recording one session's hook exchanges on request: what ``hookd record`` asks a daemon for.

``POST /record/start`` with ``{"id": ID, "out": FILE}`` opens a transcript (an ``http`` one, as
:mod:`hookd.serve.http.exchange_log` writes) for the recording ``ID``; no request is recorded yet. A
hook request carrying the header ``X-Hookd-Record: ID`` (the ``hookd call`` shims of the
wrapped session send it) binds its ``session_id`` to the recording, and from then on every
request of that session is recorded, until its SessionEnd, and nothing of any other session.
``POST /record/stop`` with ``{"id": ID}`` closes the file and answers how many requests went
into it. Requests of no recording cost one dictionary test.
"""

from __future__ import annotations

from pathlib import Path
from typing import Final

import msgspec

from hookd.serve.http.codec import Request
from hookd.serve.http.exchange_log import HttpRecorder
from hookd.transcript.format import Patterns, no_patterns, recording_header

__all__ = ["SessionRecordings"]

RECORD_HEADER: Final = b"x-hookd-record"
MAX_RECORDINGS: Final = 64

_encoder: Final = msgspec.json.Encoder()


class _Start(msgspec.Struct):
    id: str
    out: str


class _Stop(msgspec.Struct):
    id: str


class _Ids(msgspec.Struct):
    """The two fields of a hook input that say whose it is."""

    session_id: str = ""
    hook_event_name: str = ""


_start_decoder: Final = msgspec.json.Decoder(_Start)
_stop_decoder: Final = msgspec.json.Decoder(_Stop)
_ids_decoder: Final = msgspec.json.Decoder(_Ids)


class _Recording:
    __slots__ = ("file", "requests")

    def __init__(self, file: HttpRecorder) -> None:
        self.file = file
        self.requests = 0


class SessionRecordings:
    """The recordings of one server: an optional one of everything, and one per session."""

    def __init__(
        self,
        always: HttpRecorder | None,
        hooks: str | None,
        serve_args: list[str],
        patterns: Patterns = no_patterns,
    ) -> None:
        self.always = always  # HOOKD_RECORD, given to a server started by hand
        self._patterns = patterns  # the serving module's own redaction patterns
        self._hooks = hooks
        self._serve_args = serve_args
        self._by_id: dict[str, _Recording] = {}
        self._sessions: dict[str, str] = {}  # session_id -> recording id
        self._open: dict[int, _Recording] = {}  # connection -> recording of its request

    def request(self, conn: int, request: Request) -> None:
        """Record a request that passed the gate, in the recordings it belongs to."""
        if self.always is not None:
            self.always.request(conn, request)
        if not self._by_id:
            return
        found = self._recording_of(request)
        if found is not None:
            found.file.request(conn, request)
            found.requests += 1
            self._open[conn] = found

    def answer(self, conn: int, status: int, body: bytes) -> None:
        """Record the answer to the last request of ``conn``, where its request went."""
        if self.always is not None:
            self.always.answer(conn, status, body)
        found = self._open.pop(conn, None)
        if found is not None:
            found.file.answer(conn, status, body)

    def _recording_of(self, request: Request) -> _Recording | None:
        try:
            ids = _ids_decoder.decode(request.body)
        except msgspec.DecodeError:
            return None
        asked = request.head.header(RECORD_HEADER)
        if asked is not None and ids.session_id:
            wanted = asked.decode("latin-1").strip()
            if wanted in self._by_id:
                self._sessions[ids.session_id] = wanted
        name = self._sessions.get(ids.session_id)
        if name is not None and ids.hook_event_name == "SessionEnd":
            del self._sessions[ids.session_id]  # its last request: nothing of it after
        return self._by_id.get(name) if name is not None else None

    def control(self, action: str, body: bytes) -> tuple[int, bytes]:
        """Answer ``POST /record/start`` or ``/record/stop``: a status and a JSON body."""
        try:
            if action == "start":
                return self._start(_start_decoder.decode(body))
            return self._stop(_stop_decoder.decode(body))
        except msgspec.DecodeError as exc:
            return 400, _encoder.encode({"error": f"bad /record/{action} body: {exc}"})

    def _start(self, asked: _Start) -> tuple[int, bytes]:
        if not asked.id or asked.id in self._by_id or len(self._by_id) >= MAX_RECORDINGS:
            return 409, _encoder.encode({"error": f"cannot start a recording {asked.id!r}"})
        out = Path(asked.out)
        if not out.is_absolute():
            return 400, _encoder.encode({"error": "out must be an absolute path"})
        description = f"recorded by hookd record through the daemon serving {self._hooks}"
        header = recording_header("http", description, self._hooks, self._serve_args, out.parent)
        try:
            self._by_id[asked.id] = _Recording(HttpRecorder(out, header, self._patterns))
        except OSError as exc:
            return 400, _encoder.encode({"error": f"cannot write {out}: {exc.strerror or exc}"})
        return 200, _encoder.encode({"id": asked.id, "out": str(out)})

    def _stop(self, asked: _Stop) -> tuple[int, bytes]:
        found = self._by_id.pop(asked.id, None)
        if found is None:
            return 404, _encoder.encode({"error": f"no recording {asked.id!r}"})
        found.file.close()
        for session in [s for s, name in self._sessions.items() if name == asked.id]:
            del self._sessions[session]
        for conn in [c for c, r in self._open.items() if r is found]:
            del self._open[conn]
        return 200, _encoder.encode({"id": asked.id, "requests": found.requests})

    def close(self) -> None:
        """Close every file (the server is stopping)."""
        if self.always is not None:
            self.always.close()
        for recording in self._by_id.values():
            recording.file.close()
        self._by_id.clear()

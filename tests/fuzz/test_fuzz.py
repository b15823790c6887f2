"""Fuzzing: hypothesis properties of the codec, and random lines against the real process.

Codec properties (``hookd.wire``): on any bytes, any JSON, any mutation of a
valid message, split at any points across reads, the codec raises nothing but
its own :class:`~hookd.errors.ProtocolError`, and every message whose request
id can be recovered (a ``control_request`` with a string ``request_id``, a
JSON-RPC request with a string or integer ``id``) yields exactly one answer for
that id, and nothing else yields one. The expected ids come from
:func:`expected_ids`, a model written from ``protocol/SPEC.md``.

Process fuzz: random and mutated lines interleaved with valid requests, written
in random pieces; hookd never exits, every stdout line is a JSON answer, every
stderr line a JSON log record, and every valid request is answered exactly
once and correctly.

``make test`` runs a short, derandomized version; ``make fuzz``
(``HOOKD_FUZZ_LONG=1``) a long random one. The figures are printed at the end.
"""

from __future__ import annotations

import copy
import itertools
import json
import os
import random
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Final

import msgspec
import pytest
import trio
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hookd import wire
from hookd.wire.errors import ErrorKind
from tests.faults.faultkit import Hookd, fault_module, ids_of, parse_answer, print_figures, running
from tests.peer import hook_request, pre_tool_use, served

LONG: Final = os.environ.get("HOOKD_FUZZ_LONG") == "1"
EXAMPLES: Final = 5_000 if LONG else 150
PROCESS_LINES: Final = 300_000 if LONG else 3_000
FUZZ = settings(
    max_examples=EXAMPLES,
    deadline=None,
    derandomize=not LONG,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
TRIED: Counter[str] = Counter()
EVENTS: Final = ("PreToolUse", "PostToolUse", "Stop", "Notification", "SessionStart", "Nope")

Key = tuple[str, Any]

# ------------------------------------------------------------------- strategies

scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=20)
)
json_values = st.recursive(
    scalars,
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=10), inner, max_size=4)
    ),
    max_leaves=16,
)
json_objects = st.dictionaries(st.text(max_size=10), json_values, max_size=4)
hook_inputs = json_objects | st.fixed_dictionaries(
    {"session_id": st.text(max_size=6), "hook_event_name": st.sampled_from(EVENTS)},
    optional={"tool_name": st.text(max_size=6), "tool_input": json_objects},
)
request_ids = st.text(max_size=16)
rpc_ids = st.integers(min_value=-(2**64), max_value=2**64) | st.text(max_size=16)
optional_id = {"tool_use_id": st.none() | st.text(max_size=8)}
bodies = st.one_of(
    st.fixed_dictionaries(
        {
            "subtype": st.just("hook_callback"),
            "callback_id": st.text(max_size=8),
            "input": hook_inputs,
        },
        optional=optional_id,
    ),
    st.fixed_dictionaries({"subtype": st.just("initialize")}, optional={"hooks": json_values}),
    st.fixed_dictionaries(
        {
            "subtype": st.just("can_use_tool"),
            "tool_name": st.text(max_size=8),
            "input": json_objects,
        },
        optional={**optional_id, "permission_suggestions": st.lists(json_values, max_size=2)},
    ),
    st.fixed_dictionaries(
        {
            "subtype": st.just("hook_dispatch"),
            "event": st.sampled_from(EVENTS),
            "input": hook_inputs,
        },
        optional=optional_id,
    ),
)


def as_rpc(body: dict[str, Any], request_id: Any, with_id: bool) -> dict[str, Any]:
    """The JSON-RPC form of a control request body."""
    method = "hooks/dispatch" if body["subtype"] == "hook_dispatch" else body["subtype"]
    params = {k: v for k, v in body.items() if k != "subtype"}
    msg: dict[str, Any] = {"jsonrpc": "2.0", "method": method, "params": params}
    if with_id:
        msg["id"] = request_id
    return msg


def control(request_id: str, body: dict[str, Any]) -> dict[str, Any]:
    return {"type": "control_request", "request_id": request_id, "request": body}


rpc_requests = st.builds(as_rpc, bodies, rpc_ids, st.booleans())
messages = st.one_of(
    st.builds(control, request_ids, bodies),
    st.builds(lambda rid: {"type": "control_cancel_request", "request_id": rid}, request_ids),
    rpc_requests,
    st.builds(
        lambda rid: {"jsonrpc": "2.0", "method": "$/cancelRequest", "params": {"id": rid}}, rpc_ids
    ),
    st.lists(rpc_requests, min_size=1, max_size=4),
    st.builds(
        lambda kind, extra: {**extra, "type": kind},
        st.sampled_from(
            ["system", "assistant", "user", "result", "keep_alive", "control_response"]
        ),
        json_objects,
    ),
)
jsonish_bytes = st.lists(
    st.sampled_from(
        [
            b"{",
            b"}",
            b"[",
            b"]",
            b'"',
            b":",
            b",",
            b"\\",
            b"\\u",
            b"d800",
            b"\xff",
            b"\xc3",
            b"\r",
            b"null",
            b"1",
            b"-",
            b"e9",
            b'"x"',
            b'"type"',
            b'"control_request"',
            b'"request_id"',
            b'"jsonrpc"',
            b'"2.0"',
            b'"id"',
            b'"method"',
            b'"request"',
            b'"subtype"',
            b" ",
        ]
    ),
    max_size=48,
).map(b"".join)

# ------------------------------------------------------------------ the model


def expected_ids(value: Any) -> list[Counter[Key]]:
    """The request ids SPEC.md says get exactly one answer (R-010, R-012, R-034).

    A list of acceptable answers: a message that is both a ``control_request``
    and a JSON-RPC object may be read either way.
    """
    if isinstance(value, list):
        return [Counter(k for item in value if isinstance(item, dict) for k in _rpc_ids(item))]
    if not isinstance(value, dict):
        return [Counter()]
    control_ids: Counter[Key] = Counter()
    rid = value.get("request_id")
    if value.get("type") == "control_request" and isinstance(rid, str):
        control_ids[("control", rid)] += 1
    if "jsonrpc" not in value:
        return [control_ids]
    rpc = Counter(_rpc_ids(value))
    return [rpc, control_ids] if control_ids else [rpc]


def _rpc_ids(obj: dict[str, Any]) -> list[Key]:
    rid = obj.get("id")
    if not isinstance(rid, str | int) or isinstance(rid, bool):
        return []
    method = obj.get("method")
    if obj.get("jsonrpc") == "2.0" and isinstance(method, str):
        return [] if method == wire.RPC_CANCEL_METHOD else [("jsonrpc", rid)]
    if "result" in obj or "error" in obj:
        return []  # a response to a request of hookd's own
    return [("jsonrpc", rid)]  # an invalid request whose id can be read


def decoded(line: bytes) -> list[wire.Message]:
    """``decode_line``, which never raises: every line decodes to messages."""
    out = wire.decode_line(line)
    return out if isinstance(out, list) else [out]


def answered(msgs: list[wire.Message]) -> Counter[Key]:
    """The ids the server answers for these messages (a Call with no id is a notification)."""
    found: Counter[Key] = Counter()
    for msg in msgs:
        if isinstance(msg, wire.Call | wire.Invalid) and msg.request_id is not None:
            found[(msg.framing, msg.request_id)] += isinstance(msg, wire.Call) or msg.answer
    return found


def parsed(line: bytes) -> Any:
    try:
        return msgspec.json.decode(line)
    except Exception:  # anything msgspec cannot read is not JSON for the model
        return _UNREADABLE


_UNREADABLE: Final = object()


def allowed_answers(line: bytes) -> list[Counter[Key]]:
    """What the model accepts for ``line``.

    A line that is not UTF-8 is not JSON, so it need not be answered; but the
    typed fast path skips unknown fields without checking their bytes, so such
    a request may still be answered, once, as its readable parts say.
    """
    value = parsed(line)
    if value is not _UNREADABLE:
        return expected_ids(value)
    lenient = parsed(line.decode("utf-8", "replace").encode())
    return [Counter()] if lenient is _UNREADABLE else [Counter(), *expected_ids(lenient)]


def check_line(line: bytes) -> None:
    got = answered(decoded(line))
    allowed = allowed_answers(line)
    assert got in allowed, f"{line[:300]!r}: answered {dict(got)}, expected one of {allowed}"


# ------------------------------------------------------------ mutations (random.Random)


def random_json(rng: random.Random, depth: int = 0) -> Any:
    """A random JSON value (strings may hold lone surrogates: encoded as escapes)."""
    kind = rng.randrange(7 if depth < 3 else 5)
    match kind:
        case 0:
            return None
        case 1:
            return rng.random() < 0.5
        case 2:
            return rng.choice([0, -1, 2**31, 2**63, -(2**64), 10**30, rng.randrange(-999, 999)])
        case 3:
            return rng.choice([0.5, -0.0, 1e308, 5e-324, rng.random()])
        case 4:
            alphabet = 'ab"\\/\n\t\u2028\x00\x7f é€😀\ud800'
            return "".join(rng.choice(alphabet) for _ in range(rng.randrange(12)))
        case 5:
            return [random_json(rng, depth + 1) for _ in range(rng.randrange(4))]
        case _:
            keys = ["type", "request_id", "request", "subtype", "id", "jsonrpc", "method", "x"]
            return {rng.choice(keys): random_json(rng, depth + 1) for _ in range(rng.randrange(4))}


def _paths(value: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    yield path
    items = (
        value.items()
        if isinstance(value, dict)
        else enumerate(value)
        if isinstance(value, list)
        else []
    )
    for key, child in items:
        yield from _paths(child, (*path, key))


def mutate_value(value: Any, rng: random.Random) -> Any:
    """One structural change: drop, replace, retype or rename a field, or add one."""
    value = copy.deepcopy(value)
    *parent_path, last = rng.choice(list(_paths(value))[1:] or [("",)])
    parent = value
    for key in parent_path:
        parent = parent[key]
    if not isinstance(parent, dict | list) or (isinstance(parent, dict) and last not in parent):
        return random_json(rng)
    action = rng.randrange(5)
    if action == 0 and isinstance(parent, dict):
        del parent[last]
    elif action == 1 and isinstance(parent, dict):
        parent[rng.choice(["requestId", "id", "request_id", "jsonrpc", "", last * 2])] = parent.pop(
            last
        )
    elif action == 2:
        parent[last] = rng.choice([None, True, 7, 1.5, "", [], {}, str(parent[last])])
    elif action == 3 and isinstance(parent, dict):
        parent[rng.choice(["jsonrpc", "type", "id", "extra"])] = random_json(rng)
    else:
        parent[last] = random_json(rng)
    return value


def _at(data: bytes, rng: random.Random) -> int:
    return rng.randrange(len(data) + 1)


def _flip(data: bytes, rng: random.Random) -> bytes:
    i = rng.randrange(len(data)) if data else 0
    return data[:i] + bytes([rng.randrange(256)]) + data[i + 1 :]


def _insert(data: bytes, rng: random.Random) -> bytes:
    i = _at(data, rng)
    return data[:i] + rng.randbytes(rng.randrange(1, 8)) + data[i:]


def _delete(data: bytes, rng: random.Random) -> bytes:
    i = _at(data, rng)
    return data[:i] + data[i + rng.randrange(1, 16) :]


def _repeat(data: bytes, rng: random.Random) -> bytes:
    i = _at(data, rng)
    return data[:i] + data[max(0, i - rng.randrange(1, 32)) : i] + data[i:]


def _truncate(data: bytes, rng: random.Random) -> bytes:
    return data[: _at(data, rng)]


def _bad_utf8_in_a_string(data: bytes, rng: random.Random) -> bytes:
    quotes = [i + 1 for i, byte in enumerate(data) if byte == ord('"')] or [_at(data, rng)]
    i = rng.choice(quotes)
    return data[:i] + rng.choice([b"\xff", b"\xc3", b"\xed\xa0\x80", b"\xf0\x9f"]) + data[i:]


def _nest(data: bytes, rng: random.Random) -> bytes:
    depth = rng.choice([10, 900, 1200, 5000])
    return b"[" * depth + data + b"]" * depth


def _special(data: bytes, rng: random.Random) -> bytes:
    i = _at(data, rng)
    return data[:i] + rng.choice([b"\x00", b"\r", b"\\", b'"', b"\t", b"\n", b"\\ud800"]) + data[i:]


BYTE_OPS: Final = [
    _flip,
    _insert,
    _delete,
    _repeat,
    _truncate,
    _bad_utf8_in_a_string,
    _nest,
    _special,
]


def mutate_bytes(data: bytes, rng: random.Random) -> bytes:
    for _ in range(rng.randrange(1, 4)):
        data = rng.choice(BYTE_OPS)(data, rng)
    return data


def encode(value: Any) -> bytes:
    return json.dumps(value).encode()


# -------------------------------------------------------------- codec properties


@pytest.mark.req("R-002", "R-014", "R-120")
@FUZZ
@given(st.binary(max_size=300) | jsonish_bytes)
def test_any_bytes(data: bytes) -> None:
    TRIED["codec: any bytes"] += 1
    check_line(data)
    found = wire.recover_id(data)
    if found is not None:  # an id is only ever read from a request_id or id key
        framing, request_id = found
        assert (b'"request_id"' if framing == "control" else b'"id"') in data
        assert isinstance(request_id, str) or (framing == "jsonrpc" and isinstance(request_id, int))


@pytest.mark.req("R-002", "R-034", "R-035")
@FUZZ
@given(json_values)
def test_any_json(value: Any) -> None:
    TRIED["codec: any JSON"] += 1
    check_line(msgspec.json.encode(value))


@pytest.mark.req("R-010", "R-012", "R-034", "R-035", "R-040")
@FUZZ
@given(messages, st.randoms(use_true_random=False), st.integers(0, 3))
def test_mutated_valid_messages(value: Any, rng: random.Random, changes: int) -> None:
    TRIED["codec: mutated messages"] += 1
    check_line(encode(value))
    for _ in range(changes):
        value = mutate_value(value, rng)
    check_line(encode(value))


@pytest.mark.req("R-001", "R-002")
@FUZZ
@given(messages, st.randoms(use_true_random=False))
def test_byte_mutations_of_valid_messages(value: Any, rng: random.Random) -> None:
    TRIED["codec: byte-mutated messages"] += 1
    check_line(mutate_bytes(encode(value), rng))


def reference_lines(stream: bytes, limit: int) -> list[bytes | wire.Oversize]:
    """What SPEC.md R-001/R-003 say the framer yields for ``stream``."""
    out: list[bytes | wire.Oversize] = []
    for raw in stream.split(b"\n"):
        if len(raw) > limit:
            out.append(wire.Oversize(len(raw), raw[: wire.LineFramer.HEAD_BYTES]))
        elif raw.strip():
            out.append(raw.strip())
    return out


def framed(chunks: list[bytes], limit: int) -> list[bytes | wire.Oversize]:
    framer = wire.LineFramer(limit)
    out = [item for chunk in chunks for item in framer.feed(chunk)]
    tail = framer.close()
    return out + ([tail] if tail is not None else [])


def cut(stream: bytes, points: list[int]) -> list[bytes]:
    edges = [0, *sorted(p % (len(stream) + 1) for p in points), len(stream)]
    return [stream[a:b] for a, b in itertools.pairwise(edges)]


pieces = st.one_of(messages.map(encode), st.binary(max_size=40), jsonish_bytes)
separators = st.sampled_from([b"\n", b"\r\n", b"\n\n", b" \t\n", b"\n\r\n"])


@pytest.mark.req("R-001", "R-003")
@FUZZ
@given(
    st.lists(st.tuples(pieces, separators), max_size=8),
    st.lists(st.integers(min_value=0), max_size=12),
    st.integers(1, 300) | st.sampled_from([4096, 5000, 1 << 20]),
)
def test_framer_splits_at_any_points(
    items: list[tuple[bytes, bytes]], points: list[int], limit: int
) -> None:
    """The same lines and oversize reports however the stream is cut into reads."""
    TRIED["framer: split streams"] += 1
    stream = b"".join(piece + sep for piece, sep in items)
    assert framed(cut(stream, points), limit) == reference_lines(stream, limit)


@pytest.mark.req("R-001", "R-035")
@FUZZ
@given(st.lists(messages, min_size=1, max_size=8), st.lists(st.integers(min_value=0), max_size=16))
def test_split_stream_answers_every_recoverable_id_once(
    values: list[Any], points: list[int]
) -> None:
    TRIED["stream: split message sequences"] += 1
    stream = b"".join(encode(v) + b"\n" for v in values)
    got: Counter[Key] = Counter()
    for line in framed(cut(stream, points), wire.DEFAULT_MAX_LINE_BYTES):
        assert isinstance(line, bytes)
        got += answered(decoded(line))
    want: Counter[Key] = Counter()
    for value in values:
        want += expected_ids(value)[0]  # generated messages are never ambiguous
    assert got == want


@pytest.mark.req("R-001", "R-010")
@FUZZ
@given(st.sampled_from(["control", "jsonrpc"]), rpc_ids, json_values, st.text(max_size=40))
def test_every_answer_is_one_json_line(framing: Any, rid: Any, payload: Any, text: str) -> None:
    TRIED["encoder: answers"] += 1
    rid = str(rid) if framing == "control" else rid
    for line in (
        wire.encode_success(framing, rid, payload),
        *(wire.encode_message(wire.error_object(framing, rid, kind, text)) for kind in ErrorKind),
    ):
        assert line.endswith(b"\n") and line.count(b"\n") == 1
        msg = parse_answer(line[:-1])
        assert ids_of([msg]) == Counter({rid: 1})


# ------------------------------------------------- what fuzzing found (codec level)


@pytest.mark.req("R-002")
@pytest.mark.parametrize(
    "line",
    [
        b'{"type":"control_request","request_id":"\xff"}',
        b'{"a":"\xc3"}',
        b'"\xed\xa0\x80"',
        b"[" * 1000 + b"]" * 1000,
        b'{"type":"control_request","request_id":"r","request":' + b"[" * 3000 + b"]" * 3000 + b"}",
        b'{"type":"control_request","request_id":"r","request":{"subtype":"initialize","\xffx":1}}',
    ],
    ids=[
        "invalid-utf8-id",
        "truncated-utf8",
        "utf8-surrogate",
        "nested-1000",
        "nested-3000",
        "invalid-utf8-in-an-unknown-key",
    ],
)
def test_lines_that_used_to_escape_the_codec(line: bytes) -> None:
    check_line(line)


@pytest.mark.req("R-003")
def test_oversize_head_is_recovered_from_a_damaged_id() -> None:
    damaged = b'{"type":"control_request","request_id":"\xff\xfe"'
    assert wire.recover_id(damaged) is None  # not UTF-8: no id, and no exception
    assert wire.recover_id(damaged.replace(b"\xff\xfe", b"ok")) == ("control", "ok")


@pytest.mark.req("R-003")
def test_oversize_report_does_not_depend_on_read_boundaries() -> None:
    line = b'{"type":"control_request","request_id":"r1","request":{}}' + b" " * 100 + b"\n"
    whole = framed([line], 40)
    byte_by_byte = framed([line[i : i + 1] for i in range(len(line))], 40)
    assert whole == byte_by_byte
    assert wire.recover_id(whole[0].head if isinstance(whole[0], wire.Oversize) else b"")


@pytest.mark.req("R-010", "R-035")
@pytest.mark.parametrize("odd_id", [None, 1.5, True, [1], {"a": 1}])
async def test_jsonrpc_request_with_an_odd_id_is_answered(odd_id: Any) -> None:
    """A request with an ``id`` member is not a notification: it gets one answer (id null)."""
    from hookd.core.loader import load_hooks

    registry = load_hooks(fault_module("raises"))
    async with served(registry) as (peer, _):
        await peer.send({"jsonrpc": "2.0", "id": odd_id, "method": "initialize"})
        msg = await peer.recv(timeout=5)
        assert msg["id"] in (None, odd_id), msg
        await peer.send({"jsonrpc": "2.0", "id": 1, "method": "initialize"})
        assert (await peer.recv(timeout=5))["id"] == 1


# ------------------------------------------------------------- the real process

VALID_IDS: Final = "valid-"


def garbage(rng: random.Random, templates: list[Any]) -> bytes:
    """One random, JSON-random or mutated line (it may hold more newlines)."""
    roll = rng.random()
    if roll < 0.2:
        line = rng.randbytes(rng.randrange(200))
    elif roll < 0.4:
        line = encode(random_json(rng))
    elif roll < 0.7:
        line = mutate_bytes(encode(rng.choice(templates)), rng)
    else:
        value = rng.choice(templates)
        for _ in range(rng.randrange(1, 4)):
            value = mutate_value(value, rng)
        line = encode(value)
    return line + b"\n"


def templates(ids: dict[str, list[str]]) -> list[Any]:
    """Valid messages of every kind (ids ``mut-``) for the mutator to start from."""
    ok = ids["PreToolUse/Ok"][0]
    body = hook_request("mut-1", ok, pre_tool_use("Ok"))["request"]
    return [
        control("mut-1", body),
        control("mut-2", {"subtype": "initialize"}),
        control(
            "mut-3", {"subtype": "hook_dispatch", "event": "PreToolUse", "input": pre_tool_use()}
        ),
        {"type": "control_cancel_request", "request_id": "mut-1"},
        as_rpc(body, 5, True),
        [as_rpc(body, 6, True), as_rpc(body, 7, False)],
        {"jsonrpc": "2.0", "method": "$/cancelRequest", "params": {"id": 5}},
        {"type": "user", "message": {"role": "user", "content": "hi"}},
    ]


class Fuzzer:
    """Writes valid requests between garbage lines, in random pieces; counts what it sent."""

    def __init__(self, hookd: Hookd, ids: dict[str, list[str]], rng: random.Random) -> None:
        self.hookd, self.rng = hookd, rng
        self.templates = templates(ids)
        self.callbacks = {m: ids[f"PreToolUse/{m}"][0] for m in ("Ok", "OkThread", "Fault")}
        self.valid: dict[str, str] = {}  # request id -> matcher
        self.garbage_lines = 0
        self.unanswered: set[str] = set()
        self.sending = True
        self.all_answered = trio.Event()

    def on_answer(self, msg: dict[str, Any]) -> None:
        rid = msg.get("response", {}).get("request_id")
        self.unanswered.discard(rid)
        if not self.sending and not self.unanswered:
            self.all_answered.set()

    def valid_line(self) -> bytes:
        matcher = self.rng.choice(list(self.callbacks))
        rid = f"{VALID_IDS}{len(self.valid)}-{self.rng.getrandbits(32):08x}"
        self.valid[rid] = matcher
        self.unanswered.add(rid)
        return encode(hook_request(rid, self.callbacks[matcher], pre_tool_use(matcher))) + b"\n"

    async def run(self, lines: int) -> None:
        while self.garbage_lines + len(self.valid) < lines:
            stream = b"".join(
                self.valid_line() if self.rng.random() < 0.3 else self._garbage() for _ in range(50)
            )
            points = [self.rng.randrange(len(stream) + 1) for _ in range(self.rng.randrange(6))]
            for piece in cut(stream, points):
                await self._send(piece)
        self.sending = False
        if not self.unanswered:
            self.all_answered.set()

    async def _send(self, data: bytes) -> None:
        try:
            await self.hookd.send(data)
        except trio.BrokenResourceError:
            code = await self.hookd.exit_code()
            tail = self.hookd.stderr()[-2000:]
            raise AssertionError(f"hookd exited with {code} while fuzzed:\n{tail}") from None

    def _garbage(self) -> bytes:
        self.garbage_lines += 1
        return garbage(self.rng, self.templates)


def check_valid_answers(fuzzer: Fuzzer, answers: list[dict[str, Any]]) -> None:
    counts = ids_of(answers)
    by_id = {msg["response"]["request_id"]: msg for msg in answers if "response" in msg}
    lost = [rid for rid in fuzzer.valid if counts[rid] == 0]
    duplicated = [rid for rid in fuzzer.valid if counts[rid] > 1]
    assert lost == [] and duplicated == []
    for rid, matcher in fuzzer.valid.items():
        specific = by_id[rid]["response"]["response"]["hookSpecificOutput"]
        assert specific["permissionDecision"] == ("deny" if matcher == "Fault" else "allow")


@pytest.mark.req("R-001", "R-002", "R-034", "R-035", "R-120")
async def test_process_survives_random_lines(tmp_path: Path) -> None:
    seed = random.randrange(2**32) if LONG else 1
    async with running(fault_module("raises"), tmp_path) as hookd:
        fuzzer = Fuzzer(hookd, await hookd.callback_ids(), random.Random(seed))
        answers: list[dict[str, Any]] = []
        async with trio.open_nursery() as nursery:
            nursery.start_soon(_collect, hookd, fuzzer, answers)
            with trio.fail_after(900 if LONG else 60):
                await fuzzer.run(PROCESS_LINES)
                await fuzzer.all_answered.wait()  # EOF would withdraw what is in flight
            await hookd.close_stdin()
        assert await hookd.exit_code() == 0, f"seed {seed}"
    bad_logs = [line for line in hookd.stderr().split("\n") if line and not line.startswith("{")]
    assert bad_logs[:5] == [], f"seed {seed}: stderr has non-log lines"
    check_valid_answers(fuzzer, answers)
    TRIED["process: lines written"] += fuzzer.garbage_lines + len(fuzzer.valid)
    TRIED["process: valid requests answered once"] += len(fuzzer.valid)
    TRIED["process: answers read"] += len(answers)


async def _collect(hookd: Hookd, fuzzer: Fuzzer, answers: list[dict[str, Any]]) -> None:
    while True:
        try:
            line = await hookd.out.line(timeout=900 if LONG else 60)
        except EOFError:
            return
        answers.append(parse_answer(line))
        fuzzer.on_answer(answers[-1])


@pytest.fixture(scope="module", autouse=True)
def _figures(request: pytest.FixtureRequest) -> Iterator[None]:
    yield
    lines = [f"  {name}: {count:,}" for name, count in TRIED.items()]
    print_figures(request.config, "fuzz: inputs tried\n" + "\n".join(lines))

"""The state of one measured run: what was sent and answered, and when.

Timestamps are taken once per write and once per read, as pairs of
(cumulative count, ``perf_counter_ns``). Per-request latencies are matched
afterwards, the k-th answer to the k-th request: exact at one request in
flight, the FIFO view above it (whose mean equals the true mean).
"""

from __future__ import annotations

from array import array
from collections.abc import Callable, Sequence
from typing import Final

from bench.workload import Block

__all__ = ["KEEP_BYTES", "Flow"]

KEEP_BYTES: Final = 1 << 21  # answers kept for checking after the run


class Flow:
    """State of one run: what was sent and answered, and when."""

    def __init__(
        self,
        block: Block,
        n: int,
        window: int,
        marks: Sequence[int],
        read_rss_kib: Callable[[], int],
    ) -> None:
        self.block, self.n, self.window = block, n, window
        self.view = memoryview(block.data)
        self.sent = self.answered = 0
        self.sends: array[int] = array("q")
        self.recvs: array[int] = array("q")
        self.kept: list[bytes] = []
        self.kept_bytes = 0
        self.tail = b"\n"
        self.marks = sorted(marks, reverse=True)
        self.rss_kib_at: dict[int, int] = {}
        self.read_rss_kib = read_rss_kib

    def absorb(self, chunk: bytes, now_ns: int) -> None:
        """Count the answers in ``chunk``; note when; read RSS at each mark passed."""
        self.answered += chunk.count(b"\n")
        self.recvs.append(self.answered)
        self.recvs.append(now_ns)
        self.tail = chunk
        if self.kept_bytes < KEEP_BYTES:
            self.kept.append(chunk)
            self.kept_bytes += len(chunk)
        while self.marks and self.answered >= self.marks[-1]:
            self.rss_kib_at[self.marks.pop()] = self.read_rss_kib()

    def slices(self, target: int) -> list[memoryview]:
        """The byte ranges holding requests ``sent`` .. ``target`` (cycling the block)."""
        out, count, start = [], target - self.sent, self.sent % self.block.n
        offsets = self.block.offsets
        while count:
            stop = min(self.block.n, start + count)
            out.append(self.view[offsets[start] : offsets[stop]])
            count -= stop - start
            start = 0
        return out

    def latencies_ns(self) -> list[int]:
        """Sorted per-request latencies, the k-th answer matched to the k-th request."""
        sends, recvs, out = self.sends, self.recvs, []
        si = ri = 0
        for k in range(self.n):
            while sends[si] <= k:
                si += 2
            while recvs[ri] <= k:
                ri += 2
            out.append(recvs[ri + 1] - sends[si + 1])
        out.sort()
        return out

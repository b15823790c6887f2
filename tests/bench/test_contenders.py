"""Every pipe contender of the stdio bench starts and answers right through the bench client."""

from __future__ import annotations

import pytest

from bench.contenders import CONTENDERS, Session, Spec

PIPE_CONTENDERS = [spec for spec in CONTENDERS if not spec.spawns_per_call and spec.name != "sdk"]


@pytest.mark.parametrize("spec", PIPE_CONTENDERS, ids=lambda spec: spec.name)
def test_contender_answers_every_request(spec: Spec) -> None:
    session = Session(spec, cpus=None)
    with session.spawn() as (contender, handshake):
        result = contender.run(session.block(handshake, 200), 200, 16, timeout_s=30.0)
    assert result.n == 200
    assert result.checked > 0  # answers were parsed and matched their requests

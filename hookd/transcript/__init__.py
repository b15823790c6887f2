"""Transcripts: their format, the tee that records them, record and replay."""

import os

#: ``hookd serve`` records its session to this file when the variable is set (here, not in
#: :mod:`hookd.transcript.format`: the server checks it before that module is imported).
RECORD_ENV = "HOOKD_RECORD"


def record_target() -> str | None:
    """The transcript ``hookd serve`` records into (``$HOOKD_RECORD``), or None.

    The one place the variable is read; every server asks here.
    """
    return os.environ.get(RECORD_ENV) or None

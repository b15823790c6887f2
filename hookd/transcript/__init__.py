"""Transcripts: their format, the tee that records them, record and replay."""

#: ``hookd serve`` records its session to this file when the variable is set (here, not in
#: :mod:`hookd.transcript.format`: the server checks it before that module is imported).
RECORD_ENV = "HOOKD_RECORD"

"""Transcripts: their format, the tee that records them, record and replay."""

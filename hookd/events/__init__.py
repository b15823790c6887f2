"""The event catalogue: the 33 hook events, their input and output types, schemas and validation.

``from hookd.events import PreToolUseInput`` and ``EVENTS`` come from the catalogue;
:mod:`hookd.events.schema` renders JSON Schemas and :mod:`hookd.events.validation`
checks inputs and outputs (both imported on demand: they are heavier).
"""

from hookd.events.catalogue import *  # noqa: F403
from hookd.events.catalogue import __all__ as __all__

"""The event catalogue: the 33 hook events, their input and output types, schemas and validation.

``from hookd.events import PreToolUseInput`` and ``EVENTS`` come from the catalogue,
which is imported on first use: :mod:`hookd.events.table` alone (names, matcher
fields, block styles) is what loading hooks needs. :mod:`hookd.events.event_schemas`
renders JSON Schemas and :mod:`hookd.events.validation` checks inputs and outputs.
"""

from __future__ import annotations

TYPE_CHECKING = False  # without importing typing
if TYPE_CHECKING:
    from hookd.events.catalogue import *  # noqa: F403
    from hookd.events.catalogue import __all__ as __all__


def __getattr__(name: str) -> object:
    import importlib

    catalogue = importlib.import_module("hookd.events.catalogue")
    if name == "__all__" or name in catalogue.__all__:
        return getattr(catalogue, name)
    raise AttributeError(f"module 'hookd.events' has no attribute {name!r}")

"""Where a dataset comes from: one module per data source, one line each in :data:`REGISTRY`
(and the sidebar's "Show only" slice of it).

A source is a :class:`Source`: the label the sidebar's "Data" control shows, the prefix of the
``source_id`` of every dataset it makes, and what it does on a page run (draw its sidebar
widgets and return a :class:`ui.tables.dataset.Dataset`, or None while its table is not ready), on a
session's first run (claim a shared link) and after it (write the link of the current view).
A few flags say how the frame treats its datasets; they are the only place a kind of dataset is
told apart, so nothing outside this package branches on one.

Adding a source is a module with a ``SOURCE`` and a line in :data:`REGISTRY` (or, at run time,
:func:`register`), nothing else: the frame and every page pick it up.
"""

from __future__ import annotations

from ui.sources.base import Source
from ui.tables.dataset import Dataset

__all__ = ["REGISTRY", "Source", "labels", "of", "register"]


def _registry() -> dict[str, Source]:
    from ui.sources import example, sample, server, synthetic, upload

    sources = [sample.SOURCE, upload.SOURCE, server.SOURCE, example.SOURCE, synthetic.SOURCE]
    return {s.label: s for s in sources}


REGISTRY: dict[str, Source] = _registry()
DEFAULT = next(iter(REGISTRY))


def register(source: Source) -> None:
    """Add ``source`` to the sidebar's choices (after the others)."""
    REGISTRY[source.label] = source


def labels() -> list[str]:
    return list(REGISTRY)


def of(ds: Dataset) -> Source:
    """The source a dataset came from (by its ``source_id``; the sample's when none claims it)."""
    return next((s for s in REGISTRY.values() if s.owns(ds)), REGISTRY[DEFAULT])

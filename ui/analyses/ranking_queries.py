"""The Ranking page's query picker (no Streamlit): which query ids it lists, and which it opens
on."""

from __future__ import annotations

import numpy as np

__all__ = ["query_options"]


def query_options(
    queries: np.ndarray, skipped: np.ndarray, max_options: int
) -> tuple[list[str], list[str], str]:
    """(every query id as text, the ids listed: the first ``max_options`` and the first query
    with a relevant document, that first query's id)."""
    labels = [str(q) for q in queries.tolist()]
    first = labels[int(np.flatnonzero(~skipped)[0])]
    options = labels[:max_options]
    if first not in options:
        options.append(first)
    return labels, options, first

"""A table typed in the app (:mod:`ui.sources.example_source`); the table travels in the link."""

from __future__ import annotations

from collections.abc import Mapping

import streamlit as st

from ui.sources import example_source
from ui.sources.base import Source
from ui.tables.dataset import Dataset

__all__ = ["SOURCE"]


def read_link(q: Mapping) -> bool:
    if not q.get(example_source.QUERY_KEY):
        return False
    st.session_state["source"] = SOURCE.label
    return True


def link(ds: Dataset) -> dict | None:
    # The typed table travels in the URL, so a reload or a shared link reopens it.
    table = st.session_state.get("example_current")
    if table is None or len(table) > example_source.MAX_ROWS:
        return None
    return {example_source.QUERY_KEY: example_source.encode(table)}


SOURCE = Source(label="Your example", prefix="example", sidebar=example_source.example_dataset,
                read_link=read_link, link=link, data_page=example_source.editor)  # fmt: skip

"""The page's link: the view a session's first run reads from the URL, and the URL every run
writes back (the dataset's source and presentation mode say what goes in it)."""

from __future__ import annotations

import streamlit as st

from ui import sources
from ui.frame import plan_panel, presentation
from ui.tables.dataset import Dataset


def read_query_params() -> None:
    """On a session's first run, the source whose link it is sets the view from it."""
    if st.session_state.get("_query_read"):
        return
    st.session_state["_query_read"] = True
    q = st.query_params
    presentation.read_link(q)  # ?present=1: a reload keeps presentation mode
    plan_panel.read_link(q)  # ?plan=: a lecture plan, opened on its first view
    any(source.read_link(q) for source in sources.REGISTRY.values())


def write_link(ds: Dataset) -> None:
    """Put the link that shows ``ds`` (and presentation mode) in the URL, or clear it."""
    link = {**(sources.of(ds).link(ds) or {}), **presentation.link()}
    if link:
        st.query_params.from_dict(link)
    else:
        st.query_params.clear()

"""Generated data (:mod:`ui.sources.synthetic_source`); every generator setting travels in the
link."""

from __future__ import annotations

from collections.abc import Mapping

import streamlit as st

from ui.sources import synthetic_source
from ui.sources.base import Source
from ui.tables.dataset import Dataset
from ui.words.safe import md

__all__ = ["SOURCE"]


def sidebar() -> Dataset:
    bad = st.session_state.pop("synth_link_bad", None)
    if bad:
        st.warning(
            md(
                "The link's synthetic settings "
                + ", ".join(f"“{b}”" for b in bad[:5])
                + " were not understood and keep their defaults.",
                limit=600,
            )
        )
    return synthetic_source.synthetic_dataset()


def read_link(q: Mapping) -> bool:
    if not q.get(synthetic_source.QUERY_KEY):
        return False
    st.session_state["source"] = SOURCE.label
    bad = synthetic_source.apply_link(q[synthetic_source.QUERY_KEY])
    if bad:
        st.session_state["synth_link_bad"] = bad
    return True


def link(ds: Dataset) -> dict:
    # A shared link redraws the same table.
    return {synthetic_source.QUERY_KEY: synthetic_source.encode()}


SOURCE = Source(label="Synthetic", prefix="synthetic", sidebar=sidebar, read_link=read_link,
                link=link)  # fmt: skip

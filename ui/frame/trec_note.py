"""The sentence a score-table page says when the session's data are TREC files.

``metrics-lens app --qrels QRELS RUN...`` (or qrels and runs uploaded on the Runs page) gives
the app no table of labels and scores: the other pages show the bundled sample as on a fresh
start, and say above it, in one sentence, what they need and where the TREC files are.
"""

from __future__ import annotations

import os

import streamlit as st

from ui import sources
from ui.compute.runs_compute import GIVEN, RUNS_ENV
from ui.frame.data_menu import SAMPLE
from ui.tables.dataset import Dataset

__all__ = ["SENTENCE", "trec_note"]

SENTENCE = (
    "This page needs a table of labels and scores (upload one in the sidebar); the TREC qrels "
    "and runs you gave are compared on the Runs page, and this page shows the sample dataset "
    "meanwhile."
)


def trec_note(ds: Dataset, page_title: str | None) -> None:
    """The sentence, on a page other than Runs, while the dataset is a bundled sample and the
    session holds TREC files."""
    if page_title == "Runs" or sources.of(ds).prefix != SAMPLE:
        return
    if os.environ.get(RUNS_ENV) or st.session_state.get(GIVEN):
        st.info(SENTENCE, icon=":material/compare_arrows:")
        st.page_link("pages/runs.py", label="Open the Runs page", icon=":material/compare_arrows:")

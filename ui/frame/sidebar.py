"""The shared sidebar: the data source and its table, the table's problems, the model shown on
the pages and its score scale, presentation mode and the downloads.

Shared session state set here: ``source`` ("bundled" or "upload") and ``model``.
"""

from __future__ import annotations

import streamlit as st

from ui import sources
from ui.compute import thresholds
from ui.frame import last_good, presentation
from ui.frame.scales import scales_widget
from ui.tables.dataset import Dataset
from ui.views import show
from ui.words.numbers import plural
from ui.words.safe import md


def sidebar() -> Dataset:
    """The sidebar, and the dataset its source gives (else the source's last usable table,
    else the sample); the last usable dataset is kept."""
    with st.sidebar:
        st.title("Metrics Lens")
        st.caption("See how classification metrics behave on your scores.")
        st.session_state.setdefault("source", sources.DEFAULT)
        last_good.touch_budget()
        ds = _source_dataset()
        problems(ds)
        if not last_good.usable(ds):  # the last usable table into session state: the pages show it
            last_good.keep_last_good(ds)
        model_box(last_good.shown_dataset(ds))  # lists the models of the table the pages show
        st.caption(sources.of(ds).rows(ds))
        st.divider()
        presentation.sidebar_controls()
        show.download_all_button()  # every chart of the page as one zip; titled downloads
    last_good.keep_last_good(ds)
    return ds


def _source_dataset() -> Dataset:
    """The source picker, and the dataset the chosen source's sidebar gives; when it gives none
    (it said why), its last usable table, else the sample."""
    chosen = st.segmented_control("Data", sources.labels(), key="source")
    source = sources.REGISTRY.get(chosen, sources.REGISTRY[sources.DEFAULT])
    st.session_state["_showing_last_good"] = False
    ds = source.sidebar()
    if ds is None:
        ds = last_good.source_last_good(source) or sources.sample.fallback()
    return ds


def problems(ds: Dataset) -> None:
    """The problems found in ``ds``'s table, and how many rows they dropped."""
    for note in ds.prepared.problems:
        (st.error if note.level == "error" else st.warning)(md(note.message, limit=2000))
    if ds.prepared.n_dropped:
        st.info(f"Dropped {plural(ds.prepared.n_dropped, 'row')} with problems.")


def model_box(shown: Dataset) -> None:
    """The model the pages show (a model of ``shown``, the table they show) and the score
    scales; nothing for a table without models."""
    if not shown.models:
        return
    thresholds.sync(shown)
    if st.session_state.get("model") not in shown.models:
        st.session_state["model"] = shown.models[0]
    if not sources.of(shown).own_model_picker:
        st.selectbox(
            "Class" if shown.mapping.per_class else "Model (score column)",
            options=shown.models,
            key="model",
        )
    scales_widget(shown)

"""The last usable dataset: kept so that a later table with problems loses nothing, shown by the
pages while the sidebar's table cannot be used.

An upload's last usable table is kept in the memory budget's store (a drop frees it) and put in
session state (``last_good_dataset``, ``last_good_model``) only while the current table is
unusable; any other source's is kept in session state.
"""

from __future__ import annotations

import streamlit as st

from ui import sources
from ui.compute import budget
from ui.tables.dataset import Dataset


def usable(ds: Dataset) -> bool:
    """Whether the pages can show ``ds``: it parsed without errors and has a model."""
    return ds.prepared.ok and bool(ds.models)


def shown_dataset(ds: Dataset) -> Dataset:
    """The dataset the pages show: ``ds``, or while it cannot be used the last usable one."""
    previous = st.session_state.get("last_good_dataset")
    return ds if usable(ds) or previous is None else previous


def touch_budget() -> None:
    """Every run: mark this session used; if the budget dropped its upload, say so."""
    if budget.touch():
        st.session_state["upload_dropped"] = st.session_state.get("upload_current") or True
        st.session_state.pop("upload_current", None)
        budget.session_store().clear()  # anything this run put back after the drop
        previous = st.session_state.get("last_good_dataset")
        if previous is not None and sources.of(previous).in_budget:
            del st.session_state["last_good_dataset"]


def source_last_good(source: sources.Source) -> Dataset | None:
    """The last usable table of ``source`` while its sidebar has none (a setting it cannot use,
    a file it cannot read): the pages keep it, with a warning, rather than the sample."""
    if source.in_budget:
        kept = budget.session_store().get("last_good")
        good = kept[0] if kept else None
    else:
        good = st.session_state.get("last_good_dataset")
    if good is None or not source.owns(good):
        return None
    st.session_state["_showing_last_good"] = True
    return good


def keep_last_good(ds: Dataset) -> None:
    """Keep the last usable dataset so that a later table with problems loses nothing: pages
    fall back to it. An upload's is kept in the budget's store, so a drop frees it, and put
    in session state only while the current table is unusable."""
    upload = sources.of(ds).in_budget
    if ds.prepared.ok and ds.models:
        if upload:
            _keep_upload(ds)
        else:
            st.session_state["last_good_dataset"] = ds
            st.session_state["last_good_model"] = st.session_state["model"]
    elif upload and "last_good" in budget.session_store():
        good, model = budget.session_store()["last_good"]
        st.session_state["last_good_dataset"] = good
        st.session_state["last_good_model"] = model


def _keep_upload(ds: Dataset) -> None:
    """Keep the usable upload ``ds`` in the budget's store (counting new arrays), and drop an
    upload's last usable table from session state."""
    store = budget.session_store()
    previous = store.get("last_good")
    same = previous is not None and (previous[0].key, previous[0].slice) == (ds.key, ds.slice)
    store["last_good"] = (previous[0] if same else ds, st.session_state["model"])
    if not same:  # new arrays (a new mapping or slice): count them
        budget.set_size(budget.nbytes(store))
    previous = st.session_state.get("last_good_dataset")
    if previous is not None and sources.of(previous).in_budget:
        del st.session_state["last_good_dataset"]

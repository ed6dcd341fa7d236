"""Showing every page on one category of a slice column: the sidebar's "Show only" control, and
the way a page (Compare's slice table) picks one."""

from __future__ import annotations

import streamlit as st

from ui.compute import data
from ui.tables.dataset import Dataset
from ui.tables.roles import MAX_SLICE_VALUES

__all__ = ["ALL_ROWS", "choose_slice", "slice_widget"]

ALL_ROWS = "(all rows)"


def slice_widget(ds: Dataset) -> Dataset:
    """With slice columns mapped: show every page on the rows of one category only."""
    if not ds.mapping.slices:
        return ds
    options = [ALL_ROWS]
    for col in ds.mapping.slices:
        values = ds.frame[col].dropna().value_counts().index[:MAX_SLICE_VALUES]
        options += [(col, v.item() if hasattr(v, "item") else v) for v in values]
    if "slice_pending" in st.session_state:  # chosen on a page, after this widget last ran
        st.session_state["slice_choice"] = st.session_state.pop("slice_pending")
    current = st.session_state.get("slice_choice")
    if _is_crossed(current, ds):  # two columns crossed, picked on Compare: offer it too
        options.append(current)
    if current not in options:
        st.session_state["slice_choice"] = ALL_ROWS
    choice = st.selectbox(
        "Show only",
        options,
        key="slice_choice",
        format_func=lambda o: o if o == ALL_ROWS else data.slice_label(*o),
        help="Every page then works on the rows of this category only.",
    )
    return ds if choice == ALL_ROWS else data.sliced(ds, *choice)


def _is_crossed(choice, ds: Dataset) -> bool:
    return (
        isinstance(choice, tuple)
        and len(choice) == 2
        and isinstance(choice[0], tuple)
        and all(c in ds.mapping.slices for c in choice[0])
    )


def choose_slice(column, value) -> None:
    """Show every page on the rows where ``column`` is ``value`` (from the next run on)."""
    st.session_state["slice_pending"] = (column, value)

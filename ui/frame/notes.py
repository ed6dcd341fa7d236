"""The notes above a page that say which data it shows: the dataset's name, a slice of it, the
sample while a table is not ready, or the last usable table while the sidebar's cannot be used.
"""

from __future__ import annotations

import streamlit as st

from ui import sources
from ui.compute import data
from ui.frame import presentation
from ui.sources.slice_picker import ALL_ROWS
from ui.tables.dataset import Dataset
from ui.words.safe import md


def dataset_line(ds: Dataset) -> str:
    """The line that names the dataset a page shows, and its source (markdown)."""
    label = sources.of(ds).label
    if ds.name == label:  # "Your example: Your example" says it twice
        return f":material/table_chart: **{md(ds.name)}**"
    return f":material/table_chart: {label}: **{md(ds.name)}**"


def name(ds: Dataset) -> None:
    """The dataset line of ``ds`` (out of presentation mode, whose page bar names it)."""
    if not presentation.on():
        st.caption(dataset_line(ds))


def slice_note(ds: Dataset) -> None:
    """When ``ds`` is a slice: which rows it keeps, and a button back to all rows."""
    if ds.slice is None:
        return
    note, button = st.columns([5, 1], vertical_alignment="center")
    note.info(
        f"Showing only **{md(data.slice_label(*ds.slice))}**: {len(ds.frame):,} of "
        f"{ds.rows_before_slice:,} rows.",
        icon=":material/filter_alt:",
    )
    button.button(
        "Show all rows",
        key="slice_reset",
        on_click=lambda: st.session_state.update(slice_choice=ALL_ROWS),
    )


def stand_in_notes(ds: Dataset) -> None:
    """Say when ``ds`` stands in for the table the sidebar chose: the sample while a source
    waits for its table, or the source's table as it last could be used."""
    chosen = sources.REGISTRY.get(st.session_state.get("source"))
    if chosen is not None and chosen.waits and not chosen.owns(ds):  # never another silently
        st.info(
            f"Showing the sample dataset **{md(ds.name)}** until your table is ready: the "
            "sidebar says what it needs.",
            icon=":material/info:",
        )
    if st.session_state.get("_showing_last_good"):
        st.warning(
            f"The sidebar's settings cannot be used yet (it says why); showing {md(ds.name)} "
            "as it last could be used."
        )


def last_good_note(ds: Dataset, previous: Dataset) -> None:
    """Say that the unusable ``ds`` is shown as ``previous``, the last usable table."""
    if previous.name == ds.name:  # the same file under settings that cannot be used
        st.warning(
            f"{md(ds.name)} cannot be used with the sidebar's current settings (it says "
            f"what to fix). The pages show it as it last could be used: "
            f"{settings_text(previous)}."
        )
    else:
        st.warning(
            f"{md(ds.name)} cannot be used yet (the sidebar says what to fix); showing "
            f"{md(previous.name)} meanwhile."
        )


def settings_text(ds: Dataset) -> str:
    """The column settings a dataset was read with, in a few words of markdown ("positive
    relevance > 0; user/query query_id; model ranker"), the names escaped."""
    m = ds.mapping
    parts = [f"positive {md(ds.positive_name)}"]
    if m.group:
        parts.append(f"user/query {md(m.group)}")
    if m.weight:
        parts.append(f"weight {md(m.weight)}")
    models = ", ".join(md(x) for x in ds.models[:4]) + (", ..." if len(ds.models) > 4 else "")
    parts.append(f"model{'s' * (len(ds.models) != 1)} {models}")
    return "; ".join(parts)

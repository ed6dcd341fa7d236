"""The table behind every page: its columns, their roles, and the first rows."""

from __future__ import annotations

import streamlit as st

from ui import shell
from ui.loading import column_summary
from ui.safe import md

ds, _ = shell.page_context(require_usable=False)

st.header("Data")
n_rows, n_cols = ds.frame.shape
st.markdown(f"**{md(ds.name)}**: {n_rows:,} rows, {n_cols} columns.")
if ds.description:
    st.caption(ds.description)
st.subheader("Columns")
st.dataframe(
    column_summary(ds.frame, ds.mapping),
    hide_index=True,
    width="stretch",
    column_config={
        "role": st.column_config.TextColumn(help="What the column mapping uses it for."),
        "missing": st.column_config.NumberColumn(help="Empty cells."),
    },
)
st.subheader("First rows")
st.caption("Row numbers count from 1, as in the messages about bad rows.")
preview = ds.frame.head(200).copy()
preview.index = preview.index + 1
st.dataframe(preview, width="stretch")

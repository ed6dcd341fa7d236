"""Compare row by row: where two models disagree at their thresholds (and the rows behind), and
the slices where each model is weak, from which every page can be scoped to one."""

from __future__ import annotations

from collections.abc import Callable

import streamlit as st

from metrics.flips import flip_table
from ui.analyses import compare_rows as words
from ui.analyses.compare_setup import CompareSettings
from ui.compute import data, thresholds
from ui.views.show import csv_download, rows_behind

__all__ = ["disagreements", "slices"]


def disagreements(s: CompareSettings) -> None:
    """Two models' calls against each other, how often they flip, and the rows behind."""
    ds, models = s.ds, s.models
    a_col, b_col = st.columns(2)
    model_a = a_col.selectbox("Model A", models, key="compare_flip_a")
    model_b = b_col.selectbox("Model B", [m for m in models if m != model_a], key="compare_flip_b")
    t_a, t_b = thresholds.current(ds, model_a), thresholds.current(ds, model_b)
    y, s_a, s_b = ds.labels_for(model_a), ds.score(model_a), ds.score(model_b)
    flips = flip_table(y, s_a, t_a, s_b, t_b, sample_weight=ds.weight)
    st.caption(
        words.flips_caption(
            (model_a, thresholds.label(ds, model_a, t_a)),
            (model_b, thresholds.label(ds, model_b, t_b)),
            ds.positive_name, ds.negative_name,
        )
    )  # fmt: skip
    table_col, rates_col = st.columns([3, 2])
    table_col.dataframe(words.flip_cells(flips, model_a, model_b), width="stretch")
    rates_col.markdown(words.flip_rates(flips, model_a, model_b))
    choices = words.flip_choices(y, (model_a, s_a, t_a), (model_b, s_b, t_b))
    pick = st.selectbox("Rows behind", list(choices), key="compare_flip_rows")
    rows_behind(ds.frame, ds.positions(choices[pick]), pick, key="compare_flip_rows")


def slices(s: CompareSettings, choose_slice: Callable[[object, object], None]) -> None:
    """Every slice with each model's AUC and AP, worst first; picking a row, or a slice in the
    control under the table, scopes every page to it (``choose_slice``)."""
    ds = s.ds
    size_col, cross_col, note_col = st.columns([1, 2, 3])
    min_size = int(
        size_col.number_input("Smallest slice", 1, value=30, step=10, key="compare_min_slice")
    )
    pairs = words.column_pairs(ds.mapping.slices)
    cross = cross_col.selectbox(
        "Cross two columns", [None, *pairs], format_func=words.cross_label, key="compare_cross",
        disabled=not pairs, help=words.CROSS_HELP,
    )  # fmt: skip
    note_col.caption(words.slices_caption(s.group_column, s.clustered))
    table = data.slice_table(ds.key, s.models, min_size, ds, cross, s.clustered)
    shown = table.drop(columns=["column", "value"])
    picked = st.dataframe(
        shown,
        hide_index=True,
        width="stretch",
        on_select="rerun",
        selection_mode="single-row",
        key="compare_slices",
        column_config={
            c: st.column_config.NumberColumn(format="%.4f")
            for c in shown.columns
            if c not in ("slice", "rows", "positives")
        },
    )
    rows_picked = picked.selection.rows if picked else []
    if rows_picked and rows_picked[0] > 0:  # row 0 is "all rows"
        chosen = table.iloc[rows_picked[0]]
        choose_slice(chosen["column"], chosen["value"])
        del st.session_state["compare_slices"]  # a later reset must not pick it again
        st.rerun()
    # The same, as a visible control: a row's checkbox is easy to miss.
    scope = st.container(horizontal=True, vertical_alignment="bottom")
    labels = table["slice"].tolist()[1:]
    target = scope.selectbox(
        "Show every page on one slice", range(1, len(table)), index=None,
        format_func=lambda i: labels[i - 1], placeholder="pick a slice",
        key="compare_scope_pick", disabled=len(table) < 2,
    )  # fmt: skip
    if scope.button(
        "Scope every page", key="compare_scope_button", icon=":material/filter_alt:",
        disabled=target is None,
    ):  # fmt: skip
        chosen = table.iloc[target]
        choose_slice(chosen["column"], chosen["value"])
        st.rerun()
    csv_download("Download the slices (CSV)", table, "slices.csv", key="compare_slices_download")

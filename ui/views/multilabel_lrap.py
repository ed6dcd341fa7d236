"""The Multi-label page's last section: label ranking AP against samples-averaged AP, and one
row taken apart."""

from __future__ import annotations

import streamlit as st

from ui.analyses import multilabel_averages as ma
from ui.figures import multilabel_charts as mc
from ui.views.explain import explain
from ui.views.multilabel_data import MultilabelPage, show_notes, table


def lrap_against_samples_ap(page: MultilabelPage) -> None:
    """LRAP and samples AP (all rows, labelled rows, the trapezoid rule), why they differ, and
    the row the user picks, unfolded."""
    p, sm = page.problem, page.sm
    st.subheader("Label ranking AP vs samples-averaged AP")
    cols = st.columns(4)
    cols[0].metric("LRAP", mc.fmt(sm.lrap), help="metrics.label_ranking_average_precision_score")
    cols[1].metric(
        "samples AP",
        mc.fmt(sm.ap["samples"]),
        help="metrics.average_precision_score(average='samples')",
    )
    cols[2].metric(
        "LRAP, rows with a label",
        mc.fmt(sm.lrap_labelled),
        help=f"LRAP over the {sm.n_rows_with_label:,} rows with at least one relevant label.",
    )
    cols[3].metric(
        "samples AP, trapezoid",
        mc.fmt(sm.samples_ap_trapezoid),
        help="The same per-row AP with the PR curve read by the trapezoid rule (scikit-learn "
        "before 0.19).",
    )
    show_notes(sm, ("AP", "samples"), ("LRAP", "all"))
    st.markdown(ma.lrap_text(sm))
    st.caption(ma.lrap_caption(sm))
    picked = st.number_input(
        "Row to take apart (from 1)", 1, max(p.n_rows, 1), 1, 1, key="multilabel_row"
    )
    row = min(int(picked) - 1, p.n_rows - 1)
    breakdown, _ = mc.row_breakdown(p, row)
    lines, note = mc.row_explain_lines(p, row)
    explain(f"LRAP and AP of row {row + 1}", lines, note, expanded=p.n_rows == 1)
    table(breakdown, "multilabel_row_table", {"precision": "%.4f"})

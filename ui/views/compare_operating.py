"""Compare at the operating point: each model at the threshold a constraint picks (recall,
precision, FPR or the top share of rows), its rates with their intervals."""

from __future__ import annotations

import streamlit as st

from ui.analyses import compare_operating as words
from ui.analyses.compare_setup import CompareSettings
from ui.compute import data, uncertainty
from ui.views.show import csv_download

__all__ = ["operating_point"]


def operating_point(s: CompareSettings) -> None:
    """The constraint and its target, each model's operating point, and the table as CSV."""
    kind_col, target_col = st.columns([2, 1])
    constraint = kind_col.segmented_control(
        "Constraint", words.CONSTRAINTS, default="recall ≥", key="compare_op_kind"
    ) or "recall ≥"  # fmt: skip
    top, value = words.target_input(constraint)
    target = target_col.number_input(
        "Target", min_value=0.0, max_value=top, value=value, key=f"compare_op_target_{constraint}"
    )
    points = data.operating_points(s.ds.key, s.models, constraint, float(target), s.ds)
    table = points
    op_resamples = min(s.n_resamples, uncertainty.OPERATING_RESAMPLES)
    if s.wanted and len(points):
        spread = uncertainty.operating_intervals(
            s.ds.key, s.models, tuple(points["threshold"].astype(float)), op_resamples, s.ds,
            s.clustered,
        )  # fmt: skip
        if len(spread):
            table = words.with_intervals(points, spread)
    st.dataframe(
        table,
        hide_index=True,
        width="stretch",
        column_config={
            c: st.column_config.NumberColumn(format="%.4f")
            for c in ("threshold", "precision", "recall", "FPR")
            if c in table and table[c].dtype.kind == "f"
        },
    )
    st.caption(words.operating_caption(s, op_resamples))
    csv_download("Download the operating points (CSV)", table, "operating_points.csv",
                 key="compare_op_download")  # fmt: skip

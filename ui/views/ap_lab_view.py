"""The AP lab's "11-point" section: the step sum on a grid of 11 scores beside VOC 2007's 11
recall levels."""

from __future__ import annotations

import streamlit as st

from ui.figures import ap_charts
from ui.figures.ap_charts import exact_text
from ui.teaching import ap_lab_notes as notes

__all__ = ["eleven_points"]

ELEVEN_ROWS = 12 * 35 + 20  # a table height that shows 11 rows and the header
GRID_WIDTHS = {"score ≥": 50, "TP": 42, "FP": 42, "contribution": 88}
FOUR_DIGITS = ("precision", "recall", "Δ recall", "contribution")


def _metric(label: str, value: float, step_value: float) -> None:
    st.metric(
        label, exact_text(value), delta=ap_charts.diff_text(value, step_value),
        delta_color="off", delta_arrow="off",
    )  # fmt: skip


def eleven_points(lab: ap_charts.APLab) -> None:
    """The step sum at 11 fixed score thresholds beside VOC 2007's 11 recall levels, each with
    its table, and why they differ."""
    grid_col, voc_col = st.columns(2)
    with grid_col:
        _metric(
            "Step sum at scores 1, 0.9, ..., 0 (11 fixed score thresholds)",
            lab.grid.value, lab.values["step"],
        )  # fmt: skip
        grid_table = ap_charts.grid_frame(lab.grid)
        st.dataframe(
            grid_table, hide_index=True, key="aplab_grid", height=ELEVEN_ROWS,
            width="stretch",  # half a page at 1280 px: every column, "contribution" too, in view
            column_config={  # pixel widths: seven columns in half of a 1280 px page
                c: st.column_config.NumberColumn(
                    format="%.4f" if c in FOUR_DIGITS else None, width=GRID_WIDTHS.get(c, 58)
                )
                for c in grid_table.columns
            },
        )  # fmt: skip
    with voc_col:
        _metric(
            "VOC 2007: best precision at recall ≥ 0, 0.1, ..., 1",
            lab.values["voc11"], lab.values["step"],
        )  # fmt: skip
        st.dataframe(
            ap_charts.level_frame(lab.breakdowns["voc11"]), hide_index=True, key="aplab_levels",
            height=ELEVEN_ROWS,
            width="stretch",  # half a page at 1280 px: every column, "contribution" too, in view
            column_config={
                c: st.column_config.NumberColumn(format="%.4f", width="small")
                for c in ("best precision there", "weight", "contribution")
            },
        )  # fmt: skip
    st.markdown(notes.ELEVEN_POINTS)
    warning = notes.outside_unit(*lab.score_range)
    if warning:
        st.warning(warning)

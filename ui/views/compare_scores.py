"""Compare's scores: each model's score distribution by class, and the calibration of those
that are probabilities."""

from __future__ import annotations

import streamlit as st

from ui.analyses import compare_rows as words
from ui.analyses.compare_setup import CompareSettings
from ui.compute import compare_compute, thresholds
from ui.figures import charts
from ui.views.show import chart

__all__ = ["calibration", "distributions"]


def distributions(s: CompareSettings) -> None:
    """Each model's histogram of scores by class, three to a row, its threshold dashed."""
    ds, models = s.ds, s.models
    per_row = min(len(models), 3)
    for start in range(0, len(models), per_row):
        for col, m in zip(st.columns(per_row), models[start : start + per_row], strict=False):
            with col:
                chart(
                    charts.class_histogram_figure(
                        m,
                        *compare_compute.class_histogram(ds.key, m, 40, ds),
                        positive_name=ds.positive_name,
                        negative_name=ds.negative_name,
                        threshold=thresholds.current(ds, m),
                    ),
                    key=f"compare_histogram_{m}",
                    name=f"score-histogram-{m}",
                )
    st.caption("The dashed line is each model's threshold.")


def calibration(s: CompareSettings) -> None:
    """The reliability diagram of every model, its bins and their edges beside it."""
    chart_col, text_col = st.columns([3, 2])
    with text_col:
        bins = st.slider("Bins", 5, 30, 10, key="compare_bins")
        strategy = st.radio(
            "Bin edges", ["uniform", "quantile"], horizontal=True, key="compare_bin_strategy",
            help="Uniform: equal-width bins of predicted probability. Quantile: bins with equal "
            "numbers of rows, which keeps sparse regions from showing noise.",
        )  # fmt: skip
        st.caption(words.CALIBRATION_CAPTION)
    scores = {m: s.ds.score(m) for m in s.models}
    curves = words.calibration_curves(s.y, scores, bins, strategy, s.ds.weight)
    chart(
        charts.reliability_figure(curves),
        key="compare_reliability",
        name="reliability-diagram",
        where=chart_col,
    )

"""Compare's bands: the ROC and precision-recall curves with their bands (on the projector's
first screen, or in their section), the rates against the threshold with theirs, and how much
the threshold a rule picks moves over the resamples."""

from __future__ import annotations

import numpy as np
import streamlit as st

import metrics
from ui.analyses import compare_operating as words
from ui.analyses.compare_setup import CompareSettings
from ui.compute import thresholds, uncertainty
from ui.figures import band_charts
from ui.views.show import chart

__all__ = ["PRESENT_HEIGHT", "band_kind", "curve_bands", "first_screen"]

PRESENT_HEIGHT = 300  # each chart's height on the projector's first screen


def band_kind(where) -> str:
    """The radio that picks pointwise or simultaneous bands, drawn in ``where``."""
    return where.radio(
        "Bands", list(uncertainty.BAND_KINDS), format_func=uncertainty.BAND_KINDS.get,
        key="compare_band_kind", horizontal=True, help=uncertainty.BAND_HELP,
    )  # fmt: skip


def _sized(fig, height: int | None):
    if height is not None:
        fig.update_layout(height=height)
    return fig


def _with_bands(s: CompareSettings, fb: metrics.FastBootstrap, curve: str, kind: str) -> dict:
    """Per model: (the curve on all rows, band low, band high)."""
    return uncertainty.curve_bands(fb, curve, s.y, s.ds.weight, kind, s.models)


def _roc_chart(s: CompareSettings, fb, kind: str, height: int | None = None) -> None:
    fig = band_charts.roc_band_figure(
        fb.roc_grid, _with_bands(s, fb, "roc", kind), s.max_fpr or None, words.band_name(kind)
    )
    chart(_sized(fig, height), key="compare_roc_band", name="roc-bands")


def _pr_chart(s: CompareSettings, fb, kind: str, height: int | None = None) -> None:
    base_rate = float(np.average(s.y, weights=s.ds.weight))
    fig = band_charts.pr_band_figure(
        fb.pr_grid, _with_bands(s, fb, "pr", kind), base_rate, words.band_name(kind)
    )
    chart(_sized(fig, height), key="compare_pr_band", name="pr-bands")


def first_screen(s: CompareSettings, fb: metrics.FastBootstrap, where) -> str:
    """On the projector, the ROC and PR curves with their bands side by side under the table,
    the kind of band picked in ``where`` (the settings popover); returns that kind."""
    kind = band_kind(where)
    roc_col, pr_col = st.columns(2)
    with roc_col:
        _roc_chart(s, fb, kind, PRESENT_HEIGHT)
    with pr_col:
        _pr_chart(s, fb, kind, PRESENT_HEIGHT)
    return kind


def curve_bands(s: CompareSettings, fb: metrics.FastBootstrap, kind: str) -> None:
    """'How sure are the curves?': ROC and PR with their bands (unless the first screen shows
    them), the rates against the threshold, and the picked thresholds' stability. Off the
    projector the band's kind is picked here (``kind`` is what the first screen picked)."""
    if not s.presenting:  # (else in the settings popover)
        kind = band_kind(st)
    name = words.band_name(kind)
    st.caption(uncertainty.band_words(kind) + ".")
    if s.presenting:  # ROC and PR are on the first screen
        rate_tab, stable_tab = st.tabs(["Rates vs threshold", "Threshold stability"])
    else:
        roc_tab, pr_tab, rate_tab, stable_tab = st.tabs(
            ["ROC", "Precision-recall", "Rates vs threshold", "Threshold stability"]
        )
        with roc_tab:
            _roc_chart(s, fb, kind)
            st.caption(words.roc_band_caption(s, name))
        with pr_tab:
            _pr_chart(s, fb, kind)
            st.caption(words.pr_band_caption(name))
    with rate_tab:
        band_model = st.selectbox("Model", s.models, key="compare_band_model")
        grid, rate_curves = uncertainty.rate_bands(fb, s.models.index(band_model), kind)
        chart(
            band_charts.threshold_band_figure(
                grid, rate_curves, thresholds.current(s.ds, band_model), name
            ),
            key="compare_rate_band",
            name="rates-vs-threshold-bands",
        )
        st.caption(words.rate_caption(len(grid), name))
    with stable_tab:
        _stability(s, fb)


def _stability(s: CompareSettings, fb: metrics.FastBootstrap) -> None:
    """The threshold a rule picks on each resample against the one on all rows."""
    rule = st.radio("Rule", ["max F1", "Youden"], horizontal=True, key="compare_rule",
                    help="max F1: the threshold with the highest F1. Youden: the highest "
                    "TPR − FPR.")  # fmt: skip
    picked = {m: fb.chosen_thresholds[rule][:, k] for k, m in enumerate(s.models)}
    on_all = {m: float(fb.original.chosen[rule][0, k]) for k, m in enumerate(s.models)}
    chart(
        band_charts.threshold_stability_figure(picked, on_all, rule),
        key="compare_stability",
        name="threshold-stability",
    )
    st.dataframe(words.stability_table(picked, on_all), hide_index=True, width="stretch")
    st.caption(words.stability_caption(rule, s.curve_resamples))

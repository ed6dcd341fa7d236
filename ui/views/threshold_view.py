"""The Threshold page's sections: the flagged count with the prevalence control, the matrix and
curves with the class strip, the presets and the rows behind a cell."""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass

import plotly.graph_objects as go
import streamlit as st
from streamlit.delta_generator import DeltaGenerator as Column

from metrics import Confusion, ThresholdCounts
from ui.analyses import threshold_presets as choices
from ui.compute import data, thresholds
from ui.tables.dataset import Dataset
from ui.views import show, threshold_drag
from ui.views.show import chart
from ui.words import threshold_text as words
from ui.words.guarantee_text import guarantee_table, guarantee_words
from ui.words.safe import md

__all__ = ["Setting", "charts", "flagged", "presets", "rows_behind"]

CHART_HEIGHT = 262  # presenting: the charts' height in the row left under the controls at 720 px


@dataclass(frozen=True)
class Setting:
    """What the Threshold page's sections share: the data, the model, the slider's range, whether
    the counts are weights, the prevalence chosen (None: the data's) and the data's own, and
    whether the page is on a projector."""

    ds: Dataset
    model: str
    low: float
    high: float
    step: float
    weighted: bool
    prevalence: float | None
    data_prevalence: float
    presenting: bool


def flagged(s: Setting, c: Confusion, shown: str, n_total: float, can_reweight: bool) -> None:
    """The sentence of what the threshold ``shown`` flags with the prevalence control beside
    it; off a projector, the reweighting's caption under them."""
    prevalence, data_prevalence = s.prevalence, s.data_prevalence
    # The box and its name share the sentence's row (a label above it made the row taller,
    # and a box without one read "0.373 (the data's)" with nothing to say what it sets).
    line_col, name_col, prevalence_col = st.columns(
        [3.4, 1, 1.6] if s.presenting else [3, 0.9, 1.7], vertical_alignment="center"
    )
    name_col.markdown("Prevalence", help=words.PREVALENCE_HELP, width="stretch")
    prevalence_col.number_input(
        "Prevalence", min_value=0.001, max_value=0.999, value=None, step=0.01, format="%.3f",
        key="threshold_prevalence", placeholder=f"{data_prevalence:.3f} (the data's)",
        disabled=not can_reweight, help=words.PREVALENCE_HELP, label_visibility="collapsed",
    )  # fmt: skip
    line_col.markdown(
        words.flagged_line(
            shown, s.ds.positive_name, c.tp + c.fp, n_total, weighted=s.weighted,
            prevalence=prevalence, data_prevalence=data_prevalence, presenting=s.presenting,
        )
    )  # fmt: skip
    if prevalence is not None and not s.presenting:
        st.caption(
            words.reweight_caption(
                float(prevalence), data_prevalence, s.ds.positive_name, s.ds.negative_name
            )
        )


def _strip(
    s: Setting, rows_counts: ThresholdCounts, threshold: float, whole: bool, font: float
) -> None:
    """Each class's scores with the threshold as a line to drag on the chart itself; the
    matrix and both curve points follow it (ui.views.threshold_drag)."""
    threshold_drag.class_strip(
        rows_counts, model=s.model, low=s.low, high=s.high, step=s.step, threshold=threshold,
        positive_name=s.ds.positive_name, negative_name=s.ds.negative_name,
        whole=whole, height=96 if s.presenting else 100, font=font,
    )  # fmt: skip


def charts(
    s: Setting, counts: ThresholdCounts, rows_counts: ThresholdCounts, threshold: float,
    beta: float, strip: tuple[bool, float], normalize_col: Column | None,
) -> tuple[dict[str, go.Figure], Column | None]:  # fmt: skip
    """The confusion matrix, ROC and PR at the threshold, and the class strip of the rows as
    they are (``rows_counts``; ``strip``: whether they are whole rows, the font size): above
    the charts on a projector, where the rates chart joins their row, else below them. Returns
    the figures and the rates' column (None: the page draws the rates chart further down)."""
    # The strip comes above the charts, under the slider it mirrors: at 1280x720 the slider,
    # the strip, the matrix and the operating points are on one screen in both modes.
    _strip(s, rows_counts, threshold, *strip)
    if s.presenting:  # the matrix a little wider: its class names at 18 px under the cells
        matrix_col, roc_col, pr_col, rates_col = st.columns([1.25, 1, 1, 1])
    else:
        matrix_col, roc_col, pr_col = st.columns([4, 3, 3])
        rates_col = None
    with normalize_col or matrix_col:
        normalize = st.segmented_control(
            "Confusion matrix", options=["counts", "by actual", "by predicted"], default="counts",
            key="threshold_normalize", label_visibility="visible" if s.presenting else "collapsed",
        )  # fmt: skip
    ds, model, prevalence = s.ds, s.model, s.prevalence
    areas = data.areas(ds.key, model, ds)
    if prevalence is not None:  # AUC does not move with the balance; AP does
        areas = {"auc": areas["auc"], "ap": counts.average_precision()}
    figures = show.threshold_figures(
        ds.key if prevalence is None else (ds.key, "prevalence", float(prevalence)), model,
        threshold, normalize, beta, ds.positive_name, ds.negative_name, s.presenting, counts,
        areas,
    )  # fmt: skip
    if s.presenting:
        figures = choices.presented(figures, CHART_HEIGHT)
    with matrix_col:
        chart(figures["matrix"], key="threshold_matrix", name=f"confusion-matrix-{model}")
    with roc_col:
        chart(figures["roc"], key="threshold_roc", name=f"roc-{model}")
    with pr_col:
        chart(figures["pr"], key="threshold_pr", name=f"precision-recall-{model}")
    if rates_col is not None:
        with rates_col:
            chart(figures["rates"], key="threshold_rates", name=f"rates-vs-threshold-{model}")
    return figures, rates_col


def presets(s: Setting, counts: ThresholdCounts, amount: Callable[[float], str]) -> float:
    """The presets' row: pick one, set its beta, target and costs, apply its threshold; under
    it what it chose (or, with a guarantee, the bound and its cost). Returns beta."""
    with st.container(border=True):
        cols = st.columns([2.4, 1, 1, 1, 1, 1], vertical_alignment="bottom")
        preset = cols[0].selectbox(
            "Jump to a preset", list(choices.PRESETS), key="threshold_preset"
        )
        beta = cols[1].number_input(
            "F-beta: beta", min_value=0.0, max_value=10.0, value=1.0, step=0.25,
            key="threshold_beta",
            help="beta > 1 weighs recall more than precision; beta = 1 is F1.",
        )  # fmt: skip
        target = cols[2].number_input(
            "Target", 0.0, 1.0, 0.9, 0.05, key="threshold_target",
            help="For the ≥ target presets; "
            "the guaranteed ones hold the metric's 95% confidence bound to it, not its value here.",
        )  # fmt: skip
        cost_fp = cols[3].number_input("Cost of a FP", 0.0, value=1.0, key="threshold_cost_fp")
        cost_fn = cols[4].number_input("Cost of a FN", 0.0, value=5.0, key="threshold_cost_fn")
        choice, guarantee, why_not = choices.choose(
            counts, preset,
            lambda metric, goal: thresholds.guaranteed(s.ds.key, s.model, metric, goal, s.ds),
            beta=beta, target=target, cost_fp=cost_fp, cost_fn=cost_fn,
        )  # fmt: skip
        chosen = choice.threshold if choice.threshold is not None else 0.0
        cols[5].button(
            "Apply", key="threshold_apply", disabled=choice.threshold is None,
            on_click=thresholds.set_clamped, args=(s.model, s.low, s.high, chosen), width="stretch",
        )  # fmt: skip
        if choices.PRESETS[preset] not in choices.GUARANTEED:
            st.caption(words.preset_caption(preset, choice, beta, target))
        elif guarantee is None:
            st.caption(md(why_not))
        else:
            label = functools.partial(thresholds.label, s.ds, s.model)
            st.markdown(
                guarantee_words(guarantee, label, amount, "weight" if s.weighted else "rows")
            )
            st.dataframe(guarantee_table(guarantee, label, amount), hide_index=True)
    return beta


def rows_behind(ds: Dataset, model: str, threshold: float) -> None:
    """The rows of a cell of the matrix, or of a score range, listed with their download."""
    cell_col, range_col = st.columns([1, 2])
    score = ds.score(model)
    cells = choices.cells(score, ds.labels_for(model), threshold)
    cell = cell_col.radio("Which rows", list(cells), key="threshold_rows_cell")
    mask = cells[cell]
    if mask is None:
        lo_s, hi_s = float(score.min()), float(score.max())
        chosen = range_col.slider(
            "Scores from / to", lo_s, hi_s if hi_s > lo_s else lo_s + 1, (lo_s, hi_s),
            key="threshold_rows_range",
        )  # fmt: skip
        mask = (score >= chosen[0]) & (score <= chosen[1])
        cell = f"with scores from {chosen[0]:.4g} to {chosen[1]:.4g}"
    show.rows_behind(ds.frame, ds.positions(mask), cell.split(":")[0], key="threshold_rows")

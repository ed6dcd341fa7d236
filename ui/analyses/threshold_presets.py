"""The Threshold page's choices (no Streamlit): the threshold a top-k or top-% control gives,
what a preset chooses (with or without a guarantee), the rows behind each cell of the matrix,
and the figures resized for a projector."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import replace

import numpy as np
import plotly.graph_objects as go

from metrics import ThresholdCounts
from metrics.guarantees import GuaranteedThreshold
from metrics.thresholds import ThresholdChoice, choose_threshold

__all__ = [
    "BETA_RANGE",
    "GUARANTEED",
    "PRESETS",
    "PREVALENCE_RANGE",
    "beta_problem",
    "cells",
    "choose",
    "number_problem",
    "presented",
    "prevalence_problem",
    "top_threshold",
]

PRESETS = {
    "Max F-beta": "max_f_beta",
    "Youden's J": "youden",
    "Precision ≥ target": "precision_at_least",
    "Recall ≥ target": "recall_at_least",
    "Recall ≥ target, guaranteed": "recall",
    "Precision ≥ target, guaranteed": "precision",
    "Least cost": "min_cost",
}
# The presets "with a guarantee" hold the metric's 95% bound, not its value on these rows, to
# the target (metrics.threshold_with_guarantee); the plain one beside them is the same metric's.
GUARANTEED = {"recall": "recall_at_least", "precision": "precision_at_least"}

NO_ROW_WEIGHTS = (
    "A guarantee needs each row's weight (for the effective sample size), and "
    "this table's weights were summed by its engine: load the rows to use it."
)


# The prevalence control's own bounds: a share the reweighting can reach without dividing by
# (nearly) nothing. A plan, a link or a hostile client can send any value; outside these the
# page says so and shows the data's own balance.
PREVALENCE_RANGE = (0.001, 0.999)


BETA_RANGE = (0.0, 10.0)  # the F-beta box's bounds


def prevalence_problem(value: object) -> str | None:
    """None when ``value`` is a prevalence the Threshold page can reweight to (or None: the
    data's own), else one sentence saying what is wrong and what to give instead."""
    if value is None:
        return None
    return number_problem(
        value, "The prevalence", PREVALENCE_RANGE,
        "a share of 0 or 1 (or nearly) leaves one class without weight; give a share in that "
        "range, or leave the box empty for the data's own",
    )  # fmt: skip


def beta_problem(value: object) -> str | None:
    """None when ``value`` is an F-beta's beta the Threshold page takes, else the sentence."""
    return number_problem(value, "F-beta's beta", BETA_RANGE, "1 weighs precision and recall alike")


def number_problem(value: object, what: str, bounds: tuple[float, float], hint: str) -> str | None:
    """None when ``value`` is a real number within ``bounds``, else one sentence naming
    ``what``, the bounds and ``hint`` (a text is never echoed: it could be markdown or HTML)."""
    low, high = bounds
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        kind = type(value).__name__
        return f"{what} is not a number (a {kind}): it goes from {low} to {high}; {hint}."
    try:
        number = float(value)
    except OverflowError:  # an int past a float's range
        number = math.inf if value > 0 else -math.inf
    if not low <= number <= high:  # NaN fails this too
        return f"{what} {number!r} is outside {low} to {high}: {hint}."
    return None


def top_threshold(counts: ThresholdCounts, wanted: float) -> float:
    """The highest threshold that flags at least ``wanted`` rows (or weight), ties included."""
    flagged_at = counts.tps + counts.fps
    i = min(int(np.searchsorted(flagged_at, wanted - 1e-9)), len(counts) - 1)
    return counts.thresholds[i]


def choose(
    counts: ThresholdCounts,
    preset: str,
    guaranteed: Callable[[str, float], GuaranteedThreshold | None],
    *,
    beta: float,
    target: float,
    cost_fp: float,
    cost_fn: float,
) -> tuple[ThresholdChoice, GuaranteedThreshold | None, str]:
    """(the choice, its guarantee, why there is none) for ``preset``. ``guaranteed(metric,
    target)`` gives the guaranteed threshold (None when the rows it needs are not held)."""
    metric = PRESETS[preset]
    if metric not in GUARANTEED:
        choice = choose_threshold(
            counts, metric, beta=beta, target=target, cost_fp=cost_fp, cost_fn=cost_fn
        )
        return choice, None, ""
    choice = choose_threshold(counts, GUARANTEED[metric], target=target)
    guarantee, why_not = None, ""
    if not 0 < target < 1:
        why_not = f"A guarantee needs a target strictly between 0 and 1, not {target:g}."
    else:
        try:
            guarantee = guaranteed(metric, float(target))
        except ValueError as error:  # the library's one sentence (say, a missing group)
            why_not = str(error)
        if guarantee is None and not why_not:
            why_not = NO_ROW_WEIGHTS
    choice = replace(choice, threshold=guarantee.threshold if guarantee else None)
    return choice, guarantee, why_not


def cells(score: np.ndarray, y: np.ndarray, threshold: float) -> dict[str, np.ndarray | None]:
    """Each cell of the confusion matrix at ``threshold`` as a mask of rows, then "a score
    range" (None: the page asks for the range)."""
    predicted = score >= threshold
    return {
        "TP: predicted and actual positive": predicted & y,
        "FP: predicted positive, actually negative": predicted & ~y,
        "FN: predicted negative, actually positive": ~predicted & y,
        "TN: predicted and actual negative": ~predicted & ~y,
        "a score range": None,
    }


def presented(figures: dict[str, go.Figure], height: int) -> dict[str, go.Figure]:
    """Copies of the four figures sized for one row on a projector (the cached figures are
    shared by every presenting session)."""
    figures = {name: go.Figure(fig).update_layout(height=height) for name, fig in figures.items()}
    figures["rates"].update_layout(title=dict(text="Rates vs threshold", x=0))
    figures["rates"].update_xaxes(title_text="threshold")  # the long title runs out of a column
    figures["roc"].update_yaxes(title_text="TPR (recall)")  # the long one meets the title
    # A square ROC in a column narrower than tall: shrink the plot, never stretch the y range
    # past [0, 1] (plotly's default for an axis held to the other's scale).
    figures["roc"].update_yaxes(constrain="domain")
    figures["matrix"].update_layout(margin_t=34)  # the toolbar (on hover) above the cells
    return figures

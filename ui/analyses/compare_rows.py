"""Compare row by row: where two models disagree at their thresholds, the slices where each
model is weak, and each model's calibration curve."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

from metrics.calibration import calibration_curve
from metrics.flips import FlipTable
from ui.words.safe import md

__all__ = [
    "CALIBRATION_CAPTION",
    "CROSS_HELP",
    "calibration_curves",
    "column_pairs",
    "cross_label",
    "flip_cells",
    "flip_choices",
    "flip_rates",
    "flips_caption",
    "slices_caption",
]

CROSS_HELP = (
    "Adds every pair of values of the two columns as a slice (map two slice columns "
    "on the Data page to cross them)."
)
CALIBRATION_CAPTION = (
    "Points on the diagonal are calibrated: of the rows predicted about 0.3, about 30% "
    "are positive. Above the diagonal the model under-predicts (more positives than it "
    "says), below it over-predicts. Marker size grows with the rows in the bin."
)


def flips_caption(a: tuple[str, str], b: tuple[str, str], positive: str, negative: str) -> str:
    """The two models' thresholds (``a`` and ``b``: a model and its threshold as text), and
    what a cell of the table counts."""
    (model_a, t_a), (model_b, t_b) = a, b
    return (
        f"Each model at its own threshold ({md(model_a)} ≥ {t_a}, "
        f"{md(model_b)} ≥ {t_b}). Cells: rows (of them "
        f"{md(positive)} / {md(negative)})."
    )


def flip_cells(flips: FlipTable, model_a: str, model_b: str) -> pd.DataFrame:
    """The two models' calls against each other: rows in each cell, and of them positives /
    negatives."""
    return pd.DataFrame(
        [
            [
                f"{flips.agreement[a, b]:,.0f} ({flips.counts[1, a, b]:,.0f} / "
                f"{flips.counts[0, a, b]:,.0f})"
                for b in (1, 0)
            ]
            for a in (1, 0)
        ],
        index=[f"{model_a} predicts positive", f"{model_a} predicts negative"],
        columns=[f"{model_b} positive", f"{model_b} negative"],
    )


def flip_rates(flips: FlipTable, model_a: str, model_b: str) -> str:
    """How often the calls flip, each way, and the errors ``model_b`` fixes and makes."""
    return (
        f"- flip rate (predictions differ): **{flips.flip_rate:.2%}**\n"
        f"- positive → negative: {flips.pos_to_neg_flip_rate:.2%}; negative → positive: "
        f"{flips.neg_to_pos_flip_rate:.2%}\n"
        f"- {md(model_b)} fixes {flips.b_fixes:,.0f} of {md(model_a)}'s errors and makes "
        f"{flips.b_breaks:,.0f} new ones"
    )


def flip_choices(
    y: np.ndarray,
    a: tuple[str, np.ndarray, float],
    b: tuple[str, np.ndarray, float],
) -> dict[str, np.ndarray]:
    """The rows to look at, by name: every disagreement, the errors of model ``a`` that ``b``
    fixes, and what ``b`` breaks (``a`` and ``b`` are (name, scores, threshold))."""
    (model_a, s_a, t_a), (model_b, s_b, t_b) = a, b
    return {
        "every row they disagree on": (s_a >= t_a) != (s_b >= t_b),
        f"{model_b} fixes {model_a}'s error": ((s_a >= t_a) != y) & ((s_b >= t_b) == y),
        f"{model_b} breaks what {model_a} got right": ((s_a >= t_a) == y) & ((s_b >= t_b) != y),
    }


def column_pairs(columns: tuple[str, ...]) -> list[tuple[str, str]]:
    """Every pair of slice columns, in the order they are mapped."""
    return [(a, b) for i, a in enumerate(columns) for b in columns[i + 1 :]]


def cross_label(pair: tuple[str, str] | None) -> str:
    """How a choice of 'Cross two columns' reads."""
    return "no" if pair is None else f"{pair[0]} × {pair[1]}"


def slices_caption(group_column: str | None, clustered: bool) -> str:
    """Which slices the table lists, in which order, and with which intervals."""
    return (
        "Every category of the slice columns with at least that many rows, worst first (by the "
        "lowest AUC − AUC on all rows across the models); "
        + (
            f"AUC and AP with a cluster bootstrap interval (whole {md(group_column)} values "
            "resampled within the slice, 200 resamples)."
            if clustered
            else "AUC with DeLong's 95% interval, AP with a paired bootstrap interval "
            "(200 resamples)."
        )
        + " Scope every page to a slice with the control under the table (or a row's checkbox)."
    )


def calibration_curves(
    y: np.ndarray,
    scores: Mapping[str, np.ndarray],
    bins: int,
    strategy: str,
    weight: np.ndarray | None,
) -> dict:
    """Each model's calibration curve (:func:`metrics.calibration.calibration_curve`)."""
    return {
        m: calibration_curve(y, s, n_bins=bins, strategy=strategy, sample_weight=weight)
        for m, s in scores.items()
    }

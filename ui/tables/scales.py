"""What scale a model's scores are on, and the first threshold that means the same on it.

Pure numpy, no Streamlit (split from :mod:`ui.tables.roles`, which re-exports every name):

* :func:`infer_scale`: probability [0, 1], percent [0, 100], margin (unbounded, e.g. a logit),
  or rank (whole numbers: a rank or a count);
* :func:`default_threshold`: 0.5, 50, or for the unbounded scales the score that predicts as
  many rows positive as there are positives;
* :func:`soft_labels`: a label column read as shares in [0, 1].
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np
import pandas as pd

__all__ = [
    "SCALES",
    "Scale",
    "default_threshold",
    "default_threshold_rule",
    "infer_scale",
    "soft_labels",
]

SCALES = {
    "probability": "probability [0, 1]",
    "percent": "percent [0, 100]",
    "margin": "margin / logit (unbounded)",
    "rank": "whole numbers (rank or count)",
}
_RANK_NAME = re.compile(r"rank|position|(^|_)pos($|_)|count|(^|_)n_|num_|clicks$")


@dataclass(frozen=True)
class Scale:
    """The scale a model's scores are on, and why it was read that way."""

    kind: str
    reason: str

    @property
    def title(self) -> str:
        return SCALES[self.kind]


def _integral(values: np.ndarray) -> bool:
    return values.size > 0 and bool(np.all(values == np.round(values)))


def _number_range(values: np.ndarray) -> str:
    return f"{_fmt(values.min())} to {_fmt(values.max())}"


def _fmt(x: float) -> str:
    return f"{x:,.0f}" if float(x).is_integer() and abs(x) >= 1000 else f"{x:.4g}"


def infer_scale(values: np.ndarray, name: str = "") -> Scale:
    """Probability, percent, margin or rank, read from the finite scores (and the name)."""
    values = np.asarray(values, dtype=np.float64)
    values = values[np.isfinite(values)]
    if values.size == 0:
        return Scale("probability", "no finite scores: taken as probabilities")
    low, high = float(values.min()), float(values.max())
    span = _number_range(values)
    whole = _integral(values)
    if whole and low >= 0 and _RANK_NAME.search(name.lower()) and high > 1:
        return Scale("rank", f"whole numbers from {span}, named like a rank or count")
    if low >= 0 and high <= 1:
        return Scale("probability", f"every score is between 0 and 1 ({span}): probabilities")
    # Percentages of a probability reach well up the scale (positives score high); scores that
    # stay low (a BM25 of 0-30, a score just above 1) are something else.
    percent_named = bool(re.search(r"pct|percent|%", name.lower()))
    if low >= 0 and 1 < high <= 100 and (high >= 50 or percent_named):
        return Scale(
            "percent",
            f"scores from {span}, none above 100: read as percentages"
            + (" (whole percent)" if whole else ""),
        )
    if whole and low >= 0:
        return Scale("rank", f"whole numbers from {span}: read as ranks or counts")
    if low < 0 < high:
        return Scale("margin", f"scores of both signs ({span}): an unbounded margin or logit")
    if high <= 0:
        return Scale("margin", f"no positive score ({span}): a log-probability or margin")
    return Scale("margin", f"scores from {span}, beyond 100: an unbounded score")


def default_threshold_rule(kind: str) -> str:
    """The rule behind :func:`default_threshold`, in words."""
    if kind == "probability":
        return "0.5, the middle of the probability scale"
    if kind == "percent":
        return "50, the middle of the percent scale"
    return (
        "the score of the k-th highest row, k = the number of positives: it predicts about "
        "as many rows positive as there are"
    )


def default_threshold(
    kind: str,
    y_true: np.ndarray,
    scores: np.ndarray,
    sample_weight: np.ndarray | None = None,
) -> float:
    """The first threshold for a model on scale ``kind``.

    0.5 for probabilities and 50 for percent. For margins and ranks, the highest ``t`` such that
    the rows with score >= ``t`` weigh at least as much as the positives (with no weights: the
    k-th highest score, k = the number of positives), so the predicted share matches the
    prevalence. With no positives it is just above the highest score: nothing is predicted
    positive.
    """
    if kind == "probability":
        return 0.5
    if kind == "percent":
        return 50.0
    scores = np.asarray(scores, dtype=np.float64)
    y = np.asarray(y_true, dtype=bool)
    w = np.ones(scores.shape) if sample_weight is None else np.asarray(sample_weight, float)
    keep = np.isfinite(scores)
    scores, y, w = scores[keep], y[keep], w[keep]
    if scores.size == 0:
        return 0.0
    positive_weight = float(w[y].sum())
    order = np.argsort(-scores, kind="stable")
    s, cum = scores[order], np.cumsum(w[order])
    if positive_weight <= 0:
        return float(np.nextafter(s[0], np.inf))
    # Rows tied with the k-th come in with it: the threshold is a distinct score.
    i = int(np.searchsorted(cum, positive_weight * (1 - 1e-12), side="left"))
    return float(s[min(i, s.size - 1)])


def soft_labels(series: pd.Series) -> np.ndarray | None:
    """The label column as shares q in [0, 1] (annotators' votes, a judge's probability), or
    None when it is not one: numeric, no missing value, every value in [0, 1] and at least
    one strictly between (a 0/1 column is a hard label)."""
    numeric = pd.api.types.is_numeric_dtype(series) and not pd.api.types.is_bool_dtype(series)
    if not numeric or series.isna().any():
        return None
    q = series.to_numpy(dtype=np.float64)
    if not q.size or not np.isfinite(q).all() or q.min() < 0 or q.max() > 1:
        return None
    return q if ((q > 0) & (q < 1)).any() else None

"""The Calibration page's tables and lines (no Streamlit): each model's calibration numbers with
their intervals, its reliability lines before and after recalibration, the numbers behind the
ECE formula, and what recalibration changes and keeps."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Protocol

import numpy as np
import pandas as pd

import metrics
from ui.figures.calibration_charts import Reliability
from ui.words.calibration_text import interval

__all__ = [
    "band",
    "before_after_lines",
    "ece_numbers",
    "recalibration_row",
    "reliability_lines",
    "stats_frame",
]


class Binned(Protocol):
    """One model's reliability bins and calibration numbers
    (``ui.compute.decision_compute.CalibrationStats``)."""

    prob_true: np.ndarray
    prob_pred: np.ndarray
    size: np.ndarray
    band_low: np.ndarray
    band_high: np.ndarray
    sim_low: np.ndarray | None
    sim_high: np.ndarray | None
    stats: Mapping


def stats_frame(stats: Mapping[str, Binned]) -> pd.DataFrame:
    """One row per model: each calibration number with its interval in brackets."""
    return pd.DataFrame(
        [
            {"model": m, **{k: interval(v.estimate, v.low, v.high) for k, v in s.stats.items()}}
            for m, s in stats.items()
        ]
    )


def band(s: Binned, band_kind: str) -> tuple[np.ndarray, np.ndarray]:
    """The band the page shows: the bins' pointwise or simultaneous band."""
    if band_kind == "simultaneous" and s.sim_low is not None:
        return s.sim_low, s.sim_high
    return s.band_low, s.band_high


def reliability_lines(
    stats: Mapping[str, Binned], models: Sequence[str], band_kind: str
) -> list[Reliability]:
    """One reliability line per model, coloured by its place in ``models``."""
    return [
        Reliability(m, s.prob_pred, s.prob_true, *band(s, band_kind), s.size, color=models.index(m))
        for m, s in stats.items()
    ]


def before_after_lines(
    after: Mapping[str, Binned],
    before: Mapping[str, Binned],
    models: Sequence[str],
    method: str,
    band_kind: str,
) -> list[Reliability]:
    """Each recalibrated model's line, after its dashed "before" line when it had one."""
    lines = []
    for m, s in after.items():
        if m in before:
            b = before[m]
            lines.append(
                Reliability(
                    f"{m} before", b.prob_pred, b.prob_true, *band(b, band_kind), b.size,
                    color=models.index(m), dash=True,
                )
            )  # fmt: skip
        lines.append(
            Reliability(
                f"{m} after ({method})", s.prob_pred, s.prob_true, *band(s, band_kind), s.size,
                color=models.index(m),
            )
        )  # fmt: skip
    return lines


def ece_numbers(
    y: np.ndarray, score: np.ndarray, weight: np.ndarray | None, n_bins: int, strategy: str
) -> tuple[metrics.BrierDecomposition, float]:
    """The Brier decomposition and the debiased squared calibration error of one model."""
    kwargs = dict(n_bins=n_bins, strategy=strategy, sample_weight=weight)
    return (
        metrics.brier_decomposition(y, score, **kwargs),
        metrics.squared_calibration_error(y, score, **kwargs),
    )


def recalibration_row(
    model: str,
    y: np.ndarray,
    score: np.ndarray,
    weight: np.ndarray | None,
    recalibrated: np.ndarray,
    one_map: Callable[[np.ndarray], np.ndarray],
    ece: tuple[float | None, float],
    threshold: float,
) -> dict:
    """A model before and after recalibration: AUC (out of fold and under the map fitted on
    every row, ``one_map``), Brier, log loss, ECE (``ece``: before, None for scores that are not
    probabilities, and after), the share flagged at 0.5, and the threshold as a probability."""
    q, w, is_p = recalibrated, weight, ece[0] is not None
    ww = np.ones(score.size) if w is None else w
    return {
        "model": model,
        "AUC before": metrics.roc_auc_score(y, score, sample_weight=w),
        "AUC after (out of fold)": metrics.roc_auc_score(y, q, sample_weight=w),
        "AUC, one map for all rows": metrics.roc_auc_score(y, one_map(score), sample_weight=w),
        "Brier before": metrics.brier_score_loss(y, score, sample_weight=w) if is_p else None,
        "Brier after": metrics.brier_score_loss(y, q, sample_weight=w),
        "log loss before": metrics.log_loss(y, score, sample_weight=w) if is_p else None,
        "log loss after": metrics.log_loss(y, q, sample_weight=w),
        "ECE before": ece[0],
        "ECE after": ece[1],
        "flagged at p ≥ 0.5 before": float(np.sum(ww[score >= 0.5]) / np.sum(ww)) if is_p else None,
        "flagged at p ≥ 0.5 after": float(np.sum(ww[q >= 0.5]) / np.sum(ww)),
        "threshold": threshold,
        "threshold as a probability": float(one_map(np.array([threshold]))[0]),
    }

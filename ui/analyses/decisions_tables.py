"""The Decision curves page's tables (no Streamlit): each model's cost at its threshold and on
the envelope, and the areas, gains and equal error rates beside the other curves."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Protocol

import numpy as np
import pandas as pd

from ui.words.numbers import decimals

__all__ = ["brier_frame", "brier_terms", "cost_row", "det_frame", "gain_frame"]


class Curves(Protocol):
    """One model's decision curves (``ui.compute.decision_compute.DecisionCurves``)."""

    cost_x: np.ndarray
    cost: np.ndarray
    cost_area: float
    brier_area: float
    auprg: float
    ap: float
    eer: object
    n_pos: float
    n_neg: float


def cost_row(model: str, c: Curves, threshold: float, fpr: float, fnr: float, ratio: float):
    """A model's row of the cost table at the cost ratio ``ratio`` (a missed positive in false
    alarms): its probability cost PC(+), its cost at ``threshold`` and on the envelope, and the
    PC(+) range where its threshold is the cheapest."""
    pi = c.n_pos / (c.n_pos + c.n_neg)
    pc = pi * ratio / (pi * ratio + (1.0 - pi))
    grid = np.linspace(0.0, 1.0, 2001)
    touching = grid[fnr * grid + fpr * (1 - grid) <= np.interp(grid, c.cost_x, c.cost) + 1e-9]
    return {
        "model": model,
        "threshold": threshold,
        "FPR": fpr,
        "FNR": fnr,
        "PC(+)": pc,
        "cost at threshold": fnr * pc + fpr * (1.0 - pc),
        "least cost (envelope)": float(np.interp(pc, c.cost_x, c.cost)),
        "optimal for PC(+) in": (
            f"[{decimals(touching.min(), 3)}, {decimals(touching.max(), 3)}]"
            if touching.size
            else "none (off the ROC convex hull)"
        ),
        "area under envelope": c.cost_area,
    }


def brier_frame(curves: Mapping[str, Curves], models: Sequence[str]) -> pd.DataFrame:
    """The area under each model's Brier curve beside its cost envelope's, and their gap."""
    return pd.DataFrame(
        {
            "model": models,
            "area under Brier curve": [curves[m].brier_area for m in models],
            "area under cost envelope": [curves[m].cost_area for m in models],
            "gap (threshold from the probabilities)": [
                curves[m].brier_area - curves[m].cost_area for m in models
            ],
        }
    )


def brier_terms(y: np.ndarray, score: np.ndarray, weight: np.ndarray | None) -> tuple[float, float]:
    """The mean squared error of the positives' and of the negatives' probabilities."""
    ww = np.ones(score.size) if weight is None else weight
    pos_term = float(np.sum(ww[y] * (1 - score[y]) ** 2) / np.sum(ww[y]))
    neg_term = float(np.sum(ww[~y] * score[~y] ** 2) / np.sum(ww[~y]))
    return pos_term, neg_term


def gain_frame(curves: Mapping[str, Curves], models: Sequence[str]) -> pd.DataFrame:
    """Each model's area under the precision-recall-gain curve, its AP and its prevalence."""
    return pd.DataFrame(
        {
            "model": list(models),
            "AUPRG": [curves[m].auprg for m in models],
            "AP": [curves[m].ap for m in models],
            "prevalence": [curves[m].n_pos / (curves[m].n_pos + curves[m].n_neg) for m in models],
        }
    )


def det_frame(curves: Mapping[str, Curves], models: Sequence[str]) -> pd.DataFrame:
    """Each model's equal error rate, the threshold nearest it, and both rates there."""
    return pd.DataFrame(
        {
            "model": list(models),
            "EER": [curves[m].eer.rate for m in models],
            "nearest threshold": [curves[m].eer.threshold for m in models],
            "FPR there": [curves[m].eer.fpr for m in models],
            "FNR there": [curves[m].eer.fnr for m in models],
        }
    )

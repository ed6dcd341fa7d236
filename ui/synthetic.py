"""The seeded synthetic data source: a score table drawn from two normal distributions.

:func:`generate` is pure numpy/pandas: negatives' latent scores are N(0, 1), positives'
N(d', 1), so the ROC AUC the population has is Φ(d'/√2) (the binormal model; Green & Swets,
*Signal Detection Theory and Psychophysics*, 1966). The latent score becomes the calibrated
probability of a positive given the prevalence (for equal variances the log-likelihood ratio
is d'·x − d'²/2), which a calibration distortion then bends (a power of the odds: above 1
over-confident, below 1 under-confident) without changing the ranking. Rounding the scores
makes ties. The number of positives is exactly round(rows × prevalence), and the same
parameters and seed always give the same table, so a whole class sees the same numbers.

:mod:`ui.synthetic_source` draws the controls in the sidebar and serves the table as a
:class:`ui.data.Dataset`; this module stays free of Streamlit (lessons and tests use it).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from statistics import NormalDist

import numpy as np
import pandas as pd

__all__ = [
    "SyntheticSpec",
    "auc_from_dprime",
    "describe",
    "dprime_from_auc",
    "generate",
]

_NORMAL = NormalDist()
MAX_ROWS = 200_000
ROUNDING = {"none": None, "3 decimals": 3, "2 decimals": 2, "1 decimal": 1}


def dprime_from_auc(auc: float) -> float:
    """The separation d' whose binormal ROC has this AUC: d' = √2 · Φ⁻¹(AUC)."""
    if not 0.5 <= auc < 1:
        raise ValueError(f"target AUC must be in [0.5, 1), got {auc}.")
    return math.sqrt(2) * _NORMAL.inv_cdf(auc)


def auc_from_dprime(dprime: float) -> float:
    """AUC = Φ(d'/√2) of the equal-variance binormal model."""
    return _NORMAL.cdf(dprime / math.sqrt(2))


@dataclass(frozen=True)
class SyntheticSpec:
    """What :func:`generate` draws. ``decimals`` None keeps full precision (no ties)."""

    rows: int = 200
    prevalence: float = 0.3
    dprime: float = 1.5
    decimals: int | None = 2
    calibration: float = 1.0  # power of the odds: 1 calibrated, > 1 over-, < 1 under-confident
    seed: int = 0


def generate(spec: SyntheticSpec) -> pd.DataFrame:
    """The table: ``label`` (1 positive, 0 negative) and ``score`` (a probability), rows in a
    seeded random order.

    >>> t = generate(SyntheticSpec(rows=1000, prevalence=0.1, seed=1))
    >>> len(t), int(t["label"].sum())
    (1000, 100)
    """
    if not 2 <= spec.rows <= MAX_ROWS:
        raise ValueError(f"rows must be between 2 and {MAX_ROWS:,}, got {spec.rows}.")
    if not 0 < spec.prevalence < 1:
        raise ValueError(f"prevalence must be strictly between 0 and 1, got {spec.prevalence}.")
    if spec.calibration <= 0:
        raise ValueError("calibration must be positive.")
    n_pos = min(max(round(spec.rows * spec.prevalence), 1), spec.rows - 1)
    n_neg = spec.rows - n_pos
    rng = np.random.default_rng(spec.seed)
    # Negatives and positives from their own streams, so changing the prevalence redraws only
    # the counts, not the shape of either class.
    neg = np.random.default_rng([spec.seed, 0]).standard_normal(n_neg)
    pos = np.random.default_rng([spec.seed, 1]).standard_normal(n_pos) + spec.dprime
    latent = np.concatenate((pos, neg))
    label = np.concatenate((np.ones(n_pos, dtype=np.int64), np.zeros(n_neg, dtype=np.int64)))
    prior = math.log(spec.prevalence / (1 - spec.prevalence))
    log_odds = (spec.dprime * latent - spec.dprime**2 / 2 + prior) * spec.calibration
    score = 1 / (1 + np.exp(-np.clip(log_odds, -700, 700)))
    if spec.decimals is not None:
        score = np.round(score, spec.decimals)
    order = rng.permutation(spec.rows)
    return pd.DataFrame({"label": label[order], "score": score[order]})


def describe(spec: SyntheticSpec) -> str:
    ties = "no rounding" if spec.decimals is None else f"scores rounded to {spec.decimals} dp"
    cal = (
        "calibrated"
        if spec.calibration == 1
        else f"{'over' if spec.calibration > 1 else 'under'}-confident (odds^{spec.calibration:g})"
    )
    return (
        f"{spec.rows:,} rows, {spec.prevalence:.1%} positive, d' = {spec.dprime:.2f} "
        f"(population AUC {auc_from_dprime(spec.dprime):.3f}), {ties}, {cal}, seed {spec.seed}."
    )

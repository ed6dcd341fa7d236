"""The seeded synthetic data source: a score table drawn from two normal distributions.

:func:`generate` is pure numpy/pandas: negatives' latent scores are N(0, 1), positives'
N(d', 1), so the ROC AUC the population has is Φ(d'/√2) (the binormal model; Green & Swets,
*Signal Detection Theory and Psychophysics*, 1966). The latent score becomes the calibrated
probability of a positive given the prevalence (for equal variances the log-likelihood ratio
is d'·x − d'²/2), which a calibration distortion then bends (a power of the odds: above 1
over-confident, below 1 under-confident) without changing the ranking. Rounding the scores
makes ties. The number of positives is exactly round(rows × prevalence), and the same
parameters and seed always give the same table, so a whole class sees the same numbers.

:mod:`ui.sources.synthetic_source` draws the controls in the sidebar and serves the table as a
:class:`ui.tables.dataset.Dataset`; this module stays free of Streamlit (lessons and tests use it).
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
    # Models after the first, each (d', calibration), scored on the same rows: columns
    # ``score_2``, ``score_3``. Their latent noise shares ``correlation`` with the first
    # model's, as two models trained on the same features would.
    others: tuple[tuple[float, float], ...] = ()
    correlation: float = 0.5


MAX_MODELS = 3


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
    if spec.calibration <= 0 or any(c <= 0 for _, c in spec.others):
        raise ValueError("calibration must be positive.")
    if len(spec.others) > MAX_MODELS - 1:
        raise ValueError(f"at most {MAX_MODELS} models, got {1 + len(spec.others)}.")
    if not -1 < spec.correlation < 1:
        raise ValueError(f"correlation must be strictly between -1 and 1, got {spec.correlation}.")
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
    columns = {"score": _probability(latent, spec.dprime, prior, spec.calibration, spec.decimals)}
    noise = latent - spec.dprime * label  # the first model's N(0, 1) noise, row by row
    r = spec.correlation
    for k, (dprime, calibration) in enumerate(spec.others, start=2):
        own = np.random.default_rng([spec.seed, k]).standard_normal(spec.rows)
        other = r * noise + math.sqrt(1 - r * r) * own + dprime * label  # noise still N(0, 1)
        columns[f"score_{k}"] = _probability(other, dprime, prior, calibration, spec.decimals)
    order = rng.permutation(spec.rows)
    return pd.DataFrame({"label": label[order], **{c: v[order] for c, v in columns.items()}})


def _probability(latent, dprime: float, prior: float, calibration: float, decimals):
    """The calibrated probability of a positive given the latent score, bent by
    ``calibration`` (a power of the odds) and rounded."""
    log_odds = (dprime * latent - dprime**2 / 2 + prior) * calibration
    score = 1 / (1 + np.exp(-np.clip(log_odds, -700, 700)))
    return score if decimals is None else np.round(score, decimals)


def describe(spec: SyntheticSpec) -> str:
    ties = "no rounding" if spec.decimals is None else f"scores rounded to {spec.decimals} dp"
    cal = (
        "calibrated"
        if spec.calibration == 1
        else f"{'over' if spec.calibration > 1 else 'under'}-confident (odds^{spec.calibration:g})"
    )
    text = (
        f"{spec.rows:,} rows, {spec.prevalence:.1%} positive, d' = {spec.dprime:.2f} "
        f"(population AUC {auc_from_dprime(spec.dprime):.3f}), {ties}, {cal}, seed {spec.seed}."
    )
    for k, (dprime, calibration) in enumerate(spec.others, start=2):
        text += (
            f" score_{k}: d' = {dprime:.2f} (AUC {auc_from_dprime(dprime):.3f}), odds^"
            f"{calibration:g}, noise correlated {spec.correlation:g} with score."
        )
    return text

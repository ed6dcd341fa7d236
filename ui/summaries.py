"""Tables that compare models: metric x model with paired bootstrap intervals, DeLong pairs.

Pure functions over numpy arrays returning DataFrames; no Streamlit (``ui.data`` caches them).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pandas as pd

import metrics
from metrics.calibration import brier_score_loss, log_loss
from metrics.compare import delong_test, paired_bootstrap
from metrics.groups import group_auc_score


@dataclass(frozen=True)
class MetricSpec:
    name: str
    fn: Callable[..., float]
    higher_is_better: bool
    help: str


def metric_specs(*, probabilities: bool, groups: np.ndarray | None) -> list[MetricSpec]:
    """The metrics that apply: AUC and AP always, GAUC with a group column, Brier and log loss
    when every score is a probability."""
    specs = [
        MetricSpec("AUC", metrics.roc_auc_score, True, "area under the ROC curve"),
        MetricSpec("AP", metrics.average_precision_score, True, "average precision (step sum)"),
    ]
    if groups is not None:

        def gauc(y, s, sample_weight=None):
            return group_auc_score(y, s, groups, sample_weight=sample_weight)

        specs.append(MetricSpec("GAUC", gauc, True, "per-group AUC weighted by rows"))
    if probabilities:
        specs += [
            MetricSpec("Brier", brier_score_loss, False, "mean squared error of the probability"),
            MetricSpec("Log loss", log_loss, False, "cross-entropy in nats"),
        ]
    return specs


def model_table(
    y: np.ndarray,
    scores: dict[str, np.ndarray],
    specs: list[MetricSpec],
    *,
    weight: np.ndarray | None = None,
    n_resamples: int = 0,
    seed: int = 0,
) -> pd.DataFrame:
    """One row per model; per metric its value and, with resamples, a 95% paired bootstrap
    interval (columns ``<metric>``, ``<metric> low``, ``<metric> high``)."""
    names = list(scores)
    table = pd.DataFrame({"model": names})
    for spec in specs:
        if n_resamples:
            result = paired_bootstrap(
                spec.fn,
                y,
                *(scores[m] for m in names),
                n_resamples=n_resamples,
                seed=seed,
                sample_weight=weight,
            )
            table[spec.name] = [iv.estimate for iv in result.models]
            table[f"{spec.name} low"] = [iv.ci_low for iv in result.models]
            table[f"{spec.name} high"] = [iv.ci_high for iv in result.models]
        else:
            table[spec.name] = [float(spec.fn(y, scores[m], sample_weight=weight)) for m in names]
    return table


def best_rows(table: pd.DataFrame, specs: list[MetricSpec]) -> dict[str, int]:
    """For each metric, the row index of the best model (ties: the first)."""
    best = {}
    for spec in specs:
        values = table[spec.name].to_numpy(dtype=float)
        if np.isfinite(values).any():
            best[spec.name] = int(
                np.nanargmax(values) if spec.higher_is_better else np.nanargmin(values)
            )
    return best


def delong_pairs(y: np.ndarray, scores: dict[str, np.ndarray]) -> pd.DataFrame:
    """DeLong's test for every pair of models: AUCs, difference, its 95% interval, p-value."""
    rows = []
    for a, b in itertools.combinations(scores, 2):
        r = delong_test(y, scores[a], scores[b])
        rows.append(
            {
                "model A": a,
                "model B": b,
                "AUC A": r.auc_a,
                "AUC B": r.auc_b,
                "A - B": r.difference,
                "95% CI low": r.ci_low,
                "95% CI high": r.ci_high,
                "z": r.z,
                "p-value": r.p_value,
            }
        )
    return pd.DataFrame(rows)

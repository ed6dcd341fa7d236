"""Cached bootstrap results for the Compare and GAUC pages.

Every function resamples with :func:`metrics.fast_paired_bootstrap` (rows, sorted once per model)
or :func:`metrics.cluster_bootstrap` (whole users), seeded, so a page rerun shows the same
numbers. Keys follow :mod:`ui.data`: the dataset's ``key`` and the arguments; the dataset itself
is passed unhashed.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import streamlit as st

import metrics
from ui.data import Dataset

BAND_GRID = np.linspace(0.0, 1.0, 101)
THRESHOLD_POINTS = 120  # thresholds per model for the metric-vs-threshold bands


@st.cache_data(max_entries=16, show_spinner="Resampling every model...")
def model_table(
    key: tuple,
    models: tuple[str, ...],
    n_resamples: int,
    bca: bool,
    max_fpr: float | None,
    _ds: Dataset,
):
    """The comparison table, its pairs with verdicts, the best model per metric, and helps."""
    from ui import summaries

    y = _ds.labels_for(models[0])
    scores = {m: _ds.score(m) for m in models}
    specs = summaries.metric_specs(
        probabilities=all(s.min() >= 0 and s.max() <= 1 for s in scores.values()),
        groups=_ds.prepared.groups,
        max_fpr=max_fpr,
    )
    table, pairs = summaries.model_table(
        y, scores, specs, weight=_ds.weight, n_resamples=n_resamples, bca=bca
    )
    found, pairs = summaries.verdicts(table, pairs, specs)
    # The specs hold functions, which a cache cannot pickle: return what the page shows.
    helps = {
        s.name: ("higher" if s.higher_is_better else "lower") + " is better; " + s.help
        for s in specs
    }
    return table, pairs, found, helps


def _threshold_grid(s: np.ndarray, points: int) -> np.ndarray:
    """Thresholds at evenly spaced quantiles of the scores, distinct, descending."""
    grid = np.unique(np.quantile(s, np.linspace(0.0, 1.0, points)))
    return grid[::-1]


@st.cache_data(max_entries=8, show_spinner="Resampling the curves...")
def curve_bands(
    key: tuple, models: tuple[str, ...], n_resamples: int, _ds: Dataset
) -> metrics.FastBootstrap:
    """Per model, resampled ROC (TPR on an FPR grid), precision on a recall grid, every rate on
    a grid of thresholds, and the thresholds that maximise F1 and Youden's J per resample."""
    y = _ds.labels_for(models[0]).astype(bool)
    arrays = [_ds.score(m) for m in models]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", metrics.UndefinedMetricWarning)
        return metrics.fast_paired_bootstrap(
            y,
            *arrays,
            n_resamples=n_resamples,
            sample_weight=_ds.weight,
            roc_grid=BAND_GRID,
            pr_grid=BAND_GRID[1:],
            threshold_grid=[_threshold_grid(s, THRESHOLD_POINTS) for s in arrays],
            best_thresholds=True,
        )


@st.cache_data(max_entries=16, show_spinner="Resampling the operating points...")
def operating_intervals(
    key: tuple,
    models: tuple[str, ...],
    chosen: tuple[float, ...],
    n_resamples: int,
    _ds: Dataset,
) -> pd.DataFrame:
    """Precision, recall, F1 and FPR at each model's fixed threshold, with 95% intervals."""
    usable = [(m, t) for m, t in zip(models, chosen, strict=True) if np.isfinite(t)]
    if not usable:
        return pd.DataFrame()
    y = _ds.labels_for(models[0]).astype(bool)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", metrics.UndefinedMetricWarning)
        r = metrics.fast_paired_bootstrap(
            y,
            *(_ds.score(m) for m, _ in usable),
            n_resamples=n_resamples,
            sample_weight=_ds.weight,
            thresholds=[t for _, t in usable],
        )
    rows = []
    for k, (m, t) in enumerate(usable):
        row = {"model": m, "threshold": t}
        for name, label in (("precision", "precision"), ("recall", "recall"), ("fpr", "FPR"),
                            ("f1", "F1")):  # fmt: skip
            iv = r.results[name].models[k]
            row[label], row[f"{label} low"], row[f"{label} high"] = (
                iv.estimate, iv.ci_low, iv.ci_high
            )  # fmt: skip
        rows.append(row)
    return pd.DataFrame(rows)


@st.cache_data(max_entries=16, show_spinner="Resampling users...")
def gauc_difference(
    key: tuple, a: str, b: str, weighting: str, n_resamples: int, _ds: Dataset
) -> metrics.BootstrapResult:
    """The cluster bootstrap of GAUC for two models: whole users resampled, per-user AUCs
    computed once; ``differences[(0, 1)]`` is GAUC(a) − GAUC(b)."""
    groups = _ds.prepared.groups
    tables = [
        metrics.group_auc_table(_ds.labels_for(m), _ds.score(m), groups, sample_weight=_ds.weight)
        for m in (a, b)
    ]
    return metrics.cluster_bootstrap(
        np.column_stack([t.auc for t in tables]),
        np.column_stack([t.weights(weighting) for t in tables]),
        n_resamples=n_resamples,
    )


@st.cache_data(max_entries=8, show_spinner="Resampling the decision curve...")
def decision_bands(
    key: tuple, models: tuple[str, ...], grid: tuple[float, ...], n_resamples: int, _ds: Dataset
) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """Per model, the pointwise 95% band of the net benefit at each threshold of ``grid``."""
    y = _ds.labels_for(models[0]).astype(bool)
    t = np.asarray(grid)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", metrics.UndefinedMetricWarning)
        r = metrics.fast_paired_bootstrap(
            y,
            *(_ds.score(m) for m in models),
            n_resamples=n_resamples,
            sample_weight=_ds.weight,
            threshold_grid=[t] * len(models),
        )
    return {m: r.band(r.threshold_curves["net_benefit"][k]) for k, m in enumerate(models)}


@st.cache_data(max_entries=8, show_spinner="Resampling KS...")
def ks_intervals(
    key: tuple, models: tuple[str, ...], n_resamples: int, _ds: Dataset
) -> metrics.BootstrapResult:
    """The paired bootstrap of the KS statistic, max |TPR − FPR|, per model."""
    y = _ds.labels_for(models[0]).astype(bool)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", metrics.UndefinedMetricWarning)
        r = metrics.fast_paired_bootstrap(
            y, *(_ds.score(m) for m in models), n_resamples=n_resamples,
            sample_weight=_ds.weight, ks=True,
        )  # fmt: skip
    return r.results["ks"]

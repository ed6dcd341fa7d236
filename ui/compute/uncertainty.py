"""Cached bootstrap results for the Compare and GAUC pages.

Every function resamples with :func:`metrics.fast_paired_bootstrap` (rows, sorted once per model)
or :func:`metrics.cluster_bootstrap` (whole users), seeded, so a page rerun shows the same
numbers. Keys follow :mod:`ui.compute.data`: the dataset's ``key`` and the arguments; the dataset
itself
is passed unhashed.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import streamlit as st

import metrics
from ui.compute.data import UPLOAD_TTL
from ui.tables.dataset import Dataset

BAND_GRID = np.linspace(0.0, 1.0, 101)
THRESHOLD_POINTS = 120  # thresholds per model for the metric-vs-threshold bands
# The curves and the operating point resample again for their own views: at most this many.
CURVE_RESAMPLES = 500
OPERATING_RESAMPLES = 200


DECISION_GRID = np.round(np.linspace(0.01, 0.99, 99), 2)  # threshold probabilities


def cluster_of(ds: Dataset, clustered: bool) -> np.ndarray | None:
    """The group of each row when intervals should resample groups, else None."""
    return ds.prepared.groups if clustered else None


def _threshold_grid(s: np.ndarray, points: int) -> np.ndarray:
    """Thresholds at evenly spaced quantiles of the scores, distinct, descending."""
    grid = np.unique(np.quantile(s, np.linspace(0.0, 1.0, points)))
    return grid[::-1]


@st.cache_data(max_entries=16, ttl=UPLOAD_TTL, show_spinner="Resampling every model...")
def model_table(
    key: tuple,
    models: tuple[str, ...],
    n_resamples: int,
    bca: bool,
    max_fpr: float | None,
    _ds: Dataset,
    clustered: bool = False,
    probabilities: bool = False,
    family: str = "AUC",
):
    """The comparison table, its pairs with verdicts, the best model per metric, the helps and
    the family of tests the verdicts rest on (``family``: the primary metric, or "all").

    ``clustered``: every interval and test resamples the dataset's groups (users, queries).
    ``probabilities``: the models' scores are probabilities (their scales, as
    :func:`ui.compute.thresholds.probabilities` reads them), so the table adds log loss and
    Brier."""
    from ui.analyses import summaries

    y = _ds.labels_for(models[0])
    scores = {m: _ds.score(m) for m in models}
    specs = summaries.metric_specs(
        probabilities=probabilities,
        groups=_ds.prepared.groups,
        max_fpr=max_fpr,
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", metrics.UndefinedMetricWarning)
        table, pairs, _ = summaries.model_table(
            y, scores, specs, weight=_ds.weight, n_resamples=n_resamples, bca=bca,
            cluster=cluster_of(_ds, clustered),
        )  # fmt: skip
    found, pairs, fam = summaries.verdicts_in_family(
        table, pairs, specs, family=family, n_resamples=n_resamples
    )
    # The specs hold functions, which a cache cannot pickle: return what the page shows.
    helps = {
        s.name: ("higher" if s.higher_is_better else "lower") + " is better; " + s.help
        for s in specs
    }
    return table, pairs, found, helps, fam


@st.cache_data(max_entries=8, ttl=UPLOAD_TTL, show_spinner="Resampling the curves...")
def curves(
    key: tuple, models: tuple[str, ...], n_resamples: int, _ds: Dataset, clustered: bool = False
) -> metrics.FastBootstrap:
    """One fast bootstrap for every curve of the page: ROC (TPR on an FPR grid), precision on
    a recall grid, the rates and the net benefit on a grid of thresholds, the thresholds that
    maximise F1 and Youden's J, and KS.

    The threshold grid per model is ``THRESHOLD_POINTS`` score quantiles followed by
    ``DECISION_GRID``: :func:`rate_bands` and :func:`decision_bands` split it.
    """
    y = _ds.labels_for(models[0]).astype(bool)
    arrays = [_ds.score(m) for m in models]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", metrics.UndefinedMetricWarning)
        return metrics.fast_paired_bootstrap(
            y, *arrays, n_resamples=n_resamples, sample_weight=_ds.weight,
            roc_grid=BAND_GRID, pr_grid=BAND_GRID[1:], ks=True, best_thresholds=True,
            groups=cluster_of(_ds, clustered),
            threshold_grid=[
                np.concatenate((_threshold_grid(s, THRESHOLD_POINTS), DECISION_GRID))
                for s in arrays
            ],
        )  # fmt: skip


BAND_KINDS = {
    "simultaneous": "simultaneous (whole curve)",
    "pointwise": "pointwise (each point)",
}
BAND_HELP = (
    "Simultaneous: the whole true curve lies inside the band with 95% probability (bootstrap "
    "sup-t band, Montiel Olea & Plagborg-Møller 2019). Pointwise: each point's band holds the "
    "truth at that point 95% of the time, but somewhere along the curve some point usually "
    "falls out, so the whole curve is inside far less often."
)


def band_words(kind: str) -> str:
    """How a caption names the band: what it promises, and whose method it is."""
    if kind == "simultaneous":
        return (
            "95% simultaneous band: the whole true curve lies inside it with 95% probability "
            "(bootstrap sup-t band, Montiel Olea & Plagborg-Møller 2019: every point widened by "
            "one common factor, the 95th percentile over resamples of the largest standardised "
            "deviation along the curve)"
        )
    return (
        "95% pointwise band: at each point, the middle 95% of the resampled values (on the "
        "ROC curve at least the Wilson interval of the TPR over the positives, which the "
        "resamples lose where every resampled TPR is 1); the true curve leaves it somewhere "
        "far more often than 5% of the time"
    )


def curve_bands(
    fast: metrics.FastBootstrap, curve: str, y: np.ndarray, weight, kind: str, models
) -> dict[str, tuple]:
    """Per model: (the curve on all rows, band low, band high) of the ROC (``curve="roc"``)
    or precision-recall curve of ``fast``, pointwise or simultaneous (``kind``), as
    :func:`metrics.roc_band` and :func:`metrics.pr_band` make them from the same resamples."""
    from metrics.bands import band_from_resamples, effective_positives

    grid = fast.roc_grid if curve == "roc" else fast.pr_grid
    originals = fast.original.rocs if curve == "roc" else fast.original.prs
    resampled = fast.roc_curves if curve == "roc" else fast.pr_curves
    n_pos = effective_positives(y, weight)
    out = {}
    for k, m in enumerate(models):
        b = band_from_resamples(
            curve, grid, originals[k][0], resampled[k], simultaneous=kind == "simultaneous",
            confidence=1.0 - fast.alpha, n_positive=n_pos, small_groups=fast.small_groups,
        )  # fmt: skip
        out[m] = (b.y, b.lower, b.upper)
    return out


def rate_bands(
    fast: metrics.FastBootstrap, k: int, kind: str = "pointwise"
) -> tuple[np.ndarray, dict[str, tuple]]:
    """Model ``k``'s thresholds and, per rate, (value on all rows, band low, band high).

    ``kind="simultaneous"``: each rate's sup-t band over the thresholds
    (:func:`metrics.sup_t_band`), widened like the pointwise bands for few groups; thresholds
    where no resample moves the rate keep its value."""
    cut = fast.threshold_grid[k].size - DECISION_GRID.size
    names = {"precision": "precision", "recall": "recall", "f1": "F1", "fpr": "FPR"}
    out = {}
    for name, label in names.items():
        mid = fast.original.curves[name][k][0][:cut]
        reps = fast.threshold_curves[name][k][:, :cut]
        if kind == "simultaneous":
            factor = 1.0 if fast.small_groups is None else fast.small_groups.factor
            low, high, _ = metrics.sup_t_band(mid, reps, confidence=1.0 - fast.alpha, factor=factor)
        else:
            low, high = fast.band(reps)
        out[label] = (mid, low, high)
    return fast.threshold_grid[k][:cut], out


def decision_bands(fast: metrics.FastBootstrap, models) -> dict[str, tuple[np.ndarray, ...]]:
    """Per model, the 95% band of the net benefit at each threshold of ``DECISION_GRID``."""
    cut = -DECISION_GRID.size
    return {
        m: fast.band(fast.threshold_curves["net_benefit"][k][:, cut:]) for k, m in enumerate(models)
    }


@st.cache_data(max_entries=16, ttl=UPLOAD_TTL, show_spinner="Resampling the operating points...")
def operating_intervals(
    key: tuple,
    models: tuple[str, ...],
    chosen: tuple[float, ...],
    n_resamples: int,
    _ds: Dataset,
    clustered: bool = False,
) -> pd.DataFrame:
    """Precision, recall, F1 and FPR at each model's fixed threshold, with 95% intervals from
    ``n_resamples`` resamples (the page passes at most ``OPERATING_RESAMPLES``: every change of
    the constraint resamples again)."""
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
            groups=cluster_of(_ds, clustered),
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


@st.cache_data(max_entries=16, ttl=UPLOAD_TTL, show_spinner="Resampling users...")
def gauc_difference(
    key: tuple, a: str, b: str, weighting: str, n_resamples: int, _tables: tuple
) -> metrics.BootstrapResult:
    """The cluster bootstrap of GAUC for two models from their per-user tables (the same users
    in the same order): whole users resampled, per-user AUCs computed once;
    ``differences[(0, 1)]`` is GAUC(a) − GAUC(b)."""
    tables = list(_tables)
    if not np.array_equal(tables[0].group, tables[1].group):
        raise ValueError("the two models' per-user tables do not hold the same users.")
    return metrics.cluster_bootstrap(
        np.column_stack([t.auc for t in tables]),
        np.column_stack([t.weights(weighting) for t in tables]),
        n_resamples=n_resamples,
    )


@st.cache_data(max_entries=32, ttl=UPLOAD_TTL, show_spinner=False)
def auc_power(key: tuple, a: str, b: str, difference: float, _ds: Dataset) -> tuple[float, float]:
    """(power of DeLong's paired test to find an AUC difference of ``difference``, the smallest
    difference found with 80% power), with this table's positives and negatives."""
    y = _ds.labels_for(a)
    return (
        metrics.auc_difference_power(y, _ds.score(a), _ds.score(b), difference),
        metrics.auc_min_detectable_difference(y, _ds.score(a), _ds.score(b)),
    )

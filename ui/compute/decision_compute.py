"""Computations for the Decision curves and Calibration pages, cached per dataset.

:func:`calibration_stats` is plain numpy over :func:`metrics.fast_paired_bootstrap`: the
reliability bins' observed rates, the Brier score and its uncertainty term, each with a
percentile interval from the same resamples (rows drawn a Poisson(1) number of times, or whole
groups when ``groups`` is given), the debiased RMS calibration error with its own interval, and
ECE, MCE, reliability and resolution without one (``BIASED``). The cached wrappers below key
on the dataset's ``key`` as :mod:`ui.compute.data` does; the dataset itself is passed unhashed.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass

import numpy as np
import streamlit as st

import metrics
from metrics._validation import check_binary_inputs
from metrics.calibration import _binned
from ui.compute.data import UPLOAD_TTL, binary_rows
from ui.tables.dataset import Dataset

# Per-row values the bootstrap holds at once (rows x models x (3 x bins + 1) row means): above
# this the calibration intervals are not computed (the values still are).
MAX_BOOTSTRAP_CELLS = 30_000_000
STATS = ("RMS calibration error", "ECE", "MCE", "Brier", "reliability", "resolution", "uncertainty")
# Binned plug-ins biased upwards under resampling: a percentile interval of theirs can lie wholly
# above the estimate (issue 31), so they are shown without one; the debiased error has its own.
BIASED = ("ECE", "MCE", "reliability", "resolution")


@dataclass(frozen=True)
class Interval:
    estimate: float
    low: float
    high: float


@dataclass(frozen=True)
class CalibrationStats:
    """One model's reliability diagram and calibration numbers.

    ``prob_true``, ``prob_pred``, ``size``: :func:`metrics.calibration_curve` (non-empty bins).
    ``band_low``, ``band_high``: the percentile interval of each bin's observed rate over the
    resamples (the bins' edges fixed at the original rows'); NaN without resamples.
    ``sim_low``, ``sim_high``: the simultaneous (sup-t) band of the bins' rates, every bin's
    true rate inside at once with 95% probability (:func:`metrics.sup_t_band`). ``stats``:
    the debiased RMS calibration error (:func:`metrics.calibration_error_interval`), ECE, MCE
    (:func:`metrics.calibration_error`) and the Brier decomposition
    (:func:`metrics.brier_decomposition`), each an :class:`Interval`; the binned plug-ins of
    ``BIASED`` have none (NaN). ``squared``: the debiased squared error with its interval.
    """

    prob_true: np.ndarray
    prob_pred: np.ndarray
    size: np.ndarray
    band_low: np.ndarray
    band_high: np.ndarray
    stats: dict[str, Interval]
    sim_low: np.ndarray | None = None
    sim_high: np.ndarray | None = None
    squared: metrics.CalibrationErrorInterval | None = None


def is_probability(score: np.ndarray) -> bool:
    """Whether every score lies in [0, 1] (so it can be read as a probability)."""
    s = np.asarray(score, dtype=float)
    return bool(s.size) and float(np.min(s)) >= 0.0 and float(np.max(s)) <= 1.0


def _quantile(values: np.ndarray, alpha: float) -> tuple[np.ndarray, np.ndarray]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # all-NaN columns: NaN
        low = np.nanpercentile(values, 100 * alpha / 2, axis=0)
        high = np.nanpercentile(values, 100 * (1 - alpha / 2), axis=0)
    return low, high


def calibration_stats(
    y: np.ndarray,
    probs: dict[str, np.ndarray],
    *,
    sample_weight: np.ndarray | None = None,
    groups: np.ndarray | None = None,
    n_bins: int = 10,
    strategy: str = "uniform",
    n_resamples: int = 500,
    alpha: float = 0.05,
    seed: int = 0,
) -> dict[str, CalibrationStats]:
    """Reliability bins, ECE, MCE and the Brier decomposition of each model, with intervals.

    Parameters
    ----------
    y : array of shape (n,)
        Binary labels.
    probs : dict of str -> array of shape (n,)
        Each model's probabilities, in [0, 1].
    sample_weight, groups : array of shape (n,), optional
        Row weights; the unit a resample draws (whole groups, a cluster bootstrap).
    n_bins, strategy
        As in :func:`metrics.calibration_curve`.
    n_resamples : int, default 500
        0 gives the values without intervals.
    alpha : float, default 0.05
    seed : int, default 0

    Returns
    -------
    dict of str -> CalibrationStats
        The estimates are the library's on the original rows. Per resample, with each bin's
        share ``t_b``, positive share ``y_b`` and prediction sum ``p_b`` (row means of the
        resample): ECE ``= sum_b |y_b - p_b|``, MCE ``= max_b |y_b - p_b| / t_b``,
        reliability ``= sum_b (p_b - y_b)^2 / t_b``, resolution
        ``= sum_b t_b (y_b / t_b - ybar)^2``, uncertainty ``= ybar (1 - ybar)``.
    """
    names = list(probs)
    out: dict[str, CalibrationStats] = {}
    bins = {}
    for name in names:
        yy, p, w = check_binary_inputs(y, probs[name], sample_weight, None)
        bins[name] = _binned(yy, p, w, n_bins, strategy).index
    replicates = None
    if n_resamples:
        yf = np.asarray(y, dtype=float)
        row_means: dict[str, list[np.ndarray]] = {"brier": []}
        for b in range(n_bins):
            row_means[f"n{b}"], row_means[f"y{b}"], row_means[f"p{b}"] = [], [], []
        for name in names:
            p = np.asarray(probs[name], dtype=float)
            row_means["brier"].append((p - yf) ** 2)
            for b in range(n_bins):
                inside = (bins[name] == b).astype(float)
                row_means[f"n{b}"].append(inside)
                row_means[f"y{b}"].append(inside * yf)
                row_means[f"p{b}"].append(inside * p)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", metrics.UndefinedMetricWarning)
            # Only the row means: no AUC or AP kernel runs, and the draws are the same.
            fb = metrics.fast_paired_bootstrap(
                y, *[probs[n] for n in names], n_resamples=n_resamples, alpha=alpha, seed=seed,
                sample_weight=sample_weight, groups=groups, row_means=row_means, only=(),
            )  # fmt: skip
        replicates = {k: fb.results[k].replicates for k in row_means}
    for m, name in enumerate(names):
        p = probs[name]
        kw = dict(n_bins=n_bins, strategy=strategy, sample_weight=sample_weight)
        prob_true, prob_pred, size = metrics.calibration_curve(y, p, **kw)
        d = metrics.brier_decomposition(y, p, **kw)
        ce = (
            metrics.calibration_error_interval(
                y,
                p,
                n_bins=n_bins,
                strategy=strategy,
                confidence=1.0 - alpha,
                n_resamples=n_resamples,
                seed=seed,
                sample_weight=sample_weight,
                groups=groups,
            )
            if n_resamples
            else None
        )
        squared = metrics.squared_calibration_error(y, p, **kw)
        rms = math.sqrt(squared) if squared > 0 else 0.0
        values = {
            "RMS calibration error": rms,
            "ECE": metrics.calibration_error(y, p, norm="l1", **kw),
            "MCE": metrics.calibration_error(y, p, norm="max", **kw),
            "Brier": d.brier,
            "reliability": d.reliability,
            "resolution": d.resolution,
            "uncertainty": d.uncertainty,
        }
        used = np.flatnonzero(np.bincount(bins[name], minlength=n_bins) > 0)
        if replicates is None:
            nan = np.full(prob_true.shape, np.nan)
            out[name] = CalibrationStats(
                prob_true, prob_pred, size, nan, nan.copy(),
                {k: Interval(v, math.nan, math.nan) for k, v in values.items()},
                nan.copy(), nan.copy(),
            )  # fmt: skip
            continue
        t = np.column_stack([replicates[f"n{b}"][:, m] for b in range(n_bins)])
        pos = np.column_stack([replicates[f"y{b}"][:, m] for b in range(n_bins)])
        pred = np.column_stack([replicates[f"p{b}"][:, m] for b in range(n_bins)])
        with np.errstate(invalid="ignore", divide="ignore"):
            rate = np.where(t > 0, pos / t, np.nan)
            mean_p = np.where(t > 0, pred / t, np.nan)
            ybar = pos.sum(axis=1)
            per = {
                "ECE": np.abs(pos - pred).sum(axis=1),
                "MCE": np.nanmax(np.where(t > 0, np.abs(rate - mean_p), -np.inf), axis=1),
                "Brier": replicates["brier"][:, m],
                "reliability": np.nansum(np.where(t > 0, (pred - pos) ** 2 / t, 0.0), axis=1),
                "resolution": np.nansum(
                    np.where(t > 0, t * (rate - ybar[:, None]) ** 2, 0.0), axis=1
                ),
                "uncertainty": ybar * (1.0 - ybar),
            }
        ok = np.isfinite(t.sum(axis=1)) & (t.sum(axis=1) > 0)
        stats = {}
        for k, v in values.items():
            if k in BIASED:
                stats[k] = Interval(float(v), math.nan, math.nan)
            elif k == "RMS calibration error":
                stats[k] = Interval(ce.rms, ce.rms_low, ce.rms_high)
            elif k == "uncertainty":
                # ybar (1 - ybar) peaks at ybar = 1/2: map the base rate's interval through it
                # (a percentile interval of the product excludes 0.25 at a balanced sample).
                lo, hi = (float(x[0]) for x in _quantile(ybar[ok][:, None], alpha))
                ends = (lo * (1 - lo), hi * (1 - hi))
                top = 0.25 if lo <= 0.5 <= hi else max(ends)
                stats[k] = Interval(float(v), min(min(ends), float(v)), max(top, float(v)))
            else:
                low, high = _quantile(np.where(ok, per[k], np.nan)[:, None], alpha)
                stats[k] = Interval(float(v), float(low[0]), float(high[0]))
        band_low, band_high = _quantile(rate[ok][:, used], alpha)
        sim_low, sim_high = reliability_band(
            prob_true, rate[ok][:, used], size, alpha, fb.small_groups
        )
        out[name] = CalibrationStats(
            prob_true, prob_pred, size, band_low, band_high, stats, sim_low, sim_high, ce
        )
    return out


def reliability_band(
    rate: np.ndarray, replicates: np.ndarray, size: np.ndarray, alpha: float, small=None
) -> tuple[np.ndarray, np.ndarray]:
    """The simultaneous (sup-t) band of the bins' observed rates: every bin's true rate inside
    at once with probability ``1 - alpha``. A bin's resampled rate stops moving when all its
    rows agree, so its spread is floored at the binomial standard deviation of its rows
    (Agresti & Coull's adjusted rate); and where the percentile band is wider (a bin of few
    rows), the band is widened to it."""
    n = np.asarray(size, dtype=float)
    adjusted = (rate * n + 2.0) / (n + 4.0)
    with np.errstate(invalid="ignore", divide="ignore"):
        floor = np.where(n > 0, np.sqrt(adjusted * (1 - adjusted) / n), np.nan)
    factor = 1.0 if small is None else small.factor
    low, high, _ = metrics.sup_t_band(
        rate, replicates, confidence=1.0 - alpha, factor=factor, sd_floor=floor
    )
    # Never narrower than the pointwise band: holding every bin at once holds each bin.
    p_low, p_high = _quantile(replicates, alpha)
    return np.fmin(low, p_low), np.fmax(high, p_high)


def bootstrap_cells(n_rows: int, n_models: int, n_bins: int) -> int:
    """How many per-row values :func:`calibration_stats` holds for its resamples."""
    return n_rows * n_models * (3 * n_bins + 1)


@st.cache_data(max_entries=16, ttl=UPLOAD_TTL, show_spinner="Recalibrating, fold by fold...")
def recalibrated(key: tuple, model: str, method: str, cv: int, _ds: Dataset) -> np.ndarray:
    """A model's out-of-fold recalibrated probabilities (:func:`metrics.recalibrate`)."""
    return metrics.recalibrate(
        _ds.labels_for(model), _ds.score(model), method=method, cv=cv, seed=0,
        sample_weight=_ds.weight,
    )  # fmt: skip


@st.cache_data(max_entries=16, ttl=UPLOAD_TTL, show_spinner=False)
def in_sample_map(key: tuple, model: str, method: str, _ds: Dataset) -> metrics.Calibrator:
    """The recalibration map fitted on every row (to translate a threshold)."""
    return metrics.fit_calibrator(
        _ds.labels_for(model), _ds.score(model), method=method, sample_weight=_ds.weight
    )


@st.cache_data(max_entries=16, ttl=UPLOAD_TTL, show_spinner="Resampling the reliability bins...")
def model_calibration(
    key: tuple,
    models: tuple[str, ...],
    method: str | None,
    cv: int,
    n_bins: int,
    strategy: str,
    n_resamples: int,
    clustered: bool,
    _ds: Dataset,
) -> dict[str, CalibrationStats]:
    """:func:`calibration_stats` of the models' scores (``method`` None) or of their
    out-of-fold recalibrated probabilities. Models must share their labels (not per-class
    data), or come one at a time."""
    probs = {
        m: _ds.score(m) if method is None else recalibrated(key, m, method, cv, _ds) for m in models
    }
    return calibration_stats(
        _ds.labels_for(models[0]), probs, sample_weight=_ds.weight,
        groups=_ds.prepared.groups if clustered else None, n_bins=n_bins, strategy=strategy,
        n_resamples=n_resamples,
    )  # fmt: skip


@dataclass(frozen=True)
class DecisionCurves:
    """One model's curves for the Decision curves page (see :mod:`metrics.decision_curves`)."""

    cost_x: np.ndarray
    cost: np.ndarray
    cost_area: float
    brier_x: np.ndarray | None  # None: the scores are not probabilities
    brier_loss: np.ndarray | None
    brier_area: float
    precision_gain: np.ndarray
    recall_gain: np.ndarray
    auprg: float
    ap: float
    det_fpr: np.ndarray
    det_fnr: np.ndarray
    eer: metrics.EqualErrorRate
    n_pos: float
    n_neg: float


def _area(x: np.ndarray, y: np.ndarray) -> float:
    return float(np.sum(np.diff(x) * (y[1:] + y[:-1]) / 2.0))


@st.cache_data(max_entries=32, ttl=UPLOAD_TTL, show_spinner="Tracing the decision curves...")
def decision_curves(key: tuple, model: str, _ds: Dataset) -> DecisionCurves:
    """Cost, Brier, precision-recall-gain and DET curves of one model, on every row."""
    y, s, w = binary_rows(_ds, model)
    kw = dict(sample_weight=w)
    cx, cost = metrics.cost_curve(y, s, **kw)
    bx = bl = None
    brier_area = math.nan
    if is_probability(s):
        bx, bl = metrics.brier_curve(y, s, **kw)
        brier_area = _area(bx, bl)
    pg, rg, _ = metrics.precision_recall_gain_curve(y, s, **kw)
    fpr, fnr, _ = metrics.det_curve(y, s, **kw)
    counts = metrics.threshold_counts(y, s, sample_weight=w)
    return DecisionCurves(
        cx, cost, _area(cx, cost), bx, bl, brier_area, pg, rg,
        metrics.precision_recall_gain_auc(y, s, **kw), metrics.average_precision_score(y, s, **kw),
        fpr, fnr, metrics.equal_error_rate(y, s, **kw), float(counts.n_pos), float(counts.n_neg),
    )  # fmt: skip


def rates_at(ds: Dataset, model: str, threshold: float) -> tuple[float, float]:
    """(FPR, FNR) when ``score >= threshold`` is flagged."""
    y, s, w = binary_rows(ds, model)
    c = metrics.confusion_at_threshold(y, s, threshold, pos_label=True, sample_weight=w)
    negatives, positives = float(c.fp + c.tn), float(c.tp + c.fn)
    fpr = float(c.fp) / negatives if negatives > 0 else math.nan
    fnr = float(c.fn) / positives if positives > 0 else math.nan
    return fpr, fnr

"""A fast paired bootstrap: sort once per model, draw every resample as counts, never re-sort.

:func:`metrics.paired_bootstrap` calls a metric once per resample and model, and each call sorts
the scores again. Here each model's rows are sorted once; a resample is a vector of counts (how
often each row is drawn), and every quantity a resample needs is a prefix sum of those counts in
the fixed sorted order: the true positives above each distinct positive score, the negatives
above it and tied with it. From these come, for a block of resamples at once:

* ROC AUC (ties count one half) and scikit-learn's step Average Precision;
* precision, recall, F1, FPR and accuracy at any fixed thresholds (a score ``>=`` the threshold
  is predicted positive), so operating points and metric-vs-threshold curves get intervals;
* the threshold that maximises F1 and Youden's J in each resample, to show how stable a chosen
  threshold is;
* ROC curves on an FPR grid (vertical averaging) and precision on a recall grid, for bands.

Unweighted counts of at most 31 (every Poisson and multinomial block in practice) take the byte
path (:class:`_BytePrefix`): the block's counts are transposed once (a row per data row, a
column per resample), each model gathers its sorted rows as whole rows of bytes, and the prefix
sums down each group of 8 rows fit a byte (8 x 31 = 248), so they are whole-row uint8 additions;
a uint16 level over groups of 64 and an int32 running total finish them, exact. The sums come
out resamples across, the order in which the AP terms are added. AUC and AP then take one pass
over the positive runs in chunks of about ``_AREA_CELLS`` (run, resample) cells, in float64
buffers that stay in cache (:func:`_area_sums`): each chunk's prefix rows, its AP terms summed
behind the running total (so each resample's terms are still added one after another) and its
share of AUC's exact integer sum; the whole (R, B) arrays of the other kernels are made only
when one reads them. Sample weights, or a count
above 31, take the float path (:class:`_FloatPrefix`): the counts, reshaped into runs of ``_K``
columns, times an upper-triangular matrix of ones, plus the running total of the runs, exact in
float32 while a resample holds fewer than 2**24 rows (float64 beyond, or with weights).

Each statistic is a kernel registered by name in ``_KERNELS`` (``roc_auc``,
``average_precision``, ``threshold_rates``, ``partial_auc``, ``ks``, ``best_thresholds``,
``threshold_curves``, ``roc_band``, ``pr_band``): a function of one model's block of
resamples; the options of :func:`fast_paired_bootstrap` choose which run, and each names the
intervals it fills.

Draws
-----
``counts="poisson"`` (the default, as TFMA does): every row is drawn a Poisson(1) number of
times, independently, so a resample's size and class balance vary around the original ones.
The counts come from 16 random bits per row through an exact inverse-CDF table (applied as
three comparisons of the high byte, with the table itself for the ~3% of rows whose high byte
leaves the count open); the few bit patterns that straddle two counts (about 2 in 10,000) are
settled with a second uniform double, so the counts follow Poisson(1) to double precision.

``counts="multinomial"``: ``n`` rows drawn with replacement, within each class when
``stratified`` (so each class keeps its row count): the very draws of
:func:`metrics.paired_bootstrap` with the same seed. That path is about as slow as drawing the
row indices, roughly three times the Poisson path.

For the same draws, AUC and AP here are bit-identical to :func:`metrics.paired_bootstrap` with
:func:`metrics.roc_auc_score` and :func:`metrics.average_precision_score` (unweighted rows): the
AUC numerator is an exact integer either way, and both paths add the AP terms one after another
in descending score. With sample weights the resample weights are counts times weights and the
two paths agree to rounding (about 1e-15).
"""

from __future__ import annotations

import math
import warnings
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from functools import partial
from typing import Any

import numpy as np

from metrics._bootstrap_core import (
    _EXACT_FLOAT32,
    _KERNELS,
    AREA_METRICS,
    THRESHOLD_METRICS,
    _byte_counts,
    _chosen_kernels,
    _GroupDraws,
    _metric_names,
    _Out,
    _row_means,
    _score_block,
    _SortedModel,
    _Spec,
    _thread_pool,
    _upper,
)
from metrics._bootstrap_intervals import (
    _JACKKNIFE,
    SmallGroups,
    _result,
    _widened,
    _with_bca,
    ap_jackknife,
    auc_jackknife,
    bca_interval,
    small_groups_correction,
)
from metrics._bounds import check_grids
from metrics._validation import (
    UndefinedMetricWarning,
    as_real,
    check_binary_labels,
    check_sample_weight,
    check_scores,
)
from metrics.compare import (
    BootstrapResult,
    _check_resampling,
    _Draws,
)

__all__ = [
    "FastBootstrap",
    "SmallGroups",
    "ap_jackknife",
    "auc_jackknife",
    "bca_interval",
    "cluster_bootstrap",
    "fast_paired_bootstrap",
    "small_groups_correction",
]

_BLOCK_CELLS = 1 << 23  # the most counts per block of resamples (8 MB of uint8, 32 MB of float32)
_MIN_BLOCK = 32  # resamples: narrower blocks gather the counts slowly (1e6 rows: 1.4x at 4)


# --- the public function ------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class FastBootstrap:
    """Everything :func:`fast_paired_bootstrap` computed.

    Attributes
    ----------
    results : dict of str -> BootstrapResult
        One per metric: ``"roc_auc"``, ``"average_precision"``, with ``thresholds`` each of
        ``"precision"``, ``"recall"``, ``"f1"``, ``"fpr"``, ``"accuracy"`` at each model's
        threshold, and each name of ``row_means``. Each holds every model's interval, every
        pairwise difference's interval and the replicates, as :func:`metrics.paired_bootstrap`
        returns.
    chosen_thresholds : dict of str -> ndarray of shape (n_resamples, n_models)
        With ``best_thresholds``, per resample, the threshold maximising ``"max F1"`` and
        ``"Youden"`` J (NaN where undefined): how far a threshold picked on these rows would
        move on others.
    threshold_grid : tuple of ndarray, or None
        Per model, the thresholds ``threshold_curves`` is evaluated at.
    threshold_curves : dict of str -> list of ndarray of shape (n_resamples, n_grid), or None
        Per rate of ``THRESHOLD_METRICS`` and ``"net_benefit"`` (the decision curve, for
        thresholds that are probabilities), per model, its value at every grid threshold.
    roc_grid, pr_grid : ndarray or None
        The FPR and recall grids of ``roc_curves`` and ``pr_curves``.
    roc_curves, pr_curves : list of ndarray of shape (n_resamples, n_grid), or None
        Per model, TPR on the FPR grid (vertical averaging) and precision on the recall grid.
    counts : str
    n_resamples : int
    alpha : float
    bca : tuple of str
        The metrics whose intervals are BCa (see ``interval``); the others are percentile.
    small_groups : SmallGroups or None
        With ``groups`` and ``small_groups=True``: the few-groups correction every interval
        (and :meth:`band`) was widened by; its :meth:`SmallGroups.p_value` agrees with the
        intervals. None otherwise.
    original
        The same quantities on the original rows (every count 1), in arrays of one row:
        ``original.rocs[k][0]`` is model k's ROC on the grid, ``original.chosen["max F1"]``
        its chosen thresholds.
    """

    results: dict[str, BootstrapResult]
    chosen_thresholds: dict[str, np.ndarray]
    threshold_grid: tuple[np.ndarray, ...] | None
    threshold_curves: dict[str, list[np.ndarray]] | None
    roc_grid: np.ndarray | None
    roc_curves: list[np.ndarray] | None
    pr_grid: np.ndarray | None
    pr_curves: list[np.ndarray] | None
    counts: str
    n_resamples: int
    alpha: float
    bca: tuple[str, ...] = ()
    original: _Out | None = None
    small_groups: SmallGroups | None = None

    def band(self, curves: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The pointwise ``alpha / 2`` and ``1 - alpha / 2`` quantiles of resampled curves.

        With a few-groups correction (``small_groups``), each point's band is widened by its
        factor around the pointwise median, within the range of all the resampled values.
        """
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # all-NaN columns stay NaN
            low, high = np.nanquantile(curves, [self.alpha / 2, 1 - self.alpha / 2], axis=0)
            small = self.small_groups
            if small is not None and small.factor != 1.0 and np.isfinite(curves).any():
                mid = np.nanmedian(curves, axis=0)
                low = np.maximum(mid - small.factor * (mid - low), np.nanmin(curves))
                high = np.minimum(mid + small.factor * (high - mid), np.nanmax(curves))
        return low, high


def _new_out(n_resamples: int, m: int, names, spec: _Spec) -> _Out:
    def rows(width: int) -> np.ndarray:
        return np.full((n_resamples, width), np.nan)

    curves = None
    if spec.threshold_grid is not None:
        curves = {
            r: [rows(g.size) for g in spec.threshold_grid]
            for r in (*THRESHOLD_METRICS, "net_benefit")
        }
    return _Out(
        replicates={name: rows(m) for name in names},
        chosen={"max F1": rows(m), "Youden": rows(m)} if spec.best_thresholds else {},
        curves=curves,
        rocs=None if spec.roc_grid is None else [rows(spec.roc_grid.size) for _ in range(m)],
        prs=None if spec.pr_grid is None else [rows(spec.pr_grid.size) for _ in range(m)],
    )


def fast_paired_bootstrap(
    y_true: Any,
    *scores: Any,
    n_resamples: int = 1000,
    alpha: float = 0.05,
    seed: int | np.random.Generator | None = 0,
    counts: str = "poisson",
    stratified: bool = True,
    sample_weight: Any = None,
    pos_label: Any = None,
    thresholds: Any = None,
    threshold_grid: Any = None,
    roc_grid: Any = None,
    pr_grid: Any = None,
    best_thresholds: bool = False,
    row_means: dict[str, Any] | None = None,
    interval: str = "percentile",
    max_fpr: float | None = None,
    ks: bool = False,
    groups: Any = None,
    small_groups: bool = True,
    bca_metrics: Any = ("roc_auc",),
    only: Any = None,
) -> FastBootstrap:
    """Paired bootstrap intervals of AUC, AP and threshold metrics, sorting each model once.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        Binary labels.
    *scores : array-like of shape (n_samples,)
        One or more models' scores for the same rows.
    n_resamples : int, default 1000
        At most 100,000 (``metrics._bounds.MAX_RESAMPLES``); more raises ValueError.
    alpha : float, default 0.05
        One minus the confidence level of the percentile intervals.
    seed : int, numpy Generator or None, default 0
    counts : {"poisson", "multinomial"}, default "poisson"
        How a resample is drawn (see the module notes). ``"multinomial"`` with the same
        ``seed`` and ``stratified`` draws exactly what :func:`metrics.paired_bootstrap` draws.
    stratified : bool, default True
        For ``"multinomial"``: resample within each class. Poisson draws ignore it.
    sample_weight : array-like of shape (n_samples,), optional
        A resample's weights are these times its counts.
    pos_label : optional
        The positive class, as in :func:`metrics.roc_auc_score`.
    thresholds : sequence of float, one per model, optional
        Adds precision, recall, F1, FPR and accuracy at each model's threshold.
    threshold_grid : sequence of arrays, one per model, optional
        Thresholds at which every rate is kept per resample, for bands on metric-vs-threshold
        curves: at most 100,000 a model (``metrics._bounds.MAX_GRID``, with ``MAX_CELLS`` as
        for ``roc_grid``).
    roc_grid, pr_grid : array-like, optional
        Each at most 100,000 points (``metrics._bounds.MAX_GRID``); every grid kept, over the
        models and resamples, at most 50,000,000 values (``MAX_CELLS``); more raises
        ValueError.
        FPR and recall grids for bands on the ROC and precision-recall curves.
    best_thresholds : bool, default False
        Also find, per resample, the thresholds maximising F1 and Youden's J.
    row_means : dict of str -> sequence of arrays, one per model, optional
        Metrics that are a (weighted) mean of a per-row loss, such as the Brier score
        ``(score - y) ** 2`` or log loss: each gets intervals from the same resamples, as
        ``counts @ (weight * loss) / counts @ weight``.
    interval : {"percentile", "bca"}, default "percentile"
        ``"bca"``: Efron's bias-corrected and accelerated interval for the metrics of
        ``bca_metrics`` and their differences, where it is cheap: the exact leave-one-row-out
        jackknife of AUC comes from DeLong's placements (:func:`auc_jackknife`), that of AP from
        sorted counts (:func:`ap_jackknife`), each in one pass (unweighted rows, no ``groups``
        only; otherwise, and for the other metrics, percentile). ``FastBootstrap.bca`` lists
        the metrics it was applied to.
    max_fpr : float in (0, 1], optional
        Adds ``"partial_auc"``: the McClish-standardised area under the ROC up to this FPR,
        as :func:`metrics.roc_auc_score` with ``max_fpr`` gives it.
    ks : bool, default False
        Adds ``"ks"``: the Kolmogorov-Smirnov statistic max |TPR − FPR|, as
        :func:`metrics.ks_statistic`.
    groups : array-like of shape (n_samples,), optional
        The unit rows belong to (a user, a query, a patient). Rows of one group are not
        independent, so a resample draws whole groups: each group a Poisson(1) number of times,
        or ``n_groups`` groups with replacement for ``"multinomial"`` (``stratified`` does not
        apply), and every row counts as often as its group was drawn. Every metric, interval,
        band and pairwise difference is then a cluster bootstrap. For the same draws the
        replicates equal :func:`metrics.paired_bootstrap` on rows weighted by their group's
        count. BCa is not applied (its jackknife would leave out groups, not rows).
    small_groups : bool, default True
        With ``groups``: widen every interval (and band) for few groups, as
        :class:`SmallGroups` describes: a t quantile with ``G* - 1`` degrees of freedom (``G*``
        Kish's effective number of groups by rows, or by weight with ``sample_weight``, of the
        class for which it is smaller) and the factor ``G / (G - 1)``. On by default: with 50
        users of unequal activity (1,000 rows, ``bench/bench_coverage.py``) the plain
        percentile intervals covered 89.2-92.5% of the time and their tests rejected a true null
        4.8-8.8% of the time; corrected, 92.2-95.0% and 2.8-7.2% (``docs/coverage.md``). With
        under about 10 effective groups the correction is conservative. False keeps the plain
        percentile intervals.
        Without ``groups`` nothing changes.
    bca_metrics : sequence of str, default ("roc_auc",)
        The metrics ``interval="bca"`` applies to: ``"roc_auc"``, ``"average_precision"`` or
        both. With 1000 resamples AP's percentile interval covers 93.2-96.0% in the coverage
        study (``docs/ap_intervals.md``), so AP's BCa is an option, not a need; with few
        resamples the percentile interval's tails are noisy and come out a little narrow.
    only : sequence of str, optional
        Compute only these results (``"roc_auc"``, ``"average_precision"``, ...): the kernels
        that fill none of them are skipped (a gate on AUC alone need not compute AP). Their
        replicates are those of the full run for the same seed. Default: every result the
        options ask for.

    Returns
    -------
    FastBootstrap

    Notes
    -----
    Cost per block of resamples and model: one gather of the (transposed) counts into sorted
    order, byte additions for the prefix sums, and work on the distinct positive scores only
    (see the module notes). ``python -m bench.bench_bootstrap`` prints the time of 1000
    resamples of 1e5 rows for two models, AUC and AP, as a multiple of one
    :func:`metrics.roc_auc_score` call in the same run (issue #19's target: 300x), against
    :func:`metrics.paired_bootstrap`, which calls each metric once per resample.

    Examples
    --------
    >>> r = fast_paired_bootstrap([0, 0, 1, 1, 0, 1], [0.1, 0.4, 0.35, 0.8, 0.2, 0.7],
    ...                           n_resamples=200, counts="multinomial")
    >>> round(r.results["roc_auc"].models[0].estimate, 4)
    0.8889
    """
    if interval not in ("percentile", "bca"):
        raise ValueError(f'interval must be "percentile" or "bca", got {interval!r}.')
    bca_metrics = (bca_metrics,) if isinstance(bca_metrics, str) else tuple(bca_metrics)
    unknown = sorted(set(bca_metrics) - set(_JACKKNIFE))
    if unknown:
        raise ValueError(
            f"bca_metrics can hold {sorted(_JACKKNIFE)}; got {unknown} (BCa needs an exact "
            "jackknife, which only those have here)."
        )
    if not scores:
        raise ValueError("fast_paired_bootstrap needs at least one score array after y_true.")
    alpha = _check_resampling(n_resamples, alpha, counts)
    y = check_binary_labels(y_true, pos_label)
    n = y.size
    arrays = [check_scores(s, f"scores[{k}]") for k, s in enumerate(scores)]
    for k, s in enumerate(arrays):
        if s.size != n:
            raise ValueError(f"scores[{k}] has {s.size} values but y_true has {n} rows.")
    w = check_sample_weight(sample_weight, n)
    m = len(arrays)
    if thresholds is not None:
        thresholds = as_real(thresholds, "thresholds").reshape(-1)
        if thresholds.size != m:
            raise ValueError(f"thresholds needs one value per model ({m}), got {thresholds.size}.")
    if threshold_grid is not None:
        threshold_grid = tuple(as_real(g, "g").reshape(-1) for g in threshold_grid)
        if len(threshold_grid) != m:
            raise ValueError(f"threshold_grid needs one array per model ({m}).")
    roc_grid = None if roc_grid is None else as_real(roc_grid, "roc_grid").reshape(-1)
    pr_grid = None if pr_grid is None else as_real(pr_grid, "pr_grid").reshape(-1)
    check_grids("fast_paired_bootstrap", n_resamples, {
        "threshold_grid": (  # five rates and the net benefit at each point, per model
            max((g.size for g in threshold_grid or ()), default=0), m * (len(THRESHOLD_METRICS) + 1)
        ),
        "roc_grid": (0 if roc_grid is None else roc_grid.size, m),
        "pr_grid": (0 if pr_grid is None else pr_grid.size, m),
    })  # fmt: skip

    models = [_SortedModel(y, s) for s in arrays]
    if max_fpr is not None:
        if not 0 < max_fpr <= 1:
            raise ValueError(f"max_fpr must be in (0, 1], got {max_fpr!r}.")
        max_fpr = float(max_fpr)
    spec = _chosen_kernels(
        _Spec(thresholds, threshold_grid, roc_grid, pr_grid, best_thresholds, max_fpr, bool(ks))
    )
    if only is not None:
        wanted = {only} if isinstance(only, str) else set(only)
        unknown = sorted(wanted - set(_metric_names(spec)))
        if unknown:
            raise ValueError(
                f"only names {unknown}, which these options do not compute (they compute "
                f"{_metric_names(spec)})."
            )
        spec = replace(
            spec, kernels=tuple(k for k in spec.kernels if wanted & set(_KERNELS[k].metrics(spec)))
        )
    names = _metric_names(spec)
    # The original rows are one resample with every count 1.
    original = _new_out(1, m, names, spec)
    ones = np.ones((1, n), dtype=np.uint8)
    for k in range(m):
        _score_block(models, ones, slice(0, 1), w, np.float64, spec, original, k)
    estimates = {name: [float(v) for v in original.replicates[name][0]] for name in names}
    means = _row_means(row_means, m, n, w)
    for name, (numerators, denominator) in means.items():
        estimates[name] = [float(np.sum(x) / np.sum(denominator)) for x in numerators.T]
    names += list(means)
    if means:  # every mean shares the row weights as its denominator (see _row_means)
        mean_numerators = np.column_stack([numerators for numerators, _ in means.values()])
        mean_denominator = next(iter(means.values()))[1]
        mean_columns = {name: slice(k * m, (k + 1) * m) for k, name in enumerate(means)}
    out = _new_out(n_resamples, m, names, spec)
    replicates = out.replicates
    # A resample holds about n rows (exactly n when multinomial): float32 sums stay exact.
    dtype = np.float32 if w is None and 4 * n < _EXACT_FLOAT32 else np.float64
    if groups is None:
        draws = _Draws(y, seed, counts, stratified)
    else:
        draws = _GroupDraws(groups, n, seed, counts)
        dtype = np.float64 if w is not None else dtype
        if means:  # a row counts as often as its group: the means' sums, by group
            n_groups = int(draws.inverse.max()) + 1 if n else 0
            by_group = [np.bincount(draws.inverse, weights=x, minlength=n_groups) for x in
                        (*mean_numerators.T, mean_denominator)]  # fmt: skip
            mean_numerators = np.column_stack(by_group[:-1])
            mean_denominator = by_group[-1]
    _upper(np.float32), _upper(np.float64)  # made once, before any thread reads them
    pool, limits = _thread_pool(m)

    def draw(size: int) -> tuple[np.ndarray, np.ndarray | None, np.ndarray]:
        """A block's counts, where the byte path applies their transpose (one row per data
        row), and the counts the row means are summed over (the groups', else the rows'),
        made on the drawing thread."""
        if groups is None:
            c = c_means = draws.block(size)
        else:
            c_means, c = draws.by_group(size)
        small = _byte_counts(c, w, n)
        return c, None if small is None else np.ascontiguousarray(small.T), c_means

    block = _block_size(n, n_resamples)
    starts = range(0, n_resamples, block)
    # The next block is drawn on a thread of its own while the models score this one.
    drawer = ThreadPoolExecutor(max_workers=1) if pool is not None else None
    try:
        pending = None
        for i, first in enumerate(starts):
            size = min(block, n_resamples - first)
            rows = slice(first, first + size)
            c, c_t, c_means = draw(size) if pending is None else pending.result()
            if drawer is not None and i + 1 < len(starts):
                pending = drawer.submit(draw, min(block, n_resamples - starts[i + 1]))
            if c_t is not None:
                block_dtype = np.int32  # exact int32 prefix sums of byte counts (_BytePrefix)
            elif groups is not None and w is None:
                # A resample holds as many rows as its drawn groups: float32 stays exact below
                # 2**24 of them, which a few large groups drawn often can exceed.
                most = int(c.sum(axis=1, dtype=np.int64).max()) if c.size else 0
                block_dtype = np.float32 if most < _EXACT_FLOAT32 else np.float64
            else:
                block_dtype = dtype
            if means:
                # One product over every mean's losses, the counts read once (not twice a
                # mean), and with groups over the groups' sums: the Calibration page's 31
                # means of 25,523 rows in 300 users went from 62 row-wide products to one
                # product 85 times narrower.
                cf = c_means.astype(np.float64)
                sums = cf @ mean_numerators
                with np.errstate(invalid="ignore", divide="ignore"):  # an empty resample
                    shares = sums / (cf @ mean_denominator)[:, None]
                for name, columns in mean_columns.items():
                    replicates[name][rows] = shares[:, columns]
            scored = c if c_t is None else c_t
            score = partial(_score_block, models, scored, rows, w, block_dtype, spec, out)
            # numpy and BLAS release the GIL: the models of a block run side by side.
            list(map(score, range(m)) if pool is None else pool.map(score, range(m)))
    finally:
        if pool is not None:
            pool.shutdown()
            drawer.shutdown()
            limits.restore_original_limits()

    results = {name: _result(estimates[name], replicates[name], alpha) for name in names}
    bca: tuple[str, ...] = ()
    if interval == "bca" and w is None and groups is None and y.any() and not y.all():
        for name in (k for k in AREA_METRICS if k in bca_metrics):
            results[name] = _with_bca(results[name], _JACKKNIFE[name](y, arrays))
            bca += (name,)
    small = None
    if groups is not None and small_groups:
        # Rows (or weight) of each class per group: G* is the smaller class's.
        g, ww = draws.inverse, (np.ones(n) if w is None else w)
        size = int(g.max()) + 1
        sizes = np.column_stack([np.bincount(g[c], weights=ww[c], minlength=size) for c in (y, ~y)])
        small = small_groups_correction(sizes, alpha=alpha)
        if small.factor != 1.0:
            bounds = _bounds(names, means, m)
            results = {
                name: _widened(r, [small] * m, bounds.get(name, [(-math.inf, math.inf)] * m))
                for name, r in results.items()
            }
    dropped = results["roc_auc"].n_dropped if "roc_auc" in results else ()
    if any(dropped):
        warnings.warn(
            f"ROC AUC was undefined (one class only) on {max(dropped)} of {n_resamples} "
            "resamples; they are left out of the intervals.",
            UndefinedMetricWarning,
            stacklevel=2,
        )
    return FastBootstrap(
        results=results,
        chosen_thresholds=out.chosen,
        threshold_grid=threshold_grid,
        threshold_curves=out.curves,
        roc_grid=roc_grid,
        roc_curves=out.rocs,
        pr_grid=pr_grid,
        pr_curves=out.prs,
        original=original,
        counts=counts,
        n_resamples=n_resamples,
        alpha=alpha,
        bca=bca,
        small_groups=small,
    )


def _block_size(n: int, n_resamples: int) -> int:
    """Resamples per block of :func:`fast_paired_bootstrap`: a quarter of ``_BLOCK_CELLS``
    counts, or ``_MIN_BLOCK`` resamples when that is more, within ``_BLOCK_CELLS``.

    A block's working arrays take about 36 bytes per count over all models: 300 MB for full
    blocks, which two Compare pages of a class computing at once (25k rows) took the server
    past its budget by 500 MB with. A quarter holds 75 MB at the same speed from 25k rows to
    1e5; past about 260k rows the width limit gives the full blocks back (at 1e6 rows blocks of
    4 resamples took 1.4 times as long as blocks of 8).
    """
    most = max(1, _BLOCK_CELLS // max(n, 1))
    return max(1, min(n_resamples, max(most // 4, min(_MIN_BLOCK, most))))


def _bounds(names, means, m: int) -> dict[str, list[tuple[float, float]]]:
    """Per metric and model, the range its value can take: [0, 1] for the rates and areas, the
    range of the per-row losses for a row mean (a weighted mean of them lies within it)."""
    out = {name: [(0.0, 1.0)] * m for name in names if name not in means}
    for name, (numerators, weights) in means.items():
        keep = weights > 0
        losses = numerators[keep] / weights[keep, None]
        out[name] = [(float(losses[:, k].min()), float(losses[:, k].max())) for k in range(m)]
    return out


# --- cluster bootstrap ---------------------------------------------------------------------------


def cluster_bootstrap(
    values: Any,
    weights: Any = None,
    *,
    n_resamples: int = 1000,
    alpha: float = 0.05,
    seed: int | np.random.Generator | None = 0,
    counts: str = "poisson",
    small_groups: bool = True,
) -> BootstrapResult:
    """Bootstrap a weighted mean of per-group values by resampling whole groups (users, queries).

    GAUC is the weighted mean of per-user AUCs and MAP@k or NDCG@k the mean of per-query values;
    rows of one user or query are not independent, so the resampled unit is the group. Each
    resample draws every group a number of times (Poisson(1), or ``n_groups`` draws with
    replacement for ``"multinomial"``) and the replicate is
    ``sum(c_g * w_g * v_g) / sum(c_g * w_g)`` over the groups drawn whose value is defined.
    The per-group values are computed once: no resample sorts anything.

    Parameters
    ----------
    values : array-like of shape (n_groups,) or (n_groups, n_models)
        Per-group metric of each model, NaN where undefined (left out, as GAUC skips users with
        one class), for example :attr:`metrics.GroupAUC.auc`.
    weights : array-like of shape (n_groups,) or (n_groups, n_models), optional
        Per-group weights, for example :meth:`metrics.GroupAUC.weights`; 1 when omitted.
    n_resamples, alpha, seed : as :func:`fast_paired_bootstrap`.
    counts : {"poisson", "multinomial"}, default "poisson"
    small_groups : bool, default True
        Widen every interval for few groups, as :class:`SmallGroups` describes (a t quantile
        with ``G* - 1`` degrees of freedom, ``G*`` Kish's effective number of the groups with
        a defined value, by weight, and the factor ``G / (G - 1)``), within the range of the
        per-group values. False keeps the plain percentile intervals.

    Returns
    -------
    BootstrapResult
        Intervals per model and for every pairwise difference; differences are paired (both
        models see the same groups in a resample). ``small_groups`` holds the correction
        applied (the wider one of the models', for differences), None when off.

    Notes
    -----
    For the same draws the replicates are bit-identical to recomputing
    :func:`metrics.group_auc_score` with every row weighted by its group's count
    (``"impressions"`` and ``"positives"`` weightings, where a group drawn twice weighs twice):
    both take the same dot product over the same groups.

    Examples
    --------
    >>> t = cluster_bootstrap([0.9, 0.6, 0.7, float("nan")], [10, 30, 20, 5], n_resamples=200)
    >>> round(t.models[0].estimate, 4)
    0.6833
    """
    alpha = _check_resampling(n_resamples, alpha, counts)
    v = as_real(values, "values")
    if v.ndim == 1:
        v = v[:, None]
    if v.ndim != 2 or v.shape[0] == 0:
        raise ValueError(f"values must have one row per group, got shape {v.shape}.")
    g, m = v.shape
    w = np.ones(g) if weights is None else as_real(weights, "weights")
    if w.ndim == 1:
        w = np.repeat(w[:, None], m, axis=1)
    if w.shape != (g, m):
        raise ValueError(f"weights has shape {w.shape}; values has {v.shape}.")
    if not np.isfinite(w).all() or (w < 0).any():
        raise ValueError("weights must be finite and non-negative.")
    defined = np.isfinite(v) & (w > 0)
    if not defined.any(axis=0).all():
        raise ValueError("A model has no group with a defined value and positive weight.")

    def mean(c: np.ndarray | None, k: int) -> float:
        keep = defined[:, k] if c is None else defined[:, k] & (c > 0)
        if not keep.any():
            return float("nan")
        wk = w[keep, k] if c is None else c[keep] * w[keep, k]
        return float(np.dot(wk, v[keep, k]) / wk.sum())

    estimates = [mean(None, k) for k in range(m)]
    draws = _Draws(np.zeros(g, dtype=bool), seed, counts, stratified=False)
    replicates = np.empty((n_resamples, m))
    block = max(1, min(n_resamples, _BLOCK_CELLS // g))
    for first in range(0, n_resamples, block):
        c = draws.block(min(block, n_resamples - first)).astype(np.float64)
        for r in range(c.shape[0]):
            for k in range(m):
                replicates[first + r, k] = mean(c[r], k)
    result = _result(estimates, replicates, alpha)
    if not small_groups:
        return result
    corrections = [small_groups_correction(w[defined[:, k], k], alpha=alpha) for k in range(m)]
    bounds = [
        (float(v[defined[:, k], k].min()), float(v[defined[:, k], k].max())) for k in range(m)
    ]
    return _widened(result, corrections, bounds)

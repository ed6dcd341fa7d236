"""Comparing two or more multi-class or multi-label models on the same rows.

A table's classes are not competing models: each class's score column answers a different
question. What competes is a whole model (one score column per class), against another whole
model scored on the same rows. :func:`compare_multiclass_models` gives, for each model,

* macro, micro and weighted ROC AUC and average precision (one-vs-rest per class; micro pools
  every (row, class) cell; weighted weighs each class by its positives), equal to scikit-learn's
  ``roc_auc_score(..., multi_class="ovr")`` and ``average_precision_score``;
* log loss and the Brier score, when the scores are probabilities: multi-class, the negative
  log-probability of the true class and ``sum_c (p_c - y_c)^2`` (scikit-learn's multi-class
  ``log_loss`` and ``brier_score_loss``, halved for two classes as it does); multi-label, the
  mean over classes of each class's binary log loss and squared error (scikit-learn's on the
  flattened cells);
* at a decision rule (multi-class: the highest score, ties to the first class; multi-label:
  ``score >= threshold`` per class) accuracy (multi-label: every class right, scikit-learn's
  subset accuracy) and macro and micro F1, equal to ``f1_score``;

each with a 95% paired bootstrap interval, and every pair of models with the paired bootstrap
test of their difference and a verdict in words. The verdicts rest on a declared family of
tests (:mod:`metrics.families`): the primary metric (macro AUC unless another is declared before
looking) with Holm across its pairs, the other metrics exploratory; or every metric, with Holm
across metrics × pairs. A model is marked best only where it is significantly better than every
other within that family, so with exchangeable models any star appears at most 5% of the time.
Metrics that are the same number (accuracy and micro-F1 on single-label data, or any two equal
in every model and resample) are tested once; a sentence says when the primary, threshold-free
metric and a metric at the decision rule favour different models.

Resampling is that of :func:`metrics.fast_paired_bootstrap` (one sort per model and class, a
resample a vector of Poisson(1) counts): every metric and every model sees the same resamples
(the same seed draws the same counts), rows resampled, or whole groups (users, patients) when
``groups`` is given, with the few-groups correction of :class:`metrics.SmallGroups`. Each
resample's value of a metric is the metric on the rows weighted by their counts, computed by the
same conventions as the value on all rows: a class without positives (AUC: or without
negatives) in a resample is left out of its macro and weighted averages, as
:func:`metrics.roc_auc_score` leaves it out.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from metrics._validation import UndefinedMetricWarning
from metrics.areas import average_precision_score, roc_auc_score
from metrics.bootstrap import (
    _BLOCK_CELLS,
    _GroupDraws,
    _result,
    _widened,
    fast_paired_bootstrap,
    small_groups_correction,
)
from metrics.compare import BootstrapResult, _check_resampling, _Draws, _percentile_interval
from metrics.families import (
    ALL_METRICS,
    FamilyResult,
    default_primary,
    direction_disagreements,
    equal_metrics,
    family_best,
    family_pair_verdict,
    family_verdicts,
)
from metrics.multilabel import check_multilabel
from metrics.significance import BestModel

__all__ = [
    "MulticlassComparison",
    "MulticlassMetric",
    "MulticlassPair",
    "compare_multiclass_models",
    "multiclass_metric_names",
]

_EPS = np.finfo(np.float64).eps
# Read from the whole ranking of scores, not at a decision rule; the first present leads the
# comparison with the thresholded metrics (after the primary metric, when it is one of them).
_THRESHOLD_FREE = ("macro AUC", "micro AUC", "weighted AUC", "macro AP", "micro AP",
                   "weighted AP", "log loss", "Brier")  # fmt: skip
AVERAGES = ("macro", "micro", "weighted")
PER_CLASS = ("AUC", "AP", "F1")


@dataclass(frozen=True)
class MulticlassMetric:
    """A metric of the comparison: its name, its direction and what it is, in words."""

    name: str
    higher_is_better: bool
    help: str


@dataclass(frozen=True)
class MulticlassPair:
    """One pair of models on one metric: A − B, its interval, the paired bootstrap test's
    p-value, the Holm-adjusted one (across the declared family; NaN for an exploratory
    metric), the verdict, and the test's role in the family ("primary", "family",
    "exploratory" or "duplicate")."""

    metric: str
    model_a: str
    model_b: str
    difference: float
    ci_low: float
    ci_high: float
    p_value: float
    holm_p: float
    verdict: str
    role: str = "exploratory"


@dataclass(frozen=True, eq=False)
class MulticlassComparison:
    """Everything :func:`compare_multiclass_models` computed.

    Attributes
    ----------
    kind : {"multiclass", "multilabel"}
    models, classes : tuple of str
    metrics : tuple of MulticlassMetric
        The metrics compared, in the order shown.
    values : dict of str -> ndarray of shape (n_models,)
        Each metric on all rows (NaN where undefined).
    results : dict of str -> BootstrapResult, or None
        Per metric, each model's interval and every pair's difference (None without
        resamples).
    per_class : dict of str -> ndarray of shape (n_models, n_classes)
        ``"AUC"``, ``"AP"`` and ``"F1"`` of each model on each class, one-vs-rest.
    per_class_intervals : dict of str -> ndarray of shape (n_models, n_classes, 2), or None
    support : ndarray of shape (n_classes,)
        Positives (weight, when weighted) of each class.
    pairs : tuple of MulticlassPair
        Every metric's pairs ``i < j`` in model order.
    best : dict of str -> metrics.BestModel
        Per metric, the model that is significantly best within the family, if any (never on
        an exploratory metric), and the verdict in words.
    family : metrics.families.FamilyResult
        The declared family: its metrics, duplicates, size and every test's role.
    disagreements : tuple of str
        Sentences where the primary threshold-free metric and one at the decision rule favour
        different models (one of them with p < alpha).
    rule : str
        The decision rule behind accuracy and F1, in words.
    n_resamples : int
    alpha : float
    n_groups : int or None
        Groups resampled (None: rows were).
    small_groups : metrics.SmallGroups or None
        The few-groups correction applied to every interval and test.
    notes : tuple of str
        What was left out and why (log loss without probabilities, an undefined class).
    """

    kind: str
    models: tuple[str, ...]
    classes: tuple[str, ...]
    metrics: tuple[MulticlassMetric, ...]
    values: dict[str, np.ndarray]
    results: dict[str, BootstrapResult] | None
    per_class: dict[str, np.ndarray]
    per_class_intervals: dict[str, np.ndarray] | None
    support: np.ndarray
    pairs: tuple[MulticlassPair, ...]
    best: dict[str, BestModel]
    rule: str
    n_resamples: int
    alpha: float
    n_groups: int | None
    small_groups: Any
    notes: tuple[str, ...]
    family: FamilyResult
    disagreements: tuple[str, ...] = ()


def _metric_list(kind: str, probabilities: bool) -> list[MulticlassMetric]:
    cells = "every (row, class) cell pooled into one binary problem"
    out = [
        MulticlassMetric("macro AUC", True, "the mean of the classes' one-vs-rest ROC AUCs"),
        MulticlassMetric("micro AUC", True, f"ROC AUC of {cells}"),
        MulticlassMetric(
            "weighted AUC", True, "the classes' one-vs-rest ROC AUCs weighted by their positives"
        ),
        MulticlassMetric("macro AP", True, "the mean of the classes' average precisions (mAP)"),
        MulticlassMetric("micro AP", True, f"average precision of {cells}"),
        MulticlassMetric(
            "weighted AP", True, "the classes' average precisions weighted by their positives"
        ),
    ]
    if probabilities:
        if kind == "multiclass":
            out += [
                MulticlassMetric(
                    "log loss", False, "mean of −log(probability of the true class), in nats"
                ),
                MulticlassMetric(
                    "Brier", False, "mean over rows of Σ over classes (p − y)², from 0 to 2"
                ),
            ]
        else:
            out += [
                MulticlassMetric(
                    "log loss", False, "each class's binary log loss, averaged over classes"
                ),
                MulticlassMetric("Brier", False, "mean over rows and classes of (p − y)²"),
            ]
    accuracy = (
        "share of rows whose highest-scored class is the true one"
        if kind == "multiclass"
        else "share of rows with every class right (subset accuracy)"
    )
    out += [
        MulticlassMetric("accuracy", True, accuracy),
        MulticlassMetric("macro F1", True, "the mean of the classes' F1 at the decision rule"),
        MulticlassMetric(
            "micro F1", True, "F1 of the true and false positives of every class summed"
        ),
    ]
    return out


def multiclass_metric_names(kind: str, probabilities: bool) -> tuple[str, ...]:
    """The metrics :func:`compare_multiclass_models` compares, in order: what a family may be
    declared on before the comparison runs (``kind``: "multiclass" or "multilabel")."""
    if kind not in ("multiclass", "multilabel"):
        raise ValueError(f'kind must be "multiclass" or "multilabel", got {kind!r}.')
    return tuple(s.name for s in _metric_list(kind, bool(probabilities)))


def _row_losses(kind: str, y: np.ndarray, p: np.ndarray) -> dict[str, np.ndarray]:
    """Per row, log loss and Brier (a row's share: the metric is their weighted mean)."""
    q = np.clip(p, _EPS, 1 - _EPS)
    if kind == "multiclass":
        log_loss = -np.log(q[y])
        brier = np.sum((p - y) ** 2, axis=1)
        if p.shape[1] == 2:  # scikit-learn halves the two-class sum (the binary Brier score)
            brier = brier / 2
    else:
        log_loss = -np.mean(np.where(y, np.log(q), np.log1p(-q)), axis=1)
        brier = np.mean((p - y) ** 2, axis=1)
    return {"log loss": log_loss, "Brier": brier}


def _predict(kind: str, s: np.ndarray, threshold: float) -> np.ndarray:
    """The decision of every row and class: (n, C) bool."""
    if kind == "multiclass":
        return np.eye(s.shape[1], dtype=bool)[np.argmax(s, axis=1)]
    return s >= threshold


def _f1(tp: np.ndarray, predicted: np.ndarray, actual: np.ndarray, keep: np.ndarray):
    """(per-class F1, macro F1 over ``keep`` classes, micro F1) from summed weights, on the last
    axis; 0/0 is 0, as scikit-learn's zero_division default gives it."""
    denominator = predicted + actual
    with np.errstate(invalid="ignore", divide="ignore"):
        per_class = np.where(denominator > 0, 2 * tp / np.where(denominator > 0, denominator, 1), 0)
        total = denominator.sum(axis=-1)
        micro = np.where(total > 0, 2 * tp.sum(axis=-1) / np.where(total > 0, total, 1), 0.0)
    macro = per_class[..., keep].mean(axis=-1) if keep.any() else np.full(micro.shape, np.nan)
    return per_class, macro, micro


def _averaged(per_class: np.ndarray, weights: np.ndarray | None) -> np.ndarray:
    """Macro (``weights`` None) or weighted mean over the last axis, classes that are NaN (or
    weigh 0) left out; NaN where none is left."""
    defined = np.isfinite(per_class)
    if weights is not None:
        defined &= weights > 0
    if weights is None:
        n = defined.sum(axis=-1)
        total = np.where(defined, per_class, 0.0).sum(axis=-1)
    else:
        w = np.where(defined, weights, 0.0)
        n = w.sum(axis=-1)
        total = (np.where(defined, per_class, 0.0) * w).sum(axis=-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(n > 0, total / np.where(n > 0, n, 1), np.nan)


def _check(
    y_true: Any, scores: Mapping[str, Any], classes: Any, sample_weight: Any
) -> tuple[str, np.ndarray, dict[str, np.ndarray], np.ndarray | None, tuple[str, ...]]:
    if not isinstance(scores, Mapping) or not scores:
        raise ValueError(
            "scores must map each model's name to its (n_samples, n_classes) score matrix, "
            "with at least one model."
        )
    kind = "multilabel" if np.ndim(y_true) == 2 else "multiclass"
    checked: dict[str, np.ndarray] = {}
    indicator = w = None
    for name, s in scores.items():
        if np.ndim(s) != 2 or np.shape(s)[1] < 2:
            raise ValueError(
                f"{name}'s scores have shape {np.shape(s)}; each model needs one score column "
                "per class (two or more)."
            )
        y, matrix, w = check_multilabel(y_true, s, sample_weight, classes)
        if indicator is not None and matrix.shape != checked[next(iter(checked))].shape:
            raise ValueError(
                f"{name}'s scores have shape {matrix.shape} but "
                f"{next(iter(checked))}'s have {checked[next(iter(checked))].shape}: every model "
                "needs the same rows and classes."
            )
        indicator = y
        checked[str(name)] = matrix
    if classes is not None:
        class_names = tuple(str(c) for c in classes)
    elif kind == "multiclass":  # the sorted distinct labels, as check_multilabel reads them
        class_names = tuple(str(c) for c in np.unique(np.asarray(y_true)))
    else:
        class_names = tuple(str(c) for c in range(indicator.shape[1]))
    return kind, indicator, checked, w, class_names


def compare_multiclass_models(
    y_true: Any,
    scores: Mapping[str, Any],
    *,
    classes: Any = None,
    sample_weight: Any = None,
    groups: Any = None,
    threshold: float = 0.5,
    probabilities: bool | None = None,
    n_resamples: int = 1000,
    alpha: float = 0.05,
    seed: int | np.random.Generator | None = 0,
    small_groups: bool = True,
    family: str | None = None,
) -> MulticlassComparison:
    """Multi-class or multi-label models side by side, with paired intervals and tests.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,) or (n_samples, n_classes)
        One class per row (multi-class), or a 0/1 indicator matrix (multi-label).
    scores : mapping of str -> array-like of shape (n_samples, n_classes)
        Each model's score of every class, columns in the order of ``classes``.
    classes : array-like of shape (n_classes,), optional
        The class of each score column: for multi-class the labels of ``y_true`` (default their
        sorted distinct values); for multi-label only names.
    sample_weight : array-like of shape (n_samples,), optional
    groups : array-like of shape (n_samples,), optional
        The unit rows belong to (a user, a patient): resamples draw whole groups.
    threshold : float, default 0.5
        Multi-label decision rule: a class is predicted where its score is >= this.
    probabilities : bool, optional
        Whether the scores are probabilities (log loss and Brier apply); by default, whether
        every score of every model is within [0, 1].
    n_resamples : int, default 1000
        At most 100,000 (``metrics._bounds.MAX_RESAMPLES``); more raises ValueError.
        0 gives the values only: no interval, test or verdict.
    alpha : float, default 0.05
        One minus the confidence level, and the family-wise error rate of the tests.
    seed : int, numpy Generator or None, default 0
    small_groups : bool, default True
        With ``groups``: widen intervals and tests for few groups (:class:`metrics.SmallGroups`;
        its effective number of groups is the smallest over the classes' positives).
    family : str, optional
        The family the verdicts rest on, declared before looking: a metric's name (the primary
        metric; default ``"macro AUC"``), or ``"all"`` for Holm across every metric × pair.

    Returns
    -------
    MulticlassComparison

    Examples
    --------
    >>> y = ["a", "b", "c", "a", "b", "c"]
    >>> good = [[.8, .1, .1], [.1, .8, .1], [.1, .1, .8], [.6, .3, .1], [.2, .7, .1], [.3, .3, .4]]
    >>> poor = [[.4, .3, .3], [.3, .4, .3], [.5, .2, .3], [.3, .4, .3], [.3, .3, .4], [.3, .3, .4]]
    >>> r = compare_multiclass_models(y, {"good": good, "poor": poor}, n_resamples=0)
    >>> r.values["macro AUC"].round(4).tolist(), r.values["accuracy"].round(4).tolist()
    ([1.0, 0.625], [1.0, 0.5])
    """
    if n_resamples != 0:
        alpha = _check_resampling(n_resamples, alpha, "poisson")
    threshold = float(threshold)
    if not math.isfinite(threshold):
        raise ValueError(f"threshold must be a finite number, got {threshold!r}.")
    kind, y, arrays, w, class_names = _check(y_true, scores, classes, sample_weight)
    names = tuple(arrays)
    n, n_classes = y.shape
    m = len(names)
    ones = np.ones(n) if w is None else w
    notes: list[str] = []
    if probabilities is None:
        probabilities = all(a.min() >= 0 and a.max() <= 1 for a in arrays.values())
        if not probabilities:
            notes.append(
                "Log loss and Brier are left out: some scores are outside [0, 1], so they are "
                "not probabilities."
            )
    if probabilities and kind == "multiclass":
        off = [k for k, a in arrays.items() if not np.allclose(a.sum(axis=1), 1, atol=1e-6)]
        if off:
            notes.append(
                f"The class scores of {', '.join(off)} do not sum to one per row: log loss "
                "reads each row's score of its true class as its probability, as scikit-learn "
                "does."
            )
    specs = _metric_list(kind, bool(probabilities))
    family = default_primary(kind) if family is None else family
    if family != ALL_METRICS and family not in [s.name for s in specs]:
        raise ValueError(
            f'family must be "all" or one of the metrics compared '
            f"({', '.join(s.name for s in specs)}), got {family!r}."
        )
    support = ones @ y

    # --- values on all rows --------------------------------------------------------------
    values: dict[str, np.ndarray] = {s.name: np.full(m, np.nan) for s in specs}
    per_class = {name: np.full((m, n_classes), np.nan) for name in PER_CLASS}
    predicted = {k: _predict(kind, a, threshold) for k, a in arrays.items()}
    present = y.any(axis=0)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", UndefinedMetricWarning)
        for i, a in enumerate(arrays.values()):
            for avg in AVERAGES:
                values[f"{avg} AUC"][i] = roc_auc_score(y, a, average=avg, sample_weight=w)
                values[f"{avg} AP"][i] = average_precision_score(y, a, average=avg, sample_weight=w)
            per_class["AUC"][i] = roc_auc_score(y, a, average=None, sample_weight=w)
            per_class["AP"][i] = average_precision_score(y, a, average=None, sample_weight=w)
    for message in dict.fromkeys(str(c.message) for c in caught):
        notes.append(message)
    rows: dict[str, np.ndarray] = {}  # per-row values of the row-mean metrics, (n, m) each
    if probabilities:
        losses = [_row_losses(kind, y, a) for a in arrays.values()]
        for name in ("log loss", "Brier"):
            rows[name] = np.column_stack([x[name] for x in losses])
    rows["accuracy"] = np.column_stack([(predicted[k] == y).all(axis=1) for k in names]).astype(
        np.float64
    )
    total = ones.sum()
    for name, v in rows.items():
        values[name] = (ones @ v) / total if total > 0 else np.full(m, np.nan)
    # F1: the classes scikit-learn averages over (multi-class: those in the truth or the
    # predictions of the model; multi-label: every class).
    keep = {
        k: (present | predicted[k].any(axis=0))
        if kind == "multiclass"
        else np.ones(n_classes, bool)
        for k in names
    }
    tp_rows = {k: y & predicted[k] for k in names}
    for i, k in enumerate(names):
        f1, macro, micro = _f1(ones @ tp_rows[k], ones @ predicted[k], support, keep[k])
        per_class["F1"][i], values["macro F1"][i], values["micro F1"][i] = f1, macro, micro
    if kind == "multiclass":
        rule = "each row's class is the one it scores highest (a tie goes to the first class)"
    else:
        rule = f"a class is predicted where its score is ≥ {threshold:g}"

    # --- resamples -------------------------------------------------------------------------
    results = per_class_intervals = None
    small = None
    n_groups = None
    if n_resamples:
        g = None
        if groups is not None:
            g = np.asarray(groups)
            if g.ndim != 1 or g.size != n:
                raise ValueError(f"groups needs one value per row ({n} rows), got shape {g.shape}.")
        replicates = {s.name: np.full((n_resamples, m), np.nan) for s in specs}
        class_reps = {name: np.full((n_resamples, m, n_classes), np.nan) for name in PER_CLASS}
        fast = dict(
            n_resamples=n_resamples, alpha=alpha, seed=seed, counts="poisson", small_groups=False
        )
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UndefinedMetricWarning)
            for c in range(n_classes):
                r = fast_paired_bootstrap(
                    y[:, c], *(a[:, c] for a in arrays.values()), sample_weight=w, groups=g, **fast
                )
                class_reps["AUC"][:, :, c] = r.results["roc_auc"].replicates
                class_reps["AP"][:, :, c] = r.results["average_precision"].replicates
            # Micro: every (row, class) cell, each counted as often as its row is drawn.
            cells = np.repeat(np.arange(n) if g is None else g, n_classes)
            r = fast_paired_bootstrap(
                y.ravel(),
                *(a.ravel() for a in arrays.values()),
                sample_weight=None if w is None else np.repeat(w, n_classes),
                groups=cells,
                **fast,
            )
            replicates["micro AUC"][:] = r.results["roc_auc"].replicates
            replicates["micro AP"][:] = r.results["average_precision"].replicates
        draws = (
            _Draws(np.zeros(n, bool), seed, "poisson", False)
            if g is None
            else _GroupDraws(g, n, seed, "poisson")
        )
        # Per block: the class supports, the row-mean metrics and the F1 sums, as dot products
        # of the counts (times the weights) with per-row columns.
        columns = [y, *(tp_rows[k] for k in names), *(predicted[k] for k in names), *rows.values()]
        matrix = np.column_stack([np.asarray(x, np.float64) for x in columns]) * ones[:, None]
        matrix = np.column_stack([matrix, ones])
        block = max(1, min(n_resamples, _BLOCK_CELLS // max(n, 1)))
        for first in range(0, n_resamples, block):
            size = min(block, n_resamples - first)
            sums = draws.block(size).astype(np.float64) @ matrix
            at = slice(first, first + size)
            sup = sums[:, :n_classes]
            k0 = n_classes
            tps = sums[:, k0 : k0 + m * n_classes].reshape(size, m, n_classes)
            k0 += m * n_classes
            preds = sums[:, k0 : k0 + m * n_classes].reshape(size, m, n_classes)
            k0 += m * n_classes
            weight = sums[:, -1]
            with np.errstate(invalid="ignore", divide="ignore"):
                for name in rows:
                    replicates[name][at] = sums[:, k0 : k0 + m] / weight[:, None]
                    k0 += m
            for i, k in enumerate(names):
                f1, macro, micro = _f1(tps[:, i], preds[:, i], sup, keep[k])
                class_reps["F1"][at, i] = f1
                replicates["macro F1"][at, i] = macro
                replicates["micro F1"][at, i] = micro
            for avg, weights in (("macro", None), ("weighted", sup[:, None, :])):
                for name in ("AUC", "AP"):
                    replicates[f"{avg} {name}"][at] = _averaged(class_reps[name][at], weights)
        results = {s.name: _result(list(values[s.name]), replicates[s.name], alpha) for s in specs}
        if g is not None:
            _, inverse = np.unique(g, return_inverse=True)
            inverse = inverse.reshape(-1)
            n_groups = int(inverse.max()) + 1
            if small_groups:
                sizes = np.column_stack(
                    [np.bincount(inverse, weights=ones * y[:, c], minlength=n_groups)
                     for c in range(n_classes)]
                )  # fmt: skip
                sizes = sizes[:, sizes.sum(axis=0) > 0]
                small = small_groups_correction(sizes, alpha=alpha)
                if small.factor != 1.0:
                    results = {
                        s.name: _widened(results[s.name], [small] * m, [_bounds(s.name)] * m)
                        for s in specs
                    }
        per_class_intervals = {}
        for name, reps in class_reps.items():
            iv = np.full((m, n_classes, 2), np.nan)
            for i in range(m):
                for c in range(n_classes):
                    one = _percentile_interval(per_class[name][i, c], reps[:, i, c], alpha)
                    low, high = one.ci_low, one.ci_high
                    if small is not None and small.factor != 1.0:
                        low, high = small.widen(one.estimate, low, high, (0.0, 1.0))
                    iv[i, c] = (low, high)
            per_class_intervals[name] = iv

    # --- tests and verdicts ----------------------------------------------------------------
    # Accuracy and micro-F1 are one number when every row is predicted exactly one class (the
    # highest score): summed over classes, false positives and false negatives are both the
    # wrong rows. Any other two metrics equal in every model and resample are one number too.
    duplicates = {"micro F1": "accuracy"} if kind == "multiclass" else {}
    if results is not None:
        found_equal = equal_metrics(
            {s.name: np.vstack([values[s.name], results[s.name].replicates]) for s in specs}
        )
        duplicates.update({d: t for d, t in found_equal.items() if d not in duplicates})
        duplicates = {d: t for d, t in duplicates.items() if t not in duplicates}
    tests = []
    for s in specs:
        for i in range(m):
            for j in range(i + 1, m):
                p = results[s.name].difference_p_value(i, j) if results is not None else math.nan
                diff = float(values[s.name][i] - values[s.name][j])
                tests.append((s.name, names[i], names[j], float(p), diff))
    fam = family_verdicts(tests, family=family, duplicates=duplicates, alpha=alpha)
    pairs: list[MulticlassPair] = []
    best: dict[str, BestModel] = {}
    direction = {s.name: s.higher_is_better for s in specs}
    for s in specs:
        best[s.name] = family_best(
            fam, s.name, names, values[s.name], higher_is_better=s.higher_is_better,
            floor=1 / n_resamples if n_resamples else 0.0,
        )  # fmt: skip
    for row in fam.rows:
        i, j = names.index(row.a), names.index(row.b)
        low = high = math.nan
        if results is not None:
            iv = results[row.metric].differences[(i, j)]
            low, high = iv.ci_low, iv.ci_high
        pairs.append(
            MulticlassPair(
                row.metric, row.a, row.b, row.estimate, low, high, row.p_value, row.adjusted_p,
                family_pair_verdict(row, ci=(low, high), higher_is_better=direction[row.metric],
                                    alpha=alpha, floor=1 / n_resamples if n_resamples else 0.0),
                row.role,
            )
        )  # fmt: skip
    free = [fam.declared] if fam.declared in _THRESHOLD_FREE else []
    free += [x for x in _THRESHOLD_FREE if x not in free and x in direction]
    cut = [x for x in ("accuracy", "macro F1", "micro F1") if x not in fam.duplicates]
    disagreements = direction_disagreements(
        {(p.metric, p.model_a, p.model_b): p.difference for p in pairs},
        threshold_free={x: direction[x] for x in free},
        thresholded={x: direction[x] for x in cut},
        cut_off="the decision rule (" + (
            "the highest-scored class" if kind == "multiclass" else f"score ≥ {threshold:g}"
        ) + ")",
        p_values={(p.metric, p.model_a, p.model_b): p.p_value for p in pairs},
        alpha=alpha,
    )  # fmt: skip
    return MulticlassComparison(
        kind=kind,
        models=names,
        classes=class_names,
        metrics=tuple(specs),
        values=values,
        results=results,
        per_class=per_class,
        per_class_intervals=per_class_intervals,
        support=support,
        pairs=tuple(pairs),
        best=best,
        rule=rule,
        n_resamples=int(n_resamples),
        alpha=float(alpha),
        n_groups=n_groups,
        small_groups=small,
        notes=tuple(notes),
        family=fam,
        disagreements=tuple(disagreements),
    )


def _bounds(name: str) -> tuple[float, float]:
    """The range a metric can take, within which widened intervals are clipped."""
    if name == "log loss":
        return (0.0, math.inf)
    if name == "Brier":
        return (0.0, 2.0)
    return (0.0, 1.0)

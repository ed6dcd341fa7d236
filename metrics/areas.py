"""Areas under the curves: ROC AUC and Average Precision.

Both are sums over the distinct-score runs of :func:`metrics.curves._score_runs`:

* AUC is the probability that a random positive scores above a random negative, a tie counting
  one half (the Mann-Whitney U statistic over P * N). It equals the trapezoid area under the ROC
  curve; unweighted, it is computed in exact integer arithmetic.
* AP is scikit-learn's step sum ``sum_i (R_i - R_{i-1}) * P_i`` over distinct thresholds.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

# _auc_from_runs and _auc_unweighted stay importable from here, as before they moved.
from metrics._auc_core import _auc_binary, _auc_from_runs, _auc_unweighted  # noqa: F401
from metrics._validation import as_real, check_binary_inputs, warn_undefined
from metrics.average_precision import ap_breakdown, check_method
from metrics.curves import _score_runs
from metrics.multiclass import check_ovo_average, ovo_roc_auc
from metrics.multilabel import average as average_classes
from metrics.multilabel import (
    check_average,
    check_multilabel,
    check_sorted_labels,
    is_multilabel,
    per_row_counts,
)

__all__ = ["auc", "average_precision_score", "roc_auc_score"]


def auc(x: Any, y: Any) -> float:
    """Area under the piecewise-linear curve through the points (x, y), by the trapezoid rule.

    ``x`` must be monotonic (increasing or decreasing), as for a ROC curve.

    >>> auc([0.0, 0.0, 0.5, 0.5, 1.0], [0.0, 0.5, 0.5, 1.0, 1.0])
    0.75
    """
    x = as_real(x, "x")
    y = as_real(y, "y")
    if x.shape != y.shape or x.ndim != 1 or x.size < 2:
        raise ValueError(
            f"auc needs two 1-D arrays of the same length >= 2, got shapes {x.shape} and {y.shape}."
        )
    dx = np.diff(x)
    if (dx < 0).any() and (dx > 0).any():
        raise ValueError("x must be monotonic (all increasing or all decreasing) for auc.")
    area = float(np.sum(dx * (y[1:] + y[:-1])) / 2)
    return -area if (dx < 0).any() else area


def _ap_from_runs(pos: np.ndarray, neg: np.ndarray, method: str = "step") -> float:
    tps = np.cumsum(pos)
    if tps.size == 0 or tps[-1] <= 0:
        warn_undefined(
            "No positive samples in y_true: average precision is undefined, returning NaN."
        )
        return float("nan")
    if method == "step":
        # The default, on the hot path: recall rises by pos_i / P where precision is
        # tps_i / (tps_i + fps_i). The terms are added one after another in descending score
        # (not pairwise), so runs of zero weight change nothing and the fast bootstrap, which
        # keeps them, gets the same bits.
        terms = pos * (tps / (tps + np.cumsum(neg)))
        return float(np.add.accumulate(terms)[-1] / tps[-1])
    return ap_breakdown(tps, np.cumsum(neg), method).value


def _auc_rows(indicator: np.ndarray, scores: np.ndarray) -> np.ndarray:
    """AUC of each row's labels ranked by that row's scores (rank-sum with tie-averaged ranks)."""
    _, _, start, end, y = per_row_counts(indicator, scores)
    n_labels = scores.shape[1]
    n_pos = y.sum(axis=1)
    n_neg = n_labels - n_pos
    # Sorted position j (decreasing score) has ascending rank n_labels - j; ties share the mean.
    rank_sum = np.sum(y * (n_labels - (start + end) / 2), axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        auc = (rank_sum - n_pos * (n_pos + 1) / 2) / (n_pos * n_neg)
    return np.where((n_pos > 0) & (n_neg > 0), auc, np.nan)


def _ap_rows(method: str) -> Callable[[np.ndarray, np.ndarray], np.ndarray]:
    def rows(indicator: np.ndarray, scores: np.ndarray) -> np.ndarray:
        tps, fps, *_ = per_row_counts(indicator, scores)
        out = np.full(scores.shape[0], np.nan)
        has_pos = tps[:, -1] > 0
        out[has_pos] = ap_breakdown(tps[has_pos], fps[has_pos], method).value
        return out

    return rows


def roc_auc_score(
    y_true: Any,
    y_score: Any,
    *,
    average: str | None = "macro",
    sample_weight: Any = None,
    pos_label: Any = None,
    labels: Any = None,
    max_fpr: float | None = None,
    multi_class: str = "raise",
) -> float | np.ndarray:
    """Area under the ROC curve, ties counting one half; equal to scikit-learn's.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,) or (n_samples, n_classes)
        Binary labels; or an indicator matrix (multi-label); or one class label per row with a
        score column per class (multi-class, one-vs-rest). Binary labels other than 0/1, -1/1
        or booleans with no ``pos_label``: the greater of the two values is positive, as in
        scikit-learn.
    y_score : array-like of shape (n_samples,) or (n_samples, n_classes)
    average : {"macro", "micro", "weighted", "samples"} or None, default "macro"
        How per-class values combine (see :mod:`metrics.multilabel`); binary input ignores it.
    sample_weight : array-like of shape (n_samples,), optional
    pos_label : scalar, optional
        The positive class of binary input (an addition to scikit-learn's signature).
    labels : array-like of shape (n_classes,), optional
        Multi-class input: the class of each score column (default: sorted distinct labels).
    max_fpr : float in (0, 1], optional
        Binary input: the partial AUC over FPR in [0, ``max_fpr``], the ROC curve linearly
        interpolated at ``max_fpr``, then standardised as McClish (1989) does and scikit-learn
        returns: ``(1 + (A − A_min) / (A_max − A_min)) / 2`` with ``A_min = max_fpr² / 2``
        (chance) and ``A_max = max_fpr`` (perfect), so chance is 0.5 and perfect 1.
    multi_class : {"raise", "ovr", "ovo"}, default "raise"
        Multi-class input (one label per row, a score column per class) must say which, as in
        scikit-learn ("raise" refuses it): one-vs-rest per class, or Hand & Till's one-vs-one
        average over every pair of classes ``j < k`` of ``(AUC(j | k) + AUC(k | j)) / 2``,
        each on the rows of those two classes only, with class ``j``'s score column for
        ``AUC(j | k)``. ``average="weighted"`` weighs a pair by the share of rows in it
        (scikit-learn's ``multi_class="ovo"``); only "macro" and "weighted" apply. Given
        ``labels`` must be sorted (the columns follow the sorted classes, as in scikit-learn);
        "samples" and ``max_fpr`` do not apply.

    Returns
    -------
    float, or ndarray of shape (n_classes,) when ``average=None``
        NaN, with an :class:`UndefinedMetricWarning`, when only one class is present.

    Examples
    --------
    Seed 004's first example: 3 of the 4 positive-negative pairs are ordered correctly.

    >>> roc_auc_score([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8])
    0.75
    """
    check_average(average)
    if max_fpr is not None and not 0 < max_fpr <= 1:
        raise ValueError(f"max_fpr must be in (0, 1], got {max_fpr!r}.")
    if multi_class not in ("raise", "ovr", "ovo"):
        raise ValueError(f"multi_class must be 'ovr' or 'ovo', got {multi_class!r}.")
    partial = max_fpr is not None and max_fpr != 1
    if np.ndim(y_true) == 1 and is_multilabel(y_true, y_score):
        # One class per row and a score column per class: multi-class, as scikit-learn reads it.
        if multi_class == "raise":
            raise ValueError(
                "y_true holds one class per row and y_score a column per class: pass "
                "multi_class 'ovr' or 'ovo' (each class against the rest, or Hand & Till's "
                "pairs of classes), as scikit-learn asks."
            )
        if partial:
            raise ValueError(
                "max_fpr (partial AUC) is for binary labels only; leave it out for "
                "multi-class labels, as scikit-learn does."
            )
        if multi_class == "ovo":
            check_ovo_average(average)  # before the labels, as scikit-learn checks them
            check_sorted_labels(labels)
            return ovo_roc_auc(
                y_true, y_score, labels=labels, average=average, sample_weight=sample_weight
            )
        check_sorted_labels(labels)
        if average == "samples":
            raise ValueError(
                "average='samples' needs several labels per row; with one class per row use "
                "'macro', 'weighted', 'micro' or None, as scikit-learn requires."
            )
    if is_multilabel(y_true, y_score):
        if partial:
            raise ValueError("max_fpr (partial AUC) is for binary labels only.")
        indicator, scores, w = check_multilabel(y_true, y_score, sample_weight, labels)
        return average_classes(_auc_binary, _auc_rows, indicator, scores, w, average, "ROC AUC")
    y, s, w = check_binary_inputs(
        y_true, y_score, sample_weight, pos_label, default_positive="greater"
    )
    if max_fpr is None or max_fpr == 1:
        return _auc_binary(y, s, w)
    return _partial_auc(y, s, w, max_fpr)


def _partial_auc(y: np.ndarray, s: np.ndarray, w: np.ndarray | None, max_fpr: float) -> float:
    """McClish-standardised area under the ROC curve up to FPR ``max_fpr``."""
    from metrics.curves import roc_curve

    if not y.any() or y.all():
        return _auc_binary(y, s, w)  # NaN with the one-class warning
    fpr, tpr, _ = roc_curve(y, s, sample_weight=w, pos_label=True, drop_intermediate=True)
    return partial_auc_from_roc(fpr, tpr, max_fpr)


def partial_auc_from_roc(fpr: np.ndarray, tpr: np.ndarray, max_fpr: float) -> float:
    """The McClish-standardised partial AUC over FPR in [0, ``max_fpr``] of a ROC curve
    ``(fpr, tpr)`` that starts at (0, 0) and ends at (1, 1), linearly interpolated at
    ``max_fpr`` (what :func:`roc_auc_score` does with ``max_fpr``, from its curve)."""
    stop = int(np.searchsorted(fpr, max_fpr, "right"))
    tpr_end = np.interp(max_fpr, fpr[stop - 1 : stop + 1], tpr[stop - 1 : stop + 1])
    partial = auc(np.append(fpr[:stop], max_fpr), np.append(tpr[:stop], tpr_end))
    min_area, max_area = 0.5 * max_fpr**2, max_fpr
    return float(0.5 * (1 + (partial - min_area) / (max_area - min_area)))


def average_precision_score(
    y_true: Any,
    y_score: Any,
    *,
    average: str | None = "macro",
    pos_label: Any = 1,
    sample_weight: Any = None,
    method: str = "step",
    labels: Any = None,
) -> float | np.ndarray:
    """Average precision over distinct thresholds, by one of five methods.

    With ``method="step"`` (the default) this is ``sum_i (R_i - R_{i-1}) * P_i``, equal to
    ``sklearn.metrics.average_precision_score`` (version 0.19 and later). Tied scores form one
    threshold. The other methods are described in :mod:`metrics.average_precision`.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,) or (n_samples, n_classes)
        As in :func:`roc_auc_score`.
    y_score : array-like of shape (n_samples,) or (n_samples, n_classes)
    average : {"macro", "micro", "weighted", "samples"} or None, default "macro"
        How per-class values combine; binary input ignores it.
    pos_label : scalar, default 1
        The positive class of binary input; multi-class and multi-label input refuse any
        other value than 1 (each class is positive in turn), as scikit-learn does.
    sample_weight : array-like of shape (n_samples,), optional
    method : {"step", "trapezoid", "voc11", "voc_all", "coco101"}, default "step"
    labels : array-like of shape (n_classes,), optional
        Multi-class input: the class of each score column.

    Returns
    -------
    float, or ndarray of shape (n_classes,) when ``average=None``
        NaN, with an :class:`UndefinedMetricWarning`, when there are no positives.

    Examples
    --------
    Seed 000: AP = 1/2 * 1 + 0 * 1/2 + 1/2 * 2/3 + 0 * 2/4 = 5/6.

    >>> average_precision_score([0, 0, 1, 1], [0.4, 0.1, 0.8, 0.35])
    0.8333333333333333
    >>> round(average_precision_score([1, 0, 1, 0], [1, 0.8, 0.6, 0.4], method="trapezoid"), 4)
    0.7917
    """
    check_average(average)
    check_method(method)
    if is_multilabel(y_true, y_score):
        if not (pos_label is True or (not isinstance(pos_label, str) and pos_label == 1)):
            raise ValueError(
                f"pos_label={pos_label!r} does not apply to multi-class or multi-label y_true: "
                "each class is positive in turn. Leave pos_label out (or set it to 1), as "
                "scikit-learn requires."
            )
        indicator, scores, w = check_multilabel(y_true, y_score, sample_weight, labels)

        def binary(y: np.ndarray, s: np.ndarray, w: np.ndarray | None) -> float:
            return _ap_from_runs(*_score_runs(y, s, w)[1:], method)

        return average_classes(
            binary, _ap_rows(method), indicator, scores, w, average, "Average precision"
        )
    y, s, w = check_binary_inputs(y_true, y_score, sample_weight, pos_label)
    _, pos, neg = _score_runs(y, s, w)
    return _ap_from_runs(pos, neg, method)

"""Single-label multi-class scores: one score column per class, one true class per row.

Per-class (one-vs-rest) AUC and AP come from :func:`metrics.roc_auc_score` and
:func:`metrics.average_precision_score`, which accept this input directly. Here: the N x N
confusion matrix of the arg-max prediction and top-k accuracy.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from metrics._auc_core import _auc_binary
from metrics._validation import as_real, refuse_complex, warn_undefined
from metrics.multilabel import check_multilabel, check_sorted_labels

__all__ = ["multiclass_confusion_matrix", "ovo_roc_auc", "top_k_accuracy_score"]


class NoPerClassValues(NotImplementedError, ValueError):
    """``roc_auc_score(multi_class="ovo", average=None)``: scikit-learn raises
    ``NotImplementedError``; it is a ``ValueError`` too, as every other refusal here."""


def check_ovo_average(average: Any) -> None:
    """Refuse an ``average`` one-vs-one AUC has no meaning for."""
    if average is None:
        raise NoPerClassValues(
            "average=None has no per-class values with multi_class='ovo' (Hand & Till's "
            "measure is one number over pairs of classes); use multi_class='ovr' for one AUC "
            "per class, or average='macro' or 'weighted'."
        )
    if average not in ("macro", "weighted"):
        raise ValueError(f"multi_class='ovo' takes average='macro' or 'weighted', got {average!r}.")


def _true_columns(y_true: Any, y_score: Any, labels: Any, sample_weight: Any):
    indicator, scores, w = check_multilabel(y_true, y_score, sample_weight, labels)
    if np.ndim(y_true) == 2:
        raise ValueError(
            "y_true must hold one class label per row here, not an indicator matrix; "
            "for multi-label data use the per-class metrics with average=."
        )
    return np.argmax(indicator, axis=1), scores, w


def multiclass_confusion_matrix(
    y_true: Any,
    y_score: Any,
    *,
    labels: Any = None,
    sample_weight: Any = None,
    normalize: str | None = None,
) -> np.ndarray:
    """Confusion matrix of the arg-max prediction: rows are true classes, columns predicted.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        One class label per row.
    y_score : array-like of shape (n_samples, n_classes)
        One score column per class, in the order of ``labels``.
    labels : array-like of shape (n_classes,), optional
        The class of each column; default the sorted distinct labels of ``y_true``.
    sample_weight : array-like of shape (n_samples,), optional
    normalize : {"true", "pred", "all"} or None
        Divide by row totals (per true class: recall on the diagonal), by column totals
        (precision on the diagonal), by the grand total, or not at all. 0/0 is 0.

    Returns
    -------
    ndarray of shape (n_classes, n_classes)
        Counts (int) when unweighted and not normalised, floats otherwise. A tie for the
        highest score goes to the first such column, as ``np.argmax`` does.

    Examples
    --------
    >>> multiclass_confusion_matrix(["a", "b", "b"], [[0.7, 0.3], [0.6, 0.4], [0.2, 0.8]])
    array([[1, 0],
           [1, 1]])
    """
    if normalize not in (None, "true", "pred", "all"):
        raise ValueError(f"normalize must be None, 'true', 'pred' or 'all', got {normalize!r}.")
    truth, scores, w = _true_columns(y_true, y_score, labels, sample_weight)
    n_classes = scores.shape[1]
    predicted = np.argmax(scores, axis=1)
    cells = np.bincount(
        truth * n_classes + predicted, weights=w, minlength=n_classes * n_classes
    ).reshape(n_classes, n_classes)
    if normalize is None:
        return cells
    totals = {
        "true": cells.sum(axis=1, keepdims=True),
        "pred": cells.sum(axis=0, keepdims=True),
        "all": cells.sum(keepdims=True),
    }[normalize]
    return np.divide(cells, totals, out=np.zeros(cells.shape), where=totals != 0)


def _binary_top_k(y_true: Any, y_score: Any, k: int, labels: Any, sample_weight: Any) -> float:
    """Binary labels with one score per row (of the greater class), as scikit-learn reads them:
    with k = 1 a row is right when its prediction, score > 0.5 for scores in [0, 1] and > 0
    otherwise, is its class; with k >= 2 both classes are in the top k, so every row is."""
    y = np.asarray(y_true)
    s = as_real(y_score, "y_score")
    classes = np.unique(y) if labels is None else np.asarray(labels)
    if classes.size > 2 or y.shape != s.shape:
        raise ValueError(
            "One score per row needs binary labels and one score for each row; found "
            f"{classes.size} classes and {s.size} scores for {y.size} rows."
        )
    w = None if sample_weight is None else as_real(sample_weight, "sample_weight")
    if k >= 2:
        return 1.0
    positive = y == classes[-1]
    threshold = 0.5 if s.min() >= 0 and s.max() <= 1 else 0.0
    return float(np.average((s > threshold) == positive, weights=w))


def top_k_accuracy_score(
    y_true: Any,
    y_score: Any,
    *,
    k: int = 2,
    labels: Any = None,
    sample_weight: Any = None,
) -> float:
    """Share of rows whose true class is among the k highest-scored classes.

    Ties are broken as scikit-learn's ``top_k_accuracy_score`` breaks them: among equal scores
    the column further right ranks higher. The result equals scikit-learn's. Binary labels
    may come with one score per row (of the greater class), as in scikit-learn. ``labels``, when
    given, must be sorted (the columns follow the sorted classes); ``k`` at least the number of
    classes gives 1 with an :class:`UndefinedMetricWarning`, as in scikit-learn.

    >>> top_k_accuracy_score([0, 1, 2], [[0.5, 0.3, 0.2], [0.5, 0.3, 0.2], [0.5, 0.3, 0.2]], k=2)
    0.6666666666666666
    """
    if not isinstance(k, (int, np.integer)) or isinstance(k, bool) or k < 1:
        raise ValueError(f"k must be a positive integer, got {k!r}.")
    refuse_complex(np.asarray(y_true), "y_true")
    check_sorted_labels(labels)
    n_classes = 2 if np.ndim(y_score) == 1 else np.shape(y_score)[1]
    if k >= n_classes:
        warn_undefined(
            f"k={k} is at least the number of classes ({n_classes}): every row's class is in "
            "its top k, so the score is 1 whatever the model."
        )
    if np.ndim(y_score) == 1:
        return _binary_top_k(y_true, y_score, k, labels, sample_weight)
    truth, scores, w = _true_columns(y_true, y_score, labels, sample_weight)
    rows = np.arange(scores.shape[0])
    true_score = scores[rows, truth][:, None]
    cols = np.arange(scores.shape[1])[None, :]
    # Rank of the true class from 0: classes scored higher, plus tied classes to its right.
    rank = np.sum(scores > true_score, axis=1) + np.sum(
        (scores == true_score) & (cols > truth[:, None]), axis=1
    )
    return float(np.average(rank < k, weights=w))


def ovo_roc_auc(
    y_true: Any,
    y_score: Any,
    *,
    labels: Any = None,
    average: str | None = "macro",
    sample_weight: Any = None,
) -> float:
    """Hand & Till's one-vs-one multi-class ROC AUC, equal to scikit-learn's ``multi_class="ovo"``.

    The mean over every pair of classes ``j < k`` *present in* ``y_true`` of
    ``(AUC(j | k) + AUC(k | j)) / 2``, each on the rows of those two classes only, with class
    ``j``'s score column for ``AUC(j | k)``. ``average="weighted"`` weighs a pair by the share of
    rows in it.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        One class label per row.
    y_score : array-like of shape (n_samples, n_classes)
        One score column per class, in the order of ``labels``.
    labels : array-like of shape (n_classes,), optional
        The class of each score column; default the sorted distinct labels of ``y_true``.
    average : {"macro", "weighted"}, default "macro"
    sample_weight : None
        Refused, as scikit-learn refuses it: Hand & Till's measure has no weighted form.

    Returns
    -------
    float
        A class named in ``labels`` with no row in ``y_true`` forms no pair (it has no rows to
        rank), so it is left out, as scikit-learn leaves it out; its score column is unused.
        NaN, with an :class:`UndefinedMetricWarning`, when fewer than two classes are present.

    Examples
    --------
    scikit-learn's ``test_multiclass_ovo_roc_auc_toydata_binary``: class 1 is absent, so the
    only pair is (0, 2), with AUC(0 | 2) = 0 and AUC(2 | 0) = 0.5.

    >>> ovo_roc_auc([0, 2, 0, 2], [[0.2, 0, 0.8], [0.6, 0, 0.4], [0.55, 0, 0.45], [0.4, 0, 0.6]],
    ...             labels=[0, 1, 2])
    0.25
    """
    check_ovo_average(average)
    if sample_weight is not None:
        raise ValueError("multi_class='ovo' does not take sample weights (as in scikit-learn).")
    truth = np.asarray(y_true)
    if truth.ndim != 1:
        raise ValueError("multi_class='ovo' needs one class label per row in y_true.")
    indicator, scores, _ = check_multilabel(truth, y_score, None, labels)
    present = np.flatnonzero(indicator.any(axis=0))
    if present.size < 2:
        warn_undefined(
            f"y_true holds {present.size} of the {indicator.shape[1]} classes; one-vs-one ROC "
            "AUC needs rows of at least two classes. Returning NaN."
        )
        return float("nan")
    values, weights = [], []
    for a, j in enumerate(present):
        for k in present[a + 1 :]:
            rows = indicator[:, j] | indicator[:, k]
            a_jk = _auc_binary(indicator[rows, j], scores[rows, j], None)
            a_kj = _auc_binary(indicator[rows, k], scores[rows, k], None)
            values.append((a_jk + a_kj) / 2)
            weights.append(rows.mean())
    if average == "weighted":
        return float(np.average(values, weights=weights))
    return float(np.mean(values))

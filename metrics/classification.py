"""scikit-learn's thresholded classification metrics in plain numpy: labels in, labels out.

Every function here takes predicted labels, not scores: a decision rule has already been
applied. (The probability losses, ``log_loss`` and ``brier_score_loss``, are in
:mod:`metrics.probability_losses`; the label-ranking metrics and ``metric_at_thresholds`` in
:mod:`metrics.label_ranking`.) For binary, multi-class (one label per row) and
multi-label (an indicator matrix, dense or scipy sparse, read by duck typing through
``.toarray()``) targets, the results, dtypes aside, equal ``sklearn.metrics``' functions of the
same names, including their ``labels``, ``pos_label``, ``average``, ``zero_division`` and
``sample_weight`` semantics and the cases where they warn. Error messages are our own.

Everything rests on :func:`multilabel_confusion_matrix`: one 2 x 2 matrix per class from three
``bincount`` calls (or column sums for indicator matrices); precision, recall, F-beta, Jaccard
and the averages are arithmetic on those counts.

The shared example: ``y_true = [0, 0, 1, 1]`` and scores ``[0.1, 0.4, 0.35, 0.8]`` thresholded
at 0.5, so ``y_pred = [0, 0, 0, 1]``.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from metrics._validation import (
    UndefinedMetricWarning,
    _plural,
    _positions,
    check_sample_weight,
)

__all__ = [
    "accuracy_score",
    "balanced_accuracy_score",
    "class_likelihood_ratios",
    "classification_report",
    "cohen_kappa_score",
    "confusion_matrix",
    "f1_score",
    "fbeta_score",
    "hamming_loss",
    "jaccard_score",
    "matthews_corrcoef",
    "multilabel_confusion_matrix",
    "precision_recall_fscore_support",
    "precision_score",
    "recall_score",
    "zero_one_loss",
]

_AVERAGES = (None, "micro", "macro", "weighted", "samples")


def _warn(message: str, category: type[Warning] = UndefinedMetricWarning) -> None:
    warnings.warn(message, category, stacklevel=3)


# --- targets ---------------------------------------------------------------------------------


def _densify(y: Any) -> np.ndarray:
    """A numpy array; a scipy sparse matrix (anything with ``.toarray()``) is made dense."""
    if hasattr(y, "toarray") and not isinstance(y, np.ndarray):
        return np.asarray(y.toarray())
    return np.asarray(y)


def _target(y: Any, name: str) -> tuple[str, np.ndarray]:
    """("multilabel", bool matrix) or ("labels", 1-D array), with what is wrong said plainly."""
    arr = _densify(y)
    if arr.ndim == 2 and arr.shape[1] == 1:
        arr = arr[:, 0]
    if arr.ndim == 0 or arr.ndim > 2:
        raise ValueError(
            f"{name} must be one label per row (1-D) or an indicator matrix (2-D), "
            f"got shape {arr.shape}."
        )
    if arr.shape[0] == 0:
        raise ValueError(f"{name} is empty; a metric needs at least one row.")
    if arr.ndim == 2:
        if arr.dtype.kind == "b":
            return "multilabel", arr
        if arr.dtype.kind in "iuf" and ((arr == 0) | (arr == 1)).all():
            return "multilabel", arr != 0
        raise ValueError(
            f"{name} is a {arr.shape[0]} x {arr.shape[1]} matrix with values other than 0/1; "
            "a matrix must be a multi-label indicator (0/1 or booleans, one column per class). "
            "Multi-output targets are not supported."
        )
    if arr.dtype.kind == "f":
        bad = ~np.isfinite(arr)
        if bad.any():
            raise ValueError(
                f"{name} has {_plural(int(bad.sum()), 'NaN or infinite value')} at "
                f"{_positions(bad)}; every row needs a label."
            )
        fractional = arr != np.round(arr)
        if fractional.any():
            raise ValueError(
                f"{name} has {_plural(int(fractional.sum()), 'non-integer value')} at "
                f"{_positions(fractional)} (for example {arr[fractional][0]!r}): these look "
                "like scores. Classification metrics need class labels; threshold the scores "
                "first."
            )
    elif arr.dtype.kind == "O":
        missing = np.array([v is None or v != v for v in arr.tolist()], dtype=bool)
        if missing.any():
            raise ValueError(
                f"{name} has {_plural(int(missing.sum()), 'missing value')} at "
                f"{_positions(missing)}; every row needs a label."
            )
    return "labels", arr


def _union(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    strings = [x.dtype.kind in "US" for x in (a, b)]
    numbers = [x.dtype.kind in "biuf" for x in (a, b)]
    if (strings[0] and numbers[1]) or (numbers[0] and strings[1]):
        raise ValueError("y_true and y_pred mix string and number labels; use one type for both.")
    try:
        return np.unique(np.concatenate((a, b)))
    except TypeError:
        raise ValueError(
            "The labels mix types that do not sort (for example strings and numbers); "
            "use one type for every label."
        ) from None


def _check_targets(y_true: Any, y_pred: Any, sample_weight: Any = None):
    """(kind, present labels, y_true, y_pred, weights); kind is binary / multiclass / multilabel.

    For "multilabel" the present labels are the column indices and the arrays bool matrices.
    """
    kind_t, yt = _target(y_true, "y_true")
    kind_p, yp = _target(y_pred, "y_pred")
    if kind_t != kind_p:
        form = {"multilabel": "an indicator matrix", "labels": "one label per row"}
        raise ValueError(
            f"y_true is {form[kind_t]} but y_pred is {form[kind_p]}; pass both in the same form."
        )
    if yt.shape[0] != yp.shape[0]:
        raise ValueError(
            f"y_true has {yt.shape[0]} rows but y_pred has {yp.shape[0]}; "
            "they must be the same length."
        )
    if kind_t == "multilabel":
        if yt.shape != yp.shape:
            raise ValueError(
                f"y_true has {yt.shape[1]} columns (classes) but y_pred has {yp.shape[1]}; "
                "they must have the same classes."
            )
        present = np.arange(yt.shape[1])
        kind = "multilabel"
    else:
        present = _union(yt, yp)
        kind = "binary" if present.size <= 2 else "multiclass"
    w = check_sample_weight(sample_weight, yt.shape[0])
    return kind, present, yt, yp, w


# --- counts ----------------------------------------------------------------------------------


def _class_sums(
    kind: str,
    present: np.ndarray,
    yt: np.ndarray,
    yp: np.ndarray,
    w: np.ndarray | None,
    labels: Any,
    samplewise: bool,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, Any]:
    """(tp, predicted, true) per selected class (or per row if samplewise), and the total."""
    if labels is None:
        n_selected = None
        all_labels = present
    else:
        labels = np.asarray(labels)
        if labels.ndim != 1 or labels.size == 0:
            raise ValueError(f"labels must be a non-empty list of classes, got {labels!r}.")
        n_selected = labels.size
        all_labels = np.concatenate((labels, np.setdiff1d(present, labels, assume_unique=True)))
    if kind != "multilabel":
        if samplewise:
            raise ValueError(
                "average='samples' needs multi-label targets (an indicator matrix); "
                "for one label per row use 'micro', 'macro' or 'weighted'."
            )
        sorted_labels = np.unique(all_labels)
        k = sorted_labels.size
        t = np.searchsorted(sorted_labels, yt)
        p = np.searchsorted(sorted_labels, yp)
        hit = t == p
        tp = np.bincount(t[hit], weights=None if w is None else w[hit], minlength=k)
        pred = np.bincount(p, weights=w, minlength=k)
        true = np.bincount(t, weights=w, minlength=k)
        if not hit.any():  # scikit-learn's counts turn float here (its reports print 1.0)
            tp, pred, true = (a.astype(np.float64) for a in (tp, pred, true))
        idx = np.searchsorted(sorted_labels, all_labels[:n_selected])
        total = yt.shape[0] if w is None else w.sum()
        return tp[idx], pred[idx], true[idx], total
    n_cols = yt.shape[1]
    if labels is not None and not np.array_equal(labels, present):
        if labels.dtype.kind not in "iu" or labels.max() >= n_cols or labels.min() < 0:
            raise ValueError(
                f"labels for multi-label targets are column indices in [0, {n_cols}); "
                f"got {labels.tolist()[:10]}."
            )
        yt = yt[:, labels]
        yp = yp[:, labels]
    both = yt & yp
    if samplewise:
        counts = [np.count_nonzero(m, axis=1) for m in (both, yp, yt)]
        if w is None:
            return counts[0], counts[1], counts[2], yt.shape[1]
        return counts[0] * w, counts[1] * w, counts[2] * w, w * yt.shape[1]
    if w is None:
        tp, pred, true = (np.count_nonzero(m, axis=0) for m in (both, yp, yt))
        return tp, pred, true, yt.shape[0]
    return (
        _weighted_column_sums(both, w),
        _weighted_column_sums(yp, w),
        _weighted_column_sums(yt, w),
        w.sum(),
    )


def _weighted_column_sums(m: np.ndarray, w: np.ndarray) -> np.ndarray:
    """Per column, the weights of its True rows, added row by row (scikit-learn's order)."""
    rows, cols = np.nonzero(m)
    return np.bincount(cols, weights=w[rows], minlength=m.shape[1]).astype(np.float64)


def _tp_pred_true(kind, present, yt, yp, w, labels, samplewise):
    """(tp, tp + fp, tp + fn), summed in scikit-learn's order so that float sums match."""
    tp, pred, true, _ = _class_sums(kind, present, yt, yp, w, labels, samplewise)
    return tp, tp + (pred - tp), tp + (true - tp)


def multilabel_confusion_matrix(
    y_true: Any,
    y_pred: Any,
    *,
    sample_weight: Any = None,
    labels: Any = None,
    samplewise: bool = False,
) -> np.ndarray:
    """One-vs-rest 2 x 2 confusion matrices, one per class (or per row), as scikit-learn's.

    Parameters
    ----------
    y_true, y_pred : array-like of shape (n_samples,) or (n_samples, n_classes)
        Labels, or multi-label indicator matrices (dense or scipy sparse).
    sample_weight : array-like of shape (n_samples,), optional
    labels : array-like, optional
        The classes to report, in this order (column indices for indicator matrices);
        default every class present in either input, sorted.
    samplewise : bool, default False
        One matrix per row instead of per class (indicator matrices only).

    Returns
    -------
    ndarray of shape (n_outputs, 2, 2)
        ``[[tn, fp], [fn, tp]]`` per class (or row): integer counts, or total weights.

    Examples
    --------
    >>> multilabel_confusion_matrix([0, 0, 1, 1], [0, 0, 0, 1]).tolist()
    [[[1, 1], [0, 2]], [[2, 0], [1, 1]]]
    """
    kind, present, yt, yp, w = _check_targets(y_true, y_pred, sample_weight)
    tp, pred, true, total = _class_sums(kind, present, yt, yp, w, labels, samplewise)
    fp = pred - tp
    fn = true - tp
    tn = total - tp - fp - fn
    return np.stack([tn, fp, fn, tp]).T.reshape(-1, 2, 2)


# --- precision, recall, F ----------------------------------------------------------------------


def _check_zero_division(zero_division: Any) -> float:
    if isinstance(zero_division, str):
        if zero_division == "warn":
            return 0.0
    elif isinstance(zero_division, (int, float, np.number)) and not isinstance(zero_division, bool):
        if zero_division in (0, 1):
            return float(zero_division)
        if np.isnan(zero_division):
            return float("nan")
    raise ValueError(f'zero_division must be "warn", 0, 1 or np.nan, got {zero_division!r}.')


def _divide(
    num: np.ndarray,
    den: np.ndarray,
    metric: str,
    modifier: str,
    average: Any,
    warn_for: tuple[str, ...],
    zero_division: Any,
) -> np.ndarray:
    """num / den, with ``zero_division`` where den is 0 and scikit-learn's warning."""
    den = np.asarray(den, dtype=np.float64)
    mask = den == 0
    result = np.asarray(num, dtype=np.float64) / np.where(mask, 1.0, den)
    if not mask.any():
        return result
    result[mask] = _check_zero_division(zero_division)
    if isinstance(zero_division, str) and metric in warn_for:
        where, unit = ("label", "sample") if average != "samples" else ("sample", "label")
        scope = "due to" if result.size == 1 else f"in {where}s with"
        _warn(
            f"{metric.capitalize()} is ill-defined and set to 0.0 {scope} no {modifier} "
            f"{unit}s. Pass zero_division= to choose the value and silence this warning."
        )
    return result


def _nanaverage(values: np.ndarray, weights: np.ndarray | None) -> float:
    if values.size == 0:
        return float("nan")
    defined = ~np.isnan(values)
    if not defined.any():
        return float("nan")
    if weights is None:
        return float(np.mean(values[defined]))
    values, weights = values[defined], np.asarray(weights)[defined]
    if weights.sum() == 0:  # all weights 0: scikit-learn falls back to the plain mean
        return float(np.mean(values))
    return float(np.average(values, weights=weights))


def _set_wise_labels(kind: str, present: np.ndarray, average: Any, labels: Any, pos_label: Any):
    if average not in _AVERAGES and average != "binary":
        raise ValueError(f"average must be 'binary' or one of {_AVERAGES}, got {average!r}.")
    if average == "binary":
        if kind != "binary":
            options = [a for a in _AVERAGES if kind == "multilabel" or a != "samples"]
            raise ValueError(
                f"The target is {kind} but average='binary'; choose one of {options} "
                "(or labels=[the class] with average='micro' for one class)."
            )
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # numpy's elementwise comparison of mixed types
            known = bool(np.any(present == pos_label))
        if not known and present.size >= 2:
            raise ValueError(
                f"pos_label={pos_label!r} is not a label of y_true or y_pred "
                f"{present.tolist()}; pass one of them."
            )
        return [pos_label]
    if pos_label not in (None, 1):
        _warn(
            f"pos_label={pos_label!r} is ignored when average={average!r} (it only applies to "
            "average='binary'); pass labels=[pos_label] to score one class.",
            UserWarning,
        )
    return labels


def precision_recall_fscore_support(
    y_true: Any,
    y_pred: Any,
    *,
    beta: float = 1.0,
    labels: Any = None,
    pos_label: Any = 1,
    average: str | None = None,
    warn_for: tuple[str, ...] = ("precision", "recall", "f-score"),
    sample_weight: Any = None,
    zero_division: Any = "warn",
):
    """Precision, recall, F-beta and support per class, or averaged, as scikit-learn's.

    Parameters
    ----------
    y_true, y_pred : array-like of shape (n_samples,) or (n_samples, n_classes)
        Labels, or multi-label indicator matrices (dense or scipy sparse).
    beta : float, default 1.0
        Weight of recall against precision in F-beta; ``inf`` gives recall, 0 precision.
    labels : array-like, optional
        Classes to include (and their order for ``average=None``); may name absent classes.
    pos_label : scalar, default 1
        The class scored when ``average="binary"``.
    average : {"binary", "micro", "macro", "weighted", "samples"} or None, default None
        ``None``: per class. ``"binary"``: ``pos_label`` only. ``"micro"``: from the counts
        summed over classes. ``"macro"``: plain mean over classes. ``"weighted"``: mean
        weighted by support. ``"samples"``: per row, then mean (indicator matrices only).
    warn_for : tuple of str
        Which of "precision", "recall", "f-score" warn when ill-defined.
    sample_weight : array-like of shape (n_samples,), optional
    zero_division : {"warn", 0, 1, np.nan}, default "warn"
        Value of a 0/0 ratio; "warn" means 0 with an :class:`UndefinedMetricWarning`. NaN values
        are left out of the averages.

    Returns
    -------
    precision, recall, fbeta : float or ndarray of shape (n_classes,)
    support : ndarray of shape (n_classes,) or None
        The true count (or weight) of each class; None when averaged.

    Examples
    --------
    >>> p, r, f, s = precision_recall_fscore_support([0, 0, 1, 1], [0, 0, 0, 1])
    >>> p.round(4).tolist(), r.tolist(), f.round(4).tolist(), s.tolist()
    ([0.6667, 1.0], [1.0, 0.5], [0.8, 0.6667], [2, 2])
    """
    _check_zero_division(zero_division)
    if not (isinstance(beta, (int, float, np.number)) and beta >= 0):
        raise ValueError(f"beta must be a number >= 0, got {beta!r}.")
    kind, present, yt, yp, w = _check_targets(y_true, y_pred, sample_weight)
    labels = _set_wise_labels(kind, present, average, labels, pos_label)
    samplewise = average == "samples"
    tp, pred, true = _tp_pred_true(kind, present, yt, yp, w, labels, samplewise)
    if average == "micro":
        tp, pred, true = (np.reshape(np.sum(a), (1,)) for a in (tp, pred, true))
    beta2 = beta**2
    precision = _divide(tp, pred, "precision", "predicted", average, warn_for, zero_division)
    recall = _divide(tp, true, "recall", "true", average, warn_for, zero_division)
    if np.isposinf(beta):
        f_score = recall
    elif beta == 0:
        f_score = precision
    else:
        denom = beta2 * np.asarray(true, dtype=np.float64) + np.asarray(pred, dtype=np.float64)
        f_score = _divide(
            (1 + beta2) * np.asarray(tp, dtype=np.float64),
            denom,
            "f-score",
            "true nor predicted",
            average,
            warn_for,
            zero_division,
        )
    if average is None:
        return precision, recall, f_score, true
    weights = {"weighted": true, "samples": w}.get(average)
    return (
        _nanaverage(precision, weights),
        _nanaverage(recall, weights),
        _nanaverage(f_score, weights),
        None,
    )


def fbeta_score(
    y_true: Any,
    y_pred: Any,
    *,
    beta: float,
    labels: Any = None,
    pos_label: Any = 1,
    average: str | None = "binary",
    sample_weight: Any = None,
    zero_division: Any = "warn",
):
    """F-beta, ``(1 + b^2) TP / ((1 + b^2) TP + b^2 FN + FP)``, as scikit-learn's.

    Parameters as :func:`precision_recall_fscore_support`; ``average`` defaults to "binary".

    >>> round(fbeta_score([0, 0, 1, 1], [0, 0, 0, 1], beta=2), 4)
    0.5556
    """
    return precision_recall_fscore_support(
        y_true,
        y_pred,
        beta=beta,
        labels=labels,
        pos_label=pos_label,
        average=average,
        warn_for=("f-score",),
        sample_weight=sample_weight,
        zero_division=zero_division,
    )[2]


def f1_score(
    y_true: Any,
    y_pred: Any,
    *,
    labels: Any = None,
    pos_label: Any = 1,
    average: str | None = "binary",
    sample_weight: Any = None,
    zero_division: Any = "warn",
):
    """F1, the harmonic mean of precision and recall, as scikit-learn's.

    Parameters as :func:`precision_recall_fscore_support`; ``average`` defaults to "binary".

    >>> round(f1_score([0, 0, 1, 1], [0, 0, 0, 1]), 4)
    0.6667
    >>> round(f1_score([0, 0, 1, 1], [0, 0, 0, 1], average="macro"), 4)
    0.7333
    """
    return fbeta_score(
        y_true,
        y_pred,
        beta=1,
        labels=labels,
        pos_label=pos_label,
        average=average,
        sample_weight=sample_weight,
        zero_division=zero_division,
    )


def precision_score(
    y_true: Any,
    y_pred: Any,
    *,
    labels: Any = None,
    pos_label: Any = 1,
    average: str | None = "binary",
    sample_weight: Any = None,
    zero_division: Any = "warn",
):
    """Precision, TP / (TP + FP), as scikit-learn's.

    Parameters as :func:`precision_recall_fscore_support`; ``average`` defaults to "binary".

    >>> precision_score([0, 0, 1, 1], [0, 0, 0, 1])
    1.0
    """
    return precision_recall_fscore_support(
        y_true,
        y_pred,
        labels=labels,
        pos_label=pos_label,
        average=average,
        warn_for=("precision",),
        sample_weight=sample_weight,
        zero_division=zero_division,
    )[0]


def recall_score(
    y_true: Any,
    y_pred: Any,
    *,
    labels: Any = None,
    pos_label: Any = 1,
    average: str | None = "binary",
    sample_weight: Any = None,
    zero_division: Any = "warn",
):
    """Recall, TP / (TP + FN), as scikit-learn's.

    Parameters as :func:`precision_recall_fscore_support`; ``average`` defaults to "binary".

    >>> recall_score([0, 0, 1, 1], [0, 0, 0, 1])
    0.5
    """
    return precision_recall_fscore_support(
        y_true,
        y_pred,
        labels=labels,
        pos_label=pos_label,
        average=average,
        warn_for=("recall",),
        sample_weight=sample_weight,
        zero_division=zero_division,
    )[1]


def jaccard_score(
    y_true: Any,
    y_pred: Any,
    *,
    labels: Any = None,
    pos_label: Any = 1,
    average: str | None = "binary",
    sample_weight: Any = None,
    zero_division: Any = "warn",
):
    """Jaccard index, TP / (TP + FP + FN), as scikit-learn's.

    Parameters as :func:`precision_recall_fscore_support`. Unlike there, a NaN from
    ``zero_division=np.nan`` makes the average NaN (scikit-learn does the same).

    >>> jaccard_score([0, 0, 1, 1], [0, 0, 0, 1])
    0.5
    """
    _check_zero_division(zero_division)
    kind, present, yt, yp, w = _check_targets(y_true, y_pred, sample_weight)
    labels = _set_wise_labels(kind, present, average, labels, pos_label)
    samplewise = average == "samples"
    tp, pred, true = _tp_pred_true(kind, present, yt, yp, w, labels, samplewise)
    num = tp
    den = tp + (pred - tp) + (true - tp)
    if average == "micro":
        num, den = np.reshape(np.sum(num), (1,)), np.reshape(np.sum(den), (1,))
    jaccard = _divide(
        num, den, "jaccard", "true or predicted", average, ("jaccard",), zero_division
    )
    if average is None:
        return jaccard
    weights = None
    if average == "weighted":
        weights = true if np.any(true) else None
    elif average == "samples":
        weights = w
    return float(np.average(jaccard, weights=weights))


# --- single-number scores ------------------------------------------------------------------


def accuracy_score(
    y_true: Any, y_pred: Any, *, normalize: bool = True, sample_weight: Any = None
) -> float:
    """Share of rows predicted exactly right (subset accuracy for indicator matrices).

    ``normalize=False`` returns the number (or total weight) of such rows.

    >>> accuracy_score([0, 0, 1, 1], [0, 0, 0, 1])
    0.75
    """
    kind, _, yt, yp, w = _check_targets(y_true, y_pred, sample_weight)
    right = (yt == yp).all(axis=1) if kind == "multilabel" else yt == yp
    if normalize:
        return float(np.average(right, weights=w))
    return float(np.count_nonzero(right) if w is None else np.dot(right, w))


def zero_one_loss(
    y_true: Any, y_pred: Any, *, normalize: bool = True, sample_weight: Any = None
) -> float:
    """1 - :func:`accuracy_score`: the share (or count) of rows not exactly right.

    >>> zero_one_loss([0, 0, 1, 1], [0, 0, 0, 1])
    0.25
    """
    score = accuracy_score(y_true, y_pred, normalize=normalize, sample_weight=sample_weight)
    if normalize:
        return 1 - score
    n = _densify(y_true).shape[0] if sample_weight is None else np.sum(sample_weight)
    return float(n - score)


def hamming_loss(y_true: Any, y_pred: Any, *, sample_weight: Any = None) -> float:
    """Share of wrong labels: of wrong cells for indicator matrices, of wrong rows otherwise.

    >>> hamming_loss([[0, 1], [1, 1]], [[0, 0], [1, 1]])
    0.25
    """
    kind, _, yt, yp, w = _check_targets(y_true, y_pred, sample_weight)
    if kind == "multilabel":
        wrong = np.count_nonzero(yt != yp, axis=1)
        mean_weight = 1.0 if w is None else np.average(w)
        total = wrong.sum() if w is None else np.dot(wrong, w)
        return float(total) / (yt.shape[0] * yt.shape[1] * mean_weight)
    return float(np.average(yt != yp, weights=w))


def _index_of(values: np.ndarray, labels: np.ndarray) -> np.ndarray:
    """Position of each value in ``labels`` (any order); ``labels.size`` where it is absent."""
    order = np.argsort(labels, kind="stable")
    ranked = labels[order]
    pos = np.searchsorted(ranked, values)
    inside = pos < ranked.size
    found = np.zeros(values.shape, dtype=bool)
    found[inside] = ranked[pos[inside]] == values[inside]
    out = np.full(values.shape, labels.size, dtype=np.int64)
    out[found] = order[pos[found]]
    return out


def confusion_matrix(
    y_true: Any,
    y_pred: Any,
    *,
    labels: Any = None,
    sample_weight: Any = None,
    normalize: str | None = None,
) -> np.ndarray:
    """The N x N confusion matrix of labels: rows true classes, columns predicted.

    Parameters
    ----------
    y_true, y_pred : array-like of shape (n_samples,)
    labels : array-like of shape (n_classes,), optional
        Classes and their order; rows whose true or predicted label is not among them are
        dropped. Default: every class present, sorted.
    sample_weight : array-like of shape (n_samples,), optional
    normalize : {"true", "pred", "all"} or None
        Divide by row totals, by column totals, by the grand total, or not at all; 0/0 is 0.

    Returns
    -------
    ndarray of shape (n_classes, n_classes)
        int64 counts when unweighted (or integer weights) and not normalised, float otherwise.

    Examples
    --------
    >>> confusion_matrix([0, 0, 1, 1], [0, 0, 0, 1]).tolist()
    [[2, 0], [1, 1]]
    >>> confusion_matrix([0, 0, 1, 1], [0, 0, 0, 1], normalize="true").tolist()
    [[1.0, 0.0], [0.5, 0.5]]
    """
    if normalize not in (None, "true", "pred", "all"):
        raise ValueError(f"normalize must be None, 'true', 'pred' or 'all', got {normalize!r}.")
    kind, present, yt, yp, w = _check_targets(y_true, y_pred, sample_weight)
    if kind == "multilabel":
        raise ValueError(
            "confusion_matrix needs one label per row; for indicator matrices use "
            "multilabel_confusion_matrix."
        )
    if labels is None:
        labels = present
    else:
        labels = np.asarray(labels)
        if labels.size == 0:
            raise ValueError("labels must name at least one class.")
        if np.intersect1d(yt, labels).size == 0:
            raise ValueError(
                f"None of labels {labels.tolist()[:10]} occurs in y_true; pass at least one "
                "class that does."
            )
    n = labels.size
    t = _index_of(yt, labels)
    p = _index_of(yp, labels)
    keep = (t < n) & (p < n)
    if not keep.all():
        t, p = t[keep], p[keep]
        w = None if w is None else w[keep]
    given = None if sample_weight is None else np.asarray(sample_weight).reshape(-1)
    if given is not None and given.dtype.kind in "biu":
        # Integer weights are summed as int64 integers, exactly (a float sum loses units past
        # 2**53), and wrap past 2**63 - 1 as numpy's and scikit-learn's int64 sums do.
        cm = np.zeros(n * n, dtype=np.int64)
        np.add.at(cm, t * n + p, (given if keep.all() else given[keep]).astype(np.int64))
        cm = cm.reshape(n, n)
    else:
        cm = np.bincount(t * n + p, weights=w, minlength=n * n).reshape(n, n)
        cm = cm.astype(np.int64 if given is None else np.float64)
    if normalize is not None:
        totals = {
            "true": cm.sum(axis=1, keepdims=True),
            "pred": cm.sum(axis=0, keepdims=True),
            "all": cm.sum(keepdims=True),
        }[normalize]
        cm = np.divide(cm, totals, out=np.zeros(cm.shape), where=totals != 0)
    if cm.shape == (1, 1):
        _warn(
            "Only one label occurs in y_true and y_pred, so the matrix is 1 x 1; pass labels= "
            "listing every class for the full matrix.",
            UserWarning,
        )
    return cm


def balanced_accuracy_score(
    y_true: Any, y_pred: Any, *, sample_weight: Any = None, adjusted: bool = False
) -> float:
    """Mean recall over the classes present in ``y_true``; ``adjusted`` maps chance to 0.

    Classes that occur only in ``y_pred`` are left out, with a warning, as in scikit-learn.

    >>> balanced_accuracy_score([0, 0, 1, 1], [0, 0, 0, 1])
    0.75
    """
    cm = confusion_matrix(y_true, y_pred, sample_weight=sample_weight)
    totals = cm.sum(axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        per_class = np.diag(cm) / totals
    if np.isnan(per_class).any():
        _warn("y_pred contains classes not in y_true; they are left out.", UserWarning)
        per_class = per_class[~np.isnan(per_class)]
    score = np.mean(per_class)
    if adjusted:
        chance = 1 / per_class.shape[0]
        score -= chance
        score /= 1 - chance
    return float(score)


def matthews_corrcoef(y_true: Any, y_pred: Any, *, sample_weight: Any = None) -> float:
    """Matthews correlation coefficient, multi-class (Gorodkin's R_K); 0 when undefined.

    >>> round(matthews_corrcoef([0, 0, 1, 1], [0, 0, 0, 1]), 4)
    0.5774
    """
    kind, _, yt, yp, w = _check_targets(y_true, y_pred, sample_weight)
    if kind == "multilabel":
        raise ValueError(
            "matthews_corrcoef needs one label per row; score each column of an indicator "
            "matrix separately."
        )
    cm = confusion_matrix(yt, yp, sample_weight=w)
    t_sum = cm.sum(axis=1, dtype=np.float64)
    p_sum = cm.sum(axis=0, dtype=np.float64)
    n_correct = np.trace(cm, dtype=np.float64)
    n = p_sum.sum()
    cov_tp = n_correct * n - np.dot(t_sum, p_sum)
    cov_pp = n**2 - np.dot(p_sum, p_sum)
    cov_tt = n**2 - np.dot(t_sum, t_sum)
    product = cov_pp * cov_tt
    if product == 0:
        return 0.0
    return float(cov_tp / np.sqrt(product))


def cohen_kappa_score(
    y1: Any,
    y2: Any,
    *,
    labels: Any = None,
    weights: str | None = None,
    sample_weight: Any = None,
    replace_undefined_by: float = np.nan,
) -> float:
    """Cohen's kappa between two raters, optionally with linear or quadratic weights.

    ``1 - sum(W * observed) / sum(W * expected)``, W the disagreement weights (0 on the
    diagonal; 1, ``|i - j|`` or ``(i - j)^2`` off it). Undefined values (no shared rows, one
    class) are ``replace_undefined_by`` with a warning, as in scikit-learn.

    >>> cohen_kappa_score([0, 0, 1, 1], [0, 0, 0, 1])
    0.5
    """
    if weights not in (None, "linear", "quadratic"):
        raise ValueError(f"weights must be None, 'linear' or 'quadratic', got {weights!r}.")
    cm = confusion_matrix(y1, y2, labels=labels, sample_weight=sample_weight).astype(np.float64)
    n_classes = cm.shape[0]
    sum0 = cm.sum(axis=0)
    sum1 = cm.sum(axis=1)
    total = sum0.sum()
    if total == 0:
        _warn(
            "y1 and y2 share no rows whose labels are both among labels: kappa is undefined "
            f"and set to replace_undefined_by={replace_undefined_by}."
        )
        return replace_undefined_by
    expected = np.outer(sum0, sum1) / total
    if weights is None:
        w_mat = np.ones((n_classes, n_classes))
        np.fill_diagonal(w_mat, 0)
    else:
        grid = np.zeros((n_classes, n_classes)) + np.arange(n_classes)
        w_mat = np.abs(grid - grid.T) if weights == "linear" else (grid - grid.T) ** 2
    num = np.sum(w_mat * cm)
    den = np.sum(w_mat * expected)
    if den == 0:
        _warn(
            "y1, y2 and labels have only one class in common: kappa is undefined and set to "
            f"replace_undefined_by={replace_undefined_by}."
        )
        return replace_undefined_by
    return float(1 - num / den)


def class_likelihood_ratios(
    y_true: Any,
    y_pred: Any,
    *,
    labels: Any = None,
    sample_weight: Any = None,
    replace_undefined_by: Any = np.nan,
) -> tuple[float, float]:
    """Positive and negative likelihood ratios of a binary classifier, as scikit-learn's.

    ``LR+ = sensitivity / (1 - specificity)``, ``LR- = (1 - sensitivity) / specificity``. The
    positive class is the second of ``labels`` (default: the greater label). Undefined ratios
    are ``replace_undefined_by`` (NaN, 1.0, or a dict ``{"LR+": a, "LR-": b}``), with a warning.

    >>> class_likelihood_ratios([0, 0, 1, 1], [0, 1, 0, 1])
    (1.0, 1.0)
    """
    kind, _, yt, yp, w = _check_targets(y_true, y_pred, sample_weight)
    if kind != "binary":
        raise ValueError(f"class_likelihood_ratios needs binary targets; these are {kind}.")
    if isinstance(replace_undefined_by, (int, float)) and replace_undefined_by == 1.0:
        replace_undefined_by = {"LR+": 1.0, "LR-": 1.0}
    want_pos = want_neg = np.nan
    if isinstance(replace_undefined_by, dict):
        want_pos = replace_undefined_by.get("LR+")
        want_neg = replace_undefined_by.get("LR-")
        ok_pos = isinstance(want_pos, (int, float)) and (np.isnan(want_pos) or want_pos >= 1)
        ok_neg = isinstance(want_neg, (int, float)) and (np.isnan(want_neg) or 0 <= want_neg <= 1)
        if not (ok_pos and ok_neg):
            raise ValueError(
                "replace_undefined_by as a dict must be {'LR+': a, 'LR-': b} with a in "
                f"[1, inf] or NaN and b in [0, 1] or NaN; got {replace_undefined_by!r}."
            )
    elif not (isinstance(replace_undefined_by, float) and np.isnan(replace_undefined_by)):
        raise ValueError(
            "replace_undefined_by must be np.nan, 1.0 or a dict {'LR+': a, 'LR-': b}, got "
            f"{replace_undefined_by!r}."
        )
    cm = confusion_matrix(yt, yp, sample_weight=w, labels=labels)
    tn, fp, fn, tp = (np.float64(v) for v in cm.ravel())
    support_pos = tp + fn
    support_neg = tn + fp
    lr_pos = lr_neg = np.nan
    if support_pos == 0:
        _warn("No positive rows in y_true: LR+ and LR- are both undefined (NaN).")
    with np.errstate(divide="ignore", invalid="ignore"):
        if fp == 0:
            _warn("No false positives: LR+ is undefined and set to replace_undefined_by.")
            lr_pos = want_pos
        else:
            lr_pos = (tp * support_neg) / (fp * support_pos)
        if tn == 0:
            _warn("No true negatives: LR- is undefined and set to replace_undefined_by.")
            lr_neg = want_neg
        else:
            lr_neg = (fn * support_neg) / (tn * support_pos)
    return float(lr_pos), float(lr_neg)


def classification_report(
    y_true: Any,
    y_pred: Any,
    *,
    labels: Any = None,
    target_names: Any = None,
    sample_weight: Any = None,
    digits: int = 2,
    output_dict: bool = False,
    zero_division: Any = "warn",
) -> str | dict:
    """Per-class precision, recall, F1 and support, and their averages, as scikit-learn's.

    The text is laid out exactly as scikit-learn lays it out; ``output_dict=True`` returns the
    same numbers as nested dicts (unrounded). The micro average is called "accuracy" when it
    equals accuracy (single-label targets with every class reported).

    >>> print(classification_report([0, 0, 1, 1], [0, 0, 0, 1]))
                  precision    recall  f1-score   support
    <BLANKLINE>
               0       0.67      1.00      0.80         2
               1       1.00      0.50      0.67         2
    <BLANKLINE>
        accuracy                           0.75         4
       macro avg       0.83      0.75      0.73         4
    weighted avg       0.83      0.75      0.73         4
    <BLANKLINE>
    """
    kind, present, yt, yp, w = _check_targets(y_true, y_pred, sample_weight)
    labels_given = labels is not None
    labels = present if labels is None else np.asarray(labels)
    micro_is_accuracy = kind != "multilabel" and (
        not labels_given or set(labels.tolist()) >= set(present.tolist())
    )
    if target_names is not None and len(labels) != len(target_names):
        if labels_given:
            _warn(
                f"labels has {len(labels)} entries but target_names has {len(target_names)}.",
                UserWarning,
            )
        else:
            raise ValueError(
                f"There are {len(labels)} classes but {len(target_names)} target_names; "
                "pass labels= to say which classes the names belong to."
            )
    if target_names is None:
        target_names = [f"{label}" for label in labels.tolist()]
    headers = ["precision", "recall", "f1-score", "support"]
    p, r, f1, s = precision_recall_fscore_support(
        yt, yp, labels=labels, average=None, sample_weight=w, zero_division=zero_division
    )
    rows = list(zip(target_names, p, r, f1, s, strict=False))
    averages = ("micro", "macro", "weighted", "samples")[: 4 if kind == "multilabel" else 3]
    if output_dict:
        report: dict = {}
        for name, *values in rows:
            report[name] = dict(zip(headers, [float(v) for v in values], strict=True))
    else:
        width = max(max(len(name) for name in target_names), len("weighted avg"), digits)
        head_fmt = "{:>{width}s} " + " {:>9}" * len(headers)
        text = head_fmt.format("", *headers, width=width) + "\n\n"
        row_fmt = "{:>{width}s} " + " {:>9.{digits}f}" * 3 + " {:>9}\n"
        for row in rows:
            text += row_fmt.format(*row, width=width, digits=digits)
        text += "\n"
    for average in averages:
        heading = "accuracy" if average == "micro" and micro_is_accuracy else f"{average} avg"
        avg_p, avg_r, avg_f, _ = precision_recall_fscore_support(
            yt, yp, labels=labels, average=average, sample_weight=w, zero_division=zero_division
        )
        values = [avg_p, avg_r, avg_f, np.sum(s)]
        if output_dict:
            report[heading] = dict(zip(headers, [float(v) for v in values], strict=True))
        elif heading == "accuracy":
            fmt = "{:>{width}s} " + " {:>9.{digits}}" * 2 + " {:>9.{digits}f}" + " {:>9}\n"
            text += fmt.format(heading, "", "", *values[2:], width=width, digits=digits)
        else:
            text += row_fmt.format(heading, *values, width=width, digits=digits)
    if output_dict:
        if "accuracy" in report:
            report["accuracy"] = report["accuracy"]["precision"]
        return report
    return text

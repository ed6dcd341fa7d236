"""Multi-label and multi-class input: one binary metric per class, then an average.

A binary core (``metrics.areas``) plus this one averaging wrapper serves every mode:

* ``None``: the per-class values;
* ``"macro"``: their plain mean;
* ``"weighted"``: their mean weighted by each class's positives (total sample weight);
* ``"micro"``: one binary problem over every (row, class) cell;
* ``"samples"``: one binary problem per row (labels ranked within the row), averaged over rows
  with the sample weights.

Per class or per row, a value the data cannot define (AP with no positives, AUC with one class
only) is NaN; the averages leave such entries out and say so in one
:class:`~metrics.UndefinedMetricWarning`. Where every entry is defined the results equal
scikit-learn's. (scikit-learn counts an AP with no positives as 0, which drags "samples" averages
down on rows without labels; we leave those rows out instead.)

The "samples" mode is vectorised over rows: each row is sorted once (``argsort`` along axis 1)
and its tie runs are found with array operations, never a Python loop over rows.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import numpy as np

from metrics._validation import (
    UndefinedMetricWarning,
    _as_1d,
    _distinct,
    _plural,
    _positions,
    _to_float,
    check_sample_weight,
    warn_undefined,
)

__all__ = ["check_multilabel", "label_binarize", "per_row_counts"]

AVERAGES = ("macro", "micro", "weighted", "samples", None)


def check_average(average: Any) -> None:
    if average not in AVERAGES:
        raise ValueError(f"average must be one of {AVERAGES}, got {average!r}.")


def is_multilabel(y_true: Any, y_score: Any) -> bool:
    """True when the scores (or the labels) are a matrix with more than one column."""
    return any(np.ndim(a) == 2 and np.shape(a)[1] > 1 for a in (y_true, y_score))


def label_binarize(y: Any, classes: Any = None) -> tuple[np.ndarray, np.ndarray]:
    """One-vs-rest indicator matrix of single labels: (matrix (n, n_classes) bool, classes).

    >>> matrix, classes = label_binarize(["cat", "dog", "cat"])
    >>> matrix.astype(int).tolist(), classes.tolist()
    ([[1, 0], [0, 1], [1, 0]], ['cat', 'dog'])
    """
    arr = _as_1d(y, "y_true")
    classes = _distinct(arr) if classes is None else _unique_labels(classes)
    matrix = arr[:, None] == classes[None, :]
    unknown = ~matrix.any(axis=1)
    if unknown.any():
        raise ValueError(
            f"y_true has {_plural(int(unknown.sum()), 'label')} outside "
            f"the classes {classes.tolist()}, at {_positions(unknown)} (for example "
            f"{arr[np.flatnonzero(unknown)[0]]!r}); pass labels= listing every class."
        )
    return matrix, classes


def _unique_labels(labels: Any) -> np.ndarray:
    """``labels`` as an array, refused when a class is named twice (its score column would be
    ambiguous)."""
    arr = np.asarray(labels)
    seen = dict.fromkeys(arr.tolist())
    if len(seen) != arr.size:
        twice = [v for v in seen if arr.tolist().count(v) > 1]
        raise ValueError(
            f"labels names {_plural(len(twice), 'class')} more than once ({twice[:5]}); "
            "list each class once, in the order of the score columns."
        )
    return arr


def check_sorted_labels(labels: Any) -> None:
    """Refuse ``labels`` that are not in sorted order, where (as in scikit-learn's
    ``roc_auc_score`` and ``top_k_accuracy_score``) the score columns follow the sorted
    classes: an unsorted list would pair a column with the wrong class without a word."""
    if labels is None:
        return
    arr = _unique_labels(labels)
    ordered = _distinct(arr)
    if ordered.size == arr.size and not (ordered == arr).all():
        raise ValueError(
            f"labels must be in sorted order, got {arr.tolist()[:10]}: the score columns "
            f"are read as the sorted classes {ordered.tolist()[:10]}, as in scikit-learn. "
            "Reorder the score columns and labels together."
        )


def _score_matrix(y_score: Any) -> np.ndarray:
    arr = np.asarray(y_score)
    if arr.ndim != 2:
        raise ValueError(f"y_score must be a 2-D (n_samples, n_classes) matrix, got {arr.shape}.")
    flat = _to_float(arr.ravel(), "y_score", "scores").reshape(arr.shape)
    finite = np.isfinite(flat)
    if not finite.all():
        rows = ~finite.all(axis=1)
        raise ValueError(
            f"y_score has {_plural(int((~finite).sum()), 'NaN or infinite value')} in "
            f"{_plural(int(rows.sum()), 'row')} ({_positions(rows)}); scores must be finite."
        )
    return flat


def check_multilabel(
    y_true: Any, y_score: Any, sample_weight: Any = None, labels: Any = None
) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    """Validate multi-label or multi-class input: (indicator (n, C) bool, scores (n, C), weights).

    ``y_true`` is either an (n, C) indicator matrix of 0/1 or booleans, or (multi-class) one
    label per row, turned one-vs-rest with ``labels`` (default: the sorted distinct labels).
    """
    scores = _score_matrix(y_score)
    truth = np.asarray(y_true)
    if truth.ndim == 2 and truth.shape[1] > 1:
        if truth.dtype.kind not in "biuf" or not np.isin(truth, (0, 1)).all():
            raise ValueError(
                "y_true as a matrix must hold 0/1 or booleans (one column per class); "
                f"found values {_distinct(truth.ravel())[:10].tolist()}."
            )
        indicator = truth.astype(bool)
    else:
        indicator, classes = label_binarize(truth, labels)
        if indicator.shape[1] != scores.shape[1]:
            raise ValueError(
                f"y_true has {indicator.shape[1]} classes {classes.tolist()[:10]} but y_score has "
                f"{scores.shape[1]} columns; pass labels= naming the class of each column."
            )
    if indicator.shape != scores.shape:
        raise ValueError(
            f"y_true has shape {indicator.shape} but y_score has shape {scores.shape}; "
            "they must match (one column per class)."
        )
    return indicator, scores, check_sample_weight(sample_weight, scores.shape[0])


def per_row_counts(indicator: np.ndarray, scores: np.ndarray) -> tuple[np.ndarray, ...]:
    """Per row, labels ranked by decreasing score, each position mapped to its tie run.

    Returns ``(tps, fps, start, end, y)``, each of shape (n_rows, n_labels): at sorted
    position ``j`` of a row, the true and false positives with score >= the score there (counted
    to the end of its tie run, so a tie run is one point), the run's first and last position,
    and the label there.
    """
    n_rows, n_labels = scores.shape
    order = np.argsort(-scores, axis=1, kind="stable")
    s = np.take_along_axis(scores, order, axis=1)
    y = np.take_along_axis(indicator, order, axis=1)
    cols = np.broadcast_to(np.arange(n_labels), (n_rows, n_labels))
    new = np.ones((n_rows, n_labels), dtype=bool)
    new[:, 1:] = s[:, 1:] != s[:, :-1]
    last = np.ones((n_rows, n_labels), dtype=bool)
    last[:, :-1] = new[:, 1:]
    start = np.maximum.accumulate(np.where(new, cols, 0), axis=1)
    end = np.flip(np.minimum.accumulate(np.flip(np.where(last, cols, n_labels), 1), axis=1), 1)
    tps_at = np.cumsum(y, axis=1)
    tps = np.take_along_axis(tps_at, end, axis=1)
    fps = end + 1 - tps
    return tps, fps, start, end, y


def average(
    binary: Callable[[np.ndarray, np.ndarray, np.ndarray | None], float],
    rowwise: Callable[[np.ndarray, np.ndarray], np.ndarray],
    indicator: np.ndarray,
    scores: np.ndarray,
    sample_weight: np.ndarray | None,
    average: str | None,
    name: str,
) -> float | np.ndarray:
    """Apply a binary metric per class (or per row, or pooled) and average as asked.

    ``binary(y, s, w)`` takes one validated binary problem and returns its value (NaN when
    undefined); ``rowwise(indicator, scores)`` returns one value per row.
    """
    check_average(average)
    with warnings.catch_warnings():
        # One summary warning below replaces a warning per undefined class.
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        if average == "micro":
            w = None if sample_weight is None else np.repeat(sample_weight, scores.shape[1])
            value = binary(indicator.ravel(), scores.ravel(), w)
            if np.isnan(value):
                warn_undefined(f"{name} is undefined for the pooled (micro) problem: NaN.")
            return value
        if average == "samples":
            values = rowwise(indicator, scores)
            weights = sample_weight
            unit = "row"
        else:
            values = np.array(
                [
                    binary(indicator[:, c], scores[:, c], sample_weight)
                    for c in range(scores.shape[1])
                ]
            )
            if average is None:
                return values
            weights = None
            if average == "weighted":
                w = np.ones(scores.shape[0]) if sample_weight is None else sample_weight
                weights = w @ indicator
            unit = "class"
    defined = ~np.isnan(values)
    if weights is not None:
        defined &= weights > 0  # a zero-weight entry cannot move the average
    if not defined.all():
        left_out = np.flatnonzero(~defined)
        listed = ", ".join(str(i) for i in left_out[:10]) + (", ..." if left_out.size > 10 else "")
        warn_undefined(
            f"{name} is undefined for {_plural(left_out.size, unit)} ({unit} "
            f"position{'s' * (left_out.size > 1)} {listed}: no "
            f"positives{' or no negatives' if 'AUC' in name else ''}); the {average} average "
            "leaves them out."
        )
    if not defined.any():
        return float("nan")
    if weights is None:
        return float(values[defined].mean())
    return float(np.average(values[defined], weights=weights[defined]))

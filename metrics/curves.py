"""Confusion counts at every distinct threshold, and the ROC and precision-recall curves.

Everything here rests on one private helper, :func:`_score_runs`, which sorts the scores once
and returns, for each distinct score, how much positive and negative weight sits exactly on it.
Cumulative sums of those runs are the confusion counts at every threshold; the curves and the
areas in :mod:`metrics.areas` are thin layers over them.

A score greater than or equal to the threshold is predicted positive, as in scikit-learn.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass
from numbers import Real
from typing import Any

import numpy as np

from metrics._validation import check_binary_inputs, refuse_complex, warn_undefined
from metrics.confusion import Confusion

__all__ = [
    "ThresholdCounts",
    "confusion_matrix_at_thresholds",
    "precision_recall_curve",
    "roc_curve",
    "threshold_counts",
]


def _new_value_mask(sorted_values: np.ndarray) -> np.ndarray:
    """True where a sorted array takes a value it has not taken before."""
    new = np.empty(sorted_values.size, dtype=bool)
    new[:1] = True
    np.not_equal(sorted_values[1:], sorted_values[:-1], out=new[1:])
    return new


def _runs(sorted_values: np.ndarray, new: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Distinct values of a sorted array and how often each occurs, given its new-value mask."""
    starts = np.flatnonzero(new)
    return sorted_values[starts], np.diff(starts, append=sorted_values.size)


def _merge_sorted(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Merge two sorted arrays: (merged values, index of each into ``concatenate((a, b))``)."""
    both = np.concatenate((a, b))
    # numpy's stable sort is a timsort, which merges two presorted runs in linear time.
    order = np.argsort(both, kind="stable")
    return both[order], order


def _sorted_parts(y: np.ndarray, s: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The positives' and the negatives' scores, each sorted ascending.

    Sorting the two classes apart and merging them later needs no argsort of the scores:
    numpy's SIMD sort of values is several times faster than an argsort.
    """
    return np.sort(np.compress(y, s)), np.sort(np.compress(~y, s))


def _mostly_tied(pos_new: np.ndarray, neg_new: np.ndarray) -> bool:
    distinct = np.count_nonzero(pos_new) + np.count_nonzero(neg_new)
    return distinct < (pos_new.size + neg_new.size) // 2


def _runs_of_parts(
    pos_sorted: np.ndarray,
    neg_sorted: np.ndarray,
    masks: tuple[np.ndarray, np.ndarray] | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Ascending (score, positive count, negative count) rows, before folding equal scores.

    ``masks`` are the parts' new-value masks when the caller already has them.
    """
    pos_new, neg_new = masks or (_new_value_mask(pos_sorted), _new_value_mask(neg_sorted))
    if _mostly_tied(pos_new, neg_new):
        # Merge only the distinct values, carrying their counts.
        pos_sorted, pos_counts = _runs(pos_sorted, pos_new)
        neg_sorted, neg_counts = _runs(neg_sorted, neg_new)
        values, order = _merge_sorted(pos_sorted, neg_sorted)
        counts = np.concatenate((pos_counts, neg_counts))[order]
        pos = np.where(order < pos_sorted.size, counts, 0)
        return values, pos, counts - pos
    values, order = _merge_sorted(pos_sorted, neg_sorted)
    pos = (order < pos_sorted.size).astype(np.int64)
    return values, pos, 1 - pos


def _fold_descending(
    values: np.ndarray, pos: np.ndarray, neg: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Sum rows of equal (ascending, adjacent) score into one, and return them descending."""
    new = _new_value_mask(values)
    if not new.all():
        starts = np.flatnonzero(new)
        values = values[starts]
        pos = np.add.reduceat(pos, starts)
        neg = np.add.reduceat(neg, starts)
    return values[::-1], pos[::-1], neg[::-1]


def _score_runs(
    y: np.ndarray, s: np.ndarray, w: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per distinct score, in descending order: (score, positive weight, negative weight).

    Takes validated arrays: ``y`` boolean, ``s`` finite float64, ``w`` non-negative or None.
    Unweighted counts are int64 and exact; weighted ones are float64.
    """
    if w is None:
        return _fold_descending(*_runs_of_parts(*_sorted_parts(y, s)))
    # scikit-learn drops zero-weight rows, so their scores are no thresholds; so do we.
    keep = w != 0
    if not keep.all():
        y, s, w = y[keep], s[keep], w[keep]
    if s.size == 0:
        return np.empty(0), np.empty(0), np.empty(0)
    order = np.argsort(s)
    values, y, w = s[order], y[order], w[order]
    pos = np.where(y, w, 0.0)
    return _fold_descending(values, pos, w - pos)


@dataclass(frozen=True, eq=False)
class ThresholdCounts:
    """Confusion counts at every distinct threshold, from one sort of the scores.

    Attributes
    ----------
    thresholds : ndarray of shape (n_thresholds,)
        The distinct scores, in decreasing order.
    tps, fps : ndarray of shape (n_thresholds,)
        Weight of positives and of negatives with ``score >= thresholds[i]``. int64 when
        unweighted, float64 when weighted.

    Examples
    --------
    >>> counts = threshold_counts([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8])
    >>> counts.thresholds.tolist(), counts.tps.tolist(), counts.fps.tolist()
    ([0.8, 0.4, 0.35, 0.1], [1, 1, 2, 2], [0, 1, 1, 2])
    >>> counts.at(0.35).precision
    0.6666666666666666
    """

    thresholds: np.ndarray
    tps: np.ndarray
    fps: np.ndarray

    @classmethod
    def from_runs(cls, values: np.ndarray, pos: np.ndarray, neg: np.ndarray) -> ThresholdCounts:
        return cls(np.ascontiguousarray(values), np.cumsum(pos), np.cumsum(neg))

    @property
    def n_pos(self) -> float:
        """Total weight of the positive class."""
        return self.tps[-1] if self.tps.size else 0

    @property
    def n_neg(self) -> float:
        """Total weight of the negative class."""
        return self.fps[-1] if self.fps.size else 0

    def __len__(self) -> int:
        return self.thresholds.size

    def index_at(self, threshold: float) -> int:
        """Index of the lowest distinct score >= ``threshold``; -1 when none is (all negative)."""
        # thresholds are decreasing; count how many are >= threshold
        return int(np.searchsorted(-self.thresholds, -threshold, side="right")) - 1

    def at(self, threshold: float) -> Confusion:
        """The confusion matrix for ``score >= threshold``: a lookup, not a recount."""
        i = self.index_at(threshold)
        tp = self.tps[i] if i >= 0 else self.tps.dtype.type(0)
        fp = self.fps[i] if i >= 0 else self.fps.dtype.type(0)
        return Confusion(tp=tp, fp=fp, tn=self.n_neg - fp, fn=self.n_pos - tp)

    def roc(self, *, drop_intermediate: bool = False) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(fpr, tpr, thresholds)`` as :func:`roc_curve` returns them, from these counts."""
        return _roc_from_counts(self, drop_intermediate=drop_intermediate)

    def precision_recall(
        self, *, drop_intermediate: bool = False
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(precision, recall, thresholds)`` as :func:`precision_recall_curve` returns them."""
        return _pr_from_counts(self, drop_intermediate=drop_intermediate)

    def at_prevalence(self, prevalence: float) -> ThresholdCounts:
        """These counts with the classes reweighted to ``prevalence``: each positive weighs
        ``prevalence / p`` and each negative ``(1 - prevalence) / (1 - p)`` of itself, where
        ``p`` is the counts' own prevalence, so the total weight is unchanged. The scores
        within each class keep their distribution, so TPR, FPR and the ROC curve stay exactly
        where they were, while precision, the PR curve, AP, F1 and accuracy move as they
        would on data with that class balance (a test set resampled to it, in expectation).

        >>> counts = threshold_counts([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8])
        >>> rare = counts.at_prevalence(0.2)
        >>> float(rare.n_pos), float(rare.n_neg)
        (0.8, 3.2)
        >>> float(rare.at(0.35).recall), float(rare.at(0.35).fpr)  # the ROC point: unchanged
        (1.0, 0.5)
        >>> round(float(rare.at(0.35).precision), 4)  # 0.8 / (0.8 + 1.6), was 2/3
        0.3333
        """
        n_pos, n_neg = float(self.n_pos), float(self.n_neg)
        if not n_pos > 0 or not n_neg > 0:
            raise ValueError("Reweighting to a prevalence needs rows of both classes.")
        if isinstance(prevalence, np.ndarray) and prevalence.ndim == 0:
            prevalence = prevalence.item()  # a 0-d array: its number
        if isinstance(prevalence, (bool, str, bytes)) or not isinstance(prevalence, Real):
            raise ValueError(
                f"prevalence must be a real number strictly between 0 and 1; got a "
                f"{type(prevalence).__name__}."
            )
        try:
            prevalence = float(prevalence)
        except OverflowError:  # an int past a float's range
            prevalence = math.inf
        if not 0.0 < prevalence < 1.0:
            raise ValueError(f"A prevalence lies strictly between 0 and 1; got {prevalence!r}.")
        here = n_pos / (n_pos + n_neg)
        return ThresholdCounts(
            self.thresholds,
            self.tps * (prevalence / here),
            self.fps * ((1.0 - prevalence) / (1.0 - here)),
        )

    def average_precision(self) -> float:
        """Average precision (scikit-learn's step sum, over these distinct thresholds): the
        sum of the precision at each threshold times the recall gained there. Equal to
        :func:`average_precision_score` on the rows the counts came from, and defined for
        reweighted counts too (:meth:`at_prevalence`).

        >>> threshold_counts([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8]).average_precision()
        0.8333333333333333
        """
        n_pos = float(self.n_pos)
        if not n_pos > 0:
            return float("nan")
        flagged = self.tps + self.fps
        precision = np.divide(
            self.tps, flagged, out=np.zeros(self.tps.shape, np.float64), where=flagged > 0
        )
        gained = np.diff(self.tps, prepend=0) / n_pos
        return float(np.sum(gained * precision))

    def confusion(self) -> Confusion:
        """The confusion matrices at every threshold, as one :class:`Confusion` of arrays."""
        return Confusion(
            tp=self.tps, fp=self.fps, tn=self.n_neg - self.fps, fn=self.n_pos - self.tps
        )


def threshold_counts(
    y_true: Any, y_score: Any, *, pos_label: Any = None, sample_weight: Any = None
) -> ThresholdCounts:
    """Confusion counts at every distinct threshold, from one sort of the scores.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        Binary labels: {0, 1}, {-1, 1}, booleans, or any two values with ``pos_label``.
    y_score : array-like of shape (n_samples,)
        Scores; higher means more likely positive.
    pos_label : scalar, optional
        The positive class; needed when the labels are not 0/1, -1/1 or booleans.
    sample_weight : array-like of shape (n_samples,), optional
        Non-negative row weights. Rows of weight 0 are ignored, as in scikit-learn.

    Returns
    -------
    ThresholdCounts
    """
    y, s, w = check_binary_inputs(y_true, y_score, sample_weight, pos_label)
    return ThresholdCounts.from_runs(*_score_runs(y, s, w))


def confusion_matrix_at_thresholds(
    y_true: Any, y_score: Any, *args: Any, pos_label: Any = None, sample_weight: Any = None
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """``(tns, fps, fns, tps, thresholds)`` at every distinct threshold, as scikit-learn's
    (1.9): float counts; with ``pos_label`` every other label is negative, so ``y_true`` may
    hold more than two classes, or none equal to ``pos_label`` (then every row is negative).

    >>> y_true, y_score = [0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8]
    >>> tns, fps, fns, tps, thr = confusion_matrix_at_thresholds(y_true, y_score)
    >>> tns.tolist(), fps.tolist(), fns.tolist(), tps.tolist()
    ([2.0, 1.0, 1.0, 0.0], [0.0, 1.0, 1.0, 2.0], [1.0, 1.0, 0.0, 0.0], [1.0, 1.0, 2.0, 2.0])

    ``pos_label`` and ``sample_weight`` are keywords; scikit-learn 1.9 still takes them by
    position with a ``FutureWarning`` (an error from 1.11), and so does this function.
    """
    if args:
        names = ("pos_label", "sample_weight")
        if len(args) > len(names):
            raise TypeError(
                f"confusion_matrix_at_thresholds takes 2 positional arguments (y_true, y_score); "
                f"got {2 + len(args)}."
            )
        passed = ", ".join(f"{n}={v!r}" for n, v in zip(names, args, strict=False))
        warnings.warn(
            f"Pass {passed} as keyword args: scikit-learn 1.11 refuses them by position.",
            FutureWarning,
            stacklevel=2,
        )
        if pos_label is not None or (len(args) == 2 and sample_weight is not None):
            raise TypeError(
                "confusion_matrix_at_thresholds got pos_label or sample_weight both by position "
                "and by keyword; pass each once, as a keyword."
            )
        pos_label = args[0]
        if len(args) == 2:
            sample_weight = args[1]
    if pos_label is not None:
        truth = np.asarray(y_true)
        refuse_complex(truth, "y_true")  # before the comparison turns it into booleans
        refuse_complex(np.asarray(pos_label), "pos_label")
        y_true, pos_label = truth == pos_label, True
    c = threshold_counts(y_true, y_score, pos_label=pos_label, sample_weight=sample_weight)
    tps, fps = c.tps.astype(np.float64), c.fps.astype(np.float64)
    return c.n_neg - fps, fps, c.n_pos - tps, tps, c.thresholds


def _keep_corners(keep_inner: np.ndarray) -> np.ndarray:
    return np.flatnonzero(np.concatenate(([True], keep_inner, [True])))


def roc_curve(
    y_true: Any,
    y_score: Any,
    *,
    pos_label: Any = None,
    sample_weight: Any = None,
    drop_intermediate: bool = False,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Receiver operating characteristic: false and true positive rates at every threshold.

    The same arrays as ``sklearn.metrics.roc_curve``: one point per distinct score plus a first
    point (0, 0) at threshold ``+inf``.

    Parameters
    ----------
    y_true, y_score, pos_label, sample_weight
        As in :func:`threshold_counts`.
    drop_intermediate : bool, default False
        Drop points that lie on a straight line between their neighbours (they change no area).

    Returns
    -------
    fpr, tpr : ndarray of shape (n_thresholds + 1,)
    thresholds : ndarray of shape (n_thresholds + 1,)
        Decreasing; ``thresholds[0]`` is ``inf``.

    Examples
    --------
    >>> fpr, tpr, thr = roc_curve([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8])
    >>> fpr.tolist(), tpr.tolist(), thr.tolist()
    ([0.0, 0.0, 0.5, 0.5, 1.0], [0.0, 0.5, 0.5, 1.0, 1.0], [inf, 0.8, 0.4, 0.35, 0.1])
    """
    c = threshold_counts(y_true, y_score, pos_label=pos_label, sample_weight=sample_weight)
    return c.roc(drop_intermediate=drop_intermediate)


def _roc_from_counts(
    c: ThresholdCounts, *, drop_intermediate: bool = False
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    fps, tps, thresholds = c.fps, c.tps, c.thresholds
    if drop_intermediate and fps.size > 2:
        # A point is a corner when either count bends there (non-zero second difference).
        idx = _keep_corners((np.diff(fps, 2) != 0) | (np.diff(tps, 2) != 0))
        fps, tps, thresholds = fps[idx], tps[idx], thresholds[idx]
    fps = np.concatenate(([0], fps))
    tps = np.concatenate(([0], tps))
    thresholds = np.concatenate(([np.inf], thresholds))
    if c.n_neg <= 0:
        warn_undefined("No negative samples in y_true: the false positive rate is undefined.")
        fpr = np.full(fps.shape, np.nan)
    else:
        fpr = fps / fps[-1]
    if c.n_pos <= 0:
        warn_undefined("No positive samples in y_true: the true positive rate is undefined.")
        tpr = np.full(tps.shape, np.nan)
    else:
        tpr = tps / tps[-1]
    return fpr, tpr, thresholds


def precision_recall_curve(
    y_true: Any,
    y_score: Any,
    *,
    pos_label: Any = None,
    sample_weight: Any = None,
    drop_intermediate: bool = False,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Precision and recall at every distinct threshold, as scikit-learn's.

    The same arrays as ``sklearn.metrics.precision_recall_curve``.

    Returns
    -------
    precision, recall : ndarray of shape (n_thresholds + 1,)
        In order of increasing threshold, ending with the point (recall 0, precision 1) that has
        no threshold. Precision is 0 where nothing is predicted positive.
    thresholds : ndarray of shape (n_thresholds,)
        Increasing.

    Examples
    --------
    >>> p, r, thr = precision_recall_curve([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8])
    >>> p.round(4).tolist(), r.tolist(), thr.tolist()
    ([0.5, 0.6667, 0.5, 1.0, 1.0], [1.0, 1.0, 0.5, 0.5, 0.0], [0.1, 0.35, 0.4, 0.8])
    """
    c = threshold_counts(y_true, y_score, pos_label=pos_label, sample_weight=sample_weight)
    return c.precision_recall(drop_intermediate=drop_intermediate)


def _pr_from_counts(
    c: ThresholdCounts, *, drop_intermediate: bool = False
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    fps, tps, thresholds = c.fps, c.tps, c.thresholds
    if drop_intermediate and fps.size > 2:
        # Keep only the first and last point of each run of equal recall.
        idx = _keep_corners((np.diff(tps[:-1]) != 0) | (np.diff(tps[1:]) != 0))
        fps, tps, thresholds = fps[idx], tps[idx], thresholds[idx]
    predicted = tps + fps
    precision = np.divide(tps, predicted, out=np.zeros(tps.shape), where=predicted != 0)
    if c.n_pos <= 0:
        warn_undefined("No positive samples in y_true: recall is set to 1 at every threshold.")
        recall = np.ones(tps.shape)
    else:
        recall = tps / tps[-1]
    return (
        np.concatenate((precision[::-1], [1.0])),
        np.concatenate((recall[::-1], [0.0])),
        thresholds[::-1].copy(),
    )

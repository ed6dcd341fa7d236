"""The binary ROC AUC every other module builds on: the exact Mann-Whitney sum over runs.

Below :mod:`metrics.areas` (which dispatches binary, multi-class and multi-label AUC) and
:mod:`metrics.multiclass` (whose one-vs-one AUC sums binary AUCs over pairs of classes), so
both import it from here and neither imports the other.
"""

from __future__ import annotations

import numpy as np

from metrics._validation import warn_undefined
from metrics.curves import (
    _fold_descending,
    _merge_sorted,
    _mostly_tied,
    _new_value_mask,
    _runs_of_parts,
    _score_runs,
    _sorted_parts,
)


def _auc_from_runs(pos: np.ndarray, neg: np.ndarray) -> float:
    n_pos, n_neg = pos.sum(), neg.sum()
    if n_pos <= 0 or n_neg <= 0:
        warn_undefined(
            "Only one class is present in y_true (after weighting): ROC AUC is undefined, "
            "returning NaN."
        )
        return float("nan")
    # Runs are in decreasing score: negatives strictly below run i are n_neg - cumsum(neg)[i].
    # 2U = sum_i pos_i * (2 * below_i + neg_i) stays an exact integer when unweighted.
    below = n_neg - np.cumsum(neg)
    twice_u = np.dot(pos, 2 * below + neg)
    if pos.dtype.kind in "iu":
        return int(twice_u) / (2 * int(n_pos) * int(n_neg))
    return float(twice_u / (2 * n_pos * n_neg))


def _auc_unweighted(y: np.ndarray, s: np.ndarray) -> float:
    """AUC by the rank-sum (Mann-Whitney) formula, exact, with no argsort of the scores."""
    pos_sorted, neg_sorted = _sorted_parts(y, s)
    n_pos, n_neg = pos_sorted.size, neg_sorted.size
    masks = (_new_value_mask(pos_sorted), _new_value_mask(neg_sorted))
    if n_pos == 0 or n_neg == 0 or _mostly_tied(*masks):
        # Few distinct scores: summing over them is cheaper than over rows.
        _, pos, neg = _fold_descending(*_runs_of_parts(pos_sorted, neg_sorted, masks))
        return _auc_from_runs(pos, neg)
    values, order = _merge_sorted(pos_sorted, neg_sorted)
    is_pos = order < n_pos
    # The merge is stable and lists positives first, so among equal scores positives come
    # before negatives: the k-th positive (from 0) at merged position i has exactly i - k
    # negatives strictly below it.
    twice_u = 2 * (int(np.flatnonzero(is_pos).sum()) - n_pos * (n_pos - 1) // 2)
    new = _new_value_mask(values)
    if not new.all():
        # Each tied positive-negative pair counts one half.
        starts = np.flatnonzero(new)
        pos = np.add.reduceat(is_pos, starts, dtype=np.int64)
        twice_u += int(np.dot(pos, np.diff(starts, append=values.size) - pos))
    return twice_u / (2 * n_pos * n_neg)


def _auc_binary(y: np.ndarray, s: np.ndarray, w: np.ndarray | None) -> float:
    if w is None:
        return _auc_unweighted(y, s)
    _, pos, neg = _score_runs(y, s, w)
    return _auc_from_runs(pos, neg)

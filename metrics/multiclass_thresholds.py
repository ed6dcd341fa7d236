"""Decision rules and per-class thresholds for multi-class and multi-label scores.

Scores come as an (n_samples, n_classes) matrix; the truth as one label per row (multi-class)
or an indicator matrix (multi-label). Three groups of tools:

* **Counts at every threshold, per class** (:func:`class_threshold_counts`): the one-vs-rest
  confusion counts of every class at every distinct score of that class, from one sort per
  class, exactly as :func:`metrics.threshold_counts` does for one binary problem.
* **Decision rules** that turn scores into predictions: :func:`predict_argmax` (optionally
  abstaining below a score), :func:`predict_top_k`, :func:`predict_at_thresholds` (one shared
  threshold or one per class) and :func:`min_cost_predict` (the minimum-expected-cost class for
  probabilities and a cost matrix), compared with argmax by :func:`compare_cost_decisions`.
* **Choosing thresholds** (:func:`best_class_thresholds`, :func:`optimise_thresholds`,
  :func:`choose_on_half`): the per-class thresholds that maximise each class's F-beta, which is
  also the exact maximum of macro F-beta (each class's F depends on its own threshold only);
  the thresholds that maximise micro F-beta by coordinate ascent on the pooled counts, started
  from the macro optimum (a local optimum: no single class's threshold can be moved to improve
  it, but a joint move might); and the best single shared threshold, for the gain.

A score greater than or equal to the threshold is predicted positive; ``inf`` as a class's
threshold predicts that class for no row. F-beta of 0/0 (no positives and none predicted) is 0,
scikit-learn's ``zero_division=0``.

The shared example, as a 4-row, 2-class multi-label table: class 0's truth and scores are the
binary example's (``[0, 0, 1, 1]``, ``[0.1, 0.4, 0.35, 0.8]``).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Any

import numpy as np

from metrics._validation import as_real, check_sample_weight
from metrics.confusion import Confusion
from metrics.curves import ThresholdCounts, _score_runs
from metrics.multilabel import _score_matrix, check_multilabel

__all__ = [
    "ClassThresholdCounts",
    "CostComparison",
    "HalfSplitChoice",
    "ThresholdChoice",
    "best_class_thresholds",
    "choose_on_half",
    "class_threshold_counts",
    "compare_cost_decisions",
    "min_cost_predict",
    "optimise_thresholds",
    "predict_argmax",
    "predict_at_thresholds",
    "predict_top_k",
]

_EXAMPLE_Y = [[0, 1], [0, 0], [1, 1], [1, 0]]
_EXAMPLE_S = [[0.1, 0.9], [0.4, 0.2], [0.35, 0.6], [0.8, 0.3]]
# Expected costs within this fraction of a row's largest are a tie (min_cost_predict): a sum
# of n products is exact to about n units in the last place, 1e-16 each.
TIE_TOLERANCE = 1e-12


def _check_inputs(y_true: Any, y_score: Any, labels: Any, sample_weight: Any):
    """(indicator (n, C) bool, scores (n, C) float64, weights or None, classes)."""
    if hasattr(y_true, "toarray") and not isinstance(y_true, np.ndarray):
        y_true = y_true.toarray()
    truth = np.asarray(y_true)
    if truth.ndim == 2 and truth.shape[1] > 1:
        # An indicator matrix: checked here with one pass (np.isin is several times slower).
        if truth.dtype.kind != "b":
            if truth.dtype.kind not in "iuf" or not ((truth == 0) | (truth == 1)).all():
                raise ValueError(
                    "y_true as a matrix must hold 0/1 or booleans (one column per class)."
                )
            truth = truth != 0
        scores = _score_matrix(y_score)
        if truth.shape != scores.shape:
            raise ValueError(
                f"y_true has shape {truth.shape} but y_score has shape {scores.shape}; "
                "they must match (one column per class)."
            )
        classes = np.arange(scores.shape[1]) if labels is None else np.asarray(labels)
        if classes.shape != (scores.shape[1],):
            raise ValueError(
                f"labels has {classes.size} entries but y_score has {scores.shape[1]} columns."
            )
        return truth, scores, check_sample_weight(sample_weight, scores.shape[0]), classes
    indicator, scores, w = check_multilabel(y_true, y_score, sample_weight, labels)
    classes = np.unique(truth) if labels is None else np.asarray(labels)
    return indicator, scores, w, classes


def _columns(a: np.ndarray, block: int = 1024) -> np.ndarray:
    """``a.T`` as a C-contiguous array, copied in row blocks that stay in cache (3x faster than
    ``np.ascontiguousarray(a.T)`` on a 1e6 x 20 table)."""
    out = np.empty(a.shape[::-1], dtype=a.dtype)
    for start in range(0, a.shape[0], block):
        out[:, start : start + block] = a[start : start + block].T
    return out


# --- counts at every threshold ------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class ClassThresholdCounts:
    """One-vs-rest confusion counts of every class at each of its distinct scores.

    Attributes
    ----------
    classes : ndarray of shape (n_classes,)
    per_class : tuple of ThresholdCounts
        Class c's thresholds (its distinct scores, decreasing) and the weight of its positives
        (``tps``) and negatives (``fps``) scoring >= each.
    n_pos, n_neg : ndarray of shape (n_classes,)
        Total weight of each class's positives and negatives.
    offsets, thresholds, tps, fps : ndarray
        The per-class arrays end to end (class c owns ``slice(offsets[c], offsets[c + 1])``),
        built on first use.

    Examples
    --------
    >>> c = class_threshold_counts(_EXAMPLE_Y, _EXAMPLE_S)
    >>> c.counts(0).thresholds.tolist(), c.counts(0).tps.tolist(), c.counts(0).fps.tolist()
    ([0.8, 0.4, 0.35, 0.1], [1, 1, 2, 2], [0, 1, 1, 2])
    >>> c.at([0.5, 0.5]).tp.tolist(), c.at([0.5, 0.5]).fp.tolist()
    ([1, 2], [0, 0])
    """

    classes: np.ndarray
    per_class: tuple[ThresholdCounts, ...]
    n_pos: np.ndarray
    n_neg: np.ndarray

    def __len__(self) -> int:
        return self.classes.size

    @cached_property
    def offsets(self) -> np.ndarray:
        sizes = [len(c) for c in self.per_class]
        return np.concatenate(([0], np.cumsum(sizes, dtype=np.int64)))

    @cached_property
    def thresholds(self) -> np.ndarray:
        return np.concatenate([c.thresholds for c in self.per_class])

    @cached_property
    def tps(self) -> np.ndarray:
        return np.concatenate([c.tps for c in self.per_class]).astype(self.n_pos.dtype)

    @cached_property
    def fps(self) -> np.ndarray:
        return np.concatenate([c.fps for c in self.per_class]).astype(self.n_neg.dtype)

    def _slice(self, c: int) -> slice:
        return slice(int(self.offsets[c]), int(self.offsets[c + 1]))

    def counts(self, c: int) -> ThresholdCounts:
        """Class ``c``'s counts as the binary :class:`~metrics.ThresholdCounts`."""
        return self.per_class[c]

    def _index_at(self, thresholds: np.ndarray) -> np.ndarray:
        """Per class, 1 + index of its lowest distinct score >= the threshold (0: none)."""
        out = np.empty(self.classes.size, dtype=np.int64)
        for c, counts in enumerate(self.per_class):
            out[c] = np.searchsorted(-counts.thresholds, -thresholds[c], side="right")
        return out

    def _at_index(self, index: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        tp = np.zeros(self.classes.size, dtype=self.n_pos.dtype)
        fp = np.zeros(self.classes.size, dtype=self.n_neg.dtype)
        for c, counts in enumerate(self.per_class):
            if index[c] > 0:
                tp[c], fp[c] = counts.tps[index[c] - 1], counts.fps[index[c] - 1]
        return tp, fp

    def at(self, thresholds: Any) -> Confusion:
        """The per-class confusion counts at one threshold per class (or one shared): lookups."""
        thr = np.broadcast_to(as_real(thresholds, "thresholds"), self.classes.shape)
        tp, fp = self._at_index(self._index_at(thr))
        return Confusion(tp=tp, fp=fp, tn=self.n_neg - fp, fn=self.n_pos - tp)


def _class_counts(y: np.ndarray, s: np.ndarray, w: np.ndarray | None) -> ThresholdCounts:
    values, pos, neg = _score_runs(y, s, w)
    tps = np.cumsum(pos)
    if w is None and values.size == s.size:
        # Every row its own threshold: the rows at or above threshold i are i + 1, so the
        # negatives need no second cumulative sum.
        fps = np.arange(1, s.size + 1, dtype=np.int64) - tps
    else:
        fps = np.cumsum(neg)
    return ThresholdCounts(np.ascontiguousarray(values), tps, fps)


def class_threshold_counts(
    y_true: Any, y_score: Any, *, labels: Any = None, sample_weight: Any = None
) -> ClassThresholdCounts:
    """Confusion counts of every class at every distinct score, from one sort per class.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,) or (n_samples, n_classes)
        One label per row (multi-class) or a 0/1 indicator matrix (multi-label; scipy sparse
        accepted).
    y_score : array-like of shape (n_samples, n_classes)
    labels : array-like of shape (n_classes,), optional
        The class of each score column (multi-class); default the sorted labels of ``y_true``.
    sample_weight : array-like of shape (n_samples,), optional
        Rows of weight 0 are dropped (their scores are no thresholds), as in scikit-learn.

    Returns
    -------
    ClassThresholdCounts
    """
    indicator, scores, w, classes = _check_inputs(y_true, y_score, labels, sample_weight)
    ind_t = _columns(indicator)
    sc_t = _columns(scores)
    per_class = tuple(_class_counts(ind_t[c], sc_t[c], w) for c in range(sc_t.shape[0]))
    dtype = np.int64 if w is None else np.float64
    return ClassThresholdCounts(
        classes=classes,
        per_class=per_class,
        n_pos=np.array([c.n_pos for c in per_class], dtype=dtype),
        n_neg=np.array([c.n_neg for c in per_class], dtype=dtype),
    )


# --- decision rules -------------------------------------------------------------------------------


def predict_argmax(
    y_score: Any, *, labels: Any = None, min_score: float | None = None, abstain: Any = -1
) -> np.ndarray:
    """The highest-scored class of each row; optionally abstain when that score is low.

    Parameters
    ----------
    y_score : array-like of shape (n_samples, n_classes)
    labels : array-like of shape (n_classes,), optional
        Class of each column; default the column indices.
    min_score : float or array-like of shape (n_classes,), optional
        A cut-off: a class is a candidate for a row when its score is at or above it, the row
        gets its highest-scored candidate, and a row with none gets ``abstain``. One number is
        argmax that abstains when the top score is below it; one per class lets each class
        ask for more (or less) evidence before it is predicted.
    abstain : scalar, default -1
        The prediction of an abstaining row. Score it with ``labels=`` listing the classes:
        an abstention is then a miss (a false negative of the true class), never a false
        positive.

    Returns
    -------
    ndarray of shape (n_samples,)
        A tie for the highest score goes to the first such column, as ``np.argmax``.

    Examples
    --------
    >>> predict_argmax(_EXAMPLE_S).tolist()
    [1, 0, 1, 0]
    >>> predict_argmax(_EXAMPLE_S, labels=["a", "b"], min_score=0.5, abstain="?").tolist()
    ['b', '?', 'b', 'a']
    >>> predict_argmax(_EXAMPLE_S, labels=["a", "b"], min_score=[0.3, 0.7], abstain="?").tolist()
    ['b', 'a', 'a', 'a']
    """
    scores = _score_matrix(y_score)
    cuts = None if min_score is None else as_real(min_score, "min_score")
    if cuts is not None and cuts.ndim == 1:  # per class: the top score among the candidates
        cuts = _thresholds(cuts, scores.shape[1])
        candidate = scores >= cuts[None, :]
        idx = np.argmax(np.where(candidate, scores, -np.inf), axis=1)
        low = ~candidate.any(axis=1)
    else:
        idx = np.argmax(scores, axis=1)
        low = None
    out = idx if labels is None else _labels_of(labels, scores.shape[1])[idx]
    if min_score is None:
        return out
    if low is None:
        low = scores[np.arange(scores.shape[0]), idx] < min_score
    if not low.any():
        return out
    try:
        result = out.astype(np.result_type(out, np.asarray(abstain)))
    except TypeError:
        result = out.astype(object)
    if np.asarray(abstain).dtype.kind == "U" and result.dtype.kind == "U":
        result = result.astype(object)  # a fixed-width string array would truncate
    result[low] = abstain
    return result


def _labels_of(labels: Any, n_classes: int) -> np.ndarray:
    arr = np.asarray(labels)
    if arr.shape != (n_classes,):
        raise ValueError(
            f"labels has {arr.size} entries but y_score has {n_classes} columns; "
            "name the class of each column."
        )
    return arr


def predict_top_k(y_score: Any, k: int) -> np.ndarray:
    """Indicator matrix of the ``k`` highest-scored classes of each row.

    Among equal scores the column further left is taken first (a stable sort), so every row
    has exactly ``k`` predicted classes.

    >>> predict_top_k(_EXAMPLE_S, 1).astype(int).tolist()
    [[0, 1], [1, 0], [0, 1], [1, 0]]
    """
    scores = _score_matrix(y_score)
    if not isinstance(k, (int, np.integer)) or isinstance(k, bool) or not k >= 1:
        raise ValueError(f"k must be a positive integer, got {k!r}.")
    k = min(int(k), scores.shape[1])
    order = np.argsort(-scores, axis=1, kind="stable")[:, :k]
    out = np.zeros(scores.shape, dtype=bool)
    np.put_along_axis(out, order, True, axis=1)
    return out


def predict_at_thresholds(y_score: Any, thresholds: Any) -> np.ndarray:
    """Indicator matrix ``y_score >= threshold``: one shared threshold or one per class.

    >>> predict_at_thresholds(_EXAMPLE_S, 0.5).astype(int).tolist()
    [[0, 1], [0, 0], [0, 1], [1, 0]]
    >>> predict_at_thresholds(_EXAMPLE_S, [0.35, 0.9]).astype(int).tolist()
    [[0, 1], [1, 0], [1, 0], [1, 0]]
    """
    scores = _score_matrix(y_score)
    thr = _thresholds(thresholds, scores.shape[1])
    return scores >= thr[None, :]


def _thresholds(thresholds: Any, n_classes: int) -> np.ndarray:
    thr = as_real(thresholds, "thresholds")
    if thr.ndim == 0:
        thr = np.full(n_classes, float(thr))
    if thr.shape != (n_classes,):
        raise ValueError(
            f"thresholds must be one number or one per class ({n_classes}), got shape {thr.shape}."
        )
    if np.isnan(thr).any():
        raise ValueError("thresholds has NaN; pass numbers (inf predicts a class for no row).")
    return thr


# --- cost-sensitive decisions ---------------------------------------------------------------


def _cost_matrix(cost: Any, n_classes: int) -> np.ndarray:
    c = as_real(cost, "cost")
    if c.shape != (n_classes, n_classes):
        raise ValueError(
            f"cost must be a {n_classes} x {n_classes} matrix (rows: true class, columns: "
            f"predicted class), got shape {c.shape}."
        )
    if not np.isfinite(c).all():
        raise ValueError("cost has NaN or infinite entries; costs must be finite numbers.")
    return c


def min_cost_predict(y_proba: Any, cost: Any) -> np.ndarray:
    """The class with the lowest expected cost for each row: ``argmin_j sum_i p_i C[i, j]``.

    Parameters
    ----------
    y_proba : array-like of shape (n_samples, n_classes)
        Class probabilities (rows need not sum to 1: the expected costs are then scaled, and
        the decision is unchanged only if every row is scaled alike).
    cost : array-like of shape (n_classes, n_classes)
        ``cost[i, j]``: the cost of predicting class j when the truth is class i.

    Returns
    -------
    ndarray of shape (n_samples,)
        Column indices; a tie goes to the first column. A tie is a difference of at most
        1e-12 of the row's largest expected cost: two columns whose costs are equal are equal
        only up to rounding, and which one rounds lower depends on the order of the sum
        (``[0.6, 0.7, 0.8] / 2.1`` under the cost below ties columns 1 and 2 at 4.34 / 2.1, and
        a matrix product gives column 2 the lower by one unit in the last place). With the 0/1
        cost (1 off the diagonal) this is argmax.

    Examples
    --------
    Missing class 0 costs 10, any other error 1: row 0 switches from class 1 to class 0.

    >>> min_cost_predict(_EXAMPLE_S, [[0, 10], [1, 0]]).tolist()
    [0, 0, 0, 0]

    A tie, however the sum rounds:

    >>> min_cost_predict([[0.6, 0.7, 0.8]], [[0, 4.7, 2.1], [4.9, 0, 4.4], [5, 1.9, 0]]).tolist()
    [1]
    """
    proba = _score_matrix(y_proba)
    c = _cost_matrix(cost, proba.shape[1])
    expected = proba @ c
    lowest = expected.min(axis=1, keepdims=True)
    tie = TIE_TOLERANCE * np.abs(expected).max(axis=1, keepdims=True)
    return np.argmax(expected <= lowest + tie, axis=1)


@dataclass(frozen=True)
class CostComparison:
    """The minimum-expected-cost decision against argmax on labelled rows.

    Attributes
    ----------
    min_cost_pred, argmax_pred : ndarray of shape (n_samples,)
        Predicted column indices.
    min_cost_mean, argmax_mean : float
        Mean realised cost ``C[true, predicted]`` (weighted by ``sample_weight``).
    changed : int
        Rows where the two decisions differ.
    """

    min_cost_pred: np.ndarray
    argmax_pred: np.ndarray
    min_cost_mean: float
    argmax_mean: float
    changed: int

    @property
    def saving(self) -> float:
        """How much lower the mean cost is with the minimum-expected-cost decision."""
        return self.argmax_mean - self.min_cost_mean


def compare_cost_decisions(
    y_true: Any, y_proba: Any, cost: Any, *, labels: Any = None, sample_weight: Any = None
) -> CostComparison:
    """Realised mean cost of the minimum-expected-cost decision and of argmax.

    >>> r = compare_cost_decisions([1, 0, 1, 0], _EXAMPLE_S, [[0, 10], [1, 0]])
    >>> r.argmax_mean, r.min_cost_mean, r.changed
    (0.0, 0.5, 2)
    """
    y = np.asarray(y_true)
    if y.ndim != 1:
        raise ValueError("y_true must hold one class label per row for a cost matrix.")
    indicator, proba, w = check_multilabel(y, y_proba, sample_weight, labels)
    c = _cost_matrix(cost, proba.shape[1])
    truth = np.argmax(indicator, axis=1)
    ours = min_cost_predict(proba, c)
    argmax = np.argmax(proba, axis=1)
    return CostComparison(
        min_cost_pred=ours,
        argmax_pred=argmax,
        min_cost_mean=float(np.average(c[truth, ours], weights=w)),
        argmax_mean=float(np.average(c[truth, argmax], weights=w)),
        changed=int(np.count_nonzero(ours != argmax)),
    )


# --- choosing thresholds ------------------------------------------------------------------------


def _check_beta(beta: Any) -> float:
    if not (isinstance(beta, (int, float, np.number)) and np.isfinite(beta) and beta > 0):
        raise ValueError(f"beta must be a finite number > 0, got {beta!r}.")
    return float(beta)


def _f_beta(tp: Any, fp: Any, n_pos: Any, b2: float) -> np.ndarray:
    """(1 + b^2) TP / (b^2 P + TP + FP), 0 where that is 0/0."""
    tp = np.asarray(tp, dtype=np.float64)
    num = (1 + b2) * tp
    den = b2 * np.asarray(n_pos, dtype=np.float64) + tp + np.asarray(fp, dtype=np.float64)
    return np.divide(num, den, out=np.zeros(np.broadcast(num, den).shape), where=den != 0)


def _class_candidates(counts: ClassThresholdCounts, c: int):
    """Class c's candidates: (thresholds, tps, fps), each led by inf / 0 / 0 (predict none)."""
    one = counts.per_class[c]
    zero = np.zeros(1, dtype=counts.n_pos.dtype)
    return (
        np.concatenate(([np.inf], one.thresholds)),
        np.concatenate((zero, one.tps)),
        np.concatenate((zero, one.fps)),
    )


def _per_class_best(counts: ClassThresholdCounts, b2: float) -> np.ndarray:
    """Per class, the candidate index (0 = inf) maximising its F-beta; ties: highest threshold."""
    best = np.empty(len(counts), dtype=np.int64)
    for c in range(len(counts)):
        _, tp, fp = _class_candidates(counts, c)
        best[c] = np.argmax(_f_beta(tp, fp, counts.n_pos[c], b2))
    return best


def _micro_ascent(
    counts: ClassThresholdCounts, start: np.ndarray, b2: float, max_rounds: int
) -> tuple[np.ndarray, int]:
    """Coordinate ascent on pooled micro F-beta from ``start`` (candidate indices)."""
    cands = [_class_candidates(counts, c) for c in range(len(counts))]
    idx = start.copy()
    tp = np.array([cands[c][1][idx[c]] for c in range(len(counts))], dtype=np.float64)
    fp = np.array([cands[c][2][idx[c]] for c in range(len(counts))], dtype=np.float64)
    p_total = float(np.sum(counts.n_pos, dtype=np.float64))
    rounds = 0
    while rounds < max_rounds:
        rounds += 1
        moved = False
        for c in range(len(counts)):
            tp_o, fp_o = tp.sum() - tp[c], fp.sum() - fp[c]
            _, tps, fps = cands[c]
            values = _f_beta(tp_o + tps, fp_o + fps, p_total, b2)
            j = int(np.argmax(values))
            if values[j] > values[idx[c]] + 1e-12 * max(1.0, abs(values[idx[c]])):
                idx[c] = j
                tp[c], fp[c] = tps[j], fps[j]
                moved = True
        if not moved:
            break
    return idx, rounds


def _shared_best(counts: ClassThresholdCounts, b2: float, objective: str) -> float:
    """The single threshold, shared by every class, that maximises micro or macro F-beta.

    Candidates are every class's distinct scores and inf. Each class contributes its steps
    (the change in TP, FP and its F-beta at each of its thresholds); the classes' runs, each
    already sorted, are merged by one stable sort (a timsort merges presorted runs), and one
    cumulative sum gives the pooled counts, or the sum of the F-betas, at every candidate. The
    caller re-evaluates the chosen threshold exactly.
    """
    thr = counts.thresholds
    if thr.size == 0:
        return float("inf")
    starts = counts.offsets[:-1][np.diff(counts.offsets) > 0]
    sizes = np.diff(counts.offsets)
    tps = counts.tps.astype(np.float64)
    fps = counts.fps.astype(np.float64)
    if objective == "micro":
        steps = [tps, fps]
    else:
        steps = [_f_beta(tps, fps, np.repeat(counts.n_pos, sizes), b2)]
    order = np.argsort(-thr)  # ties need no order: only the ends of tie runs are read
    ends = np.flatnonzero(np.append(np.diff(thr[order]) != 0, True))
    totals = []
    for cumulative in steps:
        step = np.diff(cumulative, prepend=0.0)
        step[starts] = cumulative[starts]  # each class's first step starts from 0
        totals.append(np.cumsum(step[order])[ends])
    if objective == "micro":
        p_total = float(np.sum(counts.n_pos, dtype=np.float64))
        values = _f_beta(totals[0], totals[1], p_total, b2)
    else:
        values = totals[0]
    best = int(np.argmax(values))
    if values[best] <= 0:  # nothing beats predicting no class at all
        return float("inf")
    return float(thr[order][ends[best]])


def _values(conf: Confusion, b2: float) -> tuple[np.ndarray, float, float]:
    """(per-class F-beta, macro F-beta, micro F-beta) from per-class counts."""
    per_class = _f_beta(conf.tp, conf.fp, conf.tp + conf.fn, b2)
    micro = _f_beta(np.sum(conf.tp), np.sum(conf.fp), np.sum(conf.tp + conf.fn), b2)
    return per_class, float(per_class.mean()), float(micro)


@dataclass(frozen=True)
class ThresholdChoice:
    """Per-class thresholds chosen to maximise an F-beta average, and the shared baseline.

    Attributes
    ----------
    classes : ndarray of shape (n_classes,)
    thresholds : ndarray of shape (n_classes,)
        Predict class c when its score >= ``thresholds[c]`` (inf: never).
    per_class : ndarray of shape (n_classes,)
        Each class's F-beta at its threshold.
    macro, micro : float
        Macro and micro F-beta at these thresholds.
    objective : {"per_class", "macro", "micro"}
    beta : float
    shared_threshold : float
        The one threshold for every class that maximises the objective (macro for
        "per_class").
    shared_value : float
        The objective at the shared threshold.
    rounds : int
        Coordinate-ascent passes (micro), 0 otherwise.
    """

    classes: np.ndarray
    thresholds: np.ndarray
    per_class: np.ndarray
    macro: float
    micro: float
    objective: str
    beta: float
    shared_threshold: float
    shared_value: float
    rounds: int

    @property
    def value(self) -> float:
        """The objective at the chosen thresholds (macro for "per_class")."""
        return self.micro if self.objective == "micro" else self.macro

    @property
    def gain(self) -> float:
        """How much the per-class thresholds beat the best shared one, on the objective."""
        return self.value - self.shared_value


def _choose(
    counts: ClassThresholdCounts, objective: str, beta: float, max_rounds: int, shared: bool
):
    if objective not in ("per_class", "macro", "micro"):
        raise ValueError(f"objective must be 'per_class', 'macro' or 'micro', got {objective!r}.")
    b2 = _check_beta(beta) ** 2
    idx = _per_class_best(counts, b2)
    rounds = 0
    if objective == "micro":
        idx, rounds = _micro_ascent(counts, idx, b2, max_rounds)
    thresholds = np.array([_class_candidates(counts, c)[0][idx[c]] for c in range(len(counts))])
    tp, fp = counts._at_index(idx)
    per_class, macro, micro = _values(
        Confusion(tp=tp, fp=fp, tn=counts.n_neg - fp, fn=counts.n_pos - tp), b2
    )
    shared_objective = "micro" if objective == "micro" else "macro"
    s_threshold = s_macro = s_micro = float("nan")
    if shared:
        s_threshold = _shared_best(counts, b2, shared_objective)
        _, s_macro, s_micro = _values(counts.at(s_threshold), b2)
    return ThresholdChoice(
        classes=counts.classes,
        thresholds=thresholds,
        per_class=per_class,
        macro=macro,
        micro=micro,
        objective=objective,
        beta=float(beta),
        shared_threshold=s_threshold,
        shared_value=s_micro if shared_objective == "micro" else s_macro,
        rounds=rounds,
    )


def best_class_thresholds(
    y_true: Any,
    y_score: Any,
    *,
    beta: float = 1.0,
    labels: Any = None,
    sample_weight: Any = None,
    shared: bool = True,
) -> ThresholdChoice:
    """Per class, the threshold that maximises that class's F-beta: one sweep per class.

    Since macro F-beta is the mean of the per-class values and each depends only on its own
    class's threshold, these thresholds are also the exact maximum of macro F-beta. Among
    thresholds with equal F-beta the highest is taken (the fewest rows predicted); a class
    with no positives gets ``inf``. ``shared=False`` skips the shared-threshold baseline (see
    :func:`optimise_thresholds`).

    >>> choice = best_class_thresholds(_EXAMPLE_Y, _EXAMPLE_S)
    >>> choice.thresholds.tolist(), choice.per_class.round(4).tolist()
    ([0.35, 0.6], [0.8, 1.0])
    """
    counts = class_threshold_counts(y_true, y_score, labels=labels, sample_weight=sample_weight)
    return _choose(counts, "per_class", beta, 0, shared)


def optimise_thresholds(
    y_true: Any,
    y_score: Any,
    *,
    objective: str = "macro",
    beta: float = 1.0,
    labels: Any = None,
    sample_weight: Any = None,
    max_rounds: int = 100,
    shared: bool = True,
) -> ThresholdChoice:
    """Per-class thresholds maximising macro or micro F-beta, and the gain over one shared.

    ``objective="macro"`` is exact (see :func:`best_class_thresholds`). ``"micro"`` starts from
    the macro optimum and moves one class's threshold at a time to the value that maximises the
    pooled F-beta with the others fixed, until no single move improves it (or ``max_rounds``
    passes): a **local** optimum, never below the start's micro F-beta, but not always the
    global maximum over every combination of thresholds.

    The shared baseline is the single threshold for all classes that maximises the same
    objective (``shared=False`` skips it: its fields and the gain are then NaN). Thresholds
    chosen on the rows they are evaluated on overstate what new rows will see;
    :func:`choose_on_half` measures by how much.

    Examples
    --------
    >>> choice = optimise_thresholds(_EXAMPLE_Y, _EXAMPLE_S, objective="micro")
    >>> choice.thresholds.tolist(), round(choice.micro, 4), choice.shared_threshold
    ([0.35, 0.6], 0.8889, 0.35)
    >>> choice.gain  # on this table one threshold, 0.35, does as well
    0.0
    """
    counts = class_threshold_counts(y_true, y_score, labels=labels, sample_weight=sample_weight)
    return _choose(counts, objective, beta, max_rounds, shared)


@dataclass(frozen=True)
class HalfSplitChoice:
    """Thresholds chosen on one half of the rows, reported on the other.

    Attributes
    ----------
    choice : ThresholdChoice
        What was chosen on the choosing half (its values are in-sample, so optimistic).
    chosen_rows, report_rows : ndarray of int
        Row positions of the two halves.
    report_value : float
        The objective of the chosen per-class thresholds on the report half.
    report_shared_value : float
        The objective of the shared threshold (chosen on the choosing half) on the report half.
    """

    choice: ThresholdChoice
    chosen_rows: np.ndarray
    report_rows: np.ndarray
    report_value: float
    report_shared_value: float

    @property
    def optimism(self) -> float:
        """In-sample value minus held-out value: how much choosing on the same rows overstates."""
        return self.choice.value - self.report_value

    @property
    def report_gain(self) -> float:
        """The per-class thresholds' gain over the shared one, on the report half."""
        return self.report_value - self.report_shared_value


def _objective_at(indicator, scores, w, thresholds, objective, b2) -> float:
    pred = scores >= thresholds[None, :]
    if w is None:
        tp = np.count_nonzero(pred & indicator, axis=0)
        fp = np.count_nonzero(pred & ~indicator, axis=0)
        pos = np.count_nonzero(indicator, axis=0)
    else:
        tp = w @ (pred & indicator)
        fp = w @ (pred & ~indicator)
        pos = w @ indicator
    _, macro, micro = _values(Confusion(tp=tp, fp=fp, tn=0, fn=pos - tp), b2)
    return micro if objective == "micro" else macro


def choose_on_half(
    y_true: Any,
    y_score: Any,
    *,
    objective: str = "macro",
    beta: float = 1.0,
    labels: Any = None,
    sample_weight: Any = None,
    fraction: float = 0.5,
    seed: int = 0,
    max_rounds: int = 100,
) -> HalfSplitChoice:
    """Choose thresholds on a seeded random part of the rows, report them on the rest.

    Parameters
    ----------
    y_true, y_score, objective, beta, labels, sample_weight, max_rounds
        As in :func:`optimise_thresholds`.
    fraction : float, default 0.5
        Share of rows used for choosing.
    seed : int, default 0
        Seed of the row split; the same seed gives the same halves.

    Returns
    -------
    HalfSplitChoice
    """
    if not 0 < fraction < 1:
        raise ValueError(f"fraction must be between 0 and 1, got {fraction!r}.")
    indicator, scores, w, classes = _check_inputs(y_true, y_score, labels, sample_weight)
    n = scores.shape[0]
    n_choose = round(n * fraction)
    if not 1 <= n_choose <= n - 1:
        raise ValueError(
            f"{n} rows cannot be split {fraction:g} / {1 - fraction:g} with a row on each side."
        )
    order = np.random.default_rng(seed).permutation(n)
    chosen, report = np.sort(order[:n_choose]), np.sort(order[n_choose:])
    w_a = None if w is None else w[chosen]
    choice = optimise_thresholds(
        indicator[chosen],
        scores[chosen],
        objective=objective,
        beta=beta,
        sample_weight=w_a,
        max_rounds=max_rounds,
    )
    choice = ThresholdChoice(**{**choice.__dict__, "classes": classes})
    b2 = choice.beta**2
    w_b = None if w is None else w[report]
    which = "micro" if objective == "micro" else "macro"
    ind_b, sc_b = indicator[report], scores[report]
    shared = np.full(scores.shape[1], choice.shared_threshold)
    return HalfSplitChoice(
        choice=choice,
        chosen_rows=chosen,
        report_rows=report,
        report_value=_objective_at(ind_b, sc_b, w_b, choice.thresholds, which, b2),
        report_shared_value=_objective_at(ind_b, sc_b, w_b, shared, which, b2),
    )

"""Step-by-step tables behind the numbers, for the dashboard's teaching pages.

Each function returns plain numpy arrays (a frozen dataclass; ``as_columns()`` gives a dict a
DataFrame can be built from) computed by the same code paths as the scores, and its last
running total or its ``value`` equals the library's score exactly.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any

import numpy as np

from metrics._bounds import MAX_PAIR_SIDE, check_count
from metrics._validation import as_real, check_binary_inputs, warn_undefined
from metrics.areas import _auc_binary
from metrics.average_precision import APBreakdown, ap_breakdown, check_method
from metrics.curves import _score_runs

__all__ = [
    "APStepTable",
    "AUCPairGrid",
    "AUCRankTable",
    "ScoreGridAP",
    "ap_step_table",
    "auc_pair_grid",
    "auc_rank_table",
    "average_precision_breakdown",
    "score_grid_average_precision",
]


class _Columns:
    def as_columns(self) -> dict[str, np.ndarray]:
        """The array fields, by name (scalars left out)."""
        return {
            f.name: getattr(self, f.name)
            for f in fields(self)  # type: ignore[arg-type]
            if isinstance(getattr(self, f.name), np.ndarray)
        }


@dataclass(frozen=True)
class APStepTable(_Columns):
    """One row per distinct threshold (decreasing): AP = sum of ``contribution``.

    ``rows`` and ``positives`` count the rows (weight) whose score equals the threshold;
    ``tp``/``fp`` count those with score >= it; ``contribution = delta_recall * precision``.
    """

    threshold: np.ndarray
    rows: np.ndarray
    positives: np.ndarray
    tp: np.ndarray
    fp: np.ndarray
    precision: np.ndarray
    recall: np.ndarray
    delta_recall: np.ndarray
    contribution: np.ndarray
    running_ap: np.ndarray
    value: float


def _runs(y_true: Any, y_score: Any, sample_weight: Any, pos_label: Any):
    y, s, w = check_binary_inputs(y_true, y_score, sample_weight, pos_label)
    values, pos, neg = _score_runs(y, s, w)
    if pos.sum() <= 0:
        raise ValueError("y_true has no positive rows: average precision is undefined.")
    return values, pos, neg


def ap_step_table(
    y_true: Any, y_score: Any, *, sample_weight: Any = None, pos_label: Any = 1
) -> APStepTable:
    """The step-sum AP (scikit-learn's) as a table, one row per distinct threshold.

    Examples
    --------
    Seed 000: scores [0.4, 0.1, 0.8, 0.35], truth [0, 0, 1, 1].

    >>> t = ap_step_table([0, 0, 1, 1], [0.4, 0.1, 0.8, 0.35])
    >>> t.threshold.tolist(), t.contribution.round(4).tolist(), round(t.value, 4)
    ([0.8, 0.4, 0.35, 0.1], [0.5, 0.0, 0.3333, 0.0], 0.8333)
    """
    values, pos, neg = _runs(y_true, y_score, sample_weight, pos_label)
    b = ap_breakdown(np.cumsum(pos), np.cumsum(neg), "step")
    tp, fp = np.cumsum(pos), np.cumsum(neg)
    contribution = b.weight * b.precision
    return APStepTable(
        threshold=np.ascontiguousarray(values),
        rows=pos + neg,
        positives=pos,
        tp=tp,
        fp=fp,
        precision=b.precision,
        recall=b.recall,
        delta_recall=b.weight,
        contribution=contribution,
        running_ap=np.cumsum(contribution),
        value=float(b.value),
    )


def average_precision_breakdown(
    y_true: Any,
    y_score: Any,
    *,
    method: str = "step",
    sample_weight: Any = None,
    pos_label: Any = 1,
) -> APBreakdown:
    """The terms one AP method sums (recall positions, precisions used, weights).

    >>> b = average_precision_breakdown([1, 0, 1, 0], [1, 0.8, 0.6, 0.4], method="voc11")
    >>> b.precision.round(3).tolist()
    [1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 0.667, 0.667, 0.667, 0.667, 0.667]
    """
    check_method(method)
    _, pos, neg = _runs(y_true, y_score, sample_weight, pos_label)
    return ap_breakdown(np.cumsum(pos), np.cumsum(neg), method)


@dataclass(frozen=True)
class ScoreGridAP(_Columns):
    """AP read off fixed score thresholds instead of the data's own (seed 000's "11-point")."""

    threshold: np.ndarray
    tp: np.ndarray
    fp: np.ndarray
    precision: np.ndarray
    recall: np.ndarray
    delta_recall: np.ndarray
    contribution: np.ndarray
    value: float


def score_grid_average_precision(
    y_true: Any,
    y_score: Any,
    *,
    thresholds: Any = None,
    sample_weight: Any = None,
    pos_label: Any = 1,
) -> ScoreGridAP:
    """The step sum over a fixed grid of score thresholds (default 1.0, 0.9, ..., 0.0).

    Seed 000 mentions this older reading of "11-point AP": the same step sum, but at the score
    thresholds 0, 0.1, ..., 1 rather than at each distinct score. It depends on where the scores
    lie (it is not invariant to rescaling them) and skips every precision between grid points,
    which is why it differs from both the step sum and VOC's 11 recall levels.

    >>> round(score_grid_average_precision([0, 0, 1, 1], [0.4, 0.1, 0.8, 0.35]).value, 4)
    0.8333
    """
    if thresholds is None:
        thresholds = np.arange(10, -1, -1) / 10
    grid = np.sort(as_real(thresholds, "thresholds"))[::-1]
    if grid.size == 0 or not np.isfinite(grid).all():
        raise ValueError("thresholds must be a non-empty list of finite numbers.")
    values, pos, neg = _runs(y_true, y_score, sample_weight, pos_label)
    tps, fps = np.cumsum(pos), np.cumsum(neg)
    # Distinct scores are decreasing; count how many are >= each grid threshold.
    reached = np.searchsorted(-values, -grid, side="right") - 1
    tp = np.where(reached >= 0, tps[np.maximum(reached, 0)], 0)
    fp = np.where(reached >= 0, fps[np.maximum(reached, 0)], 0)
    predicted = tp + fp
    precision = np.divide(tp, predicted, out=np.zeros(grid.shape), where=predicted != 0)
    recall = tp / tps[-1]
    delta = np.diff(recall, prepend=0.0)
    contribution = delta * precision
    return ScoreGridAP(
        grid, tp, fp, precision, recall, delta, contribution, float(contribution.sum())
    )


@dataclass(frozen=True)
class AUCPairGrid(_Columns):
    """Every positive against every negative: 1 win, 0.5 tie, 0 loss (or a sample of them).

    ``outcome[i, j]`` compares ``pos_score[i]`` with ``neg_score[j]`` (both sorted decreasing).
    ``auc = outcome.mean()`` over the grid shown; when ``sampled`` is True the grid is a seeded
    random sample of each class and ``auc`` is the sample's, ``full_auc`` the data's.
    """

    pos_score: np.ndarray
    neg_score: np.ndarray
    outcome: np.ndarray
    wins: int
    ties: int
    losses: int
    auc: float
    full_auc: float
    sampled: bool


def auc_pair_grid(
    y_true: Any,
    y_score: Any,
    *,
    pos_label: Any = None,
    max_per_class: int = 40,
    seed: int = 0,
) -> AUCPairGrid:
    """The positive x negative comparison grid whose mean is the AUC.

    At most ``max_per_class`` positives and as many negatives are drawn (seeded) into the grid:
    1 to 2,000 (``metrics._bounds.MAX_PAIR_SIDE``, a grid of 4 million cells; a ValueError
    past it).

    Examples
    --------
    Seed 004, example 2: the tied pair (0.4, 0.4) counts one half.

    >>> g = auc_pair_grid([0, 0, 1, 1], [0.1, 0.4, 0.4, 0.8])
    >>> g.outcome.tolist(), (g.wins, g.ties, g.losses), g.auc
    ([[1.0, 1.0], [0.5, 1.0]], (3, 1, 0), 0.875)
    """
    check_count(max_per_class, "max_per_class", MAX_PAIR_SIDE)
    y, s, _ = check_binary_inputs(y_true, y_score, None, pos_label, default_positive="greater")
    pos, neg = np.sort(s[y])[::-1], np.sort(s[~y])[::-1]
    if pos.size == 0 or neg.size == 0:
        raise ValueError("AUC needs at least one positive and one negative row.")
    full_auc = _auc_binary(y, s, None)
    rng = np.random.default_rng(seed)
    sampled = pos.size > max_per_class or neg.size > max_per_class
    if pos.size > max_per_class:
        pos = np.sort(rng.choice(pos, max_per_class, replace=False))[::-1]
    if neg.size > max_per_class:
        neg = np.sort(rng.choice(neg, max_per_class, replace=False))[::-1]
    outcome = (pos[:, None] > neg[None, :]) + 0.5 * (pos[:, None] == neg[None, :])
    return AUCPairGrid(
        pos_score=pos,
        neg_score=neg,
        outcome=outcome,
        wins=int((outcome == 1).sum()),
        ties=int((outcome == 0.5).sum()),
        losses=int((outcome == 0).sum()),
        auc=float(outcome.mean()),
        full_auc=full_auc,
        sampled=sampled,
    )


@dataclass(frozen=True)
class AUCRankTable(_Columns):
    """Rows sorted by increasing score with tie-averaged ranks (1 = lowest score).

    ``auc = (rank_sum - n_pos (n_pos + 1) / 2) / (n_pos n_neg)``, the rank-sum formula.
    """

    score: np.ndarray
    positive: np.ndarray
    rank: np.ndarray
    rank_sum: float
    n_pos: int
    n_neg: int
    auc: float


def auc_rank_table(y_true: Any, y_score: Any, *, pos_label: Any = None) -> AUCRankTable:
    """The rank-sum (Mann-Whitney) computation of AUC, row by row.

    Examples
    --------
    Seed 004: four tied rows at 0.5 share ranks 2 to 5, so each gets (2+3+4+5)/4 = 3.5.

    >>> t = auc_rank_table([0, 1, 1, 0, 0, 1, 1], [0.3, 0.5, 0.5, 0.5, 0.5, 0.7, 0.8])
    >>> t.rank.tolist(), t.rank_sum, round(t.auc * 12, 10)
    ([1.0, 3.5, 3.5, 3.5, 3.5, 6.0, 7.0], 20.0, 10.0)
    """
    y, s, _ = check_binary_inputs(y_true, y_score, None, pos_label, default_positive="greater")
    order = np.argsort(s, kind="stable")
    score, positive = s[order], y[order]
    n = score.size
    new = np.concatenate(([True], score[1:] != score[:-1]))
    starts = np.flatnonzero(new)
    ends = np.concatenate((starts[1:], [n])) - 1
    run = np.cumsum(new) - 1
    rank = (starts[run] + ends[run]) / 2 + 1
    n_pos = int(positive.sum())
    n_neg = n - n_pos
    rank_sum = float(rank[positive].sum())
    if n_pos == 0 or n_neg == 0:
        warn_undefined("Only one class is present: the rank-sum AUC is undefined, NaN.")
        auc = float("nan")
    else:
        auc = (rank_sum - n_pos * (n_pos + 1) / 2) / (n_pos * n_neg)
    return AUCRankTable(score, positive, rank, rank_sum, n_pos, n_neg, auc)

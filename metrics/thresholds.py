"""Choosing a threshold: the operating points people ask for, from precomputed counts.

Each chooser takes :class:`~metrics.ThresholdCounts` (one sort, already done) and returns the
chosen distinct threshold, so trying criteria costs no further pass over the rows. Ties between
thresholds go to the highest one (fewest rows flagged).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from metrics.curves import ThresholdCounts

__all__ = ["CRITERIA", "ThresholdChoice", "choose_threshold"]

CRITERIA = ("max_f_beta", "youden", "precision_at_least", "recall_at_least", "min_cost")


@dataclass(frozen=True)
class ThresholdChoice:
    """The chosen threshold, its index in ``counts.thresholds``, and the criterion's value.

    ``threshold`` is None when no threshold meets a target (for example precision >= 0.99 on
    data where no cut reaches it).
    """

    criterion: str
    threshold: float | None
    index: int | None
    value: float | None


def choose_threshold(
    counts: ThresholdCounts,
    criterion: str,
    *,
    beta: float = 1.0,
    target: float | None = None,
    cost_fp: float = 1.0,
    cost_fn: float = 1.0,
) -> ThresholdChoice:
    """Pick the distinct threshold that is best by ``criterion``.

    Parameters
    ----------
    counts : ThresholdCounts
    criterion : {"max_f_beta", "youden", "precision_at_least", "recall_at_least", "min_cost"}
        - ``max_f_beta``: the highest F-beta;
        - ``youden``: the highest Youden's J = TPR - FPR (the ROC point farthest above chance);
        - ``precision_at_least``: the highest recall among thresholds with precision >= target;
        - ``recall_at_least``: the highest precision among thresholds with recall >= target;
        - ``min_cost``: the least expected cost ``cost_fp * FP + cost_fn * FN``.
    beta, target, cost_fp, cost_fn : float
        Parameters of the criteria that use them.

    Examples
    --------
    >>> from metrics import threshold_counts
    >>> c = threshold_counts([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8])
    >>> choose_threshold(c, "max_f_beta").threshold
    0.35
    >>> choose_threshold(c, "precision_at_least", target=1.0).threshold
    0.8
    """
    if criterion not in CRITERIA:
        raise ValueError(f"criterion must be one of {CRITERIA}, got {criterion!r}.")
    if criterion in ("precision_at_least", "recall_at_least") and (
        target is None or not 0 <= target <= 1
    ):
        raise ValueError(f"{criterion} needs a target between 0 and 1, got {target!r}.")
    if cost_fp < 0 or cost_fn < 0:
        raise ValueError("Costs must be >= 0.")
    c = counts.confusion()
    if criterion == "max_f_beta":
        score = c.f_beta(beta)
    elif criterion == "youden":
        score = c.recall - c.fpr
    elif criterion == "min_cost":
        score = -(cost_fp * np.asarray(c.fp, float) + cost_fn * np.asarray(c.fn, float))
    elif criterion == "precision_at_least":
        # Precision is at least the target up to rounding in the last bit.
        score = np.where(c.precision >= target - 1e-12, c.recall, -np.inf)
    else:
        score = np.where(c.recall >= target - 1e-12, c.precision, -np.inf)
    if score.size == 0 or not np.isfinite(score).any():
        return ThresholdChoice(criterion, None, None, None)
    i = int(np.argmax(score))  # first maximum: the highest threshold among ties
    value = float(-score[i]) if criterion == "min_cost" else float(score[i])
    return ThresholdChoice(criterion, float(counts.thresholds[i]), i, value)

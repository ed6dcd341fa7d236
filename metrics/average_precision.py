"""Average Precision, computed every way people compute it, with the points each way uses.

Every method works on the same precision-recall points: one per distinct threshold (tied scores
merged into one point), recall ``R_i = TP_i / P`` and precision ``P_i = TP_i / (TP_i + FP_i)``,
in order of decreasing threshold. Each method is a weighted sum of precisions at some recall
positions, ``AP = sum_j weight_j * precision_j``; :func:`ap_breakdown` returns those positions,
precisions and weights, so the dashboard can draw and tabulate exactly what is summed.

========== ============================== ==================================================
method     used by                        what is summed
========== ============================== ==================================================
step       scikit-learn >= 0.19           ``(R_i - R_{i-1}) * P_i``, ``R_0 = 0``
trapezoid  scikit-learn < 0.19            trapezoids between consecutive points, starting
                                          from (recall 0, precision 1)
voc11      PASCAL VOC 2007                mean over recall levels 0, 0.1, ..., 1 of the
                                          highest precision at recall >= level (0 if none)
voc_all    PASCAL VOC 2010+               ``(R_i - R_{i-1}) * max_{j >= i} P_j``: the step sum
                                          under the precision envelope
coco101    COCO                           mean over recall levels 0, 0.01, ..., 1 of the
                                          envelope at the first point with recall >= level;
                                          levels past the largest recall count 0
========== ============================== ==================================================

Recall levels are exact: ``R_i >= k / 10`` is tested as ``10 * TP_i >= k * P``, so the level 0.3
is reached by a recall of exactly 0.3 (``np.arange(0, 1.1, 0.1)`` yields 0.30000000000000004,
which misses it: a known floating-point bug in some implementations, not reproduced here).

The functions below take cumulative counts along the last axis, so one code path serves a single
curve (1-D) and one curve per row of a multi-label matrix (2-D, for ``average="samples"``).
Repeated points (same recall and precision) are allowed and change no method's value.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["AP_METHODS", "APBreakdown", "ap_breakdown"]

AP_METHODS = ("step", "trapezoid", "voc11", "voc_all", "coco101")

# Where each method comes from, for documentation and the dashboard.
AP_METHOD_SOURCES = {
    "step": "scikit-learn >= 0.19",
    "trapezoid": "scikit-learn < 0.19",
    "voc11": "PASCAL VOC 2007 (11-point)",
    "voc_all": "PASCAL VOC 2010+ (all points)",
    "coco101": "COCO (101-point)",
}

_LEVELS = {"voc11": 10, "coco101": 100}


def check_method(method: str) -> str:
    if method not in AP_METHODS:
        raise ValueError(f"method must be one of {AP_METHODS}, got {method!r}.")
    return method


@dataclass(frozen=True)
class APBreakdown:
    """What one AP method sums: ``value = sum(weight * precision)`` along the last axis.

    Attributes
    ----------
    method : str
    recall : ndarray of shape (..., n_points)
        Where each term sits on the recall axis: the point's recall, or the recall level.
    precision : ndarray of shape (..., n_points)
        The precision each term uses (raw, averaged over a trapezoid, or interpolated).
    weight : ndarray of shape (..., n_points)
        The width each term gets: a change in recall, or 1/11 or 1/101.
    value : float or ndarray of shape (...)
    """

    method: str
    recall: np.ndarray
    precision: np.ndarray
    weight: np.ndarray
    value: float | np.ndarray


def _precision(tps: np.ndarray, fps: np.ndarray) -> np.ndarray:
    predicted = tps + fps
    return np.divide(tps, predicted, out=np.zeros(np.shape(tps)), where=predicted != 0)


def _previous(x: np.ndarray, first: float) -> np.ndarray:
    """x shifted one step along the last axis, with ``first`` before the first element."""
    return np.concatenate((np.full((*x.shape[:-1], 1), first), x[..., :-1]), axis=-1)


def _envelope(precision: np.ndarray) -> np.ndarray:
    """max_{j >= i} precision_j along the last axis: precision made non-increasing in recall."""
    return np.flip(np.maximum.accumulate(np.flip(precision, -1), axis=-1), -1)


def _first_reaching(tps: np.ndarray, n_pos: np.ndarray, n_levels: int) -> np.ndarray:
    """Index of the first point with recall >= k / n_levels, k = 0..n_levels (n_points: none).

    Compares ``n_levels * tps >= k * n_pos`` (exact for integer counts). Rows are laid end to
    end with a per-row offset so one searchsorted serves every row.
    """
    tps2 = np.atleast_2d(tps).astype(np.float64)
    pos2 = np.reshape(n_pos, (-1, 1)).astype(np.float64)
    n_rows, n_points = tps2.shape
    span = n_levels * pos2.max() + 1 if n_rows > 1 else 0.0
    offsets = np.arange(n_rows, dtype=np.float64)[:, None] * span
    keys = (n_levels * tps2 + offsets).ravel()
    levels = np.arange(n_levels + 1, dtype=np.float64)[None, :] * pos2 + offsets
    found = np.searchsorted(keys, levels.ravel(), side="left").reshape(n_rows, n_levels + 1)
    found -= np.arange(n_rows)[:, None] * n_points
    return found.reshape((*np.shape(tps)[:-1], n_levels + 1))


def ap_breakdown(tps: np.ndarray, fps: np.ndarray, method: str = "step") -> APBreakdown:
    """The terms one AP method sums, from cumulative counts at decreasing thresholds.

    Parameters
    ----------
    tps, fps : ndarray of shape (..., n_points)
        True and false positives (counts or weights) with score >= each threshold, thresholds
        decreasing along the last axis, so both are non-decreasing. ``tps[..., -1]`` is the
        number of positives and must be > 0.
    method : {"step", "trapezoid", "voc11", "voc_all", "coco101"}

    Returns
    -------
    APBreakdown

    Examples
    --------
    Seed 002: labels [1, 0, 1, 0] with scores [1, 0.8, 0.6, 0.4].

    >>> tps, fps = np.array([1, 1, 2, 2]), np.array([0, 1, 1, 2])
    >>> round(float(ap_breakdown(tps, fps, "step").value), 4)
    0.8333
    >>> round(float(ap_breakdown(tps, fps, "trapezoid").value), 4)
    0.7917
    """
    check_method(method)
    tps = np.asarray(tps, dtype=np.float64)
    fps = np.asarray(fps, dtype=np.float64)
    n_pos = tps[..., -1]
    recall = tps / n_pos[..., None]
    precision = _precision(tps, fps)

    if method in ("step", "voc_all"):
        used = precision if method == "step" else _envelope(precision)
        weight = recall - _previous(recall, 0.0)
        x = recall
    elif method == "trapezoid":
        # From (recall 0, precision 1), as scikit-learn < 0.19's auc(recall, precision) did.
        used = (precision + _previous(precision, 1.0)) / 2
        weight = recall - _previous(recall, 0.0)
        x = recall
    else:
        n_levels = _LEVELS[method]
        first = _first_reaching(tps, n_pos, n_levels)
        envelope = _envelope(precision)
        padded = np.concatenate((envelope, np.zeros((*envelope.shape[:-1], 1))), axis=-1)
        used = np.take_along_axis(padded, first, axis=-1)
        x = np.broadcast_to(np.arange(n_levels + 1) / n_levels, used.shape)
        weight = np.full(used.shape, 1.0 / (n_levels + 1))
    value = np.sum(weight * used, axis=-1)
    return APBreakdown(method, x, used, weight, value if value.ndim else float(value))

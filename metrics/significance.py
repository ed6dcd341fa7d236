"""Is a difference between models real? Holm's correction, bootstrap p-values and verdicts.

A star, a colour or the word "best" claims a difference. :func:`best_model` makes that claim
only where a paired test on each difference, Holm-corrected across the pairs compared, supports
it; otherwise the verdict is "no significant difference". Pages display the verdicts computed
here and never decide one themselves.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from metrics._validation import as_real

__all__ = ["BestModel", "best_model", "bootstrap_p_value", "holm_adjust", "pair_verdict"]


def holm_adjust(p_values) -> np.ndarray:
    """Holm's step-down adjusted p-values (Holm 1979), in the input order.

    With ``m`` p-values sorted ascending, ``p_(1) <= ... <= p_(m)``, the adjusted value of the
    ``i``-th (from 1) is ``max_{j <= i} min(1, (m - j + 1) p_(j))``. Rejecting where the adjusted
    value is below ``alpha`` controls the family-wise error rate at ``alpha``. NaN p-values
    (no test possible) stay NaN and do not count in ``m``.

    Examples
    --------
    >>> holm_adjust([0.01, 0.04, 0.03]).round(4).tolist()
    [0.03, 0.06, 0.06]
    """
    p = as_real(p_values, "p_values").ravel()
    out = np.full(p.shape, np.nan)
    finite = np.flatnonzero(~np.isnan(p))
    if finite.size == 0:
        return out
    if np.any((p[finite] < 0) | (p[finite] > 1)):
        raise ValueError(f"p-values must be between 0 and 1, got {p[finite].tolist()}.")
    order = finite[np.argsort(p[finite], kind="stable")]
    m = order.size
    scaled = np.minimum(1.0, (m - np.arange(m)) * p[order])
    out[order] = np.maximum.accumulate(scaled)
    return out


P_FLOOR = 0.001  # below this a p-value is shown as "p < 0.001"


def format_p(p: float, *, floor: float = P_FLOOR, name: str = "p") -> str:
    """A p-value as people read it: ``"p = 0.0123"``, or ``"p < 0.001"`` below ``floor``.

    The one formatter for every p-value shown. ``floor`` can be raised where a test cannot
    resolve smaller values (a bootstrap of B resamples cannot tell p below 1 / B apart from 0).

    Examples
    --------
    >>> format_p(0.0123), format_p(0.0), format_p(3e-22), format_p(0.004, floor=1 / 200)
    ('p = 0.0123', 'p < 0.001', 'p < 0.001', 'p < 0.005')
    >>> format_p(0.325, name="Holm-adjusted p"), format_p(float("nan"))
    ('Holm-adjusted p = 0.325', 'p not computed')
    """
    if p is None or not np.isfinite(p):
        return f"{name} not computed"
    floor = max(float(floor), P_FLOOR)
    if p < floor:
        return f"{name} < {floor:.2g}"
    return f"{name} = {p:.3g}"


def bootstrap_p_value(replicates) -> float:
    """Two-sided p-value for "the difference is 0" from bootstrap replicates of a difference.

    ``p = min(1, 2 min(P*(d <= 0), P*(d >= 0)))`` over the finite replicates: the smallest
    ``alpha`` at which the equal-tailed percentile interval excludes 0, so the p-value and the
    interval shown beside it never disagree. NaN without finite replicates.

    Examples
    --------
    >>> bootstrap_p_value([0.1, 0.2, 0.3, -0.1])
    0.5
    """
    d = as_real(replicates, "replicates")
    d = d[np.isfinite(d)]
    if d.size == 0:
        return float("nan")
    return float(min(1.0, 2 * min(np.mean(d <= 0), np.mean(d >= 0))))


@dataclass(frozen=True)
class BestModel:
    """The verdict for one metric.

    Attributes
    ----------
    best : int or None
        Index of the model that is significantly best: better than every other model with a
        Holm-adjusted p-value below ``alpha``. None when no model is (or with one model).
    leader : int or None
        Index of the model with the best value, significant or not (None if none is finite).
    adjusted : dict of (int, int) -> float
        Holm-adjusted p-value of every pair tested, keyed ``(i, j)`` with ``i < j``.
    verdict : str
        In words: "<model> is best (every Holm-adjusted p <= ...)" or "no significant
        difference ...".
    """

    best: int | None
    leader: int | None
    adjusted: dict[tuple[int, int], float]
    verdict: str


def best_model(
    names,
    values,
    p_values: Mapping[tuple[int, int], float],
    *,
    higher_is_better: bool = True,
    alpha: float = 0.05,
    adjusted: bool = False,
) -> BestModel:
    """Which model, if any, is significantly best on one metric.

    Parameters
    ----------
    names : sequence of str
        Model names, for the verdict.
    values : sequence of float
        Each model's value of the metric.
    p_values : mapping (i, j) -> float
        A paired test's two-sided p-value for each pair ``i < j`` (NaN where no test ran).
    higher_is_better : bool
    alpha : float
        The family-wise error rate, across all pairs given.
    adjusted : bool, default False
        ``p_values`` are already adjusted across a larger family
        (:func:`metrics.families.family_verdicts`): used as they are, not Holm-adjusted again.

    Examples
    --------
    >>> r = best_model(["a", "b"], [0.90, 0.88], {(0, 1): 0.325})
    >>> r.best is None, r.leader
    (True, 0)
    >>> best_model(["a", "b"], [0.90, 0.80], {(0, 1): 0.001}).best
    0
    """
    values = as_real(values, "values")
    pairs = sorted(p_values)
    given = [p_values[k] for k in pairs]
    adjusted_list = np.asarray(given, dtype=np.float64) if adjusted else holm_adjust(given)
    adjusted = dict(zip(pairs, adjusted_list.tolist(), strict=True))
    if not np.isfinite(values).any():
        return BestModel(None, None, adjusted, "no finite value")
    ranked = np.where(np.isfinite(values), values, -np.inf if higher_is_better else np.inf)
    leader = int(np.argmax(ranked) if higher_is_better else np.argmin(ranked))
    if len(values) < 2:
        return BestModel(None, leader, adjusted, "one model: nothing to compare")
    against = {
        other: adjusted.get((min(leader, other), max(leader, other)), np.nan)
        for other in range(len(values))
        if other != leader
    }
    untested = [names[o] for o, p in against.items() if np.isnan(p)]
    if untested:
        return BestModel(
            None, leader, adjusted, f"not tested against {', '.join(map(str, untested))}"
        )
    worst = max(against.values())
    tied = [names[o] for o in against if values[o] == values[leader]]
    if worst < alpha and not tied:
        return BestModel(
            leader,
            leader,
            adjusted,
            f"{names[leader]} is best: better than every other model, every "
            f"{format_p(worst, name='Holm-adjusted p').replace(' = ', ' ≤ ')}",
        )
    weakest = max(against, key=against.get)
    return BestModel(
        None,
        leader,
        adjusted,
        f"no significant difference: {names[leader]} leads, but against {names[weakest]} the "
        f"{format_p(worst, name='Holm-adjusted p')} (≥ {alpha:g})",
    )


def pair_verdict(
    metric: str,
    name_a: str,
    name_b: str,
    difference: float,
    adjusted_p: float,
    *,
    ci: tuple[float, float] | None = None,
    higher_is_better: bool = True,
    alpha: float = 0.05,
) -> str:
    """One pair's verdict in words, from ``difference`` = A − B and its adjusted p-value.

    Examples
    --------
    >>> pair_verdict("AP", "a", "b", -0.012, 0.003, ci=(-0.020, -0.004))
    'b is better than a on AP by 0.012 [0.004, 0.020]'
    >>> pair_verdict("AUC", "a", "b", 0.0012, 0.325)
    'no significant difference on AUC (a − b = +0.0012, Holm-adjusted p = 0.325)'
    >>> pair_verdict("Brier", "a", "b", -0.01, 0.001, higher_is_better=False)
    'a is better than b on Brier by 0.010'
    """
    if np.isnan(adjusted_p) or not np.isfinite(difference):
        return f"not tested on {metric} ({name_a} − {name_b} = {difference:+.4g})"
    if adjusted_p >= alpha or difference == 0:
        return (
            f"no significant difference on {metric} ({name_a} − {name_b} = {difference:+.4f}, "
            f"{format_p(adjusted_p, name='Holm-adjusted p')})"
        )
    # Both names: with three or more models a line must say which pair it judges.
    winner, loser = (name_a, name_b) if (difference > 0) == higher_is_better else (name_b, name_a)
    text = f"{winner} is better than {loser} on {metric} by {abs(difference):.3f}"
    if ci is not None and np.isfinite(ci[0]) and np.isfinite(ci[1]):
        # The interval of |A − B|: as given when A − B > 0, else mirrored.
        low, high = ci if difference > 0 else (-ci[1], -ci[0])
        text += f" [{low:.3f}, {high:.3f}]"
    return text

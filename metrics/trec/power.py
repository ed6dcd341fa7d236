"""How much a comparison of two runs could see: the effect size of the per-query differences, the
power of the paired t-test at that effect, and the smallest difference it would detect.

For the per-query differences ``d`` (``n`` queries) of two runs on one measure:

* ``effect_size`` is Cohen's ``d_z = mean(d) / sd(d)`` (``sd`` with ``n - 1``), the paired
  effect size;
* ``power`` is the probability that the two-sided paired t-test at ``alpha`` rejects when the
  true effect is the observed one: ``P(|T'| > t_{1 - alpha/2, n-1})`` for the noncentral t on
  ``n - 1`` degrees of freedom with noncentrality ``d_z sqrt(n)``. It is a function of the
  p-value (Hoenig and Heisey 2001), shown beside the next one rather than as a verdict;
* ``detectable`` is the minimum detectable difference: the true mean difference that test finds
  with probability ``power`` (80%), in the measure's units, ``delta* sd(d) / sqrt(n)`` with
  ``delta*`` the noncentrality whose two-sided power is 80% (solved on the noncentral t, not the
  normal approximation ``t_{1-alpha/2} + t_{power}``). A true difference that small is missed
  1 time in 5; a smaller one more often. It assumes the spread of the differences is the observed
  one.

Equal to statsmodels' ``TTestPower`` (``power`` and ``solve_power``) in the tests.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import numpy as np

from metrics._student_t import t_quantile
from metrics._studentized import nct_two_sided_power

__all__ = ["PairedPower", "detectable_effect", "paired_power"]


@dataclass(frozen=True)
class PairedPower:
    """:func:`paired_power`'s result (NaN where undefined: fewer than two queries, or
    differences that do not vary)."""

    n_queries: int
    difference: float
    sd: float
    effect_size: float
    power: float
    detectable: float
    alpha: float
    target_power: float


def _check_levels(alpha: float, power: float) -> None:
    if not 0.0 < alpha < 1.0:
        raise ValueError(f"alpha must be between 0 and 1, got {alpha!r}.")
    if not alpha < power < 1.0:
        raise ValueError(f"power must be between alpha ({alpha:g}) and 1, got {power!r}.")


@lru_cache(maxsize=256)
def detectable_effect(n: int, alpha: float = 0.05, power: float = 0.8) -> float:
    """The effect size ``d_z`` the two-sided paired t-test on ``n`` queries detects with
    probability ``power`` at ``alpha`` (NaN for ``n < 2``): bisection on the noncentrality."""
    _check_levels(alpha, power)
    if n < 2:
        return math.nan
    df = n - 1
    crit = t_quantile(1.0 - alpha / 2.0, df)
    lo, hi = 0.0, 4.0
    while nct_two_sided_power(hi, crit, df)[0] < power:
        lo, hi = hi, 2.0 * hi
    while hi - lo > 1e-10 * hi:
        mid = 0.5 * (lo + hi)
        if nct_two_sided_power(mid, crit, df)[0] < power:
            lo = mid
        else:
            hi = mid
    return 0.5 * (lo + hi) / math.sqrt(n)


def paired_power(differences: Any, *, alpha: float = 0.05, power: float = 0.8) -> PairedPower:
    """Effect size, power and minimum detectable difference of paired per-query differences.

    Parameters
    ----------
    differences : array-like of shape (n_queries,)
        Per-query differences ``run - baseline`` on one measure.
    alpha : float, default 0.05
        Level of the two-sided paired t-test.
    power : float, default 0.8
        The power at which the detectable difference is given.

    Returns
    -------
    PairedPower

    Examples
    --------
    >>> r = paired_power([0.1, 0.0, 0.2, -0.05, 0.15, 0.05, 0.1, 0.0])
    >>> round(r.effect_size, 3), round(r.detectable, 3)
    (0.816, 0.097)
    """
    _check_levels(alpha, power)
    d = np.asarray(differences, dtype=np.float64).ravel()
    if d.size and not np.all(np.isfinite(d)):
        raise ValueError("differences must be finite; a per-query value is NaN or infinite.")
    n = int(d.size)
    nan = math.nan
    if n < 2:
        mean = float(d.mean()) if n else nan
        return PairedPower(n, mean, nan, nan, nan, nan, alpha, power)
    mean = float(d.mean())
    sd = float(d.std(ddof=1))
    # Differences equal up to rounding (one run is the other plus a constant) do not vary.
    if sd <= 1e-12 * float(np.abs(d).max()):
        return PairedPower(n, mean, 0.0, nan, nan, nan, alpha, power)
    dz = mean / sd
    crit = t_quantile(1.0 - alpha / 2.0, n - 1)
    observed = float(nct_two_sided_power(dz * math.sqrt(n), crit, n - 1)[0])
    return PairedPower(
        n, mean, sd, dz, observed, detectable_effect(n, alpha, power) * sd, alpha, power
    )

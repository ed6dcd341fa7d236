"""Two distributions over a studentized scale, without scipy: the studentized range with finite
degrees of freedom (Tukey's HSD) and the noncentral t (the power of the paired t-test).

Both are a normal quantity divided by ``S = sqrt(V / df)`` with ``V`` chi-squared on ``df``
degrees of freedom, so both are one integral over ``S``:

* ``P(Q > q) = E_S[P(R > q S)]`` for the range ``R`` of ``k`` standard normals, where
  ``P(R > w) = k * int phi(z) (Phi(z)^(k-1) - (Phi(z) - Phi(z - w))^(k-1)) dz`` (written as a
  difference of powers so a small tail keeps its digits);
* ``P(T' > c) = E_S[Phi(delta - c S)]`` for ``T' = (Z + delta) / S``.

The expectation over ``S`` is the trapezoid rule in ``x = log S``, where the density is smooth
and decays like ``exp(df * x)`` on the left and doubly exponentially on the right: for such an
integrand on the real line the trapezoid rule converges geometrically (Trefethen and Weideman,
SIAM Review 2014): for a Gaussian-like bump of width ``sigma`` the error is about
``exp(-2 pi^2 sigma^2 / h^2)``, so a step of ``sigma / 1.5`` is exact to double precision. The
weights are normalised on the grid. The inner integral over ``z`` is the same rule on
[-9, 9] with a step of 0.25 (``phi`` is below 1e-18 outside).
"""

from __future__ import annotations

import math
from functools import lru_cache

import numpy as np

__all__ = [
    "nct_two_sided_power",
    "studentized_range_quantile",
    "studentized_range_sf",
]

_erf = np.frompyfunc(math.erf, 1, 1)
_Z = np.linspace(-9.0, 9.0, 73)
_DZ = _Z[1] - _Z[0]
_PHI_Z = np.exp(-0.5 * _Z * _Z) / math.sqrt(2.0 * math.pi)


def _normal_cdf(x: np.ndarray) -> np.ndarray:
    return 0.5 * (1.0 + _erf(np.asarray(x, dtype=np.float64) / math.sqrt(2.0)).astype(np.float64))


_CDF_Z = _normal_cdf(_Z)


def _sharpness(scale: float) -> float:
    """``scale`` rounded up to a power of two (1 to 1024), so the grids are few and cached.
    Past 1024 the tail probabilities are below 1e-300 or the power is 1 on any grid."""
    return 2.0 ** min(10, math.ceil(math.log2(max(1.0, float(scale)))))


@lru_cache(maxsize=64)
def _s_grid(df: float, sharp: float = 1.0) -> tuple[np.ndarray, np.ndarray]:
    """(nodes S, weights) of ``E[g(S)]`` for ``S = sqrt(chi2_df / df)``; infinite df is S = 1.

    ``sharp`` bounds how fast ``g(e^x)`` turns in ``x`` (``g(S) = Phi(delta - c S)`` turns
    over ``1 / delta``), so the step resolves it as well as the density."""
    if math.isinf(df):
        return np.ones(1), np.ones(1)
    # log density of x = log S, up to a constant: df * (x - (e^{2x} - 1) / 2), mode at 0,
    # curvature 2 df.
    width = 1.0 / math.sqrt(2.0 * df)
    step = min(0.15, width / 1.5, 0.6 / sharp)
    low = -36.0 / df - 0.5
    high = 0.5 * math.log(1.0 + 80.0 / df) + 0.5
    x = np.arange(low, high + step, step)
    log_g = df * (x - 0.5 * np.expm1(2.0 * x))
    w = np.exp(log_g - log_g.max())
    keep = w > 1e-18
    x, w = x[keep], w[keep]
    return np.exp(x), w / w.sum()


def _range_sf(w: np.ndarray, k: int) -> np.ndarray:
    """``P(R > w)`` for the range of ``k`` standard normals, each ``w >= 0``."""
    a = _CDF_Z  # Phi(z)
    b = _normal_cdf(_Z[None, :] - np.asarray(w, dtype=np.float64)[:, None])  # Phi(z - w)
    c = a - b  # Phi(z) - Phi(z - w), in [0, a]
    # a^m - c^m = (a - c) * sum_j a^j c^(m-1-j): no cancellation when b is tiny.
    m = k - 1
    total = np.zeros_like(c)
    for j in range(m):
        total += a**j * c ** (m - 1 - j)
    inner = b * total
    return np.clip(k * _DZ * (inner * _PHI_Z).sum(axis=1), 0.0, 1.0)


def studentized_range_sf(q, k: int, df: float) -> np.ndarray:
    """``P(Q > q)`` for the studentized range of ``k`` means on ``df`` degrees of freedom
    (``df = inf`` for a known variance); ``q`` a scalar or an array. Equals
    ``scipy.stats.studentized_range.sf`` to about 1e-9 (tested)."""
    if k < 2:
        raise ValueError(f"k must be at least 2, got {k!r}.")
    if not df > 0:
        raise ValueError(f"df must be positive, got {df!r}.")
    q = np.atleast_1d(np.asarray(q, dtype=np.float64))
    out = np.ones(q.shape)
    pos = q > 0
    if pos.any():
        qs = q[pos]
        s, w = _s_grid(float(df), _sharpness(qs.max()))
        sf = _range_sf((qs[:, None] * s[None, :]).ravel(), k).reshape(qs.size, s.size)
        out[pos] = np.clip(sf @ w, 0.0, 1.0)
    return out


@lru_cache(maxsize=256)
def studentized_range_quantile(p: float, k: int, df: float) -> float:
    """The ``q`` with ``P(Q <= q) = p``: the Illinois variant of regula falsi on
    ``log P(Q > q)``, which is nearly quadratic in ``q``, kept inside a bracket (to 1e-10)."""
    if not 0.0 < p < 1.0:
        raise ValueError(f"p must be strictly between 0 and 1, got {p!r}.")
    target = math.log1p(-p)

    def f(q: float) -> float:
        return math.log(max(float(studentized_range_sf(q, k, df)[0]), 1e-300)) - target

    lo, hi = 0.0, 8.0
    f_lo, f_hi = -target, f(hi)  # log P(Q > 0) = 0
    while f_hi > 0.0:
        lo, f_lo, hi = hi, f_hi, 2.0 * hi
        f_hi = f(hi)
    side = 0
    for _ in range(200):
        mid = (lo * f_hi - hi * f_lo) / (f_hi - f_lo)
        if hi - lo < 1e-10 * hi:
            break
        f_mid = f(mid)
        if f_mid == 0.0:
            return mid
        if f_mid > 0.0:
            lo, f_lo = mid, f_mid
            if side == 1:
                f_hi *= 0.5
            side = 1
        else:
            hi, f_hi = mid, f_mid
            if side == -1:
                f_lo *= 0.5
            side = -1
    return 0.5 * (lo + hi)


def nct_two_sided_power(delta, crit: float, df: float) -> np.ndarray:
    """``P(|T'| > crit)`` for the noncentral t on ``df`` degrees of freedom with noncentrality
    ``delta`` (scalar or array): the power of a two-sided t-test whose critical value is
    ``crit``. Equals ``scipy.stats.nct.sf(crit, df, delta) + nct.cdf(-crit, df, delta)``."""
    delta = np.atleast_1d(np.asarray(delta, dtype=np.float64))
    s, w = _s_grid(float(df), _sharpness(max(crit, float(np.abs(delta).max()))))
    cs = crit * s[None, :]
    upper = _normal_cdf((delta[:, None] - cs).ravel()).reshape(delta.size, s.size)
    lower = _normal_cdf((-delta[:, None] - cs).ravel()).reshape(delta.size, s.size)
    return np.clip((upper + lower) @ w, 0.0, 1.0)

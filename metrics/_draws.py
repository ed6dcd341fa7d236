"""The draws of a bootstrap: which rows each resample takes, as counts per row.

Poisson(1) counts from 16 random bits per row through an exact inverse-CDF table
(:func:`poisson_counts`), or ``n`` rows drawn with replacement, within each class when
stratified; :class:`_Draws` hands them out in blocks, the same whatever the block size. Used by
:func:`metrics.paired_bootstrap` (:mod:`metrics.compare`, which re-exports these names) and by
:mod:`metrics.bootstrap`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np


@dataclass(frozen=True)
class _Strata:
    """Where each drawn row comes from: draw ``p`` of a resample picks uniformly among
    ``members[offset[p]:offset[p] + size[p]]``, the rows of one stratum."""

    members: np.ndarray
    offset: np.ndarray
    size: np.ndarray


def _strata(y: np.ndarray, stratified: bool) -> _Strata:
    """One stratum per distinct label, or all rows as one."""
    n = y.size
    if not stratified:
        return _Strata(np.arange(n), np.zeros(n, dtype=np.intp), np.full(n, n, dtype=np.intp))
    try:
        _, inverse, counts = np.unique(y, return_inverse=True, return_counts=True)
    except TypeError:
        raise ValueError(
            "y_true mixes values that cannot be compared (for example numbers and strings), so "
            "its classes cannot be found for stratified resampling; pass stratified=False or "
            "make the labels one type."
        ) from None
    if counts.size > 2 and counts.size > n // 2:
        raise ValueError(
            f"y_true has {counts.size} distinct values in {n} rows; stratified resampling "
            "keeps each class's row count fixed and is meant for class labels. Pass "
            "stratified=False for a continuous target."
        )
    members = np.argsort(inverse.ravel(), kind="stable")
    offset = np.repeat(np.cumsum(counts) - counts, counts)
    return _Strata(members, offset, np.repeat(counts, counts))


def _draw_indices(rng: np.random.Generator, strata: _Strata, size: int) -> np.ndarray:
    """``size`` resamples of row indices, shape (size, n_samples), each stratum kept whole.

    The draws come from one uniform double per index, consumed in order, so a resample's rows
    do not depend on how many resamples are drawn at once: the first k resamples of a run are
    the same whatever ``n_resamples`` or the block size.
    """
    pick = rng.random((size, strata.members.size))
    pick *= strata.size
    pick = pick.astype(np.intp)
    np.minimum(pick, strata.size - 1, out=pick)  # guards u * size rounding up to size
    pick += strata.offset
    return strata.members[pick]


def _counts(indices: np.ndarray, n: int) -> np.ndarray:
    """How often each row occurs in each resample: int64 of shape (size, n)."""
    size = indices.shape[0]
    offsets = (np.arange(size, dtype=np.int64) * n)[:, None]
    return np.bincount((indices + offsets).ravel(), minlength=size * n).reshape(size, n)


# --- draws -------------------------------------------------------------------------------------


def _poisson_tables() -> tuple[np.ndarray, np.ndarray]:
    k = np.arange(40)
    pmf = np.exp(-1.0 - np.cumsum(np.log(np.maximum(k, 1))))  # e^-1 / k!
    cdf = np.cumsum(pmf)
    edges = np.arange(65537) / 65536.0
    low = np.searchsorted(cdf, edges[:-1], side="right")
    high = np.searchsorted(cdf, edges[1:], side="left")
    table = np.where(low == high, low, 255).astype(np.uint8)
    return table, cdf


_POISSON_TABLE, _POISSON_CDF = _poisson_tables()


def _high_byte_steps(table: np.ndarray) -> tuple[tuple[int, ...], tuple[int, ...], int]:
    """What the high byte of a 16-bit pattern says about its count in ``table``.

    Returns ``(steps, unsure, high)``: for a high byte ``h`` below ``high`` and not in
    ``unsure``, every pattern ``h * 256 + l`` has the count ``sum(h > s for s in steps)`` (0 to
    3); the other high bytes (a count boundary falls inside them, or counts of 4 and more) are
    looked up in the 16-bit table.
    """
    t = table.reshape(256, 256)
    sure = (t == t[:, :1]).all(axis=1) & (t[:, 0] != 255)
    count = np.where(sure, t[:, 0], 255)
    high = 1 + int(np.flatnonzero(sure & (count <= 3)).max())
    steps = tuple(int(np.flatnonzero(sure & (count < c)).max()) for c in (1, 2, 3))
    unsure = tuple(int(h) for h in np.flatnonzero(~sure) if h < high)
    return steps, unsure, high


_HIGH_STEPS, _HIGH_UNSURE, _HIGH_FROM = _high_byte_steps(_POISSON_TABLE)
_CACHE_CELLS = 1 << 18


def poisson_counts(rng: np.random.Generator, fix_rng: np.random.Generator, size: int, n: int):
    """``size`` resamples of Poisson(1) counts for ``n`` rows: uint8 of shape (size, n).

    Each resample takes ``ceil(n / 4)`` 64-bit words from ``rng``: 16 bits per row, mapped
    through the exact inverse-CDF table ``_POISSON_TABLE``; for the rare bit patterns that
    straddle two counts, uniforms from ``fix_rng`` in resample order settle them, so the first
    k resamples of a run do not depend on how many are drawn at once.

    The table is applied in two steps with the same result: the high byte alone gives the
    count of about 97% of rows, by three whole-array comparisons (no gather); the rows whose
    high byte leaves it open (a count boundary inside its 256 patterns, or a count of 4 or
    more) are looked up in the 16-bit table.
    """
    words = -(-n // 4)
    raw = rng.bit_generator.random_raw(size * words).view(np.uint16).reshape(size, words * 4)
    bits = raw[:, :n]
    flat = raw.reshape(-1) if words * 4 == n else None
    counts = np.empty((size, n), dtype=np.uint8)
    # In pieces of about 256K rows, so that the passes over a piece stay in the core's cache.
    step = max(1, _CACHE_CELLS // max(n, 1))
    high = np.empty((min(step, size), n), dtype=np.uint8)
    scratch = np.empty((min(step, size), n), dtype=bool)
    scratch_u = np.empty((min(step, size), n), dtype=bool)
    for first in range(0, size, step):
        part = slice(first, min(first + step, size))
        rows = part.stop - part.start
        h, tmp, c = high[:rows], scratch[:rows], counts[part]
        np.right_shift(bits[part], 8, out=h, casting="unsafe")
        np.greater(h, _HIGH_STEPS[0], out=c.view(bool))
        for value in _HIGH_STEPS[1:]:
            np.greater(h, value, out=tmp)
            c += tmp.view(np.uint8)
        u = np.greater_equal(h, _HIGH_FROM, out=scratch_u[:rows])
        for value in _HIGH_UNSURE:
            np.equal(h, value, out=tmp)
            u |= tmp
        # The pieces go in resample order, so fix_rng is read in the order of the whole block.
        at = np.flatnonzero(u)
        # Contiguous bits (n a multiple of 4) are gathered flat: no division per row.
        patterns = flat[part.start * n + at] if flat is not None else bits[part][at // n, at % n]
        exact = _POISSON_TABLE[patterns]
        fix = np.flatnonzero(exact == 255)
        if fix.size:
            v = patterns[fix] + fix_rng.random(fix.size)
            exact[fix] = np.searchsorted(_POISSON_CDF, v / 65536.0, side="right")
        c.reshape(-1)[at] = exact
    return counts


def _poisson_counts_by_table(rng, fix_rng, size: int, n: int) -> np.ndarray:
    """:func:`poisson_counts` by one 16-bit table lookup per row: the reference it must equal."""
    words = -(-n // 4)
    raw = rng.bit_generator.random_raw(size * words).view(np.uint16).reshape(size, words * 4)
    bits = raw[:, :n]
    counts = _POISSON_TABLE[bits]
    fix = np.flatnonzero(counts == 255)
    if fix.size:
        u = (bits.reshape(-1)[fix] if bits.flags.c_contiguous else bits[fix // n, fix % n]) + (
            fix_rng.random(fix.size)
        )
        counts.reshape(-1)[fix] = np.searchsorted(_POISSON_CDF, u / 65536.0, side="right")
    return counts


class _Draws:
    """Resample counts in blocks, the same whatever the block size."""

    def __init__(self, y: np.ndarray, seed: Any, method: str, stratified: bool) -> None:
        self.rng = np.random.default_rng(seed)
        self.method = method
        self.n = y.size
        if method == "poisson":
            self.fix_rng = np.random.default_rng(self.rng.bit_generator.random_raw(2))
        else:
            self.strata = _strata(y, stratified)

    def block(self, size: int) -> np.ndarray:
        if self.method == "poisson":
            return poisson_counts(self.rng, self.fix_rng, size, self.n)
        return _counts(_draw_indices(self.rng, self.strata, size), self.n)

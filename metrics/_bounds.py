"""The most work a public function takes on: every bound on an argument that sets how many
resamples are drawn or how much is allocated, in one place.

A function whose time or memory grows with an argument (``n_resamples``, a grid of
thresholds, ``n_bins``, a list of cut-offs...) checks it against a bound here before it works,
and refuses a value past it with a ``ValueError`` that names the argument and the bound: a
mistyped ``n_resamples=10**12`` is a sentence, not numpy asking for 7 TiB, and a grid of 10^8
points is not minutes of work followed by a ``MemoryError``. The bounds sit far above what any
page, command or study here asks for (1,000 resamples, grids of at most 1,000 points, 10 to 20
bins), so only a mistake or an attack meets them.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

__all__ = [
    "MAX_BINS",
    "MAX_CELLS",
    "MAX_CUTOFFS",
    "MAX_GRID",
    "MAX_KAPPA_ANNOTATORS",
    "MAX_PAIR_SIDE",
    "MAX_RATING_CELLS",
    "MAX_RESAMPLES",
    "MAX_ROUNDS",
    "check_at_most",
    "check_cells",
    "check_count",
    "check_grids",
]

MAX_RESAMPLES = 100_000  # bootstrap resamples; the command's --resamples has the same bound
MAX_GRID = 100_000  # points of a threshold, FPR or recall grid kept per resample
MAX_CELLS = 50_000_000  # values kept at once: resamples x grid points (x models): 400 MB
MAX_BINS = 100_000  # reliability bins, lift-table bins
MAX_PAIR_SIDE = 2_000  # positives (and negatives) drawn in the AUC pair grid: 4e6 cells
MAX_ROUNDS = 100_000  # rounds of a threshold search
MAX_CUTOFFS = 10_000  # cut-offs k of one ranking_curves call (a grouped sum each)
MAX_RATING_CELLS = 20_000_000  # items x annotators of a ratings table: 160 MB of float64
MAX_KAPPA_ANNOTATORS = 100  # Cohen's kappa for every pair up to this many annotators: 4,950


def check_count(value: Any, name: str, high: int, *, low: int = 1) -> int:
    """``value`` as an int from ``low`` to ``high``; a ``ValueError`` naming ``name`` and the
    bounds otherwise (a bool, a float, a string or a number out of range)."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise ValueError(
            f"{name} must be a whole number from {low:,} to {high:,}, got {value!r} "
            f"({type(value).__name__})."
        )
    if value < low:
        raise ValueError(f"{name} must be a whole number from {low:,} to {high:,}, got {value:,}.")
    check_at_most(value, name, high)
    return int(value)


def check_at_most(value: Any, name: str, high: int) -> None:
    """Refuse ``value`` (a number already checked to be a whole number) past ``high``, naming
    ``name`` and the bound."""
    if value > high:
        raise ValueError(
            f"{name} must be at most {high:,}, got {int(value):,}: past {high:,} the work or "
            "memory it asks for is a mistake, not a result."
        )


def check_grids(name: str, n_resamples: int, grids: dict[str, tuple[int, int]]) -> None:
    """Grids kept per resample (``argument -> (points, copies)``: a grid's points, and how
    many arrays of that many values each resample keeps, one per model and measure): each at
    most :data:`MAX_GRID` points, and all the values over the resamples at most
    :data:`MAX_CELLS`."""
    for what, (points, _) in grids.items():
        if points > MAX_GRID:
            raise ValueError(
                f"{what} has {points:,} points, more than the bound of {MAX_GRID:,}: a band "
                "needs a few hundred; pass a coarser grid."
            )
    kept = sum(points * copies for points, copies in grids.values())
    check_cells(name, ("n_resamples", n_resamples), ("grid values a resample keeps", kept))


def check_cells(name: str, *factors: tuple[str, int]) -> None:
    """Refuse when the product of ``factors`` (``(argument, size)`` pairs: resamples, grid
    points, models) passes :data:`MAX_CELLS`, naming the arguments and the bound."""
    cells = math.prod(size for _, size in factors)
    if cells > MAX_CELLS:
        said = " x ".join(f"{what} {size:,}" for what, size in factors)
        raise ValueError(
            f"{name} would keep {said} = {cells:,} values at once, more than the bound of "
            f"{MAX_CELLS:,} (400 MB); use fewer resamples or a coarser grid."
        )

"""Hypothesis strategies that draw the shapes users make, on purpose.

A fast path checked only on the shapes its author picked hides the bug that one shape shows: the
fast bootstrap was wrong exactly when positives equalled negatives. These strategies put the
risky shapes in front: equal class counts, one or two rows of a class, class sizes around the
blocked prefix sum's 32-column runs and powers of two, every score tied, zero and fractional
weights, several models, groups of one row.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from hypothesis import settings
from hypothesis import strategies as st


def examples(n: int, profile: settings | None = None) -> int:
    """A test's own ``max_examples``, scaled as the loaded profile (or ``profile``) scales
    Hypothesis' default of 100: the same under the default and ``ci`` profiles, a quarter under
    ``fast`` (``make test-fast``, the edit-run loop; ``make test`` and CI draw them all). Fewer
    than 5 stay as they are."""
    base = (profile or settings.default).max_examples
    return max(min(n, 5), round(n * base / 100))


# Class sizes where something changes: one and two rows, the 32-column runs of the blocked
# prefix sums (31, 32, 33, 63, 64, 65) and powers of two plus or minus one.
EDGE_SIZES = (1, 2, 3, 31, 32, 33, 63, 64, 65, 127, 128, 129)


@dataclass(frozen=True)
class Binary:
    """A generated binary score table: labels, 1-5 models, optional weights and groups."""

    y: np.ndarray  # bool
    scores: tuple[np.ndarray, ...]
    weights: np.ndarray | None
    groups: np.ndarray | None

    def __repr__(self) -> str:  # hypothesis prints this on failure: keep it readable
        return (
            f"Binary(n_pos={int(self.y.sum())}, n_neg={int((~self.y).sum())}, "
            f"models={len(self.scores)}, weights={self.weights is not None}, "
            f"groups={None if self.groups is None else np.unique(self.groups).size}, "
            f"y={self.y.astype(int).tolist()}, "
            f"scores={[s.tolist() for s in self.scores]}, "
            f"weights={None if self.weights is None else self.weights.tolist()}, "
            f"groups={None if self.groups is None else self.groups.tolist()})"
        )


@st.composite
def class_counts(draw, max_size: int = 129) -> tuple[int, int]:
    """(positives, negatives), half the time equal, often at an edge size."""
    sizes = [s for s in EDGE_SIZES if s <= max_size]
    size = st.one_of(st.sampled_from(sizes), st.integers(1, max_size))
    n_pos = draw(size)
    n_neg = n_pos if draw(st.booleans()) else draw(size)
    return n_pos, n_neg


@st.composite
def score_column(draw, n: int, rng: np.random.Generator, y: np.ndarray) -> np.ndarray:
    """Scores of one model: continuous, heavily tied, all tied, or a perfect/inverted ranking."""
    kind = draw(st.sampled_from(["continuous", "rounded", "coarse", "all_tied", "separating"]))
    if kind == "all_tied":
        return np.full(n, 0.5)
    s = rng.normal(size=n) + draw(st.floats(-1.0, 2.0)) * y
    if kind == "rounded":
        return np.round(s, 1)
    if kind == "coarse":
        return np.round(s)
    if kind == "separating":
        return y + 0.01 * rng.random(n) * draw(st.sampled_from([1.0, -1.0]))
    return s


@st.composite
def binary_tables(
    draw,
    *,
    max_size: int = 129,
    max_models: int = 5,
    weights: bool = False,
    groups: bool = False,
) -> Binary:
    """A binary table in the shapes above, rows shuffled."""
    n_pos, n_neg = draw(class_counts(max_size))
    n = n_pos + n_neg
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    y = np.r_[np.ones(n_pos, bool), np.zeros(n_neg, bool)][rng.permutation(n)]
    m = draw(st.integers(1, max_models))
    scores = tuple(draw(score_column(n, rng, y)) for _ in range(m))
    w = None
    if weights and draw(st.booleans()):
        kind = draw(st.sampled_from(["fractional", "with_zeros", "integers"]))
        if kind == "integers":
            w = rng.integers(1, 4, n).astype(float)
        else:
            w = rng.random(n) * 3
            if kind == "with_zeros":
                w[rng.random(n) < 0.3] = 0.0
                # keep one nonzero row of each class so the metric stays defined
                w[np.flatnonzero(y)[0]] = 1.0
                w[np.flatnonzero(~y)[0]] = 1.0
    g = None
    if groups:
        kind = draw(st.sampled_from(["singletons", "few", "many"]))
        if kind == "singletons":
            g = np.arange(n)
        else:
            k = 2 if kind == "few" else max(2, n // 3)
            g = rng.integers(0, k, n)
    return Binary(y, scores, w, g)

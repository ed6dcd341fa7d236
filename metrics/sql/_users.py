"""The per-user tables of a state, and what no state can give.

The lowest of the state's modules: :mod:`metrics.sql._summary` (the summaries and their files)
and :mod:`metrics.sql._state` (the state that merges) both build on these tables, so neither
needs the other's late import. Re-exported by :mod:`metrics.sql._state` as before.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from metrics.groups import GroupAUC

REASONS = ("only positives", "only negatives", "zero weight")


class StateError(ValueError):
    """States that cannot be merged, or a figure a state cannot give; the message says why."""


PAIRED = (
    "a test between two models needs every row's placement under both models at once (their "
    "covariance), and a state keeps each model's counts apart, per score and per user: no "
    "state, merged or not, can give it. Run python -m metrics.sql --delong on the rows."
)


def _starts(keys: np.ndarray) -> np.ndarray:
    """Indices where a run of equal sorted ``keys`` begins."""
    if keys.size == 0:
        return np.zeros(0, np.int64)
    return np.flatnonzero(np.concatenate(([True], keys[1:] != keys[:-1])))


def _ids(group) -> np.ndarray:
    """User ids as a sortable array: numbers as they are, anything else as text."""
    g = np.asarray(group)
    return g.astype(str) if g.dtype == object else g


@dataclass
class UserTable:
    """Per user, sorted by id: rows, positives, negatives (integers, or weight sums) and 2U, the
    Mann-Whitney numerator of the user's AUC (an integer unweighted; any value with one
    class)."""

    group: np.ndarray
    rows: np.ndarray
    pos: np.ndarray
    neg: np.ndarray
    twice_u: np.ndarray

    @classmethod
    def from_unsorted(cls, group, rows, pos, neg, twice_u, weighted: bool) -> UserTable:
        group = _ids(group)
        order = np.argsort(group, kind="stable")
        kind = np.float64 if weighted else np.int64
        return cls(
            group[order],
            np.asarray(rows, np.int64)[order],
            np.asarray(pos, kind)[order],
            np.asarray(neg, kind)[order],
            np.asarray(twice_u, kind)[order],
        )

    def group_auc(self) -> GroupAUC:
        """The per-group table of the numpy library (:func:`metrics.group_auc_table`)."""
        defined = (self.pos > 0) & (self.neg > 0)
        pairs = np.where(defined, self.pos * self.neg, 1)
        # 2U and 2PN are exact integers: one correctly rounded division, as the library's.
        auc = np.where(defined, np.asarray(self.twice_u, np.float64) / (2 * pairs), np.nan)
        reason = np.select(
            [defined, self.pos > 0, self.neg > 0], ["", REASONS[0], REASONS[1]], REASONS[2]
        )
        return GroupAUC(self.group, self.rows, self.pos, self.neg, auc, reason)


@dataclass
class UserScoreTable:
    """Per distinct (user, score) pair, sorted by user id, then by descending score: rows,
    positives and negatives. Everything a user's AUC needs, and it adds up across files."""

    group: np.ndarray
    scores: np.ndarray
    rows: np.ndarray
    pos: np.ndarray
    neg: np.ndarray

    @classmethod
    def combine(cls, parts: Sequence[tuple], weighted: bool) -> UserScoreTable:
        """The table of ``parts`` (tuples of group, score, rows, pos, neg arrays, each pair any
        number of times), sorted, with the counts of equal pairs summed."""
        group = _ids(np.concatenate([_ids(p[0]) for p in parts]))
        scores = np.concatenate([np.asarray(p[1], np.float64) for p in parts])
        kind = np.float64 if weighted else np.int64
        rows, pos, neg = (
            np.concatenate([np.asarray(p[i], t) for p in parts])
            for i, t in ((2, np.int64), (3, kind), (4, kind))
        )
        order = np.lexsort((-scores, group))
        group, scores = group[order], scores[order]
        new = np.ones(group.size, bool)
        new[1:] = (group[1:] != group[:-1]) | (scores[1:] != scores[:-1])
        starts = np.flatnonzero(new)
        if starts.size == group.size:
            return cls(group, scores, rows[order], pos[order], neg[order])
        return cls(
            group[starts],
            scores[starts],
            *(np.add.reduceat(a[order], starts) for a in (rows, pos, neg)),
        )

    def users(self) -> UserTable:
        """Each user's rows, positives, negatives and exact 2U: within a user, over descending
        scores, ``2U = sum pos * (2 * negatives below + neg)``."""
        starts = _starts(self.group)
        if starts.size == 0:
            z = self.rows[:0]
            return UserTable(self.group[:0], z, self.pos[:0], self.neg[:0], self.pos[:0])
        sizes = np.diff(np.append(starts, self.group.size))
        rows = np.add.reduceat(self.rows, starts)
        pos = np.add.reduceat(self.pos, starts)
        neg_total = np.add.reduceat(self.neg, starts)
        cum = np.cumsum(self.neg)
        before = np.repeat(cum[starts] - self.neg[starts], sizes)  # the user's earlier rows
        below = np.repeat(neg_total, sizes) - (cum - before)  # negatives scoring lower
        terms = self.pos * (2 * below + self.neg)
        twice_u = np.add.reduceat(terms, starts)
        return UserTable(self.group[starts], rows, pos, neg_total, twice_u)

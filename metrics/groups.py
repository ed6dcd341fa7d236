"""Group AUC (GAUC): the ROC AUC within each group (user), averaged over the groups.

Recommender systems score many items per user, and a global AUC mostly measures how well the
model separates *users* (heavy clickers from light ones). GAUC asks the question that matters for
ranking one user's items: for each user, the AUC of their own rows, then a weighted mean over the
users whose rows hold both classes.

All groups are computed together: one argsort of the scores gives each row its score rank, and
one sort of an int64 key ``(group code, score rank, label)`` orders the rows by (group, score),
so each group's rows are a contiguous, score-ordered block and the Mann-Whitney counts of every
group come from a few cumulative sums and ``np.add.reduceat`` calls. No Python loop runs over
rows or over groups; unweighted, every count is an exact integer.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from metrics._validation import (
    _as_1d,
    _plural,
    _positions,
    check_binary_inputs,
    warn_undefined,
)

__all__ = ["WEIGHTINGS", "GroupAUC", "group_auc_score", "group_auc_table"]

WEIGHTINGS = ("impressions", "positives", "uniform")

# Integer group ids spanning no more values than there are rows (or than this) are factorised
# with a lookup table (bincount, O(n)) instead of np.unique's argsort.
_MIN_TABLE_SPAN = 1024


def _check_weighting(weighting: Any) -> None:
    if weighting not in WEIGHTINGS:
        options = ", ".join(repr(w) for w in WEIGHTINGS)
        raise ValueError(f"weighting must be one of {options}; got {weighting!r}.")


# --- group ids --------------------------------------------------------------------------------


def _is_missing(value: Any) -> bool:
    if value is None:
        return True
    try:
        return bool(value != value)  # NaN, NaT
    except TypeError:  # pandas.NA: its truth value is ambiguous
        return True


def _missing_ids(arr: np.ndarray) -> np.ndarray | None:
    kind = arr.dtype.kind
    if kind in "fc":
        return np.isnan(arr)
    if kind in "mM":
        return np.isnat(arr)
    if kind == "O":
        try:
            return np.asarray((arr == None) | (arr != arr), dtype=bool)  # noqa: E711
        except TypeError:  # an element (pandas.NA) refuses to compare; ask each one
            return np.frompyfunc(_is_missing, 1, 1)(arr).astype(bool)
    return None


def _check_groups(groups: Any, n_samples: int) -> np.ndarray:
    """Return the group ids as a 1-D array of n_samples values, none of them missing."""
    arr = _as_1d(groups, "groups")
    if arr.size != n_samples:
        raise ValueError(
            f"groups has {arr.size} rows but y_true has {n_samples}; they must be the same "
            "length (one group id per row)."
        )
    missing = _missing_ids(arr)
    if missing is not None and missing.any():
        raise ValueError(
            f"groups has {_plural(int(missing.sum()), 'missing id')} (None or NaN) at "
            f"{_positions(missing)}; every row needs a group. Drop those rows or give them an id."
        )
    return arr


def _factorize(ids: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(sorted distinct ids, int64 code of each row, rows per id): no Python loop over rows."""
    if ids.dtype.kind in "biu":
        wide = ids.astype(np.int64 if ids.dtype.kind == "i" else np.uint64, copy=False)
        lo, hi = int(wide.min()), int(wide.max())
        span = hi - lo + 1
        if span <= max(wide.size, _MIN_TABLE_SPAN):
            # Ids in a narrow range: a lookup table is O(n), where np.unique sorts.
            lo = wide.dtype.type(lo)
            offset = (wide - lo).astype(np.intp, copy=False)
            counts = np.bincount(offset, minlength=span)
            present = counts > 0
            code_of = np.cumsum(present) - 1
            uniques = (np.flatnonzero(present).astype(wide.dtype) + lo).astype(ids.dtype)
            return uniques, code_of[offset], counts[present]
    try:
        uniques, codes = np.unique(ids, return_inverse=True)
    except TypeError as exc:  # object ids of mixed types, such as 1 and "1"
        kinds = sorted({type(v).__name__ for v in ids[:1000].tolist()})
        raise ValueError(
            f"groups mixes ids of types that cannot be ordered together ({', '.join(kinds)}); "
            "use one type for every group id (for example all strings)."
        ) from exc
    codes = codes.reshape(-1).astype(np.intp, copy=False)
    return uniques, codes, np.bincount(codes, minlength=uniques.size)


# --- the one sort -----------------------------------------------------------------------------


def _sorted_keys(
    y: np.ndarray, s: np.ndarray, ids: np.ndarray, w: np.ndarray | None
) -> tuple[np.ndarray, np.ndarray, np.ndarray, bool, np.ndarray | None]:
    """Factorise the groups and build one int64 sort key per row.

    The key is ``(group code * D + score rank) * 2 + is_negative``, where D is the number of
    distinct scores and the rank is dense (equal scores share it). Sorting the keys orders the
    rows by group, then score, with a group's positives before its negatives among equal
    scores; equal scores in different groups get different keys, so ties never cross a group
    boundary. The keys come in score order, not row order (the sort does not care), so the
    weights are returned in that order too.

    Returns (distinct group ids, rows per group, keys, whether any scores tie, weights).
    """
    uniques, codes, counts = _factorize(ids)
    n = s.size
    order = np.argsort(s)
    keys = codes[order]
    del codes  # the caller holds no reference: one n-array less at the peak
    # Dense ranks in score order, computed in the buffer of the sorted scores.
    rank = s[order]
    new = np.empty(n, dtype=bool)
    new[:1] = True
    np.not_equal(rank[1:], rank[:-1], out=new[1:])
    rank = rank.view(np.int64)
    rank[:] = new
    del new
    np.cumsum(rank, out=rank)  # 1-based; in place (a bool input would be cast in a copy)
    n_distinct = int(rank[-1])
    if uniques.size * 2 * n_distinct >= 2**63:
        raise ValueError(
            f"{n} rows in {uniques.size} groups are too many for one int64 sort key; "
            "split the data by group into smaller parts."
        )
    keys *= 2 * n_distinct
    rank -= 1
    rank *= 2
    keys += rank
    del rank
    keys += ~y[order]
    return uniques, counts, keys, n_distinct < n, None if w is None else w[order]


def _group_starts(counts: np.ndarray) -> np.ndarray:
    starts = np.zeros(counts.size, dtype=np.intp)
    np.cumsum(counts[:-1], out=starts[1:])
    return starts


def _new_run_mask(runs: np.ndarray) -> np.ndarray:
    """True where a sorted array takes a new value: the first row of each (group, score) run."""
    new = np.empty(runs.size, dtype=bool)
    new[:1] = True
    np.not_equal(runs[1:], runs[:-1], out=new[1:])
    return new


def _tied_pairs(
    runs: np.ndarray, negative: np.ndarray, neg_before: np.ndarray, starts: np.ndarray
) -> np.ndarray:
    """Per group, the number of tied positive-negative pairs: sum of p * q over its score runs.

    ``runs`` are the sorted keys without their label bit. Only runs of two rows or more can
    hold a tie, and they are usually few, so they are found by their first and last rows and
    nothing is summed over the single-row runs.
    """
    new = _new_run_mask(runs)
    cont = ~new  # the row has the same (group, score) as the row before it
    first = np.flatnonzero(new[:-1] & cont[1:])
    last = np.flatnonzero(cont & np.append(new[1:], True))
    del new, cont
    n_neg = neg_before[last] - neg_before[first] + negative[first]
    pairs = (last - first + 1 - n_neg) * n_neg
    # Runs never cross a group boundary, so each run's group is that of its first row.
    group = np.searchsorted(starts, first, side="right") - 1
    tied = np.zeros(starts.size, dtype=np.int64)
    if first.size:
        new_group = np.flatnonzero(np.append(True, group[1:] != group[:-1]))
        tied[group[new_group]] = np.add.reduceat(pairs, new_group)
    return tied


def _counts_unweighted(
    keys: np.ndarray, counts: np.ndarray, *, ties: bool
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per group: (positives, negatives, 2U) in exact int64, from the keys (sorted in place).

    2U = sum over positives of (2 * negatives strictly below + negatives tied), the
    Mann-Whitney statistic doubled so that tied pairs (one half each) stay integers. ``ties``
    says whether any two scores are equal at all.
    """
    keys.sort()
    starts = _group_starts(counts)
    negative = np.empty(keys.size, dtype=np.int8)
    np.bitwise_and(keys, 1, out=negative, casting="unsafe")
    neg_before = negative.astype(np.int64)
    np.cumsum(neg_before, out=neg_before)  # negatives at or before each position
    n_neg = np.add.reduceat(negative, starts, dtype=np.int64)
    n_pos = counts - n_neg
    neg_before_group = neg_before[starts] - negative[starts]
    # A positive at position i has neg_before[i] - neg_before_group negatives below it in its
    # group (its tied negatives come after it). Summing neg_before over the whole group and
    # removing the negatives' own terms (N * offset + 1 + 2 + ... + N) leaves the positives'.
    below = np.add.reduceat(neg_before, starts) - counts * neg_before_group
    below -= n_neg * (n_neg + 1) // 2
    twice_u = 2 * below
    if ties:
        # Each tied positive-negative pair counts one half: one more in 2U.
        keys >>= 1  # in place: the label bit is no longer needed
        twice_u += _tied_pairs(keys, negative, neg_before, starts)
    return n_pos, n_neg, twice_u


def _within_group_cumsum(x: np.ndarray, first: np.ndarray, sizes: np.ndarray) -> np.ndarray:
    """Exclusive cumulative sums of ``x`` restarting at each segment, accurate to a few ulps.

    A plain global cumsum minus each segment's offset loses the small sums of late segments to
    the rounding of the large running total; the rounding error of every addition is recovered
    exactly (Knuth's TwoSum) and added back, so each segment's sums are as accurate as if it had
    been summed alone. Works in place on three arrays: fresh n-arrays are slow to fault in.
    """
    total = np.cumsum(x)
    before = np.empty_like(total)
    before[:1] = 0.0
    before[1:] = total[:-1]
    # TwoSum: before + x == total + err exactly, with x' = total - before and
    # err = (before - (total - x')) + (x - x').
    x_rounded = total - before
    total -= x_rounded
    np.subtract(before, total, out=total)
    np.subtract(x, x_rounded, out=x_rounded)
    err = np.add(total, x_rounded, out=total)
    err_before = x_rounded
    err_before[:1] = 0.0
    np.cumsum(err[:-1], out=err_before[1:])
    del err, total
    before -= np.repeat(before[first], sizes)
    err_before -= np.repeat(err_before[first], sizes)
    before += err_before
    return before


def _counts_weighted(
    keys: np.ndarray, counts: np.ndarray, w: np.ndarray, *, ties: bool
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per group: (positive weight, negative weight, 2U) in float64."""
    order = np.argsort(keys)
    keys = keys[order]
    neg = w[order]
    del order
    starts = _group_starts(counts)
    pos = np.where(keys & 1, 0.0, neg)
    neg -= pos  # exact: each row's weight is all positive or all negative
    if ties:
        keys >>= 1
        new = _new_run_mask(keys)
        run_starts = np.flatnonzero(new)
        pos = np.add.reduceat(pos, run_starts)
        neg = np.add.reduceat(neg, run_starts)
        runs_per_group = np.add.reduceat(new, starts, dtype=np.intp)
        del new, run_starts
        first_run = _group_starts(runs_per_group)
    else:  # every (group, score) run is one row
        runs_per_group, first_run = counts, starts
    del keys
    # 2U = sum over runs of pos * (2 * negative weight below + negative weight tied).
    terms = _within_group_cumsum(neg, first_run, runs_per_group)
    terms *= 2.0
    terms += neg
    terms *= pos
    return (
        np.add.reduceat(pos, first_run),
        np.add.reduceat(neg, first_run),
        np.add.reduceat(terms, first_run),
    )


# --- public API -------------------------------------------------------------------------------


@dataclass(frozen=True)
class GroupAUC:
    """The ROC AUC of every group, from one sort of all rows.

    All attributes are arrays of shape (n_groups,), one entry per distinct group id, sorted by id.

    Attributes
    ----------
    group : ndarray of shape (n_groups,)
        The distinct group ids, sorted.
    rows : ndarray of int64, shape (n_groups,)
        Number of rows of each group.
    positives, negatives : ndarray of shape (n_groups,)
        Number of positive and negative rows (int64), or their total sample weight (float64).
    auc : ndarray of float64, shape (n_groups,)
        The group's ROC AUC (ties count one half); NaN when the group has one class only.
    reason : ndarray of str, shape (n_groups,)
        Why the AUC is undefined: ``""`` when it is defined, else ``"only positives"``,
        ``"only negatives"``, or ``"zero weight"`` when every row of the group has weight 0.

    Examples
    --------
    >>> t = group_auc_table([0, 0, 1, 1, 1, 0, 0], [0.1, 0.4, 0.35, 0.8, 0.3, 0.2, 0.5],
    ...                     ["a", "a", "a", "a", "b", "b", "c"])
    >>> t.group.tolist(), t.auc.tolist(), t.reason.tolist()
    (['a', 'b', 'c'], [0.75, 1.0, nan], ['', '', 'only negatives'])
    >>> t.score("impressions"), t.score("uniform"), t.n_skipped
    (0.8333333333333334, 0.875, 1)
    """

    group: np.ndarray
    rows: np.ndarray
    positives: np.ndarray
    negatives: np.ndarray
    auc: np.ndarray
    reason: np.ndarray

    def __len__(self) -> int:
        return self.group.size

    @property
    def defined(self) -> np.ndarray:
        """Boolean mask of the groups whose AUC is defined (both classes carry weight)."""
        return self.reason == ""

    @property
    def n_skipped(self) -> int:
        """Number of groups left out of the mean because their AUC is undefined."""
        return int(np.count_nonzero(~self.defined))

    def weights(self, weighting: str = "impressions") -> np.ndarray:
        """Each group's weight in the mean: 0 for skipped groups.

        ``"impressions"``: rows (total sample weight when weighted); ``"positives"``: positive
        rows (or weight); ``"uniform"``: 1.
        """
        _check_weighting(weighting)
        if weighting == "impressions":
            weight = self.positives + self.negatives
        elif weighting == "positives":
            weight = self.positives
        else:
            weight = np.ones(self.group.size, dtype=np.int64)
        return np.where(self.defined, weight, 0)

    def score(self, weighting: str = "impressions") -> float:
        """The GAUC: mean AUC over the defined groups, weighted as ``weighting`` says.

        NaN, with an :class:`UndefinedMetricWarning`, when no group has both classes.
        """
        weight = self.weights(weighting)
        defined = self.defined
        if not defined.any():
            warn_undefined(
                f"Every one of the {_plural(self.group.size, 'group')} has only one class "
                "(after weighting): group AUC is undefined, returning NaN."
            )
            return float("nan")
        weight = weight[defined]
        return float(np.dot(weight, self.auc[defined]) / weight.sum())


def _table(y: np.ndarray, s: np.ndarray, w: np.ndarray | None, ids: np.ndarray) -> GroupAUC:
    """The per-group AUCs from validated arrays (y bool, s finite float64, w >= 0 or None)."""
    uniques, counts, keys, ties, w = _sorted_keys(y, s, ids, w)
    if w is None:
        n_pos, n_neg, twice_u = _counts_unweighted(keys, counts, ties=ties)
    else:
        n_pos, n_neg, twice_u = _counts_weighted(keys, counts, w, ties=ties)
    defined = (n_pos > 0) & (n_neg > 0)
    pairs = np.where(defined, n_pos * n_neg, 1)
    # Unweighted, 2U and 2PN are exact integers (below 2**53 for groups under 1e8 rows): one
    # correctly rounded division, as in metrics.roc_auc_score.
    auc = np.where(defined, twice_u / (2 * pairs), np.nan)
    reason = np.select(
        [defined, n_pos > 0, n_neg > 0],
        ["", "only positives", "only negatives"],
        default="zero weight",
    )
    return GroupAUC(uniques, counts.astype(np.int64), n_pos, n_neg, auc, reason)


def group_auc_table(
    y_true: Any,
    y_score: Any,
    groups: Any,
    *,
    sample_weight: Any = None,
    pos_label: Any = None,
) -> GroupAUC:
    """The ROC AUC of each group, with its counts and why it is undefined, if it is.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        Binary labels. With labels other than 0/1, -1/1 or booleans and no ``pos_label``, the
        greater of the two values is positive, as in :func:`metrics.roc_auc_score`.
    y_score : array-like of shape (n_samples,)
    groups : array-like of shape (n_samples,)
        The group (user) of each row: ints, strings, or any values numpy can sort. No missing
        values (None or NaN).
    sample_weight : array-like of shape (n_samples,), optional
    pos_label : scalar, optional

    Returns
    -------
    GroupAUC
        One entry per group, sorted by group id; ``.score(weighting)`` gives the GAUC.

    Examples
    --------
    >>> t = group_auc_table([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8], ["u1", "u1", "u1", "u1"])
    >>> t.auc.tolist(), t.rows.tolist(), t.positives.tolist()
    ([0.75], [4], [2])
    """
    y, s, w = check_binary_inputs(
        y_true, y_score, sample_weight, pos_label, default_positive="greater"
    )
    return _table(y, s, w, _check_groups(groups, y.size))


def group_auc_score(
    y_true: Any,
    y_score: Any,
    groups: Any,
    *,
    weighting: str = "impressions",
    sample_weight: Any = None,
    pos_label: Any = None,
) -> float:
    """Group AUC (GAUC): the ROC AUC within each group, averaged over the groups.

    Groups whose rows are all one class (or whose positive or negative weight is 0) have no AUC
    and are skipped. The others' AUCs are averaged with the weights ``weighting`` names.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        Binary labels, as in :func:`metrics.roc_auc_score`.
    y_score : array-like of shape (n_samples,)
    groups : array-like of shape (n_samples,)
        The group (user) of each row: ints, strings, or any values numpy can sort.
    weighting : {"impressions", "positives", "uniform"}, default "impressions"
        ``"impressions"``: by the group's rows, or its total sample weight when weighted (the
        formula of seed 004 and of DIN's paper); ``"positives"``: by its positives (clicks), as
        RecBole does; ``"uniform"``: a plain mean, as DIN's code and TorchRec do.
    sample_weight : array-like of shape (n_samples,), optional
    pos_label : scalar, optional

    Returns
    -------
    float
        NaN, with an :class:`UndefinedMetricWarning`, when every group is skipped.

    Examples
    --------
    User ``a`` is the 4-sample example (AUC 3/4), ``b`` is ranked perfectly and ``c``, with no
    positive, is skipped: (4 * 0.75 + 2 * 1.0) / 6.

    >>> y_true = [0, 0, 1, 1, 1, 0, 0]
    >>> y_score = [0.1, 0.4, 0.35, 0.8, 0.3, 0.2, 0.5]
    >>> group_auc_score(y_true, y_score, ["a", "a", "a", "a", "b", "b", "c"])
    0.8333333333333334
    """
    _check_weighting(weighting)
    table = group_auc_table(
        y_true, y_score, groups, sample_weight=sample_weight, pos_label=pos_label
    )
    return table.score(weighting)

"""Ranking metrics: precision / recall at k, MAP, NDCG and MRR per query, and scikit-learn's LRAP
and ``ndcg_score`` on label matrices.

Two input shapes
----------------
* **Query-grouped rows** (:func:`precision_at_k`, :func:`recall_at_k`,
  :func:`mean_average_precision`, :func:`ndcg_at_k`, :func:`mean_reciprocal_rank`,
  :func:`ranking_report`): one row per (query, document), as a search log or a learning-to-rank
  file has them. ``y_true`` is a graded relevance ``>= 0`` (a row is *relevant* when it is ``> 0``),
  ``y_score`` the model's score and ``groups`` the query id (ints or strings). Rows of one query
  need not be next to each other.
* **Label matrices** (:func:`label_ranking_average_precision_score`, :func:`ndcg_score`): one row
  per sample and one column per label, exactly as scikit-learn takes them, with scikit-learn's
  results.

Order within a query, and ties
------------------------------
Each query's rows are ranked by descending score. **Tied scores keep the row order**: of two rows
of the same query with equal scores, the one that comes first in the input ranks first (a stable
sort by descending score). The result is deterministic, but it depends on the row order when there
are ties. trec_eval, by contrast, breaks ties by document number, descending; to reproduce trec_eval
on tied scores, order each query's rows by docno descending before calling these functions.
(The scikit-learn-compatible :func:`ndcg_score` follows scikit-learn instead: tied labels share the
average of their gains.)

Queries with no relevant row
----------------------------
Recall, average precision, NDCG and reciprocal rank are undefined for a query with no relevant row,
so every query-grouped metric leaves such queries out of its mean (precision too, so that all five
means are over the same queries). :func:`ranking_report` lists them: its per-query values are NaN
there, and ``n_skipped`` counts them. When every query is skipped the mean is NaN, with an
:class:`UndefinedMetricWarning`. trec_eval instead scores such queries 0.

Definitions, for one query with ``R`` relevant rows, ranks ``i = 1, 2, ...`` and ``rel_i > 0``
marking relevant rows (trec_eval's names in brackets):

* precision@k = (relevant rows in the top k) / k, dividing by k even when the query has fewer than
  k rows [``P_k``];
* recall@k = (relevant rows in the top k) / R [``recall_k``];
* AP@k = sum over relevant rows with ``i <= k`` of precision@i, divided by R [``map_cut_k``;
  ``map`` without k] or by ``min(k, R)``;
* NDCG@k = DCG@k / ideal DCG@k, ``DCG@k = sum_{i <= k} gain(rel_i) / log2(i + 1)``, the ideal
  being the query's rows sorted by relevance [``ndcg_cut_k`` with linear gain];
* reciprocal rank = 1 / (rank of the first relevant row) [``recip_rank``].
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import Any

import numpy as np

from metrics._validation import (
    _MAX_LISTED,
    UndefinedMetricWarning,
    _as_1d,
    _is_number,
    _plural,
    _positions,
    _to_float,
    check_sample_weight,
    check_scores,
    refuse_complex,
)

__all__ = [
    "RankingReport",
    "label_ranking_average_precision_score",
    "mean_average_precision",
    "mean_reciprocal_rank",
    "ndcg_at_k",
    "ndcg_score",
    "precision_at_k",
    "ranking_report",
    "recall_at_k",
]

_GAINS = ("linear", "exponential")
_DENOMINATORS = ("relevant", "min_k")

# Integer relevance grades up to this value are used directly as sort keys for the ideal order.
_MAX_INTEGER_GRADE = 2**20

# Integer query ids whose range is at most this many times the row count are factorised with a
# lookup table instead of a sort.
_DENSE_ID_RANGE = 4

# The combined (query, rank) sort key is query * n_rows + rank, which fits in int64 up to here.
_MAX_KEYED_ROWS = 3_000_000_000


# --- validation ------------------------------------------------------------------------------


def _check_k(k: Any, *, allow_none: bool) -> int | None:
    if k is None and allow_none:
        return None
    expected = "a positive integer" + (" or None (the whole list)" if allow_none else "")
    if isinstance(k, bool) or not isinstance(k, int | np.integer):
        raise ValueError(f"k must be {expected}, got {k!r} ({type(k).__name__}).")
    if k < 1:
        raise ValueError(f"k must be {expected}, got {k}; k is how many top-ranked rows count.")
    return int(k)


def _check_choice(value: Any, name: str, choices: tuple[str, ...]) -> None:
    if value not in choices:
        quoted = [repr(c) for c in choices]
        listed = " or ".join(quoted) if len(quoted) == 2 else f"one of {', '.join(quoted)}"
        raise ValueError(f"{name} must be {listed}, got {value!r}.")


def _check_relevance(y_true: Any) -> np.ndarray:
    """Graded relevance as a float64 array of shape (n_samples,): finite and >= 0."""
    rel = _to_float(_as_1d(y_true, "y_true"), "y_true", "relevance grades")
    finite = np.isfinite(rel)
    if not finite.all():
        raise ValueError(
            f"y_true has {_plural(int((~finite).sum()), 'non-finite value')} (NaN or inf) at "
            f"{_positions(~finite)}; relevance grades must be finite numbers >= 0."
        )
    negative = rel < 0
    if negative.any():
        raise ValueError(
            f"y_true has {_plural(int(negative.sum()), 'negative value')} at "
            f"{_positions(negative)}; relevance grades must be >= 0 (0 = not relevant)."
        )
    return rel


def _check_length(name: str, values: Any, n_rows: int) -> None:
    n = len(values) if hasattr(values, "__len__") else None
    if n is not None and n != n_rows:
        raise ValueError(
            f"y_true has {n_rows} rows but {name} has {n}; they must be the same length."
        )


def _check_groups(groups: Any, n_rows: int) -> np.ndarray:
    _check_length("groups", groups, n_rows)
    arr = _as_1d(groups, "groups")
    if arr.size != n_rows:
        raise ValueError(
            f"y_true has {n_rows} rows but groups has {arr.size}; they must be the same length."
        )
    if arr.dtype.kind == "f":
        missing = np.isnan(arr)
    elif arr.dtype.kind == "O":
        missing = (arr == None) | (arr != arr)  # noqa: E711 (elementwise: None and NaN)
    else:
        missing = None
    if missing is not None and missing.any():
        raise ValueError(
            f"groups has {_plural(int(missing.sum()), 'missing query id')} at "
            f"{_positions(missing)}; every row needs a query id. Drop those rows first."
        )
    return arr


def _factorize(groups: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(code of each row in 0..n_queries-1, the sorted distinct query ids)."""
    if groups.dtype.kind in "iu":
        low, high = int(groups.min()), int(groups.max())
        span = high - low + 1
        if span <= _DENSE_ID_RANGE * groups.size:
            # Ids in a small range: a lookup table, no sort. The offsets are taken in 64 bits
            # (signed or not, as the ids) so that neither int8 nor uint64 ids overflow.
            wide = np.int64 if groups.dtype.kind == "i" else np.uint64
            shifted = (groups.astype(wide) - wide(low)).astype(np.intp)
            present = np.zeros(span, dtype=bool)
            present[shifted] = True
            code_of = np.cumsum(present) - 1
            ids = (np.flatnonzero(present).astype(wide) + wide(low)).astype(groups.dtype)
            return code_of[shifted], ids
    try:
        ids, codes = np.unique(groups, return_inverse=True)
    except TypeError as exc:
        kinds = sorted({type(v).__name__ for v in groups.tolist()})  # error path only
        raise ValueError(
            f"groups mixes query ids that cannot be compared ({', '.join(kinds)}); use one type "
            "for all query ids, for example strings."
        ) from exc
    return codes.reshape(-1).astype(np.intp, copy=False), ids


def _check_grouped(
    y_true: Any, y_score: Any, groups: Any
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Validate query-grouped rows: (relevance, scores, query codes, query ids)."""
    rel = _check_relevance(y_true)
    _check_length("y_score", y_score, rel.size)
    s = check_scores(y_score)
    if s.size != rel.size:
        raise ValueError(
            f"y_true has {rel.size} rows but y_score has {s.size}; they must be the same length."
        )
    codes, ids = _factorize(_check_groups(groups, rel.size))
    return rel, s, codes, ids


# --- one sort for all queries ----------------------------------------------------------------


def _descending_stable(s: np.ndarray) -> np.ndarray:
    """Row indices by descending score, tied rows in row order.

    numpy's default argsort is several times faster than its stable one, but leaves ties in an
    arbitrary order; the ties are then put in row order with one sort of integer keys.
    """
    n = s.size
    order = np.argsort(-s)
    ordered = s[order]
    tied = ordered[1:] == ordered[:-1]
    if tied.any():
        run = np.concatenate(([0], np.cumsum(~tied)))
        key = run * n + order
        key.sort()
        order = key % n
    return order


@dataclass(frozen=True, eq=False)
class _Ranked:
    """Rows sorted by query, then by rank within the query (see the module docstring).

    ``rel``, ``code`` and ``pos`` are in that order; ``hit`` indexes its relevant rows.
    """

    ids: np.ndarray  # (n_queries,) distinct query ids, sorted
    n_docs: np.ndarray  # (n_queries,) rows per query
    rel: np.ndarray  # (n_rows,) relevance
    code: np.ndarray  # (n_rows,) query code, non-decreasing
    pos: np.ndarray  # (n_rows,) rank within the query, from 0
    hit: np.ndarray  # (n_hits,) positions of the relevant rows, increasing
    n_relevant: np.ndarray  # (n_queries,)

    @property
    def n_queries(self) -> int:
        return self.ids.size

    @property
    def has_relevant(self) -> np.ndarray:
        return self.n_relevant > 0

    def hit_rank(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """For each relevant row: (query code, rank from 0, its number among the query's
        relevant rows counting from 1)."""
        code = self.code[self.hit]
        first = np.cumsum(self.n_relevant) - self.n_relevant
        nth = np.arange(1, self.hit.size + 1) - first[code]
        return code, self.pos[self.hit], nth


def _rank(rel: np.ndarray, s: np.ndarray, codes: np.ndarray, ids: np.ndarray) -> _Ranked:
    n = s.size
    by_score = _descending_stable(s)
    if n <= _MAX_KEYED_ROWS:
        # Sort (query, position in the score order) as one int64 key; sorting values is faster
        # than an argsort, and the key decodes back to both.
        key = codes[by_score] * n + np.arange(n)
        key.sort()
        code, at = np.divmod(key, n)
        row = by_score[at]
    else:  # pragma: no cover - needs more than 3e9 rows
        row = by_score[np.argsort(codes[by_score], kind="stable")]
        code = codes[row]
    n_docs = np.bincount(codes, minlength=ids.size)
    starts = np.cumsum(n_docs) - n_docs
    pos = np.arange(n) - starts[code]
    rel = rel[row]
    hit = np.flatnonzero(rel > 0)
    n_relevant = np.bincount(code[hit], minlength=ids.size)
    return _Ranked(ids, n_docs, rel, code, pos, hit, n_relevant)


# --- per-query kernels: NaN for queries with no relevant row ----------------------------------


def _undefined_where_no_relevant(r: _Ranked, values: np.ndarray) -> np.ndarray:
    return np.where(r.has_relevant, values, np.nan)


def _hits_at(r: _Ranked, k: int | None) -> np.ndarray:
    code = r.code[r.hit]
    if k is not None:
        code = code[r.pos[r.hit] < k]
    return np.bincount(code, minlength=r.n_queries)


def _precision(r: _Ranked, k: int | None) -> np.ndarray:
    shown = r.n_docs if k is None else k
    return _undefined_where_no_relevant(r, _hits_at(r, k) / shown)


def _recall(r: _Ranked, k: int | None) -> np.ndarray:
    with np.errstate(invalid="ignore", divide="ignore"):
        return _undefined_where_no_relevant(r, _hits_at(r, k) / r.n_relevant)


def _average_precision(r: _Ranked, k: int | None, denominator: str) -> np.ndarray:
    code, pos, nth = r.hit_rank()
    precision = nth / (pos + 1)
    if k is not None:
        top = pos < k
        code, precision = code[top], precision[top]
    total = np.bincount(code, weights=precision, minlength=r.n_queries)
    divide_by = r.n_relevant
    if denominator == "min_k" and k is not None:
        divide_by = np.minimum(divide_by, k)
    with np.errstate(invalid="ignore", divide="ignore"):
        return _undefined_where_no_relevant(r, total / divide_by)


def _reciprocal_rank(r: _Ranked) -> np.ndarray:
    code, pos, nth = r.hit_rank()
    first = nth == 1
    out = np.full(r.n_queries, np.nan)
    out[code[first]] = 1.0 / (pos[first] + 1)
    return out


def _gain(rel: np.ndarray, gain: str) -> np.ndarray:
    return rel if gain == "linear" else np.exp2(rel) - 1.0


def _ideal_grades(rel: np.ndarray, code: np.ndarray) -> np.ndarray:
    """``rel`` (grouped by a non-decreasing ``code``) sorted in decreasing order within each code.

    The grades become small integer levels, so one sort of int64 keys (values, no argsort) orders
    every query at once.
    """
    if rel.size == 0:
        return rel
    top = rel.max()
    if top <= _MAX_INTEGER_GRADE and (rel == np.floor(rel)).all():
        levels, level_values = rel.astype(np.int64), None
        n_levels = int(top) + 1
    else:
        level_values, levels = np.unique(rel, return_inverse=True)
        levels = levels.reshape(-1)
        n_levels = level_values.size
    key = code * n_levels + (n_levels - 1 - levels)
    key.sort()
    ideal = (n_levels - 1) - key % n_levels
    return ideal.astype(np.float64) if level_values is None else level_values[ideal]


def _ndcg(r: _Ranked, k: int | None, gain: str) -> np.ndarray:
    code, pos, nth = r.hit_rank()
    gains = _gain(r.rel[r.hit], gain)
    ideal_gains = _gain(_ideal_grades(r.rel[r.hit], code), gain)
    # In the ideal order a query's relevant rows come first, so the nth one sits at rank nth.
    ideal_pos = nth - 1
    longest = int(r.n_docs.max()) if k is None else min(k, int(r.n_docs.max()))
    discount = 1.0 / np.log2(np.arange(2, longest + 2))
    if k is not None:
        top, ideal_top = pos < k, ideal_pos < k
        dcg = np.bincount(code[top], weights=gains[top] * discount[pos[top]], minlength=r.n_queries)
        idcg = np.bincount(
            code[ideal_top],
            weights=ideal_gains[ideal_top] * discount[ideal_pos[ideal_top]],
            minlength=r.n_queries,
        )
    else:
        dcg = np.bincount(code, weights=gains * discount[pos], minlength=r.n_queries)
        idcg = np.bincount(code, weights=ideal_gains * discount[ideal_pos], minlength=r.n_queries)
    with np.errstate(invalid="ignore", divide="ignore"):
        return _undefined_where_no_relevant(r, dcg / idcg)


def _query_mean(values: np.ndarray, what: str) -> float:
    """Mean over the queries that have a relevant row (the non-NaN values)."""
    kept = values[~np.isnan(values)]
    if kept.size == 0:
        none = (
            "The only query has no relevant row"
            if values.size == 1
            else f"None of the {values.size} queries has a relevant row"
        )
        warnings.warn(
            f"{none} (y_true > 0): {what} is undefined, returning NaN.",
            UndefinedMetricWarning,
            stacklevel=3,
        )
        return float("nan")
    return float(kept.mean())


# --- public: query-grouped rows --------------------------------------------------------------

_GROUPED_PARAMETERS = """\
    y_true : array-like of shape (n_samples,)
        Graded relevance of each row, >= 0; a row is relevant when it is > 0.
    y_score : array-like of shape (n_samples,)
        Scores; each query's rows are ranked by decreasing score, ties in row order.
    groups : array-like of shape (n_samples,)
        Query id of each row (ints or strings); a query's rows need not be contiguous."""


def precision_at_k(y_true: Any, y_score: Any, groups: Any, *, k: int) -> float:
    """Mean over queries of the fraction of the top ``k`` rows that are relevant (trec_eval's P_k).

    A query with fewer than ``k`` rows still divides by ``k``, as trec_eval does. Queries with no
    relevant row are left out of the mean (:func:`ranking_report` counts them).

    Parameters
    ----------
    {params}
    k : int
        How many top-ranked rows of each query count; must be positive.

    Returns
    -------
    float
        NaN, with an :class:`UndefinedMetricWarning`, when no query has a relevant row.

    Examples
    --------
    Query "a" ranks its rows 0.8 (relevant), 0.4, 0.35 (relevant), 0.1; query "b" ranks
    0.9, then 0.2 (relevant).

    >>> y_true = [0, 0, 1, 1, 1, 0]
    >>> y_score = [0.1, 0.4, 0.35, 0.8, 0.2, 0.9]
    >>> groups = ["a", "a", "a", "a", "b", "b"]
    >>> precision_at_k(y_true, y_score, groups, k=1)
    0.5
    """
    k = _check_k(k, allow_none=False)
    r = _rank(*_check_grouped(y_true, y_score, groups))
    return _query_mean(_precision(r, k), "precision@k")


def recall_at_k(y_true: Any, y_score: Any, groups: Any, *, k: int) -> float:
    """Mean over queries of the fraction of relevant rows in the top ``k`` (trec_eval's recall_k).

    Queries with no relevant row are left out of the mean (:func:`ranking_report` counts them).

    Parameters
    ----------
    {params}
    k : int
        How many top-ranked rows of each query count; must be positive.

    Returns
    -------
    float
        NaN, with an :class:`UndefinedMetricWarning`, when no query has a relevant row.

    Examples
    --------
    >>> y_true = [0, 0, 1, 1, 1, 0]
    >>> y_score = [0.1, 0.4, 0.35, 0.8, 0.2, 0.9]
    >>> groups = ["a", "a", "a", "a", "b", "b"]
    >>> recall_at_k(y_true, y_score, groups, k=2)  # (1/2 + 1/1) / 2
    0.75
    """
    k = _check_k(k, allow_none=False)
    return _query_mean(_recall(_rank(*_check_grouped(y_true, y_score, groups)), k), "recall@k")


def mean_average_precision(
    y_true: Any,
    y_score: Any,
    groups: Any,
    *,
    k: int | None = None,
    denominator: str = "relevant",
) -> float:
    """Mean over queries of average precision (MAP), optionally cut at rank ``k``.

    A query's AP sums the precision at the rank of each relevant row (within the top ``k``) and
    divides by:

    * ``denominator="relevant"``: the number of relevant rows of the query. This is trec_eval's
      ``map`` (no ``k``) and ``map_cut_k``, and the IR textbook definition: relevant rows ranked
      below ``k`` count as precision 0.
    * ``denominator="min_k"``: ``min(k, relevant rows)``, so that a query with more relevant rows
      than ``k`` can still reach 1. LightGBM's ``map@k``, RecBole's ``MAP@K`` and Kaggle's
      ``ml_metrics.apk`` use this. Without ``k`` both are the same.

    Queries with no relevant row are left out of the mean (:func:`ranking_report` counts them).

    Parameters
    ----------
    {params}
    k : int, optional
        Keep only the top ``k`` rows of each query; None keeps them all.
    denominator : {{"relevant", "min_k"}}, default "relevant"

    Returns
    -------
    float
        NaN, with an :class:`UndefinedMetricWarning`, when no query has a relevant row.

    Examples
    --------
    Query "a": AP = (1/1 + 2/3) / 2 = 5/6; query "b": AP = (1/2) / 1.

    >>> y_true = [0, 0, 1, 1, 1, 0]
    >>> y_score = [0.1, 0.4, 0.35, 0.8, 0.2, 0.9]
    >>> groups = ["a", "a", "a", "a", "b", "b"]
    >>> round(mean_average_precision(y_true, y_score, groups), 6)  # (5/6 + 1/2) / 2
    0.666667
    >>> mean_average_precision(y_true, y_score, groups, k=1, denominator="min_k")
    0.5
    """
    k = _check_k(k, allow_none=True)
    _check_choice(denominator, "denominator", _DENOMINATORS)
    r = _rank(*_check_grouped(y_true, y_score, groups))
    return _query_mean(_average_precision(r, k, denominator), "average precision")


def ndcg_at_k(
    y_true: Any,
    y_score: Any,
    groups: Any,
    *,
    k: int | None = None,
    gain: str = "linear",
) -> float:
    """Mean over queries of the normalised discounted cumulative gain, optionally cut at ``k``.

    ``DCG@k = sum_{{i <= k}} gain(rel_i) / log2(i + 1)`` over ranks ``i`` from 1, divided by the
    same sum for the query's rows sorted by decreasing relevance (the ideal DCG@k).

    * ``gain="linear"``: ``gain(rel) = rel``, trec_eval's ``ndcg`` / ``ndcg_cut_k`` and
      scikit-learn's ``ndcg_score``.
    * ``gain="exponential"``: ``gain(rel) = 2**rel - 1``, as in seed article 004 and the
      learning-to-rank libraries (LightGBM's and XGBoost's default ``ndcg``). For 0/1 relevance
      both are the same.

    Queries with no relevant row are left out of the mean (:func:`ranking_report` counts them).

    Parameters
    ----------
    {params}
    k : int, optional
        Keep only the top ``k`` rows of each query; None keeps them all.
    gain : {{"linear", "exponential"}}, default "linear"

    Returns
    -------
    float
        NaN, with an :class:`UndefinedMetricWarning`, when no query has a relevant row.

    Examples
    --------
    Query "a": DCG = 1 + 1/log2(4) = 1.5, ideal 1 + 1/log2(3); query "b": 1/log2(3) over 1.

    >>> y_true = [0, 0, 1, 1, 1, 0]
    >>> y_score = [0.1, 0.4, 0.35, 0.8, 0.2, 0.9]
    >>> groups = ["a", "a", "a", "a", "b", "b"]
    >>> round(ndcg_at_k(y_true, y_score, groups), 4)
    0.7753
    """
    k = _check_k(k, allow_none=True)
    _check_choice(gain, "gain", _GAINS)
    return _query_mean(_ndcg(_rank(*_check_grouped(y_true, y_score, groups)), k, gain), "NDCG")


def mean_reciprocal_rank(y_true: Any, y_score: Any, groups: Any) -> float:
    """Mean over queries of 1 / (rank of the first relevant row) (trec_eval's recip_rank).

    Queries with no relevant row are left out of the mean (:func:`ranking_report` counts them).

    Parameters
    ----------
    {params}

    Returns
    -------
    float
        NaN, with an :class:`UndefinedMetricWarning`, when no query has a relevant row.

    Examples
    --------
    >>> y_true = [0, 0, 1, 1, 1, 0]
    >>> y_score = [0.1, 0.4, 0.35, 0.8, 0.2, 0.9]
    >>> groups = ["a", "a", "a", "a", "b", "b"]
    >>> mean_reciprocal_rank(y_true, y_score, groups)  # (1/1 + 1/2) / 2
    0.75
    """
    r = _rank(*_check_grouped(y_true, y_score, groups))
    return _query_mean(_reciprocal_rank(r), "reciprocal rank")


for _function in (
    precision_at_k,
    recall_at_k,
    mean_average_precision,
    ndcg_at_k,
    mean_reciprocal_rank,
):
    if _function.__doc__:  # None under python -OO
        _function.__doc__ = _function.__doc__.format(params=_GROUPED_PARAMETERS.strip())


_REPORT_METRICS = ("precision", "recall", "average_precision", "ndcg", "reciprocal_rank")


@dataclass(frozen=True, eq=False)
class RankingReport:
    """Every query-grouped metric, per query, from one sort.

    The metric arrays are NaN for queries with no relevant row (the *skipped* queries); the
    functions' means, such as :func:`mean_average_precision`, are the means of the other values,
    which :meth:`mean` gives.

    Attributes
    ----------
    query : ndarray of shape (n_queries,)
        The distinct query ids, sorted.
    n_docs, n_relevant : ndarray of int of shape (n_queries,)
        Rows, and relevant rows (``y_true > 0``), per query.
    precision, recall, average_precision, ndcg : ndarray of shape (n_queries,)
        At ``k`` (over the whole list when ``k`` is None; precision then divides by ``n_docs``).
    reciprocal_rank : ndarray of shape (n_queries,)
        Not cut at ``k``, as :func:`mean_reciprocal_rank`.
    k : int or None
    gain, denominator : str
        The options NDCG and average precision were computed with.

    Examples
    --------
    >>> report = ranking_report(
    ...     [0, 0, 1, 1, 1, 0, 0], [0.1, 0.4, 0.35, 0.8, 0.2, 0.9, 0.5], list("aaaabbc"), k=2
    ... )
    >>> report.query.tolist(), report.n_relevant.tolist(), report.n_skipped
    (['a', 'b', 'c'], [2, 1, 0], 1)
    >>> report.recall.tolist()
    [0.5, 1.0, nan]
    >>> report.mean("recall")
    0.75
    """

    query: np.ndarray
    n_docs: np.ndarray
    n_relevant: np.ndarray
    precision: np.ndarray
    recall: np.ndarray
    average_precision: np.ndarray
    ndcg: np.ndarray
    reciprocal_rank: np.ndarray
    k: int | None
    gain: str
    denominator: str

    @property
    def n_queries(self) -> int:
        return self.query.size

    @property
    def skipped(self) -> np.ndarray:
        """Boolean mask of shape (n_queries,): True for the queries with no relevant row."""
        return self.n_relevant == 0

    @property
    def n_skipped(self) -> int:
        """How many queries have no relevant row and are left out of every mean."""
        return int(np.count_nonzero(self.skipped))

    def mean(self, metric: str) -> float:
        """Mean of one metric over the queries that are not skipped (NaN and a warning if none)."""
        _check_choice(metric, "metric", _REPORT_METRICS)
        return _query_mean(getattr(self, metric), metric.replace("_", " "))

    def as_dict(self) -> dict[str, np.ndarray]:
        """The per-query arrays by name, ready for ``pandas.DataFrame(report.as_dict())``."""
        names = ("query", "n_docs", "n_relevant", *_REPORT_METRICS)
        return {name: getattr(self, name) for name in names}


def ranking_report(
    y_true: Any,
    y_score: Any,
    groups: Any,
    *,
    k: int | None = None,
    gain: str = "linear",
    denominator: str = "relevant",
) -> RankingReport:
    """Per-query precision, recall, average precision, NDCG and reciprocal rank, from one sort.

    Parameters
    ----------
    {params}
    k : int, optional
        Cut-off rank for precision, recall, AP and NDCG; None keeps each query's whole list.
    gain : {{"linear", "exponential"}}, default "linear"
        As in :func:`ndcg_at_k`.
    denominator : {{"relevant", "min_k"}}, default "relevant"
        As in :func:`mean_average_precision`.

    Returns
    -------
    RankingReport
    """
    k = _check_k(k, allow_none=True)
    _check_choice(gain, "gain", _GAINS)
    _check_choice(denominator, "denominator", _DENOMINATORS)
    r = _rank(*_check_grouped(y_true, y_score, groups))
    return RankingReport(
        query=r.ids,
        n_docs=r.n_docs,
        n_relevant=r.n_relevant,
        precision=_precision(r, k),
        recall=_recall(r, k),
        average_precision=_average_precision(r, k, denominator),
        ndcg=_ndcg(r, k, gain),
        reciprocal_rank=_reciprocal_rank(r),
        k=k,
        gain=gain,
        denominator=denominator,
    )


if ranking_report.__doc__:
    ranking_report.__doc__ = ranking_report.__doc__.format(params=_GROUPED_PARAMETERS.strip())


# --- public: scikit-learn's label matrices ---------------------------------------------------


def _cells(mask: np.ndarray) -> str:
    where = np.argwhere(mask)
    listed = ", ".join(f"({i}, {j})" for i, j in where[:_MAX_LISTED].tolist())
    more = ", ..." if len(where) > _MAX_LISTED else ""
    return f"cell{'s' if len(where) > 1 else ''} (row, column) {listed}{more}"


def _as_matrix(values: Any, name: str, what: str) -> np.ndarray:
    """A finite float64 array of shape (n_samples, n_labels)."""
    arr = np.asarray(values)
    refuse_complex(arr, name)
    if arr.ndim != 2:
        raise ValueError(
            f"{name} must be two-dimensional (n_samples, n_labels), got shape {arr.shape}."
        )
    if arr.size == 0:
        raise ValueError(f"{name} is empty (shape {arr.shape}); it needs at least one cell.")
    if arr.dtype.kind in "biuf":
        out = arr.astype(np.float64, copy=False)
    else:
        try:
            out = arr.astype(np.float64)
        except (TypeError, ValueError):
            flat = arr.reshape(-1)
            bad = ~np.fromiter((_is_number(v) for v in flat), dtype=bool, count=flat.size)
            bad = bad.reshape(arr.shape)
            raise ValueError(
                f"{name} has {_plural(int(bad.sum()), 'non-numeric value')} at {_cells(bad)}; "
                f"{what} must be numbers."
            ) from None
    finite = np.isfinite(out)
    if not finite.all():
        raise ValueError(
            f"{name} has {_plural(int((~finite).sum()), 'non-finite value')} (NaN or inf) at "
            f"{_cells(~finite)}; {what} must be finite."
        )
    return out


def _check_label_matrices(y_true: Any, y_score: Any, *, binary: bool) -> tuple[np.ndarray, ...]:
    # A scipy sparse label matrix (CSR, as scikit-learn accepts here): densified, by duck
    # typing, so the library never imports scipy.
    if hasattr(y_true, "toarray") and not isinstance(y_true, np.ndarray):
        y_true = y_true.toarray()
    y = _as_matrix(y_true, "y_true", "labels" if binary else "relevance values")
    s = _as_matrix(y_score, "y_score", "scores")
    if y.shape != s.shape:
        raise ValueError(
            f"y_true has shape {y.shape} but y_score has shape {s.shape}; they must be the same."
        )
    bad = ((y != 0) & (y != 1)) if binary else (y < 0)
    if bad.any():
        need = "0/1 label indicators" if binary else "relevance values >= 0"
        n_bad = int(bad.sum())
        raise ValueError(
            f"y_true has {_plural(n_bad, 'value')} that {'is' if n_bad == 1 else 'are'} not "
            f"{need}, at {_cells(bad)}; y_true must hold {need}."
        )
    return y, s


def _sample_mean(values: np.ndarray, w: np.ndarray | None, what: str) -> float:
    if w is None:
        return float(values.mean())
    total = w.sum()
    if total <= 0:
        warnings.warn(
            f"sample_weight sums to 0: {what} is undefined, returning NaN.",
            UndefinedMetricWarning,
            stacklevel=3,
        )
        return float("nan")
    return float(np.dot(values, w) / total)


def _new_value_columns(sorted_rows: np.ndarray) -> np.ndarray:
    """True where a row-wise sorted matrix takes a new value (always in column 0)."""
    new = np.ones(sorted_rows.shape, dtype=bool)
    np.not_equal(sorted_rows[:, 1:], sorted_rows[:, :-1], out=new[:, 1:])
    return new


def _lrap_rows(y: np.ndarray, s: np.ndarray) -> np.ndarray:
    """LRAP of each row: mean over its relevant labels j of
    #{relevant l: s_l >= s_j} / #{l: s_l >= s_j}; 1 where no or every label is relevant."""
    n_labels = s.shape[1]
    order = np.argsort(s, axis=1)
    ranked_scores = np.take_along_axis(s, order, axis=1)
    relevant = np.take_along_axis(y, order, axis=1) > 0
    # In ascending order, a label's tie group starts at `start`: the labels scoring >= it are the
    # n_labels - start from there on, and the relevant ones among them are those not before it.
    columns = np.arange(n_labels)
    new = _new_value_columns(ranked_scores)
    start = np.maximum.accumulate(np.where(new, columns, 0), axis=1)
    n_relevant = np.count_nonzero(relevant, axis=1)
    relevant_before = np.cumsum(relevant, axis=1) - relevant
    relevant_at_or_above = n_relevant[:, None] - np.take_along_axis(relevant_before, start, axis=1)
    ratio = np.where(relevant, relevant_at_or_above / (n_labels - start), 0.0)
    with np.errstate(invalid="ignore", divide="ignore"):
        per_row = ratio.sum(axis=1) / n_relevant
    per_row[(n_relevant == 0) | (n_relevant == n_labels)] = 1.0
    return per_row


def label_ranking_average_precision_score(
    y_true: Any, y_score: Any, *, sample_weight: Any = None
) -> float:
    """Label ranking average precision (LRAP), equal to scikit-learn's.

    For each sample and each of its relevant labels ``j``: the fraction of labels scoring at
    least as high as ``j`` that are relevant, averaged over the relevant labels, then over the
    samples. A tie counts against ``j`` (every tied label is "at least as high"), which is
    scikit-learn's ``rankdata(..., "max")`` convention. Samples with no relevant label, or with
    every label relevant, score 1, as in scikit-learn.

    Without ties, a sample's LRAP is the average precision of its labels ranked by score: seed
    article 002 shows it equals ``average_precision_score`` on one sample, where the pre-0.19
    trapezoid AP did not.

    Parameters
    ----------
    y_true : array-like of shape (n_samples, n_labels)
        0/1 (or boolean) label indicators.
    y_score : array-like of shape (n_samples, n_labels)
        Scores; higher means more likely relevant.
    sample_weight : array-like of shape (n_samples,), optional
        Non-negative weights of the samples.

    Returns
    -------
    float
        NaN, with an :class:`UndefinedMetricWarning`, if the weights sum to 0 (scikit-learn
        returns NaN with a numpy warning).

    Examples
    --------
    Seed 002: relevant labels ranked 1st and 3rd give (1/1 + 2/3) / 2 = 5/6.

    >>> label_ranking_average_precision_score([[1, 0, 1, 0]], [[1, 0.8, 0.6, 0.4]])
    0.8333333333333333
    """
    y, s = _check_label_matrices(y_true, y_score, binary=True)
    w = check_sample_weight(sample_weight, y.shape[0])
    return _sample_mean(_lrap_rows(y, s), w, "label ranking average precision")


def _tie_averaged(gains: np.ndarray, new: np.ndarray) -> np.ndarray:
    """Replace each gain by the mean gain of its tie group (runs of ``new`` per row)."""
    new_flat = new.reshape(-1)  # column 0 is always new, so no group crosses a row
    starts = np.flatnonzero(new_flat)
    sums = np.add.reduceat(gains.reshape(-1), starts)
    counts = np.diff(starts, append=new_flat.size)
    return np.repeat(sums / counts, counts).reshape(gains.shape)


def _row_dcg(
    y: np.ndarray, s: np.ndarray, *, k: int | None, log_base: float, ignore_ties: bool
) -> tuple[np.ndarray, np.ndarray]:
    """Each row's DCG (its gains ``y`` in decreasing order of the scores ``s``, tied scores
    sharing the mean of their gains unless ``ignore_ties``) and the discount used, cut at ``k``:
    what :func:`ndcg_score` and :func:`metrics.dcg_score` share."""
    # The discount exactly as scikit-learn computes it, so that results agree to the last bits.
    discount = 1 / (np.log(np.arange(y.shape[1]) + 2) / np.log(log_base))
    if k is not None:
        discount[k:] = 0
    order = np.argsort(s, axis=1)[:, ::-1]
    gains = np.take_along_axis(y, order, axis=1)
    if not ignore_ties:
        new = _new_value_columns(np.take_along_axis(s, order, axis=1))
        if not new.all():
            gains = _tie_averaged(gains, new)
    return gains @ discount, discount


def ndcg_score(
    y_true: Any,
    y_score: Any,
    *,
    k: int | None = None,
    sample_weight: Any = None,
    ignore_ties: bool = False,
) -> float:
    """Normalised discounted cumulative gain of each sample's labels, equal to scikit-learn's.

    ``DCG = sum_i y_true_i / log2(i + 1)`` over the labels ranked by decreasing score (the top
    ``k`` only, if given), divided by the same sum for the labels ranked by ``y_true`` (linear
    gain). Tied scores share the average of their gains, which is the mean DCG over every order
    of the ties (McSherry & Najork, 2008), as scikit-learn does. Samples whose ``y_true`` is all
    0 score 0 and are kept in the mean, as in scikit-learn (the query-grouped :func:`ndcg_at_k`
    leaves such queries out).

    Parameters
    ----------
    y_true : array-like of shape (n_samples, n_labels)
        Relevance of each label, >= 0; at least 2 labels.
    y_score : array-like of shape (n_samples, n_labels)
        Scores; higher ranks first.
    k : int, optional
        Only the top ``k`` ranks count; None counts them all.
    sample_weight : array-like of shape (n_samples,), optional
        Non-negative weights of the samples.
    ignore_ties : bool, default False
        Skip the tie averaging (faster). Tied scores are then ordered as scikit-learn orders them
        (the reverse of numpy's default argsort), which is arbitrary: use it only without ties.

    Returns
    -------
    float
        NaN, with an :class:`UndefinedMetricWarning`, if the weights sum to 0 (scikit-learn
        raises ``ZeroDivisionError``).

    Examples
    --------
    >>> round(ndcg_score([[10, 0, 0, 1, 5]], [[0.1, 0.2, 0.3, 4, 70]]), 4)
    0.6957
    >>> ndcg_score([[10, 0, 0, 1, 5]], [[1, 0, 0, 0, 1]], k=1)  # (10 + 5) / 2 / 10
    0.75
    """
    k = _check_k(k, allow_none=True)
    y, s = _check_label_matrices(y_true, y_score, binary=False)
    n_samples, n_labels = y.shape
    if n_labels < 2:
        raise ValueError(
            f"y_true has {n_labels} column; NDCG needs at least 2 labels (columns) to rank."
        )
    w = check_sample_weight(sample_weight, n_samples)
    dcg, discount = _row_dcg(y, s, k=k, log_base=2, ignore_ties=ignore_ties)
    ideal = np.sort(y, axis=1)[:, ::-1] @ discount
    ndcg = np.divide(dcg, ideal, out=np.zeros(n_samples), where=ideal != 0)
    # Tie-averaged gains can sum a last bit above the ideal DCG (all rows tied and relevant):
    # NDCG is at most 1, so round-off above it is cut.
    return _sample_mean(np.minimum(ndcg, 1.0), w, "NDCG")

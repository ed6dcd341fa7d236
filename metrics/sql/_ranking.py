"""Per-query ranking metrics on an engine: P@k, R@k, MAP@k, NDCG@k and MRR.

Each query's rows are ranked by descending score with ties in row order, as
:mod:`metrics.ranking` ranks them: the engine numbers the rows as it reads them (file, then
position in the file) and breaks ties on that number. One pass ranks the rows within each query
(a window partitioned by query, so Spark spreads it over the cluster) and reduces them to one row
per query: documents, relevant rows, hits in the top k, the sum of precision at each hit, the
first hit's rank, DCG and ideal DCG. The per-query values, and so the means, are those of
:func:`metrics.ranking_report` to the last bits of a floating-point sum.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from metrics._bounds import MAX_CUTOFFS, check_at_most
from metrics.ranking import _DENOMINATORS, _GAINS, _REPORT_METRICS, RankingReport
from metrics.sql import _queries as q
from metrics.sql._engine import (
    DEFAULT_CAP,
    Source,
    SQLInputError,
    describe,
    nested,
    numeric,
    start_engine,
)
from metrics.sql._keys import KEY, keyed_source


@dataclass
class RankingSummary:
    """Query-grouped ranking metrics computed by an engine.

    Attributes
    ----------
    rows, dropped : int
        Rows used, and rows dropped for a NULL or NaN relevance, score or query.
    n_queries, n_skipped : int
        Queries, and queries with no relevant row (left out of every mean).
    means : dict
        ``{"precision", "recall", "average_precision", "ndcg", "reciprocal_rank"}``: the means
        over the queries with a relevant row, as :meth:`metrics.RankingReport.mean` gives them.
    report : metrics.RankingReport or None
        The per-query values, when there are at most ``cap`` queries.
    k : int or None
    gain, denominator : str
    """

    rows: int
    dropped: int
    n_queries: int
    n_skipped: int
    means: dict
    report: RankingReport | None
    k: int | None
    gain: str
    denominator: str


def _floats(values) -> np.ndarray:
    """float64 with NaN for NULL (DuckDB gives masked arrays, Spark None)."""
    if isinstance(values, np.ma.MaskedArray):
        return np.ma.filled(values.astype(np.float64), np.nan)
    return np.asarray(values, dtype=np.float64)


def _per_query(d: q.Dialect, ks: tuple[int, ...] | None, gain: str, denominator: str) -> str:
    """One row per query and cut-off from ``rclean`` (q, rel, s, f, r): the statistics of every
    metric at each k of ``ks`` (None: each query's whole list, one row per query with k 0).

    The rows are ranked once, whatever the number of cut-offs: the ranks are joined with the
    small table of cut-offs, and each k's sums are a grouped aggregate over them."""
    if ks is None:
        cuts = "SELECT 0 AS k"  # the whole list: every rank counts
        top = itop = "TRUE"
    else:
        cuts = " UNION ALL ".join(f"SELECT {int(k)} AS k" for k in ks)
        top, itop = "rk <= cuts.k", "irk <= cuts.k"
    g = "rel" if gain == "linear" else "(POWER(CAST(2 AS DOUBLE), rel) - CAST(1 AS DOUBLE))"
    zero = "CAST(0 AS DOUBLE)"
    return f"""
WITH ranked AS (
  SELECT q, rel, ROW_NUMBER() OVER (PARTITION BY q ORDER BY s DESC, f, r) AS rk FROM rclean
), hits AS (
  SELECT q, rel, rk, ROW_NUMBER() OVER (PARTITION BY q ORDER BY rk) AS nth
  FROM ranked WHERE rel > 0
), ideal AS (
  SELECT q, rel, ROW_NUMBER() OVER (PARTITION BY q ORDER BY rel DESC, rk) AS irk FROM hits
), docs AS (
  SELECT q, COUNT(*) AS n_docs FROM ranked GROUP BY q
), cuts AS (
  {cuts}
), found AS (
  SELECT hits.q AS q, cuts.k AS k, COUNT(*) AS n_rel,
         SUM(CASE WHEN {top} THEN 1 ELSE 0 END) AS hits_k,
         SUM(CASE WHEN {top} THEN CAST(nth AS DOUBLE) / CAST(rk AS DOUBLE) ELSE {zero} END)
           AS ap_sum,
         MIN(rk) AS first_rank,
         SUM(CASE WHEN {top} THEN {g} / LOG2(CAST(rk AS DOUBLE) + 1) ELSE {zero} END) AS dcg
  FROM hits CROSS JOIN cuts GROUP BY hits.q, cuts.k
), best AS (
  SELECT ideal.q AS q, cuts.k AS k,
         SUM(CASE WHEN {itop} THEN {g} / LOG2(CAST(irk AS DOUBLE) + 1) ELSE {zero} END) AS idcg
  FROM ideal CROSS JOIN cuts GROUP BY ideal.q, cuts.k
)
SELECT cuts.k AS k, docs.q AS q, docs.n_docs AS n_docs, COALESCE(found.n_rel, 0) AS n_rel,
       COALESCE(found.hits_k, 0) AS hits_k, found.ap_sum AS ap_sum,
       found.first_rank AS first_rank, found.dcg AS dcg, best.idcg AS idcg
FROM docs CROSS JOIN cuts
LEFT JOIN found ON docs.q = found.q AND cuts.k = found.k
LEFT JOIN best ON docs.q = best.q AND cuts.k = best.k
"""


def _metric_sql(whole: bool, denominator: str) -> dict[str, str]:
    """Each metric of one query at the row's cut-off ``k`` (NULL when it has no relevant row);
    ``whole``: at each query's whole list."""
    rel = "n_rel > 0"
    shown = "CAST(n_docs AS DOUBLE)" if whole else "CAST(k AS DOUBLE)"
    divide = "CAST(n_rel AS DOUBLE)"
    if denominator == "min_k" and not whole:
        divide = "CAST(LEAST(n_rel, k) AS DOUBLE)"
    return {
        "precision": f"CASE WHEN {rel} THEN CAST(hits_k AS DOUBLE) / {shown} END",
        "recall": f"CASE WHEN {rel} THEN CAST(hits_k AS DOUBLE) / CAST(n_rel AS DOUBLE) END",
        "average_precision": f"CASE WHEN {rel} THEN ap_sum / {divide} END",
        "ndcg": f"CASE WHEN {rel} THEN dcg / idcg END",
        "reciprocal_rank": f"CASE WHEN {rel} THEN 1 / CAST(first_rank AS DOUBLE) END",
    }


def ranking_summary(
    source: Source,
    relevance: str,
    score: str,
    query: str,
    *,
    k: int | None = 10,
    gain: str = "linear",
    denominator: str = "relevant",
    engine: str = "duckdb",
    memory_limit: str | None = None,
    spark=None,
    cap: int = DEFAULT_CAP,
    progress: Callable[[str], None] | None = None,
) -> RankingSummary:
    """Precision, recall, average precision and NDCG at ``k``, and reciprocal rank, per query.

    The engine counterpart of :func:`metrics.ranking_report`, with the same definitions, ties
    in row order (the order the engine reads the files in: sorted file names, then position) and
    queries without a relevant row left out of the means.

    Parameters
    ----------
    source : str, path or list of paths
        A Parquet or CSV file, a glob of them, or a list of files read exactly as given (as in
        :func:`metrics.sql.summarize`).
    relevance : str
        The graded relevance column, >= 0 (a row is relevant when > 0).
    score, query : str
        The score column and the query (or user) id column.
    k : int or None, default 10
        Cut-off rank; None keeps each query's whole list.
    gain : {"linear", "exponential"}, default "linear"
    denominator : {"relevant", "min_k"}, default "relevant"
        As in :func:`metrics.mean_average_precision`.
    engine, memory_limit, spark, progress
        As in :func:`metrics.sql.summarize`.
    cap : int
        Queries up to which the per-query report is returned (the means always are).

    Returns
    -------
    RankingSummary

    Raises
    ------
    SQLInputError
        Missing or non-numeric columns, negative relevance, or no usable row.
    """
    _check_options(k, gain, denominator)
    say = progress or (lambda _line: None)
    started = time.monotonic()
    eng, total, kept, ids = _ranked_rows(
        source, relevance, score, query, engine, memory_limit, spark, say, cap
    )  # fmt: skip
    eng.view(
        "per_query",
        _per_query(eng.dialect, None if k is None else (k,), gain, denominator),
        materialize=True,
    )
    n_queries, n_skipped, means, report = _means(eng, k, gain, denominator, cap, ids)
    eng.drop("per_query")
    say(f"done in {time.monotonic() - started:.1f} s")
    return RankingSummary(
        rows=kept, dropped=total - kept, n_queries=n_queries, n_skipped=n_skipped, means=means,
        report=report, k=k, gain=gain, denominator=denominator,
    )  # fmt: skip


def ranking_curves(
    source: Source,
    relevance: str,
    score: str,
    query: str,
    ks,
    *,
    gain: str = "linear",
    denominator: str = "relevant",
    engine: str = "duckdb",
    memory_limit: str | None = None,
    spark=None,
    cap: int = DEFAULT_CAP,
    progress: Callable[[str], None] | None = None,
) -> list[RankingSummary]:
    """:func:`ranking_summary` at every cut-off of ``ks``, from one pass over the rows.

    The rows are read and ranked within each query once; each cut-off is then a grouped sum
    over the ranks (the relevant rows times the number of cut-offs), not another sort of every
    row. Each summary equals ``ranking_summary(..., k=k)``: its means, and its per-query report
    when there are at most ``cap`` queries.

    Parameters
    ----------
    ks : sequence of int
        At most 10,000 cut-offs (``metrics._bounds.MAX_CUTOFFS``; a ValueError past it).
        The cut-offs, each a positive int.
    source, relevance, score, query, gain, denominator, engine, memory_limit, spark, cap, progress
        As in :func:`ranking_summary`.

    Returns
    -------
    list of RankingSummary
        One per cut-off, in the order of ``ks``.
    """
    ks = tuple(ks)
    if not ks:
        raise ValueError("give at least one cut-off k.")
    check_at_most(len(ks), "the number of cut-offs in ks", MAX_CUTOFFS)
    for k in ks:
        _check_options(k, gain, denominator)
    say = progress or (lambda _line: None)
    started = time.monotonic()
    eng, total, kept, ids = _ranked_rows(
        source, relevance, score, query, engine, memory_limit, spark, say, cap
    )  # fmt: skip
    distinct = tuple(sorted(set(ks)))
    say(f"{len(distinct)} cut-offs from one ranking")
    eng.view(
        "per_query_all", _per_query(eng.dialect, distinct, gain, denominator), materialize=True
    )
    found = {}
    for k in distinct:
        eng.view("per_query", f"SELECT * FROM per_query_all WHERE k = {int(k)}", materialize=True)
        n_queries, n_skipped, means, report = _means(eng, k, gain, denominator, cap, ids)
        found[k] = RankingSummary(
            rows=kept, dropped=total - kept, n_queries=n_queries, n_skipped=n_skipped,
            means=means, report=report, k=k, gain=gain, denominator=denominator,
        )  # fmt: skip
        eng.drop("per_query")
    eng.drop("per_query_all")
    say(f"done in {time.monotonic() - started:.1f} s")
    return [found[k] for k in ks]


def _check_options(k, gain: str, denominator: str) -> None:
    if k is not None and (isinstance(k, bool) or not isinstance(k, int) or k < 1):
        raise ValueError(f"k must be a positive int or None, got {k!r}.")
    if gain not in _GAINS:
        raise ValueError(f"gain must be one of {_GAINS}, got {gain!r}.")
    if denominator not in _DENOMINATORS:
        raise ValueError(f"denominator must be one of {_DENOMINATORS}, got {denominator!r}.")


def _ranked_rows(source, relevance, score, query, engine, memory_limit, spark, say, cap):
    """Start the engine, check the columns, and define ``rclean`` (q, rel, s, f, r): the usable
    rows in the order the engine reads them. (engine, rows read, rows kept, the query ids by
    their number when long text ids are ranked by a number: :mod:`metrics.sql._keys`)."""
    eng = start_engine(engine, memory_limit, spark)
    d = eng.dialect
    name = describe(source)
    say(f"reading {name} with {eng.name}")
    eng.register(source, ordered=True)
    columns = eng.columns()
    missing = [c for c in (relevance, score, query) if c not in columns]
    if missing:
        raise SQLInputError(
            f"no column {', '.join(repr(c) for c in missing)} in {name}; it has "
            + ", ".join(repr(c) for c in list(columns)[:20])
            + "."
        )
    if nested(columns[query]):
        raise SQLInputError(
            f"the query column {query!r} is {columns[query]}: a list or struct, not one value "
            "per row; pick a column of plain ids."
        )
    for c in (relevance, score):
        if not numeric(columns[c]):
            raise SQLInputError(f"column {c!r} is {columns[c]}, not a number.")
    ids = keyed_source(eng, query, columns[query], cap)  # or a sentence: ids too long to fit
    rel, s, g = d.q(relevance), d.q(score), d.q(query if ids is None else KEY)
    eng.view(
        "rclean",
        f"SELECT {g} AS q, CAST({rel} AS DOUBLE) AS rel, CAST({s} AS DOUBLE) AS s, "
        f"__file AS f, __row AS r FROM {'src' if ids is None else 'keyed'} "
        f"WHERE {rel} IS NOT NULL AND NOT isnan(CAST({rel} AS DOUBLE)) "
        f"AND {s} IS NOT NULL AND NOT isnan(CAST({s} AS DOUBLE)) AND {g} IS NOT NULL "
        f"AND NOT (CAST({g} AS {d.string}) IN ('NaN', 'nan'))",
    )
    total = int(eng.rows("SELECT COUNT(*) FROM src")[0][0])
    kept, lowest = eng.rows("SELECT COUNT(*), MIN(rel) FROM rclean")[0]
    kept = int(kept)
    say(f"{total:,} rows, {total - kept:,} dropped (NULL or NaN)")
    if kept == 0:
        raise SQLInputError(f"no usable row in {name}: every row has a NULL or NaN value.")
    if lowest < 0:
        raise SQLInputError(
            f"the relevance column {relevance!r} has negative values; grades must be >= 0 "
            "(0 = not relevant)."
        )
    say(f"ranking within each {query}")
    return eng, total, kept, ids


def _means(eng, k, gain: str, denominator: str, cap: int, ids=None):
    """(queries, queries skipped, the means, the per-query report or None) of ``per_query``
    at cut-off ``k``."""
    metric = _metric_sql(k is None, denominator)
    n_queries, n_skipped, *means = eng.rows(
        "SELECT COUNT(*), SUM(CASE WHEN n_rel > 0 THEN 0 ELSE 1 END), "
        + ", ".join(f"AVG({metric[m]})" for m in _REPORT_METRICS)
        + " FROM per_query"
    )[0]
    n_skipped = int(n_skipped or 0)
    report = None
    if n_queries <= cap:
        a = eng.arrays(
            "SELECT q, n_docs, n_rel, "
            + ", ".join(f"{metric[m]} AS {m}" for m in _REPORT_METRICS)
            + " FROM per_query"
        )
        got = a["q"] if ids is None else ids[a["q"]]  # the numbers back to the ids
        ids = got.astype(str) if got.dtype == object else got
        order = np.argsort(ids, kind="stable")
        values = {m: _floats(a[m])[order] for m in _REPORT_METRICS}
        report = RankingReport(
            query=ids[order],
            n_docs=np.asarray(a["n_docs"], np.int64)[order],
            n_relevant=np.asarray(a["n_rel"], np.int64)[order],
            **values,
            k=k,
            gain=gain,
            denominator=denominator,
        )
        # The means as the numpy library takes them (the same values, summed in query order).
        means = [float(np.nanmean(values[m])) if n_skipped < n_queries else None
                 for m in _REPORT_METRICS]  # fmt: skip
    means = {
        m: math.nan if v is None else float(v) for m, v in zip(_REPORT_METRICS, means, strict=True)
    }
    return int(n_queries), n_skipped, means, report


def relevance_values(
    source: Source, relevance: str, *, memory_limit: str | None = None
) -> tuple[str, int, float, float]:
    """What the relevance column holds: (its engine type, distinct values, min, max), one scan
    of one column on DuckDB; (type, 0, NaN, NaN) for a column that is not a number. Tells binary
    relevance from graded before :func:`ranking_summary` reads it as gains."""
    from metrics.sql._engine import DuckDBEngine

    eng = DuckDBEngine(memory_limit)
    eng.register(source)
    kind = eng.columns()[relevance]
    col = eng.dialect.q(relevance)
    if not numeric(kind):
        return kind, 0, math.nan, math.nan
    n, low, high = eng.rows(
        f"SELECT COUNT(DISTINCT {col}), MIN(CAST({col} AS DOUBLE)), MAX(CAST({col} AS DOUBLE)) "
        f"FROM src WHERE {col} IS NOT NULL AND NOT isnan(CAST({col} AS DOUBLE))"
    )[0]
    return kind, int(n), math.nan if low is None else low, math.nan if high is None else high


def query_rows(
    source: Source,
    relevance: str,
    score: str,
    query: str,
    query_id: object,
    *,
    memory_limit: str | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """(relevance, score) of one query's rows as float64, in the order :func:`ranking_summary`
    reads them (files sorted by path, then position), without the rows it drops (a NULL or
    NaN relevance or score): the rows behind one query's line of its per-query table, on DuckDB.
    """
    import duckdb

    from metrics.sql._engine import DuckDBEngine

    eng = DuckDBEngine(memory_limit)
    eng.register(source, ordered=True)
    d = eng.dialect
    rel, s, g = d.q(relevance), d.q(score), d.q(query)
    sql = (
        f"SELECT CAST({rel} AS DOUBLE) AS rel, CAST({s} AS DOUBLE) AS s FROM src "
        f"WHERE {g} = ? AND {rel} IS NOT NULL AND NOT isnan(CAST({rel} AS DOUBLE)) "
        f"AND {s} IS NOT NULL AND NOT isnan(CAST({s} AS DOUBLE)) "
        f"ORDER BY __file, __row"
    )
    try:
        a = eng.con.execute(sql, [query_id]).fetchnumpy()
    except duckdb.Error as exc:
        raise SQLInputError(eng._explain(exc)) from None
    return np.asarray(a["rel"], np.float64), np.asarray(a["s"], np.float64)

"""trec_eval's measures of a run file too large for memory: DuckDB ranks it out of core.

:func:`trec_evaluate_file` gives :func:`metrics.trec_evaluate`'s numbers for a run given as a
path (a TREC run file, gzip too, or a Parquet table ``query_id, doc_id, score``), with the run
never read into Python: DuckDB reads the file, keeps the queries the qrels hold, ranks each
query's documents in trec_eval's order (score descending, then document id descending compared
byte by byte) under its memory limit, spilling to disk beyond it, and hands back only what the
measures need: each query's number of documents, and the rank and relevance of the judged ones.
The measures are then computed by the same code as :func:`metrics.trec_evaluate`'s.

A MS MARCO dev run (6,980 queries x 1,000 documents, 7M lines) is 7M rows for DuckDB and about
7,400 judged rows for Python.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import numpy as np

from metrics.trec.measures import (
    _check_options,
    _Judged,
    _per_query,
    _prepare_qrels,
    _Qrels,
    parse_measures,
)

__all__ = ["trec_evaluate_file"]

_PARQUET = (".parquet", ".pq")


def _literal(path: str) -> str:
    """``path`` as a SQL string literal (a view's definition takes no parameters)."""
    return "'" + path.replace("'", "''") + "'"


def _one_separator(path: str) -> str | None:
    """The one separator the file's first lines use between their six fields (a single space,
    or a tab), or None (runs of blanks, mixed, or not six fields): the regular-expression
    split reads any whitespace."""
    import gzip

    opener = gzip.open if path.lower().endswith(".gz") else open
    try:
        with opener(path, "rb") as f:
            head = f.read(1 << 16).decode("utf-8", errors="replace")
    except (OSError, EOFError):
        return None
    lines = [ln for ln in head.splitlines()[:-1] if ln.strip()][:100]
    for sep in (" ", "\t"):
        if lines and all(len(ln.split(sep)) == 6 and ln == ln.strip() for ln in lines):
            other = "\t" if sep == " " else " "
            if not any(other in ln for ln in lines):
                return sep
    return None


def _run_relation(con, path: str, fast: bool = True) -> None:
    """Views of the run file: ``run(q, d, s, n)`` (query, document, score, fields on the line)
    and ``numbered`` (the same with each line's number, read only to name a bad line: numbering
    every line costs a pass in file order on one thread). A TREC text file is split on
    whitespace (``qid Q0 docno rank score tag``); a Parquet table gives its columns."""
    if path.lower().endswith(_PARQUET):
        rows = (
            "SELECT CAST(query_id AS VARCHAR) AS q, CAST(doc_id AS VARCHAR) AS d, "
            f"TRY_CAST(score AS DOUBLE) AS s, 6 AS n FROM read_parquet({_literal(path)})"
        )
        con.execute(f"CREATE VIEW run AS {rows}")
        con.execute(f"CREATE VIEW numbered AS SELECT row_number() OVER () AS line, * FROM ({rows})")
        return
    sep = _one_separator(path) if fast else None
    if sep is not None:  # DuckDB's CSV reader, in parallel; a line it cannot read falls back
        columns = ", ".join(f"'c{i}': 'VARCHAR'" for i in range(6))
        source = (
            f"read_csv({_literal(path)}, delim = {_literal(sep)}, header = false, quote = '', "
            f"escape = '', auto_detect = false, columns = {{{columns}}})"
        )
        rows = f"SELECT c0 AS q, c2 AS d, TRY_CAST(c4 AS DOUBLE) AS s, 6 AS n FROM {source}"
        con.execute(f"CREATE OR REPLACE VIEW run AS {rows}")
        con.execute(
            "CREATE OR REPLACE VIEW numbered AS SELECT row_number() OVER () AS line, * "
            f"FROM ({rows})"
        )
        return
    # One VARCHAR column per line (a delimiter no text file holds, no quoting), split on runs
    # of whitespace as trec_eval's scanf does.
    source = (
        f"read_csv({_literal(path)}, columns = {{'text': 'VARCHAR'}}, header = false, "
        "delim = '\x1f', quote = '', escape = '', auto_detect = false, strict_mode = false)"
    )
    fields = (
        "SELECT f[1] AS q, f[3] AS d, TRY_CAST(f[5] AS DOUBLE) AS s, len(f) AS n, line FROM "
        "(SELECT string_split_regex(trim(text), '\\s+') AS f, line FROM ({lines}) "
        "WHERE trim(text) <> '')"
    )
    con.execute(
        "CREATE OR REPLACE VIEW run AS "
        + fields.format(lines=f"SELECT text, 0 AS line FROM {source}")
    )
    con.execute(
        "CREATE OR REPLACE VIEW numbered AS "
        + fields.format(lines=f"SELECT text, row_number() OVER () AS line FROM {source}")
    )


def _judged(con, qr: _Qrels, judged_only: bool) -> _Judged:
    import pyarrow as pa

    nq = qr.ids.size
    qcode = qr.pair_key // qr.n_docs
    docs = qr.doc_set.take(pa.array(qr.pair_key % qr.n_docs))
    pairs = pa.table(
        {
            "q": pa.array(qr.ids[qcode].tolist(), pa.string()),
            "d": docs.cast(pa.string()),
            "rel": qr.pair_rel,
            "code": qcode,
        }
    )
    con.register("qrels_pairs", pairs)
    con.register("qrels_queries", pa.table({"q": pa.array(qr.ids.tolist(), pa.string()),
                                            "code": np.arange(nq)}))  # fmt: skip
    broken = "n <> 6 OR s IS NULL OR isnan(s)"
    bad = None
    if con.execute(f"SELECT count(*) FROM run WHERE {broken}").fetchone()[0]:
        bad = con.execute(
            f"SELECT line, n FROM numbered WHERE {broken} ORDER BY line LIMIT 1"
        ).fetchone()
    if bad is not None:
        line, n = bad[0], bad[1]
        what = (
            f"has {n} fields; a run line is 'query_id Q0 doc_id rank score tag'"
            if n != 6
            else "has a score that is not a number"
        )
        raise ValueError(f"The run's line {line} {what}.")
    # A query is in the run when the run has a line for it, judged or not (trec_eval's -J
    # drops the unjudged lines after that).
    keep = "rel >= 0" if judged_only else "true"
    con.execute(
        "CREATE TEMP TABLE kept AS SELECT r.q, r.d, r.s, qq.code, p.rel FROM run r "
        "JOIN qrels_queries qq USING (q) LEFT JOIN qrels_pairs p USING (q, d)"
    )
    twice = con.execute(
        "SELECT q, d FROM kept WHERE rel IS NOT NULL GROUP BY q, d HAVING count(*) > 1 LIMIT 1"
    ).fetchone()
    if twice is not None:
        raise ValueError(
            f"The run returns document {twice[1]!r} twice for query {twice[0]!r}; trec_eval "
            "refuses duplicate documents: keep one row per (query, document)."
        )
    counts = con.execute(
        f"SELECT code, count(*) FILTER (WHERE {keep}) AS n FROM kept GROUP BY code"
    ).fetchnumpy()
    n_ret, in_run = np.zeros(nq, np.int64), np.zeros(nq, bool)
    n_ret[counts["code"].astype(np.int64)] = counts["n"]
    in_run[counts["code"].astype(np.int64)] = True
    # trec_eval's order: score descending, then document id descending as bytes (DuckDB compares
    # VARCHAR byte by byte); only the judged rows leave the engine.
    got = con.execute(
        "SELECT code, rank, rel FROM (SELECT code, rel, row_number() OVER (PARTITION BY code "
        f"ORDER BY s DESC, d DESC) AS rank FROM kept WHERE {keep}) WHERE rel IS NOT NULL "
        "ORDER BY code, rank"
    ).fetchnumpy()
    return _Judged(
        n_ret,
        np.asarray(got["code"], np.int64),
        np.asarray(got["rank"], np.int64),
        np.asarray(got["rel"], np.int64),
        in_run,
    )


def trec_evaluate_file(
    qrels: Any,
    run_path: str | os.PathLike,
    measures: Any,
    *,
    per_query: bool = False,
    relevance_level: int = 1,
    judged_only: bool = False,
    complete: bool = False,
    memory_limit: str | None = None,
) -> Any:
    """:func:`metrics.trec_evaluate` of a run file ranked by DuckDB, out of core.

    Parameters
    ----------
    qrels : DataFrame or mapping
        As :func:`metrics.trec_evaluate` takes them (read with :func:`metrics.read_qrels`).
    run_path : path
        A TREC run file (``qid Q0 docno rank score tag``, whitespace-separated, gzip too) or a
        Parquet table with ``query_id, doc_id, score``.
    measures, per_query, relevance_level, judged_only, complete
        As :func:`metrics.trec_evaluate`.
    memory_limit : str, optional
        DuckDB's memory limit (``"512MB"``); beyond it the ranking spills to disk.

    Returns
    -------
    dict of str to float, or DataFrame
        What :func:`metrics.trec_evaluate` returns for the same run read into memory.
    """
    import duckdb

    path = os.fspath(run_path)
    if not Path(path).is_file():
        raise ValueError(f"{path} does not exist or is not a file.")
    parsed = parse_measures(measures)
    level = _check_options(relevance_level)
    qr = _prepare_qrels(qrels, level)
    con = duckdb.connect()
    try:
        if memory_limit is not None:
            try:
                con.execute("SET memory_limit = ?", [str(memory_limit)])
            except duckdb.Error:
                raise ValueError(
                    f"memory_limit must be a size such as '512MB' or '2GB', got {memory_limit!r}."
                ) from None
        con.execute("SET preserve_insertion_order = true")
        _run_relation(con, path)
        try:
            try:
                j = _judged(con, qr, bool(judged_only))
            except duckdb.Error:  # a line the CSV reader refused: every line split on blanks
                con.execute("DROP TABLE IF EXISTS kept")
                _run_relation(con, path, fast=False)
                j = _judged(con, qr, bool(judged_only))
        except duckdb.Error as exc:
            first = str(exc).strip().splitlines()[0]
            raise ValueError(f"DuckDB could not read {Path(path).name}: {first}") from None
    finally:
        con.close()
    values = _per_query(qr, j, parsed, level)
    ids = qr.ids
    if not complete:
        ids, values = ids[j.in_run], {name: v[j.in_run] for name, v in values.items()}
    if per_query:
        import pandas as pd

        table = pd.DataFrame({"query_id": ids.astype(str)})
        for name, v in values.items():
            table[name] = v
        return table
    return {name: float(v.mean()) if v.size else float("nan") for name, v in values.items()}

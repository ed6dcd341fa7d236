"""User ids as fixed-width keys: a group column of long text, grouped by DuckDB within its limit.

DuckDB holds a VARCHAR longer than 12 bytes outside its 16-byte string slot, and the sorts and
windows of a summary by user (``PARTITION BY g``, ``ORDER BY g``) carry that text with every
row: 1M rows of a 3,000-character id (a Parquet dictionary column of 64 values, 344 kB on disk)
made it hold 3 GB of sort keys past ``memory_limit`` (a 5,987 MB peak at a 2 GB limit), and the
per-user tables brought the same text into numpy. So, before the summary, one streaming pass
measures the longest id and the number of distinct ids (HyperLogLog); a column whose distinct
ids would not fit in half the engine's memory is refused in one sentence, and any other is
numbered: ``keys_`` holds each distinct id once with its number (0, 1, ...; one DISTINCT of
those ids), the rows are joined to it (the probe streams, the build side is the distinct ids)
and every later pass groups, sorts and streams that BIGINT. The numbers map back to the ids
(:func:`restore`) where per-user tables leave the engine: each user's counts are the same as
grouping by the text (the join is an equality of the ids, exact), so GAUC is identical.
"""

from __future__ import annotations

import numpy as np

from metrics.sql import _queries as q
from metrics.sql._inputs import SQLInputError

__all__ = ["KEY", "SHORT", "keyed_source", "restore"]

KEY = "__metrics_lens_user"  # the key's column in the view ``keyed`` (the ids' number)
SHORT = 12  # bytes DuckDB keeps inside a string's own 16-byte slot: such ids are fixed-width
PER_ID = 64  # bytes of bookkeeping per distinct id (hash table entry, Python object header)


def _long_ids(kind: str) -> bool:
    """True for a group type whose values may be long (text, bytes, anything not a number)."""
    k = kind.strip().upper()
    return not (q.integer_type(k) or k in ("DOUBLE", "FLOAT", "REAL", "BOOLEAN", "DATE")
                or k.startswith(("DECIMAL", "TIMESTAMP", "TIME")))  # fmt: skip


def keyed_source(eng, group: str, kind: str, cap: int) -> np.ndarray | None:
    """The ids of ``group`` by their number (index ``i`` is the id numbered ``i``) after making
    the view ``keyed`` (``src`` with the number in column :data:`KEY`, rows whose id is NULL
    or NaN dropped), or None when ids need no key (numbers, or text of at most 12 bytes).

    Raises SQLInputError, in one sentence, when the distinct ids would take more than half of
    the engine's memory (in DuckDB's hash table, or as numpy text for up to ``cap`` users)."""
    if eng.name != "duckdb" or not _long_ids(kind):
        return None
    d = eng.dialect
    col = d.q(group)
    text = f"CAST({col} AS {d.string})"
    longest, distinct = eng.rows(
        f"SELECT MAX(strlen({text})), approx_count_distinct({col}) FROM src WHERE {col} IS NOT NULL"
    )[0]
    longest, distinct = int(longest or 0), int(distinct or 0)
    if longest <= SHORT:
        return None
    n = int(distinct * 1.1) + 16  # HyperLogLog's estimate is within a few percent
    in_engine = n * (longest + PER_ID)
    in_numpy = min(n, cap) * (4 * longest + PER_ID)  # numpy text: 4 bytes a character
    need = max(in_engine, in_numpy)
    if need > eng.memory / 2:
        raise SQLInputError(
            f"column {group!r} holds ids of up to {longest:,} bytes, about {distinct:,} distinct: "
            f"{need / 1e6:,.0f} MB of ids, more than half of the engine's memory "
            f"({eng.memory / 1e6:,.0f} MB); pick a column of short user or query ids as the group "
            "(or give the engine more memory)."
        )
    keep = f"{col} IS NOT NULL AND NOT ({text} IN ('NaN', 'nan'))"
    eng.view(
        "keys_",
        f"SELECT g, CAST(ROW_NUMBER() OVER () - 1 AS BIGINT) AS u "
        f"FROM (SELECT DISTINCT {col} AS g FROM src WHERE {keep}) t",
        materialize=True,
    )
    ids = eng.arrays("SELECT g FROM keys_ ORDER BY u")["g"]
    eng.view("keyed", f"SELECT s.*, k.u AS {d.q(KEY)} FROM src s JOIN keys_ k ON s.{col} = k.g")
    return ids


def restore(m, ids: np.ndarray | None, weighted: bool) -> None:
    """Model summary ``m``'s per-user tables with the ids in place of their numbers (before
    ``finish``; the tables are sorted again by id)."""
    if ids is None:
        return
    from metrics.sql._state import UserScoreTable, UserTable

    if m.users is not None:
        u = m.users
        m.users = UserTable.from_unsorted(ids[u.group], u.rows, u.pos, u.neg, u.twice_u, weighted)
    if m.user_scores is not None:
        t = m.user_scores
        m.user_scores = UserScoreTable.combine(
            [(ids[t.group], t.scores, t.rows, t.pos, t.neg)], weighted
        )

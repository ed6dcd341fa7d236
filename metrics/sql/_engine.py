"""Run the statistics of :mod:`metrics.sql._queries` on DuckDB (embedded) or Spark.

Both engines get the same SQL text; they differ in how a table is read, how a query's rows come
back, and in Spark's case how the running sums avoid a window over the whole table.
"""

from __future__ import annotations

import math
import os
import re
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from metrics._bounds import MAX_BINS, check_count
from metrics.sql import _queries as q
from metrics.sql._engines import (
    DuckDBEngine,
    Source,
    SparkEngine,
    local_spark,
    local_spark_master,
    spark_session,
    start_engine,
)
from metrics.sql._inputs import (
    SQLInputError,
    describe,
)
from metrics.sql._keys import KEY, keyed_source, restore
from metrics.sql._state import UserScoreTable, UserTable, finish
from metrics.sql._stream import PLACEMENT_LIMIT, PlacementSums, ScoreRuns, UserRuns
from metrics.sql._summary import ClusterSums, DeLongSummary, ModelSummary, ScoreTable, Summary

# What the package, the command, the dashboard and the tests import from here (the engines
# themselves live in metrics.sql._engines).
__all__ = [
    "DEFAULT_BINS",
    "DEFAULT_CAP",
    "DuckDBEngine",
    "SQLInputError",
    "Source",
    "SparkEngine",
    "delong",
    "describe",
    "local_spark",
    "local_spark_master",
    "nested",
    "numeric",
    "spark_session",
    "start_engine",
    "summarize",
    "summarize_with_delong",
]

DEFAULT_CAP = 2_000_000  # distinct scores up to which the exact per-score table comes back
DEFAULT_BINS = 100_000  # score ranges of the binned table above the cap
# DuckDB, unweighted: a score with more distinct values than the cap (by an estimate) is sorted
# once and its runs reduced in numpy (metrics.sql._stream) instead of grouped and sorted again,
# and GAUC comes from one sort per user; "always" and "never" force either way (tests).
STREAM = "auto"
# A sorted stream is cut into parts sorted one after the other (ranges of the score, or of a hash
# of the user), each read from the source again, when its sort would spill more than DISK_SHARE
# of the free space where DuckDB spills: about SPILL_ROW_BYTES a row (measured: 21 at 1e8 rows,
# 28 for one score at 1e9), 28 GB for one sort of 1e9 rows, more than the table's own 14 GB.
# Each part costs one more read of the source (about 9 s at 1e9 rows), and a sort's spill is
# cheaper than that: with 300 MB for 1e8 rows, one spilled sort by user took 17.9 s, four parts
# 21.3 s. (Parts were sized by memory before, 12 bytes a row: four at 1e9 rows and 3 GB.)
# PART_ROWS, when set, is the rows per part (tests).
SPILL_ROW_BYTES = 28
DISK_SHARE = 0.5
PART_ROWS: int | None = None
# GAUC's shared sort by user holds each batch's last user until its rows end; past HOLD_ROWS
# rows (a user column of a few values) the other models get a sort of their own instead.
HOLD_ROWS = 1 << 23
HISTOGRAM = 4096  # score ranges counted to cut a score's stream into parts of equal rows
# DeLong's sums (delong, summarize_with_delong) on DuckDB: each row's placements from one stream
# sorted by the model with many distinct scores, the others' joined from their per-score tables
# (metrics.sql._stream.PlacementSums), instead of joining every row to every model's placements;
# "never" forces the joins (tests), as do Spark, two models past the cap and users past SLOTS.
FUSE = "auto"
SLOTS = 1 << 24  # users (or the range of integer user ids) up to which each is counted in numpy
STREAM_GROUP_TYPES = ("TINYINT", "SMALLINT", "INTEGER", "BIGINT", "UTINYINT", "USMALLINT",
                      "UINTEGER", "UBIGINT", "VARCHAR")  # fmt: skip

NUMERIC = ("TINYINT", "SMALLINT", "INTEGER", "BIGINT", "HUGEINT", "FLOAT", "DOUBLE", "DECIMAL",
           "UTINYINT", "USMALLINT", "UINTEGER", "UBIGINT", "UHUGEINT", "REAL", "INT", "LONG",
           "SHORT", "BYTE", "BOOLEAN")  # fmt: skip
TRUE_WORDS = {"1", "1.0", "true", "yes", "y", "t", "positive", "pos"}
FALSE_WORDS = {"0", "0.0", "false", "no", "n", "f", "negative", "neg"}


def nested(kind: str) -> bool:
    """True for a list, array, struct, map or union column type (DuckDB or Spark spelling)."""
    kind = kind.upper()
    return kind.endswith("]") or kind.startswith(("STRUCT", "MAP", "UNION", "ARRAY", "LIST"))


def numeric(kind: str) -> bool:
    """True for a number (or boolean) column type: not a list of numbers (``BIGINT[]``)."""
    return not nested(kind) and kind.upper().startswith(NUMERIC)


def _number(value) -> float | None:
    return None if value is None or math.isnan(float(value)) else float(value)


def _group_auc(eng, m: ModelSummary, k: int, weighted: bool, cap: int) -> None:
    """GAUC in the three weightings, the skipped groups by reason and, for at most ``cap``
    groups, the per-group table (:class:`metrics.groups.GroupAUC`), from one sort per user."""
    # One sort of the rows per user, kept: GAUC and the per-user table both read it.
    per_group = f"groups_{k}"
    eng.view(per_group, q.group_auc(eng.dialect, k, weighted), materialize=True)
    try:
        _group_sums(eng, m, per_group, weighted, cap)
    finally:
        eng.drop(per_group)


def _group_sums(eng, m: ModelSummary, per_group: str, weighted: bool, cap: int) -> None:
    row = eng.rows(q.gauc(per_group))[0]
    impressions, positives, uniform, used, only_pos, only_neg, zero = row
    m.gauc = _number(impressions)
    m.gauc_by = {
        "impressions": _number(impressions),
        "positives": _number(positives),
        "uniform": _number(uniform),
    }
    skipped = {
        "only positives": int(only_pos or 0),
        "only negatives": int(only_neg or 0),
        "zero weight": int(zero or 0),
    }
    m.groups_used, m.groups_skipped = int(used or 0), sum(skipped.values())
    m.groups_skipped_by = skipped
    if m.groups_used + m.groups_skipped <= cap:
        # 2U exact: BIGINT while a user's 2U fits (below 2**63, 3e9 rows in one user).
        twice_u = "twice_u" if weighted else "CAST(twice_u AS BIGINT) AS twice_u"
        a = eng.arrays(
            f"SELECT g, CAST(n AS BIGINT) AS n, pos, neg, {twice_u} FROM {q.relation(per_group)} t"
        )
        m.users = UserTable.from_unsorted(
            a["g"], a["n"], a["pos"], a["neg"], a["twice_u"], weighted
        )  # finish() makes the per-group table and GAUC of it, as a merged state's


def _user_scores(eng, m: ModelSummary, k: int, weighted: bool, cap: int) -> bool:
    """A state's per-(user, score) counts, when there are at most ``cap`` pairs: True if kept
    (the per-user table and GAUC then come from them)."""
    name = f"pairs_{k}"
    eng.view(name, q.per_score(k, weighted, by_group=True), materialize=True)
    try:
        n = int(eng.rows(f"SELECT COUNT(*) FROM {name}")[0][0])
        if n > cap:
            return False
        a = eng.arrays(f"SELECT g, s, CAST(n AS BIGINT) AS n, pos, neg FROM {name}")
    finally:
        eng.drop(name)
    m.user_scores = UserScoreTable.combine([(a["g"], a["s"], a["n"], a["pos"], a["neg"])], weighted)
    return True


def group_table(ids, rows, pos, neg, twice_u, weighted: bool):
    """A :class:`metrics.groups.GroupAUC` (sorted by group id) from the engine's per-group sums,
    with the AUC and the reason a group is skipped computed as the numpy library does."""
    return UserTable.from_unsorted(ids, rows, pos, neg, twice_u, weighted).group_auc()


# --- the summary ---------------------------------------------------------------------------


# A positive class written as a comparison, ">0" or ">= 3": every label above the cut is
# positive (graded relevance: a LETOR grade, a watch time in seconds).
_ABOVE = re.compile(r"\s*(>=?)\s*([-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)\s*")


def _positive_condition(engine, label: str, kind: str, pos_label) -> tuple[str, str]:
    """(SQL condition true for the positive class, the positive label as text). ``pos_label``
    ">0" or ">=3" (a numeric label) makes every label above the cut positive."""
    d = engine.dialect
    col = d.q(label)
    values = [
        r[0] for r in engine.rows(f"SELECT DISTINCT {col} FROM src WHERE {col} IS NOT NULL LIMIT 3")
    ]
    is_number = numeric(kind)
    if not values:
        raise SQLInputError(f"every value of the label column {label!r} is NULL.")
    above = _ABOVE.fullmatch(str(pos_label)) if pos_label is not None else None
    if above is not None:  # graded relevance: every grade above a cut is positive
        if not is_number or kind == "BOOLEAN":
            raise SQLInputError(
                f"--pos-label {pos_label!r} keeps labels above a number, but {label!r} does not "
                "hold numbers: pass the positive class itself."
            )
        op, number = above.group(1), float(above.group(2))
        return f"CAST({col} AS DOUBLE) {op} {d.literal(number)}", f"{op} {number:g}"
    if pos_label is not None:
        if kind == "BOOLEAN":  # a CSV's yes/no or true/false, read as booleans by the engine
            word = str(pos_label).strip().lower()
            if word in TRUE_WORDS or word in FALSE_WORDS:
                return (f"{col}" if word in TRUE_WORDS else f"NOT {col}"), str(pos_label)
        if is_number and kind != "BOOLEAN":
            try:
                number = float(pos_label)
            except ValueError:
                cut = (
                    " (a cut is written '>0' or '>=3')" if str(pos_label).strip()[:1] == ">" else ""
                )
                raise SQLInputError(
                    f"--pos-label {pos_label!r} is not a number, but {label!r} holds numbers{cut}."
                ) from None
            return f"CAST({col} AS DOUBLE) = {d.literal(number)}", str(pos_label)
        return f"LOWER(CAST({col} AS {d.string})) = {d.literal(str(pos_label).lower())}", str(
            pos_label
        )
    if len(values) == 1 and pos_label is None:
        raise SQLInputError(
            f"the label column {label!r} has one value only ({values[0]!r}): AUC and AP need "
            "both classes."
        )
    if len(values) > 2:
        shown = ", ".join(repr(v) for v in values[:3])
        graded = " (or '>0' for graded relevance: every grade above 0 is positive)"
        raise SQLInputError(
            f"the label column {label!r} has more than two values ({shown}, ...): pass "
            f"--pos-label with the positive class{graded if is_number else ''}."
        )
    if kind == "BOOLEAN":
        return f"{col}", "true"
    if is_number:
        top = max(float(v) for v in values)
        return f"CAST({col} AS DOUBLE) = {d.literal(top)}", f"{top:g}"
    words = {str(v).strip().lower() for v in values}
    positive = words & TRUE_WORDS
    if len(positive) == 1 and words - positive <= FALSE_WORDS:
        word = positive.pop()
        return f"LOWER(TRIM(CAST({col} AS {d.string}))) = {d.literal(word)}", word
    shown = ", ".join(repr(v) for v in values)
    raise SQLInputError(
        f"the label column {label!r} holds {shown}: pass --pos-label with the positive class."
    )


@dataclass
class _Opened:
    """A started engine with the view ``clean`` of the usable rows, and their class totals."""

    eng: object
    total: int
    kept: int
    n_pos: int | float
    n_neg: int | float
    positive: str
    weighted: bool
    extra: tuple = ()
    columns: dict | None = None
    ids: np.ndarray | None = None  # the user ids by their number, when grouped by a key


def _open(
    source,
    label,
    scores,
    group,
    weight,
    pos_label,
    engine,
    memory_limit,
    spark,
    say,
    extra=None,
    cap=DEFAULT_CAP,
):
    """Start the engine, check the columns and labels, and define ``clean``. ``extra(eng)``
    gives more SQL expressions over ``clean`` for the same scan (their values: ``.extra``)."""
    if not scores:
        raise SQLInputError("give at least one score column (--score).")
    eng = start_engine(engine, memory_limit, spark)
    d = eng.dialect
    name = describe(source)
    say(f"reading {name} with {eng.name}")
    eng.register(source)
    columns = eng.columns()
    wanted = [label, *scores] + [c for c in (group, weight) if c]
    missing = [c for c in wanted if c not in columns]
    if missing:
        raise SQLInputError(
            f"no column {', '.join(repr(c) for c in missing)} in {name}; it has "
            + ", ".join(repr(c) for c in list(columns)[:20])
            + ("..." if len(columns) > 20 else "")
            + "."
        )
    for role, c in (("label", label), ("group", group)):
        if c is not None and nested(columns[c]):
            raise SQLInputError(
                f"the {role} column {c!r} is {columns[c]}: a list or struct, not one value per "
                f"row; pick a column of plain values for the {role}."
            )
    for c in [*scores, *([weight] if weight else [])]:
        if not numeric(columns[c]):
            raise SQLInputError(
                f"column {c!r} is {columns[c]}, not a number; scores and weights must be numeric."
            )
    condition, positive = _positive_condition(eng, label, columns[label], pos_label)
    weighted = weight is not None
    # Long text ids grouped as numbers (metrics.sql._keys): or refused, when they cannot fit.
    ids = keyed_source(eng, group, columns[group], cap) if group is not None else None
    eng.view(
        "clean",
        q.clean(
            d,
            "src" if ids is None else "keyed",
            label,
            list(scores),
            positive=condition,
            group=group if ids is None else KEY,
            weight=weight,
            group_kind=columns[group] if ids is None and group is not None else "BIGINT",
        ),
    )
    total = int(eng.rows("SELECT COUNT(*) FROM src")[0][0])
    pos_sum, neg_sum = q.class_sums(weighted)
    more = extra(eng) if extra is not None else []
    got = eng.rows(f"SELECT {', '.join(['COUNT(*)', pos_sum, neg_sum, *more])} FROM clean")[0]
    kept, n_pos, n_neg = got[:3]
    kept = int(kept)
    say(f"{total:,} rows, {total - kept:,} dropped (NULL or NaN)")
    if kept == 0:
        raise SQLInputError(
            f"no usable row in {name}: every row has a NULL or NaN label, score"
            + (", group" if group else "")
            + (" or weight" if weight else "")
            + "."
        )
    if weighted and eng.rows("SELECT MIN(w) FROM clean")[0][0] < 0:
        raise SQLInputError(f"the weight column {weight!r} has negative values.")
    if not n_pos or not n_neg:
        which = "positive" if not n_pos else "negative"
        raise SQLInputError(
            f"no {which} row (positive class {positive!r}): AUC and AP need both classes."
        )
    return _Opened(eng, total, kept, n_pos, n_neg, positive, weighted, tuple(got[3:]), columns,
                   ids)  # fmt: skip


def summarize(
    source: Source,
    label: str,
    scores: Sequence[str],
    *,
    group: str | None = None,
    weight: str | None = None,
    pos_label=None,
    engine: str = "duckdb",
    memory_limit: str | None = None,
    spark=None,
    cap: int = DEFAULT_CAP,
    bins: int = DEFAULT_BINS,
    progress: Callable[[str], None] | None = None,
    state: bool = False,
) -> Summary:
    """Exact AUC, step AP, GAUC and per-score tables of every score column of ``source``.

    Parameters
    ----------
    source : str, path or list of paths
        A Parquet or CSV file, or a glob of them (expanded once, by Python); or a list of
        files, read exactly as given and never expanded again (the dashboard passes the files
        its sandbox approved).
    label, scores, group, weight : column names
    pos_label : optional
        The positive class; needed for more than two label values or unfamiliar words. A
        comparison, ``">0"`` or ``">=3"``, makes every numeric label above the cut positive
        (graded relevance).
    engine : {"duckdb", "spark"}
    memory_limit : str, optional
        DuckDB's memory limit: a number and a unit ("2GB", "1.5GiB"), 16MB to 1000TB; it
        spills to disk beyond it.
    spark : SparkSession, optional
        For ``engine="spark"``: a session to use (a cluster, Spark Connect); local[2] if None.
    cap : int
        Distinct scores up to which the exact per-score table is returned (24 bytes each).
    bins : int
        Score ranges of the binned table returned above the cap: 1 to 100,000
        (``metrics._bounds.MAX_BINS``; a ValueError past it).
    progress : callable, optional
        Called with a line of text at every step.
    state : bool
        Also keep, with ``group``, each model's per-(user, score) counts (at most ``cap`` pairs;
        one more GROUP BY): the summary is then a state that merges with others of the same
        columns (:func:`metrics.sql.merge`), and ``save`` writes it in format 2.

    Raises
    ------
    SQLInputError
        Missing columns, non-numeric scores, a list or struct label or group, more than two
        label values without ``pos_label``, no usable row, one class only, an empty or
        unreadable source, a CSV cell that is not a number, or a bad ``memory_limit``; the
        message says what to do.
    """
    return _summarize(source, label, scores, group=group, weight=weight, pos_label=pos_label,
                      engine=engine, memory_limit=memory_limit, spark=spark, cap=cap, bins=bins,
                      progress=progress, state=state)[0]  # fmt: skip


def summarize_with_delong(
    source: Source,
    label: str,
    scores: Sequence[str],
    *,
    group: str | None = None,
    pos_label=None,
    engine: str = "duckdb",
    memory_limit: str | None = None,
    spark=None,
    cap: int = DEFAULT_CAP,
    bins: int = DEFAULT_BINS,
    progress: Callable[[str], None] | None = None,
    state: bool = False,
) -> tuple[Summary, DeLongSummary]:
    """:func:`summarize` and :func:`delong` of the same rows, unweighted, in one opening: on
    DuckDB the model with the most distinct scores is sorted once for both its AUC and AP and
    every model's DeLong placements (see :class:`metrics.sql._stream.PlacementSums`), so the
    command's ``--delong`` costs one wider sort instead of a pass of joins. Both results are
    equal to those of the two functions (bit for bit: the same exact integers)."""
    summary, sums = _summarize(source, label, scores, group=group, weight=None,
                               pos_label=pos_label, engine=engine, memory_limit=memory_limit,
                               spark=spark, cap=cap, bins=bins, progress=progress, state=state,
                               delong=True)  # fmt: skip
    return summary, sums


def _summarize(
    source,
    label,
    scores,
    *,
    group,
    weight,
    pos_label,
    engine,
    memory_limit,
    spark,
    cap,
    bins,
    progress,
    state,
    delong=False,
) -> tuple[Summary, DeLongSummary | None]:
    check_count(bins, "bins", MAX_BINS)
    say = progress or (lambda _line: None)
    started = time.monotonic()

    def estimates(eng) -> list[str]:
        if not _streams(eng, weight is not None):
            return []
        return _score_ranges(len(scores)) + _user_range(eng, group, delong)

    o = _open(source, label, scores, group, weight, pos_label, engine, memory_limit, spark, say,
              estimates, cap)  # fmt: skip
    eng, weighted = o.eng, o.weighted
    streamed = [k for k in range(len(scores))
                if o.extra and (STREAM == "always" or o.extra[3 * k] > cap)]  # fmt: skip
    ranked = None
    if delong and _fuses(eng, o) and streamed:  # the model with the most distinct scores: last
        ranked = max(streamed, key=lambda k: o.extra[3 * k])
    models, fused = {}, None
    users_stream = bool(group is not None and o.extra
                        and o.columns[group].upper() in STREAM_GROUP_TYPES)  # fmt: skip
    order = [k for k in range(len(scores)) if k != ranked] + ([] if ranked is None else [ranked])
    for k in order:
        name = scores[k]
        if k == ranked and all(m.table is not None for m in models.values()):
            say(f"{name}: one sort of the scores (about {o.extra[3 * k]:,} distinct), with every "
                "model's DeLong placements")  # fmt: skip
            runs = ScoreRuns(o.n_neg, cap, bins, o.extra[3 * k + 1], o.extra[3 * k + 2])
            tables = {j: models[scores[j]].table for j in range(len(scores)) if j != k}
            fused = _placement_pass(eng, o, scores, group, tables, k, runs, say)
            if fused is not None:
                m = _runs_summary(o, name, runs)
            else:  # the users or the placements did not fit: the summary's own sort
                m = _sorted_scores(eng, o, k, name, cap, bins)
        elif k in streamed:
            say(f"{name}: one sort of the scores (about {o.extra[3 * k]:,} distinct)")
            m = _sorted_scores(eng, o, k, name, cap, bins)
        else:
            m = _grouped_scores(eng, o, k, name, cap, bins, say)
        if group is not None and not users_stream:
            say(f"{name}: GAUC over {group}")
            if not (state and _user_scores(eng, m, k, weighted, cap)):
                _group_auc(eng, m, k, weighted, cap)
        models[name] = m
    if group is not None and users_stream:
        say(f"{', '.join(scores)}: GAUC over {group}, one sort of the rows by user")
        _sorted_users(eng, o, {k: models[scores[k]] for k in range(len(scores))}, cap, state)
    sums = fused
    if delong:
        if (
            sums is None
            and ranked is None
            and _fuses(eng, o)
            and all(m.table is not None for m in models.values())
        ):
            tables = {k: models[name].table for k, name in enumerate(scores)}
            sums = _placement_pass(eng, o, scores, group, tables, None, None, say)
        if sums is None:
            sums = _delong_by_joins(eng, o, scores, group, say)
    for m in models.values():
        restore(m, o.ids, weighted)
    models = {name: finish(models[name], weighted) for name in scores}
    say(f"done in {time.monotonic() - started:.1f} s")
    summary = Summary(
        source=describe(source),
        engine=eng.name,
        label=label,
        positive=o.positive,
        rows=o.kept,
        dropped=o.total - o.kept,
        models=models,
        group=group,
        weight=weight,
        cap=cap,
        state=state,
    )
    return summary, sums


def _streams(eng, weighted: bool) -> bool:
    """True when scores and users may be streamed in sorted order (DuckDB, unweighted)."""
    return STREAM != "never" and eng.name == "duckdb" and not weighted


def _sorted_scores(eng, o: _Opened, k: int, name: str, cap: int, bins: int) -> ModelSummary:
    """AUC, step AP, the distinct scores and the per-score (or binned) table from one sort of
    the scores (DuckDB), equal to :func:`_grouped_scores`'s."""
    lo, hi = o.extra[3 * k + 1], o.extra[3 * k + 2]
    runs = ScoreRuns(o.n_neg, cap, bins, lo, hi)
    for where in _score_parts(eng, o, k, f"s{k}"):
        for s, y in eng.stream(f"SELECT s{k} AS s, y FROM clean WHERE {where} ORDER BY s{k} DESC"):
            runs.add(s, y)
    return _runs_summary(o, name, runs)


def _parts(eng, rows: int) -> int:
    """How many parts a sorted stream of ``rows`` rows is cut into: as few as the disk DuckDB
    spills to holds (see :data:`SPILL_ROW_BYTES`)."""
    per = PART_ROWS or max(int(DISK_SHARE * free_bytes(eng.spill) / SPILL_ROW_BYTES), 1)
    return max(1, math.ceil(rows / per))


def free_bytes(path: str) -> int:
    """Free bytes (for an unprivileged user) on the file system that holds ``path``, or its
    nearest existing parent (DuckDB makes its spill directory when it first spills)."""
    while not os.path.exists(path) and os.path.dirname(path) != path:
        path = os.path.dirname(path)
    st = os.statvfs(path)
    return st.f_bavail * st.f_frsize


def _score_parts(eng, o: _Opened, k: int, column: str) -> list[str]:
    """Conditions cutting the rows into parts by ranges of score ``k`` (``column``), the
    highest scores first: each part's rows sorted descending, one part after the other, are the
    rows sorted descending; equal scores are in the same part. The ranges are unions of the
    :data:`HISTOGRAM` equal ranges of [lo, hi], counted first, so each part holds about the rows
    a part may hold (one range of many equal scores may hold more)."""
    parts = _parts(eng, o.kept)
    lo, hi = o.extra[3 * k + 1], o.extra[3 * k + 2]
    if parts == 1 or not (math.isfinite(lo) and math.isfinite(hi)) or hi <= lo:
        return ["TRUE"]
    per = math.ceil(o.kept / parts)

    def bin_of(col: str) -> str:
        return (
            f"CAST(FLOOR(({col} - CAST({lo!r} AS DOUBLE)) / CAST({hi - lo!r} AS DOUBLE) "
            f"* {HISTOGRAM}) AS BIGINT)"
        )

    counts = sorted(eng.rows(f"SELECT {bin_of(f's{k}')}, COUNT(*) FROM clean GROUP BY 1"),
                    reverse=True)  # fmt: skip
    cuts, held = [[counts[0][0], counts[0][0]]], 0  # [lowest, highest] range of each part
    for b, n in counts:
        if held and held + n > per:
            cuts.append([b, b])
            held = 0
        cuts[-1][0] = b
        held += n
    return [f"{bin_of(column)} BETWEEN {a} AND {b}" for a, b in cuts]


def _user_parts(eng, o: _Opened) -> list[str]:
    """Conditions cutting the rows into parts by a hash of the user: a user's rows are in one
    part, so each part sorted by user is a stream of whole users."""
    parts = _parts(eng, o.kept)
    if parts == 1:
        return ["TRUE"]
    return [f"hash(g) % {parts} = {i}" for i in range(parts)]


def _runs_summary(o: _Opened, name: str, runs: ScoreRuns) -> ModelSummary:
    """A model's summary from its sorted scores' runs (:class:`ScoreRuns`, not yet finished)."""
    runs.finish()
    n_pos, n_neg = int(o.n_pos), int(o.n_neg)
    m = ModelSummary(
        score=name,
        n_pos=n_pos,
        n_neg=n_neg,
        twice_u=runs.twice_u,
        auc=float(runs.twice_u / (2 * n_pos * n_neg)),
        average_precision=runs.ap_sum / float(n_pos),
        distinct_scores=runs.distinct,
    )
    table = runs.table()
    if table is not None:
        m.table = ScoreTable.from_unsorted(*table)
    else:
        m.binned = ScoreTable.from_unsorted(*runs.binned())
        m.bin_error = float(
            max(np.max(m.binned.pos) / float(n_pos), np.max(m.binned.neg) / float(n_neg))
        )
    return m


def _sorted_users(eng, o: _Opened, models: dict[int, ModelSummary], cap: int,
                  state: bool) -> None:  # fmt: skip
    """GAUC, the skipped users and, up to ``cap``, the per-user table (with ``state``, the
    per-(user, score) pairs) of every model in ``models`` (by score index) from one sort of the
    rows by user (DuckDB, unweighted): equal to :func:`_group_auc`'s and :func:`_user_scores`'s.

    The rows come sorted by user and, descending, by the score of the model with the most
    distinct scores; numpy orders each batch's whole users by each other model's score
    (:func:`_add_users`). A model with a per-score table comes as its score's position in it (a
    join with the table: 4 bytes a row instead of 8 in the sort), so one stable argsort of
    (user, position) orders its rows, 25 ms a million rows. At 1e9 rows a sort per model spilled
    14 GB to disk and read it back, 250 s a model; the shared sort spills once. A user with more
    than :data:`HOLD_ROWS` rows (a user column of a few values) would have to be held whole:
    the other models then get a sort of their own, as the first one does."""
    first = max(models, key=lambda k: o.extra[3 * k])
    others = [k for k in models if k != first]
    tables = {k: models[k].table.scores for k in others if models[k].table is not None}
    cols, joins = [f"c.s{first}"], []
    for k in others:
        if k in tables:  # the score's position in the table, which runs down the scores
            rank = np.arange(tables[k].size, dtype=np.int32)
            _load(eng, f"rank_{k}", {"s": np.asarray(tables[k], np.float64), "i": rank})
            joins.append(f"JOIN rank_{k} r{k} ON c.s{k} = r{k}.s")
            cols.append(f"r{k}.i")
        else:
            cols.append(f"c.s{k}")
    runs = {k: UserRuns(cap, pairs=state) for k in [first, *others]}
    shared, rows = bool(others), 0
    try:
        for where in _user_parts(eng, o):
            sql = (f"SELECT c.g, {', '.join(cols)}, c.y FROM clean c {' '.join(joins)} "
                   f"WHERE {where} ORDER BY c.g, c.s{first} DESC")  # fmt: skip
            held = None  # the last user of a batch, whose rows may go on in the next
            for batch in eng.stream(sql):
                runs[first].add(batch[0], batch[1], batch[-1])  # the stream's own order
                rows += batch[0].size
                if not shared:
                    continue
                if held is not None:
                    batch = [np.concatenate((a, b)) for a, b in zip(held, batch, strict=True)]
                g = batch[0]
                other = np.flatnonzero(g != g[-1]) if g.size else g
                whole = int(other[-1]) + 1 if other.size else 0  # rows before the last user's
                held = [a[whole:] for a in batch]
                _add_users(runs, others, [a[:whole] for a in batch], tables)
                if held[0].size > HOLD_ROWS:
                    shared, held = False, None
            if shared and held is not None:
                _add_users(runs, others, held, tables)
    finally:
        for k in tables:
            eng.drop(f"rank_{k}")
    if rows != o.kept:  # a score the join missed (it cannot: every score is in its table)
        raise SQLInputError(f"internal error: {rows:,} rows of {o.kept:,} sorted by user.")
    for k in others if not shared else []:  # a sort of their own
        runs[k] = UserRuns(cap, pairs=state)
        for where in _user_parts(eng, o):
            sql = f"SELECT g, s{k} AS s, y FROM clean WHERE {where} ORDER BY g, s{k} DESC"
            for g, s, y in eng.stream(sql):
                runs[k].add(g, s, y)
    for k in [first, *others]:
        _users_result(models[k], runs[k].finish(), state)


def _add_users(runs: dict[int, UserRuns], others: list[int], batch: list[np.ndarray],
               tables: dict[int, np.ndarray]) -> None:  # fmt: skip
    """Whole users' rows (user, each model's column, label), sorted by user, to the
    :class:`UserRuns` of each model in ``others`` (columns 1, 2, ... of the batch after the
    first model's), each ordered by that model's score descending within users. A column is a
    score, or its position in ``tables[k]`` (the model's scores, descending)."""
    g, y = batch[0], batch[-1]
    if g.size == 0:
        return
    user = np.zeros(g.size, np.int64)  # numbered by their runs: ids of any type, compared by ==
    np.cumsum(g[1:] != g[:-1], out=user[1:])
    for i, k in enumerate(others):
        col = batch[2 + i]
        if k in tables:  # users ascending already: timsort finds the runs
            order = np.argsort(user * tables[k].size + col, kind="stable")
            runs[k].add(g[order], tables[k][col[order]], y[order])
        else:
            order = np.lexsort((-col, user))
            runs[k].add(g[order], col[order], y[order])


def _users_result(m: ModelSummary, runs: UserRuns, state: bool) -> None:
    """A model's GAUC, skipped users and per-user table (or its per-(user, score) pairs) from its
    finished :class:`UserRuns`."""
    pairs = runs.pair_table() if state else None
    if pairs is not None:
        m.user_scores = UserScoreTable.combine([pairs], False)  # finish() does the rest
        return
    m.gauc_by = runs.gauc()
    m.gauc = m.gauc_by["impressions"]
    m.groups_used, m.groups_skipped_by = runs.used, dict(runs.skipped)
    m.groups_skipped = sum(runs.skipped.values())
    users = runs.user_table()
    if users is not None:
        m.users = UserTable.from_unsorted(*users, False)


def _grouped_scores(eng, o: _Opened, k: int, name: str, cap: int, bins: int, say) -> ModelSummary:
    """AUC, step AP, the distinct scores and the per-score (or binned) table from a GROUP BY of
    the scores and running sums over it (both engines)."""
    d, weighted, n_pos, n_neg = eng.dialect, o.weighted, o.n_pos, o.n_neg
    say(f"{name}: per-score counts")
    counts = f"counts_{k}"
    eng.view(counts, q.per_score(k, weighted), materialize=True)
    distinct = int(eng.rows(f"SELECT COUNT(*) FROM {counts}")[0][0])
    say(f"{name}: {distinct:,} distinct scores; AUC and AP")
    cum = eng.cumulative(counts, distinct)
    twice_u, ap_sum = eng.rows(q.areas(d, cum, weighted, n_neg))[0]
    twice_u = int(twice_u) if not weighted else float(twice_u)
    if weighted:
        auc = twice_u / (2 * float(n_pos) * float(n_neg))
    else:
        auc = twice_u / (2 * int(n_pos) * int(n_neg))  # exact integers, rounded once
    m = ModelSummary(
        score=name,
        n_pos=float(n_pos) if weighted else int(n_pos),
        n_neg=float(n_neg) if weighted else int(n_neg),
        twice_u=twice_u,  # an exact int (past 2**53 at 1e10 rows) when unweighted
        auc=float(auc),
        average_precision=float(ap_sum) / float(n_pos),
        distinct_scores=distinct,
    )
    if distinct <= cap:
        a = eng.arrays(f"SELECT s, pos, neg FROM {counts}")
        m.table = ScoreTable.from_unsorted(a["s"], a["pos"], a["neg"])
    else:
        say(f"{name}: more than {cap:,} distinct scores: {bins:,} score ranges")
        a = eng.arrays(q.binned(k, weighted, bins))
        m.binned = ScoreTable.from_unsorted(a["s"], a["pos"], a["neg"])
        m.bin_error = float(
            max(np.max(m.binned.pos) / float(n_pos), np.max(m.binned.neg) / float(n_neg))
        )
    eng.drop(counts)
    return m


def delong(
    source: Source,
    label: str,
    scores: Sequence[str],
    *,
    group: str | None = None,
    pos_label=None,
    engine: str = "duckdb",
    memory_limit: str | None = None,
    spark=None,
    progress: Callable[[str], None] | None = None,
) -> DeLongSummary:
    """DeLong's variances and covariances of the AUCs of every score column, from the rows.

    Each model's per-score counts give its placements; one more pass joins every row to its
    placement under each model and sums them, and their products, per class in exact integers.
    ``source`` and the options are as in :func:`summarize`. With ``group`` (the user or query
    column), the same pass also sums each cluster's placements and reduces them to their
    products, for Obuchowski's clustered-data variance (:meth:`DeLongSummary.clustered`,
    equal to :func:`metrics.clustered_auc_test` on the rows); a row with a NULL group is then
    dropped too. The products are exact in the wide integer type while the sum over clusters
    of (2 N m_i)² stays below about 1e38: past 1e9 rows in one cluster the engine reports an
    overflow.
    The per-score tables alone cannot pair the models: the covariance needs both placements of
    the same row. Unweighted, as :func:`metrics.delong_test`; a row with a NULL or NaN label or
    score is dropped as in :func:`summarize`.

    Returns
    -------
    DeLongSummary
        ``.interval(model)`` and ``.test(a, b)`` give :class:`metrics.AUCInterval` and
        :class:`metrics.DeLongResult`, equal to those the numpy library computes from the rows.
    """
    say = progress or (lambda _line: None)

    def estimates(eng) -> list[str]:  # as summarize's: which model to sort, the users' range
        if not _fuses(eng, None):
            return []
        return _score_ranges(len(scores)) + _user_range(eng, group, True)

    o = _open(source, label, scores, group, None, pos_label, engine, memory_limit, spark, say,
              estimates)  # fmt: skip
    eng = o.eng
    many = [k for k in range(len(scores)) if o.extra and o.extra[3 * k] > DEFAULT_CAP]
    if _fuses(eng, o) and len(many) <= 1:
        ranked = max(range(len(scores)), key=lambda k: o.extra[3 * k])
        if o.extra[3 * ranked] <= DEFAULT_CAP and STREAM != "always":
            ranked = None  # every model's per-score table is small: no sort at all
        tables = {}
        for k, name in enumerate(scores):
            if k != ranked:
                m = _grouped_scores(eng, o, k, name, DEFAULT_CAP, DEFAULT_BINS, say)
                if m.table is None:
                    break
                tables[k] = m.table
        else:
            sums = _placement_pass(eng, o, scores, group, tables, ranked, None, say)
            if sums is not None:
                return sums
    return _delong_by_joins(eng, o, scores, group, say)


def _fuses(eng, o: _Opened | None) -> bool:
    """True when DeLong's sums may come from :func:`_placement_pass` (DuckDB, unweighted)."""
    if FUSE == "never" or eng.name != "duckdb":
        return False
    return o is None or (not o.weighted and bool(o.extra)
                         and max(int(o.n_pos), int(o.n_neg)) < PLACEMENT_LIMIT)  # fmt: skip


def _score_ranges(width: int) -> list[str]:
    """Per score: distinct values (estimated), lowest, highest."""
    return [f"{f}(s{k})" for k in range(width) for f in ("approx_count_distinct", "MIN", "MAX")]


def _user_range(eng, group: str | None, delong: bool) -> list[str]:
    """With DeLong's clustered sums: the lowest and highest user id, when ids are integers (each
    user's slot is its id less the lowest); the number of users otherwise."""
    if not delong or group is None:
        return []
    kind = eng.columns()[group]
    if q.integer_type(kind) and kind.upper() not in ("HUGEINT", "UHUGEINT"):
        return ["CAST(MIN(g) AS HUGEINT)", "CAST(MAX(g) AS HUGEINT)"]
    return ["approx_count_distinct(g)", "NULL"]


def _placement_pass(eng, o: _Opened, scores, group, tables: dict, ranked: int | None,
                    runs: ScoreRuns | None, say) -> DeLongSummary | None:  # fmt: skip
    """DeLong's sums (and Obuchowski's, with ``group``) from one stream of the rows: sorted by
    the ``ranked`` model's scores (and fed to ``runs``, that model's summary, on the way), every
    other model's placements joined from its per-score table (``tables``). None when the users
    do not fit in :data:`SLOTS` (the caller then joins as before)."""
    n_pos, n_neg, width = int(o.n_pos), int(o.n_neg), len(scores)
    user, slots, joins = None, None, []
    if group is not None:
        lo, hi = o.extra[3 * width], o.extra[3 * width + 1]
        if hi is not None:  # integer ids: the slot is the id less the lowest
            slots = int(hi) - int(lo) + 1
            user = f"CAST(CAST(c.g AS HUGEINT) - {int(lo)} AS INTEGER)"
        else:
            slots = int(lo) + 1  # an estimate: checked below
        if slots > SLOTS:
            return None
        if hi is None:
            eng.view("users_", "SELECT g, CAST(ROW_NUMBER() OVER () - 1 AS INTEGER) AS u "
                     "FROM (SELECT DISTINCT g FROM clean) t", materialize=True)  # fmt: skip
            slots = int(eng.rows("SELECT COUNT(*) FROM users_")[0][0])
            if slots > SLOTS:
                eng.drop("users_")
                return None
            user, joins = "us.u", ["JOIN users_ us ON c.g = us.g"]
    for j, table in tables.items():
        pos = np.asarray(table.pos, np.int64)
        neg = np.asarray(table.neg, np.int64)
        t10 = 2 * (n_neg - np.cumsum(neg)) + neg  # the table runs down the scores
        t01 = 2 * np.cumsum(pos) - pos
        columns = {"s": np.asarray(table.scores, np.float64), "t10": t10.astype(np.int32),
                   "t01": t01.astype(np.int32)}  # fmt: skip
        _load(eng, f"place_{j}", columns)
        joins.append(f"JOIN place_{j} p{j} ON c.s{j} = p{j}.s")
    cols = ["CAST(c.y AS TINYINT) AS y"]
    if ranked is not None:
        cols.insert(0, f"c.s{ranked} AS s")
    if user is not None:
        cols.append(f"{user} AS u")
    cols += [f"CASE WHEN c.y = 1 THEN p{j}.t10 ELSE p{j}.t01 END AS a{j}" for j in tables]
    sql = f"SELECT {', '.join(cols)} FROM clean c {' '.join(joins)}"
    if ranked is None:
        say("DeLong sums over every row" + (f", per {group}" if group else ""))
        sqls = [sql]
    else:
        order = f"ORDER BY c.s{ranked} DESC"
        sqls = [f"{sql} WHERE {w} {order}" for w in _score_parts(eng, o, ranked, f"c.s{ranked}")]
    sums = PlacementSums(n_pos, n_neg, width, ranked, slots)
    # What numpy holds per user comes out of DuckDB's memory for the pass, so that the process
    # stays near the limit the user gave (at 1e7 users, 2 models: about 1 GB of 3).
    held = PlacementSums.footprint(width, slots)
    if held:
        less = max(eng.memory - held, eng.memory / 2)
        eng.con.execute(f"SET memory_limit = '{int(less / 2**20)}MiB'")
    try:
        for part in sqls:
            for batch in eng.stream(part):
                batch = list(batch)
                s = batch.pop(0) if ranked is not None else None
                y = batch.pop(0)
                u = batch.pop(0) if user is not None else None
                if runs is not None:
                    runs.add(s, y)
                sums.add(y, dict(zip(tables, batch, strict=True)), s, u)
    finally:
        if held and eng.limit:
            eng.con.execute("SET memory_limit = ?", [eng.limit])
        elif held:
            eng.con.execute("RESET memory_limit")
        for j in tables:
            eng.drop(f"place_{j}")
        if joins and user == "us.u":
            eng.drop("users_")
    sums.finish()
    if sums.rows != o.kept:  # a score the join missed (it cannot: every score is in its table)
        raise SQLInputError(f"internal error: {sums.rows:,} rows of {o.kept:,} got placements.")
    clusters = None
    if group is not None:
        count, with_pos, with_neg, products = sums.clusters()
        clusters = ClusterSums(count, with_pos, with_neg, products)
    return DeLongSummary(list(scores), n_pos, n_neg, sums.sums, sums.products, clusters)


def _load(eng, name: str, columns: dict[str, np.ndarray]) -> None:
    """A DuckDB table ``name`` of numpy columns."""
    import pyarrow as pa

    eng.con.register(f"{name}_arrow", pa.table(columns))
    try:
        eng.con.execute(f"CREATE OR REPLACE TEMP TABLE {name} AS SELECT * FROM {name}_arrow")
    finally:
        eng.con.unregister(f"{name}_arrow")


def _delong_by_joins(eng, o: _Opened, scores, group, say) -> DeLongSummary:
    """DeLong's (and Obuchowski's) sums by joining every row to each model's placements: both
    engines, any number of models with many distinct scores."""
    for k, name in enumerate(scores):
        say(f"{name}: placements")
        eng.view(f"counts_{k}", q.per_score(k, False), materialize=True)
        distinct = int(eng.rows(f"SELECT COUNT(*) FROM counts_{k}")[0][0])
        cum = eng.cumulative(f"counts_{k}", distinct)
        eng.view(f"place_{k}", q.placements(cum, o.n_pos, o.n_neg), materialize=True)
    say("DeLong sums over every row")
    result = eng.rows(q.placement_moments(eng.dialect, len(scores)))
    clusters = None
    if group is not None:
        say(f"per-{group} placement sums")
        row = eng.rows(q.cluster_moments(eng.dialect, len(scores)))[0]
        names = q.cluster_vectors(len(scores))
        pairs = [(u, v) for i, u in enumerate(names) for v in names[i:]]
        clusters = ClusterSums(
            clusters=int(row[0]),
            with_pos=int(row[1]),
            with_neg=int(row[2]),
            products={pair: int(v) for pair, v in zip(pairs, row[3:], strict=True)},
        )
    for k in range(len(scores)):
        eng.drop(f"place_{k}")
        eng.drop(f"counts_{k}")
    width = len(scores)
    pairs = [(i, j) for i in range(width) for j in range(i, width)]
    sums, products = {}, {}
    for row in result:
        c = int(row[0])
        values = [int(v) for v in row[2:]]
        sums[c] = values[:width]
        products[c] = dict(zip(pairs, values[width:], strict=True))
    return DeLongSummary(list(scores), int(o.n_pos), int(o.n_neg), sums, products, clusters)

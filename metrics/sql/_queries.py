"""The SQL every engine runs: one text per statistic, with the few words the dialects disagree on
passed in. Nothing here connects to anything.

Counts stay integers (``SUM`` of 0/1, never of doubles), so the results do not change from run to
run; the AUC numerator ``2U`` is summed in a 128-bit type (DuckDB ``HUGEINT``, Spark
``DECIMAL(38, 0)``), which holds it far past 1e10 rows, where ``BIGINT`` overflows near 4e9.
"""

from __future__ import annotations

from dataclasses import dataclass

from metrics.sql._inputs import literal as _string_literal


@dataclass(frozen=True)
class Dialect:
    name: str
    wide_int: str  # an integer type that holds 2U at 1e10 rows
    string: str

    def q(self, column: str) -> str:
        """A quoted identifier."""
        if self.name == "spark":
            return "`" + column.replace("`", "``") + "`"
        return '"' + column.replace('"', '""') + '"'

    def literal(self, value: object) -> str:
        """A SQL literal of this dialect (see :func:`literal`)."""
        return literal(value, self)


DUCKDB = Dialect("duckdb", "HUGEINT", "VARCHAR")
SPARK = Dialect("spark", "DECIMAL(38, 0)", "STRING")


def relation(sql_or_table: str) -> str:
    """What follows FROM for a query or a table's name: ``(query)``, or the name bare.

    DuckDB 2.0.1 refuses a parenthesised table name (``FROM (counts_0) c``) that 2.0.0 read."""
    text = sql_or_table.strip()
    if text.replace("_", "").isalnum():
        return text
    return f"({text})"


def literal(value: object, d: Dialect | None = None) -> str:
    """A SQL literal for a label value: numbers as DOUBLE, everything else as a string quoted
    for the dialect ``d`` (DuckDB when None; Spark escapes a backslash in a string)."""
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, (int, float)):
        number = float(value)
        if number != number or number in (float("inf"), float("-inf")):
            return f"CAST({_string_literal(repr(number))} AS DOUBLE)"
        return f"CAST({number!r} AS DOUBLE)"
    return _string_literal(str(value), "spark" if d is not None and d.name == "spark" else "duckdb")


def clean(
    d: Dialect,
    source: str,
    label: str,
    scores: list[str],
    *,
    positive: str,
    group: str | None = None,
    weight: str | None = None,
    group_kind: str = "",
) -> str:
    """``SELECT`` of the usable rows: ``y`` 0/1, ``s0, s1, ...`` DOUBLE, ``g``, ``w``.

    A row is dropped when its label, any score, its group or its weight is NULL or NaN (NaN
    compares equal to itself and above every number in DuckDB: it would form one score).
    ``positive`` is a SQL condition on the label column that is true for the positive class.
    ``group_kind`` is the group column's type: an integer one is never NaN, and is not cast to
    text on every row to be checked (a tenth of a sorted pass over 1e8 rows).
    """
    cols = [f"CASE WHEN {positive} THEN 1 ELSE 0 END AS y"]
    keep = [f"{d.q(label)} IS NOT NULL"]
    for k, s in enumerate(scores):
        cols.append(f"CAST({d.q(s)} AS DOUBLE) AS s{k}")
        keep += [f"{d.q(s)} IS NOT NULL", f"NOT isnan(CAST({d.q(s)} AS DOUBLE))"]
    if group is not None:
        cols.append(f"{d.q(group)} AS g")
        keep.append(f"{d.q(group)} IS NOT NULL")
        if not integer_type(group_kind):
            keep.append(f"NOT (CAST({d.q(group)} AS {d.string}) IN ('NaN', 'nan'))")
    if weight is not None:
        cols.append(f"CAST({d.q(weight)} AS DOUBLE) AS w")
        keep += [f"{d.q(weight)} IS NOT NULL", f"NOT isnan(CAST({d.q(weight)} AS DOUBLE))"]
    return f"SELECT {', '.join(cols)} FROM {source} WHERE {' AND '.join(keep)}"


_INTEGERS = {"TINYINT", "SMALLINT", "INTEGER", "INT", "BIGINT", "HUGEINT", "UTINYINT",
             "USMALLINT", "UINTEGER", "UBIGINT", "UHUGEINT", "LONG", "SHORT", "BYTE"}  # fmt: skip


def integer_type(kind: str) -> bool:
    """True for an integer column type (DuckDB or Spark spelling): never NaN."""
    return kind.strip().upper() in _INTEGERS


def class_sums(weighted: bool) -> tuple[str, str]:
    """SQL sums of the positive and the negative class (weights, or integer counts)."""
    if weighted:
        return "SUM(CASE WHEN y = 1 THEN w ELSE 0 END)", "SUM(CASE WHEN y = 1 THEN 0 ELSE w END)"
    return "CAST(SUM(y) AS BIGINT)", "CAST(SUM(1 - y) AS BIGINT)"


def per_score(k: int, weighted: bool, by_group: bool = False) -> str:
    """Per distinct score (per group and score with ``by_group``): positives, negatives."""
    pos, neg = class_sums(weighted)
    if by_group:
        return (
            f"SELECT g, s{k} AS s, COUNT(*) AS n, {pos} AS pos, {neg} AS neg "
            f"FROM clean GROUP BY g, s{k}"
        )
    return f"SELECT s{k} AS s, {pos} AS pos, {neg} AS neg FROM clean GROUP BY s{k}"


def cumulative(counts: str) -> str:
    """Per score (``s``, ``pos``, ``neg``): ``tp`` and ``fp``, the positives and negatives
    scoring at least ``s`` (a window over descending scores; DuckDB runs it in parallel)."""
    return (
        "SELECT s, pos, neg, "
        "SUM(pos) OVER (ORDER BY s DESC ROWS UNBOUNDED PRECEDING) AS tp, "
        "SUM(neg) OVER (ORDER BY s DESC ROWS UNBOUNDED PRECEDING) AS fp "
        f"FROM {relation(counts)} c"
    )


def bucket_of(buckets: int, lo: float, hi: float) -> str:
    """A score's range (0 = the highest scores) among ``buckets`` equal ranges of [lo, hi]."""
    width = hi - lo if hi > lo else 1.0
    return (
        f"CAST(FLOOR((CAST({hi!r} AS DOUBLE) - s) / CAST({width!r} AS DOUBLE) * {buckets}) "
        "AS BIGINT)"
    )


def bucket_totals(counts: str, buckets: int, lo: float, hi: float) -> str:
    """Per score range: positives and negatives (``buckets + 1`` rows at most)."""
    return (
        f"SELECT {bucket_of(buckets, lo, hi)} AS bucket, SUM(pos) AS pos, SUM(neg) AS neg "
        f"FROM {relation(counts)} c GROUP BY 1"
    )


def two_level_cumulative(counts: str, offsets: str, buckets: int, lo: float, hi: float) -> str:
    """``cumulative`` without a window over the whole table: the positives and negatives above
    each score range come from ``offsets`` (bucket, tp0, fp0: computed from
    :func:`bucket_totals` off the engine), and those above each score within its range from a
    window partitioned by range, so no window runs on a single partition."""
    return f"""
SELECT b.s, b.pos, b.neg,
       o.tp0 + SUM(b.pos) OVER (PARTITION BY b.bucket ORDER BY b.s DESC ROWS UNBOUNDED PRECEDING)
         AS tp,
       o.fp0 + SUM(b.neg) OVER (PARTITION BY b.bucket ORDER BY b.s DESC ROWS UNBOUNDED PRECEDING)
         AS fp
FROM (SELECT c.s, c.pos, c.neg, {bucket_of(buckets, lo, hi)} AS bucket FROM {relation(counts)} c) b
JOIN {relation(offsets)} o ON b.bucket = o.bucket
"""


def areas(d: Dialect, cumulative_table: str, weighted: bool, n_neg: float) -> str:
    """One row from a cumulative table: 2U and the step-AP sum, given ``n_neg`` (N).

    Negatives strictly below a score are ``N - fp``, so ``2U = sum pos (2 (N - fp) + neg)``;
    the step AP is ``sum pos * tp / (tp + fp)`` over ``P``.
    """
    kind = "DOUBLE" if weighted else d.wide_int
    total = f"CAST({n_neg!r} AS DOUBLE)" if weighted else f"CAST({int(n_neg)} AS {kind})"
    return f"""
SELECT SUM(CAST(pos AS {kind}) * (2 * ({total} - CAST(fp AS {kind})) + CAST(neg AS {kind})))
         AS twice_u,
       SUM(CASE WHEN pos > 0
                THEN CAST(pos AS DOUBLE) * CAST(tp AS DOUBLE) / CAST(tp + fp AS DOUBLE)
                ELSE CAST(0 AS DOUBLE) END) AS ap_sum
FROM {relation(cumulative_table)} t
"""


def group_auc(d: Dialect, k: int, weighted: bool) -> str:
    """Per group: rows, positives, negatives (counts or weights) and 2U (any value with one
    class; the AUC is undefined there)."""
    if not weighted:
        return _group_auc_by_ranks(d, k)
    kind = "DOUBLE"
    counts = per_score(k, weighted, by_group=True)
    return f"""
SELECT g, SUM(n) AS n, SUM(pos) AS pos, SUM(neg) AS neg,
       SUM(CAST(pos AS {kind}) * (2 * CAST(below AS {kind}) + CAST(neg AS {kind}))) AS twice_u
FROM (
  SELECT g, n, pos, neg,
         COALESCE(SUM(neg) OVER (PARTITION BY g ORDER BY s ASC
                  ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 0) AS below
  FROM {relation(counts)} c
) t
GROUP BY g
"""


def _group_auc_by_ranks(d: Dialect, k: int) -> str:
    """Unweighted per-group 2U from mid-ranks (Mann-Whitney), in one sort of the rows within each
    group and no aggregation per (group, score): a row's mid-rank doubled is ``lt + 1 + le``,
    ``lt`` the group's rows scoring below it and ``le`` those scoring at most as much, and
    ``2U = sum over positives of (lt + 1 + le) - P (P + 1)``. Twice as fast as going through
    per-(group, score) counts when most (group, score) pairs are distinct, as with users."""
    # No frame: RANK() takes none (Spark refuses one), and COUNT(*)'s default frame with an
    # ORDER BY is RANGE UNBOUNDED PRECEDING to CURRENT ROW, peers included, in both engines.
    w = f"(PARTITION BY g ORDER BY s{k})"
    return f"""
SELECT g, n, pos, n - pos AS neg,
       twice_rank - CAST(pos AS {d.wide_int}) * CAST(pos + 1 AS {d.wide_int}) AS twice_u
FROM (
  SELECT g, COUNT(*) AS n, CAST(SUM(y) AS BIGINT) AS pos,
         SUM(CASE WHEN y = 1 THEN CAST(lt + 1 + le AS {d.wide_int})
                  ELSE CAST(0 AS {d.wide_int}) END) AS twice_rank
  FROM (
    SELECT g, y, RANK() OVER {w} - 1 AS lt, COUNT(*) OVER {w} AS le FROM clean
  ) r
  GROUP BY g
) t
"""


def gauc(groups: str) -> str:
    """One row from a per-group table (:func:`group_auc`): GAUC weighted by impressions (rows,
    or weight), by positives and uniformly, as :func:`metrics.group_auc_score` weighs them; the
    groups used, and those skipped for having only positives, only negatives or no weight."""
    both = "pos > 0 AND neg > 0"
    auc = "(CAST(twice_u AS DOUBLE) / (2 * CAST(pos AS DOUBLE) * CAST(neg AS DOUBLE)))"
    impressions = "(CAST(pos AS DOUBLE) + CAST(neg AS DOUBLE))"
    positives = "CAST(pos AS DOUBLE)"
    one = "CAST(1 AS DOUBLE)"

    def mean(weight: str) -> str:
        return (
            f"SUM(CASE WHEN {both} THEN {weight} * {auc} END) "
            f"/ SUM(CASE WHEN {both} THEN {weight} END)"
        )

    return f"""
SELECT {mean(impressions)} AS gauc_impressions,
       {mean(positives)} AS gauc_positives,
       {mean(one)} AS gauc_uniform,
       SUM(CASE WHEN {both} THEN 1 ELSE 0 END) AS used,
       SUM(CASE WHEN pos > 0 AND NOT (neg > 0) THEN 1 ELSE 0 END) AS only_positives,
       SUM(CASE WHEN NOT (pos > 0) AND neg > 0 THEN 1 ELSE 0 END) AS only_negatives,
       SUM(CASE WHEN NOT (pos > 0) AND NOT (neg > 0) THEN 1 ELSE 0 END) AS zero_weight
FROM {groups}
"""


def binned(k: int, weighted: bool, bins: int) -> str:
    """Per score bin (``bins`` equal ranges of the scores): the bin's lowest score, counts."""
    pos, neg = class_sums(weighted)
    return f"""
SELECT MIN(s{k}) AS s, {pos} AS pos, {neg} AS neg
FROM clean CROSS JOIN (SELECT MIN(s{k}) AS lo, MAX(s{k}) AS hi FROM clean) r
GROUP BY CAST(FLOOR((s{k} - lo) / (CASE WHEN hi > lo THEN hi - lo ELSE 1 END) * {bins})
              AS BIGINT)
"""


def placements(cumulative_table: str, n_pos: int, n_neg: int) -> str:
    """Per score, twice the DeLong placement of a positive there (``t10``: the negatives below,
    ties one half) and of a negative there (``t01``: the positives above, ties one half)."""
    return (
        f"SELECT s, CAST(2 * ({int(n_neg)} - fp) + neg AS BIGINT) AS t10, "
        f"CAST(2 * tp - pos AS BIGINT) AS t01 FROM {relation(cumulative_table)} c"
    )


def placement_moments(d: Dialect, k_models: int) -> str:
    """Per class: the rows, and the sums of every model's twice-placements and of every product
    of two models' (the DeLong covariance), in the wide integer type: exact at 1e10 rows."""
    picks = ", ".join(
        f"CASE WHEN c.y = 1 THEN p{k}.t10 ELSE p{k}.t01 END AS a{k}" for k in range(k_models)
    )
    joins = " ".join(f"JOIN place_{k} p{k} ON c.s{k} = p{k}.s" for k in range(k_models))
    wide = [f"CAST(a{k} AS {d.wide_int})" for k in range(k_models)]
    sums = [f"SUM({wide[i]}) AS m{i}" for i in range(k_models)]
    sums += [
        f"SUM({wide[i]} * {wide[j]}) AS m{i}_{j}"
        for i in range(k_models)
        for j in range(i, k_models)
    ]
    return (
        f"SELECT y, COUNT(*) AS n, {', '.join(sums)} "
        f"FROM (SELECT c.y, {picks} FROM clean c {joins}) t GROUP BY y"
    )


def cluster_vectors(k_models: int) -> list[str]:
    """The per-cluster sums :func:`cluster_moments` multiplies: ``m`` and ``n`` (positives and
    negatives of the cluster), ``p0, p1, ...`` (each model's twice-placements summed over the
    cluster's positives) and ``q0, q1, ...`` (over its negatives)."""
    return ["m", "n", *(f"p{k}" for k in range(k_models)), *(f"q{k}" for k in range(k_models))]


def cluster_moments(d: Dialect, k_models: int) -> str:
    """Obuchowski's clustered variance from one row: the clusters, those holding a positive and
    a negative, and the sum over clusters of the product of every two of their
    :func:`cluster_vectors` (``x_u`` times ``x_v`` as ``u__v``), in the wide integer type. The
    rows are joined to each model's placements (``place_k``) as in :func:`placement_moments`."""
    wide = d.wide_int
    zero = f"CAST(0 AS {wide})"
    joins = " ".join(f"JOIN place_{k} p{k} ON c.s{k} = p{k}.s" for k in range(k_models))
    per_cluster = [f"CAST(SUM(c.y) AS {wide}) AS m", f"CAST(SUM(1 - c.y) AS {wide}) AS n"]
    per_cluster += [
        f"SUM(CASE WHEN c.y = 1 THEN CAST(p{k}.t10 AS {wide}) ELSE {zero} END) AS p{k}"
        for k in range(k_models)
    ]
    per_cluster += [
        f"SUM(CASE WHEN c.y = 0 THEN CAST(p{k}.t01 AS {wide}) ELSE {zero} END) AS q{k}"
        for k in range(k_models)
    ]
    names = cluster_vectors(k_models)
    products = [f"SUM(t.{u} * t.{v}) AS {u}__{v}" for i, u in enumerate(names) for v in names[i:]]
    return (
        "SELECT COUNT(*) AS clusters, SUM(CASE WHEN t.m > 0 THEN 1 ELSE 0 END) AS with_pos, "
        f"SUM(CASE WHEN t.n > 0 THEN 1 ELSE 0 END) AS with_neg, {', '.join(products)} "
        f"FROM (SELECT c.g, {', '.join(per_cluster)} FROM clean c {joins} GROUP BY c.g) t"
    )

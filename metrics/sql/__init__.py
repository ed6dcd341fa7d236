"""The same exact metrics on a database engine: DuckDB embedded (the default) or Spark.

For tables too large to load: 1e8 to 1e10 impressions in Parquet files or Spark tables. The
engine reduces the rows to exact sufficient statistics (integer positive and negative counts per
distinct score, or per user and score for GAUC) with SQL that both engines run; the areas come
from running sums of those counts, and the per-score table itself comes back when it is small
enough for the numpy library and the dashboard to use unchanged.

``import metrics`` never imports this package, and this package imports duckdb or pyspark only
when an engine is started::

    from metrics.sql import summarize
    s = summarize("impressions/*.parquet", label="clicked", scores=["model_a", "model_b"],
                  group="user_id", memory_limit="2GB")
    s.models["model_a"].auc, s.models["model_a"].gauc, s.models["model_a"].ap("voc11")

``source`` is a path, a glob (expanded once, by Python) or a list of files read exactly as
given. ``memory_limit`` is checked by :func:`memory_limit` (a number and a unit, 16MB-1000TB).

DeLong's intervals and paired tests of the AUCs come from :func:`delong` (one more pass), or
with the summary from :func:`summarize_with_delong` (one sort serves both).
``summarize(..., state=True)`` (and ``--out``) keeps the counts as a state that merges:
:func:`merge` adds states of days or shards up to the state of all their rows, bit-identical
to one pass (``python -m metrics.sql merge day1.npz day2.npz --out week.npz``).
Ranking metrics per query (P@k, R@k, MAP@k, NDCG@k, MRR) come from :func:`ranking_summary`,
and at many cut-offs from one ranking of the rows from :func:`ranking_curves`;
:func:`query_rows` reads one query's rows in its order and :func:`relevance_values` what the
relevance column holds.

The command line does the same: ``python -m metrics.sql --help``.
"""

from metrics.sql._engine import (
    DEFAULT_CAP,
    SQLInputError,
    delong,
    local_spark,
    summarize,
    summarize_with_delong,
)
from metrics.sql._inputs import memory_limit
from metrics.sql._ranking import (
    RankingSummary,
    query_rows,
    ranking_curves,
    ranking_summary,
    relevance_values,
)
from metrics.sql._state import StateError, UserScoreTable, UserTable, load_summary, merge
from metrics.sql._summary import (
    DeLongSummary,
    ModelSummary,
    ScoreTable,
    Summary,
)

__all__ = [
    "DEFAULT_CAP",
    "DeLongSummary",
    "ModelSummary",
    "RankingSummary",
    "SQLInputError",
    "ScoreTable",
    "StateError",
    "Summary",
    "UserScoreTable",
    "UserTable",
    "delong",
    "load_summary",
    "local_spark",
    "memory_limit",
    "merge",
    "query_rows",
    "ranking_curves",
    "ranking_summary",
    "relevance_values",
    "summarize",
    "summarize_with_delong",
]

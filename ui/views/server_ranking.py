"""The Ranking page's per-query results, from a dataset's rows or from a server table's engine.

The page draws one set of cards, tables and charts from :class:`metrics.RankingReport` values;
:func:`for_dataset` hands it what computes them:

* :class:`RowsRanking`: rows in memory (an upload, a sample, the IR textbook example), through
  :func:`metrics.ranking_report` (:mod:`ui.figures.ranking_charts`).
* :class:`EngineRanking`: a server table (:class:`ui.compute.server_source.ServerTable`), through
  :func:`metrics.sql.ranking_summary` over exactly the files the sandbox approved, one pass per
  model, cut-off and option (the curves: :func:`metrics.sql.ranking_curves`, one pass per model
  for all their cut-offs), cached by the files, their modification times, the mapping and the
  options. Its per-query values are those of :func:`metrics.ranking_report` to the last bits of
  a floating-point sum, so the page shows the same things; one query's rank-by-rank breakdown
  reads that query's rows only, in the order the engine ranks them (file, then position).

The engine reads relevance from a column, not from a positive class: the label column's values
(0/1 gives binary relevance, more grades give graded relevance), which the page says.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np
import pandas as pd
import streamlit as st

import metrics
from metrics.conventions import RankConvention, ranking_conventions, tied_relevant_queries
from metrics.sql import (
    DEFAULT_CAP,
    RankingSummary,
    SQLInputError,
    query_rows,
    relevance_values,
)
from ui.compute import server_source
from ui.figures import ranking_charts
from ui.tables.dataset import Dataset
from ui.views import callbacks
from ui.words.numbers import plural
from ui.words.safe import md

__all__ = ["ROW_HELP", "EngineRanking", "RowsRanking", "for_dataset"]

ROW_HELP = "The row in the data, counting from 1 (after any dropped rows)."
ENGINE_ROW_HELP = (
    "The query's rows counted from 1 in the order the engine reads them (sorted files, then "
    "position in the file): the order ties keep."
)
# Cut-offs of the metric@k curves on the engine: one ranking of every row per model, then a
# grouped sum per cut-off over the relevant rows.
ENGINE_CURVE_KS = 8
# Row-passes (rows x models) up to which the curves run without asking.
AUTO_CURVE_ROWS = 20_000_000
DEFAULT_K = 10  # the pass that finds the queries' lengths: the page's first view
CAP = DEFAULT_CAP  # queries up to which the engine returns per-query values (else the means)


# --- rows in memory --------------------------------------------------------------------------


@st.cache_data(max_entries=64, show_spinner=False)
def _rows_report(
    key: tuple, model: str, k: int, gain: str, denominator: str, _data: ranking_charts.RankingInput
) -> metrics.RankingReport:
    return ranking_charts.report(_data, model, k=k, gain=gain, denominator=denominator)


@st.cache_data(max_entries=16, show_spinner="Computing the metrics at every k...")
def _rows_curves(key: tuple, models: tuple, ks: tuple, gain: str, denominator: str, _data):
    return ranking_charts.metric_at_k_curves(_data, models, ks, gain=gain, denominator=denominator)


@st.cache_data(max_entries=16, show_spinner=False)
def _rows_conventions(
    key: tuple, model: str, k: int, _data: ranking_charts.RankingInput
) -> tuple[list, int]:
    y, s, g = _data.relevance_for(model), _data.scores[model], _data.groups
    return ranking_conventions(y, s, g, k=k), tied_relevant_queries(y, s, g)


@dataclass(frozen=True, eq=False)
class RowsRanking:
    """Query-grouped rows in memory; ``key`` identifies them in the caches."""

    data: ranking_charts.RankingInput
    key: tuple
    caption: str = ""
    row_help: str = ROW_HELP

    @property
    def models(self) -> tuple[str, ...]:
        return self.data.models

    def report(self, model: str, *, k: int, gain: str, denominator: str) -> metrics.RankingReport:
        """The per-query report; raises ValueError for query ids the library cannot sort."""
        return _rows_report(self.key, model, k, gain, denominator, self.data)

    def longest(self, model: str) -> int:
        return int(self.report(model, k=1, gain="linear", denominator="relevant").n_docs.max())

    def table(self, k: int, gain: str, denominator: str) -> pd.DataFrame:
        reports = {m: self.report(m, k=k, gain=gain, denominator=denominator) for m in self.models}
        return ranking_charts.model_metrics_table(reports, k)

    def curves(self, k_max: int, gain: str, denominator: str):
        """(the cut-offs, model -> metric -> mean at each)."""
        ks = ranking_charts.k_grid(k_max, self.data.n_rows, len(self.models))
        return ks, _rows_curves(self.key, self.models, ks, gain, denominator, self.data)

    def conventions(self, model: str, k: int) -> tuple[list[RankConvention], int] | None:
        """NDCG@k and MAP@k under trec_eval's, scikit-learn's and LightGBM's conventions, and
        how many queries tie a relevant row's score (cached: a slider move re-sorts nothing)."""
        return _rows_conventions(self.key, model, k, self.data)

    def breakdown(self, model: str, query, *, k: int, gain: str, denominator: str):
        return ranking_charts.query_breakdown(
            self.data.relevance_for(model), self.data.scores[model], self.data.groups, query,
            k=k, gain=gain, denominator=denominator,
        )  # fmt: skip


def _rows_ranking(ds: Dataset) -> RowsRanking | None:
    groups = ds.prepared.groups
    if groups is None:
        st.info(
            "Ranking metrics need query-grouped rows. Map a query / user id column in the "
            'sidebar (Upload, Columns), pick the "Search ranking" sample dataset, or open the '
            "IR textbook example above."
        )
        st.button(
            'Use the "Search ranking" sample',
            key="ranking_use_sample",
            on_click=callbacks.set_state,
            kwargs={"source": "Sample dataset", "dataset": "query_ranking"},
            icon=":material/format_list_numbered:",
        )
        return None
    graded = ds.mapping.graded and ds.prepared.relevance is not None
    relevance = ds.prepared.relevance
    rows = ranking_charts.RankingInput(
        name=ds.name,
        models=ds.models,
        scores={m: ds.score(m) for m in ds.models},
        groups=groups,
        relevance_for=(
            (lambda m: relevance) if graded else (lambda m: ds.labels_for(m).astype(np.float64))
        ),
        graded=graded,
    )
    caption = (
        f"on {md(ds.name)}: each {md(ds.mapping.group)} is a query, its rows "
        "ranked by descending score (tied scores keep the row order). "
        + (
            f"Graded relevance from {md(ds.mapping.label)} (> 0 is relevant)."
            if graded
            else f"Relevance is 1 for {md(ds.positive_name)}, else 0."
        )
        + (" Sample weights are not used here." if ds.weight is not None else "")
    )
    return RowsRanking(rows, (ds.key, ds.prepared.n_dropped), caption)


# --- a server table, through the engine --------------------------------------------------------


@st.cache_data(max_entries=64, show_spinner=False)
def _ranking(
    paths: tuple[str, ...],
    stamps: tuple[float, ...],
    relevance: str,
    score: str,
    query: str,
    k: int,
    gain: str,
    denominator: str,
    cap: int,
) -> RankingSummary:
    """One engine pass over exactly ``paths`` (the files the sandbox approved), cached by the
    files, their modification times, the columns and the options."""
    from metrics.sql import ranking_summary

    return ranking_summary(
        list(paths), relevance, score, query, k=k, gain=gain, denominator=denominator,
        memory_limit=server_source.memory_limit(), cap=cap,
    )  # fmt: skip


@st.cache_data(max_entries=16, show_spinner=False)
def _curves(
    paths: tuple[str, ...],
    stamps: tuple[float, ...],
    relevance: str,
    score: str,
    query: str,
    ks: tuple[int, ...],
    gain: str,
    denominator: str,
    cap: int,
) -> list[RankingSummary]:
    """:func:`metrics.sql.ranking_curves`: one pass per model for every cut-off of the curves,
    cached as :func:`_ranking` is."""
    from metrics.sql import ranking_curves

    return ranking_curves(
        list(paths), relevance, score, query, ks, gain=gain, denominator=denominator,
        memory_limit=server_source.memory_limit(), cap=cap,
    )  # fmt: skip


@st.cache_data(max_entries=8, show_spinner=False)
def _label_values(
    paths: tuple[str, ...], stamps: tuple[float, ...], label: str
) -> tuple[str, int, float, float]:
    """:func:`metrics.sql.relevance_values` of the label column, cached by file stamps."""
    return relevance_values(list(paths), label, memory_limit=server_source.memory_limit())


@st.cache_data(max_entries=16, show_spinner=False)
def _query_rows(
    paths: tuple[str, ...],
    stamps: tuple[float, ...],
    relevance: str,
    score: str,
    query: str,
    query_id: object,
) -> tuple[np.ndarray, np.ndarray]:
    """:func:`metrics.sql.query_rows` of one query, cached by file stamps."""
    return query_rows(
        list(paths), relevance, score, query, query_id, memory_limit=server_source.memory_limit()
    )


def _python(value: object) -> object:
    """A numpy scalar as the Python value the engine's parameters take."""
    return value.item() if isinstance(value, np.generic) else value


def _means_table(summaries: dict[str, RankingSummary], k: int) -> pd.DataFrame:
    """:func:`ui.figures.ranking_charts.model_metrics_table`'s layout from the engine's means (when
    it
    kept no per-query values: more queries than its cap)."""
    rows = []
    for name, r in summaries.items():
        row = {"model": name}
        for attr, short in ranking_charts.CURVE_METRICS:
            row[f"{short}@{k}"] = r.means[attr]
        row["MRR"] = r.means["reciprocal_rank"]
        row["queries counted"] = r.n_queries - r.n_skipped
        row["skipped"] = r.n_skipped
        rows.append(row)
    return pd.DataFrame(rows)


@dataclass(frozen=True, eq=False)
class EngineRanking:
    """A server table's files, ranked by the engine; relevance is the label column's value."""

    source: server_source.ServerTable
    caption: str
    row_help: str = ENGINE_ROW_HELP

    @property
    def models(self) -> tuple[str, ...]:
        return tuple(self.source.summary.models)

    def summary(self, model: str, *, k: int, gain: str, denominator: str) -> RankingSummary:
        """The engine's pass for one model and cut-off; raises ValueError (SQLInputError) with
        the engine's sentence when the files cannot be ranked."""
        src, s = self.source, self.source.summary
        with st.spinner(f"{s.engine} ranks each {md(s.group)}'s rows by {md(model)}, top {k}..."):
            return _ranking(
                src.paths, src.stamps, s.label, model, s.group, k, gain, denominator, CAP
            )

    def report(
        self, model: str, *, k: int, gain: str, denominator: str
    ) -> metrics.RankingReport | None:
        """The per-query report, or None when the engine kept only the means (more queries
        than its cap)."""
        return self.summary(model, k=k, gain=gain, denominator=denominator).report

    def longest(self, model: str) -> int | None:
        r = self.report(model, k=DEFAULT_K, gain="linear", denominator="relevant")
        return None if r is None else int(r.n_docs.max())

    def table(self, k: int, gain: str, denominator: str) -> pd.DataFrame:
        found = {m: self.summary(m, k=k, gain=gain, denominator=denominator) for m in self.models}
        if all(r.report is not None for r in found.values()):
            return ranking_charts.model_metrics_table({m: r.report for m, r in found.items()}, k)
        return _means_table(found, k)

    def curves(self, k_max: int, gain: str, denominator: str):
        """(the cut-offs, model -> metric -> mean at each), or None after saying why: each
        model is one more pass over every row (all its cut-offs in one), so a large table asks
        first."""
        s = self.source.summary
        ks = ranking_charts.k_grid(
            k_max, s.rows, len(self.models), budget=AUTO_CURVE_ROWS, most=ENGINE_CURVE_KS
        )
        passes = len(self.models)
        asked = st.session_state.get("ranking_server_curves") == (self.source.paths, ks)
        if s.rows * passes > AUTO_CURVE_ROWS and not asked:
            st.write(
                f"The curves take {plural(passes, 'more pass', 'more passes')} of {s.engine} over "
                f"the {s.rows:,} rows: metrics.sql.ranking_curves ranks each model's rows once "
                f"and cuts them at all {len(ks)} k."
            )
            if st.button("Compute the curves", key="ranking_server_curves_run"):
                st.session_state["ranking_server_curves"] = (self.source.paths, ks)
                st.rerun()
            return None
        src = self.source
        out = {}
        for model in self.models:
            with st.spinner(f"{s.engine} ranks each {md(s.group)}'s rows by {md(model)}..."):
                runs = _curves(
                    src.paths, src.stamps, s.label, model, s.group, ks, gain, denominator, CAP
                )
            out[model] = {
                attr: np.array([r.means[attr] for r in runs])
                for attr, _ in ranking_charts.CURVE_METRICS
            }
        return ks, out

    def conventions(self, model: str, k: int) -> None:
        """None: the libraries' conventions are computed on rows in memory, not by the engine."""
        return None

    def breakdown(self, model: str, query, *, k: int, gain: str, denominator: str):
        """One query's ranking spelled out from its rows, read from the files by the engine."""
        src, s = self.source, self.source.summary
        with st.spinner(f"{s.engine} reads the rows of {md(s.group)} {md(query)}..."):
            rel, scores = _query_rows(src.paths, src.stamps, s.label, model, s.group,
                                      _python(query))  # fmt: skip
        if rel.size == 0:
            raise ValueError(f"No row has query id {query!r}.")
        b = ranking_charts.query_breakdown(
            rel, scores, np.zeros(rel.size, np.int8), 0, k=k, gain=gain, denominator=denominator
        )
        return replace(b, query=query)


def _relevance_sentence(s, kind: str, n: int, low: float, high: float, positive: str) -> str:
    """How the engine's relevance (the label column's value, > 0 relevant) relates to the
    positive class the other pages use."""
    label = md(s.label)
    graded = n > 2 or not {low, high} <= {0.0, 1.0}
    if graded:
        return (
            f"Graded relevance from {label} ({low:g} to {high:g}; > 0 is relevant): the "
            "engine's ranking pass reads relevance as the column's value, not as the positive "
            f"class {md(s.positive)} the other pages use."
        )
    if s.positive.strip().lower() in ("1", "1.0", "true") or kind == "BOOLEAN":
        return (
            f"Relevance is binary: 1 for {md(positive)} ({label} = {md(s.positive)}), else 0. "
            "The engine's ranking pass reads the 0/1 label column itself, so graded relevance "
            "needs a label column holding the grades."
        )
    return (
        f"Relevance is binary: 1 where {label} = 1, else 0. The engine's ranking pass reads "
        "relevance as the column's value, so the positive class "
        f"{md(s.positive)} the other pages use does not apply here."
    )


def _engine_ranking(ds: Dataset, model: str) -> EngineRanking | None:
    src = ds.engine
    s = src.summary
    if not src.has_rows:
        st.info(
            f"{md(s.source)} is a summary file: it holds each model's per-score counts (and "
            "per-user AUCs), not the rows, and ranking a query needs its rows' scores in order. "
            "Open the Parquet or CSV files it was made from as the server dataset, with a query "
            "or user column, and the engine ranks them here."
        )
        return None
    if s.group is None:
        st.info(
            "Ranking metrics need a query or user id: pick one under Columns → User or query "
            f"column in the sidebar, and the engine ranks each query's rows of {md(s.source)} "
            "by score (metrics.sql.ranking_summary)."
        )
        return None
    try:
        with st.spinner(f"{s.engine} reads the label column {md(s.label)}..."):
            kind, n, low, high = _label_values(src.paths, src.stamps, s.label)
    except SQLInputError as exc:
        st.error(md(f"Cannot read {s.source} for ranking: {exc}", limit=400))
        return None
    if math.isnan(low):
        st.info(
            f"The engine ranks with the label column as relevance, a number >= 0 "
            f"(metrics.sql.ranking_summary takes a relevance column, not a positive class), and "
            f"{md(s.label)} is {md(kind.lower())}. Map a 0/1 or graded (0, 1, 2, ...) label "
            "column in the sidebar, or upload a sample of the table."
        )
        return None
    if low < 0:
        st.info(
            f"The engine ranks with the label column as relevance, a grade >= 0 (0 = not "
            f"relevant), and {md(s.label)} goes down to {low:g}. Map a 0/1 or graded label "
            "column in the sidebar, or upload a sample of the table."
        )
        return None
    ranking = EngineRanking(src, "")
    try:  # the first view's pass, which the page's k slider reads the queries' lengths from
        first = ranking.summary(model, k=DEFAULT_K, gain="linear", denominator="relevant")
    except SQLInputError as exc:  # e.g. the files changed since the summary
        st.error(md(f"The engine cannot rank {s.source}: {exc}", limit=400))
        return None
    caption = (
        f"on {md(s.source)}: {first.rows:,} rows ranked by {s.engine}"
        + (f" ({first.dropped:,} dropped: NULL or NaN relevance, score or query)"
           if first.dropped else "")
        + " with metrics.sql.ranking_summary, one pass over the files per model and k (the "
        "curves below: metrics.sql.ranking_curves, one pass per model for all their k). "
        f"Each {md(s.group)} is a query, its rows ranked by descending score (tied scores keep "
        "the files' row order). "
        + _relevance_sentence(s, kind, n, low, high, ds.positive_name)
        + (f" Sample weights ({md(s.weight)}) are not used here." if s.weight is not None else "")
    )  # fmt: skip
    return replace(ranking, caption=caption)


def for_dataset(ds: Dataset, model: str) -> RowsRanking | EngineRanking | None:
    """What computes the Ranking page for ``ds`` (``model`` is the one shown first): its rows,
    or its server table's engine; None after saying on the page why it cannot rank (no query
    column, a summary file, a label the engine cannot read as relevance, files it cannot
    read)."""
    return _rows_ranking(ds) if ds.engine is None else _engine_ranking(ds, model)

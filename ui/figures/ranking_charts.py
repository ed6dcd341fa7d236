"""The Ranking page's pure parts: its inputs, tables, plotly figures and explain LaTeX.

No Streamlit here. Every number comes from :func:`metrics.ranking_report`, except
:func:`query_breakdown`, which spells one query's precision@i, AP terms and DCG terms out rank by
rank for teaching; its totals equal the report's per-query values (the tests check it).
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable
from dataclasses import dataclass, replace
from functools import cached_property

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

import metrics
from ui.figures.charts import _BASE_LAYOUT, PALETTE
from ui.words.text import num

__all__ = [
    "CURVE_METRICS",
    "IR_TEXTBOOK_MODEL",
    "QueryBreakdown",
    "RankingInput",
    "ap_lines",
    "ir_textbook_example",
    "k_grid",
    "metric_at_k_curves",
    "metric_at_k_figure",
    "model_metrics_table",
    "ndcg_lines",
    "per_query_frame",
    "per_query_histogram_figure",
    "precision_lines",
    "query_breakdown",
    "query_gain_figure",
    "report",
    "rr_lines",
]

IR_TEXTBOOK_MODEL = "textbook system"

# (report attribute, short name) of the metrics cut at k, in the order the page shows them.
CURVE_METRICS = (
    ("precision", "P"),
    ("recall", "R"),
    ("average_precision", "MAP"),
    ("ndcg", "NDCG"),
)

MAX_TERMS = 8  # terms written out in an explain formula before "+ ..."
MAX_DCG_TERMS = 5  # wider terms: fewer fit on a line


# --- inputs -----------------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class RankingInput:
    """Query-grouped rows: per-model scores, the query id of each row, and the relevance that
    goes with a model (graded, or a 0/1 label as 0.0/1.0)."""

    name: str
    models: tuple[str, ...]
    scores: dict[str, np.ndarray]
    groups: np.ndarray
    relevance_for: Callable[[str], np.ndarray]
    graded: bool

    @property
    def n_rows(self) -> int:
        return int(self.groups.size)

    @cached_property
    def codes(self) -> tuple[np.ndarray, np.ndarray]:
        """(query code of each row, the sorted distinct query ids): the library groups integer
        codes in a small range without a sort, far faster than string ids."""
        codes, ids = pd.factorize(self.groups, sort=True)
        return codes, np.asarray(ids)


def ir_textbook_example() -> RankingInput:
    """Seed 001's two topics as one system's scores (the retrieved list is the top 7).

    Topic 1 has 4 relevant documents, retrieved at ranks 1, 2, 4 and 7. Topic 2 has 5 relevant
    documents, 3 retrieved at ranks 1, 3 and 5; the 2 never retrieved get score 0, below the 7
    retrieved rows (scored 7 down to 1). At k = 7: AP = (1/1 + 2/2 + 3/4 + 4/7) / 4 and
    (1/1 + 2/3 + 3/5 + 0 + 0) / 5, MAP their mean (the article's 0.83, 0.45 and 0.64).
    """
    topic1 = [1, 1, 0, 1, 0, 0, 1]
    topic2 = [1, 0, 1, 0, 1, 0, 0, 1, 1]
    relevance = np.array(topic1 + topic2, dtype=np.float64)
    retrieved = [7, 6, 5, 4, 3, 2, 1]
    scores = np.array([*retrieved, *retrieved, 0, 0], dtype=np.float64)
    groups = np.array(["topic 1"] * len(topic1) + ["topic 2"] * len(topic2))
    return RankingInput(
        name="IR textbook: two topics",
        models=(IR_TEXTBOOK_MODEL,),
        scores={IR_TEXTBOOK_MODEL: scores},
        groups=groups,
        relevance_for=lambda model: relevance,
        graded=False,
    )


def report(
    data: RankingInput, model: str, *, k: int, gain: str, denominator: str
) -> metrics.RankingReport:
    """The library's per-query report for one model (no warning for skipped queries: the page
    counts them)."""
    codes, ids = data.codes
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", metrics.UndefinedMetricWarning)
        r = metrics.ranking_report(
            data.relevance_for(model),
            data.scores[model],
            codes,
            k=k,
            gain=gain,
            denominator=denominator,
        )
    return replace(r, query=ids[r.query])


def _mean(r: metrics.RankingReport, metric: str) -> float:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", metrics.UndefinedMetricWarning)
        return r.mean(metric)


# --- tables -----------------------------------------------------------------------------------


def model_metrics_table(reports: dict[str, metrics.RankingReport], k: int) -> pd.DataFrame:
    """One row per model: the means P@k, R@k, MAP@k, NDCG@k, MRR and the queries counted."""
    rows = []
    for name, r in reports.items():
        row = {"model": name}
        for attr, short in CURVE_METRICS:
            row[f"{short}@{k}"] = _mean(r, attr)
        row["MRR"] = _mean(r, "reciprocal_rank")
        row["queries counted"] = r.n_queries - r.n_skipped
        row["skipped"] = r.n_skipped
        rows.append(row)
    return pd.DataFrame(rows)


def per_query_frame(r: metrics.RankingReport) -> pd.DataFrame:
    """The report's per-query arrays with the page's column names (k in the names)."""
    k = r.k
    return pd.DataFrame(
        {
            "query": r.query,
            "documents": r.n_docs,
            "relevant": r.n_relevant,
            f"P@{k}": r.precision,
            f"R@{k}": r.recall,
            f"AP@{k}": r.average_precision,
            f"NDCG@{k}": r.ndcg,
            "RR": r.reciprocal_rank,
        }
    )


# --- metrics at every k -----------------------------------------------------------------------


def k_grid(max_k: int, n_rows: int, n_models: int, *, budget: float = 2e7, most: int = 25):
    """The cut-offs the curves are computed at: every k up to ``max_k`` when few, else about
    ``most`` evenly spread ones (fewer for large data: one report costs a sort of every row,
    so rows x models x k values stays under ``budget``)."""
    n = int(min(most, max(4, budget // max(n_rows * n_models, 1))))
    if max_k <= n:
        return tuple(range(1, max_k + 1))
    return tuple(int(k) for k in np.unique(np.linspace(1, max_k, n).round().astype(int)))


def metric_at_k_curves(
    data: RankingInput, models: tuple[str, ...], ks: tuple[int, ...], *, gain: str, denominator: str
) -> dict[str, dict[str, np.ndarray]]:
    """model -> metric -> the library's mean at each k of ``ks`` (one report per k)."""
    out: dict[str, dict[str, np.ndarray]] = {}
    for model in models:
        values = {attr: np.empty(len(ks)) for attr, _ in CURVE_METRICS}
        for i, k in enumerate(ks):
            r = report(data, model, k=k, gain=gain, denominator=denominator)
            for attr, _ in CURVE_METRICS:
                values[attr][i] = _mean(r, attr)
        out[model] = values
    return out


def metric_at_k_figure(
    ks: tuple[int, ...], curves: dict[str, dict[str, np.ndarray]], *, k: int | None = None
) -> go.Figure:
    """P@k, R@k, MAP@k and NDCG@k against k, one line per model, the chosen k dashed."""
    fig = make_subplots(
        rows=1,
        cols=len(CURVE_METRICS),
        subplot_titles=[f"{short}@k" for _, short in CURVE_METRICS],
        shared_yaxes=True,
        horizontal_spacing=0.03,
    )
    for i, (model, values) in enumerate(curves.items()):
        color = PALETTE[i % len(PALETTE)]
        for col, (attr, short) in enumerate(CURVE_METRICS, start=1):
            fig.add_trace(
                go.Scatter(
                    x=list(ks),
                    y=values[attr],
                    mode="lines+markers" if len(ks) <= 30 else "lines",
                    name=model,
                    legendgroup=model,
                    showlegend=col == 1,
                    line=dict(color=color, width=2),
                    marker=dict(size=5),
                    hovertemplate=f"<b>{model}</b><br>{short}@%{{x}} = %{{y:.4f}}<extra></extra>",
                ),
                row=1,
                col=col,
            )
    if k is not None:
        for col in range(1, len(CURVE_METRICS) + 1):
            fig.add_vline(x=k, line=dict(color="#555555", dash="dash", width=1), row=1, col=col)
    fig.update_layout(
        **_BASE_LAYOUT,
        height=340,
        legend=dict(orientation="h", y=1.2, x=1, xanchor="right", yanchor="bottom"),
    )
    fig.update_layout(margin=dict(l=10, r=10, t=70, b=10))
    fig.update_yaxes(range=[0, 1.03])
    fig.update_yaxes(title="mean over queries", row=1, col=1)
    fig.update_xaxes(title="k")
    return fig


# --- per-query distribution -------------------------------------------------------------------


def per_query_histogram_figure(values: dict[str, np.ndarray], *, bins: int = 20) -> go.Figure:
    """Histograms (binned here, ``bins`` bars each over [0, 1]) of per-query values such as AP
    and NDCG; NaN (skipped queries) left out."""
    edges = np.linspace(0.0, 1.0, bins + 1)
    centers = (edges[:-1] + edges[1:]) / 2
    fig = go.Figure()
    for i, (name, v) in enumerate(values.items()):
        counts, _ = np.histogram(v[~np.isnan(v)], bins=edges)
        fig.add_trace(
            go.Bar(
                x=centers,
                y=counts,
                width=np.diff(edges),
                name=name,
                marker_color=PALETTE[i % len(PALETTE)],
                opacity=0.6,
                customdata=np.column_stack((edges[:-1], edges[1:])),
                hovertemplate=f"{name} in [%{{customdata[0]:.2f}}, %{{customdata[1]:.2f}}]: "
                "%{y} queries<extra></extra>",
            )
        )
    fig.update_layout(
        **_BASE_LAYOUT,
        barmode="overlay",
        height=320,
        xaxis=dict(title="per-query value", range=[0, 1]),
        yaxis=dict(title="queries"),
        legend=dict(orientation="h", y=1.12, x=0),
    )
    return fig


# --- one query, rank by rank ------------------------------------------------------------------


def _gain(rel: np.ndarray, gain: str) -> np.ndarray:
    return rel if gain == "linear" else np.exp2(rel) - 1.0


@dataclass(frozen=True, eq=False)
class QueryBreakdown:
    """One query's rows in rank order (descending score, ties in row order, as the library).

    The arrays have one entry per rank; ``ap_term`` is precision@i at relevant ranks within k
    (NaN elsewhere), ``dcg_term``/``ideal_dcg_term`` are gain / log2(i + 1) within k (NaN below).
    """

    query: object
    k: int
    gain: str
    denominator: str
    row: np.ndarray
    rank: np.ndarray
    score: np.ndarray
    relevance: np.ndarray
    relevant: np.ndarray
    in_top_k: np.ndarray
    relevant_so_far: np.ndarray
    precision: np.ndarray
    ap_term: np.ndarray
    gain_value: np.ndarray
    discount: np.ndarray
    dcg_term: np.ndarray
    ideal_relevance: np.ndarray
    ideal_dcg_term: np.ndarray

    @property
    def n_docs(self) -> int:
        return int(self.rank.size)

    @property
    def n_relevant(self) -> int:
        return int(self.relevant.sum())

    @property
    def hits_at_k(self) -> int:
        return int((self.relevant & self.in_top_k).sum())

    @property
    def precision_at_k(self) -> float:
        return self.hits_at_k / self.k if self.n_relevant else math.nan

    @property
    def recall_at_k(self) -> float:
        return self.hits_at_k / self.n_relevant if self.n_relevant else math.nan

    @property
    def ap_denominator(self) -> int:
        if self.denominator == "min_k":
            return min(self.k, self.n_relevant)
        return self.n_relevant

    @property
    def average_precision(self) -> float:
        if not self.n_relevant:
            return math.nan
        return math.fsum(self.ap_term[~np.isnan(self.ap_term)]) / self.ap_denominator

    @property
    def dcg(self) -> float:
        return math.fsum(self.dcg_term[self.in_top_k])

    @property
    def ideal_dcg(self) -> float:
        return math.fsum(self.ideal_dcg_term[self.in_top_k])

    @property
    def ndcg(self) -> float:
        return self.dcg / self.ideal_dcg if self.n_relevant else math.nan

    @property
    def first_relevant_rank(self) -> int | None:
        hits = np.flatnonzero(self.relevant)
        return int(hits[0]) + 1 if hits.size else None

    @property
    def reciprocal_rank(self) -> float:
        first = self.first_relevant_rank
        return 1.0 / first if first else math.nan

    def frame(self, max_rows: int | None = None) -> pd.DataFrame:
        """The rank-by-rank table the page shows (the first ``max_rows`` ranks)."""
        n = self.n_docs if max_rows is None else min(self.n_docs, max_rows)
        return pd.DataFrame(
            {
                "rank": self.rank[:n],
                "row": self.row[:n] + 1,
                "score": self.score[:n],
                "relevance": self.relevance[:n],
                f"in top {self.k}": self.in_top_k[:n],
                "relevant so far": self.relevant_so_far[:n],
                "precision@i": self.precision[:n],
                "AP term": self.ap_term[:n],
                "gain": self.gain_value[:n],
                "1/log2(i+1)": self.discount[:n],
                "DCG term": self.dcg_term[:n],
                "ideal relevance": self.ideal_relevance[:n],
                "ideal DCG term": self.ideal_dcg_term[:n],
            }
        )


def query_breakdown(
    relevance: np.ndarray,
    scores: np.ndarray,
    groups: np.ndarray,
    query: object,
    *,
    k: int,
    gain: str = "linear",
    denominator: str = "relevant",
) -> QueryBreakdown:
    """One query's ranking spelled out: precision at each rank, AP terms, DCG terms."""
    rows = np.flatnonzero(groups == query)
    if rows.size == 0:
        raise ValueError(f"No row has query id {query!r}.")
    s = np.asarray(scores, dtype=np.float64)[rows]
    order = rows[np.argsort(-s, kind="stable")]  # ties keep row order, as metrics.ranking
    rel = np.asarray(relevance, dtype=np.float64)[order]
    rank = np.arange(1, rows.size + 1)
    relevant = rel > 0
    in_top_k = rank <= k
    so_far = np.cumsum(relevant)
    precision = so_far / rank
    discount = 1.0 / np.log2(rank + 1)
    ideal = np.sort(rel)[::-1]
    return QueryBreakdown(
        query=query,
        k=k,
        gain=gain,
        denominator=denominator,
        row=order,
        rank=rank,
        score=np.asarray(scores, dtype=np.float64)[order],
        relevance=rel,
        relevant=relevant,
        in_top_k=in_top_k,
        relevant_so_far=so_far,
        precision=precision,
        ap_term=np.where(relevant & in_top_k, precision, np.nan),
        gain_value=_gain(rel, gain),
        discount=discount,
        dcg_term=np.where(in_top_k, _gain(rel, gain) * discount, np.nan),
        ideal_relevance=ideal,
        ideal_dcg_term=np.where(in_top_k, _gain(ideal, gain) * discount, np.nan),
    )


def query_gain_figure(b: QueryBreakdown, *, max_ranks: int = 60) -> go.Figure:
    """DCG terms by rank, the model's order next to the ideal one: NDCG@k is the ratio of the
    two sums left of the dashed line at k."""
    n = min(b.n_docs, max(b.k + 5, 20), max_ranks)
    rank = b.rank[:n]
    model_terms = _gain(b.relevance[:n], b.gain) * b.discount[:n]
    ideal_terms = _gain(b.ideal_relevance[:n], b.gain) * b.discount[:n]
    fig = go.Figure()
    for name, terms, rel, color in (
        ("model's order", model_terms, b.relevance[:n], PALETTE[0]),
        ("ideal order", ideal_terms, b.ideal_relevance[:n], "#bbbbbb"),
    ):
        fig.add_trace(
            go.Bar(
                x=rank,
                y=terms,
                name=name,
                marker_color=color,
                customdata=rel,
                hovertemplate=f"{name}<br>rank %{{x}}, relevance %{{customdata:g}}"
                "<br>gain / log2(rank + 1) = %{y:.4f}<extra></extra>",
            )
        )
    if b.k < n:
        fig.add_vline(x=b.k + 0.5, line=dict(color="#555555", dash="dash"))
        fig.add_annotation(
            x=b.k + 0.5, y=1, yref="paper", text=f"k = {b.k}", showarrow=False,
            xanchor="left", yanchor="top", font=dict(color="#555555"),
        )  # fmt: skip
    fig.update_layout(
        **_BASE_LAYOUT,
        barmode="group",
        height=300,
        xaxis=dict(title="rank i", dtick=1 if n <= 30 else None),
        yaxis=dict(title="gain / log2(i + 1)"),
        legend=dict(orientation="h", y=1.12, x=0),
    )
    return fig


# --- explain LaTeX ----------------------------------------------------------------------------


def _sum_terms(terms: list[str], zeros: int = 0, most: int = MAX_TERMS) -> str:
    parts = terms[:most]
    if len(terms) > most:
        parts.append(rf"\dots\ (\text{{{len(terms)} terms in all}})")
    parts += ["0"] * zeros if zeros <= 5 else [rf"0 \times {zeros}"]
    return " + ".join(parts) or "0"


def _mean_tex(per_query: np.ndarray) -> str:
    """``\text{MAP@k} = ... = (0.83 + 0.45) / 2 = 0.64``: the sum written out for a few queries."""
    kept = per_query[~np.isnan(per_query)]
    n = kept.size
    mean = float(kept.mean()) if n else math.nan  # as RankingReport.mean
    few = 0 < n <= 5
    total = " + ".join(num(v) for v in kept.tolist()) if few else num(math.fsum(kept))
    return rf"= \frac{{{total}}}{{{n}}} = {num(mean)}"


def _tex_text(value: object, limit: int = 40) -> str:
    """Text (a query id from an upload, say) safe inside LaTeX's \\text{...}."""
    s = str(value)
    s = s if len(s) <= limit else s[: limit - 1] + "..."
    return "".join(_TEX_ESCAPES.get(c, c) for c in s)


_TEX_ESCAPES = {
    "\\": r"\textbackslash{}",
    "{": r"\{",
    "}": r"\}",
    "_": r"\_",
    "^": r"\^{}",
    "$": r"\$",
    "&": r"\&",
    "%": r"\%",
    "#": r"\#",
    "~": r"\~{}",
}


def _undefined(b: QueryBreakdown, what: str) -> list[str]:
    return [
        rf"\text{{query {_tex_text(b.query)}: no relevant document, so {what} is undefined "
        r"and the query is skipped}"
    ]


def precision_lines(b: QueryBreakdown) -> list[str]:
    """P@k and R@k of the query."""
    if not b.n_relevant:
        return _undefined(b, "P@k")
    k = b.k
    return [
        rf"\text{{P@{k}}} = \frac{{\text{{relevant in the top }} {k}}}{{{k}}} = "
        rf"\frac{{{b.hits_at_k}}}{{{k}}} = {num(b.precision_at_k)}",
        rf"\text{{R@{k}}} = \frac{{\text{{relevant in the top }} {k}}}{{R}} = "
        rf"\frac{{{b.hits_at_k}}}{{{b.n_relevant}}} = {num(b.recall_at_k)}",
    ]


def ap_lines(b: QueryBreakdown, per_query_ap: np.ndarray) -> list[str]:
    """AP@k of the query as the seed writes it (precision at each relevant rank, 0 for the
    relevant documents below k, over the chosen denominator), then MAP@k."""
    if not b.n_relevant:
        return _undefined(b, "AP@k")
    k = b.k
    den = "R" if b.denominator == "relevant" else rf"\min({k}, R)"
    hits = np.flatnonzero(b.relevant & b.in_top_k)
    terms = [rf"\frac{{{b.relevant_so_far[i]}}}{{{b.rank[i]}}}" for i in hits]
    zeros = b.n_relevant - hits.size
    return [
        rf"\text{{AP@{k}}} = \frac{{1}}{{{den}}} \sum_{{i \le {k},\ rel_i > 0}} \text{{P@}}i",
        rf"= \frac{{1}}{{{b.ap_denominator}}}\left({_sum_terms(terms, zeros)}\right) = "
        rf"{num(b.average_precision)}",
        rf"\text{{MAP@{k}}} = \frac{{1}}{{N}} \sum_q \text{{AP@{k}}}_q",
        _mean_tex(per_query_ap),
    ]


def _gain_tex(rel: float, gain: str) -> str:
    return num(rel) if gain == "linear" else rf"(2^{{{num(rel)}}} - 1)"


def _dcg_terms(rel: np.ndarray, rank: np.ndarray, gain: str) -> str:
    terms = [
        rf"\frac{{{_gain_tex(r, gain)}}}{{\log_2 {i + 1}}}"
        for r, i in zip(rel.tolist(), rank.tolist(), strict=True)
        if r > 0
    ]
    return _sum_terms(terms, most=MAX_DCG_TERMS)


def ndcg_lines(b: QueryBreakdown) -> list[str]:
    """DCG@k, ideal DCG@k and NDCG@k of the query, only the non-zero terms written out."""
    if not b.n_relevant:
        return _undefined(b, "NDCG@k")
    k = b.k
    top = b.in_top_k
    gain = r"rel_i" if b.gain == "linear" else r"2^{rel_i} - 1"
    return [
        rf"\text{{DCG@{k}}} = \sum_{{i=1}}^{{{k}}} \frac{{{gain}}}{{\log_2(i + 1)}}",
        rf"= {_dcg_terms(b.relevance[top], b.rank[top], b.gain)} = {num(b.dcg)}",
        rf"\text{{IDCG@{k}}} = {_dcg_terms(b.ideal_relevance[top], b.rank[top], b.gain)} = "
        rf"{num(b.ideal_dcg)}",
        rf"\text{{NDCG@{k}}} = \frac{{\text{{DCG@{k}}}}}{{\text{{IDCG@{k}}}}} = "
        rf"\frac{{{num(b.dcg)}}}{{{num(b.ideal_dcg)}}} = {num(b.ndcg)}",
    ]


def rr_lines(b: QueryBreakdown, per_query_rr: np.ndarray) -> list[str]:
    """The query's reciprocal rank, then MRR."""
    if not b.n_relevant:
        return _undefined(b, "RR")
    return [
        rf"\text{{RR}} = \frac{{1}}{{\text{{rank of the first relevant}}}} = "
        rf"\frac{{1}}{{{b.first_relevant_rank}}} = {num(b.reciprocal_rank)}",
        r"\text{MRR} = \frac{1}{N} \sum_q \text{RR}_q",
        _mean_tex(per_query_rr),
    ]

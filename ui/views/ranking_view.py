"""The Ranking page's sections: the metrics at every cut-off, the per-query spread, one query's
ranks, and other libraries' numbers."""

from __future__ import annotations

from collections.abc import Iterable

import streamlit as st

from metrics.ranking import RankingReport
from ui.figures import ranking_charts as rc
from ui.figures.ranking_charts import QueryBreakdown
from ui.views.explain import explain
from ui.views.server_ranking import EngineRanking, RowsRanking
from ui.views.show import chart
from ui.words import conventions
from ui.words import ranking_text as words
from ui.words.safe import md

Ranking = RowsRanking | EngineRanking

__all__ = ["metrics_at_every_k", "other_libraries", "per_query", "query_ranks"]

MAX_INSPECTED_ROWS = 500


def _formats(columns: Iterable[str]) -> dict:
    return {c: st.column_config.NumberColumn(c, format="%.4f") for c in columns}


def metrics_at_every_k(
    data: Ranking, k: int, k_max: int, gain: str, denominator: str, height: int | None = None
) -> None:
    """P@k, R@k, MAP@k and NDCG@k against k (a server table's engine may ask first); with a
    ``height`` (the projector's first screen) without the caption."""
    at_every_k = data.curves(k_max, gain, denominator)  # None: the engine asks first
    if at_every_k is None:
        return
    ks, curves = at_every_k
    fig = rc.metric_at_k_figure(ks, curves, k=k)
    if height is not None:
        fig.update_layout(height=height)
    chart(fig, key="ranking_curves")
    if height is None:
        st.caption(words.curves_caption(len(ks), k_max, denominator))


def per_query(chosen: RankingReport, k: int, model: str) -> None:
    """How AP@k and NDCG@k spread over the queries, beside every query's values."""
    frame = rc.per_query_frame(chosen)
    hist_col, table_col = st.columns([2, 3])
    with hist_col:
        spread = {f"AP@{k}": chosen.average_precision, f"NDCG@{k}": chosen.ndcg}
        chart(rc.per_query_histogram_figure(spread), key="ranking_histogram")
        st.caption(f"{md(model)}: how AP@{k} and NDCG@{k} spread over the counted queries.")
    with table_col:
        numbers = [c for c in frame.columns if c not in ("query", "documents", "relevant")]
        st.dataframe(
            frame, hide_index=True, width="stretch", height=360 if len(frame) > 9 else "auto",
            column_config=_formats(numbers), key="ranking_queries",
        )  # fmt: skip
        st.caption("Click a column header to sort. None: a skipped query (no relevant document).")


def query_ranks(
    b: QueryBreakdown, chosen: RankingReport, row_help: str, k: int, gain: str, denominator: str
) -> None:
    """One query's gains by rank, its rows with each term, and the formulas with its numbers."""
    chart(rc.query_gain_figure(b), key="ranking_query_gains")
    st.caption(
        f"Each bar is a rank's gain / log2(i + 1). NDCG@{k} is the sum of the blue bars up to k "
        "over the sum of the grey ones (the same documents sorted by relevance)."
    )
    shown = b.frame(MAX_INSPECTED_ROWS)
    terms = ("precision@i", "AP term", "1/log2(i+1)", "DCG term", "ideal DCG term")
    row = {"row": st.column_config.NumberColumn("row", help=row_help)}
    st.dataframe(
        shown, hide_index=True, width="stretch", key="ranking_query_table",
        column_config=_formats(terms) | row,
    )  # fmt: skip
    st.caption(words.rows_caption(b.n_docs, len(shown), MAX_INSPECTED_ROWS, k))
    explain(f"P@{k} and R@{k}", rc.precision_lines(b), note="R: the query's relevant documents.")
    explain(
        f"AP@{k} and MAP@{k}", rc.ap_lines(b, chosen.average_precision),
        note=words.ap_note(denominator, k),
    )  # fmt: skip
    explain(f"DCG@{k} and NDCG@{k}", rc.ndcg_lines(b), note=words.ndcg_note(gain))
    explain("RR and MRR", rc.rr_lines(b, chosen.reciprocal_rank), note="Not cut at k.")


def other_libraries(data: Ranking, model: str, k: int) -> None:
    """NDCG and MAP under trec_eval's, scikit-learn's and LightGBM's conventions."""
    found = data.conventions(model, k)
    if found is None:
        st.caption(words.IN_MEMORY)
        return
    st.caption(f"NDCG@{k} and MAP@{k} of **{md(model)}** as each library computes them.")
    found, tied = found
    st.dataframe(conventions.ranking_table(found), hide_index=True, key="ranking_conventions")
    for sentence in conventions.ranking_reasons(found, tied_queries=tied):
        st.markdown(sentence)
    st.caption(conventions.RANKING_SOURCES)

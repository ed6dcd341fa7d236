"""Ranking metrics per query: P@k, R@k, MAP@k, NDCG@k and MRR, one query spelled out, and NDCG
and MAP as trec_eval, scikit-learn and LightGBM compute them."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import streamlit as st

from ui.figures import ranking_charts as rc
from ui.frame import presentation, shell
from ui.views import server_ranking
from ui.views.explain import explain
from ui.views.show import chart
from ui.words import conventions
from ui.words.numbers import decimals, plural
from ui.words.safe import md

ds, model = shell.page_context()

MAX_K = 100  # the k slider stops here, however long the longest query
MAX_QUERY_OPTIONS = 2000  # queries listed in the inspector's picker; others can be typed
MAX_INSPECTED_ROWS = 500
EXAMPLES = {"dataset": "Sidebar dataset", "seed001": "IR textbook example (2 topics)"}
DENOMINATORS = {"relevant": "All relevant (R)", "min_k": "min(k, R)"}
DENOMINATOR_HELP = [
    "trec_eval map / map_cut, the IR textbook",
    "LightGBM map@k, RecBole MAP@K, Kaggle ml_metrics.apk",
]
GAINS = {"linear": "Linear: rel", "exponential": "Exponential: 2^rel − 1"}
GAIN_HELP = [
    "trec_eval ndcg_cut, scikit-learn ndcg_score",
    "Burges et al. (RankNet), LightGBM / XGBoost ndcg",
]


# In presentation mode the title, the data choice and a settings popover share the first row,
# and the headline numbers stand beside the metrics-at-every-k chart on the first screen.
head = presentation.PageHead("Ranking")
PRESENT_HEIGHT = 420
source = (
    head.cell.segmented_control(
        "Data", list(EXAMPLES), format_func=EXAMPLES.get, default="dataset", key="ranking_source"
    )
    or "dataset"
)

if source == "seed001":
    data = server_ranking.RowsRanking(rc.ir_textbook_example(), ("seed001",))
    model = rc.IR_TEXTBOOK_MODEL
    if not head.presenting:  # (no room on the projector's first screen)
        st.caption(
            "The IR textbook example (Manning, Raghavan & Schütze, Introduction to Information "
            "Retrieval, ch. 8): topic 1 has 4 relevant documents, retrieved at ranks 1, 2, 4 "
            "and 7; topic 2 has 5, retrieved at ranks 1, 3 and 5, and 2 never retrieved (score 0, "
            "below the 7 retrieved). Binary relevance."
        )
else:
    # The dataset's rows, or a server table's engine; None after saying why it cannot rank.
    data = server_ranking.for_dataset(ds, model)
    if data is None:
        shell.offer_samples("query_ranking")  # graded relevance per query, in one click
        st.stop()
    if not head.presenting:  # (the bar names the data)
        st.caption(f"**{md(model)}** {data.caption}")

try:
    longest = data.longest(model)
except ValueError as exc:  # query ids of mixed types in an upload; the engine's sentence
    st.warning(md(str(exc), limit=400))
    st.stop()
k_max = max(2, min(MAX_K, longest or MAX_K))
k_key = f"ranking_k_{source}"
st.session_state.setdefault(k_key, 7 if source == "seed001" else 10)
st.session_state[k_key] = min(max(int(st.session_state[k_key]), 1), k_max)

# The settings: a bordered row, or the popover in presentation mode.
k_col, den_col, gain_col = head.settings((2, 2, 2))
k = k_col.slider(
    "k: top ranks that count",
    1,
    k_max,
    key=k_key,
    help=(
        f"The longest query has {longest:,} rows"
        + (f"; the slider stops at {MAX_K}." if longest > MAX_K else ".")
        if longest
        else f"Up to {MAX_K}."
    ),
)
denominator = den_col.radio(
    "AP@k divides by",
    list(DENOMINATORS),
    format_func=DENOMINATORS.get,
    captions=DENOMINATOR_HELP,
    key="ranking_denominator",
)
gain = gain_col.radio(
    "NDCG gain",
    list(GAINS),
    format_func=GAINS.get,
    captions=GAIN_HELP,
    key="ranking_gain",
    help="For 0/1 relevance both gains are the same (2^1 − 1 = 1).",
)

table = data.table(k, gain, denominator)
row = table.set_index("model").loc[model]
counted = int(row["queries counted"])
n_queries = counted + int(row["skipped"])
if counted == 0:
    st.warning(
        f"None of the {n_queries:,} queries has a relevant document for {md(model)}: "
        "every ranking metric is undefined. Check the label mapping in the sidebar."
    )
    st.stop()
chosen = data.report(model, k=k, gain=gain, denominator=denominator)
cards = [
    (f"P@{k}", row[f"P@{k}"], f"Share of the top {k} that is relevant (divides by {k} even "
     "when a query has fewer rows)."),
    (f"R@{k}", row[f"R@{k}"], f"Share of each query's relevant rows found in the top {k}."),
    (f"MAP@{k}", row[f"MAP@{k}"], "Mean over queries of the precision at each relevant rank "
     f"in the top {k}, divided by {'R' if denominator == 'relevant' else f'min({k}, R)'}."),
    (f"NDCG@{k}", row[f"NDCG@{k}"], f"DCG of the top {k} over the ideal DCG, {gain} gain."),
    ("MRR", row["MRR"], "Mean of 1 / rank of the first relevant row; not cut at k."),
]  # fmt: skip
if head.presenting:
    cards_col, chart_col = st.columns([1, 3.2])
    cards_col.caption(f"**{md(model)}**")  # whose numbers (the chart shows every model)
    columns = [cards_col.container(key=presentation.CARDS)] * (len(cards) + 1)
else:
    columns = st.columns(len(cards) + 1)
for col, (label, value, help_text) in zip(columns, cards, strict=False):
    col.metric(label, f"{decimals(value)}", help=help_text)
columns[-1].metric(
    "Queries counted",
    f"{counted:,}",
    help="Queries with at least one relevant row; the others are skipped by every mean "
    "(trec_eval would score them 0).",
)
if not head.presenting:  # (no room on the projector's first screen)
    st.caption(
        f"Means over {counted:,} of {n_queries:,} queries; "
        f"{int(row['skipped']):,} skipped (no relevant document)."
    )

if source == "seed001":
    ap1, ap2 = chosen.average_precision.tolist()
    mean_ap = row[f"MAP@{k}"]
    st.markdown(
        f"At k = {k}: AP = **{decimals(ap1)}** ({Fraction(ap1).limit_denominator(100_000)}) and "
        f"**{decimals(ap2)}** ({Fraction(ap2).limit_denominator(100_000)}), MAP = "
        f"**{decimals(mean_ap)}** "
        f"({Fraction(mean_ap).limit_denominator(100_000)}); to two decimals "
        f"{decimals(ap1, 2)}, {decimals(ap2, 2)} and {decimals(mean_ap, 2)}. "
        + (
            "The textbook's worked values: 0.83, 0.45 and 0.64."
            if k == 7
            else "The textbook's 0.83, 0.45 and 0.64 are at k = 7, its retrieved list."
        )
    )

if len(data.models) > 1:
    st.subheader("Every model")
    st.dataframe(
        table,
        hide_index=True,
        width="stretch",
        column_config={
            c: st.column_config.NumberColumn(c, format="%.4f")
            for c in table.columns
            if c not in ("model", "queries counted", "skipped")
        },
        key="ranking_models",
    )


def _metrics_at_every_k(height: int | None = None) -> None:
    """P@k, R@k, MAP@k and NDCG@k against k (a server table's engine may ask first)."""
    at_every_k = data.curves(k_max, gain, denominator)  # None: the engine asks first
    if at_every_k is None:
        return
    ks, curves = at_every_k
    fig = rc.metric_at_k_figure(ks, curves, k=k)
    if height is not None:
        fig.update_layout(height=height)
    chart(fig, key="ranking_curves")
    if height is not None:
        return  # (the projector's first screen: the caption is in the page's normal layout)
    st.caption(
        "Means over the counted queries at each k"
        + (f" ({len(ks)} values of k from 1 to {k_max})" if len(ks) < k_max else "")
        + "; the dashed line is the chosen k."
        + (" With min(k, R), MAP@k can fall as k grows." if denominator == "min_k" else "")
    )


if head.presenting:  # beside the numbers, on the first screen
    with chart_col:
        _metrics_at_every_k(PRESENT_HEIGHT)
else:
    st.subheader("Metrics at every cut-off")
    _metrics_at_every_k()

st.subheader("Per query")
if chosen is None:
    st.info(
        f"The engine kept the means only: {n_queries:,} queries is more than the per-query "
        "values metrics.sql.ranking_summary returns (its cap). The table, the spread and the "
        "query inspector need those values; upload a sample of the table for them."
    )
    st.stop()
frame = rc.per_query_frame(chosen)
hist_col, table_col = st.columns([2, 3])
with hist_col:
    chart(
        rc.per_query_histogram_figure(
            {f"AP@{k}": chosen.average_precision, f"NDCG@{k}": chosen.ndcg}
        ),
        key="ranking_histogram",
    )
    st.caption(f"{md(model)}: how AP@{k} and NDCG@{k} spread over the counted queries.")
with table_col:
    st.dataframe(
        frame,
        hide_index=True,
        width="stretch",
        height=360 if len(frame) > 9 else "auto",
        column_config={
            c: st.column_config.NumberColumn(c, format="%.4f")
            for c in frame.columns
            if c not in ("query", "documents", "relevant")
        },
        key="ranking_queries",
    )
    st.caption("Click a column header to sort. None: a skipped query (no relevant document).")

st.subheader("Query inspector")
labels = [str(q) for q in chosen.query.tolist()]
index_of = {label: i for i, label in enumerate(labels)}
first_counted = int(np.flatnonzero(~chosen.skipped)[0])
q_key = f"ranking_query_{source}"
many = len(labels) > MAX_QUERY_OPTIONS
options = labels[:MAX_QUERY_OPTIONS]
if labels[first_counted] not in options:
    options.append(labels[first_counted])
if st.session_state.get(q_key) not in options:  # first visit, or other data
    st.session_state[q_key] = labels[first_counted]
pick_col, type_col = st.columns([3, 2]) if many else (st.container(), None)
picked = pick_col.selectbox(
    "Query",
    options,
    key=q_key,
    help=f"The first {MAX_QUERY_OPTIONS:,} of {len(labels):,} queries." if many else None,
)
if type_col is not None:
    typed = type_col.text_input(
        f"Or type any of the {len(labels):,} query ids", key=f"ranking_query_typed_{source}"
    ).strip()
    if typed in index_of:
        picked = typed
    elif typed:
        st.warning(f"No query has the id {md(typed)}; showing {md(picked)}.")
qi = index_of[picked]
try:
    b = data.breakdown(model, chosen.query[qi], k=k, gain=gain, denominator=denominator)
except ValueError as exc:  # the engine cannot read the query's rows (the files changed)
    st.warning(md(str(exc), limit=400))
    st.stop()
if b.n_relevant:
    st.markdown(
        f"Query **{md(picked)}**: {plural(b.n_docs, 'document')}, {b.n_relevant:,} relevant. "
        f"P@{k} **{decimals(chosen.precision[qi])}**, R@{k} **{decimals(chosen.recall[qi])}**, "
        f"AP@{k} **{decimals(chosen.average_precision[qi])}**, NDCG@{k} "
        f"**{decimals(chosen.ndcg[qi])}**, "
        f"RR **{decimals(chosen.reciprocal_rank[qi])}**."
    )
else:
    st.markdown(
        f"Query **{md(picked)}**: {b.n_docs:,} documents, none relevant: skipped by every mean."
    )

chart(rc.query_gain_figure(b), key="ranking_query_gains")
st.caption(
    f"Each bar is a rank's gain / log2(i + 1). NDCG@{k} is the sum of the blue bars up to k "
    "over the sum of the grey ones (the same documents sorted by relevance)."
)
shown = b.frame(MAX_INSPECTED_ROWS)
st.dataframe(
    shown,
    hide_index=True,
    width="stretch",
    column_config={
        c: st.column_config.NumberColumn(c, format="%.4f")
        for c in ("precision@i", "AP term", "1/log2(i+1)", "DCG term", "ideal DCG term")
    }
    | {"row": st.column_config.NumberColumn("row", help=data.row_help)},
    key="ranking_query_table",
)
st.caption(
    (f"The top {MAX_INSPECTED_ROWS} of {b.n_docs:,} ranks. " if b.n_docs > len(shown) else "")
    + f"AP term: precision@i at each relevant rank within k (None elsewhere). DCG terms stop "
    f"at k = {k}; the ideal columns are the same documents sorted by relevance."
)

explain(f"P@{k} and R@{k}", rc.precision_lines(b), note="R: the query's relevant documents.")
explain(
    f"AP@{k} and MAP@{k}",
    rc.ap_lines(b, chosen.average_precision),
    note="Relevant documents ranked below k add 0. "
    + (
        "Dividing by every relevant document (R), as trec_eval's map_cut."
        if denominator == "relevant"
        else f"Dividing by min({k}, R), as LightGBM's map@k: a query with more than {k} "
        "relevant documents can still reach 1."
    )
    + " N: queries with a relevant document.",
)
explain(
    f"DCG@{k} and NDCG@{k}",
    rc.ndcg_lines(b),
    note=(
        "Linear gain rel_i, as trec_eval and scikit-learn's ndcg_score."
        if gain == "linear"
        else "Exponential gain 2^rel_i − 1, as Burges et al. define it (LightGBM, XGBoost)."
    )
    + " Terms with relevance 0 are left out. The ideal DCG sorts the query's documents by "
    "relevance: DCG lies in (0, IDCG], so NDCG in (0, 1].",
)
explain("RR and MRR", rc.rr_lines(b, chosen.reciprocal_rank), note="Not cut at k.")

# --- other libraries' conventions ----------------------------------------------------------------

st.subheader("Other libraries, other numbers")
found = data.conventions(model, k)
if found is None:
    st.caption(
        "NDCG and MAP under trec_eval's, scikit-learn's and LightGBM's conventions are computed "
        "on rows in memory: open the table as an upload to compare them."
    )
else:
    st.caption(f"NDCG@{k} and MAP@{k} of **{md(model)}** as each library computes them.")
    found, tied = found
    st.dataframe(conventions.ranking_table(found), hide_index=True, key="ranking_conventions")
    for sentence in conventions.ranking_reasons(found, tied_queries=tied):
        st.markdown(sentence)
    st.caption(conventions.RANKING_SOURCES)

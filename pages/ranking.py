"""Ranking metrics per query: P@k, R@k, MAP@k, NDCG@k and MRR, one query spelled out, and NDCG
and MAP as trec_eval, scikit-learn and LightGBM compute them."""

from __future__ import annotations

import streamlit as st

from ui.analyses.ranking_queries import query_options
from ui.figures import ranking_charts as rc
from ui.frame import presentation, shell
from ui.views import ranking_view as view
from ui.views import server_ranking
from ui.words import ranking_text as words
from ui.words.numbers import decimals
from ui.words.safe import md

ds, model = shell.page_context()

MAX_K = 100  # the k slider stops here, however long the longest query
MAX_QUERY_OPTIONS = 2000  # queries listed in the inspector's picker; others can be typed

# In presentation mode the title, the data choice and a settings popover share the first row,
# and the headline numbers stand beside the metrics-at-every-k chart on the first screen.
head = presentation.PageHead("Ranking")
PRESENT_HEIGHT = 420
source = (
    head.cell.segmented_control(
        "Data",
        list(words.EXAMPLES),
        format_func=words.EXAMPLES.get,
        default="dataset",
        key="ranking_source",
    )
    or "dataset"
)

if source == "seed001":
    data = server_ranking.RowsRanking(rc.ir_textbook_example(), ("seed001",))
    model = rc.IR_TEXTBOOK_MODEL
    if not head.presenting:  # (no room on the projector's first screen)
        st.caption(words.TEXTBOOK)
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
    help=words.k_help(longest, MAX_K),
)
denominator = den_col.radio(
    "AP@k divides by",
    list(words.DENOMINATORS),
    format_func=words.DENOMINATORS.get,
    captions=words.DENOMINATOR_HELP,
    key="ranking_denominator",
)
gain = gain_col.radio(
    "NDCG gain",
    list(words.GAINS),
    format_func=words.GAINS.get,
    captions=words.GAIN_HELP,
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
cards = words.cards(row, k, denominator, gain)
if head.presenting:
    cards_col, chart_col = st.columns([1, 3.2])
    cards_col.caption(f"**{md(model)}**")  # whose numbers (the chart shows every model)
    columns = [cards_col.container(key=presentation.CARDS)] * (len(cards) + 1)
else:
    columns = st.columns(len(cards) + 1)
for col, (label, value, help_text) in zip(columns, cards, strict=False):
    col.metric(label, f"{decimals(value)}", help=help_text)
columns[-1].metric("Queries counted", f"{counted:,}", help=words.QUERIES_HELP)
if not head.presenting:  # (no room on the projector's first screen)
    st.caption(
        f"Means over {counted:,} of {n_queries:,} queries; "
        f"{int(row['skipped']):,} skipped (no relevant document)."
    )

if source == "seed001":
    ap1, ap2 = chosen.average_precision.tolist()
    st.markdown(words.textbook_values(ap1, ap2, row[f"MAP@{k}"], k))

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

if head.presenting:  # beside the numbers, on the first screen
    with chart_col:
        view.metrics_at_every_k(data, k, k_max, gain, denominator, PRESENT_HEIGHT)
else:
    st.subheader("Metrics at every cut-off")
    view.metrics_at_every_k(data, k, k_max, gain, denominator)

st.subheader("Per query")
if chosen is None:
    st.info(words.engine_kept_means(n_queries))
    st.stop()
view.per_query(chosen, k, model)

st.subheader("Query inspector")
labels, options, first = query_options(chosen.query, chosen.skipped, MAX_QUERY_OPTIONS)
index_of = {label: i for i, label in enumerate(labels)}
q_key = f"ranking_query_{source}"
many = len(labels) > MAX_QUERY_OPTIONS
if st.session_state.get(q_key) not in options:  # first visit, or other data
    st.session_state[q_key] = first
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
st.markdown(words.query_sentence(picked, b, chosen, qi, k))
view.query_ranks(b, chosen, data.row_help, k, gain, denominator)

# --- other libraries' conventions ----------------------------------------------------------------

st.subheader("Other libraries, other numbers")
view.other_libraries(data, model, k)

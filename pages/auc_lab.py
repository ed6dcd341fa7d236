"""AUC three ways: positive-negative pairs ordered right, the rank sum, the ROC staircase; and
the same rows under Keras's and Spark's conventions, with the pairs each one ties.

In presentation mode (larger text) the title shares the controls' row and the pair grid and the
ROC staircase, titled inside, fill what is left of a 1280x720 screen under the four numbers.
"""

from __future__ import annotations

import streamlit as st

import metrics
from metrics.conventions import roc_auc_conventions
from ui.compute import labs
from ui.figures import auc_charts
from ui.frame import presentation, shell
from ui.views.explain import explain
from ui.views.show import chart
from ui.words import conventions
from ui.words.numbers import decimals
from ui.words.safe import md

ds, model = shell.page_context(requires=("rows",), what="The AUC lab (it pairs rows)")

CURRENT = "Current data"
MAX_SAMPLE = 150
SMALL = 60  # rows shown whole in the rank table; larger tables offer a view


INTRO = (
    "AUC is the share of (positive, negative) pairs in which the positive scores higher; a tie "
    "counts one half. Three ways to compute it, one number."
)
presenting = presentation.on()
CHART_HEIGHT = 360  # presentation mode: the charts' row under the numbers at 720 px
if presenting:
    head_col, preset_col, size_col, seed_col = st.columns(
        [1.3, 2, 2, 1], vertical_alignment="bottom"
    )
    head_col.subheader("AUC lab", anchor=False, help=INTRO)
else:
    st.header("AUC lab")
    st.caption(INTRO)
    preset_col, size_col, seed_col = st.columns([2, 2, 1])
preset = preset_col.selectbox(
    "Example", [CURRENT, *auc_charts.PRESETS], key="auclab_preset",
    help="The current dataset and model, or a classic worked example (Fawcett 2006, the "
    "Mann-Whitney rank formula).",
)  # fmt: skip

if preset == CURRENT:
    y = ds.labels_for(model)
    n_pos = int(y.sum())
    n_neg = int(y.size - n_pos)
    what = "class" if ds.mapping.per_class else "model"
    if n_pos == 0 or n_neg == 0:
        only = ds.positive_name if n_neg == 0 else ds.negative_name
        st.info(
            f"The {what} {md(model)} has only {md(only)} rows here: AUC needs both classes. "
            f"Pick another {what} or dataset in the sidebar, or a worked example above."
        )
        st.stop()
    positive_name, negative_name = ds.positive_name, ds.negative_name
    per_class = int(
        size_col.slider(
            "Pair grid: rows per class", 5, MAX_SAMPLE, 40, key="auclab_sample",
            help="A class with more rows is shown as a seeded random sample of this size.",
        )
    )  # fmt: skip
    seed = int(seed_col.number_input("Sample seed", 0, 10_000, 0, key="auclab_seed"))
    table, counts, roc, library = labs.auc_lab(ds.key, model, ds)
    s_lab = ds.score(model)
    found = labs.auc_conventions(ds.key, model, ds)
    grid = labs.auc_pair_grid(ds.key, model, per_class, seed, ds)
    st.caption(
        f"**{md(model)}** on {md(ds.name)}: {n_pos:,} {md(positive_name)} (P) and {n_neg:,} "
        f"{md(negative_name)} (N)"
        + (" (this class against the rest)." if ds.mapping.per_class else ".")
    )
    if ds.weight is not None:
        weighted = metrics.roc_auc_score(y, ds.score(model), sample_weight=ds.weight)
        st.caption(
            f"This page counts rows; the sample weights are left out (the weighted AUC is "
            f"{decimals(weighted)})."
        )
else:
    p = auc_charts.PRESETS[preset]
    positive_name, negative_name = "positive", "negative"
    table = metrics.auc_rank_table(p.y, p.scores)
    counts = metrics.threshold_counts(p.y, p.scores)
    roc = metrics.roc_curve(p.y, p.scores, drop_intermediate=False)
    library = metrics.roc_auc_score(p.y, p.scores)
    grid = metrics.auc_pair_grid(p.y, p.scores)
    s_lab = p.scores
    found = roc_auc_conventions(p.y, p.scores)
    st.markdown(f"Labels `{list(p.y)}`, scores `{list(p.scores)}`. {p.note}")

pairs = auc_charts.pair_counts(counts)
pair_auc = grid.auc if not grid.sampled else pairs.auc

m1, m2, m3, m4 = st.columns(4)
m1.metric(
    "Pair counting", f"{decimals(pair_auc)}",
    help="(wins + ties/2) / (P·N) over every positive-negative pair"
    + (" (the grid itself, every pair)." if not grid.sampled else " of the whole data."),
)  # fmt: skip
m2.metric(
    "Rank sum", f"{decimals(table.auc)}", help="(R − P(P+1)/2) / (P·N) with tie-averaged ranks."
)
m3.metric(
    "Library roc_auc_score", f"{decimals(library)}", help="metrics.roc_auc_score on the same rows."
)
m4.metric("Pairs P·N", f"{pairs.pairs:,.0f}", help=f"{pairs.n_pos:,} × {pairs.n_neg:,}.")

# --- 1. the pair grid and 3. the ROC staircase -------------------------------------------------

grid_col, roc_col = st.columns([3, 2])
with grid_col:
    grid_figure = auc_charts.pair_grid_figure(
        grid, positive_name=positive_name, negative_name=negative_name
    )
    if presenting:  # the title inside the chart, in place of the subheader
        grid_figure.update_layout(
            height=CHART_HEIGHT, title=dict(text="Every positive against every negative", x=0)
        )
    else:
        st.subheader("Every positive against every negative")
    chart(grid_figure, key="auclab_grid")
    g_pairs = grid.outcome.size
    in_sample = " in the sample" if grid.sampled else ""
    grid_counts = auc_charts.PairCounts(grid.wins, grid.ties, grid.losses, *grid.outcome.shape)
    st.markdown(
        auc_charts.outcomes_text(grid.wins, grid.ties, grid.losses, bold=True)
        + f" of {g_pairs:,} pairs{in_sample}: "
        + auc_charts.pair_count_text(grid_counts)
    )
    if grid.sampled:
        st.caption(
            f"A seeded sample of {grid.outcome.shape[0]} {md(positive_name)} and "
            f"{grid.outcome.shape[1]} {md(negative_name)}: the grid's mean ({decimals(grid.auc)}) "
            "is "
            f"the sample's AUC. On all {pairs.pairs:,.0f} pairs: "
            f"{auc_charts.outcomes_text(pairs.wins, pairs.ties, pairs.losses)}, "
            f"AUC {decimals(grid.full_auc)}."
        )
    else:
        st.caption(
            "Rows and columns are sorted by decreasing score, so wins fill the upper right; "
            "the grid's mean is the AUC."
        )
    explain(
        "pair counting",
        auc_charts.pair_count_latex(pairs),
        note="A win: the positive scores higher than the negative; a tie (equal scores) counts "
        "one half; a loss counts 0. "
        + (
            "Counted over every pair of the data, not only the sample shown."
            if grid.sampled
            else ""
        ),
    )
with roc_col:
    staircase = auc_charts.roc_staircase_figure(*roc, counts, auc=library)
    if presenting:
        staircase.update_layout(height=CHART_HEIGHT, title=dict(text="ROC staircase", x=0))
    else:
        st.subheader("ROC staircase")
    chart(staircase, key="auclab_roc")
    n_diag = auc_charts.diagonal_runs(counts).size
    st.caption(
        "Each up step is a positive, each right step a negative. A diagonal is a score shared by "
        "positives and negatives: each such tied pair counts one half, the triangle under it. "
        + (
            f"{n_diag:,} of {len(counts):,} thresholds are diagonal."
            if n_diag
            else "No score is shared by both classes here, so there is no diagonal."
        )
    )

# --- 2. the rank sum ---------------------------------------------------------------------------

st.subheader("Rank sum")
n_rows = table.score.size
if n_rows <= SMALL:
    view = "all"
else:
    view = st.segmented_control(
        "Rows", ["ends", "ties"], default="ends", key="auclab_rank_view",
        format_func={"ends": "lowest and highest", "ties": "tied positive-negative scores"}.get,
    ) or "ends"  # fmt: skip
shown, note = auc_charts.rank_view(table, view)
table_col, formula_col = st.columns([3, 2])
with table_col:
    if len(shown):
        st.dataframe(
            shown,
            hide_index=True,
            width="stretch",
            height="content" if len(shown) <= 25 else 420,
            column_config={
                "score": st.column_config.NumberColumn(format="%.6g"),
                "rank": st.column_config.NumberColumn(format="%.6g"),
            },
            key="auclab_rank_table",
        )
    if note:
        st.caption(note)
with formula_col:
    st.markdown(
        f"Sort all {n_rows:,} rows by increasing score and number them 1 to {n_rows:,}; tied rows "
        "share the average of their positions. R is the sum of the ranks of the rows labelled "
        f"1 ({md(positive_name)}): "
        f"**R = {auc_charts.plain(table.rank_sum)}**."
    )
    st.markdown(auc_charts.rank_sum_text(table))
    st.caption(
        "P(P+1)/2 is R when every positive sits below every negative, so the numerator counts "
        "how many negatives the positives outrank (a tie counts one half)."
    )
explain(
    "rank sum",
    auc_charts.rank_sum_latex(table),
    note=f"Label 1 = {md(positive_name)}. Ranks count from 1 at the lowest score.",
)

# --- 4. other libraries' conventions -----------------------------------------------------------

st.subheader("Other libraries, other numbers")
st.caption(
    "The same rows under the conventions of libraries people compare against: each value is "
    "the library's own computation, and the pairs it ties say why it differs."
)
st.dataframe(conventions.table(found), hide_index=True, key="auclab_conventions")
for sentence in conventions.reasons(found, s_lab):
    st.markdown(sentence)
st.caption(conventions.SOURCES)

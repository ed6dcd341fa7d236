"""GAUC: the AUC within each user, averaged over users, next to the global AUC."""

from __future__ import annotations

import streamlit as st

from ui.compute import data
from ui.figures import gauc_charts
from ui.frame import presentation, shell
from ui.teaching import gauc_explain
from ui.views import gauc_view as view
from ui.views.explain import explain
from ui.views.show import chart, csv_download
from ui.words import gauc_text as words
from ui.words.numbers import plural
from ui.words.safe import md

ds, model = shell.page_context()
# In presentation mode the first screen holds the weighting, the headline numbers and the
# per-user AUC chart (side by side); the rest follows below.
presenting = presentation.on()
PRESENT_HEIGHT = 430
if presenting:
    head_col, weight_col = st.columns([1, 2.2], vertical_alignment="bottom")
    head_col.subheader("GAUC: per-user AUC", anchor=False)
else:
    st.header("GAUC: per-user AUC")
    weight_col = st.container()

if shell.drawn_by_source(ds, "gauc") or shell.needs(ds, "groups", "GAUC"):
    st.stop()
groups = data.group_state(ds)  # per model: global AUC and the per-user table
group_col, weighted = groups.column, groups.weighted
if not presenting:  # (the projector's first screen has no room for it; the bar names the data)
    st.caption(words.intro(model, ds.name, group_col))

weighting = weight_col.radio(
    "Weight each user by",
    list(gauc_charts.WEIGHTING_LABELS),
    format_func=gauc_charts.WEIGHTING_LABELS.get,
    captions=None if presenting else list(gauc_charts.WEIGHTING_USED_BY.values()),
    horizontal=True,
    key="gauc_weighting",
    help="Every weighting skips the users with one class only: their AUC is undefined.",
)

results = groups.tables
global_auc, table = results[model]
gauc = gauc_charts.gauc_value(table, weighting)
skipped = gauc_charts.skipped_counts(table)
n_users = len(table)
n_counted = int(table.defined.sum())

if presenting:
    cards_col, chart_col = st.columns([1, 3])
    cards = [cards_col.container(key=presentation.CARDS)] * 4
else:
    cards = st.columns(4)
cards[0].metric(
    "Global AUC", words.defined(global_auc), help="AUC over every row, all users pooled."
)
cards[1].metric(
    f"GAUC ({weighting})", words.defined(gauc), help="Σ w_u AUC_u / Σ w_u over the users counted."
)
cards[2].metric("Users counted", f"{n_counted:,} of {n_users:,}")
cards[3].metric("Users skipped", f"{table.n_skipped:,}", help="AUC undefined: one class only.")
if presenting:
    histogram = gauc_charts.auc_histogram_figure(table, weighting, gauc=gauc, global_auc=global_auc)
    histogram.update_layout(height=PRESENT_HEIGHT)
    chart(histogram, key="gauc_histogram", name=f"Per-user AUC of {model}", where=chart_col)
st.caption(words.skipped(skipped, ds.positive_name, ds.negative_name))
if n_counted == 0:
    st.warning(words.NO_USER)
    st.stop()

if len(results) > 1:
    summary = gauc_charts.model_summary_frame(results, weighting)
    st.dataframe(
        summary,
        hide_index=True,
        width="stretch",
        column_config={
            "global AUC": st.column_config.NumberColumn(format="%.4f"),
            "GAUC": st.column_config.NumberColumn(f"GAUC ({weighting})", format="%.4f"),
            "GAUC − AUC": st.column_config.NumberColumn(format="%+.4f"),
        },
        key="gauc_models",
    )
    best_auc = summary.loc[summary["global AUC"].idxmax(), "model"]
    best_gauc = summary.loc[summary["GAUC"].idxmax(), "model"]
    if best_auc != best_gauc:
        st.caption(words.disagree(best_auc, best_gauc))

lines, note = gauc_explain.gauc(table, weighting, gauc, global_auc, weighted)
explain("GAUC", lines, note=note)
# The counted user with the most rows shows the per-user formula with its own numbers.
lines, note = gauc_explain.one_user(table)
explain("per-user AUC", lines, note=note)
lines, note = gauc_explain.example()
explain("GAUC on three small users and one that is skipped", lines, note=note)

st.subheader(f"Per-user AUC of {md(model)}")
if not presenting:  # (presentation mode drew it on the first screen)
    chart(
        gauc_charts.auc_histogram_figure(table, weighting, gauc=gauc, global_auc=global_auc),
        key="gauc_histogram",
    )
st.caption(
    f"{plural(n_counted, 'user')} with both classes, binned by their AUC; "
    f"{plural(table.n_skipped, 'skipped user')} not drawn. Hover a bar for its share of the "
    "GAUC weight."
)

MAX_SHOWN = 20_000
users = gauc_charts.user_frame(table, weighting, group_name=group_col)
st.dataframe(
    gauc_explain.shown_users(users, MAX_SHOWN),
    hide_index=True,
    width="stretch",
    height=320,
    column_config={
        "AUC": st.column_config.TextColumn(
            "AUC", help="'skipped' when the user has one class only (see 'skipped because')."
        ),
        "weight": st.column_config.NumberColumn(f"weight ({weighting})", format="%.6g"),
        "share of weight": st.column_config.NumberColumn("share of weight", format="percent"),
    },
    key="gauc_users",
)
st.caption(
    words.users_caption(n_users, table.n_skipped, MAX_SHOWN if len(users) > MAX_SHOWN else None)
)
csv_download(
    f"Download the per-user table ({plural(n_users, 'user')}, CSV)",
    users,
    f"gauc_{model}.csv",
    key="gauc_download",
)

st.subheader("Why GAUC differs: shift each user's scores")
if not shell.needs(
    ds,
    "rows",
    "Shifting each user's scores",
    say="Shifting each user's scores needs the rows, and a server dataset reaches this page as "
    "the engine's per-user sums. Upload a sample of the table, or open the "
    '"Recommender clicks" sample, to see global AUC move while GAUC stays put.',
):
    view.shift(ds, model, weighting)

st.subheader("Other libraries, other GAUCs")
if not shell.needs(
    ds,
    "rows",
    "Other libraries' GAUC",
    say="Other libraries' GAUC needs the rows (their ties and all-equal users), and a server "
    "dataset reaches this page as the engine's per-user sums. Upload a sample of the table.",
):
    view.other_libraries(ds, model, table.group, weighted)

if len(results) > 1:
    st.subheader("Head to head: every user's AUC under two models")
    view.head_to_head(ds, results, weighting)

"""GAUC: the AUC within each user, averaged over users, next to the global AUC."""

from __future__ import annotations

import numpy as np
import streamlit as st

import metrics
from metrics.conventions import gauc_conventions
from metrics.significance import format_p
from ui.compute import data, uncertainty
from ui.figures import gauc_charts
from ui.frame import presentation, shell
from ui.tables.dataset import Dataset
from ui.views.explain import explain, num
from ui.views.show import chart, csv_download
from ui.words import conventions
from ui.words.numbers import count, decimals, plural
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
    st.caption(
        f"**{md(model)}** on {md(ds.name)}, users = {md(group_col)}. GAUC is the ROC AUC of "
        "each user's own rows, averaged over the users that have both classes. Global AUC also "
        "compares rows of different users; GAUC only within a user."
    )


@st.cache_data(max_entries=16, show_spinner="Shifting scores...")
def _sweep(key: tuple, name: str, mode: str, weighting: str, strengths: tuple, _ds: Dataset):
    s = _ds.score(name)
    offsets = gauc_charts.user_offsets(
        data.group_state(_ds).tables[name][1], _ds.prepared.groups, s, mode
    )
    sweep = gauc_charts.offset_sweep(
        _ds.labels_for(name), s, offsets.codes, offsets.per_row, np.array(strengths),
        weighting=weighting, sample_weight=_ds.weight,
    )  # fmt: skip
    return sweep, offsets.k, offsets.overall_rate


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


def _fmt(x: float) -> str:
    return decimals(x) if np.isfinite(x) else "undefined"


if presenting:
    cards_col, chart_col = st.columns([1, 3])
    cards = [cards_col.container(key=presentation.CARDS)] * 4
else:
    cards = st.columns(4)
cards[0].metric("Global AUC", _fmt(global_auc), help="AUC over every row, all users pooled.")
cards[1].metric(
    f"GAUC ({weighting})", _fmt(gauc), help="Σ w_u AUC_u / Σ w_u over the users counted."
)
cards[2].metric("Users counted", f"{n_counted:,} of {n_users:,}")
cards[3].metric("Users skipped", f"{table.n_skipped:,}", help="AUC undefined: one class only.")
if presenting:
    histogram = gauc_charts.auc_histogram_figure(table, weighting, gauc=gauc, global_auc=global_auc)
    histogram.update_layout(height=PRESENT_HEIGHT)
    chart(histogram, key="gauc_histogram", name=f"Per-user AUC of {model}", where=chart_col)
why = [
    f"{skipped.get('only positives', 0):,} with only positives ({md(ds.positive_name)})",
    f"{skipped.get('only negatives', 0):,} with only negatives ({md(ds.negative_name)})",
]
if skipped.get("zero weight"):
    why.append(f"{skipped['zero weight']:,} whose rows all have weight 0")
st.caption("Skipped users: " + ", ".join(why) + ".")
if n_counted == 0:
    st.warning(
        "No user has both classes, so no per-user AUC is defined. Check the user id column in "
        "the sidebar: each user needs positive and negative rows."
    )
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
        st.caption(
            f"The models disagree: **{md(best_auc)}** has the higher global AUC, "
            f"**{md(best_gauc)}** the higher GAUC: it ranks each user's own items better."
        )

within, every = gauc_charts.pair_counts(table)
weights = table.weights(weighting)
total_weight = float(weights.sum())
weighted_sum = float(np.dot(weights, np.where(table.defined, table.auc, 0.0)))
explain(
    "GAUC",
    [
        r"\text{GAUC} = \frac{\sum_u w_u\,\text{AUC}_u}{\sum_u w_u},\qquad "
        + gauc_charts.WEIGHTING_LATEX[weighting],
        rf"\text{{GAUC}} = \frac{{{num(weighted_sum, 8)}}}{{{num(total_weight, 8)}}} = {num(gauc)}",
    ],
    note=f"Sums over the {plural(n_counted, 'user')} with both classes; the "
    f"{table.n_skipped:,} others "
    f"have no AUC and weight 0. Total weight {count(total_weight)}. Global AUC "
    f"({_fmt(global_auc)}) compares all {count(every)} positive-negative pairs, GAUC only "
    f"the {count(within)} pairs within a user ({within / every:.1%} of them)."
    + (" Rows and positives are sums of sample weights." if weighted else ""),
)
# The counted user with the most rows shows the per-user formula with its own numbers.
big = int(np.argmax(np.where(table.defined, table.rows, -1)))
p, n, a = table.positives[big], table.negatives[big], table.auc[big]
u = a * p * n
if np.issubdtype(np.asarray(p).dtype, np.integer):
    u = round(2 * u) / 2  # unweighted: U counts pairs, ties one half
explain(
    "per-user AUC",
    [
        r"\text{AUC}_u = \frac{\#\{(i, j): s_i > s_j\} + \tfrac12\,\#\{(i, j): s_i = s_j\}}"
        r"{P_u\,N_u},\quad i \text{ a positive of } u,\ j \text{ a negative of } u",
        rf"\text{{AUC}}_u = \frac{{{num(u, 8)}}}{{{num(p, 8)} \cdot {num(n, 8)}}} = {num(a)}",
    ],
    note=f"Shown for u = {md(table.group[big], 40)}, the counted user with the most rows "
    f"({table.rows[big]:,}). The global AUC is the same formula over all rows at once, so it "
    "also counts pairs of rows from different users.",
)

ex_y, ex_s, ex_g = gauc_charts.four_users_example()
ex = metrics.group_auc_table(ex_y, ex_s, ex_g)
ex_gauc = ex.score("impressions")
pairs_c = ex.positives[2] * ex.negatives[2]
auc_c = rf"\tfrac{{{num(ex.auc[2] * pairs_c)}}}{{{num(pairs_c)}}}"  # the rank formula's 10/12
ex_lines = [
    rf"\text{{AUC}}_a = {num(ex.auc[0])},\ \text{{AUC}}_b = {num(ex.auc[1])},\ "
    rf"\text{{AUC}}_c = {auc_c},\ \text{{user }} d\text{{: {ex.reason[3]}, skipped}}",
    rf"\text{{GAUC}} = \frac{{{num(ex.rows[0])} \cdot {num(ex.auc[0])} + {num(ex.rows[1])} "
    rf"\cdot {num(ex.auc[1])} + {num(ex.rows[2])} \cdot {auc_c}}}"
    rf"{{{num(ex.rows[0])} + {num(ex.rows[1])} + {num(ex.rows[2])}}} = {num(ex_gauc)}",
]
explain(
    "GAUC on three small users and one that is skipped",
    ex_lines,
    note="GAUC as recommender papers compute it (impression-weighted, as in the CTR "
    "literature's group AUC): each user's AUC weighted by the user's rows, users with only "
    "clicks or only non-clicks not counted. Users a, b and c are the classic AUC examples "
    f"(0.75 without ties, 0.875 with a tie counted one half, 10/12 by the rank formula); "
    f"GAUC = {decimals(ex_gauc)}.",
)

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
shown = users
if len(users) > MAX_SHOWN:
    shown = users.iloc[np.argsort(-users["rows"].to_numpy(), kind="stable")[:MAX_SHOWN]]
# A skipped user has no AUC: say so in the cell, not "None" (the CSV keeps the number empty).
shown = shown.assign(
    AUC=["skipped" if np.isnan(a) else decimals(a) for a in shown["AUC"].to_numpy(dtype=float)]
)
st.dataframe(
    shown,
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
    f"{plural(n_users, 'user')}, {table.n_skipped:,} skipped (weight 0). Click a column to sort."
    + (f" Showing the {MAX_SHOWN:,} users with the most rows." if len(users) > MAX_SHOWN else "")
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
    with st.container(border=True):
        mode_col, strength_col = st.columns([1, 2])
        mode = mode_col.radio(
            "Offset per user",
            list(gauc_charts.OFFSET_MODES),
            format_func=gauc_charts.OFFSET_MODES.get,
            key="gauc_offset_mode",
        )
        strength = strength_col.slider(
            "Per-user offset strength",
            -2.0,
            2.0,
            1.0,
            step=0.25,
            key="gauc_offset_strength",
            help="Every row of a user gets the same offset: strength × the user's offset.",
        )
    STRENGTHS = (-2.0, -1.5, -1.0, -0.5, 0.0, 0.5, 1.0, 1.5, 2.0)
    sweep, k, overall = _sweep(ds.key, model, mode, weighting, STRENGTHS, ds)
    base = sweep.set_index("strength").loc[0.0]
    if float(strength) in STRENGTHS:
        now = sweep.set_index("strength").loc[float(strength)]
    else:  # between grid points: one more shift, cached on its own so the grid is not redone
        now = _sweep(ds.key, model, mode, weighting, (float(strength),), ds)[0].iloc[0]
    left, right = st.columns(2)
    for col, name in ((left, "global AUC"), (right, "GAUC")):
        delta = now[name] - base[name]
        col.metric(
            f"{'Global AUC' if name == 'global AUC' else f'GAUC ({weighting})'}, shifted",
            _fmt(now[name]),
            delta="unchanged" if delta == 0 else f"{decimals(delta, plus=True)} vs no offset",
            delta_color="off" if delta == 0 else "normal",
            delta_arrow="off" if delta == 0 else "auto",
        )
    st.caption(
        "Adding the same offset to every row of a user keeps that user's order, so each AUC_u "
        "and the GAUC stay exactly the same. Global AUC also compares rows of different users, "
        "so it moves: a model can gain or lose global AUC by scoring whole users higher or lower, "
        "without ranking any user's own items better."
    )
    chart(gauc_charts.offset_sweep_figure(sweep, strength=strength), key="gauc_sweep")
    if mode == "click_rate":
        offset_tex = (
            r"\text{offset}_u = \text{strength} \times (\text{click rate}_u - "
            rf"\overline{{\text{{click rate}}}}) \times k,\quad \overline{{\text{{click rate}}}} = "
            rf"{num(overall)},\ k = \frac{{\text{{sd(scores)}}}}{{\text{{sd(users' click rates)}}}}"
            rf" = {num(k)}"
        )
    else:
        offset_tex = (
            r"\text{offset}_u = \text{strength} \times z_u \times k,\quad z_u \sim N(0, 1)"
            rf"\text{{ (random seed 0)}},\ k = \text{{sd(scores)}} = {num(k)}"
        )
    explain(
        "the offset",
        [offset_tex, r"s'_i = s_i + \text{offset}_{u(i)}"],
        note=f"The click rate is the share of {md(ds.positive_name)} rows. Strength {strength:g}: "
        f"global AUC {_fmt(now['global AUC'])}, GAUC {_fmt(now['GAUC'])}.",
    )


@st.cache_data(max_entries=8, show_spinner="Computing other libraries' GAUC...")
def _conventions(key: tuple, name: str, _ds: Dataset) -> list:
    """GAUC as DIN's paper, RecBole and TorchRec compute it on these rows."""
    y, s = _ds.labels_for(name), _ds.score(name)
    return gauc_conventions(y, s, _ds.prepared.groups, sample_weight=_ds.weight)


st.subheader("Other libraries, other GAUCs")
if not shell.needs(
    ds,
    "rows",
    "Other libraries' GAUC",
    say="Other libraries' GAUC needs the rows (their ties and all-equal users), and a server "
    "dataset reaches this page as the engine's per-user sums. Upload a sample of the table.",
):
    found = _conventions(ds.key, model, ds)
    shown = conventions.gauc_table(found, table.group)
    st.dataframe(shown, hide_index=True, key="gauc_conventions")
    for sentence in conventions.gauc_reasons(
        found, weighted=weighted, nonpositive_scores=int(np.sum(ds.score(model) <= 0))
    ):
        st.markdown(sentence)
    st.caption(conventions.GAUC_SOURCES)

if len(results) > 1:
    st.subheader("Head to head: every user's AUC under two models")
    col_a, col_b = st.columns(2)
    name_a = col_a.selectbox("Model A", list(results), key="gauc_h2h_a")
    name_b = col_b.selectbox("Model B", [m for m in results if m != name_a], key="gauc_h2h_b")
    h2h = gauc_charts.head_to_head(results[name_a][1], results[name_b][1])
    chart(
        gauc_charts.head_to_head_figure(results[name_a][1], results[name_b][1], name_a, name_b),
        key="gauc_head_to_head",
        name=f"per-user-auc-{name_a}-vs-{name_b}",
    )
    st.caption(
        f"Of the {plural(h2h['users'], 'user')} both models can score, {md(name_b)} ranks "
        f"{h2h['B higher']:.1%} better, {h2h['equal']:.1%} the same and {h2h['B lower']:.1%} "
        "worse than "
        f"{md(name_a)}. Above the diagonal {md(name_b)} wins; marker size grows with the user's "
        "rows."
    )
    try:
        boot = uncertainty.gauc_difference(
            ds.key, name_a, name_b, weighting, 1000, (results[name_a][1], results[name_b][1])
        )
    except ValueError as exc:  # a model with no user that has both classes
        st.info(md(f"No interval on the GAUC difference: {exc}", limit=400))
    else:
        d = boot.differences[(0, 1)]
        p = boot.difference_p_value(0, 1)
        real = d.ci_low > 0 or d.ci_high < 0
        st.markdown(
            f"**GAUC ({weighting}) of {md(name_a)} − {md(name_b)}: "
            f"{decimals(d.estimate, plus=True)} [{decimals(d.ci_low, plus=True)}, "
            f"{decimals(d.ci_high, plus=True)}]**, cluster bootstrap "
            + format_p(p, floor=1 / boot.n_resamples)
            + (
                f": {md(name_a if d.estimate > 0 else name_b)} is better."
                if real
                else ": no significant difference."
            )
        )
        st.caption(
            f"95% interval from {boot.n_resamples} resamples of whole users (a cluster "
            "bootstrap): each resample draws every user a Poisson(1) number of times and "
            "averages the per-user AUCs, computed once, with the weights of the users drawn. "
            "Resampling rows instead would treat a user's rows as independent and give too "
            "narrow an interval."
        )

"""Every model against every metric, with paired bootstrap intervals and DeLong tests."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import streamlit as st

from metrics.calibration import calibration_curve
from metrics.flips import flip_table
from metrics.significance import format_p
from metrics_lens import report
from ui.analyses import compare_many, summaries
from ui.compute import compare_compute, data, thresholds, uncertainty
from ui.figures import band_charts, charts
from ui.frame import presentation, shell
from ui.views import compare_multiclass
from ui.views.explain import explain, num
from ui.views.show import chart, csv_download, rows_behind
from ui.words.numbers import decimals
from ui.words.safe import md

ds, model = shell.page_context()
# In presentation mode the title, the models and a settings popover share the first row, and
# the first screen holds the table of every model's numbers and the ROC and PR curves with
# their bands; the sections follow below (the ↓ key goes from one to the next).
head = presentation.PageHead("Compare models")
PRESENT_HEIGHT = 300
if shell.drawn_by_source(ds, "compare"):  # a server dataset: from the engine's sums
    st.stop()
if ds.mapping.per_class:  # whole multi-class / multi-label models; a table's classes never
    compare_multiclass.render(ds)
    st.stop()

# A table of contents of the sections this run draws (the page is long): each section
# heading adds its link as it is drawn, so the list is right even where the page stops early.
# It sticks under the app's header while the page scrolls (about 6,900 px of sections), on an
# opaque band; on a phone it is one line that scrolls sideways. A followed link stops its
# heading below the band (scroll-margin-top), not under it, and so does every other scroll the
# browser makes to a table (focused by the keyboard, scrolled into view): its scroll-margin-top
# keeps its header row below the band.
_toc = st.container(key="compare_toc").empty() if not head.presenting else None
_sections: list[tuple[str, str]] = []
_band = "#0e1117" if st.context.theme.type == "dark" else "#ffffff"  # Streamlit's backgrounds
st.html(
    f"""<style>
    .stMain [data-testid="stLayoutWrapper"]:has(> .st-key-compare_toc) {{
        position: sticky; top: 3.75rem; z-index: 1000; background: {_band};
        padding: 0.35rem 0 0.15rem; border-bottom: 1px solid rgba(128, 128, 128, 0.35);
    }}
    .stMain [data-testid="stHeading"] [id] {{ scroll-margin-top: 9rem !important; }}
    .stMain [data-testid="stDataFrame"] {{ scroll-margin-top: 8rem; }}
    @media (max-width: 768px) {{
        .st-key-compare_toc [data-testid="stCaptionContainer"] p {{
            white-space: nowrap; overflow-x: auto; padding-bottom: 0.3rem;
        }}
        .stMain [data-testid="stHeading"] [id] {{ scroll-margin-top: 7rem !important; }}
        .stMain [data-testid="stDataFrame"] {{ scroll-margin-top: 7rem; }}
    }}
    </style>"""
)


def _section(title: str, anchor: str) -> None:
    st.subheader(title, anchor=anchor)
    _sections.append((title, anchor))
    if _toc is not None:
        _toc.caption("On this page: " + " · ".join(f"[{t}](#{a})" for t, a in _sections))


with head.cell:
    models = shell.model_picker("Models", "compare_models", ds)
if not models:
    st.info("Pick at least one model.")
    st.stop()

n_rows = len(ds.labels_for(models[0]))
# Rows x models up to which the bootstrap runs without asking: sorted once per model, 1000
# resamples of 1e6 rows for two models take about 15 s on two cores (bench/bench_bootstrap.py).
AUTO_LIMIT = 2_000_000
# The settings: a bordered row, or the popover in presentation mode.
left, middle, right = head.settings((2, 1, 2))
n_resamples = left.select_slider(
    "Bootstrap resamples", options=[0, 100, 200, 500, 1000, 2000], value=1000,
    key="compare_resamples",
    help="Paired: every resample draws each row a Poisson(1) number of times (as TFMA "
    "does) and scores every model on the same rows; GAUC resamples whole users. "
    "0 shows the values only.",
)  # fmt: skip
interval = middle.radio(
    "Interval", ["percentile", "BCa"], key="compare_interval", horizontal=True,
    help="BCa (bias-corrected and accelerated) applies to AUC and its differences, whose "
    "jackknife is cheap; the other metrics keep the percentile interval.",
)  # fmt: skip
max_fpr = middle.number_input(
    "Partial AUC up to FPR", min_value=0.0, max_value=1.0, value=0.1, step=0.05,
    key="compare_max_fpr",
    help="Adds the McClish-standardised partial AUC over FPR in [0, this] (0.5 = chance, "
    "1 = perfect), as medicine and fraud teams report it; 0 leaves it out.",
)  # fmt: skip
group_column = ds.mapping.group if ds.prepared.groups is not None else None
independent = group_column is not None and right.toggle(
    "Rows are independent",
    value=False,
    key="compare_rows_independent",
    help=f"Off (the default): rows of one {group_column} are not independent, so every "
    f"interval and test resamples whole {group_column} values (a cluster bootstrap). On: "
    "treat every row as independent, only if you know the column does not group them.",
)  # fmt: skip
clustered = group_column is not None and not independent
wanted = n_resamples > 0 and (
    n_rows * len(models) <= AUTO_LIMIT
    or st.session_state.get("compare_run_bootstrap_for") == (ds.key, models, n_resamples)
)
if n_resamples and not wanted:
    ask = st.container() if head.presenting else right  # (not hidden in the popover)
    ask.write(f"{n_rows:,} rows: {n_resamples} resamples x {len(models)} models take a while.")
    if ask.button("Compute the intervals", key="compare_run"):
        st.session_state["compare_run_bootstrap_for"] = (ds.key, models, n_resamples)
        st.rerun()

probabilities = thresholds.probabilities(ds, models)  # read once: three sections use it
table, pairs, found, helps = uncertainty.model_table(
    ds.key, models, n_resamples if wanted else 0, interval == "BCa", max_fpr or None, ds,
    clustered, probabilities,
)  # fmt: skip
curve_resamples = min(n_resamples, uncertainty.CURVE_RESAMPLES)
fb = uncertainty.curves(ds.key, models, curve_resamples, ds, clustered) if wanted else None
y_all = ds.labels_for(models[0])


def _band_kind(where) -> str:
    return where.radio(
        "Bands", list(uncertainty.BAND_KINDS), format_func=uncertainty.BAND_KINDS.get,
        key="compare_band_kind", horizontal=True, help=uncertainty.BAND_HELP,
    )  # fmt: skip


def _band_name(kind: str) -> str:
    return "95% simultaneous band" if kind == "simultaneous" else "95% band"


def _with_bands(curve: str) -> dict[str, tuple]:
    """Per model: (the curve on all rows, band low, band high)."""
    return uncertainty.curve_bands(fb, curve, y_all, ds.weight, band_kind, models)


def _sized(fig, height: int | None):
    if height is not None:
        fig.update_layout(height=height)
    return fig


def _roc_band_chart(height: int | None = None) -> None:
    fig = band_charts.roc_band_figure(
        fb.roc_grid, _with_bands("roc"), max_fpr or None, _band_name(band_kind)
    )
    chart(_sized(fig, height), key="compare_roc_band", name="roc-bands")


def _pr_band_chart(height: int | None = None) -> None:
    base_rate = float(np.average(y_all, weights=ds.weight))
    fig = band_charts.pr_band_figure(
        fb.pr_grid, _with_bands("pr"), base_rate, _band_name(band_kind)
    )
    chart(_sized(fig, height), key="compare_pr_band", name="pr-bands")


band_kind = "pointwise"
# What a bracket is, in every caption of the page.
resampled = (
    f"cluster bootstrap, whole {group_column} values resampled" if clustered else "paired bootstrap"
)
# "95% paired bootstrap interval", "95% cluster bootstrap interval (whole user values resampled)"
interval_name = (
    f"cluster bootstrap interval (whole {group_column} values resampled)"
    if clustered
    else "paired bootstrap interval"
)
if clustered:
    st.info(
        f"Rows are grouped by **{md(group_column)}** ({np.unique(ds.prepared.groups).size:,} "
        "groups): rows of one group are not independent, so every interval, test, star, band "
        f"and slice below resamples whole {md(group_column)} values (a cluster bootstrap). "
        "DeLong's row-level p-value is shown beside, labelled, never as the verdict."
        + ("" if wanted else " Set resamples above 0: without them nothing can be tested.")
    )
elif independent:
    st.warning(
        f"Every row is treated as independent, though rows carry a **{md(group_column)}** "
        f"({np.unique(ds.prepared.groups).size:,} values): the intervals, tests and stars "
        f"below resample rows. If the rows of one {md(group_column)} move together, they are "
        f"too narrow and the verdicts too sure. Turn 'Rows are independent' off to resample "
        f"whole {md(group_column)} values.",
        icon=":material/warning:",
    )


def _cell(row, name: str) -> str:
    value = row[name]
    text = f"{decimals(value)}"
    if f"{name} low" in row:
        text += f"  [{row[f'{name} low']:.4f}, {row[f'{name} high']:.4f}]"
    return ("★ " if found[name].best == row.name else "") + text


shown = table[["model"]].copy()
for name in helps:
    shown[name] = table.apply(_cell, axis=1, args=(name,))
st.dataframe(
    shown,
    hide_index=True,
    width="stretch",
    column_config={name: st.column_config.TextColumn(name, help=helps[name]) for name in helps},
)
if head.presenting and wanted:  # the first screen: the curves and their bands under the table
    band_kind = _band_kind(head.setting())
    roc_col, pr_col = st.columns(2)
    with roc_col:
        _roc_band_chart(PRESENT_HEIGHT)
    with pr_col:
        _pr_band_chart(PRESENT_HEIGHT)
if len(models) >= 2:
    st.markdown(
        "\n".join(
            f"- **{name}**: "
            + ("★ " if found[name].best is not None else "")
            + md(found[name].verdict, limit=400)
            for name in helps
        )
    )
st.caption(
    "★ marks a model only where it is significantly best: better than each other model by a "
    + (
        f"cluster bootstrap test (whole {md(group_column)} values resampled)"
        if clustered
        else "paired test (DeLong's for AUC, else the paired bootstrap)"
    )
    + ", Holm-corrected across the pairs at 5%. "
    + (f"Brackets: 95% {interval_name}, {n_resamples} resamples." if wanted else "")
    + ("" if wanted or clustered else " With 0 resamples only AUC can be tested.")
)
if wanted:
    explain(
        "the intervals",
        [
            r"\text{CI}_{95\%} = \left[q_{2.5\%},\ q_{97.5\%}\right] \text{ of } "
            rf"\{{\,m(\text{{resample}}_b)\,\}}_{{b=1}}^{{{n_resamples}}}",
            r"p = \min\!\left(1,\ 2\min\big(P^*(d \le 0),\ P^*(d \ge 0)\big)\right),"
            r"\qquad p_{\text{Holm},(i)} = \max_{j \le i} \min\big(1, (m - j + 1)\,p_{(j)}\big)",
        ],
        note=(
            f"Each of the {n_resamples} resamples draws every {md(group_column)} a Poisson(1) "
            "number of times (0, 1, 2, ... with chances 37%, 37%, 18%, ...) and counts each of "
            "its rows that often, then scores every model on the same rows: a cluster "
            "bootstrap, since rows of one group are not independent"
            if clustered
            else f"Each of the {n_resamples} resamples draws every one of the {n_rows:,} rows "
            "a Poisson(1) number of times (0, 1, 2, ... with chances 37%, 37%, 18%, ...), as "
            "TFMA does, and scores every model on the same rows; GAUC draws whole users "
            "instead, since a user's rows are not independent"
        )
        + ". The interval is the middle 95% of the metric's values over the resamples"
        + (
            "; for AUC, BCa shifts and stretches those percentiles by the bias (the share of "
            "resamples below the estimate) and the skew (from leaving each row out once)"
            if interval == "BCa"
            else ""
        )
        + ". The bootstrap p-value of a difference d is the smallest level at which its "
        "percentile interval excludes 0. Holm sorts a metric's m pair p-values and multiplies "
        "the j-th smallest by m − j + 1. Each model is sorted once: a resample is a vector of "
        "counts, and every metric is a sum of counts in that fixed order.",
    )
table_col, report_col = st.columns(2)
with table_col:
    csv_download("Download the table (CSV)", table, "model_comparison.csv", key="compare_download")
if not ds.mapping.per_class and report_col.button(
    "Build the HTML report", key="compare_report", icon=":material/description:",
    help="One self-contained HTML file that opens offline: every model's AUC, AP, partial AUC "
    "and Brier with intervals, ROC and PR with the operating points, the confusion at each "
    "model's current threshold, the AP methods, GAUC when grouped, and the verdicts "
    "(the same report as metrics-lens report).",
):  # fmt: skip
    with st.spinner("Writing the report..."):
        html = report.dataset_report(
            ds, models, uncertainty.cluster_of(ds, clustered),
            {m: float(thresholds.current(ds, m)) for m in models}, n_resamples or 1000,
        )  # fmt: skip
    report_col.download_button(
        "Download the report (HTML)", html, file_name="metrics_lens_report.html",
        mime="text/html", key="compare_report_download", icon=":material/download:",
    )  # fmt: skip


def _p(p: float, test: str, name: str = "p") -> str:
    """A p-value as text; a bootstrap cannot resolve p below one over its resamples."""
    bootstrap = test in (summaries.ROW_TEST, summaries.CLUSTER_TEST)
    return format_p(p, floor=1 / n_resamples if bootstrap and n_resamples else 0, name=name)


def _power_sentence(a: str, b: str) -> None:
    """How large an AUC difference these rows can find (DeLong's paired test)."""
    power_col, text_col = st.columns([1, 4])
    d = power_col.number_input(
        "AUC difference to find", min_value=0.001, max_value=0.5, value=0.02, step=0.005,
        format="%.3f", key="compare_power_d",
        help="A true difference in AUC between the two models; the sentence says how likely "
        "DeLong's test at 5% is to find it with this table's rows.",
    )  # fmt: skip
    y = ds.labels_for(a)
    n_pos = int(np.count_nonzero(y))
    try:
        power, smallest = uncertainty.auc_power(ds.key, a, b, float(d), ds)
    except ValueError as exc:
        text_col.caption(md(f"No power figure: {exc}", limit=300))
        return
    if smallest < 5e-4:  # would print as 0.000: no paired variance to plan with
        text_col.markdown(
            f"{md(a)} and {md(b)} order these rows' positive-negative pairs (almost) the same "
            "way, so the paired difference of their AUCs has (almost) no variance here and any "
            "difference would count as found. That says nothing about two models that rank "
            "rows differently: no power figure from these two."
        )
        return
    text_col.markdown(
        f"With these {n_pos:,} positives and {y.size - n_pos:,} negatives, a difference of "
        f"**{decimals(d, 3)}** in AUC between {md(a)} and {md(b)} is found with power "
        f"**{power:.0%}**; the smallest difference found with 80% power is "
        f"**{decimals(smallest, 3)}**."
    )
    text_col.caption(
        "DeLong's paired test at 5%, in the normal approximation of Obuchowski & McClish "
        "(1997), with the variances and the correlation of the two models measured on these "
        "rows: a planning figure. A verdict of no difference says little when the smallest "
        "difference found with 80% power is larger than one that would matter."
    )


if len(models) >= 2:
    _section("Are the differences real?", "differences")
    st.caption(
        "Every pair of models on every metric: the difference A − B, its 95% interval, the "
        "paired test's p-value and the Holm-adjusted one (corrected across the pairs of that "
        "metric). "
        + (
            f"Every test resamples whole {md(group_column)} values. DeLong's test assumes "
            "independent rows: its p-value is shown only as \"row-level\", for comparison."
            if clustered
            else "DeLong's test compares two AUCs on the same rows, accounting for their "
            "correlation."
            + (" Sample weights are not used by DeLong's test: AUC pairs use the bootstrap."
               if ds.weight is not None else "")
        )
    )  # fmt: skip
    for row in pairs.to_dict("records"):
        tested = not math.isnan(row["p-value"])
        p_text = (
            f" · {_p(row['p-value'], row['test'])}, "
            f"{_p(row['Holm p'], row['test'], 'Holm p')} ({row['test']})"
            if tested
            else ""
        )
        row_level = row.get("row-level p", math.nan)
        if isinstance(row_level, float) and not math.isnan(row_level):
            p_text += f" · row-level DeLong {_p(row_level, 'DeLong')} (ignores {md(group_column)})"
        st.markdown(f"- {md(row['verdict'], limit=300)}{p_text}")
    csv_download("Download the pairs (CSV)", pairs, "model_pairs.csv", key="compare_pairs_download")
    auc_pairs = pairs[(pairs["metric"] == "AUC") & (pairs["test"] == "DeLong")]
    if len(auc_pairs):
        first = auc_pairs.iloc[0]
        _power_sentence(first["model A"], first["model B"])
        delong = data.delong_pairs(ds.key, models, ds).iloc[0]
        explain(
            "DeLong's test",
            [
                r"z = \frac{\text{AUC}_A - \text{AUC}_B}{\text{SE}(\text{AUC}_A - \text{AUC}_B)}"
                rf" = \frac{{{num(delong['AUC A'])} - {num(delong['AUC B'])}}}{{\text{{SE}}}} = "
                rf"{num(delong['z'])}",
                rf"p = 2\,(1 - \Phi(|z|)) = {first['p-value']:.3g},\qquad \text{{95\% CI}} = "
                rf"[{num(delong['95% CI low'])},\ {num(delong['95% CI high'])}]",
            ],
            note=f"For {first['model A']} against {first['model B']}. The standard error comes "
            "from each positive's and each negative's share of the AUC (DeLong's placement "
            "values, computed with one sort as Sun & Xu show), so it accounts for both models "
            "scoring the same rows.",
        )


# --- three or more models: ranks over blocks, Friedman, Nemenyi, McNemar, letters -------------
MIN_SLICE_ROWS = 10  # a slice value with fewer rows is not ranked on


@st.cache_data(max_entries=8, show_spinner="Scoring every block...")
def _group_blocks(
    key: tuple, models: tuple[str, ...], kind: str, column: str, _ds
) -> compare_many.Blocks:
    """Each model's AUC within each user (``kind`` users) or slice value (``kind`` slices)."""
    y = _ds.labels_for(models[0])
    if kind == compare_many.USERS:
        groups = _ds.prepared.groups
    else:
        values = _ds.frame[column].to_numpy()
        if _ds.prepared.kept is not None:
            values = values[_ds.prepared.kept]
        groups = pd.Series(values).astype(str).to_numpy()
    return compare_many.group_blocks(
        y, {m: _ds.score(m) for m in models}, groups, kind=kind, name=str(column),
        weight=_ds.weight, min_rows=MIN_SLICE_ROWS if kind == compare_many.SLICES else 1,
    )  # fmt: skip


def _many_models() -> None:
    """Ranks over blocks, the critical-difference diagram, the pairs under Holm with their
    letters, and McNemar at each model's threshold."""
    choices = []
    if clustered:
        choices.append((compare_many.USERS, group_column))
    sliced_on = ds.slice[0] if ds.slice is not None else None
    choices += [(compare_many.SLICES, c) for c in ds.mapping.slices if c != sliced_on]
    if wanted:
        choices.append((compare_many.RESAMPLES, None))
    _section(f"{len(models)} models at once: ranks, critical difference, McNemar", "many-models")
    if not choices:
        st.info(
            "Ranking the models needs blocks to rank them over: map a user column or a slice "
            "column on the Data page, or set resamples above 0 (a weaker stand-in: resamples "
            "are not independent data sets)."
        )
        return
    names = {
        compare_many.USERS: lambda c: f"users ({c}): each model's AUC per user",
        compare_many.SLICES: lambda c: f"slices of {c}: each model's AUC per value",
        compare_many.RESAMPLES: lambda c: "bootstrap resamples of all rows (descriptive only)",
    }
    # The blocks follow the data: mapping a user column moves the ranking onto users, as the
    # banner above and McNemar's note below say (a kept pick would rank over a slice instead).
    current = st.session_state.get(
        "compare_many_blocks", st.session_state.get("compare_many_blocks_kept")
    )
    st.session_state["compare_many_blocks"] = compare_many.follow_blocks(
        choices, st.session_state.get("compare_many_blocks_options"), current
    )
    st.session_state["compare_many_blocks_options"] = list(choices)
    kind, column = st.selectbox(
        "Rank the models over",
        choices,
        format_func=lambda o: names[o[0]](o[1]),
        key="compare_many_blocks",
        help="Friedman's test ranks the models within each block and asks whether the mean "
        "ranks differ more than chance would make them. Users and slices are separate sets of "
        "rows; resamples of one table share most of their rows, so they are not independent "
        "and the test's p-value over them is descriptive only.",
    )  # fmt: skip
    st.session_state["compare_many_blocks_kept"] = (kind, column)  # outlives the page
    if kind == compare_many.RESAMPLES:
        blocks = compare_many.resample_blocks(
            fb.results["roc_auc"].replicates, models, n_rows
        )  # fmt: skip
        what = f"{blocks.table.shape[0]:,} bootstrap resamples"
    else:
        blocks = _group_blocks(ds.key, models, kind, column, ds)
        what = (
            f"{blocks.table.shape[0]:,} users ({md(column)})"
            if kind == compare_many.USERS
            else f"{blocks.table.shape[0]:,} values of {md(column)}"
        )
    skipped = (
        f" Skipped {blocks.skipped:,}: {md(blocks.skipped_reason, limit=200)}."
        if blocks.skipped
        else ""
    )
    st.caption(
        f"Blocks: **{what}**. In each block every model's AUC is ranked, 1 the highest (ties "
        "share their mean rank)." + skipped
    )
    if kind == compare_many.RESAMPLES:
        st.warning(
            "Resamples are not independent data sets: they redraw the same rows, and the more "
            "resamples, the smaller Friedman's p-value, with nothing new learned. Over "
            "resamples the ranks and the p-value are descriptive only; the pairs below use the "
            "paired tests of the table above. Rank over users or slices (map a user or slice "
            "column on the Data page) for a test over independent blocks."
        )
    if blocks.table.shape[0] < 2:
        st.info(
            f"Only {blocks.table.shape[0]} block with every model's AUC defined: ranking "
            "needs at least 2."
        )
        return
    analysis = compare_many.analyse(blocks)
    fr, idf = analysis.friedman, analysis.iman_davenport
    if kind == compare_many.RESAMPLES:
        auc_pairs = pairs[pairs["metric"] == "AUC"]
        pair_table = compare_many.page_pairs(auc_pairs, models)
        how = (
            "the paired AUC test of the table above ("
            + ", ".join(sorted({md(t) for t in auc_pairs["test"]}))
            + "), Holm-adjusted across these pairs"
        )
    else:
        pair_table = compare_many.rank_pairs(analysis)
        how = "the mean-rank z test on the same blocks, Holm-adjusted across the pairs"
    ranked = compare_many.letters_table(analysis.ranks, pair_table, models)
    st.dataframe(
        ranked,
        hide_index=True,
        width="stretch",
        column_config={
            "letters": st.column_config.TextColumn(
                "letters", help="Models sharing a letter are not significantly different "
                "(Holm, 5%); models with no letter in common are."
            ),
            "mean rank": st.column_config.NumberColumn(format="%.3f"),
            "mean AUC": st.column_config.NumberColumn(format="%.4f"),
            "median AUC": st.column_config.NumberColumn(format="%.4f"),
            "blocks best (ties shared)": st.column_config.NumberColumn(format="%.1f"),
        },
    )  # fmt: skip
    descriptive = " (descriptive only: resamples)" if kind == compare_many.RESAMPLES else ""
    st.markdown(
        f"Friedman's χ² = **{decimals(fr.statistic, 3)}**, {format_p(fr.p_value)}{descriptive}; "
        f"Iman-Davenport's F = **{decimals(idf.statistic, 3)}** on ({idf.df_numerator}, "
        f"{idf.df_denominator}) degrees of freedom, {format_p(idf.p_value)}. Nemenyi's "
        f"critical difference at 5%: **{decimals(fr.critical_difference, 3)}** in mean rank "
        f"({fr.n_models} models, {fr.n_blocks:,} blocks)."
    )
    chart(compare_many.cd_figure(analysis), key="compare_many_cd", name="critical-difference")
    st.caption(
        "Critical-difference diagram (Demšar 2006): each model hangs from its mean rank, the "
        "best (rank 1) on the left. A thick bar joins models whose mean ranks differ by no "
        "more than Nemenyi's critical difference (the bar marked CD, to scale): the blocks "
        "cannot tell them apart. Letters in the table come from the pairs below (Holm), so "
        "they can differ from the bars."
    )
    explain(
        "Friedman's test and Iman-Davenport's F",
        compare_many.friedman_lines(analysis),
        note=f"N = {fr.n_blocks:,} blocks, k = {fr.n_models} models, R_j the mean rank of "
        "model j; C = 1 − Σ(t³ − t) / (N k (k² − 1)) corrects for ties (t: the size of each "
        "group of tied AUCs in a block). Iman & Davenport's F is less conservative than the "
        "chi-square (Demšar 2006, Section 3.2.2). Sources: Friedman (1937); Iman & Davenport "
        "(1980); Demšar, JMLR 7 (2006) 1–30.",
    )  # fmt: skip
    explain(
        "Nemenyi's critical difference",
        compare_many.nemenyi_lines(analysis),
        note="q_α is the studentized range quantile for k means with infinite degrees of "
        "freedom, over √2 (Demšar 2006, Table 5: 2.343 for 3 models at 5%). Two models whose "
        "mean ranks differ by more than CD differ at 5%, all pairs at once. Source: Nemenyi "
        "(1963), as Demšar, JMLR 7 (2006) 1–30, presents it.",
    )  # fmt: skip

    st.markdown("**Pairs under Holm**")
    pair_cols = [c for c in pair_table.columns if c not in ("mean rank A", "mean rank B")]
    st.dataframe(
        pair_table[pair_cols],
        hide_index=True,
        width="stretch",
        column_config={
            c: st.column_config.NumberColumn(format="%.4g")
            for c in ("z", "AUC A − AUC B", "p-value", "Holm p")
        },
    )
    st.caption(
        f"Each pair by {how}. "
        + (
            "Over resamples a rank test would count every resample as new data, so the pairs "
            "are the page's own paired tests of the AUC difference on all rows."
            if kind == compare_many.RESAMPLES
            else "The z test uses the same ranks as Friedman's test and the diagram "
            "(Demšar 2006, Section 3.2.2, for all pairs as García & Herrera 2008); Holm's "
            "step-down keeps the chance of any false 'different' at 5%, and usually finds more "
            "differences than Nemenyi's critical difference (García & Herrera 2008)."
        )
        + " Letters: Piepho's (2004) insert-absorb algorithm; two models share a letter "
        "exactly when their pair is not significant."
    )
    explain(
        "the pairs and Holm's adjustment",
        compare_many.rank_pair_lines(analysis, pair_table)
        if kind != compare_many.RESAMPLES
        else compare_many.holm_lines(pair_table),
        note="Holm (1979): sort the m p-values, multiply the j-th smallest by m − j + 1, and "
        "carry the largest so far forward, so adjusted values never decrease. "
        + (
            "The p-values are those of the pairs under 'Are the differences real?'."
            if kind == compare_many.RESAMPLES
            else "Φ is the standard normal distribution function."
        ),
    )  # fmt: skip

    st.markdown("**McNemar at each pair's operating points**")
    chosen = {m: float(thresholds.current(ds, m)) for m in models}
    mcnemar = compare_many.mcnemar_pairs(ds.labels_for(models[0]), {m: ds.score(m) for m in models},
                                         chosen)  # fmt: skip
    # Grouped rows: McNemar's p-values are row-level and too small, so the table gives no
    # verdict ("better", "different at 5%") and names its p-values for what they are.
    row_level = {"p-value": "row-level p", "Holm p": "row-level Holm p"}
    mcnemar_shown = (
        mcnemar.drop(columns=["better", "different at 5%"]).rename(columns=row_level)
        if group_column is not None
        else mcnemar
    )
    st.dataframe(
        mcnemar_shown,
        hide_index=True,
        width="stretch",
        column_config={
            c: st.column_config.NumberColumn(format="%.4g")
            for c in ("threshold A", "threshold B", "statistic", "p-value", "Holm p",
                      *row_level.values())
        },
    )  # fmt: skip
    st.caption(
        "Each model at its current threshold (a score at or above it is a positive call); "
        "only the rows where exactly one model is right count: 'only A right' (b) and 'only "
        f"B right' (c). Exact binomial test below {compare_many.EXACT_BELOW} such rows, else "
        "the chi-square with continuity correction; Holm across the pairs. McNemar treats "
        "every row as independent"
        + (" and ignores the sample weights" if ds.weight is not None else "")
        + "."
    )
    if group_column is not None:
        st.warning(
            f"Rows of one {md(group_column)} are not independent, and McNemar's test counts "
            "them as if they were: its p-values here are too small. Judge the models by the "
            + (
                "user-level ranks above."
                if kind == compare_many.USERS
                else f"ranks over users ({md(group_column)}) above (pick them in 'Rank the "
                "models over')."
                if clustered
                else f"ranks over users: turn 'Rows are independent' off to rank over "
                f"{md(group_column)}."
            )
        )
    explain(
        "McNemar's test",
        compare_many.mcnemar_lines(mcnemar.iloc[0].to_dict()),
        note=f"For {mcnemar.iloc[0]['model A']} against {mcnemar.iloc[0]['model B']}. Under "
        "the hypothesis that both models make as many errors, each row where exactly one is "
        "right is a fair coin. Source: McNemar, Psychometrika 12 (1947) 153–157.",
    )  # fmt: skip
    csv_download(
        "Download the ranks and pairs (CSV)",
        pd.concat([ranked.assign(table="ranks"), pair_table.assign(table="pairs"),
                   mcnemar_shown.assign(table="McNemar")], ignore_index=True),
        "many_models.csv", key="compare_many_download",
    )  # fmt: skip
    st.caption(
        "Sources: J. Demšar, JMLR 7 (2006) 1–30; R. L. Iman & J. M. Davenport (1980); S. "
        "García & F. Herrera, JMLR 9 (2008) 2677–2694; S. Holm, Scand. J. Statist. 6 (1979) "
        "65–70; Q. McNemar, Psychometrika 12 (1947) 153–157; H.-P. Piepho, J. Comput. Graph. "
        "Statist. 13 (2004) 456–466."
    )


if len(models) >= 3 and not ds.mapping.per_class:
    _many_models()

same_labels = not ds.mapping.per_class
if same_labels:
    _section("At the operating point", "operating-point")
    kind_col, target_col = st.columns([2, 1])
    constraint = kind_col.segmented_control(
        "Constraint",
        ["recall ≥", "precision ≥", "FPR ≤", "top %"],
        default="recall ≥",
        key="compare_op_kind",
    ) or "recall ≥"  # fmt: skip
    target = target_col.number_input(
        "Target",
        min_value=0.0,
        max_value=100.0 if constraint == "top %" else 1.0,
        value=5.0 if constraint == "top %" else (0.01 if constraint == "FPR ≤" else 0.9),
        key=f"compare_op_target_{constraint}",
    )
    points = data.operating_points(ds.key, models, constraint, float(target), ds)
    op_table = points
    if wanted and len(points):
        op_resamples = min(n_resamples, uncertainty.OPERATING_RESAMPLES)
        spread = uncertainty.operating_intervals(
            ds.key, models, tuple(points["threshold"].astype(float)), op_resamples, ds, clustered
        )
        if len(spread):
            op_table = points[["model", "threshold", "rows flagged"]].merge(
                spread.drop(columns="threshold"), on="model", how="left"
            )
            for rate in ("precision", "recall", "F1", "FPR"):
                op_table[rate] = [
                    f"{decimals(v)}  [{decimals(lo)}, {decimals(hi)}]"
                    if np.isfinite(v)
                    else "undefined"
                    for v, lo, hi in op_table[[rate, f"{rate} low", f"{rate} high"]].itertuples(
                        index=False
                    )
                ]
            op_table = op_table[["model", "threshold", "precision", "recall", "F1", "FPR",
                                 "rows flagged"]]  # fmt: skip
    st.dataframe(
        op_table,
        hide_index=True,
        width="stretch",
        column_config={
            c: st.column_config.NumberColumn(format="%.4f")
            for c in ("threshold", "precision", "recall", "FPR")
            if c in op_table and op_table[c].dtype.kind == "f"
        },
    )
    st.caption(
        "Each model at the threshold that meets the constraint best: the highest precision with "
        "recall at least the target, the highest recall with precision at least the target, "
        "the highest TPR with FPR at most the target, or the top share of rows (ties at the cut "
        "come in together). Searched over every distinct score. "
        + (
            f"Brackets: 95% {interval_name} over {op_resamples} resamples, at that threshold "
            "held fixed (how the rates would vary on new rows scored the same way; the "
            'threshold\'s own variation is shown under "How sure are the curves?").'
            if wanted
            else "Set resamples above 0 for intervals."
        )
    )
    csv_download("Download the operating points (CSV)", op_table, "operating_points.csv",
                 key="compare_op_download")  # fmt: skip

    if wanted:
        _section("How sure are the curves?", "curve-bands")
        if not head.presenting:  # (else in the settings popover)
            band_kind = _band_kind(st)
        band_name = _band_name(band_kind)
        st.caption(uncertainty.band_words(band_kind) + ".")
        if head.presenting:  # ROC and PR are on the first screen
            rate_tab, stable_tab = st.tabs(["Rates vs threshold", "Threshold stability"])
        else:
            roc_tab, pr_tab, rate_tab, stable_tab = st.tabs(
                ["ROC", "Precision-recall", "Rates vs threshold", "Threshold stability"]
            )
            with roc_tab:
                _roc_band_chart()
                st.caption(
                    f"Shaded: the {band_name} of the ROC curve from {curve_resamples} "
                    f"resampled curves ({resampled}), TPR at each FPR (vertical averaging). "
                    "Where two bands overlap at an FPR, the data cannot tell those models apart "
                    "there."
                )
            with pr_tab:
                _pr_band_chart()
                st.caption(
                    "Precision where each resample's recall first reaches the value on the x "
                    f"axis, its {band_name} shaded. Precision at low recall rests on few rows "
                    "and spreads widely."
                )
        with rate_tab:
            band_model = st.selectbox("Model", models, key="compare_band_model")
            k = models.index(band_model)
            grid_k, rate_curves = uncertainty.rate_bands(fb, k, band_kind)
            chart(
                band_charts.threshold_band_figure(
                    grid_k, rate_curves, thresholds.current(ds, band_model), band_name
                ),
                key="compare_rate_band",
                name="rates-vs-threshold-bands",
            )
            st.caption(
                f"Each rate at {len(grid_k)} thresholds spread over the score "
                f"quantiles, with its {band_name} over the resamples (each rate's own); the "
                "dashed line is the model's current threshold."
            )
        with stable_tab:
            rule = st.radio("Rule", ["max F1", "Youden"], horizontal=True, key="compare_rule",
                            help="max F1: the threshold with the highest F1. Youden: the highest "
                            "TPR − FPR.")  # fmt: skip
            picked = {m: fb.chosen_thresholds[rule][:, k] for k, m in enumerate(models)}
            on_all = {m: float(fb.original.chosen[rule][0, k]) for k, m in enumerate(models)}
            chart(
                band_charts.threshold_stability_figure(picked, on_all, rule),
                key="compare_stability",
                name="threshold-stability",
            )
            stability = pd.DataFrame(
                [
                    {
                        "model": m,
                        "on all rows": on_all[m],
                        "resamples: 2.5%": np.nanquantile(v, 0.025),
                        "median": np.nanquantile(v, 0.5),
                        "97.5%": np.nanquantile(v, 0.975),
                        "share within ±10% of it": float(
                            np.mean(np.abs(v - on_all[m]) <= 0.1 * abs(on_all[m]))
                        ),
                    }
                    for m, v in picked.items()
                ]
            )
            st.dataframe(stability, hide_index=True, width="stretch")
            st.caption(
                f"The threshold {rule} picks on each of {curve_resamples} resamples (bars) and "
                "on all rows (line). A wide spread means the picked threshold owes much to "
                "these particular rows: expect it to move on new data."
            )

    _section("Gains, lift and KS", "gains")
    gains = {m: compare_compute.gains(ds.key, m, ds) for m in models}
    prevalence_all = float(np.average(y_all, weights=ds.weight))
    gains_col, ks_col = st.columns([3, 2])
    with gains_col:
        gains_tab, ks_tab = st.tabs(["Cumulative gains", "KS"])
        with gains_tab:
            chart(
                charts.gains_figure({m: g[:2] for m, g in gains.items()}, prevalence_all),
                key="compare_gains",
                name="cumulative-gains",
            )
        with ks_tab:
            ks_curves = {m: compare_compute.ks(ds.key, m, ds) for m in models}
            chart(charts.ks_figure(ks_curves), key="compare_ks", name="ks")
    with ks_col:
        ks_rows = []
        for m in models:
            _, _, statistic, at = ks_curves[m]
            ks_rows.append({"model": m, "KS": statistic, "at threshold": at})
        ks_table = pd.DataFrame(ks_rows)
        ks_table["KS"] = [f"{decimals(v)}" for v in ks_table["KS"]]
        if wanted:
            ks_table["KS"] = [
                f"{decimals(iv.estimate)}  [{decimals(iv.ci_low)}, {decimals(iv.ci_high)}]"
                for iv in fb.results["ks"].models
            ]
        st.dataframe(
            ks_table,
            hide_index=True,
            width="stretch",
            column_config={
                "at threshold": st.column_config.NumberColumn(format="%.4g"),
            },
        )
        st.caption(
            "KS: the largest gap between the positives' and the negatives' score distributions "
            "(max |TPR − FPR|), and the score where it is reached"
            + (f"; its interval over {curve_resamples} resamples." if wanted else ".")
        )
        lift_model = st.selectbox("Lift table of", models, key="compare_lift_model")
        lift = compare_compute.lift(ds.key, lift_model, 10, ds)
        st.dataframe(
            lift,
            hide_index=True,
            width="stretch",
            column_config={
                c: st.column_config.NumberColumn(format="%.3f")
                for c in ("precision", "recall", "lift", "cumulative lift")
            },
        )
        csv_download("Download the lift table (CSV)", lift, f"lift_{lift_model}.csv",
                     key="compare_lift_download")  # fmt: skip
    _section("Cost and benefit", "cost")
    cost_cols = st.columns(4)
    cost_fp = cost_cols[0].number_input("Cost of a FP", 0.0, value=1.0, key="compare_cost_fp")
    cost_fn = cost_cols[1].number_input("Cost of a FN", 0.0, value=5.0, key="compare_cost_fn")
    gain_tp = cost_cols[2].number_input("Benefit of a TP", 0.0, value=0.0, key="compare_gain_tp")
    gain_tn = cost_cols[3].number_input("Benefit of a TN", 0.0, value=0.0, key="compare_gain_tn")
    costs = {
        m: compare_compute.costs(ds.key, m, cost_fp, cost_fn, gain_tp, gain_tn, ds) for m in models
    }
    chart(
        charts.cost_figure({m: (c.thresholds, c.cost, c.best) for m, c in costs.items()}),
        key="compare_cost",
        name="cost-vs-threshold",
    )
    st.caption(
        "Total cost = cost_FP·FP + cost_FN·FN − benefit_TP·TP − benefit_TN·TN at every distinct "
        "threshold; dots mark each model's least cost: "
        + "; ".join(
            f"{md(m)} {c.cost[c.best]:,.4g} at {thresholds.label(ds, m, c.best_threshold)}"
            for m, c in costs.items()
        )
        + "."
    )
    if probabilities:
        _section("Decision curve", "decision-curve")
        grid = uncertainty.DECISION_GRID
        nets = {}
        for m in models:
            nets[m], treat_all = compare_compute.net_benefit(ds.key, m, ds)
        bands = uncertainty.decision_bands(fb, models) if wanted else None
        chart(
            charts.decision_curve_figure(grid, nets, treat_all, bands),
            key="compare_decision_curve",
            name="decision-curve",
        )
        st.caption(
            "Net benefit = TP/n − FP/n · t/(1 − t) at threshold probability t (Vickers & Elkin): "
            "the true positives gained, less the false positives weighed by the odds at which "
            "a positive call is worth it. A model is useful where it is above both treat-all "
            "and treat-none."
            + (
                f" Shaded: 95% band over {curve_resamples} resamples ({resampled})."
                if wanted
                else ""
            )
        )

if len(models) >= 2 and not ds.mapping.per_class:
    _section("Where do the models disagree?", "disagreements")
    a_col, b_col = st.columns(2)
    model_a = a_col.selectbox("Model A", models, key="compare_flip_a")
    model_b = b_col.selectbox("Model B", [m for m in models if m != model_a], key="compare_flip_b")
    t_a, t_b = thresholds.current(ds, model_a), thresholds.current(ds, model_b)
    y_ab, s_a, s_b = ds.labels_for(model_a), ds.score(model_a), ds.score(model_b)
    flips = flip_table(y_ab, s_a, t_a, s_b, t_b, sample_weight=ds.weight)
    st.caption(
        f"Each model at its own threshold ({md(model_a)} ≥ {thresholds.label(ds, model_a, t_a)}, "
        f"{md(model_b)} ≥ {thresholds.label(ds, model_b, t_b)}). Cells: rows (of them "
        f"{md(ds.positive_name)} / {md(ds.negative_name)})."
    )
    cells = pd.DataFrame(
        [
            [
                f"{flips.agreement[a, b]:,.0f} ({flips.counts[1, a, b]:,.0f} / "
                f"{flips.counts[0, a, b]:,.0f})"
                for b in (1, 0)
            ]
            for a in (1, 0)
        ],
        index=[f"{model_a} predicts positive", f"{model_a} predicts negative"],
        columns=[f"{model_b} positive", f"{model_b} negative"],
    )
    table_col, rates_col = st.columns([3, 2])
    table_col.dataframe(cells, width="stretch")
    rates_col.markdown(
        f"- flip rate (predictions differ): **{flips.flip_rate:.2%}**\n"
        f"- positive → negative: {flips.pos_to_neg_flip_rate:.2%}; negative → positive: "
        f"{flips.neg_to_pos_flip_rate:.2%}\n"
        f"- {md(model_b)} fixes {flips.b_fixes:,.0f} of {md(model_a)}'s errors and makes "
        f"{flips.b_breaks:,.0f} new ones"
    )
    choices = {
        "every row they disagree on": (s_a >= t_a) != (s_b >= t_b),
        f"{model_b} fixes {model_a}'s error": ((s_a >= t_a) != y_ab) & ((s_b >= t_b) == y_ab),
        f"{model_b} breaks what {model_a} got right": ((s_a >= t_a) == y_ab)
        & ((s_b >= t_b) != y_ab),
    }
    pick = st.selectbox("Rows behind", list(choices), key="compare_flip_rows")
    rows_behind(ds.frame, ds.positions(choices[pick]), pick, key="compare_flip_rows")

if ds.mapping.slices and ds.slice is None and not ds.mapping.per_class:
    _section("Slices: where is each model weak?", "slices")
    size_col, cross_col, note_col = st.columns([1, 2, 3])
    min_size = int(
        size_col.number_input("Smallest slice", 1, value=30, step=10, key="compare_min_slice")
    )
    pairs_of_columns = [
        (a, b) for i, a in enumerate(ds.mapping.slices) for b in ds.mapping.slices[i + 1 :]
    ]
    cross = cross_col.selectbox(
        "Cross two columns",
        [None, *pairs_of_columns],
        format_func=lambda p: "no" if p is None else f"{p[0]} × {p[1]}",
        key="compare_cross",
        disabled=not pairs_of_columns,
        help="Adds every pair of values of the two columns as a slice (map two slice columns "
        "on the Data page to cross them).",
    )
    note_col.caption(
        "Every category of the slice columns with at least that many rows, worst first (by the "
        "lowest AUC − AUC on all rows across the models); "
        + (
            f"AUC and AP with a cluster bootstrap interval (whole {md(group_column)} values "
            "resampled within the slice, 200 resamples)."
            if clustered
            else "AUC with DeLong's 95% interval, AP with a paired bootstrap interval "
            "(200 resamples)."
        )
        + " Scope every page to a slice with the control under the table (or a row's checkbox)."
    )
    slices = data.slice_table(ds.key, models, min_size, ds, cross, clustered)
    shown_slices = slices.drop(columns=["column", "value"])
    picked = st.dataframe(
        shown_slices,
        hide_index=True,
        width="stretch",
        on_select="rerun",
        selection_mode="single-row",
        key="compare_slices",
        column_config={
            c: st.column_config.NumberColumn(format="%.4f")
            for c in shown_slices.columns
            if c not in ("slice", "rows", "positives")
        },
    )
    rows_picked = picked.selection.rows if picked else []
    if rows_picked and rows_picked[0] > 0:  # row 0 is "all rows"
        chosen = slices.iloc[rows_picked[0]]
        shell.choose_slice(chosen["column"], chosen["value"])
        del st.session_state["compare_slices"]  # a later reset must not pick it again
        st.rerun()
    # The same, as a visible control: a row's checkbox is easy to miss.
    scope = st.container(horizontal=True, vertical_alignment="bottom")
    labels = slices["slice"].tolist()[1:]
    target = scope.selectbox(
        "Show every page on one slice",
        range(1, len(slices)),
        index=None,
        format_func=lambda i: labels[i - 1],
        placeholder="pick a slice",
        key="compare_scope_pick",
        disabled=len(slices) < 2,
    )
    if scope.button(
        "Scope every page",
        key="compare_scope_button",
        icon=":material/filter_alt:",
        disabled=target is None,
    ):
        chosen = slices.iloc[target]
        shell.choose_slice(chosen["column"], chosen["value"])
        st.rerun()
    csv_download("Download the slices (CSV)", slices, "slices.csv", key="compare_slices_download")

_section("Score distributions by class", "distributions")
y = ds.labels_for(models[0])
scores = {m: ds.score(m) for m in models}
per_row = min(len(models), 3)
for start in range(0, len(models), per_row):
    for col, m in zip(st.columns(per_row), models[start : start + per_row], strict=False):
        with col:
            chart(
                charts.class_histogram_figure(
                    m,
                    *compare_compute.class_histogram(ds.key, m, 40, ds),
                    positive_name=ds.positive_name,
                    negative_name=ds.negative_name,
                    threshold=thresholds.current(ds, m),
                ),
                key=f"compare_histogram_{m}",
                name=f"score-histogram-{m}",
            )
st.caption("The dashed line is each model's threshold.")

if probabilities:
    _section("Calibration", "calibration")
    chart_col, text_col = st.columns([3, 2])
    with text_col:
        bins = st.slider("Bins", 5, 30, 10, key="compare_bins")
        strategy = st.radio(
            "Bin edges", ["uniform", "quantile"], horizontal=True, key="compare_bin_strategy",
            help="Uniform: equal-width bins of predicted probability. Quantile: bins with equal "
            "numbers of rows, which keeps sparse regions from showing noise.",
        )  # fmt: skip
        st.caption(
            "Points on the diagonal are calibrated: of the rows predicted about 0.3, about 30% "
            "are positive. Above the diagonal the model under-predicts (more positives than it "
            "says), below it over-predicts. Marker size grows with the rows in the bin."
        )
    curves = {
        m: calibration_curve(y, s, n_bins=bins, strategy=strategy, sample_weight=ds.weight)
        for m, s in scores.items()
    }
    chart(
        charts.reliability_figure(curves),
        key="compare_reliability",
        name="reliability-diagram",
        where=chart_col,
    )
else:
    st.caption(
        "Scores outside [0, 1] are not probabilities: no calibration diagram or Brier score."
    )

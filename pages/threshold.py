"""Move a decision threshold and watch the confusion matrix and every rate change.

Laid out for a projector: at 1280x720 the slider, the confusion matrix and the operating point
on the ROC and PR curves are on screen together; the rates, presets and tables follow below. In
presentation mode (larger text) the four charts share one row under the controls, sized so that
all of them fit a 1280x720 screen.
"""

from __future__ import annotations

import functools

import streamlit as st

from ui.analyses.threshold_presets import beta_problem, prevalence_problem, top_threshold
from ui.compute import data, thresholds
from ui.frame import presentation, shell
from ui.tables import score_state
from ui.views import threshold_view as view
from ui.views.explain import explain
from ui.views.show import chart, csv_download
from ui.words import threshold_text as words
from ui.words.safe import md

# At 1280x720 outside presentation mode the slider, the strip, the matrix and the curves fit
# the first screen only with less of Streamlit's 6rem over the page.
COMPACT_TOP = '<style>[data-testid="stMain"] .stMainBlockContainer { padding-top: 4rem; }</style>'

ds, model = shell.page_context()
counts = data.threshold_counts(ds.key, model, ds)  # one sort per (data, model), cached
low, high, step = thresholds.slider_range(ds, model)
scale = thresholds.scale(ds, model)
default_value, default_rule = thresholds.default(ds, model)
presenting = presentation.on()

if not presenting:  # a laptop on a projector: the page starts just under the header bar
    st.html(COMPACT_TOP)
rule = words.rule(ds.positive_name, scale.title)
# The rule in the title's help, in both modes: the flagged count below says it with numbers,
# and at 1280x720 the strip, the matrix and the curves need the line.
st.subheader(f"Threshold · {md(model)}", anchor=False, help=rule)
if counts.thresholds[0] == counts.thresholds[-1]:
    st.warning(
        f"Every score of {md(model)} is {counts.thresholds[0]:g}: a threshold can only predict "
        "all rows positive or all negative."
    )

state = data.state(ds, model)
if score_state.below_chance(state.auc, counts.n_pos, counts.n_neg, weighted=state.weighted):
    st.warning(
        score_state.inverted_hint(
            md(model), state.auc, md(ds.positive_name), md(ds.negative_name),
            md(ds.relabel) or None,
        ),
        icon=":material/swap_vert:",
    )  # fmt: skip

# "What if the classes came in another balance?": the prevalence control (beside the flagged
# count below) reweights the counts, so every number, chart and preset below follows it. A new
# table or model starts from the data's own balance.
rows_counts = counts  # the rows as they are: the class strip draws these
data_prevalence = float(counts.n_pos / (counts.n_pos + counts.n_neg)) if len(counts) else 0.0
can_reweight = bool(counts.n_pos > 0 and counts.n_neg > 0)
if st.session_state.get("threshold_prevalence_for") != (ds.key, model):
    st.session_state["threshold_prevalence_for"] = (ds.key, model)
    st.session_state.pop("threshold_prevalence", None)
prevalence = st.session_state.get("threshold_prevalence") if can_reweight else None
# The box keeps to its range, but a plan, a link or a client can send anything: refused in a
# sentence, the box emptied, the data's own balance shown (never a traceback).
if refused := prevalence_problem(prevalence):
    st.session_state.pop("threshold_prevalence", None)
    st.warning(refused, icon=":material/warning:")
    prevalence = None
if prevalence is not None:
    counts = counts.at_prevalence(float(prevalence))

n_total = float(counts.n_pos + counts.n_neg)
# Weighted counts are sums of weights: the page says "weight", never "rows", for them.
weighted = state.weighted or prevalence is not None
setting = view.Setting(
    ds, model, low, high, step, weighted, prevalence, data_prevalence, presenting
)
amount = functools.partial(words.amount, weighted=weighted)

if presenting:  # the matrix's control joins the row: the four charts below share theirs
    mode_col, slider_col, reset_col, normalize_col = st.columns(
        [2.35, 3.35, 1, 3.3], vertical_alignment="bottom"
    )
else:  # the prevalence control sits beside the flagged count, as on a projector
    mode_col, slider_col, reset_col = st.columns([2.3, 4.2, 1], vertical_alignment="bottom")
    normalize_col = None
if weighted and st.session_state.get("threshold_mode") == "top k":  # no "k rows" of weight
    st.session_state["threshold_mode"] = "top %"
with mode_col:
    mode = st.segmented_control(
        "Set it by",
        ["score", "top %"] if weighted else ["score", "top k", "top %"],
        default="score",
        key="threshold_mode",
        help=words.mode_help(weighted),
    )
with slider_col:
    if mode in ("top k", "top %"):
        if mode == "top k":
            wanted = st.slider(
                "Flag the top k rows", 1, int(n_total), min(100, int(n_total)), key="threshold_k"
            )
        else:
            pct = st.slider(
                "Flag the top percent of the weight" if weighted else "Flag the top percent",
                0.1, 100.0, 10.0, step=0.1, key="threshold_pct",
            )  # fmt: skip
            wanted = pct / 100 * n_total
        thresholds.set_clamped(model, low, high, top_threshold(counts, wanted))
    else:
        # The shared value lives in ui.compute.thresholds (presets and other pages set it); the
        # slider has its own key, set from it on every run and written back when moved.
        st.session_state["threshold_slider"] = min(max(thresholds.current(ds, model), low), high)
        st.slider(
            "Threshold",
            min_value=low,
            max_value=high,
            step=step,
            format="%.3f" if scale.kind == "probability" else "%.4g",
            key="threshold_slider",
            on_change=thresholds.set_clamped,
            args=(model, low, high, None, "threshold_slider"),
            help=f"Default {default_value:.4g}: {default_rule}. Past the highest score nothing "
            "is predicted positive.",
        )
with reset_col:
    st.button(
        "Default",
        key="threshold_reset",
        on_click=thresholds.reset,
        args=(model,),
        help=f"Back to {default_value:.4g} ({default_rule}).",
        width="stretch",
    )

threshold = min(max(thresholds.current(ds, model), low), high)
shown_threshold = thresholds.label(ds, model, threshold)  # digits that keep the count true
c = counts.at(threshold)  # a lookup in the precomputed counts, never a recount
beta = st.session_state.get("threshold_beta", 1.0)
if refused := beta_problem(beta):  # a plan's or a client's value: said, and back to 1
    st.session_state.pop("threshold_beta", None)
    st.warning(refused, icon=":material/warning:")
    beta = 1.0
beta = float(beta)
view.flagged(setting, c, shown_threshold, n_total, can_reweight)
strip = (not state.weighted, 12 * presentation.SCALE if presenting else 12)  # whole rows, font
figures, rates_col = view.charts(
    setting, counts, rows_counts, threshold, beta, strip, normalize_col
)
# Presenting: one row of ten smaller cards (presentation.CARDS), whole under the charts on a
# 1280x720 screen (two rows of five cut the first in half at the screen's bottom edge); two
# long names are shortened there to fit a tenth of the row, and their help says them whole.
rate_cards = words.rate_cards(c, beta, counts.n_pos > 0, counts.n_neg > 0)
per_row, cards = (10, st.container(key=presentation.CARDS)) if presenting else (5, st)
for row in range(0, len(rate_cards), per_row):
    for col, (name, value, formula) in zip(
        cards.columns(per_row), rate_cards[row : row + per_row], strict=False
    ):
        short = words.SHORT.get(name) if presenting else None
        # no help icon on a projector: at 18 px a tenth of the row holds the name, not both
        # (the formulas are in the Explain below)
        col.metric(short or name, value, help=None if presenting else formula)
explain(
    "these numbers",
    words.explain_lines(c, beta, n_total),
    note=words.explain_note(shown_threshold, n_total, weighted),
)
beta = view.presets(setting, counts, amount)
if rates_col is None:
    chart(figures["rates"], key="threshold_rates", name=f"rates-vs-threshold-{model}")

with st.expander("Rows behind the numbers", icon=":material/table_rows:"):
    if not shell.needs(ds, "rows", "Listing the rows behind a cell"):
        view.rows_behind(ds, model, threshold)


csv_download(
    f"Download the threshold table ({len(counts):,} thresholds, CSV)",
    functools.partial(thresholds.threshold_table, counts, beta),
    f"thresholds_{model}.csv",
    key="threshold_download",
)

"""Decision curves: cost curves, Brier curves, precision-recall gain and DET, several models
overlaid, each with its formula and its published source."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from ui import sources
from ui.analyses import decisions_tables as tables
from ui.compute import data, decision_compute, thresholds
from ui.figures import decision_charts
from ui.frame import presentation, shell
from ui.views.explain import explain
from ui.views.show import chart
from ui.words import decisions_text as words
from ui.words.numbers import decimals
from ui.words.safe import md

ds, model = shell.page_context()
presenting = presentation.on()
if presenting:  # a projector's screen: the title and the models share a row
    head_col, pick_col = st.columns([1, 2.6], vertical_alignment="bottom")
    head_col.subheader("Decision curves", anchor=False)
    with pick_col:
        models = shell.model_picker("Models", "decisions_models", ds)
else:
    st.header("Decision curves")
    models = shell.model_picker("Models", "decisions_models", ds)
if not models:
    st.info("Pick at least one model.")
    st.stop()

if not ds.holds_rows:
    st.caption(
        f"{sources.of(ds).rows(ds)} Every curve here is a function of each score's counts "
        "alone, so the curves and their areas are exact."
    )
elif ds.mapping.per_class:
    st.caption(
        "Per-class data: each class is read one-vs-rest (its score against the label "
        '"this class or not"); pick the classes to overlay above.'
    )
elif ds.mapping.graded:
    st.caption("Graded relevance: a row counts as positive when its relevance is above 0.")

PRESENT_HEIGHT = 420  # the cost chart in presentation mode, under the bar, title and tabs
curves = {m: decision_compute.decision_curves(ds.key, m, ds) for m in models}
threshold = {m: thresholds.current(ds, m) for m in models}
first = models[0]
c0 = curves[first]
prevalence = c0.n_pos / (c0.n_pos + c0.n_neg)

cost_tab, brier_tab, gain_tab, det_tab = st.tabs(
    ["Cost curves", "Brier curves", "Precision-recall gain", "DET"]
)

# --- cost curves --------------------------------------------------------------------------------
with cost_tab:
    # In presentation mode the cost ratio and each model's least cost stand beside the chart,
    # so the chart is whole (axes and legend) on a 1280x720 screen.
    chart_col, side_col = st.columns([3.4, 1]) if presenting else (st.container(), None)
    ratio = (side_col or st.columns([1, 2])[0]).number_input(
        "Cost of a missed positive, in false alarms",
        min_value=0.001, max_value=1000.0, value=1.0, step=0.5, key="decisions_cost_ratio",
        help=words.RATIO_HELP,
    )  # fmt: skip
    lines = []
    table = []
    for m in models:
        c = curves[m]
        fpr, fnr = decision_compute.rates_at(ds, m, threshold[m])
        lines.append(
            decision_charts.CostLines(
                m,
                c.cost_x,
                c.cost,
                fpr,
                fnr,
                threshold[m],
                c.cost_area,
                threshold_text=thresholds.label(ds, m, threshold[m]),
            )
        )
        table.append(tables.cost_row(m, c, threshold[m], fpr, fnr, ratio))
    fig = decision_charts.cost_figure(lines, height=PRESENT_HEIGHT if presenting else 460)
    if len({round(r["PC(+)"], 9) for r in table}) == 1:
        fig.add_vline(x=table[0]["PC(+)"], line=dict(color="#555555", width=1, dash="dash"))
    chart(fig, key="decisions_cost", name="cost-curves", where=chart_col)
    if side_col is not None:
        with side_col.container(key=presentation.CARDS):
            st.caption("Least cost at your cost ratio")
            for r in table[:4]:
                st.metric(
                    md(r["model"]),
                    decimals(r["least cost (envelope)"]),
                    help=f"The least normalised expected cost at PC(+) = {decimals(r['PC(+)'], 3)} "
                    f"(your cost ratio); at its current threshold: "
                    f"{decimals(r['cost at threshold'])}.",
                )
    hidden = decision_charts.same_envelopes(lines)
    if hidden:
        st.caption(words.same_envelopes(hidden))
    st.dataframe(pd.DataFrame(table), hide_index=True, width="stretch")
    st.caption(words.COST)
    explain(
        "cost curves", words.cost_lines(first, prevalence, ratio, table[0]), note=words.COST_NOTE
    )

# --- Brier curves -------------------------------------------------------------------------------
with brier_tab:
    probabilistic = [m for m in models if curves[m].brier_x is not None]
    others = [m for m in models if curves[m].brier_x is None]
    if others:
        st.warning(words.not_probabilities(others))
    if probabilistic:
        blines = [
            decision_charts.BrierLines(
                m, curves[m].brier_x, curves[m].brier_loss, curves[m].cost_x, curves[m].cost,
                curves[m].brier_area,
            )
            for m in probabilistic
        ]  # fmt: skip
        chart(decision_charts.brier_figure(blines), key="decisions_brier", name="brier-curves")
        st.dataframe(tables.brier_frame(curves, probabilistic), hide_index=True, width="stretch")
        st.caption(words.BRIER)
        m = probabilistic[0]
        pos_term, neg_term = tables.brier_terms(*data.binary_rows(ds, m))
        explain(
            "Brier curves",
            words.brier_lines(m, pos_term, neg_term, curves[m].brier_area),
            note=words.BRIER_NOTE,
        )

# --- precision-recall gain ----------------------------------------------------------------------
with gain_tab:
    glines = [
        decision_charts.GainLines(
            m, curves[m].precision_gain, curves[m].recall_gain, curves[m].auprg, curves[m].ap
        )
        for m in models
    ]
    chart(decision_charts.prg_figure(glines), key="decisions_prg", name="precision-recall-gain")
    st.dataframe(tables.gain_frame(curves, models), hide_index=True, width="stretch")
    st.caption(words.GAIN)
    explain(
        "precision-recall gain",
        words.gain_lines(first, c0.n_pos, c0.n_neg, prevalence, c0.auprg, c0.ap),
        note=words.GAIN_NOTE,
    )

# --- DET ----------------------------------------------------------------------------------------
with det_tab:
    dlines = [
        decision_charts.DetLines(
            m,
            curves[m].det_fpr,
            curves[m].det_fnr,
            curves[m].eer.rate,
            curves[m].eer.threshold,
            eer_threshold_text=thresholds.label(ds, m, curves[m].eer.threshold),
        )
        for m in models
    ]
    det_chart, det_side = st.columns([3, 2])
    chart(
        decision_charts.det_figure(dlines), key="decisions_det", name="det-curves", where=det_chart
    )
    det_side.dataframe(tables.det_frame(curves, models), hide_index=True, width="stretch")
    det_side.caption(words.DET)
    explain("DET and the equal error rate", words.det_lines(first, c0.eer), note=words.DET_NOTE)

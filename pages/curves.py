"""ROC and precision-recall curves of every model, overlaid, with the operating point.

In presentation mode (larger text) the model picker and the partial-AUC control share the
title's row and the two charts, titled inside, fill the rest of a 1280x720 screen; the captions
follow below them.
"""

from __future__ import annotations

import streamlit as st

from ui.compute import data, thresholds
from ui.figures import charts
from ui.frame import presentation, shell
from ui.views.explain import ap_lines, auc_lines, explain
from ui.views.show import chart
from ui.words.numbers import decimals
from ui.words.safe import md

ds, model = shell.page_context()

presenting = presentation.on()
CHART_HEIGHT = 450 if presenting else 480  # presentation: the row left under the controls
if presenting:
    head_col, models_col, fpr_col = st.columns([1.1, 3.2, 2.2], vertical_alignment="bottom")
    head_col.subheader("Curves", anchor=False)
    with models_col:
        chosen = shell.model_picker("Models", "curves_models", ds)
else:
    st.header("Curves")
    chosen = shell.model_picker("Models", "curves_models", ds)
    fpr_col = None
if not chosen:
    st.info("Pick at least one model.")
    st.stop()

curves = []
for name in chosen:
    a = data.areas(ds.key, name, ds)
    curves.append(
        charts.ModelCurve(name, data.threshold_counts(ds.key, name, ds), a["auc"], a["ap"])
    )
threshold = {name: thresholds.current(ds, name) for name in chosen}
prevalence = curves[0].counts.n_pos / (curves[0].counts.n_pos + curves[0].counts.n_neg)
points = (
    "Dots mark each model's operating point at its own threshold, the one the Threshold page "
    "sets: "
    + "; ".join(f"{md(name)} {thresholds.label(ds, name, t)}" for name, t in threshold.items())
    + ". Areas (AUC, AP) use every row; the charts draw at most about 2,000 points per curve."
)
if not presenting:
    st.caption(points)

roc_col, pr_col = st.columns(2)
with fpr_col or roc_col:
    if not presenting:
        st.subheader("ROC")
    max_fpr = st.select_slider(
        "Partial AUC up to FPR",
        options=[0.01, 0.05, 0.1, 0.2, 0.3, 0.5, 1.0],
        value=1.0,
        key="curves_max_fpr",
        help="The area over FPR in [0, max FPR] only, standardised as McClish does (chance "
        "0.5, perfect 1), as medicine and fraud teams report it; scikit-learn's max_fpr.",
    )
with roc_col:
    roc = charts.roc_figure(curves, threshold=threshold, height=CHART_HEIGHT)
    if presenting:  # the title inside the chart, in place of the subheader
        roc.update_layout(title=dict(text="ROC", x=0))
    if max_fpr < 1:
        roc.add_vrect(x0=0, x1=max_fpr, fillcolor="#1f77b4", opacity=0.08, line_width=0)
    chart(roc, key="curves_roc", name="roc-curves")
    if max_fpr < 1:
        partial = {m.name: data.partial_auc(ds.key, m.name, float(max_fpr), ds) for m in curves}
        st.caption(
            f"Partial AUC for FPR ≤ {max_fpr:g} (shaded), McClish-standardised: "
            + "; ".join(f"{md(n)} {decimals(v)}" for n, v in partial.items())
            + ". The dotted diagonal is a random ranking (AUC 0.5)."
        )
    else:
        st.caption("The dotted diagonal is a random ranking (AUC 0.5).")
with pr_col:
    pr = charts.pr_figure(curves, prevalence=prevalence, threshold=threshold, height=CHART_HEIGHT)
    if presenting:
        pr.update_layout(title=dict(text="Precision-recall", x=0))
    else:
        st.subheader("Precision-recall")
    chart(pr, key="curves_pr", name="precision-recall-curves")
    st.caption(
        f"The dotted line is the prevalence ({decimals(prevalence, 3)}), the AP of a random "
        "ranking; grey "
        "curves are points of equal F1. Steps show exactly the area scikit-learn's AP sums."
    )

explain(
    "the areas",
    [
        line
        for m in curves
        for line in (
            *auc_lines(m.name, m.counts.n_pos, m.counts.n_neg, m.auc),
            *ap_lines(m.name, m.counts.tps, m.counts.fps, m.ap),
        )
    ],
    note="AUC counts every positive-negative pair (P positives times N negatives, or their "
    "weights); AP sums precision times the recall gained at each distinct threshold, from the "
    "highest score down. Both use every row, not the points drawn.",
)
if presenting:
    st.caption(points)

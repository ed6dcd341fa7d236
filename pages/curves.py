"""ROC and precision-recall curves of every model, overlaid, with the operating point."""

from __future__ import annotations

import streamlit as st

from ui import charts, data, shell, thresholds
from ui.explain import ap_lines, auc_lines, explain
from ui.safe import md
from ui.show import chart

ds, model = shell.page_context()

st.header("Curves")
chosen = shell.model_picker("Models", "curves_models", ds)
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
st.caption(
    "Dots mark each model's operating point at its own threshold, the one the Threshold page "
    "sets: "
    + "; ".join(f"{md(name)} {t:.4g}" for name, t in threshold.items())
    + ". Areas (AUC, AP) use every row; the charts draw at most about 2,000 points per curve."
)

roc_col, pr_col = st.columns(2)
with roc_col:
    st.subheader("ROC")
    chart(charts.roc_figure(curves, threshold=threshold), key="curves_roc", name="roc-curves")
    st.caption("The dotted diagonal is a random ranking (AUC 0.5).")
with pr_col:
    st.subheader("Precision-recall")
    chart(
        charts.pr_figure(curves, prevalence=prevalence, threshold=threshold),
        key="curves_pr",
        name="precision-recall-curves",
    )
    st.caption(
        f"The dotted line is the prevalence ({prevalence:.3f}), the AP of a random ranking; grey "
        "curves are points of equal F1. Steps show exactly the area scikit-learn's AP sums."
    )

explain(
    "the areas",
    [
        line
        for m in curves
        for line in (
            *auc_lines(md(m.name), m.counts.n_pos, m.counts.n_neg, m.auc),
            *ap_lines(md(m.name), m.counts.tps, m.counts.fps, m.ap),
        )
    ],
    note="AUC counts every positive-negative pair (P positives times N negatives, or their "
    "weights); AP sums precision times the recall gained at each distinct threshold, from the "
    "highest score down. Both use every row, not the points drawn.",
)

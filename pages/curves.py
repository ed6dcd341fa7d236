"""ROC and precision-recall curves of every model, overlaid, with the operating point."""

from __future__ import annotations

import streamlit as st

from ui import charts, data, shell
from ui.explain import ap_lines, auc_lines, explain
from ui.safe import md

ds, model = shell.page_context()

st.header("Curves")
chosen = st.multiselect(
    "Models", ds.models, default=list(ds.models), key="curves_models",
    help="Areas (AUC, AP) are computed on every row; the charts draw at most about 2,000 "
    "points per curve.",
)  # fmt: skip
if not chosen:
    st.info("Pick at least one model.")
    st.stop()

curves = []
for name in chosen:
    a = data.areas(ds.key, name, ds)
    curves.append(
        charts.ModelCurve(name, data.threshold_counts(ds.key, name, ds), a["auc"], a["ap"])
    )
threshold = st.session_state.get("threshold")
prevalence = curves[0].counts.n_pos / (curves[0].counts.n_pos + curves[0].counts.n_neg)
st.caption(
    f"Dots mark each model's operating point at the threshold set on the Threshold page "
    f"({threshold:.4g})."
    if threshold is not None
    else "Set a threshold on the Threshold page to mark operating points."
)

roc_col, pr_col = st.columns(2)
with roc_col:
    st.subheader("ROC")
    st.plotly_chart(
        charts.roc_figure(curves, threshold=threshold), width="stretch", key="curves_roc"
    )
    st.caption("The dotted diagonal is a random ranking (AUC 0.5).")
with pr_col:
    st.subheader("Precision-recall")
    st.plotly_chart(
        charts.pr_figure(curves, prevalence=prevalence, threshold=threshold),
        width="stretch",
        key="curves_pr",
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

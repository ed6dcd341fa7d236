"""Move a decision threshold and watch the confusion matrix and every rate change."""

from __future__ import annotations

import streamlit as st

from ui import charts, data, shell

table, model = shell.page_context()
y, score = table.y, table.score(model)
counts = data.threshold_counts(y, score)  # one sort per (data, model), cached

st.header("Threshold")
st.caption(
    f"**{model}** on {table.name}. A row is predicted {table.positive_name} when its score is "
    "at least the threshold."
)

low, high = float(score.min()), float(score.max())
if low == high:
    st.warning(
        f"Every score of {model} is {low:g}: a threshold can only predict all rows "
        "positive or all negative."
    )
    high = low + 1.0
st.session_state.setdefault("threshold", min(max(0.5, low), high))
st.session_state["threshold"] = min(max(st.session_state["threshold"], low), high)

left, right = st.columns([3, 1])
with left:
    threshold = st.slider(
        "Threshold",
        min_value=low,
        max_value=high,
        step=(high - low) / 1000,
        format="%.3f",
        key="threshold",
    )
with right:
    beta = st.number_input(
        "F-beta: beta",
        min_value=0.0,
        max_value=10.0,
        value=1.0,
        step=0.25,
        key="threshold_beta",
        help="beta > 1 weighs recall more than precision; beta = 1 is F1.",
    )

c = counts.at(threshold)  # a lookup in the precomputed counts, never a recount
n = len(score)
st.markdown(
    f"Scores ≥ **{threshold:.3f}** are predicted {table.positive_name}: "
    f"**{int(c.tp + c.fp):,}** of {n:,} rows."
)

CARDS = [
    ("Precision", c.precision, "TP / (TP + FP)"),
    ("Recall (TPR)", c.recall, "TP / (TP + FN)"),
    ("FPR", c.fpr, "FP / (FP + TN)"),
    ("Specificity", c.specificity, "TN / (TN + FP)"),
    ("Prevalence", c.prevalence, "(TP + FN) / n"),
    ("Accuracy", c.accuracy, "(TP + TN) / n"),
    ("Balanced accuracy", c.balanced_accuracy, "(recall + specificity) / 2"),
    (f"F{beta:g}", c.f_beta(beta), "(1 + b²) TP / ((1 + b²) TP + b² FN + FP)"),
    ("MCC", c.mcc, "(TP·TN − FP·FN) / √((TP+FP)(TP+FN)(TN+FP)(TN+FN))"),
    ("Cohen's kappa", c.cohen_kappa, "(p_o − p_e) / (1 − p_e)"),
]
for row in range(0, len(CARDS), 5):
    for col, (label, value, formula) in zip(st.columns(5), CARDS[row : row + 5], strict=False):
        col.metric(label, f"{value:.3f}", help=f"{formula}. A ratio 0/0 shows as 0.")

matrix_col, chart_col = st.columns([2, 3])
with matrix_col:
    normalize = st.segmented_control(
        "Confusion matrix",
        options=["counts", "by actual class", "by prediction"],
        default="counts",
        key="threshold_normalize",
    )
    st.plotly_chart(
        charts.confusion_matrix_figure(
            c,
            normalize={"by actual class": "true", "by prediction": "pred"}.get(normalize or ""),
            positive_name=table.positive_name,
            negative_name=table.negative_name,
        ),
        width="stretch",
        key="threshold_matrix",
    )
with chart_col:
    st.plotly_chart(
        charts.rates_vs_threshold_figure(counts, threshold=threshold, beta=beta),
        width="stretch",
        key="threshold_rates",
    )

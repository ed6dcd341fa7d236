"""Move a decision threshold and watch the confusion matrix and every rate change."""

from __future__ import annotations

import numpy as np
import pandas as pd
import streamlit as st

from metrics.thresholds import choose_threshold
from ui import charts, data, shell
from ui.explain import explain, fraction, num
from ui.safe import file_name, md

ds, model = shell.page_context()
counts = data.threshold_counts(ds.key, model, ds)  # one sort per (data, model), cached
score = ds.score(model)

st.header("Threshold")
st.caption(
    f"**{md(model)}** on {md(ds.name)}. A row is predicted {md(ds.positive_name)} when its "
    "score is at "
    "least the threshold."
)

low, high = float(counts.thresholds[-1]), float(counts.thresholds[0])
if low == high:
    st.warning(
        f"Every score of {md(model)} is {low:g}: a threshold can only predict all rows positive "
        "or all negative."
    )
    high = low + 1.0


def _set_threshold(value: float) -> None:
    st.session_state["threshold"] = float(min(max(value, low), high))


PRESETS = {
    "Max F-beta": "max_f_beta",
    "Youden's J": "youden",
    "Precision ≥ target": "precision_at_least",
    "Recall ≥ target": "recall_at_least",
    "Least cost": "min_cost",
}

with st.container(border=True):
    mode_col, beta_col = st.columns([3, 1])
    with mode_col:
        mode = st.segmented_control(
            "Set the threshold by",
            ["score", "top k rows", "top percent"],
            default="score",
            key="threshold_mode",
        )
    with beta_col:
        beta = st.number_input(
            "F-beta: beta",
            min_value=0.0,
            max_value=10.0,
            value=1.0,
            step=0.25,
            key="threshold_beta",
            help="beta > 1 weighs recall more than precision; beta = 1 is F1.",
        )
    n_total = float(counts.n_pos + counts.n_neg)
    flagged_at = counts.tps + counts.fps  # rows (weight) with score >= each distinct threshold
    if mode == "top k rows" or mode == "top percent":
        # The k-th highest score becomes the threshold; tied rows come in with it.
        if mode == "top k rows":
            k = st.slider(
                "Flag the top k rows", 1, int(n_total), min(100, int(n_total)), key="threshold_k"
            )
            wanted = k
        else:
            pct = st.slider("Flag the top percent", 0.1, 100.0, 10.0, step=0.1, key="threshold_pct")
            wanted = pct / 100 * n_total
        i = min(int(np.searchsorted(flagged_at, wanted - 1e-9)), len(counts) - 1)
        _set_threshold(counts.thresholds[i])
        st.caption(f"Threshold {counts.thresholds[i]:.6g}.")
    else:
        # The shared value lives in "threshold" (presets and other pages set it); the slider
        # has its own key, synced both ways, so its state survives while it is hidden.
        st.session_state["threshold_slider"] = min(max(st.session_state["threshold"], low), high)
        st.slider(
            "Threshold",
            min_value=low,
            max_value=high,
            step=(high - low) / 1000,
            format="%.3f",
            key="threshold_slider",
            on_change=lambda: _set_threshold(st.session_state["threshold_slider"]),
        )
    preset_cols = st.columns([2, 1, 1, 1, 1])
    preset = preset_cols[0].selectbox("Jump to a preset", list(PRESETS), key="threshold_preset")
    target = preset_cols[1].number_input(
        "Target", 0.0, 1.0, 0.9, 0.05, key="threshold_target", help="For the ≥ target presets."
    )
    cost_fp = preset_cols[2].number_input("Cost of a FP", 0.0, value=1.0, key="threshold_cost_fp")
    cost_fn = preset_cols[3].number_input("Cost of a FN", 0.0, value=5.0, key="threshold_cost_fn")
    choice = choose_threshold(
        counts, PRESETS[preset], beta=beta, target=target, cost_fp=cost_fp, cost_fn=cost_fn
    )
    with preset_cols[4]:
        st.write("")  # aligns the button with the inputs
        st.button(
            "Apply",
            key="threshold_apply",
            disabled=choice.threshold is None,
            on_click=_set_threshold,
            args=(choice.threshold if choice.threshold is not None else 0.0,),
            width="stretch",
        )
    if choice.threshold is None:
        st.caption(f"No threshold reaches the target {target:g} for {preset.lower()}.")
    else:
        st.caption(
            f"{preset}: threshold {choice.threshold:.6g} (criterion value {choice.value:.4g})."
        )

threshold = min(max(st.session_state["threshold"], low), high)
c = counts.at(threshold)  # a lookup in the precomputed counts, never a recount
st.markdown(
    f"Scores ≥ **{threshold:.4g}** are predicted {md(ds.positive_name)}: "
    f"**{c.tp + c.fp:,.0f}** of {n_total:,.0f} rows."
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

b2 = beta * beta
kappa_chance = ((c.tp + c.fp) * (c.tp + c.fn) + (c.tn + c.fn) * (c.tn + c.fp)) / max(
    n_total, 1
) ** 2
explain(
    "these numbers",
    [
        fraction("precision", "TP", "TP + FP", c.tp, c.tp + c.fp),
        fraction("recall", "TP", "TP + FN", c.tp, c.tp + c.fn),
        fraction("FPR", "FP", "FP + TN", c.fp, c.fp + c.tn),
        fraction("specificity", "TN", "TN + FP", c.tn, c.tn + c.fp),
        fraction("accuracy", "TP + TN", "n", c.tp + c.tn, n_total),
        fraction("prevalence", "TP + FN", "n", c.tp + c.fn, n_total),
        rf"F_{{{beta:g}}} = \frac{{(1+\beta^2)\,TP}}{{(1+\beta^2)\,TP + \beta^2 FN + FP}} = "
        rf"\frac{{{num((1 + b2) * c.tp)}}}{{{num((1 + b2) * c.tp)} + {num(b2 * c.fn)} + "
        rf"{num(c.fp)}}} = {num(c.f_beta(beta))}",
        r"\text{MCC} = \frac{TP\cdot TN - FP\cdot FN}{\sqrt{(TP+FP)(TP+FN)(TN+FP)(TN+FN)}} = "
        rf"\frac{{{num(c.tp)}\cdot{num(c.tn)} - {num(c.fp)}\cdot{num(c.fn)}}}"
        rf"{{\sqrt{{{num(c.tp + c.fp)}\cdot{num(c.tp + c.fn)}\cdot{num(c.tn + c.fp)}\cdot"
        rf"{num(c.tn + c.fn)}}}}} = {num(c.mcc)}",
        r"\kappa = \frac{p_o - p_e}{1 - p_e},\quad p_o = \text{accuracy} = "
        rf"{num(c.accuracy)},\quad p_e = {num(kappa_chance)},\quad \kappa = {num(c.cohen_kappa)}",
    ],
    note=f"TP, FP, TN, FN count the rows at threshold {threshold:.4g}; n = {n_total:,.0f}. "
    "p_e is the agreement expected by chance: the products of the predicted and actual class "
    "shares, summed over both classes. A ratio 0/0 is shown as 0.",
)

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
            positive_name=ds.positive_name,
            negative_name=ds.negative_name,
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


def _threshold_table_csv() -> bytes:
    every = counts.confusion().as_dict(beta=beta)
    table = pd.DataFrame({"threshold": counts.thresholds, **every})
    return table.rename(columns={"f_beta": f"f{beta:g}"}).to_csv(index=False).encode()


st.download_button(
    f"Download the threshold table ({len(counts):,} thresholds, CSV)",
    data=_threshold_table_csv,
    file_name=file_name(f"thresholds_{model}.csv"),
    mime="text/csv",
    key="threshold_download",
    icon=":material/download:",
)

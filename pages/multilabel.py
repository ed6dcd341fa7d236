"""Multi-label and multi-class: per-class AP and AUC, the averages, LRAP, and the N x N matrix."""

from __future__ import annotations

import numpy as np
import pandas as pd
import streamlit as st

import metrics
from ui import multilabel_charts as mc
from ui import server_source, shell
from ui.explain import explain, num
from ui.show import chart

ds, model = shell.page_context()

CURRENT = "Current data"

st.header("Multi-label")
st.caption(
    "One binary problem per class, then an average: the averaging mode decides what the single "
    "number weighs."
)


@st.cache_data(max_entries=8, show_spinner="Computing per-class metrics...")
def _summary(key: tuple, _problem: mc.Problem) -> mc.Summary:
    return mc.summarize(_problem)


preset = (
    st.segmented_control(
        "Data",
        [CURRENT, *mc.PRESETS],
        default=CURRENT,
        key="multilabel_preset",
        help="Worked examples from scikit-learn's documentation, or the dataset in the sidebar.",
    )
    or CURRENT
)
if preset == CURRENT:
    if server_source.rows_needed(
        ds, "Multi-label averaging", "The worked examples above work here."
    ):
        st.stop()
    problem = mc.problem_from_dataset(ds)
    if problem is None:
        st.info(
            f"{ds.name} has one score column per model, not one per class. Pick the sample "
            "dataset 'Digits: 6 overlapping labels' (multi-label) or 'Wine: 3 cultivars "
            "(multi-class)', or upload a table with label_<class> and score_<class> column pairs "
            "(multi-label) or one label column plus a score_<class> column per class "
            "(multi-class) and choose that layout under Columns. Or pick a worked example above."
        )
        st.stop()
    sm = _summary((ds.key, ds.prepared.n_dropped), problem)  # dropping rows keeps ds.key
else:
    problem = mc.PRESETS[preset]
    sm = mc.summarize(problem)

kind = "multi-class (one label per row)" if problem.multiclass else "multi-label"
st.markdown(
    f"**{problem.name}**: {problem.n_rows:,} row{'s' * (problem.n_rows != 1)} × "
    f"{problem.n_classes} classes, {kind}" + (", sample-weighted" if sm.weighted else "") + "."
)


def _notes(*keys: tuple[str, str]) -> None:
    """The library's warnings for these calls, shown once each instead of in the console."""
    seen = dict.fromkeys(msg for key in keys for msg in sm.notes.get(key, ()))
    for msg in seen:
        st.caption(f":material/warning: {msg}")
    if seen:
        numbered = ", ".join(f"{i} = {c}" for i, c in enumerate(sm.classes))
        st.caption(f"Classes and rows are numbered from 0 (classes: {numbered}).")


# --- 1. the averaging mode ------------------------------------------------------------------

st.subheader("Averaging")
mode = (
    st.segmented_control(
        "Average AP and AUC by",
        [*mc.MODES, "per class"],
        default="macro",
        key="multilabel_average",
    )
    or "macro"
)
st.markdown(f"**{mode}**: {mc.MODE_LINES[mode]}")
cards = st.columns(3)
if mode == "per class":
    chosen = cards[0].selectbox("Class", sm.classes, key="multilabel_class")
    c = sm.classes.index(chosen)
    ap_value, auc_value = sm.ap_per_class[c], sm.auc_per_class[c]
    label = chosen
    cards = st.columns(3)
else:
    ap_value, auc_value, label = sm.ap[mode], sm.auc[mode], mode
cards[0].metric(f"AP ({label})", mc.fmt(ap_value))
cards[1].metric(f"AUC ({label})", mc.fmt(auc_value))
cards[2].metric("mAP (macro AP)", mc.fmt(sm.ap["macro"]), help="The mean of the per-class APs.")
_notes(("AP", mode), ("AUC", mode))
st.caption(mc.LEFT_OUT)

for m in mc.MODES:
    lines, notes = [], []
    for metric in ("AP", "AUC"):
        got, sentences = mc.average_explain_lines(sm, metric, m)
        lines += got
        notes += [s for s in sentences if s not in notes]
    explain(f"{m} average", lines, " ".join(notes) or None)

# --- 2. per class ---------------------------------------------------------------------------

st.subheader("Per class")
table_col, chart_col = st.columns([2, 3])
with table_col:
    st.dataframe(
        mc.per_class_table(sm),
        hide_index=True,
        width="stretch",
        column_config={
            "positives": st.column_config.NumberColumn(
                format="%.0f" if not sm.weighted else "%.3f",
                help="Rows with this label (their total sample weight when weighted).",
            ),
            "weight w_c": st.column_config.NumberColumn(
                format="%.4f", help="Positives of the class / positives of all classes."
            ),
            "AP": st.column_config.NumberColumn(format="%.4f"),
            "AUC": st.column_config.NumberColumn(format="%.4f"),
        },
        key="multilabel_class_table",
    )
    st.dataframe(
        mc.averages_table(sm),
        hide_index=True,
        width="stretch",
        column_config={
            "AP": st.column_config.NumberColumn(format="%.4f"),
            "AUC": st.column_config.NumberColumn(format="%.4f"),
        },
        key="multilabel_average_table",
    )
    st.caption("None = undefined: AP with no positives, AUC with one class only.")
with chart_col:
    bar_metric = (
        st.segmented_control("Bars", ["AP", "AUC"], default="AP", key="multilabel_bar_metric")
        or "AP"
    )
    chart(mc.per_class_bar_figure(sm, bar_metric), key="multilabel_bars")
    st.caption(
        "Bars: each class alone, its weight w_c under its name. Lines: the four averages; a rare "
        "class moves macro as much as a frequent one, but barely moves weighted."
    )

# --- 3. curves ------------------------------------------------------------------------------

st.subheader("Per-class curves and the micro curve")
curve = st.segmented_control("Curve", ["PR", "ROC"], default="PR", key="multilabel_curve") or "PR"
chart(mc.curves_figure(sm, "pr" if curve == "PR" else "roc"), key="multilabel_curves")
per_class = sm.ap_per_class if curve == "PR" else sm.auc_per_class
missing = [c for c, v in zip(sm.classes, per_class, strict=True) if not np.isfinite(v)]
st.caption(
    f"The thick curve ranks all {problem.n_rows * problem.n_classes:,} (row, class) cells together;"
    f" its area is the micro {'AP' if curve == 'PR' else 'AUC'}. "
    "Thin curves are the classes alone; at most about 2,000 points each are drawn."
    + (f" Not drawn (undefined): {', '.join(missing)}." if missing else "")
)

# --- 4. multi-class: the N x N matrix and top-k ---------------------------------------------

if problem.multiclass and sm.confusion is not None and sm.top_k is not None:
    st.subheader("Multi-class: arg-max confusion matrix and top-k accuracy")
    NORMALIZE = {"counts": "counts", "by true class": "true", "by predicted class": "pred"}
    matrix_col, topk_col = st.columns([3, 2])
    with matrix_col:
        shown = (
            st.segmented_control(
                "Confusion matrix", list(NORMALIZE), default="counts", key="multilabel_normalize"
            )
            or "counts"
        )
        chart(mc.confusion_figure(sm, NORMALIZE[shown]), key="multilabel_matrix")
        st.caption(
            "Each row is predicted as its highest-scoring class (a tie goes to the first column). "
            "By true class, the diagonal is each class's recall; by predicted class, its "
            "precision."
        )
    with topk_col:
        topk = pd.DataFrame({"k": np.arange(1, sm.top_k.size + 1), "top-k accuracy": sm.top_k})
        st.dataframe(
            topk,
            hide_index=True,
            width="stretch",
            column_config={"top-k accuracy": st.column_config.NumberColumn(format="%.4f")},
            key="multilabel_topk_table",
        )
        chart(mc.top_k_figure(sm), key="multilabel_topk")
    counts = sm.confusion["counts"]
    explain(
        "top-k accuracy",
        [
            r"\text{top-}k = \frac{\sum_i v_i\,[\text{true class of } i \text{ among its } k"
            r"\text{ highest scores}]}{\sum_i v_i}",
            rf"\text{{top-1}} = \frac{{\text{{diagonal}}}}{{n}} = \frac{{{num(np.trace(counts))}}}"
            rf"{{{num(counts.sum())}}} = {mc.tex(np.trace(counts) / counts.sum())},\qquad"
            rf"\text{{library: }} {mc.tex(sm.top_k[0])}",
        ],
        "v_i: sample weight (1 without weights). Top-k ranks a tied class further right higher "
        "(as scikit-learn), the matrix gives a tie to the first column: with ties the two top-1 "
        f"values can differ. Top-{sm.top_k.size} is 1: every class is among the "
        f"{sm.top_k.size} highest.",
    )

    if problem.weight is None:
        labels_1d = np.argmax(problem.y, axis=1)
        ovo = {
            avg: metrics.roc_auc_score(labels_1d, problem.scores, multi_class="ovo", average=avg)
            for avg in ("macro", "weighted")
        }
        ovr = metrics.roc_auc_score(labels_1d, problem.scores, average="macro")
        st.markdown(
            f"**One-vs-one AUC** (Hand & Till): macro **{ovo['macro']:.4f}**, weighted by the "
            f"pairs' rows **{ovo['weighted']:.4f}**; one-vs-rest macro {ovr:.4f}."
        )
        st.caption(
            "One-vs-one averages, over every pair of classes, the AUC of telling those two apart "
            "(each direction, on the rows of the two classes only), so a class that is easy to "
            "tell from the rest but hard to tell from one neighbour counts that difficulty; "
            "scikit-learn's multi_class='ovo'."
        )

# --- 5. LRAP against samples-averaged AP ----------------------------------------------------

st.subheader("Label ranking AP vs samples-averaged AP")
lrap_cols = st.columns(4)
lrap_cols[0].metric("LRAP", mc.fmt(sm.lrap), help="metrics.label_ranking_average_precision_score")
lrap_cols[1].metric(
    "samples AP",
    mc.fmt(sm.ap["samples"]),
    help="metrics.average_precision_score(average='samples')",
)
lrap_cols[2].metric(
    "LRAP, rows with a label",
    mc.fmt(sm.lrap_labelled),
    help=f"LRAP over the {sm.n_rows_with_label:,} rows with at least one relevant label.",
)
lrap_cols[3].metric(
    "samples AP, trapezoid",
    mc.fmt(sm.samples_ap_trapezoid),
    help="The same per-row AP with the PR curve read by the trapezoid rule (scikit-learn "
    "before 0.19).",
)
_notes(("AP", "samples"), ("LRAP", "all"))
st.markdown(
    "**LRAP** takes each row's relevant labels *j* and the share of relevant labels among the "
    "labels scoring at least as high as *j*; a tie counts against *j* (every tied label is at "
    "least as high). It averages that over the row's relevant labels, then over rows.  \n"
    "**Samples AP** makes each row a binary problem and sums recall gain × precision over the "
    "row's distinct scores: a tie run is one point, with precision counted after the whole run. "
    "That is the same number, so on a row with a relevant label the two agree, ties included.  \n"
    "They differ on **rows with no relevant label**: LRAP scores such a row 1 and keeps it; "
    "samples AP is undefined there and leaves the row out (scikit-learn's samples AP counts it "
    "as 0). A row with every label relevant is 1 in both.  \n"
    "The **trapezoid** rule of scikit-learn before 0.19 averages the precision at both ends of "
    "each recall step, so it usually differs once a negative label scores at least as high as a "
    "relevant one (labels 1, 0, 1, 0 scored 1, 0.8, 0.6, 0.4: trapezoid 0.7917 against the "
    "step sum's 5/6)."
)
st.caption(
    f"Here: {sm.n_rows_without_label:,} of {sm.n_rows:,} row{'s' * (sm.n_rows != 1)} without a "
    f"relevant label, {sm.n_rows_all_labels:,} with every label relevant."
)
row = (
    int(
        st.number_input(
            "Row to take apart (from 1)", 1, max(problem.n_rows, 1), 1, 1, key="multilabel_row"
        )
    )
    - 1
)
row = min(row, problem.n_rows - 1)
breakdown, _ = mc.row_breakdown(problem, row)
lines, note = mc.row_explain_lines(problem, row)
explain(f"LRAP and AP of row {row}", lines, note, expanded=problem.n_rows == 1)
st.dataframe(
    breakdown,
    hide_index=True,
    width="stretch",
    column_config={"precision": st.column_config.NumberColumn(format="%.4f")},
    key="multilabel_row_table",
)

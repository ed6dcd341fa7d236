"""The Multi-label page's multi-class section: the arg-max N x N matrix, top-k accuracy and
one-vs-one AUC."""

from __future__ import annotations

import streamlit as st

from ui.analyses import multilabel_averages as ma
from ui.figures import multilabel_charts as mc
from ui.views.explain import explain
from ui.views.multilabel_data import MultilabelPage, table
from ui.views.show import chart

NORMALIZE = {
    "counts": "counts",
    "by true class": "true",
    "by predicted class": "pred",
    "of all rows": "all",
}


def matrix_and_top_k(page: MultilabelPage) -> None:
    """The arg-max confusion matrix, top-k accuracy with its Explain, and (without weights)
    one-vs-one AUC; nothing unless the table is multi-class."""
    p, sm = page.problem, page.sm
    if not (p.multiclass and sm.confusion is not None and sm.top_k is not None):
        return
    st.subheader("Multi-class: arg-max confusion matrix and top-k accuracy")
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
        table(ma.top_k_table(sm), "multilabel_topk_table", {"top-k accuracy": "%.4f"})
        chart(mc.top_k_figure(sm), key="multilabel_topk")
    explain("top-k accuracy", *ma.top_k_explain(sm))
    if p.weight is None:
        st.markdown(ma.one_vs_one_line(*ma.one_vs_one(p)))
        st.caption(
            "One-vs-one averages, over every pair of classes, the AUC of telling those two apart "
            "(each direction, on the rows of the two classes only), so a class that is easy to "
            "tell from the rest but hard to tell from one neighbour counts that difficulty; "
            "scikit-learn's multi_class='ovo'."
        )

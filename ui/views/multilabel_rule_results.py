"""The Multi-label page's decision rule, scored: its cards, the averages with their intervals and
Explains, the per-class table and 2 x 2 matrices, a button per class, and the rule's N x N
matrix."""

from __future__ import annotations

import numpy as np
import streamlit as st

import metrics
from ui.analyses import decision_rules as dr
from ui.analyses import multilabel_rules as mr
from ui.figures.multilabel_charts import ClassScores
from ui.views.explain import explain
from ui.views.multilabel_data import MultilabelPage, show_cards, table
from ui.views.show import chart

RESAMPLES = [0, 200, 500, 1000, 2000]
NORMALIZE = {
    "counts": None,
    "by true class": "true",
    "by predicted class": "pred",
    "of all rows": "all",
}


@st.cache_data(max_entries=16, show_spinner="Scoring the decision rule...")
def evaluate(key: tuple, _problem: ClassScores, _rule: dr.Rule, beta: float) -> dr.Evaluation:
    """The rule's per-class values and averages, cached by ``key``."""
    return dr.evaluate(_problem, _rule, beta=beta)


@st.cache_data(max_entries=16, show_spinner="Resampling the decision's averages...")
def rule_intervals(
    key: tuple,
    _problem: ClassScores,
    _rule: dr.Rule,
    beta: float,
    n: int,
    _groups: np.ndarray | None,
) -> metrics.DecisionIntervals:
    """The bootstrap of the rule's averages, cached by ``key``."""
    return mr.rule_intervals(_problem, _rule, beta, n, _groups)


def _averages(page: MultilabelPage, ev: dr.Evaluation, rule: dr.Rule, beta: float) -> None:
    """The averages table, its warnings, the resamples control and the intervals."""
    table(dr.averages_table(ev), "multilabel_rule_averages", dict.fromkeys(dr.AVERAGES, "%.4f"))
    st.caption(mr.averages_caption(rule.single))
    for line in mr.evaluation_notes(ev):
        st.caption(line)
    n = 0
    if page.current:
        n = st.selectbox(
            "Intervals: resamples",
            RESAMPLES,
            index=RESAMPLES.index(200),
            key="multilabel_resamples",
            help=mr.resamples_help(page.group),
        )
    if n:
        key = (page.signature, rule, beta, n, page.groups is not None)
        spread = rule_intervals(key, page.problem, rule, beta, n, page.groups)
        table(dr.intervals_table(spread, single=rule.single), "multilabel_rule_intervals")
        st.caption(mr.intervals_caption(spread, rule.single, n, page.unit))


def _pick_model(model_name: str) -> None:
    st.session_state["model"] = model_name  # the sidebar's model: Threshold shows it


def class_buttons(page: MultilabelPage) -> None:
    """On the sidebar's dataset, a button per class that makes it the sidebar's model, and a
    link to the Threshold page for the class picked."""
    ds, model, p = page.ds, page.model, page.problem
    columns = ds.mapping.class_columns(ds.mapping.class_model_of(model))  # the model shown
    if not (page.current and all(m in ds.models for m in columns)):
        return
    st.caption(
        "Pick a class to study it alone on the Threshold page (it becomes the sidebar's model):"
    )
    per_row = 6
    for start in range(0, p.n_classes, per_row):
        buttons = st.columns(per_row)
        for c in range(start, min(start + per_row, p.n_classes)):
            buttons[c - start].button(
                str(p.classes[c]),
                key=f"multilabel_open_{c}",
                icon=":material/tune:",
                on_click=_pick_model,
                args=(columns[c],),
                width="stretch",
                type="primary" if model == columns[c] else "secondary",
            )
    if model in columns:
        picked = p.classes[list(columns).index(model)]
        st.page_link(
            "pages/threshold.py",
            label=f"Open {picked} on the Threshold page",
            icon=":material/arrow_forward:",
        )


def _rule_matrix(ev: dr.Evaluation, rule: dr.Rule) -> None:
    """A single-label rule's N x N matrix: abstention's with its own column, else a pointer."""
    if not rule.single:
        return
    if rule.kind != "abstain":
        st.caption("The N × N matrix of argmax is in the multi-class section above.")
        return
    shown = (
        st.segmented_control(
            "N × N matrix of this rule",
            list(NORMALIZE),
            default="counts",
            key="multilabel_rule_normalize",
        )
        or "counts"
    )
    chart(dr.rule_confusion_figure(ev, NORMALIZE[shown]), key="multilabel_rule_matrix")
    st.caption(
        "The last column holds the abstained rows: misses of their true class, predicted as "
        "nothing."
    )


def rule_results(page: MultilabelPage, rule: dr.Rule, beta: float) -> None:
    """Everything the rule gives, from the cards to its N x N matrix."""
    p = page.problem
    ev = evaluate((page.signature, rule), p, rule, beta)
    show_cards(st.columns(5), mr.cards(ev, rule, p.multiclass))
    for line in dr.lessons(ev, p.multiclass):
        st.markdown(line)
    avg_col, explain_col = st.columns([3, 2])
    with avg_col:
        _averages(page, ev, rule, beta)
    with explain_col:
        for avg in dr.AVERAGES:
            explain(f"F1 ({avg})", *dr.explain_lines(ev, avg))
    counts = dict.fromkeys(("support", "TP", "FP", "FN", "TN"), "localized")
    if not page.sm.weighted:
        counts = dict.fromkeys(counts, "%.0f")
    rates = dict.fromkeys(("precision", "recall", f"F{beta:g}", "F1", "Jaccard", "MCC"), "%.4f")
    table(dr.per_class_table(ev), "multilabel_rule_table", counts | rates)
    st.caption(mr.per_class_caption(page.sm.weighted))
    st.markdown("**Each class's 2 × 2 confusion matrix** (rows: truth; columns: prediction)")
    chart(dr.class_matrices_figure(ev), key="multilabel_rule_matrices")
    class_buttons(page)
    _rule_matrix(ev, rule)

"""The Multi-label page's decision rule, chosen: the rule's control, its setting (threshold,
cut-off, k or a table of per-class values), β, and what the rule does with unusual input."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
import streamlit as st

from ui.analyses import decision_rules as dr
from ui.analyses import multilabel_rules as mr
from ui.figures.multilabel_charts import ClassScores
from ui.views.multilabel_data import MultilabelPage

RULE_KEYS = (
    "multilabel_threshold",
    "multilabel_abstain",
    "multilabel_k",
    "multilabel_thr_editor",
    "multilabel_cut_editor",
)
COST_KEYS = (
    "multilabel_cost_editor",
    "multilabel_cost_row",
    "multilabel_cost_row_for",
    "multilabel_cost_class",
)


def start_afresh(page: MultilabelPage) -> None:
    """On a new table, forget the rule's and the costs' settings of the last one."""
    if st.session_state.get("multilabel_rule_for") == page.signature:
        return
    st.session_state["multilabel_rule_for"] = page.signature
    for key in RULE_KEYS:
        st.session_state.pop(key, None)
    st.session_state["multilabel_thr_values"] = None
    for key in COST_KEYS:
        st.session_state.pop(key, None)
    st.session_state["multilabel_cost_values"] = None
    st.session_state["multilabel_cost_current"] = None


def _per_class_values(where: Any, p: ClassScores, column: str, values: list, key: str) -> pd.Series:
    """A table of one editable value per class; returns the column as edited."""
    with where:
        edited = st.data_editor(
            pd.DataFrame({"class": list(p.classes), column: values}),
            hide_index=True,
            disabled=["class"],
            width="stretch",
            height=min(35 * p.n_classes + 38, 300),
            column_config={column: st.column_config.NumberColumn(format="%.4g", required=True)},
            key=key,
        )
    return edited[column]


def _setting(kind: str, where: Any, p: ClassScores, sr: mr.ScoreRange) -> dr.Rule:
    """The control of a rule of this kind (none for argmax); returns the rule it sets."""
    if kind == "abstain":
        cut = where.slider(
            "Abstain when the top score is below",
            *sr.bounds,
            value=float(np.clip(sr.abstain_default, *sr.bounds)),
            step=sr.step,
            key="multilabel_abstain",
        )
        return dr.Rule("abstain", threshold=float(cut))
    if kind == "top-k":
        k = where.number_input("k", 1, p.n_classes, min(2, p.n_classes), 1, key="multilabel_k")
        return dr.Rule("top-k", k=int(k))
    if kind == "shared":
        threshold = where.slider(
            "Threshold (every class)",
            *sr.bounds,
            value=sr.default,
            step=sr.step,
            key="multilabel_threshold",
            help=f"Scores read as {sr.scale.kind}: {sr.scale.reason}.",
        )
        return dr.Rule("shared", threshold=float(threshold))
    if kind == "per-class":
        values = st.session_state.get("multilabel_thr_values") or [sr.default] * p.n_classes
        edited = _per_class_values(where, p, "threshold", values, "multilabel_thr_editor")
        return dr.Rule("per-class", thresholds=mr.typed_values(edited, sr.default))
    if kind == "cut-offs":  # multi-class: each class's own cut-off, from the lowest score
        floors = [sr.floor] * p.n_classes
        edited = _per_class_values(where, p, "cut-off", floors, "multilabel_cut_editor")
        return dr.Rule("cut-offs", thresholds=mr.typed_values(edited, sr.floor))
    return dr.Rule("argmax")


def choose_rule(page: MultilabelPage, sr: mr.ScoreRange) -> tuple[dr.Rule, float]:
    """The rule's control on a row of its own, its setting and β beside each other, the rule in
    words and the notes on the input; returns the rule and β."""
    p = page.problem
    rule_cols = [st.container(), *st.columns([5, 1])]
    if p.multiclass:
        rules, default, key = dr.MULTICLASS_RULES, "argmax", "multilabel_rule_mc"
    else:
        rules, default, key = dr.MULTILABEL_RULES, "one shared threshold", "multilabel_rule_ml"
    rule_name = (
        rule_cols[0].segmented_control("Decision rule", rules, default=default, key=key) or default
    )
    beta = rule_cols[2].number_input(
        "β of F-beta",
        min_value=0.1,
        max_value=10.0,
        value=1.0,
        step=0.5,
        key="multilabel_beta",
        help="β > 1 weighs recall more, β < 1 precision; β = 1 is F1.",
    )
    rule = _setting(dr.rule_kind(rule_name), rule_cols[1], p, sr)
    st.markdown(f"**{rule_name}**: {dr.RULE_LINES[rule_name]}")
    if not p.multiclass:
        st.caption(mr.scale_caption(sr))
    n_dropped = page.ds.prepared.n_dropped if page.current else 0
    for line in mr.input_notes(p, sr.scale.kind, n_dropped):
        st.caption(line)
    return rule, float(beta)

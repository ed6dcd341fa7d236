"""The Multi-label page's threshold section (multi-label): the library's per-class thresholds
against one shared threshold, in-sample and on a held-out half, and buttons that use them."""

from __future__ import annotations

import numpy as np
import streamlit as st

import metrics
from ui.analyses import decision_rules as dr
from ui.analyses import multilabel_thresholds as mt
from ui.figures.multilabel_charts import ClassScores
from ui.views.multilabel_data import MultilabelPage, show_cards, table


@st.cache_data(max_entries=8, show_spinner="Searching thresholds...")
def choices(
    key: tuple, _problem: ClassScores, beta: float
) -> tuple[metrics.ThresholdChoice, metrics.ThresholdChoice]:
    """The macro and micro optima, cached by ``key``."""
    return mt.choices(_problem, beta)


@st.cache_data(max_entries=8, show_spinner="Choosing on half the rows...")
def halves(
    key: tuple, _problem: ClassScores, beta: float, seed: int
) -> dict[str, metrics.HalfSplitChoice]:
    """Thresholds chosen on a random half and reported on the other, cached by ``key``."""
    return mt.halves(_problem, beta, seed)


def _apply(thresholds: np.ndarray) -> None:
    st.session_state["multilabel_thr_values"] = [float(t) for t in thresholds]
    st.session_state.pop("multilabel_thr_editor", None)
    st.session_state["multilabel_rule_ml"] = "per-class thresholds"


def _buttons(
    p: ClassScores, best: metrics.ThresholdChoice, micro: metrics.ThresholdChoice, halved: bool
) -> None:
    """Buttons that put the macro- or micro-optimal thresholds in the per-class rule's table."""
    where = " (chosen on the half)" if halved else ""
    cols = st.columns(2)
    for col, name, choice in zip(cols, ("macro", "micro"), (best, micro), strict=True):
        col.button(
            f"Use the {name}-optimal thresholds{where}",
            key=f"multilabel_apply_{name}",
            on_click=_apply,
            args=(dr.finite_thresholds(p, choice.thresholds),),
            icon=":material/done_all:",
        )
    st.caption(
        "The buttons fill the per-class rule's table above (inf becomes a number just above "
        "the class's highest score: the same predictions)."
    )


def choosing_thresholds(page: MultilabelPage, beta: float) -> None:
    """The threshold search, its cards and table, the held-out check and the buttons; nothing
    for a multi-class table or one of fewer than two rows."""
    p = page.problem
    if p.multiclass or p.n_rows < 2:
        return
    st.subheader("Choosing thresholds")
    fb = f"F{beta:g}"
    best, micro = choices(page.signature, p, beta)
    st.markdown(mt.method_text(fb))
    show_cards(st.columns(4), mt.choice_cards(p, best, micro, fb))
    st.caption(mt.choice_caption(p, best, micro))
    choice_table = dr.thresholds_table(p, best, micro)
    cuts = (choice_table.columns[1], choice_table.columns[3])  # the two thresholds
    formats = {c: "plain" if c in cuts else "%.4f" for c in choice_table.columns[1:]}
    table(choice_table, "multilabel_choice_table", formats)
    st.warning(
        "Thresholds chosen on the rows they are then scored on **overstate**: they fit this "
        "sample's noise. Choose on one half of the rows and report on the other to see by how "
        "much.",
        icon=":material/warning:",
    )
    halved = st.toggle(
        "Choose on a random half, report on the other half", key="multilabel_choose_half"
    )
    if halved:
        split = halves(page.signature, p, beta, 0)
        best, micro = split["macro"].choice, split["micro"].choice
        show_cards(st.columns(4), mt.half_cards(split, fb))
        st.caption(mt.half_caption(split))
    _buttons(p, best, micro, halved)

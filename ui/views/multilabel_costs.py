"""The Multi-label page's cost section (multi-class): the cost matrix and its shortcut, then the
minimum-expected-cost decision against argmax, in totals, matrices, per class and one row
unfolded."""

from __future__ import annotations

import numpy as np
import streamlit as st

from ui.analyses import cost_matrix as cm
from ui.analyses import decision_rules as dr
from ui.analyses.multilabel_rules import ScoreRange
from ui.figures.multilabel_charts import ClassScores
from ui.views.explain import explain
from ui.views.multilabel_data import MultilabelPage, show_cards, table
from ui.views.show import chart


@st.cache_data(max_entries=16, show_spinner="Weighing the costs...")
def costs(
    key: tuple, _problem: ClassScores, _proba: np.ndarray, _cost: np.ndarray
) -> cm.CostResult:
    """Both decisions under ``_cost``, cached by ``key``."""
    return cm.compare(_problem, _proba, _cost)


def _set_cost(values: list | None) -> None:
    st.session_state["multilabel_cost_values"] = values
    st.session_state.pop("multilabel_cost_editor", None)  # the editor restarts from values


def _set_missing(base: np.ndarray, classes: tuple[str, ...]) -> None:
    current = st.session_state.get("multilabel_cost_current")
    start = np.asarray(current if current is not None else base, dtype=float)
    c = list(classes).index(st.session_state["multilabel_cost_class"])
    value = float(st.session_state["multilabel_cost_miss"])
    _set_cost(cm.missing_cost(start, c, value).tolist())


def _matrix(p: ClassScores, base: np.ndarray) -> tuple[np.ndarray | None, str]:
    """The cost matrix, editable cell by cell for a few classes; returns it (None and why when
    a cell is not a cost)."""
    n = p.n_classes
    if n > cm.MAX_EDITABLE:
        st.markdown("**Cost matrix** (rows: true class; columns: predicted class)")
        frame = cm.editor_frame(p.classes, base)
        table(frame, "multilabel_cost_view", height=300)
        st.caption(cm.shortcut_only(n))
        return base, ""
    st.markdown("**Cost matrix** (rows: true class; columns: predicted class; editable)")
    edited = st.data_editor(
        cm.editor_frame(p.classes, base),
        hide_index=True,
        disabled=[cm.CORNER],
        width="stretch",
        height=min(35 * n + 38, 400),
        column_config={
            c: st.column_config.NumberColumn(format="%g", width="small") for c in p.classes
        },
        key="multilabel_cost_editor",
    )
    return cm.parse_cost(edited, p.classes)


def _shortcut(p: ClassScores, base: np.ndarray) -> None:
    """The cost of missing one class, set in one click, and the way back to 0-1."""
    st.markdown("**Shortcut: the cost of missing a class**")
    st.selectbox("Class", p.classes, key="multilabel_cost_class")
    st.number_input(
        "Cost of every wrong prediction for a true row of it",
        min_value=0.0,
        value=5.0,
        step=1.0,
        key="multilabel_cost_miss",
    )
    set_col, reset_col = st.columns(2)
    set_col.button(
        "Set that row",
        key="multilabel_cost_set",
        on_click=_set_missing,
        args=(base, p.classes),
        width="stretch",
    )
    reset_col.button(
        "Reset to 0-1",
        key="multilabel_cost_reset",
        on_click=_set_cost,
        args=(None,),
        width="stretch",
        help="0 on the diagonal, 1 elsewhere: the rule is then argmax.",
    )
    st.caption(
        "Sets the class's row of the matrix (every prediction but itself) and keeps the "
        "other rows; edit any cell afterwards."
    )


def _both_matrices(p: ClassScores, res: cm.CostResult) -> None:
    """The N x N matrices of argmax and of the minimum-expected-cost rule, side by side."""
    normalize = {"counts": None, "by true class": "true"}
    shown = (
        st.segmented_control(
            "Both N × N matrices",
            list(normalize),
            default="counts",
            key="multilabel_cost_normalize",
        )
        or "counts"
    )
    for col, title, counts, key in zip(
        st.columns(2),
        ("argmax", "minimum expected cost"),
        (res.confusion_argmax, res.confusion_min_cost),
        ("multilabel_cost_matrix_argmax", "multilabel_cost_matrix_min"),
        strict=True,
    ):
        with col:
            figure = dr.matrix_figure(counts, p.classes, p.classes, normalize[shown], title=title)
            chart(figure, key=key)


def _one_row(p: ClassScores, res: cm.CostResult, cost: np.ndarray) -> None:
    """The row the user picks (at first the first one the matrix changes), unfolded."""
    if st.session_state.get("multilabel_cost_row_for") != cost.tobytes().hex():
        st.session_state["multilabel_cost_row_for"] = cost.tobytes().hex()
        st.session_state["multilabel_cost_row"] = cm.first_changed(res)
    row_col, rows_col = st.columns([1, 3], vertical_alignment="bottom")
    picked = row_col.number_input(
        "Row to unfold (from 1)", 1, p.n_rows, step=1, key="multilabel_cost_row"
    )
    row = min(int(picked) - 1, p.n_rows - 1)
    rows_col.caption(cm.changed_caption(res))
    explain(f"the expected costs of row {row + 1}", *cm.explain_lines(res, row))
    formats = {"probability": "%.4g", "expected cost if predicted": "%.4g"}
    table(cm.row_table(res, row), "multilabel_cost_row_table", formats)


def _comparison(page: MultilabelPage, cost: np.ndarray, sr: ScoreRange) -> None:
    """The minimum-expected-cost decision against argmax under ``cost``."""
    p = page.problem
    st.session_state["multilabel_cost_current"] = cost.tolist()
    for sentence in cm.dominated(cost, p.classes):
        st.caption(f":material/info: {sentence}")
    prob = cm.probabilities(p.scores, sr.scale.kind, sr.scale.reason)
    st.info(cm.CALIBRATED, icon=":material/info:")
    if prob.refusal:
        st.warning(prob.refusal, icon=":material/block:")
        return
    if prob.normalised:
        st.caption(f":material/info: {prob.note}")
    res = costs((page.signature, cost.tobytes()), p, prob.proba, cost)
    show_cards(st.columns(5), cm.cards(res, p.n_rows, p.weight is not None))
    st.markdown(cm.summary(res))
    _both_matrices(p, res)
    recall = dict.fromkeys(("recall, argmax", "recall, min cost"), "%.4f")
    totals = dict.fromkeys(("cost, argmax", "cost, min cost"), "%.4g")
    table(
        cm.class_table(res), "multilabel_cost_table", recall | {"recall change": "%+.4f"} | totals
    )
    st.caption(cm.CLASS_TABLE_NOTE)
    _one_row(p, res, cost)


def cost_section(page: MultilabelPage, sr: ScoreRange) -> None:
    """The whole cost section; nothing unless the table is multi-class with rows."""
    p = page.problem
    if not (p.multiclass and p.n_rows):
        return
    st.subheader("Costs: the minimum-expected-cost decision against argmax")
    st.markdown(cm.INTRO)
    base = cm.kept_cost(st.session_state.get("multilabel_cost_values"), p.n_classes)
    matrix_col, fill_col = st.columns([3, 2])
    with matrix_col:
        cost, problem = _matrix(p, base)
    with fill_col:
        _shortcut(p, base)
    if cost is None:
        st.warning(problem, icon=":material/warning:")
    else:
        _comparison(page, cost, sr)

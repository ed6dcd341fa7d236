"""The Multi-label page's threshold-free sections: the averaging mode with its cards, the
per-class tables and bars, and the per-class and micro curves."""

from __future__ import annotations

from typing import Any

import numpy as np
import streamlit as st

import metrics
from ui.analyses import multilabel_averages as ma
from ui.figures import multilabel_charts as mc
from ui.views.explain import explain
from ui.views.multilabel_data import MultilabelPage, show_notes, table
from ui.views.show import chart


@st.cache_data(max_entries=8, show_spinner="Resampling the averages of AP and AUC...")
def averaged_intervals(
    key: tuple, _problem: mc.ClassScores, n: int, _groups: np.ndarray | None
) -> metrics.MulticlassComparison:
    """The bootstrap of the averaged AP and AUC, cached by ``key``."""
    return ma.averaged_intervals(_problem, n, _groups)


def bars(sm: mc.AveragingSummary, where: Any, height: int | None = None) -> None:
    """The per-class bars with the four averages as lines (AP or AUC)."""
    with where:
        metric = (
            st.segmented_control("Bars", ["AP", "AUC"], default="AP", key="multilabel_bar_metric")
            or "AP"
        )
        fig = mc.per_class_bar_figure(sm, metric)
        chart(fig.update_layout(height=height) if height else fig, key="multilabel_bars")


def _mode_cards(page: MultilabelPage, cards_key: str) -> str:
    """The averaging control, its line, the AP and AUC cards and their intervals; returns the
    mode."""
    sm = page.sm
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
    cards = [st.container(key=cards_key)] * 3 if page.presenting else st.columns(3)
    if mode == "per class":
        chosen = cards[0].selectbox("Class", sm.classes, key="multilabel_class")
        c = sm.classes.index(chosen)
        ap_value, auc_value, label = sm.ap_per_class[c], sm.auc_per_class[c], chosen
        cards = cards if page.presenting else st.columns(3)
    else:
        ap_value, auc_value, label = sm.ap[mode], sm.auc[mode], mode
    cards[0].metric(f"AP ({label})", mc.fmt(ap_value))
    cards[1].metric(f"AUC ({label})", mc.fmt(auc_value))
    cards[2].metric("mAP (macro AP)", mc.fmt(sm.ap["macro"]), help="The mean of the per-class APs.")
    # The resamples are chosen with the decision rule's averages; off a projector's first
    # screen, the averages of AP and AUC show their intervals here too.
    n = st.session_state.get("multilabel_resamples", 200) if page.current else 0
    if n and mode in ma.INTERVAL_MODES and not page.presenting:
        ds = page.ds
        key = (ds.key, ds.prepared.n_dropped, page.problem.name, n, page.groups is not None)
        band = averaged_intervals(key, page.problem, n, page.groups)
        st.caption(ma.averaged_intervals_caption(band, mode, n, page.unit))
    return mode


def averaging(page: MultilabelPage, cards_key: str) -> None:
    """The averaging mode, its cards and notes, and an Explain per mode (in presentation mode
    the per-class bars sit beside them, in the container named ``cards_key`` the cards)."""
    if page.presenting:
        average_col, bar_col = st.columns([1.45, 1.8])  # "per class" whole at the mode's size
    else:
        st.subheader("Averaging")
        average_col = bar_col = st.container()
    with average_col:
        mode = _mode_cards(page, cards_key)
    if page.presenting:
        bars(page.sm, bar_col, height=365)
    show_notes(page.sm, ("AP", mode), ("AUC", mode))
    st.caption(mc.LEFT_OUT)
    if mode == "samples" and page.sm.n_rows_without_label:
        st.caption(ma.samples_caption(page.sm))
    for m in mc.MODES:
        explain(f"{m} average", *ma.mode_explain(page.sm, m))


def per_class(page: MultilabelPage) -> None:
    """The per-class and averages tables, and the bars (unless presentation mode drew them)."""
    sm = page.sm
    st.subheader("Per class")
    table_col, chart_col = st.columns([2, 3])
    with table_col:
        positives = st.column_config.NumberColumn(
            format="%.0f" if not sm.weighted else "%.3f",
            help="Rows with this label (their total sample weight when weighted).",
        )
        share = st.column_config.NumberColumn(
            format="%.4f", help="Positives of the class / positives of all classes."
        )
        table(
            mc.per_class_table(sm),
            "multilabel_class_table",
            {"AP": "%.4f", "AUC": "%.4f"},
            column_config={"positives": positives, "weight w_c": share},
        )
        table(mc.averages_table(sm), "multilabel_average_table", {"AP": "%.4f", "AUC": "%.4f"})
        st.caption("None = undefined: AP with no positives, AUC with one class only.")
    with chart_col:
        if not page.presenting:
            bars(sm, st.container())
        st.caption(
            "Bars: each class alone, its weight w_c under its name. Lines: the four averages; a "
            "rare class moves macro as much as a frequent one, but barely moves weighted."
        )


def curves(page: MultilabelPage) -> None:
    """The per-class curves and the micro curve, PR or ROC."""
    st.subheader("Per-class curves and the micro curve")
    curve = (
        st.segmented_control("Curve", ["PR", "ROC"], default="PR", key="multilabel_curve") or "PR"
    )
    chart(mc.curves_figure(page.sm, "pr" if curve == "PR" else "roc"), key="multilabel_curves")
    st.caption(ma.curves_caption(page.problem, page.sm, curve))

"""The Detection page's "Why the numbers differ" section: the walk from one convention's mAP
to another's, one rule at a time on the user's boxes (a sentence a rule, a waterfall, the
table), and TIDE's error breakdown (table and bars)."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from metrics.detection import CONVENTIONS
from metrics.detection.rules import COCO_RANGE
from ui.compute import detection_why_compute as wc
from ui.figures.detection_charts import CONVENTION_LABELS
from ui.figures.detection_why_charts import convention_waterfall_figure, tide_figure
from ui.views.show import chart
from ui.words.detection_why_text import (
    ORDER_NOTE,
    TIDE_NOTE,
    points,
    rule_sentence,
    walk_summary,
)

__all__ = ["render"]

_IOUS = [0.5, 0.55, 0.6, 0.65, 0.7, 0.75, 0.8, 0.85, 0.9, 0.95]


def _walk(gt_key: str, det_key: str, gt, dt) -> None:
    c1, c2, c3 = st.columns(3)
    src = c1.selectbox(
        "From", CONVENTIONS, index=0, format_func=CONVENTION_LABELS.get, key="detection_why_from"
    )
    dst = c2.selectbox(
        "To", CONVENTIONS, index=1, format_func=CONVENTION_LABELS.get, key="detection_why_to"
    )
    with c3:
        every = st.checkbox(
            "Average over IoU 0.50:0.95",
            key="detection_why_range",
            help="COCO's AP@[.5:.95] and Ultralytics' mAP50-95 average each class over the "
            "ten thresholds 0.50, 0.55, ..., 0.95; each step is then averaged the same way.",
        )
        iou = st.select_slider(
            "IoU threshold", options=_IOUS, value=0.5, key="detection_why_iou", disabled=every
        )
    iou = COCO_RANGE if every else float(iou)
    walk = wc.effects(gt_key, det_key, src, dst, iou, gt, dt)
    src_l, dst_l = CONVENTION_LABELS[src], CONVENTION_LABELS[dst]
    st.markdown(walk_summary(walk, src_l, dst_l, iou))
    if src == dst:
        st.info("Pick two different conventions to see which rules separate them.")
        return
    if walk["ap_before"].isna().iloc[0] and walk["ap_after"].isna().iloc[-1]:
        return
    differs = walk[walk["setting_from"] != walk["setting_to"]]
    st.markdown("\n".join(f"- {rule_sentence(row)}" for _, row in differs.iterrows()))
    chart(
        convention_waterfall_figure(walk, from_label=src_l, to_label=dst_l),
        key="detection_why_waterfall",
    )
    shown = pd.DataFrame(
        {
            "step": walk["step"],
            "rule": walk["label"],
            "from": walk["setting_from"],
            "to": walk["setting_to"],
            "what changes on these boxes": walk["change"],
            "detections changed": walk["n_changed"],
            "mAP before": [points(v) for v in walk["ap_before"]],
            "mAP after": [points(v) for v in walk["ap_after"]],
            "difference": [points(v, plus=True) for v in walk["difference"]],
            "category moved most": walk["largest_category"],
            "its change": [points(v, plus=True) for v in walk["largest_category_change"]],
        }
    )
    st.dataframe(shown, hide_index=True, key="detection_why_table")
    st.caption(ORDER_NOTE)


def _tide(gt_key: str, det_key: str, gt, dt) -> None:
    st.markdown("#### Errors in the manner of TIDE")
    ap, table = wc.tide(gt_key, det_key, gt, dt)
    st.markdown(f"TIDE's mAP at IoU 0.5 on these boxes: **{points(ap)}** AP points.")
    shown = pd.DataFrame(
        {
            "error": table["label"],
            "count": table["count"],
            "dAP (AP points)": [points(v, plus=True) for v in table["dap"]],
        }
    )
    st.dataframe(shown, hide_index=True, key="detection_why_tide")
    chart(tide_figure(table), key="detection_why_tide_bars")
    st.caption(TIDE_NOTE)


def render(gt_key: str, det_key: str, gt, dt) -> None:
    """The section, below the conventions side by side."""
    st.subheader("Why the numbers differ")
    try:
        _walk(gt_key, det_key, gt, dt)
        _tide(gt_key, det_key, gt, dt)
    except ValueError as exc:  # the boxes were read above; keep the page if a step refuses
        st.error(" ".join(str(exc).split()), icon=":material/error:")

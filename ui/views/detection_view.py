"""The Detection page: COCO's 12 numbers on the user's boxes, AP per category, the PR curves each
convention integrates and every convention's AP side by side."""

from __future__ import annotations

from contextlib import nullcontext

import numpy as np
import pandas as pd
import streamlit as st

from metrics.detection import CONVENTIONS, STAT_NAMES
from ui.compute import detection_compute as dc
from ui.figures.detection_charts import CONVENTION_LABELS, pr_curve_figure
from ui.views import detection_compare, detection_image, detection_why
from ui.views.show import chart

NEEDS = (
    "This page needs boxes: a ground truth (COCO JSON, a CSV/Parquet table image_id, category, "
    "x, y, w, h, or a zip of YOLO labels) and detections in the same layout with a score."
)
TYPES = ["json", "csv", "parquet", "zip"]


def _files():
    """(ground truth, the first detections, every detection file), None until both are given."""
    left, right = st.columns(2)
    gt = left.file_uploader("Ground truth", type=TYPES, key="detection_gt")
    dets = right.file_uploader(
        "Detections (two or more files to compare detectors)",
        type=TYPES,
        key="detection_det",
        accept_multiple_files=True,
    )
    if gt is None or not dets:
        given = dc.app_files()  # metrics-lens app --gt GT DET...
        if given is not None and gt is None and not dets:
            return given[0], given[1][0], given[1]
        return None, None, None
    files = tuple((d.name, d.getvalue()) for d in dets)
    return (gt.name, gt.getvalue()), files[0], files


def _pr_curves(ev, gt_key, det_key, gt, dt, menus) -> None:
    """The PR curves at IoU 0.5 and 0.75 of one category under one convention; ``menus`` holds
    the two menus (the page, or presentation mode's popover)."""
    cats = [int(c) for c in ev.category_ids]
    names = dict(zip(cats, ev.category_names, strict=True))
    has_gt = [c for c, n in zip(cats, ev.counts["gt"], strict=True) if n > 0] or cats
    c1, c2 = menus.columns(2)
    category = c1.selectbox(
        "Category", has_gt, format_func=lambda c: f"{names[c]} ({c})", key="detection_category"
    )
    convention = c2.selectbox(
        "Convention", CONVENTIONS, format_func=CONVENTION_LABELS.get, key="detection_convention"
    )
    cols = st.columns(2)
    for col, iou in zip(cols, (0.5, 0.75), strict=True):
        with col:
            cv = dc.curve(gt_key, det_key, category, convention, iou, gt, dt)
            chart(pr_curve_figure(cv), key=f"detection_pr_{int(iou * 100)}")


def render() -> None:
    st.title("Detection")
    # Presentation mode opens on the PR curves: the files, what the page needs and the menus
    # wait in a closed box and a popover (the sidebar, where other pages keep them, is hidden).
    presenting = bool(st.session_state.get("presentation"))
    if presenting:
        left, right = st.columns([2, 1])
        files_box, menus = left.expander("The boxes"), right.popover("Category and convention")
    else:
        files_box, menus = nullcontext(), st
    with files_box:
        st.caption(NEEDS)
        gt_file, det_file, det_files = _files()
    gt_key = dc.key_of(*gt_file) if gt_file else dc.EXAMPLE
    det_key = dc.key_of(*det_file) if det_file else dc.EXAMPLE
    try:
        gt, dt, what = dc.boxes(gt_key, det_key, gt_file, det_file)
        ev = dc.evaluation(gt_key, det_key, gt, dt)
    except ValueError as exc:
        st.error(" ".join(str(exc).split()), icon=":material/error:")
        return
    if presenting:
        _pr_curves(ev, gt_key, det_key, gt, dt, menus)
    st.markdown(f"Showing **{what}**: {len(gt):,} ground-truth boxes, {len(dt):,} detections.")
    for note in ev.notes:
        st.info(note)

    st.subheader("COCO summary (pycocotools' 12 numbers)")
    st.code(ev.summary_text(), language=None)
    st.dataframe(
        pd.DataFrame({"stat": STAT_NAMES, "value": ev.stats}),
        hide_index=True,
        key="detection_stats",
    )

    st.subheader("AP per category")
    st.dataframe(ev.per_class, hide_index=True, key="detection_per_class")

    if not presenting:
        st.subheader("PR curves")
        _pr_curves(ev, gt_key, det_key, gt, dt, st)

    st.subheader("Every convention side by side")
    iou = st.select_slider(
        "IoU threshold",
        options=[0.5, 0.55, 0.6, 0.65, 0.7, 0.75, 0.8, 0.85, 0.9, 0.95],
        value=0.5,
        key="detection_iou",
    )
    table = dc.conventions(gt_key, det_key, float(iou), gt, dt)
    means = table.mean(skipna=True)
    st.dataframe(
        pd.DataFrame(
            {
                "convention": [CONVENTION_LABELS[c] for c in CONVENTIONS],
                f"mAP@{iou:g}": [means[c] for c in CONVENTIONS],
            }
        ),
        hide_index=True,
        key="detection_conventions",
    )
    shown = table.copy()
    names = dict(zip((int(c) for c in ev.category_ids), ev.category_names, strict=True))
    shown.insert(0, "name", [names[int(c)] for c in shown.index])
    st.dataframe(shown.replace({np.nan: None}), key="detection_conventions_per_class")
    st.caption(
        "COCO: IoU ≥ t, the best free ground truth, crowd regions absorb detections, 100 an "
        "image, 101 recall points. VOC: overlap strictly above t with +1 pixel sizes, only the "
        "best-overlapping object, difficult ignored; 2007 reads 11 points, 2010+ every step. "
        "Ultralytics: crowd and difficult dropped, each prediction's best object, the first "
        "prediction per object, 101 np.interp points (a perfect class scores 0.995)."
    )

    detection_image.render(gt, dt, gt_key, det_key)
    detection_compare.render(gt, dt, gt_key, det_files)
    detection_why.render(gt_key, det_key, gt, dt)

"""The Detection page's "One image's boxes" section and its lesson: the image whose errors cost
most (or any other), its ground truths and detections drawn with each detection's outcome at
the IoU threshold chosen, and the greedy match walked step by step on it."""

from __future__ import annotations

import numpy as np
import streamlit as st

from metrics.detection import AREA_LABELS, OUTCOMES
from ui.compute import detection_explain as de
from ui.figures.detection_image import image_boxes_figure
from ui.teaching import detection_lesson as lesson
from ui.views import callbacks
from ui.views.show import chart, csv_download
from ui.words.safe import md

__all__ = ["IOU_OPTIONS", "render"]

VOC = "VOC 0.5"
# COCO's ten thresholds, and PASCAL VOC's rule at 0.5 (overlap strictly above, +1 pixel sizes,
# a detection looks only at its best object).
IOU_OPTIONS = [VOC, *(round(0.5 + 0.05 * i, 2) for i in range(10))]
STEP = "detection_greedy_step"


def _iou_label(v) -> str:
    return "VOC 0.5 (>, +1 px)" if v == VOC else f"{v:.2f}"


def _image_label(costs, i: int) -> str:
    c = costs.cost[i]
    said = f"mAP cost {c * 100:+.2f} pt" if np.isfinite(c) else "cost not computed"
    return (
        f"{costs.image_ids[i]} · {int(costs.fp[i])} FP, {int(costs.missed[i])} missed @0.5 · {said}"
    )


def _choose_image(costs) -> int:
    order = np.argsort(-np.nan_to_num(costs.cost, nan=-np.inf), kind="stable")
    options = [int(i) for i in order]
    return st.selectbox(
        "Image (the costliest first)",
        options,
        index=0,
        format_func=lambda i: _image_label(costs, i),
        key="detection_image",
        help="mAP cost: COCO mAP@[.5:.95] with the image left out minus with it — how many "
        "points the image's errors take from the mAP. Computed for the images with the most "
        "errors (all of a small set).",
    )


def _counts_line(match) -> str:
    c = match.counts()
    parts = [f"{v} {OUTCOMES[k]}" for k, v in c.items() if v]
    found = int((match.gt_outcome == "found").sum())
    missed = int((match.gt_outcome == "missed").sum())
    return (
        f"{match.det_rows.size} detections: "
        + (", ".join(parts) if parts else "none")
        + f". Objects: {found} found, {missed} missed."
    )


def _lesson(match, gt, threshold: float, convention: str) -> None:
    cats = sorted({int(c) for c in match.category})
    if not cats:
        st.markdown("This image has no detections to walk.")
        return
    first = lesson.default_category(match, gt)
    category = st.selectbox(
        "Category",
        cats,
        index=cats.index(first),
        format_func=lambda c: md(gt.category_names[c], 60),
        key="detection_greedy_category",
    )
    walk = lesson.greedy_walk(match, gt, category)
    n = len(walk) - 1
    owner = (match.image_id, category, threshold, convention, match.area)
    if st.session_state.get(f"{STEP}_for") != owner:  # another image or category: step 0
        st.session_state[f"{STEP}_for"] = owner
        st.session_state[STEP] = 0
    st.session_state[STEP] = int(min(max(st.session_state.get(STEP, 0), 0), n))
    c1, c2, c3 = st.columns([1, 1, 1.4], vertical_alignment="bottom")
    c1.button(
        "Previous", key="detection_greedy_prev", on_click=callbacks.add_to_state,
        args=(STEP, -1, 0, n), icon=":material/arrow_back:", width="stretch",
        disabled=st.session_state[STEP] == 0,
    )  # fmt: skip
    c2.button(
        "Next", key="detection_greedy_next", on_click=callbacks.add_to_state,
        args=(STEP, 1, 0, n), icon=":material/arrow_forward:", width="stretch",
        type="primary", disabled=st.session_state[STEP] == n,
    )  # fmt: skip
    c3.number_input(f"Step (of {n})", min_value=0, max_value=n, step=1, key=STEP)
    k = int(st.session_state[STEP])
    with st.container(border=True, key="detection_greedy_change"):
        st.markdown(
            f"**Step {k} of {n}** · "
            + md(lesson.step_text(walk, k, threshold=threshold, convention=convention), 600)
        )
    st.html(lesson.steps_html(walk, k), width="stretch")
    csv_download(
        "Every step (CSV)",
        walk,
        f"greedy-match-image-{match.image_id}.csv",
        key="detection_greedy_csv",
    )
    st.caption(
        "The same outcomes as the picture above and as the evaluation counts them: each "
        "detection, from the highest score down, takes the free object it overlaps best if "
        "the IoU reaches the threshold (COCO prefers an object that counts over a crowd "
        "region, which absorbs any number of detections). PASCAL VOC looks only at its best "
        "object, taken or not. Precision and recall here are this image's alone; the AP "
        "pools every image's steps of the category by score."
    )


def render(gt, dt, gt_key: str, det_key: str) -> None:
    """The section: picker, threshold, the drawing, the counts and the lesson."""
    st.subheader("One image's boxes")
    if gt.n_images == 0:
        st.info("The ground truth has no images to draw.")
        return
    costs = de.costs(gt_key, det_key, gt, dt)
    if st.session_state.get("detection_image_for") != (gt_key, det_key):
        # other boxes: start again at their costliest image, not at the old one's position
        st.session_state["detection_image_for"] = (gt_key, det_key)
        st.session_state.pop("detection_image", None)
    i = _choose_image(costs)
    c1, c2, c3 = st.columns([2.2, 1, 1])
    choice = c1.select_slider(
        "IoU threshold",
        options=IOU_OPTIONS,
        value=0.5,
        format_func=_iou_label,
        key="detection_image_iou",
        help="COCO's ten thresholds (a match needs IoU ≥ t) and PASCAL VOC's rule at 0.5.",
    )
    voc = choice == VOC
    threshold = 0.5 if voc else float(choice)
    area = c2.selectbox(
        "Area range",
        AREA_LABELS,
        key="detection_image_area",
        disabled=voc or not gt.has_areas,
        help="COCO's area ranges: small < 32², medium < 96², large above. Objects outside "
        "the range, and unmatched detections outside it, are ignored.",
    )
    min_score = c3.number_input(
        "Hide scores below", value=None, step=0.05, placeholder="show every box",
        key="detection_image_min_score",
    )  # fmt: skip
    convention = "voc" if voc else "coco"
    area = "all" if voc or not gt.has_areas else area
    image_id = (
        costs.image_ids[i].item() if hasattr(costs.image_ids[i], "item") else costs.image_ids[i]
    )
    match = de.image_match(gt_key, det_key, image_id, threshold, convention, area, gt, dt)
    chart(
        image_boxes_figure(match, gt, min_score=-np.inf if min_score is None else min_score),
        key="detection_image_boxes",
        name=f"boxes-image-{image_id}",
    )
    st.markdown(md(_counts_line(match), 400))
    if np.isfinite(costs.cost[i]):
        st.caption(
            f"Leaving image {md(str(image_id), 40)} out moves COCO mAP@[.5:.95] from "
            f"{costs.map:.4f} to {costs.map + costs.cost[i]:.4f}."
        )
    with st.expander("How the greedy match walks this image, step by step"):
        _lesson(match, gt, threshold, convention)

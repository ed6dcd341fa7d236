"""One image's boxes: the ground truths and the detections drawn as Plotly shapes on an axis in
image coordinates (y down), each detection coloured by its outcome, with its score, its IoU and
what it took in the hover. Values in (a :class:`metrics.detection.ImageMatch`), figure out; no
Streamlit.
"""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from metrics.detection import GroundTruth, ImageMatch
from metrics.detection.explain import GT_OUTCOMES, OUTCOMES

__all__ = ["GT_COLOURS", "OUTCOME_COLOURS", "image_boxes_figure"]

OUTCOME_COLOURS = {
    "tp": "#2ca02c",
    "duplicate": "#ff7f0e",
    "fp": "#d62728",
    "crowd": "#7f7f7f",
    "area": "#7f7f7f",
    "difficult": "#7f7f7f",
    "capped": "#c7c7c7",
}
GT_COLOURS = {
    "found": "#1f77b4",
    "missed": "#9467bd",
    "crowd": "#17becf",
    "area": "#8c564b",
    "difficult": "#8c564b",
}
_IGNORED = {"crowd", "area", "difficult", "capped"}


def _extent(match: ImageMatch, gt: GroundTruth) -> tuple[float, float]:
    """The image's width and height: its size where known, else the boxes' extent."""
    if gt.image_sizes is not None and np.isfinite(gt.image_sizes[match.image]).all():
        w, h = gt.image_sizes[match.image]
        if w > 0 and h > 0:
            return float(w), float(h)
    boxes = np.vstack([match.boxes, gt.boxes[match.gt_rows]]) if match.gt_rows.size else match.boxes
    if boxes.size == 0:
        return 1.0, 1.0
    return float(max((boxes[:, 0] + boxes[:, 2]).max(), 1e-9)), float(
        max((boxes[:, 1] + boxes[:, 3]).max(), 1e-9)
    )


def _rect(box, colour: str, *, width: float, dash: str, opacity: float) -> dict:
    x, y, w, h = (float(v) for v in box)
    return dict(
        type="rect", x0=x, y0=y, x1=x + w, y1=y + h, xref="x", yref="y",
        line=dict(color=colour, width=width, dash=dash), opacity=opacity, layer="above",
    )  # fmt: skip


def image_boxes_figure(
    match: ImageMatch,
    gt: GroundTruth,
    *,
    min_score: float = 0.0,
    height: int = 520,
) -> go.Figure:
    """Ground truths (solid, thick) and detections (thin; dashed when ignored) of one image.

    Each outcome is one legend entry; hovering a box's corner marker shows the detection's
    category, score, outcome and IoU (with the object it took, or its best overlap). Lower
    scores are drawn fainter. Detections scoring below ``min_score`` are left out (their count
    is in the title).
    """
    width_px, height_px = _extent(match, gt)
    fig = go.Figure()
    shapes: list[dict] = []
    ann = gt.ann_id
    # Ground truths first, so the detections are drawn over them.
    for kind in GT_OUTCOMES:
        cols = np.flatnonzero(match.gt_outcome == kind)
        if cols.size == 0:
            continue
        rows = match.gt_rows[cols]
        colour = GT_COLOURS[kind]
        for r in rows:
            shapes.append(_rect(gt.boxes[r], colour, width=3.5, dash="solid", opacity=0.9))
        text = [
            f"annotation {int(ann[r])} · {gt.category_names[gt.category[r]]}<br>"
            f"ground truth, {GT_OUTCOMES[kind]}"
            + (f"<br>taken by detection {int(match.gt_matched_by[c])}" if kind == "found" else "")
            + f"<br>area {gt.area[r]:,.0f}"
            for r, c in zip(rows, cols, strict=True)
        ]
        fig.add_trace(
            go.Scatter(
                x=gt.boxes[rows, 0] + gt.boxes[rows, 2],
                y=gt.boxes[rows, 1] + gt.boxes[rows, 3],
                mode="markers",
                marker=dict(symbol="square", size=9, color=colour),
                name=f"ground truth: {GT_OUTCOMES[kind]} ({rows.size})",
                text=text,
                hovertemplate="%{text}<extra></extra>",
                legendgroup="gt",
            )
        )
    shown = match.score >= min_score
    top = float(match.score.max()) if match.score.size else 1.0
    for kind, label in OUTCOMES.items():
        idx = np.flatnonzero((match.outcome == kind) & shown)
        if idx.size == 0:
            continue
        colour = OUTCOME_COLOURS[kind]
        dash = "dash" if kind in _IGNORED else "solid"
        for j in idx:
            fade = 0.35 + 0.65 * (match.score[j] / top if top > 0 else 1.0)
            shapes.append(_rect(match.boxes[j], colour, width=2.0, dash=dash, opacity=fade))
        text = []
        for j in idx:
            line = (
                f"detection {int(match.det_rows[j])} · {gt.category_names[match.category[j]]}"
                f"<br>score {match.score[j]:.4g} · {label}"
            )
            if match.matched_gt[j] >= 0:
                line += (
                    f"<br>IoU {match.iou[j]:.3f} with annotation {int(ann[match.matched_gt[j]])}"
                )
            elif match.best_gt[j] >= 0:
                line += (
                    f"<br>best IoU {match.best_iou[j]:.3f} "
                    f"(annotation {int(ann[match.best_gt[j]])})"
                )
            else:
                line += "<br>no ground truth of its category here"
            text.append(line)
        fig.add_trace(
            go.Scatter(
                x=match.boxes[idx, 0],
                y=match.boxes[idx, 1],
                mode="markers",
                marker=dict(size=8, color=colour, line=dict(color="white", width=1)),
                name=f"{label} ({idx.size})",
                text=text,
                hovertemplate="%{text}<extra></extra>",
                legendgroup=kind,
            )
        )
    hidden = int((~shown).sum())
    rule = (
        f"VOC overlap > {match.iou_threshold:g}"
        if match.convention == "voc"
        else f"COCO IoU ≥ {match.iou_threshold:.2f}"
    )
    title = f"Image {match.image_id}: {rule}"
    if match.convention == "coco" and match.area != "all":
        title += f", area {match.area}"
    if hidden:
        title += (
            f" · {hidden} detection{'s' if hidden != 1 else ''} below score {min_score:g} hidden"
        )
    fig.update_layout(
        shapes=shapes,
        title=dict(text=title, font=dict(size=14)),
        height=height,
        margin=dict(l=40, r=10, t=40, b=40),
        xaxis=dict(range=[0, width_px], title="x (pixels)", constrain="domain", showgrid=False),
        yaxis=dict(
            range=[height_px, 0],  # image coordinates: y grows downwards
            title="y (pixels)",
            scaleanchor="x",
            scaleratio=1,
            showgrid=False,
        ),
        legend=dict(orientation="h", y=1.02, x=0),  # moved below by show.finish
        plot_bgcolor="#fafafa",
    )
    return fig

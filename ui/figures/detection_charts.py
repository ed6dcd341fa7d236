"""Detection PR curves: the raw curve, the envelope a convention integrates and the points it
reads (COCO's 101, VOC 2007's 11, VOC 2012's every recall step, Ultralytics' 101 interpolated).
Values in, figure out; no Streamlit.
"""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from metrics.detection import DetectionPRCurve
from ui.figures.charts import MAX_POINTS, PALETTE, sample_indices

__all__ = ["CONVENTION_LABELS", "pr_curve_figure"]

CONVENTION_LABELS = {
    "coco": "COCO (pycocotools)",
    "voc07": "PASCAL VOC 2007 (11 points)",
    "voc12": "PASCAL VOC 2010+ (all points)",
    "ultralytics": "Ultralytics (101-point interp)",
}


def pr_curve_figure(curve: DetectionPRCurve, *, title: str | None = None) -> go.Figure:
    """The curve's points, its envelope (a step line) and the sampled points as markers."""
    keep = sample_indices(curve.recall.size, MAX_POINTS)
    rc, pr, env = curve.recall[keep], curve.precision[keep], curve.envelope[keep]
    fig = go.Figure()
    fig.add_trace(
        go.Scatter(
            x=rc,
            y=pr,
            mode="markers",
            name="precision",
            marker=dict(size=4, color=PALETTE[0], opacity=0.5),
        )
    )
    fig.add_trace(
        go.Scatter(
            x=rc,
            y=env,
            mode="lines",
            name="interpolated envelope",
            line=dict(color=PALETTE[1], width=2, shape="vh"),
        )
    )
    n = curve.sample_recall.size
    fig.add_trace(
        go.Scatter(
            x=curve.sample_recall,
            y=curve.sample_precision,
            mode="markers",
            name=f"{n} sampled points",
            marker=dict(size=6, color=PALETTE[3], symbol="x"),
        )
    )
    ap = "n/a" if np.isnan(curve.ap) else f"{curve.ap:.4f}"
    label = CONVENTION_LABELS.get(curve.convention, curve.convention)
    fig.update_layout(
        title=title or f"{label}, IoU {curve.iou_threshold:g}: AP {ap}",
        xaxis=dict(title="recall", range=[0, 1.02]),
        yaxis=dict(title="precision", range=[0, 1.05]),
        legend=dict(orientation="h", y=1.02, x=0),  # moved below the axis title by show.finish
    )
    return fig

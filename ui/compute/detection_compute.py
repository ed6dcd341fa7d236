"""The Detection page's cached results, keyed by the files' bytes: read the boxes once, then
the COCO evaluation, every convention's AP and the PR curves a widget asks for."""

from __future__ import annotations

import hashlib
import tempfile
from pathlib import Path

import streamlit as st

from metrics import detection

EXAMPLE = "example"  # the seeded synthetic example's key


def _read(name: str, data: bytes, gt=None):
    """Boxes from an upload: the reader picks the format from the name, as for a path."""
    suffix = Path(name).suffix.lower()
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / f"upload{suffix}"
        path.write_bytes(data)
        if gt is None:
            return detection.load_ground_truth(path)
        return detection.load_detections(path, gt)


# Set by ``metrics-lens app --gt GT DET...`` (metrics_lens.dashboard): the files' names under
# METRICS_LENS_DATA_DIR, {"gt": name, "detections": [name, ...]}.
BOXES_ENV = "METRICS_LENS_BOXES"


def app_files() -> tuple[tuple[str, bytes], tuple[tuple[str, bytes], ...]] | None:
    """The ground truth and detections ``metrics-lens app --gt`` was given, as (name, bytes)
    like an upload, or None. Only base names are taken from the environment: nothing outside
    the data directory is read."""
    import json
    import os

    from ui.compute.server_source import data_root

    try:
        spec = json.loads(os.environ[BOXES_ENV])
        root = data_root()
        names = [Path(str(spec["gt"])).name, *(Path(str(d)).name for d in spec["detections"])]
        files = tuple((name, (root / name).read_bytes()) for name in names)
    except (KeyError, TypeError, ValueError, OSError):
        return None
    return (files[0], files[1:]) if len(files) > 1 else None


def key_of(name: str, data: bytes) -> str:
    return f"{name}:{hashlib.sha256(data).hexdigest()[:16]}"


@st.cache_data(max_entries=4, show_spinner="Reading the boxes...")
def boxes(gt_key: str, det_key: str, _gt_file: tuple | None, _det_file: tuple | None):
    """(ground truth, detections, what they are), from the uploads or the example."""
    if _gt_file is None:
        gt, dt = detection.synthetic_coco(n_images=80, n_cats=8, dets_per_image=40, seed=7)
        g = detection.load_ground_truth(gt)
        return (
            g,
            detection.load_detections(dt, g),
            ("a seeded synthetic example (80 images, 8 categories; COCO-shaped, not real data)"),
        )
    g = _read(*_gt_file)
    d = _read(*_det_file, gt=g)
    return g, d, f"{_gt_file[0]} and {_det_file[0]}"


@st.cache_data(max_entries=4, show_spinner="Evaluating as pycocotools does...")
def evaluation(gt_key: str, det_key: str, _gt, _dt) -> detection.COCOEvaluation:
    return detection.coco_evaluate(_gt, _dt)


@st.cache_data(max_entries=8, show_spinner="AP under every convention...")
def conventions(gt_key: str, det_key: str, iou: float, _gt, _dt):
    import pandas as pd

    return pd.DataFrame(
        {
            c: detection.detection_ap(_gt, _dt, convention=c, iou_threshold=iou)
            for c in detection.CONVENTIONS
        }
    )


@st.cache_data(max_entries=32, show_spinner=False)
def curve(gt_key: str, det_key: str, category: int, convention: str, iou: float, _gt, _dt):
    return detection.detection_pr_curve(
        _gt, _dt, category=category, convention=convention, iou_threshold=iou
    )


__all__ = ["EXAMPLE", "boxes", "conventions", "curve", "evaluation", "key_of"]

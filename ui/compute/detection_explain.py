"""The Detection page's cached explanations: each image's cost, one image's match at a
threshold, the detectors loaded beside the first and their paired comparison. Keyed by the
files' keys (``detection_compute.key_of``)."""

from __future__ import annotations

import tempfile
from pathlib import Path

import streamlit as st

from metrics import detection
from ui.words.safe import file_name

__all__ = ["EXAMPLE_NAMES", "comparison", "costs", "detectors", "image_match"]

# The example's two detectors: the seeded synthetic one and a variant of it (boxes moved,
# some dropped, scores changed), both on the same synthetic images.
EXAMPLE_NAMES = ("synthetic detector", "its variant")
N_RESAMPLES = 200
SEED = 0


def _read_named(name: str, data: bytes, gt):
    """Detections from an upload, read from a file of the upload's own name, so that the
    reader's sentence names the file the user gave."""
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / (file_name(Path(name).stem) + Path(name).suffix.lower())
        path.write_bytes(data)
        return detection.load_detections(path, gt)


@st.cache_data(max_entries=4, show_spinner="Finding the images whose errors cost most...")
def costs(gt_key: str, det_key: str, _gt, _dt) -> detection.ImageCosts:
    return detection.image_costs(_gt, _dt)


@st.cache_data(max_entries=64, show_spinner=False)
def image_match(
    gt_key: str, det_key: str, image, iou: float, convention: str, area: str, _gt, _dt
) -> detection.ImageMatch:
    return detection.match_image(
        _gt, _dt, image, iou_threshold=iou, convention=convention, area=area
    )


@st.cache_data(max_entries=4, show_spinner="Reading the detectors...")
def detectors(gt_key: str, det_keys: tuple, _gt, _example_dt, _det_files: tuple | None) -> dict:
    """{name: Detections}: the uploaded files by name, or the example's two detectors."""
    if _det_files is None:  # the same example as detection_compute.boxes draws
        _, dt = detection.synthetic_coco(n_images=80, n_cats=8, dets_per_image=40, seed=7)
        variant = detection.synthetic_detector_variant(
            dt, seed=8, shift=0.03, drop=0.05, rescore=0.1
        )
        return {
            EXAMPLE_NAMES[0]: _example_dt,
            EXAMPLE_NAMES[1]: detection.load_detections(variant, _gt),
        }
    out = {}
    for name, data in _det_files:
        label = name if name not in out else f"{name} ({len(out) + 1})"
        out[label] = _read_named(name, data, _gt)
    return out


@st.cache_data(max_entries=4, show_spinner="Comparing the detectors over resampled images...")
def comparison(gt_key: str, det_keys: tuple, _gt, _dets: dict) -> detection.DetectorSetComparison:
    return detection.compare_detector_set(_gt, _dets, n_resamples=N_RESAMPLES, seed=SEED)

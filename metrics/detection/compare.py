"""Two detectors on the same images: mAP differences with an image-resampling bootstrap.

Boxes of one image are not independent of each other (one hard image costs every class), so
the unit resampled is the image: each resample draws a Poisson(1) count for every image (the
same counts for both detectors, which pairs them) and repeats that image's ground truths and
detections that many times. Matching happens inside an image, so it is done once per
detector; a resample only re-accumulates the precision/recall counts.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from metrics.detection.coco import (
    AREA_RANGES,
    IOU_THRESHOLDS,
    MatchResult,
    _accumulate,
    coco_match,
)

__all__ = [
    "DETECTION_METRICS",
    "MAP_NAME",
    "DetectionComparison",
    "DetectorSetComparison",
    "compare_detector_set",
    "compare_detectors",
    "leave_one_image_out",
    "match_all_area",
]

# metric name -> IoU thresholds it averages over (COCO's area "all", 100 detections an image)
DETECTION_METRICS = {"coco_map": IOU_THRESHOLDS, "coco_map50": IOU_THRESHOLDS[:1]}


@dataclass(frozen=True)
class DetectionComparison:
    """Baseline and candidate on the same images.

    Attributes
    ----------
    metric : str
    baseline, candidate, difference : float
        On the data as given (equal to pycocotools' ``stats[0]`` / ``stats[1]``).
    differences : ndarray of shape (n_resamples,)
        candidate - baseline on each resample (NaN where a resample has no ground truth).
    n_images : int
    """

    metric: str
    baseline: float
    candidate: float
    difference: float
    differences: np.ndarray
    n_images: int
    seed: int

    def bounds(self, alpha: float) -> tuple[float, float]:
        """One-sided (1 - alpha) bounds: the alpha and 1 - alpha quantiles of the differences."""
        d = self.differences[np.isfinite(self.differences)]
        if d.size == 0:
            return float("nan"), float("nan")
        lo, hi = np.quantile(d, [alpha, 1 - alpha])
        return float(lo), float(hi)


def _match_all_area(gt, dt, thresholds) -> MatchResult:
    return coco_match(gt, dt, iou_thresholds=thresholds, area_ranges=AREA_RANGES[:1])


match_all_area = _match_all_area


def _map(gt, dt, match: MatchResult, counts=None) -> float:
    precision, _, _ = _accumulate(gt, dt, match, max_dets=(100,), image_counts=counts)
    s = precision[..., 0, 0]
    valid = s[s > -1]
    return float(np.mean(valid)) if valid.size else float("nan")


def compare_detectors(
    ground_truth,
    baseline,
    candidate,
    *,
    metric: str = "coco_map",
    n_resamples: int = 200,
    seed: int = 0,
) -> DetectionComparison:
    """Paired image bootstrap of ``metric`` (``"coco_map"``: AP@[.5:.95]; ``"coco_map50"``).

    Each resample costs one accumulation per detector (the matching is reused): about half
    a second at COCO val2017 size.
    """
    from metrics.detection.io import load_detections, load_ground_truth

    if metric not in DETECTION_METRICS:
        raise ValueError(
            f"metric={metric!r} is not a detection metric; use one of "
            f"{', '.join(repr(m) for m in DETECTION_METRICS)}."
        )
    gt = load_ground_truth(ground_truth)
    a = load_detections(baseline, gt)
    b = load_detections(candidate, gt)
    thr = DETECTION_METRICS[metric]
    ma, mb = _match_all_area(gt, a, thr), _match_all_area(gt, b, thr)
    est_a, est_b = _map(gt, a, ma), _map(gt, b, mb)
    rng = np.random.default_rng(seed)
    diffs = np.empty(n_resamples)
    for i in range(n_resamples):
        counts = rng.poisson(1.0, gt.n_images)
        diffs[i] = _map(gt, b, mb, counts) - _map(gt, a, ma, counts)
    return DetectionComparison(
        metric=metric,
        baseline=est_a,
        candidate=est_b,
        difference=est_b - est_a,
        differences=diffs,
        n_images=gt.n_images,
        seed=seed,
    )


def leave_one_image_out(gt, dt, match: MatchResult, images) -> tuple[float, np.ndarray]:
    """COCO mAP with every image, and with each of ``images`` (indices) left out in turn.

    ``match`` is an area-"all" match (:func:`match_all_area`); leaving an image out drops its
    ground truths and detections (a category found only there drops out of the mean).
    """
    full = _map(gt, dt, match)
    counts = np.ones(gt.n_images, dtype=np.int64)
    out = np.empty(len(images))
    for j, i in enumerate(images):
        counts[i] = 0
        out[j] = _map(gt, dt, match, counts)
        counts[i] = 1
    return full, out

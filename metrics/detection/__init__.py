"""Object-detection AP: COCO (pycocotools' arithmetic), PASCAL VOC 2007/2012 and Ultralytics.

from metrics.detection import coco_evaluate, detection_ap, load_ground_truth
"""

from metrics.detection._boxes import Detections, GroundTruth
from metrics.detection.coco import (
    AREA_LABELS,
    IOU_THRESHOLDS,
    MAX_DETS,
    RECALL_THRESHOLDS,
    STAT_NAMES,
    COCOEvaluation,
    coco_evaluate,
    coco_match,
)
from metrics.detection.io import (
    load_detections,
    load_ground_truth,
    read_box_table,
    read_coco_detections,
    read_coco_ground_truth,
    read_yolo_labels,
)

__all__ = [
    "AREA_LABELS",
    "IOU_THRESHOLDS",
    "MAX_DETS",
    "RECALL_THRESHOLDS",
    "STAT_NAMES",
    "COCOEvaluation",
    "Detections",
    "GroundTruth",
    "coco_evaluate",
    "coco_match",
    "load_detections",
    "load_ground_truth",
    "read_box_table",
    "read_coco_detections",
    "read_coco_ground_truth",
    "read_yolo_labels",
]

from metrics.detection.conventions import CONVENTIONS, detection_ap, matched_flags

__all__ += ["CONVENTIONS", "detection_ap", "matched_flags"]

from metrics.detection.compare import (  # noqa: E402
    DETECTION_METRICS,
    MAP_NAME,
    DetectionComparison,
    DetectorSetComparison,
    compare_detector_set,
    compare_detectors,
)

__all__ += [
    "DETECTION_METRICS",
    "MAP_NAME",
    "DetectionComparison",
    "DetectorSetComparison",
    "compare_detector_set",
    "compare_detectors",
]

from metrics.detection.curves import DetectionPRCurve, detection_pr_curve  # noqa: E402

__all__ += ["DetectionPRCurve", "detection_pr_curve"]

from metrics.detection.synthetic import synthetic_coco, synthetic_detector_variant  # noqa: E402

__all__ += ["synthetic_coco", "synthetic_detector_variant"]

from metrics.detection.explain import (  # noqa: E402
    OUTCOMES,
    ImageCosts,
    ImageMatch,
    image_costs,
    match_image,
)

__all__ += ["OUTCOMES", "ImageCosts", "ImageMatch", "image_costs", "match_image"]

from metrics.detection.rules import (  # noqa: E402
    RULE_LABELS,
    RULES,
    SETTING_LABELS,
    convention_effects,
    convention_settings,
)

__all__ += ["RULES", "RULE_LABELS", "SETTING_LABELS", "convention_effects", "convention_settings"]

from metrics.detection.tide import ERROR_TYPES, TIDE_LABELS, TideErrors, tide_errors  # noqa: E402

__all__ += ["ERROR_TYPES", "TIDE_LABELS", "TideErrors", "tide_errors"]

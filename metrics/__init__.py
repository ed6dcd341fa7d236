"""Classification and ranking metrics in plain numpy, checked against scikit-learn.

Import what you need from here; the submodules are an implementation detail::

    from metrics import roc_auc_score, average_precision_score, threshold_counts
"""

from metrics._validation import UndefinedMetricWarning
from metrics.areas import auc, average_precision_score, roc_auc_score
from metrics.confusion import Confusion, confusion_at_threshold
from metrics.curves import (
    ThresholdCounts,
    confusion_matrix_at_thresholds,
    precision_recall_curve,
    roc_curve,
    threshold_counts,
)

__all__ = [
    "Confusion",
    "ThresholdCounts",
    "UndefinedMetricWarning",
    "auc",
    "average_precision_score",
    "confusion_at_threshold",
    "confusion_matrix_at_thresholds",
    "precision_recall_curve",
    "roc_auc_score",
    "roc_curve",
    "threshold_counts",
]

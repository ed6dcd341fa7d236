"""Classification and ranking metrics in plain numpy, checked against scikit-learn.

Import what you need from here; the submodules are an implementation detail::

    from metrics import roc_auc_score, average_precision_score, threshold_counts
"""

from metrics._validation import UndefinedMetricWarning
from metrics.areas import auc, average_precision_score, roc_auc_score
from metrics.average_precision import AP_METHOD_SOURCES, AP_METHODS, APBreakdown, ap_breakdown
from metrics.bootstrap import FastBootstrap, cluster_bootstrap, fast_paired_bootstrap
from metrics.calibration import brier_score_loss, calibration_curve, log_loss
from metrics.clustered import ClusteredAUC, clustered_auc_test
from metrics.compare import (
    AUCInterval,
    BootstrapInterval,
    BootstrapResult,
    DeLongResult,
    delong_test,
    paired_bootstrap,
    roc_auc_ci,
)
from metrics.confusion import Confusion, confusion_at_threshold
from metrics.curves import (
    ThresholdCounts,
    confusion_matrix_at_thresholds,
    precision_recall_curve,
    roc_curve,
    threshold_counts,
)
from metrics.flips import FlipTable, flip_table
from metrics.gains import (
    CostCurve,
    KSResult,
    cumulative_gain_curve,
    expected_cost,
    ks_statistic,
    lift_table,
    net_benefit,
)
from metrics.groups import WEIGHTINGS, GroupAUC, group_auc_score, group_auc_table
from metrics.multiclass import multiclass_confusion_matrix, top_k_accuracy_score
from metrics.multilabel import label_binarize
from metrics.operating import (
    OperatingPoint,
    precision_at_recall,
    recall_at_precision,
    top_k_precision_recall,
    tpr_at_fpr,
)
from metrics.ranking import (
    RankingReport,
    label_ranking_average_precision_score,
    mean_average_precision,
    mean_reciprocal_rank,
    ndcg_at_k,
    ndcg_score,
    precision_at_k,
    ranking_report,
    recall_at_k,
)
from metrics.significance import (
    BestModel,
    best_model,
    bootstrap_p_value,
    holm_adjust,
    pair_verdict,
)
from metrics.teaching import (
    APStepTable,
    AUCPairGrid,
    AUCRankTable,
    ScoreGridAP,
    ap_step_table,
    auc_pair_grid,
    auc_rank_table,
    average_precision_breakdown,
    score_grid_average_precision,
)

__all__ = [
    "AP_METHODS",
    "AP_METHOD_SOURCES",
    "WEIGHTINGS",
    "APBreakdown",
    "APStepTable",
    "AUCInterval",
    "AUCPairGrid",
    "AUCRankTable",
    "BestModel",
    "BootstrapInterval",
    "BootstrapResult",
    "ClusteredAUC",
    "Confusion",
    "CostCurve",
    "DeLongResult",
    "FastBootstrap",
    "FlipTable",
    "GroupAUC",
    "KSResult",
    "OperatingPoint",
    "RankingReport",
    "ScoreGridAP",
    "ThresholdCounts",
    "UndefinedMetricWarning",
    "ap_breakdown",
    "ap_step_table",
    "auc",
    "auc_pair_grid",
    "auc_rank_table",
    "average_precision_breakdown",
    "average_precision_score",
    "best_model",
    "bootstrap_p_value",
    "brier_score_loss",
    "calibration_curve",
    "cluster_bootstrap",
    "clustered_auc_test",
    "confusion_at_threshold",
    "confusion_matrix_at_thresholds",
    "cumulative_gain_curve",
    "delong_test",
    "expected_cost",
    "fast_paired_bootstrap",
    "flip_table",
    "group_auc_score",
    "group_auc_table",
    "holm_adjust",
    "ks_statistic",
    "label_binarize",
    "label_ranking_average_precision_score",
    "lift_table",
    "log_loss",
    "mean_average_precision",
    "mean_reciprocal_rank",
    "multiclass_confusion_matrix",
    "ndcg_at_k",
    "ndcg_score",
    "net_benefit",
    "pair_verdict",
    "paired_bootstrap",
    "precision_at_k",
    "precision_at_recall",
    "precision_recall_curve",
    "ranking_report",
    "recall_at_k",
    "recall_at_precision",
    "roc_auc_ci",
    "roc_auc_score",
    "roc_curve",
    "score_grid_average_precision",
    "threshold_counts",
    "top_k_accuracy_score",
    "top_k_precision_recall",
    "tpr_at_fpr",
]

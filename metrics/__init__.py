"""Classification and ranking metrics in plain numpy, checked against scikit-learn.

Import what you need from here; the submodules are an implementation detail::

    from metrics import roc_auc_score, average_precision_score, threshold_counts
"""

from metrics._validation import UndefinedMetricWarning
from metrics.agreement import (
    AgreementReport,
    AnnotatorScores,
    LongRatings,
    annotator_agreement,
    fleiss_kappa,
    krippendorff_alpha,
    ratings_from_long,
    score_against_annotators,
)
from metrics.areas import auc, average_precision_score, roc_auc_score
from metrics.average_precision import AP_METHOD_SOURCES, AP_METHODS, APBreakdown, ap_breakdown
from metrics.bootstrap import (
    FastBootstrap,
    SmallGroups,
    ap_jackknife,
    cluster_bootstrap,
    fast_paired_bootstrap,
    small_groups_correction,
)
from metrics.calibration import calibration_curve
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
from metrics.guarantees import (
    GUARANTEE_METRICS,
    GuaranteedThreshold,
    OperatingChoice,
    threshold_with_guarantee,
)
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
    "GUARANTEE_METRICS",
    "WEIGHTINGS",
    "APBreakdown",
    "APStepTable",
    "AUCInterval",
    "AUCPairGrid",
    "AUCRankTable",
    "AgreementReport",
    "AnnotatorScores",
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
    "GuaranteedThreshold",
    "KSResult",
    "LongRatings",
    "OperatingChoice",
    "OperatingPoint",
    "RankingReport",
    "ScoreGridAP",
    "SmallGroups",
    "ThresholdCounts",
    "UndefinedMetricWarning",
    "annotator_agreement",
    "ap_breakdown",
    "ap_jackknife",
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
    "fleiss_kappa",
    "flip_table",
    "group_auc_score",
    "group_auc_table",
    "holm_adjust",
    "krippendorff_alpha",
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
    "ratings_from_long",
    "recall_at_k",
    "recall_at_precision",
    "roc_auc_ci",
    "roc_auc_score",
    "roc_curve",
    "score_against_annotators",
    "score_grid_average_precision",
    "small_groups_correction",
    "threshold_counts",
    "threshold_with_guarantee",
    "top_k_accuracy_score",
    "top_k_precision_recall",
    "tpr_at_fpr",
]

# Thresholded classification on labels, and multi-class / multi-label thresholds (issue 22).
# log_loss and brier_score_loss: the multi-class supersets of metrics.calibration's (one
# probability column per class, ``labels``), as scikit-learn's.
from metrics.classification import (
    accuracy_score,
    balanced_accuracy_score,
    class_likelihood_ratios,
    classification_report,
    cohen_kappa_score,
    confusion_matrix,
    f1_score,
    fbeta_score,
    hamming_loss,
    jaccard_score,
    matthews_corrcoef,
    multilabel_confusion_matrix,
    precision_recall_fscore_support,
    precision_score,
    recall_score,
    zero_one_loss,
)
from metrics.label_ranking import (
    coverage_error,
    dcg_score,
    label_ranking_loss,
    metric_at_thresholds,
)
from metrics.multiclass_thresholds import (
    ClassThresholdCounts,
    CostComparison,
    HalfSplitChoice,
    ThresholdChoice,
    best_class_thresholds,
    choose_on_half,
    class_threshold_counts,
    compare_cost_decisions,
    min_cost_predict,
    optimise_thresholds,
    predict_argmax,
    predict_at_thresholds,
    predict_top_k,
)
from metrics.probability_losses import brier_score_loss, log_loss

__all__ += [
    "ClassThresholdCounts",
    "CostComparison",
    "HalfSplitChoice",
    "ThresholdChoice",
    "accuracy_score",
    "balanced_accuracy_score",
    "best_class_thresholds",
    "choose_on_half",
    "class_likelihood_ratios",
    "class_threshold_counts",
    "classification_report",
    "cohen_kappa_score",
    "compare_cost_decisions",
    "confusion_matrix",
    "coverage_error",
    "dcg_score",
    "f1_score",
    "fbeta_score",
    "hamming_loss",
    "jaccard_score",
    "label_ranking_loss",
    "matthews_corrcoef",
    "metric_at_thresholds",
    "min_cost_predict",
    "multilabel_confusion_matrix",
    "optimise_thresholds",
    "precision_recall_fscore_support",
    "precision_score",
    "predict_argmax",
    "predict_at_thresholds",
    "predict_top_k",
    "recall_score",
    "zero_one_loss",
]

# Decision curves, the calibration lab and tests between models (issue 24).
from metrics.calibration import (  # noqa: E402 (after the block above)
    RECALIBRATION_METHODS,
    BrierDecomposition,
    CalibrationErrorInterval,
    Calibrator,
    brier_decomposition,
    calibration_error,
    calibration_error_interval,
    fit_calibrator,
    recalibrate,
    squared_calibration_error,
)
from metrics.decision_curves import (  # noqa: E402 (after the block above)
    EqualErrorRate,
    ThresholdInterval,
    brier_curve,
    cost_curve,
    det_curve,
    equal_error_rate,
    precision_recall_gain_auc,
    precision_recall_gain_curve,
    threshold_interval,
)
from metrics.model_tests import (  # noqa: E402 (after the block above)
    FriedmanResult,
    ImanDavenportResult,
    McNemarResult,
    auc_difference_power,
    auc_min_detectable_difference,
    friedman_test,
    iman_davenport_test,
    mcnemar_test,
)

__all__ += [
    "RECALIBRATION_METHODS",
    "BrierDecomposition",
    "CalibrationErrorInterval",
    "Calibrator",
    "EqualErrorRate",
    "FriedmanResult",
    "ImanDavenportResult",
    "McNemarResult",
    "ThresholdInterval",
    "auc_difference_power",
    "auc_min_detectable_difference",
    "brier_curve",
    "brier_decomposition",
    "calibration_error",
    "calibration_error_interval",
    "cost_curve",
    "det_curve",
    "equal_error_rate",
    "fit_calibrator",
    "friedman_test",
    "iman_davenport_test",
    "mcnemar_test",
    "precision_recall_gain_auc",
    "precision_recall_gain_curve",
    "recalibrate",
    "squared_calibration_error",
    "threshold_interval",
]

# Bands for whole curves (issue 38 §2).
from metrics.bands import CurveBand, pr_band, roc_band, sup_t_band  # noqa: E402

__all__ += ["CurveBand", "pr_band", "roc_band", "sup_t_band"]

# Whole multi-class / multi-label models compared, never their classes (issue 31 §2).
from metrics.multiclass_compare import (  # noqa: E402
    MulticlassComparison,
    MulticlassMetric,
    MulticlassPair,
    compare_multiclass_models,
    multiclass_metric_names,
)

__all__ += [
    "MulticlassComparison",
    "MulticlassMetric",
    "MulticlassPair",
    "compare_multiclass_models",
    "multiclass_metric_names",
]

# Intervals for the averages of a multi-class / multi-label decision (issue 31 §2).
from metrics.decision_intervals import DecisionIntervals, decision_intervals  # noqa: E402

__all__ += ["DecisionIntervals", "decision_intervals"]

# The family of tests a verdict rests on: a primary metric or Holm across every metric × pair
# (issue 51 §1).
from metrics.families import (  # noqa: E402
    FamilyResult,
    FamilyRow,
    FamilyTest,
    default_primary,
    direction_disagreements,
    equal_metrics,
    family_best,
    family_pair_verdict,
    family_verdicts,
)

__all__ += [
    "FamilyResult",
    "FamilyRow",
    "FamilyTest",
    "default_primary",
    "direction_disagreements",
    "equal_metrics",
    "family_best",
    "family_pair_verdict",
    "family_verdicts",
]

# Object-detection AP: COCO (pycocotools' arithmetic), VOC 2007/2012, Ultralytics (issue 53).
from metrics.detection import (  # noqa: E402
    coco_evaluate,
    convention_effects,
    detection_ap,
    tide_errors,
)

__all__ += ["coco_evaluate", "convention_effects", "detection_ap", "tide_errors"]

# TREC qrels and runs, trec_eval's measures, runs compared over queries (issue 52).
from metrics.trec import (  # noqa: E402
    compare_runs,
    read_qrels,
    read_run,
    read_trec_qrels,
    read_trec_run,
    trec_evaluate,
)

__all__ += [
    "compare_runs",
    "read_qrels",
    "read_run",
    "read_trec_qrels",
    "read_trec_run",
    "trec_evaluate",
]

"""scikit-learn's ``sklearn/metrics/tests/test_ranking.py`` (the pinned version, as installed)
run against our functions of the same names: the drop-in claim, tested by scikit-learn's own
tests. How the swap works, and what the lists mean: ``tests/sklearn_suites.py``."""

from tests.sklearn_suites import export, global_dtype, global_random_seed, load_with_ours

__all__ = ["global_dtype", "global_random_seed"]

# We refuse (or warn about) the same input with the same exception (warning) class, and say
# what is wrong and how to fix it in our own words; every other assertion of these tests holds.
_UNDEFINED = "the same UndefinedMetricWarning for one class only, in our words"
_REFUSED = "the same ValueError, saying what to change"
WORDING = {
    "test_roc_curve_one_label": _UNDEFINED,
    "test_roc_curve_toydata": _UNDEFINED,
    "test_auc_score_non_binary_class": _UNDEFINED,
    "test_precision_recall_curve_toydata": _UNDEFINED,
    "test_top_k_accuracy_score_warning": "the same UndefinedMetricWarning for k >= n_classes",
    "test_auc_errors": _REFUSED + " (x must be monotonic)",
    "test_multiclass_ovo_roc_auc_toydata": "average=None with ovo: NotImplementedError as theirs",
    "test_roc_auc_score_multiclass_labels_error": _REFUSED + " (labels repeated, unsorted, "
    "too few or too many for the columns, or missing a class of y_true)",
    "test_roc_auc_score_multiclass_error": _REFUSED + " (multi_class, average, max_fpr, weights)",
    "test_confusion_matrix_at_thresholds_multiclass_error": _REFUSED + " (three classes)",
    "test_confusion_matrix_at_thresholds_implicit_pos_label": _REFUSED + " (pass pos_label)",
    "test_confusion_matrix_at_thresholds_implicit_bytes_pos_label": "the same TypeError for "
    "bytes labels, saying to decode them",
    "test_average_precision_score_binary_pos_label_errors": _REFUSED + " (pos_label not a label)",
    "test_average_precision_score_multilabel_pos_label_errors": _REFUSED + " (pos_label != 1)",
    "test_average_precision_score_multiclass_pos_label_errors": _REFUSED + " (pos_label != 1)",
    "test_multiclass_ranking_metrics_raise_for_incorrect_shape_of_y_score": _REFUSED
    + " (three classes, one score per row)",
    "test_det_curve_bad_input": _REFUSED + " (lengths, one class, pos_label)",
    "test_coverage_1d_error_message": _REFUSED + " (a matrix is needed)",
    "test_ndcg_negative_ndarray_error": _REFUSED + " (negative relevance)",
    "test_ndcg_error_single_document": _REFUSED + " (one document)",
    "test_top_k_accuracy_score_error": _REFUSED + " (labels and score columns)",
}

# Not wording: our documented convention differs (DESIGN.md: an undefined case is NaN with a
# warning, never a silent 0). Each is strict: it turns red if it passes or fails otherwise.
ON_PURPOSE = {
    "test_precision_recall_curve_toydata": "AP with no positive row is NaN with the warning "
    "(scikit-learn: 0), and the averages leave such a class out (scikit-learn averages its 0 "
    "in: macro 0.5 where ours is 1.0); the curves themselves equal scikit-learn's",
}

export(
    load_with_ours("sklearn.metrics.tests.test_ranking"),
    globals(),
    wording=WORDING,
    wording_in_assert={},
    on_purpose=ON_PURPOSE,
    theirs={},
    slow={},
)

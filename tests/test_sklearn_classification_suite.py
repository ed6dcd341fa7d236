"""scikit-learn's ``sklearn/metrics/tests/test_classification.py`` (the pinned version, as
installed) run against our functions of the same names: the drop-in claim, tested by
scikit-learn's own tests. How the swap works, and what the lists mean:
``tests/sklearn_suites.py``."""

from tests.sklearn_suites import export, global_dtype, global_random_seed, load_with_ours

__all__ = ["global_dtype", "global_random_seed"]

# We refuse (or warn about) the same input with the same exception (warning) class, and say
# what is wrong and how to fix it in our own words; every other assertion of these tests holds.
_REFUSED = "the same ValueError, saying what to change"
_ZERO_DIVISION = "the same UndefinedMetricWarning for 0/0, naming zero_division="
_UNSORTED = "the same UserWarning for unsorted labels, naming the sorted order"
WORDING = {
    "test_average_precision_score_non_binary_class": _REFUSED + " (pos_label with 3 classes)",
    "test_precision_recall_f_unused_pos_label": "the same UserWarning: pos_label is ignored",
    "test_multilabel_confusion_matrix_errors": _REFUSED + " (lengths, labels, shapes)",
    "test_confusion_matrix_single_label": "the same UserWarning for a 1 x 1 matrix",
    "test_likelihood_ratios_warnings": "the same UndefinedMetricWarning for LR+ / LR-",
    "test_likelihood_ratios_errors": _REFUSED + " (multi-class targets)",
    "test_likelihood_ratios_wrong_dict_replace_undefined_by": _REFUSED + " (the dict's values)",
    "test_cohen_kappa_zero_division_warning": _ZERO_DIVISION.replace("zero_division=", "labels"),
    "test_cohen_kappa_score_error_wrong_label": _REFUSED + " (no label of labels in y1)",
    "test_confusion_matrix_error": _REFUSED + " (empty or unknown labels)",
    "test_classification_report_labels_target_names_unequal_length": "the same UserWarning "
    "for labels and target_names of different lengths",
    "test_classification_report_no_labels_target_names_unequal_length": _REFUSED,
    "test_jaccard_score_validation": _REFUSED + " (pos_label, average)",
    "test_multilabel_jaccard_score": _REFUSED + " (a label index out of range)",
    "test_average_binary_jaccard_score": _ZERO_DIVISION,
    "test_jaccard_score_zero_division_warning": _ZERO_DIVISION,
    "test_prf_average_binary_data_non_binary": _REFUSED + " (average='binary', 3 classes)",
    "test_log_loss": _REFUSED + " (a label of y_true not in labels)",
    "test_log_loss_not_probabilities_warning": "the same UserWarning: rows do not sum to one",
    "test_log_loss_warnings": _UNSORTED,
    "test_brier_score_loss_invalid_inputs": _REFUSED + " (3 classes, one probability per row)",
    "test_brier_score_loss_warnings": _UNSORTED,
}

# The message compared with ``assert ... ==`` / ``in``: the same warning, the same class, in our
# words ("Pass zero_division= to choose the value and silence this warning." where scikit-learn
# says "Use `zero_division` parameter to control this behavior.").
_ASSERTED = "the same UndefinedMetricWarning for 0/0, its text compared with assert"
WORDING_IN_ASSERT = {
    "test_classification_report_zero_division_warning[warn]": _ASSERTED,
    "test_recall_warnings[warn]": _ASSERTED,
    "test_precision_warnings[warn]": _ASSERTED,
    "test_fscore_warnings[warn]": _ASSERTED,
    "test_prf_warnings": _ASSERTED,
}

# scikit-learn's D² scores, which we do not provide, warn with scikit-learn's warning class.
THEIRS = {
    "test_d2_log_loss_score_raises": "d2_log_loss_score is scikit-learn's",
    "test_d2_brier_score_warning_on_less_than_two_samples": "d2_brier_score is scikit-learn's",
}

SLOW = {
    "test_classification_metric_division_by_zero_nan_validation": "cross_val_score(n_jobs=2) "
    "starts joblib's worker processes: about 25 s of the file's 40",
}

export(
    load_with_ours("sklearn.metrics.tests.test_classification"),
    globals(),
    wording=WORDING,
    wording_in_assert=WORDING_IN_ASSERT,
    on_purpose={},
    theirs=THEIRS,
    slow=SLOW,
)

"""Bad input raises ValueError saying what is wrong, where, and what to do."""

from __future__ import annotations

import numpy as np
import pytest

from metrics import (
    average_precision_score,
    confusion_at_threshold,
    roc_auc_score,
    roc_curve,
    threshold_counts,
)


@pytest.mark.parametrize(
    ("y_true", "y_score", "kwargs", "message"),
    [
        ([0, 1, 1], [0.1, 0.2], {}, r"y_true has 3 rows but y_score has 2"),
        ([], [], {}, r"y_true is empty"),
        (
            [0, 1, 0, 1],
            [0.1, np.nan, 0.3, np.nan],
            {},
            r"y_score has 2 NaN values at positions 1, 3",
        ),
        (
            [0, 1, 0],
            [0.1, np.inf, -np.inf],
            {},
            r"1 \+inf value and 1 -inf value at positions 1, 2",
        ),
        (
            [0, 1, 0],
            [0.1, "high", 0.3],
            {},
            r"y_score has 1 non-numeric value at position 1 .*'high'",
        ),
        ([0, 1, 2], [0.1, 0.2, 0.3], {}, r"y_true has 3 distinct values \{0, 1, 2\}"),
        (
            ["No", "Yes"],
            [0.1, 0.2],
            {"pos_label": "yes"},
            r"pos_label='yes' is not among .*'No', 'Yes'",
        ),
        (
            [0, 1, 0],
            [0.1, 0.2, 0.3],
            {"sample_weight": [1, -1, 2]},
            r"1 negative value at position 1",
        ),
        ([0, 1, 0], [0.1, 0.2, 0.3], {"sample_weight": [1, np.nan, 2]}, r"non-finite value"),
        ([0, 1, 0], [0.1, 0.2, 0.3], {"sample_weight": [1, 2]}, r"sample_weight has 2 rows"),
        ([0, 1, np.nan], [0.1, 0.2, 0.3], {}, r"y_true has 1 missing value at position 2"),
        (["a", None, "b"], [0.1, 0.2, 0.3], {"pos_label": "a"}, r"y_true has 1 missing value"),
        ([[0, 1], [1, 0]], [0.1, 0.2], {}, r"one-dimensional"),
    ],
)
def test_messages(y_true, y_score, kwargs, message):
    for fn in (roc_curve, threshold_counts):
        with pytest.raises(ValueError, match=message):
            fn(y_true, y_score, **kwargs)


def test_string_labels_need_pos_label_for_curves():
    with pytest.raises(ValueError, match=r"takes the values \{'No', 'Yes'\}; pass pos_label="):
        roc_curve(["No", "Yes"], [0.1, 0.2])


def test_average_precision_default_pos_label_on_string_labels():
    with pytest.raises(ValueError, match=r"pos_label=1 is not among y_true's values"):
        average_precision_score(["ham", "spam"], [0.1, 0.2])


def test_non_binary_labels_need_pos_label():
    with pytest.raises(ValueError, match=r"takes the values \{0, 2\}"):
        roc_curve([0, 2, 0], [0.1, 0.2, 0.3])
    assert roc_curve([0, 2, 0], [0.1, 0.2, 0.3], pos_label=2)[1][-1] == 1.0


def test_bad_threshold_and_average():
    with pytest.raises(ValueError, match="threshold must be a number"):
        confusion_at_threshold([0, 1], [0.1, 0.2], "high")
    with pytest.raises(ValueError, match="threshold is NaN"):
        confusion_at_threshold([0, 1], [0.1, 0.2], float("nan"))
    with pytest.raises(ValueError, match="average must be one of"):
        roc_auc_score([0, 1], [0.1, 0.2], average="mean")


def test_many_bad_positions_are_elided():
    s = np.full(20, np.nan)
    with pytest.raises(ValueError, match=r"20 NaN values at positions 0, 1, 2, 3, 4, \.\.\."):
        roc_auc_score(np.arange(20) % 2, s)

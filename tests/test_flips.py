"""The agreement / flip table against a direct loop over rows, and the rows behind the cells."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from metrics.flips import flip_table
from tests.apptest_utils import open_page, upload_frame


def _loop(y, a, ta, b, tb, w):
    counts = np.zeros((2, 2, 2))
    for yi, ai, bi, wi in zip(y, a, b, w, strict=True):
        counts[int(yi), int(ai >= ta), int(bi >= tb)] += wi
    return counts


@pytest.mark.parametrize("seed", range(15))
def test_flip_table_equals_a_loop_with_ties_and_weights(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 200))
    y = rng.random(n) < 0.4
    a = np.round(rng.random(n), 1)  # ties, and rows exactly at the threshold
    b = np.round(rng.random(n), 1)
    w = rng.integers(0, 4, n).astype(float)
    ta, tb = 0.5, float(rng.choice([0.3, 0.5, 0.7]))
    t = flip_table(y, a, ta, b, tb, sample_weight=w)
    expected = _loop(y, a, ta, b, tb, w)
    np.testing.assert_array_equal(t.counts, expected)
    agree = expected.sum(axis=0)
    assert t.flip_rate == pytest.approx((agree[0, 1] + agree[1, 0]) / w.sum())
    assert t.pos_to_neg_flip_rate == pytest.approx(agree[1, 0] / w.sum())
    wrong_a = (a >= ta) != y
    wrong_b = (b >= tb) != y
    assert t.b_fixes == pytest.approx(w[wrong_a & ~wrong_b].sum())
    assert t.b_breaks == pytest.approx(w[~wrong_a & wrong_b].sum())


def test_string_labels_pick_the_positive_class():
    t = flip_table(
        ["no", "yes", "yes"], [0.2, 0.9, 0.1], 0.5, [0.6, 0.8, 0.7], 0.5, pos_label="yes"
    )
    assert t.counts[1, 0, 1] == 1  # the third row: positive, A misses, B finds
    assert t.counts[0, 0, 1] == 1  # the first: negative, B flags it


def test_rows_behind_a_cell_come_from_the_right_rows_even_after_dropping_bad_rows():
    frame = pd.DataFrame(
        {
            "id": [f"r{i}" for i in range(8)],
            "label": [1, 0, 1, 0, 1, 0, 1, 0],
            "m": [0.9, 0.8, None, 0.3, 0.6, 0.1, 0.2, 0.7],
        }
    )
    at = open_page("pages/threshold.py")
    upload_frame(at, frame)
    at.checkbox(key="map_drop_bad_rows").check().run()
    at.radio(key="threshold_rows_cell").set_value("FP: predicted positive, actually negative").run()
    assert not at.exception
    shown = next(d.value for d in at.dataframe if "id" in d.value.columns)
    # threshold 0.5: negatives at 0.8 and 0.7 are the false positives (rows 2 and 8 from 1)
    assert shown["id"].tolist() == ["r1", "r7"]
    assert shown.index.tolist() == [2, 8]

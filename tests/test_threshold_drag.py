"""The class-score strip of the Threshold page (ui/views/threshold_drag.py): what it sends to the
browser, and where a moved line goes. The drag itself is tested in Chromium
(tests/test_browser.py::test_dragging_the_threshold_on_the_class_strip_...)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from ui.views.threshold_drag import BINS, DOTS_UP_TO, nice_ticks, strip_data

ARGS = dict(low=0.0, high=1.0, step=0.001, threshold=0.5, positive_name="<b>yes</b>",
            negative_name="no")  # fmt: skip


def _data(n: int, seed: int = 0, **kw):
    """Rows of two classes with tied scores, handed over as the page's counts are: each
    distinct score with its positives and negatives."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    s = np.round(rng.random(n), 2)
    scores, inverse = np.unique(s, return_inverse=True)
    positives = np.bincount(inverse, weights=y, minlength=scores.size)
    negatives = np.bincount(inverse, weights=1 - y, minlength=scores.size)
    return y, s, strip_data(scores, positives, negatives, **{**ARGS, **kw})


def test_one_dot_a_row_up_to_the_limit_with_each_class_in_its_row():
    y, s, d = _data(DOTS_UP_TO)
    pos, neg = d["rows"]
    assert sorted(pos["dots"]) == sorted(s[y == 1].tolist())
    assert sorted(neg["dots"]) == sorted(s[y == 0].tolist())
    assert pos["name"] == "<b>yes</b>"  # drawn with textContent by the script: text, never HTML


def test_a_histogram_per_class_above_the_limit_counts_every_row():
    y, _s, d = _data(DOTS_UP_TO + 1)
    pos, neg = d["rows"]
    assert "dots" not in pos
    assert len(pos["counts"]) == BINS
    assert len(pos["edges"]) == BINS + 1
    assert sum(pos["counts"]) == int(y.sum())
    assert sum(neg["counts"]) == int((1 - y).sum())


def test_non_finite_scores_are_left_out_and_the_rest_kept_in_range():
    s = np.array([np.nan, 0.2, 7.0, -np.inf])
    d = strip_data(s, np.array([1, 0, 1, 0]), np.array([0, 1, 0, 1]), **ARGS)
    pos, neg = d["rows"]
    assert pos["dots"] == [1.0]
    assert neg["dots"] == [0.2]


def test_weighted_counts_are_drawn_as_a_histogram_of_the_weight():
    d = strip_data(np.array([0.1, 0.9]), np.array([0.0, 2.5]), np.array([1.5, 0.0]),
                   whole=False, **ARGS)  # fmt: skip
    pos, neg = d["rows"]
    assert sum(pos["counts"]) == 2.5
    assert sum(neg["counts"]) == 1.5


def test_the_counts_of_the_threshold_page_draw_every_row():
    """From ui.compute.data's threshold counts (descending distinct scores, cumulative tps / fps)."""
    from metrics import threshold_counts

    y, s, _ = _data(500)
    c = threshold_counts(y, s)
    d = strip_data(c.thresholds, np.diff(c.tps, prepend=0), np.diff(c.fps, prepend=0), **ARGS)
    pos, neg = d["rows"]
    assert sorted(pos["dots"]) == sorted(s[y == 1].tolist())
    assert sorted(neg["dots"]) == sorted(s[y == 0].tolist())


@pytest.mark.parametrize(
    ("low", "high", "ticks"),
    [(0, 1.01, [0, 0.2, 0.4, 0.6, 0.8, 1]), (0, 100, [0, 20, 40, 60, 80, 100]),
     (-3.2, 7.9, [-2, 0, 2, 4, 6]), (5, 5, [5])],
)  # fmt: skip
def test_ticks_are_round(low, high, ticks):
    assert nice_ticks(low, high) == pytest.approx(ticks)


@given(
    st.floats(-1e6, 1e6, allow_nan=False),
    st.floats(1e-6, 1e6, allow_nan=False),
)
def test_ticks_lie_within_the_range_on_one_step_and_are_few(low, span):
    high = low + span
    ticks = nice_ticks(low, high)
    slack = 1e-9 * span + 1e-12 * max(abs(low), abs(high))  # the doubles' own spacing
    assert 1 <= len(ticks) <= 7
    assert all(low - slack <= t <= high + slack for t in ticks)
    steps = np.diff(ticks)
    assert np.allclose(steps, steps[0] if steps.size else 0, rtol=1e-6, atol=4 * slack)

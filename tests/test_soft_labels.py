"""Soft labels (shares in [0, 1]): each row counts as positive with weight q and negative with
weight 1 - q, at the data layer (ui.tables.checking.prepare), so every binary page gets them.

Checked two ways on generated tables: against the weighted metrics of the rows written out twice
by hand, and against slow formulas of the expectation over the label (expected confusion counts,
the pair-counting AUC with q_i (1 - q_j) per ordered pair, a row paired with itself included).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import metrics
from tests.apptest_utils import markdown_text, metric_value, open_page, upload_frame
from tests.strategies import examples
from ui.tables.checking import prepare
from ui.tables.loading import ColumnMapping
from ui.tables.roles import infer_roles, soft_labels


@st.composite
def soft_tables(draw):
    n = draw(st.integers(1, 60))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    kind = draw(st.sampled_from(["shares", "votes", "with_hard"]))
    if kind == "votes":  # k of 3 annotators said positive
        q = rng.integers(0, 4, n) / 3
    else:
        q = rng.random(n)
        if kind == "with_hard":  # some rows with a sure label
            hard = rng.random(n) < 0.4
            q[hard] = rng.integers(0, 2, int(hard.sum()))
    q[rng.integers(0, n)] = 0.5  # at least one value strictly between 0 and 1
    s = np.round(rng.normal(size=n) + q, draw(st.sampled_from([0, 1, 3])))
    w = rng.integers(1, 4, n).astype(float) if draw(st.booleans()) else None
    return q, s, w


def _prepared(q, s, w):
    frame = pd.DataFrame({"label": q, "m": s})
    if w is not None:
        frame["w"] = w
    p = prepare(frame, ColumnMapping("label", ("m",), weight="w" if w is not None else None))
    assert p.ok, p.problems
    assert p.soft
    return p


def _pair_auc(q, s, w):
    """The expected AUC over the label: sum over ordered pairs (i, j), i == j too, of
    w_i q_i w_j (1 - q_j) [s_i > s_j] (a half for ties), over the positive and negative weight."""
    pos, neg = w * q, w * (1 - q)
    diff = s[:, None] - s[None, :]
    h = (diff > 0) + 0.5 * (diff == 0)
    return float((pos[:, None] * neg[None, :] * h).sum() / (pos.sum() * neg.sum()))


@settings(max_examples=examples(60), deadline=None)
@given(soft_tables())
def test_every_metric_is_the_weighted_metric_of_the_doubled_rows(table):
    q, s, w = table
    p = _prepared(q, s, w)
    w1 = np.ones(q.size) if w is None else w
    # the doubled rows, written out by hand
    y2 = np.r_[np.ones(q.size, bool), np.zeros(q.size, bool)]
    s2, w2 = np.r_[s, s], np.r_[w1 * q, w1 * (1 - q)]
    np.testing.assert_array_equal(p.y, y2)
    np.testing.assert_array_equal(p.scores["m"], s2)
    np.testing.assert_allclose(p.weight, w2, rtol=0, atol=0)
    c = metrics.threshold_counts(p.y, p.scores["m"], sample_weight=p.weight)
    # expected confusion counts at every threshold
    for t, tp, fp in zip(c.thresholds, c.tps, c.fps, strict=True):
        flagged = s >= t
        assert tp == pytest.approx((w1 * q)[flagged].sum(), abs=1e-9)
        assert fp == pytest.approx((w1 * (1 - q))[flagged].sum(), abs=1e-9)
    if (w1 * q).sum() > 0 and (w1 * (1 - q)).sum() > 0:
        auc = metrics.roc_auc_score(p.y, p.scores["m"], sample_weight=p.weight)
        assert auc == pytest.approx(_pair_auc(q, s, w1), abs=1e-12)
        assert metrics.average_precision_score(
            p.y, p.scores["m"], sample_weight=p.weight
        ) == pytest.approx(metrics.average_precision_score(y2, s2, sample_weight=w2), abs=0)


@pytest.mark.parametrize(
    ("values", "soft"),
    [
        ([0, 1, 1, 0], False),  # a hard label
        ([0.0, 1.0, 1.0], False),
        ([True, False], False),
        ([0, 0.5, 1], True),
        ([0.2, 0.7], True),
        ([0, 0.5, 1.5], False),  # out of [0, 1]: not a share
        ([0, 0.5, np.nan], False),  # missing: the usual label problem says so
        (["a", "b"], False),
    ],
)
def test_soft_labels_are_recognised(values, soft):
    assert (soft_labels(pd.Series(values)) is not None) is soft


def test_each_copy_points_at_its_table_row_and_a_group_follows_it():
    frame = pd.DataFrame({"label": [0.25, 1.0, 0.0], "m": [0.9, 0.5, 0.1], "user": ["a", "b", "a"]})
    p = prepare(frame, ColumnMapping("label", ("m",), group="user"))
    assert p.kept.tolist() == [0, 1, 2, 0, 1, 2]
    assert p.groups.tolist() == ["a", "b", "a", "a", "b", "a"]
    assert p.weight.tolist() == [0.25, 1.0, 0.0, 0.75, 0.0, 1.0]


def test_the_guesser_names_a_soft_label():
    frame = pd.DataFrame({"label": [0, 1 / 3, 2 / 3, 1], "model": [0.1, 0.4, 0.6, 0.9]})
    role = infer_roles(frame)["label"]
    assert role.role == "label"
    assert "soft label" in role.reason


def test_threshold_and_data_pages_on_soft_labels():
    rng = np.random.default_rng(0)
    n = 300
    q = rng.integers(0, 4, n) / 3  # three annotators' votes
    s = np.round(rng.random(n) * 0.5 + q * 0.5, 3)
    at = upload_frame(open_page("pages/threshold.py"), pd.DataFrame({"label": q, "model": s}))
    assert not at.exception, at.exception
    y2 = np.r_[np.ones(n, bool), np.zeros(n, bool)]
    c = metrics.confusion_at_threshold(
        y2, np.r_[s, s], at.session_state["thresholds"].get("model", 0.5),
        sample_weight=np.r_[q, 1 - q],
    )  # fmt: skip
    assert metric_value(at, "Precision") == f"{c.precision:.3f}"
    assert metric_value(at, "Recall (TPR)") == f"{c.recall:.3f}"
    at.switch_page("pages/data.py").run()
    assert not at.exception
    assert any("Soft labels" in i.value for i in at.info), markdown_text(at)

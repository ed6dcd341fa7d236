"""metrics.decision_intervals: the averages of a decision equal the library's metric functions,
every replicate equals them on the resample's weights, and a grouped resample draws groups."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import metrics
from metrics.bootstrap import _GroupDraws
from metrics.compare import _Draws
from tests.strategies import examples

SETTINGS = settings(
    max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
FUNCTIONS = {
    "precision": metrics.precision_score,
    "recall": metrics.recall_score,
    "F1": metrics.f1_score,
    "Jaccard": metrics.jaccard_score,
}


@st.composite
def decisions(draw):
    """(truth, predictions, weights or None): indicator matrices with empty rows and columns,
    every cell tied to its neighbour, zero weights."""
    n = draw(st.integers(1, 30))
    c = draw(st.integers(2, 4))  # one column is a binary label to the library, not a matrix
    cells = st.lists(st.booleans(), min_size=n * c, max_size=n * c)
    y = np.array(draw(cells)).reshape(n, c)
    p = np.array(draw(cells)).reshape(n, c)
    w = None
    if draw(st.booleans()):
        w = np.array(draw(st.lists(st.sampled_from([0.0, 0.5, 1.0, 3.0]), min_size=n, max_size=n)))
    return y, p, w


def _library(y, p, w, beta=1.0):
    """(metric, average) -> the library's value, with every column as a label."""
    import warnings

    out = {}
    functions = dict(FUNCTIONS)
    if beta != 1:
        functions[f"F{beta:g}"] = lambda *a, **k: metrics.fbeta_score(*a, beta=beta, **k)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for name, fn in functions.items():
            for avg in ("micro", "macro", "weighted", "samples"):
                out[(name, avg)] = fn(y, p, average=avg, sample_weight=w)
        out[("accuracy", "")] = metrics.accuracy_score(y, p, sample_weight=w)
    return out


@SETTINGS
@given(d=decisions(), beta=st.sampled_from([1.0, 0.5, 2.0]))
def test_values_are_the_library_functions(d, beta):
    y, p, w = d
    if w is not None and w.sum() == 0:
        return  # no weight at all: the library refuses, as scikit-learn does
    r = metrics.decision_intervals(y, p, beta=beta, sample_weight=w, n_resamples=0)
    want = _library(y, p, w, beta)
    for key, value in r.values.items():
        assert value == pytest.approx(want[key], abs=1e-12), key
    assert r.accuracy == pytest.approx(want[("accuracy", "")], abs=1e-12)


@SETTINGS
@given(d=decisions(), seed=st.integers(0, 2**16))
def test_every_replicate_is_the_library_on_the_resamples_weights(d, seed):
    y, p, w = d
    n_resamples = 7
    r = metrics.decision_intervals(y, p, sample_weight=w, n_resamples=n_resamples, seed=seed)
    counts = _Draws(np.zeros(len(y), bool), seed, "poisson", False).block(n_resamples)
    base = np.ones(len(y)) if w is None else w
    for k in range(n_resamples):
        rw = base * counts[k]
        if rw.sum() == 0:
            continue
        want = _library(y, p, rw)
        for key, reps in r.replicates.items():
            assert reps[k] == pytest.approx(want[key], abs=1e-12), (key, k)


def test_single_label_rows_are_the_labels_computation():
    """Multi-class: one true class per row, the predicted class or none (abstained) -- the
    numbers the page computes from class names with every class as a label."""
    rng = np.random.default_rng(3)
    n, classes = 200, np.array(["a", "b", "c"])
    s = rng.dirichlet([1, 1, 1], size=n)
    truth = classes[rng.integers(0, 3, n)]
    predicted = metrics.predict_argmax(s, labels=classes, min_score=[0.5, 0.3, 0.6],
                                       abstain="(none)")  # fmt: skip
    y = truth[:, None] == classes[None, :]
    p = predicted[:, None] == classes[None, :]
    r = metrics.decision_intervals(y, p, n_resamples=200)
    for name, fn in FUNCTIONS.items():
        for avg in ("micro", "macro", "weighted"):
            want = fn(truth, predicted, average=avg, labels=list(classes))
            assert r.values[(name, avg)] == pytest.approx(want, abs=1e-12)
            low, high = r.intervals[(name, avg)]
            assert low <= r.values[(name, avg)] <= high
    assert r.accuracy == metrics.accuracy_score(truth, predicted)


def test_groups_are_drawn_whole():
    rng = np.random.default_rng(5)
    n = 120
    groups = rng.integers(0, 15, n)
    y = rng.random((n, 3)) < 0.4
    p = rng.random((n, 3)) < 0.4
    r = metrics.decision_intervals(y, p, groups=groups, n_resamples=5, seed=11)
    assert r.resampled == "groups"
    counts = _GroupDraws(groups, n, 11, "poisson").block(5)
    for k in range(5):
        assert len({counts[k][groups == g][0] for g in range(15) if (groups == g).any()} or [0])
        for g in np.unique(groups):  # every row of a group counts as often as its group
            assert np.unique(counts[k][groups == g]).size == 1
        want = _library(y, p, counts[k].astype(float))
        assert r.replicates[("F1", "macro")][k] == pytest.approx(want[("F1", "macro")], abs=1e-12)


def test_bad_input_says_what_is_wrong():
    with pytest.raises(ValueError, match="one shape"):
        metrics.decision_intervals([[1, 0]], [[1, 0, 0]])
    with pytest.raises(ValueError, match="0/1"):
        metrics.decision_intervals([[2, 0]], [[1, 0]])
    with pytest.raises(ValueError, match="beta"):
        metrics.decision_intervals([[1, 0]], [[1, 0]], beta=0)

"""Per-class threshold counts, decision rules and threshold choice, against slow references.

References are direct loops over rows, thresholds and every combination of per-class
thresholds (brute force), and scikit-learn where it has the same quantity. Generated tables put
ties, all-tied columns, a class with one row, a class with no positives, and zero or fractional
weights in front.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import numpy as np
import pytest
import sklearn.metrics as skm
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import metrics.multiclass_thresholds as mt
from metrics import threshold_counts
from tests.strategies import examples

SETTINGS = settings(
    max_examples=examples(80), deadline=None, suppress_health_check=[HealthCheck.too_slow]
)


@dataclass(frozen=True)
class Table:
    y: np.ndarray  # (n, C) bool indicator
    labels_1d: np.ndarray | None  # one label per row when the table is multi-class
    s: np.ndarray  # (n, C) scores
    w: np.ndarray | None

    def __repr__(self) -> str:
        w = None if self.w is None else self.w.tolist()
        return f"Table(y={self.y.astype(int).tolist()}, s={self.s.tolist()}, w={w})"

    @property
    def y_true(self):
        return self.y if self.labels_1d is None else self.labels_1d


@st.composite
def tables(draw, max_rows: int = 30, max_classes: int = 4, decimals: int | None = None) -> Table:
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    n = draw(st.sampled_from([1, 2, 3, 5, 8, max_rows]))
    c = draw(st.integers(2, max_classes))
    multiclass = draw(st.booleans())
    labels_1d = None
    if multiclass:
        lab = rng.integers(0, c, n)
        shape = draw(st.sampled_from(["uniform", "one_row_class", "all_classes"]))
        if shape == "one_row_class" and n > 1:
            lab[lab == c - 1] = 0
            lab[rng.integers(n)] = c - 1
        if shape == "all_classes" and n >= c:
            lab[:c] = np.arange(c)
        if np.unique(lab).size < c:
            # scores need one column per class: keep only the classes present
            _, lab = np.unique(lab, return_inverse=True)
            c = int(lab.max()) + 1
            if c < 2:
                lab = np.r_[lab, 1]
                n += 1
                c = 2
        y = lab[:, None] == np.arange(c)[None, :]
        labels_1d = lab
    else:
        y = rng.random((n, c)) < draw(st.sampled_from([0.0, 0.2, 0.5, 1.0]))
    kind = draw(st.sampled_from(["continuous", "rounded", "all_tied", "informative"]))
    s = rng.random((n, c))
    if kind == "rounded":
        s = np.round(s, 1)
    elif kind == "all_tied":
        s = np.full((n, c), 0.5)
    elif kind == "informative":
        s = np.round(0.6 * y + 0.7 * rng.random((n, c)), 1)
    if decimals is not None:
        s = np.round(s, decimals)
    w = None
    wkind = draw(st.sampled_from(["none", "integers", "fractional", "with_zeros"]))
    if wkind == "integers":
        w = rng.integers(1, 4, n).astype(float)
    elif wkind == "fractional":
        w = rng.random(n) * 2 + 0.01
    elif wkind == "with_zeros":
        w = rng.random(n) * 2
        w[rng.random(n) < 0.4] = 0.0
        w[rng.integers(n)] = 1.0
    return Table(y, labels_1d, s, w)


# --- slow references ------------------------------------------------------------------------------


def ref_counts(y, s, w, thresholds):
    """Per class: tp, fp at each threshold of that class, by a loop over thresholds."""
    w = np.ones(y.shape[0]) if w is None else w
    tp = np.array([np.sum(w * ((s >= t) & y)) for t in thresholds])
    fp = np.array([np.sum(w * ((s >= t) & ~y)) for t in thresholds])
    return tp, fp


def ref_f(y, s, w, thresholds, beta=1.0):
    """(per-class F-beta, macro, micro) at per-class thresholds, written out plainly."""
    w = np.ones(y.shape[0]) if w is None else w
    tps, fps, fns = [], [], []
    for c in range(y.shape[1]):
        pred = s[:, c] >= thresholds[c]
        tps.append(np.sum(w * (pred & y[:, c])))
        fps.append(np.sum(w * (pred & ~y[:, c])))
        fns.append(np.sum(w * (~pred & y[:, c])))
    b2 = beta * beta

    def f(tp, fp, fn):
        den = (1 + b2) * tp + b2 * fn + fp
        return 0.0 if den == 0 else (1 + b2) * tp / den

    per = np.array([f(*t) for t in zip(tps, fps, fns, strict=True)])
    return per, per.mean(), f(sum(tps), sum(fps), sum(fns))


def candidates(s, w, c):
    """Class c's candidate thresholds: its distinct scores among rows of nonzero weight, and inf."""
    col = s[:, c] if w is None else s[w != 0, c]
    return np.r_[np.inf, np.unique(col)[::-1]]


# --- counts -------------------------------------------------------------------------------------------


@SETTINGS
@given(t=tables())
def test_class_threshold_counts_equal_loops_and_sklearn(t):
    counts = mt.class_threshold_counts(t.y_true, t.s, sample_weight=t.w)
    assert len(counts) == t.y.shape[1]
    for c in range(t.y.shape[1]):
        got = counts.counts(c)
        np.testing.assert_array_equal(got.thresholds, candidates(t.s, t.w, c)[1:])
        tp, fp = ref_counts(t.y[:, c], t.s[:, c], t.w, got.thresholds)
        np.testing.assert_allclose(got.tps, tp, rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(got.fps, fp, rtol=1e-12, atol=1e-12)
        one = threshold_counts(t.y[:, c], t.s[:, c], sample_weight=t.w)
        np.testing.assert_array_equal(got.tps, one.tps)
        if t.y[:, c].any() and (~t.y[:, c]).any():
            _tns, fps, _fns, tps, thr = skm.confusion_matrix_at_thresholds(
                t.y[:, c], t.s[:, c], sample_weight=t.w
            )
            np.testing.assert_array_equal(got.thresholds, thr)
            np.testing.assert_allclose(got.tps, tps, rtol=1e-12, atol=1e-12)
            np.testing.assert_allclose(got.fps, fps, rtol=1e-12, atol=1e-12)
    # lookups at arbitrary per-class thresholds equal a recount
    rng = np.random.default_rng(0)
    thr = np.r_[rng.choice(t.s.ravel(), t.y.shape[1] - 1), np.inf]
    conf = counts.at(thr)
    for c in range(t.y.shape[1]):
        tp, fp = ref_counts(t.y[:, c], t.s[:, c], t.w, [thr[c]])
        assert conf.tp[c] == pytest.approx(tp[0], abs=1e-12)
        assert conf.fp[c] == pytest.approx(fp[0], abs=1e-12)
        assert conf.tp[c] + conf.fn[c] == pytest.approx(
            np.sum((1 if t.w is None else t.w) * t.y[:, c]), abs=1e-12
        )


def test_sparse_indicator_and_bad_input():
    import scipy.sparse as sp

    y = np.array([[1, 0], [0, 1], [1, 1]])
    s = np.array([[0.9, 0.1], [0.2, 0.8], [0.5, 0.5]])
    a = mt.class_threshold_counts(sp.csr_matrix(y), s)
    b = mt.class_threshold_counts(y, s)
    np.testing.assert_array_equal(a.tps, b.tps)
    with pytest.raises(ValueError, match="0/1"):
        mt.class_threshold_counts(y * 2, s)
    with pytest.raises(ValueError, match="shape"):
        mt.class_threshold_counts(y, s[:, :1].repeat(3, axis=1))
    with pytest.raises(ValueError, match="finite"):
        mt.class_threshold_counts(y, np.where(s > 0.85, np.nan, s))


# --- decision rules ------------------------------------------------------------------------------


@SETTINGS
@given(t=tables(), k=st.integers(1, 5), min_score=st.sampled_from([None, 0.3, 0.5, 0.9]))
def test_decision_rules_equal_row_loops(t, k, min_score):
    n, c = t.s.shape
    # argmax with abstention
    got = mt.predict_argmax(t.s, min_score=min_score)
    for i in range(n):
        best = max(range(c), key=lambda j, i=i: (t.s[i, j], -j))  # first of the highest
        want = -1 if (min_score is not None and t.s[i, best] < min_score) else best
        assert got[i] == want
    names = [f"class {j}" for j in range(c)]
    got_names = mt.predict_argmax(t.s, labels=names, min_score=min_score, abstain="none")
    assert [("none" if g == -1 else names[g]) for g in got] == list(got_names)
    # top-k
    got = mt.predict_top_k(t.s, k)
    for i in range(n):
        ranked = sorted(range(c), key=lambda j, i=i: (-t.s[i, j], j))[: min(k, c)]
        assert sorted(np.flatnonzero(got[i]).tolist()) == sorted(ranked)
    # shared and per-class thresholds
    thr = np.linspace(0.2, 0.8, c)
    got = mt.predict_at_thresholds(t.s, thr)
    for i in range(n):
        for j in range(c):
            assert got[i, j] == (t.s[i, j] >= thr[j])
    np.testing.assert_array_equal(mt.predict_at_thresholds(t.s, 0.5), t.s >= 0.5)
    # argmax over per-class cut-offs: the top-scored class among those at or above their own
    cuts = t.s[np.arange(c) % n, np.arange(c)]  # cut-offs at scores of the table: ties on them
    got = mt.predict_argmax(t.s, min_score=cuts)
    for i in range(n):
        candidates = [j for j in range(c) if t.s[i, j] >= cuts[j]]
        want = max(candidates, key=lambda j, i=i: (t.s[i, j], -j)) if candidates else -1
        assert got[i] == want
    if min_score is not None:  # one cut-off repeated per class is the one-number rule
        np.testing.assert_array_equal(
            mt.predict_argmax(t.s, min_score=np.full(c, min_score)),
            mt.predict_argmax(t.s, min_score=min_score),
        )


@SETTINGS
@given(t=tables(), seed=st.integers(0, 1000))
def test_min_cost_decision_equals_loop(t, seed):
    rng = np.random.default_rng(seed)
    n, c = t.s.shape
    cost = np.round(rng.random((c, c)) * 5, 1)
    np.fill_diagonal(cost, 0)
    proba = t.s / t.s.sum(axis=1, keepdims=True) if (t.s > 0).all() else t.s
    got = mt.min_cost_predict(proba, cost)
    for i in range(n):
        expected = [sum(proba[i, a] * cost[a, j] for a in range(c)) for j in range(c)]
        # the first column within rounding of the lowest (CI drew a row whose two tied costs
        # the loop summed equal and a matrix product one unit apart)
        tie = min(expected) + mt.TIE_TOLERANCE * max(abs(e) for e in expected)
        assert got[i] == next(j for j in range(c) if expected[j] <= tie)
    if t.labels_1d is not None:
        r = mt.compare_cost_decisions(t.labels_1d, proba, cost, sample_weight=t.w)
        w = np.ones(n) if t.w is None else t.w
        assert r.min_cost_mean == pytest.approx(
            np.sum(w * cost[t.labels_1d, got]) / w.sum(), abs=1e-12
        )
        argmax = np.argmax(proba, axis=1)
        assert r.argmax_mean == pytest.approx(
            np.sum(w * cost[t.labels_1d, argmax]) / w.sum(), abs=1e-12
        )
        assert r.changed == int(np.sum(got != argmax))


@pytest.mark.parametrize(
    ("row", "cost"),
    [
        ([0.6, 0.8, 1.1], [[0, 1.9, 3.2], [1.7, 0, 1.5], [2.9, 1.8, 0]]),  # 0.24*1.9 + 0.44*1.8
        ([0.6, 0.7, 0.8], [[0, 4.7, 2.1], [4.9, 0, 4.4], [5, 1.9, 0]]),  # 4.34 / 2.1 both
    ],
)
def test_a_tie_in_expected_cost_goes_to_the_first_column_however_it_rounds(row, cost):
    """Columns 1 and 2 cost the same in exact arithmetic; summed in floating point, one of them
    comes out a unit in the last place lower, and which one depends on the order of the sum."""
    proba = np.array([row]) / sum(row)
    assert mt.min_cost_predict(proba, cost).tolist() == [1]


def test_min_cost_decision_with_zero_one_cost_is_argmax():
    rng = np.random.default_rng(3)
    p = rng.random((500, 4))
    p /= p.sum(axis=1, keepdims=True)
    np.testing.assert_array_equal(mt.min_cost_predict(p, 1 - np.eye(4)), np.argmax(p, axis=1))
    with pytest.raises(ValueError, match="4 x 4"):
        mt.min_cost_predict(p, np.ones((3, 3)))


# --- choosing thresholds --------------------------------------------------------------------------


@SETTINGS
@given(t=tables(max_rows=10, max_classes=3, decimals=1), beta=st.sampled_from([0.5, 1.0, 2.0]))
def test_threshold_choice_against_brute_force(t, beta):
    cands = [candidates(t.s, t.w, c) for c in range(t.y.shape[1])]
    best_macro, best_micro = -1.0, -1.0
    for combo in itertools.product(*cands):
        _, macro, micro = ref_f(t.y, t.s, t.w, np.array(combo), beta)
        best_macro, best_micro = max(best_macro, macro), max(best_micro, micro)
    shared_macro = max(
        ref_f(t.y, t.s, t.w, np.full(t.y.shape[1], v), beta)[1]
        for v in np.unique(np.concatenate(cands))
    )
    shared_micro = max(
        ref_f(t.y, t.s, t.w, np.full(t.y.shape[1], v), beta)[2]
        for v in np.unique(np.concatenate(cands))
    )

    # per class (= macro): exact
    per = mt.best_class_thresholds(t.y_true, t.s, beta=beta, sample_weight=t.w)
    macro = mt.optimise_thresholds(t.y_true, t.s, beta=beta, sample_weight=t.w)
    np.testing.assert_array_equal(per.thresholds, macro.thresholds)
    assert macro.macro == pytest.approx(best_macro, abs=1e-12)
    ref_per, _ref_macro, ref_micro = ref_f(t.y, t.s, t.w, macro.thresholds, beta)
    np.testing.assert_allclose(macro.per_class, ref_per, atol=1e-12)
    assert macro.micro == pytest.approx(ref_micro, abs=1e-12)
    for c in range(t.y.shape[1]):  # each class at its own maximum
        best_c = max(
            ref_f(t.y, t.s, t.w, np.where(np.arange(t.y.shape[1]) == c, v, np.inf), beta)[0][c]
            for v in cands[c]
        )
        assert macro.per_class[c] == pytest.approx(best_c, abs=1e-12)
    assert macro.shared_value == pytest.approx(shared_macro, abs=1e-12)
    assert macro.gain == pytest.approx(best_macro - shared_macro, abs=1e-12)

    # micro: a coordinate-wise optimum between the macro start and the global optimum
    micro = mt.optimise_thresholds(t.y_true, t.s, objective="micro", beta=beta, sample_weight=t.w)
    _, _, got_micro = ref_f(t.y, t.s, t.w, micro.thresholds, beta)
    assert micro.micro == pytest.approx(got_micro, abs=1e-12)
    assert micro.micro >= macro.micro - 1e-12
    assert micro.micro <= best_micro + 1e-12
    for c in range(t.y.shape[1]):
        for v in cands[c]:
            moved = micro.thresholds.copy()
            moved[c] = v
            assert ref_f(t.y, t.s, t.w, moved, beta)[2] <= micro.micro + 1e-12
    assert micro.shared_value == pytest.approx(shared_micro, abs=1e-12)


@SETTINGS
@given(t=tables(max_rows=30, max_classes=4))
def test_chosen_values_equal_sklearn_f_scores(t):
    for objective in ("macro", "micro"):
        choice = mt.optimise_thresholds(t.y_true, t.s, objective=objective, sample_weight=t.w)
        pred = mt.predict_at_thresholds(t.s, choice.thresholds)
        kw = dict(sample_weight=t.w, zero_division=0)
        assert choice.macro == pytest.approx(
            skm.f1_score(t.y, pred, average="macro", **kw), abs=1e-12
        )
        assert choice.micro == pytest.approx(
            skm.f1_score(t.y, pred, average="micro", **kw), abs=1e-12
        )
        shared = mt.predict_at_thresholds(t.s, choice.shared_threshold)
        assert choice.shared_value == pytest.approx(
            skm.f1_score(t.y, shared, average=objective, **kw), abs=1e-12
        )


@SETTINGS
@given(
    t=tables(max_rows=30), seed=st.integers(0, 100), objective=st.sampled_from(["macro", "micro"])
)
def test_choose_on_half_reports_on_the_other_half(t, seed, objective):
    n = t.s.shape[0]
    if n < 2:
        with pytest.raises(ValueError, match="split"):
            mt.choose_on_half(t.y_true, t.s, seed=seed)
        return
    r = mt.choose_on_half(t.y_true, t.s, objective=objective, sample_weight=t.w, seed=seed)
    again = mt.choose_on_half(t.y_true, t.s, objective=objective, sample_weight=t.w, seed=seed)
    np.testing.assert_array_equal(r.chosen_rows, again.chosen_rows)
    assert sorted(np.r_[r.chosen_rows, r.report_rows].tolist()) == list(range(n))
    a, b = r.chosen_rows, r.report_rows
    wa = None if t.w is None else t.w[a]
    wb = None if t.w is None else t.w[b]
    direct = mt.optimise_thresholds(t.y[a], t.s[a], objective=objective, sample_weight=wa)
    np.testing.assert_array_equal(r.choice.thresholds, direct.thresholds)
    which = 2 if objective == "micro" else 1
    if wb is not None and wb.sum() == 0:
        return
    assert r.report_value == pytest.approx(
        ref_f(t.y[b], t.s[b], wb, r.choice.thresholds)[which], abs=1e-12
    )
    shared = np.full(t.y.shape[1], r.choice.shared_threshold)
    assert r.report_shared_value == pytest.approx(
        ref_f(t.y[b], t.s[b], wb, shared)[which], abs=1e-12
    )
    assert r.optimism == pytest.approx(r.choice.value - r.report_value)


def test_per_class_thresholds_beat_a_shared_one_when_classes_differ_in_scale():
    """Class 1's scores live in [0, 0.3]: one threshold cannot serve both classes."""
    rng = np.random.default_rng(0)
    y = rng.random((400, 2)) < 0.3
    s = np.c_[0.5 * y[:, 0] + 0.5 * rng.random(400), 0.3 * (0.5 * y[:, 1] + 0.5 * rng.random(400))]
    choice = mt.optimise_thresholds(y, s)
    assert choice.gain > 0.2
    assert choice.thresholds[1] < 0.3 < choice.thresholds[0]


@SETTINGS
@given(t=tables(max_rows=60, max_classes=5), beta=st.sampled_from([0.5, 1.0, 3.0]))
def test_micro_ascent_ends_where_no_single_class_move_helps(t, beta):
    """On tables too big for brute force: no one class's threshold can be moved to raise micro
    F-beta, and the ascent never ends below its start (the macro optimum)."""
    start = mt.optimise_thresholds(t.y_true, t.s, beta=beta, sample_weight=t.w)
    micro = mt.optimise_thresholds(t.y_true, t.s, objective="micro", beta=beta, sample_weight=t.w)
    assert micro.micro >= start.micro - 1e-12
    assert micro.micro == pytest.approx(ref_f(t.y, t.s, t.w, micro.thresholds, beta)[2], abs=1e-12)
    for c in range(t.y.shape[1]):
        for v in candidates(t.s, t.w, c):
            moved = micro.thresholds.copy()
            moved[c] = v
            assert ref_f(t.y, t.s, t.w, moved, beta)[2] <= micro.micro + 1e-12


def test_micro_ascent_moves_several_classes():
    """Skewed classes where the micro optimum is far from the per-class (macro) optimum: the
    ascent moves two or more classes over several passes."""
    rng = np.random.default_rng(8)
    n = 200
    prevalence = rng.choice([0.02, 0.05, 0.3, 0.6], size=4)
    y = rng.random((n, 4)) < prevalence
    s = np.round(rng.choice([0.2, 0.4, 0.6]) * y + rng.random(y.shape), 2)
    start = mt.optimise_thresholds(y, s)
    micro = mt.optimise_thresholds(y, s, objective="micro")
    assert micro.rounds >= 3
    assert (micro.thresholds != start.thresholds).sum() >= 2
    assert micro.micro > start.micro + 0.1
    for c in range(4):
        for v in candidates(s, None, c):
            moved = micro.thresholds.copy()
            moved[c] = v
            assert ref_f(y, s, None, moved)[2] <= micro.micro + 1e-12

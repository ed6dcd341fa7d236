"""Comparing multi-class and multi-label models: values equal scikit-learn's, resamples paired
across every metric and model, verdicts only where the tests support them."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sklearn import metrics as skm

from metrics.compare import _Draws
from metrics.multiclass_compare import compare_multiclass_models
from tests.strategies import examples

SIZES = (1, 2, 3, 31, 32, 33)  # a class with one row, and the blocked prefix sums' edges


def _scores(draw, rng: np.random.Generator, truth: np.ndarray, kind: str) -> np.ndarray:
    """One model's (n, C) scores: probabilities, heavily tied, or all tied."""
    n, c = truth.shape
    shape = draw(st.sampled_from(["continuous", "rounded", "all_tied"]))
    if shape == "all_tied":
        s = np.full((n, c), 1.0 / c)
    else:
        z = rng.normal(size=(n, c)) + draw(st.floats(0.0, 2.0)) * truth
        s = np.exp(z) / np.exp(z).sum(axis=1, keepdims=True) if kind == "multiclass" else (
            1 / (1 + np.exp(-z))
        )  # fmt: skip
        if shape == "rounded":
            s = np.round(s, 1)
    return s


@st.composite
def tables(draw, kind: str, weights: bool = True):
    """(y, scores by model, weights): 2-5 classes, each class from one row to a few dozen,
    2-3 models, sometimes weighted with zeros."""
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    n_classes = draw(st.integers(2, 5))
    if kind == "multiclass":
        counts = [
            draw(st.one_of(st.sampled_from(SIZES), st.integers(1, 40))) for _ in range(n_classes)
        ]
        y = np.repeat(np.arange(n_classes), counts)[rng.permutation(sum(counts))]
        truth = np.eye(n_classes, dtype=bool)[y]
    else:
        n = draw(st.integers(4, 80))
        truth = rng.random((n, n_classes)) < draw(st.floats(0.1, 0.7))
        for c in range(n_classes):  # every class defined: one positive and one negative at least
            i, j = rng.choice(n, 2, replace=False)
            truth[i, c], truth[j, c] = True, False
        y = truth.astype(int)
    m = draw(st.integers(2, 3))
    scores = {f"m{k}": _scores(draw, rng, truth, kind) for k in range(m)}
    w = None
    if weights and draw(st.booleans()):
        w = rng.random(truth.shape[0]) * 3
        w[rng.random(truth.shape[0]) < 0.3] = 0.0
        # keep every class defined under the weights
        for c in range(n_classes):
            w[np.flatnonzero(truth[:, c])[0]] = 1.0
            if not truth[:, c].all():
                w[np.flatnonzero(~truth[:, c])[0]] = 1.0
    return y, scores, w


def sklearn_values(kind: str, y, s: np.ndarray, w, threshold: float = 0.5) -> dict[str, float]:
    """Every metric by scikit-learn itself."""
    n_classes = s.shape[1]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if kind == "multiclass":
            truth = np.eye(n_classes)[y]
            # Two classes (scikit-learn reads one label column as binary) and rows that do not
            # sum to one (it refuses them for multi_class): its one-vs-rest on the indicator
            # matrix is the same definition.
            sums_to_one = np.allclose(s.sum(axis=1), 1)
            auc = {a: skm.roc_auc_score(y, s, multi_class="ovr", average=a, sample_weight=w,
                                        labels=np.arange(n_classes))
                   if n_classes > 2 and sums_to_one
                   else skm.roc_auc_score(truth, s, average=a, sample_weight=w)
                   for a in ("macro", "micro", "weighted")}  # fmt: skip
            pred = np.argmax(s, axis=1)
            out = {
                "log loss": skm.log_loss(y, s, sample_weight=w, labels=np.arange(n_classes)),
                "Brier": skm.brier_score_loss(y, s, sample_weight=w, labels=np.arange(n_classes)),
                "accuracy": skm.accuracy_score(y, pred, sample_weight=w),
                "macro F1": skm.f1_score(y, pred, average="macro", sample_weight=w),
                "micro F1": skm.f1_score(y, pred, average="micro", sample_weight=w),
            }
        else:
            truth = y
            auc = {a: skm.roc_auc_score(y, s, average=a, sample_weight=w)
                   for a in ("macro", "micro", "weighted")}  # fmt: skip
            pred = (s >= threshold).astype(int)
            cell_w = None if w is None else np.repeat(w, n_classes)
            out = {
                "log loss": skm.log_loss(y.ravel(), s.ravel(), sample_weight=cell_w, labels=[0, 1]),
                "Brier": skm.brier_score_loss(y.ravel(), s.ravel(), sample_weight=cell_w),
                "accuracy": skm.accuracy_score(y, pred, sample_weight=w),
                "macro F1": skm.f1_score(y, pred, average="macro", sample_weight=w),
                "micro F1": skm.f1_score(y, pred, average="micro", sample_weight=w),
            }
        for a in ("macro", "micro", "weighted"):
            out[f"{a} AUC"] = auc[a]
            out[f"{a} AP"] = skm.average_precision_score(truth, s, average=a, sample_weight=w)
    return out


@pytest.mark.parametrize("kind", ["multiclass", "multilabel"])
@settings(max_examples=examples(25), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_every_value_equals_scikit_learn(kind, data):
    y, scores, w = data.draw(tables(kind))
    r = compare_multiclass_models(y, scores, sample_weight=w, n_resamples=0)
    assert r.kind == kind
    for i, (name, s) in enumerate(scores.items()):
        expected = sklearn_values(kind, y, s, w)
        for metric, value in expected.items():
            assert r.values[metric][i] == pytest.approx(value, rel=1e-9, abs=1e-12), (
                name,
                metric,
            )


def test_a_decision_threshold_moves_multilabel_f1_as_scikit_learn():
    rng = np.random.default_rng(3)
    y = (rng.random((60, 3)) < 0.4).astype(int)
    s = np.clip(y * 0.3 + rng.random((60, 3)) * 0.7, 0, 1)
    for t in (0.2, 0.5, 0.8):
        r = compare_multiclass_models(y, {"a": s, "b": s[::-1]}, threshold=t, n_resamples=0)
        assert r.values["macro F1"][0] == pytest.approx(
            skm.f1_score(y, (s >= t).astype(int), average="macro", zero_division=0)
        )
        assert f"≥ {t:g}" in r.rule


def _counts(n: int, n_resamples: int, seed: int = 0) -> np.ndarray:
    return _Draws(np.zeros(n, bool), seed, "poisson", False).block(n_resamples).astype(float)


@pytest.mark.parametrize("kind", ["multiclass", "multilabel"])
def test_every_resample_is_the_metric_on_the_same_counted_rows(kind):
    """Replicate r of every metric and model is scikit-learn's value on the rows weighted by
    the r-th resample's counts: the resamples are paired across metrics, classes and models."""
    rng = np.random.default_rng(5)
    n, c = 90, 3
    if kind == "multiclass":
        y = rng.integers(0, c, n)
        truth = np.eye(c, dtype=bool)[y]
    else:
        truth = rng.random((n, c)) < 0.4
        y = truth.astype(int)
    scores = {
        "a": _softmax(rng.normal(size=(n, c)) + 1.5 * truth),
        "b": _softmax(rng.normal(size=(n, c)) + 0.5 * truth),
    }
    w = rng.random(n) + 0.5
    r = compare_multiclass_models(y, scores, sample_weight=w, n_resamples=12, seed=4)
    counts = _counts(n, 12, seed=4)
    for b in (0, 5, 11):
        for i, s in enumerate(scores.values()):
            expected = sklearn_values(kind, y, s, w * counts[b])
            for metric, value in expected.items():
                got = r.results[metric].replicates[b, i]
                assert got == pytest.approx(value, rel=1e-9, abs=1e-12), (b, metric)


def _softmax(z: np.ndarray) -> np.ndarray:
    e = np.exp(z - z.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def test_groups_resample_whole_groups():
    rng = np.random.default_rng(8)
    n, c = 120, 3
    y = rng.integers(0, c, n)
    g = rng.integers(0, 15, n)
    truth = np.eye(c, dtype=bool)[y]
    scores = {
        "a": _softmax(rng.normal(size=(n, c)) + truth),
        "b": _softmax(rng.normal(size=(n, c))),
    }
    r = compare_multiclass_models(y, scores, groups=g, n_resamples=8, seed=2, small_groups=False)
    assert r.n_groups == 15
    _, inverse = np.unique(g, return_inverse=True)
    group_counts = _Draws(np.zeros(15, bool), 2, "poisson", False).block(8).astype(float)
    for b in (0, 7):
        expected = sklearn_values("multiclass", y, scores["a"], group_counts[b][inverse])
        for metric in ("macro AUC", "micro AP", "log loss", "macro F1"):
            assert r.results[metric].replicates[b, 0] == pytest.approx(expected[metric], rel=1e-9)
    widened = compare_multiclass_models(y, scores, groups=g, n_resamples=200, seed=2)
    plain = compare_multiclass_models(
        y, scores, groups=g, n_resamples=200, seed=2, small_groups=False
    )
    assert widened.small_groups is not None
    assert widened.small_groups.factor > 1
    for metric in ("macro AUC", "accuracy"):
        a, b = widened.results[metric].models[0], plain.results[metric].models[0]
        assert a.ci_low <= b.ci_low
        assert a.ci_high >= b.ci_high


def test_a_better_model_is_starred_and_a_copy_is_not():
    rng = np.random.default_rng(2)
    n, c = 600, 4
    y = rng.integers(0, c, n)
    truth = np.eye(c, dtype=bool)[y]
    good = _softmax(rng.normal(size=(n, c)) + 2.0 * truth)
    poor = _softmax(rng.normal(size=(n, c)) + 0.3 * truth)
    r = compare_multiclass_models(y, {"good": good, "poor": poor}, n_resamples=300)
    assert r.best["macro AUC"].best == 0  # the primary metric, declared by default
    assert r.best["macro AUC"].verdict.startswith("good is best")
    for name in ("micro AP", "log loss", "accuracy", "macro F1"):  # exploratory: no star
        assert r.best[name].best is None, name
        assert r.best[name].verdict.startswith("exploratory"), name
    every = compare_multiclass_models(
        y, {"good": good, "poor": poor}, n_resamples=300, family="all"
    )
    for name in ("macro AUC", "micro AP", "log loss", "accuracy", "macro F1"):
        assert every.best[name].best == 0, name
        assert every.best[name].verdict.startswith("good is best")
    pair = next(p for p in r.pairs if p.metric == "macro AUC")
    assert pair.verdict.startswith("good is better than poor on macro AUC by")
    assert pair.ci_low > 0
    assert pair.holm_p < 0.05
    same = compare_multiclass_models(y, {"a": good, "b": good.copy()}, n_resamples=100)
    assert all(b.best is None for b in same.best.values())
    assert all(
        p.verdict.startswith("no significant difference" if p.role == "primary" else "exploratory")
        for p in same.pairs
    )
    values_only = compare_multiclass_models(y, {"good": good, "poor": poor}, n_resamples=0)
    assert values_only.results is None
    assert all(b.best is None for b in values_only.best.values())
    assert all("not tested" in p.verdict for p in values_only.pairs)


def test_three_models_are_holm_corrected_across_their_pairs():
    rng = np.random.default_rng(4)
    n, c = 300, 3
    y = rng.integers(0, c, n)
    truth = np.eye(c, dtype=bool)[y]
    scores = {k: _softmax(rng.normal(size=(n, c)) + q * truth) for k, q in
              (("a", 1.0), ("b", 1.05), ("c", 0.95))}  # fmt: skip
    r = compare_multiclass_models(y, scores, n_resamples=200)
    pairs = [p for p in r.pairs if p.metric == "macro AUC"]
    assert [(p.model_a, p.model_b) for p in pairs] == [("a", "b"), ("a", "c"), ("b", "c")]
    raw = sorted(p.p_value for p in pairs)
    holm = sorted(p.holm_p for p in pairs)
    assert holm[0] == pytest.approx(min(1.0, 3 * raw[0]))
    assert all(h >= p for h, p in zip(holm, raw, strict=True))


def test_scores_that_are_not_probabilities_leave_out_log_loss_and_say_why():
    rng = np.random.default_rng(0)
    y = rng.integers(0, 3, 50)
    r = compare_multiclass_models(
        y, {"a": rng.normal(size=(50, 3)), "b": rng.normal(size=(50, 3))}, n_resamples=0
    )
    assert "log loss" not in r.values
    assert "Brier" not in r.values
    assert any("not probabilities" in note for note in r.notes)


def test_bad_input_gets_one_sentence():
    y = np.array([0, 1, 2, 0])
    with pytest.raises(ValueError, match="one score column per class"):
        compare_multiclass_models(y, {"a": np.ones(4)})
    with pytest.raises(ValueError, match="at least one model"):
        compare_multiclass_models(y, {})
    with pytest.raises(ValueError, match="threshold must be a finite number"):
        compare_multiclass_models(np.eye(3)[y], {"a": np.eye(3)[y]}, threshold=float("nan"))


def test_intervals_cover_and_tests_hold_their_level_in_a_small_simulation():
    """A seeded few-experiment version of bench/bench_coverage_multiclass.py (150 experiments
    there: coverage 92.7-95.3%, rejections of a true null 2.7-5.3%): two exchangeable models,
    so every test's null is true; the truth of macro AUC from a large sample."""
    from bench.bench_coverage_multiclass import draw

    rng = np.random.default_rng(11)
    y, scores, _ = draw(rng, 200_000, 3, 1.2, False)
    truth = compare_multiclass_models(y, {"a": scores["a"]}, n_resamples=0).values["macro AUC"][0]
    covered = rejected = 0
    reps = 30
    for _ in range(reps):
        y, scores, _ = draw(rng, 300, 3, 1.2, False)
        r = compare_multiclass_models(y, scores, n_resamples=200, seed=int(rng.integers(2**31)))
        iv = r.results["macro AUC"].models[0]
        covered += iv.ci_low <= truth <= iv.ci_high
        rejected += next(p for p in r.pairs if p.metric == "macro AUC").holm_p < 0.05
    assert covered >= 25  # 95% of 30 is 28.5; 25 or fewer has probability below 3%
    assert rejected <= 5  # 5% of 30 is 1.5

"""Paired tests between runs against scipy, an exact randomization and trec_eval's per-query
values."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest
import pytrec_eval
import scipy.stats as ss
from hypothesis import given, settings
from hypothesis import strategies as st

from metrics.significance import holm_adjust
from metrics.trec import compare_runs
from metrics.trec.compare import _fisher
from tests.strategies import examples

MEASURES = ["map", "ndcg_cut_5", "P_3", "recip_rank"]


def _case(seed: int, n_queries: int = 30):
    rng = np.random.default_rng(seed)
    qrels, runs = {}, {"a": {}, "b": {}, "c": {}}
    for q in range(n_queries):
        docs = [f"d{i}" for i in rng.choice(40, 15, replace=False)]
        qrels[str(q)] = {d: int(rng.integers(0, 3)) for d in docs[:8]}
        qrels[str(q)][docs[0]] = 1
        for r in runs.values():
            r[str(q)] = {d: float(rng.integers(0, 5)) for d in rng.choice(docs, 10, replace=False)}
    return qrels, runs


def _per_query(qrels, run, measures):
    ev = pytrec_eval.RelevanceEvaluator(qrels, set(measures)).evaluate(run)
    return {m: np.array([ev[q][m] for q in sorted(ev)]) for m in measures}


@settings(max_examples=examples(20), deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_student_p_and_interval_equal_scipy_ttest_rel_on_trec_eval_values(seed):
    qrels, runs = _case(seed)
    table = compare_runs(qrels, runs, MEASURES, test="student", baseline="a")
    base = _per_query(qrels, runs["a"], MEASURES)
    for row in table.itertuples(index=False):
        mine = _per_query(qrels, runs[row.run], MEASURES)[row.measure]
        theirs = base[row.measure]
        d = mine - theirs
        assert row.difference == pytest.approx(d.mean(), abs=1e-12)
        assert row.mean == pytest.approx(mine.mean(), abs=1e-12)
        if np.all(d == 0):
            assert row.p_value == 1.0
            continue
        res = ss.ttest_rel(mine, theirs)
        assert row.p_value == pytest.approx(res.pvalue, rel=1e-9, abs=1e-12)
        ci = res.confidence_interval(0.95)
        assert (row.ci_low, row.ci_high) == pytest.approx((ci.low, ci.high), rel=1e-9)
        assert (row.wins, row.ties, row.losses) == (
            int((d > 0).sum()),
            int((d == 0).sum()),
            int((d < 0).sum()),
        )


def _exact_randomization(d: np.ndarray) -> float:
    """Every one of the 2^n sign patterns: the exact two-sided p of the sign-flip test."""
    observed = abs(d.sum())
    sums = [abs((np.array(signs) * d).sum()) for signs in itertools.product((1, -1), repeat=d.size)]
    return float(np.mean(np.array(sums) >= observed - 1e-12))


@pytest.mark.parametrize("seed", range(6))
def test_fisher_within_monte_carlo_error_of_the_exact_randomization(seed):
    rng = np.random.default_rng(seed)
    d = np.round(rng.normal(0.1 * seed, 1.0, size=(11, 1)), 2)
    d[rng.integers(0, 11)] = 0.0  # a tied query
    exact = _exact_randomization(d[:, 0])
    b = 20_000
    p = _fisher(d, b, np.random.default_rng(100 + seed))[0]
    # (1 + count) / (1 + B) against the exact p: four standard errors of the Monte-Carlo mean.
    assert abs(p - exact) <= 4 * np.sqrt(exact * (1 - exact) / b) + 2 / b


def test_fisher_through_compare_runs_matches_an_independent_randomization():
    qrels, runs = _case(3, n_queries=25)
    table = compare_runs(qrels, runs, ["map"], test="fisher", seed=5, n_resamples=20_000)
    pq = {name: _per_query(qrels, run, ["map"])["map"] for name, run in runs.items()}
    rng = np.random.default_rng(12345)
    for row in table.itertuples(index=False):
        d = pq[row.run] - pq[row.baseline]
        signs = rng.choice([-1.0, 1.0], size=(20_000, d.size))
        independent = np.mean(np.abs(signs @ d) >= abs(d.sum()) - 1e-12)
        assert abs(row.p_value - independent) <= 4 * np.sqrt(2 * 0.25 / 20_000)


def test_wilcoxon_equals_scipy_asymptotic():
    qrels, runs = _case(11, n_queries=60)
    table = compare_runs(qrels, runs, MEASURES, test="wilcoxon", baseline="a")
    base = _per_query(qrels, runs["a"], MEASURES)
    for row in table.itertuples(index=False):
        d = _per_query(qrels, runs[row.run], MEASURES)[row.measure] - base[row.measure]
        want = ss.wilcoxon(d, zero_method="wilcox", correction=False, method="asymptotic")
        assert row.p_value == pytest.approx(want.pvalue, rel=1e-9)


def test_bootstrap_is_seeded_and_its_interval_holds_the_mean():
    qrels, runs = _case(4)
    one = compare_runs(qrels, runs, MEASURES, test="bootstrap", seed=3, n_resamples=2000)
    two = compare_runs(qrels, runs, MEASURES, test="bootstrap", seed=3, n_resamples=2000)
    pd.testing.assert_frame_equal(one, two)
    assert (one["ci_low"] <= one["difference"]).all()
    assert (one["difference"] <= one["ci_high"]).all()
    assert ((one["p_value"] > 0) & (one["p_value"] <= 1)).all()


def test_the_family_is_declared_and_corrected_together():
    qrels, runs = _case(8)
    table = compare_runs(qrels, runs, MEASURES, test="student")
    assert len(table) == 3 * len(MEASURES)  # every pair of three runs x measures
    np.testing.assert_allclose(table["p_adjusted"], holm_adjust(table["p_value"]))
    assert table.attrs["family"].startswith("12 tests (4 measures x 3 pairs), Holm")
    assert (table["significant"] == (table["p_adjusted"] < 0.05)).all()

    primary = compare_runs(qrels, runs, MEASURES, test="student", primary="map")
    in_family = primary["measure"] == "map"
    np.testing.assert_allclose(
        primary.loc[in_family, "p_adjusted"], holm_adjust(primary.loc[in_family, "p_value"])
    )
    assert primary.loc[~in_family, "p_adjusted"].isna().all()
    assert not primary.loc[~in_family, "significant"].any()
    assert "primary measure map" in primary.attrs["family"]

    none = compare_runs(qrels, runs, MEASURES, correction="none")
    np.testing.assert_array_equal(none["p_adjusted"], none["p_value"])


def test_a_clear_improvement_is_significant():
    qrels = {str(q): {"good": 1} for q in range(30)}
    bad = {str(q): {"x": 2.0, "good": 1.0} for q in range(30)}
    good = {str(q): {"x": 1.0, "good": 2.0} for q in range(30)}
    for test in ("student", "fisher", "bootstrap", "wilcoxon"):
        table = compare_runs(qrels, {"bad": bad, "good": good}, ["recip_rank"], test=test, seed=0)
        row = table.iloc[0]
        assert row.difference == pytest.approx(0.5)
        assert row.significant, test
        assert (row.wins, row.ties, row.losses) == (30, 0, 0)


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"test": "anova"}, "test must be one of student"),
        ({"correction": "fdr"}, "correction must be one of holm"),
        ({"baseline": "zzz"}, "baseline 'zzz' is not one of the runs"),
        ({"primary": "P_10"}, "primary 'P_10' is not one of the measures"),
        ({"test": "fisher", "n_resamples": 0}, "n_resamples must be at least 1"),
    ],
)
def test_bad_options_say_what_is_allowed(kwargs, match):
    qrels, runs = _case(1, n_queries=5)
    with pytest.raises(ValueError, match=match):
        compare_runs(qrels, runs, MEASURES, **kwargs)


def test_runs_without_common_queries_and_a_single_run_are_refused():
    qrels = {"1": {"a": 1}, "2": {"a": 1}}
    with pytest.raises(ValueError, match="share no evaluated query"):
        compare_runs(qrels, {"x": {"1": {"a": 1.0}}, "y": {"2": {"a": 1.0}}}, ["map"])
    with pytest.raises(ValueError, match="at least two"):
        compare_runs(qrels, {"x": {"1": {"a": 1.0}}}, ["map"])


@pytest.mark.statistical
def test_fisher_and_t_reject_about_alpha_when_the_runs_are_exchangeable():
    """400 experiments where the two runs are equal by construction (each query's pair of values
    drawn from one distribution, skewed and tied like per-query AP): each test at 5% rejects
    within the binomial range around 5%."""
    from metrics.trec.compare import _t_interval

    rng = np.random.default_rng(2024)
    reject_fisher = reject_t = 0
    reps = 400
    for _ in range(reps):
        pair = np.round(rng.beta(0.5, 2.0, size=(30, 2)), 2)
        d = (pair[:, 0] - pair[:, 1])[:, None]
        reject_fisher += _fisher(d, 500, rng)[0] < 0.05
        reject_t += _t_interval(d[:, 0], 0.95)[0] < 0.05
    # 400 draws at 5%: 99.9% of rejection counts fall in 8..35.
    assert 8 <= reject_fisher <= 35
    assert 8 <= reject_t <= 35

"""Tukey's HSD between runs, and what a pair of runs could detect (effect size, power, the
smallest detectable difference), against scipy and statsmodels.

Which design each oracle matches:

* ``scipy.stats.tukey_hsd`` and statsmodels' ``pairwise_tukeyhsd`` are one-way (the pairing over
  queries ignored): they are the oracles of ``test="tukey-oneway"``, ranx's variant (ranx calls
  ``scipy.stats.tukey_hsd``).
* ``test="tukey"`` blocks on queries: its residual is checked against statsmodels' OLS fit of
  ``value ~ C(run) + C(query)`` (the two-way ANOVA without interaction), its distribution against
  scipy's ``studentized_range``; with two runs it must equal scipy's ``ttest_rel``.

scipy's ``studentized_range.sf`` costs ~60 ms a value and loses relative digits below p = 1e-9
at large df (its quadrature's absolute tolerance), so it is checked on a grid, and the k = 2
identity ``Q = sqrt(2) |T|`` checks the far tail exactly.
"""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest
import pytrec_eval
import scipy.stats as ss
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from statsmodels.formula.api import ols
from statsmodels.stats.multicomp import pairwise_tukeyhsd
from statsmodels.stats.power import TTestPower

from metrics._studentized import (
    nct_two_sided_power,
    studentized_range_quantile,
    studentized_range_sf,
)
from metrics.trec import compare_runs, paired_power, tukey_hsd
from metrics.trec.power import detectable_effect
from tests.strategies import examples, per_query_values
from tests.test_trec_compare import _case, _per_query
from tests.trec_strategies import trec_cases

# --- the distributions ---------------------------------------------------------------------


@pytest.mark.parametrize(("k", "df"), [(2, 1), (3, 4), (3, 57), (5, 200), (8, 13000)])
def test_studentized_range_sf_and_quantile_equal_scipy(k, df):
    q = np.array([0.3, 1.5, 3.0, 4.5, 6.5])
    want = ss.studentized_range.sf(q, k, df)
    got = studentized_range_sf(q, k, df)
    np.testing.assert_allclose(got, want, rtol=1e-7, atol=1e-11)
    assert studentized_range_quantile(0.95, k, df) == pytest.approx(
        ss.studentized_range.ppf(0.95, k, df), rel=1e-8
    )


@settings(max_examples=examples(40), deadline=None)
@given(st.floats(0.0, 14.0), st.sampled_from([1, 2, 3, 9, 40, 300, 5000, 40000]))
def test_two_means_range_is_sqrt2_times_t_far_into_the_tail(q, df):
    """With k = 2 the studentized range is sqrt(2) |T_df|: exact, where scipy's quadrature is
    not (relative 1e-6 down to p = 1e-11, 1e-2 below to 1e-20, then absolute)."""
    want = 2.0 * ss.t.sf(q / np.sqrt(2.0), df)
    got = studentized_range_sf(q, 2, df)[0]
    assert got == pytest.approx(want, rel=1e-6 if want > 1e-11 else 1e-2, abs=1e-20)


@settings(max_examples=examples(30), deadline=None)
@given(st.floats(0.0, 20.0), st.sampled_from([1, 2, 5, 29, 42, 500, 7000]))
def test_noncentral_t_power_equals_scipy_nct(delta, df):
    crit = ss.t.ppf(0.975, df)
    want = ss.nct.sf(crit, df, delta) + ss.nct.cdf(-crit, df, delta)
    assume(np.isfinite(want))  # scipy 1.17's nct is NaN at df 1, delta 11
    assert nct_two_sided_power(delta, crit, df)[0] == pytest.approx(want, rel=1e-9, abs=1e-12)


# --- effect size, power, detectable difference ----------------------------------------------


@pytest.mark.parametrize("n", [2, 3, 5, 43, 250, 6980])
def test_detectable_effect_has_80_percent_power_and_matches_statsmodels(n):
    d = detectable_effect(n)
    crit = ss.t.ppf(0.975, n - 1)
    nc = d * np.sqrt(n)
    # Exactly 80% on scipy's noncentral t; statsmodels' root finder stops at ~1e-5.
    assert ss.nct.sf(crit, n - 1, nc) + ss.nct.cdf(-crit, n - 1, nc) == pytest.approx(0.8, abs=1e-8)
    want = TTestPower().solve_power(effect_size=None, nobs=n, alpha=0.05, power=0.8)
    assert d == pytest.approx(want, rel=5e-5)


@settings(max_examples=examples(30), deadline=None)
@given(per_query_values(max_runs=2))
def test_paired_power_equals_statsmodels_ttestpower(y):
    d = y[:, 1] - y[:, 0]
    r = paired_power(d)
    assert r.n_queries == d.size
    if d.std(ddof=1) <= 1e-12 * np.abs(d).max():
        assert np.isnan(r.effect_size)
        assert np.isnan(r.power)
        assert np.isnan(r.detectable)
        return
    sd = d.std(ddof=1)
    assert r.effect_size == pytest.approx(d.mean() / sd, rel=1e-12)
    want = TTestPower().power(effect_size=r.effect_size, nobs=d.size, alpha=0.05)
    assert r.power == pytest.approx(want, rel=1e-8, abs=1e-12)
    assert r.detectable == pytest.approx(detectable_effect(d.size) * sd, rel=1e-12)


def test_paired_power_refuses_bad_levels_and_values():
    with pytest.raises(ValueError, match="alpha must be between 0 and 1"):
        paired_power([0.1, 0.2], alpha=1.5)
    with pytest.raises(ValueError, match="power must be between alpha"):
        paired_power([0.1, 0.2], power=0.01)
    with pytest.raises(ValueError, match="differences must be finite"):
        paired_power([0.1, np.nan])
    one = paired_power([0.3])
    assert one.n_queries == 1
    assert np.isnan(one.detectable)


# --- Tukey's HSD ----------------------------------------------------------------------------


def _blocked_oracle(y: np.ndarray) -> tuple[float, float]:
    """(residual mean square, df) of statsmodels' OLS ``value ~ C(run) + C(query)``."""
    n, k = y.shape
    frame = pd.DataFrame(
        {
            "value": y.ravel(),
            "query": np.repeat(np.arange(n), k).astype(str),
            "run": np.tile(np.arange(k), n).astype(str),
        }
    )
    fit = ols("value ~ C(run) + C(query)", data=frame).fit()
    return float(fit.mse_resid), float(fit.df_resid)


@settings(max_examples=examples(30), deadline=None)
@given(per_query_values())
def test_blocked_tukey_uses_the_two_way_residual_of_statsmodels(y):
    n, k = y.shape
    p, half, df = tukey_hsd(y, blocked=True)
    mse, df_ols = _blocked_oracle(y)
    assert df == df_ols == (n - 1) * (k - 1)
    gap = np.abs(y.mean(axis=0)[:, None] - y.mean(axis=0)[None, :])
    if mse < 1e-20:  # no residual: a difference is certain, an equality is not doubted
        np.testing.assert_array_equal(p, np.where(gap > 1e-12, 0.0, 1.0))
        return
    want = studentized_range_sf(gap.ravel() / np.sqrt(mse / n), k, df).reshape(k, k)
    np.fill_diagonal(want, 1.0)
    np.testing.assert_allclose(p, want, rtol=1e-9, atol=1e-12)
    assert half == pytest.approx(studentized_range_quantile(0.95, k, df) * np.sqrt(mse / n))


@settings(max_examples=examples(30), deadline=None)
@given(per_query_values(max_runs=2))
def test_blocked_tukey_of_two_runs_is_the_paired_t_test(y):
    d = y[:, 1] - y[:, 0]
    p, half, _ = tukey_hsd(y)
    if d.std() == 0.0:
        assert p[0, 1] == (1.0 if d[0] == 0.0 else 0.0)
        return
    res = ss.ttest_rel(y[:, 1], y[:, 0])
    assert p[0, 1] == pytest.approx(res.pvalue, rel=1e-8, abs=1e-12)
    ci = res.confidence_interval(0.95)
    assert half == pytest.approx((ci.high - ci.low) / 2.0, rel=1e-8)


@pytest.mark.parametrize("seed", range(2))
def test_oneway_tukey_equals_scipy_and_statsmodels(seed):
    rng = np.random.default_rng(seed)
    y = np.round(rng.beta(0.6, 1.5, size=(25, 3)), 2)
    p, half, df = tukey_hsd(y, blocked=False)
    res = ss.tukey_hsd(*y.T)
    np.testing.assert_allclose(p, res.pvalue, rtol=1e-7, atol=1e-11)
    ci = res.confidence_interval(0.95)
    diff = y.mean(axis=0)[:, None] - y.mean(axis=0)[None, :]
    np.testing.assert_allclose(diff - half, ci.low, rtol=1e-8, atol=1e-12)
    sm = pairwise_tukeyhsd(y.T.ravel(), np.repeat(["0", "1", "2"], 25))
    pairs = list(itertools.combinations(range(3), 2))
    # statsmodels' p comes from its own studentized range (psturng): three digits.
    np.testing.assert_allclose([p[i, j] for i, j in pairs], sm.pvalues, atol=2e-3)
    assert df == 3 * 24


def test_blocked_tukey_matches_scipy_studentized_range_end_to_end():
    rng = np.random.default_rng(4)
    base = rng.beta(0.6, 1.5, size=(30, 1))
    y = np.clip(base + rng.normal([0.0, 0.04, 0.09, 0.02], 0.05, size=(30, 4)), 0, 1)
    p, _, df = tukey_hsd(y)
    mse, _ = _blocked_oracle(y)
    gap = np.abs(y.mean(axis=0)[:, None] - y.mean(axis=0)[None, :])
    i, j = np.triu_indices(4, 1)
    want = ss.studentized_range.sf(gap[i, j] / np.sqrt(mse / 30), 4, df)
    np.testing.assert_allclose(p[i, j], want, rtol=1e-7, atol=1e-11)
    # Blocking removes the query-to-query spread: the same data, one-way, sees less.
    assert (tukey_hsd(y, blocked=False)[0][i, j] >= p[i, j]).all()


def test_compare_runs_tukey_on_trec_eval_values_and_the_family():
    qrels, runs = _case(5, n_queries=30)
    del runs["c"]["7"], runs["c"]["12"]  # two queries one run did not answer
    measures = ["map", "ndcg_cut_5"]
    table = compare_runs(qrels, runs, measures, test="tukey")
    ev = {
        n: pytrec_eval.RelevanceEvaluator(qrels, set(measures)).evaluate(r) for n, r in runs.items()
    }
    common = sorted(set(ev["a"]) & set(ev["b"]) & set(ev["c"]))
    assert len(common) == 28
    assert (table["n_queries"] == 28).all()
    for m in measures:
        y = np.array([[ev[n][q][m] for n in "abc"] for q in common])
        p, half, _ = tukey_hsd(y)
        for row in table[table["measure"] == m].itertuples(index=False):
            i, j = "abc".index(row.run), "abc".index(row.baseline)
            assert row.p_value == pytest.approx(p[i, j], rel=1e-12)
            assert row.difference == pytest.approx(y[:, i].mean() - y[:, j].mean(), abs=1e-12)
            assert row.ci_high - row.ci_low == pytest.approx(2 * half, rel=1e-12)
            assert row.p_adjusted == pytest.approx(min(1.0, 2 * p[i, j]))
    assert table.attrs["family"].startswith(
        "6 tests, Tukey's HSD over the 3 pairs of 3 runs (queries as blocks) for each measure, "
        "Bonferroni over 2 measures"
    )
    primary = compare_runs(qrels, runs, measures, test="tukey", primary="map")
    in_family = primary["measure"] == "map"
    np.testing.assert_array_equal(
        primary.loc[in_family, "p_adjusted"], primary.loc[in_family, "p_value"]
    )
    assert primary.loc[~in_family, "p_adjusted"].isna().all()


def test_compare_runs_reports_effect_size_power_and_detectable_per_row():
    qrels, runs = _case(9, n_queries=25)
    table = compare_runs(qrels, runs, ["map"], test="student", baseline="a")
    for row in table.itertuples(index=False):
        d = _per_query(qrels, runs[row.run], ["map"])["map"]
        d = d - _per_query(qrels, runs["a"], ["map"])["map"]
        want = paired_power(d)
        assert (row.effect_size, row.power, row.detectable) == pytest.approx(
            (want.effect_size, want.power, want.detectable), rel=1e-12
        )


def test_tukey_needs_two_queries_every_run_answered():
    qrels = {"1": {"a": 1}, "2": {"a": 1}}
    runs = {"x": {"1": {"a": 1.0}, "2": {"a": 1.0}}, "y": {"1": {"a": 1.0}}, "z": {"2": {}}}
    with pytest.raises(ValueError, match="queries all 3 runs answered; they share 0"):
        compare_runs(qrels, runs, ["map"], test="tukey")


@pytest.mark.statistical
def test_blocked_tukey_family_error_is_about_alpha_with_exchangeable_runs():
    """300 experiments, four runs equal by construction (a query effect shared by all, skewed
    tied noise): Tukey's HSD at 5% finds some pair different in about 5% of them."""
    rng = np.random.default_rng(77)
    reps, hits = 300, 0
    for _ in range(reps):
        query = rng.beta(0.6, 1.5, size=(30, 1))
        y = np.round(np.clip(query + rng.normal(0.0, 0.1, size=(30, 4)), 0, 1), 2)
        hits += tukey_hsd(y)[0].min() < 0.05
    # 300 draws at 5%: 99.9% of counts fall in 4..28.
    assert 4 <= hits <= 28


def test_the_pair_sentence_says_when_no_difference_could_be_detected():
    from types import SimpleNamespace

    from ui.views.runs_view import detectable_sentence

    row = SimpleNamespace(
        n_queries=3, detectable=1.391, difference=-0.123, effect_size=-0.29, power=0.06
    )
    text = detectable_sentence(row, "ndcg_cut_10")
    assert text.startswith("with 3 queries and this spread, even the largest difference")
    assert "smallest detectable is 1.391" in text
    row = SimpleNamespace(
        n_queries=43, detectable=0.031, difference=0.01, effect_size=0.2, power=0.2
    )
    assert detectable_sentence(row, "ndcg_cut_10").startswith(
        "with 43 queries, a true difference of 0.031 ndcg_cut_10 would be missed 1 time in 5"
    )


@st.composite
def _three_runs(draw):
    """Generated cases' qrels (ids that sort differently as text and as numbers, relevance
    below 0, queries without a relevant document) and three runs over its queries: each returns
    some of the judged documents, the case's run's and unjudged ones, with tied or untied
    scores, and skips a query now and then."""
    cases = [draw(trec_cases(max_queries=6)) for _ in range(3)]
    qrels = {q: j for c in cases for q, j in c.qrels.items()}  # several queries, mostly
    their = {q: r for c in cases for q, r in c.run.items()}
    score = draw(
        st.sampled_from(
            [st.sampled_from([0.0, 0.5, 1.0]), st.floats(-1e3, 1e3, allow_nan=False, width=32)]
        )
    )
    runs = []
    for _ in range(3):
        run = {}
        for q in sorted(qrels):
            if draw(st.integers(0, 5)) == 0:
                continue
            pool = sorted(set(qrels[q]) | set(their.get(q, {})) | {"9", "10", "x"})
            docs = draw(st.lists(st.sampled_from(pool), min_size=1, unique=True))
            run[q] = {d: draw(score) for d in docs}
        runs.append(run)
    return qrels, runs


@settings(max_examples=examples(15), deadline=None)
@given(_three_runs())
def test_compare_runs_tukey_equals_tukey_on_pytrec_eval_values_of_generated_runs(drawn):
    """Generated qrels and three runs (ties, ids that sort differently as text and as numbers,
    unjudged and missing documents, queries only one run answers): Tukey's p of every pair is
    tukey_hsd's on pytrec_eval's per-query values over the queries all three answered."""
    qrels, (a, b, c) = drawn
    runs = {"a": a, "b": b, "c": c}
    measures = ["map", "ndcg_cut_5"]
    ev = {
        n: pytrec_eval.RelevanceEvaluator(qrels, set(measures)).evaluate(r) for n, r in runs.items()
    }
    common = sorted(set(ev["a"]) & set(ev["b"]) & set(ev["c"]))
    if len(common) < 2:
        with pytest.raises(ValueError, match="Tukey's HSD compares every run on the queries"):
            compare_runs(qrels, runs, measures, test="tukey")
        return
    table = compare_runs(qrels, runs, measures, test="tukey")
    for m in measures:
        y = np.array([[ev[n][q][m] for n in "abc"] for q in common])
        p, _, _ = tukey_hsd(y)
        for row in table[table["measure"] == m].itertuples(index=False):
            i, j = "abc".index(row.run), "abc".index(row.baseline)
            assert row.n_queries == len(common)
            assert row.p_value == pytest.approx(p[i, j], rel=1e-9, abs=1e-12)
            assert row.difference == pytest.approx(y[:, i].mean() - y[:, j].mean(), abs=1e-12)

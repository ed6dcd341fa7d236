"""Holm's correction, bootstrap p-values and the best-model verdict behind the Compare stars."""

from __future__ import annotations

import numpy as np
import pytest

from metrics.significance import best_model, bootstrap_p_value, holm_adjust


def _holm_rejects(p: np.ndarray, alpha: float) -> set[int]:
    """Holm's step-down procedure as he states it: walk the p-values up from the smallest,
    rejecting while p_(j) <= alpha / (m - j + 1); stop at the first that is not."""
    order = np.argsort(p, kind="stable")
    m = len(p)
    rejected = set()
    for j, i in enumerate(order, start=1):
        if p[i] > alpha / (m - j + 1):
            break
        rejected.add(int(i))
    return rejected


@pytest.mark.parametrize("seed", range(30))
def test_holm_adjusted_p_values_reject_exactly_what_the_procedure_rejects(seed):
    rng = np.random.default_rng(seed)
    m = int(rng.integers(1, 9))
    p = rng.choice([rng.random(), 0.01, 0.02, 0.04, 0.2], size=m) * rng.random(m) ** 0.2
    adjusted = holm_adjust(p)
    assert np.all(adjusted >= p)
    assert np.all(adjusted <= 1)
    for alpha in (0.001, 0.01, 0.02, 0.05, 0.1, 0.3):
        assert {i for i in range(m) if adjusted[i] <= alpha} == _holm_rejects(p, alpha)


def test_holm_known_values_and_nan():
    np.testing.assert_allclose(holm_adjust([0.01, 0.04, 0.03]), [0.03, 0.06, 0.06])
    np.testing.assert_allclose(holm_adjust([0.5, 0.6]), [1.0, 1.0])
    out = holm_adjust([0.01, np.nan, 0.04])
    assert np.isnan(out[1])
    np.testing.assert_allclose(out[[0, 2]], [0.02, 0.04])  # NaN does not count in m
    with pytest.raises(ValueError, match="between 0 and 1"):
        holm_adjust([1.5])


def test_bootstrap_p_value_agrees_with_the_percentile_interval():
    rng = np.random.default_rng(1)
    for shift in (-0.3, -0.05, 0.0, 0.02, 0.1, 0.4):
        d = rng.normal(shift, 0.1, size=2000)
        p = bootstrap_p_value(d)
        for alpha in (0.01, 0.05, 0.2):
            low, high = np.quantile(d, [alpha / 2, 1 - alpha / 2], method="inverted_cdf")
            excludes_zero = low > 0 or high < 0
            if abs(p - alpha) > 2 / d.size:  # away from the boundary, where ties decide
                assert excludes_zero == (p < alpha), (shift, alpha, p, low, high)
    assert bootstrap_p_value([0.1, 0.2, 0.3]) == 0.0
    assert bootstrap_p_value([0.1, -0.2]) == 1.0
    # Resamples with no difference at all count against a difference (ties at 0 are not wins).
    assert bootstrap_p_value([0.0, 0.0, 0.1]) == 1.0
    assert np.isnan(bootstrap_p_value([np.nan]))


def test_no_star_where_the_test_denies_the_difference():
    # Logistic regression leads gradient boosting on AUC, but DeLong's p is 0.325.
    r = best_model(
        ["lr", "gb", "nb"], [0.995, 0.993, 0.988], {(0, 1): 0.325, (0, 2): 0.01, (1, 2): 0.04}
    )
    assert r.best is None
    assert r.leader == 0
    assert r.verdict.startswith("no significant difference")
    assert "gb" in r.verdict
    assert "0.325" in r.verdict


def test_star_when_every_pair_is_significant_after_holm():
    r = best_model(["a", "b", "c"], [0.9, 0.8, 0.7], {(0, 1): 0.01, (0, 2): 0.001, (1, 2): 0.5})
    assert r.best == 0
    assert r.adjusted == pytest.approx({(0, 1): 0.02, (0, 2): 0.003, (1, 2): 0.5})
    # a beats b at 0.04 alone, but Holm's step-down carries 2 x 0.03 = 0.06 up to it.
    r = best_model(["a", "b", "c"], [0.9, 0.8, 0.7], {(0, 1): 0.04, (0, 2): 0.001, (1, 2): 0.03})
    assert r.adjusted[(0, 1)] == pytest.approx(0.06)
    assert r.best is None


def test_lower_is_better_untested_pairs_and_ties():
    r = best_model(["a", "b"], [0.20, 0.10], {(0, 1): 0.001}, higher_is_better=False)
    assert r.best == 1
    r = best_model(["a", "b"], [0.9, 0.8], {(0, 1): np.nan})
    assert r.best is None
    assert "not tested" in r.verdict
    r = best_model(["a", "b"], [0.9, 0.9], {(0, 1): 0.0})
    assert r.best is None
    assert best_model(["a"], [0.9], {}).best is None


def test_pair_verdicts_name_the_winner_with_the_interval_of_its_advantage():
    from metrics.significance import pair_verdict

    # B ahead on AP: A − B = −0.012 [−0.020, −0.004] becomes "by 0.012 [0.004, 0.020]".
    text = pair_verdict("AP", "A", "B", -0.012, 0.001, ci=(-0.020, -0.004))
    assert text == "B is better than A on AP by 0.012 [0.004, 0.020]"
    text = pair_verdict("AP", "A", "B", 0.012, 0.001, ci=(0.004, 0.020))
    assert text == "A is better than B on AP by 0.012 [0.004, 0.020]"
    # Lower is better: a lower Brier score wins.
    assert pair_verdict("Brier", "A", "B", 0.02, 0.001, higher_is_better=False).startswith("B is")
    # What the test denies, the verdict does not claim.
    assert pair_verdict("AUC", "A", "B", 0.0012, 0.325).startswith("no significant difference")
    assert pair_verdict("AUC", "A", "B", 0.3, 0.05).startswith("no significant difference")
    assert pair_verdict("AP", "A", "B", 0.1, float("nan")).startswith("not tested")

"""The guaranteed threshold (metrics.threshold_with_guarantee) and its beta functions.

A slow reference walks the thresholds one by one with scipy's beta quantiles (the
Clopper-Pearson bound written from its definition); the fast code must pick the same threshold
on generated tables. A small seeded simulation checks the promise itself: the true recall at the
guaranteed threshold misses the target in about 5% of test sets at most, the plain choice in
about half (the full table: bench/bench_guarantee.py).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import special, stats

from bench.bench_guarantee import Design, simulate
from metrics import threshold_with_guarantee
from metrics._beta import beta_ppf, betainc
from metrics.guarantees import EARLY, MIN_START, PERIOD, START_MARGIN, TIGHT
from tests.strategies import binary_tables, examples

# ---------------------------------------------------------------- slow reference


def _cp_lower(x: float, n: float, delta: float) -> float:
    if n <= 0:
        return -math.inf
    if x <= 0:
        return 0.0
    return float(stats.beta.ppf(delta, x, n - x + 1))


def full_order(inner, distinct):
    """Every candidate, the safest first."""
    if inner in ("recall", "npv"):  # lowest threshold first
        return sorted(distinct) + ([math.inf] if inner == "npv" else [])
    return ([math.inf] if inner == "specificity" else []) + distinct


def reference(y, s, metric, target, confidence, w=None):
    """The fixed-sequence walk, one threshold at a time, from the definitions."""
    y = np.asarray(y, bool)
    s = np.asarray(s, float)
    w = np.ones(y.size) if w is None else np.asarray(w, float)
    delta = 1 - confidence
    inner, tau = ("specificity", 1 - target) if metric == "fpr" else (metric, target)
    distinct = sorted(set(s[w > 0].tolist()), reverse=True)
    cands = [*distinct, math.inf]

    def ratio(t):
        flag = s >= t
        tp, fp = w[flag & y].sum(), w[flag & ~y].sum()
        fn, tn = w[~flag & y].sum(), w[~flag & ~y].sum()
        a, d = {
            "recall": (tp, tp + fn),
            "precision": (tp, tp + fp),
            "specificity": (tn, tn + fp),
            "npv": (tn, tn + fn),
        }[inner]
        return a, d

    seq = full_order(inner, distinct)
    if inner in ("precision", "npv"):
        # the first threshold whose denominator lets an estimate halfway to 1 pass, and holds
        # MIN_START rows; without such a one, the halfway rule alone
        half = tau + (1 - tau) * START_MARGIN

        def can(t, floor):
            d = ratio(t)[1]
            return d >= floor and _cp_lower(half * d, d, delta) >= tau

        floor = MIN_START if any(can(t, MIN_START) for t in seq) else 0.0
        while seq and not can(seq[0], floor):
            seq = seq[1:]
        if seq:
            # counted rows: from EARLY times that start's rows on, only where the exact test
            # spends at least TIGHT of delta (its size at the least count that passes)
            def size(d):
                rows = round(d)
                k = np.arange(1, rows + 1)
                tail = stats.binom.sf(k - 1, rows, tau)
                return float(tail[tail <= delta][0]) if (tail <= delta).any() else 0.0

            d0 = ratio(seq[0])[1]
            tight = [
                t for t in full_order(inner, distinct)
                if ratio(t)[1] >= EARLY * d0 and size(ratio(t)[1]) >= TIGHT * delta
            ]  # fmt: skip
            if tight and 1 / min(tau, 1 - tau) > PERIOD:  # only the start is chosen tight
                order = full_order(inner, distinct)
                tight = order[order.index(tight[0]) :]
            seq = tight or seq
    chosen = None
    for t in seq:
        a, d = ratio(t)
        if d <= 0 or _cp_lower(a, d, delta) < tau:
            break
        chosen = t
    plain = None
    full = sorted(distinct) if inner in ("recall", "npv") else distinct
    full = [*full, math.inf] if inner == "npv" else full
    full = [math.inf, *full] if inner == "specificity" else full
    for t in full:
        a, d = ratio(t)
        if d > 0 and a / d >= tau - 1e-12:
            plain = t
    assert set(cands) >= set(seq)
    return chosen, plain


METRICS = ["recall", "precision", "specificity", "fpr", "npv"]


@settings(max_examples=examples(40), deadline=None)
@given(
    table=binary_tables(max_size=70, max_models=1, weights=True),
    metric=st.sampled_from(METRICS),
    target=st.sampled_from([0.5, 0.8, 0.9]),
    confidence=st.sampled_from([0.8, 0.95]),
)
def test_fast_walk_equals_the_slow_reference(table, metric, target, confidence):
    w = table.weights
    if w is not None and not np.array_equal(w, np.round(w)):
        w = None  # Kish weights have no reference here; integer ones count rows
    if w is not None and not (w > 0).any():
        return
    got = threshold_with_guarantee(
        table.y, table.scores[0], metric=metric, target=target, confidence=confidence,
        sample_weight=w,
    )  # fmt: skip
    want, plain = reference(table.y, table.scores[0], metric, target, confidence, w)
    assert got.threshold == want
    assert got.plain.threshold == plain
    if want is not None:
        side = (lambda b: b <= target) if metric == "fpr" else (lambda b: b >= target)
        assert side(got.bound)


def test_recall_choice_is_the_order_statistic_the_binomial_tail_names():
    # Exactness for recall: the c-th highest positive score, c the least count whose
    # binomial tail P(Bin(n_pos, target) >= c) is at most 1 - confidence.
    rng = np.random.default_rng(7)
    y = rng.random(3000) < 0.2
    s = rng.normal(size=3000) + 1.2 * y
    n_pos = int(y.sum())
    c = next(x for x in range(n_pos + 1) if stats.binom.sf(x - 1, n_pos, 0.9) <= 0.05)
    got = threshold_with_guarantee(y, s, metric="recall", target=0.9, confidence=0.95)
    assert got.threshold == np.sort(s[y])[::-1][c - 1]
    assert got.bound == pytest.approx(stats.beta.ppf(0.05, c, n_pos - c + 1), rel=1e-9)


def test_integer_weights_equal_repeated_rows():
    rng = np.random.default_rng(3)
    y = rng.random(400) < 0.4
    s = np.round(rng.normal(size=400) + y, 1)
    w = rng.integers(1, 4, 400)
    met = 0
    for metric in METRICS:
        a = threshold_with_guarantee(y, s, metric=metric, target=0.8, sample_weight=w)
        b = threshold_with_guarantee(np.repeat(y, w), np.repeat(s, w), metric=metric, target=0.8)
        assert repr((a.threshold, a.bound, a.n_flagged)) == repr(
            (b.threshold, b.bound, b.n_flagged)
        )
        met += a.met
    assert met >= 3  # most targets are reached: the equality is not only of two Nones


def test_fpr_is_specificity_turned_around():
    rng = np.random.default_rng(4)
    y = rng.random(800) < 0.3
    s = rng.normal(size=800) + y
    f = threshold_with_guarantee(y, s, metric="fpr", target=0.1)
    sp = threshold_with_guarantee(y, s, metric="specificity", target=0.9)
    assert f.threshold == sp.threshold
    assert f.bound == pytest.approx(1 - sp.bound, abs=1e-12)
    assert f.bound <= 0.1 < f.plain.bound


def test_groups_of_copies_count_as_fewer_rows():
    # Every user holds three identical rows: the evidence is that of a third of the rows, so
    # the clustered walk must stop at a safer (lower) recall threshold than the rows' walk.
    rng = np.random.default_rng(5)
    y = rng.random(600) < 0.4
    s = rng.normal(size=600) + 1.5 * y
    y3, s3, g3 = np.repeat(y, 3), np.repeat(s, 3), np.repeat(np.arange(600), 3)
    rows = threshold_with_guarantee(y3, s3, metric="recall", target=0.9)
    users = threshold_with_guarantee(y3, s3, metric="recall", target=0.9, groups=g3)
    single = threshold_with_guarantee(y, s, metric="recall", target=0.9)
    assert users.threshold < rows.threshold
    # ... and close to what the 600 distinct rows give (the design effect is 3)
    assert abs(users.bound - single.bound) < 0.01
    assert "Korn-Graubard" in users.method


def test_no_threshold_when_too_few_positives():
    # 20 positives cannot show recall >= 0.9 at 95%: 0.9^20 = 0.12 > 0.05
    y = np.r_[np.ones(20, bool), np.zeros(50, bool)]
    s = np.arange(70.0)
    g = threshold_with_guarantee(y, s, metric="recall", target=0.9)
    assert g.threshold is None
    assert not g.met
    assert g.plain.threshold is not None


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"metric": "f1"}, "metric must be one of"),
        ({"target": 1.0}, "target must be a number strictly between 0 and 1"),
        ({"confidence": 95}, r"confidence must be a number from 0.5 to 0.999999 \(0.95"),
        ({"confidence": 1e-300}, "below 0.5 the bound would lie above the estimate"),
        ({"confidence": 0.3}, "confidence must be a number from 0.5 to 0.999999"),
        ({"confidence": True}, "confidence must be a number from 0.5 to 0.999999"),
        ({"confidence": 1 - 1e-9}, "confidence must be a number from 0.5 to 0.999999"),
        ({"groups": [1, 2]}, "groups has 2 rows but y_true has 4"),
        ({"groups": [1, None, 2, 2]}, "groups has 1 missing values"),
    ],
)
def test_bad_input_gets_one_sentence(kwargs, message):
    with pytest.raises(ValueError, match=message):
        threshold_with_guarantee([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8], **kwargs)


def test_complex_scores_are_refused():
    with pytest.raises(ValueError, match="y_score holds complex numbers; scores must be real"):
        threshold_with_guarantee([0, 0, 1, 1], np.array([0.1, 0.4, 0.35, 0.8]) + 0j)


@pytest.mark.parametrize("metric", METRICS)
@pytest.mark.parametrize("confidence", [0.5, 0.8, 0.999999])
def test_a_returned_threshold_meets_its_own_target(metric, confidence):
    # Issue 50: confidence 1e-300 returned a threshold whose own bound (0.127) was below the
    # target (0.9). Across the allowed range a returned bound is on the target's side.
    rng = np.random.default_rng(3)
    y = rng.random(4000) < 0.3
    s = np.round(rng.normal(size=4000) + 2 * y, 2)
    for target in (0.05, 0.5, 0.9):
        g = threshold_with_guarantee(y, s, metric=metric, target=target, confidence=confidence)
        if g.met:
            assert (g.bound <= target) if metric == "fpr" else (g.bound >= target)


# ---------------------------------------------------------------- beta functions


@settings(max_examples=examples(60), deadline=None)
@given(
    a=st.floats(0.01, 5e4),
    b=st.floats(0.01, 5e4),
    # scipy loses digits at subnormal x (5e-324 with a = 1/64: 8.6800e-6 against the leading
    # term x^a / (a B(a, b)) = 8.6917e-6, which ours gives): those are checked below instead
    x=st.floats(0.0, 1.0).filter(lambda v: v == 0 or v >= np.finfo(float).tiny),
)
def test_betainc_equals_scipy(a, b, x):
    # the difference of large log-gamma values costs digits (the docstring's 1e-9 at 1e6);
    # a test at level 0.05 needs a handful
    assert betainc(a, b, x) == pytest.approx(special.betainc(a, b, x), abs=1e-9)


@pytest.mark.parametrize(("a", "b"), [(0.015625, 0.5), (0.01, 3.0), (0.2, 40.0)])
def test_betainc_at_a_subnormal_x_is_its_leading_term(a, b):
    """For x near 0, I_x(a, b) = x^a (1 - x)^b / (a B(a, b)) (1 + O(x)): at the smallest
    subnormal the leading term is the value to the last digits."""
    import math

    x = 5e-324
    log_beta = math.lgamma(a) + math.lgamma(b) - math.lgamma(a + b)
    want = math.exp(a * math.log(x) - log_beta) / a
    assert betainc(a, b, x) == pytest.approx(want, rel=1e-12)


def test_betainc_vectorised_and_edges():
    a = np.array([0.0, 2.0, 3.0, 40.0, 4000.0])
    b = np.array([3.0, 0.0, 5.0, 2.0, 3000.0])
    x = np.array([0.5, 0.5, 0.3, 0.97, 0.57])
    assert np.allclose(betainc(a, b, x), special.betainc(a, b, x), atol=1e-12)


@settings(max_examples=examples(30), deadline=None)
@given(
    q=st.floats(0.001, 0.999),
    a=st.floats(0.5, 2000),
    b=st.floats(0.5, 2000),
)
def test_beta_ppf_equals_scipy(q, a, b):
    want = stats.beta.ppf(q, a, b)
    assert float(beta_ppf(q, a, b)) == pytest.approx(want, abs=1e-10)


def test_beta_ppf_vectorised_equals_scipy():
    rng = np.random.default_rng(2)
    q, a, b = rng.random(40), rng.random(40) * 300 + 0.5, rng.random(40) * 300 + 0.5
    assert np.allclose(beta_ppf(q, a, b), stats.beta.ppf(q, a, b), atol=1e-10)


# ---------------------------------------------------------------- the promise, by simulation


def test_guarantee_keeps_its_promise_in_a_small_simulation():
    # 200 test sets of 500 rows (seeded): the guaranteed recall threshold may miss 0.9 in 5%
    # of them at most (Monte Carlo SE 1.5 points: allow 5% + 3 SE); the plain one about half.
    r = simulate(Design("recall", 0.9, 500), reps=200, seed=11)
    assert r["guaranteed_miss"] <= 0.095
    assert r["plain_miss"] >= 0.35
    assert r["guaranteed_flagged"] > r["plain_flagged"]  # the cost: more rows flagged


def _kg_reference(y, s, g, t, delta):
    """Recall's effective count at threshold ``t`` by a loop over users: the binomial variance
    over the linearised cluster variance (at most the positives), times (z / t_{nu-1})^2 with
    nu = (sum P_g^2)^2 / sum P_g^4."""
    users = np.unique(g)
    tp = np.array([np.sum(y & (s >= t) & (g == u)) for u in users], dtype=float)
    pos = np.array([np.sum(y & (g == u)) for u in users], dtype=float)
    r = tp.sum() / pos.sum()
    n_users = int(np.sum(pos > 0))
    n = pos.sum()
    if n_users < 2:  # one user: no variance across users, and no degree of freedom
        return 0.0
    var = n_users / (n_users - 1) * np.sum((tp - r * pos) ** 2) / pos.sum() ** 2
    if var > 0 and 0 < r < 1:
        n = min(r * (1 - r) / var, n)
    nu = np.sum(pos**2) ** 2 / np.sum(pos**4)
    z = stats.norm.ppf(1 - delta)
    return n * (z / stats.t.ppf(1 - delta, nu - 1)) ** 2 if nu >= 1.5 else 0.0


@pytest.mark.parametrize("seed", range(6))
def test_clustered_effective_count_equals_a_loop_over_users(seed):
    from metrics.guarantees import _effective, _table

    rng = np.random.default_rng(seed)
    n_users = int(rng.integers(3, 30))
    activity = rng.lognormal(0, 1 + seed % 2, n_users)
    g = rng.choice(n_users, size=400, p=activity / activity.sum())
    y = rng.random(400) < 0.3
    s = np.round(rng.normal(size=400) + y + rng.normal(0, 0.7, n_users)[g], 1)  # ties
    codes = np.unique(g, return_inverse=True)[1]
    table = _table(y, s, np.ones(400), codes)
    _, _, n = _effective(table, "recall", "rows", 0.05)
    for k in range(0, table.thresholds.size - 1, 7):
        want = _kg_reference(y, s, codes, table.thresholds[k], 0.05)
        assert n[k] == pytest.approx(want, rel=1e-9, abs=1e-9), k


def test_equal_users_keep_every_degree_of_freedom():
    # Users of one size: Satterthwaite's count is the users themselves.
    from metrics.guarantees import _table

    y = np.tile([True, True, False, False], 25)
    g = np.repeat(np.arange(25), 4)
    table = _table(y, np.arange(100.0), np.ones(100), g)
    square, fourth = table.spread["recall"]
    assert square[0] ** 2 / fourth[0] == pytest.approx(25)


@pytest.mark.statistical
def test_guarantee_keeps_its_promise_on_users_of_unequal_size():
    # 600 test sets of 1,000 rows in 100 users of log-normal activity (seeded): with the users
    # counted as they are (100 degrees of freedom) the misses were 6.0% here; counted by
    # Satterthwaite, 4.2% (MC SE 0.8 points; the 1,000-repetition table: docs/guarantees.md).
    runs = [simulate(Design("recall", 0.9, 1000, True, True), reps=300, seed=s) for s in (11, 13)]
    miss = np.mean([r["guaranteed_miss"] for r in runs])
    assert miss <= 0.05
    assert np.mean([r["plain_miss"] for r in runs]) >= 0.35


def test_precision_walk_starts_late_enough_to_find_a_threshold():
    # Issue 51: on Default-like bootstrap test sets of 3,000 rows (3% positive), precision >= 0.4
    # at 95%, the walk started after 11 flagged rows, where its first test needs an estimate
    # of 0.7, and ended there with no threshold in ~23% of the sets with a plain choice (this
    # seed: 24%, so MIN_START = 0 turns this red). Started at 30 rows it finds one in ~94%
    # (this seed: 4% none), missing the target no more often (docs/guarantees.md).
    from bench.bench_guarantee_start import DefaultLike
    from bench.bench_guarantee_start import Design as StartDesign
    from bench.bench_guarantee_start import simulate as simulate_start

    design = StartDesign(DefaultLike, "precision", 0.4, 3000)
    r = simulate_start(design, 80, seed=6, floors=(MIN_START,))
    assert r[MIN_START]["none"] <= 0.10
    assert r[MIN_START]["miss"] <= 0.10


def test_the_walk_steps_back_when_its_bound_misses_the_target(monkeypatch):
    # The second guard behind the confidence range: with the range opened, confidence 1e-300
    # makes every binomial test pass (delta ~ 1) while the reported bound falls to 0.03; the
    # walk must step back to a threshold whose own bound meets the target.
    import metrics.guarantees as guarantees

    monkeypatch.setattr(guarantees, "CONFIDENCE_RANGE", (1e-320, 0.999999))
    rng = np.random.default_rng(3)
    y = rng.random(4000) < 0.3
    s = np.round(rng.normal(size=4000) + 2 * y, 2)
    g = threshold_with_guarantee(y, s, target=0.9, confidence=1e-300)
    assert g.met
    assert g.bound >= 0.9


def test_exact_size_is_the_binomial_tail_at_the_least_passing_count():
    # _exact_size against scipy's binomial: the least count c with P(Bin(n, tau) >= c) <= delta
    # and that tail; past SPREAD z + 5 standard deviations it is taken as delta, within 10%.
    from metrics.guarantees import _exact_size

    for tau, delta in ((0.7, 0.05), (0.4, 0.05), (0.99, 0.05), (0.9, 0.2), (0.3, 1e-6)):
        n = np.arange(1.0, 3001.0)
        got = _exact_size(n, tau, delta)
        k = np.arange(0, 3002)
        for m in (1, 2, 7, 28, 30, 31, 100, 457, 1500, 3000):
            tail = stats.binom.sf(k[1 : m + 1] - 1, m, tau)
            want = float(tail[tail <= delta][0]) if (tail <= delta).any() else 0.0
            sd = math.sqrt(m * tau * (1 - tau))
            if sd < 10 * stats.norm.isf(delta) + 5:
                assert got[m - 1] == pytest.approx(want, rel=1e-9, abs=1e-15), (tau, delta, m)
            else:
                assert got[m - 1] == delta
                assert 0.9 * delta <= want <= delta, (tau, delta, m)


def test_precision_walk_tests_where_the_exact_count_is_tight(monkeypatch):
    # Precision >= 0.7 at 95%: 24 of the top 28 rows positive, 24 of the top 30. The floored
    # start (30 rows) needs 26 of 30 and fails: no threshold. At 28 rows the exact test needs
    # 24 of 28 (size 0.047 of the 0.05; at 30 rows 0.030): the walk starts there and passes.
    import metrics.guarantees as guarantees

    y = np.zeros(130, bool)
    y[:28] = True
    y[[4, 11, 18, 25]] = False
    y[30::3] = True
    s = np.arange(130.0)[::-1]
    g = threshold_with_guarantee(y, s, metric="precision", target=0.7)
    assert g.threshold == s[27]
    assert g.bound >= 0.7
    assert g.n_flagged == 28
    monkeypatch.setattr(guarantees, "TIGHT", 0.0)
    monkeypatch.setattr(guarantees, "EARLY", 1.0)
    assert threshold_with_guarantee(y, s, metric="precision", target=0.7).threshold is None


@pytest.mark.statistical
def test_precision_walk_finds_a_threshold_on_small_test_sets():
    # Issue 51: Pima-like test sets of 300 rows (logistic truth, 35% positive, AUC 0.84),
    # precision >= 0.7 at 95%. Testing only where the exact count is tight (from 28 rows, not
    # 30) finds a threshold more often, and misses no more than 5% (the 500-repetition tables
    # on the real Pima and Default data: docs/guarantees.md). Seeded, 80 test sets: no
    # threshold in 41% with the floored start alone (TIGHT = 0, EARLY = 1 makes both rules
    # the same and turns this red), 34% now; misses 1.25%; median recall 0.425 -> 0.454.
    from bench.bench_guarantee_real import RULES, pima_like, simulate

    r = simulate(pima_like(), "precision", 0.7, 300, reps=80, seed=4, rules=RULES[1::2])
    now, before = r["tight counts"], r["30-row floor"]
    assert now["none"] <= before["none"] - 0.05
    assert now["miss"] <= 0.08
    assert now["median"] >= before["median"] - 0.02


def test_npv_near_one_chooses_only_its_start_tight(monkeypatch):
    # NPV >= 0.99: the exact test's size is a sawtooth of period 100 rows, so stepping from tight
    # candidate to tight candidate would skip whole stretches; only the start is chosen tight
    # and every candidate after it is tested. The library equals the slow reference here, and
    # the step-by-tight walk (PERIOD raised past 100) stops at another threshold.
    import metrics.guarantees as guarantees

    rng = np.random.default_rng(8)
    y = rng.random(1600) < 0.08
    s = np.round(rng.normal(size=1600) + 3.5 * y, 3)
    g = threshold_with_guarantee(y, s, metric="npv", target=0.99)
    want, _ = reference(y, s, "npv", 0.99, 0.95)
    assert g.threshold == want
    assert want is not None
    monkeypatch.setattr(guarantees, "PERIOD", 1000.0)
    assert threshold_with_guarantee(y, s, metric="npv", target=0.99).threshold != want

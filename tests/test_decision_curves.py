"""DET, EER, precision-recall gain, cost and Brier curves, threshold intervals: each against a
slow, obviously-correct reference (scikit-learn's det_curve, roc_curve and isotonic regression,
a port of Flach & Kull's reference code, brute-force minima over every ROC point)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import sklearn.metrics as skm
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sklearn.isotonic import IsotonicRegression

from metrics import paired_bootstrap
from metrics.bootstrap import fast_paired_bootstrap
from metrics.decision_curves import (
    brier_curve,
    cost_curve,
    det_curve,
    equal_error_rate,
    precision_recall_gain_auc,
    precision_recall_gain_curve,
    threshold_interval,
)
from tests.strategies import binary_tables, examples

SETTINGS = settings(
    max_examples=examples(80), deadline=None, suppress_health_check=[HealthCheck.too_slow]
)


def _quiet(fn, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*args, **kwargs)


def _roc(y, s, w):
    """(fpr, tpr) at +inf and every distinct score, from scikit-learn."""
    fpr, tpr, thr = _quiet(skm.roc_curve, y, s, sample_weight=w, drop_intermediate=False)
    return fpr, tpr, thr


# --- DET ----------------------------------------------------------------------------------------


@SETTINGS
@given(binary_tables(weights=True), st.booleans())
def test_det_curve_equals_sklearn(t, drop):
    for s in t.scores:
        ours = det_curve(t.y, s, sample_weight=t.weights, drop_intermediate=drop)
        theirs = skm.det_curve(t.y, s, sample_weight=t.weights, drop_intermediate=drop)
        for a, b in zip(ours, theirs, strict=True):
            np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12)


def test_det_curve_one_class_raises():
    with pytest.raises(ValueError, match="1 positives and 0 negatives"):
        det_curve([1], [0.3])


# --- EER ----------------------------------------------------------------------------------------


def _reference_eer(y, s, w):
    """Walk every ROC segment; the one that meets FPR = FNR gives the rate (line intersection).
    The threshold: brute-force argmin of |FPR - FNR| over every finite threshold, ties by the
    smaller max(FPR, FNR), then the lower threshold."""
    fpr, tpr, thr = _roc(y, s, w)
    fnr = 1 - tpr
    rate = None
    for i in range(1, fpr.size):
        # solve fpr_a + l (fpr_b - fpr_a) = fnr_a + l (fnr_b - fnr_a)
        a0, a1, b0, b1 = fpr[i - 1], fpr[i], fnr[i - 1], fnr[i]
        denominator = (a1 - a0) - (b1 - b0)
        if denominator == 0:
            continue
        lam = (b0 - a0) / denominator
        if 0 <= lam <= 1:
            rate = a0 + lam * (a1 - a0)
            break
    best = None  # (|d|, max, threshold), rates within 1e-12 being equal
    for i in range(1, fpr.size):
        key = (abs(fpr[i] - fnr[i]), max(fpr[i], fnr[i]), thr[i])
        if best is None:
            best = key
            continue
        gap, worse = key[0] - best[0], key[1] - best[1]
        if gap < -1e-12 or (
            abs(gap) <= 1e-12 and (worse < -1e-12 or (abs(worse) <= 1e-12 and key[2] < best[2]))
        ):
            best = key
    return rate, best[2]


@SETTINGS
@given(binary_tables(weights=True))
def test_equal_error_rate_against_segment_walk(t):
    for s in t.scores:
        r = equal_error_rate(t.y, s, sample_weight=t.weights)
        rate, threshold = _reference_eer(t.y, s, t.weights)
        assert r.rate == pytest.approx(rate, abs=1e-12)
        assert r.threshold == threshold
        # The rate is the least worst-error along the ROC path (dense sampling of each segment).
        fpr, tpr, _ = _roc(t.y, s, t.weights)
        lam = np.linspace(0, 1, 201)[:, None]
        f = fpr[:-1] + lam * np.diff(fpr)
        g = (1 - tpr[:-1]) + lam * np.diff(1 - tpr)
        assert r.rate <= np.maximum(f, g).min() + 1e-12
        assert r.rate >= np.maximum(f, g).min() - 1 / 200


def test_equal_error_rate_all_tied_is_one_half_at_the_score():
    r = equal_error_rate([0, 1, 0, 1], [0.3] * 4)
    assert (r.rate, r.threshold, r.fpr, r.fnr) == (0.5, 0.3, 1.0, 0.0)


# --- precision-recall gain ----------------------------------------------------------------------


@SETTINGS
@given(binary_tables(weights=True))
def test_prg_curve_against_definition_on_sklearn_pr_curve(t):
    w = t.weights
    pi = np.average(t.y, weights=w)
    for s in t.scores:
        pg, rg, thr = precision_recall_gain_curve(t.y, s, sample_weight=w)
        prec, rec, sk_thr = skm.precision_recall_curve(t.y, s, sample_weight=w)
        prec, rec = prec[:-1], rec[:-1]  # drop scikit-learn's (recall 0, precision 1) end
        with np.errstate(divide="ignore", invalid="ignore"):
            want_pg = (prec - pi) / ((1 - pi) * prec)
            want_rg = (rec - pi) / ((1 - pi) * rec)
        np.testing.assert_array_equal(thr, sk_thr)
        np.testing.assert_allclose(pg, want_pg, rtol=1e-9, atol=1e-12)
        np.testing.assert_allclose(rg, want_rg, rtol=1e-9, atol=1e-12)


def _gain(kind, tp, fn, fp, tn, totals=None):
    tp, fn, fp, tn = (np.float64(v) for v in (tp, fn, fp, tn))
    # The reference takes P = tp + fn and N = fp + tn per point: exact for counts, but with
    # weights N then differs in the last bit from point to point, and the re-sort by recall
    # gain reorders points of equal TP by that noise. The port passes the totals.
    n_pos, n_neg = totals if totals is not None else (tp + fn, fp + tn)
    with np.errstate(divide="ignore", invalid="ignore"):
        other = fp if kind == "precision" else fn
        value = 1.0 - (n_pos / n_neg) * (other / tp)
    if tn + fn == 0:
        value = 0.0 if kind == "precision" else 1.0
    return value


def _reference_auprg(y, s, w):
    """A port of meeliskull/prg ``create_prg_curve`` + ``calc_auprg`` (Python package), with
    exact tie grouping instead of np.isclose and row weights: points (TP, FP, FN, TN, recG,
    precG) at +inf and every distinct score; the recall-gain-0 crossing and the precision-gain-0
    crossings inserted, everything re-sorted by (recG ascending, precG descending); trapezoids
    from every point with recall gain >= 0."""
    w = np.ones(y.size) if w is None else w
    keep = w > 0
    y, s, w = y[keep], s[keep], w[keep]
    points = [[0.0, 0.0]]
    for value in sorted(set(s.tolist()), reverse=True):
        at = s == value
        points.append([points[-1][0] + w[at & y].sum(), points[-1][1] + w[at & ~y].sum()])
    n_pos, n_neg = points[-1]  # the running sums' totals, so FN and TN end at exactly 0
    n = n_pos + n_neg
    rows = []
    for tp, fp in points:
        fn, tn = n_pos - tp, n_neg - fp
        rows.append(
            [
                tp,
                fp,
                fn,
                tn,
                _gain("recall", tp, fn, fp, tn, (n_pos, n_neg)),
                _gain("precision", tp, fn, fp, tn, (n_pos, n_neg)),
            ]
        )

    def resort(rows):
        return sorted(rows, key=lambda r: (r[4], -r[5] if r[5] == r[5] else np.inf))

    j = min(i for i, r in enumerate(rows) if r[4] >= 0)
    if rows[j][4] > 0:
        a, b = rows[j - 1], rows[j]
        delta = [b[k] - a[k] for k in range(4)]
        alpha = (n_pos * n_pos / n - a[0]) / delta[0] if delta[0] > 0 else 0.5
        new = [a[k] + alpha * delta[k] for k in range(4)]
        rows = resort(
            [*rows, [*new, 0.0, _gain("precision", new[0], new[2], new[1], new[3], (n_pos, n_neg))]]
        )
    i = 1
    while i < len(rows):
        a, b = rows[i - 1], rows[i]
        # The reference tests a[5] * b[5] < 0: when the recall-gain-0 crossing lands exactly on
        # precision gain 0, rounding (1e-16) inserts a spurious crossing at recall gain -1e-17
        # whose next trapezoid it then skips. A tolerance keeps the port to the exact answer.
        if a[4] >= 0 and a[5] * b[5] < 0 and min(abs(a[5]), abs(b[5])) > 1e-12:
            cross_x = a[4] + (-a[5]) / (b[5] - a[5]) * (b[4] - a[4])
            delta = [b[k] - a[k] for k in range(4)]
            if delta[0] > 0:
                alpha = (n_pos * n_pos / (n - n_neg * cross_x) - a[0]) / delta[0]
            else:
                alpha = (n_neg / n_pos * a[0] - a[1]) / delta[1]
            new = [a[k] + alpha * delta[k] for k in range(4)]
            rows.insert(
                i, [*new, _gain("recall", new[0], new[2], new[1], new[3], (n_pos, n_neg)), 0.0]
            )
            i += 1
        i += 1
    area = 0.0
    for i in range(1, len(rows)):
        if not np.isnan(rows[i - 1][4]) and rows[i - 1][4] >= 0:
            area += (rows[i][4] - rows[i - 1][4]) * (rows[i][5] + rows[i - 1][5]) / 2
    return area


@SETTINGS
@given(binary_tables(weights=True))
def test_auprg_against_reference_code_port(t):
    for s in t.scores:
        assert precision_recall_gain_auc(t.y, s, sample_weight=t.weights) == pytest.approx(
            _reference_auprg(t.y, s, t.weights), abs=1e-9
        )


def test_auprg_fixed_values():
    assert precision_recall_gain_auc([0, 0, 1, 1], [0.1, 0.2, 0.8, 0.9]) == 1.0
    # The reference code's own example (labels of its plot_prg docstring, scores 25..1).
    labels = np.array([1, 1, 1, 0, 1, 1, 1, 1, 1, 1, 0, 1, 1, 1, 0, 1, 0, 0, 1, 0, 0, 0, 1, 0, 1])
    scores = np.arange(25, 0, -1)
    assert precision_recall_gain_auc(labels, scores) == pytest.approx(
        _reference_auprg(labels.astype(bool), scores.astype(float), None), abs=1e-12
    )
    with pytest.warns(UserWarning, match="both classes"):
        assert np.isnan(precision_recall_gain_auc([1, 1], [0.2, 0.3]))


# --- cost curves --------------------------------------------------------------------------------


def _brute_cost(y, s, w, grid):
    """At every x of the grid, the least NEC over every ROC point (scikit-learn's roc_curve)."""
    fpr, tpr, _ = _roc(y, s, w)
    lines = (1 - tpr)[None, :] * grid[:, None] + fpr[None, :] * (1 - grid[:, None])
    return lines.min(axis=1)


@SETTINGS
@given(binary_tables(weights=True))
def test_cost_curve_is_the_lower_envelope(t):
    grid = np.linspace(0, 1, 257)
    for s in t.scores:
        x, nec = cost_curve(t.y, s, sample_weight=t.weights)
        assert x[0] == 0
        assert x[-1] == 1
        assert np.all(np.diff(x) > 0)
        np.testing.assert_allclose(
            np.interp(grid, x, nec), _brute_cost(t.y, s, t.weights, grid), atol=1e-12
        )
        # the corners themselves lie on the envelope
        np.testing.assert_allclose(nec, _brute_cost(t.y, s, t.weights, x), atol=1e-12)


@SETTINGS
@given(binary_tables(weights=True))
def test_cost_curve_area_is_the_convex_hull_refinement_loss(t):
    """Area under the envelope = expected cost over uniform probability costs (Drummond &
    Holte) = Brier refinement loss of the ROC-convex-hull calibration with the classes weighted
    equally (Hernández-Orallo, Flach & Ferri 2012); isotonic regression (pool-adjacent-violators,
    ties pooled) is that calibration (Fawcett & Niculescu-Mizil 2007)."""
    w = np.ones(t.y.size) if t.weights is None else t.weights
    keep = w > 0
    y, w = t.y[keep], w[keep]
    balanced = np.where(y, 0.5 / w[y].sum(), 0.5 / w[~y].sum()) * w
    for s in t.scores:
        x, nec = cost_curve(t.y, s, sample_weight=t.weights)
        area = float(np.sum(np.diff(x) * (nec[1:] + nec[:-1]) / 2))
        fitted = IsotonicRegression().fit(s[keep], y.astype(float), sample_weight=balanced)
        q = fitted.predict(s[keep])
        refinement = float(np.sum(balanced * (q - y) ** 2))
        assert area == pytest.approx(refinement, abs=1e-9)
        grid = (np.arange(20000) + 0.5) / 20000
        assert area == pytest.approx(_brute_cost(t.y, s, t.weights, grid).mean(), abs=1e-6)


def test_cost_curve_example_from_hand():
    # ROC hull (0,0) (0,.5) (.5,1) (1,1): corners at 0, .5/(.5+.5), 1.
    x, nec = cost_curve([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8])
    assert x.tolist() == [0.0, 0.5, 1.0]
    assert nec.tolist() == [0.0, 0.25, 0.0]
    x, nec = cost_curve([0, 1, 0, 1], [0.5] * 4)  # no skill: treat-none / treat-all
    assert x.tolist() == [0.0, 0.5, 1.0]
    assert nec.tolist() == [0.0, 0.5, 0.0]


# --- Brier curves -------------------------------------------------------------------------------


def _probabilities(t):
    rng = np.random.default_rng(len(t.y))
    out = []
    for s in t.scores:
        p = 1 / (1 + np.exp(-s))
        if rng.random() < 0.3:
            p = np.round(p, 1)  # ties, and probabilities of exactly 0 and 1 sometimes
            p[rng.random(p.size) < 0.1] = 1.0
            p[rng.random(p.size) < 0.1] = 0.0
        out.append(p)
    return out


@SETTINGS
@given(binary_tables(weights=True))
def test_brier_curve_areas_are_brier_scores(t):
    w = np.ones(t.y.size) if t.weights is None else t.weights
    balanced = np.where(t.y, 1 / w[t.y].sum(), 1 / w[~t.y].sum()) * w
    for p in _probabilities(t):
        x, loss = brier_curve(t.y, p, kind="cost_proportion", sample_weight=t.weights)
        area = float(np.sum(np.diff(x) * (loss[1:] + loss[:-1]) / 2))
        assert area == pytest.approx(
            skm.brier_score_loss(t.y, p, sample_weight=t.weights), abs=1e-12
        )
        x, loss = brier_curve(t.y, p, sample_weight=t.weights)
        area = float(np.sum(np.diff(x) * (loss[1:] + loss[:-1]) / 2))
        assert area == pytest.approx(
            skm.brier_score_loss(t.y, p, sample_weight=balanced), abs=1e-12
        )


@SETTINGS
@given(binary_tables(weights=True))
def test_brier_curve_pointwise_and_above_the_cost_curve(t):
    w = np.ones(t.y.size) if t.weights is None else t.weights
    n_pos, n_neg = w[t.y].sum(), w[~t.y].sum()
    for p in _probabilities(t):
        x, loss = brier_curve(t.y, p, sample_weight=t.weights)
        jumps = np.unique(1 - p)
        grid = np.linspace(0, 1, 101)
        grid = grid[np.min(np.abs(grid[:, None] - jumps[None, :]), axis=1) > 1e-9]
        flagged = p[None, :] >= 1 - grid[:, None]
        fpr = (flagged & ~t.y) @ w / n_neg
        fnr = (~flagged & t.y) @ w / n_pos
        want = grid * fnr + (1 - grid) * fpr
        np.testing.assert_allclose(np.interp(grid, x, loss), want, atol=1e-12)
        cx, cnec = cost_curve(t.y, p, sample_weight=t.weights)
        assert np.all(np.interp(grid, cx, cnec) <= want + 1e-12)


# --- threshold intervals ------------------------------------------------------------------------


def _best(y, s, w, rule, beta=1.0, cost_fp=1.0, cost_fn=1.0):
    """Brute force: the rule's metric at +inf and every distinct score, highest best threshold."""
    w = np.ones(y.size) if w is None else np.asarray(w, dtype=float)
    keep = w > 0
    candidates = [np.inf, *sorted(set(s[keep].tolist()), reverse=True)]
    n_pos, n_neg = w[y].sum(), w[~y].sum()
    best = None
    for t in candidates:
        flag = s >= t
        tp, fp = w[flag & y].sum(), w[flag & ~y].sum()
        fn = n_pos - tp
        if rule == "youden":
            v = tp / n_pos - fp / n_neg
        elif rule == "cost":
            v = -(cost_fp * fp + cost_fn * fn) / (n_pos + n_neg)
        else:
            b2 = beta * beta
            v = (1 + b2) * tp / ((1 + b2) * tp + b2 * fn + fp) if tp > 0 else 0.0
        if best is None or v > best[1] + 1e-12:
            best = (t, v)
    return best


@SETTINGS
@given(
    binary_tables(weights=True, max_models=1),
    st.sampled_from(["f1", "fbeta", "youden", "cost"]),
    st.sampled_from([0.5, 2.0]),
    st.sampled_from([(1.0, 1.0), (1.0, 5.0), (4.0, 1.0)]),
)
def test_threshold_interval_estimate_is_brute_force_best(t, rule, beta, costs):
    s = t.scores[0]
    r = _quiet(
        threshold_interval,
        t.y,
        s,
        rule=rule,
        beta=beta,
        cost_fp=costs[0],
        cost_fn=costs[1],
        sample_weight=t.weights,
        n_resamples=5,
    )
    threshold, value = _best(t.y, s, t.weights, rule, beta if rule == "fbeta" else 1.0, *costs)
    assert r.threshold.estimate == threshold
    assert r.value.estimate == pytest.approx(-value if rule == "cost" else value, abs=1e-12)


@settings(max_examples=examples(40), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    binary_tables(max_models=1, max_size=65),
    st.sampled_from(["fbeta", "youden", "cost"]),
    st.integers(0, 1000),
)
def test_threshold_interval_resamples_against_brute_force(t, rule, seed):
    """With multinomial counts the fast bootstrap draws what paired_bootstrap draws; there each
    resample's best threshold comes from the brute force above."""
    s = t.scores[0]
    kwargs = {"beta": 2.0, "cost_fp": 1.0, "cost_fn": 3.0}
    r = _quiet(
        threshold_interval,
        t.y,
        s,
        rule=rule,
        n_resamples=15,
        seed=seed,
        counts="multinomial",
        **kwargs,
    )
    assert r.exact

    def picked(y, score, sample_weight=None):
        return _best(y, score, sample_weight, rule, kwargs["beta"], 1.0, 3.0)[0]

    def value(y, score, sample_weight=None):
        return _best(y, score, sample_weight, rule, kwargs["beta"], 1.0, 3.0)[1]

    slow_t = _quiet(paired_bootstrap, picked, t.y, s, n_resamples=15, seed=seed).replicates[:, 0]
    slow_v = _quiet(paired_bootstrap, value, t.y, s, n_resamples=15, seed=seed).replicates[:, 0]
    np.testing.assert_array_equal(r.thresholds, slow_t)
    np.testing.assert_allclose(r.values, -slow_v if rule == "cost" else slow_v, atol=1e-12)


def _metric_at(y, s, w, threshold, rule):
    flag = s >= threshold
    tp, fp = w[flag & y].sum(), w[flag & ~y].sum()
    n_pos, n_neg = w[y].sum(), w[~y].sum()
    return tp / n_pos - fp / n_neg if rule == "youden" else 2 * tp / (tp + fp + n_pos)


@SETTINGS
@given(binary_tables(max_models=1), st.integers(0, 1000))
def test_threshold_interval_matches_the_bootstraps_chosen_thresholds(t, seed):
    """Same picks as fast_paired_bootstrap's chosen_thresholds, except on exact ties: there the
    bootstrap's plain argmax follows rounding (J = 1/3 beats 1 - 2/3 or not), ours takes the
    higher threshold. The resamples' weights come from paired_bootstrap's identical draws."""
    s = t.scores[0]
    kw = {"n_resamples": 20, "seed": seed, "counts": "multinomial"}
    fb = _quiet(fast_paired_bootstrap, t.y, s, best_thresholds=True, **kw)
    drawn = []

    def record(y, x, sample_weight=None):
        if sample_weight is not None:
            drawn.append(sample_weight)
        return 0.0

    _quiet(paired_bootstrap, record, t.y, s, **kw)
    for rule, name in (("f1", "max F1"), ("youden", "Youden")):
        r = _quiet(threshold_interval, t.y, s, rule=rule, **kw)
        theirs = fb.chosen_thresholds[name][:, 0]
        differ = (r.thresholds != theirs) & ~(np.isnan(r.thresholds) & np.isnan(theirs))
        for k in np.flatnonzero(differ):
            ours_v = _metric_at(t.y, s, drawn[k], r.thresholds[k], rule)
            theirs_v = _metric_at(t.y, s, drawn[k], theirs[k], rule)
            assert ours_v == pytest.approx(theirs_v, abs=1e-12)
            assert r.thresholds[k] > theirs[k]


def test_threshold_interval_coarse_grid_and_errors():
    rng = np.random.default_rng(3)
    y = rng.random(3000) < 0.3
    s = rng.normal(size=3000) + y
    r = threshold_interval(y, s, n_resamples=50, max_grid=100)
    assert not r.exact
    assert r.n_grid <= 102
    grid_values = set(np.unique(s[y]).tolist())
    assert all(v in grid_values for v in r.thresholds[np.isfinite(r.thresholds)])
    assert r.threshold.ci_low <= r.threshold.estimate <= r.threshold.ci_high
    with pytest.raises(ValueError, match="rule must be"):
        threshold_interval(y, s, rule="accuracy")
    with pytest.raises(ValueError, match="beta must be"):
        threshold_interval(y, s, rule="fbeta", beta=0)

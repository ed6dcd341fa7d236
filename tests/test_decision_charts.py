"""The Decision curves and Calibration figure builders, without Streamlit: traces, axes, values;
and the calibration intervals against a slow per-resample recomputation with the library."""

from __future__ import annotations

from statistics import NormalDist

import numpy as np
import pytest

import metrics
from ui.compute.decision_compute import calibration_stats, is_probability
from ui.figures import calibration_charts, decision_charts


@pytest.fixture
def two_models():
    rng = np.random.default_rng(3)
    y = rng.random(400) < 0.3
    a = np.clip(0.3 + 0.5 * (y - 0.3) + rng.normal(0, 0.2, 400), 0, 1)
    b = rng.random(400) * 0.5 + 0.3 * y
    return y, {"a": a, "b": b}


def _cost_lines(y, scores):
    out = []
    for name, s in scores.items():
        x, cost = metrics.cost_curve(y, s)
        c = metrics.confusion_at_threshold(y, s, 0.5)
        fpr, fnr = c.fp / (c.fp + c.tn), c.fn / (c.fn + c.tp)
        area = float(np.sum(np.diff(x) * (cost[1:] + cost[:-1]) / 2))
        out.append(decision_charts.CostLines(name, x, cost, fpr, fnr, 0.5, area))
    return out


def test_cost_figure_draws_trivial_lines_an_envelope_and_an_operating_line_per_model(two_models):
    y, scores = two_models
    lines = _cost_lines(y, scores)
    fig = decision_charts.cost_figure(lines)
    assert len(fig.data) == 1 + 2 * len(scores)
    trivial = fig.data[0]
    assert list(trivial.x) == [0, 1, None, 0, 1]
    assert list(trivial.y) == [0, 1, None, 1, 0]
    for i, m in enumerate(lines):
        envelope, operating = fig.data[1 + 2 * i], fig.data[2 + 2 * i]
        np.testing.assert_array_equal(envelope.x, m.x)
        np.testing.assert_array_equal(envelope.y, m.cost)
        assert list(operating.x) == [0.0, 1.0]
        assert list(operating.y) == [m.fpr, m.fnr]
        assert operating.line.dash == "dash"
        assert envelope.line.color == operating.line.color
        # the envelope is never above the operating line of any threshold
        grid = np.linspace(0, 1, 101)
        assert np.all(np.interp(grid, m.x, m.cost) <= m.fnr * grid + m.fpr * (1 - grid) + 1e-12)
    assert fig.layout.xaxis.range == (0, 1)
    top = max(max(float(m.cost.max()), m.fpr, m.fnr) for m in lines)
    assert fig.layout.yaxis.range == (0, pytest.approx(min(0.55, max(0.02, 1.2 * top))))


def test_brier_figure_pairs_each_curve_with_its_envelope(two_models):
    y, scores = two_models
    a = scores["a"]
    bx, bl = metrics.brier_curve(y, a)
    cx, cost = metrics.cost_curve(y, a)
    area = float(np.sum(np.diff(bx) * (bl[1:] + bl[:-1]) / 2))
    # the area is the Brier score with the classes weighted equally (the library's claim)
    assert area == pytest.approx((np.mean((1 - a[y]) ** 2) + np.mean(a[~y] ** 2)) / 2)
    fig = decision_charts.brier_figure([decision_charts.BrierLines("a", bx, bl, cx, cost, area)])
    assert len(fig.data) == 2
    np.testing.assert_allclose(fig.data[0].y, bl)
    np.testing.assert_allclose(fig.data[0].customdata, 1 - bx)
    assert fig.data[1].line.dash == "dot"
    assert f"{area:.4f}" in fig.data[0].name


def test_brier_figure_thins_long_curves_to_about_two_thousand_points():
    rng = np.random.default_rng(0)
    y = rng.random(20_000) < 0.4
    p = rng.random(20_000)
    bx, bl = metrics.brier_curve(y, p)
    cx, cost = metrics.cost_curve(y, p)
    fig = decision_charts.brier_figure([decision_charts.BrierLines("p", bx, bl, cx, cost, 0.3)])
    assert bx.size > 30_000
    assert len(fig.data[0].x) <= 2_100
    assert fig.data[0].x[0] == bx[0]
    assert fig.data[0].x[-1] == bx[-1]


def test_prg_figure_keeps_points_in_the_unit_square_of_recall_gain(two_models):
    y, scores = two_models
    lines = []
    for name, s in scores.items():
        pg, rg, _ = metrics.precision_recall_gain_curve(y, s)
        lines.append(
            decision_charts.GainLines(
                name, pg, rg, metrics.precision_recall_gain_auc(y, s),
                metrics.average_precision_score(y, s),
            )
        )  # fmt: skip
    fig = decision_charts.prg_figure(lines)
    assert len(fig.data) == 1 + len(lines)
    for trace, m in zip(fig.data[1:], lines, strict=True):
        x = np.asarray(trace.x)
        assert np.all((x >= 0) & (x <= 1))
        assert np.all(np.diff(x) >= 0)
        keep = np.isfinite(m.recall_gain) & (m.recall_gain >= 0)
        assert x.size == int(keep.sum())
        assert f"AUPRG {m.auprg:.4f}" in trace.name
        assert f"AP {m.ap:.4f}" in trace.name
    assert fig.layout.xaxis.range == (0, 1.02)


def test_det_figure_uses_normal_deviate_axes_and_marks_the_eer(two_models):
    y, scores = two_models
    lines = []
    for name, s in scores.items():
        fpr, fnr, _ = metrics.det_curve(y, s)
        e = metrics.equal_error_rate(y, s)
        lines.append(decision_charts.DetLines(name, fpr, fnr, e.rate, e.threshold))
    fig = decision_charts.det_figure(lines)
    assert len(fig.data) == 1 + 2 * len(lines)  # diagonal, then a curve and an EER per model
    inv = NormalDist().inv_cdf
    for i, m in enumerate(lines):
        curve, eer = fig.data[1 + 2 * i], fig.data[2 + 2 * i]
        fpr, fnr = np.asarray(curve.customdata).T
        np.testing.assert_allclose(curve.x, [inv(v) for v in fpr])
        np.testing.assert_allclose(curve.y, [inv(v) for v in fnr])
        assert eer.x[0] == pytest.approx(inv(m.eer))
        assert eer.x[0] == eer.y[0]
        assert eer.marker.symbol == "diamond"
    ticks = np.asarray(fig.layout.xaxis.tickvals)
    np.testing.assert_allclose(ticks, [inv(t) for t in decision_charts.DET_TICKS])
    assert fig.layout.xaxis.ticktext[4] == "50%"
    assert fig.layout.yaxis.scaleanchor == "x"


def test_probit_maps_zero_and_one_to_infinity():
    z = decision_charts.probit([0.0, 0.5, 1.0, 0.975])
    assert z[0] == -np.inf
    assert z[1] == 0.0
    assert z[2] == np.inf
    assert z[3] == pytest.approx(1.959964, abs=1e-6)


def test_reliability_figure_has_a_band_line_and_bars_per_line(two_models):
    y, scores = two_models
    stats = calibration_stats(y, {"a": scores["a"]}, n_resamples=100)
    s = stats["a"]
    lines = [
        calibration_charts.Reliability("a", s.prob_pred, s.prob_true, s.band_low, s.band_high,
                                       s.size),
        calibration_charts.Reliability("a after", s.prob_pred, s.prob_true,
                                       np.full(s.size.shape, np.nan),
                                       np.full(s.size.shape, np.nan), s.size, dash=True),
    ]  # fmt: skip
    fig = calibration_charts.reliability_figure(lines)
    # diagonal; band + line + bars for the first; line + bars for the second (no band)
    assert len(fig.data) == 1 + 3 + 2
    band, line, bars = fig.data[1:4]
    assert band.fill == "toself"
    assert line.mode == "lines+markers"
    assert bars.type == "bar"
    np.testing.assert_allclose(line.y, s.prob_true)
    np.testing.assert_allclose(bars.y, s.size)
    assert fig.data[4].line.dash == "dash"
    assert band.xaxis == "x"
    assert bars.xaxis == "x2"


def test_calibration_stats_equal_the_library_and_a_slow_bootstrap():
    rng = np.random.default_rng(11)
    n = 150
    y = rng.random(n) < 0.35
    p = np.clip(0.35 + 0.6 * (y - 0.35) + rng.normal(0, 0.25, n), 0, 1)
    w = rng.choice([0.5, 1.0, 2.0], n)
    groups = np.arange(n) // 3
    stats = calibration_stats(
        y, {"p": p}, sample_weight=w, groups=groups, n_bins=6, strategy="quantile",
        n_resamples=60, seed=4,
    )["p"]  # fmt: skip
    kw = dict(n_bins=6, strategy="quantile", sample_weight=w)
    assert stats.stats["ECE"].estimate == metrics.calibration_error(y, p, **kw)
    assert stats.stats["MCE"].estimate == metrics.calibration_error(y, p, norm="max", **kw)
    d = metrics.brier_decomposition(y, p, **kw)
    assert stats.stats["reliability"].estimate == d.reliability
    assert stats.stats["Brier"].estimate == d.brier
    np.testing.assert_array_equal(stats.prob_true, metrics.calibration_curve(y, p, **kw)[0])
    # Slow reference: the same resamples (group counts, drawn as the library draws them:
    # recovered here from a row-mean of each group's indicator), the library on each.
    fb = metrics.fast_paired_bootstrap(
        y, p, n_resamples=60, seed=4, sample_weight=w, groups=groups,
        row_means={f"g{g}": [(groups == g).astype(float)] for g in range(n // 3)},
    )  # fmt: skip
    share = np.column_stack([fb.results[f"g{g}"].replicates[:, 0] for g in range(n // 3)])
    # row_means are counts @ (w * 1_g) / counts @ w: proportional to each group's count times
    # its weight; divide the weight back out to get counts up to a common factor.
    group_w = np.array([w[groups == g].sum() for g in range(n // 3)])
    counts = share / group_w
    edges = np.percentile(p, np.linspace(0, 100, 7))
    bins = np.searchsorted(edges[1:-1], p)
    ece, rel = [], []
    for r in range(60):
        rw = w * counts[r][groups]
        if rw.sum() == 0:
            continue
        t = np.bincount(bins, rw, 6)
        pos = np.bincount(bins, rw * y, 6)
        pred = np.bincount(bins, rw * p, 6)
        used = t > 0
        ece.append(np.sum(np.abs(pos[used] - pred[used])) / t.sum())
        rel.append(np.sum((pred[used] - pos[used]) ** 2 / t[used]) / t.sum())
    # ECE and reliability are binned plug-ins, biased upwards: their percentile intervals
    # could exclude the estimate (issue 31), so they have none; the slow replicates above still
    # check the resampled bins the bands come from.
    assert np.isnan(stats.stats["ECE"].low)
    assert np.isnan(stats.stats["reliability"].high)
    assert np.percentile(ece, 97.5) > stats.stats["ECE"].estimate  # the bias the fix is about
    rates = []
    for r in range(60):
        rw = w * counts[r][groups]
        if rw.sum() == 0:
            continue
        t = np.bincount(bins, rw, 6)
        with np.errstate(invalid="ignore", divide="ignore"):
            rates.append(np.bincount(bins, rw * y, 6) / t)
    low = np.nanpercentile(np.array(rates), 2.5, axis=0)
    np.testing.assert_allclose(stats.band_low, low[np.bincount(bins, minlength=6) > 0])
    # The debiased error's interval: the library's, on the same groups and weights.
    ce = metrics.calibration_error_interval(
        y, p, n_bins=6, strategy="quantile", sample_weight=w, groups=groups, n_resamples=60,
        seed=4,
    )  # fmt: skip
    iv = stats.stats["RMS calibration error"]
    assert (iv.estimate, iv.low, iv.high) == (ce.rms, ce.rms_low, ce.rms_high)
    assert iv.low <= iv.estimate <= iv.high
    # The simultaneous band of the bins' rates is never narrower than the pointwise one.
    assert np.all(stats.sim_low <= stats.band_low + 1e-12)
    assert np.all(stats.sim_high >= stats.band_high - 1e-12)


def test_is_probability():
    assert is_probability(np.array([0.0, 0.3, 1.0]))
    assert not is_probability(np.array([-0.1, 0.5]))
    assert not is_probability(np.array([0.5, 1.5]))


def test_an_envelope_drawn_over_another_is_named():
    """A model and a monotone copy of it rank rows alike: the same envelope, the later line
    hides the earlier one, and the page is told so; different models are not paired."""
    rng = np.random.default_rng(8)
    y = rng.random(300) < 0.4
    a = np.clip(0.3 + 0.5 * y + rng.normal(0, 0.25, 300), 0.001, 0.999)
    lines = _cost_lines(y, {"a": a, "b": rng.random(300), "a_sharp": a**3 / (a**3 + (1 - a) ** 3)})
    assert decision_charts.same_envelopes(lines) == [("a_sharp", "a")]
    assert decision_charts.same_envelopes(lines[:2]) == []

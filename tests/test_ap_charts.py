"""AP lab builders, without Streamlit: the presets reproduce the seeds, the tables end at the
library's values, and the figure draws exactly the areas that are summed."""

from __future__ import annotations

import numpy as np
import pytest

import metrics
from metrics import AP_METHODS
from ui.figures import ap_charts
from ui.figures.ap_charts import PRESETS, exact_text, polygon_area

BINARY = PRESETS["AP as scikit-learn's step sum (5/6)"]
WEIGHTED = PRESETS["Sample weights as row counts (AP 8/9)"]
MULTILABEL = PRESETS["Multi-label mAP (11/12)"]
SEED002 = PRESETS["Trapezoid (scikit-learn < 0.19) vs step"]


def random_case(seed: int, n: int = 400, weighted: bool = True):
    rng = np.random.default_rng(seed)
    y = rng.random(n) < 0.3
    y[:2] = [True, False]
    s = np.round(rng.normal(size=n) + y, 1)  # rounding makes ties
    w = rng.uniform(0.1, 3, n) if weighted else None
    return y, s, w


# --- presets: every worked number of the seeds -------------------------------------------------


@pytest.mark.parametrize("name", list(PRESETS))
def test_every_preset_claim_matches_the_seed(name):
    preset = PRESETS[name]
    frame = ap_charts.claims_frame(preset)
    assert list(frame["matches"]) == ["✓"] * len(preset.claims)
    for claim, computed in zip(preset.claims, frame["computed"], strict=True):
        value = ap_charts.claim_value(preset, claim)
        assert value == pytest.approx(float(claim.expected), abs=1e-12)
        assert computed == exact_text(value)


def test_seed000_binary_is_five_sixths_with_the_articles_steps():
    lab = ap_charts.ap_lab(*BINARY.arrays())
    assert lab.values["step"] == pytest.approx(5 / 6, abs=1e-15)
    assert exact_text(lab.values["step"]) == "5/6 = 0.8333"
    table = ap_charts.step_frame(lab.step)
    assert table["threshold"].tolist() == [0.8, 0.4, 0.35, 0.1]
    np.testing.assert_allclose(table["precision"], [1, 1 / 2, 2 / 3, 2 / 4])
    np.testing.assert_allclose(table["recall"], [1 / 2, 1 / 2, 1, 1])
    np.testing.assert_allclose(table["contribution"], [1 / 2, 0, 1 / 3, 0])
    assert table["running AP"].iloc[-1] == pytest.approx(5 / 6, abs=1e-15)


def test_seed000_weighted_is_eight_ninths_with_the_articles_precisions():
    lab = ap_charts.ap_lab(*WEIGHTED.arrays())
    assert exact_text(lab.values["step"]) == "8/9 = 0.8889"
    table = ap_charts.step_frame(lab.step)
    np.testing.assert_allclose(table["precision"], [2 / 2, 2 / 2.5, 2 / 3.5, 3 / 4.5])
    np.testing.assert_allclose(table["recall"], [2 / 3, 2 / 3, 2 / 3, 1])
    assert table["rows"].tolist() == [2, 0.5, 1, 1]


def test_seed000_multilabel_per_class_and_averages():
    frame = ap_charts.per_class_frame(
        MULTILABEL.y, MULTILABEL.scores, MULTILABEL.weight, MULTILABEL.classes
    )
    assert frame["class"].tolist() == [
        "class_0",
        "class_1",
        "class_2",
        "macro (mAP)",
        "weighted by positives",
    ]
    assert frame["Step"].tolist() == [
        "3/4 = 0.7500",
        "1.0000",
        "1.0000",
        "11/12 = 0.9167",
        "13/14 = 0.9286",
    ]
    for m in AP_METHODS:
        expected = metrics.average_precision_score(
            MULTILABEL.y, MULTILABEL.scores, method=m, average=None
        )
        assert frame[ap_charts.METHOD_LABELS[m]].tolist()[:3] == [exact_text(v) for v in expected]
    y0, s0, _ = MULTILABEL.arrays(0)
    assert y0.tolist() == [0, 1, 0, 1]
    assert s0.tolist() == [0.1, 0.9, 0.2, 0.1]


def test_seed002_trapezoid_below_step():
    lab = ap_charts.ap_lab(*SEED002.arrays())
    assert exact_text(lab.values["trapezoid"]) == "19/24 = 0.7917"
    assert exact_text(lab.values["step"]) == "5/6 = 0.8333"
    frame = ap_charts.methods_frame(lab)
    row = frame.set_index("method").loc["Trapezoid"]
    assert row["exact"] == "19/24"
    assert row["minus step"] == pytest.approx(19 / 24 - 5 / 6, abs=1e-15)


def test_preset_frames_show_the_inline_data():
    assert WEIGHTED.frame().columns.tolist() == ["score", "label", "weight"]
    assert MULTILABEL.frame().shape == (4, 6)


# --- the lab's numbers equal the library's -----------------------------------------------------


@pytest.mark.parametrize("seed", range(8))
def test_lab_values_are_the_librarys(seed):
    y, s, w = random_case(seed, weighted=seed % 2 == 0)
    lab = ap_charts.ap_lab(y, s, w)
    for m in AP_METHODS:
        assert lab.values[m] == metrics.average_precision_score(y, s, sample_weight=w, method=m)
        assert lab.breakdowns[m].value == pytest.approx(lab.values[m], abs=1e-12)
    frame = ap_charts.methods_frame(lab)
    assert frame["AP"].tolist() == [lab.values[m] for m in AP_METHODS]
    assert frame["used by"].tolist() == [metrics.AP_METHOD_SOURCES[m] for m in AP_METHODS]
    assert frame["terms summed"].iloc[2:5:2].tolist() == [11, 101]
    step = ap_charts.step_frame(lab.step)
    assert step["running AP"].iloc[-1] == pytest.approx(lab.values["step"], abs=1e-12)
    assert len(ap_charts.step_frame(lab.step, 7)) == 7
    grid = metrics.score_grid_average_precision(y, s, sample_weight=w)
    assert ap_charts.grid_frame(lab.grid)["contribution"].sum() == pytest.approx(grid.value)
    levels = ap_charts.level_frame(lab.breakdowns["voc11"])
    assert len(levels) == 11
    assert levels["contribution"].sum() == pytest.approx(lab.values["voc11"], abs=1e-12)


@pytest.mark.parametrize("method", AP_METHODS)
def test_points_table_sums_to_the_value(method):
    y, s, w = random_case(3)
    lab = ap_charts.ap_lab(y, s, w)
    frame, n_terms = ap_charts.points_frame(lab.breakdowns[method])
    assert len(frame) == n_terms
    assert frame["running sum"].iloc[-1] == pytest.approx(lab.values[method], abs=1e-12)
    assert (frame["contribution"] == frame["weight"] * frame["precision used"]).all()
    if method in ("voc11", "coco101"):
        assert n_terms == {"voc11": 11, "coco101": 101}[method]
    else:
        assert (frame["weight"] > 0).all()
    short, total = ap_charts.points_frame(lab.breakdowns[method], 5)
    assert len(short) == 5
    assert total == n_terms


def test_exact_text():
    assert exact_text(5 / 6) == "5/6 = 0.8333"
    assert exact_text(0.75) == "3/4 = 0.7500"
    assert exact_text(1.0) == "1.0000"
    assert exact_text(float("nan")) == "—"
    assert exact_text(np.pi / 4) == "0.7854"  # no small fraction
    assert ap_charts.exact_fraction(0.8333333333333333).denominator == 6
    assert ap_charts.diff_text(0.5, 0.5) == "same as step"
    assert ap_charts.diff_text(0.5 - 0.0417, 0.5) == "-0.0417 vs step"
    assert ap_charts.diff_text(0.5 + 2e-6, 0.5) == "+2.0e-06 vs step"
    # round-off is no difference: 97/120 by two routes that differ in the last bit
    assert ap_charts.diff_text(97 / 120 + 1.1e-16, 97 / 120) == "same as step"


def test_has_positives():
    assert ap_charts.has_positives(np.array([0, 1]))
    assert not ap_charts.has_positives(np.array([False, False]))
    assert not ap_charts.has_positives(np.array([0, 1]), np.array([1.0, 0.0]))


# --- the figure: what is drawn is what is summed ----------------------------------------------


def _traces(fig):
    return {t.name.split(":")[0]: t for t in fig.data}


@pytest.mark.parametrize("seed", range(6))
def test_drawn_areas_equal_the_values(seed):
    y, s, w = random_case(seed, weighted=seed % 2 == 1)
    lab = ap_charts.ap_lab(y, s, w)
    fig = ap_charts.ap_regions_figure(lab, AP_METHODS)
    traces = _traces(fig)
    for m in ("step", "trapezoid", "voc_all"):
        t = traces[ap_charts.METHOD_LABELS[m]]
        assert t.fill == "toself"
        assert polygon_area(t.x, t.y) == pytest.approx(lab.values[m], abs=1e-12)
        assert t.name == f"{ap_charts.METHOD_LABELS[m]}: {lab.values[m]:.4f}"
    for m, n in (("voc11", 11), ("coco101", 101)):
        t = traces[ap_charts.METHOD_LABELS[m]]
        assert t.mode == "markers"
        assert len(t.x) == n
        np.testing.assert_array_equal(t.y, lab.breakdowns[m].precision)
        assert np.mean(t.y) == pytest.approx(lab.values[m], abs=1e-12)
    curve = traces["PR points (one per threshold)"]
    np.testing.assert_array_equal(curve.x, lab.step.recall)
    np.testing.assert_array_equal(curve.y, lab.step.precision)


def test_seed_areas_are_exact():
    lab = ap_charts.ap_lab(*SEED002.arrays())
    fig = ap_charts.ap_regions_figure(lab, ["trapezoid"])
    assert len(fig.data) == 2  # the trapezoid polygon and the points
    t = fig.data[0]
    assert list(zip(t.x, t.y, strict=True))[:2] == [(0.0, 0.0), (0.0, 1.0)]  # from (0, 1)
    assert polygon_area(t.x, t.y) == pytest.approx(19 / 24, abs=1e-15)


def test_toggles_choose_the_traces():
    lab = ap_charts.ap_lab(*BINARY.arrays())
    assert len(ap_charts.ap_regions_figure(lab, []).data) == 1
    names = [t.name for t in ap_charts.ap_regions_figure(lab, ["voc11", "step"]).data]
    assert names == ["Step: 0.8333", "VOC 11-point: 0.8485", "PR points (one per threshold)"]


def test_large_data_sends_at_most_about_2000_points_per_trace():
    rng = np.random.default_rng(1)
    y = rng.random(200_000) < 0.3
    s = rng.normal(size=y.size) + y
    lab = ap_charts.ap_lab(y, s)
    assert lab.n_thresholds > 100_000
    fig = ap_charts.ap_regions_figure(lab, AP_METHODS)
    for t in fig.data:
        assert len(t.x) <= 2010, t.name
    traces = _traces(fig)
    # areas drawn from a sample stay close to the values, which use every row
    for m in ("step", "trapezoid", "voc_all"):
        t = traces[ap_charts.METHOD_LABELS[m]]
        assert polygon_area(t.x, t.y) == pytest.approx(lab.values[m], abs=2e-3)
        assert f"{lab.values[m]:.4f}" in t.name


# --- explain LaTeX ----------------------------------------------------------------------------


def test_step_latex_substitutes_the_articles_terms():
    lab = ap_charts.ap_lab(*BINARY.arrays())
    formula, substituted = ap_charts.method_latex(lab, "step")
    assert "R_{i-1}" in formula
    assert substituted == (
        r"= (\frac{1}{2} - 0) \times 1 + (\frac{1}{2} - \frac{1}{2}) \times \frac{1}{2} + "
        r"(1 - \frac{1}{2}) \times \frac{2}{3} + (1 - 1) \times \frac{1}{2} = "
        r"\frac{5}{6} \approx 0.8333"
    )


def test_method_latex_for_every_method():
    lab = ap_charts.ap_lab(*SEED002.arrays())
    assert ap_charts.method_latex(lab, "trapezoid")[1].startswith(
        r"= (\frac{1}{2} - 0) \times \frac{1 + 1}{2}"
    )
    assert ap_charts.method_latex(lab, "trapezoid")[1].endswith(r"\frac{19}{24} \approx 0.7917")
    assert ap_charts.method_latex(lab, "voc11")[1] == (
        r"= \frac{1}{11}\left(6 \times 1 + 5 \times \frac{2}{3}\right) = "
        r"\frac{28}{33} \approx 0.8485"
    )
    assert ap_charts.method_latex(lab, "coco101")[1].startswith(r"= \frac{1}{101}\left(51 \times")
    assert r"\frac{2}{3}" in ap_charts.method_latex(lab, "voc_all")[1]
    multi = ap_charts.ap_lab(*MULTILABEL.arrays(0))
    assert ap_charts.method_latex(multi, "step")[1].endswith(r"\frac{3}{4} = 0.7500")


def test_long_sums_say_how_many_terms_are_left():
    y, s, w = random_case(0)
    lab = ap_charts.ap_lab(y, s, w)
    line = ap_charts.method_latex(lab, "step")[1]
    assert f"{lab.n_thresholds - 4:,} more" in line
    assert ap_charts.exact_fraction(lab.values["step"]) is None
    assert line.endswith(f"= {lab.values['step']:.4f}")
    voc11 = ap_charts.method_latex(lab, "voc11")[1]
    assert r"\cdots" not in voc11  # at most 11 levels: all shown


# --- the one-line claims about when the methods differ -----------------------------------------


def _ap(y, s, method, w=None):
    return metrics.average_precision_score(y, s, method=method, sample_weight=w)


def test_envelope_is_never_below_step_and_gains_most_from_a_dip_at_low_recall():
    for seed in range(30):
        y, s, w = random_case(seed, n=60)
        assert _ap(y, s, "voc_all", w) >= _ap(y, s, "step", w) - 1e-12
    # negatives ranked first: precisions 1/2, 2/3, 3/4 all become 3/4
    y, s = [0, 1, 1, 1], [4, 3, 2, 1]
    assert _ap(y, s, "voc_all") == pytest.approx(0.75)
    assert _ap(y, s, "step") == pytest.approx((1 / 2 + 2 / 3 + 3 / 4) / 3)


def test_trapezoid_above_step_on_a_mixed_tied_block():
    y, s = [1, 0], [0.5, 0.5]  # one tied block: the line runs from (0, 1) to (1, 1/2)
    assert _ap(y, s, "step") == pytest.approx(0.5)
    assert _ap(y, s, "trapezoid") == pytest.approx(0.75)


def test_voc11_splits_levels_four_three_four_between_three_positives():
    b = metrics.average_precision_breakdown([1, 1, 1], [3, 2, 1], method="voc11")
    assert b.precision.tolist() == [1.0] * 11
    tps = np.array([1, 2, 3])
    first = np.searchsorted(10 * tps, np.arange(11) * 3, side="left")  # level k needs 10 TP >= 3k
    assert np.bincount(first).tolist() == [4, 3, 4]


def test_voc11_lands_on_either_side_of_voc_all():
    above = _ap([1, 0, 1, 0], [1, 0.8, 0.6, 0.4], "voc11") > _ap(
        [1, 0, 1, 0], [1, 0.8, 0.6, 0.4], "voc_all"
    )
    y, s = [1, 1, 0, 0, 1], [5, 4, 3, 2, 1]
    below = _ap(y, s, "voc11") < _ap(y, s, "voc_all")
    assert above
    assert below


def test_coco_stays_within_a_hundredth_of_voc_all():
    # a 101-point Riemann sum of a non-increasing step function in [0, 1]
    for seed in range(40):
        y, s, w = random_case(seed, n=int(5 + 10 * seed))
        assert abs(_ap(y, s, "coco101", w) - _ap(y, s, "voc_all", w)) <= 0.01 + 1e-12
    assert _ap([1, 0], [2, 1], "coco101") == pytest.approx(1.0)
    y, s = [0, 1], [2, 1]  # envelope 1/2 everywhere: every sum agrees
    assert _ap(y, s, "coco101") == pytest.approx(_ap(y, s, "voc_all"))


def test_voc11_level_one_is_the_precision_at_the_last_positive():
    y, s, w = random_case(5, n=300)
    lab = ap_charts.ap_lab(y, s, w)
    last = int(np.flatnonzero(lab.step.recall >= 1)[0])
    assert lab.breakdowns["voc11"].precision[-1] == lab.step.precision[last]
    assert lab.breakdowns["voc11"].weight[-1] == pytest.approx(1 / 11)

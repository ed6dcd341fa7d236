"""The multi-label page's numbers and figures, without Streamlit: what is sent equals the library."""

from __future__ import annotations

import warnings
from fractions import Fraction

import numpy as np
import pytest
import sklearn.metrics as skm
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import metrics
from tests.strategies import examples
from ui.compute import data
from ui.figures import multilabel_charts as mc

MODES = ["macro", "micro", "weighted", "samples"]


@pytest.fixture(scope="module")
def seed000():
    return mc.summarize_averaging(mc.SKLEARN_AP_EXAMPLE)


@pytest.fixture(scope="module")
def seed002():
    return mc.summarize_averaging(mc.LRAP_VS_AP_EXAMPLE)


@pytest.fixture(scope="module")
def digits():
    return mc.problem_from_dataset(data.bundled_dataset("digits_multilabel"))


@pytest.fixture(scope="module")
def wine():
    return mc.problem_from_dataset(data.bundled_dataset("wine_multiclass"))


# --- the seeds' worked numbers ---------------------------------------------------------------


def test_seed000_per_class_ap_map_and_weighted(seed000):
    assert seed000.ap_per_class.tolist() == pytest.approx([0.75, 1, 1], abs=1e-15)
    assert seed000.ap["macro"] == pytest.approx(11 / 12, abs=1e-15)
    assert seed000.ap["weighted"] == pytest.approx(13 / 14, abs=1e-15)
    assert seed000.share.tolist() == pytest.approx([2 / 7, 4 / 7, 1 / 7])
    assert seed000.positives.tolist() == [2, 4, 1]
    assert mc.fmt(seed000.ap["macro"]) == "0.9167 = 11/12"
    assert mc.fmt(seed000.ap["weighted"]) == "0.9286 = 13/14"


def test_seed000_auc_leaves_the_all_positive_class_out_with_the_library_warning(seed000):
    assert np.isnan(seed000.auc_per_class[1])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        metrics.roc_auc_score(
            mc.SKLEARN_AP_EXAMPLE.y, mc.SKLEARN_AP_EXAMPLE.scores, average="macro"
        )
    assert seed000.notes[("AUC", "macro")] == (str(caught[0].message),)
    assert "class position 1:" in seed000.notes[("AUC", "macro")][0]
    assert seed000.notes[("AP", "macro")] == ()


def test_seed002_lrap_equals_samples_ap_five_sixths_and_trapezoid_is_0_7917(seed002):
    assert seed002.lrap == pytest.approx(5 / 6, abs=1e-15)
    assert seed002.ap["samples"] == pytest.approx(5 / 6, abs=1e-15)
    assert round(seed002.samples_ap_trapezoid, 4) == 0.7917
    assert mc.fmt(seed002.lrap) == "0.8333 = 5/6"
    assert mc.fmt(seed002.samples_ap_trapezoid) == "0.7917 = 19/24"
    # one row: every class has one example, so per-class AUC is undefined everywhere
    assert np.isnan(seed002.auc_per_class).all()
    assert np.isnan(seed002.auc["macro"])


def test_seed002_row_breakdown_gives_precisions_one_and_two_thirds():
    table, values = mc.row_breakdown(mc.LRAP_VS_AP_EXAMPLE, 0)
    assert table["class"].tolist() == ["red", "round", "heavy", "spicy"]
    relevant = table[table["relevant"]]
    assert relevant["precision"].tolist() == pytest.approx([1, 2 / 3])
    assert values["lrap"] == pytest.approx(5 / 6)
    assert values["ap"] == pytest.approx(5 / 6)
    assert values["ap_trapezoid"] == pytest.approx(19 / 24)
    lines, _ = mc.row_explain_lines(mc.LRAP_VS_AP_EXAMPLE, 0)
    assert r"\frac{1}{2}\left(\tfrac{1}{1} + \tfrac{2}{3}\right) = \tfrac{5}{6}" in lines[0]
    assert r"\tfrac{1}{2}\cdot 1 + \tfrac{1}{2}\cdot \tfrac{2}{3} = \tfrac{5}{6}" in lines[1]
    assert r"\tfrac{19}{24}" in lines[2]


def test_explain_lines_carry_the_seed_numbers(seed000):
    macro, _ = mc.average_explain_lines(seed000, "AP", "macro")
    assert macro[0].endswith(r"\frac{1}{3}\left(\tfrac{3}{4} + 1 + 1\right) = \tfrac{11}{12}")
    weighted, note = mc.average_explain_lines(seed000, "AP", "weighted")
    assert weighted[1] == (
        r"= \tfrac{2}{7}\cdot \tfrac{3}{4} + \tfrac{4}{7}\cdot 1 + \tfrac{1}{7}\cdot 1 = \tfrac{13}{14}"
    )
    assert note[0] == "P_c = positives of class c: class_0 2, class_1 4, class_2 1."
    # AUC of class_1 is undefined: its weight is shared out over the classes kept
    auc_weighted, auc_note = mc.average_explain_lines(seed000, "AUC", "weighted")
    assert (
        auc_weighted[1] == r"= \tfrac{2}{3}\cdot \tfrac{5}{8} + \tfrac{1}{3}\cdot 1 = \tfrac{3}{4}"
    )
    assert "AUC left out as undefined: class_1." in auc_note
    samples, _ = mc.average_explain_lines(seed000, "AP", "samples")
    assert samples[1] == (
        r"= \frac{1}{4}\left(1 + 1 + \tfrac{5}{6} + \tfrac{5}{6}\right) = \tfrac{11}{12}"
    )
    micro, _ = mc.average_explain_lines(seed000, "AP", "micro")
    assert "P = 7" in micro[0]
    assert "N = 5" in micro[0]
    assert micro[0].endswith(r"= \tfrac{37}{42}")


# --- every number equals the library on the bundled per-class datasets ----------------------


@pytest.mark.parametrize("name", ["digits", "wine"])
def test_summary_equals_the_library(name, request):
    p = request.getfixturevalue(name)
    sm = mc.summarize_averaging(p)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", metrics.UndefinedMetricWarning)
        for mode in MODES:
            assert sm.ap[mode] == metrics.average_precision_score(p.y, p.scores, average=mode)
            assert sm.auc[mode] == metrics.roc_auc_score(p.y, p.scores, average=mode)
        np.testing.assert_array_equal(
            sm.ap_per_class, metrics.average_precision_score(p.y, p.scores, average=None)
        )
        np.testing.assert_array_equal(
            sm.auc_per_class, metrics.roc_auc_score(p.y, p.scores, average=None)
        )
        assert sm.lrap == metrics.label_ranking_average_precision_score(p.y, p.scores)
    np.testing.assert_array_equal(sm.positives, p.y.sum(axis=0))
    assert sm.share.sum() == pytest.approx(1)


def test_digits_rows_without_labels_are_where_lrap_and_samples_ap_part(digits):
    sm = mc.summarize_averaging(digits)
    empty = ~digits.y.any(axis=1)
    assert sm.n_rows_without_label == int(empty.sum()) > 0
    assert sm.lrap > sm.ap["samples"]
    # on the rows with a label they agree, ties included (both count a tie run at its end)
    assert sm.lrap_labelled == pytest.approx(sm.ap["samples"], abs=1e-12)
    assert "the samples average leaves them out" in sm.notes[("AP", "samples")][0]
    assert sm.confusion is None
    assert sm.top_k is None


def test_lrap_equals_samples_ap_with_ties_on_rows_with_a_label():
    rng = np.random.default_rng(3)
    y = rng.random((60, 5)) < 0.4
    y[:, 0] |= ~y.any(axis=1)  # every row has a label
    s = np.round(rng.normal(size=y.shape), 0)  # many ties
    sm = mc.summarize_averaging(mc.ClassScores("ties", y, s, tuple("abcde")))
    assert sm.n_rows_without_label == 0
    assert sm.lrap == pytest.approx(sm.ap["samples"], abs=1e-12)


def test_wine_confusion_and_top_k_equal_the_library(wine):
    sm = mc.summarize_averaging(wine)
    truth = data.bundled_dataset("wine_multiclass").frame["label"].to_numpy()
    np.testing.assert_array_equal(wine.true_labels(), truth)
    for key, norm in (("counts", None), ("true", "true"), ("pred", "pred")):
        np.testing.assert_array_equal(
            sm.confusion[key],
            metrics.multiclass_confusion_matrix(
                truth, wine.scores, labels=list(wine.classes), normalize=norm
            ),
        )
    expected = [
        metrics.top_k_accuracy_score(truth, wine.scores, k=k, labels=list(wine.classes))
        for k in (1, 2, 3)
    ]
    assert sm.top_k.tolist() == expected
    assert sm.top_k[-1] == 1.0
    assert sm.confusion["counts"].sum() == 178


def test_weighted_problem_passes_the_weights_everywhere():
    rng = np.random.default_rng(1)
    y = rng.random((40, 3)) < 0.5
    y[0], y[1] = True, False
    s = rng.normal(size=y.shape) + y
    w = rng.uniform(0.1, 2, 40)
    sm = mc.summarize_averaging(mc.ClassScores("w", y, s, ("a", "b", "c"), weight=w))
    assert sm.weighted
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", metrics.UndefinedMetricWarning)
        for mode in MODES:
            assert sm.ap[mode] == metrics.average_precision_score(
                y, s, average=mode, sample_weight=w
            )
    assert sm.positives.tolist() == pytest.approx((w @ y).tolist())
    assert sm.lrap == metrics.label_ranking_average_precision_score(y, s, sample_weight=w)
    assert sm.pooled.n_pos == pytest.approx((w[:, None] * y).sum())


def test_problem_from_dataset_needs_one_score_column_per_class(digits, wine):
    assert mc.problem_from_dataset(data.bundled_dataset("breast_cancer")) is None
    assert mc.problem_from_dataset(data.bundled_dataset("query_ranking")) is None
    assert digits.y.shape == digits.scores.shape == (1797, 6)
    assert not digits.multiclass
    assert wine.multiclass
    assert wine.classes == ("class_0", "class_1", "class_2")


def test_capture_keeps_warnings_from_the_console():
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # anything escaping would raise here
        value, notes = mc.capture(metrics.average_precision_score, [0, 0], [0.1, 0.2])
    assert np.isnan(value)
    assert notes == (
        "No positive samples in y_true: average precision is undefined, returning NaN.",
    )


def test_fractions_only_when_exact():
    assert mc.exact_fraction(11 / 12, 200, whole=False) == Fraction(11, 12)
    assert mc.exact_fraction(0.123456789, 200, whole=False) is None
    assert mc.exact_fraction(1.0, 200, whole=False) is None
    assert mc.exact_fraction(1.0) == 1  # the AP lab's reading: a whole number is a fraction
    assert mc.fmt(11 / 12) == "0.9167 = 11/12"
    assert mc.fmt(1.0) == "1.0000"
    assert mc.fmt(float("nan")) == "undefined"
    assert mc.fmt(0.9488123) == "0.9488"
    assert mc.tex(0.75) == r"\tfrac{3}{4}"
    assert mc.tex(1.0) == "1"


# --- figures -----------------------------------------------------------------------------------


def test_bar_figure_sends_per_class_values_and_the_four_averages(seed000):
    fig = mc.per_class_bar_figure(seed000, "AP")
    bars = fig.data[0]
    assert list(bars.x) == ["class_0", "class_1", "class_2"]
    assert list(bars.y) == pytest.approx([0.75, 1, 1])
    assert list(fig.layout.xaxis.ticktext) == [
        "class_0<br>w=0.29", "class_1<br>w=0.57", "class_2<br>w=0.14"
    ]  # fmt: skip
    lines = {t.name.split()[0]: t.y[0] for t in fig.data[1:]}
    assert lines == pytest.approx(seed000.ap)


def test_bar_figure_leaves_out_undefined_values(seed002):
    fig = mc.per_class_bar_figure(seed002, "AUC")
    assert list(fig.data[0].y) == [None] * 4
    assert sorted(t.name.split()[0] for t in fig.data[1:]) == ["micro", "samples"]


def test_pr_curves_are_the_steps_ap_sums(seed000):
    fig = mc.curves_figure(seed000, "pr")
    names = [t.name for t in fig.data]
    assert names == [
        "pooled prevalence 0.583",
        "class_0 (AP 0.750)",
        "class_1 (AP 1.000)",
        "class_2 (AP 1.000)",
        "micro: all cells pooled (AP 0.881)",
    ]
    micro = fig.data[-1]
    assert micro.line.width == 4
    assert micro.line.shape == "vh"
    r, p = np.array(micro.x), np.array(micro.y)
    assert np.sum(np.diff(r) * p[1:]) == pytest.approx(seed000.ap["micro"])
    for trace, ap in zip(fig.data[1:4], seed000.ap_per_class, strict=True):
        r, p = np.array(trace.x), np.array(trace.y)
        assert np.sum(np.diff(r) * p[1:]) == pytest.approx(ap)


def test_roc_curves_skip_undefined_classes_and_end_at_one(seed000):
    fig = mc.curves_figure(seed000, "roc")
    names = [t.name for t in fig.data]
    assert "class_1" not in " ".join(names)  # no negatives: no ROC curve
    micro = fig.data[-1]
    assert (micro.x[0], micro.y[0], micro.x[-1], micro.y[-1]) == (0, 0, 1, 1)
    assert np.trapezoid(micro.y, micro.x) == pytest.approx(seed000.auc["micro"])


def test_curves_send_at_most_about_2000_points_per_curve():
    rng = np.random.default_rng(0)
    y = rng.random((20_000, 3)) < 0.3
    s = rng.normal(size=y.shape) + y
    sm = mc.summarize_averaging(mc.ClassScores("big", y, s, ("a", "b", "c")))
    for kind in ("pr", "roc"):
        fig = mc.curves_figure(sm, kind)
        for trace in fig.data[1:]:
            assert len(trace.x) <= 2002
            assert trace.x[-1] == 1


def test_confusion_and_top_k_figures_send_the_library_values(wine):
    sm = mc.summarize_averaging(wine)
    for norm in ("counts", "true", "pred"):
        heat = mc.confusion_figure(sm, norm).data[0]
        np.testing.assert_array_equal(np.array(heat.z), sm.confusion[norm])
        assert list(heat.x) == ["pred class_0", "pred class_1", "pred class_2"]
    assert mc.confusion_figure(sm, "counts").data[0].text[0][0] == str(sm.confusion["counts"][0, 0])
    bars = mc.top_k_figure(sm).data[0]
    assert list(bars.x) == [1, 2, 3]
    assert list(bars.y) == sm.top_k.tolist()


def test_tables_hold_the_summary(seed000):
    table = mc.per_class_table(seed000)
    assert table["AP"].tolist() == pytest.approx([0.75, 1, 1])
    assert table["weight w_c"].tolist() == pytest.approx([2 / 7, 4 / 7, 1 / 7])
    averages = mc.averages_table(seed000).set_index("average")
    assert averages.loc["weighted", "AP"] == pytest.approx(13 / 14)
    assert averages.loc["macro", "AUC"] == pytest.approx(0.8125)


def test_row_without_a_label_is_explained():
    p = mc.ClassScores(
        "empty row", np.array([[0, 0, 0], [1, 0, 1]], bool), np.ones((2, 3)), tuple("abc")
    )
    lines, note = mc.row_explain_lines(p, 0)
    assert r"\text{LRAP}_{1} = 1" in lines[0]  # the first row, counted from 1 as on the page
    assert "Row 1 has no relevant label" in note
    table, values = mc.row_breakdown(p, 0)
    assert table["relevant"].sum() == 0
    assert values["lrap"] == 1.0
    assert np.isnan(values["ap"])


@st.composite
def _label_matrices(draw):
    """Multi-label tables with rows of no label, rows of every label, tied and zero weights."""
    n = draw(st.integers(1, 12))
    c = draw(st.integers(2, 4))
    y = np.array(draw(st.lists(st.lists(st.booleans(), min_size=c, max_size=c), min_size=n,
                               max_size=n)))  # fmt: skip
    if draw(st.booleans()):
        y[0] = False  # at least one row without a label
    s = np.array(draw(st.lists(st.sampled_from([0.0, 0.25, 0.5, 1.0]), min_size=n * c,
                               max_size=n * c))).reshape(n, c)  # fmt: skip
    w = None
    if draw(st.booleans()):
        w = np.array(draw(st.lists(st.sampled_from([0.0, 0.5, 1.0, 3.0]), min_size=n,
                                   max_size=n)))  # fmt: skip
        assume(w.sum() > 0)
    return y, s, w


@settings(max_examples=examples(150), deadline=None)
@given(_label_matrices())
def test_samples_ap_as_scikit_learn_counts_it(table):
    """The page shows scikit-learn's samples AP beside ours: rows without a label count as 0."""
    y, s, w = table
    sm = mc.summarize_averaging(mc.ClassScores("g", y, s, tuple("abcd"[: y.shape[1]]), weight=w))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = skm.average_precision_score(y.astype(int), s, average="samples", sample_weight=w)
    labelled_weight = (np.ones(len(y)) if w is None else w)[y.any(axis=1)].sum()
    if labelled_weight == 0:
        assert sm.samples_ap_sklearn == 0.0
    else:
        assert sm.samples_ap_sklearn == pytest.approx(want, rel=1e-12, abs=1e-12)

"""The Multi-label page's view modules (``ui.views.multilabel_*``) in the running app: each
shows the library's numbers."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

import metrics
from tests.apptest_utils import APP, markdown_text, metric_value, open_page
from ui.analyses import decision_rules as dr
from ui.compute import data
from ui.figures import multilabel_charts as mc
from ui.tables.roles import default_threshold
from ui.words.numbers import decimals

PAGE = "pages/multilabel.py"


def _quiet(fn, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*args, **kwargs)


def _problem(dataset: str) -> mc.ClassScores:
    return mc.problem_from_dataset(data.bundled_dataset(dataset))


def _table(at: AppTest, first: str, having: str):
    return next(
        d.value for d in at.dataframe if d.value.columns[0] == first and having in d.value.columns
    )


def test_digits_data_averages_curves_and_lrap():
    """multilabel_data, multilabel_averages and multilabel_lrap."""
    at = open_page(PAGE, "digits_multilabel")
    p = _problem("digits_multilabel")
    assert f"**{p.name}**: {p.n_rows:,} rows × 6 classes, multi-label." in markdown_text(at)
    ap = metrics.average_precision_score(p.y, p.scores, average="micro")
    at.segmented_control(key="multilabel_average").set_value("micro").run()
    assert metric_value(at, "AP (micro)") == mc.fmt(ap)
    band = metrics.compare_multiclass_models(p.y, {p.name: p.scores}, n_resamples=200,
                                             probabilities=False)  # fmt: skip
    iv = band.results["micro AP"].models[0]
    captions = [c.value for c in at.caption]
    assert any(f"AP (micro) [{decimals(iv.ci_low)}, {decimals(iv.ci_high)}]" in c for c in captions)
    assert any(f"ranks all {p.y.size:,} (row, class) cells" in c for c in captions)
    per_class = _table(at, "class", "weight w_c")
    np.testing.assert_array_equal(
        per_class["AUC"], metrics.roc_auc_score(p.y, p.scores, average=None)
    )
    lrap = metrics.label_ranking_average_precision_score(p.y, p.scores)
    assert metric_value(at, "LRAP") == mc.fmt(lrap)
    at.number_input(key="multilabel_row").set_value(4).run()
    assert at.dataframe[-1].value["relevant"].sum() == p.y[3].sum()


def test_a_worked_example_replaces_the_data():
    """multilabel_data's worked examples and multilabel_averages on them."""
    at = open_page(PAGE, "digits_multilabel")
    name, p = next(iter(mc.PRESETS.items()))
    at.segmented_control(key="multilabel_preset").set_value(name).run()
    assert not at.exception
    assert f"**{p.name}**: 4 rows × 3 classes, multi-label." in markdown_text(at)
    macro = metrics.average_precision_score(p.y, p.scores)
    assert metric_value(at, "mAP (macro AP)") == mc.fmt(macro)
    assert "multilabel_resamples" not in [s.key for s in at.selectbox]  # no intervals


def test_digits_rule_choice_results_and_thresholds():
    """multilabel_rule, multilabel_rule_results and multilabel_thresholds."""
    at = open_page(PAGE, "digits_multilabel")
    p = _problem("digits_multilabel")
    first = default_threshold("probability", p.y.ravel(), p.scores.ravel())
    assert at.slider(key="multilabel_threshold").value == first
    at.slider(key="multilabel_threshold").set_value(0.4).run()
    pred = p.scores >= 0.4
    for avg in dr.AVERAGES:
        f1 = _quiet(metrics.f1_score, p.y, pred, average=avg, zero_division=0)
        assert metric_value(at, f"F1 ({avg})") == dr.fmt(f1)
    assert metric_value(at, "subset accuracy") == dr.fmt(metrics.accuracy_score(p.y, pred))
    best = metrics.optimise_thresholds(p.y, p.scores, objective="macro")
    assert metric_value(at, "macro-F1, per-class thresholds") == dr.fmt(best.macro)
    at.button(key="multilabel_apply_macro").click().run()
    assert at.segmented_control(key="multilabel_rule_ml").value == "per-class thresholds"
    used = dr.finite_thresholds(p, best.thresholds)
    f1 = _quiet(metrics.f1_score, p.y, p.scores >= used, average="macro", zero_division=0)
    assert metric_value(at, "F1 (macro)") == dr.fmt(f1)


@pytest.fixture
def wine() -> AppTest:
    return open_page(PAGE, "wine_multiclass")


def test_wine_matrix_top_k_and_one_vs_one(wine):
    """multilabel_multiclass."""
    p = _problem("wine_multiclass")
    truth, labels = p.true_labels(), list(p.classes)
    topk = _table(wine, "k", "top-k accuracy")
    for k, value in zip(topk["k"], topk["top-k accuracy"], strict=True):
        want = metrics.top_k_accuracy_score(truth, p.scores, k=int(k), labels=labels)
        assert value == pytest.approx(want)
    ovo = metrics.roc_auc_score(np.argmax(p.y, axis=1), p.scores, multi_class="ovo")
    assert f"macro **{decimals(ovo)}**" in markdown_text(wine)


def test_wine_abstain_rule_and_costs(wine):
    """multilabel_rule (abstention), multilabel_rule_results and multilabel_costs."""
    p = _problem("wine_multiclass")
    truth, labels = p.true_labels(), list(p.classes)
    wine.segmented_control(key="multilabel_rule_mc").set_value(dr.MULTICLASS_RULES[1]).run()
    cut = wine.slider(key="multilabel_abstain").value
    assert cut == 0.5
    names = np.asarray(p.classes, dtype=object)[np.argmax(p.scores, axis=1)]
    pred = np.where(p.scores.max(axis=1) >= cut, names, dr.ABSTAINED)
    f1 = _quiet(metrics.f1_score, truth, pred, labels=labels, average="micro", zero_division=0)
    assert metric_value(wine, "F1 (micro)") == dr.fmt(f1)
    wine.selectbox(key="multilabel_cost_class").set_value("class_1").run()
    wine.number_input(key="multilabel_cost_miss").set_value(30.0).run()
    wine.button(key="multilabel_cost_set").click().run()
    cost = 1 - np.eye(3)
    cost[1, [0, 2]] = 30
    want = metrics.compare_cost_decisions(truth, p.scores, cost, labels=labels)
    assert metric_value(wine, "total cost, min cost") == f"{want.min_cost_mean * p.n_rows:,.6g}"
    assert metric_value(wine, "rows changing decision") == f"{want.changed:,}"
    changed = np.flatnonzero(want.min_cost_pred != want.argmax_pred)
    assert wine.number_input(key="multilabel_cost_row").value == changed[0] + 1


def test_presentation_mode_puts_the_cards_beside_the_bars():
    """multilabel_averages in presentation mode: the cards in one container, no intervals."""
    at = AppTest.from_file(APP, default_timeout=60)
    at.session_state["dataset"] = "digits_multilabel"
    at.session_state["_presenting"] = True
    at.switch_page(PAGE).run()
    assert not at.exception
    p = _problem("digits_multilabel")
    at.segmented_control(key="multilabel_average").set_value("weighted").run()
    ap = metrics.average_precision_score(p.y, p.scores, average="weighted")
    assert metric_value(at, "AP (weighted)") == mc.fmt(ap)
    assert not any("AP (weighted) [" in c.value for c in at.caption)
    assert not [s.value for s in at.subheader if s.value == "Averaging"]

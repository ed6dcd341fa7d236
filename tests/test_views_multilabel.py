"""The Multi-label page's pure pieces (``ui.analyses.multilabel_*`` and the page's words in
``ui.analyses.cost_matrix``): their numbers against the metrics library, no Streamlit."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
import sklearn.metrics as skm

import metrics
from ui.analyses import cost_matrix as cm
from ui.analyses import decision_rules as dr
from ui.analyses import multilabel_averages as ma
from ui.analyses import multilabel_rules as mr
from ui.analyses import multilabel_thresholds as mt
from ui.compute import data
from ui.figures import multilabel_charts as mc
from ui.tables.roles import default_threshold
from ui.words.numbers import decimals


def _quiet(fn, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*args, **kwargs)


@pytest.fixture(scope="module")
def digits() -> mc.ClassScores:
    return mc.problem_from_dataset(data.bundled_dataset("digits_multilabel"))


@pytest.fixture(scope="module")
def wine() -> mc.ClassScores:
    return mc.problem_from_dataset(data.bundled_dataset("wine_multiclass"))


@pytest.fixture(scope="module")
def digits_sm(digits) -> mc.AveragingSummary:
    return mc.summarize_averaging(digits)


@pytest.fixture(scope="module")
def wine_sm(wine) -> mc.AveragingSummary:
    return mc.summarize_averaging(wine)


def _multilabel(n: int = 60, seed: int = 3, empty: int | None = None) -> mc.ClassScores:
    rng = np.random.default_rng(seed)
    y = rng.random((n, 3)) < 0.4
    if empty is not None:
        y[:, empty] = False
    s = np.clip(0.35 * y + rng.random((n, 3)) * 0.65, 0, 1).round(3)
    return mc.ClassScores("ml", y, s, ("a", "b", "c"))


# --- ui.analyses.multilabel_averages --------------------------------------------------------------


def test_problem_line_names_the_size_and_kind(digits, wine):
    line = ma.problem_line(digits, weighted=False)
    assert line.startswith(f"**{digits.name}**: {digits.y.shape[0]:,} rows × 6 classes")
    assert line.endswith("multi-label.")
    assert ma.problem_line(wine, weighted=True).endswith(
        "multi-class (one label per row), sample-weighted."
    )


def test_notes_are_the_library_warnings_once_then_the_positions(digits, digits_sm):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        metrics.average_precision_score(digits.y, digits.scores, average="samples")
    lines = ma.notes(digits_sm, ("AP", "samples"), ("AP", "samples"))
    assert lines[:-1] == [f":material/warning: {m}" for m in dict.fromkeys(
        str(w.message) for w in caught)]  # fmt: skip
    assert "class positions 0 = even, 1 = prime" in lines[-1]
    assert ma.notes(digits_sm, ("AP", "macro")) == []


def test_resampled_unit():
    assert ma.resampled_unit(None) == "rows"
    assert ma.resampled_unit("user_id") == "whole user_id values"


@pytest.mark.parametrize("which", ["digits", "wine"])
def test_averaged_intervals_are_the_library_bootstrap(which, request):
    p = request.getfixturevalue(which)
    band = ma.averaged_intervals(p, 50, None)
    truth = p.true_labels() if p.multiclass else p.y
    want = metrics.compare_multiclass_models(
        truth, {p.name: p.scores}, classes=list(p.classes) if p.multiclass else None,
        n_resamples=50, probabilities=False,
    )  # fmt: skip
    for mode in ma.INTERVAL_MODES:
        caption = ma.averaged_intervals_caption(band, mode, 50, "rows")
        for metric in ("AP", "AUC"):
            iv = want.results[f"{mode} {metric}"].models[0]
            assert f"{metric} ({mode}) [{decimals(iv.ci_low)}, {decimals(iv.ci_high)}]" in caption
        assert caption.startswith("95% intervals (50 resamples of rows)")


def test_samples_caption_gives_scikit_learns_samples_ap(digits, digits_sm):
    sk = _quiet(skm.average_precision_score, digits.y, digits.scores, average="samples")
    unlabelled = int((~digits.y.any(axis=1)).sum())
    text = ma.samples_caption(digits_sm)
    assert text.startswith(f"{unlabelled:,} of {digits.n_rows:,} rows have no relevant label")
    assert f"**{mc.fmt(sk)}**" in text


def test_mode_explain_is_ap_then_auc(digits_sm):
    for mode in mc.MODES:
        lines, note = ma.mode_explain(digits_sm, mode)
        ap, ap_notes = mc.average_explain_lines(digits_sm, "AP", mode)
        auc, auc_notes = mc.average_explain_lines(digits_sm, "AUC", mode)
        assert lines == ap + auc
        assert note == (" ".join(dict.fromkeys([*ap_notes, *auc_notes])) or None)


def test_curves_caption_counts_cells_and_lists_undefined_classes():
    p = _multilabel(empty=1)
    sm = mc.summarize_averaging(p)
    ap = _quiet(metrics.average_precision_score, p.y, p.scores, average=None)
    missing = [c for c, v in zip(p.classes, ap, strict=True) if not np.isfinite(v)]
    assert missing == ["b"]
    text = ma.curves_caption(p, sm, "PR")
    assert f"all {p.y.size:,} (row, class) cells" in text
    assert text.endswith("Not drawn (undefined): b.")
    assert "micro AUC" in ma.curves_caption(p, sm, "ROC")


def test_top_k_table_and_explain_are_the_library(wine, wine_sm):
    truth = wine.true_labels()
    labels = list(wine.classes)
    got = ma.top_k_table(wine_sm)
    assert got["k"].tolist() == [1, 2, 3]
    for k, value in zip(got["k"], got["top-k accuracy"], strict=True):
        assert value == pytest.approx(
            metrics.top_k_accuracy_score(truth, wine.scores, k=int(k), labels=labels)
        )
    lines, note = ma.top_k_explain(wine_sm)
    counts = metrics.multiclass_confusion_matrix(truth, wine.scores, labels=labels)
    assert rf"\frac{{{int(np.trace(counts))}}}{{{int(counts.sum())}}}" in lines[1]
    accuracy = metrics.top_k_accuracy_score(truth, wine.scores, k=1, labels=labels)
    assert lines[1].endswith(mc.tex(accuracy))
    assert "Top-3 is 1" in note


def test_one_vs_one_is_the_library(wine):
    labels = np.argmax(wine.y, axis=1)
    ovo, ovr = ma.one_vs_one(wine)
    for avg in ("macro", "weighted"):
        want = metrics.roc_auc_score(labels, wine.scores, multi_class="ovo", average=avg)
        assert ovo[avg] == pytest.approx(want)
    assert ovr == pytest.approx(
        metrics.roc_auc_score(labels, wine.scores, multi_class="ovr", average="macro")
    )
    line = ma.one_vs_one_line(ovo, ovr)
    assert f"macro **{decimals(ovo['macro'])}**" in line
    assert line.endswith(f"one-vs-rest macro {decimals(ovr)}.")


def test_lrap_words_count_rows_and_give_scikit_learns_samples_ap(digits, digits_sm):
    sk = _quiet(skm.average_precision_score, digits.y, digits.scores, average="samples")
    assert f"counts it as 0, which gives {mc.fmt(sk)} here" in ma.lrap_text(digits_sm)
    none = int((~digits.y.any(axis=1)).sum())
    every = int(digits.y.all(axis=1).sum())
    assert ma.lrap_caption(digits_sm) == (
        f"Here: {none:,} of {digits.n_rows:,} rows without a relevant label, {every:,} with "
        "every label relevant."
    )


def test_not_per_class_names_the_dataset():
    assert ma.not_per_class("Breast cancer").startswith("Breast cancer has one score column")


# --- ui.analyses.multilabel_rules ----------------------------------------------------------------


def test_score_range_of_probabilities_and_of_margins(digits):
    sr = mr.score_range(digits)
    assert sr.scale.kind == "probability"
    assert (sr.bounds, sr.step, sr.abstain_default) == ((0.0, 1.0), 0.01, 0.5)
    want = default_threshold("probability", digits.y.ravel(), digits.scores.ravel())
    assert sr.default == want
    margins = mc.ClassScores("m", digits.y, np.log(digits.scores + 1e-3) * 3, digits.classes)
    sr = mr.score_range(margins)
    lo, hi = float(margins.scores.min()), float(margins.scores.max())
    assert sr.bounds == (lo, hi)
    assert sr.step == float(f"{(hi - lo) / 200:.2g}")
    assert sr.abstain_default == float(np.median(margins.scores))
    assert sr.floor == lo
    # the first threshold predicts about as many cells as there are positives
    assert (margins.scores >= sr.default).sum() >= margins.y.sum()


def test_typed_values_fall_back_on_empty_cells():
    cells = pd.Series([0.3, None, "x", 2])
    assert mr.typed_values(cells, 0.5) == (0.3, 0.5, 0.5, 2.0)


def test_input_notes_say_each_unusual_input():
    rng = np.random.default_rng(4)
    truth = rng.integers(0, 3, 30)
    y = np.eye(3, dtype=bool)[truth]
    y[:, 2] = False
    y[truth == 2, 0] = True
    s = rng.random((30, 3))
    s[2, 1] = np.nan
    p = mc.ClassScores("mc", y, s, ("a", "b", "c"), multiclass=True)
    lines = mr.input_notes(p, "probability", 3)
    sums = s.sum(axis=1)
    assert lines[0].startswith(f":material/info: Rows' scores sum to {sums.min():.3g}–")
    assert lines[1].startswith(":material/warning: c has no true row")
    assert "Some scores are missing (NaN)" in lines[2]
    assert lines[3].startswith("3 rows with a missing or bad label or score were dropped")
    p = mc.ClassScores("mc", y, s / np.nansum(s, axis=1, keepdims=True), p.classes)
    assert len(mr.input_notes(p, "probability", 0)) == 2  # a multi-label table may not sum to 1


@pytest.mark.parametrize("rule", [dr.Rule("shared", threshold=0.5), dr.Rule("top-k", k=2)])
def test_rule_intervals_and_cards_are_the_library(digits, rule):
    spread = mr.rule_intervals(digits, rule, 1.0, 40, None)
    pred = dr.indicator(digits, rule)
    want = metrics.decision_intervals(digits.y, pred, n_resamples=40)
    assert spread.intervals == want.intervals
    caption = mr.intervals_caption(spread, rule.single, 40, "rows")
    assert f"subset accuracy {dr.fmt(want.accuracy)} {dr.interval(want.accuracy_interval)}" in (
        caption
    )
    ev = dr.evaluate(digits, rule)
    cards = mr.cards(ev, rule, multiclass=False)
    for card, avg in zip(cards, dr.AVERAGES, strict=False):
        f1 = _quiet(metrics.f1_score, digits.y, pred, average=avg, zero_division=0)
        assert (card.label, card.value) == (f"F1 ({avg})", dr.fmt(f1))
    assert cards[4].label == "subset accuracy"
    assert cards[4].value == dr.fmt(metrics.accuracy_score(digits.y, pred))


def test_the_last_card_of_a_multiclass_top_k_is_top_k_accuracy(wine):
    ev = dr.evaluate(wine, dr.Rule("top-k", k=2))
    last = mr.cards(ev, dr.Rule("top-k", k=2), multiclass=True)[4]
    truth = wine.true_labels()
    want = metrics.top_k_accuracy_score(truth, wine.scores, k=2, labels=list(wine.classes))
    assert (last.label, last.value) == ("top-2 accuracy", dr.fmt(want))
    ev = dr.evaluate(wine, dr.Rule("argmax"))
    last = mr.cards(ev, dr.Rule("argmax"), multiclass=True)[4]
    pred = np.asarray(wine.classes)[np.argmax(wine.scores, axis=1)]
    assert (last.label, last.value) == ("accuracy", dr.fmt(metrics.accuracy_score(truth, pred)))


def test_rule_captions():
    assert mr.averages_caption(True).endswith("not defined for one label per row.")
    assert mr.averages_caption(False).endswith("with that average.")
    assert mr.resamples_help("user_id").endswith("Whole user_id values are resampled.")
    assert mr.resamples_help(None).endswith("Rows are resampled.")
    assert mr.per_class_caption(True).startswith("Support and TP/FP/FN/TN are sums")
    assert mr.per_class_caption(False).startswith("Support: true rows")


def test_evaluation_notes_are_the_library_warnings_once():
    p = _multilabel(empty=2)
    ev = dr.evaluate(p, dr.Rule("shared", threshold=0.5))
    lines = mr.evaluation_notes(ev)
    assert lines
    assert len(lines) == len(set(lines))
    assert all(line.startswith(":material/warning: ") for line in lines)


# --- ui.analyses.multilabel_thresholds ------------------------------------------------------------


def test_choices_cards_and_caption_are_the_library():
    p = _multilabel(n=80)
    best, micro = mt.choices(p, 2.0)
    want = metrics.optimise_thresholds(p.y, p.scores, objective="macro", beta=2.0)
    np.testing.assert_array_equal(best.thresholds, want.thresholds)
    want_micro = metrics.optimise_thresholds(p.y, p.scores, objective="micro", beta=2.0)
    assert micro.micro == want_micro.micro
    cards = mt.choice_cards(p, best, micro, "F2")
    assert [c.value for c in cards] == [
        dr.fmt(want.macro), dr.fmt(want.shared_value), dr.fmt(want_micro.micro),
        dr.fmt(want_micro.shared_value),
    ]  # fmt: skip
    assert cards[0].delta == f"{decimals(want.gain, plus=True)} vs one shared"
    caption = mt.choice_caption(p, best, micro)
    assert f"took {want_micro.rounds} pass" in caption
    assert f"{dr.typed_cut(p.scores, want.shared_threshold):g} for macro" in caption


def test_halves_cards_and_caption_are_the_library():
    p = _multilabel(n=80)
    split = mt.halves(p, 1.0, 0)
    want = {
        obj: metrics.choose_on_half(p.y, p.scores, objective=obj, seed=0)
        for obj in ("macro", "micro")
    }
    cards = mt.half_cards(split, "F1")
    for i, obj in enumerate(("macro", "micro")):
        assert cards[2 * i].value == dr.fmt(want[obj].choice.value)
        assert cards[2 * i + 1].value == dr.fmt(want[obj].report_value)
        assert cards[2 * i + 1].delta == f"{decimals(-want[obj].optimism, plus=True)} vs in-sample"
    caption = mt.half_caption(split)
    assert caption.startswith(
        f"Rows split at random (seed 0): {want['macro'].chosen_rows.size:,} to choose, "
        f"{want['macro'].report_rows.size:,} to report."
    )
    for obj in ("macro", "micro"):
        gain = want[obj].report_gain
        verb = "beat" if gain > 0 else "lose to" if gain < 0 else "tie"
        assert (
            f"{verb} the shared one"
            + (f" by {decimals(abs(gain))}" if gain else "")
            + (f" ({obj})")
            in caption
        )
    assert "**the exact maximum of macro-F2**" in mt.method_text("F2")


# --- ui.analyses.cost_matrix: the page's words ----------------------------------------------------


def test_kept_cost_keeps_a_matrix_of_the_right_shape():
    kept = [[0, 2], [1, 0]]
    np.testing.assert_array_equal(cm.kept_cost(kept, 2), np.asarray(kept, dtype=float))
    np.testing.assert_array_equal(cm.kept_cost(kept, 3), cm.default_cost(3))
    np.testing.assert_array_equal(cm.kept_cost(None, 2), cm.default_cost(2))
    assert cm.shortcut_only(12).startswith(f"With 12 classes ({cm.MAX_EDITABLE} at most")


def test_cost_cards_and_changed_rows_are_the_library(wine):
    cost = cm.default_cost(3)
    cost[1, 0] = 20
    res = cm.compare(wine, wine.scores, cost)
    want = metrics.compare_cost_decisions(wine.true_labels(), wine.scores, cost)
    n = wine.n_rows
    cards = cm.cards(res, n, weighted=False)
    assert [c.value for c in cards] == [
        f"{want.argmax_mean * n:,.6g}", f"{want.min_cost_mean * n:,.6g}",
        dr.fmt(want.argmax_mean), dr.fmt(want.min_cost_mean), f"{want.changed:,}",
    ]  # fmt: skip
    assert cards[0].help.endswith("over the rows.")
    assert cm.cards(res, n, weighted=True)[0].help.endswith("(× sample weight).")
    changed = np.flatnonzero(want.min_cost_pred != want.argmax_pred)
    assert changed.size > 0
    assert cm.first_changed(res) == changed[0] + 1
    listed = ", ".join(str(i + 1) for i in changed[:12])
    assert cm.changed_caption(res).startswith(f"Rows whose decision changes: {listed}")
    same = cm.compare(wine, wine.scores, cm.default_cost(3))
    assert cm.first_changed(same) == 1
    assert cm.changed_caption(same) == "No row's decision changes with these costs."

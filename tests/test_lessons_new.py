"""The lessons on F1 averaging (micro, macro, samples), per-class thresholds, cost curves and
calibration: over many seeds each answer equals an independent computation (scikit-learn as
the oracle, brute force where it has none), the check accepts the answer as 0.75, 3/4 or 75%
and refuses a wrong one, the worked solution shows the answer; and the page offers and renders
the new topics (AppTest)."""

from __future__ import annotations

import itertools
import re
from fractions import Fraction

import numpy as np
import pytest
from sklearn.calibration import calibration_curve
from sklearn.metrics import accuracy_score, f1_score, recall_score, roc_auc_score, roc_curve

from tests.apptest_utils import latex, open_page
from ui.teaching import lessons
from ui.teaching.exercise import Exercise, check_answer
from ui.teaching.lessons import BY_KEY
from ui.words.text import num

PAGE = "pages/lessons.py"
SEEDS = range(40)
NEW = ("rare_class", "micro_accuracy", "samples_empty", "class_thresholds", "cost_curve",
       "calibration")  # fmt: skip


def _accepts_and_refuses(ex: Exercise, wrong: tuple[float, ...] = ()) -> None:
    """The check takes the exact answer as a number, a decimal, a percentage and (when it is a
    small fraction) a fraction; it refuses numbers off by 0.02 and the given wrong answers;
    the derivation shows the answer."""
    answer = float(ex.answer)
    for form in (answer, f"{answer:.4f}", f"{100 * answer:.3f}%"):
        assert check_answer(ex, form).correct, form
    exact = Fraction(answer).limit_denominator(400)
    if abs(float(exact) - answer) < 1e-12:
        assert check_answer(ex, f"{exact.numerator}/{exact.denominator}").correct
    for off in (answer + 0.02, answer - 0.02, *wrong):
        assert check_answer(ex, off).correct is False, off
    assert num(answer) in " ".join(ex.derivation)


def _indicator(cells, names="ABC") -> np.ndarray:
    return np.array([[int(c in {x.strip() for x in cell.split(",")}) for c in names]
                     for cell in cells])  # fmt: skip


# --- micro vs macro F1 with a rare class ----------------------------------------------------------


@pytest.mark.parametrize("seed", SEEDS)
def test_rare_class_macro_falls_micro_barely_moves(seed):
    ex = BY_KEY["rare_class"].make(seed)
    y, p = ex.table["true"].to_numpy(), ex.table["predicted"].to_numpy()
    macro = f1_score(y, p, average="macro", zero_division=0)
    micro = f1_score(y, p, average="micro", zero_division=0)
    per_class = f1_score(y, p, labels=["A", "B", "C"], average=None, zero_division=0)
    assert 1 <= np.sum(y == "C") <= 2
    assert not np.any((y == "C") & (p == "C"))  # the model never finds the rare class
    assert per_class[2] == 0
    assert micro > macro
    # Without the rare class the macro average would be close to micro: C is what drags it.
    assert abs(np.mean(per_class[:2]) - micro) < micro - macro
    expected = micro - macro if "How much higher" in ex.question else macro
    assert ex.answer == pytest.approx(expected, abs=1e-12)
    assert ex.facts["micro F1"] == pytest.approx(micro)
    _accepts_and_refuses(ex, wrong=(micro,) if abs(micro - expected) > 0.01 else ())


# --- micro F1 = accuracy ---------------------------------------------------------------------------


def test_micro_accuracy_worked_example_is_scikit_learns():
    ex = BY_KEY["micro_accuracy"].make(0)
    assert ex.table["true"].tolist() == [0, 1, 2, 0, 1, 2]
    assert ex.table["predicted"].tolist() == [0, 2, 1, 0, 0, 1]
    assert ex.answer == pytest.approx(1 / 3)  # scikit-learn's docstring: micro 0.33
    assert ex.facts["macro F1"] == pytest.approx(0.267, abs=5e-4)  # and macro 0.267
    assert check_answer(ex, "1/3").correct
    assert check_answer(ex, "33.3%").correct
    assert not check_answer(ex, "0.267").correct


@pytest.mark.parametrize("seed", SEEDS)
def test_micro_f1_equals_accuracy(seed):
    ex = BY_KEY["micro_accuracy"].make(seed)
    y, p = ex.table["true"].to_numpy(), ex.table["predicted"].to_numpy()
    micro = f1_score(y, p, average="micro")
    assert ex.answer == pytest.approx(micro, abs=1e-12)
    assert ex.answer == pytest.approx(accuracy_score(y, p), abs=1e-12)
    macro = f1_score(y, p, average="macro", zero_division=0)
    assert ex.facts["macro F1"] == pytest.approx(macro)
    wrong = np.sum(y != p)
    assert any(rf"\sum FP = \sum FN = {wrong}" in line for line in ex.derivation)
    _accepts_and_refuses(ex, wrong=(macro,) if abs(macro - micro) > 0.01 else ())


# --- samples averaging and rows with no true label ------------------------------------------------


def test_samples_worked_example_is_scikit_learns_multilabel_table():
    ex = BY_KEY["samples_empty"].make(0)
    y = _indicator(ex.table["true labels"])
    p = _indicator(ex.table["predicted labels"])
    assert y.tolist() == [[0, 0, 0], [1, 1, 1], [0, 1, 1]]
    assert p.tolist() == [[0, 0, 0], [1, 1, 1], [1, 1, 0]]
    assert ex.answer == pytest.approx(5 / 6)  # (1 + 1 + 1/2) / 3 with zero_division=1
    assert ex.facts["samples F1, zero_division=0"] == pytest.approx(1 / 2)
    assert check_answer(ex, "5/6").correct
    assert not check_answer(ex, "0.5").correct


@pytest.mark.parametrize("seed", SEEDS)
def test_samples_average_equals_scikit_learn(seed):
    ex = BY_KEY["samples_empty"].make(seed)
    y = _indicator(ex.table["true labels"])
    p = _indicator(ex.table["predicted labels"])
    metric, zd = re.search(r"samples-averaged (\w+) with zero_division=(\d)", ex.question).groups()
    score = {"F1": f1_score, "recall": recall_score}[metric]
    expected = score(y, p, average="samples", zero_division=int(zd))
    assert ex.answer == pytest.approx(expected, abs=1e-12)
    other = score(y, p, average="samples", zero_division=1 - int(zd))
    assert ex.facts[f"samples {metric}, zero_division={1 - int(zd)}"] == pytest.approx(other)
    empty = (y.sum(axis=1) == 0) & (p.sum(axis=1) == 0)
    assert empty.any()  # a row with nothing true and nothing predicted: 0/0
    assert other != pytest.approx(expected)  # so zero_division moves the answer
    assert any(r"\frac{0}{0} \to " + zd in line for line in ex.derivation)
    _accepts_and_refuses(ex, wrong=(other,))


# --- per-class thresholds --------------------------------------------------------------------------


def _thresholds_table(ex) -> tuple[np.ndarray, np.ndarray]:
    y = ex.table[[f"label_{c}" for c in "ABC"]].to_numpy()
    s = ex.table[[f"score_{c}" for c in "ABC"]].to_numpy()
    return y, s


def _f1_at(y_col, s_col, t) -> float:
    return f1_score(y_col, (s_col >= t).astype(int), zero_division=0)


@pytest.mark.parametrize("seed", SEEDS)
def test_class_thresholds_against_brute_force(seed):
    ex = BY_KEY["class_thresholds"].make(seed)
    y, s = _thresholds_table(ex)
    candidates = [[np.inf, *sorted(set(s[:, j]))] for j in range(3)]
    if ex.kind == "choice":
        j = "ABC".index(re.search(r"class (\w)", ex.question).group(1))
        f1 = {t: _f1_at(y[:, j], s[:, j], t) for t in candidates[j]}
        best = max(f1.values())
        winners = [t for t, v in f1.items() if v == best]
        assert len(winners) == 1  # the question has one right answer
        assert ex.answer == f"{winners[0]:g}"
        assert set(ex.options) == {f"{t:g}" for t in candidates[j][1:]}
        for option in ex.options:
            assert check_answer(ex, option).correct is (option == ex.answer)
        assert f"t = {ex.answer}" in ex.derivation[-1]
        return
    # The gain: the best macro-F1 over every combination of per-class thresholds, against the
    # best over one threshold shared by all three, both by brute force with scikit-learn.
    f1 = [{t: _f1_at(y[:, j], s[:, j], t) for t in candidates[j]} for j in range(3)]
    per_class = max(
        np.mean([f1[j][combo[j]] for j in range(3)]) for combo in itertools.product(*candidates)
    )
    shared = max(
        np.mean([_f1_at(y[:, j], s[:, j], t) for j in range(3)])
        for t in sorted({np.inf, *s.ravel()})
    )
    assert ex.answer == pytest.approx(per_class - shared, abs=1e-12)
    assert ex.answer >= 0.01
    _accepts_and_refuses(ex, wrong=(per_class,))


# --- cost curves -----------------------------------------------------------------------------------


@pytest.mark.parametrize("seed", SEEDS)
def test_cost_curve_against_every_threshold(seed):
    ex = BY_KEY["cost_curve"].make(seed)
    y, s = ex.table["label"].to_numpy(), ex.table["score"].to_numpy()
    x = float(re.search(r"PC\(\+\) = ([0-9.]+)", ex.question).group(1))
    # Every threshold's operating line at x, treating none (the +inf point) and all included.
    fpr, tpr, thresholds = roc_curve(y, s, drop_intermediate=False)
    nec = (1 - tpr) * x + fpr * (1 - x)
    assert np.isinf(thresholds[0])
    assert nec[0] == pytest.approx(x)
    assert nec[-1] == pytest.approx(1 - x)  # all: cost 1 - x
    envelope = nec.min()
    assert 0 < envelope <= min(x, 1 - x) + 1e-12
    assert 0.7 <= roc_auc_score(y, s) < 1  # a useful model, not a perfect one
    assert ex.facts[f"cost curve at {x:g}"] == pytest.approx(envelope, abs=1e-12)
    if "Operating at threshold" in ex.question:
        t = float(re.search(r"threshold ([0-9.]+)", ex.question).group(1))
        expected = nec[np.flatnonzero(thresholds == t)[0]]
        wrong = (envelope,) if abs(expected - envelope) > 0.01 else ()
    else:
        expected, wrong = envelope, (x,) if x - envelope > 0.01 else ()
    assert ex.answer == pytest.approx(expected, abs=1e-12)
    _accepts_and_refuses(ex, wrong=wrong)


# --- calibration ------------------------------------------------------------------------------------


def _binned_by_hand(y, p, n_bins):
    """Per non-empty bin (edges[b], edges[b+1]], the first closed at 0: rows, with the positive
    rate and mean prediction from scikit-learn's calibration_curve."""
    edges = np.linspace(0, 1, n_bins + 1)
    sizes = []
    for b in range(n_bins):
        low_ok = p >= edges[b] if b == 0 else p > edges[b]
        sizes.append(int(np.sum(low_ok & (p <= edges[b + 1]))))
    sizes = np.array([m for m in sizes if m])
    prob_true, prob_pred = calibration_curve(y, p, n_bins=n_bins)
    return sizes, prob_true, prob_pred


def test_calibration_worked_example_is_scikit_learns():
    ex = BY_KEY["calibration"].make(0)
    assert ex.answer == pytest.approx((3 * 0.2 + 2 * 0.025 + 4 * 0.15) / 9)
    assert check_answer(ex, "0.139").correct
    assert not check_answer(ex, "0.2").correct  # the MCE, not the ECE
    assert ex.facts["MCE"] == pytest.approx(0.2)


@pytest.mark.parametrize("seed", SEEDS)
def test_calibration_against_calibration_curve(seed):
    ex = BY_KEY["calibration"].make(seed)
    y, p = ex.table["label"].to_numpy(), ex.table["probability"].to_numpy()
    n_bins = int(re.search(r"over (\d+) equal bins", ex.question).group(1))
    sizes, prob_true, prob_pred = _binned_by_hand(y, p, n_bins)
    assert sizes.sum() == len(y)
    gap = np.abs(prob_true - prob_pred)
    ece = float(np.sum(sizes / len(y) * gap))
    mce = float(gap.max())
    reliability = float(np.sum(sizes / len(y) * gap**2))
    expected = {"expected": ece, "maximum": mce, "reliability": reliability}[
        re.search(r"the (expected|maximum|reliability)", ex.question).group(1)
    ]
    assert ex.answer == pytest.approx(expected, abs=1e-12)
    assert ex.facts["ECE"] == pytest.approx(ece)
    assert ex.facts["MCE"] == pytest.approx(mce)
    others = [v for v in (ece, mce, reliability) if abs(v - expected) > 0.01]
    _accepts_and_refuses(ex, wrong=tuple(others))


# --- every new lesson: seeded, public names ------------------------------------------------------


@pytest.mark.parametrize("key", NEW)
def test_new_lessons_cite_a_public_source(key):
    lesson = BY_KEY[key]
    assert lesson.source
    assert lesson.topic in lessons.TOPICS[7:]
    for seed in range(6):
        ex = lesson.make(seed)
        assert ex.table.equals(lesson.make(seed).table)
        for text in (lesson.title, lesson.source, ex.context, ex.note, ex.question):
            assert not re.search(r"\.py\b|(?<!sklearn\.)metrics\.|ui/|tests/", text), text


# --- the page ---------------------------------------------------------------------------------------


def test_page_offers_the_new_topics():
    at = open_page(PAGE)
    options = at.selectbox(key="lessons_pick").options
    for topic in ("Micro, macro and samples F1", "Per-class thresholds", "Cost curves",
                  "Calibration"):  # fmt: skip
        assert any(option.startswith(topic + " · ") for option in options), topic


@pytest.mark.parametrize("key", NEW)
def test_page_checks_a_new_lesson_and_derives_it(key):
    at = open_page(PAGE)
    at.selectbox(key="lessons_pick").set_value(key).run()
    assert not at.exception
    ex = BY_KEY[key].make(0)
    assert at.dataframe[0].value.equals(ex.table)
    if ex.kind == "choice":
        at.radio(key=f"lessons_answer_{key}_0").set_value(ex.answer)
    else:
        at.text_input(key=f"lessons_answer_{key}_0").input(f"{100 * ex.answer:.2f}%")
    at.button(key="lessons_check").click().run()
    assert not at.exception
    assert at.success
    assert at.success[0].value.startswith("Right")
    assert num(float(ex.answer)) in " ".join(latex(at)) or ex.kind == "choice"
    captions = " ".join(c.value for c in at.caption)
    source = "Worked example" if BY_KEY[key].worked else "Source:"
    assert source in captions
    facts = at.dataframe[-1].value
    assert list(facts["what"]) == list(ex.facts)
    charts = {"cost_curve": 2, "calibration": 1}.get(key, 0)  # ROC + cost curve; reliability
    assert len(at.get("plotly_chart")) == charts


def test_cost_and_reliability_figures_show_the_lessons_numbers():
    cost = BY_KEY["cost_curve"].make(0)
    x = float(re.search(r"PC\(\+\) = ([0-9.]+)", cost.question).group(1))
    marked = next(t for t in cost.figure.data if t.name.startswith("the answer"))
    assert list(marked.x) == [x]
    assert list(marked.y) == [pytest.approx(cost.answer)]
    reliability = BY_KEY["calibration"].make(0)
    line = next(t for t in reliability.figure.data if t.name == "this table, 3 bins")
    assert list(line.x) == pytest.approx([0.2, 0.525, 0.85])  # scikit-learn's prob_pred
    assert list(line.y) == pytest.approx([0, 0.5, 1])  # and prob_true

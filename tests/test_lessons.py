"""Lessons: answers checked right and wrong with the tolerance, the worked examples' numbers
(computed by the library), seeded examples, and the page headless (AppTest)."""

from __future__ import annotations

import re

import numpy as np
import pytest

import metrics
from tests.apptest_utils import latex, open_page
from ui.teaching import lessons, ranking_lessons
from ui.teaching.exercise import check_answer, parse_number
from ui.teaching.lessons import BY_KEY

PAGE = "pages/lessons.py"


@pytest.mark.parametrize(
    ("text", "value"),
    [("0.83", 0.83), (".5", 0.5), ("0,75", 0.75), ("75%", 0.75), ("5/6", 5 / 6),
     ("99.99 %", 0.9999), ("−0.5", -0.5), ("", None), ("abc", None), ("1/0", None)],
)  # fmt: skip
def test_parse_number(text, value):
    got = parse_number(text)
    assert got == (pytest.approx(value) if value is not None else None)


def test_step_ap_answers_right_and_wrong_within_the_tolerance():
    ex = BY_KEY["ap_step"].make(0)
    assert ex.answer == pytest.approx(5 / 6)
    for right in ("0.83", "5/6", "83.3%", "0.8383"):
        assert check_answer(ex, right).correct, right
    for wrong in ("0.82", "0.7917", "0.84", "1"):
        verdict = check_answer(ex, wrong)
        assert verdict.correct is False, wrong
        assert "the answer is 0.8333 = 5/6" in verdict.message
    assert check_answer(ex, "five sixths").correct is None
    assert "within 0.005" in check_answer(ex, "0.83").message


def test_trapezoid_and_voc_answers():
    trapezoid = BY_KEY["ap_trapezoid"].make(0)
    assert round(trapezoid.answer, 4) == 0.7917
    assert trapezoid.facts["Step"] == pytest.approx(5 / 6)
    assert check_answer(trapezoid, "0.79").correct
    assert not check_answer(trapezoid, "0.8333").correct  # the step value is not the trapezoid
    voc = BY_KEY["ap_voc11"].make(0)
    assert voc.answer == metrics.average_precision_score(
        [1, 0, 1, 0], [1, 0.8, 0.6, 0.4], method="voc11"
    )
    assert voc.answer == pytest.approx((6 * 1 + 5 * 2 / 3) / 11)


def test_accuracy_paradox_has_a_tight_tolerance():
    ex = BY_KEY["accuracy"].make(0)
    assert ex.answer == pytest.approx(0.9999)
    assert ex.facts["recall"] == 0.0
    assert check_answer(ex, "99.99%").correct
    assert check_answer(ex, "0.9999").correct
    assert not check_answer(ex, "1").correct
    assert not check_answer(ex, "0.999").correct


def test_auc_worked_examples():
    assert BY_KEY["auc_pairs"].make(0).answer == 0.75
    assert BY_KEY["auc_tie"].make(0).answer == 0.875
    ranks = BY_KEY["auc_ranks"].make(0)
    assert ranks.answer == pytest.approx(10 / 12)
    assert any("10" in line and "12" in line for line in ranks.derivation)
    assert check_answer(ranks, "10/12").correct
    assert not check_answer(ranks, "0.875").correct


def test_three_rows_precision_one_half_recall_one():
    ex = BY_KEY["three_rows"].make(0)
    assert ex.answer == 0.5
    assert ex.facts["recall"] == 1.0
    assert check_answer(ex, "1/2").correct
    assert not check_answer(ex, "1").correct


def test_multilabel_map_and_weighted():
    ex = BY_KEY["map_1112"].make(0)
    assert ex.answer == pytest.approx(11 / 12)
    assert ex.facts["weighted"] == pytest.approx(13 / 14)


def test_gauc_skips_the_single_class_user():
    ex = BY_KEY["gauc_skip"].make(0)
    y, s, users = ranking_lessons._classic_users()
    assert ex.answer == metrics.group_auc_score(y, s, users)
    assert any("only positives: skipped" in line for line in ex.derivation)
    # the skipped user's rows would change the average if they counted
    kept = users != "d"
    assert ex.answer == pytest.approx((4 * 0.75 + 4 * 0.875 + 7 * 10 / 12) / 15)
    assert ex.answer == metrics.group_auc_score(y[kept], s[kept], users[kept])


def test_ir_map_is_0_64_from_0_83_and_0_45():
    ex = BY_KEY["ir_map"].make(0)
    assert round(ex.answer, 2) == 0.64
    assert [round(v, 2) for v in ex.facts.values()] == [0.83, 0.45]
    assert check_answer(ex, "0.64").correct
    assert not check_answer(ex, "0.83").correct


@pytest.mark.parametrize("seed", range(4))
def test_imbalance_lesson_ap_drops_auc_stays(seed):
    ex = BY_KEY["imbalance"].make(seed)
    assert ex.answer == "AP (PR AUC)"
    auc = [v for k, v in ex.facts.items() if k.startswith("ROC AUC")]
    ap = [v for k, v in ex.facts.items() if k.startswith("AP")]
    assert abs(auc[1] - auc[0]) < 0.02
    assert ap[0] - ap[1] > 0.2
    assert check_answer(ex, "AP (PR AUC)").correct
    assert not check_answer(ex, "ROC AUC").correct


@pytest.mark.parametrize("seed", range(4))
def test_reversal_lesson_reverses(seed):
    y, scores, users = ranking_lessons._reversal_data(seed)
    glob = {m: metrics.roc_auc_score(y, v) for m, v in scores.items()}
    gauc = {m: metrics.group_auc_score(y, v, users) for m, v in scores.items()}
    assert glob["model_a"] > glob["model_b"]
    assert gauc["model_b"] > gauc["model_a"]
    assert BY_KEY["gauc_reversal"].make(seed).answer == "model_b"


@pytest.mark.parametrize("lesson", lessons.LESSONS, ids=lambda lesson: lesson.key)
def test_every_lesson_is_seeded_and_answerable(lesson):
    for seed in range(5):
        ex = lesson.make(seed)
        again = lesson.make(seed)
        assert ex.table.equals(again.table)
        assert ex.answer == again.answer
        assert (ex.derivation and ex.question.endswith("?")) or "?" in ex.question
        if ex.kind == "choice":
            assert ex.answer in ex.options
        else:
            assert np.isfinite(ex.answer)
            assert check_answer(ex, ex.answer).correct
            assert not check_answer(ex, ex.answer + 3 * ex.tolerance + 0.01).correct
    assert not lesson.make(1).table.equals(lesson.make(2).table) or lesson.key == "accuracy"


def test_names_are_public():
    """Lessons are named by what they show, never by our file names."""
    for lesson in lessons.LESSONS:
        ex = lesson.make(0)
        for text in (lesson.title, lesson.source, ex.context, ex.note, ex.question):
            assert not re.search(r"seed ?0|\.txt|00\d_", text, re.I), text
    worked = [lesson.title for lesson in lessons.LESSONS if lesson.worked]
    assert len(worked) >= 10
    assert all(lesson.source for lesson in lessons.LESSONS if lesson.worked)


# --- the page ---------------------------------------------------------------------------------


def test_page_checks_answers_and_reveals_the_derivation():
    at = open_page(PAGE)
    at.selectbox(key="lessons_pick").set_value("ap_step").run()
    assert not at.exception
    assert not at.main.expander  # nothing revealed before an answer
    at.text_input(key="lessons_answer_ap_step_0").input("0.9")
    at.button(key="lessons_check").click().run()
    assert not at.exception
    assert at.error[0].value.startswith("Not quite: you said 0.9")  # a hint, a second try
    assert not at.main.expander
    at.text_input(key="lessons_answer_ap_step_0").input("0.95")
    at.button(key="lessons_check").click().run()
    assert "Not quite: the answer is 0.8333 = 5/6" in at.error[0].value
    assert any(r"\frac{1}{2}" in line or "0.5" in line for line in latex(at))
    at.text_input(key="lessons_answer_ap_step_0").input("5/6")
    at.button(key="lessons_check").click().run()
    assert at.success[0].value.startswith("Right: 0.8333")
    assert len(at.get("plotly_chart")) == 2  # ROC and PR of the table


def test_page_new_example_draws_another_seeded_table():
    at = open_page(PAGE)
    at.selectbox(key="lessons_pick").set_value("auc_tie").run()
    first = at.dataframe[0].value
    at.button(key="lessons_new").click().run()
    assert not at.exception
    second = at.dataframe[0].value
    assert not first.equals(second)
    assert second.equals(BY_KEY["auc_tie"].make(1).table)
    at.button(key="lessons_first").click().run()
    assert at.dataframe[0].value.equals(first)


@pytest.mark.parametrize("lesson", lessons.LESSONS, ids=lambda lesson: lesson.key)
def test_page_opens_every_lesson_and_reveals(lesson):
    at = open_page(PAGE)
    at.selectbox(key="lessons_pick").set_value(lesson.key).run()
    at.button(key="lessons_reveal").click().run()
    assert not at.exception
    assert at.main.expander
    assert at.latex
    if lesson.make(0).kind == "choice":
        at.radio(key=f"lessons_answer_{lesson.key}_0").set_value(lesson.make(0).answer)
        at.button(key="lessons_check").click().run()
        assert at.success, lesson.key

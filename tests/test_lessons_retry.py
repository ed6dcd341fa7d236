"""Lessons let a class try again: a wrong answer gets a hint aimed at the misconception and a
second try; the answer comes after the second miss, on 'Show me', or on the first miss with
'Reveal on first miss' on (self-study). Every lesson has a hint, and each known wrong value
(a tie counted 0 or 1, the other averaging mode, the swapped rate...) is told what it missed."""

from __future__ import annotations

import pytest

from tests.apptest_utils import open_page
from ui.teaching import exercise, lessons
from ui.teaching.exercise import check_answer
from ui.teaching.lessons import BY_KEY

PAGE = "pages/lessons.py"
SEEDS = range(6)


# --- the hints and the traps (no Streamlit) -----------------------------------------------------


@pytest.mark.parametrize("lesson", lessons.LESSONS, ids=lambda lesson: lesson.key)
def test_every_lesson_has_a_hint_that_does_not_give_the_answer(lesson):
    for seed in SEEDS:
        ex = lesson.make(seed)
        assert len(ex.hint) > 40, (lesson.key, seed, ex.hint)
        if ex.kind == "number":  # a decimal answer (0.875) never sits in its own hint
            answer = exercise._show(float(ex.answer)).split(" = ")[0]
            assert len(answer) < 4 or answer not in ex.hint, (lesson.key, seed, ex.hint)
        for value, hint in ex.traps:
            assert hint
            if ex.kind == "number":  # a trap never calls the right answer wrong
                assert abs(float(value) - float(ex.answer)) > ex.tolerance, (lesson.key, seed)


@pytest.mark.parametrize("lesson", lessons.LESSONS, ids=lambda lesson: lesson.key)
def test_a_wrong_answer_gets_the_hint_and_not_the_answer_until_revealed(lesson):
    for seed in SEEDS:
        ex = lesson.make(seed)
        if ex.kind == "choice":
            wrong = next(o for o in ex.options if o != ex.answer)
            shown = ex.answer
        else:
            wrong = float(ex.answer) + 0.37
            shown = exercise._show(float(ex.answer))
        hidden = check_answer(ex, wrong, reveal=False)
        assert hidden.correct is False
        assert hidden.hint
        assert "the answer is" not in hidden.message, hidden.message
        told = check_answer(ex, wrong)
        assert f"the answer is {shown}" in told.message
        assert check_answer(ex, ex.answer, reveal=False).correct


def test_auc_with_ties_names_the_half():
    ex = BY_KEY["auc_tie"].make(0)  # positives 0.4, 0.8; negatives 0.1, 0.4: 3.5 of 4 pairs
    assert "a tied pair counts one half" in ex.hint.lower()
    as_zero = check_answer(ex, "0.75", reveal=False)  # the tie counted as a loss
    assert as_zero.hint == "A tied pair counts one half, not 0."
    as_one = check_answer(ex, "1", reveal=False)  # the tie counted as a win
    assert as_one.hint == "A tied pair counts one half, not 1."
    other = check_answer(ex, "0.6", reveal=False)  # no known mistake: the lesson's hint
    assert other.hint == ex.hint
    assert "0.875" not in as_zero.message + as_one.message + other.message


def test_traps_name_the_misconception_their_value_shows():
    macro = BY_KEY["map_1112"].make(0)  # the macro question: the micro value is a trap
    assert check_answer(macro, macro.facts["micro"], reveal=False).hint.startswith(
        "That is the micro average"
    )
    trapezoid = BY_KEY["ap_trapezoid"].make(0)  # the step value 5/6 is not the trapezoid
    assert check_answer(trapezoid, "5/6", reveal=False).hint.startswith(
        "That is AP by the Step method"
    )
    three = BY_KEY["three_rows"].make(0)  # precision 1: the tie at 0.5 left out
    assert "at the threshold" in check_answer(three, "1", reveal=False).hint
    gauc = BY_KEY["gauc_skip"].make(0)
    assert "all rows together" in check_answer(gauc, gauc.facts["global AUC"], reveal=False).hint


# --- the page -------------------------------------------------------------------------------------


def _answer(at, key: str, text: str):
    at.text_input(key=f"lessons_answer_{key}_0").input(text)
    at.button(key="lessons_check").click().run()
    assert not at.exception
    return at


def _texts(elements) -> str:
    return " ".join(e.value for e in elements)


def test_first_miss_gives_a_hint_and_no_answer_second_miss_the_answer():
    at = open_page(PAGE)
    at.selectbox(key="lessons_pick").set_value("auc_tie").run()
    _answer(at, "auc_tie", "0.75")
    assert "Not quite: you said 0.75" in at.error[0].value
    assert "a tied pair counts one half" in _texts(at.info).lower()
    assert "0.875" not in _texts(at.error) + _texts(at.info) + _texts(at.caption)
    assert not at.main.expander  # no derivation yet
    assert not at.latex
    assert not at.get("plotly_chart")
    _answer(at, "auc_tie", "0.8")  # the second try, wrong again: now the answer
    assert "the answer is 0.875 = 7/8" in at.error[0].value
    assert at.main.expander
    assert at.latex


def test_second_try_can_be_right():
    at = open_page(PAGE)
    at.selectbox(key="lessons_pick").set_value("auc_tie").run()
    _answer(at, "auc_tie", "1")
    assert "not 1" in _texts(at.info)
    _answer(at, "auc_tie", "7/8")
    assert at.success[0].value.startswith("Right: 0.875")
    assert not at.error


def test_show_me_reveals_after_a_miss():
    at = open_page(PAGE)
    at.selectbox(key="lessons_pick").set_value("ap_step").run()
    _answer(at, "ap_step", "0.9")
    assert "0.8333" not in _texts(at.error)
    at.button(key="lessons_reveal").click().run()
    assert not at.exception
    assert "0.8333" in _texts(at.info)  # 'The answer: 0.8333'
    assert at.main.expander


def test_reveal_on_first_miss_for_self_study():
    at = open_page(PAGE)
    at.selectbox(key="lessons_pick").set_value("ap_step").run()
    at.toggle(key="lessons_reveal_first").set_value(True).run()
    _answer(at, "ap_step", "0.9")
    assert "Not quite: the answer is 0.8333 = 5/6" in at.error[0].value
    assert at.info  # the hint still says why
    assert at.main.expander


def test_a_choice_lesson_hides_the_answer_on_the_first_miss():
    at = open_page(PAGE)
    at.selectbox(key="lessons_pick").set_value("gauc_reversal").run()
    ex = BY_KEY["gauc_reversal"].make(0)
    wrong = next(o for o in ex.options if o != ex.answer)
    at.radio(key="lessons_answer_gauc_reversal_0").set_value(wrong)
    at.button(key="lessons_check").click().run()
    assert not at.exception
    assert at.error[0].value == f"Not this time: not {wrong}."
    assert "never compares two users" in _texts(at.info)
    assert not at.main.expander


def test_one_answer_is_one_attempt_however_often_it_is_submitted():
    """Enter in the answer box submits the form, and a click on Check then submits the same
    wrong answer again: one answer is one attempt, so the class still gets its second try and
    the derivation stays hidden. The same value written another way (3/4 for 0.75) is the
    same answer."""
    at = open_page(PAGE)
    at.selectbox(key="lessons_pick").set_value("auc_tie").run()
    _answer(at, "auc_tie", "0.75")  # Enter ...
    at.button(key="lessons_check").click().run()  # ... then Check, on the same answer
    assert not at.exception
    _answer(at, "auc_tie", "3/4")  # the same value, written as a fraction
    assert "Not quite: you said 0.75" in at.error[0].value
    assert "0.875" not in _texts(at.error) + _texts(at.info) + _texts(at.caption)
    assert not at.main.expander
    assert not at.latex
    _answer(at, "auc_tie", "0.8")  # a second, different wrong answer: now the answer
    assert "the answer is 0.875 = 7/8" in at.error[0].value
    assert at.main.expander


def test_one_choice_is_one_attempt():
    at = open_page(PAGE)
    at.selectbox(key="lessons_pick").set_value("gauc_reversal").run()
    ex = BY_KEY["gauc_reversal"].make(0)
    wrong = next(o for o in ex.options if o != ex.answer)
    at.radio(key="lessons_answer_gauc_reversal_0").set_value(wrong)
    at.button(key="lessons_check").click().run()
    at.button(key="lessons_check").click().run()
    assert not at.exception
    assert at.error[0].value == f"Not this time: not {wrong}."
    assert not at.main.expander


def test_attempt_keys_name_one_answer_however_written():
    ex = BY_KEY["auc_tie"].make(0)
    assert exercise.attempt_key(ex, "0.75") == exercise.attempt_key(ex, "3/4")
    assert exercise.attempt_key(ex, "75 %") == exercise.attempt_key(ex, " .75")
    assert exercise.attempt_key(ex, "0.75") != exercise.attempt_key(ex, "0.8")
    assert exercise.attempt_key(ex, "zero") is None
    choice = BY_KEY["gauc_reversal"].make(0)
    assert exercise.attempt_key(choice, choice.options[0]) == choice.options[0]
    assert exercise.attempt_key(choice, None) is None

"""Lessons: predict a metric from a small table, check the answer, then see the derivation.

A wrong answer gets a hint that names the likely misconception and a second try; the answer
and the derivation follow a second miss or 'Show me' (or the first miss, with 'Reveal on first
miss' on, for self-study).

In presentation mode (larger text) the table, the question and, once answered, the lesson's
charts share one row of a 1280x720 screen; the derivation follows below.
"""

from __future__ import annotations

import pandas as pd
import streamlit as st

from ui.frame import presentation, shell
from ui.teaching import lessons, stepper
from ui.teaching.exercise import attempt_key, check_answer
from ui.views import callbacks
from ui.views.explain import explain
from ui.views.show import chart
from ui.words.numbers import decimals, with_fraction
from ui.words.safe import md

shell.page_context(require_usable=False)  # lessons bring their own tables


def _answer(answer) -> None:
    st.info(
        f"The answer: **{answer if isinstance(answer, str) else with_fraction(answer)}**.",
        icon=":material/lightbulb:",
    )


def _present_charts(where, exercise, has_curves: bool, has_figure: bool) -> None:
    """Presentation mode: the lesson's charts in ``where``, two side by side (the ROC curve
    and the PR curve or the lesson's own chart) or one alone."""
    figures = []
    if has_curves:
        w = stepper.walk(*exercise.curves)
        figures.append(
            ("lessons_roc", stepper.roc_step_figure(w, w.n_steps, pointer=False), f"roc-{key}")
        )
        if not has_figure:
            pr = stepper.pr_step_figure(w, w.n_steps, pointer=False)
            # the short name: the long title runs out of half a column at the mode's size
            pr.update_layout(title_text=f"PR · AP {decimals(w.ap)}")
            figures.append(("lessons_pr", pr, f"pr-{key}"))
    if has_figure:
        figures.append(("lessons_figure", exercise.figure, f"{key}-{seed + 1}"))
    height = PAIR_HEIGHT if len(figures) > 1 else ONE_HEIGHT
    for col, (chart_key, fig, name) in zip(where.columns(len(figures)), figures, strict=True):
        chart(fig.update_layout(height=height), key=chart_key, name=name, where=col)


INTRO = (
    "Predict, then reveal: read the small table, answer the question, check it, then open the "
    "derivation. 'New example' draws another seeded table, the same for everyone with the "
    "same example number."
)
presenting = presentation.on()
PAIR_HEIGHT, ONE_HEIGHT = 330, 420  # presentation: two charts side by side, or one alone

titles = {lesson.key: f"{lesson.topic} · {lesson.title}" for lesson in lessons.LESSONS}
# The title joins the lesson's row (the intro in its help), in both modes: at 1280x720 the
# table, the answer box and the hint after a miss then share the first screen. Outside the
# mode the example's buttons go on the example's line, so the lesson's name shows whole.
if presenting:
    head_col, pick_col, new_col, first_col = st.columns(
        [2, 5, 1.6, 1.6], vertical_alignment="bottom"
    )
    line_col = st.container()
else:
    head_col, pick_col = st.columns([1.4, 6], vertical_alignment="bottom")
    line_col, new_col, first_col = st.columns([3.4, 1.3, 1.3], vertical_alignment="center")
head_col.subheader("Lessons", anchor=False, help=INTRO)
key = pick_col.selectbox(
    "Lesson", list(titles), format_func=titles.get, key="lessons_pick",
    help="Worked examples from public sources are named by what they show.",
)  # fmt: skip
lesson = lessons.BY_KEY[key]
SEED = f"lessons_seed_{key}"
st.session_state.setdefault(SEED, 0)
new_col.button(
    "New example", key="lessons_new", icon=":material/casino:", width="stretch",
    on_click=callbacks.add_to_state, args=(SEED, 1),
)  # fmt: skip
first_col.button(
    "First example", key="lessons_first", width="stretch",
    disabled=st.session_state[SEED] == 0,
    on_click=callbacks.set_state, kwargs={SEED: 0},
)  # fmt: skip
seed = int(st.session_state[SEED])
exercise = lessons.BY_KEY[key].make(seed)

line = line_col.container(key="lessons_example_line")
if lesson.worked and seed == 0:
    line.caption(f":material/menu_book: Worked example · {md(lesson.source, limit=400)}")
else:
    cited = (
        f" · Source: {md(lesson.source, limit=400)}" if lesson.source and not lesson.worked else ""
    )
    line.caption(
        f"Example {seed + 1} (seeded: example {seed + 1} of this lesson is the same table for "
        f"everyone){cited}."
    )

if presenting:  # a third column keeps the charts' place, so revealing moves nothing
    table_col, question_col, charts_col = st.columns([1, 1.15, 1.6])
else:
    table_col, question_col = st.columns([1, 1.4])  # a wide answer column: the hint is short
    charts_col = None
with table_col:
    if presenting and len(exercise.table) <= 10:  # a plain table's text grows with the mode
        st.table(  # numbers as the data grid writes them (0.6, not 0.6000)
            exercise.table.map(lambda v: f"{v:g}" if isinstance(v, float) else v),
            hide_index=True,
        )
    else:
        st.dataframe(
            exercise.table,
            hide_index=True,
            width="stretch",
            height="content" if len(exercise.table) <= 16 else 420,
            key="lessons_table",
        )
with question_col:
    st.markdown(exercise.context)
    answer_key = f"lessons_answer_{key}_{seed}"
    checked_key = f"lessons_checked_{key}_{seed}"
    misses_key = f"lessons_misses_{key}_{seed}"  # distinct wrong answers to this table so far
    tried_key = f"lessons_tried_{key}_{seed}"  # those answers (attempt_key), each counted once
    known_key = f"lessons_known_{key}_{seed}"  # the answer was shown (right, or 'Show me')
    with st.form(f"lessons_form_{key}_{seed}", border=True):
        st.markdown(f"**{exercise.question}**")
        if presenting:  # a narrow column: the buttons under the answer box
            answer_col = st.container()
            check_col, reveal_col = st.columns(2)
        else:  # the buttons beside the answer box: the verdict and the hint sit higher up
            answer_col, check_col, reveal_col = st.columns(
                [2, 1, 1] if exercise.kind == "number" else [1.2, 1, 1],
                vertical_alignment="bottom",
            )
        if exercise.kind == "choice":
            answer_col.radio("Your answer", exercise.options, index=None, key=answer_key)
        else:
            answer_col.text_input(
                "Your answer", key=answer_key, placeholder="e.g. 0.75, 3/4 or 75%",
                help=f"Answers within {exercise.tolerance:g} of the exact value count as right.",
            )  # fmt: skip
        checked = check_col.form_submit_button(
            "Check", type="primary", width="stretch", key="lessons_check"
        )
        revealed = reveal_col.form_submit_button("Show me", width="stretch", key="lessons_reveal")
    # read here, drawn below the verdict (a widget's value is in the state before it is drawn)
    reveal_first = st.session_state.get("lessons_reveal_first", False)
    if checked:
        st.session_state[checked_key] = "checked"
        given = st.session_state.get(answer_key)
        verdict = check_answer(exercise, given)
        tried = st.session_state.setdefault(tried_key, [])
        attempt = attempt_key(exercise, given)
        if verdict.correct is False and attempt not in tried:  # one answer, one attempt
            tried.append(attempt)
            st.session_state[misses_key] = len(tried)
    elif revealed:
        st.session_state[checked_key] = "revealed"
        st.session_state[known_key] = True
    state = st.session_state.get(checked_key)
    misses = st.session_state.get(misses_key, 0)
    if state == "checked":
        reveal = reveal_first or misses >= 2 or st.session_state.get(known_key, False)
        verdict = check_answer(exercise, st.session_state.get(answer_key), reveal=reveal)
        if verdict.correct is None:
            st.warning(verdict.message)
            state = None
        elif verdict.correct:
            st.session_state[known_key] = True
            st.success(verdict.message, icon=":material/check_circle:")
        else:  # the verdict and the hint next to the answer box, on the first screen: under
            # it, or in presentation mode in the charts' column while it has no charts
            where = charts_col if presenting and not reveal else st.container()
            where.error(verdict.message, icon=":material/cancel:")
            again = (
                ""
                if reveal
                else "  \nChange your answer and check again: the answer comes after a second "
                "miss, or now with 'Show me'."
            )
            where.info(
                f"**Hint:** {md(verdict.hint, limit=600)}{again}",
                icon=":material/tips_and_updates:",
            )
            if not reveal:
                state = "hinted"  # no answer, no derivation, no charts that show it
    st.toggle(
        "Reveal on first miss", key="lessons_reveal_first",
        help="For self-study: a wrong answer shows the answer and the derivation at once. "
        "Off (for a class), a wrong answer gets a hint and a second try; the answer follows "
        "the second miss or 'Show me'.",
    )  # fmt: skip

if state in ("checked", "revealed"):
    if state == "revealed" and presenting:  # the answer under the question, on screen
        with question_col:
            _answer(exercise.answer)
    has_curves, has_figure = exercise.curves is not None, exercise.figure is not None
    if presenting:
        _present_charts(charts_col, exercise, has_curves, has_figure)
    explain(
        "how the answer is derived",
        exercise.derivation,
        note=exercise.note,
        expanded=True,
    )
    if state == "revealed" and not presenting:
        _answer(exercise.answer)
    left, right = st.columns(2) if (has_curves or has_figure) and not presenting else (None, None)
    if has_curves and not presenting:
        y, s = exercise.curves
        w = stepper.walk(y, s)
        with left:
            chart(
                stepper.roc_step_figure(w, w.n_steps, pointer=False),
                key="lessons_roc",
                name=f"roc-{key}",
            )
        if not has_figure:
            with right:
                chart(
                    stepper.pr_step_figure(w, w.n_steps, pointer=False),
                    key="lessons_pr",
                    name=f"pr-{key}",
                )
    if has_figure and not presenting:  # the lesson's own chart: beside the ROC curve, in the
        # PR curve's place
        with right if has_curves else left:
            chart(exercise.figure, key="lessons_figure", name=f"{key}-{seed + 1}")
    # The numbers go beside a lesson's own chart when it has no ROC curve, else below.
    if exercise.facts:
        with right if has_figure and not has_curves and not presenting else st.container():
            st.dataframe(
                pd.DataFrame(
                    {"what": list(exercise.facts), "value": list(exercise.facts.values())}
                ),
                hide_index=True,
                key="lessons_facts",
                column_config={"value": st.column_config.NumberColumn(format="%.4f")},
            )
            st.caption("Every number here is computed by the metrics library on this table.")
elif state != "hinted":
    with charts_col or st.container():
        st.caption(
            "The derivation appears once you check an answer (or press 'Show me')"
            + (", with this lesson's charts here." if presenting else ".")
        )

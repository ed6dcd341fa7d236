"""Every lesson's text and derivation on one page, three seeds each, drawn as the Lessons page
draws them (its markdown and ``ui.views.explain``): a browser test loads it once and asks the
browser's KaTeX whether each formula renders (tests/test_browser_teaching.py). The Lessons
page's own runs of every lesson are AppTests (tests/test_lessons.py)."""

import streamlit as st

from ui.teaching import lessons
from ui.views.explain import explain
from ui.words.safe import md

SEEDS = (0, 1, 2)

for lesson in lessons.LESSONS:
    for seed in SEEDS:
        ex = lesson.make(seed)
        with st.container(key=f"latex_{lesson.key}_{seed}"):
            st.markdown(ex.context)
            st.markdown(f"**{ex.question}**")
            explain("how the answer is derived", ex.derivation, note=ex.note, expanded=True)
            for hint in {ex.hint, *(h for _, h in ex.traps)} - {""}:  # what a wrong answer is told
                st.info(f"**Hint:** {md(hint, limit=600)}")
st.container(key="latex_done").write("done")

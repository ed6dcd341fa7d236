"""'Explain' expanders: a number's formula, then the same formula with the user's counts in.

Every page uses these so explanations look the same everywhere. The LaTeX builders are pure
functions in :mod:`ui.words.text` (tested without Streamlit, re-exported here for the pages);
:func:`explain` renders them.
"""

from __future__ import annotations

from collections.abc import Iterable

import streamlit as st

from ui.words.text import ap_lines, auc_lines, fraction, num, tex_name

__all__ = ["ap_lines", "auc_lines", "explain", "fraction", "num", "tex_name"]


def explain(
    title: str, lines: Iterable[str], note: str | None = None, *, expanded: bool = False
) -> None:
    """An expander titled 'Explain: <title>' with one st.latex per line and a caption."""
    with st.expander(f"Explain: {title}", expanded=expanded, icon=":material/calculate:"):
        for line in lines:
            st.latex(line)
        if note:
            st.caption(note)

"""'Explain' expanders: a number's formula, then the same formula with the user's counts in.

Every page uses these so explanations look the same everywhere. The LaTeX builders are pure
functions (tested without Streamlit); :func:`explain` renders them.
"""

from __future__ import annotations

from collections.abc import Iterable

import streamlit as st


def num(x: float, digits: int = 4) -> str:
    """A number for LaTeX: integers plainly (with thin-space thousands), others rounded."""
    x = float(x)
    if x.is_integer() and abs(x) < 1e15:
        return f"{int(x):,}".replace(",", "\\,")
    return f"{x:.{digits}g}"


def fraction(
    name: str, num_symbol: str, den_symbol: str, num_value: float, den_value: float
) -> str:
    r"""``name = \frac{a}{b} = \frac{3}{4} = 0.75`` (0/0 shown as 0, the library's convention)."""
    value = num_value / den_value if den_value else 0.0
    return (
        rf"\text{{{name}}} = \frac{{{num_symbol}}}{{{den_symbol}}} = "
        rf"\frac{{{num(num_value)}}}{{{num(den_value)}}} = {num(value)}"
    )


def explain(
    title: str, lines: Iterable[str], note: str | None = None, *, expanded: bool = False
) -> None:
    """An expander titled 'Explain: <title>' with one st.latex per line and a caption."""
    with st.expander(f"Explain: {title}", expanded=expanded, icon=":material/calculate:"):
        for line in lines:
            st.latex(line)
        if note:
            st.caption(note)

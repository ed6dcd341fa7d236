"""Text for explanations, Streamlit-free: numbers and names for LaTeX, and the formula lines
of AUC and AP with the user's counts in. :mod:`ui.views.explain` renders them in an expander."""

from __future__ import annotations

import re

from ui.words.numbers import significant
from ui.words.safe import md, tex_text

__all__ = ["ap_lines", "auc_lines", "fraction", "num", "tex_name"]

_MD_ESCAPED = re.compile(r"\\([\\`*_{}\[\]()#+\-.!|<>~$:])")


def tex_name(name: object) -> str:
    """A user's name (a column, a model) for ``\\text{...}``: :func:`ui.words.safe.tex_text`.

    A name that is exactly :func:`ui.words.safe.md`'s output (a page that escaped it for markdown)
    is unescaped first, so that its backslashes do not show."""
    s = str(name)
    plain = _MD_ESCAPED.sub(r"\1", s)
    if plain != s and md(plain, limit=len(plain) + 1) == s:
        s = plain
    return tex_text(s)


def num(x: float, digits: int = 4) -> str:
    """A number for LaTeX: integers plainly (with thin-space thousands), others rounded."""
    x = float(x)
    if x.is_integer() and abs(x) < 1e15:
        return f"{int(x):,}".replace(",", "\\,")
    return significant(x, digits)  # half up, as by hand: 0.78125 is 0.7813


def fraction(
    name: str, num_symbol: str, den_symbol: str, num_value: float, den_value: float
) -> str:
    r"""``name = \frac{a}{b} = \frac{3}{4} = 0.75`` (0/0 shown as 0, the library's convention)."""
    value = num_value / den_value if den_value else 0.0
    return (
        rf"\text{{{tex_name(name)}}} = \frac{{{num_symbol}}}{{{den_symbol}}} = "
        rf"\frac{{{num(num_value)}}}{{{num(den_value)}}} = {num(value)}"
    )


def auc_lines(name: str, n_pos: float, n_neg: float, auc: float) -> list[str]:
    """ROC AUC as the share of correctly ordered (positive, negative) pairs, ties half."""
    pairs = n_pos * n_neg
    wins = auc * pairs
    return [
        rf"\text{{AUC}}_{{\text{{{tex_name(name)}}}}} = \frac{{\#\{{s_+ > s_-\}} + \tfrac12\,"
        rf"\#\{{s_+ = s_-\}}}}{{P \cdot N}} = \frac{{{num(wins, 10)}}}{{{num(n_pos)} \cdot "
        rf"{num(n_neg)}}} = {num(auc)}"
    ]


def ap_lines(name: str, tps, fps, ap: float, terms: int = 3) -> list[str]:
    """AP as the step sum over distinct thresholds, with its first terms written out."""
    n_pos = float(tps[-1])
    shown = []
    last_recall = 0.0
    for tp, fp in zip(tps[:terms], fps[:terms], strict=False):
        recall = float(tp) / n_pos
        precision = float(tp) / float(tp + fp) if tp + fp else 0.0
        shown.append(rf"({num(recall)} - {num(last_recall)}) \cdot {num(precision)}")
        last_recall = recall
    more = r" + \dots" if len(tps) > terms else ""
    return [
        rf"\text{{AP}}_{{\text{{{tex_name(name)}}}}} = \sum_i (R_i - R_{{i-1}})\,P_i = "
        + " + ".join(shown)
        + more
        + rf" = {num(ap)}"
    ]

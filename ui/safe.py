"""Showing user-supplied text safely.

Column names, cell values and file names come from uploads. Streamlit renders markdown (never
raw HTML unless asked), so a name like ``![x](http://...)`` would still become an image or a
link: :func:`md` escapes markdown so such text shows literally; :func:`tex_text` escapes text
for ``\\text{...}`` in a formula (KaTeX would otherwise read ``%`` as a comment, ``&`` as a
column, ``^`` and ``_`` as scripts). :func:`neutralise_csv` guards exported CSVs against
spreadsheet formula injection.
"""

from __future__ import annotations

import html
import re

import pandas as pd

_MARKDOWN_SPECIAL = re.compile(r"([\\`*_{}\[\]()#+\-.!|<>~$:])")
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def md(text: object, limit: int = 120) -> str:
    """``text`` escaped for st.markdown / st.caption / st.error, shortened past ``limit``."""
    s = str(text)
    if len(s) > limit:
        s = s[: limit - 1] + "…"
    return _MARKDOWN_SPECIAL.sub(r"\\\1", s).replace("\n", " ")


_TEX_TEXT = {
    "\\": r"\textbackslash{}",
    "{": r"\{",
    "}": r"\}",
    "#": r"\#",
    "$": r"\$",
    "%": r"\%",
    "&": r"\&",
    "_": r"\_",
    "^": r"\textasciicircum{}",
    "~": r"\textasciitilde{}",
}
_TEX_SPECIAL = re.compile("[" + re.escape("".join(_TEX_TEXT)) + "]")
_CONTROL = re.compile(r"[\x00-\x1f\x7f]+")


def tex_text(text: object, limit: int = 80) -> str:
    """``text`` for the inside of ``\\text{...}`` in KaTeX: every TeX special escaped (so it
    shows literally and the braces stay balanced), control characters as a space, shortened
    past ``limit``."""
    s = str(text)
    if len(s) > limit:
        s = s[: limit - 1] + "…"
    s = _CONTROL.sub(" ", s)
    return _TEX_SPECIAL.sub(lambda m: _TEX_TEXT[m.group()], s)


def neutralise_csv(frame: pd.DataFrame) -> pd.DataFrame:
    """A copy whose text cells starting with = + - @ (or tab / CR) get a leading apostrophe, so
    a spreadsheet shows them as text instead of running them as formulas. Numbers stay numbers."""
    out = frame.copy()
    for col in out.columns:
        if out[col].dtype == object or pd.api.types.is_string_dtype(out[col]):
            values = out[col].astype("string")
            risky = values.str.startswith(_FORMULA_START).fillna(False)
            out[col] = values.where(~risky, "'" + values)
    out.columns = ["'" + str(c) if str(c).startswith(_FORMULA_START) else c for c in out.columns]
    return out


def file_name(name: str) -> str:
    """A download file name with only letters, digits, dot, dash and underscore."""
    cleaned = re.sub(r"[^A-Za-z0-9._-]+", "_", name).strip("._")
    return cleaned[:120] or "download"


def label(text: object, limit: int = 80) -> str:
    """Text for plotly labels and legends: HTML-escaped (plotly renders a few tags) and short."""
    s = str(text)
    if len(s) > limit:
        s = s[: limit - 1] + "…"
    return html.escape(s)

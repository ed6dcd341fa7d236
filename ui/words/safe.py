"""Showing user-supplied text safely.

Column names, cell values and file names come from uploads. Streamlit renders markdown (never
raw HTML unless asked), so a name like ``![x](http://...)`` would still become an image or a
link: :func:`md` escapes markdown so such text shows literally; :func:`plotly_text` and
:func:`safe_figure` do the same for plotly's pseudo-HTML (links, styles) in figures;
:func:`tex_text` escapes text for ``\\text{...}`` in a formula (KaTeX would otherwise
read ``%`` as a comment, ``&`` as a column, ``^`` and ``_`` as scripts).
:func:`neutralise_csv` guards exported CSVs against spreadsheet formula injection.
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
    """Text for plotly labels and legends: HTML-escaped (plotly renders a few tags) and short.

    Quotes are left as they are: plotly turns ``&lt;``, ``&gt;`` and ``&amp;`` back into
    characters but would show ``&quot;`` as written."""
    s = str(text)
    if len(s) > limit:
        s = s[: limit - 1] + "…"
    return html.escape(s, quote=False)


# Plotly draws text as a pseudo-HTML subset: any ``<...>`` is a tag (its SPLIT_TAGS), ``style``
# is honoured on every tag and ``href`` on ``<a>``, so a name from the data such as
# ``<span style="background:url(http://host/b.png)">`` fetches from that host when the chart
# is drawn, and ``<a href=...>`` is a live link. Our own figures use only bare formatting tags.
_BARE_TAG = re.compile(r"(</?(?:b|i|em|sup|sub|extra)>|<br ?/?>)", re.IGNORECASE)


def plotly_text(text: str) -> str:
    """``text`` with every ``<`` and ``>`` outside the bare formatting tags (``<b>``, ``<i>``,
    ``<em>``, ``<sup>``, ``<sub>``, ``<br>``, hover's ``<extra>``) written ``&lt;`` / ``&gt;``,
    which plotly shows as the characters: a tag with attributes (a link, a style) or any other
    tag is text. Idempotent (``&`` is left alone), so text a builder escaped stays as it was."""
    if "<" not in text and ">" not in text:
        return text
    parts = _BARE_TAG.split(text)  # odd positions: the bare tags themselves
    return "".join(
        p if k % 2 else p.replace("<", "&lt;").replace(">", "&gt;") for k, p in enumerate(parts)
    )


def _clean(value, changed: list) -> object:
    if isinstance(value, str):
        out = plotly_text(value)
        if out != value:
            changed.append(True)
        return out
    if isinstance(value, dict):
        return {k: _clean(v, changed) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        if (
            value
            and not isinstance(value[0], (str, dict, list, tuple))
            and not any(isinstance(v, (str, dict, list, tuple)) for v in value)
        ):
            return value  # numbers: nothing to draw as text
        return [_clean(v, changed) for v in value]
    if getattr(value, "dtype", None) is not None and value.dtype.kind in "OUS":
        return [_clean(v, changed) for v in value.tolist()]
    return value


def safe_figure(fig):
    """``fig`` with every string plotly would draw (names, titles, hover text, tick labels,
    annotations, table cells, categories) passed through :func:`plotly_text`; the same figure
    when nothing needed it. The net under every chart: names from the data never act as
    links or styles, whichever builder put them there."""
    import plotly.graph_objects as go

    changed: list = []
    _clean(_held(fig), changed)
    if not changed:
        return fig
    return go.Figure(_clean(fig.to_plotly_json(), []), skip_invalid=True)


def _held(fig) -> dict:
    """The figure's data and layout as plotly holds them, read without the deep copy (and the
    arrays' base64 walk) of ``to_plotly_json``, a third of the net's time: :func:`_clean` builds
    new containers and never writes into these. Its JSON when plotly holds them otherwise, or
    the figure has animation frames."""
    data, layout = getattr(fig, "_data", None), getattr(fig, "_layout", None)
    if isinstance(data, list) and isinstance(layout, dict) and not fig.frames:
        return {"data": data, "layout": layout}
    return fig.to_plotly_json()

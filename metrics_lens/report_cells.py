"""The report's HTML cells: escaped text, numbers as the report prints them, a number's cell
with its interval or the reason it is undefined, and a table; shared by the report's sections
(:mod:`metrics_lens.report`, :mod:`metrics_lens.report_verdicts`)."""

from __future__ import annotations

import html
import math

import numpy as np

__all__ = ["fmt"]


def _e(text) -> str:
    return html.escape(str(text), quote=True)


def fmt(x, digits: int = 4) -> str:
    """A number as the report prints it (4 decimals; "undefined" for a missing value or NaN,
    never "nan"; an infinity as ∞)."""
    if x is None:
        return "undefined"
    x = float(x)
    if math.isnan(x):
        return "undefined"
    if math.isinf(x):
        return "∞" if x > 0 else "-∞"
    return f"{x:.{digits}f}"


# Why a value at a threshold is undefined: the confusion-matrix cells it divides by are empty.


def _cell(
    value, *, metric: str = "", model: str = "", low=None, high=None, extra="", why: str = ""
) -> str:
    """A number's cell; an undefined one says "undefined" and why (``why``, else generic)."""
    attrs = f' data-metric="{_e(metric)}"' if metric else ""
    attrs += f' data-model="{_e(model)}"' if model else ""
    text = f'<span class="v">{fmt(value)}</span>'
    if value is None or (isinstance(value, (int, float, np.number)) and math.isnan(value)):
        reason = why or "not computable on these rows"
        text += f' <span class="why">({_e(reason)})</span>'
    elif low is not None and high is not None and np.isfinite(low) and np.isfinite(high):
        text += f' <span class="ci">[{fmt(low)}, {fmt(high)}]</span>'
    return f'<td class="num"{attrs}{extra}>{text}</td>'


def _table(header: list[str], rows: list[str], cls: str = "") -> str:
    head = "".join(f"<th>{_e(h)}</th>" for h in header)
    return (
        f'<table class="{cls}"><thead><tr>{head}</tr></thead><tbody>'
        + "".join(f"<tr>{r}</tr>" for r in rows)
        + "</tbody></table>"
    )

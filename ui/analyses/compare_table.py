"""Compare's first table: every model's numbers with their intervals, a star where a model is
significantly best, the verdict under it and what a bracket is."""

from __future__ import annotations

from collections.abc import Mapping

import pandas as pd

from metrics.families import FamilyResult
from ui.analyses.compare_setup import CompareSettings
from ui.words.numbers import decimals
from ui.words.safe import md

__all__ = [
    "column_label",
    "interval_lines",
    "interval_note",
    "star_caption",
    "starred_table",
    "verdict_list",
]


def _cell(row: pd.Series, name: str, found: Mapping) -> str:
    text = f"{decimals(row[name])}"
    if f"{name} low" in row:
        text += f"  [{row[f'{name} low']:.4f}, {row[f'{name} high']:.4f}]"
    return ("★ " if found[name].best == row.name else "") + text


def starred_table(table: pd.DataFrame, found: Mapping, helps: Mapping[str, str]) -> pd.DataFrame:
    """Per model, each metric as text: the value, its interval in brackets, a star first where
    the model is significantly best (``found[name].best`` is its row)."""
    shown = table[["model"]].copy()
    for name in helps:
        shown[name] = table.apply(_cell, axis=1, args=(name, found))
    return shown


def column_label(name: str, family: FamilyResult | None) -> str:
    """A metric's column header: "(primary)" on the declared primary metric, "(exploratory)"
    on the others, as it is (every metric in the family) when the family is "all"."""
    if family is None or family.declared == "all":
        return name
    if family.in_family(name):
        return f"{name} (primary)"
    return f"{name} (exploratory)"


def verdict_list(found: Mapping, helps: Mapping[str, str]) -> str:
    """One markdown bullet per metric: its verdict, starred when a model is best."""
    return "\n".join(
        f"- **{name}**: "
        + ("★ " if found[name].best is not None else "")
        + md(found[name].verdict, limit=400)
        for name in helps
    )


def star_caption(s: CompareSettings, family: FamilyResult | None = None) -> str:
    """What a star and a bracket mean, with these settings and the family the stars rest on."""
    return (
        "★ marks a model only where it is significantly best within the declared family of "
        "tests: better than each other model by a "
        + (
            f"cluster bootstrap test (whole {md(s.group_column)} values resampled)"
            if s.clustered
            else "paired test (DeLong's for AUC, else the paired bootstrap)"
        )
        + ". "
        + (md(family.description, limit=600) + " " if family is not None else "")
        + (f"Brackets: 95% {s.interval_name}, {s.n_resamples} resamples." if s.wanted else "")
        + ("" if s.wanted or s.clustered else " With 0 resamples only AUC can be tested.")
    )


def interval_lines(n_resamples: int) -> list[str]:
    """The percentile interval, the bootstrap p-value and Holm's adjustment, in LaTeX."""
    return [
        r"\text{CI}_{95\%} = \left[q_{2.5\%},\ q_{97.5\%}\right] \text{ of } "
        rf"\{{\,m(\text{{resample}}_b)\,\}}_{{b=1}}^{{{n_resamples}}}",
        r"p = \min\!\left(1,\ 2\min\big(P^*(d \le 0),\ P^*(d \ge 0)\big)\right),"
        r"\qquad p_{\text{Holm},(i)} = \max_{j \le i} \min\big(1, (m - j + 1)\,p_{(j)}\big)",
    ]


def interval_note(s: CompareSettings) -> str:
    """How the resamples are drawn and an interval and a p-value read from them."""
    return (
        (
            f"Each of the {s.n_resamples} resamples draws every {md(s.group_column)} a Poisson(1) "
            "number of times (0, 1, 2, ... with chances 37%, 37%, 18%, ...) and counts each of "
            "its rows that often, then scores every model on the same rows: a cluster "
            "bootstrap, since rows of one group are not independent"
            if s.clustered
            else f"Each of the {s.n_resamples} resamples draws every one of the {s.n_rows:,} rows "
            "a Poisson(1) number of times (0, 1, 2, ... with chances 37%, 37%, 18%, ...), as "
            "TFMA does, and scores every model on the same rows; GAUC draws whole users "
            "instead, since a user's rows are not independent"
        )
        + ". The interval is the middle 95% of the metric's values over the resamples"
        + (
            "; for AUC, BCa shifts and stretches those percentiles by the bias (the share of "
            "resamples below the estimate) and the skew (from leaving each row out once)"
            if s.interval == "BCa"
            else ""
        )
        + ". The bootstrap p-value of a difference d is the smallest level at which its "
        "percentile interval excludes 0. Holm sorts a metric's m pair p-values and multiplies "
        "the j-th smallest by m − j + 1. Each model is sorted once: a resample is a vector of "
        "counts, and every metric is a sum of counts in that fixed order."
    )

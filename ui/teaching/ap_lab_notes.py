"""The AP lab's tables and sentences (no Streamlit): the five values as a plain table, when the
methods differ, and what each section's table sums to."""

from __future__ import annotations

import pandas as pd

from metrics import AP_METHODS
from ui.figures.ap_charts import METHOD_LABELS, WHEN_THEY_DIFFER, APLab, exact_text
from ui.figures.charts import MAX_POINTS
from ui.words.numbers import decimals

__all__ = [
    "ELEVEN_POINTS",
    "INTRO",
    "NOTES",
    "PER_CLASS",
    "method_columns",
    "outside_unit",
    "points_caption",
    "regions_caption",
    "step_sentence",
    "values_table",
    "when_they_differ",
]

INTRO = (
    "Average precision computed five ways on the same ranking: the values side by side, the "
    "area each way sums, and every term of the sum."
)
PER_CLASS = (
    "Each class one-vs-rest; macro is the mean over classes (mAP), weighted uses each "
    "class's share of the positives."
)
NOTES = {
    "step": "R_i and P_i are recall and precision at the i-th distinct threshold, highest first "
    "(the step table below).",
    "trapezoid": "Each segment's height is the mean of its two end precisions; the first "
    "segment starts at precision 1.",
    "voc_all": "max_{j ≥ i} P_j is the envelope: the best precision at recall R_i or beyond.",
    "voc11": "Equal runs of levels are grouped as count × precision.",
    "coco101": "Equal runs of levels are grouped as count × precision.",
}
ELEVEN_POINTS = (
    "Both use 11 points, but not the same ones. The score grid is the step sum taken only at "
    "the score thresholds 1, 0.9, ..., 0: it skips every threshold in between and changes "
    "when the scores are rescaled. VOC 2007 reads the precision envelope at 11 fixed recall "
    "levels, so it depends only on the ranking."
)


def method_columns(methods: pd.DataFrame) -> list[str]:
    """The methods table's columns, "exact" only when some value is an exact fraction."""
    return [c for c in methods.columns if c != "exact" or methods["exact"].any()]


def values_table(methods: pd.DataFrame) -> pd.DataFrame:
    """The five values as text for a plain table (its text grows with presentation mode)."""
    any_exact = methods["exact"].any()
    shown = methods[
        [c for c in ("method", "AP", "exact", "minus step") if c != "exact" or any_exact]
    ]
    return shown.assign(
        AP=shown["AP"].map(decimals),
        **{"minus step": shown["minus step"].map("{:+.4g}".format)},
    )


def when_they_differ() -> str:
    """A list of when each method gives another value than the others."""
    return "\n".join(f"- **{METHOD_LABELS[m]}**: {WHEN_THEY_DIFFER[m]}" for m in AP_METHODS)


def regions_caption(n_thresholds: int) -> str:
    """What each method's shape is, and whether the shapes are thinned for the browser."""
    return (
        "Step: rectangles of width Δ recall at each point's precision. Trapezoid: straight lines "
        "from (0, 1) through the points. VOC all-point: the same rectangles under the envelope. "
        "VOC 11-point and COCO 101-point: the envelope read at fixed recall levels, each marker "
        "worth 1/11 or 1/101."
    ) + (
        f" {n_thresholds:,} thresholds: at most about 2,000 points per shape are drawn; "
        "every value is computed on all of them."
        if n_thresholds > MAX_POINTS
        else ""
    )


def step_sentence(lab: APLab, n_rows: int) -> str:
    """Where the step table's running sum ends: AP, or how far it is still to go."""
    n, step_value = lab.n_thresholds, lab.values["step"]
    if n_rows >= n:
        return (
            f"One row per distinct threshold, highest first. The running sum ends at "
            f"**AP = {exact_text(step_value)}**, the step value above."
        )
    return (
        f"The first {n_rows:,} of {n:,} distinct thresholds: the running sum is "
        f"{decimals(lab.step.running_ap[n_rows - 1])} here and continues over {n - n_rows:,} more "
        "to "
        f"**AP = {exact_text(step_value)}**."
    )


def points_caption(lab: APLab, method: str, n_terms: int, limit: int) -> str:
    """What the points table of ``method`` sums to (its first ``limit`` terms shown)."""
    shown = (
        f"All {n_terms:,} terms; they sum"
        if n_terms <= limit
        else f"The first {limit:,} of {n_terms:,} terms; the sum continues"
    )
    return (
        f"{shown} to weight × precision used = {exact_text(lab.values[method])}, "
        f"the {METHOD_LABELS[method]} value."
    ) + (
        ""
        if method in ("voc11", "coco101")
        else " Thresholds that add no recall (weight 0) add nothing and are left out."
    )


def outside_unit(low: float, high: float) -> str | None:
    """The warning for scores outside [0, 1], where the score grid says little (else None)."""
    if not (low < 0 or high > 1):
        return None
    return (
        f"These scores run from {low:.4g} to {high:.4g}, outside [0, 1]: the score grid "
        "0, 0.1, ..., 1 does not fit them, so its value says little."
    )

"""The words of the Detection page's "Why the numbers differ" section (no Streamlit): one
sentence per rule on the user's boxes, the order the walk uses, and TIDE's error types."""

from __future__ import annotations

import math

from ui.words.safe import md

__all__ = ["ORDER_NOTE", "TIDE_NOTE", "points", "rule_sentence", "walk_summary"]

ORDER_NOTE = (
    "The rules are switched one at a time in a fixed order (crowd regions, difficult objects, "
    "area range, the 100-detection cap, IoU ≥ or >, box size +1, matching, interpolation, tie "
    "order): each step's AP difference depends on the steps before it, so another order would "
    "split the same total differently. Every step starts where the previous one ended; the "
    "first starts at the first convention's mAP and the last ends at the second's."
)
TIDE_NOTE = (
    "Errors as TIDE (Bolya et al., ECCV 2020) defines them, at a foreground IoU of 0.5 and a "
    "background IoU of 0.1: each detection that is not a true positive gets the first type "
    "that applies (localisation, classification, duplicate, background, else both); dAP is "
    "the AP fixing that type alone would recover (TIDE's own 101-point AP, which also averages "
    "classes that have detections but no objects). The last two rows fix every false positive "
    "or every missed object at once."
)


def points(x: float, *, plus: bool = False) -> str:
    """An AP (0-1) in AP points, 2 decimals: 0.4123 -> '41.23'; NaN -> 'n/a'."""
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "n/a"
    v = 100 * float(x)
    if abs(v) < 0.005:
        v = 0.0
    text = f"{v:+.2f}" if plus else f"{v:.2f}"
    return text.replace("-", "−")


def rule_sentence(row) -> str:
    """'**label**: what changes on these boxes: +0.42 AP points.' (markdown-safe)."""
    diff = row["difference"]
    moved = ""
    if row["largest_category"] != "":
        by = points(row["largest_category_change"], plus=True)
        moved = f" (most in {md(row['largest_category'], 60)}: {by})"
    return (
        f"**{md(row['label'])}** ({md(row['setting_from'])} → {md(row['setting_to'])}): "
        f"{md(row['change'], 300)}: **{points(diff, plus=True)}** AP points{moved}."
    )


def walk_summary(walk, from_label: str, to_label: str, iou) -> str:
    start, end = walk["ap_before"].iloc[0], walk["ap_after"].iloc[-1]
    if math.isnan(start) and math.isnan(end):
        return (
            "No category has a ground truth either convention counts, so neither mAP is "
            "defined and there is nothing to split."
        )
    moving = walk[walk["difference"].abs() > 5e-7]
    n = len(moving)
    rules = "no rule moves" if n == 0 else ("1 rule moves" if n == 1 else f"{n} rules move")
    at = f"IoU {iou:g}" if isinstance(iou, float) else f"IoU {iou} (the mean of ten thresholds)"
    return (
        f"{md(from_label)} gives mAP **{points(start)}**, {md(to_label)} **{points(end)}** at "
        f"{at}: {rules} the number on these boxes."
    )

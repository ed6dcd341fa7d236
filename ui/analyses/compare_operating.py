"""Compare at an operating point and on its curves' bands: each model's rates at the threshold
a constraint picks, with their intervals, and how sure the curves and the picked thresholds
are over the resamples."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

from ui.analyses.compare_setup import CompareSettings
from ui.words.numbers import decimals

__all__ = [
    "CONSTRAINTS",
    "RATES",
    "band_name",
    "operating_caption",
    "pr_band_caption",
    "rate_caption",
    "roc_band_caption",
    "stability_caption",
    "stability_table",
    "target_input",
    "with_intervals",
]

CONSTRAINTS = ["recall ≥", "precision ≥", "FPR ≤", "top %"]
RATES = ("precision", "recall", "F1", "FPR")


def target_input(constraint: str) -> tuple[float, float]:
    """The target's largest value and its default under ``constraint``."""
    if constraint == "top %":
        return 100.0, 5.0
    return 1.0, (0.01 if constraint == "FPR ≤" else 0.9)


def with_intervals(points: pd.DataFrame, spread: pd.DataFrame) -> pd.DataFrame:
    """The operating points with each rate as text, its 95% interval in brackets, from
    ``spread`` (per model each rate with ``low``/``high``, at the threshold held fixed)."""
    table = points[["model", "threshold", "rows flagged"]].merge(
        spread.drop(columns="threshold"), on="model", how="left"
    )
    for rate in RATES:
        table[rate] = [
            f"{decimals(v)}  [{decimals(lo)}, {decimals(hi)}]" if np.isfinite(v) else "undefined"
            for v, lo, hi in table[[rate, f"{rate} low", f"{rate} high"]].itertuples(index=False)
        ]
    return table[["model", "threshold", "precision", "recall", "F1", "FPR", "rows flagged"]]


def operating_caption(s: CompareSettings, op_resamples: int) -> str:
    """How each model's threshold is picked, and what the brackets are."""
    return (
        "Each model at the threshold that meets the constraint best: the highest precision with "
        "recall at least the target, the highest recall with precision at least the target, "
        "the highest TPR with FPR at most the target, or the top share of rows (ties at the cut "
        "come in together). Searched over every distinct score. "
        + (
            f"Brackets: 95% {s.interval_name} over {op_resamples} resamples, at that threshold "
            "held fixed (how the rates would vary on new rows scored the same way; the "
            'threshold\'s own variation is shown under "How sure are the curves?").'
            if s.wanted
            else "Set resamples above 0 for intervals."
        )
    )


def band_name(kind: str) -> str:
    """How a chart's legend names the band."""
    return "95% simultaneous band" if kind == "simultaneous" else "95% band"


def roc_band_caption(s: CompareSettings, name: str) -> str:
    """What the ROC curve's band is."""
    return (
        f"Shaded: the {name} of the ROC curve from {s.curve_resamples} "
        f"resampled curves ({s.resampled}), TPR at each FPR (vertical averaging). "
        "Where two bands overlap at an FPR, the data cannot tell those models apart "
        "there."
    )


def pr_band_caption(name: str) -> str:
    """What the precision-recall curve's band is."""
    return (
        "Precision where each resample's recall first reaches the value on the x "
        f"axis, its {name} shaded. Precision at low recall rests on few rows "
        "and spreads widely."
    )


def rate_caption(n_thresholds: int, name: str) -> str:
    """What the rates-versus-threshold bands are."""
    return (
        f"Each rate at {n_thresholds} thresholds spread over the score "
        f"quantiles, with its {name} over the resamples (each rate's own); the "
        "dashed line is the model's current threshold."
    )


def stability_table(picked: Mapping[str, np.ndarray], on_all: Mapping[str, float]) -> pd.DataFrame:
    """Per model, the threshold a rule picks on all rows and the spread of the thresholds it
    picks on the resamples: quantiles, and the share within ±10% of the one on all rows."""
    return pd.DataFrame(
        [
            {
                "model": m,
                "on all rows": on_all[m],
                "resamples: 2.5%": np.nanquantile(v, 0.025),
                "median": np.nanquantile(v, 0.5),
                "97.5%": np.nanquantile(v, 0.975),
                "share within ±10% of it": float(
                    np.mean(np.abs(v - on_all[m]) <= 0.1 * abs(on_all[m]))
                ),
            }
            for m, v in picked.items()
        ]
    )


def stability_caption(rule: str, curve_resamples: int) -> str:
    """What the threshold-stability chart shows, and how to read a wide spread."""
    return (
        f"The threshold {rule} picks on each of {curve_resamples} resamples (bars) and "
        "on all rows (line). A wide spread means the picked threshold owes much to "
        "these particular rows: expect it to move on new data."
    )

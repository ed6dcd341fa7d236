"""Compare on what a model's calls are worth: KS beside the gains, the least total cost over the
thresholds, and the decision curve's net benefit, in the words under their charts."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import pandas as pd

from ui.words.numbers import decimals
from ui.words.safe import md

__all__ = [
    "DECISION_CAPTION",
    "LIFT_RATES",
    "cost_caption",
    "decision_caption",
    "ks_caption",
    "ks_table",
]

LIFT_RATES = ("precision", "recall", "lift", "cumulative lift")
DECISION_CAPTION = (
    "Net benefit = TP/n − FP/n · t/(1 − t) at threshold probability t (Vickers & Elkin): "
    "the true positives gained, less the false positives weighed by the odds at which "
    "a positive call is worth it. A model is useful where it is above both treat-all "
    "and treat-none."
)


def ks_table(ks_curves: Mapping[str, tuple], intervals: Sequence | None = None) -> pd.DataFrame:
    """Per model its KS statistic (as text, with its interval when ``intervals`` holds one per
    model) and the threshold where it is reached."""
    table = pd.DataFrame(
        [{"model": m, "KS": statistic, "at threshold": at}
         for m, (_, _, statistic, at) in ks_curves.items()]
    )  # fmt: skip
    table["KS"] = [f"{decimals(v)}" for v in table["KS"]]
    if intervals is not None:
        table["KS"] = [
            f"{decimals(iv.estimate)}  [{decimals(iv.ci_low)}, {decimals(iv.ci_high)}]"
            for iv in intervals
        ]
    return table


def ks_caption(curve_resamples: int, wanted: bool) -> str:
    """What KS is, and where its interval comes from."""
    return (
        "KS: the largest gap between the positives' and the negatives' score distributions "
        "(max |TPR − FPR|), and the score where it is reached"
        + (f"; its interval over {curve_resamples} resamples." if wanted else ".")
    )


def cost_caption(least: Mapping[str, tuple[float, str]]) -> str:
    """The total cost's formula, and each model's least cost with the threshold (as text)
    where it is reached (``least[m] = (cost, threshold label)``)."""
    return (
        "Total cost = cost_FP·FP + cost_FN·FN − benefit_TP·TP − benefit_TN·TN at every distinct "
        "threshold; dots mark each model's least cost: "
        + "; ".join(f"{md(m)} {cost:,.4g} at {at}" for m, (cost, at) in least.items())
        + "."
    )


def decision_caption(curve_resamples: int, resampled: str, wanted: bool) -> str:
    """What net benefit is, and what the shaded band is."""
    return DECISION_CAPTION + (
        f" Shaded: 95% band over {curve_resamples} resamples ({resampled})." if wanted else ""
    )

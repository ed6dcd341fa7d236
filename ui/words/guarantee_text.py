"""The words of the Threshold page's "with a guarantee" presets (no Streamlit).

The page shows three things side by side: the plain choice (the threshold where the metric on
these rows first meets the target), the guaranteed one (its 95% bound meets the target), and
what the guarantee costs (more rows flagged, a different precision).
"""

from __future__ import annotations

from collections.abc import Callable

from metrics.guarantees import GuaranteedThreshold
from ui.words.numbers import decimals

__all__ = ["METHOD_SOURCE", "NAMES", "guarantee_table", "guarantee_words"]

NAMES = {
    "recall": "recall",
    "precision": "precision",
    "specificity": "specificity",
    "fpr": "FPR",
    "npv": "NPV",
}
METHOD_SOURCE = (
    "[Clopper-Pearson](https://doi.org/10.1093/biomet/26.4.404) exact binomial bound, "
    "thresholds tested in a fixed sequence from the safest to the most aggressive "
    "([Learn-then-Test](https://arxiv.org/abs/2110.01052), Angelopoulos et al. 2021)"
)


def _three(value: float) -> str:
    return "—" if value != value else f"{decimals(value, 3)}"  # NaN: nothing flagged


def _side(result: GuaranteedThreshold) -> tuple[str, str]:
    """(the comparison, the bound's kind): FPR is held below its target."""
    return ("≤", "upper") if result.metric == "fpr" else ("≥", "lower")


def guarantee_table(
    result: GuaranteedThreshold, label: Callable[[float], str], amount: Callable[[float], str]
) -> list[dict[str, str]]:
    """Rows of a small table: the plain and the guaranteed choice, and what each gives."""
    op, kind = _side(result)
    name = NAMES[result.metric]
    rows = []
    for choice, point in (("plain: on these rows", result.plain), ("with a guarantee", result)):
        if point.threshold is None:
            rows.append({"choice": choice, "threshold": "none reaches the target"})
            continue
        rows.append(
            {
                "choice": choice,
                "threshold": label(point.threshold),
                f"{name} here": f"{decimals(point.estimate, 3)}",
                f"95% {kind} bound": f"{decimals(point.bound, 3)}",
                f"bound {op} {result.target:g}": "yes"
                if (point.bound <= result.target if op == "≤" else point.bound >= result.target)
                else "no",
                "flagged": amount(point.n_flagged),
                "precision": "—"
                if point.precision != point.precision
                else f"{decimals(point.precision, 3)}",
            }
        )
    return rows


def guarantee_words(
    result: GuaranteedThreshold,
    label: Callable[[float], str],
    amount: Callable[[float], str],
    unit: str = "rows",
) -> str:
    """One paragraph: what the guarantee says, what it costs, and the method by name;
    ``unit`` names what ``amount`` counts ("rows", or "weight" for sums of weights)."""
    op, kind = _side(result)
    name = NAMES[result.metric]
    pct = f"{result.confidence:.0%}"
    if result.threshold is None:
        return (
            f"No threshold can promise {name} {op} {result.target:g} at {pct} confidence on "
            f"these rows: even the safest one's {kind} bound misses it (too few rows of the "
            f"class behind {name}). Method: {METHOD_SOURCE}."
        )
    head = (
        f"**With a guarantee**: threshold {label(result.threshold)}, where {name} is "
        f"{decimals(result.estimate, 3)} and its one-sided {pct} {kind} bound is "
        f"{decimals(result.bound, 3)} "
        f"{op} {result.target:g}: the chance that a threshold chosen this way misses "
        f"{name} {op} {result.target:g} on new rows like these is at most "
        f"{1 - result.confidence:.0%}."
    )
    plain = result.plain
    if plain.threshold is None:
        cost = ""
    else:
        more = result.n_flagged - plain.n_flagged
        cost = (
            f" The plain choice (threshold {label(plain.threshold)}, {name} "
            f"{decimals(plain.estimate, 3)} "
            f"on these rows) has a bound of only {decimals(plain.bound, 3)}: chosen that way, a "
            "threshold "
            f"misses the target on new data about half the time. **The guarantee costs** "
            + (
                f"{amount(more)} more {unit} flagged"
                if more > 0
                else f"{amount(-more)} fewer {unit} flagged"
                if more < 0
                else f"no change in the {unit} flagged"
            )
            + (
                f", precision {decimals(plain.precision, 3)} → {decimals(result.precision, 3)}."
                if plain.precision == plain.precision and result.precision == result.precision
                else "."
            )
        )
    extra = result.method.split("; ")[1:]  # the effective sample size rule, if any
    tail = f" ({'; '.join(extra)})" if extra else ""
    return f"{head}{cost} Method: {METHOD_SOURCE}{tail}."

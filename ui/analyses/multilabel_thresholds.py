"""Choosing per-class thresholds on a multi-label table, in numbers and words: the library's
macro and micro optima against one shared threshold, in-sample and on a held-out half.

Pure functions, no Streamlit (``ui.views.multilabel_thresholds`` draws them). Every number
comes from :func:`metrics.optimise_thresholds` and :func:`metrics.choose_on_half`.
"""

from __future__ import annotations

import numpy as np

import metrics
from metrics.multiclass_thresholds import HalfSplitChoice
from ui.analyses import decision_rules as dr
from ui.analyses.multilabel_rules import Card
from ui.figures.multilabel_charts import ClassScores
from ui.words.numbers import decimals

OBJECTIVES = ("macro", "micro")


def choices(p: ClassScores, beta: float) -> tuple[metrics.ThresholdChoice, metrics.ThresholdChoice]:
    """The library's thresholds maximising macro-F-beta (exact) and micro-F-beta (local)."""
    y, s, w = p.y, p.scores, p.weight
    best = metrics.optimise_thresholds(y, s, objective="macro", beta=beta, sample_weight=w)
    micro = metrics.optimise_thresholds(y, s, objective="micro", beta=beta, sample_weight=w)
    return best, micro


def halves(p: ClassScores, beta: float, seed: int) -> dict[str, HalfSplitChoice]:
    """For macro and micro: thresholds chosen on a random half of the rows, reported on the
    other half (:func:`metrics.choose_on_half`)."""
    y, s, w = p.y, p.scores, p.weight
    return {
        obj: metrics.choose_on_half(y, s, objective=obj, beta=beta, sample_weight=w, seed=seed)
        for obj in OBJECTIVES
    }


def method_text(fb: str) -> str:
    """How the per-class thresholds are searched, for the F-beta named ``fb``."""
    return (
        f"Per class, the threshold that maximises its own {fb} (one sweep over its scores). "
        f"Each class's {fb} depends on its threshold only, so these are also **the exact "
        f"maximum of macro-{fb}**. **Micro-{fb}** pools the counts, so the classes interact: "
        "the search starts from the macro optimum and moves one class's threshold at a time "
        "while that helps (coordinate ascent) — a **local optimum**: no single move improves it, "
        "a joint move might."
    )


def choice_cards(
    p: ClassScores, best: metrics.ThresholdChoice, micro: metrics.ThresholdChoice, fb: str
) -> list[Card]:
    """Macro and micro F-beta with per-class thresholds, each beside one shared threshold."""
    return [
        Card(
            f"macro-{fb}, per-class thresholds",
            dr.fmt(best.macro),
            delta=f"{decimals(best.gain, plus=True)} vs one shared",
            delta_color="off" if best.gain == 0 else "normal",
        ),
        Card(
            f"macro-{fb}, shared threshold",
            dr.fmt(best.shared_value),
            help=f"One threshold for every class: {best.shared_threshold:g}.",
        ),
        Card(
            f"micro-{fb}, per-class thresholds",
            dr.fmt(micro.micro),
            delta=f"{decimals(micro.gain, plus=True)} vs one shared",
            delta_color="off" if micro.gain == 0 else "normal",
        ),
        Card(
            f"micro-{fb}, shared threshold",
            dr.fmt(micro.shared_value),
            help="One threshold for every class: "
            f"{dr.typed_cut(p.scores, micro.shared_threshold):g}.",
        ),
    ]


def choice_caption(
    p: ClassScores, best: metrics.ThresholdChoice, micro: metrics.ThresholdChoice
) -> str:
    """The best shared thresholds, the micro ascent's passes, and what inf means."""
    infinite = any(
        np.isinf(c.thresholds).any() or np.isinf(c.shared_threshold) for c in (best, micro)
    )
    return (
        f"Best shared threshold: {dr.typed_cut(p.scores, best.shared_threshold):g} for "
        f"macro, {dr.typed_cut(p.scores, micro.shared_threshold):g} for micro. "
        "Thresholds are written with the fewest digits that predict the same rows. "
        "The micro ascent took "
        f"{micro.rounds} pass{'es' * (micro.rounds != 1)}."
        + (" A threshold of inf predicts the class for no row." if infinite else "")
    )


def half_cards(split: dict[str, HalfSplitChoice], fb: str) -> list[Card]:
    """For macro then micro: the value on the choosing half, then on the held-out half."""
    shown = []
    for obj, h in split.items():
        shown.append(Card(f"{obj}-{fb}, choosing half", dr.fmt(h.choice.value)))
        shown.append(
            Card(
                f"{obj}-{fb}, held-out half",
                dr.fmt(h.report_value),
                delta=f"{decimals(-h.optimism, plus=True)} vs in-sample",
                help=f"The shared threshold, chosen on the same half, scores "
                f"{decimals(h.report_shared_value)} here: a held-out gain of "
                f"{decimals(h.report_gain, plus=True)}.",
            )
        )
    return shown


def half_caption(split: dict[str, HalfSplitChoice]) -> str:
    """How the rows were split, and whether per-class thresholds beat the shared one held out."""
    return (
        f"Rows split at random (seed 0): {split['macro'].chosen_rows.size:,} to choose, "
        f"{split['macro'].report_rows.size:,} to report. Held out, per-class thresholds "
        + " and ".join(
            f"{'beat' if g > 0 else 'lose to' if g < 0 else 'tie'} the shared one"
            + (f" by {decimals(abs(g))}" if g else "")
            + f" ({obj})"
            for obj, g in (
                ("macro", split["macro"].report_gain),
                ("micro", split["micro"].report_gain),
            )
        )
        + "."
    )

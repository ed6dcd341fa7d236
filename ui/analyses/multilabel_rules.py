"""The Multi-label page's decision rule in numbers and words: the scale the rule's controls read,
the sentences about bad input, the cards and the captions of the rule's results.

Pure functions, no Streamlit (``ui.views.multilabel_rule`` draws them). The rule's numbers are
:mod:`ui.analyses.decision_rules`' (the library's); this module only chooses what to say.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
import pandas as pd

import metrics
from ui.analyses import decision_rules as dr
from ui.figures.multilabel_charts import ClassScores
from ui.tables.roles import Scale, default_threshold, infer_scale


class Card(NamedTuple):
    """One ``st.metric`` card: its arguments."""

    label: str
    value: str
    delta: str | None = None
    delta_color: str = "normal"
    help: str | None = None


@dataclass(frozen=True)
class ScoreRange:
    """How the rule's controls read a score matrix: its scale, the slider's bounds and step, and
    the first threshold."""

    scale: Scale
    finite: np.ndarray  # the finite scores
    lo: float
    hi: float
    bounds: tuple[float, float]
    step: float
    default: float

    @property
    def abstain_default(self) -> float:
        """The first abstention cut-off: 0.5 for probabilities, else the median score."""
        return 0.5 if self.scale.kind == "probability" else float(np.median(self.finite))

    @property
    def floor(self) -> float:
        """The lowest cut-off: at or below every score (cut-offs there are plain argmax)."""
        return float(min(self.bounds[0], self.lo))


def score_range(p: ClassScores) -> ScoreRange:
    """The scale, slider bounds, step and first threshold for the scores of ``p``."""
    finite = p.scores[np.isfinite(p.scores)]
    scale = infer_scale(finite) if finite.size else infer_scale(np.array([0.5]))
    lo, hi = (float(finite.min()), float(finite.max())) if finite.size else (0.0, 1.0)
    if scale.kind == "probability":
        bounds, step = (0.0, 1.0), 0.01
    elif scale.kind == "percent":
        bounds, step = (0.0, 100.0), 1.0
    else:
        bounds = (lo, hi if hi > lo else lo + 1.0)
        step = float(f"{(bounds[1] - bounds[0]) / 200:.2g}")
    weight = None if p.weight is None else np.repeat(p.weight, p.n_classes)
    first = default_threshold(scale.kind, p.y.ravel(), p.scores.ravel(), weight)
    return ScoreRange(scale, finite, lo, hi, bounds, step, float(np.clip(first, *bounds)))


def typed_values(values: pd.Series, fallback: float) -> tuple[float, ...]:
    """Edited cells as numbers; an empty or non-numeric cell becomes ``fallback``."""
    typed = pd.to_numeric(values, errors="coerce").to_numpy(float)
    return tuple(float(t) for t in np.where(np.isnan(typed), fallback, typed))


def scale_caption(sr: ScoreRange) -> str:
    """How a multi-label table's scores are read, and the first threshold."""
    return (
        f"Scores read as {sr.scale.kind} ({sr.scale.reason}); the first threshold is "
        f"{sr.default:g}. Each class is scored on its own: a row's scores need not sum to 1."
    )


def input_notes(p: ClassScores, scale_kind: str, n_dropped: int) -> list[str]:
    """What the rules do with unusual input, each said once: rows not summing to 1, classes with
    no true row, missing scores, rows dropped when loading."""
    lines = []
    sums = p.scores.sum(axis=1)
    if (
        p.multiclass
        and scale_kind == "probability"
        and p.n_rows
        and not np.allclose(sums, 1, atol=1e-3)
    ):
        lines.append(
            f":material/info: Rows' scores sum to {sums.min():.3g}–{sums.max():.3g}, not 1: "
            "allowed. The rules compare the scores as they are (argmax is unchanged by scaling a "
            "row; an abstention cut-off is not)."
        )
    no_pos = [c for c, n in zip(p.classes, p.y.sum(axis=0), strict=True) if n == 0]
    if no_pos:
        lines.append(
            f":material/warning: {', '.join(no_pos)} ha{'ve' if len(no_pos) > 1 else 's'} no "
            "true row: its recall and F1 are 0/0, set to 0 (zero_division) and kept in macro; "
            "micro and weighted are unaffected by its missing positives, but its false positives "
            "count."
        )
    if np.isnan(p.scores).any():
        lines.append(
            ":material/warning: Some scores are missing (NaN): such a cell is never >= a "
            "threshold (thresholds and top-k treat it as not predicted)."
        )
    if n_dropped:
        lines.append(
            f"{n_dropped:,} row{'s' * (n_dropped != 1)} with a missing or bad label or score were "
            "dropped when loading (see the sidebar)."
        )
    return lines


def rule_intervals(
    p: ClassScores, rule: dr.Rule, beta: float, n_resamples: int, groups: np.ndarray | None
) -> metrics.DecisionIntervals:
    """The library's bootstrap of the rule's averages, its predictions fixed."""
    return metrics.decision_intervals(
        p.y, dr.indicator(p, rule), beta=beta, sample_weight=p.weight, groups=groups,
        n_resamples=n_resamples,
    )  # fmt: skip


def cards(ev: dr.Evaluation, rule: dr.Rule, multiclass: bool) -> list[Card]:
    """The rule's five cards: F1 by each average, then accuracy (top-k accuracy for a multi-class
    top-k with k > 1, where subset accuracy is 0 by construction)."""
    shown = [
        Card(f"F1 ({avg})", dr.fmt(ev.averages[("F1", avg)]), help=dr.AVERAGE_LINES[avg])
        for avg in dr.AVERAGES
    ]
    if multiclass and rule.kind == "top-k" and rule.k > 1:
        last = Card(
            f"top-{rule.k} accuracy",
            dr.fmt(ev.averages[("recall", "micro")]),
            help=f"The share of rows whose true class is among the {rule.k} predicted (micro "
            f"recall, as every row has one class). Subset accuracy is {dr.fmt(ev.accuracy)}: "
            f"with {rule.k} labels predicted the set never equals the one true class.",
        )
    else:
        last = Card(
            "accuracy" if rule.single else "subset accuracy",
            dr.fmt(ev.accuracy),
            help="metrics.accuracy_score: for sets of labels, the share of rows whose predicted "
            "set is exactly the true set.",
        )
    return [*shown, last]


def averages_caption(single: bool) -> str:
    """Where the averages table's cells come from."""
    return (
        "Each cell is metrics.precision_score / recall_score / f1_score / jaccard_score with "
        "that average."
        + (" None: samples averaging is not defined for one label per row." if single else "")
    )


def evaluation_notes(ev: dr.Evaluation) -> list[str]:
    """The library's warnings for the per-class values and the averages, each once."""
    return [
        f":material/warning: {msg}"
        for msg in dict.fromkeys(
            m for key in ("per class", *dr.AVERAGES) for m in ev.notes.get(key, ())
        )
    ]


def resamples_help(group: str | None) -> str:
    """What the resamples control does, and what a resample draws."""
    return (
        "Bootstrap resamples behind the 95% intervals of the averages here and of AP and AUC "
        "above (0: none). "
        + (f"Whole {group} values are resampled." if group is not None else "Rows are resampled.")
    )


def intervals_caption(
    spread: metrics.DecisionIntervals, single: bool, n_resamples: int, unit: str
) -> str:
    """The accuracy's interval and how the intervals were drawn."""
    return (
        f"95% bootstrap intervals of each average; "
        f"{'accuracy' if single else 'subset accuracy'} {dr.fmt(spread.accuracy)} "
        f"{dr.interval(spread.accuracy_interval)}. The rule's predictions fixed, "
        f"{n_resamples:,} resamples of {unit}; metrics.decision_intervals."
    )


def per_class_caption(weighted: bool) -> str:
    """What the per-class table's columns are."""
    return (
        ("Support and TP/FP/FN/TN are sums of sample weight. " if weighted else "")
        + "Support: true rows of the class. TP/FP/FN/TN: metrics.multilabel_confusion_matrix, "
        "each class against the rest; Jaccard = TP / (TP + FP + FN); MCC: "
        "metrics.matthews_corrcoef on the class's column."
    )

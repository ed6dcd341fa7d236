"""The words of the Threshold page (no Streamlit): the rule, the flagged count, the rate cards,
the formulas with the counts in, and what a preset chose."""

from __future__ import annotations

import math

from metrics import Confusion
from metrics.thresholds import ThresholdChoice
from ui.words.numbers import decimals
from ui.words.safe import md
from ui.words.text import fraction, num

__all__ = [
    "PREVALENCE_HELP",
    "SHORT",
    "amount",
    "explain_lines",
    "explain_note",
    "flagged_line",
    "mode_help",
    "preset_caption",
    "rate_cards",
    "reweight_caption",
    "rule",
]

PREVALENCE_HELP = (
    "What if the positive class made up this share of the rows? Each positive row is "
    "reweighted by new / current prevalence and each negative by the same for the negative "
    "class (the total weight unchanged), as if the classes came in that balance with the "
    "same scores within each class. ROC and AUC do not move; precision, the PR curve, AP, "
    "F1, accuracy and the presets' thresholds do. Empty: the data as it is."
)
# Presenting: two long card names are shortened to fit a tenth of the row; their help says them
# whole.
SHORT = {"Balanced accuracy": "Bal. acc.", "Cohen's kappa": "Cohen's κ"}


def rule(positive_name: str, scale_title: str) -> str:
    """The sentence that says which rows a threshold predicts positive."""
    return (
        f"A row is predicted **{md(positive_name)}** when its score is at least the threshold "
        f"({md(scale_title)} scale)."
    )


def mode_help(weighted: bool) -> str:
    """The help of "Set it by": weighted counts have no "top k" rows."""
    if weighted:
        return (
            "score: the threshold itself. top %: flag the highest-scored rows up to that share "
            "of the total weight (rows tied with the last one come in with it)."
        )
    return (
        "score: the threshold itself. top k / top %: flag that many of the "
        "highest-scored rows (rows tied with the last one come in with it)."
    )


def amount(v: float, weighted: bool) -> str:
    """A count of rows ("1,234"), or a sum of weights to two decimals ("1,004.5")."""
    return f"{v:,.2f}".rstrip("0").rstrip(".") if weighted else f"{v:,.0f}"


def flagged_line(
    shown_threshold: str,
    positive_name: str,
    flagged: float,
    n_total: float,
    *,
    weighted: bool,
    prevalence: float | None,
    data_prevalence: float,
    presenting: bool,
) -> str:
    """How many rows (or how much weight) the threshold flags, and on a projector the balance."""
    total = (
        f"rows of weight **{amount(flagged, weighted)}** of the total {amount(n_total, weighted)}"
        if weighted
        else f"**{amount(flagged, weighted)}** of {amount(n_total, weighted)} rows"
    )
    end = " (none: the threshold is above every score)." if flagged == 0 else "."
    balance = (
        f" Reweighted to prevalence **{float(prevalence):.3f}** (data {data_prevalence:.3f})."
        if prevalence is not None and presenting  # (the projector has no room for the caption)
        else ""
    )
    return (
        f"Scores ≥ **{shown_threshold}** are predicted {md(positive_name)}: "
        + total
        + end
        + balance
    )


def reweight_caption(
    prevalence: float, data_prevalence: float, positive_name: str, negative_name: str
) -> str:
    """What reweighting to ``prevalence`` does to each class's rows."""
    return (
        f"Reweighted to a prevalence of **{prevalence:.3f}** (the data's: "
        f"{data_prevalence:.3f}): each {md(positive_name)} row counts "
        f"{prevalence / data_prevalence:.3g} and each {md(negative_name)} row "
        f"{(1 - prevalence) / (1 - data_prevalence):.3g}. ROC and AUC stay put; "
        "precision, PR, AP and F1 move. The guaranteed presets still use the rows as they are."
    )


def _rate(value: float, defined: bool) -> str:
    return f"{decimals(value, 3)}" if defined and math.isfinite(value) else "—"


def rate_cards(c: Confusion, beta: float, has_pos: bool, has_neg: bool) -> list[tuple[str, ...]]:
    """(name, value, formula) of the ten rate cards; "—" where the rate is undefined."""
    return [
        (
            "Precision",
            _rate(c.precision, True),
            "TP / (TP + FP); 0 when nothing is predicted positive",
        ),
        ("Recall (TPR)", _rate(c.recall, has_pos), "TP / (TP + FN); undefined without positives"),
        ("FPR", _rate(c.fpr, has_neg), "FP / (FP + TN); undefined without negatives"),
        (
            "Specificity",
            _rate(c.specificity, has_neg),
            "TN / (TN + FP); undefined without negatives",
        ),
        ("Prevalence", _rate(c.prevalence, True), "(TP + FN) / n"),
        ("Accuracy", _rate(c.accuracy, True), "(TP + TN) / n"),
        (
            "Balanced accuracy",
            _rate(c.balanced_accuracy, has_pos and has_neg),
            "(recall + specificity) / 2; undefined with one class",
        ),
        (f"F{beta:g}", _rate(c.f_beta(beta), True), "(1 + b²) TP / ((1 + b²) TP + b² FN + FP)"),
        ("MCC", _rate(c.mcc, True), "(TP·TN − FP·FN) / √((TP+FP)(TP+FN)(TN+FP)(TN+FN)); 0 if 0/0"),
        ("Cohen's kappa", _rate(c.cohen_kappa, True), "(p_o − p_e) / (1 − p_e)"),
    ]


def explain_lines(c: Confusion, beta: float, n_total: float) -> list[str]:
    """Each rate's formula with the counts at the threshold in."""
    b2 = beta * beta
    kappa_chance = ((c.tp + c.fp) * (c.tp + c.fn) + (c.tn + c.fn) * (c.tn + c.fp)) / max(
        n_total, 1
    ) ** 2
    return [
        fraction("precision", "TP", "TP + FP", c.tp, c.tp + c.fp),
        fraction("recall", "TP", "TP + FN", c.tp, c.tp + c.fn),
        fraction("FPR", "FP", "FP + TN", c.fp, c.fp + c.tn),
        fraction("specificity", "TN", "TN + FP", c.tn, c.tn + c.fp),
        fraction("accuracy", "TP + TN", "n", c.tp + c.tn, n_total),
        fraction("prevalence", "TP + FN", "n", c.tp + c.fn, n_total),
        rf"F_{{{beta:g}}} = \frac{{(1+\beta^2)\,TP}}{{(1+\beta^2)\,TP + \beta^2 FN + FP}} = "
        rf"\frac{{{num((1 + b2) * c.tp)}}}{{{num((1 + b2) * c.tp)} + {num(b2 * c.fn)} + "
        rf"{num(c.fp)}}} = {num(c.f_beta(beta))}",
        r"\text{MCC} = \frac{TP\cdot TN - FP\cdot FN}{\sqrt{(TP+FP)(TP+FN)(TN+FP)(TN+FN)}} = "
        rf"\frac{{{num(c.tp)}\cdot{num(c.tn)} - {num(c.fp)}\cdot{num(c.fn)}}}"
        rf"{{\sqrt{{{num(c.tp + c.fp)}\cdot{num(c.tp + c.fn)}\cdot{num(c.tn + c.fp)}\cdot"
        rf"{num(c.tn + c.fn)}}}}} = {num(c.mcc)}",
        r"\kappa = \frac{p_o - p_e}{1 - p_e},\quad p_o = \text{accuracy} = "
        rf"{num(c.accuracy)},\quad p_e = {num(kappa_chance)},\quad \kappa = {num(c.cohen_kappa)}",
    ]


def explain_note(shown_threshold: str, n_total: float, weighted: bool) -> str:
    """What TP, FP, TN, FN and n are, and how 0/0 reads."""
    return (
        f"TP, FP, TN, FN sum the weights of the rows at threshold {shown_threshold}; "
        f"n = {amount(n_total, weighted)} is the total weight. "
        if weighted
        else f"TP, FP, TN, FN count the rows at threshold {shown_threshold}; n = {n_total:,.0f}. "
    ) + (
        "p_e is the agreement expected by chance: the products of the predicted and actual "
        "class shares, summed over both classes. A ratio 0/0 is shown as 0, except the rates of "
        "a class the data does not have, which are undefined."
    )


def preset_caption(preset: str, choice: ThresholdChoice, beta: float, target: float) -> str:
    """What a plain preset chose: its threshold and the value it maximised (or minimised)."""
    if choice.threshold is None:
        return f"No threshold reaches the target {target:g} for {preset.lower()}."
    criterion = {
        "Max F-beta": f"F{beta:g}",
        "Youden's J": "J = TPR − FPR",
        "Precision ≥ target": f"recall, the highest with precision ≥ {target:g}",
        "Recall ≥ target": f"precision, the highest with recall ≥ {target:g}",
        "Least cost": "total cost, the least",
    }[preset]
    return f"{preset}: threshold {choice.threshold:.6g}, where {criterion} is {choice.value:.4g}."

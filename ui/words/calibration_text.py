"""The words of the Calibration page (no Streamlit): what the bands and errors are, the formulas
with the first model's numbers in, and what recalibration changes."""

from __future__ import annotations

import math

import numpy as np

from metrics import BrierDecomposition
from ui.words.numbers import decimals
from ui.words.safe import md
from ui.words.text import num, tex_name

__all__ = [
    "BAND_HELP",
    "BAND_LABEL",
    "ECE_NOTE",
    "ERRORS",
    "MAP_LINES",
    "MAP_NOTE",
    "METHODS",
    "METHOD_HELP",
    "NEEDS_ROWS",
    "OUT_OF_FOLD",
    "WHAT_CHANGES",
    "ece_lines",
    "interval",
    "not_probabilities",
    "reliability_caption",
    "resampled",
]

NEEDS_ROWS = (
    "Calibration needs the rows, and a server dataset gives the page only the engine's "
    "per-score counts of one model. The reliability values alone would follow from those "
    "counts, but the bootstrap bands resample rows (or whole groups), and recalibration "
    "fits its maps on some rows and scores the others (cross-fitting): neither can be done "
    "on counts. Load the table as an upload (or a sample of it) to use this page."
)
BAND_LABEL = {"simultaneous": "95% simultaneous band", "pointwise": "95% band"}
BAND_HELP = (
    "Simultaneous: every bin's true rate lies inside its band at once with 95% "
    "probability (bootstrap sup-t band, Montiel Olea & Plagborg-Møller 2019). Pointwise: "
    "each bin's band holds its own rate 95% of the time; with ten bins, some bin's usually "
    "misses."
)
ERRORS = (
    "Brackets: 95% intervals. **RMS calibration error**: the root of the debiased squared "
    'calibration error of Kumar, Liang & Ma (2019, "Verified uncertainty calibration"): '
    "each bin's squared gap minus the part its sampling noise adds, so a calibrated model "
    "is not shown miscalibrated by noise (0 means the gaps are no larger than noise "
    "makes them). Its interval keeps every error the data do not reject at 5% (a "
    "bootstrap test inverted over worlds whose error is known), and always contains the "
    "estimate; in simulation it covered the true error 93-95% of the time at 1,000 "
    "and 2,000 rows, calibrated or not. ECE, MCE, reliability and resolution are "
    "binned plug-in values, biased "
    "upwards (most for small bins), so they are shown without intervals: a percentile "
    "interval of theirs can lie wholly above the value itself. "
    "ECE (expected calibration error): the gap between each "
    "bin's observed rate and mean prediction, averaged with the bins' shares of rows; MCE: "
    "the largest gap. Brier = reliability − resolution + uncertainty (+ two small "
    "within-bin terms): reliability is miscalibration (lower is better), resolution how "
    "far the bins' rates spread from the base rate (higher is better), uncertainty the "
    "base rate's own Brier score."
)
ECE_NOTE = (
    'Sources: A. Kumar, P. Liang and T. Ma (2019), "Verified uncertainty '
    'calibration", NeurIPS (the debiased squared calibration error); A. H. Murphy '
    '(1973), "A new vector partition of the probability score", Journal of Applied '
    "Meteorology 12 (the decomposition), with the within-bin "
    "terms of D. B. Stephenson, C. A. S. Coelho and I. T. Jolliffe (2008), Weather and "
    'Forecasting 23; M. P. Naeini, G. F. Cooper and M. Hauskrecht (2015), "Obtaining well '
    'calibrated probabilities using Bayesian binning", AAAI (ECE and MCE); J. L. Montiel Olea '
    'and M. Plagborg-Møller (2019), "Simultaneous confidence bands: theory, implementation, '
    'and an application to SVARs", Journal of Applied Econometrics 34 (the sup-t band). '
    "Binned estimates: small bins inflate ECE even for a perfectly calibrated model."
)
METHODS = {
    "platt": "Platt (logistic on the score)",
    "isotonic": "isotonic (pool-adjacent-violators)",
    "temperature": "temperature (one slope on the logit)",
    "beta": "beta (three parameters)",
}
METHOD_HELP = (
    "Each row's probability comes from a map fitted on the other four folds of five "
    "(stratified by class), so no row's label shapes its own probability."
)
WHAT_CHANGES = (
    "**What recalibration changes:** the probabilities themselves, so the Brier score, log "
    "loss, ECE and the reliability diagram move, and so does every threshold read as a "
    "probability: the same rows are flagged at the threshold in the last column, and a cut "
    "at 0.5 flags a different share. **What it cannot change:** the ranking. A monotone map "
    "leaves ROC AUC, AP and every ROC point exactly as they were: see the column “AUC, one "
    "map for all rows”. The out-of-fold AUC can differ because each fold has its own map, "
    "so rows of different folds can swap places (most where many rows share nearly the "
    "same score), and isotonic's flat steps tie rows. A model that ranks "
    "badly stays bad: recalibration fixes what the scores mean, not what they know."
)
OUT_OF_FOLD = (
    "Out of fold: five folds stratified by class; each row is mapped by a calibrator fitted "
    "on the other four. The threshold column translates the model's current threshold (the "
    "Threshold page's) through the map fitted on every row."
)
MAP_LINES = [
    r"\text{Platt: } \hat p = \sigma(a\,s + b)",
    r"\text{isotonic: } \hat p = \text{the non-decreasing step fit of } y \text{ on } s"
    r"\ (\text{pool-adjacent-violators})",
    r"\text{temperature: } \hat p = \sigma\big(\operatorname{logit}(s) / T\big)",
    r"\text{beta: } \hat p = \sigma\big(a \ln s - b \ln(1 - s) + c\big),\ a, b \ge 0",
]
MAP_NOTE = (
    'Sources: J. Platt (1999), "Probabilistic outputs for support vector machines and '
    'comparisons to regularized likelihood methods"; B. Zadrozny and C. Elkan (2002), '
    '"Transforming classifier scores into accurate multiclass probability estimates", KDD '
    '(isotonic); C. Guo, G. Pleiss, Y. Sun and K. Q. Weinberger (2017), "On calibration of '
    'modern neural networks", ICML (temperature); M. Kull, T. Silva Filho and P. Flach '
    '(2017), "Beta calibration: a well-founded and easily implemented improvement on '
    'logistic calibration for binary classifiers", AISTATS. Temperature takes scores '
    "outside [0, 1] as logits; beta needs probabilities."
)


def interval(estimate: float, low: float, high: float) -> str:
    """``"0.0312  [0.0101, 0.0544]"``, or the estimate alone without an interval."""
    if math.isnan(low):
        return f"{decimals(estimate)}"
    return f"{decimals(estimate)}  [{decimals(low)}, {decimals(high)}]"


def resampled(group_column: str | None, clustered: bool) -> str:
    """What the bootstrap resamples: whole groups or rows."""
    if clustered:
        return f"cluster bootstrap, whole {md(group_column)} values resampled"
    return "bootstrap, rows resampled"


def not_probabilities(model: str, score: np.ndarray) -> str:
    """Why a model whose scores leave [0, 1] has no reliability diagram."""
    return (
        f"**{md(model)}** scores run from {float(np.min(score)):.4g} to "
        f"{float(np.max(score)):.4g}: they are not probabilities, so they have no reliability "
        "diagram, ECE or Brier score. Recalibrate them below (Platt or isotonic) to turn them "
        "into probabilities."
    )


def reliability_caption(resampled: str, n_resamples: int, band_kind: str) -> str:
    """What a dot and its band are."""
    if not n_resamples:
        return (
            "Each dot is a bin: its mean predicted probability against the share of positives "
            "in it. Set resamples above 0 for bands and intervals."
        )
    return (
        f"Each dot is a bin: its mean predicted probability against the share of positives in "
        f"it; the shaded band is the 95% {resampled} interval of that share "
        f"({n_resamples} resamples; bin edges fixed), "
    ) + (
        "simultaneous: every bin's true share inside at once with 95% probability "
        "(bootstrap sup-t band, Montiel Olea & Plagborg-Møller 2019)."
        if band_kind == "simultaneous"
        else "pointwise: each bin's true share inside 95% of the time, one bin at a time."
    )


def ece_lines(
    model: str,
    d: BrierDecomposition,
    squared_error: float,
    rms: float,
    ece: float,
    share: np.ndarray,
    gaps: np.ndarray,
) -> list[str]:
    """The debiased error, ECE, MCE and the Brier decomposition with ``model``'s numbers in
    (``share`` and ``gaps``: each bin's share of the rows and its gap, for ECE's first terms)."""
    terms = " + ".join(
        f"{num(a, 3)} \\cdot {num(b, 3)}" for a, b in zip(share[:3], gaps[:3], strict=True)
    )
    return [
        r"\widehat{\text{CE}^2} = \sum_b \frac{n_b}{n}\Big[\big(\bar y_b - \bar p_b\big)^2 "
        r"- \frac{s_b^2}{n_b}\Big],\quad s_b^2 = \text{the variance of } y - p "
        r"\text{ in bin } b",
        rf"\widehat{{\text{{CE}}^2}}_{{\text{{{tex_name(model)}}}}} = "
        rf"{num(squared_error, 6)}"
        rf" \ (\text{{plug-in}}\ {num(d.reliability, 6)}), \qquad \text{{RMS}} = "
        rf"{num(rms)}",
        r"\text{ECE} = \sum_b \frac{n_b}{n}\,\big|\bar y_b - \bar p_b\big|, \qquad "
        r"\text{MCE} = \max_b \big|\bar y_b - \bar p_b\big|",
        rf"\text{{ECE}}_{{\text{{{tex_name(model)}}}}} = {terms}"
        + (r" + \dots" if len(share) > 3 else "")
        + f" = {num(ece)}",
        r"\text{Brier} = \underbrace{\sum_b \tfrac{n_b}{n}(\bar p_b - \bar y_b)^2}_"
        r"{\text{reliability}} - \underbrace{\sum_b \tfrac{n_b}{n}(\bar y_b - \bar y)^2}_"
        r"{\text{resolution}} + \underbrace{\bar y(1 - \bar y)}_{\text{uncertainty}} "
        r"+ \text{within-bin terms}",
        rf"{num(d.brier)} = {num(d.reliability)} - {num(d.resolution)} + "
        rf"{num(d.uncertainty)} + {num(d.within_bin_variance)} - "
        rf"{num(d.within_bin_covariance)}",
    ]

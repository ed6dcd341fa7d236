"""The words of the Decision curves page (no Streamlit): what each chart shows, its formulas
with the first model's numbers in, and their published sources."""

from __future__ import annotations

import math

from metrics import EqualErrorRate
from ui.words.safe import md
from ui.words.text import num, tex_name

__all__ = [
    "BRIER",
    "BRIER_NOTE",
    "COST",
    "COST_NOTE",
    "DET",
    "DET_NOTE",
    "GAIN",
    "GAIN_NOTE",
    "RATIO_HELP",
    "brier_lines",
    "cost_lines",
    "det_lines",
    "gain_lines",
    "not_probabilities",
    "same_envelopes",
]

RATIO_HELP = (
    "C(−|+) / C(+|−): how many false positives one false negative costs. With the "
    "prevalence it sets the probability cost PC(+) marked on the chart."
)
COST = (
    "Each solid line is a model's lower envelope: the least normalised expected cost any "
    "threshold reaches at each probability cost. The dashed line is its current threshold "
    "(the Threshold page's); where it lies above the envelope, another threshold is cheaper "
    "at that cost ratio. The grey dotted lines are treating no one (cost = x) and treating "
    "everyone (cost = 1 − x). The vertical line marks your cost ratio."
)
COST_NOTE = (
    'Source: C. Drummond and R. C. Holte (2006), "Cost curves: an improved method '
    'for visualizing classifier performance", Machine Learning 65, 95-130. Normalised '
    "expected cost divides the expected cost by its largest value at that PC(+), so 1 is "
    "always wrong and the trivial classifiers are the two diagonals. The envelope's pieces "
    "are the vertices of the ROC convex hull; its area is the expected cost when every "
    "probability cost is equally likely."
)
BRIER = (
    "Solid: the cost when each operating point x sets the threshold p ≥ 1 − x, as a "
    "calibrated model allows; dotted: the cost envelope, the best threshold at each x. "
    "The gap between them is what miscalibration costs."
)
BRIER_NOTE = (
    'Source: J. Hernández-Orallo, P. Flach and C. Ferri (2011), "Brier curves: a '
    'new cost-based visualisation of classifier performance", ICML; and (2012) "A '
    "unified view of performance metrics: translating threshold choice into expected "
    'classification loss", JMLR 13. The area is the Brier score with the two classes '
    "weighted equally."
)
GAIN = (
    "Gains rescale precision and recall so that 0 is the always-positive classifier's value "
    "(the prevalence) and 1 is perfect; points with recall below the prevalence fall off the "
    "left edge. AUPRG is the area over recall gain in [0, 1] (negative precision gain "
    "counts negatively): unlike AP it is linear in the F-scores it summarises and its "
    "chance level is 0 at any prevalence."
)
GAIN_NOTE = (
    'Source: P. Flach and M. Kull (2015), "Precision-Recall-Gain curves: PR analysis '
    'done right", NeurIPS 28 (the area as their reference code computes it).'
)
DET = (
    "Both axes are normal deviates (probit): a model whose two classes' scores are normal "
    "with equal spread draws a straight line, and the low error rates that matter in "
    "screening and verification spread out instead of crowding a corner. Diamonds mark the "
    "equal error rate, where the curve crosses FPR = FNR; rates of exactly 0 or 1 lie at "
    "infinity and are not drawn."
)
DET_NOTE = (
    "Source: A. Martin, G. Doddington, T. Kamm, M. Ordowski and M. Przybocki (1997), "
    '"The DET curve in assessment of detection task performance", Eurospeech. The EER '
    "joins the curve's points with straight lines where it crosses the diagonal; a point "
    "on such a segment is reached by flagging the tied rows at random."
)


def same_envelopes(hidden: list[tuple[str, str]]) -> str:
    """The note for models whose envelopes coincide, so only one line of each pair shows."""
    return (
        ":material/visibility_off: "
        + "; ".join(f"{md(a)} draws exactly over {md(b)}" for a, b in hidden)
        + ": the same envelope (the models rank the rows alike), so only one line shows."
    )


def not_probabilities(models: list[str]) -> str:
    """Why models whose scores leave [0, 1] have no Brier curve."""
    return (
        "Not probabilities, so no Brier curve: "
        + ", ".join(f"**{md(m)}**" for m in models)
        + " (scores outside [0, 1]). A Brier curve sets the threshold from the score itself "
        "(flag p ≥ 1 − x), which only makes sense for probabilities: recalibrate them on the "
        "Calibration page first."
    )


def cost_lines(model: str, prevalence: float, ratio: float, row: dict) -> list[str]:
    """PC(+), the normalised expected cost and the envelope, with ``model``'s row of the cost
    table in."""
    return [
        r"\text{PC}(+) = \frac{p(+)\,C(-\mid+)}{p(+)\,C(-\mid+) + p(-)\,C(+\mid-)} = "
        rf"\frac{{{num(prevalence)} \cdot {num(ratio)}}}{{{num(prevalence)} \cdot "
        rf"{num(ratio)} + {num(1 - prevalence)}}} = {num(row['PC(+)'])}",
        r"\text{NEC}(x) = \text{FNR}\cdot x + \text{FPR}\cdot(1 - x)",
        rf"\text{{NEC}}_{{\text{{{tex_name(model)}}}}}({num(row['PC(+)'])}) = "
        rf"{num(row['FNR'])} \cdot {num(row['PC(+)'])} + {num(row['FPR'])} \cdot "
        rf"{num(1 - row['PC(+)'])} = {num(row['cost at threshold'])}",
        r"\text{envelope}(x) = \min_{t}\ \text{NEC}_t(x) \quad (\text{every threshold, "
        r"treat none and treat all}) = " + num(row["least cost (envelope)"]),
    ]


def brier_lines(model: str, pos_term: float, neg_term: float, area: float) -> list[str]:
    """The Brier curve's loss and its area as half the two classes' squared errors."""
    return [
        r"\text{threshold at } x:\ \text{flag } p \ge 1 - x, \qquad "
        r"\text{loss}(x) = \text{FNR}(1 - x)\cdot x + \text{FPR}(1 - x)\cdot(1 - x)",
        r"\int_0^1 \text{loss}(x)\,dx = \tfrac12\Big(\overline{(1 - p)^2}_{+} + "
        r"\overline{p^2}_{-}\Big)",
        rf"\tfrac12\,({num(pos_term)} + {num(neg_term)}) = "
        rf"{num((pos_term + neg_term) / 2)} \approx {num(area)}"
        rf"\ (\text{{{tex_name(model)}}})",
    ]


def gain_lines(
    model: str, n_pos: float, n_neg: float, prevalence: float, auprg: float, ap: float
) -> list[str]:
    """Precision and recall gain, the prevalence, and ``model``'s AUPRG beside its AP."""
    return [
        r"\text{precG} = \frac{\text{prec} - \pi}{(1 - \pi)\,\text{prec}}, \qquad "
        r"\text{recG} = \frac{\text{rec} - \pi}{(1 - \pi)\,\text{rec}}",
        rf"\pi = \frac{{P}}{{P + N}} = \frac{{{num(n_pos)}}}{{{num(n_pos + n_neg)}}}"
        rf" = {num(prevalence)}",
        rf"\text{{AUPRG}}_{{\text{{{tex_name(model)}}}}} = \int_0^1 \text{{precG}}\;"
        rf"d\,\text{{recG}} = {num(auprg)}, \qquad \text{{AP}} = {num(ap)}",
    ]


def det_lines(model: str, e: EqualErrorRate) -> list[str]:
    """The DET axes and ``model``'s equal error rate, with the threshold nearest it."""
    return [
        r"x = \Phi^{-1}(\text{FPR}), \qquad y = \Phi^{-1}(\text{FNR})",
        rf"\text{{EER}}_{{\text{{{tex_name(model)}}}}} = \text{{FPR}} = \text{{FNR}} = "
        rf"{num(e.rate)}"
        + (
            rf"\quad(\text{{nearest threshold }} {num(e.threshold)}:\ \text{{FPR}} "
            rf"{num(e.fpr)},\ \text{{FNR}} {num(e.fnr)})"
            if math.isfinite(e.threshold)
            else ""
        ),
    ]

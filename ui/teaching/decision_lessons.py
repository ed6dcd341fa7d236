"""The lessons on decisions and probabilities: cost curves, and calibration (ECE, MCE and
Brier reliability).
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import plotly.graph_objects as go

import metrics
from ui.figures import calibration_charts, decision_charts
from ui.teaching.exercise import Exercise, binary_draw, hinted, rows_table, seeded_rng
from ui.words.text import num

# --- cost curves ----------------------------------------------------------------------------

DRUMMOND_HOLTE = (
    "Drummond & Holte, Cost curves: an improved method for visualizing classifier performance, "
    "Machine Learning 65 (2006)"
)


def _cost_lesson_figure(pc, nec, fpr, fnr, threshold, x, answer) -> go.Figure:
    """The table's cost curve and one threshold's cost line, the asked point marked."""
    lines = decision_charts.CostLines(
        name="this table",
        x=pc,
        cost=nec,
        fpr=float(fpr),
        fnr=float(fnr),
        threshold=threshold,
        area=float(metrics.auc(pc, nec)),
    )
    fig = decision_charts.cost_figure([lines], height=400)
    fig.add_vline(x=x, line=dict(color="#9a9a9a", width=1))
    fig.add_trace(
        go.Scatter(
            x=[x],
            y=[answer],
            mode="markers",
            name=f"the answer at PC(+) = {x:g}",
            marker=dict(size=11, color="#111111", symbol="x"),
        )
    )
    fig.update_yaxes(range=[0, 1])
    fig.update_layout(title=dict(text="Cost curve", x=0, xanchor="left", font=dict(size=14)))
    return fig


def cost_curve(seed: int) -> Exercise:
    rng = seeded_rng("cost_curve", seed)
    while True:  # a useful model, not a perfect one: some cost at every PC(+) inside (0, 1)
        y, s = binary_draw(rng, 8, ties=False)
        if 0.7 <= metrics.roc_auc_score(y, s) < 1:
            break
    x = float(rng.choice([0.2, 0.25, 0.3, 0.4, 0.6, 0.7, 0.75, 0.8]))
    fpr, tpr, thresholds = metrics.roc_curve(y, s)
    fnr = 1 - tpr
    lines_at_x = fnr * x + fpr * (1 - x)  # each threshold's cost line at x
    pc, nec = metrics.cost_curve(y, s)
    envelope = float(np.interp(x, pc, nec))  # the cost curve is straight between its corners
    best = int(np.argmin(lines_at_x))
    labels = [
        "none" if np.isinf(t) else f"{t:g}" + (" (all)" if i == len(thresholds) - 1 else "")
        for i, t in enumerate(thresholds)
    ]
    rows = [
        rf"\text{{{lab}}} & {num(a)} & {num(b)} & {num(v)}"
        for lab, a, b, v in zip(labels, fpr, fnr, lines_at_x, strict=True)
    ]
    lines = [
        r"\text{PC}(+) = \frac{p(+)\,C(-|+)}{p(+)\,C(-|+) + p(-)\,C(+|-)}"
        rf" = {x:g}",
        r"\text{NEC} = \text{FNR} \cdot \text{PC}(+) + \text{FPR} \cdot (1 - \text{PC}(+))",
        r"\begin{array}{r|ccc} t & \text{FPR} & \text{FNR} & \text{NEC at } "
        + f"{x:g}"
        + r" \\ \hline "
        + r" \\ ".join(rows)
        + r"\end{array}",
    ]
    if seed % 2:
        i = shown = int(rng.integers(1, len(thresholds) - 1))  # a threshold strictly inside
        t = float(thresholds[i])
        answer = float(lines_at_x[i])
        lines.append(
            rf"\text{{NEC}}_{{t = {t:g}}} = {num(fnr[i])} \cdot {x:g} + {num(fpr[i])} \cdot "
            rf"{num(1 - x)} = {num(answer)}\quad(\text{{the cost curve there: }} "
            rf"{num(envelope)})"
        )
        question = (
            f"Operating at threshold {t:g} (a score at least {t:g} is positive), what is the "
            f"normalized expected cost at probability cost PC(+) = {x:g}?"
        )
        hint = (
            f"At threshold {t:g} find FPR (negatives at or above it, over all negatives) and "
            f"FNR (positives below it, over all positives); then NEC = FNR·PC(+) + "
            "FPR·(1 − PC(+)): FNR is the line's height at PC(+) = 1."
        )
        traps = [
            (
                fpr[i] * x + fnr[i] * (1 - x),
                "FPR and FNR are swapped: the line runs "
                "from FPR at PC(+) = 0 to FNR at PC(+) = 1, so FNR is multiplied by PC(+).",
            )
        ]
    else:
        answer, shown = envelope, best
        lines.append(
            rf"\text{{cost curve at }} {x:g} = \min = {num(envelope)}\ "
            rf"(\text{{threshold {labels[best]}}})"
        )
        question = (
            f"What is the cost curve's value at probability cost PC(+) = {x:g}: the lowest "
            "normalized expected cost any threshold reaches there?"
        )
        hint = (
            "Every threshold gives a line NEC = FNR·PC(+) + FPR·(1 − PC(+)); evaluate each at "
            f"PC(+) = {x:g} (predicting none costs {x:g}, predicting all {1 - x:g}) and take "
            "the lowest."
        )
        swapped = fpr * x + fnr * (1 - x)
        traps = [
            (
                float(swapped.min()),
                "FPR and FNR are swapped: FNR is the line's height at "
                "PC(+) = 1, so it is multiplied by PC(+).",
            )
        ]
    ex = Exercise(
        table=rows_table(y, s),
        context="A threshold's ROC point (FPR, FNR) becomes a straight line of normalized "
        "expected cost over the probability cost PC(+), from FPR at 0 to FNR at 1. Predicting "
        "no row positive costs PC(+); predicting every row positive costs 1 − PC(+).",
        question=question,
        answer=answer,
        derivation=tuple(lines),
        curves=(y, s),
        figure=_cost_lesson_figure(
            pc, nec, fpr[shown], fnr[shown], float(thresholds[shown]), x, answer
        ),
        note="The cost curve is the lower envelope of every threshold's line: at each mix of "
        "class priors and costs, the cost of the best threshold, 0 for a perfect classifier "
        f"and at most min(PC, 1 − PC) ({DRUMMOND_HOLTE}).",
        facts={
            f"cost curve at {x:g}": envelope,
            f"cheapest threshold at {x:g}": float(thresholds[best]),
            "cost of predicting none": x,
            "cost of predicting all": 1 - x,
        },
    )
    return hinted(ex, hint, *traps)


# --- calibration ----------------------------------------------------------------------------

GUO = "Guo, Pleiss, Sun & Weinberger, On Calibration of Modern Neural Networks, ICML 2017"
CALIBRATION_MEASURES = ("ECE", "MCE", "reliability")


def _edge(b: int, n_bins: int) -> str:
    """A bin edge b / n_bins for LaTeX: a decimal when it is short, else a fraction."""
    edge = Fraction(b, n_bins)
    if edge.denominator in (1, 2, 4, 5, 10, 20):
        return f"{float(edge):g}"
    return rf"\tfrac{{{edge.numerator}}}{{{edge.denominator}}}"


def _calibration_exercise(y, p, n_bins: int, what: str, context: str) -> Exercise:
    y, p = np.asarray(y, dtype=int), np.asarray(p, dtype=float)
    prob_true, prob_pred, sizes = metrics.calibration_curve(y, p, n_bins=n_bins)
    edges = np.linspace(0.0, 1.0, n_bins + 1)
    used = np.unique(np.searchsorted(edges[1:-1], p))  # inner edges go to the lower bin
    gaps = np.abs(prob_true - prob_pred)
    n = len(y)
    rows = [
        rf"{'[' if b == 0 else '('}{_edge(b, n_bins)}, {_edge(b + 1, n_bins)}] & {int(m)} & "
        rf"{num(pp)} & "
        rf"{num(pt)} & {num(g)}"
        for b, m, pp, pt, g in zip(used, sizes, prob_pred, prob_true, gaps, strict=True)
    ]
    lines = [
        r"\begin{array}{c|cccc} \text{bin} & n_b & \bar p_b & \bar y_b & |\bar y_b - \bar p_b| "
        r"\\ \hline " + r" \\ ".join(rows) + r"\end{array}"
    ]
    decomposition = metrics.brier_decomposition(y, p, n_bins=n_bins)
    ece = float(metrics.calibration_error(y, p, n_bins=n_bins))
    mce = float(metrics.calibration_error(y, p, n_bins=n_bins, norm="max"))
    if what == "ECE":
        answer = ece
        terms = " + ".join(rf"{int(m)} \cdot {num(g)}" for m, g in zip(sizes, gaps, strict=True))
        lines.append(
            rf"\text{{ECE}} = \sum_b \frac{{n_b}}{{n}}\,|\bar y_b - \bar p_b| = "
            rf"\frac{{{terms}}}{{{n}}} = {num(answer)}"
        )
        question = f"What is the expected calibration error (ECE) over {n_bins} equal bins?"
        hint = (
            "For each bin: its positive rate minus its mean probability, as a size; weight each "
            "gap by the bin's share of the rows (n_b / n) and add them up."
        )
        traps = [
            (
                float(gaps.mean()),
                "Each bin's gap is weighted by its rows (n_b / n), not averaged plainly.",
            ),
            (mce, "That is the largest gap (MCE); the ECE weights every bin's gap by its rows."),
        ]
    elif what == "MCE":
        answer = mce
        lines.append(
            rf"\text{{MCE}} = \max_b |\bar y_b - \bar p_b| = "
            rf"\max({', '.join(num(g) for g in gaps)}) = {num(answer)}"
        )
        question = f"What is the maximum calibration error (MCE) over {n_bins} equal bins?"
        hint = (
            "For each bin: the gap between its positive rate and its mean probability; the MCE "
            "is the largest gap, whatever the bin's size."
        )
        traps = [(ece, "That is the ECE (the gaps weighted by rows); the MCE is the largest.")]
    else:
        answer = float(decomposition.reliability)
        terms = " + ".join(rf"{int(m)} \cdot {num(g)}^2" for m, g in zip(sizes, gaps, strict=True))
        lines += [
            rf"\text{{reliability}} = \sum_b \frac{{n_b}}{{n}}\,(\bar p_b - \bar y_b)^2 = "
            rf"\frac{{{terms}}}{{{n}}} = {num(answer)}",
            rf"\text{{Brier}} = \text{{reliability}} - \text{{resolution}} + "
            rf"\text{{uncertainty}} + \text{{within-bin terms}}: {num(decomposition.brier)} = "
            rf"{num(decomposition.reliability)} - {num(decomposition.resolution)} + "
            rf"{num(decomposition.uncertainty)} + "
            rf"{num(decomposition.within_bin_variance - decomposition.within_bin_covariance)}",
        ]
        question = (
            f"What is the reliability term of the Brier score's decomposition over {n_bins} "
            "equal bins?"
        )
        hint = (
            "Square each bin's gap between its mean probability and its positive rate, weight "
            "the squares by the bins' share of rows (n_b / n) and add them."
        )
        traps = [
            (ece, "That is the ECE: square each bin's gap before weighting."),
            (
                float(decomposition.brier),
                "That is the whole Brier score; the reliability term "
                "only sums the bins' squared gaps, weighted by rows.",
            ),
        ]
    figure = calibration_charts.reliability_figure(
        [
            calibration_charts.Reliability(
                name=f"this table, {n_bins} bins",
                prob_pred=prob_pred,
                prob_true=prob_true,
                low=np.full(prob_true.size, np.nan),
                high=np.full(prob_true.size, np.nan),
                size=sizes,
            )
        ],
        height=420,
        title="Reliability diagram",
    )
    ex = Exercise(
        table=rows_table(y, p).rename(columns={"score": "probability"}),
        figure=figure,
        context=context,
        question=question,
        answer=answer,
        derivation=tuple(lines),
        note="Bins split [0, 1] into equal widths (a probability on an inner edge goes to the "
        "lower bin, as scikit-learn's calibration_curve). The ECE weighs each bin's gap between "
        f"its positive rate and its mean prediction by its rows; the MCE takes the largest ({GUO}; "
        "reliability diagrams: Niculescu-Mizil & Caruana, ICML 2005; the Brier decomposition: "
        "Murphy, Journal of Applied Meteorology, 1973).",
        facts={
            "ECE": ece,
            "MCE": mce,
            "Brier score": float(decomposition.brier),
            "reliability": float(decomposition.reliability),
            "resolution": float(decomposition.resolution),
            "uncertainty": float(decomposition.uncertainty),
        },
    )
    return hinted(ex, hint, *traps)


def calibration(seed: int) -> Exercise:
    if not seed:
        return _calibration_exercise(
            [0, 0, 0, 0, 1, 1, 1, 1, 1],
            [0.1, 0.2, 0.3, 0.4, 0.65, 0.7, 0.8, 0.9, 1.0],
            3,
            "ECE",
            "Nine rows from scikit-learn's calibration_curve example, in three bins of width "
            "1/3: the positive rates are 0, 0.5 and 1 at mean predictions 0.2, 0.525 and 0.85.",
        )
    rng = seeded_rng("calibration", seed)
    n_bins = int(rng.choice([2, 4, 5]))
    edges = np.linspace(0.0, 1.0, n_bins + 1)[1:-1]
    while True:
        q = rng.uniform(0.1, 0.9, 10)  # the true chance of each row
        y = (rng.random(10) < q).astype(int)
        p = np.round(np.clip(0.5 + 1.6 * (q - 0.5) + rng.normal(0, 0.05, 10), 0.02, 0.98), 2)
        on_edge = np.isclose(p[:, None], edges[None, :]).any()
        if not on_edge and np.unique(np.searchsorted(edges, p)).size >= 2 and 0 < y.sum() < 10:
            break
    what = CALIBRATION_MEASURES[seed % 3]
    return _calibration_exercise(
        y,
        p,
        n_bins,
        what,
        f"Ten rows with a predicted probability of the positive class; {n_bins} bins of equal "
        f"width {1 / n_bins:g}. The model is overconfident.",
    )

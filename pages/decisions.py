"""Decision curves: cost curves, Brier curves, precision-recall gain and DET, several models
overlaid, each with its formula and its published source."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import streamlit as st

from ui import sources
from ui.compute import data, decision_compute, thresholds
from ui.figures import decision_charts
from ui.frame import presentation, shell
from ui.views.explain import explain, num, tex_name
from ui.views.show import chart
from ui.words.numbers import decimals
from ui.words.safe import md

ds, model = shell.page_context()
presenting = presentation.on()
if presenting:  # a projector's screen: the title and the models share a row
    head_col, pick_col = st.columns([1, 2.6], vertical_alignment="bottom")
    head_col.subheader("Decision curves", anchor=False)
    with pick_col:
        models = shell.model_picker("Models", "decisions_models", ds)
else:
    st.header("Decision curves")
    models = shell.model_picker("Models", "decisions_models", ds)
if not models:
    st.info("Pick at least one model.")
    st.stop()

if not ds.holds_rows:
    st.caption(
        f"{sources.of(ds).rows(ds)} Every curve here is a function of each score's counts "
        "alone, so the curves and their areas are exact."
    )
elif ds.mapping.per_class:
    st.caption(
        "Per-class data: each class is read one-vs-rest (its score against the label "
        '"this class or not"); pick the classes to overlay above.'
    )
elif ds.mapping.graded:
    st.caption("Graded relevance: a row counts as positive when its relevance is above 0.")

PRESENT_HEIGHT = 420  # the cost chart in presentation mode, under the bar, title and tabs
curves = {m: decision_compute.decision_curves(ds.key, m, ds) for m in models}
threshold = {m: thresholds.current(ds, m) for m in models}
first = models[0]
c0 = curves[first]
prevalence = c0.n_pos / (c0.n_pos + c0.n_neg)

cost_tab, brier_tab, gain_tab, det_tab = st.tabs(
    ["Cost curves", "Brier curves", "Precision-recall gain", "DET"]
)

# --- cost curves --------------------------------------------------------------------------------
with cost_tab:
    # In presentation mode the cost ratio and each model's least cost stand beside the chart,
    # so the chart is whole (axes and legend) on a 1280x720 screen.
    chart_col, side_col = st.columns([3.4, 1]) if presenting else (st.container(), None)
    ratio = (side_col or st.columns([1, 2])[0]).number_input(
        "Cost of a missed positive, in false alarms",
        min_value=0.001, max_value=1000.0, value=1.0, step=0.5, key="decisions_cost_ratio",
        help="C(−|+) / C(+|−): how many false positives one false negative costs. With the "
        "prevalence it sets the probability cost PC(+) marked on the chart.",
    )  # fmt: skip
    lines = []
    table = []
    for m in models:
        c = curves[m]
        fpr, fnr = decision_compute.rates_at(ds, m, threshold[m])
        lines.append(
            decision_charts.CostLines(
                m,
                c.cost_x,
                c.cost,
                fpr,
                fnr,
                threshold[m],
                c.cost_area,
                threshold_text=thresholds.label(ds, m, threshold[m]),
            )
        )
        pi = c.n_pos / (c.n_pos + c.n_neg)
        pc = pi * ratio / (pi * ratio + (1.0 - pi))
        best = float(np.interp(pc, c.cost_x, c.cost))
        at_threshold = fnr * pc + fpr * (1.0 - pc)
        grid = np.linspace(0.0, 1.0, 2001)
        touching = grid[fnr * grid + fpr * (1 - grid) <= np.interp(grid, c.cost_x, c.cost) + 1e-9]
        table.append(
            {
                "model": m,
                "threshold": threshold[m],
                "FPR": fpr,
                "FNR": fnr,
                "PC(+)": pc,
                "cost at threshold": at_threshold,
                "least cost (envelope)": best,
                "optimal for PC(+) in": (
                    f"[{decimals(touching.min(), 3)}, {decimals(touching.max(), 3)}]"
                    if touching.size
                    else "none (off the ROC convex hull)"
                ),
                "area under envelope": c.cost_area,
            }
        )
    fig = decision_charts.cost_figure(lines, height=PRESENT_HEIGHT if presenting else 460)
    if len({round(r["PC(+)"], 9) for r in table}) == 1:
        fig.add_vline(x=table[0]["PC(+)"], line=dict(color="#555555", width=1, dash="dash"))
    chart(fig, key="decisions_cost", name="cost-curves", where=chart_col)
    if side_col is not None:
        with side_col.container(key=presentation.CARDS):
            st.caption("Least cost at your cost ratio")
            for r in table[:4]:
                st.metric(
                    md(r["model"]),
                    decimals(r["least cost (envelope)"]),
                    help=f"The least normalised expected cost at PC(+) = {decimals(r['PC(+)'], 3)} "
                    f"(your cost ratio); at its current threshold: "
                    f"{decimals(r['cost at threshold'])}.",
                )
    hidden = decision_charts.same_envelopes(lines)
    if hidden:
        st.caption(
            ":material/visibility_off: "
            + "; ".join(f"{md(a)} draws exactly over {md(b)}" for a, b in hidden)
            + ": the same envelope (the models rank the rows alike), so only one line shows."
        )
    st.dataframe(pd.DataFrame(table), hide_index=True, width="stretch")
    st.caption(
        "Each solid line is a model's lower envelope: the least normalised expected cost any "
        "threshold reaches at each probability cost. The dashed line is its current threshold "
        "(the Threshold page's); where it lies above the envelope, another threshold is cheaper "
        "at that cost ratio. The grey dotted lines are treating no one (cost = x) and treating "
        "everyone (cost = 1 − x). The vertical line marks your cost ratio."
    )
    row = table[0]
    explain(
        "cost curves",
        [
            r"\text{PC}(+) = \frac{p(+)\,C(-\mid+)}{p(+)\,C(-\mid+) + p(-)\,C(+\mid-)} = "
            rf"\frac{{{num(prevalence)} \cdot {num(ratio)}}}{{{num(prevalence)} \cdot "
            rf"{num(ratio)} + {num(1 - prevalence)}}} = {num(row['PC(+)'])}",
            r"\text{NEC}(x) = \text{FNR}\cdot x + \text{FPR}\cdot(1 - x)",
            rf"\text{{NEC}}_{{\text{{{tex_name(first)}}}}}({num(row['PC(+)'])}) = "
            rf"{num(row['FNR'])} \cdot {num(row['PC(+)'])} + {num(row['FPR'])} \cdot "
            rf"{num(1 - row['PC(+)'])} = {num(row['cost at threshold'])}",
            r"\text{envelope}(x) = \min_{t}\ \text{NEC}_t(x) \quad (\text{every threshold, "
            r"treat none and treat all}) = " + num(row["least cost (envelope)"]),
        ],
        note='Source: C. Drummond and R. C. Holte (2006), "Cost curves: an improved method '
        'for visualizing classifier performance", Machine Learning 65, 95-130. Normalised '
        "expected cost divides the expected cost by its largest value at that PC(+), so 1 is "
        "always wrong and the trivial classifiers are the two diagonals. The envelope's pieces "
        "are the vertices of the ROC convex hull; its area is the expected cost when every "
        "probability cost is equally likely.",
    )

# --- Brier curves -------------------------------------------------------------------------------
with brier_tab:
    probabilistic = [m for m in models if curves[m].brier_x is not None]
    others = [m for m in models if curves[m].brier_x is None]
    if others:
        st.warning(
            "Not probabilities, so no Brier curve: "
            + ", ".join(f"**{md(m)}**" for m in others)
            + " (scores outside [0, 1]). A Brier curve sets the threshold from the score itself "
            "(flag p ≥ 1 − x), which only makes sense for probabilities: recalibrate them on the "
            "Calibration page first."
        )
    if probabilistic:
        blines = [
            decision_charts.BrierLines(
                m, curves[m].brier_x, curves[m].brier_loss, curves[m].cost_x, curves[m].cost,
                curves[m].brier_area,
            )
            for m in probabilistic
        ]  # fmt: skip
        chart(decision_charts.brier_figure(blines), key="decisions_brier", name="brier-curves")
        st.dataframe(
            pd.DataFrame(
                {
                    "model": probabilistic,
                    "area under Brier curve": [curves[m].brier_area for m in probabilistic],
                    "area under cost envelope": [curves[m].cost_area for m in probabilistic],
                    "gap (threshold from the probabilities)": [
                        curves[m].brier_area - curves[m].cost_area for m in probabilistic
                    ],
                }
            ),
            hide_index=True,
            width="stretch",
        )
        st.caption(
            "Solid: the cost when each operating point x sets the threshold p ≥ 1 − x, as a "
            "calibrated model allows; dotted: the cost envelope, the best threshold at each x. "
            "The gap between them is what miscalibration costs."
        )
        m = probabilistic[0]
        y, s, w = data.binary_rows(ds, m)
        ww = np.ones(s.size) if w is None else w
        pos_term = float(np.sum(ww[y] * (1 - s[y]) ** 2) / np.sum(ww[y]))
        neg_term = float(np.sum(ww[~y] * s[~y] ** 2) / np.sum(ww[~y]))
        explain(
            "Brier curves",
            [
                r"\text{threshold at } x:\ \text{flag } p \ge 1 - x, \qquad "
                r"\text{loss}(x) = \text{FNR}(1 - x)\cdot x + \text{FPR}(1 - x)\cdot(1 - x)",
                r"\int_0^1 \text{loss}(x)\,dx = \tfrac12\Big(\overline{(1 - p)^2}_{+} + "
                r"\overline{p^2}_{-}\Big)",
                rf"\tfrac12\,({num(pos_term)} + {num(neg_term)}) = "
                rf"{num((pos_term + neg_term) / 2)} \approx {num(curves[m].brier_area)}"
                rf"\ (\text{{{tex_name(m)}}})",
            ],
            note='Source: J. Hernández-Orallo, P. Flach and C. Ferri (2011), "Brier curves: a '
            'new cost-based visualisation of classifier performance", ICML; and (2012) "A '
            "unified view of performance metrics: translating threshold choice into expected "
            'classification loss", JMLR 13. The area is the Brier score with the two classes '
            "weighted equally.",
        )

# --- precision-recall gain ----------------------------------------------------------------------
with gain_tab:
    glines = [
        decision_charts.GainLines(
            m, curves[m].precision_gain, curves[m].recall_gain, curves[m].auprg, curves[m].ap
        )
        for m in models
    ]
    chart(decision_charts.prg_figure(glines), key="decisions_prg", name="precision-recall-gain")
    st.dataframe(
        pd.DataFrame(
            {
                "model": list(models),
                "AUPRG": [curves[m].auprg for m in models],
                "AP": [curves[m].ap for m in models],
                "prevalence": [
                    curves[m].n_pos / (curves[m].n_pos + curves[m].n_neg) for m in models
                ],
            }
        ),
        hide_index=True,
        width="stretch",
    )
    st.caption(
        "Gains rescale precision and recall so that 0 is the always-positive classifier's value "
        "(the prevalence) and 1 is perfect; points with recall below the prevalence fall off the "
        "left edge. AUPRG is the area over recall gain in [0, 1] (negative precision gain "
        "counts negatively): unlike AP it is linear in the F-scores it summarises and its "
        "chance level is 0 at any prevalence."
    )
    explain(
        "precision-recall gain",
        [
            r"\text{precG} = \frac{\text{prec} - \pi}{(1 - \pi)\,\text{prec}}, \qquad "
            r"\text{recG} = \frac{\text{rec} - \pi}{(1 - \pi)\,\text{rec}}",
            rf"\pi = \frac{{P}}{{P + N}} = \frac{{{num(c0.n_pos)}}}{{{num(c0.n_pos + c0.n_neg)}}}"
            rf" = {num(prevalence)}",
            rf"\text{{AUPRG}}_{{\text{{{tex_name(first)}}}}} = \int_0^1 \text{{precG}}\;"
            rf"d\,\text{{recG}} = {num(c0.auprg)}, \qquad \text{{AP}} = {num(c0.ap)}",
        ],
        note='Source: P. Flach and M. Kull (2015), "Precision-Recall-Gain curves: PR analysis '
        'done right", NeurIPS 28 (the area as their reference code computes it).',
    )

# --- DET ----------------------------------------------------------------------------------------
with det_tab:
    dlines = [
        decision_charts.DetLines(
            m,
            curves[m].det_fpr,
            curves[m].det_fnr,
            curves[m].eer.rate,
            curves[m].eer.threshold,
            eer_threshold_text=thresholds.label(ds, m, curves[m].eer.threshold),
        )
        for m in models
    ]
    det_chart, det_side = st.columns([3, 2])
    chart(
        decision_charts.det_figure(dlines), key="decisions_det", name="det-curves", where=det_chart
    )
    det_side.dataframe(
        pd.DataFrame(
            {
                "model": list(models),
                "EER": [curves[m].eer.rate for m in models],
                "nearest threshold": [curves[m].eer.threshold for m in models],
                "FPR there": [curves[m].eer.fpr for m in models],
                "FNR there": [curves[m].eer.fnr for m in models],
            }
        ),
        hide_index=True,
        width="stretch",
    )
    det_side.caption(
        "Both axes are normal deviates (probit): a model whose two classes' scores are normal "
        "with equal spread draws a straight line, and the low error rates that matter in "
        "screening and verification spread out instead of crowding a corner. Diamonds mark the "
        "equal error rate, where the curve crosses FPR = FNR; rates of exactly 0 or 1 lie at "
        "infinity and are not drawn."
    )
    e = c0.eer
    explain(
        "DET and the equal error rate",
        [
            r"x = \Phi^{-1}(\text{FPR}), \qquad y = \Phi^{-1}(\text{FNR})",
            rf"\text{{EER}}_{{\text{{{tex_name(first)}}}}} = \text{{FPR}} = \text{{FNR}} = "
            rf"{num(e.rate)}"
            + (
                rf"\quad(\text{{nearest threshold }} {num(e.threshold)}:\ \text{{FPR}} "
                rf"{num(e.fpr)},\ \text{{FNR}} {num(e.fnr)})"
                if math.isfinite(e.threshold)
                else ""
            ),
        ],
        note="Source: A. Martin, G. Doddington, T. Kamm, M. Ordowski and M. Przybocki (1997), "
        '"The DET curve in assessment of detection task performance", Eurospeech. The EER '
        "joins the curve's points with straight lines where it crosses the diagonal; a point "
        "on such a segment is reached by flagging the tied rows at random.",
    )

"""Calibration: reliability diagrams with bootstrap bands (pointwise or simultaneous), the
debiased calibration error with an interval that covers the truth, ECE, MCE and the Brier
decomposition, and cross-fitted recalibration shown before and after."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import streamlit as st

import metrics
from ui.compute import decision_compute, thresholds, uncertainty
from ui.figures import calibration_charts
from ui.frame import presentation, shell
from ui.views.explain import explain, num, tex_name
from ui.views.show import chart
from ui.words.numbers import decimals
from ui.words.safe import md

ds, model = shell.page_context()
# In presentation mode the title, the models and a settings popover share the first row, and
# the reliability diagrams and their table fill the rest of the first screen.
head = presentation.PageHead("Calibration")
PRESENT_HEIGHT = 300
if shell.needs(
    ds,
    "rows",
    "Calibration",
    say="Calibration needs the rows, and a server dataset gives the page only the engine's "
    "per-score counts of one model. The reliability values alone would follow from those "
    "counts, but the bootstrap bands resample rows (or whole groups), and recalibration "
    "fits its maps on some rows and scores the others (cross-fitting): neither can be done "
    "on counts. Load the table as an upload (or a sample of it) to use this page.",
):
    st.stop()

with head.cell:
    models = shell.model_picker("Models", "calibration_models", ds)
if not models:
    st.info("Pick at least one model.")
    st.stop()
if head.presenting:
    pass  # (the first screen has no room for the notes on the data; the bar names it)
elif ds.mapping.per_class:
    st.caption(
        "Per-class data: each class is read one-vs-rest (its score as the probability of "
        '"this class"); pick the classes to compare above.'
    )
elif ds.mapping.graded:
    st.caption("Graded relevance: a row counts as positive when its relevance is above 0.")

n_rows = len(ds.labels_for(models[0]))
group_column = ds.mapping.group if ds.prepared.groups is not None else None
# The settings: a bordered row, or the popover in presentation mode.
left, middle, right = head.settings((2, 2, 2))
n_bins = left.select_slider(
    "Bins", options=[5, 8, 10, 15, 20], value=10, key="calibration_bins",
    help="Reliability bins. ECE and MCE depend on them: fewer bins average more rows.",
)  # fmt: skip
strategy = middle.radio(
    "Bin edges", ["uniform", "quantile"], key="calibration_strategy", horizontal=True,
    help="uniform: equal widths over [0, 1]; quantile: equal numbers of rows (edges at the "
    "quantiles of the predictions, kept fixed across resamples).",
)  # fmt: skip
n_resamples = right.select_slider(
    "Bootstrap resamples", options=[0, 100, 200, 500, 1000], value=500,
    key="calibration_resamples",
    help="Every resample draws each row (or each group) a Poisson(1) number of times and "
    "recomputes each bin's observed rate, ECE, MCE and the Brier decomposition.",
)  # fmt: skip
independent = group_column is not None and left.toggle(
    "Rows are independent", value=False, key="calibration_rows_independent",
    help=f"Off (the default): rows of one {group_column} are not independent, so the "
    f"bands and intervals resample whole {group_column} values (a cluster bootstrap).",
)  # fmt: skip
clustered = group_column is not None and not independent
if n_resamples and decision_compute.bootstrap_cells(n_rows, 1, n_bins) > (
    decision_compute.MAX_BOOTSTRAP_CELLS
):
    st.caption(
        f"{n_rows:,} rows are too many for the bands here: the values below have no intervals."
    )
    n_resamples = 0
resampled = (
    f"cluster bootstrap, whole {md(group_column)} values resampled"
    if clustered
    else "bootstrap, rows resampled"
)


def _fmt(iv: decision_compute.Interval) -> str:
    if math.isnan(iv.low):
        return f"{decimals(iv.estimate)}"
    return f"{decimals(iv.estimate)}  [{decimals(iv.low)}, {decimals(iv.high)}]"


def _stats(method: str | None, names) -> dict[str, decision_compute.CalibrationStats]:
    return {
        m: decision_compute.model_calibration(
            ds.key, (m,), method, 5, n_bins, strategy, n_resamples, clustered, ds
        )[m]
        for m in names
    }


def _table(stats: dict[str, decision_compute.CalibrationStats]) -> pd.DataFrame:
    return pd.DataFrame(
        [{"model": m, **{k: _fmt(v) for k, v in s.stats.items()}} for m, s in stats.items()]
    )


band_kind = "pointwise"
BAND_LABEL = {"simultaneous": "95% simultaneous band", "pointwise": "95% band"}


def _band(s: decision_compute.CalibrationStats) -> tuple[np.ndarray, np.ndarray]:
    """The band the page shows: the bins' pointwise or simultaneous band."""
    if band_kind == "simultaneous" and s.sim_low is not None:
        return s.sim_low, s.sim_high
    return s.band_low, s.band_high


def _panels(lines, key: str, name: str, *, pairs: bool = False) -> None:
    """One reliability diagram per model (with its "before" line when ``pairs``), up to three
    side by side: overlaid bands of several models hide each other."""
    groups: dict[int, list] = {}
    for line in lines:
        groups.setdefault(line.color, []).append(line)
    columns = st.columns(min(len(groups), 3))
    for i, (color, group) in enumerate(groups.items()):
        title = models[color] + (" before and after" if pairs and len(group) > 1 else "")
        with columns[i % len(columns)]:
            chart(
                calibration_charts.reliability_figure(
                    group,
                    title=title,
                    band_label=BAND_LABEL[band_kind],
                    height=PRESENT_HEIGHT if head.presenting else 520,
                ),
                key=f"{key}_{i}",
                name=f"{name}-{models[color]}",
            )


probabilistic = [m for m in models if decision_compute.is_probability(ds.score(m))]
others = [m for m in models if m not in probabilistic]
for m in others:
    s = ds.score(m)
    st.warning(
        f"**{md(m)}** scores run from {float(np.min(s)):.4g} to {float(np.max(s)):.4g}: they "
        "are not probabilities, so they have no reliability diagram, ECE or Brier score. "
        "Recalibrate them below (Platt or isotonic) to turn them into probabilities.",
        icon=":material/warning:",
    )

# --- reliability ----------------------------------------------------------------------------
if not head.presenting:
    st.subheader("Reliability")
if probabilistic and n_resamples:
    band_kind = head.setting().radio(
        "Bands", list(uncertainty.BAND_KINDS), format_func=uncertainty.BAND_KINDS.get,
        key="calibration_band_kind", horizontal=True,
        help="Simultaneous: every bin's true rate lies inside its band at once with 95% "
        "probability (bootstrap sup-t band, Montiel Olea & Plagborg-Møller 2019). Pointwise: "
        "each bin's band holds its own rate 95% of the time; with ten bins, some bin's usually "
        "misses.",
    )  # fmt: skip
if probabilistic:
    before = _stats(None, probabilistic)
    lines = [
        calibration_charts.Reliability(
            m, s.prob_pred, s.prob_true, *_band(s), s.size, color=models.index(m)
        )
        for m, s in before.items()
    ]
    _panels(lines, "calibration_reliability", "reliability-diagram")
    st.dataframe(_table(before), hide_index=True, width="stretch")
    st.caption(
        f"Each dot is a bin: its mean predicted probability against the share of positives in "
        f"it; the shaded band is the 95% {resampled} interval of that share "
        f"({n_resamples} resamples; bin edges fixed), "
        + (
            "simultaneous: every bin's true share inside at once with 95% probability "
            "(bootstrap sup-t band, Montiel Olea & Plagborg-Møller 2019)."
            if band_kind == "simultaneous"
            else "pointwise: each bin's true share inside 95% of the time, one bin at a time."
        )
        if n_resamples
        else "Each dot is a bin: its mean predicted probability against the share of positives "
        "in it. Set resamples above 0 for bands and intervals."
    )
    st.caption(
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
    m0 = probabilistic[0]
    s0 = before[m0]
    d0 = metrics.brier_decomposition(
        ds.labels_for(m0), ds.score(m0), n_bins=n_bins, strategy=strategy,
        sample_weight=ds.weight,
    )  # fmt: skip
    sq0 = metrics.squared_calibration_error(
        ds.labels_for(m0), ds.score(m0), n_bins=n_bins, strategy=strategy,
        sample_weight=ds.weight,
    )  # fmt: skip
    share = s0.size / s0.size.sum()
    gaps = np.abs(s0.prob_true - s0.prob_pred)
    terms = " + ".join(
        f"{num(a, 3)} \\cdot {num(b, 3)}" for a, b in zip(share[:3], gaps[:3], strict=True)
    )
    explain(
        "ECE, MCE and the Brier decomposition",
        [
            r"\widehat{\text{CE}^2} = \sum_b \frac{n_b}{n}\Big[\big(\bar y_b - \bar p_b\big)^2 "
            r"- \frac{s_b^2}{n_b}\Big],\quad s_b^2 = \text{the variance of } y - p "
            r"\text{ in bin } b",
            rf"\widehat{{\text{{CE}}^2}}_{{\text{{{tex_name(m0)}}}}} = "
            rf"{num(sq0, 6)}"
            rf" \ (\text{{plug-in}}\ {num(d0.reliability, 6)}), \qquad \text{{RMS}} = "
            rf"{num(s0.stats['RMS calibration error'].estimate)}",
            r"\text{ECE} = \sum_b \frac{n_b}{n}\,\big|\bar y_b - \bar p_b\big|, \qquad "
            r"\text{MCE} = \max_b \big|\bar y_b - \bar p_b\big|",
            rf"\text{{ECE}}_{{\text{{{tex_name(m0)}}}}} = {terms}"
            + (r" + \dots" if len(share) > 3 else "")
            + f" = {num(s0.stats['ECE'].estimate)}",
            r"\text{Brier} = \underbrace{\sum_b \tfrac{n_b}{n}(\bar p_b - \bar y_b)^2}_"
            r"{\text{reliability}} - \underbrace{\sum_b \tfrac{n_b}{n}(\bar y_b - \bar y)^2}_"
            r"{\text{resolution}} + \underbrace{\bar y(1 - \bar y)}_{\text{uncertainty}} "
            r"+ \text{within-bin terms}",
            rf"{num(d0.brier)} = {num(d0.reliability)} - {num(d0.resolution)} + "
            rf"{num(d0.uncertainty)} + {num(d0.within_bin_variance)} - "
            rf"{num(d0.within_bin_covariance)}",
        ],
        note='Sources: A. Kumar, P. Liang and T. Ma (2019), "Verified uncertainty '
        'calibration", NeurIPS (the debiased squared calibration error); A. H. Murphy '
        '(1973), "A new vector partition of the probability score", Journal of Applied '
        "Meteorology 12 (the decomposition), with the within-bin "
        "terms of D. B. Stephenson, C. A. S. Coelho and I. T. Jolliffe (2008), Weather and "
        'Forecasting 23; M. P. Naeini, G. F. Cooper and M. Hauskrecht (2015), "Obtaining well '
        'calibrated probabilities using Bayesian binning", AAAI (ECE and MCE); J. L. Montiel Olea '
        'and M. Plagborg-Møller (2019), "Simultaneous confidence bands: theory, implementation, '
        'and an application to SVARs", Journal of Applied Econometrics 34 (the sup-t band). '
        "Binned estimates: small bins inflate ECE even for a perfectly calibrated model.",
    )
else:
    st.info("None of the chosen models has probability scores: recalibrate them below.")

# --- recalibration --------------------------------------------------------------------------
st.subheader("Recalibration, cross-fitted")
METHODS = {
    "platt": "Platt (logistic on the score)",
    "isotonic": "isotonic (pool-adjacent-violators)",
    "temperature": "temperature (one slope on the logit)",
    "beta": "beta (three parameters)",
}
method = st.radio(
    "Method", list(METHODS), format_func=METHODS.get, key="calibration_method", horizontal=True,
    help="Each row's probability comes from a map fitted on the other four folds of five "
    "(stratified by class), so no row's label shapes its own probability.",
)  # fmt: skip
after: dict[str, decision_compute.CalibrationStats] = {}
problems = []
for m in models:
    try:
        after[m] = _stats(method, [m])[m]
    except ValueError as error:  # one class too small for five folds; beta on non-probabilities
        problems.append(f"**{md(m)}**: {md(error, limit=400)}")
for p in problems:
    st.warning(p)
if after:
    lines = []
    for m, s in after.items():
        if m in probabilistic:
            b = before[m]
            lines.append(
                calibration_charts.Reliability(
                    f"{m} before", b.prob_pred, b.prob_true, *_band(b), b.size,
                    color=models.index(m), dash=True,
                )
            )  # fmt: skip
        lines.append(
            calibration_charts.Reliability(
                f"{m} after ({method})", s.prob_pred, s.prob_true, *_band(s), s.size,
                color=models.index(m),
            )
        )  # fmt: skip
    _panels(lines, "calibration_recalibrated", "reliability-before-after", pairs=True)
    rows = []
    for m in after:
        y, s, w = ds.labels_for(m), ds.score(m), ds.weight
        q = decision_compute.recalibrated(ds.key, m, method, 5, ds)
        is_p = m in probabilistic
        t = thresholds.current(ds, m)
        mapped = float(decision_compute.in_sample_map(ds.key, m, method, ds)(np.array([t]))[0])
        ww = np.ones(s.size) if w is None else w
        rows.append(
            {
                "model": m,
                "AUC before": metrics.roc_auc_score(y, s, sample_weight=w),
                "AUC after (out of fold)": metrics.roc_auc_score(y, q, sample_weight=w),
                "AUC, one map for all rows": metrics.roc_auc_score(
                    y, decision_compute.in_sample_map(ds.key, m, method, ds)(s), sample_weight=w
                ),
                "Brier before": metrics.brier_score_loss(y, s, sample_weight=w) if is_p else None,
                "Brier after": metrics.brier_score_loss(y, q, sample_weight=w),
                "log loss before": metrics.log_loss(y, s, sample_weight=w) if is_p else None,
                "log loss after": metrics.log_loss(y, q, sample_weight=w),
                "ECE before": before[m].stats["ECE"].estimate if is_p else None,
                "ECE after": after[m].stats["ECE"].estimate,
                "flagged at p ≥ 0.5 before": float(np.sum(ww[s >= 0.5]) / np.sum(ww))
                if is_p
                else None,
                "flagged at p ≥ 0.5 after": float(np.sum(ww[q >= 0.5]) / np.sum(ww)),
                "threshold": t,
                "threshold as a probability": mapped,
            }
        )
    st.dataframe(pd.DataFrame(rows), hide_index=True, width="stretch")
    st.dataframe(_table(after), hide_index=True, width="stretch")
    st.markdown(
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
    st.caption(
        "Out of fold: five folds stratified by class; each row is mapped by a calibrator fitted "
        "on the other four. The threshold column translates the model's current threshold (the "
        "Threshold page's) through the map fitted on every row."
    )
    explain(
        "the recalibration maps",
        [
            r"\text{Platt: } \hat p = \sigma(a\,s + b)",
            r"\text{isotonic: } \hat p = \text{the non-decreasing step fit of } y \text{ on } s"
            r"\ (\text{pool-adjacent-violators})",
            r"\text{temperature: } \hat p = \sigma\big(\operatorname{logit}(s) / T\big)",
            r"\text{beta: } \hat p = \sigma\big(a \ln s - b \ln(1 - s) + c\big),\ a, b \ge 0",
        ],
        note='Sources: J. Platt (1999), "Probabilistic outputs for support vector machines and '
        'comparisons to regularized likelihood methods"; B. Zadrozny and C. Elkan (2002), '
        '"Transforming classifier scores into accurate multiclass probability estimates", KDD '
        '(isotonic); C. Guo, G. Pleiss, Y. Sun and K. Q. Weinberger (2017), "On calibration of '
        'modern neural networks", ICML (temperature); M. Kull, T. Silva Filho and P. Flach '
        '(2017), "Beta calibration: a well-founded and easily implemented improvement on '
        'logistic calibration for binary classifiers", AISTATS. Temperature takes scores '
        "outside [0, 1] as logits; beta needs probabilities.",
    )

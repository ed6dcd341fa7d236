"""The AP lab's builders: the source articles' worked examples, tables, LaTeX and the figure that
draws what each AP method sums. Pure functions over the metrics library; no Streamlit.

Every number comes from :mod:`metrics` (``average_precision_score``, ``ap_breakdown`` through
``average_precision_breakdown``, ``ap_step_table``, ``score_grid_average_precision``); the figure
draws the breakdown's own terms, so each filled area is exactly the sum that gives the value.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np
import pandas as pd
import plotly.graph_objects as go

import metrics
from metrics import AP_METHOD_SOURCES, AP_METHODS, APBreakdown, APStepTable, ScoreGridAP
from ui.figures.charts import _BASE_LAYOUT, MAX_POINTS, PALETTE, sample_indices
from ui.words.numbers import decimals, difference_text, exact_fraction
from ui.words.text import num

__all__ = [
    "METHOD_LABELS",
    "PRESETS",
    "WHEN_THEY_DIFFER",
    "APLab",
    "Claim",
    "Preset",
    "ap_lab",
    "ap_regions_figure",
    "claim_value",
    "claims_frame",
    "diff_text",
    "exact_fraction",
    "exact_text",
    "grid_frame",
    "has_positives",
    "level_frame",
    "method_latex",
    "methods_frame",
    "per_class_frame",
    "points_frame",
    "polygon_area",
    "step_frame",
    "step_latex",
]

METHOD_LABELS = {
    "step": "Step",
    "trapezoid": "Trapezoid",
    "voc11": "VOC 11-point",
    "voc_all": "VOC all-point",
    "coco101": "COCO 101-point",
}
METHOD_COLORS = dict(zip(AP_METHODS, PALETTE, strict=False))
OUTLINES = {"step": "solid", "trapezoid": "dot", "voc_all": "dash"}

# When each method parts from the default step sum (checked in tests/test_ap_charts.py).
WHEN_THEY_DIFFER = {
    "step": "The reference: each distinct threshold adds its precision times the recall it "
    "gains. Tied scores are one threshold, so every positive in a tied block gets the "
    "precision at the bottom of the block.",
    "trapezoid": "Straight lines between the points, starting from precision 1 at recall 0. "
    "Below step when negatives sit between positives (the next segment starts from the dip: "
    "labels 1, 0, 1, 0 scored 1, 0.8, 0.6, 0.4 give 0.7917 vs 0.8333); above step when a "
    "tied block mixes positives and negatives "
    "(the line across it averages entry and exit precision). Both grow with few positives.",
    "voc_all": "The step sum under the envelope (each precision replaced by the best one at "
    "equal or higher recall): never below step; the gap is largest with a precision dip at low "
    "recall, such as negatives ranked first.",
    "voc11": "The envelope read at 11 recall levels, 1/11 each. The level 1 alone gives 1/11 "
    "to the precision where the last positive is found, so a few low-scored positives pull it "
    "down; with few positives the levels split unevenly (3 positives: 4, 3 and 4 levels, not a "
    "third each).",
    "coco101": "The same envelope at 101 recall levels, 1/101 each: a 101-point sum of VOC "
    "all-point's area, always within 0.01 of it.",
}

FORMULAS = {
    "step": r"\text{AP} = \sum_i (R_i - R_{i-1})\,P_i,\qquad R_0 = 0",
    "trapezoid": r"\text{AP} = \sum_i (R_i - R_{i-1})\,\frac{P_{i-1} + P_i}{2},"
    r"\qquad R_0 = 0,\ P_0 = 1",
    "voc_all": r"\text{AP} = \sum_i (R_i - R_{i-1})\,\max_{j \ge i} P_j,\qquad R_0 = 0",
    "voc11": r"\text{AP} = \frac{1}{11} \sum_{r \in \{0,\,0.1,\,\ldots,\,1\}} "
    r"\max_{i:\ R_i \ge r} P_i",
    "coco101": r"\text{AP} = \frac{1}{101} \sum_{r \in \{0,\,0.01,\,\ldots,\,1\}} "
    r"\max_{i:\ R_i \ge r} P_i",
}


# --- exact numbers ----------------------------------------------------------------------------


def exact_text(value: float, digits: int = 4) -> str:
    """'5/6 = 0.8333' when the value is a small fraction, else '0.8333' ('—' for NaN)."""
    value = float(value)
    if not math.isfinite(value):
        return "—"
    f = exact_fraction(value)
    if f is None or f.denominator == 1:
        return decimals(value, digits)
    return f"{f.numerator}/{f.denominator} = {decimals(value, digits)}"


def diff_text(value: float, step_value: float) -> str:
    """A method's value against the step sum, for a metric's delta (round-off is no
    difference: see :mod:`ui.words.numbers`)."""
    return difference_text(value, step_value, "step")


def _tex(value: float, max_denominator: int = 20) -> str:
    """A term for LaTeX: a small fraction as \\frac, else a rounded decimal."""
    f = exact_fraction(value, max_denominator)
    if f is None or f.denominator == 1:
        return num(value)
    sign = "-" if f < 0 else ""
    return rf"{sign}\frac{{{abs(f.numerator)}}}{{{f.denominator}}}"


def _tex_value(value: float) -> str:
    f = exact_fraction(value)
    if f is None:
        return f"{value:.4f}"
    if f.denominator == 1:
        return num(value)
    decimal = f"{value:.4f}"
    sign = "=" if float(decimal) == value else r"\approx"
    return rf"\frac{{{f.numerator}}}{{{f.denominator}}} {sign} {decimal}"


# --- the source articles' worked examples -----------------------------------------------------


@dataclass(frozen=True)
class Claim:
    """A number an article states, and how to compute it with the library."""

    label: str
    article: str  # as the article writes it
    expected: Fraction
    method: str = "step"
    average: str | None = "macro"  # multi-label: "macro", "weighted", or None with ``index``
    index: int | None = None
    lrap: bool = False  # label_ranking_average_precision_score on the one sample


@dataclass(frozen=True)
class Preset:
    """A worked example as a small inline dataset."""

    name: str
    source: str
    y: np.ndarray = field(repr=False)
    scores: np.ndarray = field(repr=False)
    weight: np.ndarray | None = field(default=None, repr=False)
    classes: tuple[str, ...] = ()
    claims: tuple[Claim, ...] = ()

    @property
    def multilabel(self) -> bool:
        return self.y.ndim == 2

    def arrays(self, cls: int = 0) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
        """(labels, scores, weight) of the binary problem: one class, one-vs-rest, if multi."""
        if self.multilabel:
            return self.y[:, cls], self.scores[:, cls], self.weight
        return self.y, self.scores, self.weight

    def frame(self) -> pd.DataFrame:
        """The inline data as a table."""
        if self.multilabel:
            cols: dict[str, np.ndarray] = {}
            for i, c in enumerate(self.classes):
                cols[f"score {c}"] = self.scores[:, i]
                cols[f"label {c}"] = self.y[:, i]
            return pd.DataFrame(cols)
        out = {"score": self.scores, "label": self.y}
        if self.weight is not None:
            out["weight"] = self.weight
        return pd.DataFrame(out)


PRESETS: dict[str, Preset] = {
    p.name: p
    for p in (
        Preset(
            name="AP as scikit-learn's step sum (5/6)",
            source="AP as scikit-learn's average_precision_score computes it: truth "
            "[0, 0, 1, 1], scores [0.4, 0.1, 0.8, 0.35]. The step sum is "
            "(1/2 − 0)·1 + (1/2 − 1/2)·1/2 + "
            "(1 − 1/2)·2/3 + (1 − 1)·2/4 = 5/6.",
            y=np.array([0, 0, 1, 1]),
            scores=np.array([0.4, 0.1, 0.8, 0.35]),
            claims=(Claim("AP (step)", "5/6", Fraction(5, 6)),),
        ),
        Preset(
            name="Sample weights as row counts (AP 8/9)",
            source="scikit-learn's sample_weight as a row count: labels [1, 0, 0, 1], scores "
            "[0.5, 0.4, 0.3, 0.1], weights [2, 0.5, 1, 1]. By hand: "
            "P = [2/2, 2/2.5, 2/3.5, 3/4.5], R = [2/3, 2/3, 2/3, 1] and AP = 8/9.",
            y=np.array([1, 0, 0, 1]),
            scores=np.array([0.5, 0.4, 0.3, 0.1]),
            weight=np.array([2.0, 0.5, 1.0, 1.0]),
            claims=(Claim("AP (step, weighted)", "8/9", Fraction(8, 9)),),
        ),
        Preset(
            name="Multi-label mAP (11/12)",
            source="4 samples × 3 classes, each class a binary problem, as in scikit-learn's "
            "average_precision_score(average=...): "
            "per-class AP 0.75, 1, 1; mAP (macro) = 11/12; weighted by positives "
            "(2/7, 4/7, 1/7) = 13/14.",
            y=np.array([[0, 1, 0], [1, 1, 0], [0, 1, 1], [1, 1, 0]]),
            scores=np.array([[0.1, 0.8, 0.3], [0.9, 0.7, 0.5], [0.2, 0.1, 0.9], [0.1, 0.8, 0.6]]),
            classes=("class_0", "class_1", "class_2"),
            claims=(
                Claim("AP of class_0", "0.75", Fraction(3, 4), average=None, index=0),
                Claim("AP of class_1", "1", Fraction(1), average=None, index=1),
                Claim("AP of class_2", "1", Fraction(1), average=None, index=2),
                Claim("mAP (macro)", "11/12", Fraction(11, 12), average="macro"),
                Claim("weighted", "13/14", Fraction(13, 14), average="weighted"),
            ),
        ),
        Preset(
            name="Trapezoid (scikit-learn < 0.19) vs step",
            source="One sample's labels [1, 0, 1, 0] with scores [1, 0.8, 0.6, 0.4]: "
            "scikit-learn before 0.19 integrated with trapezoids (0.79166666666666663); "
            "label_ranking_average_precision_score and today's step sum give "
            "0.83333333333333326.",
            y=np.array([1, 0, 1, 0]),
            scores=np.array([1.0, 0.8, 0.6, 0.4]),
            claims=(
                Claim(
                    "AP (trapezoid, sklearn < 0.19)",
                    "0.79166666666666663",
                    Fraction(19, 24),
                    method="trapezoid",
                ),
                Claim("AP (step, sklearn >= 0.19)", "0.8333", Fraction(5, 6)),
                Claim("LRAP", "0.83333333333333326", Fraction(5, 6), lrap=True),
            ),
        ),
    )
}


def claim_value(preset: Preset, claim: Claim) -> float:
    """The library's value of a number the article states."""
    if claim.lrap:
        return float(
            metrics.label_ranking_average_precision_score(
                np.atleast_2d(preset.y), np.atleast_2d(preset.scores)
            )
        )
    value = metrics.average_precision_score(
        preset.y,
        preset.scores,
        sample_weight=preset.weight,
        method=claim.method,
        average=claim.average,
    )
    return float(value[claim.index] if claim.index is not None else value)


def claims_frame(preset: Preset) -> pd.DataFrame:
    """The article's numbers next to the library's."""
    rows = []
    for claim in preset.claims:
        value = claim_value(preset, claim)
        rows.append(
            {
                "number": claim.label,
                "the article": claim.article,
                "computed": exact_text(value),
                "matches": "✓"
                if math.isclose(value, float(claim.expected), rel_tol=0, abs_tol=1e-12)
                else "✗",
            }
        )
    return pd.DataFrame(rows)


def per_class_frame(
    y: np.ndarray, scores: np.ndarray, weight: np.ndarray | None, classes: tuple[str, ...]
) -> pd.DataFrame:
    """Every class (one-vs-rest) by every method, then the macro and weighted averages.

    Cells are text ('3/4 = 0.7500'); a class without positives is '—'."""
    columns = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", metrics.UndefinedMetricWarning)
        for m in AP_METHODS:
            per = metrics.average_precision_score(
                y, scores, sample_weight=weight, method=m, average=None
            )
            macro = metrics.average_precision_score(y, scores, sample_weight=weight, method=m)
            weighted = metrics.average_precision_score(
                y, scores, sample_weight=weight, method=m, average="weighted"
            )
            columns[METHOD_LABELS[m]] = [exact_text(v) for v in (*per, macro, weighted)]
    index = [*classes, "macro (mAP)", "weighted by positives"]
    return pd.DataFrame({"class": index, **columns})


# --- the lab's numbers ------------------------------------------------------------------------


def has_positives(y: np.ndarray, weight: np.ndarray | None = None) -> bool:
    """Whether AP is defined: some positive row with weight > 0."""
    y = np.asarray(y).astype(bool)
    if weight is None:
        return bool(y.any())
    return bool(np.asarray(weight)[y].sum() > 0)


@dataclass(frozen=True)
class APLab:
    """Everything the lab shows for one binary problem."""

    values: dict[str, float]  # average_precision_score(..., method=m)
    breakdowns: dict[str, APBreakdown]
    step: APStepTable
    grid: ScoreGridAP
    score_range: tuple[float, float]

    @property
    def n_thresholds(self) -> int:
        return len(self.step.threshold)


def ap_lab(y: np.ndarray, scores: np.ndarray, weight: np.ndarray | None = None) -> APLab:
    """The five AP values, their breakdowns, the step table and seed 000's score grid.

    Raises ValueError when there are no positives (see :func:`has_positives`)."""
    kw = dict(sample_weight=weight)
    values = {
        m: float(metrics.average_precision_score(y, scores, method=m, **kw)) for m in AP_METHODS
    }
    breakdowns = {
        m: metrics.average_precision_breakdown(y, scores, method=m, **kw) for m in AP_METHODS
    }
    s = np.asarray(scores, dtype=np.float64)
    return APLab(
        values=values,
        breakdowns=breakdowns,
        step=metrics.ap_step_table(y, scores, **kw),
        grid=metrics.score_grid_average_precision(y, scores, **kw),
        score_range=(float(s.min()), float(s.max())),
    )


# --- tables -----------------------------------------------------------------------------------


def methods_frame(lab: APLab) -> pd.DataFrame:
    """One row per method: where it comes from, its value, exact fraction, gap to step."""
    step = lab.values["step"]
    rows = []
    for m in AP_METHODS:
        f = exact_fraction(lab.values[m])
        rows.append(
            {
                "method": METHOD_LABELS[m],
                "used by": AP_METHOD_SOURCES[m],
                "AP": lab.values[m],
                "exact": f"{f.numerator}/{f.denominator}" if f is not None else "",
                "minus step": lab.values[m] - step,
                "terms summed": int(np.count_nonzero(lab.breakdowns[m].weight)),
            }
        )
    return pd.DataFrame(rows)


def step_frame(step: APStepTable, n_rows: int | None = None) -> pd.DataFrame:
    """The step table's first ``n_rows`` distinct thresholds (all when None)."""
    end = len(step.threshold) if n_rows is None else max(0, int(n_rows))
    cols = {
        "threshold": step.threshold,
        "rows": step.rows,
        "positives": step.positives,
        "TP": step.tp,
        "FP": step.fp,
        "precision": step.precision,
        "recall": step.recall,
        "Δ recall": step.delta_recall,
        "contribution": step.contribution,
        "running AP": step.running_ap,
    }
    return pd.DataFrame({k: np.asarray(v)[:end] for k, v in cols.items()})


def points_frame(b: APBreakdown, limit: int | None = None) -> tuple[pd.DataFrame, int]:
    """The terms a method sums: (table of the first ``limit`` terms, number of terms).

    Step-like methods list only terms with weight > 0 (a zero-width step adds nothing); the
    sampled methods list every recall level. ``running sum`` ends at the value."""
    sampled = b.method in ("voc11", "coco101")
    keep = np.arange(b.weight.size) if sampled else np.flatnonzero(b.weight)
    contribution = b.weight * b.precision
    running = np.cumsum(contribution)[keep]
    n_terms = keep.size
    keep, running = keep[:limit], running[:limit]
    frame = pd.DataFrame(
        {
            "recall level" if sampled else "recall": b.recall[keep],
            "precision used": b.precision[keep],
            "weight": b.weight[keep],
            "contribution": contribution[keep],
            "running sum": running,
        }
    )
    return frame, n_terms


def grid_frame(grid: ScoreGridAP) -> pd.DataFrame:
    """Seed 000's fixed score grid, one row per score threshold."""
    return pd.DataFrame(
        {
            "score ≥": grid.threshold,
            "TP": grid.tp,
            "FP": grid.fp,
            "precision": grid.precision,
            "recall": grid.recall,
            "Δ recall": grid.delta_recall,
            "contribution": grid.contribution,
        }
    )


def level_frame(b: APBreakdown) -> pd.DataFrame:
    """VOC's 11 recall levels: the interpolated precision each uses and what it adds."""
    return pd.DataFrame(
        {
            "recall ≥": b.recall,
            "best precision there": b.precision,
            "weight": b.weight,
            "contribution": b.weight * b.precision,
        }
    )


# --- explain LaTeX ----------------------------------------------------------------------------


def _join_terms(terms: list[str], n_total: int, value: float) -> str:
    shown = " + ".join(terms)
    more = n_total - len(terms)
    if more > 0:
        shown += rf" + \cdots\ (\text{{{more:,} more}})"
    return f"= {shown} = {_tex_value(value)}"


def step_latex(step: APStepTable, n_terms: int = 4) -> list[str]:
    """The step formula, then its first terms with the data's recall and precision in."""
    r, p = step.recall, step.precision
    terms = []
    for i in range(min(n_terms, len(r))):
        prev = _tex(r[i - 1]) if i else "0"
        terms.append(rf"({_tex(r[i])} - {prev}) \times {_tex(p[i])}")
    return [FORMULAS["step"], _join_terms(terms, len(r), step.value)]


def _level_groups(b: APBreakdown, n_groups: int) -> tuple[list[str], int]:
    """Runs of equal precision over the recall levels, as 'count × precision'."""
    p = b.precision
    starts = np.flatnonzero(np.concatenate(([True], p[1:] != p[:-1])))
    counts = np.diff(np.append(starts, p.size))
    terms = [
        (_tex(p[s]) if c == 1 else rf"{c} \times {_tex(p[s])}")
        for s, c in zip(starts[:n_groups], counts[:n_groups], strict=True)
    ]
    return terms, starts.size


def method_latex(lab: APLab, method: str, n_terms: int = 4) -> list[str]:
    """A method's formula, then its first terms with the data's numbers in."""
    if method == "step":
        return step_latex(lab.step, n_terms)
    b = lab.breakdowns[method]
    value = lab.values[method]
    if method in ("voc11", "coco101"):
        n = b.weight.size
        groups, n_groups = _level_groups(b, 11 if method == "voc11" else 6)
        inner = " + ".join(groups)
        if n_groups > len(groups):
            inner += r" + \cdots"
        return [FORMULAS[method], rf"= \frac{{1}}{{{n}}}\left({inner}\right) = {_tex_value(value)}"]
    r = lab.breakdowns["step"].recall
    raw = lab.breakdowns["step"].precision
    terms = []
    for i in range(min(n_terms, r.size)):
        prev_r = _tex(r[i - 1]) if i else "0"
        if method == "trapezoid":
            prev_p = _tex(raw[i - 1]) if i else "1"
            height = rf"\frac{{{prev_p} + {_tex(raw[i])}}}{{2}}"
        else:  # voc_all
            height = _tex(b.precision[i])
        terms.append(rf"({_tex(r[i])} - {prev_r}) \times {height}")
    return [FORMULAS[method], _join_terms(terms, r.size, value)]


# --- the figure -------------------------------------------------------------------------------


def _thin(keep: np.ndarray, max_points: int) -> np.ndarray:
    return keep if keep.size <= max_points else keep[sample_indices(keep.size, max_points)]


def _step_polygon(
    recall: np.ndarray, height: np.ndarray, weight: np.ndarray, max_points: int
) -> tuple[np.ndarray, np.ndarray]:
    """Rectangles of width Δ recall and the given height, as one closed outline. Zero-width
    terms are left out (they add no area), so below the cap the area is exactly the sum."""
    keep = _thin(np.flatnonzero(weight > 0), max(max_points // 2, 2))
    r, h = recall[keep], height[keep]
    left = np.concatenate(([0.0], r[:-1]))
    x = np.concatenate(([0.0], np.column_stack([left, r]).ravel(), [r[-1], 0.0]))
    y = np.concatenate(([0.0], np.repeat(h, 2), [0.0, 0.0]))
    return x, y


def _trapezoid_polygon(
    recall: np.ndarray, precision: np.ndarray, weight: np.ndarray, max_points: int
) -> tuple[np.ndarray, np.ndarray]:
    """From (0, 0) up to (0, 1), through every point that bounds a trapezoid of non-zero width,
    down to the axis. Points inside a vertical run add no area and are left out."""
    adds = weight > 0
    keep = np.flatnonzero(adds | np.append(adds[1:], False))
    keep = _thin(keep, max(max_points - 4, 2))
    x = np.concatenate(([0.0, 0.0], recall[keep], [recall[keep][-1], 0.0]))
    y = np.concatenate(([0.0, 1.0], precision[keep], [0.0, 0.0]))
    return x, y


def polygon_area(x: np.ndarray, y: np.ndarray) -> float:
    """Shoelace area of a closed outline (for tests: the drawn area equals the value)."""
    x, y = np.asarray(x, dtype=np.float64), np.asarray(y, dtype=np.float64)
    return float(abs(np.dot(x, np.roll(y, -1)) - np.dot(y, np.roll(x, -1))) / 2)


def ap_regions_figure(
    lab: APLab, show: list[str] | tuple[str, ...], *, max_points: int = MAX_POINTS
) -> go.Figure:
    """The PR curve (one point per distinct threshold) with the region each chosen method sums.

    step and VOC all-point: rectangles of width Δ recall at the precision (or envelope) used;
    trapezoid: the polygon through the points from (0, 1); VOC 11-point and COCO 101-point:
    markers at the recall levels with the interpolated precision. At most about ``max_points``
    points per trace are sent; every value in the legend is computed on all the data.
    """
    fig = go.Figure()
    step = lab.breakdowns["step"]
    recall, precision = step.recall, step.precision
    # Largest areas first, so each smaller one stays visible on top of it.
    for m in ("voc_all", "trapezoid", "step", "voc11", "coco101"):
        if m not in show:
            continue
        b, color = lab.breakdowns[m], METHOD_COLORS[m]
        name = f"{METHOD_LABELS[m]}: {lab.values[m]:.4f}"
        if m in ("voc11", "coco101"):
            fig.add_trace(
                go.Scatter(
                    x=b.recall, y=b.precision, mode="markers", name=name,
                    marker=dict(
                        color=color, size=10 if m == "voc11" else 5,
                        symbol="diamond" if m == "voc11" else "circle",
                        line=dict(color="white", width=1),
                    ),
                    customdata=b.weight * b.precision,
                    hovertemplate=f"<b>{METHOD_LABELS[m]}</b><br>recall ≥ %{{x:.2f}}: best "
                    f"precision %{{y:.4f}}<br>adds %{{customdata:.4f}} (weight 1/{b.weight.size})"
                    "<extra></extra>",
                )
            )  # fmt: skip
            continue
        if m == "trapezoid":
            x, y = _trapezoid_polygon(recall, precision, b.weight, max_points)
        else:
            x, y = _step_polygon(recall, b.precision, b.weight, max_points)
        fig.add_trace(
            go.Scatter(
                x=x, y=y, mode="lines", fill="toself", name=name,
                line=dict(color=color, width=2.5 if m == "step" else 2, dash=OUTLINES[m]),
                fillcolor=_rgba(color, 0.12),
                hoverinfo="skip",
            )
        )  # fmt: skip
    idx = sample_indices(recall.size, max_points)
    few = recall.size <= 60
    fig.add_trace(
        go.Scatter(
            x=recall[idx], y=precision[idx], mode="markers" if few else "lines",
            name="PR points (one per threshold)",
            line=dict(color="#444444", width=1), marker=dict(size=9, color="#222222"),
            customdata=lab.step.threshold[idx],
            hovertemplate="threshold %{customdata:.4g}<br>recall %{x:.4f}<br>"
            "precision %{y:.4f}<extra></extra>",
        )
    )  # fmt: skip
    fig.update_layout(
        **_BASE_LAYOUT,
        height=500,
        xaxis=dict(title="recall", range=[-0.01, 1.01]),
        yaxis=dict(title="precision", range=[-0.01, 1.04]),
        legend=dict(
            x=0.02, y=0.02, xanchor="left", yanchor="bottom", bgcolor="rgba(255,255,255,0.85)"
        ),
    )
    return fig


def _rgba(hex_color: str, alpha: float) -> str:
    r, g, b = (int(hex_color[i : i + 2], 16) for i in (1, 3, 5))
    return f"rgba({r},{g},{b},{alpha})"

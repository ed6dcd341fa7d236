"""Step-through mode: a threshold walked down a ranking one distinct score at a time.

Pure numpy and plotly, no Streamlit. :func:`walk` turns labels and scores into a :class:`Walk`:
step 0 predicts nothing positive (the threshold sits above the highest score); step ``k``
lowers the threshold to the ``k``-th highest distinct score, so every row tied at that score
crosses the line together. At each step the confusion counts come from the library's
:func:`metrics.threshold_counts`, the AP term from :func:`metrics.ap_step_table` and the AUC
term from the pairs the crossing positives win (or tie) against the negatives still below the
line, so the last running sums are the library's AP and AUC.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
import plotly.graph_objects as go

import metrics
from ui.figures.charts import confusion_matrix_figure, sample_indices
from ui.words.numbers import decimals

__all__ = [
    "MAX_TABLE_ROWS",
    "Walk",
    "change_text",
    "pr_step_figure",
    "roc_step_figure",
    "table_window",
    "walk",
]

MAX_TABLE_ROWS = 12  # rows of the sorted table drawn at once (a window around the line)
MAX_ROWS_LISTED = 6  # row numbers written out in a step's sentence


@dataclass(frozen=True)
class Walk:
    """Every step of the threshold walk. Arrays over steps have ``n_steps + 1`` entries, index
    0 being "nothing predicted positive"; arrays over rows are in ranking order.

    ``order`` are the rows' positions in the input, highest score first (ties keep input
    order); ``row_numbers`` the numbers shown to people (from 1, as a spreadsheet does).
    """

    order: np.ndarray
    row_numbers: np.ndarray
    score: np.ndarray  # (n_rows,) in ranking order
    positive: np.ndarray  # (n_rows,) bool, in ranking order
    thresholds: np.ndarray  # (n_steps,) distinct scores, decreasing
    first_row: np.ndarray  # (n_steps + 1,) rows above the line after each step
    tp: np.ndarray
    fp: np.ndarray
    ap_term: np.ndarray  # (n_steps + 1,) step 0 adds nothing
    ap_running: np.ndarray
    pairs_term: np.ndarray  # correctly ordered pairs (ties one half) added at each step
    pairs_running: np.ndarray
    n_pos: int
    n_neg: int
    ap: float  # the library's values on the same rows
    auc: float

    @property
    def n_steps(self) -> int:
        return int(self.thresholds.size)

    @property
    def n_pairs(self) -> int:
        return self.n_pos * self.n_neg

    def fn(self, k: int) -> int:
        return self.n_pos - int(self.tp[k])

    def tn(self, k: int) -> int:
        return self.n_neg - int(self.fp[k])

    def confusion(self, k: int) -> metrics.Confusion:
        return metrics.Confusion(
            tp=int(self.tp[k]), fp=int(self.fp[k]), tn=self.tn(k), fn=self.fn(k)
        )

    def recall(self, k: int) -> float:
        return self.tp[k] / self.n_pos if self.n_pos else 0.0

    def fpr(self, k: int) -> float:
        return self.fp[k] / self.n_neg if self.n_neg else 0.0

    def precision(self, k: int) -> float:
        predicted = self.tp[k] + self.fp[k]
        return self.tp[k] / predicted if predicted else 1.0 if k == 0 else 0.0

    def threshold(self, k: int) -> float:
        """The threshold after step ``k`` (infinity at step 0: nothing is at or above it)."""
        return float("inf") if k == 0 else float(self.thresholds[k - 1])

    def crossed(self, k: int) -> np.ndarray:
        """Ranking positions of the rows that cross the line at step ``k`` (none at step 0)."""
        if k == 0:
            return np.zeros(0, dtype=np.int64)
        return np.arange(self.first_row[k - 1], self.first_row[k])

    def auc_so_far(self, k: int) -> float:
        return float(self.pairs_running[k] / self.n_pairs) if self.n_pairs else float("nan")


def walk(y_true, y_score, *, row_numbers=None) -> Walk:
    """The threshold walk over binary labels (bool or 0/1) and scores, rows unweighted.

    ``row_numbers`` (default 1, 2, ...) name the rows in the sentences. Needs at least one
    positive and one negative row (AUC and AP are undefined otherwise).
    """
    y = np.asarray(y_true).astype(bool)
    s = np.asarray(y_score, dtype=np.float64)
    if y.shape != s.shape or y.ndim != 1 or y.size == 0:
        raise ValueError("labels and scores must be two 1-d arrays of the same length.")
    n_pos = int(y.sum())
    n_neg = int(y.size - n_pos)
    if n_pos == 0 or n_neg == 0:
        raise ValueError("Stepping through needs at least one positive and one negative row.")
    numbers = np.arange(1, y.size + 1) if row_numbers is None else np.asarray(row_numbers)
    order = np.argsort(-s, kind="stable")
    counts = metrics.threshold_counts(y, s)
    tp = np.concatenate(([0.0], counts.tps)).astype(np.int64)
    fp = np.concatenate(([0.0], counts.fps)).astype(np.int64)
    steps = metrics.ap_step_table(y, s)
    ap_term = np.concatenate(([0.0], steps.contribution))
    pos_here = np.diff(tp)
    neg_here = np.diff(fp)
    # Positives crossing now beat every negative still below the line and tie those crossing
    # with them.
    pairs_term = np.concatenate(([0.0], pos_here * (n_neg - fp[1:]) + 0.5 * pos_here * neg_here))
    return Walk(
        order=order,
        row_numbers=numbers[order],
        score=s[order],
        positive=y[order],
        thresholds=counts.thresholds,
        first_row=tp + fp,
        tp=tp,
        fp=fp,
        ap_term=ap_term,
        ap_running=np.cumsum(ap_term),
        pairs_term=pairs_term,
        pairs_running=np.cumsum(pairs_term),
        n_pos=n_pos,
        n_neg=n_neg,
        ap=float(metrics.average_precision_score(y, s)),
        auc=float(metrics.roc_auc_score(y, s)),
    )


def _rows_text(numbers: np.ndarray) -> str:
    listed = ", ".join(str(n) for n in numbers[:MAX_ROWS_LISTED])
    more = f" and {numbers.size - MAX_ROWS_LISTED:,} more" if numbers.size > MAX_ROWS_LISTED else ""
    return f"row{'s' if numbers.size > 1 else ''} {listed}{more}"


def _arrow(name: str, before: float, after: float, digits: int | None = 2) -> str:
    if digits is None:
        return f"{name} {before:,.0f} → {after:,.0f}"
    return f"{name} {decimals(before, digits)} → {decimals(after, digits)}"


def change_text(w: Walk, k: int, *, positive_name="positive", negative_name="negative") -> str:
    """What step ``k`` changed, in words, e.g. "row 7 (score 0.62, positive) crossed: TP 3 → 4,
    recall 0.50 → 0.67"."""
    if k == 0:
        return (
            f"The threshold is above the highest score: no row is predicted {positive_name}. "
            f"TP 0, FP 0; every one of the {w.n_pos:,} {positive_name} rows is a false "
            "negative. Press Next (or →) to lower it."
        )
    rows = w.crossed(k)
    pos = int(w.positive[rows].sum())
    neg = rows.size - pos
    score = f"score {w.thresholds[k - 1]:.6g}"
    if rows.size == 1:
        kind = positive_name if pos else negative_name
        who = f"{_rows_text(w.row_numbers[rows])} ({score}, {kind})"
        verb = "crossed"
    else:
        kinds = ", ".join(
            part
            for part in (
                f"{pos} {positive_name}" if pos else "",
                f"{neg} {negative_name}" if neg else "",
            )
            if part
        )
        who = f"{_rows_text(w.row_numbers[rows])} (tied at {score}: {kinds})"
        verb = "crossed together"
    changes = []
    if pos:
        changes.append(_arrow("TP", w.tp[k - 1], w.tp[k], None))
        changes.append(_arrow("FN", w.fn(k - 1), w.fn(k), None))
    if neg:
        changes.append(_arrow("FP", w.fp[k - 1], w.fp[k], None))
        changes.append(_arrow("TN", w.tn(k - 1), w.tn(k), None))
    if pos:
        changes.append(_arrow("recall", w.recall(k - 1), w.recall(k)))
    if neg:
        changes.append(_arrow("FPR", w.fpr(k - 1), w.fpr(k)))
    if k > 1:
        changes.append(_arrow("precision", w.precision(k - 1), w.precision(k)))
    else:
        changes.append(f"precision {decimals(w.precision(k), 2)}")
    text = f"{who} {verb}: " + ", ".join(changes) + "."
    if pos and neg:
        text += " A tie of both classes: the ROC moves diagonally."
    return text


def ap_sum_text(w: Walk, k: int, *, max_terms: int = 4) -> str:
    """The AP step sum so far, written out: the last few terms and the running total."""
    terms = [
        f"{decimals(w.recall(i) - w.recall(i - 1), 2)}×{decimals(w.precision(i), 2)}"
        for i in range(1, k + 1)
        if w.tp[i] > w.tp[i - 1]
    ]
    shown = terms if len(terms) <= max_terms else ["…", *terms[-max_terms:]]
    body = " + ".join(shown) if shown else "0"
    return f"{body} = {decimals(w.ap_running[k])}"


def auc_sum_text(w: Walk, k: int) -> str:
    """Correctly ordered pairs counted so far over all pairs."""
    return f"{_half(w.pairs_running[k])} / {w.n_pairs:,} = {decimals(w.auc_so_far(k))}"


def _half(x: float) -> str:
    return f"{x:,.0f}" if float(x).is_integer() else f"{x:,.1f}"


def table_window(w: Walk, k: int, size: int = MAX_TABLE_ROWS) -> tuple[int, int]:
    """(start, stop) ranking positions of the rows to draw: all of a small table, else a
    window of ``size`` rows that keeps the threshold line (after ``first_row[k]`` rows) and the
    rows that just crossed in view."""
    n = w.score.size
    if n <= size:
        return 0, n
    line = int(w.first_row[k])
    start = max(0, min(line - size // 2, n - size))
    return start, start + size


def table_html(
    w: Walk, k: int, *, positive_name="positive", negative_name="negative", size=MAX_TABLE_ROWS
) -> str:
    """The rows by decreasing score as an HTML table with the threshold line drawn between
    the rows above it and those below; rows that just crossed are highlighted. Every cell is
    escaped text (row numbers, numbers, the two class names)."""
    import html

    start, stop = table_window(w, k, size)
    line = int(w.first_row[k])
    crossed = set(w.crossed(k).tolist())
    threshold = w.threshold(k)
    label = "above every score" if k == 0 else f"≥ {threshold:.6g}"
    head = "<tr><th>row</th><th>score</th><th>label</th><th>predicted</th></tr>"
    body = []

    def line_row() -> str:
        return (
            '<tr class="ml-line"><td colspan="4">threshold '
            f"{html.escape(label)}: rows above are predicted "
            f"{html.escape(positive_name)}</td></tr>"
        )

    if line == start and k == 0:
        body.append(line_row())
    for i in range(start, stop):
        above = i < line
        cls = "ml-new" if i in crossed else ""
        body.append(
            f'<tr class="{cls}" data-pos="{int(w.positive[i])}"><td>{int(w.row_numbers[i])}</td>'
            f"<td>{w.score[i]:.6g}</td>"
            f"<td>{html.escape(positive_name if w.positive[i] else negative_name)}</td>"
            f"<td>{html.escape(positive_name if above else negative_name)}</td></tr>"
        )
        if i + 1 == line:
            body.append(line_row())
    above_hidden, below_hidden = start, w.score.size - stop
    note = ""
    if above_hidden or below_hidden:
        note = (
            f'<div class="ml-note">rows {start + 1:,}–{stop:,} of {w.score.size:,} by score'
            f"{f'; {above_hidden:,} above' if above_hidden else ''}"
            f"{f', {below_hidden:,} below' if below_hidden else ''}</div>"
        )
    style = step_table_style(
        ".ml-steps tr[data-pos='1'] td:nth-child(3){color:#1f77b4;font-weight:600}"
        ".ml-steps tr.ml-line td{border-top:3px solid #d62728;color:#d62728;"
        "text-align:left;font-size:0.75rem;padding:0 6px}"
    )
    return (
        f'{style}<table class="ml-steps" data-testid="step-table">'
        f"<thead>{head}</thead><tbody>{''.join(body)}</tbody></table>{note}"
    )


def step_table_style(extra: str = "") -> str:
    """The step tables' style (this page's and the detection lesson's): tabular figures, the
    rows that just changed highlighted with a pointer, as a lecturer's finger on the table, and
    ``extra`` rules of the table's own."""
    return (
        "<style>"
        ".ml-steps{border-collapse:collapse;width:100%;font-size:0.85rem;"
        "font-variant-numeric:tabular-nums}"
        ".ml-steps th,.ml-steps td{padding:1px 6px;text-align:right;"
        "border-bottom:1px solid rgba(128,128,128,.2)}"
        ".ml-steps th{font-weight:600}"
        ".ml-steps tr.ml-new td{background:rgba(255,196,0,.35)}"
        ".ml-steps tr.ml-new td:first-child::before{content:'▶ ';color:#d62728}"
        ".ml-note{font-size:0.75rem;opacity:.7}" + extra + "</style>"
    )


def frame(w: Walk) -> pd.DataFrame:
    """Every step as a table (for a download or a test)."""
    ks = np.arange(w.n_steps + 1)
    return pd.DataFrame(
        {
            "step": ks,
            "threshold": [w.threshold(int(k)) for k in ks],
            "TP": w.tp,
            "FP": w.fp,
            "FN": w.n_pos - w.tp,
            "TN": w.n_neg - w.fp,
            "AP term": w.ap_term,
            "AP so far": w.ap_running,
            "pairs added": w.pairs_term,
            "pairs so far": w.pairs_running,
        }
    )


_LAYOUT = dict(
    template="plotly_white",
    margin=dict(l=40, r=10, t=30, b=36),
    font=dict(size=12),
    showlegend=False,
)


def _curve(
    w: Walk, x: np.ndarray, y: np.ndarray, k: int, shape: str, pointer: bool = True
) -> go.Figure:
    idx = sample_indices(x.size, keep=(k,))
    fig = go.Figure()
    fig.add_trace(
        go.Scatter(
            x=x[idx],
            y=y[idx],
            mode="lines",
            line=dict(color="#1f77b4", width=2, shape=shape),
            hoverinfo="skip",
            name="curve",
        )
    )
    fig.add_trace(
        go.Scatter(
            x=x[: k + 1][sample_indices(k + 1, keep=(k,))],
            y=y[: k + 1][sample_indices(k + 1, keep=(k,))],
            mode="lines",
            line=dict(color="#d62728", width=4, shape=shape),
            hoverinfo="skip",
            name="walked",
        )
    )
    fig.add_trace(
        go.Scatter(
            x=[x[k]],
            y=[y[k]],
            mode="markers",
            marker=dict(color="#d62728", size=13, line=dict(color="white", width=2)),
            name="now",
            hovertemplate="%{x:.3f}, %{y:.3f}<extra>step " + str(k) + "</extra>",
        )
    )
    if not pointer:
        return fig
    # A pointer at the current point, its label on the side towards the middle of the chart.
    fig.add_annotation(
        x=x[k], y=y[k], text=f"step {k}", showarrow=True, arrowhead=2, arrowsize=1.2,
        arrowwidth=2, arrowcolor="#d62728", font=dict(size=12, color="#d62728"),
        ax=-45 if x[k] > 0.5 else 45, ay=35 if y[k] > 0.5 else -35,
        bgcolor="rgba(255,255,255,0.85)",
    )  # fmt: skip
    return fig


def roc_step_figure(w: Walk, k: int, *, height: int = 250, pointer: bool = True) -> go.Figure:
    """The ROC curve with the part walked so far and the current point (with ``pointer``, an
    arrow labelled "step k" at it); a tie of both classes is a diagonal segment."""
    fpr = w.fp / w.n_neg
    tpr = w.tp / w.n_pos
    fig = _curve(w, fpr, tpr, k, "linear", pointer)
    fig.add_shape(type="line", x0=0, y0=0, x1=1, y1=1, line=dict(color="#999", dash="dot"))
    fig.update_layout(
        **_LAYOUT,
        height=height,
        title=dict(text=f"ROC · AUC {decimals(w.auc)}", font=dict(size=13), x=0.02),
        xaxis=dict(title="FPR", range=[-0.02, 1.02], constrain="domain"),
        yaxis=dict(title="TPR (recall)", range=[-0.02, 1.02], scaleanchor="x"),
    )
    return fig


def pr_step_figure(w: Walk, k: int, *, height: int = 250, pointer: bool = True) -> go.Figure:
    """Precision against recall at every step, the current point marked (with ``pointer``, an
    arrow labelled "step k" at it; step 0 is drawn at recall 0, precision 1, where the step sum
    starts)."""
    recall = w.tp / w.n_pos
    predicted = w.tp + w.fp
    precision = np.divide(w.tp, predicted, out=np.ones(w.tp.shape), where=predicted > 0)
    fig = _curve(w, recall, precision, k, "vh", pointer)
    prevalence = w.n_pos / (w.n_pos + w.n_neg)
    fig.add_hline(y=prevalence, line=dict(color="#999", dash="dot"))
    fig.update_layout(
        **_LAYOUT,
        height=height,
        title=dict(text=f"Precision-recall · AP {decimals(w.ap)}", font=dict(size=13), x=0.02),
        xaxis=dict(title="recall", range=[-0.02, 1.02]),
        yaxis=dict(title="precision", range=[-0.02, 1.05]),
    )
    return fig


def matrix_figure(w: Walk, k: int, *, height: int = 150) -> go.Figure:
    """The 2 x 2 confusion matrix at step ``k`` (rows actual, columns predicted; + and − stand
    for the positive and negative class, which the page names): the charts' matrix, compact."""
    return confusion_matrix_figure(
        w.confusion(k), positive_name="+", negative_name="−", height=height, compact=True
    )

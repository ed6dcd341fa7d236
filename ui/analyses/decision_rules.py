"""Decision rules on the Multi-label page: predictions, per-class tables, averages and figures.

Pure functions, no Streamlit. Every number comes from the library (:mod:`metrics`): a rule
turns the score matrix into predictions (:func:`predictions`), :func:`evaluate` calls the
library once per table cell and records the ``UndefinedMetricWarning`` messages it raised, and
the other functions turn those values into tables, Explain lines, sentences and figures.

Single-label rules (multi-class argmax, with or without abstention) pass one label per row to
the library, so micro averaging is the multi-class one (micro-F1 = accuracy without
abstentions). Set rules (thresholds, top-k) pass indicator matrices.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

import metrics
from ui.figures.charts import _BASE_LAYOUT
from ui.figures.multilabel_charts import ClassScores, capture, count, tex
from ui.words.numbers import decimals, shortest_cut
from ui.words.text import num

MULTICLASS_RULES = (
    "argmax",
    "argmax, abstain below a score",
    "argmax, per-class cut-offs",
    "top-k",
)
MULTILABEL_RULES = ("one shared threshold", "per-class thresholds", "top-k per row")
RULE_LINES = {
    "argmax": "Each row is predicted as its highest-scoring class (a tie goes to the first "
    "column).",
    "argmax, abstain below a score": "The highest-scoring class, unless that score is below the "
    "cut-off: then the row gets no prediction (a miss of its true class, never a false "
    "positive).",
    "argmax, per-class cut-offs": "The highest-scoring class among those whose score is at or "
    "above their own cut-off (edit the table); a row where no class reaches its cut-off gets no "
    "prediction (a miss of its true class, never a false positive). Cut-offs at the lowest "
    "score are plain argmax.",
    "top-k": "Each row predicts its k highest-scoring classes (ties: the column further left). "
    "A row is a set of predictions, so the averages are the multi-label ones.",
    "one shared threshold": "Class c is predicted for a row when its score >= the threshold, "
    "the same threshold for every class.",
    "per-class thresholds": "Class c is predicted for a row when its score >= class c's own "
    "threshold (edit the table).",
    "top-k per row": "Each row predicts its k highest-scoring labels (ties: the column "
    "further left), whatever the scores.",
}
AVERAGES = ("micro", "macro", "weighted", "samples")
ABSTAINED = "(abstained)"
METRICS = {
    "precision": metrics.precision_score,
    "recall": metrics.recall_score,
    "F1": metrics.f1_score,
    "Jaccard": metrics.jaccard_score,
}
AVERAGE_LINES = {
    "micro": "pool the TP, FP and FN of every class, then one ratio: frequent classes weigh more",
    "macro": "the plain mean of the per-class values: every class counts the same",
    "weighted": "the per-class values weighted by support (true rows of the class)",
    "samples": "one value per row (its predicted set against its true set), averaged over rows",
}


@dataclass(frozen=True)
class Rule:
    """A decision rule: ``kind`` in "argmax", "abstain", "cut-offs", "top-k", "shared",
    "per-class" (the last two multi-label; "cut-offs" is argmax over per-class cut-offs)."""

    kind: str
    threshold: float | None = None  # the abstention cut-off, or the shared threshold
    thresholds: tuple[float, ...] | None = None  # one per class
    k: int = 1

    @property
    def single(self) -> bool:
        """One predicted label (or none) per row: the library gets 1-D labels."""
        return self.kind in ("argmax", "abstain", "cut-offs")


def _support_words(ev: Evaluation, support: float) -> str:
    """A class's support in words: true rows, or their weight on a weighted table."""
    if ev.weighted:
        return f"true rows of weight {count(support)}"
    return f"{count(support)} true row{'s' * bool(support != 1)}"


def fmt(x: float) -> str:
    """A card's value: 4 decimals (no fraction, so five cards fit a row); NaN (undefined): —."""
    return decimals(x) if np.isfinite(x) else "—"


def rule_kind(name: str) -> str:
    """The :class:`Rule` kind of a rule's name in the page's control."""
    return {
        "argmax": "argmax",
        "argmax, abstain below a score": "abstain",
        "argmax, per-class cut-offs": "cut-offs",
        "top-k": "top-k",
        "one shared threshold": "shared",
        "per-class thresholds": "per-class",
        "top-k per row": "top-k",
    }[name]


def predictions(p: ClassScores, rule: Rule) -> tuple[np.ndarray, np.ndarray, list | None]:
    """(y_true, y_pred, labels) for the library: class names per row, or indicator matrices."""
    if rule.single:
        if not p.multiclass:
            raise ValueError("argmax rules need multi-class data (one label per row).")
        classes = np.asarray(p.classes)
        cuts = {"abstain": rule.threshold, "cut-offs": rule.thresholds}.get(rule.kind)
        pred = metrics.predict_argmax(
            p.scores,
            labels=classes,
            min_score=None if cuts is None else np.asarray(cuts, dtype=float),
            abstain=ABSTAINED,
        )
        return p.true_labels(), pred, list(p.classes)
    if rule.kind == "top-k":
        pred = metrics.predict_top_k(p.scores, int(rule.k))
    elif rule.kind == "shared":
        pred = metrics.predict_at_thresholds(p.scores, float(rule.threshold))
    elif rule.kind == "per-class":
        pred = metrics.predict_at_thresholds(p.scores, np.asarray(rule.thresholds, dtype=float))
    else:
        raise ValueError(f"unknown rule {rule.kind!r}")
    return p.y, pred, None


def indicator(p: ClassScores, rule: Rule) -> np.ndarray:
    """The predictions as an (n, C) indicator matrix (an abstained row predicts nothing)."""
    _, pred, labels = predictions(p, rule)
    if labels is None:
        return np.asarray(pred, dtype=bool)
    return np.asarray(pred)[:, None] == np.asarray(labels, dtype=object)[None, :]


@dataclass(frozen=True)
class Evaluation:
    """Every number of the decision-rule section, from the library."""

    classes: tuple[str, ...]
    rule: Rule
    beta: float
    mcm: np.ndarray  # (C, 2, 2): [[TN, FP], [FN, TP]]
    precision: np.ndarray
    recall: np.ndarray
    fbeta: np.ndarray
    f1: np.ndarray
    jaccard: np.ndarray
    mcc: np.ndarray
    averages: dict[tuple[str, str], float]  # (metric, average) -> value; NaN: not defined
    notes: dict[str, tuple[str, ...]]
    accuracy: float  # subset accuracy for sets of labels
    row_counts: np.ndarray | None  # (n, 2, 2) per-row confusion, set rules only
    n_rows: int
    n_no_true: int  # rows with no true label
    n_no_true_predicted: int  # ... of which the rule predicts some label
    n_no_pred: int  # rows with no predicted label (abstained, or no score above threshold)
    samples_f1_labelled: float  # samples F1 over the rows with a true label
    confusion: np.ndarray | None  # single-label: N x (N + abstained) counts
    weighted: bool = False  # counts are sums of sample weights

    @property
    def support(self) -> np.ndarray:
        return self.mcm[:, 1, 0] + self.mcm[:, 1, 1]

    @property
    def tp(self) -> np.ndarray:
        return self.mcm[:, 1, 1]

    @property
    def fp(self) -> np.ndarray:
        return self.mcm[:, 0, 1]

    @property
    def fn(self) -> np.ndarray:
        return self.mcm[:, 1, 0]

    @property
    def tn(self) -> np.ndarray:
        return self.mcm[:, 0, 0]


# The library's advice to a caller, which the page (scikit-learn's default of 0) does not offer.
_ZERO_DIVISION_ADVICE = " Pass zero_division= to choose the value and silence this warning."


def _page_words(message: str) -> str:
    """A library warning as the page says it: no advice about an argument it has no control
    for."""
    return message.replace(_ZERO_DIVISION_ADVICE, " (scikit-learn's default).")


def evaluate(p: ClassScores, rule: Rule, *, beta: float = 1.0) -> Evaluation:
    """Per-class counts and metrics and every average of ``rule`` on ``p``, by the library."""
    yt, yp, labels = predictions(p, rule)
    w = p.weight
    kw: dict[str, Any] = {"labels": labels, "sample_weight": w}
    notes: dict[str, tuple[str, ...]] = {}
    mcm = metrics.multilabel_confusion_matrix(yt, yp, **kw)
    (prec, rec, fb, _), notes["per class"] = capture(
        metrics.precision_recall_fscore_support, yt, yp, beta=beta, average=None, **kw
    )
    f1, _ = capture(metrics.f1_score, yt, yp, average=None, **kw)
    jac, n_j = capture(metrics.jaccard_score, yt, yp, average=None, **kw)
    notes["per class"] += tuple(m for m in n_j if m not in notes["per class"])
    truth = indicator_truth(p)
    pred = indicator(p, rule)
    mcc = np.array(  # (a class predicted for every row or none warns of a 1 x 1 matrix)
        [
            capture(metrics.matthews_corrcoef, truth[:, c], pred[:, c], sample_weight=w)[0]
            for c in range(p.n_classes)
        ]
    )
    averages: dict[tuple[str, str], float] = {}
    fns = dict(METRICS)
    if beta != 1:
        fns[f"F{beta:g}"] = lambda *a, **k: metrics.fbeta_score(*a, beta=beta, **k)
    for avg in AVERAGES:
        if rule.single and avg == "samples":
            for name in fns:
                averages[(name, avg)] = float("nan")
            continue
        msgs: list[str] = []
        for name, fn in fns.items():
            value, got = capture(fn, yt, yp, average=avg, **kw)
            averages[(name, avg)] = float(value)
            msgs += [m for m in got if m not in msgs]
        notes[avg] = tuple(msgs)
    accuracy = float(metrics.accuracy_score(yt, yp, sample_weight=w))
    no_true = ~truth.any(axis=1)
    no_pred = ~pred.any(axis=1)
    row_counts = None
    samples_labelled = float("nan")
    if not rule.single:
        row_counts = metrics.multilabel_confusion_matrix(yt, yp, samplewise=True)
        if no_true.any() and (~no_true).any():
            samples_labelled = float(
                capture(
                    metrics.f1_score,
                    yt[~no_true],
                    yp[~no_true],
                    average="samples",
                    sample_weight=None if w is None else w[~no_true],
                )[0]
            )
    confusion = None
    if rule.single:
        confusion = metrics.confusion_matrix(
            yt, yp, labels=[*p.classes, ABSTAINED], sample_weight=w
        )[: p.n_classes]
    notes = {key: tuple(_page_words(m) for m in msgs) for key, msgs in notes.items()}
    return Evaluation(
        classes=p.classes,
        rule=rule,
        beta=float(beta),
        mcm=mcm,
        precision=np.asarray(prec, dtype=float),
        recall=np.asarray(rec, dtype=float),
        fbeta=np.asarray(fb, dtype=float),
        f1=np.asarray(f1, dtype=float),
        jaccard=np.asarray(jac, dtype=float),
        mcc=mcc,
        averages=averages,
        notes=notes,
        accuracy=accuracy,
        row_counts=row_counts,
        n_rows=p.n_rows,
        n_no_true=int(no_true.sum()),
        n_no_true_predicted=int((no_true & ~no_pred).sum()),
        n_no_pred=int(no_pred.sum()),
        samples_f1_labelled=samples_labelled,
        confusion=confusion,
        weighted=w is not None,
    )


def indicator_truth(p: ClassScores) -> np.ndarray:
    return np.asarray(p.y, dtype=bool)


# --- tables ----------------------------------------------------------------------------------


def per_class_table(ev: Evaluation) -> pd.DataFrame:
    """One row per class: support, TP/FP/FN/TN, precision, recall, F-beta, F1, Jaccard, MCC."""
    frame = pd.DataFrame(
        {
            "class": list(ev.classes),
            "support": ev.support,
            "TP": ev.tp,
            "FP": ev.fp,
            "FN": ev.fn,
            "TN": ev.tn,
            "precision": ev.precision,
            "recall": ev.recall,
            f"F{ev.beta:g}": ev.fbeta,
            "Jaccard": ev.jaccard,
            "MCC": ev.mcc,
        }
    )
    if ev.beta != 1:
        frame.insert(9, "F1", ev.f1)
    return frame


def averages_table(ev: Evaluation) -> pd.DataFrame:
    """One row per metric, one column per average (NaN: samples of single-label rules)."""
    names = list(dict.fromkeys(m for m, _ in ev.averages))
    return pd.DataFrame(
        {"metric": names, **{a: [ev.averages[(m, a)] for m in names] for a in AVERAGES}}
    )


def intervals_table(spread: metrics.DecisionIntervals, *, single: bool) -> pd.DataFrame:
    """The averages' 95% intervals as ``[low, high]``, one row per metric, one column per
    average; samples averaging is "—" for single-label rules (not defined for one label per
    row), as is an interval no resample could compute."""
    names = list(dict.fromkeys(m for m, _ in spread.values))
    return pd.DataFrame(
        {
            "metric": names,
            **{
                a: ["—" if single and a == "samples" else interval(spread.intervals[(m, a)])
                    for m in names]
                for a in AVERAGES
            },
        }
    )  # fmt: skip


def interval(pair: tuple[float, float]) -> str:
    """``[low, high]`` in the page's decimals, "—" when either end is undefined."""
    low, high = pair
    if not (np.isfinite(low) and np.isfinite(high)):
        return "—"
    return f"[{decimals(low)}, {decimals(high)}]"


# --- Explain -----------------------------------------------------------------------------------


def _terms(values, max_terms: int = 6) -> str:
    shown = [tex(v, 3) for v in values[:max_terms]]
    return " + ".join(shown) + (r" + \dots" if len(values) > max_terms else "")


def explain_lines(ev: Evaluation, avg: str) -> tuple[list[str], str]:
    """The formulas of F1 under ``avg``, filled with this table's counts."""
    lib = ev.averages[("F1", avg)]
    C = len(ev.classes)
    if avg == "micro":
        tp, fp, fn = ev.tp.sum(), ev.fp.sum(), ev.fn.sum()
        p_ = ev.averages[("precision", "micro")]
        r_ = ev.averages[("recall", "micro")]
        lines = [
            r"P_{\text{micro}} = \frac{\sum_c TP_c}{\sum_c TP_c + \sum_c FP_c} = "
            rf"\frac{{{num(tp)}}}{{{num(tp)} + {num(fp)}}} = {tex(p_)}",
            r"R_{\text{micro}} = \frac{\sum_c TP_c}{\sum_c TP_c + \sum_c FN_c} = "
            rf"\frac{{{num(tp)}}}{{{num(tp)} + {num(fn)}}} = {tex(r_)}",
            r"F1_{\text{micro}} = \frac{2\,\sum TP}{2\,\sum TP + \sum FP + \sum FN} = "
            rf"\frac{{2 \cdot {num(tp)}}}{{2 \cdot {num(tp)} + {num(fp)} + {num(fn)}}} = "
            rf"{tex(lib)}",
        ]
        return lines, "Sums over the classes: one pooled confusion matrix."
    if avg == "macro":
        return [
            r"F1_{\text{macro}} = \frac{1}{C} \sum_c F1_c = "
            rf"\frac{{{_terms(ev.f1)}}}{{{C}}} = {tex(lib)}"
        ], "F1_c = 2 TP_c / (2 TP_c + FP_c + FN_c), 0 where that is 0/0 (zero_division)."
    if avg == "weighted":
        s = ev.support
        terms = [rf"{num(a)} \cdot {tex(b, 3)}" for a, b in zip(s, ev.f1, strict=True)]
        shown = " + ".join(terms[:6]) + (r" + \dots" if len(terms) > 6 else "")
        return [
            r"F1_{\text{weighted}} = \frac{\sum_c \text{support}_c\, F1_c}{\sum_c "
            rf"\text{{support}}_c}} = \frac{{{shown}}}{{{num(s.sum())}}} = {tex(lib)}"
        ], "support_c: the true rows of class c (their sample weight when weighted)."
    if ev.row_counts is None:
        return [r"F1_{\text{samples}}\ \text{needs a set of labels per row}"], (
            "A single-label rule predicts one class (or none) per row: samples averaging is "
            "not defined for it."
        )
    row_f1 = samples_row_f1(ev)
    return [
        r"F1_{\text{samples}} = \frac{1}{n} \sum_i \frac{2\,|Y_i \cap \hat Y_i|}"
        r"{|Y_i| + |\hat Y_i|} = "
        rf"\frac{{{_terms(row_f1, 4)}}}{{n}} = "
        rf"\frac{{{num(row_f1.sum())}}}{{{num(ev.n_rows)}}} = {tex(lib)}"
    ], (
        f"Y_i: the true labels of row i, Ŷ_i its predicted labels. {ev.n_no_true:,} row"
        f"{'s' * (ev.n_no_true != 1)} with no true label score 0 (0/0 when nothing is "
        "predicted either: zero_division). With sample weights the mean is weighted."
    )


def samples_row_f1(ev: Evaluation) -> np.ndarray | None:
    """Each row's F1 (0 where 0/0), the terms samples averaging takes the mean of."""
    if ev.row_counts is None:
        return None
    tp, fp, fn = ev.row_counts[:, 1, 1], ev.row_counts[:, 0, 1], ev.row_counts[:, 1, 0]
    den = 2 * tp + fp + fn
    return np.divide(2 * tp, den, out=np.zeros(tp.shape, dtype=float), where=den > 0)


# --- lessons -------------------------------------------------------------------------------------


def lessons(ev: Evaluation, multiclass: bool) -> list[str]:
    """Sentences that read the lessons of averaging off this table."""
    out: list[str] = []
    micro = ev.averages[("F1", "micro")]
    macro = ev.averages[("F1", "macro")]
    if ev.rule.kind == "argmax" or (ev.rule.kind == "cut-offs" and ev.n_no_pred == 0):
        out.append(
            f"**Micro-F1 = accuracy**: micro-F1 {decimals(micro)}, accuracy "
            f"{decimals(ev.accuracy)}. With one "
            "true and one predicted class per row, every wrong row is one FP (of the class "
            "predicted) and one FN (of the true class), so ΣFP = ΣFN and micro precision = "
            "micro recall = accuracy."
        )
    elif ev.rule.kind in ("abstain", "cut-offs"):
        out.append(
            f"**Abstaining breaks micro-F1 = accuracy**: micro-F1 {decimals(micro)}, accuracy "
            f"{decimals(ev.accuracy)}. The {ev.n_no_pred:,} abstained row"
            f"{'s' * (ev.n_no_pred != 1)} are misses (FN) but not false positives, so micro "
            f"precision ({decimals(ev.averages[('precision', 'micro')])}) rises above micro recall "
            f"({decimals(ev.averages[('recall', 'micro')])})."
        )
    elif multiclass and ev.rule.kind == "top-k" and ev.rule.k > 1:
        out.append(
            f"Top-{ev.rule.k} accuracy ({decimals(ev.averages[('recall', 'micro')])}) counts a row "
            f"right when its class is among the {ev.rule.k} predicted; subset accuracy "
            f"({decimals(ev.accuracy)}) asks the predicted set to be exactly the true class, which "
            f"{ev.rule.k} labels never are. Micro-F1 is {decimals(micro)}."
        )
    elif multiclass:
        out.append(
            f"Accuracy here is subset accuracy ({decimals(ev.accuracy)}: the predicted set must be "
            f"exactly the true class); micro-F1 is {decimals(micro)}."
        )
    else:
        out.append(
            f"Subset accuracy (every label of a row right): {decimals(ev.accuracy)}; micro-F1 "
            f"{decimals(micro)}."
        )
    support = ev.support.astype(float)
    present = np.flatnonzero(support > 0)
    if present.size >= 2:
        rare = int(present[np.argmin(support[present])])
        share = support[rare] / support.sum()
        out.append(
            f"**The rarest class, {ev.classes[rare]}** ({_support_words(ev, support[rare])}, "
            f"{share:.1%} of all true labels), has F1 "
            f"{decimals(ev.f1[rare])}. Macro-F1 ({decimals(macro)}) gives it 1/{len(ev.classes)} "
            "of the "
            f"weight; micro-F1 ({decimals(micro)}) only its {share:.1%} share of the pooled "
            "counts. "
            "When a rare class fails, macro falls while micro barely moves; here its F1 is "
            + ("below" if ev.f1[rare] < macro else "at or above")
            + " the macro average."
        )
    if ev.rule.single:
        out.append(
            "Samples averaging needs a set of labels per row; with one predicted class per row "
            "it is not defined (the library raises), so its column is empty."
        )
    elif ev.n_no_true:
        with_label = ev.samples_f1_labelled
        out.append(
            f"**{ev.n_no_true:,} of {ev.n_rows:,} rows have no true label.** Samples averaging "
            "keeps them: "
            + (
                f"the {ev.n_no_true_predicted:,} given a label by this rule score F1 0 "
                "(precision 0), "
                if ev.n_no_true_predicted
                else "this rule predicts no label for any of them, so "
            )
            + f"{'the other ' if ev.n_no_true_predicted else ''}"
            f"{ev.n_no_true - ev.n_no_true_predicted:,} "
            "are 0/0 and get zero_division (0, with a warning). Samples-F1 "
            f"{decimals(ev.averages[('F1', 'samples')])}; over the rows with a label only, "
            + (f"{decimals(with_label)}." if np.isfinite(with_label) else "undefined.")
        )
    else:
        out.append("Every row has at least one true label, so samples averaging drops none.")
    return out


# --- figures -------------------------------------------------------------------------------------


def class_matrices_figure(ev: Evaluation, columns: int = 4) -> go.Figure:
    """Per-class 2 x 2 confusion matrices as small multiples (rows: truth; columns: prediction)."""
    n = len(ev.classes)
    cols = min(columns, n)
    rows = -(-n // cols)
    fig = make_subplots(
        rows=rows,
        cols=cols,
        subplot_titles=[str(c) for c in ev.classes],
        horizontal_spacing=0.06,
        vertical_spacing=0.5 / rows if rows > 1 else 0.1,
    )
    for c in range(n):
        m = ev.mcm[c]  # [[TN, FP], [FN, TP]]
        z = [[m[1, 1], m[1, 0]], [m[0, 1], m[0, 0]]]  # positives first
        total = m.sum()
        text = [
            [f"TP {count(m[1, 1])}", f"FN {count(m[1, 0])}"],
            [f"FP {count(m[0, 1])}", f"TN {count(m[0, 0])}"],
        ]
        fig.add_trace(
            go.Heatmap(
                z=np.asarray(z, dtype=float) / total if total else np.zeros((2, 2)),
                x=["pred 1", "pred 0"],
                y=["true 1", "true 0"],
                text=text,
                texttemplate="%{text}",
                textfont=dict(size=12),
                colorscale="Blues",
                zmin=0,
                zmax=1,
                showscale=False,
                hovertemplate=f"{ev.classes[c]}: %{{y}}, %{{x}}: %{{text}}<extra></extra>",
                customdata=np.asarray(z),
            ),
            row=c // cols + 1,
            col=c % cols + 1,
        )
    fig.update_yaxes(autorange="reversed")
    fig.update_layout(**{**_BASE_LAYOUT, "margin": dict(l=50, r=10, t=40, b=20)})
    fig.update_layout(height=190 * rows + 40)
    return fig


def rule_confusion_figure(ev: Evaluation, normalize: str | None = None) -> go.Figure:
    """Single-label rules: the N x N matrix (plus an "abstained" column when the rule abstains),
    normalised by true class ("true"), predicted class ("pred") or all rows ("all")."""
    assert ev.confusion is not None
    keep = ev.confusion.shape[1] if ev.rule.kind in ("abstain", "cut-offs") else len(ev.classes)
    return matrix_figure(
        ev.confusion[:, :keep], ev.classes, [*ev.classes, ABSTAINED][:keep], normalize
    )


def matrix_figure(
    counts: np.ndarray,
    true_names,
    pred_names,
    normalize: str | None = None,
    title: str | None = None,
) -> go.Figure:
    """A confusion-matrix heatmap (rows: truth, columns: prediction): counts, or counts with
    their share by true class ("true"), predicted class ("pred") or all rows ("all")."""
    counts = np.asarray(counts, dtype=float)
    shown = normalized(counts, normalize)
    rows, cols = counts.shape
    text = [
        [
            count(counts[i, j])
            if normalize is None
            else f"{shown[i, j]:.1%}<br>({count(counts[i, j])})"
            for j in range(cols)
        ]
        for i in range(rows)
    ]
    fig = go.Figure(
        go.Heatmap(
            z=shown,
            x=[f"pred {c}" for c in pred_names],
            y=[f"true {c}" for c in true_names],
            text=text,
            texttemplate="%{text}",
            textfont=dict(size=14 if rows <= 6 else 10),
            colorscale="Blues",
            showscale=False,
            hovertemplate="%{y}, %{x}: %{text}<extra></extra>",
            customdata=counts,
        )
    )
    fig.update_layout(**_BASE_LAYOUT, height=max(300, 55 * rows + 90))
    if title:
        fig.update_layout(title=dict(text=title, x=0, xanchor="left", font=dict(size=14)))
    fig.update_yaxes(autorange="reversed")
    return fig


def normalized(counts: np.ndarray, normalize: str | None) -> np.ndarray:
    """Counts divided by their row sums ("true"), column sums ("pred") or total ("all"); 0/0
    is 0."""
    counts = np.asarray(counts, dtype=float)
    if normalize is None:
        return counts
    if normalize == "true":
        den = counts.sum(axis=1, keepdims=True)
    elif normalize == "pred":
        den = counts.sum(axis=0, keepdims=True)
    elif normalize == "all":
        den = np.array(counts.sum())
    else:
        raise ValueError(f"normalize must be None, 'true', 'pred' or 'all', got {normalize!r}.")
    return np.divide(counts, den, out=np.zeros_like(counts), where=den != 0)


# --- choosing thresholds -------------------------------------------------------------------------


def finite_thresholds(p: ClassScores, thresholds: np.ndarray) -> np.ndarray:
    """``inf`` (predict the class for no row) as the next number above the class's top score,
    which predicts the same rows and fits a number input."""
    out = np.asarray(thresholds, dtype=float).copy()
    for c in np.flatnonzero(~np.isfinite(out)):
        col = p.scores[:, c]
        top = float(np.nanmax(col)) if np.isfinite(col).any() else 0.0
        out[c] = float(np.nextafter(top, np.inf))
    return out


def typed_cut(scores: np.ndarray, threshold: float) -> float:
    """``threshold`` as few digits as select the same ``scores >= threshold`` (see
    :func:`ui.words.numbers.shortest_cut`): the number a user can type back."""
    col = np.asarray(scores, dtype=float)
    under = col[col < threshold]
    return shortest_cut(threshold, float(under.max()) if under.size else -np.inf)


def typed_thresholds(p: ClassScores, thresholds: np.ndarray) -> np.ndarray:
    """Each class's threshold as :func:`typed_cut` writes it on that class's scores."""
    return np.array([typed_cut(p.scores[:, c], t) for c, t in enumerate(thresholds)])


def thresholds_table(
    p: ClassScores, best: metrics.ThresholdChoice, micro: metrics.ThresholdChoice
) -> pd.DataFrame:
    """Per class: its F-beta-optimal threshold (also the macro optimum) and the micro ascent's,
    each written with the fewest digits that predict the same rows."""
    b = f"F{best.beta:g}"
    return pd.DataFrame(
        {
            "class": list(p.classes),
            f"best {b} threshold": typed_thresholds(p, best.thresholds),
            f"{b} there": best.per_class,
            "micro-optimal threshold": typed_thresholds(p, micro.thresholds),
            f"{b} at the micro threshold": micro.per_class,
        }
    )


def problem_rows(p: ClassScores, rows: np.ndarray) -> ClassScores:
    """The same problem on a subset of its rows."""
    return ClassScores(
        name=p.name,
        y=p.y[rows],
        scores=p.scores[rows],
        classes=p.classes,
        weight=None if p.weight is None else p.weight[rows],
        multiclass=p.multiclass,
    )

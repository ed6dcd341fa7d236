"""Lessons: predict a number from a small table, check it, then see how it is derived.

Pure logic, no Streamlit. A :class:`Lesson` makes an :class:`Exercise` from a seed: the table,
the question, the answer (always computed by the :mod:`metrics` library, never typed in), the
tolerance an answer is checked with, and the derivation as LaTeX lines for the Explain
expander. Worked examples from public sources are lessons of their own (seed 0 is the
published example; "new example" draws a seeded one like it); the others draw a fresh seeded
table for every seed, so a class can repeat an exercise and everyone sees the same table.
"""

from __future__ import annotations

import math
import re
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from fractions import Fraction

import numpy as np
import pandas as pd
import plotly.graph_objects as go

import metrics
from ui.figures import ap_charts, auc_charts, calibration_charts, decision_charts, ranking_charts
from ui.tables.synthetic import SyntheticSpec, dprime_from_auc, generate
from ui.words.numbers import decimals
from ui.words.text import fraction, num

__all__ = [
    "LESSONS",
    "TOPICS",
    "Exercise",
    "Lesson",
    "Verdict",
    "check_answer",
    "parse_number",
]

DEFAULT_TOLERANCE = 0.005  # an answer to two decimals counts


@dataclass(frozen=True)
class Exercise:
    """One question on one table. ``answer`` is a float (``kind="number"``) or one of
    ``options`` (``kind="choice"``)."""

    table: pd.DataFrame
    context: str
    question: str
    answer: float | str
    derivation: tuple[str, ...]
    note: str = ""
    kind: str = "number"
    options: tuple[str, ...] = ()
    tolerance: float = DEFAULT_TOLERANCE
    facts: dict[str, float] = field(default_factory=dict)  # other numbers worth showing
    curves: tuple[np.ndarray, np.ndarray] | None = None  # (labels, scores) for ROC and PR
    figure: go.Figure | None = None  # a chart of the lesson's own (beside the ROC when curves)
    # What a wrong first answer is told instead of the answer: the idea most often missed here.
    hint: str = ""
    # Wrong answers a known misconception gives, each with the hint that names it: (value, hint).
    traps: tuple[tuple[float | str, str], ...] = ()


@dataclass(frozen=True)
class Lesson:
    key: str
    title: str
    topic: str
    make: Callable[[int], Exercise]
    source: str = ""  # a public source for a worked example
    worked: bool = False


@dataclass(frozen=True)
class Verdict:
    correct: bool | None  # None: the answer could not be read
    message: str
    hint: str = ""  # for a wrong answer: the misconception it shows, or the lesson's hint


# --- answers ---------------------------------------------------------------------------------


def parse_number(text: str | float) -> float | None:
    """A number as a learner types it: 0.83, .83, 0,83, 83%, 5/6, 99.99 %. None if unreadable."""
    if isinstance(text, (int, float)):
        return float(text) if math.isfinite(float(text)) else None
    s = str(text).strip().replace(" ", "").replace("−", "-")
    if not s:
        return None
    percent = s.endswith("%")
    s = s.rstrip("%")
    if re.fullmatch(r"-?\d+,\d+", s):
        s = s.replace(",", ".")
    try:
        value = float(Fraction(s))
    except (ValueError, ZeroDivisionError):
        return None
    return value / 100 if percent else value


def check_answer(ex: Exercise, given: str | float | None, *, reveal: bool = True) -> Verdict:
    """Right or wrong, with the tolerance for numbers. A wrong answer gets a hint (the
    misconception its value shows when it is a known one, else the lesson's hint); it says the
    answer only with ``reveal`` (a class's second try keeps it hidden)."""
    if ex.kind == "choice":
        if given is None or given == "":
            return Verdict(None, "Pick one of the options first.")
        if given == ex.answer:
            return Verdict(True, f"Right: {ex.answer}.")
        hint = next((h for v, h in ex.traps if v == given), ex.hint)
        if reveal:
            return Verdict(False, f"Not this time: the answer is {ex.answer}, not {given}.", hint)
        return Verdict(False, f"Not this time: not {given}.", hint)
    value = parse_number(given) if given is not None else None
    if value is None:
        return Verdict(None, "Type a number, such as 0.75, 3/4 or 75%, and check again.")
    answer = float(ex.answer)
    within = f"answers within {ex.tolerance:g} count"
    if abs(value - answer) <= ex.tolerance + 1e-12:
        return Verdict(True, f"Right: {_show(answer)} (you said {_show(value)}; {within}).")
    hint = next((h for v, h in ex.traps if abs(value - float(v)) <= ex.tolerance + 1e-12), ex.hint)
    if reveal:
        return Verdict(
            False,
            f"Not quite: the answer is {_show(answer)}, you said {_show(value)} ({within}).",
            hint,
        )
    return Verdict(False, f"Not quite: you said {_show(value)} ({within}).", hint)


def _traps(answer: float, tolerance: float, *pairs: tuple[float, str]) -> tuple:
    """The misconceptions whose value differs from the answer (a trap equal to the answer
    would call a right answer wrong), the first of equal values kept."""
    kept: list[tuple[float, str]] = []
    for value, hint in pairs:
        value = float(value)
        if not math.isfinite(value) or abs(value - answer) <= 2 * tolerance:
            continue
        if all(abs(value - v) > 1e-12 for v, _ in kept):
            kept.append((value, hint))
    return tuple(kept)


def _show(x: float) -> str:
    exact = Fraction(x).limit_denominator(100)
    text = decimals(x).rstrip("0").rstrip(".") if abs(x) >= 1e-4 or x == 0 else f"{x:.2e}"
    if abs(float(exact) - x) < 1e-12 and exact.denominator > 1:
        return f"{text} = {exact.numerator}/{exact.denominator}"
    return text


def _hinted(ex: Exercise, hint: str, *traps: tuple[float, str]) -> Exercise:
    """The exercise with its hint and the traps whose value is not the answer."""
    kept = _traps(float(ex.answer), ex.tolerance, *traps) if ex.kind == "number" else traps
    return replace(ex, hint=hint, traps=kept)


def _rng(key: str, seed: int) -> np.random.Generator:
    return np.random.default_rng([zlib.crc32(key.encode()), seed])


def _rows(y, s, **extra) -> pd.DataFrame:
    table = pd.DataFrame({"row": np.arange(1, len(y) + 1), "label": np.asarray(y).astype(int)})
    table["score"] = np.asarray(s, dtype=float)
    for name, values in extra.items():
        table[name] = values
    return table


def _binary_draw(rng: np.random.Generator, n: int, ties: bool) -> tuple[np.ndarray, np.ndarray]:
    """A small table with both classes whose positives score higher on average."""
    while True:
        y = rng.random(n) < 0.5
        if 2 <= y.sum() <= n - 2:
            break
    s = np.clip(rng.normal(0.45 + 0.25 * y, 0.2), 0.01, 0.99)
    s = np.round(s, 1 if ties else 2)
    return y.astype(int), s


# --- precision, recall, F-beta ------------------------------------------------------------------


def _confusion_lines(c: metrics.Confusion, threshold: float) -> list[str]:
    return [
        rf"\text{{at threshold }} {num(threshold)}: \ TP = {num(c.tp)},\ FP = {num(c.fp)},\ "
        rf"FN = {num(c.fn)},\ TN = {num(c.tn)}",
        fraction("precision", "TP", "TP + FP", c.tp, c.tp + c.fp),
        fraction("recall", "TP", "TP + FN", c.tp, c.tp + c.fn),
    ]


def _prf(seed: int) -> Exercise:
    rng = _rng("prf", seed)
    y, s = _binary_draw(rng, 8, ties=False)
    threshold = float(np.sort(s)[rng.integers(2, 6)])
    c = metrics.confusion_at_threshold(y, s, threshold)
    what, beta = [("precision", None), ("recall", None), ("F1", 1.0), ("F2", 2.0)][seed % 4]
    answer = c.f_beta(beta) if beta else {"precision": c.precision, "recall": c.recall}[what]
    lines = _confusion_lines(c, threshold)
    if beta:
        b2 = beta**2
        lines.append(
            rf"F_{{{num(beta)}}} = \frac{{(1 + {num(b2)})\,P\,R}}{{{num(b2)}\,P + R}} = "
            rf"\frac{{{num(1 + b2)} \cdot {num(c.precision)} \cdot {num(c.recall)}}}"
            rf"{{{num(b2)} \cdot {num(c.precision)} + {num(c.recall)}}} = {num(c.f_beta(beta))}"
        )
    ex = Exercise(
        table=_rows(y, s),
        context=f"A row is predicted positive when its score is at least **{threshold:g}**.",
        question=f"What is the {what} at threshold {threshold:g}?",
        answer=float(answer),
        derivation=tuple(lines),
        curves=(y, s),
        note="F-beta weighs recall beta times as much as precision (van Rijsbergen, "
        "Information Retrieval, 1979).",
    )
    return _hinted(ex, PRF_HINTS[what], *_prf_traps(y, s, threshold, what, beta))


PRF_HINTS = {
    "precision": "Precision divides by the rows predicted positive (TP + FP), not by the "
    "actual positives: first mark every row whose score is at least the threshold.",
    "recall": "Recall divides by all the actual positives (TP + FN), found or not: count "
    "the rows labelled 1, then how many of them score at least the threshold.",
    "F1": "F1 is the harmonic mean 2·P·R / (P + R) of precision and recall, not their plain "
    "average: work out P and R first.",
    "F2": "F2 = 5·P·R / (4·P + R): β² = 4 multiplies the precision in the denominator, which "
    "makes recall count four times as much.",
}


def _prf_traps(y, s, threshold: float, what: str, beta: float | None) -> tuple:
    """Swapped precision and recall, the plain average, a strict '>' at the threshold."""
    c = metrics.confusion_at_threshold(y, s, threshold)
    strict = metrics.confusion_at_threshold(y, s, np.nextafter(threshold, np.inf))
    value = {"precision": "precision", "recall": "recall"}.get(what)
    traps = []
    if what == "precision":
        traps.append(
            (
                c.recall,
                "That is the recall: precision divides by the rows predicted positive (TP + FP).",
            )
        )
    if what == "recall":
        traps.append(
            (
                c.precision,
                "That is the precision: recall divides by the actual positives (TP + FN).",
            )
        )
    if beta:
        traps.append(
            (
                (c.precision + c.recall) / 2,
                "That is the plain average of precision "
                "and recall; F-beta is a harmonic mean, pulled towards the smaller one.",
            )
        )
        traps.append(
            (
                strict.f_beta(beta),
                "A row scoring exactly the threshold is predicted "
                "positive: the rule is score ≥ threshold.",
            )
        )
    else:
        traps.append(
            (
                getattr(strict, value),
                "A row scoring exactly the threshold is "
                "predicted positive: the rule is score ≥ threshold.",
            )
        )
    return tuple(traps)


def _three_rows(seed: int) -> Exercise:
    if seed:
        return _prf(seed)
    y, s, t = [1, 0, 0], [0.7, 0.3, 0.5], 0.5
    c = metrics.confusion_at_threshold(y, s, t)
    return Exercise(
        table=_rows(y, s),
        context="Truth [T, F, F], scores [0.7, 0.3, 0.5]; a score of at least **0.5** is "
        "predicted positive (the tie at 0.5 included, as scikit-learn does).",
        question="What is the precision at threshold 0.5?",
        answer=float(c.precision),
        derivation=tuple(_confusion_lines(c, t)),
        note=f"Recall is {c.recall:g}: the one positive is found, but the negative scored "
        "exactly 0.5 is flagged too.",
        facts={"recall": float(c.recall)},
        hint="The rule is score ≥ 0.5, so the negative that scores exactly 0.5 is predicted "
        "positive: count it among the predicted positives (TP + FP).",
        traps=(
            (
                1.0,
                "A score of exactly 0.5 is at the threshold, and at least 0.5 is "
                "predicted positive: row 3 is a false positive.",
            ),
        ),
    )


def _accuracy(seed: int) -> Exercise:
    if seed:
        rng = _rng("accuracy", seed)
        n = int(10 ** rng.integers(4, 7))
        relevant = int(rng.integers(1, 20) * n // 10_000) or 1
    else:
        n, relevant = 1_000_000, 100
    c = metrics.Confusion(tp=0, fp=0, tn=n - relevant, fn=relevant)
    table = pd.DataFrame(
        {
            "": ["actual relevant", "actual not relevant"],
            "predicted relevant": [0, 0],
            "predicted not relevant": [relevant, n - relevant],
        }
    )
    return Exercise(
        table=table,
        context=f"{n:,} documents, {relevant:,} of them relevant. The classifier says "
        "'not relevant' to every one.",
        question="What is its accuracy? (a share, e.g. 0.5 or 50%)",
        answer=float(c.accuracy),
        tolerance=5e-6,
        derivation=(
            fraction("accuracy", "TP + TN", "N", c.tp + c.tn, c.n),
            fraction("recall", "TP", "TP + FN", c.tp, c.tp + c.fn),
        ),
        note="High accuracy, zero recall: with rare positives accuracy rewards doing nothing "
        "(Manning, Raghavan & Schütze, Introduction to Information Retrieval, section 8.3).",
        facts={"recall": float(c.recall)},
        hint="Accuracy counts every right decision, and calling an irrelevant document "
        "'not relevant' is right: (TP + TN) / N.",
        traps=(
            (
                0.0,
                "0 is the recall (no relevant document is found); accuracy also counts "
                "the true negatives.",
            ),
        ),
    )


# --- ROC AUC --------------------------------------------------------------------------------


AUC_HINT = (
    "Pair every positive with every negative: a pair counts 1 when the positive scores "
    "higher, 0 when lower, and a tied pair counts one half; divide by P·N pairs."
)


def _auc_exercise(y, s, context: str, note: str = "", hint: str = AUC_HINT) -> Exercise:
    pairs = auc_charts.pair_counts(metrics.threshold_counts(y, s))
    table = metrics.auc_rank_table(y, s)
    pn = pairs.n_pos * pairs.n_neg
    n = pairs.n_pos + pairs.n_neg
    traps = (
        (pairs.wins / pn, "A tied pair counts one half, not 0."),
        ((pairs.wins + pairs.ties) / pn, "A tied pair counts one half, not 1."),
        (
            (pairs.wins + pairs.ties / 2) / (n * (n - 1) / 2),
            "Divide by the pairs of one "
            f"positive and one negative (P·N = {pn}), not by every pair of rows.",
        ),
        (
            pairs.losses / pn + pairs.ties / (2 * pn),
            "That is 1 − AUC: count the pairs where the positive scores higher.",
        ),
    )
    return _hinted(_auc_exercise_plain(y, s, context, note, pairs, table), hint, *traps)


def _auc_exercise_plain(y, s, context, note, pairs, table) -> Exercise:
    return Exercise(
        table=_rows(y, s),
        context=context,
        question="What is the ROC AUC?",
        answer=float(metrics.roc_auc_score(y, s)),
        derivation=(*auc_charts.pair_count_latex(pairs), *auc_charts.rank_sum_latex(table)),
        curves=(np.asarray(y), np.asarray(s, dtype=float)),
        note=note
        or "Pairs: each positive against each negative, 1 if the positive scores higher, 1/2 "
        "if tied. Ranks: sort by score, tied rows share their average rank (Mann-Whitney U; "
        "Hanley & McNeil, Radiology, 1982).",
    )


def _auc_random(seed: int) -> Exercise:
    y, s = _binary_draw(_rng("auc", seed), 7, ties=True)
    return _auc_exercise(y, s, "Scores rounded to one decimal, so some rows are tied.")


def _fixed_auc(y, s, context, hint=AUC_HINT):
    def make(seed: int) -> Exercise:
        if seed:
            return _auc_random(seed)
        return _auc_exercise(np.array(y), np.array(s), context, hint=hint)

    return make


# --- ROC vs PR under imbalance ----------------------------------------------------------------


def _imbalance(seed: int) -> Exercise:
    rng = _rng("imbalance", seed)
    auc = float(rng.choice([0.75, 0.8, 0.85, 0.9]))
    low = float(rng.choice([0.01, 0.02, 0.05]))
    dprime = dprime_from_auc(auc)
    rows = []
    for prevalence in (0.5, low):
        # 2,000 positives in each table, so sampling noise stays well below the lesson's effect.
        rows_needed = round(2_000 / prevalence)
        spec = SyntheticSpec(
            rows=rows_needed, prevalence=prevalence, dprime=dprime, decimals=None, seed=seed
        )
        t = generate(spec)
        y, s = t["label"].to_numpy(), t["score"].to_numpy()
        rows.append(
            {
                "prevalence": prevalence,
                "positives": int(y.sum()),
                "rows": len(y),
                "ROC AUC": float(metrics.roc_auc_score(y, s)),
                "AP (PR AUC)": float(metrics.average_precision_score(y, s)),
            }
        )
    d_auc = abs(rows[1]["ROC AUC"] - rows[0]["ROC AUC"])
    d_ap = abs(rows[1]["AP (PR AUC)"] - rows[0]["AP (PR AUC)"])
    shown = pd.DataFrame([rows[0], {**rows[1], "ROC AUC": None, "AP (PR AUC)": None}])
    return Exercise(
        table=shown,
        context=f"Two seeded tables from the same score distributions (population AUC {auc:g}), "
        f"2,000 positives each: in one half the rows are positive, in the other {low:.0%}.",
        question=f"Prevalence falls from 50% to {low:.0%}. Which number falls much more?",
        kind="choice",
        options=("ROC AUC", "AP (PR AUC)"),
        answer="ROC AUC" if d_auc > d_ap else "AP (PR AUC)",
        derivation=(
            r"\text{FPR} = \frac{FP}{N},\quad \text{TPR} = \frac{TP}{P}"
            r"\quad\text{(each within one class: prevalence cancels)}",
            r"\text{precision} = \frac{TP}{TP + FP} = \frac{\pi\,\text{TPR}}"
            r"{\pi\,\text{TPR} + (1 - \pi)\,\text{FPR}}\quad(\pi = \text{prevalence})",
            rf"\text{{ROC AUC: }} {num(rows[0]['ROC AUC'])} \to {num(rows[1]['ROC AUC'])},\qquad "
            rf"\text{{AP: }} {num(rows[0]['AP (PR AUC)'])} \to {num(rows[1]['AP (PR AUC)'])}",
        ),
        note="ROC compares each class with itself, so the class mix does not move it; "
        "precision mixes the two classes, so PR curves and AP fall with the prevalence "
        "(Saito & Rehmsmeier, PLoS ONE, 2015; Davis & Goadrich, ICML 2006).",
        facts={
            f"{k} at {r['prevalence']:.0%}": r[k] for r in rows for k in ("ROC AUC", "AP (PR AUC)")
        },
        hint="Ask which rates mix the two classes: FPR and TPR are each counted within one "
        "class, precision puts TP and FP (two classes) in one fraction.",
    )


# --- AP five ways ------------------------------------------------------------------------------


AP_HINTS = {
    "step": "The step sum: at each threshold where recall rises, add the precision there "
    "times the rise in recall (rectangles, no straight lines, no interpolation).",
    "trapezoid": "The trapezoid rule: join consecutive PR points (from precision 1 at recall "
    "0) by straight lines and add the areas under them, dips included.",
    "voc11": "11-point: at each recall level 0, 0.1, ..., 1 take the best precision at that "
    "recall or higher, and average the 11 values (each weighs 1/11).",
    "voc_all": "All-point: first replace each precision by the best precision at equal or "
    "higher recall (the envelope), then take the step sum of that envelope.",
    "coco101": "101-point: read the envelope (best precision at equal or higher recall) at "
    "recall 0, 0.01, ..., 1 and average the 101 values.",
}


def _ap_exercise(y, s, method: str, context: str, note: str = "") -> Exercise:
    lab = ap_charts.ap_lab(np.asarray(y), np.asarray(s, dtype=float))
    label = ap_charts.METHOD_LABELS[method]
    facts = {ap_charts.METHOD_LABELS[m]: v for m, v in lab.values.items()}
    traps = [
        (v, f"That is AP by the {ap_charts.METHOD_LABELS[m]} method. {AP_HINTS[method]}")
        for m, v in lab.values.items()
        if m != method
    ]
    return _hinted(
        _ap_plain(y, s, method, context, note, lab, label, facts), AP_HINTS[method], *traps
    )


def _ap_plain(y, s, method, context, note, lab, label, facts) -> Exercise:
    return Exercise(
        table=_rows(y, s),
        context=context,
        question=f"What is the average precision by the {label} method?",
        answer=float(lab.values[method]),
        derivation=tuple(ap_charts.method_latex(lab, method)),
        curves=(np.asarray(y), np.asarray(s, dtype=float)),
        note=note or ap_charts.WHEN_THEY_DIFFER[method],
        facts=facts,
    )


def _ap_random(seed: int) -> Exercise:
    rng = _rng("ap", seed)
    y, s = _binary_draw(rng, 6, ties=False)
    method = metrics.AP_METHODS[seed % len(metrics.AP_METHODS)]
    return _ap_exercise(y, s, method, "Six rows; a score at or above a threshold is positive.")


def _fixed_ap(y, s, method, context, note=""):
    def make(seed: int) -> Exercise:
        if seed:
            return _ap_random(seed)
        return _ap_exercise(y, s, method, context, note)

    return make


# --- averaging --------------------------------------------------------------------------------

MODES = ("macro", "micro", "weighted", "samples")


AVERAGING_HINTS = {
    "macro": "Macro: an AP for each class (column) on its own, then their plain mean.",
    "micro": "Micro: pool every (row, class) cell into one list of labels and scores, then "
    "take a single AP of that list.",
    "weighted": "Weighted: each class's AP weighted by its number of positives, divided by "
    "all the positives.",
    "samples": "Samples: an AP for each row across its classes, then the mean over rows.",
}


def _averaging_exercise(y, s, mode: str, context: str) -> Exercise:
    ex = _averaging_plain(y, s, mode, context)
    traps = [
        (v, f"That is the {m} average. {AVERAGING_HINTS[mode]}")
        for m, v in ex.facts.items()
        if m != mode
    ]
    return _hinted(ex, AVERAGING_HINTS[mode], *traps)


def _averaging_plain(y, s, mode: str, context: str) -> Exercise:
    y, s = np.asarray(y), np.asarray(s, dtype=float)
    per_class = metrics.average_precision_score(y, s, average=None)
    value = float(metrics.average_precision_score(y, s, average=mode))
    k = y.shape[1]
    table = pd.DataFrame(
        {
            **{f"label_{j}": y[:, j] for j in range(k)},
            **{f"score_{j}": s[:, j] for j in range(k)},
        }
    )
    table.insert(0, "row", np.arange(1, len(y) + 1))
    aps = " + ".join(num(a) for a in per_class)
    support = y.sum(axis=0)
    lines = [rf"\text{{AP per class}} = ({', '.join(num(a) for a in per_class)})"]
    if mode == "macro":
        lines.append(rf"\text{{macro}} = \frac{{{aps}}}{{{k}}} = {num(value)}")
    elif mode == "weighted":
        terms = " + ".join(
            rf"{num(n)} \cdot {num(a)}" for n, a in zip(support, per_class, strict=True)
        )
        lines.append(
            rf"\text{{weighted}} = \frac{{{terms}}}{{{num(support.sum())}}} = {num(value)}"
        )
    elif mode == "micro":
        lines.append(
            rf"\text{{micro: every (row, class) cell as one binary problem of "
            rf"{y.size} cells}} = {num(value)}"
        )
    else:
        per_row = [float(metrics.average_precision_score(y[i], s[i])) for i in range(len(y))]
        lines.append(rf"\text{{AP per row}} = ({', '.join(num(a) for a in per_row)})")
        lines.append(rf"\text{{samples}} = \text{{mean}} = {num(value)}")
    return Exercise(
        table=table,
        context=context,
        question=f"What is the {mode}-averaged AP (scikit-learn's average='{mode}')?",
        answer=value,
        derivation=tuple(lines),
        note="macro: mean over classes; weighted: by each class's positives; micro: all cells "
        "pooled; samples: mean over rows of each row's AP (scikit-learn's "
        "average_precision_score documentation).",
        facts={m: float(metrics.average_precision_score(y, s, average=m)) for m in MODES},
    )


def _averaging(seed: int) -> Exercise:
    rng = _rng("averaging", seed)
    while True:
        y = (rng.random((5, 3)) < 0.45).astype(int)
        col = y.sum(axis=0)
        if (col > 0).all() and (col < 5).all() and (y.sum(axis=1) > 0).all():
            break
    s = np.round(np.clip(rng.normal(0.35 + 0.3 * y, 0.2), 0.01, 0.99), 2)
    return _averaging_exercise(y, s, MODES[seed % 4], "Five rows, three labels each.")


def _map_1112(seed: int) -> Exercise:
    if seed:
        return _averaging(seed)
    y = [[0, 1, 0], [1, 1, 0], [0, 1, 1], [1, 1, 0]]
    s = [[0.1, 0.8, 0.3], [0.9, 0.7, 0.5], [0.2, 0.1, 0.9], [0.1, 0.8, 0.6]]
    return _averaging_exercise(
        y, s, "macro", "Four samples, three classes; each class is its own binary problem."
    )


# --- GAUC ----------------------------------------------------------------------------------------


def _gauc_exercise(y, s, users, context, question, answer_of, kind="number", options=()):
    table = metrics.group_auc_table(y, s, users)
    gauc = table.score("impressions")
    lines = []
    for g, auc, rows, reason in zip(table.group, table.auc, table.rows, table.reason, strict=True):
        lines.append(
            rf"\text{{user {g}: }}"
            + (rf"\text{{AUC}} = {num(auc)},\ {rows}\ \text{{rows}}" if not reason else
               rf"\text{{{reason}: skipped}}")
        )  # fmt: skip
    kept = ~np.isnan(table.auc)
    terms = " + ".join(
        rf"{r} \cdot {num(a)}" for r, a in zip(table.rows[kept], table.auc[kept], strict=True)
    )
    lines.append(
        rf"\text{{GAUC}} = \frac{{{terms}}}{{{num(table.rows[kept].sum())}}} = {num(gauc)}"
    )
    frame = pd.DataFrame({"user": users, "label": np.asarray(y).astype(int), "score": s})
    glob = float(metrics.roc_auc_score(y, s))
    traps = (
        (
            glob,
            "That is the AUC of all rows together; GAUC ranks each user's rows on their "
            "own and never compares two users.",
        ),
        (
            float(np.mean(table.auc[kept])),
            "That is the plain mean of the users' AUCs; GAUC "
            "weights each user by their rows (impressions).",
        ),
    )
    ex = Exercise(
        table=frame,
        context=context,
        question=question,
        answer=answer_of(gauc),
        kind=kind,
        options=options,
        derivation=tuple(lines),
        note="GAUC averages each user's own AUC, weighted by the user's impressions (rows); "
        "a user with clicks only or non-clicks only has no AUC and is left out (Zhou et al., "
        "Deep Interest Network, KDD 2018).",
        facts={"global AUC": glob, "GAUC": float(gauc)},
    )
    hint = (
        "One AUC per user, from that user's rows only; a user with one class has no AUC and "
        "is left out; the rest are averaged weighted by their rows."
    )
    return _hinted(ex, hint, *traps) if kind == "number" else replace(ex, hint=hint)


def _gauc_skip(seed: int) -> Exercise:
    if seed:
        rng = _rng("gauc", seed)
        parts = []
        for user in "abcd":
            n = int(rng.integers(3, 6))
            yy = (rng.random(n) < 0.5).astype(int)
            if user == "d":
                yy[:] = 1  # one user with one class, skipped
            parts.append((user, yy, np.round(rng.random(n), 1)))
        y = np.concatenate([p[1] for p in parts])
        s = np.concatenate([p[2] for p in parts])
        users = np.concatenate([[p[0]] * len(p[1]) for p in parts])
    else:
        y, s, users = _classic_users()
    return _gauc_exercise(
        y,
        s,
        users,
        "Each user's rows are ranked on their own. One user has only one class.",
        "What is the GAUC (per-user AUC weighted by rows)?",
        float,
    )


def _classic_users() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Four users: the three classic AUC examples (0.75, 0.875 with a tie, 10/12 by ranks)
    and a user who only clicked, whom GAUC leaves out."""
    from ui.figures.gauc_charts import four_users_example

    return four_users_example()


def _reversal_data(seed: int) -> tuple[np.ndarray, dict[str, np.ndarray], np.ndarray]:
    """Users with different click rates: model_a scores each user's click rate (no order
    within a user), model_b orders each user's rows well but ignores the rates."""
    for attempt in range(50):
        rng = _rng("reversal", seed * 100 + attempt)
        ys, a, b, users = [], [], [], []
        for u, rate in enumerate(np.sort(rng.uniform(0.1, 0.8, 4))):
            n = 6
            yy = (rng.random(n) < rate).astype(int)
            if yy.sum() in (0, n):
                yy[0] = 1 - yy[0]
            ys.append(yy)
            a.append(np.round(rate + rng.normal(0, 0.05, n), 2))
            b.append(np.round(0.3 + 0.25 * yy + rng.normal(0, 0.08, n) - 0.1 * u, 2))
            users.append([f"u{u + 1}"] * n)
        y = np.concatenate(ys)
        scores = {"model_a": np.concatenate(a), "model_b": np.concatenate(b)}
        g = np.concatenate(users)
        glob = {m: metrics.roc_auc_score(y, v) for m, v in scores.items()}
        gauc = {m: metrics.group_auc_score(y, v, g) for m, v in scores.items()}
        if glob["model_a"] > glob["model_b"] and gauc["model_b"] > gauc["model_a"]:
            return y, scores, g
    return y, scores, g


def _reversal(seed: int) -> Exercise:
    y, scores, users = _reversal_data(seed)
    glob = {m: float(metrics.roc_auc_score(y, v)) for m, v in scores.items()}
    tables = {m: metrics.group_auc_table(y, v, users) for m, v in scores.items()}
    gauc = {m: float(t.score("impressions")) for m, t in tables.items()}
    frame = pd.DataFrame({"user": users, "label": y, **scores})
    lines = [
        rf"\text{{global AUC: model\_a}} = {num(glob['model_a'])},\ "
        rf"\text{{model\_b}} = {num(glob['model_b'])}",
    ]
    for m, t in tables.items():
        per = ", ".join(f"{g}: {num(a)}" for g, a in zip(t.group, t.auc, strict=True))
        lines.append(rf"\text{{{m.replace('_', chr(92) + '_')} per user: }} {per} \Rightarrow "
                     rf"\text{{GAUC}} = {num(gauc[m])}")  # fmt: skip
    winner = max(gauc, key=gauc.get)
    return Exercise(
        table=frame,
        context="Four users with different click rates. model_a wins on global AUC "
        f"({glob['model_a']:.3f} against {glob['model_b']:.3f}).",
        question="Which model wins on GAUC?",
        kind="choice",
        options=("model_a", "model_b"),
        answer=winner,
        derivation=tuple(lines),
        note="Global AUC also compares rows of different users, so knowing who clicks more "
        "pays; GAUC compares rows within a user only, which is what ranking a user's feed "
        "needs.",
        facts={
            **{f"global AUC {m}": v for m, v in glob.items()},
            **{f"GAUC {m}": v for m, v in gauc.items()},
        },
        hint="GAUC never compares two users: for each user, which model puts that user's "
        "clicks above that user's non-clicks? A model that only knows who clicks more gains "
        "nothing within a user.",
    )


# --- ranking: NDCG and MAP@k --------------------------------------------------------------------


def _ranking_random(seed: int) -> Exercise:
    rng = _rng("ranking", seed)
    while True:
        rel = rng.choice([0, 0, 1, 2, 3], size=7).astype(float)
        if rel.sum() > 0:
            break
    s = np.round(rng.random(7) + 0.15 * rel, 2)
    k = int(rng.integers(3, 6))
    groups = np.array(["q"] * 7)
    b = ranking_charts.query_breakdown(rel, s, groups, "q", k=k)
    frame = pd.DataFrame({"doc": [f"d{i + 1}" for i in range(7)], "relevance": rel.astype(int),
                          "score": s})  # fmt: skip
    if seed % 2 == 0:
        value = float(metrics.ndcg_at_k(rel, s, groups, k=k))
        dcg = float(np.nansum(b.dcg_term))
        ex = Exercise(
            table=frame,
            context=f"One query, seven documents with graded relevance 0-3; k = {k}.",
            question=f"What is NDCG@{k} (linear gain)?",
            answer=value,
            derivation=tuple(ranking_charts.ndcg_lines(b)),
            note="Järvelin & Kekäläinen (2002); the linear gain is trec_eval's ndcg_cut.",
        )
        return _hinted(
            ex,
            "Sort by score; the top k documents each add relevance / log2(rank + 1). Divide "
            "that DCG by the DCG of the ideal order (the same documents by relevance), also "
            "cut at k.",
            (dcg, "That is the DCG; NDCG divides it by the DCG of the ideal order."),
        )
    value = float(metrics.mean_average_precision(rel > 0, s, groups, k=k))
    found = b.ap_term[~np.isnan(b.ap_term)]
    ex = Exercise(
        table=frame,
        context=f"One query, seven documents; relevance above 0 counts as relevant; k = {k}.",
        question=f"What is AP@{k} (over all relevant documents, as trec_eval's map_cut)?",
        answer=value,
        derivation=tuple(ranking_charts.ap_lines(b, np.array([value]))),
        note="Relevant documents ranked below k add 0 to the sum (trec_eval map_cut_k).",
    )
    return _hinted(
        ex,
        "Take the precision at the rank of each relevant document in the top k, add them, "
        "and divide by all the relevant documents of the query, those below k included.",
        (
            float(found.mean()) if found.size else math.nan,
            "You divided by the relevant "
            "documents found in the top k; divide by all the query's relevant documents.",
        ),
    )


def _ir_map(seed: int) -> Exercise:
    if seed:
        return _ranking_random(seed)
    ex = ranking_charts.ir_textbook_example()
    model = ex.models[0]
    rel, s, groups = ex.relevance_for(model), ex.scores[model], ex.groups
    k = 7
    value = float(metrics.mean_average_precision(rel > 0, s, groups, k=k))
    report = metrics.ranking_report(rel > 0, s, groups, k=k)
    per_query = np.asarray(report.average_precision, dtype=float)
    lines = []
    for q in np.unique(groups):
        b = ranking_charts.query_breakdown(rel, s, groups, q, k=k)
        lines += ranking_charts.ap_lines(b, per_query)[:2]
    lines += ranking_charts.ap_lines(b, per_query)[2:]
    frame = pd.DataFrame({"query": groups, "rank": np.where(s > 0, 8 - s, np.nan),
                          "relevant": rel.astype(int)})  # fmt: skip
    ex = Exercise(
        table=frame,
        context="Topic 1 has 4 relevant documents, retrieved at ranks 1, 2, 4 and 7; topic 2 "
        "has 5, of which 3 are retrieved, at ranks 1, 3 and 5 (the other 2 are never "
        "retrieved: no rank).",
        question="What is the MAP over the two topics?",
        answer=value,
        derivation=tuple(lines),
        note="Average precision per topic divides by all its relevant documents, found or not "
        "(Manning, Raghavan & Schütze, Introduction to Information Retrieval, section 8.4; "
        "trec_eval's map).",
        facts={f"AP {q}": float(a) for q, a in zip(np.unique(groups), per_query, strict=True)},
    )
    return _hinted(
        ex,
        "A topic's AP adds the precision at each relevant document's rank and divides by all "
        "its relevant documents, retrieved or not; MAP is the plain mean of the topics' APs.",
        (
            (per_query[0] + (1 + 2 / 3 + 3 / 5) / 3) / 2,
            "Topic 2 has 5 relevant documents: the "
            "two never retrieved add precision 0 but still count in the denominator.",
        ),
    )


# --- F1 averaged: micro, macro and samples --------------------------------------------------------

SKLEARN_F1 = "scikit-learn documentation, sklearn.metrics.f1_score"
IIR_AVERAGING = (
    "Manning, Raghavan & Schütze, Introduction to Information Retrieval, section 13.6 "
    "(micro- and macro-averaging)"
)
F1_SHORT = r"F_1 = \frac{2\,TP}{2\,TP + FP + FN}"


def _class_lines(y_true, y_pred, classes) -> tuple[list[str], np.ndarray]:
    """Per class (one against the rest): TP, FP, FN and its F1, as LaTeX; and the counts."""
    mcm = metrics.multilabel_confusion_matrix(y_true, y_pred, labels=classes)
    f1 = metrics.f1_score(y_true, y_pred, labels=classes, average=None, zero_division=0)
    lines, counts = [], []
    for c, m, f in zip(classes, mcm, f1, strict=True):
        tp, fp, fn = int(m[1, 1]), int(m[0, 1]), int(m[1, 0])
        counts.append((tp, fp, fn))
        lines.append(
            rf"\text{{class {c}:}}\ TP = {tp},\ FP = {fp},\ FN = {fn}\ \Rightarrow\ {F1_SHORT} = "
            rf"\frac{{{2 * tp}}}{{{2 * tp + fp + fn}}} = {num(f)}"
        )
    return lines, np.array(counts, dtype=int)


def _micro_line(counts: np.ndarray, value: float) -> str:
    tp, fp, fn = (int(v) for v in counts.sum(axis=0))
    return (
        rf"\text{{micro (counts pooled over classes): }} TP = {tp},\ FP = {fp},\ FN = {fn}"
        rf"\ \Rightarrow\ F_1 = \frac{{{2 * tp}}}{{{2 * tp + fp + fn}}} = {num(value)}"
    )


def _macro_line(f1: np.ndarray, value: float) -> str:
    terms = " + ".join(num(f) for f in f1)
    return rf"\text{{macro (mean over classes)}} = \frac{{{terms}}}{{{len(f1)}}} = {num(value)}"


def _class_table(y_true, y_pred) -> pd.DataFrame:
    return pd.DataFrame({"row": np.arange(1, len(y_true) + 1), "true": y_true, "predicted": y_pred})


def _rare_draw(rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Two common classes the model mostly gets right, and a rare class C it never finds."""
    while True:
        n = int(rng.integers(12, 17))
        n_rare = int(rng.integers(1, 3))
        truth = np.array(["C"] * n_rare + list(rng.choice(["A", "B"], n - n_rare, p=[0.55, 0.45])))
        truth = truth[rng.permutation(n)]
        pred = truth.copy()
        common = truth != "C"
        swap = common & (rng.random(n) < 0.2)
        pred[swap] = np.where(truth[swap] == "A", "B", "A")
        rare = ~common
        pred[rare] = rng.choice(["A", "B"], int(rare.sum()))
        if rng.random() < 0.5:  # one false alarm for C: its precision is 0, not 0/0
            pred[rng.choice(np.flatnonzero(common & ~swap))] = "C"
        counts = {c: (np.sum(truth == c), np.sum(pred == c)) for c in "AB"}
        if all(t >= 3 and p >= 2 for t, p in counts.values()):
            return truth, pred


def _rare_class(seed: int) -> Exercise:
    rng = _rng("rare_class", seed)
    y, p = _rare_draw(rng)
    classes = ["A", "B", "C"]
    lines, counts = _class_lines(y, p, classes)
    f1 = metrics.f1_score(y, p, labels=classes, average=None, zero_division=0)
    macro = float(metrics.f1_score(y, p, average="macro", zero_division=0))
    micro = float(metrics.f1_score(y, p, average="micro", zero_division=0))
    lines += [_macro_line(f1, macro), _micro_line(counts, micro)]
    keep = y != "C"
    macro_ab = float(
        metrics.f1_score(y[keep], p[keep], labels=["A", "B"], average="macro", zero_division=0)
    )
    micro_ab = float(metrics.f1_score(y[keep], p[keep], average="micro", zero_division=0))
    lines.append(
        rf"\text{{without class C's {int(np.sum(~keep))} row(s): macro}} = {num(macro_ab)}\ "
        rf"(\text{{from }} {num(macro)}),\quad \text{{micro}} = {num(micro_ab)}\ "
        rf"(\text{{from }} {num(micro)})"
    )
    if seed % 2:
        question = "How much higher is the micro-averaged F1 than the macro-averaged F1?"
        answer = micro - macro
        lines.append(
            rf"\text{{micro}} - \text{{macro}} = {num(micro)} - {num(macro)} = {num(answer)}"
        )
    else:
        question = "What is the macro-averaged F1 (scikit-learn's average='macro')?"
        answer = macro
    n_rare = int(np.sum(y == "C"))
    if seed % 2:
        hint = (
            "Micro pools every decision (with one label per row it equals accuracy); "
            "macro is the plain mean of the three classes' F1, C's 0 included. Subtract."
        )
        traps = (
            (
                micro - float(np.mean(f1[:2])),
                "You left class C out of the macro average: its F1 of 0 is one of the three.",
            ),
        )
    else:
        hint = (
            "Macro gives each class one vote: the F1 of A, of B and of C (each against "
            "the other two; C's is 0), then their plain mean."
        )
        traps = (
            (
                micro,
                "That is the micro average (all decisions pooled); macro averages "
                "the three classes' F1.",
            ),
            (
                float(np.mean(f1[:2])),
                "You left class C out: its F1 of 0 is one of the three in the mean.",
            ),
        )
    ex = Exercise(
        table=_class_table(y, p),
        context=f"Three classes, one label per row. Class **C** is rare ({n_rare} of {len(y)} "
        "rows) and the model never gets it right. Each class's F1 counts it against the other "
        "two; a 0/0 precision counts 0 (zero_division=0).",
        question=question,
        answer=float(answer),
        derivation=tuple(lines),
        note="Macro-averaging gives every class the same weight, so the rare class's F1 of 0 "
        "takes a third of the average; micro-averaging pools every decision, and the rare "
        f"class's few rows barely move it ({IIR_AVERAGING}; scikit-learn user guide, "
        "'From binary to multiclass and multilabel').",
        facts={
            "macro F1": macro,
            "micro F1": micro,
            "F1 of the rare class C": float(f1[2]),
            "macro F1 without C's rows": macro_ab,
            "micro F1 without C's rows": micro_ab,
            "accuracy": float(metrics.accuracy_score(y, p)),
        },
    )
    return _hinted(ex, hint, *traps)


def _micro_accuracy_exercise(y, p, context: str) -> Exercise:
    y, p = np.asarray(y), np.asarray(p)
    classes = sorted(set(y.tolist()) | set(p.tolist()))
    lines, _ = _class_lines(y, p, classes)
    micro = float(metrics.f1_score(y, p, average="micro", zero_division=0))
    accuracy = float(metrics.accuracy_score(y, p))
    right = int(np.sum(y == p))
    wrong = len(y) - right
    lines += [
        rf"\text{{each of the {wrong} wrong rows is one FP (of the class it was given) and one "
        rf"FN (of its true class)}}",
        rf"\textstyle\sum TP = {right}\ \text{{(the right rows)}},\quad \sum FP = \sum FN = "
        rf"{wrong}\ \text{{(the wrong rows)}}",
        rf"P_{{\text{{micro}}}} = R_{{\text{{micro}}}} = \frac{{{right}}}{{{right} + {wrong}}}"
        rf"\ \Rightarrow\ F_{{1,\text{{micro}}}} = \frac{{2 \cdot {right}}}"
        rf"{{2 \cdot {right} + {wrong} + {wrong}}} = \frac{{{right}}}{{{len(y)}}} = {num(micro)}",
        rf"\text{{accuracy}} = \frac{{\text{{right rows}}}}{{\text{{rows}}}} = "
        rf"\frac{{{right}}}{{{len(y)}}} = {num(accuracy)}",
    ]
    macro = float(metrics.f1_score(y, p, average="macro", zero_division=0))
    ex = Exercise(
        table=_class_table(y, p),
        context=context,
        question="What is the micro-averaged F1 (scikit-learn's average='micro')?",
        answer=micro,
        derivation=tuple(lines),
        note="With one label per row, micro precision, micro recall and micro F1 all equal "
        "accuracy: every error is counted once as a false positive and once as a false "
        f"negative (scikit-learn user guide, 'From binary to multiclass and multilabel'; "
        f"{IIR_AVERAGING}).",
        facts={
            "accuracy": accuracy,
            "macro F1": macro,
            "weighted F1": float(metrics.f1_score(y, p, average="weighted", zero_division=0)),
        },
    )
    return _hinted(
        ex,
        "Micro pools the counts of all classes before dividing. With one label per row, each "
        "wrong row is one FP (of the class it was given) and one FN (of its true class).",
        (
            macro,
            "That is the macro average (the mean of the classes' F1); micro pools the "
            "counts first.",
        ),
    )


def _micro_accuracy(seed: int) -> Exercise:
    if not seed:
        return _micro_accuracy_exercise(
            [0, 1, 2, 0, 1, 2],
            [0, 2, 1, 0, 0, 1],
            "Six rows, three classes, one label per row: scikit-learn's own f1_score example "
            "(macro 0.267, micro 0.33).",
        )
    rng = _rng("micro_accuracy", seed)
    k = int(rng.integers(3, 5))
    names = np.array(list("ABCD"[:k]))
    while True:
        n = int(rng.integers(8, 11))
        y = rng.choice(names, n)
        p = y.copy()
        wrong = rng.random(n) < 0.35
        for i in np.flatnonzero(wrong):
            p[i] = rng.choice(names[names != y[i]])
        if 2 <= wrong.sum() <= n - 3 and len(set(y.tolist())) == k:
            break
    return _micro_accuracy_exercise(y, p, f"{n} rows, {k} classes, one label per row.")


def _label_set(row: np.ndarray, names: str) -> str:
    chosen = [names[j] for j in np.flatnonzero(row)]
    return ", ".join(chosen) if chosen else "(none)"


def _tex_set(row: np.ndarray, names: str) -> str:
    chosen = [names[j] for j in np.flatnonzero(row)]
    return r"\{" + ", ".join(chosen) + r"\}" if chosen else r"\varnothing"


SAMPLE_METRICS = {
    "F1": (metrics.f1_score, r"\frac{2\,TP}{|\text{true}| + |\text{pred}|}"),
    "recall": (metrics.recall_score, r"\frac{TP}{|\text{true}|}"),
    "precision": (metrics.precision_score, r"\frac{TP}{|\text{pred}|}"),
}


def _samples_exercise(y, p, metric: str, zero_division: int, context: str) -> Exercise:
    y, p = np.asarray(y, dtype=int), np.asarray(p, dtype=int)
    names = "ABCDEFG"[: y.shape[1]]
    score, formula = SAMPLE_METRICS[metric]
    value = float(score(y, p, average="samples", zero_division=zero_division))
    lines = [rf"\text{{{metric} of a row}} = {formula}"]
    row_values = []
    for i in range(len(y)):
        tp, t, q = int(np.sum(y[i] & p[i])), int(y[i].sum()), int(p[i].sum())
        num_, den = {"F1": (2 * tp, t + q), "recall": (tp, t), "precision": (tp, q)}[metric]
        v = float(score(y[i : i + 1], p[i : i + 1], average="samples", zero_division=zero_division))
        row_values.append(v)
        how = (
            rf"\frac{{0}}{{0}} \to {zero_division}\ (\text{{zero\_division}})"
            if den == 0
            else rf"\frac{{{num_}}}{{{den}}} = {num(v)}"
        )
        lines.append(
            rf"\text{{row {i + 1}: true }} {_tex_set(y[i], names)},\ \text{{predicted }} "
            rf"{_tex_set(p[i], names)}\colon\ {how}"
        )
    terms = " + ".join(num(v) for v in row_values)
    lines.append(rf"\text{{samples}} = \frac{{{terms}}}{{{len(y)}}} = {num(value)}")
    other = 1 - zero_division
    other_value = float(score(y, p, average="samples", zero_division=other))
    micro = float(metrics.f1_score(y, p, average="micro", zero_division=0))
    table = pd.DataFrame(
        {
            "row": np.arange(1, len(y) + 1),
            "true labels": [_label_set(r, names) for r in y],
            "predicted labels": [_label_set(r, names) for r in p],
        }
    )
    ex = Exercise(
        table=table,
        context=context,
        question=f"What is the samples-averaged {metric} with zero_division={zero_division} "
        f"(scikit-learn's average='samples')?",
        answer=value,
        derivation=tuple(lines),
        note="average='samples' scores each row's set of labels, then averages the rows. A row "
        "with no true label has recall 0/0, and a row with neither a true nor a predicted label "
        "has precision, recall and F1 0/0: scikit-learn gives them zero_division (the default "
        "'warn' counts 0 and warns). A row with a prediction but no true label has precision "
        "and F1 0 whatever zero_division says (scikit-learn documentation, "
        "sklearn.metrics.precision_recall_fscore_support).",
        facts={
            f"samples {metric}, zero_division={zero_division}": value,
            f"samples {metric}, zero_division={other}": other_value,
            "micro F1": micro,
        },
    )
    return _hinted(
        ex,
        f"Score each row's label set on its own, then average the rows. A row whose {metric} "
        f"is 0/0 scores zero_division = {zero_division}; a row with a prediction but no true "
        "label has precision and F1 0 whatever zero_division says.",
        (
            other_value,
            f"That is the value with zero_division={other}: here a 0/0 row scores {zero_division}.",
        ),
        (micro, "That pools all labels (micro); samples averages the rows' own values."),
    )


def _samples_empty(seed: int) -> Exercise:
    if not seed:
        return _samples_exercise(
            [[0, 0, 0], [1, 1, 1], [0, 1, 1]],
            [[0, 0, 0], [1, 1, 1], [1, 1, 0]],
            "F1",
            1,
            "scikit-learn's multi-label f1_score example: three rows, labels A, B and C. Row 1 "
            "has no true label and none predicted.",
        )
    rng = _rng("samples_empty", seed)
    n = int(rng.integers(5, 7))
    while True:
        y = (rng.random((n, 3)) < 0.5).astype(int)
        y[y.sum(axis=1) == 0, rng.integers(0, 3)] = 1
        p = np.where(rng.random((n, 3)) < 0.25, 1 - y, y)
        empty = rng.choice(n, 2, replace=False)
        y[empty] = 0
        p[empty[0]] = 0  # nothing true, nothing predicted: 0/0 everywhere
        p[empty[1]] = 0
        if rng.random() < 0.6:  # nothing true, one false alarm: recall 0/0, F1 0
            p[empty[1], rng.integers(0, 3)] = 1
        if p[np.setdiff1d(np.arange(n), empty)].sum() > 0:
            break
    metric, zero_division = [("F1", 0), ("F1", 1), ("recall", 1), ("recall", 0)][seed % 4]
    return _samples_exercise(
        y, p, metric, zero_division, f"{n} rows, labels A, B and C; some rows have no true label."
    )


# --- per-class thresholds ------------------------------------------------------------------------

LIPTON = (
    "Lipton, Elkan & Naryanaswamy, Optimal Thresholding of Classifiers to Maximize F1 Measure, "
    "ECML PKDD 2014"
)


def _threshold_draw(rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Six rows, three labels; each label's scores on its own scale, none tied within a label."""
    while True:
        y = (rng.random((6, 3)) < 0.45).astype(int)
        if not ((y.sum(axis=0) >= 1).all() and (y.sum(axis=0) <= 4).all()):
            continue
        shift = rng.uniform(-0.2, 0.2, 3)
        s = np.round(np.clip(rng.normal(0.35 + 0.3 * y + shift, 0.15), 0.01, 0.99), 2)
        if all(np.unique(s[:, j]).size == 6 for j in range(3)):
            return y, s


def _threshold_table(y: np.ndarray, s: np.ndarray, names: str) -> pd.DataFrame:
    table = pd.DataFrame(
        {
            **{f"label_{c}": y[:, j] for j, c in enumerate(names)},
            **{f"score_{c}": s[:, j] for j, c in enumerate(names)},
        }
    )
    table.insert(0, "row", np.arange(1, len(y) + 1))
    return table


def _tex_threshold(t: float) -> str:
    return r"\infty" if np.isinf(t) else f"{t:g}"


def _class_sweep(y: np.ndarray, s: np.ndarray, j: int) -> tuple[np.ndarray, np.ndarray, list]:
    """Class j's candidate thresholds (its scores, decreasing), F1 at each, and table rows."""
    counts = metrics.class_threshold_counts(y, s).counts(j)
    p = int(counts.n_pos)
    f1 = 2 * counts.tps / (counts.tps + counts.fps + p)
    rows = [
        rf"{t:g} & {tp} & {fp} & {p - tp} & {num(f)}"
        for t, tp, fp, f in zip(counts.thresholds, counts.tps, counts.fps, f1, strict=True)
    ]
    return counts.thresholds, f1, rows


def _class_thresholds(seed: int) -> Exercise:
    rng = _rng("class_thresholds", seed)
    names = "ABC"
    ask_threshold = seed % 2 == 0
    while True:
        y, s = _threshold_draw(rng)
        choice = metrics.optimise_thresholds(y, s, objective="macro")
        j = int(rng.integers(0, 3))
        thresholds, f1, rows = _class_sweep(y, s, j)
        unique_best = np.sum(f1 == f1.max()) == 1
        if (ask_threshold and unique_best) or (not ask_threshold and choice.gain >= 0.01):
            break
    facts = {
        **{
            f"best threshold of {c}": float(t)
            for c, t in zip(names, choice.thresholds, strict=True)
        },
        "macro F1, a threshold per class": choice.macro,
        "best shared threshold": choice.shared_threshold,
        "macro F1, shared threshold": choice.shared_value,
    }
    note = (
        "Macro-F1 is the mean of the classes' F1 and each class's F1 depends on its own "
        "threshold only, so the best threshold of each class together maximise macro-F1 "
        f"exactly ({LIPTON}). Thresholds chosen on the rows they are scored on overstate "
        "what new rows will see: choose them on one half of the data and report on the other."
    )
    if ask_threshold:
        c = names[j]
        best = float(metrics.best_class_thresholds(y, s).thresholds[j])
        lines = [
            rf"\text{{class {c}: predicted when score\_{c}}} \ge t,\quad {F1_SHORT}",
            r"\begin{array}{c|cccc} t & TP & FP & FN & F_1 \\ \hline "
            + r" \\ ".join(rows)
            + r"\end{array}",
            rf"\text{{the highest }} F_1 = {num(f1.max())}\ \text{{at }} t = {best:g}",
        ]
        return Exercise(
            table=_threshold_table(y, s, names),
            context="Six rows, three labels; each label is predicted when its own score is at "
            "least its threshold.",
            question=f"Which threshold gives class {c} its highest F1 (predict {c} when "
            f"score_{c} ≥ t)?",
            kind="choice",
            options=tuple(f"{t:g}" for t in thresholds),
            answer=f"{best:g}",
            derivation=tuple(lines),
            note=note,
            facts=facts,
            hint=f"Try each candidate t: count class {c}'s TP, FP and FN when score_{c} ≥ t, "
            "then F1 = 2·TP / (2·TP + FP + FN). Only this class's column matters.",
        )
    shared_pred = (s >= choice.shared_threshold).astype(int)
    shared_f1 = metrics.f1_score(y, shared_pred, average=None, zero_division=0)
    own = r",\ ".join(
        rf"\text{{{c}:}}\ t = {_tex_threshold(t)},\ F_1 = {num(f)}"
        for c, t, f in zip(names, choice.thresholds, choice.per_class, strict=True)
    )
    at_shared = r",\ ".join(
        rf"\text{{{c}:}}\ {num(f)}" for c, f in zip(names, shared_f1, strict=True)
    )
    lines = [
        rf"\text{{a threshold per class (each its own best): }} {own}",
        _macro_line(choice.per_class, choice.macro),
        rf"\text{{one shared threshold, the best: }} t = {_tex_threshold(choice.shared_threshold)}"
        rf"\colon\ F_1\ {at_shared}",
        _macro_line(shared_f1, choice.shared_value),
        rf"\text{{gain}} = {num(choice.macro)} - {num(choice.shared_value)} = {num(choice.gain)}",
    ]
    return Exercise(
        table=_threshold_table(y, s, names),
        context="Six rows, three labels whose scores sit on different scales. Predict a label "
        "when its score is at least a threshold: one shared by all three, or one per label.",
        question="By how much does macro-F1 with the best threshold per label beat macro-F1 "
        "with the best single shared threshold?",
        answer=float(choice.gain),
        derivation=tuple(lines),
        note=note,
        facts=facts,
        hint="Two macro-F1s to subtract: with each label at its own best threshold, and with "
        "the one threshold that is best for all three together (try each score as t).",
        traps=_traps(
            float(choice.gain),
            DEFAULT_TOLERANCE,
            (
                choice.macro,
                "That is the macro-F1 with a threshold per label; subtract the "
                "macro-F1 of the best shared threshold.",
            ),
        ),
    )


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


def _cost_curve(seed: int) -> Exercise:
    rng = _rng("cost_curve", seed)
    while True:  # a useful model, not a perfect one: some cost at every PC(+) inside (0, 1)
        y, s = _binary_draw(rng, 8, ties=False)
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
        table=_rows(y, s),
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
    return _hinted(ex, hint, *traps)


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
        table=_rows(y, p).rename(columns={"score": "probability"}),
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
    return _hinted(ex, hint, *traps)


def _calibration(seed: int) -> Exercise:
    if not seed:
        return _calibration_exercise(
            [0, 0, 0, 0, 1, 1, 1, 1, 1],
            [0.1, 0.2, 0.3, 0.4, 0.65, 0.7, 0.8, 0.9, 1.0],
            3,
            "ECE",
            "Nine rows from scikit-learn's calibration_curve example, in three bins of width "
            "1/3: the positive rates are 0, 0.5 and 1 at mean predictions 0.2, 0.525 and 0.85.",
        )
    rng = _rng("calibration", seed)
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


# --- the list ----------------------------------------------------------------------------------

SKLEARN_AP = "scikit-learn documentation, sklearn.metrics.average_precision_score"
TOPICS = (
    "Precision, recall and F-beta",
    "ROC AUC: pairs and ranks",
    "ROC vs PR under class imbalance",
    "Average precision five ways",
    "Multi-label averaging",
    "GAUC vs global AUC",
    "Ranking: NDCG and MAP@k",
    "Micro, macro and samples F1",
    "Per-class thresholds",
    "Cost curves",
    "Calibration",
)
T = dict(enumerate(TOPICS))

LESSONS: tuple[Lesson, ...] = (
    Lesson("prf", "Precision, recall or F-beta at a threshold", T[0], _prf),
    Lesson(
        "three_rows",
        "Threshold 0.5 on three rows: precision 1/2, recall 1",
        T[0],
        _three_rows,
        source="Lecture-notes example; Manning, Raghavan & Schütze, Introduction to Information "
        "Retrieval, section 8.3",
        worked=True,
    ),
    Lesson(
        "accuracy",
        "99.99% accuracy with 0% recall: predicting nothing",
        T[0],
        _accuracy,
        source="Manning, Raghavan & Schütze, Introduction to Information Retrieval, section 8.3",
        worked=True,
    ),
    Lesson("auc_random", "AUC of a small table with ties", T[1], _auc_random),
    Lesson(
        "auc_pairs",
        "AUC 0.75 by counting pairs (no ties)",
        T[1],
        _fixed_auc(
            [0, 0, 1, 1],
            [0.1, 0.4, 0.35, 0.8],
            "Two positives, two negatives, no ties.",
            "No ties here: there are P·N = 2·2 = 4 pairs of one positive and one negative; "
            "count those where the positive scores higher.",
        ),
        source="scikit-learn documentation, sklearn.metrics.roc_auc_score",
        worked=True,
    ),
    Lesson(
        "auc_tie",
        "AUC 0.875: a tied pair counts one half",
        T[1],
        _fixed_auc(
            [0, 0, 1, 1],
            [0.1, 0.4, 0.4, 0.8],
            "The negative and a positive share the score 0.4.",
            "A tied pair counts one half: the positive and the negative that both score 0.4 "
            "make half a win, not a whole one and not none.",
        ),
        source="Hanley & McNeil, Radiology 143 (1982): ties count one half",
        worked=True,
    ),
    Lesson(
        "auc_ranks",
        "The rank formula with tied ranks: AUC = 10/12",
        T[1],
        _fixed_auc(
            [0, 1, 1, 0, 0, 1, 1],
            [0.3, 0.5, 0.5, 0.5, 0.5, 0.7, 0.8],
            "Four rows tied at 0.5 share the ranks 2 to 5.",
            "Tied rows share the average of the ranks they occupy (the four rows at 0.5 each "
            "get (2 + 3 + 4 + 5) / 4 = 3.5); then AUC = (R − P(P+1)/2) / (P·N), R the "
            "positives' rank sum.",
        ),
        source="Mann-Whitney U: AUC = (R − P(P+1)/2) / (P·N) with tie-averaged ranks",
        worked=True,
    ),
    Lesson("imbalance", "Prevalence falls: which curve notices?", T[2], _imbalance),
    Lesson("ap_random", "One of the five AP methods on six rows", T[3], _ap_random),
    Lesson(
        "ap_step",
        "AP = 5/6 as scikit-learn's step sum",
        T[3],
        _fixed_ap(
            [0, 0, 1, 1],
            [0.1, 0.4, 0.35, 0.8],
            "step",
            "The four rows of scikit-learn's own example.",
        ),
        source=SKLEARN_AP,
        worked=True,
    ),
    Lesson(
        "ap_trapezoid",
        "Trapezoid 0.7917 vs step 0.8333",
        T[3],
        _fixed_ap(
            [1, 0, 1, 0],
            [1, 0.8, 0.6, 0.4],
            "trapezoid",
            "One sample's labels [1, 0, 1, 0] with scores [1, 0.8, 0.6, 0.4].",
            "Before version 0.19 scikit-learn joined the PR points with straight lines (the "
            "trapezoid rule). No classifier can reach the points on such a line (Davis & "
            "Goadrich, ICML 2006), so since 0.19 it sums rectangles: the step sum, here 5/6, "
            "equal to label-ranking AP.",
        ),
        source="scikit-learn 0.19 release notes (average_precision_score no longer interpolates)",
        worked=True,
    ),
    Lesson(
        "ap_voc11",
        "PASCAL VOC 11-point interpolated AP",
        T[3],
        _fixed_ap(
            [1, 0, 1, 0],
            [1, 0.8, 0.6, 0.4],
            "voc11",
            "The same four rows, read as PASCAL VOC 2007 does: the best precision at "
            "recall ≥ 0, 0.1, ..., 1.",
        ),
        source="PASCAL VOC 2007 devkit (VOCevaluation, VOCap); Everingham et al., IJCV 2010",
        worked=True,
    ),
    Lesson("averaging", "Macro, micro, weighted or samples on five rows", T[4], _averaging),
    Lesson(
        "map_1112",
        "Multi-label mAP 11/12: per-class AP 0.75, 1, 1",
        T[4],
        _map_1112,
        source=SKLEARN_AP + " (average='macro')",
        worked=True,
    ),
    Lesson(
        "gauc_skip",
        "GAUC skips users with one class",
        T[5],
        _gauc_skip,
        source="Zhou et al., Deep Interest Network, KDD 2018 (GAUC)",
        worked=True,
    ),
    Lesson("gauc_reversal", "The ranking reversal: global AUC vs GAUC", T[5], _reversal),
    Lesson("ranking", "NDCG@k or AP@k on one query", T[6], _ranking_random),
    Lesson(
        "ir_map",
        "IR average precision 0.83 and 0.45, MAP 0.64",
        T[6],
        _ir_map,
        source="Manning, Raghavan & Schütze, Introduction to Information Retrieval, section "
        "8.4; trec_eval",
        worked=True,
    ),
    Lesson(
        "rare_class",
        "A missed rare class drags macro-F1 down, not micro",
        T[7],
        _rare_class,
        source=IIR_AVERAGING,
    ),
    Lesson(
        "micro_accuracy",
        "Micro-F1 = accuracy: micro 0.33, macro 0.267",
        T[7],
        _micro_accuracy,
        source=SKLEARN_F1 + " (its multi-class example)",
        worked=True,
    ),
    Lesson(
        "samples_empty",
        "Samples F1 with an empty row: 5/6 with zero_division=1",
        T[7],
        _samples_empty,
        source=SKLEARN_F1 + " (its multi-label example); zero_division as in "
        "precision_recall_fscore_support",
        worked=True,
    ),
    Lesson(
        "class_thresholds",
        "Each label's best threshold, and the gain over one shared",
        T[8],
        _class_thresholds,
        source=LIPTON,
    ),
    Lesson(
        "cost_curve",
        "Normalized expected cost at a probability cost",
        T[9],
        _cost_curve,
        source=DRUMMOND_HOLTE,
    ),
    Lesson(
        "calibration",
        "ECE 0.139 in three bins; MCE and Brier reliability",
        T[10],
        _calibration,
        source="scikit-learn documentation, sklearn.calibration.calibration_curve (its "
        "example); " + GUO + " (ECE)",
        worked=True,
    ),
)
BY_KEY = {lesson.key: lesson for lesson in LESSONS}

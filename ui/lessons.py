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
from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np
import pandas as pd

import metrics
from ui import ap_charts, auc_charts, ranking_charts
from ui.synthetic import SyntheticSpec, dprime_from_auc, generate
from ui.text import fraction, num

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


def check_answer(ex: Exercise, given: str | float | None) -> Verdict:
    """Right or wrong, with the tolerance for numbers; says what was expected."""
    if ex.kind == "choice":
        if given is None or given == "":
            return Verdict(None, "Pick one of the options first.")
        if given == ex.answer:
            return Verdict(True, f"Right: {ex.answer}.")
        return Verdict(False, f"Not this time: the answer is {ex.answer}, not {given}.")
    value = parse_number(given) if given is not None else None
    if value is None:
        return Verdict(None, "Type a number, such as 0.75, 3/4 or 75%, and check again.")
    answer = float(ex.answer)
    within = f"answers within {ex.tolerance:g} count"
    if abs(value - answer) <= ex.tolerance + 1e-12:
        return Verdict(True, f"Right: {_show(answer)} (you said {_show(value)}; {within}).")
    return Verdict(
        False, f"Not quite: the answer is {_show(answer)}, you said {_show(value)} ({within})."
    )


def _show(x: float) -> str:
    exact = Fraction(x).limit_denominator(100)
    text = f"{x:.4f}".rstrip("0").rstrip(".") if abs(x) >= 1e-4 or x == 0 else f"{x:.2e}"
    if abs(float(exact) - x) < 1e-12 and exact.denominator > 1:
        return f"{text} = {exact.numerator}/{exact.denominator}"
    return text


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
    return Exercise(
        table=_rows(y, s),
        context=f"A row is predicted positive when its score is at least **{threshold:g}**.",
        question=f"What is the {what} at threshold {threshold:g}?",
        answer=float(answer),
        derivation=tuple(lines),
        curves=(y, s),
        note="F-beta weighs recall beta times as much as precision (van Rijsbergen, "
        "Information Retrieval, 1979).",
    )


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
    )


# --- ROC AUC --------------------------------------------------------------------------------


def _auc_exercise(y, s, context: str, note: str = "") -> Exercise:
    pairs = auc_charts.pair_counts(metrics.threshold_counts(y, s))
    table = metrics.auc_rank_table(y, s)
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


def _fixed_auc(y, s, context):
    def make(seed: int) -> Exercise:
        if seed:
            return _auc_random(seed)
        return _auc_exercise(np.array(y), np.array(s), context)

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
    )


# --- AP five ways ------------------------------------------------------------------------------


def _ap_exercise(y, s, method: str, context: str, note: str = "") -> Exercise:
    lab = ap_charts.ap_lab(np.asarray(y), np.asarray(s, dtype=float))
    label = ap_charts.METHOD_LABELS[method]
    facts = {ap_charts.METHOD_LABELS[m]: v for m, v in lab.values.items()}
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


def _averaging_exercise(y, s, mode: str, context: str) -> Exercise:
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
    return Exercise(
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
        facts={"global AUC": float(metrics.roc_auc_score(y, s)), "GAUC": float(gauc)},
    )


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
        y, s, users,
        "Each user's rows are ranked on their own. One user has only one class.",
        "What is the GAUC (per-user AUC weighted by rows)?",
        float,
    )  # fmt: skip


def _classic_users() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Four users: the three classic AUC examples (0.75, 0.875 with a tie, 10/12 by ranks)
    and a user who only clicked, whom GAUC leaves out."""
    from ui.gauc_charts import seed004_example

    return seed004_example()


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
        return Exercise(
            table=frame,
            context=f"One query, seven documents with graded relevance 0-3; k = {k}.",
            question=f"What is NDCG@{k} (linear gain)?",
            answer=value,
            derivation=tuple(ranking_charts.ndcg_lines(b)),
            note="Järvelin & Kekäläinen (2002); the linear gain is trec_eval's ndcg_cut.",
        )
    value = float(metrics.mean_average_precision(rel > 0, s, groups, k=k))
    return Exercise(
        table=frame,
        context=f"One query, seven documents; relevance above 0 counts as relevant; k = {k}.",
        question=f"What is AP@{k} (over all relevant documents, as trec_eval's map_cut)?",
        answer=value,
        derivation=tuple(ranking_charts.ap_lines(b, np.array([value]))),
        note="Relevant documents ranked below k add 0 to the sum (trec_eval map_cut_k).",
    )


def _ir_map(seed: int) -> Exercise:
    if seed:
        return _ranking_random(seed)
    ex = ranking_charts.seed001_example()
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
    return Exercise(
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
        _fixed_auc([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8], "Two positives, two negatives, no ties."),
        source="scikit-learn documentation, sklearn.metrics.roc_auc_score",
        worked=True,
    ),
    Lesson(
        "auc_tie",
        "AUC 0.875: a tied pair counts one half",
        T[1],
        _fixed_auc(
            [0, 0, 1, 1], [0.1, 0.4, 0.4, 0.8], "The negative and a positive share the score 0.4."
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
)
BY_KEY = {lesson.key: lesson for lesson in LESSONS}

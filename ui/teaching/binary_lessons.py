"""The lessons on binary metrics: precision, recall and F-beta, ROC AUC, ROC vs PR under
class imbalance, and average precision five ways.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

import metrics
from ui.figures import ap_charts, auc_charts
from ui.tables.synthetic import SyntheticSpec, dprime_from_auc, generate
from ui.teaching.exercise import Exercise, binary_draw, hinted, rows_table, seeded_rng
from ui.words.text import fraction, num

# --- precision, recall, F-beta ------------------------------------------------------------------


def _confusion_lines(c: metrics.Confusion, threshold: float) -> list[str]:
    return [
        rf"\text{{at threshold }} {num(threshold)}: \ TP = {num(c.tp)},\ FP = {num(c.fp)},\ "
        rf"FN = {num(c.fn)},\ TN = {num(c.tn)}",
        fraction("precision", "TP", "TP + FP", c.tp, c.tp + c.fp),
        fraction("recall", "TP", "TP + FN", c.tp, c.tp + c.fn),
    ]


def prf(seed: int) -> Exercise:
    rng = seeded_rng("prf", seed)
    y, s = binary_draw(rng, 8, ties=False)
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
        table=rows_table(y, s),
        context=f"A row is predicted positive when its score is at least **{threshold:g}**.",
        question=f"What is the {what} at threshold {threshold:g}?",
        answer=float(answer),
        derivation=tuple(lines),
        curves=(y, s),
        note="F-beta weighs recall beta times as much as precision (van Rijsbergen, "
        "Information Retrieval, 1979).",
    )
    return hinted(ex, PRF_HINTS[what], *_prf_traps(y, s, threshold, what, beta))


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


def three_rows(seed: int) -> Exercise:
    if seed:
        return prf(seed)
    y, s, t = [1, 0, 0], [0.7, 0.3, 0.5], 0.5
    c = metrics.confusion_at_threshold(y, s, t)
    return Exercise(
        table=rows_table(y, s),
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


def accuracy(seed: int) -> Exercise:
    if seed:
        rng = seeded_rng("accuracy", seed)
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
    return hinted(_auc_exercise_plain(y, s, context, note, pairs, table), hint, *traps)


def _auc_exercise_plain(y, s, context, note, pairs, table) -> Exercise:
    return Exercise(
        table=rows_table(y, s),
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


def auc_random(seed: int) -> Exercise:
    y, s = binary_draw(seeded_rng("auc", seed), 7, ties=True)
    return _auc_exercise(y, s, "Scores rounded to one decimal, so some rows are tied.")


def fixed_auc(y, s, context, hint=AUC_HINT):
    def make(seed: int) -> Exercise:
        if seed:
            return auc_random(seed)
        return _auc_exercise(np.array(y), np.array(s), context, hint=hint)

    return make


# --- ROC vs PR under imbalance ----------------------------------------------------------------


def imbalance(seed: int) -> Exercise:
    rng = seeded_rng("imbalance", seed)
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
    return hinted(
        _ap_plain(y, s, method, context, note, lab, label, facts), AP_HINTS[method], *traps
    )


def _ap_plain(y, s, method, context, note, lab, label, facts) -> Exercise:
    return Exercise(
        table=rows_table(y, s),
        context=context,
        question=f"What is the average precision by the {label} method?",
        answer=float(lab.values[method]),
        derivation=tuple(ap_charts.method_latex(lab, method)),
        curves=(np.asarray(y), np.asarray(s, dtype=float)),
        note=note or ap_charts.WHEN_THEY_DIFFER[method],
        facts=facts,
    )


def ap_random(seed: int) -> Exercise:
    rng = seeded_rng("ap", seed)
    y, s = binary_draw(rng, 6, ties=False)
    method = metrics.AP_METHODS[seed % len(metrics.AP_METHODS)]
    return _ap_exercise(y, s, method, "Six rows; a score at or above a threshold is positive.")


def fixed_ap(y, s, method, context, note=""):
    def make(seed: int) -> Exercise:
        if seed:
            return ap_random(seed)
        return _ap_exercise(y, s, method, context, note)

    return make

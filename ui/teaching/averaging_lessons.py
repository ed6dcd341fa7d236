"""The lessons on multi-class and multi-label tables: averaging a metric over classes
(macro, micro, weighted, samples), F1 averaged, and per-class thresholds.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

import metrics
from ui.teaching.exercise import DEFAULT_TOLERANCE, Exercise, distinct_traps, hinted, seeded_rng
from ui.words.text import num

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
    return hinted(ex, AVERAGING_HINTS[mode], *traps)


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


def averaging(seed: int) -> Exercise:
    rng = seeded_rng("averaging", seed)
    while True:
        y = (rng.random((5, 3)) < 0.45).astype(int)
        col = y.sum(axis=0)
        if (col > 0).all() and (col < 5).all() and (y.sum(axis=1) > 0).all():
            break
    s = np.round(np.clip(rng.normal(0.35 + 0.3 * y, 0.2), 0.01, 0.99), 2)
    return _averaging_exercise(y, s, MODES[seed % 4], "Five rows, three labels each.")


def map_1112(seed: int) -> Exercise:
    if seed:
        return averaging(seed)
    y = [[0, 1, 0], [1, 1, 0], [0, 1, 1], [1, 1, 0]]
    s = [[0.1, 0.8, 0.3], [0.9, 0.7, 0.5], [0.2, 0.1, 0.9], [0.1, 0.8, 0.6]]
    return _averaging_exercise(
        y, s, "macro", "Four samples, three classes; each class is its own binary problem."
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


def rare_class(seed: int) -> Exercise:
    rng = seeded_rng("rare_class", seed)
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
    return hinted(ex, hint, *traps)


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
    return hinted(
        ex,
        "Micro pools the counts of all classes before dividing. With one label per row, each "
        "wrong row is one FP (of the class it was given) and one FN (of its true class).",
        (
            macro,
            "That is the macro average (the mean of the classes' F1); micro pools the "
            "counts first.",
        ),
    )


def micro_accuracy(seed: int) -> Exercise:
    if not seed:
        return _micro_accuracy_exercise(
            [0, 1, 2, 0, 1, 2],
            [0, 2, 1, 0, 0, 1],
            "Six rows, three classes, one label per row: scikit-learn's own f1_score example "
            "(macro 0.267, micro 0.33).",
        )
    rng = seeded_rng("micro_accuracy", seed)
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
    return hinted(
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


def samples_empty(seed: int) -> Exercise:
    if not seed:
        return _samples_exercise(
            [[0, 0, 0], [1, 1, 1], [0, 1, 1]],
            [[0, 0, 0], [1, 1, 1], [1, 1, 0]],
            "F1",
            1,
            "scikit-learn's multi-label f1_score example: three rows, labels A, B and C. Row 1 "
            "has no true label and none predicted.",
        )
    rng = seeded_rng("samples_empty", seed)
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


def class_thresholds(seed: int) -> Exercise:
    rng = seeded_rng("class_thresholds", seed)
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
        traps=distinct_traps(
            float(choice.gain),
            DEFAULT_TOLERANCE,
            (
                choice.macro,
                "That is the macro-F1 with a threshold per label; subtract the "
                "macro-F1 of the best shared threshold.",
            ),
        ),
    )

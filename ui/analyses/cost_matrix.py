"""A multi-class cost matrix and the minimum-expected-cost decision against argmax.

Pure functions, no Streamlit (the Multi-label page draws the widgets). ``cost[i, j]`` is the
cost of predicting class j when the truth is class i (rows: true class, columns: predicted
class). For a row with class probabilities ``p``, predicting j costs ``sum_i p_i cost[i, j]``
on average; the minimum-expected-cost decision takes the j with the smallest such sum
(:func:`metrics.min_cost_predict`), which with the 0-1 cost (0 on the diagonal, 1 off it) is
argmax. Every realised number comes from :func:`metrics.compare_cost_decisions`,
:func:`metrics.confusion_matrix` and :func:`metrics.recall_score`.

Source: Elkan, C. (2001). The foundations of cost-sensitive learning. IJCAI, 973-978.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

import metrics
from ui.analyses.decision_rules import fmt
from ui.analyses.multilabel_rules import Card
from ui.figures.multilabel_charts import ClassScores, capture
from ui.words.safe import tex_text

MAX_EDITABLE = 10  # more classes: no cell-by-cell editor, the "cost of missing" shortcut only
CORNER = "true ↓ · predicted →"  # the first column of the editor: the true class of each row
ELKAN = (
    "Elkan, C. (2001). The foundations of cost-sensitive learning. Proceedings of IJCAI 2001, "
    "973–978."
)


def default_cost(n_classes: int) -> np.ndarray:
    """The 0-1 cost: 0 on the diagonal, 1 off it (its minimum-expected-cost decision is argmax)."""
    return 1.0 - np.eye(n_classes)


def editor_frame(classes: tuple[str, ...], cost: np.ndarray) -> pd.DataFrame:
    """The matrix as the editor shows it: the true class first, then one column per predicted
    class."""
    frame = pd.DataFrame(np.asarray(cost, dtype=float), columns=[str(c) for c in classes])
    frame.insert(0, CORNER, [str(c) for c in classes])
    return frame


def _cell_name(classes: tuple[str, ...], i: int, j: int) -> str:
    return f"true {classes[i]} → predicted {classes[j]}"


def parse_cost(frame: pd.DataFrame, classes: tuple[str, ...]) -> tuple[np.ndarray | None, str]:
    """The cost matrix of an edited frame, or ``(None, sentence)`` saying which cells are not a
    number >= 0.

    An empty cell, text, NaN or an infinite value is "not a number"; a negative cost is refused
    too (a benefit can be written as 0 after adding the same amount to its whole row, which
    changes no decision).
    """
    names = [str(c) for c in classes]
    missing = [c for c in names if c not in frame.columns]
    if missing or len(frame) != len(names):
        return None, (
            f"The cost matrix must have one row and one column per class ({len(names)}); "
            "reset it with the button below."
        )
    values = np.column_stack(
        [pd.to_numeric(frame[c], errors="coerce").to_numpy(dtype=float) for c in names]
    )
    bad: list[str] = []
    for i, j in zip(*np.nonzero(~np.isfinite(values)), strict=True):
        raw = frame[names[j]].iloc[i]
        shown = "empty" if raw is None or (isinstance(raw, float) and np.isnan(raw)) else repr(raw)
        bad.append(f"{_cell_name(classes, int(i), int(j))} is {shown}, not a number")
    for i, j in zip(*np.nonzero(np.isfinite(values) & (values < 0)), strict=True):
        bad.append(f"{_cell_name(classes, int(i), int(j))} is {values[i, j]:g}, below 0")
    if not bad:
        return values, ""
    shown = "; ".join(bad[:4]) + (f"; and {len(bad) - 4} more" if len(bad) > 4 else "")
    return None, (
        f"The cost matrix is not used yet: {shown}. Every cost must be a number ≥ 0 (the cost "
        "of predicting the column's class when the truth is the row's class). A benefit for a "
        "right decision can be written as 0 after adding the same amount to its whole row: "
        "that changes no decision (Elkan 2001). The rest of the page is unaffected."
    )


def missing_cost(cost: np.ndarray, c: int, value: float) -> np.ndarray:
    """``cost`` with every wrong prediction for a true class ``c`` (row c, off the diagonal)
    costing ``value``: the "cost of missing class c" shortcut."""
    if not (np.isfinite(value) and value >= 0):
        raise ValueError(f"the cost of missing a class must be a number >= 0, got {value!r}.")
    out = np.array(cost, dtype=float, copy=True)
    keep = out[c, c]
    out[c, :] = value
    out[c, c] = keep
    return out


def dominated(cost: np.ndarray, classes: tuple[str, ...]) -> list[str]:
    """Sentences for columns that can never be the cheaper choice: predicting j costs at least
    as much as predicting k whatever the truth, and more for some truth (Elkan's condition for a
    reasonable matrix)."""
    c = np.asarray(cost, dtype=float)
    out = []
    for j in range(c.shape[1]):
        for k in range(c.shape[1]):
            if j != k and (c[:, j] >= c[:, k]).all() and (c[:, j] > c[:, k]).any():
                out.append(
                    f"Predicting {classes[j]} costs at least as much as predicting "
                    f"{classes[k]} whatever the truth: the minimum-expected-cost rule never "
                    f"prefers {classes[j]} to {classes[k]}."
                )
                break
    return out


# --- probabilities -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Probabilities:
    """The scores the rule weighs the costs with: ``proba`` (None: refused, ``refusal`` says
    why) and a ``note`` on what was done to them."""

    proba: np.ndarray | None
    normalised: bool
    note: str
    refusal: str


def probabilities(
    scores: np.ndarray, scale_kind: str = "probability", scale_reason: str = "", atol=1e-3
) -> Probabilities:
    """Read the score matrix as class probabilities, or refuse with the reason.

    Rows that sum to 1 (within ``atol``) are used as they are. Non-negative probability or
    percent scores whose rows do not are divided by their row sums: that changes no decision (a
    row's expected costs are all scaled alike) but makes the expected costs read as costs.
    Missing or negative scores, rows that are all 0, and scores that are not on a probability
    scale (margins, ranks) are refused: the expected cost needs a probability for every class.
    """
    s = np.asarray(scores, dtype=float)
    calibrate = (
        " Calibrate the scores first (a softmax of logits, or a calibration map fitted per "
        "class, as the Calibration page shows for one class at a time) and load those."
    )
    if s.size == 0:
        return Probabilities(None, False, "", "No rows: there is nothing to decide.")
    finite = np.isfinite(s)
    if not finite.all():
        rows = int((~finite).any(axis=1).sum())
        return Probabilities(
            None,
            False,
            "",
            f"{int((~finite).sum()):,} score{'s' * int((~finite).sum() != 1)} in {rows:,} "
            f"row{'s' * (rows != 1)} are missing (NaN) or infinite: the expected cost of a "
            "prediction needs every class's probability in the row, so the cost rule is not "
            "applied. The rules above treat a missing score as not predicted.",
        )
    if scale_kind not in ("probability", "percent") or s.min() < 0:
        why = f" ({scale_reason})" if scale_reason else ""
        return Probabilities(
            None,
            False,
            "",
            f"The scores are read as {scale_kind}{why}, not probabilities: the expected cost "
            "weighs each cost by the probability that the row is of that true class, so the "
            "cost rule needs probabilities." + calibrate,
        )
    sums = s.sum(axis=1)
    if (sums <= 0).any():
        k = int((sums <= 0).sum())
        return Probabilities(
            None,
            False,
            "",
            f"{k:,} row{'s' * (k != 1)} score{'s' * (k == 1)} 0 for every class: no "
            "probabilities to weigh the costs by, so the cost rule is not applied.",
        )
    if np.allclose(sums, 1.0, atol=atol):
        return Probabilities(s, False, "Rows' scores sum to 1: used as probabilities.", "")
    return Probabilities(
        s / sums[:, None],
        True,
        f"Rows' scores sum to {sums.min():.4g}–{sums.max():.4g}, not 1: each row was divided "
        "by its sum before the expected costs. That changes no decision (all of a row's "
        "expected costs are scaled alike) but says nothing about calibration.",
        "",
    )


# --- the comparison -------------------------------------------------------------------------------


@dataclass(frozen=True)
class CostResult:
    """The minimum-expected-cost decision against argmax, every number from the library."""

    classes: tuple[str, ...]
    cost: np.ndarray
    proba: np.ndarray
    truth: np.ndarray  # column index of each row's true class
    comparison: metrics.CostComparison
    weight_total: float
    confusion_argmax: np.ndarray  # N x N, rows true, columns predicted
    confusion_min_cost: np.ndarray
    recall_argmax: np.ndarray  # NaN: a class with no true row
    recall_min_cost: np.ndarray
    support: np.ndarray
    cost_by_class_argmax: np.ndarray  # realised cost of each true class's rows
    cost_by_class_min_cost: np.ndarray

    @property
    def argmax_total(self) -> float:
        return self.comparison.argmax_mean * self.weight_total

    @property
    def min_cost_total(self) -> float:
        return self.comparison.min_cost_mean * self.weight_total

    @property
    def saving_total(self) -> float:
        return self.argmax_total - self.min_cost_total

    @property
    def changed_rows(self) -> np.ndarray:
        """Positions of the rows whose decision differs."""
        c = self.comparison
        return np.flatnonzero(c.min_cost_pred != c.argmax_pred)


def compare(p: ClassScores, proba: np.ndarray, cost: np.ndarray) -> CostResult:
    """Both decisions on ``p``'s rows with ``proba`` (see :func:`probabilities`) and ``cost``."""
    if not p.multiclass:
        raise ValueError("a cost matrix needs multi-class data (one true class per row).")
    labels = list(p.classes)
    truth_names = p.true_labels()
    cmp = metrics.compare_cost_decisions(
        truth_names, proba, cost, labels=labels, sample_weight=p.weight
    )
    names = np.asarray(p.classes, dtype=object)
    kw = dict(labels=labels, sample_weight=p.weight)
    pred = {"argmax": names[cmp.argmax_pred], "min": names[cmp.min_cost_pred]}
    conf = {k: metrics.confusion_matrix(truth_names, v, **kw) for k, v in pred.items()}
    recall = {
        k: np.asarray(
            capture(metrics.recall_score, truth_names, v, average=None, zero_division=np.nan, **kw)[
                0
            ],
            dtype=float,
        )
        for k, v in pred.items()
    }
    truth = np.argmax(p.y, axis=1)
    w = np.ones(p.n_rows) if p.weight is None else np.asarray(p.weight, dtype=float)
    c = np.asarray(cost, dtype=float)
    by_class = {
        k: np.bincount(truth, weights=w * c[truth, idx], minlength=p.n_classes)
        for k, idx in (("argmax", cmp.argmax_pred), ("min", cmp.min_cost_pred))
    }
    return CostResult(
        classes=p.classes,
        cost=c,
        proba=np.asarray(proba, dtype=float),
        truth=truth,
        comparison=cmp,
        weight_total=float(w.sum()),
        confusion_argmax=np.asarray(conf["argmax"]),
        confusion_min_cost=np.asarray(conf["min"]),
        recall_argmax=recall["argmax"],
        recall_min_cost=recall["min"],
        support=np.asarray(conf["argmax"]).sum(axis=1),
        cost_by_class_argmax=by_class["argmax"],
        cost_by_class_min_cost=by_class["min"],
    )


def class_table(r: CostResult) -> pd.DataFrame:
    """Per true class: support, recall under each rule and its change, how often each rule
    predicts the class, and the realised cost of the class's rows under each rule."""
    return pd.DataFrame(
        {
            "class": list(r.classes),
            "support": r.support,
            "recall, argmax": r.recall_argmax,
            "recall, min cost": r.recall_min_cost,
            "recall change": r.recall_min_cost - r.recall_argmax,
            "predicted, argmax": r.confusion_argmax.sum(axis=0),
            "predicted, min cost": r.confusion_min_cost.sum(axis=0),
            "cost, argmax": r.cost_by_class_argmax,
            "cost, min cost": r.cost_by_class_min_cost,
        }
    )


def summary(r: CostResult) -> str:
    """One sentence on what the cost rule did on these rows."""
    cmp = r.comparison
    n = cmp.changed
    moved = f"{n:,} row{'s' * (n != 1)} change{'s' * (n == 1)} decision"
    if n == 0:
        return (
            "No row changes decision: with these costs and probabilities the cheapest "
            "expected prediction is the highest-scoring class everywhere, so the totals are equal."
        )
    if cmp.saving > 0:
        return (
            f"{moved}; the realised cost falls by {r.saving_total:,.4g} in total "
            f"({cmp.saving:.4g} per row), as the rule expects on average."
        )
    if cmp.saving < 0:
        return (
            f"{moved}, and the realised cost **rises** by {-r.saving_total:,.4g} in total "
            f"({-cmp.saving:.4g} per row): the rule is cheapest on average only if the "
            "probabilities are calibrated, so over- or under-confident scores (or a small sample) "
            "are the first suspects."
        )
    return f"{moved}, but the realised totals are equal."


# --- one row, unfolded ---------------------------------------------------------------------------


def expected_costs(proba_row: np.ndarray, cost: np.ndarray) -> np.ndarray:
    """``E[cost | predict j] = sum_i p_i cost[i, j]`` for every j."""
    return np.asarray(proba_row, dtype=float) @ np.asarray(cost, dtype=float)


def row_table(r: CostResult, i: int) -> pd.DataFrame:
    """Row ``i``: each class's probability, the expected cost of predicting it, and which class
    each rule picks."""
    e = expected_costs(r.proba[i], r.cost)
    cmp = r.comparison
    return pd.DataFrame(
        {
            "class": list(r.classes),
            "probability": r.proba[i],
            "expected cost if predicted": e,
            "picked by": [
                " + ".join(
                    name
                    for name, chosen in (
                        ("min expected cost", cmp.min_cost_pred[i] == j),
                        ("argmax", cmp.argmax_pred[i] == j),
                    )
                    if chosen
                )
                for j in range(len(r.classes))
            ],
            "true class": [j == r.truth[i] for j in range(len(r.classes))],
        }
    )


def _tnum(x: float, digits: int = 4) -> str:
    """A number for LaTeX: integers plainly, small numbers as a x 10^k."""
    x = float(x)
    if x.is_integer() and abs(x) < 1e15:
        return f"{int(x):,}".replace(",", "\\,")
    s = f"{x:.{digits}g}"
    if "e" in s:
        mant, exp = s.split("e")
        return rf"{mant} \times 10^{{{int(exp)}}}"
    return s


def _name(c: object) -> str:
    return rf"\text{{{tex_text(c, limit=24)}}}"


def explain_lines(r: CostResult, i: int, max_classes: int = 10) -> tuple[list[str], str]:
    """Row ``i`` unfolded: its probabilities, the expected cost of each prediction (the row
    times the cost matrix, filled with this row's numbers), the argmin, and the realised
    cost."""
    n = len(r.classes)
    p = r.proba[i]
    e = expected_costs(p, r.cost)
    cmp = r.comparison
    best, top, truth = int(cmp.min_cost_pred[i]), int(cmp.argmax_pred[i]), int(r.truth[i])
    probs = r",\ ".join(f"{_name(r.classes[k])}: {_tnum(p[k])}" for k in range(min(n, 8)))
    more = r",\ \dots" if n > 8 else ""
    lines = [rf"p = ({probs}{more})"]
    shown = list(range(n)) if n <= max_classes else sorted({best, top, truth})
    for j in shown:
        terms = [rf"{_tnum(p[k])} \cdot {_tnum(r.cost[k, j])}" for k in range(n)]
        written = " + ".join(terms[:6]) + (r" + \dots" if n > 6 else "")
        mark = r"\quad\leftarrow \min" if j == best else ""
        lines.append(
            rf"E[\text{{cost}} \mid \hat y = {_name(r.classes[j])}] = \sum_i p_i\,C_{{i,j}} = "
            rf"{written} = {_tnum(e[j])}{mark}"
        )
    lines.append(
        rf"\hat y = \arg\min_j E[\text{{cost}} \mid \hat y = j] = {_name(r.classes[best])},"
        rf"\qquad \arg\max_j p_j = {_name(r.classes[top])}"
    )
    lines.append(
        rf"\text{{truth}} = {_name(r.classes[truth])}:\quad C_{{\text{{truth}},\,\hat y}} = "
        rf"{_tnum(r.cost[truth, best])},\qquad C_{{\text{{truth}},\,\arg\max}} = "
        rf"{_tnum(r.cost[truth, top])}"
    )
    note = (
        "p_i: the row's probability of true class i; C_{i,j}: the cost of predicting j when "
        "the truth is i (the matrix above). The expected costs are the row vector p times the "
        "cost matrix; the rule predicts the smallest (a tie goes to the first column). With the "
        "0-1 cost every E is 1 − p_j, so the rule is argmax."
        + (
            f" With {n} classes only the chosen, highest-scoring and true classes are written "
            "out; the table lists every class."
            if n > max_classes
            else ""
        )
        + f" Source: {ELKAN}"
    )
    return lines, note


# --- the page's words ----------------------------------------------------------------------------

INTRO = (
    "Not every mistake costs the same. Say what predicting each class costs when the truth "
    "is each class; the rule then predicts, for each row, the class with the lowest "
    "**expected cost** Σᵢ P(true class i) × cost(i → j). The default, 0 on the diagonal "
    "and 1 elsewhere, counts every mistake alike: its minimum-expected-cost decision is "
    "argmax (Elkan 2001, *The foundations of cost-sensitive learning*)."
)
CALIBRATED = (
    "**The rule assumes calibrated probabilities**: a row's expected cost weighs each "
    "cost by the probability that the row is of that class, so the rule is the cheapest "
    "on average only if those probabilities are right (of the rows scored 0.8 for a "
    "class, 8 in 10 belong to it). Summing to 1 is not enough: over-confident scores "
    "make every cost but the top class's look negligible. Check a class's calibration "
    "on the Calibration page (its button above makes it the sidebar's model)."
)
CLASS_TABLE_NOTE = (
    "Per true class: its recall under each rule (None: no true row), how many rows "
    "each rule predicts as it, and the cost its rows run up. Raising the cost of "
    "missing a class (the shortcut) can only move rows into its column: its recall "
    "can only rise, the others' only fall."
)


def kept_cost(values: object, n_classes: int) -> np.ndarray:
    """The matrix kept from an earlier run when it has the right shape, else the 0-1 cost."""
    if values is not None and np.shape(values) == (n_classes, n_classes):
        return np.asarray(values, dtype=float)
    return default_cost(n_classes)


def shortcut_only(n_classes: int) -> str:
    """Why a matrix of ``n_classes`` classes is set one class at a time."""
    return (
        f"With {n_classes} classes ({MAX_EDITABLE} at most for cell-by-cell editing) the "
        "matrix is set with the shortcut on the right, one class at a time. For any "
        "matrix, call metrics.compare_cost_decisions(y_true, proba, cost) in Python."
    )


def cards(r: CostResult, n_rows: int, weighted: bool) -> list[Card]:
    """Both rules' total and mean cost, and how many rows change decision."""
    cmp = r.comparison
    return [
        Card(
            "total cost, argmax",
            f"{r.argmax_total:,.6g}",
            help="Σ cost(true class → argmax class) over the rows"
            + (" (× sample weight)." if weighted else "."),
        ),
        Card(
            "total cost, min cost",
            f"{r.min_cost_total:,.6g}",
            delta=f"{-r.saving_total:+,.4g} vs argmax" if r.saving_total else None,
            delta_color="inverse",
            help="Σ cost(true class → the minimum-expected-cost class) over the rows: "
            "'min cost' is the minimum-expected-cost rule.",
        ),
        Card("mean cost, argmax", fmt(cmp.argmax_mean)),
        Card(
            "mean cost, min cost",
            fmt(cmp.min_cost_mean),
            help="metrics.compare_cost_decisions: the realised mean cost per row.",
        ),
        Card("rows changing decision", f"{cmp.changed:,}", help=f"Of {n_rows:,} rows."),
    ]


def first_changed(r: CostResult) -> int:
    """The first row (from 1) whose decision the matrix changes; 1 when none does."""
    changed = r.changed_rows
    return int(changed[0]) + 1 if changed.size else 1


def changed_caption(r: CostResult, listed: int = 12) -> str:
    """The rows (from 1) whose decision changes, the first ``listed`` of them."""
    changed = r.changed_rows
    if not changed.size:
        return "No row's decision changes with these costs."
    return (
        "Rows whose decision changes: "
        + ", ".join(str(i + 1) for i in changed[:listed])
        + (f", … ({changed.size:,} in all)" if changed.size > listed else "")
        + "."
    )

"""The multi-label page's problem as data, and every number it shows: the indicator and score
matrices of a dataset with one score column per class (:class:`ClassScores`), and
:func:`summarize_averaging`, which calls the library once for every number and records the
``UndefinedMetricWarning`` messages of each call (so the page can show them instead of the
console). Pure: :mod:`ui.figures.multilabel_charts` draws these numbers and re-exports them.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

import metrics
from metrics import ThresholdCounts

MODES = ("macro", "micro", "weighted", "samples")


# --- the problem: an indicator matrix and a score matrix -------------------------------------


@dataclass(frozen=True)
class ClassScores:
    """An (n, C) label indicator and score matrix, the class names and optional row weights."""

    name: str
    y: np.ndarray  # (n, C) bool
    scores: np.ndarray  # (n, C) float
    classes: tuple[str, ...]
    weight: np.ndarray | None = None
    multiclass: bool = False  # exactly one label per row, from one label column

    @property
    def n_rows(self) -> int:
        return int(self.y.shape[0])

    @property
    def n_classes(self) -> int:
        return int(self.y.shape[1])

    def true_labels(self) -> np.ndarray:
        """Multi-class: the class name of each row (its label column, as prepared)."""
        return np.asarray(self.classes)[np.argmax(self.y, axis=1)]


SKLEARN_AP_EXAMPLE = ClassScores(
    name="scikit-learn's average_precision_score: 4 samples × 3 classes",
    y=np.array([[0, 1, 0], [1, 1, 0], [0, 1, 1], [1, 1, 0]], dtype=bool),
    scores=np.array([[0.1, 0.8, 0.3], [0.9, 0.7, 0.5], [0.2, 0.1, 0.9], [0.1, 0.8, 0.6]]),
    classes=("class_0", "class_1", "class_2"),
)
LRAP_VS_AP_EXAMPLE = ClassScores(
    name="Label ranking AP vs AP: one row, 4 labels",
    y=np.array([[1, 0, 1, 0]], dtype=bool),
    scores=np.array([[1.0, 0.8, 0.6, 0.4]]),
    classes=("red", "round", "heavy", "spicy"),
)
PRESETS = {
    "mAP 11/12: 4 samples × 3 classes": SKLEARN_AP_EXAMPLE,
    "LRAP = step AP 5/6: one row": LRAP_VS_AP_EXAMPLE,
}


def problem_from_dataset(ds: Any, column: str | None = None) -> ClassScores | None:
    """The page's problem from a :class:`ui.tables.dataset.Dataset` with one score column per class;
    of
    a table of several models' ``<model>__<class>`` columns, the model ``column`` (a score
    column, say the sidebar's) belongs to, by default the first."""
    mapping = ds.mapping
    model = mapping.class_model_of(column) if mapping.per_class else None
    columns = mapping.class_columns(model) if mapping.per_class else ()
    if not mapping.per_class or ds.prepared.y is None or len(columns) < 2:
        return None
    if any(m not in ds.prepared.scores for m in columns):
        return None
    return ClassScores(
        name=ds.name
        if not mapping.class_models
        else f"{ds.name} · {model or mapping.class_models[0]}",
        y=np.asarray(ds.prepared.y, dtype=bool),
        scores=np.column_stack([ds.score(m) for m in columns]),
        classes=tuple(mapping.classes),
        weight=ds.weight,
        multiclass=bool(mapping.is_multiclass),
    )


# --- numbers ---------------------------------------------------------------------------------


def capture(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> tuple[Any, tuple[str, ...]]:
    """``fn(*args, **kwargs)`` and the messages of the warnings it raised (each once)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        value = fn(*args, **kwargs)
    return value, tuple(dict.fromkeys(str(w.message) for w in caught))


@dataclass(frozen=True)
class AveragingSummary:
    """Every number the page shows, from the library, with the warnings each call raised."""

    classes: tuple[str, ...]
    n_rows: int
    weighted: bool
    positives: np.ndarray  # (C,) positives per class (weight when weighted)
    share: np.ndarray  # (C,) positives of the class / positives of all classes
    ap_per_class: np.ndarray
    auc_per_class: np.ndarray
    ap: dict[str, float]  # by mode in MODES
    auc: dict[str, float]
    notes: dict[tuple[str, str], tuple[str, ...]]  # (metric, mode) -> warning messages
    row_ap: np.ndarray | None  # per row, for small problems only
    row_auc: np.ndarray | None
    n_rows_with_label: int
    n_rows_without_label: int
    n_rows_all_labels: int
    n_rows_mixed: int  # rows with at least one positive and one negative label
    lrap: float
    lrap_labelled: float  # LRAP over the rows with at least one positive label
    samples_ap_trapezoid: float
    # scikit-learn's samples AP: the rows without a relevant label count as 0 instead of being
    # left out (the same per-row APs, averaged over every row's weight)
    samples_ap_sklearn: float
    counts: tuple[ThresholdCounts, ...]
    pooled: ThresholdCounts
    confusion: dict[str, np.ndarray] | None  # multi-class: "counts", "true", "pred"
    top_k: np.ndarray | None  # multi-class: top-k accuracy for k = 1..C


MAX_LISTED_ROWS = 12


def summarize_averaging(p: ClassScores) -> AveragingSummary:
    y, s, w = p.y, p.scores, p.weight
    notes: dict[tuple[str, str], tuple[str, ...]] = {}
    ap: dict[str, float] = {}
    auc: dict[str, float] = {}
    for name, fn, out in (
        ("AP", metrics.average_precision_score, ap),
        ("AUC", metrics.roc_auc_score, auc),
    ):
        for mode in MODES:
            out[mode], notes[(name, mode)] = capture(fn, y, s, average=mode, sample_weight=w)
    ap_per_class, notes[("AP", "per class")] = capture(
        metrics.average_precision_score, y, s, average=None, sample_weight=w
    )
    auc_per_class, notes[("AUC", "per class")] = capture(
        metrics.roc_auc_score, y, s, average=None, sample_weight=w
    )
    row_ap = row_auc = None
    if p.n_rows <= MAX_LISTED_ROWS:
        # One binary problem per row, as "samples" averages them (NaN where undefined).
        rows = range(p.n_rows)
        row_ap = np.array([capture(metrics.average_precision_score, y[i], s[i])[0] for i in rows])
        row_auc = np.array([capture(metrics.roc_auc_score, y[i], s[i])[0] for i in rows])
    row_w = np.ones(p.n_rows) if w is None else w
    positives = row_w @ y
    total = positives.sum()
    share = positives / total if total > 0 else np.zeros_like(positives)
    labelled = y.any(axis=1)
    lrap, notes[("LRAP", "all")] = capture(
        metrics.label_ranking_average_precision_score, y, s, sample_weight=w
    )
    if labelled.all():
        lrap_labelled = lrap
    elif labelled.any():
        lrap_labelled, _ = capture(
            metrics.label_ranking_average_precision_score,
            y[labelled],
            s[labelled],
            sample_weight=None if w is None else w[labelled],
        )
    else:
        lrap_labelled = float("nan")
    trapezoid, notes[("AP", "samples trapezoid")] = capture(
        metrics.average_precision_score, y, s, average="samples", method="trapezoid",
        sample_weight=w,
    )  # fmt: skip
    counts = tuple(
        metrics.threshold_counts(y[:, c], s[:, c], sample_weight=w) for c in range(p.n_classes)
    )
    pooled = metrics.threshold_counts(
        y.ravel(), s.ravel(), sample_weight=None if w is None else np.repeat(w, p.n_classes)
    )
    confusion = top_k = None
    if p.multiclass:
        truth, labels = p.true_labels(), np.asarray(p.classes)
        confusion = {
            key: metrics.multiclass_confusion_matrix(
                truth, s, labels=labels, sample_weight=w, normalize=norm
            )
            for key, norm in (("counts", None), ("true", "true"), ("pred", "pred"), ("all", "all"))
        }
        # Column positions, not names: the library reads the columns as the sorted classes
        # (as scikit-learn does), and a table's classes come in its own column order. Top-n
        # is 1 by construction (the summary says so), so its warning is not repeated.
        codes, columns = np.argmax(y, axis=1), np.arange(p.n_classes)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", metrics.UndefinedMetricWarning)
            top_k = np.array(
                [
                    metrics.top_k_accuracy_score(codes, s, k=k, labels=columns, sample_weight=w)
                    for k in range(1, p.n_classes + 1)
                ]
            )
    return AveragingSummary(
        classes=p.classes,
        n_rows=p.n_rows,
        weighted=w is not None,
        positives=positives,
        share=share,
        ap_per_class=np.asarray(ap_per_class, dtype=np.float64),
        auc_per_class=np.asarray(auc_per_class, dtype=np.float64),
        ap=ap,
        auc=auc,
        notes=notes,
        row_ap=row_ap,
        row_auc=row_auc,
        n_rows_with_label=int(labelled.sum()),
        n_rows_without_label=int((~labelled).sum()),
        n_rows_all_labels=int(y.all(axis=1).sum()),
        n_rows_mixed=int((labelled & ~y.all(axis=1)).sum()),
        lrap=float(lrap),
        lrap_labelled=float(lrap_labelled),
        samples_ap_trapezoid=float(trapezoid),
        samples_ap_sklearn=_with_unlabelled_as_zero(ap["samples"], row_w, labelled),
        counts=counts,
        pooled=pooled,
        confusion=confusion,
        top_k=top_k,
    )


def _with_unlabelled_as_zero(mean: float, row_w: np.ndarray, labelled: np.ndarray) -> float:
    """A mean over the labelled rows, re-read as a mean over every row with 0 on the others."""
    total, labelled_total = float(row_w.sum()), float(row_w[labelled].sum())
    if labelled.all() or total <= 0:
        return float(mean)
    if labelled_total == 0:
        return 0.0  # every row with weight is one without a label
    return float(mean) * labelled_total / total

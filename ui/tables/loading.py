"""Guessing how a score table's columns map onto a problem: the column mapping, the positive
class, and a summary of the columns.

Pure pandas, no Streamlit. A file that cannot be used raises :class:`LoadError`, with a message
that names the column and what to do; checking a mapped table into the arrays the metrics take
is :mod:`ui.tables.checking`.

Nothing here reads a file (:mod:`ui.compute.reading` does, under the memory budget), writes to
disk or evaluates anything.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from ui.tables.roles import infer_roles, nested_columns, per_class_layout

__all__ = [
    "ColumnMapping",
    "LoadError",
    "column_summary",
    "guess_mapping",
    "guess_pos_label",
    "is_numeric",
    "mapping_roles",
    "mapping_with",
]

MAX_LISTED = 5  # rows a message lists
MAX_NAME = 200  # longer column names are shortened
DELIMITERS = [",", "\t", ";", "|"]
# Words for the positive class, matched whole and case-insensitively ("not_clicked" is no match).
_POSITIVE_WORDS = (
    "1",
    "true",
    "yes",
    "y",
    "t",
    "pos",
    "positive",
    "spam",
    "click",
    "clicked",
    "malignant",
    "fraud",
    "churn",
    "converted",
    "relevant",
    "default",
)


class LoadError(ValueError):
    """The file cannot be read as a score table; the message says why and what to do."""


class TooLarge(LoadError):
    """The file would take more memory than the budget allows (on disk, decompressed or
    decoded): an engine reading it out of core may still take it."""


@dataclass(frozen=True)
class ColumnMapping:
    """Which columns play which role, in one of four layouts.

    * binary: ``label`` (positive where it equals ``pos_label``), one score column per model;
    * graded (``graded=True``): ``label`` holds relevance >= 0, positive where > 0, as in
      query-grouped ranking data; the grades are kept for NDCG;
    * multi-class: ``label`` holds one of ``classes`` per row, ``scores`` one column per class;
    * multi-label: ``labels`` are 0/1 columns, one per class in ``classes``, with ``scores``.

    The two per-class layouts hold one model's ``score_<class>`` columns, or, with
    ``class_models``, every model's ``<model>__<class>`` columns: ``scores`` then lists them
    model by model, each model's in the order of ``classes``.
    """

    label: str | None
    scores: tuple[str, ...]
    pos_label: Any = 1
    group: str | None = None
    weight: str | None = None
    labels: tuple[str, ...] = ()
    classes: tuple[str, ...] = ()
    graded: bool = False
    slices: tuple[str, ...] = ()  # categories to break results down by; unused by the metrics
    class_models: tuple[str, ...] = ()  # per-class layouts: the <model> of <model>__<class>

    @property
    def is_multilabel(self) -> bool:
        return bool(self.classes) and bool(self.labels)

    @property
    def is_multiclass(self) -> bool:
        return bool(self.classes) and not self.labels

    @property
    def per_class(self) -> bool:
        """One score column per class (multi-class or multi-label), not one per model."""
        return bool(self.classes)

    def class_columns(self, model: str | None = None) -> tuple[str, ...]:
        """One per-class model's score columns, in the order of ``classes``: ``model``'s, by
        default the first model's (all of ``scores`` when the table holds one model)."""
        if not self.class_models:
            return self.scores
        k = 0 if model is None else self.class_models.index(model)
        n = len(self.classes)
        return self.scores[k * n : (k + 1) * n]

    def class_of(self, column: str) -> int:
        """Where a per-class score column's class sits in ``classes``."""
        return self.scores.index(column) % len(self.classes)

    def class_model_of(self, column: str | None) -> str | None:
        """The model a per-class score column belongs to (None: one unnamed model, or not a
        score column)."""
        if not self.class_models or column not in self.scores:
            return None
        return self.class_models[self.scores.index(column) // len(self.classes)]


def is_numeric(series: pd.Series) -> bool:
    """Whether ``series`` holds numbers (booleans are not numbers here)."""
    return pd.api.types.is_numeric_dtype(series) and not pd.api.types.is_bool_dtype(series)


def _mostly_numeric(series: pd.Series) -> bool:
    """Numeric, or text whose cells are mostly numbers (so its few bad cells get reported)."""
    if is_numeric(series):
        return True
    present = series.dropna()
    if present.empty or pd.api.types.is_bool_dtype(series):
        return False
    return pd.to_numeric(present, errors="coerce").notna().mean() >= 0.5


def guess_pos_label(series: pd.Series) -> Any:
    """The positive class: True, 1 of 0/1 or -1/1, a word like "yes" or "spam", else the rarer.

    Words are compared whole and case-insensitively, so "Yes" and "YES" are positive and
    "not_clicked" is not "clicked". Between two other values the rarer one is positive, as the
    class of interest usually is (fraud, churn, a click); a tie goes to the value seen first.
    """
    values = pd.unique(series.dropna())
    if len(values) == 0:
        return 1
    for v in values:
        if isinstance(v, (bool, np.bool_)) and v:
            return True
    if pd.api.types.is_numeric_dtype(series) and set(np.asarray(values, dtype=float)) <= {
        0.0,
        1.0,
        -1.0,
    }:
        return 1
    for word in _POSITIVE_WORDS:
        for v in values:
            if str(v).strip().lower() == word:
                return v.item() if hasattr(v, "item") else v
    counts = series.value_counts(sort=False)
    order = np.argsort(counts.to_numpy(), kind="stable")
    rarest = counts.index[order[0]]
    return rarest.item() if hasattr(rarest, "item") else rarest


def _fallback_scores(frame: pd.DataFrame, roles: dict) -> tuple[str, ...]:
    """With no column that looks like a score, offer the near misses (constant, text or
    category columns, never ids or timestamps), so the user reads why each cannot be one."""
    near = [
        c
        for c, r in roles.items()
        if r.role == "slice"
        or (r.role == "ignore" and ("same value" in r.reason or "text" in r.reason))
    ]
    numeric = [c for c in near if _mostly_numeric(frame[c])]
    return tuple(numeric or near)


def guess_mapping(frame: pd.DataFrame) -> ColumnMapping:
    """A first guess at the column roles (see :func:`ui.tables.roles.infer_roles`), for the user to
    correct. Ids, timestamps, constants and categories are never guessed as models."""
    roles = infer_roles(frame)
    columns = [str(c) for c in frame.columns]
    by_role = {r: [c for c in columns if roles[c].role == r] for r in ("label", "score")}
    group = next((c for c in columns if roles[c].role == "group"), None)
    weight = next((c for c in columns if roles[c].role == "weight"), None)
    slices = tuple(c for c in columns if roles[c].role == "slice")
    labels = by_role["label"]
    nested = set(nested_columns(frame))  # as infer_roles reads the table: without them
    layout = per_class_layout(frame.loc[:, [str(c) not in nested for c in frame.columns]])
    if layout is not None:  # label_<class> columns, or a label naming the class columns
        return ColumnMapping(
            label=layout.label,
            scores=layout.scores,
            pos_label=None if layout.label is not None else 1,
            labels=layout.labels,
            classes=layout.classes,
            group=group,
            weight=weight,
            slices=slices,
            class_models=layout.models,
        )
    if not labels:  # no column can be a label (every one is a list or a struct)
        return ColumnMapping(label=None, scores=(), group=group, weight=weight, slices=slices)
    label = labels[0]
    scores = tuple(by_role["score"]) or _fallback_scores(frame, roles)
    # Relevance grades 0, 1, 2, ... in query-grouped data.
    graded = (
        group is not None
        and is_numeric(frame[label])
        and frame[label].nunique() > 2
        and bool((frame[label] >= 0).all())
    )
    return ColumnMapping(
        label=label,
        scores=scores,
        pos_label=None if graded else guess_pos_label(frame[label]),
        group=group,
        weight=weight,
        graded=graded,
        slices=slices,
    )


def mapping_roles(frame: pd.DataFrame, mapping: ColumnMapping) -> dict[str, str]:
    """Every column's role in ``mapping``: label, score, group, weight, slice, or ignore."""
    roles = {str(c): "ignore" for c in frame.columns}
    roles.update({c: "slice" for c in mapping.slices})
    roles.update({c: "score" for c in mapping.scores})
    roles.update({c: "label" for c in mapping.labels})
    singles = {"label": mapping.label, "group": mapping.group, "weight": mapping.weight}
    roles.update({col: role for role, col in singles.items() if col is not None})
    return roles


def column_summary(frame: pd.DataFrame, mapping: ColumnMapping | None = None) -> pd.DataFrame:
    """One row per column: its role in the mapping, type, missing cells, distinct values, range."""
    from ui.tables.roles import nested_columns

    roles = mapping_roles(frame, mapping) if mapping is not None else {}
    nested = set(nested_columns(frame))
    rows = []
    for col in frame.columns:
        series = frame[col]
        numeric = is_numeric(series)
        try:
            distinct = int(series.nunique(dropna=True))
        except TypeError:  # lists as they came (the loader writes them as text)
            distinct = None
        rows.append(
            {
                "column": str(col),
                "role": roles.get(str(col), ""),
                "type": "list/struct" if str(col) in nested else str(series.dtype),
                "missing": int(series.isna().sum()),
                "distinct": distinct,
                "min": float(series.min()) if numeric and series.notna().any() else None,
                "max": float(series.max()) if numeric and series.notna().any() else None,
            }
        )
    return pd.DataFrame(rows)


def _value_of(series: pd.Series, text: str) -> Any:
    """The label value written as ``text`` (``"1"`` is the number 1 of a numeric column)."""
    values = pd.unique(series.dropna())
    for v in values:
        try:
            same_number = float(text) == float(v)
        except (TypeError, ValueError):
            same_number = False
        if str(v) == text or same_number:
            return v.item() if hasattr(v, "item") else v
    shown = ", ".join(repr(v.item() if hasattr(v, "item") else v) for v in values[:6])
    raise LoadError(
        f"--pos-label {text!r} is not a value of {series.name!r} (its values: {shown})."
    )


def mapping_with(
    frame: pd.DataFrame,
    *,
    label: str | None = None,
    scores: list[str] | tuple[str, ...] | None = None,
    group: str | None = None,
    weight: str | None = None,
    pos_label: str | None = None,
) -> ColumnMapping:
    """The mapping an upload of ``frame`` starts with (:func:`guess_mapping`), with the roles
    named (as ``metrics-lens app`` takes them: ``"none"`` for no group or weight, a positive
    class as text, ``">0"`` for graded relevance). :class:`LoadError` names a column or value
    that is not in the table."""
    from dataclasses import replace

    columns = [str(c) for c in frame.columns]
    named = [(label, "--label"), (group, "--group"), (weight, "--weight")]
    for column, flag in [*named, *((c, "--score") for c in scores or ())]:
        if column is not None and column != "none" and column not in columns:
            shown = ", ".join(repr(c) for c in columns[:12]) + (
                ", ..." if len(columns) > 12 else ""
            )
            raise LoadError(f"No column named {column!r} ({flag}); the table has {shown}.")
    guess = guess_mapping(frame)
    changes: dict[str, Any] = {}
    if group is not None:
        changes["group"] = None if group == "none" else group
    if weight is not None:
        changes["weight"] = None if weight == "none" else weight
    if label is not None and label != guess.label:
        changes.update(label=label, labels=(), classes=(), class_models=(), graded=False,
                       pos_label=guess_pos_label(frame[label]))  # fmt: skip
    chosen_label = changes.get("label", guess.label)
    if pos_label is not None:
        if chosen_label is None:
            raise LoadError("--pos-label needs a label column: name it with --label.")
        if pos_label.replace(" ", "") == ">0":
            changes.update(graded=True, pos_label=1, classes=(), labels=(), class_models=())
        elif pos_label.startswith(">"):
            raise LoadError(
                f"--pos-label {pos_label!r}: the dashboard counts every grade above 0 as "
                "relevant (--pos-label '>0'); report and check take other cuts."
            )
        else:
            changes.update(pos_label=_value_of(frame[chosen_label], pos_label), graded=False,
                           classes=(), labels=(), class_models=())  # fmt: skip
    taken = {chosen_label, changes.get("group", guess.group), changes.get("weight", guess.weight)}
    if scores:
        changes["scores"] = tuple(scores)
    elif changes:
        changes["scores"] = tuple(c for c in guess.scores if c not in taken)
    mapping = replace(guess, **changes)
    if mapping.label in mapping.scores:
        raise LoadError(f"{mapping.label!r} is the label; it cannot also be a score (--score).")
    return replace(mapping, slices=tuple(c for c in mapping.slices if c not in taken))

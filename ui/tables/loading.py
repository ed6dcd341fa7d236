"""Guessing how a score table's columns map onto a problem, and checking them into arrays.

Pure pandas, no Streamlit: every problem is a :class:`LoadError` (the file cannot be used) or a
:class:`Problem` (the data can be used once the user decides something), each with a message
that names the column, how many rows, example rows, and what to do. Row numbers in messages
count data rows from 1, as a spreadsheet shows them below the header.

Nothing here reads a file (:mod:`ui.compute.reading` does, under the memory budget), writes to
disk or evaluates anything: a DataFrame in, the arrays the metrics take out.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from ui.tables.roles import infer_roles, nested_columns, per_class_layout, soft_labels
from ui.words.numbers import plural

__all__ = [
    "ColumnMapping",
    "LoadError",
    "Prepared",
    "Problem",
    "guess_mapping",
    "mapping_with",
    "prepare",
]

MAX_LISTED = 5
# Larger scores are refused like infinite ones: the span of -1e308 and 1e308 overflows, and with
# it every slider range, histogram edge and bin width computed from the scores.
MAX_SCORE = 1e300
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


def _rows(mask: np.ndarray) -> str:
    where = np.flatnonzero(mask) + 1
    listed = ", ".join(str(i) for i in where[:MAX_LISTED])
    return (
        f"row{'s' if where.size > 1 else ''} {listed}{', ...' if where.size > MAX_LISTED else ''}"
    )


# --- mapping ----------------------------------------------------------------------------------


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


def _numeric(series: pd.Series) -> bool:
    return pd.api.types.is_numeric_dtype(series) and not pd.api.types.is_bool_dtype(series)


def _mostly_numeric(series: pd.Series) -> bool:
    """Numeric, or text whose cells are mostly numbers (so its few bad cells get reported)."""
    if _numeric(series):
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
        and _numeric(frame[label])
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


# --- preparing arrays for the metrics ---------------------------------------------------------


@dataclass(frozen=True)
class Problem:
    """Something wrong with the mapped data. ``fixable`` problems go away by dropping rows."""

    level: str  # "error" or "warning"
    message: str
    rows: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=bool), repr=False)

    @property
    def fixable(self) -> bool:
        return bool(self.rows.any())


def _is_grade(value) -> bool:
    """A relevance grade: a whole number >= 0 (0, 1, 2, ... as numbers)."""
    try:
        number = float(value)
    except (TypeError, ValueError):
        return False
    return not isinstance(value, (str, bool)) and number >= 0 and number.is_integer()


def _rows_problem(column: str, mask: np.ndarray, what: str, then: str = "") -> Problem:
    """An error about some rows of one column, fixable by dropping them (the checkbox)."""
    return Problem(
        "error",
        f"{column} has {plural(int(mask.sum()), what)} ({_rows(mask)}){then}. Drop those rows "
        "to go on.",
        mask,
    )


@dataclass(frozen=True)
class Prepared:
    """Arrays ready for the metrics, or the problems that stop them."""

    y: np.ndarray | None  # bool (n,) binary, or (n, n_classes) per-class
    scores: dict[str, np.ndarray]
    groups: np.ndarray | None
    weight: np.ndarray | None
    problems: list[Problem]
    n_dropped: int = 0
    relevance: np.ndarray | None = None  # graded labels, float (n,)
    kept: np.ndarray | None = None  # positions in the table of the rows used; None = all rows
    # Soft labels (shares in [0, 1]): each table row is two rows here, positive with weight q
    # and negative with weight 1 - q (times any weight column); see soft_labels.
    soft: bool = False

    @property
    def ok(self) -> bool:
        return not any(p.level == "error" for p in self.problems)


def _score_problems(frame: pd.DataFrame, col: str) -> tuple[np.ndarray | None, list[Problem]]:
    series = frame[col]
    if not _numeric(series) and not pd.api.types.is_bool_dtype(series):
        # Text that is all numbers (say after dropping a bad row) is fine.
        as_number = pd.to_numeric(series, errors="coerce")
        bad = (as_number.isna() & series.notna()).to_numpy()
        if bad.any():
            example = series[bad].iloc[0]
            return None, [
                Problem(
                    "error",
                    f"Score column {col!r} has {plural(int(bad.sum()), 'non-numeric value')} "
                    f"({_rows(bad)}, e.g. {example!r}). Pick a numeric column as a score, or "
                    "fix those cells.",
                    bad,
                )
            ]
        series = as_number
    values = series.to_numpy(dtype=np.float64, na_value=np.nan)
    problems = []
    missing = np.isnan(values)
    if missing.any():
        problems.append(_rows_problem(f"Score column {col!r}", missing, "missing value"))
    infinite = np.isinf(values)
    if infinite.any():
        problems.append(_rows_problem(f"Score column {col!r}", infinite, "infinite value"))
    huge = np.isfinite(values) & (np.abs(values) > MAX_SCORE)
    if huge.any():
        problems.append(
            Problem(
                "error",
                f"Score column {col!r} has {plural(int(huge.sum()), 'value')} beyond "
                f"±{MAX_SCORE:g} ({_rows(huge)}, e.g. {values[huge][0]:g}): too large to take a "
                "range of or draw. Rescale the scores, or drop those rows to go on.",
                huge,
            )
        )
    if not problems and values.size and np.ptp(values) == 0:
        problems.append(
            Problem(
                "warning",
                f"Score column {col!r} has the same value ({values[0]:g}) in every row: it "
                "cannot rank anything, so its AUC is 0.5 and AP equals the prevalence.",
            )
        )
    return values, problems


def _binary_labels(
    frame: pd.DataFrame, mapping: ColumnMapping
) -> tuple[np.ndarray | None, list[Problem]]:
    col = mapping.label
    series = frame[col]
    missing = series.isna().to_numpy()
    problems = []
    if missing.any():
        problems.append(_rows_problem(f"Label column {col!r}", missing, "missing value"))
    values = pd.unique(series.dropna()).tolist()
    if len(values) > 2:
        shown = ", ".join(repr(v) for v in values[:6])
        grades = all(_is_grade(v) for v in values)
        problems.append(
            Problem(
                "error",
                f"Label column {col!r} has {len(values)} distinct values ({shown}"
                f"{', ...' if len(values) > 6 else ''}); a binary label needs two. "
                + (
                    'If they are relevance grades, tick "Graded relevance" (every grade above '
                    "0 counts as positive). Or pick another label column, or a multi-class "
                    "layout."
                    if grades
                    else "Pick another label column, or use the label_<class> / score_<class> "
                    "layout."
                ),
            )
        )
        return None, problems
    positive = (series == mapping.pos_label).fillna(False).to_numpy(dtype=bool)
    if not values:
        problems.append(
            Problem("error", f"Label column {col!r} is empty. Pick the column with the labels.")
        )
    elif not positive.any():
        problems.append(
            Problem(
                "error",
                f"The positive label {mapping.pos_label!r} does not occur in {col!r} (its values "
                f"are {', '.join(repr(v) for v in values)}). Choose the positive label.",
            )
        )
    elif len(values) < 2:
        problems.append(
            Problem(
                "warning",
                f"Label column {col!r} has one class only ({values[0]!r}, the positive class): "
                "without negatives AUC, FPR and specificity are undefined, and AP is 1 (every "
                "row flagged is positive). Threshold counts still work; to compare models, add "
                "rows of the other class or pick another positive label.",
            )
        )
    return positive, problems


def prepare(
    frame: pd.DataFrame, mapping: ColumnMapping, *, drop_bad_rows: bool = False
) -> Prepared:
    """Turn the mapped columns into arrays, listing every problem at once.

    With ``drop_bad_rows``, rows with a missing or non-numeric score, label, weight or group are
    dropped first (and counted in ``n_dropped``), so the fixable problems disappear.
    """
    missing_cols = [
        c
        for c in (mapping.label, mapping.group, mapping.weight, *mapping.scores, *mapping.labels)
        if c is not None and c not in frame.columns
    ]
    if missing_cols:
        return Prepared(
            None, {}, None, None, [Problem("error", f"No column named {missing_cols[0]!r}.")]
        )
    if not len(frame):
        return Prepared(None, {}, None, None, [Problem("error", "The table has no data rows.")])
    if not mapping.scores:
        return Prepared(
            None,
            {},
            None,
            None,
            [Problem("error", "Pick at least one score column (one per model).")],
        )
    from ui.tables.roles import nested_columns

    mapped = [
        c
        for c in (mapping.label, mapping.group, mapping.weight, *mapping.scores, *mapping.labels)
        if c is not None
    ]
    nested = nested_columns(frame, list(dict.fromkeys(mapped)))
    if nested:
        return Prepared(
            None,
            {},
            None,
            None,
            [
                Problem(
                    "error",
                    f"Column {nested[0]!r} holds lists or structs (ignored: list/struct "
                    "column); it cannot be a label, score, group or weight. Pick another column.",
                )
            ],
        )
    n_dropped = 0
    kept = None
    if drop_bad_rows:
        bad = _bad_rows(frame, mapping)
        if bad.any():
            frame = frame.loc[~bad].reset_index(drop=True)
            n_dropped = int(bad.sum())
            kept = np.flatnonzero(~bad)
        if frame.empty:
            return Prepared(
                None,
                {},
                None,
                None,
                [Problem("error", "Every row had a problem; nothing is left.")],
                n_dropped,
            )

    problems: list[Problem] = []
    scores = {}
    for col in mapping.scores:
        values, found = _score_problems(frame, col)
        problems += found
        if values is not None:
            scores[col] = values
    relevance = None
    if mapping.is_multilabel:
        y, found = _multilabel_labels(frame, mapping)
    elif mapping.is_multiclass:
        y, found = _multiclass_labels(frame, mapping)
    elif mapping.graded:
        relevance, found = _score_problems(frame, mapping.label)
        found = [
            Problem(p.level, p.message.replace("Score column", "Relevance column"), p.rows)
            for p in found
            if p.level == "error"
        ]
        y = None
        if relevance is not None and not found:
            negative = relevance < 0
            if negative.any():
                found.append(
                    Problem(
                        "error",
                        f"Relevance column {mapping.label!r} has "
                        f"{plural(int(negative.sum()), 'negative value')} ({_rows(negative)}); "
                        "graded relevance must be >= 0. Drop those rows to go on.",
                        negative,
                    )
                )
            y = relevance > 0
    elif soft_labels(frame[mapping.label]) is not None:
        y, found = soft_labels(frame[mapping.label]), []
    else:
        y, found = _binary_labels(frame, mapping)
    problems += found
    weight = None
    if mapping.weight is not None:
        weight, found = _weight(frame, mapping.weight)
        problems += found
    groups = None
    if mapping.group is not None:
        ids = frame[mapping.group]
        missing = ids.isna().to_numpy()
        if missing.any():
            problems.append(
                Problem(
                    "error",
                    f"Group column {mapping.group!r} has "
                    f"{plural(int(missing.sum()), 'missing id')} ({_rows(missing)}). Drop those "
                    "rows, or map no group column.",
                    missing,
                )
            )
        groups = ids.astype(str).to_numpy() if ids.dtype == object else ids.to_numpy()
    if y is not None and y.dtype.kind == "f":  # soft labels: two weighted rows per row
        return _expand_soft(y, scores, groups, weight, problems, n_dropped, kept)
    return Prepared(y, scores, groups, weight, problems, n_dropped, relevance, kept)


def _expand_soft(q, scores, groups, weight, problems, n_dropped, kept) -> Prepared:
    """Each row twice: positive with weight q, negative with weight 1 - q (times its weight),
    so every metric is its expected value over the label's uncertainty, the weighted metric of
    the doubled rows. Both copies point at the same table row."""
    n = q.size
    w = np.ones(n) if weight is None else weight
    rows = np.arange(n) if kept is None else kept
    return Prepared(
        y=np.r_[np.ones(n, bool), np.zeros(n, bool)],
        scores={m: np.r_[v, v] for m, v in scores.items()},
        groups=None if groups is None else np.r_[groups, groups],
        weight=np.r_[w * q, w * (1 - q)],
        problems=problems,
        n_dropped=n_dropped,
        kept=np.r_[rows, rows],
        soft=True,
    )


def _weight(frame: pd.DataFrame, col: str) -> tuple[np.ndarray | None, list[Problem]]:
    values, problems = _score_problems(frame, col)
    problems = [
        Problem(p.level, p.message.replace("Score column", "Weight column"), p.rows)
        for p in problems
        if p.level == "error"
    ]
    if values is None:
        return None, problems
    negative = values < 0
    if negative.any():
        problems.append(
            Problem(
                "error",
                f"Weight column {col!r} has {plural(int(negative.sum()), 'negative value')} "
                f"({_rows(negative)}); weights must be >= 0. Drop those rows to go on.",
                negative,
            )
        )
    return values, problems


def _multilabel_labels(
    frame: pd.DataFrame, mapping: ColumnMapping
) -> tuple[np.ndarray | None, list[Problem]]:
    problems = []
    columns = []
    for col in mapping.labels:
        series = frame[col]
        values = set(pd.unique(series.dropna()).tolist())
        if not values <= {0, 1}:  # True and False compare equal to 1 and 0
            problems.append(
                Problem(
                    "error",
                    f"Label column {col!r} must hold 0/1 (one column per class); it has "
                    f"{', '.join(repr(v) for v in list(values)[:5])}.",
                )
            )
            continue
        missing = series.isna().to_numpy()
        if missing.any():
            problems.append(_rows_problem(f"Label column {col!r}", missing, "missing value"))
        columns.append(series.fillna(0).to_numpy(dtype=np.float64) == 1)
    if problems:
        return None, problems
    return np.column_stack(columns), problems


def _multiclass_labels(
    frame: pd.DataFrame, mapping: ColumnMapping
) -> tuple[np.ndarray | None, list[Problem]]:
    series = frame[mapping.label]
    missing = series.isna().to_numpy()
    text = series.astype(str).to_numpy()
    known = np.isin(text, np.array(mapping.classes))
    problems = []
    if missing.any():
        problems.append(_rows_problem(f"Label column {mapping.label!r}", missing, "missing value"))
    unknown = ~known & ~missing
    if unknown.any():
        problems.append(
            _rows_problem(
                f"Label column {mapping.label!r}",
                unknown,
                "value",
                f" without a score column, e.g. {text[unknown][0]!r}; the classes are "
                f"{', '.join(mapping.classes)}",
            )
        )
    return text[:, None] == np.array(mapping.classes)[None, :], problems


def _bad_rows(frame: pd.DataFrame, mapping: ColumnMapping) -> np.ndarray:
    bad = np.zeros(len(frame), dtype=bool)
    for col in (*mapping.scores, mapping.weight):
        if col is not None:
            values = pd.to_numeric(frame[col], errors="coerce").to_numpy(
                dtype=np.float64, na_value=np.nan
            )
            bad |= ~np.isfinite(values) | (np.abs(values) > MAX_SCORE)
            if col == mapping.weight:
                bad |= values < 0
    for col in (mapping.label, mapping.group, *mapping.labels):
        if col is not None:
            bad |= frame[col].isna().to_numpy()
    if mapping.is_multiclass:
        bad |= ~np.isin(frame[mapping.label].astype(str).to_numpy(), np.array(mapping.classes))
    if mapping.graded:
        grades = pd.to_numeric(frame[mapping.label], errors="coerce").to_numpy(
            dtype=np.float64, na_value=np.nan
        )
        bad |= ~(grades >= 0)
    return bad


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
        numeric = _numeric(series)
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

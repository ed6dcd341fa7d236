"""Checking a mapped score table into the arrays the metrics take, or the problems that stop it.

Pure pandas, no Streamlit: every problem is a :class:`Problem` (the data can be used once the
user decides something), with a message that names the column, how many rows, example rows, and
what to do. Row numbers in messages count data rows from 1, as a spreadsheet shows them below
the header. A DataFrame and its :class:`ui.tables.loading.ColumnMapping` in, the arrays out.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from ui.tables.loading import MAX_LISTED, ColumnMapping, is_numeric
from ui.tables.roles import soft_labels
from ui.words.numbers import plural

__all__ = ["MAX_SCORE", "Prepared", "Problem", "prepare"]

# Larger scores are refused like infinite ones: the span of -1e308 and 1e308 overflows, and with
# it every slider range, histogram edge and bin width computed from the scores.
MAX_SCORE = 1e300


def _rows(mask: np.ndarray) -> str:
    where = np.flatnonzero(mask) + 1
    listed = ", ".join(str(i) for i in where[:MAX_LISTED])
    return (
        f"row{'s' if where.size > 1 else ''} {listed}{', ...' if where.size > MAX_LISTED else ''}"
    )


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
    if not is_numeric(series) and not pd.api.types.is_bool_dtype(series):
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


def _soft_outside(series: pd.Series) -> np.ndarray | None:
    """For a numeric label column with some value strictly between 0 and 1 (shares, as a soft
    label holds): the rows whose value is outside [0, 1] or infinite (missing ones are said
    apart). None for any other column."""
    if not pd.api.types.is_numeric_dtype(series) or pd.api.types.is_bool_dtype(series):
        return None
    q = series.to_numpy(dtype=np.float64)
    with np.errstate(invalid="ignore"):
        if not ((q > 0) & (q < 1)).any():
            return None
        return ~np.isnan(q) & ~((q >= 0) & (q <= 1))


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
    if (outside := _soft_outside(series)) is not None:
        # shares with some values out of [0, 1] (or infinite): a soft label gone wrong
        if outside.any():
            shown = ", ".join(f"{v!r}" for v in series[outside].to_numpy()[:3].tolist())
            problems.append(
                _rows_problem(
                    f"Label column {col!r} holds shares (a soft label) but",
                    outside,
                    "value",
                    f" outside [0, 1]: {shown}{', ...' if outside.sum() > 3 else ''}; a soft "
                    "label is a share "
                    "of positive votes from 0 to 1 (fix those values, or pick another label "
                    "column)",
                )
            )
        return None, problems
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
    elif mapping.label is not None and not (mapping.is_multiclass or mapping.is_multilabel):
        outside = _soft_outside(frame[mapping.label])  # shares past [0, 1]
        if outside is not None:
            bad |= outside
    return bad

"""What each column of a score table is for, and what scale each model's scores are on.

Pure pandas and numpy, no Streamlit. Two guesses a person would otherwise make by eye:

* :func:`infer_roles`: label, score (a model), group (user / query id), weight, slice (a
  low-cardinality category to break results down by) or ignore (ids, row numbers, timestamps,
  constants, free text), each with the reason in words, shown on the Data page.
* :func:`infer_scale`: probability [0, 1], percent [0, 100], margin (unbounded, e.g. a logit),
  or rank (whole numbers: a rank or a count), and :func:`default_threshold`, a first threshold
  that means the same on every page: 0.5, 50, or for the unbounded scales the score that
  predicts as many rows positive as there are positives.

(The scales live in :mod:`ui.tables.scales`; their names are re-exported here.)

The guesses only start the column mapping; the user can change every one of them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np
import pandas as pd

# Scales moved to their own module; roles re-exports them (and uses the number helpers).
from ui.tables.scales import (
    SCALES,
    Scale,
    _integral,
    _number_range,
    default_threshold,
    default_threshold_rule,
    infer_scale,
    soft_labels,
)

__all__ = [
    "CLASS_SEP",
    "ROLES",
    "SCALES",
    "ColumnRole",
    "PerClassLayout",
    "Scale",
    "class_models",
    "class_score_columns",
    "default_threshold",
    "default_threshold_rule",
    "infer_roles",
    "infer_scale",
    "nested_columns",
    "per_class_layout",
]

ROLES = ("label", "score", "group", "weight", "slice", "ignore")

LABEL_NAMES = (
    "label",
    "y",
    "y_true",
    "target",
    "truth",
    "class",
    "clicked",
    "click",
    "relevance",
    "rel",  # LETOR and TREC qrels files
    "relevant",
    "judgment",
    "judgement",
    "outcome",
    "is_spam",
    "is_fraud",
    "converted",
    "churned",
    # soft labels: the share of annotators (or a judge's probability) saying positive
    "soft_label",
    "label_share",
    "p_positive",
)
GROUP_NAMES = (
    "user_id",
    "user",
    "userid",
    "uid",
    "query_id",
    "query",
    "qid",
    "session_id",
    "session",
    "group",
)
WEIGHT_NAMES = ("weight", "sample_weight", "weights", "w")
# Words that make a column an id however its values look.
_ID_WORDS = {"id", "uuid", "guid", "item", "user", "session", "query", "request", "row", "index"}
# Words naming an entity a row belongs to: holding whole numbers, such a column numbers the
# entities (student 1-913 in mlmRev's Exam), never scores them.
_ENTITY_WORDS = {
    "student", "pupil", "patient", "customer", "client", "account", "device", "session",
    "item", "product", "order", "user", "member", "person", "subject", "participant",
    "employee", "household", "respondent", "case", "visit", "transaction", "document", "doc",
    "article", "movie", "song", "store", "shop", "hospital", "clinic", "school", "team",
    "player", "driver", "vehicle", "machine", "sensor", "merchant", "seller", "buyer", "ad",
    "campaign", "card", "loan", "claim", "policy", "ticket",
}  # fmt: skip
# ... unless a word says the numbers count or rank it (order_count, n_items, customer_rank).
_COUNT_WORDS = {
    "count", "counts", "cnt", "n", "num", "rank", "ranks", "position", "pos", "total", "qty",
    "quantity", "clicks", "views", "visits", "score", "rating",
}  # fmt: skip
_ID_NAME = re.compile(r"(^|_)(id|ids|uuid|guid|key)$|^(unnamed: ?\d+|idx|rownum|row_number)$")
_TIME_NAME = re.compile(
    r"(^|_)(time|timestamp|ts|date|datetime|day|hour|month|year)$|_at$|^(time|date|timestamp)"
)
# Names that say "this is a model's output" and win over the id-like look of the values.
_SCORE_NAME = re.compile(
    r"score|prob|pred|logit|margin|rank|output|confidence|model|estimate|propensity|yhat|p_"
)
# Names of a quantity measured about the row (a model's input, not its output).
_FEATURE_NAME = re.compile(
    r"(^|_)(amount|amt|price|cost|revenue|spend|balance|income|salary|age|tenure|duration"
    r"|months|days|years|height|width|length|distance|lat|lon|latitude|longitude"
    r"|temperature)($|_)"
)

MIN_ROWS_FOR_UNIQUE = 20  # below this, distinct values say little about ids
MAX_SLICE_VALUES = 20  # categories offered per slice column, the most common first
NONE = "(none)"  # the choice of no column, for an optional role
MIN_FEATURES = 3  # unnamed numeric columns beside named scores that make them features
# Whole numbers that repeat this much (rows per distinct value, at most MAX_CODE_VALUES values)
# are codes shared by rows (a district, a store, a clinic), not a model's scores.
MIN_ROWS_PER_CODE = 10
MAX_CODE_VALUES = 100
MAX_CLASSES = 200  # distinct values a multi-class label may hold
CLASS_SEP = "__"  # <model>__<class>: one model's score of one class
_EPOCH_SECONDS = (1e9, 2.2e9)  # 2001 to 2039
_EPOCH_MILLIS = (1e12, 2.2e12)


@dataclass(frozen=True)
class ColumnRole:
    """A column's guessed role and why, in words a person can check."""

    role: str
    reason: str


NESTED_REASON = "ignored: list/struct column (not a label, score, group or weight)"
NESTED_ATTR = "nested_columns"  # frame.attrs key: columns the loader turned from lists to text
_NESTED_TYPES = (list, tuple, dict, set, np.ndarray)


def nested_columns(frame: pd.DataFrame, columns=None) -> list[str]:
    """Columns (of ``columns``, default all) whose cells are lists, arrays, structs or maps
    (Parquet's nested types), or were before the loader wrote them as text
    (``frame.attrs["nested_columns"]``)."""
    marked = set(frame.attrs.get(NESTED_ATTR, ()))
    out = []
    for col in frame.columns if columns is None else columns:
        series = frame[col]
        if str(col) in marked or (
            series.dtype == object and any(isinstance(v, _NESTED_TYPES) for v in series.to_numpy())
        ):
            out.append(str(col))
    return out


def _words(name: str) -> set[str]:
    return set(re.split(r"[^a-z0-9]+", name.lower())) - {""}


def _looks_like_id_name(name: str) -> bool:
    lowered = name.lower().strip()
    if _ID_NAME.search(lowered):
        return True
    return bool(_words(lowered) & _ID_WORDS) and not _SCORE_NAME.search(lowered)


def _as_numbers(series: pd.Series) -> np.ndarray | None:
    """The finite numbers of a numeric (or mostly numeric text) column, else None."""
    if pd.api.types.is_bool_dtype(series):
        return None
    if pd.api.types.is_numeric_dtype(series):
        values = series.to_numpy(dtype=np.float64, na_value=np.nan)
    else:
        present = series.dropna()
        if present.empty:
            return None
        as_number = pd.to_numeric(present, errors="coerce")
        if as_number.notna().mean() < 0.5:
            return None
        values = as_number.to_numpy(dtype=np.float64, na_value=np.nan)
    return values[np.isfinite(values)]


def _looks_like_dates(series: pd.Series) -> bool:
    if pd.api.types.is_datetime64_any_dtype(series):
        return True
    if pd.api.types.is_numeric_dtype(series) or pd.api.types.is_bool_dtype(series):
        return False
    sample = series.dropna().astype(str).head(50)
    if sample.empty or not sample.str.contains(r"\d{4}|\d{1,2}[:/.-]\d{1,2}", regex=True).all():
        return False
    parsed = pd.to_datetime(sample, errors="coerce", format="mixed")
    return bool(parsed.notna().mean() >= 0.9)


def _timestamp_reason(name: str, series: pd.Series, numbers: np.ndarray | None) -> str | None:
    if _looks_like_dates(series):
        return "dates or times: not a model's score"
    if numbers is None or numbers.size == 0:
        return None
    low, high = numbers.min(), numbers.max()
    for (lo, hi), unit in ((_EPOCH_SECONDS, "seconds"), (_EPOCH_MILLIS, "milliseconds")):
        if lo <= low and high <= hi and _integral(numbers):
            return f"whole numbers in the range of Unix times in {unit}: looks like a timestamp"
    if _TIME_NAME.search(name.lower()) and not _SCORE_NAME.search(name.lower()):
        return "named like a time or date: not a model's score"
    return None


def _is_row_number(numbers: np.ndarray, n_rows: int) -> bool:
    """0..n-1 or 1..n: in order, or (in a table long enough to tell) in any order."""
    if numbers.size != n_rows or n_rows < 3 or not _integral(numbers):
        return False
    start = numbers.min()
    if start not in (0.0, 1.0):
        return False
    expected = start + np.arange(n_rows)
    if np.array_equal(numbers, expected):
        return True
    return n_rows >= MIN_ROWS_FOR_UNIQUE and np.array_equal(np.sort(numbers), expected)


def _id_reason(name: str, series: pd.Series, numbers: np.ndarray | None) -> str | None:
    """Why a column looks like an id (names, row numbers, unique whole numbers or text)."""
    n = int(series.notna().sum())
    score_named = bool(_SCORE_NAME.search(name.lower()))
    if numbers is not None and not score_named and _is_row_number(numbers, len(series)):
        return "row numbers (every whole number from the first to the last once)"
    if _looks_like_id_name(name):
        return f"named like an id ({name!r})"
    if (
        numbers is not None
        and _integral(numbers)
        and not score_named
        and not _words(name) & _COUNT_WORDS
        and _words(name) & _ENTITY_WORDS
        and not _repeats_like_a_code(numbers)  # a school 1-65 of 100 rows each: a code
    ):
        return f"whole numbers named like an entity ({name!r}): they number it, an id"
    distinct = series.nunique(dropna=True)
    if n >= MIN_ROWS_FOR_UNIQUE and distinct >= 0.95 * n and not score_named:
        if numbers is None:
            return "unique per row: looks like an id"
        if _integral(numbers):
            return "unique whole number per row: looks like an id"
    return None


@dataclass(frozen=True)
class PerClassLayout:
    """A table with one score column per class (and per model), as :func:`per_class_layout`
    reads it: the label column (multi-class) or ``label_<class>`` columns (multi-label), the
    classes, and the models: none for ``score_<class>`` columns (one model), else the
    ``<model>`` of ``<model>__<class>`` columns."""

    label: str | None
    labels: tuple[str, ...]
    classes: tuple[str, ...]
    models: tuple[str, ...] = ()

    @property
    def scores(self) -> tuple[str, ...]:
        return class_score_columns(self.classes, self.models)


def class_score_columns(classes, models=()) -> tuple[str, ...]:
    """The score columns of ``classes``: ``score_<class>`` for one unnamed model, else
    ``<model>__<class>`` for every model, model by model (all of a model's classes together)."""
    if not models:
        return tuple(f"score_{c}" for c in classes)
    return tuple(f"{m}{CLASS_SEP}{c}" for m in models for c in classes)


def class_models(columns: list[str], classes: list[str]) -> tuple[list[str], list[str]]:
    """(models, classes): the ``<model>`` prefixes of ``<model>__<class>`` columns with a
    column for each of the classes the widest of them covers, in the file's order."""
    present = set(columns)
    wanted = set(classes)
    coverage: dict[str, list[str]] = {}
    for col in columns:
        head, sep, tail = col.rpartition(CLASS_SEP)
        # A class may itself contain the separator: try every split, the longest class first.
        while sep:
            if head and tail in wanted:
                coverage.setdefault(head, [])
                if tail not in coverage[head]:
                    coverage[head].append(tail)
            head, sep, rest = head.rpartition(CLASS_SEP)
            tail = rest + CLASS_SEP + tail
    if not coverage:
        return [], []
    widest = max(coverage.values(), key=len)  # the first of the widest on a tie
    models = [m for m, covered in coverage.items() if set(widest) <= set(covered)]
    models = [m for m in models if all(f"{m}{CLASS_SEP}{c}" in present for c in widest)]
    return models, widest


def _class_names(columns: list[str]) -> set[str]:
    """Every name a class could have here: the ``<class>`` of ``score_<class>`` and of
    ``<model>__<class>`` columns."""
    names = {c[len("score_") :] for c in columns if c.startswith("score_")}
    for col in columns:
        parts = col.split(CLASS_SEP)
        names.update(CLASS_SEP.join(parts[i:]) for i in range(1, len(parts)))
    return names - {""}


def per_class_layout(frame: pd.DataFrame) -> PerClassLayout | None:
    """The per-class layout of ``frame``, when it has one; else None.

    * multi-label: ``label_<class>`` columns with ``score_<class>`` (one model) or
      ``<model>__<class>`` columns (one per model and class), for two or more classes;
    * multi-class: a column whose values name the class score columns (``vote`` holding A, N,
      U and Y beside ``score_A`` ... ``score_Y``, or ``lr__A`` ... ``hgb__Y``), whatever the
      column is called: that is the label. With ``score_<class>`` columns a label of more than
      two values (two are a binary label with two score columns); with ``<model>__<class>``
      columns two or more.
    """
    columns = [str(c) for c in frame.columns]
    label_classes = [c[len("label_") :] for c in columns if c.lower().startswith("label_")]
    if len(label_classes) >= 2:
        models, classes = class_models(columns, label_classes)
        if models and len(classes) >= 2:
            order = [c for c in label_classes if c in classes]
            labels = tuple(next(x for x in columns if x.lower() == f"label_{c}".lower())
                           for c in order)  # fmt: skip
            return PerClassLayout(None, labels, tuple(order), tuple(models))
        pairs = [c for c in label_classes if f"score_{c}" in columns]
        if len(pairs) >= 2:
            labels = tuple(x for x in columns if x.lower().startswith("label_")
                           and x[len("label_") :] in pairs)  # fmt: skip
            return PerClassLayout(None, labels, tuple(pairs))
    names = _class_names(columns)
    if not names:
        return None
    # Conventional label names first, then the file's order.
    named = [c for n in LABEL_NAMES for c in columns if c.lower() == n]
    for col in dict.fromkeys([*named, *columns]):
        series = frame[col]
        present = series.dropna()
        if present.empty or str(present.iloc[0]) not in names:
            continue  # cheap: a label's first value names a class
        values = [str(v) for v in pd.unique(present)[: MAX_CLASSES + 1]]
        if len(values) < 2 or len(values) > MAX_CLASSES or not set(values) <= names:
            continue
        models, classes = class_models(columns, values)
        if models and set(classes) == set(values):
            prefix = models[0] + CLASS_SEP
            order = [c[len(prefix) :] for c in columns if c.startswith(prefix)]
            order = [c for c in order if c in set(values)]  # the file's order
            return PerClassLayout(col, (), tuple(order), tuple(models))
        if len(values) > 2 and all(f"score_{v}" in columns for v in values):
            # In the file's order of the score columns (score_0 ... score_11, or as the author
            # put the named classes), never sorted as text ('0', '1', '10', '11', '2', ...).
            order = [c[len("score_") :] for c in columns if c.startswith("score_")]
            order = [c for c in order if c in set(values)]
            return PerClassLayout(col, (), tuple(order))
    return None


def _label_candidates(frame: pd.DataFrame) -> list[str]:
    """Columns that could be a binary label: exactly two values, not named like an id."""
    out = []
    for col in frame.columns:
        name = str(col)
        if frame[col].nunique(dropna=True) == 2 and not _looks_like_id_name(name):
            out.append(name)
    return out


def _match(columns: list[str], names: tuple[str, ...]) -> str | None:
    lowered = {c.lower(): c for c in columns}
    return next((lowered[n] for n in names if n in lowered), None)


def pick_label(frame: pd.DataFrame) -> str:
    """The label column: a conventional name, else the first two-valued column."""
    columns = [str(c) for c in frame.columns]
    named = _match(columns, LABEL_NAMES)
    if named is not None:
        return named
    candidates = _label_candidates(frame)
    # A column whose values look like labels (0/1, yes/no, true/false) beats other two-valued ones.
    for col in candidates:
        values = {str(v).strip().lower() for v in frame[col].dropna().unique()}
        if values <= {"0", "1", "-1", "true", "false", "yes", "no", "0.0", "1.0", "-1.0"}:
            return col
    if candidates:
        return candidates[0]
    # No two-valued column: the first that is not a row number or an id (a row number is never
    # a label), so the message about its values names a column that could be one.
    for col in columns:
        numbers = _as_numbers(frame[col])
        row_number = numbers is not None and _is_row_number(numbers, len(frame))
        if not row_number and not _looks_like_id_name(col):
            return col
    return columns[0]


def pick_group(frame: pd.DataFrame, taken: set[str]) -> str | None:
    """A user / query id column by name, used only where ids repeat (groups of rows)."""
    columns = [str(c) for c in frame.columns if str(c) not in taken]
    lowered = {c.lower(): c for c in columns}
    for name in GROUP_NAMES:
        col = lowered.get(name)
        if col is None:
            continue
        present = frame[col].dropna()
        # One row per id makes no groups (in a table long enough to tell).
        if len(present) and (
            len(present) < MIN_ROWS_FOR_UNIQUE or present.nunique() < len(present)
        ):
            return col
    return None


def pick_weight(frame: pd.DataFrame, taken: set[str]) -> str | None:
    columns = [str(c) for c in frame.columns if str(c) not in taken]
    # By name only: a bad weight (negative, missing) is then reported, not taken as a model.
    return _match(columns, WEIGHT_NAMES)


def _other_role(name: str, series: pd.Series) -> ColumnRole:
    """The role of a column that is not the label, group or weight."""
    present = series.dropna()
    if present.empty:
        return ColumnRole("ignore", "empty: no values")
    distinct = present.nunique()
    if distinct == 1:
        return ColumnRole(
            "ignore", f"the same value ({present.iloc[0]!s:.40}) in every row: ranks nothing"
        )
    numbers = _as_numbers(series)
    if numbers is not None and numbers.size == 0:
        return ColumnRole("ignore", "no finite number (only infinities): not a score")
    reason = _timestamp_reason(name, series, numbers)
    if reason is not None:
        return ColumnRole("ignore", reason)
    reason = _id_reason(name, series, numbers)
    if reason is not None:
        return ColumnRole("ignore", reason)
    score_named = bool(_SCORE_NAME.search(name.lower()))
    if numbers is None:
        if pd.api.types.is_bool_dtype(series) or distinct <= MAX_SLICE_VALUES:
            return ColumnRole("slice", f"{distinct} categories: a column to slice results by")
        return ColumnRole("ignore", f"text with {distinct:,} different values: not a score")
    if distinct == 2 and not score_named:
        return ColumnRole("slice", "two values: a flag to slice results by, not a score")
    if not score_named and _FEATURE_NAME.search(name.lower()):
        return ColumnRole(
            "ignore", f"numbers named like a measured quantity ({name!r}): a feature, not a score"
        )
    if _integral(numbers) and distinct <= 10 and not score_named and len(present) >= 50:
        return ColumnRole("slice", f"{distinct} whole-number codes: a category to slice results by")
    return ColumnRole("score", f"numbers from {_number_range(numbers)}: a model's score")


def _repeats_like_a_code(numbers: np.ndarray) -> bool:
    distinct = int(np.unique(numbers).size)
    return distinct <= MAX_CODE_VALUES and numbers.size >= MIN_ROWS_PER_CODE * distinct


def _code_role(name: str, series: pd.Series) -> ColumnRole | None:
    """A whole-number column guessed as a score whose values repeat heavily (a district code
    1-61 of about 32 rows each): a group or slice candidate, never a model; None otherwise."""
    if _SCORE_NAME.search(name.lower()) or re.search(r"pct|percent|%", name.lower()):
        return None
    numbers = _as_numbers(series)
    if numbers is None or not _integral(numbers):
        return None
    if not _repeats_like_a_code(numbers):
        return None
    distinct = int(np.unique(numbers).size)
    per_value = numbers.size / distinct
    if distinct <= MAX_SLICE_VALUES:
        return ColumnRole(
            "slice",
            f"{distinct} whole-number codes, about {per_value:,.0f} rows each: a category to "
            "slice results by, not a model's score",
        )
    return ColumnRole(
        "ignore",
        f"whole numbers from {_number_range(numbers)}, {distinct} values of about "
        f"{per_value:,.0f} rows each: a code rows share (a district, a store), not a model's "
        "score. Map it as the user/query id if rows of one value are not independent "
        "(intervals then resample whole values), or as a slice",
    )


# A column is read as nested in another only when, were its values a score drawn apart from
# the other column, this many (value, other) pairs would repeat on average: seeing none is then
# a chance of about e**-10 (uniform values repeat least; any other spread repeats more).
MIN_EXPECTED_REPEATS = 10


def expected_repeats(group_sizes: np.ndarray, n_values: int) -> float:
    """Pairs of rows in one group with the same value, expected if ``n_values`` values were
    drawn uniformly and independently of the groups: sum over groups of C(m, 2) / n_values."""
    sizes = np.asarray(group_sizes, dtype=np.float64)
    return float(np.sum(sizes * (sizes - 1) / 2) / max(n_values, 1))


def _nested_id_role(name: str, series: pd.Series, frame: pd.DataFrame, outers) -> ColumnRole | None:
    """Whole numbers that restart within another column's values (a student number 1-913
    within each of 65 schools): each (outer, this) pair is one row, so the column numbers the
    rows of each outer value, an id; None otherwise. Scores with whole values (counts, 0-100
    ratings) repeat within the outer values once the groups are large enough to tell
    (``MIN_EXPECTED_REPEATS``), so they stay models."""
    if _SCORE_NAME.search(name.lower()):
        return None
    numbers = _as_numbers(series)
    if numbers is None or not _integral(numbers) or numbers.size < MIN_ROWS_FOR_UNIQUE:
        return None
    present = series.notna()
    for outer in outers:
        if outer == name:
            continue
        pair = frame.loc[present, [outer, name]]
        if pair[outer].isna().any():
            continue
        sizes = pair[outer].value_counts().to_numpy()
        if sizes.size < 2 or expected_repeats(sizes, pair[name].nunique()) < MIN_EXPECTED_REPEATS:
            continue
        if not pair.duplicated().any():
            return ColumnRole(
                "ignore",
                f"whole numbers that start again within each {outer!r} (every ({outer}, "
                f"{name}) pair is one row): an id of rows within {outer!r}, not a model's score",
            )
    return None


def infer_roles(frame: pd.DataFrame) -> dict[str, ColumnRole]:
    """Every column's guessed role, with the reason.

    Never guesses as a model: ids (by name, row numbers, unique whole numbers or text per row,
    whole numbers named like an entity such as ``student`` or ``customer``, whole numbers that
    start again within each value of a code: a student number within a school), timestamps and
    dates, constant columns, codes rows share, and low-cardinality categories (slices).
    """
    all_columns = [str(c) for c in frame.columns]
    nested = nested_columns(frame)
    if nested:  # lists and structs take no role (and their cells cannot even be counted)
        flat = frame.loc[:, [str(c) not in nested for c in frame.columns]]
        roles = infer_roles(flat) if flat.shape[1] else {}
        roles.update({c: ColumnRole("ignore", NESTED_REASON) for c in nested})
        return {col: roles[col] for col in all_columns}
    columns = all_columns
    roles: dict[str, ColumnRole] = {}
    layout = per_class_layout(frame)
    if layout is not None:
        for col, cls in zip(layout.labels, layout.classes, strict=False):  # () if multi-class
            roles[col] = ColumnRole("label", f"0/1 label of class {cls!r}")
        if layout.label is not None:
            shown = ", ".join(layout.classes[:6]) + (", ..." if len(layout.classes) > 6 else "")
            roles[layout.label] = ColumnRole(
                "label",
                f"its values ({shown}) name the class score columns: the multi-class label",
            )
        for k, col in enumerate(layout.scores):
            cls = layout.classes[k % len(layout.classes)]
            model = layout.models[k // len(layout.classes)] if layout.models else None
            roles[col] = ColumnRole(
                "score",
                f"score of class {cls!r}"
                if model is None
                else f"model {model!r}: score of class {cls!r}",
            )
    else:
        label = pick_label(frame)
        named = label.lower() in LABEL_NAMES
        two = frame[label].nunique(dropna=True) == 2
        roles[label] = ColumnRole(
            "label",
            f"named like a label ({label!r})"
            + (
                "; shares in [0, 1]: a soft label (a row counts positive with weight q)"
                if soft_labels(frame[label]) is not None
                else ""
            )
            if named
            else "two values: the first such column"
            if two
            else "no column has two values: the first that is not a row number or an id",
        )
    taken = set(roles)
    group = pick_group(frame, taken)
    if group is not None:
        roles[group] = ColumnRole("group", "named like a user or query id, with repeated ids")
        taken.add(group)
    weight = pick_weight(frame, taken)
    if weight is not None:
        roles[weight] = ColumnRole("weight", f"named like a sample weight ({weight!r})")
    for col in columns:
        if col not in roles:
            roles[col] = _other_role(col, frame[col])
    # Exports often carry the model's inputs too: when some score columns are named like a
    # model's output (score, pred, prob, ...) and several others are not, those are features.
    guessed = [c for c in columns if roles[c].role == "score"]
    named = [c for c in guessed if _SCORE_NAME.search(c.lower())]
    if named and len(guessed) - len(named) >= MIN_FEATURES:
        for col in guessed:
            if col not in named:
                roles[col] = ColumnRole(
                    "ignore",
                    "numbers, but not named like a model's output while "
                    + ", ".join(repr(c) for c in named[:3])
                    + " are: looks like a feature",
                )
    # Whole numbers that repeat heavily are codes (districts, stores), never models; per-class
    # score columns keep their role whatever their values.
    per_class = set() if layout is None else set(layout.scores)
    for col in columns:
        if roles[col].role == "score" and col not in per_class:
            roles[col] = _code_role(col, frame[col]) or roles[col]
    # Ids nested in a code (a student within a school) repeat across the codes, so they are
    # neither unique nor heavily repeated: the pair with the code is unique per row.
    outers = [c for c in columns if roles[c].role in ("group", "slice", "ignore")]
    for col in columns:
        if roles[col].role == "score" and col not in per_class:
            roles[col] = _nested_id_role(col, frame[col], frame, outers) or roles[col]
    return {col: roles[col] for col in columns}

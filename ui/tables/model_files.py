"""Another model's file of the same rows, added to the loaded table as more models.

Teams keep one predictions file per model: the current classifier's, the candidate's. The
second file's score columns join the first table when both hold the same rows: in the same
order with the same label, or aligned on an id column both have (unique per row). On a
per-class table (one ``score_<class>`` column per class) each file is one whole model, so the
columns become ``<model>__<class>``, the models named after the files; on a binary table the
new score columns are more models. The roles come from the first table's mapping (as the user
left it), so nothing is guessed twice. Pure pandas: the upload source calls it.
"""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import PurePath

import pandas as pd

from ui.tables.loading import ColumnMapping, LoadError, guess_mapping
from ui.words.numbers import plural

__all__ = ["add_model_file", "model_name"]


def model_name(file_name: str, taken: set[str]) -> str:
    """A model's name from its file's (``hgb_scores.csv`` -> ``hgb_scores``), not in
    ``taken``: letters, digits and underscores, never two underscores running (the class
    separator)."""
    stem = PurePath(file_name).name.split(".")[0]
    stem = re.sub(r"_+", "_", re.sub(r"[^0-9A-Za-z_]+", "_", stem)).strip("_") or "model"
    name, k = stem, 2
    while name in taken:
        name, k = f"{stem}_{k}", k + 1
    return name


def _id_column(first: pd.DataFrame, second: pd.DataFrame, roles: set[str]) -> str | None:
    """A column both tables hold, unique and never missing in each: the rows' id."""
    for column in first.columns:
        if column in roles or column not in second.columns:
            continue
        a, b = first[column], second[column]
        if a.notna().all() and b.notna().all() and a.is_unique and b.is_unique:
            return column
    return None


def _shown(value) -> str:
    """A cell as the user wrote it (``1``, ``'yes'``), not numpy's repr (``np.int64(1)``)."""
    return repr(value.item() if hasattr(value, "item") else value)


def _refuse_repeated_ids(first: pd.DataFrame, second: pd.DataFrame, roles: set[str],
                         names) -> None:  # fmt: skip
    """An id column (whole numbers or text) both files hold, one value a row in one file and
    repeated or missing in the other, cannot match the rows: say so rather than take them in
    order (a file with duplicated ids is not the same rows)."""
    for column in first.columns:
        if column in roles or column not in second.columns:
            continue
        a, b = first[column], second[column]
        if pd.api.types.is_float_dtype(a) or pd.api.types.is_float_dtype(b):
            continue  # a feature or a score, not an id
        whole = [x.notna().all() and x.is_unique for x in (a, b)]
        if whole[0] != whole[1]:
            k = 0 if not whole[0] else 1
            bad = (a, b)[k]
            repeated = int(bad.duplicated(keep="first").sum())
            missing = int(bad.isna().sum())
            raise LoadError(
                f"{names[k]}'s {column!r} repeats {plural(repeated, 'value')}"
                + (f" and misses {plural(missing, 'value')}" if missing else "")
                + f" where {names[1 - k]}'s holds one a row: the files cannot be matched on it. "
                "A model's file holds each row once, with the same ids."
            )


def _aligned(first: pd.DataFrame, second: pd.DataFrame, mapping: ColumnMapping, names):
    """``second``'s rows in ``first``'s order, and how they were matched (words)."""
    roles = {c for c in (mapping.label, mapping.group, mapping.weight, *mapping.labels) if c}
    roles |= set(mapping.scores)
    key = _id_column(first, second, roles)
    if key is not None:
        missing = ~first[key].isin(second[key])
        extra = ~second[key].isin(first[key])
        if missing.any() or extra.any():
            raise LoadError(
                f"{names[1]} and {names[0]} share the id column {key!r} but not its values "
                f"({int(missing.sum()):,} of {names[0]}'s ids are not in {names[1]}, "
                f"{int(extra.sum()):,} of {names[1]}'s not in {names[0]}): a model's file must "
                "hold the same rows."
            )
        return second.set_index(key).loc[first[key]].reset_index(), f"rows matched on {key!r}"
    _refuse_repeated_ids(first, second, roles, names)
    if len(second) != len(first):
        raise LoadError(
            f"{names[0]} has {len(first):,} rows and {names[1]} {len(second):,}: a model's file "
            "must hold the same rows, in the same order or with an id column both files have "
            "(unique per row) to match them."
        )
    return second.reset_index(drop=True), "rows taken in the same order"


def _same_labels(first, second, mapping: ColumnMapping, names) -> str:
    """Refuse a second file whose label column(s) disagree with the first's (other rows)."""
    columns = [c for c in (mapping.label, *mapping.labels) if c]
    shared = [c for c in columns if c in second.columns]
    for column in shared:
        a, b = first[column].reset_index(drop=True), second[column]
        differ = ~((a == b) | (a.isna() & b.isna()))
        values = (set(a.dropna().tolist()), set(b.dropna().tolist()))
        if differ.any() and not values[0] & values[1] and values[0] and values[1]:
            shown = [", ".join(_shown(v) for v in sorted(x, key=str)[:5]) for x in values]
            raise LoadError(
                f"{names[1]}'s {column!r} holds other values than {names[0]}'s ({shown[1]} "
                f"against {shown[0]}): give both files the same label values."
            )
        if differ.any():
            row = int(differ.to_numpy().argmax())
            raise LoadError(
                f"{names[1]}'s {column!r} differs from {names[0]}'s on {int(differ.sum()):,} "
                f"rows (the first: row {row + 1}, {_shown(a.iloc[row])} against "
                f"{_shown(b.iloc[row])}): "
                "they are not the same rows in the same order. Add an id column to both files "
                "to match them."
            )
    if columns and not shared:
        return f"{names[1]} has no {columns[0]!r} column: its rows are read as {names[0]}'s"
    return ""


def add_model_file(
    frame: pd.DataFrame,
    mapping: ColumnMapping,
    name: str,
    other: pd.DataFrame,
    other_name: str,
) -> tuple[pd.DataFrame, ColumnMapping, list[str]]:
    """(the table with ``other``'s models added, its mapping, notes in words).

    Raises :class:`ui.tables.loading.LoadError` with one sentence when ``other`` does not hold the
    same rows, or holds no scores for the table's layout.
    """
    names = (name, other_name)
    guess = guess_mapping(other)
    if mapping.per_class:
        if not guess.per_class or set(guess.classes) != set(mapping.classes):
            raise LoadError(
                f"{other_name} has no score column per class for {', '.join(mapping.classes)} "
                f"(score_<class>, as {name} has): a multi-class or multi-label model's file "
                "holds one score column per class."
            )
    elif not guess.scores:
        raise LoadError(f"{other_name} has no score column to add as a model.")
    second, how = _aligned(frame, other, mapping, names)
    note = _same_labels(frame, second, mapping, names)
    merged = frame.reset_index(drop=True).copy()
    if mapping.per_class:
        first_models = mapping.class_models or (model_name(name, set()),)
        if not mapping.class_models:  # one unnamed model: name it after its file
            renamed = {c: f"{first_models[0]}__{k}"
                       for c, k in zip(mapping.scores, mapping.classes, strict=True)}  # fmt: skip
            merged = merged.rename(columns=renamed)
            mapping = replace(mapping, scores=tuple(renamed[c] for c in mapping.scores),
                              class_models=first_models)  # fmt: skip
        taken = set(mapping.class_models)
        scores, models, added = list(mapping.scores), list(mapping.class_models), []
        for model in guess.class_models or (None,):
            new = model_name(other_name if model is None else model, taken | set(merged.columns))
            taken.add(new)
            models.append(new)
            added.append(new)
            by_class = dict(zip(guess.classes, guess.class_columns(model), strict=True))
            for k in mapping.classes:
                merged[f"{new}__{k}"] = second[by_class[k]].to_numpy()
                scores.append(f"{new}__{k}")
        mapping = replace(mapping, scores=tuple(scores), class_models=tuple(models))
    else:
        taken = set(merged.columns)
        scores, added = list(mapping.scores), []
        stem = model_name(other_name, set())
        for column in guess.scores:
            wanted = stem if len(guess.scores) == 1 else f"{stem}_{column}"
            new = column if column not in taken else model_name(wanted, taken)
            taken.add(new)
            merged[new] = second[column].to_numpy()
            scores.append(new)
            added.append(new)
        mapping = replace(mapping, scores=tuple(scores))
    notes = [
        f"Added {other_name}'s scores as model{'s' * (len(added) != 1)} "
        f"{', '.join(repr(a) for a in added)} ({how})."
    ]
    if note:
        notes.append(note + ".")
    return merged, mapping, notes

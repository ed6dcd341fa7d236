"""The "Your example" table without Streamlit: pasted text read, the grid's edits applied.

:func:`parse_pasted` reads CSV, TSV (a spreadsheet's copy), semicolon- or space-separated text,
with or without a header; :func:`parse_row_numbers` reads ``3, 5-7``; :func:`apply_edits` gives
the table after an ``st.data_editor``'s edits. The editor that uses them is
:func:`ui.sources.example_source.editor`, drawn wide on the Data page.
"""

from __future__ import annotations

import csv
import math
import re
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ui.tables.checking import MAX_SCORE
from ui.words.numbers import plural

__all__ = [
    "MAX_PASTE",
    "MAX_ROWS",
    "SCORE_NAMES",
    "TICK",
    "PasteError",
    "Pasted",
    "apply_edits",
    "clean",
    "parse_pasted",
    "parse_row_numbers",
]

MAX_ROWS = 500  # links hold up to about 200 rows comfortably; longer tables are refused
SCORE_NAMES = ("model_a", "model_b", "model_c")
MAX_PASTE = 100_000  # characters accepted in the paste box (500 rows of 3 scores fit easily)
TICK = "delete"
_NUMBER = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?")
_DECIMAL_COMMA = re.compile(r"[+-]?\d*,\d+")


class PasteError(ValueError):
    """A pasted table cannot be read; the message says why."""


@dataclass(frozen=True)
class Pasted:
    """A pasted table read by :func:`parse_pasted`: the table (``label`` as Int64, then
    ``model_a``...) and a sentence on how the text was read."""

    table: pd.DataFrame
    note: str


def clean(edited: pd.DataFrame) -> pd.DataFrame:
    """The edited table without rows left entirely empty (a freshly added row, say)."""
    table = edited.reset_index(drop=True)
    return table.loc[~table.isna().all(axis=1)].reset_index(drop=True)


# --- reading pasted text -----------------------------------------------------------------------


def _delimiter(line: str) -> str | None:
    """Tab, semicolon or comma, in that order of preference; None for runs of spaces."""
    for sep in ("\t", ";", ","):
        if sep in line:
            return sep
    return None


def _split(line: str, sep: str | None) -> list[str]:
    if sep is None:
        return line.split()
    return next(csv.reader([line], delimiter=sep, skipinitialspace=True))


def _is_number(cell: str, sep: str | None) -> bool:
    cell = cell.strip()
    return bool(_NUMBER.fullmatch(cell) or (sep != "," and _DECIMAL_COMMA.fullmatch(cell)))


def _number(cell: str, sep: str | None, where: str) -> float:
    cell = cell.strip()
    if not cell:
        return math.nan
    if sep != "," and _DECIMAL_COMMA.fullmatch(cell):
        cell = cell.replace(",", ".")  # a decimal comma, as European spreadsheets copy it
    if not _NUMBER.fullmatch(cell):
        shown = cell if len(cell) <= 20 else cell[:20] + "…"
        raise PasteError(f"{where}: {shown!r} is not a number.")
    value = float(cell)
    if not math.isfinite(value):
        raise PasteError(f"{where}: {cell!r} is too large to be a number here.")
    return value


def parse_pasted(text: str, *, max_rows: int = MAX_ROWS) -> Pasted:
    """Read a table pasted as text: a label column (1 positive, 0 negative) and one to three
    score columns.

    Parameters
    ----------
    text : str
        CSV, TSV (what a spreadsheet copies), semicolon-separated (then ``0,5`` is a decimal
        comma) or space-separated text. Blank lines are skipped; an empty cell is a missing
        value, as in the grid.
    max_rows : int, keyword-only
        The most rows accepted (a link holds up to :data:`ui.sources.example_source.MAX_ROWS`).

    Returns
    -------
    Pasted
        The table, its columns named ``label``, ``model_a``, ``model_b``, ``model_c``, and a
        sentence saying how the text was read.

    Notes
    -----
    The header is optional: a first line with a cell that is not a number is a header. With a
    header, the column named ``label`` (any case) is the label and the others are the models in
    their order; without one, or when no column is named ``label``, the first column is the
    label. Score columns are renamed ``model_a``... because a link holds those names.

    Raises
    ------
    PasteError
        With a sentence naming the line and the column at fault.
    """
    text = str(text).lstrip("\ufeff")
    if len(text) > MAX_PASTE:
        raise PasteError(
            f"The pasted text has {len(text):,} characters; the box takes up to "
            f"{MAX_PASTE:,} (about {MAX_ROWS} rows)."
        )
    lines = [(i + 1, line) for i, line in enumerate(text.splitlines()) if line.strip()]
    if not lines:
        raise PasteError(
            "The box is empty: paste a label column (1 or 0) and one to three score columns."
        )
    sep = _delimiter(lines[0][1])
    try:
        rows = [(n, [c.strip() for c in _split(line, sep)]) for n, line in lines]
    except csv.Error as exc:
        raise PasteError(f"The pasted text cannot be read as a table ({exc}).") from None
    # A trailing separator on every line (some exports write one): a last column empty
    # throughout is not a column.
    while all(len(cells) > 1 and cells[-1] == "" for _, cells in rows):
        for _, cells in rows:
            cells.pop()
    first_line, first = rows[0]
    header = None
    if any(c and not _is_number(c, sep) for c in first):
        header, rows = first, rows[1:]
    width = len(first)
    if not 2 <= width <= 1 + len(SCORE_NAMES):
        what = "header" if header else "first line"
        raise PasteError(
            f"The {what} has {plural(width, 'column')}; the example takes a label column and "
            f"one to {len(SCORE_NAMES)} score columns (2 to {1 + len(SCORE_NAMES)} "
            "columns)."
        )
    if not rows:
        raise PasteError("The pasted text has a header but no rows under it.")
    if len(rows) > max_rows:
        raise PasteError(
            f"The pasted table has {len(rows):,} rows; the example holds up to {max_rows}."
        )
    names = [h.strip() for h in header] if header else []
    lowered = [h.lower() for h in names]
    label_at = lowered.index("label") if "label" in lowered else 0
    order = [label_at] + [j for j in range(width) if j != label_at]
    shown = [repr(names[j]) if names else f"column {j + 1}" for j in range(width)]
    where = [f"column {names[j]!r}" if names else f"column {j + 1}" for j in range(width)]
    values = np.full((len(rows), width), np.nan)
    for i, (n, cells) in enumerate(rows):
        if len(cells) != width:
            raise PasteError(
                f"Line {n} has {plural(len(cells), 'cell')}; the "
                f"{'header' if header else 'first line'} (line {first_line}) has {width}."
            )
        for j, cell in enumerate(cells):
            values[i, j] = _number(cell, sep, f"Line {n}, {where[j]}")
    values = values[:, order]
    kept = ~np.isnan(values).all(axis=1)
    values, line_numbers = values[kept], [n for (n, _), k in zip(rows, kept, strict=True) if k]
    labels = values[:, 0]
    odd = ~np.isnan(labels) & (labels != 0) & (labels != 1)
    if odd.any():
        i = int(np.flatnonzero(odd)[0])
        raise PasteError(
            f"Line {line_numbers[i]}: the label is {labels[i]:g}; labels are 1 (positive) or 0 "
            "(negative)."
        )
    huge = np.abs(values[:, 1:]) > MAX_SCORE
    if huge.any():
        i = int(np.flatnonzero(huge.any(axis=1))[0])
        raise PasteError(
            f"Line {line_numbers[i]} has a score beyond ±{MAX_SCORE:g}, too large to draw."
        )
    columns = ["label", *SCORE_NAMES[: width - 1]]
    table = pd.DataFrame(values, columns=columns)
    table["label"] = pd.array(table["label"], dtype="Int64")
    kind = {"\t": "tab-separated", ";": "semicolon-separated", ",": "comma-separated"}.get(
        sep, "space-separated"
    )
    renamed = ", ".join(
        f"{shown[j]} → {new}" for j, new in zip(order[1:], columns[1:], strict=True)
    )
    note = (
        f"Read {plural(len(table), 'row')} of {kind} text "
        + (f"with a header: {shown[label_at]} is the label, {renamed}." if header else
           f"without a header: column {label_at + 1} is the label, the next "
           f"{plural(width - 1, 'column')} the models.")
    )  # fmt: skip
    return Pasted(table, note)


def parse_row_numbers(text: str, n_rows: int) -> list[int]:
    """Row numbers typed as ``3, 5-7`` (counting from 1) as sorted 0-based positions.

    Raises
    ------
    PasteError
        When a part is not a number or a range, or names a row the table does not have.
    """
    positions: set[int] = set()
    for part in re.split(r"[,;\s]+", str(text).strip()):
        if not part:
            continue
        found = re.fullmatch(r"(\d+)(?:\s*[-–]\s*(\d+))?", part)
        if not found:
            raise PasteError(f"{part!r} is not a row number or a range such as 5-7.")
        low = int(found.group(1))
        high = int(found.group(2) or low)
        if low > high:
            low, high = high, low
        if low < 1 or high > n_rows:
            raise PasteError(
                f"There is no row {high if high > n_rows else low}: the grid has rows 1 to "
                f"{n_rows}."
            )
        positions.update(range(low - 1, high))
    return sorted(positions)


# --- the grid's edits --------------------------------------------------------------------------


def _cell(value, column: str) -> float:
    """A value the grid sent, as a float (NaN for an empty or unreadable cell)."""
    if value is None or (isinstance(value, bool) and column != TICK):
        return math.nan
    try:
        number = float(value)
    except (TypeError, ValueError):
        return math.nan
    return number if math.isfinite(number) else math.nan


def apply_edits(table: pd.DataFrame, ticks: list[bool], edits: dict | None):
    """The grid's table after its edits, and the ``delete`` ticks of its rows.

    Parameters
    ----------
    table : pandas.DataFrame
        The table the grid was drawn from (``label``, then the score columns).
    ticks : list of bool
        The ``delete`` column the grid was drawn with, one per row of ``table``.
    edits : dict or None
        The grid's state: ``edited_rows`` (row position -> column -> value), ``added_rows``
        (column -> value) and ``deleted_rows`` (row positions), as ``st.data_editor`` keeps
        it. Deleted rows go, then added rows come at the end, as the grid shows them.

    Returns
    -------
    tuple of (pandas.DataFrame, list of bool)
    """
    columns = list(table.columns)
    values = table.to_numpy(dtype=float, na_value=np.nan).copy()
    marks = list(ticks) + [False] * (len(table) - len(ticks))
    edits = edits or {}
    for row, change in (edits.get("edited_rows") or {}).items():
        i = int(row)
        if not 0 <= i < len(values):
            continue
        for column, value in change.items():
            if column == TICK:
                marks[i] = bool(value)
            elif column in columns:
                values[i, columns.index(column)] = _cell(value, column)
    gone = {int(i) for i in edits.get("deleted_rows") or []}
    keep = [i for i in range(len(values)) if i not in gone]
    values, marks = values[keep], [marks[i] for i in keep]
    added = edits.get("added_rows") or []
    if added:
        extra = np.array(
            [[_cell(row.get(c), c) for c in columns] for row in added], dtype=float
        ).reshape(len(added), len(columns))
        values = np.vstack([values, extra])
        marks += [bool(row.get(TICK)) for row in added]
    out = pd.DataFrame(values, columns=columns)
    labels = out["label"].to_numpy()
    # The grid keeps labels to 0 or 1; anything else from a client is left empty.
    out["label"] = pd.array(
        np.where(np.isin(labels, (0.0, 1.0)), labels, np.nan), dtype="Float64"
    ).astype("Int64")
    return out, marks

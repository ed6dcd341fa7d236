"""The "Your example" data source: a small score table typed and edited in the app.

The table has a ``label`` column, 1 for positive and 0 for negative, and one to three score
columns, prefilled with an 8-row example; it is edited wide on the Data page
(:mod:`ui.example_editor`). :func:`example_dataset` draws the sidebar's part (the number of
models, a summary, a link to the editor) and returns the table as the same
:class:`ui.tables.dataset.Dataset` an upload gives, prepared by
:func:`ui.tables.checking.prepare` so that ties, equal labels and one-class tables give the upload
messages. The table travels in a link: :func:`encode` packs it into a short URL-safe text
(zlib-compressed CSV in base64url, the numbers written in Python's shortest exact form) and
:func:`decode` gives back exactly the same table.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import logging
import zlib

import numpy as np
import pandas as pd
import streamlit as st
from streamlit.errors import StreamlitAPIException

from ui.tables.checking import MAX_SCORE, prepare
from ui.tables.dataset import Dataset
from ui.tables.example_table import (
    MAX_ROWS,
    SCORE_NAMES,
    TICK,
    PasteError,
    apply_edits,
    clean,
    parse_pasted,
    parse_row_numbers,
)
from ui.tables.loading import ColumnMapping
from ui.words.numbers import plural

_LOGGER = logging.getLogger(__name__)

__all__ = [
    "DEFAULT",
    "MAX_ROWS",
    "QUERY_KEY",
    "ExampleError",
    "clean",
    "decode",
    "editor",
    "encode",
    "example_dataset",
    "read_link",
    "to_csv",
]

QUERY_KEY = "example"
MAX_LINK = 8_000  # characters of the encoded table accepted from a URL
VERSION = "1"
MESSAGE_KEY = "example_message"
TICKS_KEY = "example_ticked"

# Eight rows with a tie between a positive and a negative at 0.62: every step of the
# threshold, a diagonal on the ROC and a half pair in the AUC.
DEFAULT = pd.DataFrame(
    {
        "label": [1, 1, 0, 1, 0, 1, 0, 0],
        "model_a": [0.9, 0.8, 0.7, 0.62, 0.62, 0.4, 0.3, 0.1],
        "model_b": [0.65, 0.3, 0.85, 0.7, 0.2, 0.55, 0.5, 0.15],
    }
)


class ExampleError(ValueError):
    """A link's table cannot be read; the message says why."""


def _number(x: float) -> str:
    if pd.isna(x):
        return ""
    x = float(x)
    return str(int(x)) if x.is_integer() and abs(x) < 1e15 else repr(x)


def to_csv(table: pd.DataFrame) -> str:
    """The table as plain CSV text (header, then one line per row; empty cells stay empty)."""
    lines = [",".join(str(c) for c in table.columns)]
    for row in table.itertuples(index=False):
        lines.append(",".join(_number(v) for v in row))
    return "\n".join(lines) + "\n"


def encode(table: pd.DataFrame) -> str:
    """A URL-safe text holding the table exactly (``1.`` + base64url of zlib-compressed CSV)."""
    packed = zlib.compress(to_csv(table).encode(), 9)
    return VERSION + "." + base64.urlsafe_b64encode(packed).decode().rstrip("=")


def decode(text: str) -> pd.DataFrame:
    """The table :func:`encode` packed. Raises :class:`ExampleError` on anything else."""
    version, _, body = str(text).partition(".")
    if version != VERSION or not body:
        raise ExampleError("The link's example is not in a format this version can read.")
    if len(text) > MAX_LINK:
        raise ExampleError(f"The link's example is longer than {MAX_LINK:,} characters.")
    try:
        raw = base64.b64decode(body + "=" * (-len(body) % 4), altchars=b"-_", validate=True)
        # Bound the decompressed size: a short link must not expand into a huge table.
        inflater = zlib.decompressobj()
        csv = inflater.decompress(raw, 200_000)
        if inflater.unconsumed_tail:
            raise ExampleError("The link's example is too large.")
        if not inflater.eof:
            raise ExampleError("The link's example is damaged (it may have been cut short).")
        csv_text = csv.decode()
    except (binascii.Error, zlib.error, UnicodeDecodeError, ValueError) as exc:
        if isinstance(exc, ExampleError):
            raise
        raise ExampleError("The link's example is damaged (it may have been cut short).") from None
    header, *rows = csv_text.strip("\n").split("\n")
    columns = header.split(",")
    if (
        columns[0] != "label"
        or not 2 <= len(columns) <= 1 + len(SCORE_NAMES)
        or columns[1:] != list(SCORE_NAMES[: len(columns) - 1])
    ):
        raise ExampleError("The link's example has unexpected columns.")
    if len(rows) > MAX_ROWS:
        raise ExampleError(f"The link's example has more than {MAX_ROWS} rows.")
    values = np.full((len(rows), len(columns)), np.nan)
    for i, line in enumerate(rows):
        cells = line.split(",")
        if len(cells) != len(columns):
            raise ExampleError(f"Row {i + 1} of the link's example has the wrong length.")
        for j, cell in enumerate(cells):
            if cell:
                try:
                    values[i, j] = float(cell)
                except ValueError:
                    raise ExampleError(
                        f"Row {i + 1} of the link's example is not numbers."
                    ) from None
    values = values[~np.isnan(values).all(axis=1)]  # rows left empty, as the editor drops them
    if not len(values):
        raise ExampleError("The link's example has no rows.")
    if not np.isfinite(values[~np.isnan(values)]).all():
        raise ExampleError("The link's example holds infinite numbers.")
    labels = values[:, 0]
    odd = ~np.isnan(labels) & (labels != 0) & (labels != 1)
    if odd.any():
        i = int(np.flatnonzero(odd)[0])
        raise ExampleError(
            f"Row {i + 1} of the link's example has the label {labels[i]:g}; labels are 1 "
            "(positive) or 0 (negative)."
        )
    huge = np.abs(values[:, 1:]) > MAX_SCORE
    if huge.any():
        i = int(np.flatnonzero(huge.any(axis=1))[0])
        raise ExampleError(
            f"Row {i + 1} of the link's example has a score beyond ±{MAX_SCORE:g}, too large "
            "to draw."
        )
    table = pd.DataFrame(values, columns=columns)
    table["label"] = table["label"].astype("Int64")
    return table


def read_link(query_value: str | None) -> pd.DataFrame | None:
    """The table in a link's ``?example=`` value, or None (no value, or one that is damaged:
    then an error is shown and the default example is used)."""
    if not query_value:
        return None
    try:
        return decode(query_value)
    except ExampleError as exc:
        st.error(str(exc) + " Showing the default example instead.")
    except Exception:  # a case decode does not know yet: still a sentence, never a traceback
        _LOGGER.warning("example link could not be read", exc_info=True)
        st.error("The link's example cannot be read. Showing the default example instead.")
    return None


def _set_base(table: pd.DataFrame) -> None:
    base = table.copy()
    base["label"] = pd.array(base["label"], dtype="Int64")
    st.session_state["example_base"] = base
    st.session_state["example_version"] = st.session_state.get("example_version", 0) + 1
    st.session_state["example_models"] = len(base.columns) - 1


def _models_changed() -> None:
    base = clean(st.session_state["example_base"])
    if st.session_state.get("example_models") is None:  # deselected: keep the columns
        st.session_state["example_models"] = len(base.columns) - 1
        return
    n = int(st.session_state["example_models"])
    table = base[["label"]].copy()
    for i, name in enumerate(SCORE_NAMES[:n]):
        if name in base.columns:
            table[name] = base[name]
        else:  # a new model: start from the first one's scores, to be edited
            table[name] = base[SCORE_NAMES[0]] if i else np.nan
    _set_base(table)


def _reset() -> None:
    _set_base(DEFAULT)


def _edit_link() -> None:
    """A link to the Data page, where the table is edited (a caption where the app has no
    such page, as in a test of this source alone).

    The link is given the page itself, not its path: a path is looked up among the pages
    ``st.navigation`` registered, which the sidebar runs before on a session's first run."""
    try:
        page = st.Page("pages/data.py", title="Data")
        st.page_link(
            page,
            label="Edit the rows",
            icon=":material/edit_note:",
            help="The Data page has the table: edit cells, add or delete rows, paste CSV/TSV.",
        )
    except StreamlitAPIException:
        st.caption("Edit the rows on the Data page.")


def example_dataset() -> Dataset:
    """Draw the example's sidebar part in the current container; return the table as a Dataset.

    The sidebar holds the number of models, a short summary, a link to the Data page (where
    :func:`ui.example_editor.draw` edits the rows), the CSV and link to copy, and a reset. On a
    session's first call, a link's ``?example=`` table (see :func:`encode`) replaces the
    default. State keys: ``example_base`` (the editor's table, perhaps with empty rows added),
    ``example_version`` (bumped when it is replaced), ``example_models`` (number of score
    columns), ``example_current`` (the table every page uses: ``example_base`` without its
    empty rows), ``example_editor_<version>`` (the editor on the Data page).
    """
    if "example_base" not in st.session_state:
        linked = read_link(st.query_params.get(QUERY_KEY))
        _set_base(DEFAULT if linked is None else linked)
    st.segmented_control(
        "Models (score columns)", [1, 2, 3], key="example_models", on_change=_models_changed,
        help="One score column per model.",
    )  # fmt: skip
    table = clean(st.session_state["example_base"])
    st.session_state["example_current"] = table
    labels = table["label"]
    st.caption(
        f"{plural(int((labels == 1).sum()), 'positive')}, "
        f"{plural(int((labels == 0).sum()), 'negative')}"
        + (f", {plural(int(labels.isna().sum()), 'row')} without a label" if labels.isna().any()
           else "")
        + f"; {plural(len(table.columns) - 1, 'model')}."
    )  # fmt: skip
    _edit_link()
    too_long = len(table) > MAX_ROWS
    if too_long:
        st.warning(f"Links hold up to {MAX_ROWS} rows; this table has {len(table):,}.")
    with st.popover("Copy as CSV or link", icon=":material/share:", width="stretch"):
        st.caption("CSV (the copy button is at the top right of the box):")
        st.code(to_csv(table), language=None)
        if not too_long:
            query = f"?{QUERY_KEY}={encode(table)}"
            base_url = str(getattr(st.context, "url", "") or "").split("?")[0]
            st.caption("A link that opens exactly this table:")
            st.code(base_url + query, language=None, wrap_lines=True)
    st.button("Back to the first example", key="example_reset", on_click=_reset)
    mapping = ColumnMapping(label="label", scores=tuple(table.columns[1:]), pos_label=1)
    digest = hashlib.sha1(encode(table).encode()).hexdigest()[:12]
    frame = table.copy()
    return Dataset(
        source_id=f"example:{digest}",
        name="Your example",
        frame=frame,
        mapping=mapping,
        prepared=prepare(frame, mapping),
        description=f"A table typed in the app: {len(frame)} rows.",
        positive_name="label = 1",
        negative_name="label = 0",
    )


# --- the editor on the Data page ----------------------------------------------------------------


def _editor_key() -> str:
    return f"example_editor_{st.session_state['example_version']}"


def _ticks() -> list[bool]:
    saved = st.session_state.get(TICKS_KEY)
    base = st.session_state["example_base"]
    if not saved or saved[0] != st.session_state["example_version"]:
        return [False] * len(base)
    return list(saved[1])


def _edited():
    base = st.session_state["example_base"]
    return apply_edits(base, _ticks(), st.session_state.get(_editor_key()))


def _store(table: pd.DataFrame, ticks: list[bool] | None = None) -> None:
    """Make ``table`` the grid's table (and, without its empty rows, the applied one)."""
    models = len(table.columns) - 1
    _set_base(table)
    st.session_state[TICKS_KEY] = (
        st.session_state["example_version"],
        list(ticks) if ticks is not None else [False] * len(table),
    )
    st.session_state["example_models"] = models


def _say(where: str, level: str, text: str) -> None:
    st.session_state[MESSAGE_KEY] = (where, level, text)


def _applied_note(table: pd.DataFrame) -> str:
    n = len(clean(table))
    return f"{plural(n, 'row')} in the table" + (
        f" ({plural(len(table) - n, 'empty row')} left out until filled)."
        if len(table) > n
        else "."
    )


def _apply() -> None:
    table, ticks = _edited()
    _store(table, ticks)
    _say("grid", "success", "Applied: " + _applied_note(table))


def _add() -> None:
    table, ticks = _edited()
    n = int(st.session_state.get("example_add_n") or 1)
    room = max(MAX_ROWS - len(table), 0)
    n = min(n, room)
    if n == 0:
        _store(table, ticks)
        _say("grid", "error", f"The example holds up to {MAX_ROWS} rows.")
        return
    blank = pd.DataFrame(np.nan, index=range(n), columns=table.columns)
    grown = pd.concat([table.astype(float), blank], ignore_index=True)
    grown["label"] = pd.array(grown["label"], dtype="Float64").astype("Int64")
    _store(grown, ticks + [False] * n)
    _say("grid", "success", f"Added {plural(n, 'empty row')} at the end; fill them and Apply.")


def _delete() -> None:
    table, ticks = _edited()
    typed = st.session_state.get("example_delete_rows") or ""
    try:
        numbered = parse_row_numbers(typed, len(table))
    except PasteError as exc:
        _store(table, ticks)  # the edits typed so far are applied all the same
        _say("grid", "error", f"{exc} Nothing was deleted.")
        return
    gone = sorted(set(numbered) | {i for i, t in enumerate(ticks) if t})
    if not gone:
        _store(table, ticks)
        _say(
            "grid",
            "warning",
            "No row chosen: tick rows in the 'delete' column or type row numbers, then Delete.",
        )
        return
    if len(gone) == len(table):
        _store(table, ticks)
        _say("grid", "error", "That would delete every row; a table needs at least one.")
        return
    keep = [i for i in range(len(table)) if i not in set(gone)]
    _store(table.iloc[keep].reset_index(drop=True), [False] * len(keep))
    st.session_state["example_delete_rows"] = ""
    rows = ", ".join(str(i + 1) for i in gone[:12]) + ("…" if len(gone) > 12 else "")
    _say("grid", "success", f"Deleted {plural(len(gone), 'row')} ({rows}).")


def _load() -> None:
    text = st.session_state.get("example_paste") or ""
    append = st.session_state.get("example_paste_mode") == "Add below"
    table, _ = _edited()
    room = MAX_ROWS - len(clean(table)) if append else MAX_ROWS
    try:
        pasted = parse_pasted(text, max_rows=max(room, 0))
        if append and len(pasted.table.columns) != len(table.columns):
            raise PasteError(
                f"The pasted rows have {plural(len(pasted.table.columns) - 1, 'score column')}; "
                f"the table has {len(table.columns) - 1}. Paste as many, or choose 'Replace "
                "the table'."
            )
    except PasteError as exc:
        # Nothing is lost: the grid's edits are kept in the grid, the text stays in the box.
        _say("paste", "error", f"{exc} The table is unchanged.")
        return
    if append:
        kept = clean(table)
        merged = pd.concat([kept.astype(float), pasted.table.astype(float)], ignore_index=True)
        merged["label"] = pd.array(merged["label"], dtype="Float64").astype("Int64")
        _store(merged)
        note = pasted.note + f" Added below the {plural(len(kept), 'row')} already there."
    else:
        _store(pasted.table)
        note = pasted.note
    st.session_state["example_paste"] = ""
    _say("paste", "success", note)


# --- the page's part ---------------------------------------------------------------------------


def _message(where: str) -> None:
    shown = st.session_state.get(MESSAGE_KEY)
    if shown and shown[0] == where:
        getattr(st, shown[1])(shown[2])


def editor() -> None:
    """Draw the table's editor, wide, in the current container (the Data page's main area).

    One form holds the grid, its buttons and a box to paste a table into, so typing in cells
    never reruns the app. Every button applies the edits typed so far, then does its own work
    (nothing typed is lost by adding or deleting rows); the callbacks run before the next
    script run, so the sidebar and every page already see the result:

    * **Apply edits**: the grid's edits become the table every page computes on (and the link).
    * **Add rows**: that many empty rows at the end (left out of the table until filled).
    * **Delete rows**: the rows ticked in the grid's ``delete`` column and the row numbers
      typed next to the button (``3, 5-7``).
    * **Load the pasted table**: see :func:`ui.tables.example_table.parse_pasted`; a bad paste says
      why and changes nothing (the text stays in the box, the grid keeps its edits).

    State keys: ``example_editor_<version>`` (the grid), ``example_ticked`` (the ``delete``
    ticks kept across an Apply), ``example_add_n``, ``example_delete_rows``,
    ``example_paste``, ``example_paste_mode`` and ``example_message`` (the last action's
    message, shown once).
    """
    base = st.session_state["example_base"]
    ticks = _ticks()
    grid = base.copy()
    grid[TICK] = np.array(ticks, dtype=bool)
    grid.index = pd.RangeIndex(1, len(grid) + 1, name="row")
    st.subheader("Edit the rows")
    st.caption(
        "Type in the cells (Enter or Tab moves on; nothing reruns while you type), then "
        "**Apply edits**: every page and the link follow the applied table. Each button below "
        "applies the edits typed so far first. The number of models is set in the sidebar."
    )
    with st.form("example_form", enter_to_submit=False, border=True):
        st.data_editor(
            grid,
            key=_editor_key(),
            num_rows="dynamic",
            hide_index=False,
            width="stretch",
            height=min(35 * (len(grid) + 2) + 3, 35 * 14 + 3),
            column_config={
                "_index": st.column_config.NumberColumn("row", width=64),
                "label": st.column_config.NumberColumn(
                    "label",
                    help="1 = positive, 0 = negative",
                    min_value=0,
                    max_value=1,
                    step=1,
                    width=96,
                ),
                **{
                    name: st.column_config.NumberColumn(
                        name, help="the model's score", format="%g", width=150
                    )
                    for name in SCORE_NAMES
                },
                TICK: st.column_config.CheckboxColumn(
                    TICK, help="Tick, then 'Delete rows'.", width=80
                ),
            },
        )
        with st.container(horizontal=True, vertical_alignment="bottom", gap="small"):
            st.form_submit_button(
                "Apply edits", key="example_apply", type="primary", on_click=_apply,
                icon=":material/check:",
            )  # fmt: skip
            st.space("small")
            st.number_input(
                "Rows to add", min_value=1, max_value=MAX_ROWS, value=1, step=1,
                key="example_add_n", width=110,
            )  # fmt: skip
            st.form_submit_button(
                "Add rows", key="example_add", on_click=_add, icon=":material/add:"
            )
            st.space("small")
            st.text_input(
                "Delete rows: ticked, and these",
                key="example_delete_rows",
                placeholder="e.g. 3, 5-7",
                width=190,
            )
            st.form_submit_button(
                "Delete rows", key="example_delete", on_click=_delete,
                icon=":material/delete:",
            )  # fmt: skip
        _message("grid")
        paste, side = st.columns([2, 1], gap="medium")
        paste.text_area(
            "Or paste a table: CSV, or cells copied from a spreadsheet",
            key="example_paste",
            height=150,
            placeholder="label,model_a,model_b\n1,0.9,0.65\n0,0.7,0.85\n…",
        )
        with side:
            st.segmented_control(
                "Pasted rows",
                ["Replace the table", "Add below"],
                default="Replace the table",
                key="example_paste_mode",
            )
            st.form_submit_button(
                "Load the pasted table", key="example_load", on_click=_load,
                icon=":material/content_paste:",
            )  # fmt: skip
            st.caption(
                "A label column (1 or 0) and one to three score columns, separated by commas, "
                "tabs, semicolons or spaces. The header is optional: with one, the column "
                "named 'label' is the label; without, the first column."
            )
        _message("paste")
    st.session_state.pop(MESSAGE_KEY, None)  # a message is shown once
    table = st.session_state["example_current"]
    if len(table) <= MAX_ROWS:
        base_url = str(getattr(st.context, "url", "") or "").split("?")[0]
        st.caption("The link to this table (the address bar holds it too):")
        st.code(f"{base_url}?{QUERY_KEY}={encode(table)}", language=None, wrap_lines=True)

"""The "Your example" data source: a small score table typed and edited in the app.

:func:`example_dataset` draws an ``st.data_editor`` (a ``label`` column, 1 for positive and 0
for negative, and one to three score columns), prefilled with an 8-row example, and returns the
table as the same :class:`ui.data.Dataset` an upload gives, prepared by
:func:`ui.loading.prepare` so that ties, equal labels and one-class tables give the upload
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

from ui.data import Dataset
from ui.loading import MAX_SCORE, ColumnMapping, prepare

_LOGGER = logging.getLogger(__name__)

__all__ = [
    "DEFAULT",
    "MAX_ROWS",
    "QUERY_KEY",
    "ExampleError",
    "decode",
    "encode",
    "example_dataset",
    "read_link",
    "to_csv",
]

QUERY_KEY = "example"
MAX_ROWS = 500  # links hold up to about 200 rows comfortably; longer tables are refused
MAX_LINK = 8_000  # characters of the encoded table accepted from a URL
SCORE_NAMES = ("model_a", "model_b", "model_c")
VERSION = "1"

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


def _clean(edited: pd.DataFrame) -> pd.DataFrame:
    """The edited table without rows left entirely empty (a freshly added row, say)."""
    table = edited.reset_index(drop=True)
    return table.loc[~table.isna().all(axis=1)].reset_index(drop=True)


def _set_base(table: pd.DataFrame) -> None:
    base = table.copy()
    base["label"] = pd.array(base["label"], dtype="Int64")
    st.session_state["example_base"] = base
    st.session_state["example_version"] = st.session_state.get("example_version", 0) + 1
    st.session_state["example_models"] = len(base.columns) - 1


def _models_changed() -> None:
    base = st.session_state["example_current"]
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


def example_dataset() -> Dataset:
    """Draw the example editor in the current container and return the table as a Dataset.

    On a session's first call, a link's ``?example=`` table (see :func:`encode`) replaces the
    default. State keys: ``example_base`` (the table the editor starts from),
    ``example_version`` (bumped when it is replaced), ``example_models`` (number of score
    columns), ``example_current`` (the edited table), ``example_editor_<version>`` (the editor).
    """
    if "example_base" not in st.session_state:
        linked = read_link(st.query_params.get(QUERY_KEY))
        _set_base(DEFAULT if linked is None else linked)
    st.segmented_control(
        "Models (score columns)", [1, 2, 3], key="example_models", on_change=_models_changed,
        help="One score column per model.",
    )  # fmt: skip
    base = st.session_state["example_base"]
    edited = st.data_editor(
        base,
        key=f"example_editor_{st.session_state['example_version']}",
        num_rows="dynamic",
        hide_index=True,
        width="stretch",
        column_config={
            # Narrow columns, so the label and two models fit the sidebar's width.
            "label": st.column_config.NumberColumn(
                "label",
                help="1 = positive, 0 = negative",
                min_value=0,
                max_value=1,
                step=1,
                width=56,
            ),
            **{
                name: st.column_config.NumberColumn(
                    name, help="the model's score", format="%g", width=72
                )
                for name in SCORE_NAMES
            },
        },
    )
    table = _clean(edited)
    st.session_state["example_current"] = table
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

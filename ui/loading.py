"""Reading uploaded score tables and guessing how their columns map onto a problem.

Pure pandas, no Streamlit: every problem is a :class:`LoadError` (the file cannot be used) or a
:class:`Problem` (the data can be used once the user decides something), each with a message
that names the column, how many rows, example rows, and what to do. Row numbers in messages
count data rows from 1, as a spreadsheet shows them below the header.

Nothing here writes to disk or evaluates anything: bytes in, a DataFrame out.
"""

from __future__ import annotations

import contextlib
import csv
import io
import os
import re
import stat
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from ui.numbers import plural

__all__ = [
    "ColumnMapping",
    "LoadError",
    "Prepared",
    "Problem",
    "guess_mapping",
    "mapping_with",
    "prepare",
    "read_path",
    "read_table",
    "regular_file",
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


# --- reading ----------------------------------------------------------------------------------


GZIP_MAGIC = b"\x1f\x8b"
_IN_CHUNK = 1 << 16  # compressed bytes fed to the inflater at a time
_OUT_CHUNK = 1 << 23  # most decompressed bytes one inflater call may return


def _too_large(name: str, limit: int) -> LoadError:
    from ui.budget import MB, upload_cap_bytes

    cap = upload_cap_bytes()
    return TooLarge(
        f"{name} decompresses to more than {limit / MB:,.0f} MB, the most this server reads "
        "from a compressed file (set by its memory budget, METRICS_LENS_BUDGET_MB, and its "
        "upload limit), so it was not read. Upload a smaller table, or the file uncompressed "
        f"(uploads of up to {cap / MB:,.0f} MB are taken)."
    )


def _gunzip(name: str, data: bytes, limit: int) -> bytes:
    """Every gzip member of ``data``, decompressed in a stream that stops past ``limit`` bytes.

    Never holds more than ``limit`` bytes of output (plus one inflater call's ``_OUT_CHUNK``),
    so a small file that expands to gigabytes (a gzip bomb) is refused at the limit instead of
    taking the server's memory."""
    out = io.BytesIO()
    view = memoryview(data)
    start = 0  # where the current member begins
    while True:
        inflater = zlib.decompressobj(wbits=16 + zlib.MAX_WBITS)
        pos = start
        while not inflater.eof:
            if inflater.unconsumed_tail:
                chunk = inflater.unconsumed_tail
            elif pos < len(view):
                chunk = view[pos : pos + _IN_CHUNK]
                pos += len(chunk)
            else:
                raise EOFError("the compressed data ends before its end marker")
            room = limit + 1 - out.tell()  # one byte past the limit tells a file that is over
            out.write(inflater.decompress(chunk, min(room, _OUT_CHUNK)))
            if out.tell() > limit:
                raise _too_large(name, limit)
        start = pos - len(inflater.unused_data)  # the unused bytes end where feeding stopped
        if data[start : start + 2] == GZIP_MAGIC:
            continue  # another member (concatenated gzip files)
        if data[start:].strip(b"\x00"):  # gzip allows zero padding after the last member
            raise zlib.error("data after the end of the compressed stream")
        return out.getvalue()


MAX_COLUMNS = 1_000  # a score table has a label, a few ids and scores; features belong elsewhere
MAX_HEADER_CHARS = 100_000  # characters of a text table's header row (1,000 names of 100)


def _check_width(name: str, n_columns: int) -> None:
    """Refuse a table of very many columns before parsing it: every rerun of every page works
    per column, and a shared server must answer within seconds."""
    if n_columns > MAX_COLUMNS:
        raise LoadError(
            f"{name} has {n_columns:,} columns; the dashboard reads at most {MAX_COLUMNS:,}. "
            "Upload only the columns it needs: the label, the score column of each model and, "
            "if any, the user/query id, the sample weight and a few slice columns (for "
            "example df[['label', 'model_a', 'model_b']].to_csv(...))."
        )


_FIXED_BYTES = 8  # a row of a number, date or boolean column, or a text cell's pointer


def _leaves(t) -> int:
    """Parquet leaf columns of one Arrow field's type (a struct has one per field, and so on)."""
    import pyarrow as pa

    if pa.types.is_struct(t):
        return sum(_leaves(t.field(i).type) for i in range(t.num_fields)) or 1
    if pa.types.is_map(t):
        return _leaves(t.key_type) + _leaves(t.item_type)
    if pa.types.is_list(t) or pa.types.is_large_list(t) or pa.types.is_fixed_size_list(t):
        return _leaves(t.value_type)
    return 1


def _is_nested(t) -> bool:
    import pyarrow as pa

    return pa.types.is_nested(t)


def _is_text(t) -> bool:
    import pyarrow as pa

    return any(
        f(t) for f in (pa.types.is_string, pa.types.is_large_string, pa.types.is_binary,
                       pa.types.is_large_binary)
    )  # fmt: skip


def _over(name: str, what: str, limit: int) -> LoadError:
    from ui.budget import MB

    return TooLarge(
        f"{name} {what} more than {limit / MB:,.0f} MB once read, the most read from one file "
        "(a share of the memory budget, METRICS_LENS_BUDGET_MB), so it was not read. Give a "
        "smaller table, or only the columns needed (the label, the scores, an id)."
    )


@dataclass(frozen=True)
class ParquetPlan:
    """What reading a Parquet file takes, from its metadata and its dictionaries, before it is
    read: the plain columns to read, the nested ones left out (with their types), and the bytes
    the plain ones take once decoded (8 a row, and a text cell's characters)."""

    columns: tuple[str, ...]
    nested: tuple[tuple[str, str], ...]
    nbytes: int


def parquet_plan(name: str, data: bytes, limit: int) -> ParquetPlan | None:
    """The :class:`ParquetPlan` of ``data``, or :class:`LoadError` when reading it would take
    more than ``limit`` bytes. None for a file whose metadata cannot be read (the read says why).

    Never decodes what it measures: numbers are counted from the row count; a text column's
    length is the sum, over rows, of the lengths of its dictionary entries (one value repeated
    over a million rows is a few kB on disk and gigabytes decoded); text written without a
    dictionary is bounded by its uncompressed page sizes, and delta-encoded text (which can
    repeat a long prefix for free) is counted in small batches that stop at the limit. Lists,
    structs and maps are never read.
    """
    import pyarrow.compute as pc
    import pyarrow.parquet as pq

    try:
        pf = pq.ParquetFile(io.BytesIO(data))
        meta, schema = pf.metadata, pf.schema_arrow
    except Exception:  # a damaged file: the read below says so
        return None
    _check_width(name, len(schema))
    rows = meta.num_rows
    flat, nested, leaf = [], [], {}
    j = 0
    for f in schema:
        if _is_nested(f.type):
            nested.append((f.name, str(f.type)))
        else:
            flat.append(f)
            leaf[f.name] = j
        j += _leaves(f.type)
    if rows * max(len(flat), 1) * _FIXED_BYTES > limit:
        raise _over(name, f"holds {rows:,} rows of {len(flat):,} columns:", limit)
    total = rows * _FIXED_BYTES * len(flat)
    texts = [f.name for f in flat if _is_text(f.type)]
    if texts:
        # On disk before decoding: catches distinct values that compress to nothing.
        raw = sum(meta.row_group(g).column(leaf[c]).total_uncompressed_size
                  for g in range(meta.num_row_groups) for c in texts)  # fmt: skip
        if total + raw > limit:
            raise _over(name, f"holds {raw / 1e6:,.0f} MB of text uncompressed:", limit)
        dictionaries = pq.ParquetFile(io.BytesIO(data), read_dictionary=texts)
        for g in range(meta.num_row_groups):
            for c in texts:
                chunk = meta.row_group(g).column(leaf[c])
                if "DELTA_BYTE_ARRAY" in chunk.encodings:
                    total += _streamed_length(pf, g, c, limit - total)
                else:
                    column = dictionaries.read_row_group(g, columns=[c]).column(0)
                    for piece in column.chunks:
                        lengths = pc.binary_length(piece.dictionary)
                        total += int(pc.sum(pc.take(lengths, piece.indices)).as_py() or 0)
                if total > limit:
                    raise _over(name, f"has a text column, {c!r}, that decodes to", limit)
    return ParquetPlan(tuple(f.name for f in flat), tuple(nested), int(total))


def _streamed_length(pf, group: int, column: str, room: int) -> int:
    """Characters of one delta-encoded text column chunk, read a few rows at a time and
    stopped as soon as they pass ``room``."""
    import pyarrow.compute as pc

    total = 0
    for batch in pf.iter_batches(batch_size=64, row_groups=[group], columns=[column]):
        total += int(pc.sum(pc.binary_length(batch.column(0))).as_py() or 0)
        if total > room:
            break
    return total


def _decompress(name: str, data: bytes, limit: int) -> bytes:
    if data[:2] == GZIP_MAGIC:
        try:
            return _gunzip(name, data, limit)
        except (OSError, EOFError, zlib.error) as exc:
            raise LoadError(
                f"{name} looks gzip-compressed but cannot be decompressed ({exc}); the file may be "
                "truncated. Upload it again, or upload the uncompressed CSV."
            ) from None
    if name.lower().endswith(".gz"):
        raise LoadError(
            f"{name} is named .gz but is not gzip-compressed. Rename it to .csv if it is a plain "
            "CSV, or compress it with gzip."
        )
    return data


HEAD_BYTES = 1 << 20  # the start of a text file, decoded to sniff its delimiter and header
LATIN_1_NOTE = "{name} is not valid UTF-8; it was read as Latin-1 (Western European)."


def _decode_head(name: str, data: bytes, notes: list[str]) -> tuple[str, str]:
    """(the first ``HEAD_BYTES`` of ``data`` as text, the encoding to read all of it with).

    Only the head is decoded: the parser reads the bytes itself, so a large upload is not held
    as text too (a Python copy, and four bytes a character inside a StringIO)."""
    if b"\x00" in data[:65536]:
        raise LoadError(
            f"{name} is not a text table (it contains binary data). Upload a CSV, TSV, "
            "gzip-compressed CSV or Parquet file."
        )
    head = data[:HEAD_BYTES]
    try:
        return head.decode("utf-8-sig"), "utf-8-sig"  # also drops a UTF-8 byte-order mark
    except UnicodeDecodeError as exc:
        if len(head) < len(data) and exc.start >= len(head) - 3:  # a character cut at the end
            return head[: exc.start].decode("utf-8-sig"), "utf-8-sig"
        notes.append(LATIN_1_NOTE.format(name=name))
        return head.decode("latin-1"), "latin-1"


def _read_csv(
    name: str, data: bytes, encoding: str, delimiter: str, decimal: str, notes: list[str]
) -> pd.DataFrame:
    """The table from the raw bytes; Latin-1 when UTF-8 fails past the decoded head."""
    read = dict(sep=delimiter, decimal=decimal, header=0, dtype_backend="numpy_nullable")
    try:
        return pd.read_csv(io.BytesIO(data), encoding=encoding, **read)
    except UnicodeDecodeError:
        notes.append(LATIN_1_NOTE.format(name=name))
        return pd.read_csv(io.BytesIO(data), encoding="latin-1", **read)


def _sniff_delimiter(text: str) -> str:
    sample = "\n".join(text.splitlines()[:50])
    try:
        return csv.Sniffer().sniff(sample, delimiters="".join(DELIMITERS)).delimiter
    except csv.Error:
        header = sample.splitlines()[0] if sample else ""
        return max(DELIMITERS, key=header.count)


def _dedupe_columns(columns: list[str], notes: list[str]) -> list[str]:
    seen: dict[str, int] = {}
    out = []
    for i, col in enumerate(columns):
        col = str(col).strip() or f"column_{i + 1}"
        if len(col) > MAX_NAME:
            notes.append(
                f"A column name of {len(col):,} characters was shortened to its first "
                f"{MAX_NAME} characters."
            )
            col = col[:MAX_NAME] + "…"
        if col in seen:
            seen[col] += 1
            renamed = f"{col}.{seen[col]}"
            notes.append(
                f"Column name {col!r} appears more than once; the copy is named {renamed!r}."
            )
            col = renamed
        else:
            seen[col] = 0
        out.append(col)
    return out


def _nested_left_out(frame: pd.DataFrame, nested, notes: list[str]) -> None:
    """Parquet's list, struct and map columns, never read: each cell says the column's type,
    the frame's attrs mark them (they take no role), and a note says so. Expanding them took
    minutes and gigabytes for a few kB on disk (50,000 elements a row)."""
    from ui.roles import NESTED_ATTR

    for col, kind in nested:
        frame[col] = pd.Series(f"({kind}, not read)", index=frame.index, dtype=object)
    if nested:
        names = [c for c, _ in nested]
        frame.attrs[NESTED_ATTR] = tuple(names)
        notes.append(
            f"{plural(len(names), 'column')} of lists or structs ("
            + ", ".join(repr(c) for c in names[:MAX_LISTED])
            + (", ..." if len(names) > MAX_LISTED else "")
            + ") cannot be a label, score, group or weight; not read, ignored."
        )


def _no_lane(nbytes: int):
    return contextlib.nullcontext()


def read_table(
    name: str,
    data: bytes,
    *,
    max_bytes: int | None = None,
    lane: Callable[[int], contextlib.AbstractContextManager] = _no_lane,
) -> tuple[pd.DataFrame, list[str]]:
    """Parse an uploaded file: (table, notes). Raises :class:`LoadError` when it cannot.

    CSV, TSV, semicolon- or pipe-separated text (the delimiter is detected), any of them
    gzip-compressed, and Parquet. Notes say what was assumed (an encoding, a renamed column).

    ``max_bytes`` bounds what a compressed file may expand to (and a Parquet file's arrays);
    by default :func:`ui.budget.decompressed_limit`, from the memory budget and the upload
    limit. Inside a Streamlit run, room is made in the budget for the decompressed size
    before the parse (the caller made it for the compressed file only).

    ``lane(nbytes)`` is entered around the parse itself, once the checks know what it will
    take (the decompressed text, or a Parquet file's decoded columns): the server's
    :func:`ui.budget.parsing` lets a small table pass while a large one is being read.
    """
    from ui import budget

    notes: list[str] = []
    if not data:
        raise LoadError(f"{name} is empty. Upload a table with a header row and data rows.")
    limit = budget.decompressed_limit() if max_bytes is None else int(max_bytes)
    compressed = data[:2] == GZIP_MAGIC
    data = _decompress(name, data, limit)
    if compressed:
        budget.make_room_in_run(len(data))
    if data[:4] == b"PAR1":
        plan = parquet_plan(name, data, limit)
        if plan is not None and not plan.columns:
            raise LoadError(
                f"{name} holds only lists, structs or maps ("
                + ", ".join(f"{c}: {t}" for c, t in plan.nested[:MAX_LISTED])
                + "); a score table needs a label and scores of one value per row."
            )
        try:
            with lane(plan.nbytes if plan is not None else len(data)):
                frame = pd.read_parquet(
                    io.BytesIO(data), columns=list(plan.columns) if plan is not None else None
                )
        except Exception as exc:  # pyarrow raises several types for a damaged file
            raise LoadError(f"{name} looks like Parquet but cannot be read: {exc}") from None
        frame.columns = _dedupe_columns([str(c) for c in frame.columns], notes)
        _nested_left_out(frame, plan.nested if plan is not None else (), notes)
    else:
        text, encoding = _decode_head(name, data, notes)
        if not text.strip() and (len(data) <= HEAD_BYTES or data[HEAD_BYTES:].isspace()):
            raise LoadError(
                f"{name} has no content. Upload a table with a header row and data rows."
            )
        first = next((line for line in text.splitlines() if line.strip()), "")
        if len(first) > MAX_HEADER_CHARS:
            raise LoadError(
                f"{name} has a header row of {len(first):,} characters or more; at most "
                f"{MAX_HEADER_CHARS:,} are read. Give the columns short names."
            )
        # Before sniffing, which is slow on very long lines: the widest reading of the header.
        _check_width(name, max(len(next(csv.reader([first], delimiter=d), [])) for d in DELIMITERS))
        delimiter = _sniff_delimiter(text)
        # Semicolon-separated files usually come from locales that write 0,5 for 0.5.
        decimal = "," if delimiter == ";" and re.search(r"\d,\d", text[:65536]) else "."
        if decimal == ",":
            notes.append(f"{name} is semicolon-separated with decimal commas (0,5 read as 0.5).")
        try:
            with lane(len(data)):
                frame = _read_csv(name, data, encoding, delimiter, decimal, notes)
        except pd.errors.ParserError as exc:
            match = re.search(r"Expected (\d+) fields in line (\d+), saw (\d+)", str(exc))
            detail = (
                f"line {match.group(2)} has {match.group(3)} fields but the header has "
                f"{match.group(1)}"
                if match
                else str(exc)
            )
            raise LoadError(
                f"{name} has rows of different lengths: {detail}. Check for unquoted "
                f"{'commas' if delimiter == ',' else 'separators'} inside values."
            ) from None
        except pd.errors.EmptyDataError:
            raise LoadError(f"{name} has no header row. Upload a table with a header.") from None
        # pandas skips blank lines before the header; so does this re-read of the raw names.
        first = next((line for line in text.splitlines() if line.strip()), "")
        header = next(csv.reader([first], delimiter=delimiter), [])
        frame.columns = _dedupe_columns(
            header if len(header) == frame.shape[1] else list(frame.columns), notes
        )
        if frame.shape[1] == 1 and len(frame):
            raise LoadError(
                f"{name} has a single column ({frame.columns[0]!r}); the separator could not be "
                "detected. Use commas, tabs or semicolons between columns."
            )
    if frame.empty:
        raise LoadError(f"{name} has a header but no data rows.")
    return frame, notes


def regular_file(path: str | os.PathLike) -> os.stat_result:
    """``path``'s status when it is a regular file (a link is followed); :class:`LoadError`
    with a sentence for a missing path, a directory, a device (``/dev/zero`` never ends), a
    named pipe (opening one waits for a writer) or a socket, or a link to any of them."""
    text = os.fspath(path)
    if "\x00" in text:
        raise LoadError(f"{text!r}: a file name cannot hold a NUL character.")
    try:
        status = os.stat(text)
    except FileNotFoundError:
        raise LoadError(f"{text}: no such file.") from None
    except OSError as exc:
        raise LoadError(f"{text} cannot be read: {exc.strerror or exc}.") from None
    if stat.S_ISDIR(status.st_mode):
        raise LoadError(f"{text} is a directory; give a CSV or Parquet file.")
    if not stat.S_ISREG(status.st_mode):
        raise LoadError(
            f"{text} is not a regular file (a device, a named pipe or a socket, or a link to "
            "one); give a CSV or Parquet file."
        )
    return status


def read_path(
    path: str | os.PathLike,
    *,
    max_bytes: int | None = None,
    lane: Callable[[int], contextlib.AbstractContextManager] = _no_lane,
) -> tuple[pd.DataFrame, list[str]]:
    """A table file on disk, read with every check an upload gets: a regular file (never a
    device, pipe or socket), at most ``max_bytes`` on disk and decompressed (default
    :func:`ui.budget.file_limit`, from ``METRICS_LENS_BUDGET_MB``), then :func:`read_table`.
    The name is that file, never a pattern. Raises :class:`LoadError` with one sentence."""
    from ui import budget

    limit = budget.file_limit() if max_bytes is None else int(max_bytes)
    text = os.fspath(path)
    name = os.path.basename(text) or text
    status = regular_file(text)
    if status.st_size > limit:
        raise _file_too_large(name, status.st_size, limit)
    try:
        # O_NONBLOCK: a pipe put in the file's place since the check must not block the open.
        fd = os.open(text, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except OSError as exc:
        raise LoadError(f"{text} cannot be read: {exc.strerror or exc}.") from None
    with os.fdopen(fd, "rb") as f:
        if not stat.S_ISREG(os.fstat(f.fileno()).st_mode):
            raise LoadError(f"{text} is not a regular file; give a CSV or Parquet file.")
        data = f.read(limit + 1)
    if len(data) > limit:  # it grew since the check
        raise _file_too_large(name, len(data), limit)
    return read_table(name, data, max_bytes=limit, lane=lane)


def _file_too_large(name: str, size: int, limit: int) -> LoadError:
    from ui.budget import ENV_VAR, MB

    return TooLarge(
        f"{name} is {size / MB:,.0f} MB, more than the {limit / MB:,.0f} MB read from one file "
        f"(a quarter of the memory budget, {ENV_VAR}): raise {ENV_VAR}, or read it out of core "
        "with metrics-lens sql."
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
    """A first guess at the column roles (see :func:`ui.roles.infer_roles`), for the user to
    correct. Ids, timestamps, constants and categories are never guessed as models."""
    from ui.roles import infer_roles, nested_columns, per_class_layout

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
    from ui.roles import nested_columns

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


def soft_labels(series: pd.Series) -> np.ndarray | None:
    """The label column as shares q in [0, 1] (annotators' votes, a judge's probability), or
    None when it is not one: numeric, no missing value, every value in [0, 1] and at least
    one strictly between (a 0/1 column is a hard label)."""
    if not _numeric(series) or pd.api.types.is_bool_dtype(series) or series.isna().any():
        return None
    q = series.to_numpy(dtype=np.float64)
    if not q.size or not np.isfinite(q).all() or q.min() < 0 or q.max() > 1:
        return None
    return q if ((q > 0) & (q < 1)).any() else None


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
    from ui.roles import nested_columns

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

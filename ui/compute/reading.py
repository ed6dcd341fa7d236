"""Reading a score table file under the memory budget: the one guarded reader every door uses.

An upload's bytes (:func:`read_table`) or a file on disk (:func:`read_path`): CSV, TSV,
semicolon- or pipe-separated text, any of them gzip-compressed, and Parquet. Each is checked
before it is parsed (size on disk, decompressed size, width of the header) against limits from
:mod:`ui.compute.budget`, and a Parquet file is decoded under a running count of its bytes
(:mod:`ui.compute.parquet_read`), so a bomb is refused with a
:class:`ui.tables.loading.LoadError` that says what to do, not read into memory.
"""

from __future__ import annotations

import contextlib
import csv
import io
import os
import re
import stat
import zlib
from collections.abc import Callable, Iterable

import pandas as pd

from ui.tables.loading import DELIMITERS, MAX_LISTED, MAX_NAME, LoadError, TooLarge
from ui.words.numbers import plural

__all__ = ["read_path", "read_table", "regular_file"]


GZIP_MAGIC = b"\x1f\x8b"
_IN_CHUNK = 1 << 16  # compressed bytes fed to the inflater at a time
_OUT_CHUNK = 1 << 23  # most decompressed bytes one inflater call may return


def _too_large(name: str, limit: int) -> LoadError:
    from ui.compute.budget import MB, upload_cap_bytes

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
    from ui.tables.roles import NESTED_ATTR

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
    columns: Iterable[str] | None = None,
) -> tuple[pd.DataFrame, list[str]]:
    """Parse an uploaded file: (table, notes). Raises :class:`LoadError` when it cannot.

    CSV, TSV, semicolon- or pipe-separated text (the delimiter is detected), any of them
    gzip-compressed, and Parquet. Notes say what was assumed (an encoding, a renamed column).

    ``max_bytes`` bounds what a compressed file may expand to (and a Parquet file's arrays);
    by default :func:`ui.compute.budget.decompressed_limit`, from the memory budget and the upload
    limit. Inside a Streamlit run, room is made in the budget for the decompressed size
    before the parse (the caller made it for the compressed file only).

    ``lane(nbytes)`` is entered around the parse itself, once the checks know what it will
    take (the decompressed text, or a Parquet file's decoded columns): the server's
    :func:`ui.compute.parse_lanes.parsing` lets a small table pass while a large one is being read.

    A Parquet file is read by :func:`ui.compute.parquet_read.read_parquet`: estimated from its
    metadata, then decoded a few thousand rows at a time with a running count of the bytes
    decoded, stopped at the limit; only ``columns`` are read when given (a text table is
    parsed whole).
    """
    from ui.compute import budget

    notes: list[str] = []
    if not data:
        raise LoadError(f"{name} is empty. Upload a table with a header row and data rows.")
    limit = budget.decompressed_limit() if max_bytes is None else int(max_bytes)
    compressed = data[:2] == GZIP_MAGIC
    data = _decompress(name, data, limit)
    if compressed:
        budget.make_room_in_run(len(data))
    if data[:4] == b"PAR1":
        from ui.compute.parquet_read import read_parquet

        frame, nested = read_parquet(
            name, data, limit, columns=columns, lane=lane, check_width=_check_width
        )
        frame.columns = _dedupe_columns([str(c) for c in frame.columns], notes)
        _nested_left_out(frame, nested, notes)
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


def _missing(text: str) -> str:
    """The sentence for a name that is no file: a URL or an unexpanded ``~`` says so."""
    shown = text if len(text) <= 300 else text[:300] + "..."
    if re.match(r"[A-Za-z][A-Za-z0-9+.-]*://", text):
        return (f"{shown} is a URL; only a local file is read (never fetched): download it "
                "first and give its path.")  # fmt: skip
    if text.startswith("~"):
        return (f"{shown}: no such file (a ~ is expanded by the shell, not here: give the path "
                "unquoted, or in full).")  # fmt: skip
    return f"{shown}: no such file."


def regular_file(path: str | os.PathLike) -> os.stat_result:
    """``path``'s status when it is a regular file (a link is followed); :class:`LoadError`
    with a sentence for a missing path, a directory, a device (``/dev/zero`` never ends), a
    named pipe (opening one waits for a writer) or a socket, or a link to any of them."""
    text = os.fspath(path)
    if "\x00" in text:
        raise LoadError(f"{text!r}: a file name cannot hold a NUL character.")
    if not text:
        raise LoadError("The file name is empty; give a CSV or Parquet file.")
    try:
        status = os.stat(text)
    except FileNotFoundError:
        raise LoadError(_missing(text)) from None
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
    columns: Iterable[str] | None = None,
) -> tuple[pd.DataFrame, list[str]]:
    """A table file on disk, read with every check an upload gets: a regular file (never a
    device, pipe or socket), at most ``max_bytes`` on disk and decompressed (default
    :func:`ui.compute.budget.file_limit`, from ``METRICS_LENS_BUDGET_MB``), then :func:`read_table`.
    The name is that file, never a pattern. Raises :class:`LoadError` with one sentence."""
    from ui.compute import budget

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
    return read_table(name, data, max_bytes=limit, lane=lane, columns=columns)


def _file_too_large(name: str, size: int, limit: int) -> LoadError:
    from ui.compute.budget import ENV_VAR, MB

    return TooLarge(
        f"{name} is {size / MB:,.0f} MB, more than the {limit / MB:,.0f} MB read from one file "
        f"(a quarter of the memory budget, {ENV_VAR}): raise {ENV_VAR}, or read it out of core "
        "with metrics-lens sql."
    )

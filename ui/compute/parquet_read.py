"""Reading a Parquet file within a byte limit: an estimate from its metadata, then a read that
counts what it decodes and stops at the limit (issue 50).

A Parquet file declares its columns' Arrow types, and a few kB on disk can decode to gigabytes
(one long value repeated by a dictionary, a run of zeros, a value sharing its predecessor's
prefix). Nothing here depends on a list of the types that can do this:

- :func:`parquet_estimate`, from the metadata alone: every column is at least 8 bytes a row
  once read (the arrays the pages build are 8 bytes a row), a fixed-width type exactly its
  width, and byte arrays written without a dictionary or prefix sharing at least their
  uncompressed pages. What the metadata cannot bound (a dictionary repeats its values at will)
  is counted from the dictionaries themselves, without expanding them.
- :func:`read_parquet`: the columns needed, a few thousand rows at a time. Byte-array columns
  arrive as a dictionary and its indices (never expanded by the decoder); before a dictionary is
  expanded, the bytes it will take are computed from its entries' lengths, and every piece's
  size once expanded and once converted to pandas is added to a running count. The read stops,
  with one sentence, as soon as the count would pass the limit, whatever type the file declared.
"""

from __future__ import annotations

import contextlib
import io
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ui.tables.loading import LoadError, TooLarge

__all__ = ["ParquetEstimate", "ReadCount", "parquet_estimate", "read_parquet"]

ROW_FLOOR = 8  # bytes a row a column takes at least once read (the arrays built from it)
OFFSETS = 8  # a text cell's offset once converted (pandas holds text as large_string)
BATCH_ROWS = 65_536  # most rows decoded at a time
DELTA_BATCH_ROWS = 64  # rows at a time where values share prefixes (one page decodes to GBs)
PIECE_MIN, PIECE_MAX = 1 << 16, 16 << 20  # Arrow bytes converted to pandas at a time
PANDAS_INDEX = re.compile(r"__index_level_\d+__")


def _over(name: str, what: str, limit: int) -> LoadError:
    from ui.compute.budget import MB

    return TooLarge(
        f"{name} {what} more than {limit / MB:,.0f} MB once read, the most read from one file "
        "(a share of the memory budget, METRICS_LENS_BUDGET_MB), so it was not read. Give a "
        "smaller table, or only the columns needed (the label, the scores, an id)."
    )


def _leaves(t) -> int:
    """Parquet leaf columns of one Arrow field's type (a struct has one per field, and so on)."""
    import pyarrow as pa

    if pa.types.is_dictionary(t):
        return _leaves(t.value_type)
    if pa.types.is_struct(t):
        return sum(_leaves(t.field(i).type) for i in range(t.num_fields)) or 1
    if pa.types.is_map(t):
        return _leaves(t.key_type) + _leaves(t.item_type)
    if pa.types.is_list(t) or pa.types.is_large_list(t) or pa.types.is_fixed_size_list(t):
        return _leaves(t.value_type)
    if pa.types.is_list_view(t) or pa.types.is_large_list_view(t):
        return _leaves(t.value_type)
    return 1


def _values(t):
    """The type a column's cells have: a dictionary's values (of a dictionary's values...)."""
    import pyarrow as pa

    while pa.types.is_dictionary(t):
        t = t.value_type
    return t


def _is_nested(t) -> bool:
    import pyarrow as pa

    return pa.types.is_nested(_values(t))


def _width(t) -> int | None:
    """Bytes a cell of a fixed-width type takes; None for a type of variable width."""
    try:
        return max(int(_values(t).bit_width) // 8, 1)
    except ValueError:
        return None


@dataclass(frozen=True)
class ParquetEstimate:
    """What reading a Parquet file takes, from its metadata alone (nothing decoded).

    ``columns``: the columns to read (one value a row); ``nested``: the lists, structs and maps
    left out, with their types; ``low``: bytes the read takes at least (8 a row a column, a
    fixed-width type's width, the uncompressed pages of text stored without a dictionary);
    ``high``: bytes it takes at most where the metadata bounds it; ``unbounded``: the columns
    whose size only their dictionaries or prefix-shared values tell (dictionary pages,
    DELTA_BYTE_ARRAY), counted while read.
    """

    columns: tuple[str, ...]
    nested: tuple[tuple[str, str], ...]
    rows: int
    low: int
    high: int
    unbounded: tuple[str, ...]


def parquet_estimate(meta, schema, columns: Iterable[str] | None = None) -> ParquetEstimate:
    """The :class:`ParquetEstimate` of a file's ``meta`` (``FileMetaData``) and Arrow
    ``schema``, for ``columns`` (names; default every column that holds one value a row)."""
    wanted = None if columns is None else set(columns)
    flat, nested, leaf = [], [], {}
    j = 0
    for f in schema:
        if _is_nested(f.type):
            nested.append((f.name, str(f.type)))
        elif not PANDAS_INDEX.fullmatch(f.name) and (wanted is None or f.name in wanted):
            flat.append(f)
            leaf[f.name] = j
        j += _leaves(f.type)
    rows = int(meta.num_rows)
    low = high = 0
    unbounded: set[str] = set()
    for f in flat:
        width = _width(f.type)
        if width is not None:
            size = rows * max(width, ROW_FLOOR) + (rows + 7) // 8
            low, high = low + size, high + size
            continue
        low += rows * ROW_FLOOR
        for g in range(meta.num_row_groups):
            chunk = meta.row_group(g).column(leaf[f.name])
            n = int(chunk.num_values)
            pages = int(chunk.total_uncompressed_size)
            if chunk.has_dictionary_page or "DELTA_BYTE_ARRAY" in chunk.encodings:
                unbounded.add(f.name)  # a few entries repeated at will: counted while read
                high += n * pages + n * OFFSETS  # no cell is longer than all its pages
            else:  # PLAIN or DELTA_LENGTH: every byte of every value is in the pages
                low += max(pages - 4 * n, 0)
                high += pages + n * OFFSETS
    return ParquetEstimate(
        tuple(f.name for f in flat), tuple(nested), rows, low, high,
        tuple(f.name for f in flat if f.name in unbounded),
    )  # fmt: skip


class ReadCount:
    """The running count of bytes a read has decoded (and still holds), against ``limit``.

    :meth:`charge` adds bytes that are about to be made, or were just made, and raises
    :class:`TooLarge` naming ``what`` once the count passes the limit; ``peak`` is the most it
    held (tests compare it with the limit)."""

    def __init__(self, name: str, limit: int) -> None:
        self.name, self.limit = name, int(limit)
        self.held = 0
        self.peak = 0

    def check(self, extra: int, what: str) -> None:
        """Raise unless ``extra`` more bytes fit beside what is held."""
        if self.held + extra > self.limit:
            raise _over(self.name, what, self.limit)

    def charge(self, nbytes: int, what: str) -> None:
        self.check(nbytes, what)
        self.held += int(nbytes)
        self.peak = max(self.peak, self.held)

    def release(self, nbytes: int) -> None:
        self.held -= int(nbytes)


def _column_what(column, name: str) -> str:
    kind = "text column" if _is_bytes(_values(column.type)) else "column"
    return f"has a {kind}, {name!r}, that decodes to"


def _is_bytes(t) -> bool:
    import pyarrow as pa

    kinds = ("string", "large_string", "string_view", "binary", "large_binary", "binary_view")
    return any(getattr(pa.types, f"is_{k}")(t) for k in kinds)


def _row_bytes(array) -> np.ndarray:
    """Bytes each row of a dictionary array takes once expanded to its values, computed from
    its indices and its entries' sizes without expanding it: a text entry's length (and its
    offset); a fixed-width entry its width; any other entry at most the whole dictionary."""
    import pyarrow.compute as pc

    n = len(array)
    values = array.dictionary
    width = _width(values.type)
    if width is not None:
        return np.full(n, max(width, 1) + 1, np.int64)  # and a validity bit, rounded up
    if _is_bytes(values.type):
        used = pc.take(pc.binary_length(values), array.indices).fill_null(0)
        return used.to_numpy(zero_copy_only=False).astype(np.int64) + OFFSETS + 1
    return np.full(n, max(values.get_total_buffer_size(), 1), np.int64)


def _expanded_bytes(array) -> int:
    """Bytes a dictionary array takes once expanded (:func:`_row_bytes`, summed)."""
    return int(_row_bytes(array).sum())


def _dictionary_bytes(data: bytes, meta, plan: ParquetEstimate, leaf: dict, limit: int,
                      name: str) -> int:  # fmt: skip
    """What the plan's dictionary-encoded byte columns take expanded, beyond the 8 bytes a row
    the estimate counted, from their indices and dictionaries (never expanded);
    :class:`TooLarge` naming the column as soon as the estimate passes ``limit``. Prefix-shared
    (DELTA_BYTE_ARRAY) chunks are left to the running count: only decoding them tells."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    wanted, room = set(plan.unbounded), limit - plan.low
    files: dict[frozenset, object] = {}
    total = 0
    for g in range(meta.num_row_groups):
        group = meta.row_group(g)
        keep = frozenset(c for c in wanted if group.column(leaf[c]).has_dictionary_page
                         and "DELTA_BYTE_ARRAY" not in group.column(leaf[c]).encodings)  # fmt: skip
        if not keep or group.num_rows == 0:
            continue
        if keep not in files:
            files[keep] = pq.ParquetFile(io.BytesIO(data), read_dictionary=sorted(keep))
        for batch in files[keep].iter_batches(
            batch_size=BATCH_ROWS, row_groups=[g], columns=sorted(keep), use_threads=False
        ):
            for column_name, column in zip(batch.schema.names, batch.columns, strict=True):
                if pa.types.is_dictionary(column.type):
                    total += _expanded_bytes(column) - len(column) * ROW_FLOOR
                    if total > room:
                        raise _over(name, _column_what(column, column_name), limit)
    return max(total, 0)


def _slices(batch, piece_bytes: int):
    """``batch`` cut into runs of rows whose dictionary columns, once expanded, take about
    ``piece_bytes`` each (one row at least): a few rows of a long repeated value at a time."""
    import pyarrow as pa

    n = batch.num_rows
    per_row = np.zeros(n, np.int64)
    for column in batch.columns:
        if pa.types.is_dictionary(column.type):
            per_row += _row_bytes(column)
        else:
            per_row += column.nbytes // max(n, 1)
    if n == 0 or per_row.sum() <= piece_bytes:
        yield batch
        return
    ends = np.cumsum(per_row)
    start = 0
    while start < n:
        base = ends[start - 1] if start else 0
        stop = max(int(np.searchsorted(ends, base + piece_bytes, side="right")), start + 1)
        yield batch.slice(start, stop - start)
        start = stop


def _decoded(batch, count: ReadCount):
    """``batch`` with every dictionary column expanded to its values: the indices and
    dictionaries the decoder made are charged to ``count`` while held, and each expansion
    before it is made; the caller charges the result."""
    import pyarrow as pa

    held = batch.get_total_buffer_size()
    count.charge(held, "decodes to")
    columns = []
    for name, column in zip(batch.schema.names, batch.columns, strict=True):
        while pa.types.is_dictionary(column.type):  # a dictionary of dictionaries, too
            expanded = _expanded_bytes(column)
            count.charge(expanded, _column_what(column, name))
            held += expanded
            column = column.dictionary_decode()
        columns.append(column)
    out = pa.record_batch(columns, names=batch.schema.names)
    count.release(held)
    return out


def _predicted_pandas(column) -> int:
    """A bound on what converting ``column`` to pandas takes: its Arrow buffers plus, a row,
    what a sample of its first rows takes in pandas (a Python object per cell for a date, a
    decimal or bytes; 8 bytes for a number), and never less than 8 bytes a row."""
    n = len(column)
    k = min(n, 64)
    per_row = column.slice(0, k).to_pandas().memory_usage(deep=True, index=False) / k if k else 0
    return int(column.nbytes + n * max(per_row, ROW_FLOOR))


def _to_pandas(table, count: ReadCount) -> pd.DataFrame:
    """``table`` as pandas, its size checked before (predicted) and charged after (measured,
    each column at least 8 bytes a row), and ``table``'s own bytes released: a conversion
    nobody foresaw is still counted. The column that passes the limit is named."""
    predicted = 0
    for name, column in zip(table.column_names, table.columns, strict=True):
        predicted += _predicted_pandas(column)
        count.check(predicted, _column_what(column, name))
    frame = table.to_pandas(ignore_metadata=True)
    count.release(table.nbytes)
    n = len(frame)
    for i, c in enumerate(frame.columns):
        size = max(int(frame.iloc[:, i].memory_usage(deep=True, index=False)), n * ROW_FLOOR)
        count.charge(size, _column_what(table.column(i), str(c)))
    return frame


def _pieces(batches: list, piece_bytes: int):
    """``batches`` as tables of about ``piece_bytes`` each (a batch whose dictionary expanded
    to more is cut into slices), so that a piece and its pandas copy are held together only
    a piece at a time."""
    import pyarrow as pa

    table = pa.Table.from_batches(batches)
    rows = max(1, int(table.num_rows * piece_bytes // max(table.nbytes, 1)))
    for start in range(0, table.num_rows, rows):
        yield table.slice(start, rows)


def _batches(data: bytes, meta, plan: ParquetEstimate, leaf: dict, text: set, piece_bytes: int):
    """The plan's columns, a row group and a few thousand rows at a time; byte-array columns
    stored with a dictionary arrive as dictionary arrays (the decoder never expands them)."""
    import pyarrow.parquet as pq

    files: dict[frozenset, object] = {}
    width = max(len(plan.columns), 1)
    for g in range(meta.num_row_groups):
        group = meta.row_group(g)
        if group.num_rows == 0:
            continue
        chunks = {c: group.column(leaf[c]) for c in plan.columns}
        delta = any("DELTA_BYTE_ARRAY" in chunks[c].encodings for c in text)
        # Read as a dictionary and its indices: expanded here, after counting, not by the decoder.
        keep = frozenset(c for c in text if chunks[c].has_dictionary_page
                         and "DELTA_BYTE_ARRAY" not in chunks[c].encodings)  # fmt: skip
        if keep not in files:
            files[keep] = pq.ParquetFile(io.BytesIO(data), read_dictionary=sorted(keep) or None)
        pages = sum(int(chunks[c].total_uncompressed_size) for c in plan.columns)
        per_row = width * ROW_FLOOR + pages // max(group.num_rows, 1)
        rows = DELTA_BATCH_ROWS if delta else max(64, min(BATCH_ROWS, piece_bytes // per_row))
        yield from files[keep].iter_batches(
            batch_size=rows, row_groups=[g], columns=list(plan.columns), use_threads=False
        )


def _prefix_shared(meta, plan: ParquetEstimate, leaf: dict) -> bool:
    """True when a column chunk is DELTA_BYTE_ARRAY-encoded: only decoding it tells its size,
    so its parse goes by the metadata's bound (the large lane), not by the estimate."""
    return any("DELTA_BYTE_ARRAY" in meta.row_group(g).column(leaf[c]).encodings
               for g in range(meta.num_row_groups) for c in plan.unbounded)  # fmt: skip


def _no_lane(nbytes: int):
    return contextlib.nullcontext()


def read_parquet(
    name: str,
    data: bytes,
    limit: int,
    *,
    columns: Iterable[str] | None = None,
    lane: Callable[[int], contextlib.AbstractContextManager] = _no_lane,
    count: ReadCount | None = None,
    check_width: Callable[[str, int], None] | None = None,
) -> tuple[pd.DataFrame, tuple[tuple[str, str], ...]]:
    """(the table of ``data``'s one-value-a-row columns, the nested columns left out), read
    within ``limit`` bytes, or :class:`LoadError` with one sentence.

    ``columns``: the names needed (others are not read; default all). ``lane(nbytes)`` is
    entered around the decoding once the estimate is known. ``count``: the running count to
    use (a test reads its ``peak``). ``check_width(name, n_columns)`` refuses a file of too
    many columns before anything is read (:func:`ui.compute.reading.read_table` passes its own)."""
    import pyarrow.parquet as pq

    try:
        pf = pq.ParquetFile(io.BytesIO(data))
        meta, schema = pf.metadata, pf.schema_arrow
    except Exception as exc:  # pyarrow raises several types for a damaged file
        raise LoadError(f"{name} looks like Parquet but cannot be read: {exc}") from None
    if check_width is not None:
        check_width(name, len(schema))
    plan = parquet_estimate(meta, schema, columns)
    if not plan.columns:
        if plan.nested and columns is None:
            from ui.tables.loading import MAX_LISTED

            raise LoadError(
                f"{name} holds only lists, structs or maps ("
                + ", ".join(f"{c}: {t}" for c, t in plan.nested[:MAX_LISTED])
                + "); a score table needs a label and scores of one value a row."
            )
        raise LoadError(f"{name} has none of the columns needed; it holds "
                        + ", ".join(repr(f.name) for f in schema)[:300] + ".")  # fmt: skip
    if plan.low > limit:
        raise _over(name, f"holds {plan.rows:,} rows of {len(plan.columns):,} columns:", limit)
    count = ReadCount(name, limit) if count is None else count
    leaf, j = {}, 0
    for f in schema:
        leaf[f.name] = j
        j += _leaves(f.type)
    try:
        expected = plan.low + _dictionary_bytes(data, meta, plan, leaf, limit, name)
    except LoadError:
        raise
    except Exception as exc:  # a damaged dictionary page
        raise LoadError(f"{name} looks like Parquet but cannot be read: {exc}") from None
    text = {f.name for f in schema if f.name in plan.columns and _width(f.type) is None}
    piece_bytes = max(PIECE_MIN, min(PIECE_MAX, limit // 16))
    frames: list[pd.DataFrame] = []
    try:
        with lane(min(plan.high, limit) if _prefix_shared(meta, plan, leaf) else expected):
            pending, pending_bytes = [], 0
            for read in _batches(data, meta, plan, leaf, text, piece_bytes):
                for part in _slices(read, piece_bytes):
                    batch = _decoded(part, count)
                    count.charge(batch.nbytes, "decodes to")
                    pending.append(batch)
                    pending_bytes += batch.nbytes
                    if pending_bytes >= piece_bytes:
                        frames.extend(_to_pandas(t, count) for t in _pieces(pending, piece_bytes))
                        pending, pending_bytes = [], 0
            if pending:
                frames.extend(_to_pandas(t, count) for t in _pieces(pending, piece_bytes))
            if not frames:
                frames.append(_to_pandas(_empty(pf, plan), count))
            del pending
            if len(frames) == 1:
                frame = frames[0]
            else:  # text stays in Arrow's buffers; numbers and objects' pointers are copied
                copied = sum(
                    int(f.iloc[:, i].memory_usage(deep=False, index=False))
                    for f in frames for i in range(f.shape[1])
                    if isinstance(f.dtypes.iloc[i], np.dtype)
                )  # fmt: skip
                count.charge(copied, "decodes to")
                frame = pd.concat(frames, ignore_index=True)
            frames.clear()
    except LoadError:
        raise
    except MemoryError:  # the machine has less than the limit: refused all the same
        raise _over(name, "decodes to", limit) from None
    except Exception as exc:  # a damaged page, a type pandas cannot hold
        raise LoadError(f"{name} looks like Parquet but cannot be read: {exc}") from None
    return frame, plan.nested


def _empty(pf, plan: ParquetEstimate):
    schema = pf.schema_arrow
    return schema.empty_table().select(list(plan.columns))

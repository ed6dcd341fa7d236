"""Builders of the hostile files of issue 32, each small on disk and built without ever holding
what it decodes to (so a test can make one in a few kB of memory).

- :func:`dictionary_bomb`: a Parquet file whose dictionary-encoded text column repeats one long
  value over many rows (226 kB on disk, 2 GB of text decoded, for 1M rows of 2,000 characters).
- :func:`delta_bomb`: the same text written with DELTA_BYTE_ARRAY (each value shares the whole
  previous one as its prefix: nothing repeats on disk either).
- :func:`list_bomb`: a Parquet file with a ``list<int8>`` column of 50,000 elements a row (3 kB
  compressed; the loader used to write every element out as JSON text, for minutes).
- :func:`gzip_bomb`: a valid gzip file of a CSV that expands a thousandfold (3 GB from 3 MB).
- :func:`large_scores_gz`: the largest table an upload may be, gzip-compressed to a few MB (a
  legal file whose parse takes seconds: what a small upload must not wait behind).
- :func:`scores_csv`: an ordinary small score table (a student's 16 kB upload).
- :func:`wide_header_csv`: a CSV whose header holds one cell of 200,000 characters.
- :func:`many_values_csv`: a score table with a slice column of one distinct value a row.
"""

from __future__ import annotations

import io
import os
import struct
import zlib
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

__all__ = [
    "delta_bomb",
    "dictionary_bomb",
    "gzip_bomb",
    "large_scores_gz",
    "list_bomb",
    "many_values_csv",
    "scores_csv",
    "wide_header_csv",
]


def _columns(rows: int) -> dict[str, pa.Array]:
    """A label of both classes and a score, periodic so that they compress to nothing."""
    return {
        "label": pa.array((np.arange(rows) % 2).astype(np.int8)),
        "score": pa.array((np.arange(rows) % 4 / 4).astype(np.float32)),
    }


def _write(table: pa.Table, **options) -> bytes:
    buf = io.BytesIO()
    # No Arrow schema in the file: a reader takes the column as plain text, as any other
    # writer's file would be read (with it, pyarrow would keep the dictionary).
    pq.write_table(table, buf, compression="zstd", store_schema=False, **options)
    return buf.getvalue()


def dictionary_bomb(rows: int = 1_000_000, length: int = 2_000) -> bytes:
    """One ``length``-character value repeated over ``rows`` rows, dictionary-encoded: the file
    holds the value once and a run of zeros."""
    indices = pa.array(np.zeros(rows, np.int32))
    text = pa.DictionaryArray.from_arrays(indices, pa.array(["x" * length]))
    return _write(pa.table({**_columns(rows), "note": text}))


def delta_bomb(rows: int = 100_000, length: int = 2_000) -> bytes:
    """One ``length``-character value over ``rows`` rows, DELTA_BYTE_ARRAY-encoded (each value
    stored as "the previous one's first ``length`` characters, then nothing"). Built a block
    at a time: the block of repeated values is made once and written as row groups."""
    block = min(rows, 10_000)
    text = pa.array(["y" * length]).take(pa.array(np.zeros(block, np.int32)))
    table = pa.table({**_columns(block), "note": text})
    buf = io.BytesIO()
    with pq.ParquetWriter(
        buf, table.schema, compression="zstd", store_schema=False, use_dictionary=False,
        column_encoding={"note": "DELTA_BYTE_ARRAY"},
    ) as writer:  # fmt: skip
        for _ in range(rows // block):
            writer.write_table(table)
    return buf.getvalue()


def list_bomb(rows: int = 200, elements: int = 50_000) -> bytes:
    """A ``list<int8>`` column of ``elements`` zeros a row beside a label and a score."""
    values = pa.array(np.zeros(rows * elements, np.int8))
    offsets = pa.array(np.arange(0, rows * elements + 1, elements, dtype=np.int32))
    lists = pa.ListArray.from_arrays(offsets, values)
    return _write(pa.table({**_columns(rows), "pixels": lists}))


MB = 2**20
BOMB_HEADER = b"label,score\n"
BOMB_LINE = b"1,0.5\n"
BOMB_CHUNK = BOMB_LINE * (MB // len(BOMB_LINE))  # whole lines, so the stream stays periodic


def gzip_bomb(chunks: int) -> bytes:
    """A valid single-member gzip file of a header and ``chunks`` MB of one repeated line. The
    deflate stream of a repeated chunk settles into a period, so the file is built from a few
    compressed chunks without ever holding what it expands to."""
    deflate = zlib.compressobj(9, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
    head = deflate.compress(BOMB_HEADER) + deflate.flush(zlib.Z_SYNC_FLUSH)
    pieces = [deflate.compress(BOMB_CHUNK) + deflate.flush(zlib.Z_SYNC_FLUSH) for _ in range(4)]
    assert pieces[2] == pieces[3], "the compressed chunks did not settle into a period"
    end = deflate.flush()[:-8]  # the final empty block, without this short stream's trailer
    crc = zlib.crc32(BOMB_HEADER)
    for _ in range(chunks):
        crc = zlib.crc32(BOMB_CHUNK, crc)
    size = len(BOMB_HEADER) + chunks * len(BOMB_CHUNK)
    body = head + pieces[0] + pieces[1] + pieces[2] * (chunks - 2)
    return body + end + struct.pack("<II", crc, size & 0xFFFFFFFF)


def large_scores_gz(megabytes: float, seed: int = 2) -> bytes:
    """A gzip-compressed score table (label and two models) of about ``megabytes`` once
    decompressed: a block of about 16 kB of rows repeated, so it compresses to a few MB."""
    block = scores_csv(16 * 1024, seed=seed)
    header, _, rows = block.partition(b"\n")
    deflate = zlib.compressobj(1, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
    out = [deflate.compress(header + b"\n")]
    for _ in range(max(1, round(megabytes * MB / len(rows)))):
        out.append(deflate.compress(rows))
    out.append(deflate.flush())
    return b"".join(out)


def scores_csv(target_bytes: int = 16 * 1024, seed: int = 1) -> bytes:
    """A binary score table of about ``target_bytes`` (two models)."""
    rng = np.random.default_rng(seed)
    rows = max(target_bytes // 26, 4)
    y = rng.integers(0, 2, rows)
    a = np.clip(0.3 * y + rng.random(rows) * 0.7, 0, 1)
    b = rng.random(rows)
    lines = ["label,model_a,model_b"] + [f"{y[i]},{a[i]:.6f},{b[i]:.6f}" for i in range(rows)]
    return ("\n".join(lines) + "\n").encode()


def wide_header_csv(cell: int = 200_000) -> bytes:
    return b"label,model_a," + b"x" * cell + b"\n1,0.9,0.1\n0,0.2,0.3\n"


def many_values_csv(path: Path, rows: int = 200_000) -> Path:
    """A table whose ``row_id`` column has one value a row (``rows`` distinct values)."""
    rng = np.random.default_rng(2)
    y = rng.integers(0, 2, rows)
    with open(path, "w", encoding="utf-8") as f:
        f.write("label,model_a,model_b,row_id\n")
        a, b = rng.random(rows), rng.random(rows)
        f.writelines(f"{y[i]},{a[i]:.4f},{b[i]:.4f},r{i}\n" for i in range(rows))
    return path


def fifo(path: Path) -> Path:
    """A named pipe: opening it for reading waits for a writer that never comes."""
    os.mkfifo(path)
    return path


def categorical_text(rows: int = 1_000_000, distinct: int = 64, length: int = 3_000) -> bytes:
    """Issue 50's file: a label, two models' scores and a text column that is Arrow
    ``dictionary<values=string>`` (what pandas writes for a ``Categorical``) of ``distinct``
    values of ``length`` characters. 371 kB on disk for 1M rows; 3 GB of text decoded. The
    Arrow schema is kept in the file, so a reader gets the dictionary type back."""
    k = np.arange(rows)
    indices = pa.array((k % distinct).astype(np.int32))
    values = pa.array([f"{i:02d}" + "x" * (length - 2) for i in range(distinct)])
    table = pa.table({
        "label": pa.array((k % 2).astype(np.int8)),
        "prod": pa.array((k % 2 * 3 + k % 13) / 16),  # periodic: a few kB on disk
        "new": pa.array((k % 2 * 2 + k % 11) / 16),
        "note": pa.DictionaryArray.from_arrays(indices, values),
    })  # fmt: skip
    buf = io.BytesIO()
    pq.write_table(table, buf, compression="zstd")
    return buf.getvalue()

"""Reading a summary or state file that may lie: every array checked before it is allocated,
every count checked before any arithmetic.

A ``.npz`` file is a zip of ``.npy`` members. ``numpy.load`` trusts each member's header: a
header declaring a shape of 10^12 makes it allocate terabytes, and a JSON header nested a
million deep makes ``json.loads`` recurse until it fails. Here each member's header is read
alone, its dtype must be a plain number or text (never an object, so nothing is unpickled), and
the bytes its shape declares must be exactly the bytes the member holds (the zip's own size,
itself bounded and CRC-checked by :mod:`zipfile` as it is read) before one byte is allocated.
The JSON header is bounded in size and depth before it is parsed.

The tables are then checked as a merge relies on them: counts are non-negative integers (or
finite non-negative weight sums when the summary is weighted), scores are not NaN, and the
totals agree with the header's. Every refusal is one sentence (:class:`FileRefused`).
"""

from __future__ import annotations

import json
import math
import re
import zipfile
from pathlib import Path

import numpy as np
from numpy.lib import format as npy

MAX_HEADER_BYTES = 1 << 22  # the JSON header: about 500 bytes a model
MAX_HEADER_DEPTH = 16  # a state's header nests 4 deep
MAX_ARRAYS = 20_000  # at most 10 arrays a model
MAX_NPY_HEADER = 10_000  # numpy's own default for a safe .npy header
_KINDS = "biufU"  # booleans, integers, floats and text: nothing that holds an object
_BIG = 2**62  # counts past it would overflow int64 sums


class FileRefused(ValueError):
    """A file that is not a summary this library wrote; the message is one sentence."""


def read_npz(path: str | Path, max_bytes: int) -> tuple[object, dict[str, np.ndarray]]:
    """``(header, arrays)`` of a ``.npz`` file: the parsed JSON ``header`` member and the other
    members, each array checked before it is allocated (see the module's description).

    Raises
    ------
    FileRefused
        The file is not a zip, is larger than ``max_bytes`` once uncompressed, has a member that
        is not a plain array, declares a shape its bytes do not hold, or has a header that is not
        bounded JSON.
    """
    name = Path(path).name
    try:
        with zipfile.ZipFile(path) as z:
            infos = z.infolist()
            size = sum(i.file_size for i in infos)
            if size > max_bytes:
                raise FileRefused(
                    f"{name} would take {size / 2**20:,.0f} MB once uncompressed, more than "
                    f"{max_bytes / 2**20:,.0f} MB: not a summary this server opens."
                )
            if len(infos) > MAX_ARRAYS:
                raise FileRefused(
                    f"{name} holds {len(infos):,} arrays, more than the {MAX_ARRAYS:,} a summary "
                    "of at most 2,000 models holds."
                )
            arrays = {}
            for info in infos:
                key = info.filename.removesuffix(".npy")
                if key == info.filename or key in arrays:
                    raise FileRefused(
                        f"{name} holds {info.filename[:40]!r}, which is not one array of a "
                        "summary written by metrics.sql --out."
                    )
                if key == "header" and info.file_size > MAX_HEADER_BYTES + MAX_NPY_HEADER:
                    raise FileRefused(
                        f"{name}'s header is {info.file_size:,} bytes, more than the "
                        f"{MAX_HEADER_BYTES:,} of a summary written by metrics.sql --out."
                    )
                with z.open(info) as f:
                    arrays[key] = _member(name, key, f, info.file_size)
    except FileRefused:
        raise
    except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile) as exc:
        reason = " ".join(str(exc).split())[:200]
        raise FileRefused(
            f"{name} is not a summary written by metrics.sql --out ({reason})."
        ) from None
    raw = arrays.pop("header", None)
    if raw is None:
        raise FileRefused(f"{name} has no header: not a summary written by metrics.sql --out.")
    if raw.dtype != np.uint8 or raw.ndim != 1:
        raise FileRefused(f"{name}'s header is not JSON text.")
    return parse_header(name, raw.tobytes()), arrays


def _member(name: str, key: str, f, member_bytes: int) -> np.ndarray:
    """One ``.npy`` member, its header read alone and its size checked before allocating."""

    def refuse(what: str):
        raise FileRefused(
            f"{name}: array {key[:40]!r} {what}: not a summary written by metrics.sql --out."
        )

    version = npy.read_magic(f)
    if version == (1, 0):
        shape, fortran, dtype = npy.read_array_header_1_0(f, max_header_size=MAX_NPY_HEADER)
    elif version == (2, 0):
        shape, fortran, dtype = npy.read_array_header_2_0(f, max_header_size=MAX_NPY_HEADER)
    else:
        refuse(f"has a .npy version {version} numpy does not write")
    if dtype.hasobject or dtype.kind not in _KINDS or dtype.names or dtype.subdtype:
        refuse(f"is of type {str(dtype)[:40]}, not plain numbers or text")
    if len(shape) > 2 or min(shape, default=0) < 0:
        refuse(f"has the shape {shape}")
    declared = math.prod(shape) * dtype.itemsize  # Python integers: no overflow
    held = member_bytes - f.tell()
    if declared != held:
        refuse(f"declares a shape {shape} of {declared:,} bytes but holds {held:,}")
    data = bytearray(held)
    if f.readinto(data) != held or f.read(1):
        refuse("is shorter or longer than its zip entry says")
    return np.frombuffer(data, dtype).reshape(shape, order="F" if fortran else "C")


_STRING = re.compile(r'"(?:[^"\\]|\\.)*"', re.DOTALL)


def parse_header(name: str, raw: bytes) -> object:
    """The JSON of a summary's header, at most :data:`MAX_HEADER_BYTES` long and
    :data:`MAX_HEADER_DEPTH` deep (``json.loads`` recurses once per level)."""
    if len(raw) > MAX_HEADER_BYTES:
        raise FileRefused(
            f"{name}'s header is {len(raw):,} bytes, more than the {MAX_HEADER_BYTES:,} of a "
            "summary written by metrics.sql --out."
        )
    try:
        text = raw.decode()
    except UnicodeDecodeError:
        raise FileRefused(f"{name}'s header is not UTF-8 text.") from None
    codes = np.frombuffer(_STRING.sub("", text).encode(), np.uint8)
    step = np.isin(codes, (ord("["), ord("{"))).astype(np.int64)
    step -= np.isin(codes, (ord("]"), ord("}")))
    depth = int(np.cumsum(step).max(initial=0))
    if depth > MAX_HEADER_DEPTH:
        raise FileRefused(
            f"{name}'s header nests {depth:,} levels deep, more than the {MAX_HEADER_DEPTH} of a "
            "summary written by metrics.sql --out."
        )
    try:
        return json.loads(text)
    except (ValueError, RecursionError) as exc:
        reason = " ".join(str(exc).split())[:200]
        raise FileRefused(f"{name}'s header is not JSON ({reason}).") from None


def check_counts(refuse, what: str, counts: np.ndarray, weighted: bool, limit=None) -> None:
    """Refuse ``counts`` unless they are non-negative integers (finite non-negative floats when
    ``weighted``), each at most ``limit`` when given, with a sum that fits in int64."""
    if weighted:
        if counts.dtype.kind not in "iuf":
            refuse(f"{what} are {counts.dtype}, not weight sums")
        if counts.size and not np.all(np.isfinite(counts)):
            refuse(f"{what} are not all finite")
    elif counts.dtype.kind not in "iu":
        refuse(f"{what} are {counts.dtype}, not whole counts (the summary is unweighted)")
    if counts.size and np.min(counts) < 0:
        refuse(f"{what} has negative counts")
    if not counts.size:
        return
    top = counts.max()
    if limit is not None and top > limit:
        refuse(f"{what} has a count of {top:,}, more than the {limit:,} rows it was read from")
    if not weighted and float(np.sum(counts, dtype=np.float64)) >= _BIG:
        refuse(f"{what} add up past 2^62")


def check_total(refuse, what: str, got, want, weighted: bool) -> None:
    """Refuse unless the sum ``got`` agrees with the header's ``want`` (to rounding, weighted)."""
    if weighted:
        ok = math.isclose(float(got), float(want), rel_tol=1e-9, abs_tol=1e-9)
    else:
        ok = int(got) == want
    if not ok:
        refuse(f"{what} add up to {got:,}, but its header says {want:,}")


def check_scores(refuse, what: str, scores: np.ndarray) -> None:
    """Refuse per-score tables whose scores are not one row per descending, non-NaN score."""
    if np.any(np.isnan(scores)):
        refuse(f"{what} has NaN scores")
    if scores.size > 1 and np.any(scores[1:] >= scores[:-1]):
        refuse(f"{what} is not one row per descending score")


def check_tables(refuse, header: dict, arrays: dict[str, np.ndarray]) -> None:
    """The per-score, binned and per-group tables of a summary whose arrays are already named,
    typed and shaped as written (``_check_summary``): counts as :func:`check_counts` wants them,
    scores as :func:`check_scores` wants them, and each model's totals those of its header."""
    weighted = header["weight"] is not None
    rows = header["rows"]
    if rows >= _BIG:
        refuse(f"its header counts {rows:,} rows, more than 2^62")
    for i, (model, meta) in enumerate(header["models"].items()):
        who = f"model {model[:40]!r}'s"
        for kind in ("table", "binned"):
            if f"{i}_{kind}_scores" not in arrays:
                continue
            scores, pos, neg = (arrays[f"{i}_{kind}_{c}"] for c in ("scores", "pos", "neg"))
            what = f"{who} {'per-score' if kind == 'table' else 'binned'} table"
            check_scores(refuse, what, scores)
            check_counts(refuse, f"{what}'s positives", pos, weighted, None if weighted else rows)
            check_counts(refuse, f"{what}'s negatives", neg, weighted, None if weighted else rows)
            n_pos, n_neg = pos.sum(), neg.sum()
            check_total(refuse, f"{what}'s positives", n_pos, meta["n_pos"], weighted)
            check_total(refuse, f"{what}'s negatives", n_neg, meta["n_neg"], weighted)
            if not weighted and int(n_pos) + int(n_neg) != rows:
                refuse(f"{what} counts {int(n_pos) + int(n_neg):,} rows, but its header says "
                       f"{rows:,}")  # fmt: skip
            if not (n_pos > 0 and n_neg > 0):
                refuse(f"{what} holds no {'positives' if n_neg > 0 else 'negatives'}: AUC and "
                       "AP need both classes")  # fmt: skip
            if kind == "table" and scores.size != meta["distinct_scores"]:
                refuse(f"{what} has {scores.size:,} scores, but its header says "
                       f"{meta['distinct_scores']:,}")  # fmt: skip
        if f"{i}_groups_rows" in arrays:
            what = f"{who} per-group table"
            check_counts(refuse, f"{what}'s rows", arrays[f"{i}_groups_rows"], False, rows)
            for c in ("positives", "negatives"):
                check_counts(refuse, f"{what}'s {c}", arrays[f"{i}_groups_{c}"], weighted)

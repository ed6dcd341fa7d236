"""TREC qrels and runs in, as trec_eval reads them, and runs as tables or ranx/ir_measures JSON.

* A **qrels** line is ``query_id iteration doc_id relevance`` (four whitespace-separated fields,
  the relevance a whole number); a **run** line is ``query_id Q0 doc_id rank score tag`` (six
  fields, the score a number; the rank is ignored, as trec_eval ignores it).
* Ids stay text: ``"007"`` and ``"7"`` are two documents, and ties are later broken on the text.
* A gzip file (``.gz`` or gzip's magic bytes) is read as it is.
* A damaged line raises a ``ValueError`` naming the file and the line number (from 1).

Files are read by pyarrow's CSV reader when separated by single spaces, by pandas' whitespace
reader otherwise; only when both fail is the file walked line by line, to name the first bad line.
"""

from __future__ import annotations

import gzip
import io
import json
import math
from pathlib import Path
from typing import Any

__all__ = [
    "read_qrels",
    "read_run",
    "read_trec_qrels",
    "read_trec_run",
    "table_from_mapping",
]

_RUN_FIELDS = ("query_id", "q0", "doc_id", "rank", "score", "tag")
_QRELS_FIELDS = ("query_id", "iteration", "doc_id", "relevance")


def _is_gzip(path: Path) -> bool:
    with open(path, "rb") as f:
        return f.read(2) == b"\x1f\x8b"


def _open_text(path: Path) -> io.TextIOBase:
    if _is_gzip(path):
        return io.TextIOWrapper(gzip.open(path, "rb"), encoding="utf-8", errors="replace")
    return open(path, encoding="utf-8", errors="replace")


def _check_path(path: Any, what: str) -> Path:
    p = Path(path)
    if not p.is_file():
        raise ValueError(f"The {what} file {str(p)!r} does not exist or is not a file.")
    return p


def _scan(path: Path, what: str, fields: tuple[str, ...], value_index: int) -> None:
    """Walk the file line by line and raise at the first line trec_eval would not read."""
    n = len(fields)
    with _open_text(path) as f:
        for number, line in enumerate(f, start=1):
            parts = line.split()
            if not parts:
                continue
            if len(parts) != n:
                raise ValueError(
                    f"{path.name}, line {number}: a {what} line has {n} whitespace-separated "
                    f"fields ({' '.join(fields)}), this one has {len(parts)}: "
                    f"{line.strip()[:80]!r}."
                )
            value = parts[value_index]
            if what == "run":
                try:
                    ok = not math.isnan(float(value))
                except ValueError:
                    ok = False
                if not ok:
                    raise ValueError(
                        f"{path.name}, line {number}: the score {value!r} is not a number."
                    )
            else:
                try:
                    int(value)
                except ValueError:
                    raise ValueError(
                        f"{path.name}, line {number}: the relevance {value!r} is not a whole "
                        f"number (trec_eval reads 0, 1, 2...)."
                    ) from None


def _read_whitespace(path: Path, what: str, fields: tuple[str, ...], value: str) -> Any:
    """The file's columns as a pyarrow table (ids as text, ``value`` as a number)."""
    import pyarrow as pa
    import pyarrow.csv as pcsv

    value_type = pa.float64() if what == "run" else pa.int64()
    types = {name: pa.large_string() for name in fields}
    types[value] = value_type
    compressed = _is_gzip(path)
    try:
        source = pa.input_stream(str(path), compression="gzip" if compressed else None)
        table = pcsv.read_csv(
            source,
            read_options=pcsv.ReadOptions(column_names=list(fields), block_size=1 << 24),
            parse_options=pcsv.ParseOptions(delimiter=" ", quote_char=False),
            convert_options=pcsv.ConvertOptions(
                column_types=types, include_columns=[c for c in fields if c in _KEEP]
            ),
        )
    except (pa.ArrowInvalid, pa.ArrowTypeError, ValueError):
        table = None
    if table is None:
        table = _read_pandas(path, what, fields, value, compressed)
    else:
        col = table[value]
        if col.null_count or (what == "run" and _has_nan(col)):
            _scan(path, what, fields, fields.index(value))
            raise ValueError(f"{path.name}: a {value} is missing.")  # pragma: no cover
    return table


_KEEP = {"query_id", "doc_id", "score", "relevance"}  # the run tag comes from line 1


def _has_nan(col: Any) -> bool:
    import pyarrow.compute as pc

    return bool(pc.any(pc.is_nan(col)).as_py() or False)


def _read_pandas(path: Path, what: str, fields: tuple[str, ...], value: str, gz: bool) -> Any:
    import pandas as pd
    import pyarrow as pa

    dtypes = {name: str for name in fields}
    dtypes.pop(value)
    try:
        frame = pd.read_csv(
            path,
            sep=r"\s+",
            header=None,
            names=list(fields),
            dtype=dtypes,
            compression="gzip" if gz else None,
            quoting=3,
            engine="c",
            na_filter=False,
        )
        ok = pd.api.types.is_numeric_dtype(frame[value])
        if ok and what == "qrels":
            ok = pd.api.types.is_integer_dtype(frame[value])
        if ok and what == "run":
            ok = not frame[value].isna().any()
    except (ValueError, pd.errors.ParserError, UnicodeDecodeError):
        ok, frame = False, None
    if not ok or frame is None or any(frame[c].eq("").any() for c in frame if c != value):
        _scan(path, what, fields, fields.index(value))
        if frame is None:  # pragma: no cover - the scan found nothing pandas refused
            raise ValueError(f"{path.name}: the {what} file could not be read.")
    frame = frame[[c for c in fields if c in _KEEP]]
    return pa.Table.from_pandas(frame, preserve_index=False)


def _to_frame(table: Any, columns: list[str]) -> Any:
    import pandas as pd

    frame = table.select(columns).to_pandas()
    for c in ("query_id", "doc_id"):
        if frame[c].dtype == object:
            frame[c] = frame[c].astype(pd.StringDtype())
    return frame


def read_trec_qrels(path: Any) -> Any:
    """A TREC qrels file (``query_id iteration doc_id relevance``) as a DataFrame.

    Returns
    -------
    DataFrame with columns ``query_id`` (text), ``doc_id`` (text), ``relevance`` (int64).

    Raises
    ------
    ValueError
        The file is missing, or a line has not four fields or a whole-number relevance (the
        message names the line).
    """
    p = _check_path(path, "qrels")
    table = _read_whitespace(p, "qrels", _QRELS_FIELDS, "relevance")
    return _to_frame(table, ["query_id", "doc_id", "relevance"])


def _first_tag(path: Path) -> str | None:
    with _open_text(path) as f:
        for line in f:
            parts = line.split()
            if parts:
                return parts[-1]
    return None  # pragma: no cover - a file with rows has a first line


def read_trec_run(path: Any) -> Any:
    """A TREC run file (``query_id Q0 doc_id rank score tag``) as a DataFrame.

    Returns
    -------
    DataFrame with columns ``query_id`` (text), ``doc_id`` (text), ``score`` (float64); its
    ``attrs["run_tag"]`` is the tag of the first line (the run's name), or the file's stem when
    the file is empty.

    Raises
    ------
    ValueError
        The file is missing, or a line has not six fields or a score that is not a number (the
        message names the line).
    """
    p = _check_path(path, "run")
    table = _read_whitespace(p, "run", _RUN_FIELDS, "score")
    frame = _to_frame(table, ["query_id", "doc_id", "score"])
    tag = _first_tag(p) if table.num_rows else None
    frame.attrs["run_tag"] = str(tag) if tag else p.name.split(".")[0]
    return frame


def table_from_mapping(data: dict, *, value: str = "score", what: str = "run") -> Any:
    """``{query_id: {doc_id: value}}`` (ranx, ir_measures, pytrec_eval) as a DataFrame."""
    import numpy as np
    import pandas as pd

    queries, docs, values = [], [], []
    for qid, ranking in data.items():
        if not isinstance(ranking, dict):
            raise ValueError(
                f"The {what} mapping must be {{query_id: {{doc_id: {value}}}}}; query {qid!r} "
                f"holds {type(ranking).__name__}."
            )
        queries.extend([str(qid)] * len(ranking))
        docs.extend(str(d) for d in ranking)
        values.extend(ranking.values())
    try:
        arr = np.asarray(values, dtype=np.float64 if value == "score" else np.int64)
    except (TypeError, ValueError):
        raise ValueError(
            f"The {what} mapping's values must be "
            f"{'numbers' if value == 'score' else 'whole numbers'}."
        ) from None
    return pd.DataFrame(
        {
            "query_id": pd.array(queries, dtype=pd.StringDtype()),
            "doc_id": pd.array(docs, dtype=pd.StringDtype()),
            value: arr,
        }
    )


def _read_json(p: Path, what: str, value: str) -> Any:
    try:
        with _open_text(p) as f:
            data = json.load(f)
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise ValueError(f"{p.name} is not valid JSON ({exc}).") from None
    if not isinstance(data, dict):
        raise ValueError(f"{p.name}: a JSON {what} is {{query_id: {{doc_id: {value}}}}}.")
    return table_from_mapping(data, value=value, what=what)


def _read_table(p: Path, what: str, value: str) -> Any:
    import pandas as pd

    name = p.name.lower()
    try:
        frame = pd.read_parquet(p) if ".parquet" in name else pd.read_csv(p, dtype=str)
    except Exception as exc:  # any reader failure is a bad file for the user
        raise ValueError(f"{p.name} could not be read as a table ({exc}).") from None
    missing = [c for c in ("query_id", "doc_id", value) if c not in frame.columns]
    if missing:
        raise ValueError(
            f"{p.name} has no column {missing[0]!r}; a {what} table has the columns query_id, "
            f"doc_id and {value} (it has {list(frame.columns)})."
        )
    out = pd.DataFrame(
        {
            "query_id": frame["query_id"].astype(str).astype(pd.StringDtype()),
            "doc_id": frame["doc_id"].astype(str).astype(pd.StringDtype()),
        }
    )
    numbers = pd.to_numeric(frame[value], errors="coerce")
    bad = numbers.isna()
    if bad.any():
        row = int(bad.to_numpy().nonzero()[0][0])
        raise ValueError(
            f"{p.name}, row {row + 1}: the {value} {frame[value].iloc[row]!r} is not a number."
        )
    out[value] = numbers.to_numpy(dtype="float64" if value == "score" else "int64")
    return out


def read_run(path: Any) -> Any:
    """A run from a TREC file, a Parquet or CSV table (``query_id, doc_id, score``) or a
    ranx/ir_measures JSON file (``{query_id: {doc_id: score}}``), by the file's name."""
    p = _check_path(path, "run")
    name = p.name.lower()
    if name.endswith((".json", ".json.gz")):
        frame = _read_json(p, "run", "score")
    elif name.endswith((".parquet", ".csv", ".csv.gz")):
        frame = _read_table(p, "run", "score")
    else:
        return read_trec_run(p)
    frame.attrs["run_tag"] = p.name.split(".")[0]
    return frame


def read_qrels(path: Any) -> Any:
    """Qrels from a TREC file, a Parquet/CSV table or a JSON mapping, by the file's name."""
    p = _check_path(path, "qrels")
    name = p.name.lower()
    if name.endswith((".json", ".json.gz")):
        return _read_json(p, "qrels", "relevance")
    if name.endswith((".parquet", ".csv", ".csv.gz")):
        return _read_table(p, "qrels", "relevance")
    return read_trec_qrels(p)

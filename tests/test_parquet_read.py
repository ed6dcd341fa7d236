"""The Parquet reader under a byte limit (issue 50): every Arrow type a file can declare, every
encoding and compression pyarrow writes, any row-group size.

Each generated file is either read (the same values pyarrow reads, within the limit) or refused
in one sentence, and the read never holds more than the limit: measured independently of the
reader's own count, as Python's and numpy's allocations (tracemalloc) plus Arrow's (a fresh
proxy memory pool's high-water mark), with room for the file itself and one decompressed page.
"""

from __future__ import annotations

import io
import tracemalloc

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import HealthCheck, event, given, settings

from tests import hostile_payloads as payloads
from tests.strategies import PARQUET_BOMB_KINDS, examples, parquet_files
from ui.compute import budget
from ui.compute.parquet_read import parquet_estimate
from ui.compute.reading import read_table
from ui.tables.loading import LoadError, TooLarge

MB = 1024 * 1024
LIMIT = 1 * MB
SLACK = 2 * MB  # a decompressed page, the metadata, the reader's own small objects
_POOLS: list = []  # proxy pools live as long as the process: a buffer may outlive its read


def measured_read(name: str, data: bytes, limit: int, **options):
    """(frame or the LoadError, the most bytes Python, numpy and Arrow held during the read)."""
    default = pa.default_memory_pool()
    pool = pa.proxy_memory_pool(default)
    _POOLS.append(pool)
    pa.set_memory_pool(pool)
    tracemalloc.start()
    try:
        try:
            outcome = read_table(name, data, max_bytes=limit, **options)[0]
        except LoadError as exc:
            outcome = exc
        python = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
        pa.set_memory_pool(default)
    return outcome, python + pool.max_memory()


def reference(data: bytes) -> pd.DataFrame:
    """What pyarrow reads of the one-value-a-row columns, dictionaries expanded."""
    table = pq.read_table(io.BytesIO(data))
    keep = [f.name for f in table.schema if not pa.types.is_nested(_values(f.type))]
    columns = []
    for name in keep:
        column = table.column(name)
        while pa.types.is_dictionary(column.type):
            column = pa.chunked_array(
                [c.dictionary_decode() for c in column.chunks], column.type.value_type
            )
        columns.append(column)
    return pa.table(columns, names=keep).to_pandas(ignore_metadata=True)


def _values(t):
    while pa.types.is_dictionary(t):
        t = t.value_type
    return t


def one_sentence(message: str, name: str) -> None:
    assert "\n" not in message, message
    assert "Traceback" not in message, message
    assert message.startswith(name), message
    assert message.endswith("."), message


@settings(
    max_examples=examples(30),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(case=parquet_files())
def test_every_type_encoding_and_compression_is_read_or_refused_within_the_limit(case):
    read_or_refused_within_the_limit(case)


@settings(
    max_examples=examples(20),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(case=parquet_files(PARQUET_BOMB_KINDS, rows=(5_000, 20_000), lengths=(100, 400)))
def test_files_that_decode_to_far_more_than_their_size_are_refused_within_the_limit(case):
    read_or_refused_within_the_limit(case)


def read_or_refused_within_the_limit(case) -> None:
    outcome, peak = measured_read("drawn.parquet", case.data, LIMIT)
    context = (case.kind, case.rows, case.options, f"peak {peak / MB:.1f} MB")
    event(type(outcome).__name__)
    assert peak <= LIMIT + len(case.data) + SLACK, context
    if isinstance(outcome, LoadError):
        one_sentence(str(outcome), "drawn.parquet")
        if not isinstance(outcome, TooLarge):  # refused for what it is, not for its size
            if "cannot be read" in str(outcome):  # only where pyarrow itself cannot read it
                with pytest.raises((pa.ArrowException, OSError)):  # a dictionary over DELTA pages
                    reference(case.data)
            else:
                assert "only lists" in str(outcome), context
            return
        try:
            size = budget.nbytes(reference(case.data))
        except (pa.ArrowException, OSError):  # too large before pyarrow's own failure shows
            return
        assert size > LIMIT / 4, ("a small table was refused", size, context)
        return
    assert budget.nbytes(outcome) <= LIMIT, context
    expected = reference(case.data)
    assert list(outcome.columns[: expected.shape[1]]) == list(expected.columns), context
    for column in expected.columns:
        got, want = outcome[column], expected[column]
        assert got.isna().tolist() == want.isna().tolist(), (column, context)
        assert got.dropna().astype(object).tolist() == want.dropna().astype(object).tolist(), (
            column,
            context,
        )


# --- issue 50's file, scaled down ------------------------------------------------------------


def test_issue_50_a_categorical_text_column_is_counted_and_refused_within_the_limit():
    """The issue's file at 20,000 rows (64 values of 3,000 characters, Arrow
    dictionary<string>): 60 MB of text from a few kB. Refused at 16 MB, naming the column,
    holding less than the limit; the plan counted it at 8 bytes a row before."""
    data = payloads.categorical_text(rows=20_000)
    assert len(data) < 64 * 1024
    outcome, peak = measured_read("scores.parquet", data, 16 * MB)
    assert isinstance(outcome, TooLarge), outcome
    message = str(outcome)
    one_sentence(message, "scores.parquet")
    assert "has a text column, 'note', that decodes to more than 16 MB" in message
    assert peak < 16 * MB, f"{peak / MB:.1f} MB"


def test_issue_50_the_same_file_is_read_whole_when_it_fits():
    data = payloads.categorical_text(rows=2_000, length=300)  # 600 kB of text
    frame, _ = read_table("scores.parquet", data, max_bytes=16 * MB)
    assert frame.shape == (2_000, 4)
    assert frame["note"].dtype != "category"  # no Categorical for later code to expand
    assert frame["note"].iloc[65] == "01" + "x" * 298
    assert budget.nbytes(frame) < 2 * MB


def test_a_pandas_categorical_is_counted_as_the_text_it_holds():
    frame = pd.DataFrame({"label": [0, 1] * 10_000, "score": np.linspace(0, 1, 20_000),
                          "note": pd.Categorical(["a" * 2_000, "b" * 2_000] * 10_000)})  # fmt: skip
    buf = io.BytesIO()
    frame.to_parquet(buf)
    with pytest.raises(TooLarge, match="has a text column, 'note', that decodes to more than 16"):
        read_table("cats.parquet", buf.getvalue(), max_bytes=16 * MB)


def test_the_estimate_bounds_what_the_metadata_can_and_leaves_dictionaries_to_the_count():
    data = payloads.categorical_text(rows=1_000)
    pf = pq.ParquetFile(io.BytesIO(data))
    plan = parquet_estimate(pf.metadata, pf.schema_arrow)
    assert plan.columns == ("label", "prod", "new", "note")
    assert plan.unbounded == ("note",)
    assert plan.low == 1_000 * 8 * 4 + 3 * ((1_000 + 7) // 8)  # 8 bytes a row a column at least
    assert plan.high >= 1_000 * 3_000  # no cell is longer than all its pages
    only = parquet_estimate(pf.metadata, pf.schema_arrow, columns=["label", "prod"])
    assert only.columns == ("label", "prod")
    assert only.unbounded == ()


def test_only_the_columns_asked_for_are_read():
    data = payloads.categorical_text(rows=20_000)
    frame, _ = read_table("scores.parquet", data, max_bytes=16 * MB,
                          columns=["label", "prod", "new"])  # fmt: skip
    assert list(frame.columns) == ["label", "prod", "new"]


def test_dates_as_python_objects_are_counted_after_the_conversion():
    """A type whose pandas form is larger than its Arrow form (a date is 4 bytes in Arrow, a
    40-byte Python object in pandas): the estimate's 8 bytes a row pass, the running count
    stops it."""
    import datetime

    rows = 200_000
    days = pa.array([datetime.date(2020, 1, 1)]).take(pa.array(np.zeros(rows, np.int32)))
    buf = io.BytesIO()
    pq.write_table(pa.table({"label": np.arange(rows) % 2, "day": days}), buf)
    limit = 6 * MB  # the estimate: 3.2 MB; pandas: 1.6 MB of labels and 8 MB of dates
    outcome, peak = measured_read("days.parquet", buf.getvalue(), limit)
    assert isinstance(outcome, TooLarge), outcome
    assert "has a column, 'day', that decodes to more than 6 MB" in str(outcome)
    assert peak <= limit + len(buf.getvalue()) + SLACK

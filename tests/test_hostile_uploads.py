"""Uploads made to hurt the server (issue 20): a gzip bomb, a Parquet file whose run-length
encoding expands to gigabytes, nested Parquet columns, an empty file.

The bomb is built here without ever holding its content: deflate output flushed at byte
boundaries repeats exactly once the compressor's window is periodic, so one compressed
megabyte is written N times and the gzip trailer computed for the whole (a 3 GB CSV in a
4.6 MB file, in about a second and a half)."""

from __future__ import annotations

import gzip
import io
import re
import tracemalloc

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from streamlit.testing.v1 import AppTest

from tests import hostile_payloads as payloads
from tests.apptest_utils import APP, upload
from ui.compute import budget
from ui.compute.reading import read_table
from ui.tables.loading import LoadError, guess_mapping

MB = 1024 * 1024
HEADER, LINE, CHUNK, gzip_bomb = (
    payloads.BOMB_HEADER,
    payloads.BOMB_LINE,
    payloads.BOMB_CHUNK,
    payloads.gzip_bomb,
)


BOMB_CHUNKS = 3_000  # 3 GB of CSV


@pytest.fixture(scope="module")
def bomb() -> bytes:
    return gzip_bomb(BOMB_CHUNKS)


def _text(message: str) -> str:
    return re.sub(r"\\(.)", r"\1", message)


def test_the_bomb_is_the_csv_it_claims_to_be():
    """The generator, at a size that can be checked whole: exactly the lines it says."""
    assert gzip.decompress(gzip_bomb(40)) == HEADER + CHUNK * 40


def test_a_gzip_bomb_is_refused_at_the_limit_without_taking_its_size(bomb):
    assert len(bomb) < 5 * MB  # a small file...
    limit = budget.decompressed_limit()
    assert limit == 192 * MB  # the default budget's share for one parse, under the 500 MB cap
    tracemalloc.start()
    try:
        with pytest.raises(LoadError) as caught:
            read_table("bomb.csv.gz", bomb)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    # ...that would expand to 3 GB: the reading stopped at the limit, its buffer and one step.
    assert peak < limit * 1.2 + 16 * MB, f"peak {peak / MB:.0f} MB"
    message = str(caught.value)
    assert "decompresses to more than 192 MB" in message
    assert "Upload a smaller table, or the file uncompressed" in message


def test_the_limit_follows_the_budget_and_the_upload_cap(monkeypatch):
    monkeypatch.setenv(budget.ENV_VAR, "256")  # uploads get 192 MB, a parse a quarter
    assert budget.decompressed_limit() == 48 * MB
    monkeypatch.setenv(budget.ENV_VAR, "100000")
    assert budget.decompressed_limit() == budget.upload_cap_bytes()


def test_a_bomb_made_of_many_gzip_members_is_refused_too():
    member = gzip.compress(CHUNK, 9)
    data = gzip.compress(HEADER) + member * 64  # 64 MB in ~ 0.1 MB, member after member
    with pytest.raises(LoadError, match="decompresses to more than 16 MB"):
        read_table("members.csv.gz", data, max_bytes=16 * MB)


def test_gzip_within_the_limit_reads_exactly_member_by_member():
    frame = pd.DataFrame({"label": [1, 0, 1, 0], "score": [0.9, 0.1, 0.4, 0.35]})
    text = frame.to_csv(index=False).encode()
    head, rows = text.split(b"\n", 1)
    data = gzip.compress(head + b"\n") + gzip.compress(rows) + b"\x00" * 8  # zero padding
    got, _ = read_table("t.csv.gz", data, max_bytes=len(text))  # exactly at the limit
    pd.testing.assert_frame_equal(got.astype(float), frame.astype(float))
    with pytest.raises(LoadError, match="decompresses to more than"):
        read_table("t.csv.gz", data, max_bytes=len(text) - 1)  # a byte under it


@pytest.mark.parametrize(
    "data",
    [
        gzip.compress(b"label,score\n1,0.5\n0,0.2\n")[:-12],  # cut in its last block
        gzip.compress(b"label,score\n1,0.5\n0,0.2\n") + b"garbage",
        b"\x1f\x8b" + b"\x00" * 30,
    ],
    ids=["truncated", "trailing garbage", "bad header"],
)
def test_damaged_gzip_gives_the_damaged_sentence(data):
    with pytest.raises(LoadError, match="looks gzip-compressed but cannot be decompressed"):
        read_table("d.csv.gz", data)


def test_a_parquet_file_that_expands_past_the_limit_is_refused_from_its_metadata():
    rows = 3_000_000
    table = pa.table({"label": np.zeros(rows, np.int8), "score": np.zeros(rows, np.float32)})
    buf = io.BytesIO()
    pq.write_table(table, buf, compression="zstd")
    assert len(buf.getvalue()) < MB  # run-length encoded: a few kB for millions of rows
    with pytest.raises(LoadError, match="3,000,000 rows of 2 columns: more than 16 MB"):
        read_table("big.parquet", buf.getvalue(), max_bytes=16 * MB)
    frame, _ = read_table("big.parquet", buf.getvalue(), max_bytes=64 * MB)  # within: read
    assert frame.shape == (rows, 2)


def test_nested_parquet_columns_are_read_and_never_guessed_as_roles():
    table = pa.table(
        {
            "label": [0, 1, 0, 1, 1],
            "score": [0.1, 0.9, 0.2, 0.8, 0.7],
            "tags": [[1], [2, 3], [], [4], None],
            "meta": [{"a": 1}, {"a": 2}, {"a": 3}, {"a": 4}, {"a": 5}],
        }
    )
    buf = io.BytesIO()
    pq.write_table(table, buf)
    frame, _ = read_table("nested.parquet", buf.getvalue())
    mapping = guess_mapping(frame)
    assert mapping.label == "label"
    assert mapping.scores == ("score",)
    assert "tags" not in (mapping.group, mapping.weight, *mapping.slices)


# --- through the app ----------------------------------------------------------------------------

GOOD = b"outcome,model_x,model_y\nYes,0.9,0.4\nNo,0.2,0.6\nYes,0.7,0.3\nNo,0.4,0.1\nNo,0.1,0.5\n"


@pytest.fixture
def small_budget(monkeypatch):
    """A 256 MB budget: compressed uploads may expand to 48 MB."""
    monkeypatch.setenv(budget.ENV_VAR, "256")
    yield
    for key in list(budget.REGISTRY.usage()):
        budget.REGISTRY.release(key)


def test_the_page_says_the_bomb_is_too_large_and_keeps_the_table_it_had(small_budget):
    at = AppTest.from_file(APP, default_timeout=120)
    at.run()
    upload(at, "scores.csv", GOOD)
    assert at.multiselect(key="map_scores").value == ["model_x", "model_y"]
    at.file_uploader(key="upload_file").set_value(
        ("bomb.csv.gz", gzip_bomb(200), "application/gzip")
    ).run()
    assert not at.exception  # not the generic error box
    errors = [_text(e.value) for e in at.error]
    assert any("bomb.csv.gz decompresses to more than 48 MB" in e for e in errors), errors
    assert at.multiselect(key="map_scores").value == ["model_x", "model_y"]  # nothing lost
    assert len(at.metric) == 10


def test_room_is_made_for_the_decompressed_size_not_the_compressed_one(small_budget, monkeypatch):
    asked = []
    make_room = budget.REGISTRY.make_room

    def record(key, incoming):
        asked.append(incoming)
        return make_room(key, incoming)

    monkeypatch.setattr(budget.REGISTRY, "make_room", record)
    text = b"label,score\n" + b"1,0.25\n0,0.75\n" * 20_000
    packed = gzip.compress(text)
    at = AppTest.from_file(APP, default_timeout=120)
    at.run()
    upload(at, "t.csv.gz", packed)
    assert not at.exception
    assert at.multiselect(key="map_scores").value == ["score"]
    factor = budget.PARSE_FACTOR
    assert asked == [factor * len(packed), factor * len(text)]


def test_an_empty_upload_says_the_file_is_empty():
    at = AppTest.from_file(APP, default_timeout=60)
    at.run()
    upload(at, "empty.csv", b"")
    assert not at.exception
    errors = [_text(e.value) for e in at.error]
    assert errors == ["empty.csv is empty. Upload a table with a header row and data rows."]
    assert not any("Pick at least one score column" in e for e in errors)


def _parquet(table: pa.Table) -> bytes:
    buf = io.BytesIO()
    pq.write_table(table, buf)
    return buf.getvalue()


NESTED = pa.table(
    {
        "label": [0, 1, 0, 1, 1],
        "score": [0.1, 0.9, 0.2, 0.8, 0.7],
        "tags": [[1], [2, 3], [], [4], None],
        "meta": [{"a": 1}, {"a": 2}, {"a": 3}, {"a": 4}, {"a": 5}],
    }
)


def test_a_parquet_upload_with_list_and_struct_columns_opens_and_lists_them_as_ignored():
    at = AppTest.from_file(APP, default_timeout=60)
    at.run()
    upload(at, "nested.parquet", _parquet(NESTED))
    assert not at.exception
    assert at.selectbox(key="map_label").value == "label"
    assert at.multiselect(key="map_scores").value == ["score"]
    captions = " ".join(_text(c.value) for c in at.caption)
    assert "2 columns of lists or structs ('tags', 'meta')" in captions
    at.switch_page("pages/data.py").run()
    assert not at.exception
    shown = " ".join(str(df.value.to_dict()) for df in at.dataframe)
    assert "ignored: list/struct column" in shown or "list/struct" in shown


def test_a_list_column_picked_as_the_label_or_a_score_gives_a_sentence():
    at = AppTest.from_file(APP, default_timeout=60)
    at.run()
    upload(at, "nested.parquet", _parquet(NESTED))
    at.multiselect(key="map_scores").set_value(["score", "tags"]).run()
    assert not at.exception
    errors = " ".join(_text(e.value) for e in at.error)
    assert "'tags' holds lists or structs (ignored: list/struct column)" in errors
    at.multiselect(key="map_scores").set_value(["score"]).run()
    at.selectbox(key="map_label").set_value("meta").run()
    assert not at.exception


def test_a_parquet_file_of_list_columns_only_gives_a_sentence():
    table = pa.table({"a": [[1], [2]], "b": [{"x": 1}, {"x": 2}]})
    at = AppTest.from_file(APP, default_timeout=60)
    at.run()
    upload(at, "lists.parquet", _parquet(table))
    assert not at.exception
    assert at.error or at.warning


HUGE = b"label,model_a,model_b\n1,1e308,0.9\n0,-1e308,0.2\n1,0.5,0.7\n0,0.1,0.4\n"


@pytest.mark.parametrize("page", ["pages/threshold.py", "pages/compare.py"])
def test_scores_of_plus_minus_1e308_give_a_sentence_on_every_page(page):
    at = AppTest.from_file(APP, default_timeout=60)
    at.run()
    upload(at, "huge.csv", HUGE)
    assert not at.exception
    errors = " ".join(_text(e.value) for e in at.error)
    assert "Score column 'model_a' has 2 values beyond ±1e+300 (rows 1, 2, e.g. 1e+308)" in errors
    at.switch_page(page).run()
    assert not at.exception
    at.checkbox(key="map_drop_bad_rows").check().run()  # the two rows go: the rest is drawn
    assert not at.exception
    assert "Score column 'model_a'" not in " ".join(_text(e.value) for e in at.error)

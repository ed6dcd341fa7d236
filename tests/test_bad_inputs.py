"""A corpus of hostile files (tests/data/bad/): each gives its clear message, never a traceback.

``expected.json`` maps each file to a piece of the message it must produce (None: it must load
with no error). Through the loader, and through the app, where a bad upload must also leave the
previously loaded data in use.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from streamlit.testing.v1 import AppTest

from tests.strategies import examples
from ui.compute.reading import read_table
from ui.tables.checking import prepare
from ui.tables.loading import LoadError, guess_mapping

BAD = Path(__file__).resolve().parent / "data" / "bad"
EXPECTED = json.loads((BAD / "expected.json").read_text())
APP = str(Path(__file__).resolve().parent.parent / "app.py")


def test_corpus_is_complete():
    files = sorted(p.name for p in BAD.iterdir() if p.name != "expected.json")
    assert files == sorted(EXPECTED)
    assert len(files) >= 25


def messages_for(name: str, content: bytes) -> tuple[list[str], list[str]]:
    """(errors, everything said) for one file, as the app's loader sees it."""
    try:
        frame, notes = read_table(name, content)
    except LoadError as exc:
        return [str(exc)], [str(exc)]
    prepared = prepare(frame, guess_mapping(frame))
    errors = [p.message for p in prepared.problems if p.level == "error"]
    return errors, notes + [p.message for p in prepared.problems]


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_loader_says_what_is_wrong(name):
    errors, said = messages_for(name, (BAD / name).read_bytes())
    if EXPECTED[name] is None:
        assert not errors, errors
    else:
        assert any(EXPECTED[name] in m for m in said), said


def test_bom_does_not_leak_into_the_first_column_name():
    frame, _ = read_table("b.csv", (BAD / "byte_order_mark.csv").read_bytes())
    assert guess_mapping(frame).label == "label"


def _shown(at: AppTest) -> list[str]:
    texts = [e.value for kind in ("error", "warning", "info", "caption") for e in getattr(at, kind)]
    return [re.sub(r"\\(.)", r"\1", t) for t in texts]


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_app_shows_the_message_and_keeps_the_previous_data(name):
    at = AppTest.from_file(APP, default_timeout=30)
    at.run()
    at.segmented_control(key="source").set_value("Upload").run()
    good = b"label,model_x\n1,0.9\n0,0.2\n1,0.7\n0,0.4\n"
    at.file_uploader(key="upload_file").set_value(("good.csv", good, "text/csv")).run()
    assert len(at.metric) == 10
    at.file_uploader(key="upload_file").set_value(
        (name, (BAD / name).read_bytes(), "text/csv")
    ).run()
    assert not at.exception, at.exception
    if EXPECTED[name] is not None:
        assert any(EXPECTED[name] in m for m in _shown(at)), _shown(at)
    # The page still shows numbers: from the new table if it is usable, else the last good one.
    assert len(at.metric) == 10


@settings(max_examples=examples(300), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.one_of(
        st.binary(max_size=400),
        st.lists(
            st.lists(
                st.one_of(
                    st.sampled_from(
                        ["", "nan", "inf", "-1", "0", "1", "0.5", "yes", "=A1", "a,b", '"']
                    ),
                    st.floats(allow_nan=True, allow_infinity=True).map(str),
                    st.text(max_size=6),
                ),
                min_size=1,
                max_size=5,
            ),
            min_size=1,
            max_size=8,
        ).map(lambda rows: "\n".join(",".join(r) for r in rows).encode()),
    ),
    st.sampled_from(["f.csv", "f.tsv", "f.csv.gz", "f.parquet", "f.txt"]),
)
def test_fuzz_loader_only_ever_raises_load_error(content, name):
    try:
        frame, _ = read_table(name, content)
    except LoadError as exc:
        frame, message = None, str(exc)
    if frame is None:
        assert message
        return
    prepared = prepare(frame, guess_mapping(frame))
    for problem in prepared.problems:
        assert problem.message

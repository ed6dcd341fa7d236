"""The "Your example" source: the link encoding round-trips exactly, damaged links are
refused, and the edited table becomes a Dataset with the upload messages; a linked table
reaches every page's numbers (AppTest)."""

from __future__ import annotations

import base64
import zlib

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as hs
from streamlit.testing.v1 import AppTest

import metrics
from tests.apptest_utils import APP, metric_value
from tests.strategies import examples
from ui.sources import example_source as ex
from ui.tables.checking import prepare
from ui.tables.loading import ColumnMapping


def _random_table(rng, rows: int, models: int) -> pd.DataFrame:
    table = pd.DataFrame({"label": pd.array(rng.integers(0, 2, rows), dtype="Int64")})
    for name in ex.SCORE_NAMES[:models]:
        kind = rng.integers(0, 3)
        if kind == 0:
            values = rng.random(rows)  # full double precision
        elif kind == 1:
            values = np.round(rng.random(rows), 2)  # ties
        else:
            # Up to ~1e296: links refuse scores beyond ±1e300, as uploads do.
            values = rng.normal(0, 1e6, rows) * 10.0 ** rng.integers(-300, 290, rows)
        table[name] = values
    return table


@pytest.mark.parametrize("seed", range(8))
def test_link_round_trips_exactly(seed):
    rng = np.random.default_rng(seed)
    table = _random_table(rng, int(rng.integers(1, 201)), int(rng.integers(1, 4)))
    if seed % 2:
        table.iloc[0, 1] = np.nan  # an empty cell survives as empty
        table.iloc[-1, 0] = pd.NA
    back = ex.decode(ex.encode(table))
    pd.testing.assert_frame_equal(back, table, check_exact=True)
    for col in table.columns[1:]:  # bit for bit, not just close
        a, b = table[col].to_numpy(), back[col].to_numpy()
        assert np.array_equal(a.view(np.int64)[~np.isnan(a)], b.view(np.int64)[~np.isnan(b)])


def test_two_hundred_rows_fit_in_a_link():
    rng = np.random.default_rng(0)
    table = _random_table(rng, 200, 3)
    table[list(ex.SCORE_NAMES)] = np.round(rng.random((200, 3)), 3)
    link = ex.encode(table)
    assert len(link) < 4000
    assert set(link[2:]) <= set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
    pd.testing.assert_frame_equal(ex.decode(link), table)


def _packed(text: str) -> str:
    return "1." + base64.urlsafe_b64encode(zlib.compress(text.encode())).decode().rstrip("=")


@pytest.mark.parametrize(
    ("link", "message"),
    [
        ("2.abc", "not in a format"),
        ("1.", "not in a format"),
        ("1.@@@@", "damaged"),
        (ex.encode(ex.DEFAULT)[:-6], "damaged"),
        (_packed("label,evil\n1,2\n"), "unexpected columns"),
        (_packed("label,model_a\n1,0.5,3\n"), "wrong length"),
        (_packed("label,model_a\n1,abc\n"), "not numbers"),
        (_packed("label,model_a\n1,inf\n"), "infinite"),
        (_packed("label,model_a\n" + "1,0.5\n" * 600), "more than 500 rows"),
        (_packed("label,model_a\n" + "1,0.5\n" * 100_000), "too large"),
        (_packed("label,model_a\n0.5,0.2\n1,0.3\n0,0.1"), "Row 1 .* has the label 0.5"),
        (_packed("label,model_a\n1e300,0.2\n1,0.3\n0,0.1"), "has the label 1e\\+300"),
        (_packed("label,model_a\n1,0.2\n2,0.3\n"), "Row 2 .* has the label 2"),
        (_packed("label,model_a\n"), "has no rows"),
        (_packed("label,model_a\n,\n,\n"), "has no rows"),
        (_packed("label,model_a\n1,1e308\n0,-1e308\n"), "beyond ±1e\\+300"),
    ],
)
def test_damaged_links_are_refused(link, message):
    with pytest.raises(ex.ExampleError, match=message):
        ex.decode(link)


def test_csv_copy_is_the_table():
    text = ex.to_csv(ex.DEFAULT)
    assert text.splitlines()[0] == "label,model_a,model_b"
    assert text.splitlines()[4] == "1,0.62,0.7"
    back = pd.read_csv(pd.io.common.StringIO(text))
    pd.testing.assert_frame_equal(back, ex.DEFAULT, check_dtype=False)


# --- the source in an app ----------------------------------------------------------------------


def _source_app():
    import streamlit as st

    from ui.sources.example_source import example_dataset

    with st.sidebar:
        ds = example_dataset()
    st.session_state["_ds_id"] = ds.source_id
    st.session_state["_models"] = list(ds.models)
    for p in ds.prepared.problems:
        (st.error if p.level == "error" else st.warning)(p.message)
    if ds.prepared.ok:
        st.metric("rows", len(ds.y))
        st.metric("positives", int(ds.y.sum()))


def _run(link: str | None = None) -> AppTest:
    at = AppTest.from_function(_source_app, default_timeout=30)
    if link is not None:
        at.query_params["example"] = link
    at.run()
    assert not at.exception, at.exception
    return at


def test_default_example_is_a_usable_dataset():
    at = _run()
    assert at.session_state["_models"] == ["model_a", "model_b"]
    assert metric_value(at, "rows") == "8"
    assert metric_value(at, "positives") == "4"
    # The rows are edited wide on the Data page (tests/test_example_editor.py); the sidebar
    # holds a summary and a link to it (a caption here, where the app has no Data page).
    assert len(at.data_editor) == 0
    captions = [c.value for c in at.sidebar.caption]
    assert "4 positives, 4 negatives; 2 models." in captions
    assert "Edit the rows on the Data page." in captions
    assert at.session_state["_ds_id"].startswith("example:")


@pytest.mark.parametrize(
    ("labels", "scores", "level", "message"),
    [
        ([0, 0, 0], [0.1, 0.2, 0.3], "error", "The positive label 1 does not occur in 'label'"),
        ([1, 1, 1], [0.1, 0.2, 0.3], "warning", "has one class only"),
        ([1, 0, 1], [0.4, 0.4, 0.4], "warning", "has the same value (0.4) in every row"),
        ([1, None, 0], [0.4, 0.2, 0.1], "error", "Label column 'label' has 1 missing value"),
    ],
)
def test_the_upload_messages(labels, scores, level, message):
    table = pd.DataFrame({"label": pd.array(labels, dtype="Int64"), "model_a": scores})
    at = _run(ex.encode(table))
    shown = at.error if level == "error" else at.warning
    assert any(message in e.value for e in shown), [e.value for e in shown]


def test_a_damaged_link_falls_back_to_the_default_with_a_message():
    at = _run("1.broken!!")
    assert any("damaged" in e.value for e in at.error)
    assert metric_value(at, "rows") == "8"


def test_models_control_adds_and_drops_score_columns():
    at = _run()
    at.segmented_control(key="example_models").set_value(3).run()
    assert at.session_state["_models"] == ["model_a", "model_b", "model_c"]
    at.segmented_control(key="example_models").set_value(1).run()
    assert at.session_state["_models"] == ["model_a"]
    at.button(key="example_reset").click().run()
    assert at.session_state["_models"] == ["model_a", "model_b"]


def test_link_is_offered_and_opens_the_same_table():
    at = _run()
    code = [c.value for c in at.sidebar.code]
    assert code[0] == ex.to_csv(ex.DEFAULT).strip()
    link = code[1].split("?example=", 1)[1]
    pd.testing.assert_frame_equal(ex.decode(link), ex.DEFAULT, check_dtype=False)


# --- every page on a linked table (the sidebar's 'Your example' source) ------------------------


TABLES = {
    "ties": pd.DataFrame(
        {"label": [1, 0, 1, 1, 0, 0, 1, 0, 0, 1], "model_a": [0.9, 0.8, 0.8, 0.6, 0.55, 0.5,
                                                             0.4, 0.4, 0.2, 0.1]}
    ),
    "edited": pd.DataFrame(
        {"label": [1, 0, 1, 1, 0, 0, 1, 0, 0, 1], "model_a": [0.9, 0.8, 0.85, 0.6, 0.55, 0.5,
                                                             0.45, 0.4, 0.2, 0.1]}
    ),
}  # fmt: skip


@pytest.mark.parametrize("name", list(TABLES))
def test_a_linked_table_reaches_every_page(name):
    table = TABLES[name]
    y, s = table["label"].to_numpy() == 1, table["model_a"].to_numpy()
    auc, ap = metrics.roc_auc_score(y, s), metrics.average_precision_score(y, s)
    at = AppTest.from_file(APP, default_timeout=60)
    at.query_params["example"] = ex.encode(table)
    at.run()
    assert not at.exception, at.exception
    assert at.segmented_control(key="source").value == "Your example"
    at.switch_page("pages/auc_lab.py").run()
    assert metric_value(at, "Library roc_auc_score") == f"{auc:.4f}"
    at.switch_page("pages/ap_lab.py").run()
    assert not at.exception
    assert metric_value(at, "Step") == f"{ap:.4f}"
    at.switch_page("pages/step_through.py").run()
    assert not at.exception
    n_steps = len(np.unique(s))
    assert at.number_input(key="step_through_k").label == f"Step (of {n_steps})"
    at.number_input(key="step_through_k").set_value(n_steps).run()
    text = " ".join(m.value for m in at.markdown)
    assert f"**AUC pair count** {auc:.4f} = library AUC" in text
    at.switch_page("pages/threshold.py").run()
    assert not at.exception


# --- hostile links (issue 20) ------------------------------------------------------------------

LINK_TABLES = [
    "label,model_a\n0.5,0.2\n1,0.3\n0,0.1",
    "label,model_a\n1e300,0.2\n1,0.3\n0,0.1",
    "label,model_a\n",
    "label,model_a\n,\n,\n",
    "label,model_a\n1,1e308\n0,-1e308\n",
]


@pytest.mark.parametrize("text", LINK_TABLES)
def test_a_hostile_link_gives_a_sentence_and_the_default_example(text):
    at = _run(_packed(text))
    assert len(at.error) == 1
    assert at.error[0].value.endswith("Showing the default example instead.")
    assert metric_value(at, "rows") == "8"


def test_a_link_decode_does_not_know_still_gives_a_sentence(monkeypatch):
    def broken(text):
        raise TypeError("a case nobody foresaw")

    monkeypatch.setattr(ex, "decode", broken)
    at = _run(ex.encode(ex.DEFAULT))
    assert [e.value for e in at.error] == [
        "The link's example cannot be read. Showing the default example instead."
    ]
    assert metric_value(at, "rows") == "8"


_WEIRD_CELLS = [
    "", "0", "1", "-0", "0.5", "2", "-1", "1e308", "-1e308", "1e300", "1e-320", "5e-324",
    "nan", "NaN", "inf", "-inf", "Infinity", "1_0", "0x10", " 1 ", "1e", ".", "+", "١",
    "9" * 400, "1,5", "\t0.3", "0.1\r", "True",
]  # fmt: skip


@hs.composite
def _csvish(draw) -> str:
    """Text close to a link's CSV: a header, perhaps the right one, rows of odd numbers."""
    header = draw(
        hs.sampled_from(
            ["label,model_a", "label,model_a,model_b", "label,model_a,model_b,model_c",
             "label", "model_a,label", "label,model_b", "label,model_a,", "LABEL,model_a"]
        )
    )  # fmt: skip
    width = draw(hs.integers(1, 4))
    rows = draw(
        hs.lists(
            hs.lists(hs.sampled_from(_WEIRD_CELLS) | hs.floats().map(repr), min_size=width,
                     max_size=width).map(",".join),
            max_size=12,
        )
    )  # fmt: skip
    end = draw(hs.sampled_from(["", "\n", "\n\n", "\r\n"]))
    return header + "\n" + "\n".join(rows) + end


def _link_from(body: bytes, version: str, cut: int) -> str:
    encoded = base64.urlsafe_b64encode(zlib.compress(body)).decode().rstrip("=")
    return version + "." + (encoded[:-cut] if cut else encoded)


def _loads_or_says_why(link: str) -> None:
    """Decoding either gives a table the app can use, or an ExampleError: nothing else."""
    try:
        table, message = ex.decode(link), None
    except ex.ExampleError as exc:
        table, message = None, str(exc)
    if table is None:
        assert message.startswith(("The link", "Row ")), message
        return
    assert list(table.columns[:1]) == ["label"]
    assert len(table) >= 1
    scores = table.iloc[:, 1:].to_numpy(dtype=float)
    assert not np.isinf(scores).any()
    mapping = ColumnMapping(label="label", scores=tuple(table.columns[1:]), pos_label=1)
    prepare(table.copy(), mapping)  # the messages of an upload, never an exception


@settings(max_examples=examples(300), deadline=None)
@given(text=hs.text(max_size=200))
def test_random_text_links_load_or_say_why(text):
    _loads_or_says_why(text)
    _loads_or_says_why("1." + text)


@settings(max_examples=examples(400), deadline=None)
@given(
    table=_csvish(),
    version=hs.sampled_from(["1", "1", "1", "0", "2", "", "01", "1 "]),
    cut=hs.sampled_from([0, 0, 0, 1, 2, 3, 7]),
)
def test_csv_like_links_with_weird_numbers_load_or_say_why(table, version, cut):
    _loads_or_says_why(_link_from(table.encode(), version, cut))

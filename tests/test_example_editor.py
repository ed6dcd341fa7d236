"""The "Your example" editor on the Data page: pasted text read exactly or refused with a
sentence, the grid's edits applied as Streamlit would, and in the app (AppTest) paste, add,
delete and apply changing the table every page computes on, the link following it, and a bad
paste or a bad row number losing nothing."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as hs
from streamlit.testing.v1 import AppTest

import metrics
from tests.apptest_utils import APP, metric_value
from tests.strategies import binary_tables, examples
from ui.sources import example_source as ex
from ui.tables import example_table as et
from ui.words.numbers import decimals


def _table(labels, *scores) -> pd.DataFrame:
    table = pd.DataFrame({"label": pd.array(labels, dtype="Int64")})
    for name, s in zip(ex.SCORE_NAMES, scores, strict=False):
        table[name] = np.asarray(s, dtype=float)
    return table


# --- reading pasted text -----------------------------------------------------------------------


@settings(max_examples=examples(60), deadline=None)
@given(t=binary_tables(max_size=129, max_models=3), sep=hs.sampled_from([",", "\t", ";", " "]),
       header=hs.booleans(), crlf=hs.booleans())  # fmt: skip
def test_a_pasted_table_is_read_exactly(t, sep, header, crlf):
    """Any table the app can hold, written as CSV, TSV, semicolon or space-separated text, with
    or without a header, comes back bit for bit (numbers in Python's shortest exact form)."""
    table = _table(t.y.astype(int), *t.scores)
    lines = [sep.join(table.columns)] if header else []
    lines += [sep.join(ex._number(v) for v in row) for row in table.itertuples(index=False)]
    text = ("\r\n" if crlf else "\n").join(lines)
    got = et.parse_pasted(text).table
    pd.testing.assert_frame_equal(got, table, check_exact=True)


def test_the_link_csv_pastes_back():
    got = et.parse_pasted(ex.to_csv(ex.DEFAULT))
    pd.testing.assert_frame_equal(got.table, ex.DEFAULT, check_dtype=False)
    assert "with a header" in got.note


@pytest.mark.parametrize(
    ("text", "labels", "scores", "note"),
    [
        # a spreadsheet's copy: tabs, its own header names, the label not first
        ("lr\ttree\tLabel\n0.9\t0.8\t1\n0.3\t0.4\t0\n", [1, 0], [[0.9, 0.3], [0.8, 0.4]],
         "'Label' is the label, 'lr' → model_a, 'tree' → model_b"),
        # no header: the first column is the label; blank lines and a trailing tab are skipped
        ("1\t0.9\t\n\n0\t0.3\t\n", [1, 0], [[0.9, 0.3]], "without a header: column 1"),
        # semicolons with decimal commas, as a European spreadsheet writes them
        ("label;score\n1;0,9\n0;0,25\n", [1, 0], [[0.9, 0.25]], "semicolon-separated"),
        # quoted cells, spaces after commas, a byte-order mark
        ('\ufefflabel, model_a\n"1", "0.5"\n0, 1e-3\n', [1, 0], [[0.5, 0.001]], "comma"),
        ("1 0.5\n0   0.25\n", [1, 0], [[0.5, 0.25]], "space-separated"),
        # an empty cell is a missing value, as in the grid; a row of empty cells is dropped
        ("label,model_a\n1,\n,\n0,0.2\n", [1, 0], [[np.nan, 0.2]], "2 rows"),
        ("label,model_a\n,0.4\n0,0.2\n", [None, 0], [[0.4, 0.2]], "2 rows"),
    ],
)  # fmt: skip
def test_pasted_shapes(text, labels, scores, note):
    got = et.parse_pasted(text)
    pd.testing.assert_frame_equal(got.table, _table(labels, *scores))
    assert note in got.note, got.note


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "The box is empty"),
        ("  \n\t\n", "The box is empty"),
        ("label\n1\n0\n", "The header has 1 column; the example takes a label column and one "
         "to 3 score columns"),
        ("1,2,3,4,5\n", "The first line has 5 columns"),
        ("label,model_a\n", "has a header but no rows"),
        ("label,model_a\n1,0.5\n0,0.2,0.3\n", "Line 3 has 3 cells; the header (line 1) has 2."),
        ("1,0.5\n0\n", "Line 2 has 1 cell; the first line (line 1) has 2."),
        ("label,score\n1,0.5\n0,high\n", "Line 3, column 'score': 'high' is not a number."),
        ("label,score\n1,nan\n", "Line 2, column 'score': 'nan' is not a number."),
        ("label,score\n1,inf\n", "'inf' is not a number"),
        ("label,score\n1,85%\n", "'85%' is not a number"),
        ("1,0.5\n1,1e999\n", "Line 2, column 2: '1e999' is too large"),
        ("label,score\n1,0.5\n2,0.3\n", "Line 3: the label is 2; labels are 1 (positive) "
         "or 0 (negative)."),
        ("label,score\n1,0.5\n0.5,0.3\n", "the label is 0.5"),
        ("1,1e301\n", "Line 1 has a score beyond ±1e+300"),
        ("label,a\n" + "1,0.5\n" * 501, "The pasted table has 501 rows; the example holds up "
         "to 500."),
        ("x" * (et.MAX_PASTE + 1), "the box takes up to 100,000"),
    ],
)  # fmt: skip
def test_bad_pastes_say_why(text, message):
    with pytest.raises(et.PasteError) as info:
        et.parse_pasted(text)
    assert message in str(info.value), str(info.value)


@pytest.mark.parametrize(
    ("text", "rows"),
    [("3", [2]), ("3, 5-7", [2, 4, 5, 6]), ("7-5;1 1", [0, 4, 5, 6]), ("", []), (" 8 ", [7])],
)
def test_row_numbers(text, rows):
    assert et.parse_row_numbers(text, 8) == rows


@pytest.mark.parametrize(
    ("text", "message"),
    [("9", "There is no row 9: the grid has rows 1 to 8."), ("0", "There is no row 0"),
     ("2-x", "'2-x' is not a row number"), ("a", "'a' is not a row number")],
)  # fmt: skip
def test_bad_row_numbers(text, message):
    with pytest.raises(et.PasteError, match=message):
        et.parse_row_numbers(text, 8)


# --- the grid's edits, against an obvious reference -------------------------------------------


def _reference_edits(table: pd.DataFrame, ticks: list[bool], edits: dict):
    """Rows as dicts, changed one by one, in the order st.data_editor applies them."""
    rows = [dict(zip(table.columns, r, strict=True)) | {"delete": t}
            for r, t in zip(table.itertuples(index=False), ticks, strict=True)]  # fmt: skip
    for i, change in edits["edited_rows"].items():
        rows[i].update(change)
    rows = [r for i, r in enumerate(rows) if i not in set(edits["deleted_rows"])]
    blank = dict.fromkeys(table.columns) | {"delete": False}
    rows += [blank | r for r in edits["added_rows"]]
    as_float = [[np.nan if r[c] is None or pd.isna(r[c]) else float(r[c]) for c in table.columns]
                for r in rows]  # fmt: skip
    out = pd.DataFrame(np.array(as_float, dtype=float).reshape(len(rows), len(table.columns)),
                       columns=table.columns)  # fmt: skip
    out["label"] = pd.array(out["label"], dtype="Float64").astype("Int64")
    return out, [bool(r["delete"]) for r in rows]


_CELL = hs.one_of(hs.none(), hs.floats(-5, 5, allow_nan=False), hs.integers(-3, 3))


@settings(max_examples=examples(200), deadline=None)
@given(data=hs.data(), n=hs.integers(1, 6), models=hs.integers(1, 3))
def test_apply_edits_matches_the_reference(data, n, models):
    rng = np.random.default_rng(data.draw(hs.integers(0, 2**16)))
    table = _table(rng.integers(0, 2, n), *np.round(rng.random((models, n)), 2))
    columns = list(table.columns)
    ticks = data.draw(hs.lists(hs.booleans(), min_size=n, max_size=n))
    label = hs.sampled_from([None, 0, 1])
    row_change = hs.fixed_dictionaries(
        {}, optional={"label": label, "delete": hs.booleans(),
                      **{c: _CELL for c in columns[1:]}}
    )  # fmt: skip
    edits = {
        "edited_rows": data.draw(hs.dictionaries(hs.integers(0, n - 1), row_change, max_size=n)),
        "deleted_rows": sorted(data.draw(hs.sets(hs.integers(0, n - 1), max_size=n))),
        "added_rows": data.draw(hs.lists(row_change, max_size=3)),
    }
    got, got_ticks = et.apply_edits(table, ticks, edits)
    want, want_ticks = _reference_edits(table, ticks, edits)
    pd.testing.assert_frame_equal(got, want)
    assert got_ticks == want_ticks


def test_apply_edits_leaves_an_odd_label_from_a_client_empty():
    table = _table([1, 0], [0.5, 0.2])
    got, _ = et.apply_edits(table, [False, False], {"edited_rows": {0: {"label": 2}}})
    assert got["label"].isna().tolist() == [True, False]


# --- in the app: the Data page ----------------------------------------------------------------


def _data_page(link: str | None = None) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=60)
    if link is not None:
        at.query_params["example"] = link
    at.run()
    if link is None:
        at.segmented_control(key="source").set_value("Your example").run()
    at.switch_page("pages/data.py").run()
    assert not at.exception, at.exception
    return at


def _current(at: AppTest) -> pd.DataFrame:
    return at.session_state["example_current"]


def _linked(at: AppTest) -> pd.DataFrame:
    value = at.query_params["example"]
    return ex.decode(value if isinstance(value, str) else value[0])


def _edit(at: AppTest, edits: dict) -> None:
    """What the grid sends when the form is submitted (AppTest cannot type into it)."""
    state = {"edited_rows": {}, "added_rows": [], "deleted_rows": []} | edits
    at.session_state[f"example_editor_{at.session_state['example_version']}"] = state


def _auc(at: AppTest) -> str:
    at.switch_page("pages/auc_lab.py").run()
    assert not at.exception, at.exception
    return metric_value(at, "Library roc_auc_score")


def test_the_editor_is_on_the_data_page_and_the_sidebar_links_to_it():
    at = _data_page()
    assert len(at.sidebar.data_editor) == 0
    links = [e for e in at.sidebar if e.type == "page_link"]
    assert [(e.proto.label, e.proto.page) for e in links] == [("Edit the rows", "data")]
    assert "4 positives, 4 negatives; 2 models." in [c.value for c in at.sidebar.caption]
    (grid,) = at.main.data_editor
    assert grid.key == "example_editor_1"
    assert list(grid.value.columns) == ["label", "model_a", "model_b", "delete"]
    assert grid.value.index.tolist() == list(range(1, 9))  # rows count from 1
    assert [b.type for b in at.main if b.type == "form"] == ["form"]  # no rerun per cell


def test_paste_csv_replaces_the_table_and_every_page_follows():
    at = _data_page()
    text = "label,lr,tree\n1,0.9,0.2\n0,0.4,0.7\n1,0.35,0.1\n0,0.3,0.8\n1,0.8,0.6\n"
    at.text_area(key="example_paste").input(text)
    at.button(key="example_load").click().run()
    assert not at.exception, at.exception
    want = _table([1, 0, 1, 0, 1], [0.9, 0.4, 0.35, 0.3, 0.8], [0.2, 0.7, 0.1, 0.8, 0.6])
    pd.testing.assert_frame_equal(_current(at), want)
    pd.testing.assert_frame_equal(_linked(at), want)  # the address bar's link
    assert [s.value for s in at.success] == [
        "Read 5 rows of comma-separated text with a header: 'label' is the label, 'lr' → "
        "model_a, 'tree' → model_b."
    ]
    assert at.text_area(key="example_paste").value == ""
    assert len(at.main.data_editor[0].value) == 5
    assert "**Your example**: 5 rows, 3 columns." in [m.value for m in at.markdown]
    y = want["label"].to_numpy() == 1
    # As the page writes it: half up (29/32 = 0.90625 reads 0.9063).
    assert _auc(at) == decimals(metrics.roc_auc_score(y, want["model_a"].to_numpy()))


def test_paste_tsv_without_header_sets_the_number_of_models():
    at = _data_page()
    at.text_area(key="example_paste").input(
        "1\t0.7\t0.1\t0.5\n0\t0.2\t0.3\t0.4\n1\t0.6\t0.9\t0.45\n"
    )
    at.button(key="example_load").click().run()
    assert not at.exception, at.exception
    want = _table([1, 0, 1], [0.7, 0.2, 0.6], [0.1, 0.3, 0.9], [0.5, 0.4, 0.45])
    pd.testing.assert_frame_equal(_current(at), want)
    assert at.segmented_control(key="example_models").value == 3
    assert at.selectbox(key="model").options == ["model_a", "model_b", "model_c"]


def test_a_bad_paste_keeps_the_table_the_text_and_the_typed_edits():
    at = _data_page()
    version = at.session_state["example_version"]
    _edit(at, {"edited_rows": {0: {"model_a": 0.95}}})  # typed, not applied yet
    bad = "label,score\n1,0.9\n2,0.4\n"
    at.text_area(key="example_paste").input(bad)
    at.button(key="example_load").click().run()
    assert not at.exception, at.exception
    assert [e.value for e in at.error] == [
        "Line 3: the label is 2; labels are 1 (positive) or 0 (negative). The table is unchanged."
    ]
    pd.testing.assert_frame_equal(_current(at), ex.DEFAULT, check_dtype=False)
    pd.testing.assert_frame_equal(_linked(at), ex.DEFAULT, check_dtype=False)
    assert at.text_area(key="example_paste").value == bad  # to fix, not to type again
    assert at.session_state["example_version"] == version  # the grid and its edits stay
    at.button(key="example_apply").click().run()  # ... and apply later
    assert _current(at)["model_a"].iloc[0] == 0.95


def test_apply_changes_the_table_and_the_link_at_once():
    at = _data_page()
    _edit(
        at,
        {
            "edited_rows": {2: {"label": 1}, 7: {"model_b": 0.33}},
            "added_rows": [{"label": 0, "model_a": 0.05, "model_b": 0.9}, {}],
            "deleted_rows": [0],
        },
    )
    at.button(key="example_apply").click().run()
    assert not at.exception, at.exception
    want = ex.DEFAULT.iloc[1:].reset_index(drop=True).astype({"model_b": float})
    want.loc[1, "label"] = 1
    want.loc[6, "model_b"] = 0.33
    want.loc[7] = [0, 0.05, 0.9]
    want["label"] = pd.array(want["label"], dtype="Int64")
    pd.testing.assert_frame_equal(_current(at), want)
    pd.testing.assert_frame_equal(_linked(at), want)
    assert [s.value for s in at.success] == [
        "Applied: 8 rows in the table (1 empty row left out until filled)."
    ]
    assert len(at.main.data_editor[0].value) == 9  # the empty row stays in the grid to fill
    y = want["label"].to_numpy() == 1
    # As the page writes it: half up (29/32 = 0.90625 reads 0.9063).
    assert _auc(at) == decimals(metrics.roc_auc_score(y, want["model_a"].to_numpy()))


def test_add_rows_applies_the_typed_edits_and_adds_empty_rows():
    at = _data_page()
    _edit(at, {"edited_rows": {0: {"model_a": 0.99}}})
    at.number_input(key="example_add_n").set_value(3)
    at.button(key="example_add").click().run()
    assert not at.exception, at.exception
    grid = at.main.data_editor[0].value
    assert len(grid) == 11
    assert grid.iloc[8:, :3].isna().all().all()
    assert grid["model_a"].iloc[0] == 0.99
    assert len(_current(at)) == 8  # empty rows are not part of the table
    assert _current(at)["model_a"].iloc[0] == 0.99
    # Fill one added row and apply: it joins the table.
    _edit(at, {"edited_rows": {9: {"label": 1, "model_a": 0.5, "model_b": 0.5}}})
    at.button(key="example_apply").click().run()
    assert len(_current(at)) == 9
    assert _current(at).iloc[8].tolist() == [1, 0.5, 0.5]


def test_delete_ticked_rows_and_rows_by_number():
    at = _data_page()
    _edit(at, {"edited_rows": {0: {"delete": True}, 1: {"model_a": 0.81}}})
    at.text_input(key="example_delete_rows").input("4-5")
    at.button(key="example_delete").click().run()
    assert not at.exception, at.exception
    want = ex.DEFAULT.drop(index=[0, 3, 4]).reset_index(drop=True)
    want.loc[0, "model_a"] = 0.81
    pd.testing.assert_frame_equal(_current(at), want, check_dtype=False)
    pd.testing.assert_frame_equal(_linked(at), want, check_dtype=False)
    assert [s.value for s in at.success] == ["Deleted 3 rows (1, 4, 5)."]
    assert at.text_input(key="example_delete_rows").value == ""
    assert not at.main.data_editor[0].value["delete"].any()


def test_ticks_survive_apply_and_a_bad_row_number_deletes_nothing():
    at = _data_page()
    _edit(at, {"edited_rows": {6: {"delete": True}}})
    at.button(key="example_apply").click().run()
    assert at.main.data_editor[0].value["delete"].tolist() == [False] * 6 + [True, False]
    at.text_input(key="example_delete_rows").input("12")
    at.button(key="example_delete").click().run()
    assert [e.value for e in at.error] == [
        "There is no row 12: the grid has rows 1 to 8. Nothing was deleted."
    ]
    assert len(_current(at)) == 8
    at.text_input(key="example_delete_rows").input("")
    at.button(key="example_delete").click().run()
    assert len(_current(at)) == 7
    assert _current(at)["model_a"].tolist()[-1] == 0.1


def test_deleting_every_row_is_refused():
    at = _data_page()
    at.text_input(key="example_delete_rows").input("1-8")
    at.button(key="example_delete").click().run()
    assert [e.value for e in at.error] == [
        "That would delete every row; a table needs at least one."
    ]
    assert len(_current(at)) == 8


def test_paste_add_below_keeps_the_rows_and_needs_as_many_models():
    at = _data_page()
    at.segmented_control(key="example_paste_mode").set_value("Add below")
    at.text_area(key="example_paste").input("1,0.55\n")
    at.button(key="example_load").click().run()
    assert [e.value for e in at.error] == [
        "The pasted rows have 1 score column; the table has 2. Paste as many, or choose "
        "'Replace the table'. The table is unchanged."
    ]
    at.text_area(key="example_paste").input("1,0.55,0.45\n0,0.05,0.95\n")
    at.button(key="example_load").click().run()
    assert not at.exception, at.exception
    assert len(_current(at)) == 10
    assert _current(at).iloc[8:].to_numpy(dtype=float).tolist() == [[1, 0.55, 0.45],
                                                                  [0, 0.05, 0.95]]  # fmt: skip


def test_an_old_link_opens_the_same_table_in_the_editor():
    table = _table([1, 0, 1, 0], [0.9, 0.8, 0.3, 0.1])
    at = _data_page(ex.encode(table))
    assert at.segmented_control(key="source").value == "Your example"
    pd.testing.assert_frame_equal(_current(at), table)
    grid = at.main.data_editor[0].value
    assert (
        grid[["label", "model_a"]].to_numpy(dtype=float).tolist()
        == table.to_numpy(dtype=float).tolist()
    )

"""Reading uploads and mapping columns: every problem is a clear message, never a traceback."""

from __future__ import annotations

import gzip
import io

import numpy as np
import pandas as pd
import pytest

from ui.compute.reading import read_table
from ui.tables.checking import prepare
from ui.tables.loading import ColumnMapping, LoadError, guess_mapping


def csv(text: str) -> bytes:
    return text.encode()


@pytest.mark.parametrize(
    ("name", "data"),
    [
        ("comma.csv", csv("label,a,b\n1,0.9,0.2\n0,0.1,0.4\n")),
        ("tab.tsv", csv("label\ta\tb\n1\t0.9\t0.2\n0\t0.1\t0.4\n")),
        ("semi.csv", csv("label;a;b\n1;0,9;0,2\n0;0,1;0,4\n")),
        ("bom.csv", b"\xef\xbb\xbf" + csv("label,a,b\n1,0.9,0.2\n0,0.1,0.4\n")),
        ("g.csv.gz", gzip.compress(csv("label,a,b\n1,0.9,0.2\n0,0.1,0.4\n"), mtime=0)),
    ],
)
def test_formats_read_to_the_same_table(name, data):
    frame, _ = read_table(name, data)
    assert list(frame.columns) == ["label", "a", "b"]
    assert frame["a"].astype(float).tolist() == [0.9, 0.1]
    assert frame["b"].astype(float).tolist() == [0.2, 0.4]


def test_parquet():
    buf = io.BytesIO()
    pd.DataFrame({"label": [1, 0], "s": [0.3, 0.2]}).to_parquet(buf)
    frame, notes = read_table("x.parquet", buf.getvalue())
    assert frame.shape == (2, 2)
    assert notes == []


@pytest.mark.parametrize(
    ("name", "data", "message"),
    [
        ("e.csv", b"", r"e.csv is empty"),
        ("h.csv", csv("label,a\n"), r"has a header but no data rows"),
        ("r.csv", csv("label,a\n1,0.5\n0,0.2,7\n"), r"line 3 has 3 fields but the header has 2"),
        ("b.csv", bytes(range(256)), r"not a text table"),
        ("n.csv.gz", csv("label,a\n1,2\n"), r"named \.gz but is not gzip-compressed"),
        ("t.csv.gz", gzip.compress(csv("label,a\n1,2\n"), mtime=0)[:12], r"cannot be decompressed"),
        ("one.csv", csv("label a\n1 0.5\n0 0.1\n"), r"single column"),
        ("p.parquet", b"PAR1garbage", r"looks like Parquet but cannot be read"),
    ],
)
def test_unreadable_files_say_why(name, data, message):
    with pytest.raises(LoadError, match=message):
        read_table(name, data)


def test_latin1_and_duplicate_names_are_noted():
    frame, notes = read_table("l.csv", "label,café,café\n1,0.5,0.1\n0,0.2,0.3\n".encode("latin-1"))
    assert list(frame.columns) == ["label", "café", "café.1"]
    assert any("Latin-1" in n for n in notes)
    assert any("appears more than once" in n for n in notes)


def test_guess_mapping_roles():
    frame = pd.DataFrame(
        {
            "user_id": ["u1", "u2"],
            "clicked": [1, 0],
            "m1": [0.2, 0.7],
            "m2": [0.5, 0.1],
            "weight": [1.0, 2.0],
        }
    )
    m = guess_mapping(frame)
    assert (m.label, m.scores, m.group, m.weight, m.pos_label) == (
        "clicked",
        ("m1", "m2"),
        "user_id",
        "weight",
        1,
    )
    yes = guess_mapping(pd.DataFrame({"outcome": ["No", "Yes", "No"], "p": [0.1, 0.9, 0.3]}))
    assert (yes.label, yes.pos_label) == ("outcome", "Yes")
    wide = guess_mapping(
        pd.DataFrame(
            {"label_a": [1, 0], "score_a": [0.1, 0.2], "label_b": [0, 1], "score_b": [0.3, 0.4]}
        )
    )
    assert wide.classes == ("a", "b")
    assert wide.labels == ("label_a", "label_b")


def test_prepare_lists_every_problem_with_rows_and_can_drop_them():
    frame = pd.DataFrame(
        {
            "y": pd.array([1, 0, None, 1, 0], dtype="Int64"),
            "s": pd.array([0.1, None, 0.3, 0.4, 0.5], dtype="Float64"),
            "t": ["0.1", "x", "0.3", "0.4", "0.5"],
        }
    )
    prepared = prepare(frame, ColumnMapping(label="y", scores=("s",)))
    messages = " ".join(p.message for p in prepared.problems)
    assert not prepared.ok
    assert "Score column 's' has 1 missing value (row 2)" in messages
    assert "Label column 'y' has 1 missing value (row 3)" in messages
    fixed = prepare(frame, ColumnMapping(label="y", scores=("s",)), drop_bad_rows=True)
    assert fixed.ok
    assert fixed.n_dropped == 2
    np.testing.assert_array_equal(fixed.y, [True, True, False])
    text = prepare(frame, ColumnMapping(label="y", scores=("t",)), drop_bad_rows=True)
    assert any("non-numeric" in p.message for p in text.problems) is False
    bad = prepare(frame.iloc[[0, 1, 3]], ColumnMapping(label="y", scores=("t",)))
    assert "Score column 't' has 1 non-numeric value (row 2, e.g. 'x')" in bad.problems[0].message


def test_prepare_label_problems():
    frame = pd.DataFrame({"y": [0, 1, 2], "s": [0.1, 0.2, 0.3], "w": [1.0, -1.0, 1.0]})
    p = prepare(frame, ColumnMapping(label="y", scores=("s",), weight="w"))
    messages = " ".join(x.message for x in p.problems)
    assert "has 3 distinct values (0, 1, 2)" in messages
    assert "Weight column 'w' has 1 negative value (row 2)" in messages
    absent = prepare(frame.iloc[:2], ColumnMapping(label="y", scores=("s",), pos_label="yes"))
    assert "does not occur in 'y'" in absent.problems[0].message
    one = prepare(frame.iloc[:1], ColumnMapping(label="y", scores=("s",), pos_label=0))
    assert one.ok
    assert "one class only" in one.problems[-1].message


def test_encodings_are_judged_on_the_whole_file_not_only_the_decoded_head():
    from ui.compute.reading import HEAD_BYTES

    row = "0,0.25,café\n"
    size = len(row.encode())
    name = "name"
    while (HEAD_BYTES - len(f"label,score,{name}\n")) % size != 11:  # cut inside the é
        name += "_"
    rows = HEAD_BYTES // size + 10
    utf8 = (f"label,score,{name}\n" + row * rows).encode()
    with pytest.raises(UnicodeDecodeError):
        utf8[:HEAD_BYTES].decode("utf-8")
    frame, notes = read_table("t.csv", utf8)
    assert len(frame) == rows
    assert set(frame[name]) == {"café"}
    assert notes == []
    # a Latin-1 byte past the head: the whole file is read as Latin-1, and said so
    latin = utf8 + "1,0.75,caf\xe9\n".encode("latin-1")
    frame, notes = read_table("t.csv", latin)
    assert len(frame) == rows + 1
    assert frame[name].iloc[-1] == "café"
    assert frame[name].iloc[0] == "cafÃ©"  # the UTF-8 bytes, read as Latin-1
    assert any("Latin-1" in n for n in notes)


# --- hostile tables (issue 20) ------------------------------------------------------------------


def test_an_empty_table_is_a_sentence_not_a_crash():
    frame = pd.DataFrame({"label": pd.array([], dtype="Int64"), "model_a": np.zeros(0)})
    prepared = prepare(frame, ColumnMapping(label="label", scores=("model_a",)))
    assert [p.message for p in prepared.problems] == ["The table has no data rows."]


def test_scores_beyond_1e300_are_bad_rows_that_can_be_dropped():
    frame = pd.DataFrame({"y": [1, 0, 1, 0], "s": [1e308, -1e308, 0.7, 0.2]})
    mapping = ColumnMapping(label="y", scores=("s",))
    prepared = prepare(frame, mapping)
    assert not prepared.ok
    assert prepared.problems[0].message.startswith(
        "Score column 's' has 2 values beyond ±1e+300 (rows 1, 2, e.g. 1e+308)"
    )
    kept = prepare(frame, mapping, drop_bad_rows=True)
    assert kept.ok
    assert kept.n_dropped == 2
    np.testing.assert_array_equal(kept.scores["s"], [0.7, 0.2])


def test_a_table_without_rows_says_so_before_asking_for_a_score_column():
    frame = pd.DataFrame({"column0": pd.array([], dtype="string")})
    prepared = prepare(frame, guess_mapping(frame))
    assert [p.message for p in prepared.problems] == ["The table has no data rows."]


def test_classes_of_a_multi_class_label_keep_the_files_order():
    """Twelve numeric classes in score_0 ... score_11 order, and named classes in the author's
    order: never sorted as text ('0', '1', '10', '11', '2', ...)."""
    rng = np.random.default_rng(0)
    y = np.arange(48) % 12
    frame = pd.DataFrame({"digit": y, **{f"score_{k}": rng.random(48) for k in range(12)}})
    assert guess_mapping(frame).classes == tuple(str(k) for k in range(12))
    names = ["zero", "one", "two"]
    named = pd.DataFrame(
        {
            "word": [names[k] for k in np.arange(9) % 3],
            **{f"score_{n}": rng.random(9) for n in names},
        }
    )
    assert guess_mapping(named).classes == ("zero", "one", "two")


def test_naming_a_binary_label_leaves_no_per_class_models_behind():
    """``app FILE --label y`` on a two-model per-class export (lr__A ... hgb__B): the table is
    binary now, and no score column stays one class of a model (the mapping kept the guess's
    class models, so the pages grouped plain scores into models that no longer exist)."""
    from ui.tables.loading import mapping_with

    rng = np.random.default_rng(0)
    frame = pd.DataFrame({"vote": rng.choice(["A", "B"], 40), "y": rng.integers(0, 2, 40)})
    for m in ("lr", "hgb"):
        for c in "AB":
            frame[f"{m}__{c}"] = rng.random(40)
    assert guess_mapping(frame).class_models == ("lr", "hgb")
    binary = mapping_with(frame, label="y", scores=["lr__A", "hgb__A"])
    assert (binary.label, binary.scores, binary.class_models) == ("y", ("lr__A", "hgb__A"), ())
    assert not binary.per_class
    one_class = mapping_with(frame, label="vote", pos_label="A", scores=["lr__A", "hgb__A"])
    assert (one_class.classes, one_class.class_models) == ((), ())
    assert prepare(frame, binary).ok
    assert prepare(frame, one_class).ok

"""The Server dataset against hostile input: globs that try to leave the data directory, a data
directory whose own path looks like a glob, NUL bytes, crafted summaries, SQL in the memory
setting and in names, list and struct columns, and a second file in the same session.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

import metrics
from tests.apptest_utils import APP
from ui.compute import server_source
from ui.compute.server_source import OutsideRoot, listed, sandboxed

PAYLOAD = "2GB'; COPY (SELECT 42) TO 'pwned.csv'; SET memory_limit='2GB"


def _frame(n: int, seed: int, shift: float = 0.0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    y = (rng.random(n) < 0.4).astype(int)
    y[:2] = [0, 1]
    return pd.DataFrame({"label": y, "score": np.round(rng.normal(size=n) + y + shift, 3)})


@pytest.fixture
def planted(tmp_path):
    """A data directory with sub/a1.csv, sub/a2.csv, sub/b.csv, sub2/a1.csv, top.csv and a
    symlink sub/zlink.csv to a file outside it (997 rows whose scores are shifted)."""
    root = tmp_path / "data"
    for d in ("sub", "sub2"):
        (root / d).mkdir(parents=True)
    frames = {}
    for i, name in enumerate(["sub/a1.csv", "sub/a2.csv", "sub/b.csv", "sub2/a1.csv", "top.csv"]):
        frames[name] = _frame(20 + 7 * i, seed=i)
        frames[name].to_csv(root / name, index=False)
    secret = tmp_path / "outside.csv"
    _frame(997, seed=99, shift=-4.0).to_csv(secret, index=False)
    (root / "sub" / "zlink.csv").symlink_to(secret)
    return root, frames, secret


GLOBS = ["*", "*.csv", "**", "**/*.csv", "*/*", "*/*.csv", "sub/*", "sub/*.csv", "sub/a*.csv",
         "sub*/a1.csv", "sub/a?.csv", "s?b/a1.csv", "sub/[az]*.csv", "sub/[!b]*.csv",
         "sub/[a-z]link.csv", "sub/z*", "sub/zlink.csv", "sub/../sub/a*.csv", "sub/*link*"]  # fmt: skip


@pytest.mark.parametrize("pattern", GLOBS)
def test_no_glob_reads_outside_the_data_directory(planted, pattern):
    root, frames, secret = planted
    try:
        files = sandboxed(pattern, root)
    except OutsideRoot as exc:
        said = str(exc)
        assert "outside the data directory" in said or "No file" in said, said
        return
    assert all(root.resolve() in f.parents for f in files)
    assert secret.resolve() not in files
    approved = [str(f.relative_to(root.resolve())) for f in files]
    t = pd.concat([frames[n] for n in approved], ignore_index=True)
    paths = tuple(str(f) for f in files)
    stamps = tuple(f.stat().st_mtime for f in files)
    s = server_source.summary(paths, stamps, "label", ("score",), None, None, None)
    assert s.rows == len(t)  # the outside file has 997 rows: any of them would show
    assert s.models["score"].auc == metrics.roc_auc_score(t.label, t.score)
    np.testing.assert_array_equal(s.models["score"].table.scores, np.sort(t.score.unique())[::-1])
    d = server_source.delong(paths, stamps, "label", ("score",), None)
    assert (d.n_pos + d.n_neg, d.auc("score")) == (len(t), s.models["score"].auc)


def test_the_globs_that_used_to_leak_now_read_only_their_matches(planted):
    root, frames, _ = planted
    assert [f.name for f in sandboxed("sub/a*.csv", root)] == ["a1.csv", "a2.csv"]
    both = sandboxed("sub*/a1.csv", root)
    assert [str(f.relative_to(root.resolve())) for f in both] == ["sub/a1.csv", "sub2/a1.csv"]
    s = server_source.summary(tuple(str(f) for f in both), (0.0, 0.0), "label", ("score",),
                              None, None, None)  # fmt: skip
    assert s.rows == len(frames["sub/a1.csv"]) + len(frames["sub2/a1.csv"])  # not sub/*.csv
    with pytest.raises(OutsideRoot, match="outside the data directory"):
        sandboxed("sub/*.csv", root)  # the link is among the matches: refused, not skipped


def test_a_data_directory_named_like_a_glob_is_not_its_sibling(tmp_path, monkeypatch):
    root = tmp_path / "r[1]"
    sibling = tmp_path / "r1"
    root.mkdir()
    sibling.mkdir()
    inside = _frame(40, 1)
    inside.to_csv(root / "t.csv", index=False)
    _frame(400, 2, shift=3.0).to_csv(sibling / "t.csv", index=False)
    _frame(50, 3).to_csv(sibling / "only_in_r1.csv", index=False)
    monkeypatch.setenv(server_source.ROOT_ENV, str(root))
    assert listed() == ["t.csv"]
    for pattern in ("*.csv", "t.csv", "*", str(root / "*.csv"), "t.[c]sv"):
        files = sandboxed(pattern, root)
        assert files == [(root / "t.csv").resolve()], pattern
    with pytest.raises(OutsideRoot, match="No file"):
        sandboxed("only_in_r1.csv", root)
    with pytest.raises(OutsideRoot, match="No file"):
        sandboxed("only*", root)
    paths = (str((root / "t.csv").resolve()),)
    s = server_source.summary(paths, (0.0,), "label", ("score",), None, None, None)
    assert (s.rows, s.models["score"].auc) == (
        40,
        metrics.roc_auc_score(inside.label, inside.score),
    )
    head, skipped = server_source.sample(paths, (0.0,))
    assert (len(head), skipped) == (40, ())


@pytest.mark.parametrize("pattern", ["a\x00b.csv", "*\x00", "\x00"])
def test_a_nul_byte_is_a_sentence(planted, pattern):
    root, _, _ = planted
    with pytest.raises(OutsideRoot, match="cannot hold a NUL character"):
        sandboxed(pattern, root)


def test_an_overlong_name_is_a_sentence(planted):
    root, _, _ = planted
    with pytest.raises(OutsideRoot):
        sandboxed("x" * 5000 + ".csv", root)


# --- through the app --------------------------------------------------------------------------


def _server(monkeypatch, root: Path) -> AppTest:
    monkeypatch.setenv(server_source.ROOT_ENV, str(root))
    at = AppTest.from_file(APP, default_timeout=120)
    at.run()
    at.segmented_control(key="source").set_value("Server dataset").run()
    assert not at.exception, at.exception
    return at


def _errors(at: AppTest) -> str:
    """The error boxes' text, without the Markdown escapes (ui.words.safe.md)."""
    return " | ".join(e.value.replace("\\", "") for e in at.error)


def _engine_rows(at: AppTest) -> pd.DataFrame:
    return next(d.value for d in at.dataframe if "distinct scores" in d.value.columns)


def test_a_nul_byte_in_the_glob_box_gives_a_sentence(planted, monkeypatch):
    root, _, _ = planted
    at = _server(monkeypatch, root)
    at.selectbox(key="server_file").set_value("a glob...").run()
    at.text_input(key="server_glob").set_value("sub/a\x00*.csv").run()
    assert not at.exception, at.exception
    assert "NUL character" in _errors(at)


def test_the_memory_setting_cannot_carry_sql(planted, monkeypatch, tmp_path):
    root, _, _ = planted
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv(server_source.MEMORY_ENV, PAYLOAD)
    at = _server(monkeypatch, root)
    at.selectbox(key="server_file").set_value("top.csv").run()
    assert not at.exception, at.exception
    assert "METRICS_LENS_SQL_MEMORY setting" in _errors(at)
    assert "is not a size: give a number and a unit" in _errors(at)
    assert not (tmp_path / "pwned.csv").exists()
    assert not Path("pwned.csv").exists()


def test_hostile_names_and_labels_through_the_server(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    root = tmp_path / "data"
    root.mkdir()
    t = _frame(300, 5)
    name = "s'); COPY (SELECT 42) TO 'pwned.csv'; --"
    pos = "yes'; COPY (SELECT 42) TO 'pwned.csv'; --"
    odd = pd.DataFrame({"y\"; DROP TABLE src; --": np.where(t.label == 1, pos, "no"),
                        name: t.score})  # fmt: skip
    path = root / "t'; --.csv"
    odd.to_csv(path, index=False)
    paths = (str(path),)
    s = server_source.summary(paths, (0.0,), odd.columns[0], (name,), None, None, pos)
    assert s.models[name].auc == metrics.roc_auc_score(t.label, t.score)
    d = server_source.delong(paths, (0.0,), odd.columns[0], (name,), pos)
    assert d.auc(name) == s.models[name].auc
    assert not (tmp_path / "pwned.csv").exists()


def _crafted(root: Path, good: Path, name: str, change) -> None:
    with np.load(good, allow_pickle=False) as data:
        arrays = {k: data[k] for k in data.files}
    header = json.loads(bytes(arrays["header"]).decode())
    change(header, arrays)
    arrays["header"] = np.frombuffer(json.dumps(header).encode(), np.uint8)
    np.savez(root / name, **arrays)


def test_crafted_summaries_are_refused_in_the_app(tmp_path, monkeypatch):
    from metrics.sql import summarize

    root = tmp_path / "data"
    root.mkdir()
    _frame(200, 6).to_csv(tmp_path / "t.csv", index=False)
    good = summarize(str(tmp_path / "t.csv"), "label", ["score"]).save(root / "good.npz")

    def extra_key(h, a):
        next(iter(h["models"].values()))["evil"] = 1

    def lots(h, a):
        h["rows"] = "lots"

    def missing(h, a):
        del a["0_table_neg"]

    def dtype(h, a):
        a["0_table_scores"] = np.array(["x"] * a["0_table_scores"].size)

    for name, change in [("extra.npz", extra_key), ("lots.npz", lots),
                         ("missing.npz", missing), ("dtype.npz", dtype)]:  # fmt: skip
        _crafted(root, good, name, change)
    (root / "junk.npz").write_bytes(b"PK\x03\x04 not really a zip")
    at = _server(monkeypatch, root)
    at.selectbox(key="server_file").set_value("good.npz").run()
    assert not at.exception, at.exception
    assert len(_engine_rows(at)) == 1
    for name in ("extra.npz", "lots.npz", "missing.npz", "dtype.npz", "junk.npz"):
        at.selectbox(key="server_file").set_value(name).run()
        assert not at.exception, (name, at.exception)
        assert f"{name} is not a summary written by metrics.sql" in _errors(at), name


def test_list_and_struct_columns_are_left_out_with_a_note(tmp_path, monkeypatch):
    import pyarrow as pa
    import pyarrow.parquet as pq

    root = tmp_path / "data"
    root.mkdir()
    rng = np.random.default_rng(4)
    n = 400
    y = (rng.random(n) < 0.3).astype(int)
    score = rng.normal(size=n) + y
    table = pa.table({
        "clicked": y, "model_a": score, "user_id": rng.integers(0, 30, n),
        "tags": pa.array([[1, 2]] * n), "meta": pa.array([{"a": 1, "b": "x"}] * n),
    })  # fmt: skip
    pq.write_table(table, root / "nested.parquet")
    at = _server(monkeypatch, root)
    at.selectbox(key="server_file").set_value("nested.parquet").run()
    assert not at.exception, at.exception
    notes = " ".join(c.value for c in at.caption)
    assert "Left out of the column roles" in notes
    assert "tags" in notes
    assert "meta" in notes
    assert at.selectbox(key="server_label").value == "clicked"
    assert "tags" not in at.selectbox(key="server_label").options
    rows = _engine_rows(at).set_index("model")
    assert rows.loc["model_a", "AUC"] == metrics.roc_auc_score(y, score)


def test_each_file_gets_its_own_mapping_and_never_the_sample(tmp_path, monkeypatch):
    root = tmp_path / "data"
    root.mkdir()
    rng = np.random.default_rng(8)
    n = 600
    y = (rng.random(n) < 0.3).astype(int)
    a = pd.DataFrame(
        {
            "clicked": y,
            "model_a": rng.normal(size=n) + y,
            "model_b": rng.normal(size=n) + 0.3 * y,
            "user_id": rng.integers(0, 30, n),
        }
    )
    b = pd.DataFrame({"target": 1 - y, "p_x": rng.random(n), "p_y": rng.random(n) + 0.1 * y})
    c = pd.DataFrame({"is_fraud": y, "risk": rng.normal(size=n) + 2 * y})  # fmt: skip
    a.to_parquet(root / "a.parquet")
    a2 = a.assign(model_a=rng.normal(size=n) + 2 * y, user_id=0)  # the same columns as a
    a2.to_parquet(root / "a2.parquet")
    b.to_csv(root / "b.csv", index=False)
    c.to_csv(root / "c.csv", index=False)
    at = _server(monkeypatch, root)

    def shows(frame: pd.DataFrame, label: str, models: list[str]) -> None:
        assert not at.exception, at.exception
        # No banner (such as "showing the sample"); the Threshold page's rows behind a cell
        # say they need the rows, as on every server dataset.
        said = [i.value for i in at.info if "needs the table's rows" not in i.value]
        assert not said, said
        got = _engine_rows(at).set_index("model")
        assert list(got.index) == models
        for m in models:
            assert got.loc[m, "AUC"] == metrics.roc_auc_score(frame[label], frame[m])

    at.selectbox(key="server_file").set_value("a.parquet").run()
    shows(a, "clicked", ["model_a", "model_b"])
    at.multiselect(key="server_scores").set_value(["model_b"]).run()  # edited by hand
    shows(a, "clicked", ["model_b"])
    at.selectbox(key="server_file").set_value("a2.parquet").run()  # a fresh guess, not a's edit
    shows(a2, "clicked", ["model_a", "model_b"])
    at.selectbox(key="server_file").set_value("b.csv").run()
    assert at.selectbox(key="server_label").value == "target"
    shows(b, "target", ["p_x", "p_y"])
    at.selectbox(key="server_file").set_value("c.csv").run()
    shows(c, "is_fraud", ["risk"])
    at.selectbox(key="server_file").set_value("a.parquet").run()
    shows(a, "clicked", ["model_b"])  # the hand-edited mapping of a.parquet came back
    assert at.selectbox(key="server_model").value == "model_b"


def test_an_empty_csv_and_a_bad_cell_say_what_is_wrong(tmp_path, monkeypatch):
    root = tmp_path / "data"
    root.mkdir()
    (root / "empty.csv").write_bytes(b"")
    rows = 35_000  # past DuckDB's 20,480-row type sniffing, so the bad cell is found late
    with (root / "late.csv").open("w") as f:
        f.write("clicked,model_a\n")
        for i in range(rows):
            f.write(f"{i % 2},{'n/a?' if i + 2 == 30_002 else f'{(i % 97) / 97:.4f}'}\n")
    at = _server(monkeypatch, root)
    at.selectbox(key="server_file").set_value("empty.csv").run()
    assert not at.exception, at.exception
    assert "empty.csv is empty (0 bytes)" in _errors(at)
    at.selectbox(key="server_file").set_value("late.csv").run()
    assert not at.exception, at.exception
    assert "late.csv, line 30,002: column 'model_a' holds 'n/a?', not a number" in _errors(at)

"""metrics.sql against hostile input: file names an engine would glob, SQL in settings, names
and values, summaries crafted by hand, and a CLI that must answer every mistake with exit 2 and
one line (run as a subprocess, as a user runs it).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import duckdb
import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as hst

import metrics
from metrics.sql import (
    SQLInputError,
    delong,
    load_summary,
    memory_limit,
    ranking_summary,
    summarize,
)
from metrics.sql._engine import DuckDBEngine
from metrics.sql._inputs import Sources, literal, resolve_files
from tests.strategies import examples

ROOT = Path(__file__).resolve().parent.parent
PAYLOAD = "2GB'; COPY (SELECT 42) TO 'pwned.csv'; SET memory_limit='2GB"


def _frame(n: int, seed: int, shift: float = 0.0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    y = (rng.random(n) < 0.4).astype(int)
    y[:2] = [0, 1]
    return pd.DataFrame({"label": y, "score": np.round(rng.normal(size=n) + y + shift, 3)})


def _auc(frames: list[pd.DataFrame]) -> tuple[int, float]:
    t = pd.concat(frames, ignore_index=True)
    return len(t), metrics.roc_auc_score(t.label, t.score)


# --- the engine reads exactly the files it is given ------------------------------------------

ODD = ["a*b.csv", "q?.csv", "n[x].csv", "e[!x].csv", "h{1,2}.csv", "p\\*.csv", "c]d.csv",
       "i**j.csv", "l'm.csv", "sp ace.csv", "~t.csv", "c:d.csv", "h#s.csv"]  # fmt: skip
# Files the names above match as globs (or as braces, for Hadoop): never to be read.
DECOYS = ["aXb.csv", "qq.csv", "nx.csv", "ey.csv", "h1.csv", "h2.csv", "pX.csv", "iXj.csv"]


@pytest.fixture
def odd_files(tmp_path):
    """Every odd name with its own table, beside decoys a glob of the names would match."""
    frames = {}
    for i, name in enumerate(ODD + DECOYS):
        f = _frame(30 + i, seed=i, shift=5.0 if name in DECOYS else 0.0)
        f.to_csv(tmp_path / name, index=False)
        frames[name] = f
    return tmp_path, frames


@pytest.mark.parametrize("name", ODD)
def test_a_file_with_glob_characters_is_read_alone(odd_files, name):
    root, frames = odd_files
    s = summarize([str(root / name)], "label", ["score"])
    rows, auc = _auc([frames[name]])
    assert (s.rows, s.models["score"].auc) == (rows, auc)
    # As a single path too: an existing file is taken literally, not as a glob.
    assert summarize(str(root / name), "label", ["score"]).rows == rows


def test_a_list_of_odd_files_reads_exactly_those(odd_files):
    root, frames = odd_files
    s = summarize([str(root / n) for n in ODD], "label", ["score"])
    rows, auc = _auc([frames[n] for n in ODD])
    assert (s.rows, s.models["score"].auc) == (rows, auc)
    d = delong([str(root / n) for n in ODD], "label", ["score"])
    assert d.auc("score") == auc


def test_a_directory_named_like_a_glob_is_not_its_sibling(tmp_path):
    (tmp_path / "r[1]").mkdir()
    (tmp_path / "r1").mkdir()
    inside, sibling = _frame(40, 1), _frame(400, 2, shift=3.0)
    inside.to_parquet(tmp_path / "r[1]" / "t.parquet")
    sibling.to_parquet(tmp_path / "r1" / "t.parquet")
    path = str(tmp_path / "r[1]" / "t.parquet")
    for source in ([path], path):
        s = summarize(source, "label", ["score"])
        assert (s.rows, s.models["score"].auc) == _auc([inside])
    src = Sources([path])
    assert src.linked
    assert os.path.realpath(src.paths[0]) == os.path.realpath(path)
    src.close()
    assert not os.path.exists(src.paths[0])


def test_ranking_reads_exactly_the_listed_files(tmp_path):
    (tmp_path / "r[1]").mkdir()
    (tmp_path / "r1").mkdir()
    rng = np.random.default_rng(3)
    t = pd.DataFrame({"q": np.repeat(np.arange(20), 5), "rel": rng.integers(0, 3, 100),
                      "s": np.round(rng.random(100), 1)})  # fmt: skip
    t.to_csv(tmp_path / "r[1]" / "a.csv", index=False)
    t.assign(rel=0).to_csv(tmp_path / "r1" / "a.csv", index=False)
    got = ranking_summary([str(tmp_path / "r[1]" / "a.csv")], "rel", "s", "q", k=3)
    want = metrics.ranking_report(t.rel, t.s, t.q, k=3)
    assert got.rows == 100
    for name, value in got.means.items():
        assert value == pytest.approx(want.mean(name), abs=1e-12), name


def test_a_python_glob_is_expanded_once(tmp_path):
    for name in ("a1.csv", "a2.csv", "b.csv"):
        _frame(20, 0).to_csv(tmp_path / name, index=False)
    assert [Path(f).name for f in resolve_files(str(tmp_path / "a*.csv"))] == ["a1.csv", "a2.csv"]
    with pytest.raises(SQLInputError, match="no file matches"):
        resolve_files(str(tmp_path / "z*.csv"))
    with pytest.raises(SQLInputError, match="NUL"):
        resolve_files(str(tmp_path / "a\x00.csv"))
    with pytest.raises(SQLInputError, match="at least one file"):
        resolve_files([])


# --- SQL from settings, names and values -----------------------------------------------------


@pytest.mark.parametrize(
    ("value", "want"),
    [("2GB", "2GB"), ("1.5 gib", "1.5GiB"), ("512mb", "512MB"), (" 16MB ", "16MB"),
     ("1000TB", "1000TB")],
)  # fmt: skip
def test_memory_limit_accepts_a_number_and_a_unit(value, want):
    assert memory_limit(value) == want


@pytest.mark.parametrize(
    ("value", "message"),
    [("abc", "not a size"), ("2", "not a size"), ("2 XB", "not a size"), ("-2GB", "not a size"),
     ("99999999TB", "larger than any machine"), ("1001TB", "larger than any machine"),
     ("1KB", "too small"), ("0GB", "too small"), (PAYLOAD, "not a size"), ("2GB;", "not a size"),
     ("1e3GB", "not a size")],
)  # fmt: skip
def test_memory_limit_refuses_anything_else_with_a_sentence(value, message):
    with pytest.raises(SQLInputError, match=message):
        memory_limit(value)


@pytest.fixture
def table(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # where an injected COPY would write pwned.csv
    t = _frame(300, 7)
    path = tmp_path / "t.parquet"
    t.to_parquet(path)
    return path, t


ENTRIES = {
    "summarize": lambda p, m: summarize(p, "label", ["score"], memory_limit=m),
    "delong": lambda p, m: delong(p, "label", ["score"], memory_limit=m),
    "ranking": lambda p, m: ranking_summary(p, "label", "score", "label", memory_limit=m),
    "engine": lambda p, m: DuckDBEngine(m),
}


@pytest.mark.parametrize("entry", list(ENTRIES))
def test_memory_limit_injection_is_refused_at_every_entry(table, entry):
    path, _ = table
    with pytest.raises(SQLInputError, match="not a size"):
        ENTRIES[entry](str(path), PAYLOAD)
    assert not Path("pwned.csv").exists()
    ENTRIES[entry](str(path), "64MB")  # a good value runs


def test_the_memory_limit_reaches_duckdb_as_set():
    eng = DuckDBEngine("1.5GiB")
    assert eng.con.execute("SELECT current_setting('memory_limit')").fetchone()[0] == "1.5 GiB"


HOSTILE_NAMES = [
    "x\"; COPY (SELECT 42) TO 'pwned.csv'; --",
    "x`; COPY (SELECT 42) TO 'pwned.csv'; --",
    "x'); COPY (SELECT 42) TO 'pwned.csv'; --",
    "x\\'); COPY (SELECT 42) TO 'pwned.csv'; --",
]


@pytest.mark.parametrize("name", HOSTILE_NAMES)
def test_hostile_column_names_are_quoted_everywhere(table, name):
    path, t = table
    rng = np.random.default_rng(0)
    odd = t.rename(columns={"label": name, "score": name + "s"}).assign(
        **{name + "g": rng.integers(0, 10, len(t)), name + "w": 1.0}
    )
    odd.to_parquet(path)
    s = summarize(str(path), name, [name + "s"], group=name + "g", weight=name + "w")
    assert s.models[name + "s"].auc == pytest.approx(metrics.roc_auc_score(t.label, t.score))
    assert s.models[name + "s"].gauc == pytest.approx(
        metrics.group_auc_score(t.label, t.score, odd[name + "g"]), abs=1e-12
    )
    assert delong(str(path), name, [name + "s"]).auc(name + "s") == s.models[name + "s"].auc
    r = ranking_summary(str(path), name, name + "s", name + "g", k=3)
    assert r.rows == len(t)
    assert not Path("pwned.csv").exists()


@pytest.mark.parametrize(
    "pos_label",
    ["yes'; COPY (SELECT 42) TO 'pwned.csv'; --", "yes\\'; COPY (SELECT 42) TO 'pwned.csv'; --"],
)
def test_a_hostile_positive_label_is_a_value_not_sql(table, pos_label):
    path, t = table
    words = np.where(t.label == 1, pos_label, "other")
    t.assign(label=words).to_parquet(path)
    s = summarize(str(path), "label", ["score"], pos_label=pos_label)
    assert s.models["score"].auc == metrics.roc_auc_score(t.label, t.score)
    assert s.positive == pos_label
    assert not Path("pwned.csv").exists()


def test_a_hostile_file_name_is_a_path_not_sql(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    t = _frame(100, 8)
    name = "t'); COPY (SELECT 42) TO 'pwned.csv'; --.csv"
    t.to_csv(tmp_path / name, index=False)
    s = summarize([str(tmp_path / name)], "label", ["score"])
    assert s.models["score"].auc == metrics.roc_auc_score(t.label, t.score)
    assert not Path("pwned.csv").exists()


@settings(max_examples=examples(200), deadline=None)
@given(
    hst.text(
        alphabet=hst.characters(blacklist_characters="\x00", blacklist_categories=("Cs",)),
        max_size=30,
    )
)
def test_a_string_literal_reads_back_as_itself_in_duckdb(text):
    con = duckdb.connect()
    assert con.execute(f"SELECT {literal(text)}").fetchone()[0] == text


def test_spark_literals_escape_backslashes_and_quotes():
    assert literal("a'b", "spark") == "'a\\'b'"
    assert literal("a\\", "spark") == "'a\\\\'"
    assert literal("a'b") == "'a''b'"
    with pytest.raises(SQLInputError, match="NUL"):
        literal("a\x00b")


# --- list and struct columns, empty files, a bad cell ----------------------------------------


def test_list_and_struct_columns_cannot_be_the_label_or_the_group(tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    t = _frame(50, 9)
    table = pa.table({
        "label": t.label, "score": t.score,
        "tags": pa.array([[1, 2]] * 50), "meta": pa.array([{"a": 1}] * 50),
    })  # fmt: skip
    pq.write_table(table, tmp_path / "t.parquet")
    path = str(tmp_path / "t.parquet")
    with pytest.raises(SQLInputError, match=r"group column 'tags' is .*list or struct"):
        summarize(path, "label", ["score"], group="tags")
    with pytest.raises(SQLInputError, match=r"label column 'meta' is .*list or struct"):
        summarize(path, "meta", ["score"])
    with pytest.raises(SQLInputError, match=r"'tags' is .*not a number"):
        summarize(path, "label", ["tags"])
    with pytest.raises(SQLInputError, match="query column 'meta'"):
        ranking_summary(path, "label", "score", "meta")
    assert summarize(path, "label", ["score"]).rows == 50  # the other columns still serve


def test_an_empty_file_says_it_is_empty(tmp_path):
    (tmp_path / "e.csv").write_bytes(b"")
    with pytest.raises(SQLInputError, match=r"e\.csv is empty \(0 bytes\)"):
        summarize(str(tmp_path / "e.csv"), "label", ["score"])


def _bad_cell_csv(path: Path, line: int = 60_002, rows: int = 70_000) -> None:
    """A CSV whose ``score`` holds text on one ``line`` (the header is line 1)."""
    with path.open("w") as f:
        f.write("label,score\n")
        for i in range(rows):
            f.write(f"{i % 2},{'oops' if i + 2 == line else f'{i / rows:.6f}'}\n")


def test_a_bad_cell_names_its_column_and_line(tmp_path):
    _bad_cell_csv(tmp_path / "big.csv")
    with pytest.raises(SQLInputError) as e:
        summarize(str(tmp_path / "big.csv"), "label", ["score"])
    text = str(e.value)
    assert "\n" not in text
    assert "big.csv, line 60,002: column 'score' holds 'oops', not a number" in text
    assert "fix that cell, or empty it" in text


# --- a summary file crafted by hand ----------------------------------------------------------


@pytest.fixture
def saved(tmp_path):
    t = _frame(200, 10).assign(user=np.arange(200) % 7)
    t.to_parquet(tmp_path / "t.parquet")
    s = summarize(str(tmp_path / "t.parquet"), "label", ["score"], group="user")
    return s.save(tmp_path / "good.npz")


def _rewrite(src: Path, dst: Path, header=None, drop=(), change=None) -> Path:
    with np.load(src, allow_pickle=False) as data:
        arrays = {k: data[k] for k in data.files}
    h = json.loads(bytes(arrays["header"]).decode())
    if header:
        header(h)
    arrays["header"] = np.frombuffer(json.dumps(h).encode(), np.uint8)
    for k in drop:
        del arrays[k]
    for k, v in (change or {}).items():
        arrays[k] = v
    np.savez(dst, **arrays)
    return dst


def _meta(h):
    return next(iter(h["models"].values()))


CRAFTED = {
    "extra metadata key": (dict(header=lambda h: _meta(h).update(evil=1)), "exactly the fields"),
    "extra header key": (dict(header=lambda h: h.update(evil=1)), "unknown keys 'evil'"),
    "rows as text": (dict(header=lambda h: h.update(rows="lots")), "'rows' is 'lots'"),
    "missing header key": (dict(header=lambda h: h.pop("cap")), "no 'cap'"),
    "auc as text": (dict(header=lambda h: _meta(h).update(auc="high")), "'auc' is 'high'"),
    "missing arrays": (dict(drop=["0_table_pos"]), "lacks some of its arrays"),
    "no table at all": (
        dict(drop=["0_table_scores", "0_table_pos", "0_table_neg"]),
        "no per-score table",
    ),
    "scores as text": (dict(change={"0_table_scores": np.array(["a"] * 3)}), "0_table_scores"),
    "2-d counts": (dict(change={"0_table_pos": np.ones((2, 2))}), "0_table_pos"),
    "unknown array": (dict(change={"9_table_pos": np.ones(2)}), "unknown array"),
    "wrong format": (dict(header=lambda h: h.update(format="x")), "format"),
}


@pytest.mark.parametrize("case", list(CRAFTED))
def test_a_crafted_summary_is_refused_with_a_sentence(saved, tmp_path, case):
    kwargs, message = CRAFTED[case]
    bad = _rewrite(saved, tmp_path / "bad.npz", **kwargs)
    with pytest.raises(ValueError, match=message) as e:
        load_summary(bad)
    assert "\n" not in str(e.value)
    assert "bad.npz" in str(e.value)


def test_pickles_non_zips_and_huge_summaries_are_refused(saved, tmp_path):
    assert load_summary(saved).rows == 200
    pickled = tmp_path / "pickled.npz"
    with np.load(saved) as data:
        arrays = {k: data[k] for k in data.files}
    arrays["0_groups_group"] = np.array([object()], dtype=object)
    np.savez(pickled, **arrays)
    with pytest.raises(ValueError, match=r"not a summary written by metrics\.sql"):
        load_summary(pickled)
    (tmp_path / "text.npz").write_text("hello")
    with pytest.raises(ValueError, match=r"not a summary written by metrics\.sql"):
        load_summary(tmp_path / "text.npz")
    with pytest.raises(ValueError, match="once uncompressed"):
        load_summary(saved, max_bytes=100)
    with zipfile.ZipFile(tmp_path / "empty.npz", "w"):
        pass
    with pytest.raises(ValueError, match="no header"):
        load_summary(tmp_path / "empty.npz")


# --- the CLI: exit 2 and one line, for every mistake ------------------------------------------


def _cli(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "metrics.sql", *args],
        cwd=cwd, capture_output=True, text=True, timeout=120,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )  # fmt: skip


def _one_line(r: subprocess.CompletedProcess, message: str) -> None:
    assert r.returncode == 2, (r.returncode, r.stderr)
    # A run slower than the command's hold (a loaded machine, or a refusal that comes after the
    # work, as writing to /dev/full does) shows its progress lines first; the refusal is still
    # one line, and nothing else is printed.
    lines = [line for line in r.stderr.splitlines() if not line.startswith("[metrics.sql] ")]
    assert len(lines) == 1, r.stderr
    assert lines[0].startswith("error: "), lines[0]
    assert message in lines[0], lines[0]
    assert "Traceback" not in r.stderr
    assert r.stdout == ""


@pytest.fixture
def data_file(tmp_path):
    t = _frame(500, 11)
    rng = np.random.default_rng(1)
    t = t.assign(user=rng.integers(0, 20, len(t)))
    path = tmp_path / "t.csv"
    t.to_csv(path, index=False)
    return path, t


BASE = ["--label", "label", "--score", "score"]


@pytest.mark.slow  # starts the command (or a JVM): not in make test-fast
def test_cli_out_refuses_an_existing_file_unless_forced(data_file, tmp_path):
    path, t = data_file
    out = tmp_path / "s.npz"
    out.write_bytes(b"keep me")
    _one_line(_cli(str(path), *BASE, "--out", str(out)), "exists: pass --force")
    assert out.read_bytes() == b"keep me"
    r = _cli(str(path), *BASE, "--out", str(out), "--force", "--json")
    assert r.returncode == 0, r.stderr
    assert load_summary(out).models["score"].auc == metrics.roc_auc_score(t.label, t.score)
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".part")]


@pytest.mark.parametrize("how", ["same", "link", "glob"])
@pytest.mark.slow  # starts the command (or a JVM): not in make test-fast
def test_cli_out_never_replaces_an_input(data_file, tmp_path, how):
    path, _ = data_file
    before = path.read_bytes()
    out, source = path, str(path)
    if how == "link":
        out = tmp_path / "alias.csv"
        out.symlink_to(path)
    elif how == "glob":
        source = str(tmp_path / "*.csv")
    _one_line(_cli(source, *BASE, "--out", str(out), "--force"), "is an input file")
    assert path.read_bytes() == before


@pytest.mark.parametrize(
    ("target", "force", "message"),
    [("missing/s.npz", False, "does not exist; create it first"),
     (".", False, "is a directory"),
     ("/dev/full", True, "cannot write the summary to /dev/full: No space left on device"),
     ("/dev/full", False, "exists: pass --force")],
)  # fmt: skip
@pytest.mark.slow  # starts the command (or a JVM): not in make test-fast
def test_cli_out_where_it_cannot_write(data_file, tmp_path, target, force, message):
    path, _ = data_file
    out = target if target.startswith("/") else str(tmp_path / target)
    _one_line(_cli(str(path), *BASE, "--out", out, *(["--force"] if force else [])), message)


@pytest.mark.parametrize(
    ("value", "message"),
    [("abc", "--memory-limit 'abc' is not a size"),
     ("99999999TB", "larger than any machine"),
     (PAYLOAD, "is not a size")],
)  # fmt: skip
@pytest.mark.slow  # starts the command (or a JVM): not in make test-fast
def test_cli_memory_limit(data_file, tmp_path, value, message):
    path, _ = data_file
    _one_line(_cli(str(path), *BASE, "--memory-limit", value, cwd=tmp_path), message)
    assert not (tmp_path / "pwned.csv").exists()


@pytest.mark.slow  # starts the command (or a JVM): not in make test-fast
def test_cli_list_and_struct_columns(tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    t = _frame(50, 12)
    pq.write_table(pa.table({"label": t.label, "score": t.score, "tags": pa.array([[1]] * 50),
                             "meta": pa.array([{"a": 1}] * 50)}), tmp_path / "t.parquet")  # fmt: skip
    path = str(tmp_path / "t.parquet")
    _one_line(_cli(path, *BASE, "--group", "tags"), "group column 'tags' is BIGINT[]")
    _one_line(_cli(path, "--label", "meta", "--score", "score"), "label column 'meta' is STRUCT")


@pytest.mark.slow  # starts the command (or a JVM): not in make test-fast
def test_cli_empty_csv_and_a_bad_cell(tmp_path):
    (tmp_path / "empty.csv").write_bytes(b"")
    _one_line(_cli(str(tmp_path / "empty.csv"), *BASE), "empty.csv is empty (0 bytes)")
    _bad_cell_csv(tmp_path / "big.csv")
    _one_line(
        _cli(str(tmp_path / "big.csv"), *BASE),
        "big.csv, line 60,002: column 'score' holds 'oops', not a number",
    )


@pytest.mark.slow  # starts the command (or a JVM): not in make test-fast
def test_cli_usage_mistakes_are_one_line_too(data_file):
    path, _ = data_file
    _one_line(_cli(str(path), "--score", "score"), "the following arguments are required")
    _one_line(_cli(str(path), *BASE, "--cap", "x"), "invalid int value")
    _one_line(_cli(str(path) + ".nope", *BASE), "does not exist")


@pytest.mark.slow  # starts the command (or a JVM): not in make test-fast
def test_cli_success_still_reports_progress(data_file):
    path, t = data_file
    r = _cli(str(path), *BASE, "--json", "--verbose")
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["models"]["score"]["auc"] == metrics.roc_auc_score(t.label, t.score)
    assert "[metrics.sql] done in" in r.stderr


# --- Spark: the same files and values ---------------------------------------------------------


@pytest.mark.slow  # starts the command (or a JVM): not in make test-fast
def test_spark_reads_exactly_the_listed_files_and_quotes_values(odd_files, monkeypatch):
    """Hadoop expands globs and braces in a path and Spark's parser reads a backslash in a string
    as an escape: odd file names and a label made of quotes and backslashes, on local Spark."""
    from metrics.sql import local_spark

    root, frames = odd_files
    monkeypatch.chdir(root)
    spark = local_spark()
    spark.sparkContext.setLogLevel("ERROR")
    try:
        names = ["h{1,2}.csv", "n[x].csv", "a*b.csv", "c:d.csv", "p\\*.csv", "h#s.csv"]
        s = summarize([str(root / n) for n in names], "label", ["score"], engine="spark",
                      spark=spark)  # fmt: skip
        assert (s.rows, s.models["score"].auc) == _auc([frames[n] for n in names])
        t = _frame(200, 13)
        pos = "yes\\'; x' OR 1=1 --"
        t.assign(label=np.where(t.label == 1, pos, "no")).to_csv(root / "w.csv", index=False)
        got = summarize([str(root / "w.csv")], "label", ["score"], pos_label=pos,
                        engine="spark", spark=spark)  # fmt: skip
        assert got.models["score"].auc == metrics.roc_auc_score(t.label, t.score)
        for text in ("a'b", "a\\", "a\\'b", "'; --", "\\\\'"):
            assert spark.sql(f"SELECT {literal(text, 'spark')} AS v").collect()[0].v == text
    finally:
        spark.stop()

"""Issue 50 §6, tried as an attacker would: ``app FILE`` with odd names, and a second model's
file whose labels or ids do not match the first's. Each is one sentence (exit 2 for the
command, before any server starts)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from metrics_lens.cli import main
from ui.compute.reading import read_path
from ui.tables.loading import LoadError, guess_mapping
from ui.tables.model_files import add_model_file


@pytest.mark.parametrize(
    ("name", "says"),
    [
        ("missing.csv", "missing.csv: no such file."),
        ("folder", "folder is a directory; give a CSV or Parquet file."),
        ("~", "~: no such file (a ~ is expanded by the shell, not here"),
        ("~/scores.csv", "~/scores.csv: no such file (a ~ is expanded by the shell"),
        ("https://example.org/a.csv", "https://example.org/a.csv is a URL; only a local file is"),
        ("file:///etc/passwd", "file:///etc/passwd is a URL; only a local file is read"),
        ("", "The file name is empty; give a CSV or Parquet file."),
    ],
)
def test_app_with_an_odd_name_says_what_it_is_in_one_line(name, says, tmp_path, monkeypatch,
                                                         capsys):  # fmt: skip
    monkeypatch.chdir(tmp_path)
    (tmp_path / "folder").mkdir()
    assert main(["app", name, "--no-browser"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1, err
    assert says in err.replace("\\", "")


def test_a_file_named_like_an_option_is_told_how_to_be_given(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "-x.csv").write_text("label,score\n1,0.9\n0,0.1\n")
    with pytest.raises(SystemExit) as caught:
        main(["app", "-x.csv", "--no-browser"])
    assert caught.value.code == 2
    err = capsys.readouterr().err
    assert "give a file whose name starts with - as ./-x.csv, or after --" in err
    frame, _ = read_path("./-x.csv")  # as the sentence says: read
    assert frame.shape == (2, 2)


def _first(n: int = 200) -> pd.DataFrame:
    rng = np.random.default_rng(0)
    return pd.DataFrame({"id": np.arange(n), "label": rng.integers(0, 2, n),
                         "prod": rng.random(n)})  # fmt: skip


def test_a_second_file_with_a_repeated_id_is_refused_not_taken_in_order():
    """Before: the id column was no key (not unique in the second file), so the rows were
    taken in the same order, the second file's row 200 (id 0) scored as the first's id 199."""
    first = _first()
    second = first.assign(id=np.r_[np.arange(199), [0]], new=0.5).drop(columns="prod")
    with pytest.raises(LoadError, match=r"new\.csv's 'id' repeats 1 value where old\.csv's "
                                        r"holds one a row: the files cannot be matched"):  # fmt: skip
        add_model_file(first, guess_mapping(first), "old.csv", second, "new.csv")


def test_a_second_file_with_other_label_values_says_so():
    first = _first()
    second = first.assign(label=np.where(first.label == 1, "yes", "no"), new=0.5)
    with pytest.raises(LoadError, match=r"new\.csv's 'label' holds other values than old\.csv's "
                                        r"\('no', 'yes' against 0, 1\): give both files the same"):  # fmt: skip
        add_model_file(first, guess_mapping(first), "old.csv", second.drop(columns="prod"),
                       "new.csv")  # fmt: skip


def test_a_second_file_with_shuffled_labels_names_the_first_row_as_written():
    first = _first().drop(columns="id")
    second = first.assign(label=np.roll(first.label.to_numpy(), 1), new=0.5)
    with pytest.raises(LoadError, match=r"differs from old\.csv's on \d+ rows \(the first: row "
                                        r"\d+, [01] against [01]\)"):  # fmt: skip
        add_model_file(first, guess_mapping(first), "old.csv", second.drop(columns="prod"),
                       "new.csv")  # fmt: skip


def test_a_second_file_with_the_same_ids_in_another_order_is_matched():
    first = _first()
    second = first.iloc[::-1].assign(new=lambda f: f["prod"] * 2).drop(columns="prod")
    merged, _, notes = add_model_file(first, guess_mapping(first), "old.csv", second,
                                            "new.csv")  # fmt: skip
    np.testing.assert_allclose(merged["new"], first["prod"] * 2)
    assert "rows matched on 'id'" in notes[0]

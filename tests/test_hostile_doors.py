"""Every door reads files as carefully as the upload (issue 32 §1-3, issue 39 §3).

- ``check``, ``report`` and ``app`` refuse a device, a named pipe and a link to either in one
  sentence, exit 2, without reading (``/dev/zero`` took 5.3 GB; a pipe blocked in ``open``);
- no command writes over the file it reads, through a symbolic or a hard link either;
- every bound (resamples, seed, slices, header width, memory limit) is refused before the work,
  exit 2, one sentence, and stated in ``--help``;
- Parquet bombs that pass the file-size check are refused from their metadata and dictionaries
  before being decoded, in a process that stays far below what they decode to; nested columns
  are never expanded;
- a small upload is parsed while a large one is still being read;
- a file name is that file, never a glob.

The hostile files are built by :mod:`tests.hostile_payloads`.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from pathlib import Path

import pandas as pd
import pytest

from metrics_lens import cli
from metrics_lens.cli import main
from tests import hostile_payloads as payloads
from ui.compute import budget, parse_lanes
from ui.compute.reading import read_path, read_table
from ui.tables.loading import LoadError, TooLarge

ROOT = Path(__file__).resolve().parent.parent
MB = 1024 * 1024

NOT_REGULAR = r"is not a regular file \(a device, a named pipe or a socket, or a link to one\)"


def _scores(tmp_path: Path, name: str = "scores.csv") -> Path:
    path = tmp_path / name
    path.write_bytes(payloads.scores_csv())
    return path


def _commands(path: str, tmp_path: Path) -> dict[str, list[str]]:
    return {
        "check": ["check", path, "--baseline", "model_a", "--candidate", "model_b",
                  "--metric", "auc", "--resamples", "100"],
        "report": ["report", path, "-o", str(tmp_path / "r.html"), "--resamples", "100"],
        "app": ["app", path, "--no-browser"],
    }  # fmt: skip


def _one_error(capsys, command: str) -> str:
    err = capsys.readouterr().err
    assert err.startswith(f"metrics-lens {command}: error: "), err
    assert err.count("\n") == 1, err
    assert "Traceback" not in err
    return err


# --- not a regular file ------------------------------------------------------------------------


@pytest.mark.parametrize("command", ["check", "report", "app"])
@pytest.mark.parametrize("target", ["/dev/zero", "/dev/urandom", "link to /dev/zero"])
def test_a_device_or_a_link_to_one_is_refused_without_reading(tmp_path, capsys, command, target):
    if target.startswith("link"):
        path = tmp_path / "zero.csv"
        path.symlink_to("/dev/zero")
    else:
        path = Path(target)
    code = main(_commands(str(path), tmp_path)[command])
    assert code == 2
    err = _one_error(capsys, command)
    assert path.name in err
    assert "is not a regular file" in err


@pytest.mark.parametrize("command", ["check", "report", "app"])
def test_a_named_pipe_is_refused_and_never_opened(tmp_path, command):
    """In a child process with a generous deadline: opening a pipe would wait forever."""
    pipe = payloads.fifo(tmp_path / "scores.csv")
    proc = subprocess.run(
        [sys.executable, "-m", "metrics_lens", *_commands(str(pipe), tmp_path)[command]],
        capture_output=True, text=True, timeout=120, cwd=ROOT,
        env=dict(os.environ, PYTHONPATH=str(ROOT)),
    )  # fmt: skip
    assert proc.returncode == 2, proc.stderr
    assert "scores.csv is not a regular file" in proc.stderr
    assert proc.stderr.count("\n") == 1
    assert "Traceback" not in proc.stderr


def test_the_reader_refuses_devices_pipes_and_directories_in_a_sentence(tmp_path):
    with pytest.raises(LoadError, match=f"/dev/zero {NOT_REGULAR}"):
        read_path("/dev/zero")
    with pytest.raises(LoadError, match=f"p.csv {NOT_REGULAR}"):
        read_path(payloads.fifo(tmp_path / "p.csv"))
    with pytest.raises(LoadError, match="is a directory; give a CSV or Parquet file"):
        read_path(tmp_path)
    with pytest.raises(LoadError, match=r"nothing\.csv: no such file"):
        read_path(tmp_path / "nothing.csv")


def test_a_file_larger_than_the_budget_allows_is_refused_before_it_is_read(tmp_path):
    path = _scores(tmp_path)
    size = path.stat().st_size
    with pytest.raises(TooLarge, match=r"scores.csv is 0 MB, more than the 0 MB read from one"):
        read_path(path, max_bytes=size - 1)
    frame, _ = read_path(path, max_bytes=size)
    assert list(frame.columns) == ["label", "model_a", "model_b"]


# --- never write over the input ----------------------------------------------------------------


@pytest.mark.parametrize("how", ["same path", "symbolic link", "hard link", "dot path"])
def test_report_never_writes_over_the_file_it_reads(tmp_path, capsys, how):
    data = _scores(tmp_path)
    before = data.read_bytes()
    out = {
        "same path": data,
        "symbolic link": tmp_path / "link.html",
        "hard link": tmp_path / "hard.html",
        "dot path": tmp_path / "." / "scores.csv",
    }[how]
    if how == "symbolic link":
        out.symlink_to(data)
    if how == "hard link":
        os.link(data, out)
    code = main(["report", str(data), "-o", str(out), "--resamples", "100"])
    assert code == 2
    err = _one_error(capsys, "report")
    assert "is the input file" in err
    assert "would destroy the data" in err
    assert data.read_bytes() == before


# --- bounds, before the work ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("option", "message"),
    [
        (["--resamples", "1000000000"], "--resamples: must be from 100 to 100,000, got 1,000,000,000"),
        (["--resamples", "10"], "--resamples: must be from 100 to 100,000, got 10"),
        (["--seed", "-1"], "--seed: must be from 0 to 4,294,967,295, got -1"),
        (["--seed", "x"], "--seed: takes a whole number, got 'x'"),
    ],
)  # fmt: skip
@pytest.mark.parametrize("command", ["check", "report"])
def test_resamples_and_seed_out_of_bounds_exit_2_in_one_line(tmp_path, capsys, command, option,
                                                              message):  # fmt: skip
    argv = _commands(str(_scores(tmp_path)), tmp_path)[command]
    argv = [a for a in argv if a not in ("--resamples", "100")] + option
    with pytest.raises(SystemExit) as stop:
        main(argv)
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert message in err
    assert err.count("\n") == 1


def test_a_slice_of_200k_distinct_values_is_refused_before_any_mask(tmp_path, capsys,
                                                                    monkeypatch):  # fmt: skip
    import metrics_lens.check as check

    def never(*a, **k):
        raise AssertionError("the gate ran")

    monkeypatch.setattr(check, "gate", never)
    path = payloads.many_values_csv(tmp_path / "many.csv")
    code = main(["check", str(path), "--baseline", "model_a", "--candidate", "model_b",
                 "--metric", "auc", "--slice", "row_id"])  # fmt: skip
    assert code == 2
    err = _one_error(capsys, "check")
    assert "--slice row_id has 200,000 distinct values; the gate slices at most 200" in err


def test_a_header_cell_of_200k_characters_is_refused(tmp_path, capsys):
    with pytest.raises(
        LoadError, match=r"has a header row of 200,\d{3} characters or more; at most"
    ):
        read_table("wide.csv", payloads.wide_header_csv())
    path = tmp_path / "wide.csv"
    path.write_bytes(payloads.wide_header_csv())
    for command in ("check", "report", "app"):
        assert main(_commands(str(path), tmp_path)[command]) == 2
        assert "at most 100,000 are read" in _one_error(capsys, command)


@pytest.mark.parametrize("limit", ["１GB", "2ＧB", "1٫5GB", "٢GB"])
def test_a_memory_limit_with_non_ascii_digits_is_refused(tmp_path, capsys, limit):
    path = _scores(tmp_path)
    code = main(["sql", str(path), "--label", "label", "--score", "model_a",
                 "--memory-limit", limit])  # fmt: skip
    assert code == 2
    err = capsys.readouterr().err
    assert f"the --memory-limit {limit!r} is not a size" in err
    assert err.count("\n") == 1
    assert "Traceback" not in err


@pytest.mark.parametrize("command", ["check", "report"])
def test_help_states_every_bound(capsys, command):
    with pytest.raises(SystemExit):
        main([command, "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "100 to 100,000" in text
    assert "0 to 4,294,967,295" in text
    assert "never a glob" in text
    assert "100,000-character header" in text
    if command == "check":
        assert "at most 200 distinct values" in text


def test_sql_says_it_takes_a_glob(capsys):
    with pytest.raises(SystemExit):
        main(["--help"])
    assert "takes a glob" in " ".join(capsys.readouterr().out.split())


# --- Parquet bombs -----------------------------------------------------------------------------


@pytest.mark.parametrize("builder", ["dictionary_bomb", "delta_bomb"])
def test_a_parquet_text_bomb_is_refused_before_it_is_decoded(builder):
    data = getattr(payloads, builder)()
    assert len(data) < 1 * MB
    with pytest.raises(
        TooLarge, match=r"has a text column, 'note', that decodes to more than 64 MB"
    ):
        read_table("bomb.parquet", data, max_bytes=64 * MB)


def test_a_few_rows_of_long_text_are_read():
    data = payloads.dictionary_bomb(rows=1_000, length=2_000)  # 2 MB of text: fine
    frame, _ = read_table("notes.parquet", data, max_bytes=64 * MB)
    assert frame.shape == (1_000, 3)
    assert frame["note"].iloc[0] == "x" * 2_000


# The child's own peak is VmHWM, its memory map's high-water mark: getrusage's ru_maxrss
# carries over exec the RSS of the process that started it (a test worker holding 1 GB).
READ_IN_A_CHILD = """
import json, re, sys
from pathlib import Path
from ui.compute.reading import read_path
from ui.tables.loading import LoadError
try:
    read_path(sys.argv[1], max_bytes=int(sys.argv[2]))
    outcome = "read"
except LoadError as exc:
    outcome = str(exc)
peak_kb = int(re.search(r"VmHWM:\\s+(\\d+) kB", Path("/proc/self/status").read_text())[1])
print(json.dumps({"outcome": outcome, "peak_mb": peak_kb / 1024}))
"""


def test_refusing_the_dictionary_bomb_stays_far_below_what_it_decodes_to(tmp_path):
    """1M rows of one 2,000-character value: 2 GB decoded. The refusal's whole process
    (Python, pandas, pyarrow included) peaks well under the 1 GB budget."""
    path = tmp_path / "bomb.parquet"
    path.write_bytes(payloads.dictionary_bomb())
    proc = subprocess.run(
        [sys.executable, "-c", READ_IN_A_CHILD, str(path), str(256 * MB)],
        capture_output=True, text=True, timeout=300, cwd=ROOT,
        env=dict(os.environ, PYTHONPATH=str(ROOT)),
    )  # fmt: skip
    result = json.loads(proc.stdout.strip().splitlines()[-1])
    assert "has a text column, 'note', that decodes to more than 256 MB" in result["outcome"]
    assert result["peak_mb"] < 512, result


def test_a_list_column_is_not_expanded_and_takes_no_role():
    """50,000 elements a row in a 1 kB file: the column stays out of the read."""
    frame, notes = read_table("pixels.parquet", payloads.list_bomb())
    assert frame.shape == (200, 3)
    assert set(frame["pixels"]) == {"(list<element: int8>, not read)"}
    assert notes == [
        "1 column of lists or structs ('pixels') cannot be a label, score, group or weight; "
        "not read, ignored."
    ]
    assert budget.nbytes(frame) < MB


def test_a_parquet_file_of_nested_columns_only_says_what_it_holds():
    import io

    import pyarrow as pa
    import pyarrow.parquet as pq

    buf = io.BytesIO()
    pq.write_table(pa.table({"a": [[1], [2]], "b": [{"x": 1}, {"x": 2}]}), buf)
    with pytest.raises(LoadError, match=r"holds only lists, structs or maps \(a: list<"):
        read_table("lists.parquet", buf.getvalue())


# --- one student's large file does not stall a small one -------------------------------------


def test_a_small_upload_is_parsed_while_a_large_one_is_being_read(monkeypatch):
    """The large parse is held inside its lane (it waits on an event, as a slow file would);
    a 16 kB table parses meanwhile. With one lock for every parse (before issue 32) the small
    one waited behind the large one."""
    import ui.compute.reading as loading

    inside, release = threading.Event(), threading.Event()
    real = loading._read_csv

    def slow_when_large(name, data, *args):
        if len(data) > parse_lanes.SMALL_PARSE_BYTES:
            inside.set()
            assert release.wait(300), "the test never released the large parse"
        return real(name, data, *args)

    monkeypatch.setattr(loading, "_read_csv", slow_when_large)
    large = b"label,score\n" + b"1,0.5\n0,0.25\n" * (parse_lanes.SMALL_PARSE_BYTES // 13 + 1)
    results = {}

    def read(key, name, data):
        results[key] = read_table(name, data, max_bytes=64 * MB, lane=parse_lanes.parsing)[0]

    big = threading.Thread(target=read, args=("large", "large.csv", large), daemon=True)
    big.start()
    try:
        assert inside.wait(120), "the large parse never started"
        small = threading.Thread(target=read, args=("small", "small.csv", payloads.scores_csv()))
        small.start()
        small.join(120)  # a deadline for "does not hang", not a timing
        assert not small.is_alive(), "the small upload waited behind the large one"
        assert "large" not in results
        assert len(results["small"]) > 500
    finally:
        release.set()
        big.join(120)
    assert len(results["large"]) > 1_000_000


def test_large_parses_still_go_one_at_a_time():
    with parse_lanes.parsing(parse_lanes.SMALL_PARSE_BYTES + 1):
        assert parse_lanes._large_lane.locked()
        taken = parse_lanes._large_lane.acquire(blocking=False)
        assert not taken
    assert not parse_lanes._large_lane.locked()


# --- a file name is that file -----------------------------------------------------------------


def _glob_pair(tmp_path: Path) -> Path:
    """``a[1].csv`` beside ``a1.csv``, with other columns: a glob would read a1.csv."""
    pd.DataFrame({"decoy": [0, 1, 0, 1], "other": [0.1, 0.9, 0.3, 0.4]}).to_csv(
        tmp_path / "a1.csv", index=False
    )
    path = tmp_path / "a[1].csv"
    path.write_bytes(payloads.scores_csv())
    return path


@pytest.mark.parametrize("command", ["check", "report"])
def test_report_and_check_read_the_file_named_with_brackets(tmp_path, capsys, command):
    path = _glob_pair(tmp_path)
    code = main(_commands(str(path), tmp_path)[command])
    assert code in (0, 1), capsys.readouterr().err


def test_app_checks_the_file_named_with_brackets_not_its_glob_twin(tmp_path, monkeypatch):
    path = _glob_pair(tmp_path)
    served = {}
    monkeypatch.setattr("metrics_lens.dashboard.serve", lambda files, **k: served.update(k) or 0)
    assert main(["app", str(path), "--label", "label", "--no-browser"]) == 0
    assert served["rows"] is True
    # Through the engine (a file too large to hold as rows) as well.
    monkeypatch.setattr(budget, "rows_limit", lambda: 100)
    served.clear()
    assert main(["app", str(path), "--label", "label", "--no-browser"]) == 0
    assert (served["label"], served["scores"]) == ("label", ["model_a", "model_b"])
    assert "rows" not in served


def test_the_engine_check_names_the_file_when_its_columns_are_missing(tmp_path, capsys):
    import argparse

    path = _glob_pair(tmp_path)
    args = argparse.Namespace(label="decoy", score=None, group=None, weight=None, pos_label=None)
    with pytest.raises(cli.BadInput, match=r"No column named 'decoy' \(--label\); a\[1\].csv has"):
        cli._validate_for_server(path, args)

"""Progress of long command runs: a redrawn line on a terminal, plain lines with --verbose,
nothing on a pipe or with --json (metrics_lens.progress, and the command under a real pty)."""

from __future__ import annotations

import io
import json
import os
import pty
import select
import subprocess
import sys
import time

import pytest

from metrics_lens.progress import Steps
from tests.lens_browser import ROOT

CANCER = ROOT / "sample_data" / "breast_cancer.csv"


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_lines_name_every_step_with_its_count():
    out = io.StringIO()
    with Steps("check", mode="lines", stream=out) as steps:
        steps.add(2)
        with steps.step("auc · all rows"):
            pass
        with steps.step("ap · all rows"):
            pass
    lines = out.getvalue().splitlines()
    assert [line.split("] ", 1)[1] for line in lines] == ["auc · all rows", "ap · all rows"]
    assert lines[0].startswith("check: 1/2 [")
    assert lines[1].startswith("check: 2/2 [")


def test_a_run_whose_steps_are_known_after_reading_counts_one_way():
    """Issue 55 §3: ``1/1 reading`` and then ``2/3`` were two counts; the total is unknown
    while the table is read (``1/?``) and every later line counts on from there."""
    out = io.StringIO()
    with Steps("check", 1, mode="lines", stream=out, more=True) as steps:
        with steps.step("reading t.csv"):
            pass
        steps.add(2)
        for text in ("auc · all rows", "ap · all rows"):
            with steps.step(text):
                pass
    counts = [line.split(" ", 2)[1] for line in out.getvalue().splitlines()]
    assert counts == ["1/?", "2/3", "3/3"]


def test_off_and_auto_on_a_pipe_write_nothing():
    for mode in ("off", "auto"):
        out = io.StringIO()  # not a terminal
        with Steps("report", mode=mode, stream=out) as steps, steps.step("intervals"):
            pass
        assert out.getvalue() == ""


def test_a_terminal_gets_a_bar_whose_clock_moves_during_one_step():
    out = _Terminal()
    with Steps("check", 1, stream=out) as steps, steps.step("auc · all rows"):
        assert steps.mode == "bar"
        drawn = out.getvalue()
        deadline = time.monotonic() + 10
        while "[00:01]" not in out.getvalue() and time.monotonic() < deadline:
            time.sleep(0.1)  # the redraw thread, not this step, moves the clock
        assert "[00:01]" in out.getvalue()
    assert "check: 0/1" in drawn
    assert "auc · all rows" in drawn


def _in_a_terminal(*args: str, timeout: float = 300) -> tuple[int, str, str]:
    """(exit status, stdout, what the terminal on stderr showed) of ``metrics-lens ARGS``."""
    master, slave = pty.openpty()
    env = {**os.environ, "PYTHONPATH": str(ROOT), "COLUMNS": "120"}
    proc = subprocess.Popen([sys.executable, "-m", "metrics_lens", *args], cwd=ROOT, env=env,
                            stdout=subprocess.PIPE, stderr=slave, text=True)  # fmt: skip
    os.close(slave)
    shown = b""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        ready, _, _ = select.select([master], [], [], 0.5)
        if ready:
            try:
                chunk = os.read(master, 65536)
            except OSError:  # the child closed the terminal
                break
            if not chunk:
                break
            shown += chunk
        elif proc.poll() is not None:
            break
    os.close(master)
    out = proc.communicate(timeout=timeout)[0]
    return proc.returncode, out, shown.decode(errors="replace")


CHECK = ["check", str(CANCER), "--baseline", "naive_bayes", "--candidate", "gradient_boosting",
         "--metric", "auc", "--metric", "ap", "--resamples", "200"]  # fmt: skip


@pytest.mark.slow
def test_check_in_a_terminal_shows_where_it_is_and_json_shows_nothing():
    code, out, shown = _in_a_terminal(*CHECK)
    assert code == 0, shown
    assert "check: " in shown
    assert "auc · all rows" in shown
    assert "ap · all rows" in shown
    assert "PASS" in out or "pass" in out.lower()
    code, out, shown = _in_a_terminal(*CHECK, "--json")
    assert code == 0
    assert json.loads(out)["passed"] is True
    assert shown == ""


@pytest.mark.slow
def test_report_in_a_terminal_shows_its_sections(tmp_path):
    code, out, shown = _in_a_terminal("report", str(CANCER), "-o", str(tmp_path / "r.html"),
                                      "--resamples", "100")  # fmt: skip
    assert code == 0, shown
    assert "report: " in shown
    assert "intervals: 100 paired resamples of rows" in shown
    assert out.startswith("wrote ")


@pytest.mark.slow
def test_a_pipe_gets_the_result_only_and_verbose_gets_lines():
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    run = [sys.executable, "-m", "metrics_lens", *CHECK]
    quiet = subprocess.run(run, cwd=ROOT, env=env, capture_output=True, text=True, check=True)
    assert quiet.stderr == ""
    loud = subprocess.run([*run, "--verbose"], cwd=ROOT, env=env, capture_output=True, text=True,
                          check=True)  # fmt: skip
    counts = [line.split(" ", 2)[1] for line in loud.stderr.splitlines()]
    assert counts == ["1/?", "2/3", "3/3"]  # one count from reading to the last metric
    assert loud.stdout == quiet.stdout


@pytest.mark.slow
def test_sql_in_a_terminal_shows_its_lines_and_json_on_a_pipe_does_not():
    args = ["sql", str(CANCER), "--label", "label", "--score", "naive_bayes"]
    code, _, shown = _in_a_terminal(*args)
    assert code == 0, shown
    assert "[metrics.sql] done in" in shown
    code, out, shown = _in_a_terminal(*args, "--json")
    assert code == 0
    assert json.loads(out)["rows"] == 569
    assert shown == ""


@pytest.mark.slow
def test_app_in_a_terminal_shows_the_file_it_reads_before_serving():
    from tests.lens_browser import free_port

    master, slave = pty.openpty()
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen([sys.executable, "-m", "metrics_lens", "app", str(CANCER),
                             "--no-browser", "--port", str(free_port())], cwd=ROOT, env=env,
                            stdin=subprocess.DEVNULL, stdout=slave, stderr=slave)  # fmt: skip
    os.close(slave)
    shown = b""
    try:
        deadline = time.monotonic() + 120
        while b"http://" not in shown and time.monotonic() < deadline:
            ready, _, _ = select.select([master], [], [], 0.5)
            if ready:
                shown += os.read(master, 65536)
    finally:
        proc.terminate()
        proc.wait(timeout=30)
        os.close(master)
    text = shown.decode(errors="replace")
    assert "http://" in text
    assert text.index("reading breast_cancer.csv") < text.index("http://")

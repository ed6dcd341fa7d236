"""The ``metrics-lens`` command line: every command's bad input, ``sql``, the app's link and
settings, and ``app`` with several files."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tomllib
import urllib.parse

import numpy as np
import pandas as pd
import pytest

import metrics
from metrics_lens import cli, dashboard
from metrics_lens.cli import main
from tests.lens_browser import (
    ROOT,
    announced_url,
    chromium,
    free_port,
    needs_chromium,
    open_options,
    run_module,
    wait_for_app,
)

CANCER = ROOT / "sample_data" / "breast_cancer.csv"


@pytest.fixture
def tables(tmp_path):
    """A good table, a table whose label has one class, and a text file that is no table."""
    rng = np.random.default_rng(5)
    y = rng.random(300) < 0.4
    pd.DataFrame({"label": y.astype(int), "a": rng.random(300) + y, "b": rng.random(300)}).to_csv(
        tmp_path / "good.csv", index=False
    )
    pd.DataFrame({"label": np.zeros(50, int), "a": rng.random(50), "b": rng.random(50)}).to_csv(
        tmp_path / "one_class.csv", index=False
    )
    return tmp_path


COMMANDS = {
    "report": ["-o", "{tmp}/r.html"],
    "check": ["--baseline", "a", "--candidate", "b", "--metric", "auc"],
    "app": ["--no-browser"],
}
PROBLEMS = {
    "missing file": (["{tmp}/nowhere.csv"], "nowhere.csv: no such file."),
    "missing column": (["{tmp}/good.csv", "--label", "nope"], "No column named 'nope'"),
    "one class": (["{tmp}/one_class.csv", "--label", "label"], "need both classes"),
}


@pytest.mark.parametrize("command", list(COMMANDS))
@pytest.mark.parametrize("problem", list(PROBLEMS))
def test_every_command_refuses_bad_input_in_one_line_with_exit_2(tables, capsys, command, problem):
    args, says = PROBLEMS[problem]
    argv = [command, *(a.format(tmp=tables) for a in args + COMMANDS[command])]
    code = main(argv)
    captured = capsys.readouterr()
    assert code == 2
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1, captured.err
    assert lines[0].startswith(f"metrics-lens {command}: error: ")
    assert says in lines[0]


def test_an_unknown_metric_is_refused(tables, capsys):
    code = main(["check", str(tables / "good.csv"), "--baseline", "a", "--candidate", "b",
                 "--metric", "auc", "--metric", "kappa"])  # fmt: skip
    assert code == 2
    err = capsys.readouterr().err
    assert "Unknown metric 'kappa': use auc, ap, gauc" in err


@pytest.mark.parametrize(
    "argv",
    [["check", "x.csv"], ["report", "x.csv"], ["app", "--port", "many"], ["frobnicate"]],
)
def test_argument_errors_are_one_line_too(tables, argv):
    r = run_module(*argv, cwd=tables)
    assert r.returncode == 2
    assert len(r.stderr.strip().splitlines()) == 1, r.stderr
    assert "Traceback" not in r.stderr


def test_no_command_prints_help_and_exits_2(capsys):
    assert main([]) == 2
    assert "app" in capsys.readouterr().out


def test_sql_delegates_to_python_m_metrics_sql(capsys):
    from metrics.sql.__main__ import main as sql_main

    args = [str(CANCER), "--label", "label", "--score", "naive_bayes", "--json"]
    assert main(["sql", *args]) == 0
    ours = json.loads(capsys.readouterr().out)
    assert sql_main(args) == 0
    assert ours == json.loads(capsys.readouterr().out)
    assert main(["sql", str(CANCER), "--label", "nope", "--score", "naive_bayes"]) == 2


def test_the_settings_become_streamlit_flags():
    with open(ROOT / ".streamlit" / "config.toml", "rb") as f:
        config = tomllib.load(f)
    flags = dashboard.config_flags()
    assert "--runner.postScriptGC=false" in flags
    assert len(flags) == sum(len(options) for options in config.values())
    for section, options in config.items():
        for option, value in options.items():
            text = str(value).lower() if isinstance(value, bool) else str(value)
            assert f"--{section}.{option}={text}" in flags
    command = dashboard.streamlit_command(ROOT / "app.py", 8765, "127.0.0.1")
    assert command[1:4] == ["-m", "streamlit", "run"]
    assert "--server.headless=true" in command


def test_the_link_selects_the_server_dataset_with_its_columns():
    url = dashboard.link("http://127.0.0.1:9", "my file.csv", label="y", scores=["a", "b c"],
                         group="user", weight="w", pos_label="yes")  # fmt: skip
    query = urllib.parse.parse_qs(urllib.parse.urlsplit(url).query)
    assert query == {"source": ["server"], "dataset": ["my file.csv"], "label": ["y"],
                     "score": ["a", "b c"], "group": ["user"], "weight": ["w"], "pos": ["yes"],
                     "model": ["a"]}  # fmt: skip


def test_files_are_linked_into_the_data_directory_not_moved(tmp_path):
    (tmp_path / "x").mkdir()
    (tmp_path / "y").mkdir()
    first, second = tmp_path / "x" / "s.csv", tmp_path / "y" / "s.csv"
    first.write_text("label,a\n1,0.5\n0,0.2\n", encoding="utf-8")
    second.write_text("label,a\n0,0.5\n1,0.2\n", encoding="utf-8")
    names = dashboard.place_files([first, second], tmp_path / "data")
    assert names == ["s.csv", "2-s.csv"]
    assert (tmp_path / "data" / "2-s.csv").read_text(encoding="utf-8") == second.read_text(
        encoding="utf-8"
    )
    assert first.exists()
    assert second.exists()


@needs_chromium
def test_app_with_two_files_shows_the_first_and_lists_the_second(tmp_path):
    """From the clone (``python -m metrics_lens``), roles guessed, a group column given."""
    impressions = ROOT / "sample_data" / "user_impressions.csv"
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "metrics_lens", "app", str(impressions), str(CANCER),
         "--group", "user_id", "--no-browser", "--port", str(port)],
        cwd=tmp_path, env=dict(os.environ, PYTHONPATH=str(ROOT)),
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )  # fmt: skip
    try:
        url = announced_url(proc)
        # The bare address opens the file, as rows (it fits the memory budget), as an upload.
        assert not urllib.parse.urlsplit(url).query, url
        frame = pd.read_csv(impressions)
        n_above = int((frame["model_a"] >= 0.5).sum())
        with chromium() as browser:
            page = browser.new_page(viewport={"width": 1400, "height": 1000})
            page.goto(url)
            want = f"{n_above} of {len(frame):,} rows."
            page.get_by_text(want).first.wait_for(timeout=180_000)
            import metrics

            gauc = metrics.group_auc_score(
                frame["clicked"] == 1, frame["model_a"], frame["user_id"]
            )
            # The GAUC page's own address, bare too: a new session opens the file again.
            page.goto(f"{url.rstrip('/')}/gauc")
            page.get_by_text(f"{gauc:.3f}").first.wait_for(timeout=180_000)
            page.get_by_role("radio", name="Server dataset").or_(
                page.get_by_role("button", name="Server dataset")
            ).first.click(timeout=120_000)
            wait_for_app(page, timeout=180_000)
            box = page.locator('[data-testid="stSelectbox"]', has_text="Server file")
            open_options(page, box)
            options = page.get_by_role("option").all_inner_texts()
            assert options[:2] == ["breast_cancer.csv", "user_impressions.csv"]
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def test_a_graded_label_opens_with_every_grade_above_0_positive(tmp_path):
    """`metrics-lens app` on a LETOR-style log links the server dataset with pos '>0', as the
    sidebar guesses it (one engine pass checks it first)."""
    import argparse

    rng = np.random.default_rng(2)
    t = pd.DataFrame({"qid": rng.integers(0, 20, 300), "rel": rng.choice([0, 0, 1, 2, 4], 300),
                      "bm25": rng.normal(size=300)})  # fmt: skip
    t.to_parquet(tmp_path / "letor.parquet")
    args = argparse.Namespace(label=None, score=None, group="qid", weight=None, pos_label=None)
    mapping = cli._validate_for_server(tmp_path / "letor.parquet", args)
    assert (mapping["label"], mapping["pos_label"]) == ("rel", ">0")
    args.pos_label = "4"
    assert cli._validate_for_server(tmp_path / "letor.parquet", args)["pos_label"] == "4"


def test_report_takes_the_guessed_user_column_and_says_so(tmp_path, capsys):
    """The dashboard maps user_impressions' user_id as the group: the report does too (its
    intervals resample users), says so, and --group none leaves it out."""
    from metrics_lens.inputs import load_frame, mapped_table

    sample = str(ROOT / "sample_data" / "user_impressions.csv")
    code = main(["report", sample, "-o", str(tmp_path / "r.html"), "--resamples", "100"])
    out = capsys.readouterr().out
    assert code == 0
    assert "--group user_id" in out
    assert "--group user_id" in (tmp_path / "r.html").read_text(encoding="utf-8")
    frame, _ = load_frame(sample)
    assert mapped_table(frame).mapping.group == "user_id"
    assert mapped_table(frame, group="none").mapping.group is None


def _per_class_tables(tmp_path):
    rng = np.random.default_rng(0)
    y = rng.integers(0, 4, 300)
    scores = {f"score_{k}": rng.random(300) + 0.5 * (y == k) for k in range(4)}
    pd.DataFrame({"digit": y, **scores}).to_csv(tmp_path / "mc.csv", index=False)
    labels = {f"label_{k}": (y == k).astype(int) for k in range(4)}
    pd.DataFrame({**labels, **scores}).to_csv(tmp_path / "pairs.csv", index=False)
    return y, scores


def test_a_multi_class_table_is_refused_with_a_way_out_and_one_class_can_be_scored(tmp_path,
                                                                                  capsys):  # fmt: skip
    """The command scores one binary label: a multi-class or per-class table is refused in a
    sentence that names what does work (the dashboard; one class against the rest), and that
    way out works: --pos-label on a multi-class label, --label label_<class> on pairs, each
    with its own class's score column."""
    from metrics_lens.inputs import load_frame, mapped_table

    y, scores = _per_class_tables(tmp_path)
    for name in ("mc.csv", "pairs.csv"):
        code = main(["report", str(tmp_path / name), "-o", str(tmp_path / "r.html")])
        err = capsys.readouterr().err
        assert code == 2
        assert "open it in the dashboard" in err.lower(), err
        assert "label_<class> / score_<class> layout" not in err
    for name, options in (("mc.csv", {"pos_label": "2"}), ("pairs.csv", {"label": "label_2"})):
        frame, _ = load_frame(tmp_path / name)
        t = mapped_table(frame, **options)
        assert list(t.scores) == ["score_2"]
        np.testing.assert_array_equal(t.y, y == 2)
        assert metrics.roc_auc_score(t.y, t.scores["score_2"]) == metrics.roc_auc_score(
            y == 2, scores["score_2"]
        )


def test_a_weighted_report_says_which_figures_are_weighted(tmp_path, capsys):
    rng = np.random.default_rng(3)
    n = 400
    y = rng.integers(0, 2, n)
    frame = pd.DataFrame({"y": y, "score": rng.random(n) + 0.3 * y,
                          "weight": rng.choice([0.5, 2.0], n), "user_id": rng.integers(0, 40, n)})  # fmt: skip
    frame.to_csv(tmp_path / "w.csv", index=False)
    code = main(["report", str(tmp_path / "w.csv"), "-o", str(tmp_path / "r.html"),
                 "--resamples", "100"])  # fmt: skip
    capsys.readouterr()
    assert code == 0
    text = (tmp_path / "r.html").read_text(encoding="utf-8")
    assert "positives (rows)" in text
    assert "prevalence (weighted)" in text
    assert "each group weighted by its total sample weight" in text

"""Issue 50's file through every door that reads a Parquet file, at a small budget.

The file (a dictionary<string> column of 64 values of 3,000 characters, scaled to 20,000 rows:
60 MB of text from 30 kB on disk) is refused in one sentence by the upload, the second file
("Another model's file"), ``check`` and ``report``; ``app FILE`` hands it to the engine (its
rows would pass the budget), which reads only the label and the scores. With every role named,
``check`` reads only those columns and never decodes the text.
"""

from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from metrics_lens.cli import main
from tests import hostile_payloads as payloads
from tests.apptest_utils import APP, app_command, upload

BUDGET_MB = "16"  # uploads: 3 MB a parse; the commands: 4 MB a file
SENTENCE = "has a text column, 'note', that decodes to more than"


@pytest.fixture(scope="module")
def payload() -> bytes:
    return payloads.categorical_text(rows=20_000)


@pytest.fixture
def small_budget(monkeypatch):
    monkeypatch.setenv("METRICS_LENS_BUDGET_MB", BUDGET_MB)


def _errors(at: AppTest) -> str:
    return " | ".join(e.value.replace("\\", "") for e in at.error)


def test_the_upload_and_the_second_file_refuse_it_in_one_sentence(payload, small_budget):
    at = AppTest.from_file(APP, default_timeout=120)
    upload(at, "scores.parquet", payload)
    assert not at.exception, at.exception
    assert f"scores.parquet {SENTENCE} 3 MB" in _errors(at)
    upload(at, "first.csv", payloads.scores_csv(8 * 1024))  # a table of one's own, then...
    assert not at.exception, at.exception
    at.file_uploader(key="upload_model_file").set_value(
        ("other.parquet", payload, "application/octet-stream")
    ).run()  # ...the file as "Another model's file (same rows)"
    assert not at.exception, at.exception
    assert f"other.parquet {SENTENCE} 3 MB" in _errors(at)


@pytest.mark.parametrize("command", ["check", "report"])
def test_the_commands_refuse_it_in_one_line(payload, small_budget, tmp_path, capsys, command):
    path = tmp_path / "scores.parquet"
    path.write_bytes(payload)
    args = {
        "check": [
            "check",
            str(path),
            "--baseline",
            "prod",
            "--candidate",
            "new",
            "--metric",
            "auc",
        ],
        "report": ["report", str(path), "-o", str(tmp_path / "r.html"), "--resamples", "100"],
    }[command]
    assert main(args) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1, err
    assert f"scores.parquet {SENTENCE} 4 MB" in err


def test_check_with_every_role_named_reads_only_those_columns(payload, small_budget, tmp_path,
                                                               capsys):  # fmt: skip
    path = tmp_path / "scores.parquet"
    path.write_bytes(payload)
    code = main(["check", str(path), "--baseline", "prod", "--candidate", "new", "--metric", "auc", "--label",
                 "label", "--group", "none", "--weight", "none", "--resamples", "100"])  # fmt: skip
    assert code in (0, 1), capsys.readouterr().err  # a verdict, not a refusal
    assert "(20000 rows)" in capsys.readouterr().out


def test_app_file_opens_it_on_the_engine_without_its_text(payload, small_budget, tmp_path,
                                                          monkeypatch):  # fmt: skip
    path = tmp_path / "scores.parquet"
    path.write_bytes(payload)

    def opened(env, url):
        for key, value in env.items():
            if key.startswith("METRICS_LENS"):
                monkeypatch.setenv(key, value)
        assert "source=server" in url  # too large for rows at this budget: the engine's link
        at = AppTest.from_file(APP, default_timeout=120)
        at.run()
        assert not at.exception, at.exception
        return at.session_state["source"]

    args = [str(path), "--label", "label", "--score", "prod", "new", "--no-browser",
            "--port", "8598"]  # fmt: skip
    code, source = app_command(monkeypatch, args, opened)
    assert code == 0
    assert source == "Server dataset"

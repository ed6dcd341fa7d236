"""``--mlflow-run`` only reads: a local tracking store is left byte for byte as it was, a path
that is not a store is refused (exit 2, "No MLflow tracking store at …") with nothing created,
and bad URIs are one sentence. Stores are real ones MLflow writes (sqlite and file)."""

from __future__ import annotations

import hashlib
import importlib.util
import os
import shutil
from pathlib import Path

import pandas as pd
import pytest

import metrics
from metrics_lens.cli import main
from tests.test_mlflow_server import _predictions

# Skipped without the extra; found, not imported: importing MLflow takes 2 s of every
# worker's collection, and the tests import it where they use it.
if importlib.util.find_spec("mlflow") is None:
    pytest.skip('the [mlflow] extra: pip install "metrics-lens[mlflow]"', allow_module_level=True)


def _make_store(tmp: Path, uri: str) -> tuple[str, str, pd.DataFrame]:
    from mlflow.tracking import MlflowClient

    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("MLFLOW_ALLOW_FILE_STORE", "true")  # MLflow 3 writes new file stores only so
        client = MlflowClient(tracking_uri=uri)
        exp = client.create_experiment("lens", artifact_location=(tmp / "artifacts").as_uri())
        run = client.create_run(exp).info.run_id
        frame = _predictions(n=300, seed=1)
        frame.to_csv(tmp / "predictions.csv", index=False)
        client.log_artifact(run, str(tmp / "predictions.csv"))
    return uri, run, frame


@pytest.fixture(scope="module")
def stores(tmp_path_factory):
    a = tmp_path_factory.mktemp("ro_sqlite")
    b = tmp_path_factory.mktemp("ro_file")
    return {
        "sqlite": (a, *_make_store(a, f"sqlite:///{a / 'mlflow.db'}")),
        "file": (b, *_make_store(b, (b / "mlruns").as_uri())),
    }


def snapshot(root: Path) -> dict[str, str]:
    """Every file and folder under ``root``: a file's sha256, a folder's mark."""
    out = {}
    for p in sorted(root.rglob("*")):
        rel = p.relative_to(root).as_posix()
        if p.is_symlink():
            out[rel] = "link " + os.readlink(p)
        elif p.is_dir():
            out[rel] = "dir"
        else:
            out[rel] = hashlib.sha256(p.read_bytes()).hexdigest()
    return out


def check(capsys, *args: str) -> tuple[int, str, str]:
    code = main(["check", *args, "--label", "label", "--baseline", "prod_model",
                 "--candidate", "new_model", "--metric", "auc", "--resamples", "100"])  # fmt: skip
    out, err = capsys.readouterr()
    return code, out, err


def refused(code: int, err: str, says: str) -> None:
    assert code == 2, err
    assert len(err.strip().splitlines()) == 1, err
    assert says in err, err


@pytest.mark.parametrize("kind", ["sqlite", "file"])
def test_reading_a_store_leaves_it_as_it_was(stores, capsys, kind):
    root, uri, run, frame = stores[kind]
    before = snapshot(root)
    code, out, err = check(capsys, "--mlflow-run", run, "--tracking-uri", uri)
    assert code == 0, err
    y = frame["label"].to_numpy() == 1
    assert f"baseline {metrics.roc_auc_score(y, frame['prod_model']):.4f}" in out
    code, _, err = check(capsys, "--mlflow-run", "f" * 32, "--tracking-uri", uri)
    refused(code, err, f"MLflow run '{'f' * 32}' was not found at {uri}.")
    code, _, err = check(capsys, "--mlflow-run", run, "--tracking-uri", uri, "--artifact", "x")
    refused(code, err, "has no table artifact 'x' (its tables: predictions.csv).")
    assert snapshot(root) == before


def test_a_file_store_without_its_trash_folder_gets_none(stores, capsys, tmp_path):
    """MLflow's FileStore makes ``.trash`` whenever it opens a folder; reading must not."""
    root, _, run, _ = stores["file"]
    copy = tmp_path / "copy"
    shutil.copytree(root, copy, symlinks=True)
    shutil.rmtree(copy / "mlruns" / ".trash", ignore_errors=True)
    before = snapshot(copy)
    code, _, err = check(capsys, "--mlflow-run", run, "--tracking-uri", (copy / "mlruns").as_uri())
    assert code == 0, err
    assert snapshot(copy) == before
    assert not (copy / "mlruns" / ".trash").exists()


def _text_file(tmp: Path) -> Path:
    p = tmp / "passwd"
    p.write_text("root:x:0:0:root:/root:/bin/bash\n")
    return p


def _plain_sqlite(tmp: Path) -> Path:
    import sqlite3

    p = tmp / "other.db"
    con = sqlite3.connect(p)
    con.execute("CREATE TABLE t (x)")
    con.commit()
    con.close()
    return p


@pytest.mark.parametrize(
    ("make_uri", "says"),
    [
        (lambda t: (t / "empty").as_uri(), "(a folder without MLflow's experiment folders"),
        (lambda t: str(t / "empty"), "(a folder without MLflow's experiment folders"),
        (lambda t: (t / "new" / "deep" / "dir").as_uri(), "(no such folder)"),
        (lambda t: f"sqlite:///{t / 'new.db'}", "(no such file)"),
        (lambda t: f"sqlite:///{t / 'sub' / 'new.db'}", "(no such file)"),
        (lambda t: f"sqlite:///{_text_file(t)}", "(file is not a database"),
        (lambda t: f"sqlite:///{_plain_sqlite(t)}", "without MLflow's runs and experiments"),
        (lambda t: f"sqlite:///{t / 'empty'}", "(not a file)"),
        (lambda t: "sqlite://", "a SQLite store is sqlite:///relative/path.db"),
        (lambda t: "weird://x", "unknown scheme 'weird'; this command reads file:, sqlite:"),
        (lambda t: "postgresql://u@127.0.0.1/db", "put an `mlflow server` in front"),
        (lambda t: "databricks", "put an `mlflow server` in front"),
        (lambda t: "file://otherhost/x", "a file: store on another machine"),
    ],
)
def test_what_is_not_a_store_is_refused_and_nothing_is_created(capsys, tmp_path, make_uri, says):
    (tmp_path / "empty").mkdir()
    uri = make_uri(tmp_path)
    before = snapshot(tmp_path)
    code, _, err = check(capsys, "--mlflow-run", "0123456789abcdef", "--tracking-uri", uri)
    refused(code, err, says)
    if "(" in says and "scheme" not in says and "server" not in says:
        assert "No MLflow tracking store at" in err
    assert snapshot(tmp_path) == before


def test_a_mistyped_run_with_no_tracking_uri_creates_no_database(capsys, tmp_path, monkeypatch):
    """MLflow's default is sqlite:///mlflow.db in the current folder, which its client creates."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("MLFLOW_TRACKING_URI", raising=False)
    for command in ("check", "report"):
        args = ["--mlflow-run", "0123456789abcdef0123456789abcdef"]
        if command == "check":
            code, _, err = check(capsys, *args)
        else:
            code = main(["report", *args, "-o", str(tmp_path / "r.html")])
            err = capsys.readouterr().err
        refused(code, err, "No MLflow tracking store at sqlite:///mlflow.db (MLflow's default")
    assert list(tmp_path.iterdir()) == []


def test_the_default_store_is_mlruns_when_it_holds_experiments(stores, capsys, monkeypatch):
    root, _, run, _ = stores["file"]
    monkeypatch.chdir(root)
    monkeypatch.delenv("MLFLOW_TRACKING_URI", raising=False)
    code, _, err = check(capsys, "--mlflow-run", run)
    assert code == 0, err


def test_the_environments_tracking_uri_is_used(stores, capsys, monkeypatch):
    _, uri, run, _ = stores["sqlite"]
    monkeypatch.setenv("MLFLOW_TRACKING_URI", uri)
    code, _, err = check(capsys, "--mlflow-run", run)
    assert code == 0, err


@pytest.mark.parametrize("run", ["../x", "a/b", "-x", "x" * 300, "ab\ncd"])
def test_a_run_id_that_is_not_one_is_refused(capsys, run, tmp_path):
    code, _, err = check(capsys, f"--mlflow-run={run}", "--tracking-uri", tmp_path.as_uri())
    refused(code, err, "is not an MLflow run id")


def test_an_artifact_linking_outside_the_run_is_refused(stores, capsys, tmp_path):
    root, _, run, _ = stores["file"]
    copy = tmp_path / "copy"
    shutil.copytree(root, copy, symlinks=True)
    secret = tmp_path / "secret.csv"
    _predictions(n=300, seed=7).to_csv(secret, index=False)
    artifacts = next((copy / "artifacts").rglob("predictions.csv")).parent
    (artifacts / "leak.csv").symlink_to(secret)
    # the run's meta.yaml names the original artifact folder: point it at the copy
    meta = next((copy / "mlruns").rglob(f"{run}/meta.yaml"))
    meta.write_text(meta.read_text().replace(str(root), str(copy)))
    code, _, err = check(
        capsys, "--mlflow-run", run, "--tracking-uri", (copy / "mlruns").as_uri(),
        "--artifact", "leak.csv",
    )  # fmt: skip
    refused(code, err, "links outside the run's artifacts")

"""MLflow runs as a data source, against real local tracking stores the tests create.

A sqlite store (MLflow's default backend) and a file store (``./mlruns``, which MLflow 3 keeps in
maintenance mode) get runs that log predictions as a Parquet or CSV artifact, or as a JSON table
(``MlflowClient.log_table``). A second sqlite store gets the runs ``mlflow.evaluate`` itself
logs for a scikit-learn classifier, in a separate process (it sets MLflow's global tracking URI):
plots and metrics only; the evaluation table whose output column is ``predict()``'s classes (a
decision, not a score); and static data evaluated with ``predictions=`` a score column. No mocks:
the command reads the artifacts from the store and computes on them.
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

import metrics
from metrics_lens.cli import main
from tests.lens_browser import (
    ROOT,
    announced_url,
    chromium,
    free_port,
    needs_chromium,
    wait_for_app,
)

# Skipped without the extra; found, not imported: importing MLflow takes 2 s of every
# worker's collection, and the tests import it where they use it.
if importlib.util.find_spec("mlflow") is None:
    pytest.skip('the [mlflow] extra: pip install "metrics-lens[mlflow]"', allow_module_level=True)


def _predictions(seed: int, n: int = 600) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    y = rng.random(n) < 0.3
    return pd.DataFrame(
        {
            "user": [f"u{k:02d}" for k in rng.integers(0, 40, n)],
            "label": y.astype(int),
            "prod_model": 1 / (1 + np.exp(-(y * 1.2 + rng.normal(size=n)))),
            "new_model": 1 / (1 + np.exp(-(y * 2.0 + rng.normal(size=n)))),
        }
    )


def _store(tmp, uri: str):
    """A run with a Parquet artifact, one with the evaluation table (and a CSV beside it), one
    with two CSVs; returns (uri, {name: (run id, frame)})."""
    from mlflow.tracking import MlflowClient

    client = MlflowClient(tracking_uri=uri)
    exp = client.create_experiment("lens", artifact_location=(tmp / "artifacts").as_uri())
    runs = {}

    run = client.create_run(exp).info.run_id
    frame = _predictions(1)
    frame.to_parquet(tmp / "predictions.parquet", index=False)
    client.log_artifact(run, str(tmp / "predictions.parquet"), artifact_path="eval")
    runs["parquet"] = (run, frame)

    run = client.create_run(exp).info.run_id
    frame = _predictions(2)
    client.log_table(run, frame, "eval_results_table.json")  # the name mlflow.evaluate gives
    _predictions(99).to_csv(tmp / "other.csv", index=False)
    client.log_artifact(run, str(tmp / "other.csv"))
    runs["evaluate"] = (run, frame)

    run = client.create_run(exp).info.run_id
    frame = _predictions(3)
    frame.to_csv(tmp / "valid.csv", index=False)
    _predictions(4).to_csv(tmp / "test.csv", index=False)
    client.log_artifact(run, str(tmp / "valid.csv"))
    client.log_artifact(run, str(tmp / "test.csv"))
    runs["two"] = (run, frame)
    return uri, runs


@pytest.fixture(scope="module")
def sqlite_store(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("mlflow_sqlite")
    return _store(tmp, f"sqlite:///{tmp / 'mlflow.db'}")


@pytest.fixture(scope="module")
def file_store(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("mlflow_file")
    os.environ["MLFLOW_ALLOW_FILE_STORE"] = "true"  # MLflow 3 refuses new file stores otherwise
    return _store(tmp, (tmp / "mlruns").as_uri())


def _check_json(capsys, uri: str, run: str, *extra: str) -> dict:
    code = main(["check", "--mlflow-run", run, "--tracking-uri", uri, "--label", "label",
                 "--baseline", "prod_model", "--candidate", "new_model", "--metric", "auc",
                 "--resamples", "200", "--json", *extra])  # fmt: skip
    out = capsys.readouterr().out
    result = json.loads(out)
    assert code == result["exit_code"]
    return result


@pytest.mark.parametrize("store", ["sqlite_store", "file_store"])
@pytest.mark.parametrize("kind", ["parquet", "evaluate"])
def test_check_reads_a_runs_predictions(request, capsys, store, kind):
    uri, runs = request.getfixturevalue(store)
    run, frame = runs[kind]
    result = _check_json(capsys, uri, run)
    (row,) = result["results"]
    y = frame["label"].to_numpy() == 1
    assert row["rows"] == len(frame)
    assert row["baseline"] == metrics.roc_auc_score(y, frame["prod_model"])
    assert row["candidate"] == metrics.roc_auc_score(y, frame["new_model"])
    assert result["passed"] is True


def test_a_run_with_several_tables_needs_artifact(sqlite_store, capsys):
    uri, runs = sqlite_store
    run, frame = runs["two"]
    code = main(["check", "--mlflow-run", run, "--tracking-uri", uri, "--baseline", "prod_model",
                 "--candidate", "new_model", "--metric", "auc"])  # fmt: skip
    err = capsys.readouterr().err
    assert code == 2
    assert "has 2 table artifacts; pick one with --artifact: test.csv, valid.csv." in err
    result = _check_json(capsys, uri, run, "--artifact", "valid.csv")
    y = frame["label"].to_numpy() == 1
    assert result["results"][0]["baseline"] == metrics.roc_auc_score(y, frame["prod_model"])


def test_a_report_from_a_run(sqlite_store, tmp_path, capsys):
    uri, runs = sqlite_store
    run, frame = runs["parquet"]
    out = tmp_path / "run.html"
    code = main(["report", "--mlflow-run", run, "--tracking-uri", uri, "--group", "user",
                 "-o", str(out), "--resamples", "100"])  # fmt: skip
    assert code == 0, capsys.readouterr().err
    text = out.read_text(encoding="utf-8")
    y = frame["label"].to_numpy() == 1
    gauc = metrics.group_auc_score(y, frame["new_model"], frame["user"])
    assert f'data-metric="GAUC" data-model="new_model"><span class="v">{gauc:.4f}</span>' in text
    assert f"mlflow run {run} · eval/predictions.parquet" in text


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["--mlflow-run", "0123456789abcdef0123456789abcdef"], "was not found"),
        (["--mlflow-run", "RUN", "--artifact", "nope.csv"], "has no table artifact 'nope.csv'"),
        (["--mlflow-run", "RUN", "--label", "nope"], "No column named 'nope'"),
    ],
)
def test_bad_runs_are_one_line_and_exit_2(sqlite_store, capsys, args, says):
    uri, runs = sqlite_store
    args = [runs["parquet"][0] if a == "RUN" else a for a in args]
    code = main(["check", *args, "--tracking-uri", uri, "--baseline", "prod_model",
                 "--candidate", "new_model", "--metric", "auc"])  # fmt: skip
    err = capsys.readouterr().err
    assert code == 2
    assert len(err.strip().splitlines()) == 1
    assert says in err


@needs_chromium
def test_app_opens_a_runs_predictions(sqlite_store, tmp_path):
    """``metrics-lens app --mlflow-run``: the run's table on the dashboard's first page."""
    uri, runs = sqlite_store
    run, frame = runs["evaluate"]
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "metrics_lens", "app", "--mlflow-run", run, "--tracking-uri", uri,
         "--label", "label", "--score", "new_model", "prod_model", "--no-browser",
         "--port", str(port)],
        cwd=tmp_path, env=dict(os.environ, PYTHONPATH=str(ROOT)),
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )  # fmt: skip
    try:
        url = announced_url(proc)
        assert f":{port}/?source=server&dataset=eval_results_table.parquet" in url
        y = frame["label"].to_numpy() == 1
        c = metrics.confusion_at_threshold(y, frame["new_model"], 0.5)
        with chromium() as browser:
            page = browser.new_page(viewport={"width": 1400, "height": 1000})
            page.goto(url)
            wait_for_app(page)
            want = f"Scores ≥ 0.5 are predicted label = 1: {int(c.tp + c.fp)} of {len(frame)} rows."
            page.get_by_text(want).wait_for(timeout=60_000)
            assert page.get_by_role("heading", name="Threshold · new_model").count() == 1
    finally:
        proc.terminate()
        proc.wait(timeout=30)


# --- runs logged by mlflow.evaluate itself ---------------------------------------------------

EVALUATE = """
import sys
import mlflow
import numpy as np
from mlflow.metrics import MetricValue, make_metric
from sklearn.datasets import load_breast_cancer
from sklearn.linear_model import LogisticRegression

mlflow.set_tracking_uri(sys.argv[1])
X, y = load_breast_cancer(return_X_y=True, as_frame=True)
X = X.iloc[:, :4]
model = LogisticRegression(max_iter=5000).fit(X, y)
data = X.assign(target=y)


def per_row(predictions, targets, metrics):
    right = (np.asarray(predictions) == np.asarray(targets)).astype(float)
    return MetricValue(scores=list(right), aggregate_results={"mean": float(right.mean())})


correct = make_metric(eval_fn=per_row, greater_is_better=True, name="correct")
runs = {}
for kind, extra in (("plots", []), ("decisions", [correct])):
    with mlflow.start_run() as run:
        info = mlflow.sklearn.log_model(model, name="model", input_example=X.iloc[:2])
        mlflow.evaluate(info.model_uri, data, targets="target", model_type="classifier",
                        extra_metrics=extra)
    runs[kind] = run.info.run_id
with mlflow.start_run() as run:  # static data: the model's scores as the predictions column
    scored = data.assign(proba=model.predict_proba(X)[:, 1])
    mlflow.evaluate(data=scored, targets="target", predictions="proba", extra_metrics=[correct])
runs["scores"] = run.info.run_id
print(" ".join(f"{k}={v}" for k, v in runs.items()))
"""


@pytest.fixture(scope="module")
def evaluated(tmp_path_factory):
    """(uri, {kind: run id}, the scores the model gave) of runs mlflow.evaluate logged."""
    pytest.importorskip("mlflow.models", reason="mlflow.evaluate needs the full mlflow package")
    from sklearn.datasets import load_breast_cancer
    from sklearn.linear_model import LogisticRegression

    tmp = tmp_path_factory.mktemp("mlflow_evaluate")
    uri = f"sqlite:///{tmp / 'mlflow.db'}"
    out = subprocess.run([sys.executable, "-c", EVALUATE, uri], cwd=tmp, capture_output=True,
                         text=True, timeout=600)  # fmt: skip
    assert out.returncode == 0, out.stderr[-3000:]
    runs = dict(pair.split("=") for pair in out.stdout.split()[-3:])
    X, y = load_breast_cancer(return_X_y=True, as_frame=True)
    X = X.iloc[:, :4]
    proba = LogisticRegression(max_iter=5000).fit(X, y).predict_proba(X)[:, 1]
    return uri, runs, (y.to_numpy() == 1, proba)


def _report(uri: str, run: str, tmp_path, capsys, *extra: str) -> tuple[int, str, str]:
    out = tmp_path / "r.html"
    code = main(["report", "--mlflow-run", run, "--tracking-uri", uri, "-o", str(out),
                 "--resamples", "100", *extra])  # fmt: skip
    err = capsys.readouterr().err
    return code, err, out.read_text(encoding="utf-8") if code == 0 else ""


def test_evaluate_with_only_plots_says_mlflow_kept_no_scores(evaluated, tmp_path, capsys):
    uri, runs, _ = evaluated
    code, err, _ = _report(uri, runs["plots"], tmp_path, capsys)
    assert code == 2
    assert len(err.strip().splitlines()) == 1
    assert "was logged by mlflow.evaluate" in err
    assert "no row's score" in err
    assert "mlflow.log_table" in err


def test_evaluates_table_of_decisions_is_not_a_score(evaluated, tmp_path, capsys):
    """The classifier's evaluation table holds predict()'s 0/1 in 'outputs': a decision. Its
    inputs and the per-row metric are not models either."""
    uri, runs, (y, _) = evaluated
    code, err, _ = _report(uri, runs["decisions"], tmp_path, capsys)
    assert code == 2
    assert len(err.strip().splitlines()) == 1
    assert "'target'" in err
    assert "'outputs'" in err
    assert "a decision, not a score" in err
    # A column named as the score is read, against the label the table's layout gives.
    code, err, text = _report(uri, runs["decisions"], tmp_path, capsys, "--score", "mean radius")
    assert code == 0, err
    from sklearn.datasets import load_breast_cancer

    radius = load_breast_cancer(as_frame=True).frame["mean radius"].to_numpy()
    assert _auc_shown(text, "mean radius") == pytest.approx(metrics.roc_auc_score(y, radius),
                                                            abs=5e-5)  # fmt: skip


def _auc_shown(html: str, model: str) -> float:
    """The AUC the report's table shows for ``model`` (4 decimals)."""
    import re

    found = re.search(rf'data-metric="AUC" data-model="{re.escape(model)}"><span class="v">'
                      r"([0-9.]+)</span>", html)  # fmt: skip
    assert found, f"no AUC cell for {model}"
    return float(found.group(1))


def test_evaluate_on_scores_is_read_with_its_label_and_one_model(evaluated, tmp_path, capsys):
    uri, runs, (y, proba) = evaluated
    code, err, text = _report(uri, runs["scores"], tmp_path, capsys)
    assert code == 0, err
    assert _auc_shown(text, "proba") == pytest.approx(metrics.roc_auc_score(y, proba), abs=5e-5)
    for not_a_model in ("mean radius", "correct/score", "target"):
        assert f'data-model="{not_a_model}"' not in text

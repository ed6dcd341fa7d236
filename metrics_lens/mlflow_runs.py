"""A run's predictions table, read from an MLflow tracking store (:mod:`metrics_lens.mlflow_source`
opens the store, read-only).

A run's predictions reach MLflow in one of two shapes, and both open here:

* a table file logged as an artifact (``mlflow.log_artifact("preds.parquet")``, CSV or
  Parquet, optionally gzipped CSV);
* the evaluation table ``mlflow.evaluate`` writes (``eval_results_table.json``), or any table
  logged with ``mlflow.log_table``: JSON with ``columns`` and ``data``.

A run that logged no table, several tables, or only what ``mlflow.evaluate`` keeps for a
classifier (decisions, not scores) is refused with a sentence that says what to log instead.
"""

from __future__ import annotations

import io
import json
import re
import shutil
import tempfile
from pathlib import Path, PurePosixPath

import pandas as pd

from metrics_lens.inputs import BadInput, load_frame
from metrics_lens.mlflow_source import DEFAULT_TIMEOUT, _check_run_id, _said, open_store

__all__ = [
    "EVAL_TABLE",
    "MAX_JSON_TABLE_BYTES",
    "TABLE_SUFFIXES",
    "evaluation_roles",
    "run_table",
    "table_artifacts",
]

TABLE_SUFFIXES = (".csv", ".csv.gz", ".tsv", ".parquet", ".pq", ".json")
EVAL_TABLE = "eval_results_table.json"
# What mlflow.evaluate logs for a classifier besides metrics (MLflow 3, default evaluator):
# plots, and for more than two classes one row of aggregate metrics per class. None of them is
# a row's score, so none is read as a predictions table.
EVAL_PLOTS = ("roc_curve_plot.png", "precision_recall_curve_plot.png", "lift_curve_plot.png",
              "calibration_curve_plot.png", "confusion_matrix.png")  # fmt: skip
EVAL_AGGREGATES = ("per_class_metrics.csv",)
# The evaluation table's columns that score each row for a metric (a judge's grade, a per-row
# metric), not for the model: "<metric>/score", "<metric>/justification", token_count, latency.
_EVAL_METRIC_COLUMN = re.compile(r"/(score|justification)$")
_EVAL_MEASURES = ("token_count", "latency")
_LOG_SCORES = (
    "log the scores beside them, e.g. mlflow.log_table({'label': y, 'score': "
    "model.predict_proba(X)[:, 1]}, 'predictions.json'), and read that run"
)
MAX_JSON_TABLE_BYTES = 256 * 1024 * 1024  # a JSON table is parsed in Python: ~10x in memory


def table_artifacts(
    run_id: str, *, tracking_uri: str | None = None, timeout: float = DEFAULT_TIMEOUT, store=None
) -> list[str]:
    """The run's artifacts that can hold a predictions table, the evaluation table first."""
    _check_run_id(run_id)
    store = store or open_store(tracking_uri, timeout=timeout)
    store.check_run(run_id)
    paths = [
        p
        for p in store.list(run_id)
        if p.lower().endswith(TABLE_SUFFIXES) and PurePosixPath(p).name not in EVAL_AGGREGATES
    ]
    return sorted(paths, key=lambda p: (PurePosixPath(p).name != EVAL_TABLE, p))


def evaluation_roles(frame: pd.DataFrame, run_id: str, *, score_given: bool = False):
    """(label, score) columns of the evaluation table ``mlflow.evaluate`` wrote.

    Its columns are the evaluation data's inputs, then the label and the model's output, then
    one column per row-level metric (``<metric>/score``...). For a classifier that output is
    ``predict()``: a decision (each row's class), not a score, and threshold-free metrics
    cannot be computed from it, so it is refused with a sentence unless ``score_given`` (the
    user named a score column). A numeric output that is not a class (static data evaluated
    with ``predictions=`` a probability column) is the model's score. The inputs are never
    taken as models.
    """
    columns = [str(c) for c in frame.columns]
    rest = [c for c in columns if not _EVAL_METRIC_COLUMN.search(c) and c not in _EVAL_MEASURES]
    if len(rest) < 2:
        raise BadInput(
            f"The evaluation table of MLflow run {run_id} has no label and output columns "
            f"(its columns: {', '.join(columns[:8])})."
        )
    label, output = rest[-2], rest[-1]
    if score_given:
        return label, None
    values = pd.unique(frame[output].dropna())
    classes = set(pd.unique(frame[label].dropna()).tolist())
    numeric = pd.api.types.is_numeric_dtype(frame[output]) and not pd.api.types.is_bool_dtype(
        frame[output]
    )
    if not numeric or set(values.tolist()) <= classes | {0, 1}:
        kind = (
            "the class predict() gave each row"
            if numeric or set(values.tolist()) <= classes
            else "text"
        )
        raise BadInput(
            f"The evaluation table of MLflow run {run_id} (mlflow.evaluate's) holds the label "
            f"{label!r} and the model's output {output!r}, which is {kind}: a "
            "decision, not a score, so AUC, AP and the curves cannot be computed from it; "
            "mlflow.evaluate keeps no classifier scores. Name a score column with --score, or "
            + _LOG_SCORES
            + "."
        )
    return label, output


def _read_json_table(path: Path) -> pd.DataFrame:
    size = path.stat().st_size
    if size > MAX_JSON_TABLE_BYTES:
        raise BadInput(
            f"{path.name} is {size / 1024 / 1024:,.0f} MB; JSON tables are read up to "
            f"{MAX_JSON_TABLE_BYTES / 1024 / 1024:,.0f} MB (log the predictions as Parquet "
            "with mlflow.log_artifact)."
        )
    try:
        obj = json.loads(path.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise BadInput(f"{path.name} is not a JSON table: {_said(exc)}.") from None
    if isinstance(obj, dict) and "columns" in obj and "data" in obj:
        try:
            return pd.DataFrame(obj["data"], columns=obj["columns"])
        except (ValueError, TypeError) as exc:
            raise BadInput(f"{path.name} is not a JSON table: {_said(exc)}.") from None
    try:
        return pd.read_json(io.StringIO(json.dumps(obj)))
    except ValueError:
        raise BadInput(
            f"{path.name} is JSON but not a table (expected the columns/data layout "
            "mlflow.log_table and mlflow.evaluate write)."
        ) from None


def run_table(
    run_id: str,
    *,
    tracking_uri: str | None = None,
    artifact: str | None = None,
    into: str | Path | None = None,
    timeout: float = DEFAULT_TIMEOUT,
) -> tuple[pd.DataFrame, str, Path]:
    """(table, a name for it, the file read) of a run's predictions artifact.

    ``artifact`` picks one artifact path when the run logged several tables. A local store's
    file is read where it is; a server's is downloaded into ``into`` (a new temporary
    directory when omitted). ``timeout`` bounds a server read, every request together.
    """
    _check_run_id(run_id)
    store = open_store(tracking_uri, timeout=timeout)
    candidates = table_artifacts(run_id, store=store)
    if artifact is None:
        if not candidates:
            logged = {PurePosixPath(p).name for p in store.list(run_id)}
            evaluated = sorted(logged & set(EVAL_PLOTS + EVAL_AGGREGATES))
            if evaluated:
                raise BadInput(
                    f"MLflow run {run_id} was logged by mlflow.evaluate: it holds metrics and "
                    f"{', '.join(evaluated[:3])}{', ...' if len(evaluated) > 3 else ''} but "
                    "no row's score (mlflow.evaluate keeps none for a classifier); "
                    + _LOG_SCORES
                    + "."
                )
            raise BadInput(
                f"MLflow run {run_id} has no table artifact (CSV, Parquet or the JSON table "
                "mlflow.evaluate or mlflow.log_table writes)."
            )
        evaluation = [p for p in candidates if PurePosixPath(p).name == EVAL_TABLE]
        if len(candidates) > 1 and len(evaluation) != 1:
            raise BadInput(
                f"MLflow run {run_id} has {len(candidates)} table artifacts; pick one with "
                f"--artifact: {', '.join(candidates[:8])}."
            )
        artifact = evaluation[0] if evaluation else candidates[0]
    elif artifact not in candidates:
        raise BadInput(
            f"MLflow run {run_id} has no table artifact {_said(artifact, 120)!r}"
            + (f" (its tables: {', '.join(candidates[:8])})." if candidates else ".")
        )
    made = into is None
    target = Path(into) if into is not None else Path(tempfile.mkdtemp(prefix="metrics-lens-"))
    target.mkdir(parents=True, exist_ok=True)
    try:
        local = store.fetch(run_id, artifact, target)
    except BaseException:
        if made:
            shutil.rmtree(target, ignore_errors=True)
        raise
    name = f"mlflow run {run_id} · {artifact}"
    if local.name.lower().endswith(".json"):
        return _read_json_table(local), name, local
    frame, _ = load_frame(local)
    return frame, name, local

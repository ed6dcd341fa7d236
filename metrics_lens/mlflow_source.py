"""Predictions logged to MLflow: a table artifact of a run, read from any tracking store.

A run's predictions reach MLflow in one of two shapes, and both open here:

* a table file logged as an artifact (``mlflow.log_artifact("preds.parquet")``, CSV or
  Parquet, optionally gzipped CSV);
* the evaluation table ``mlflow.evaluate`` writes (``eval_results_table.json``), or any table
  logged with ``mlflow.log_table``: JSON with ``columns`` and ``data``.

The tracking store is ``tracking_uri`` when given, else ``MLFLOW_TRACKING_URI``, else MLflow's
default. A local file store (``file:`` or a plain directory such as ``./mlruns``) is read even
though MLflow 3 keeps that backend in maintenance mode (``MLFLOW_ALLOW_FILE_STORE`` is set for
this process); ``sqlite:`` stores and tracking servers need nothing more.

mlflow is an optional dependency: ``pip install "metrics-lens[mlflow]"``.
"""

from __future__ import annotations

import io
import json
import os
import tempfile
from pathlib import Path

import pandas as pd

from metrics_lens.inputs import BadInput, load_frame

__all__ = ["TABLE_SUFFIXES", "run_table", "table_artifacts"]

TABLE_SUFFIXES = (".csv", ".csv.gz", ".tsv", ".parquet", ".pq", ".json")
EVAL_TABLE = "eval_results_table.json"


def _mlflow():
    try:
        import mlflow
    except ImportError:
        raise BadInput(
            'Reading MLflow runs needs mlflow: pip install "metrics-lens[mlflow]".'
        ) from None
    return mlflow


def _client(tracking_uri: str | None):
    mlflow = _mlflow()
    uri = tracking_uri or os.environ.get("MLFLOW_TRACKING_URI") or mlflow.get_tracking_uri()
    if uri.startswith("file:") or "://" not in uri:
        os.environ.setdefault("MLFLOW_ALLOW_FILE_STORE", "true")  # reading an existing store
    from mlflow.tracking import MlflowClient

    return MlflowClient(tracking_uri=uri), uri


def _walk(client, run_id: str, path: str | None = None) -> list[str]:
    out = []
    for info in client.list_artifacts(run_id, path):
        if info.is_dir:
            out += _walk(client, run_id, info.path)
        else:
            out.append(info.path)
    return out


def table_artifacts(run_id: str, *, tracking_uri: str | None = None) -> list[str]:
    """The run's artifacts that can hold a predictions table, the evaluation table first."""
    client, uri = _client(tracking_uri)
    try:
        client.get_run(run_id)
    except Exception as exc:  # MlflowException, or a store error for a malformed id
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise BadInput(f"MLflow run {run_id!r} was not found at {uri}: {first}") from None
    paths = [p for p in _walk(client, run_id) if p.lower().endswith(TABLE_SUFFIXES)]
    return sorted(paths, key=lambda p: (Path(p).name != EVAL_TABLE, p))


def _read_json_table(path: Path) -> pd.DataFrame:
    try:
        obj = json.loads(path.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise BadInput(f"{path.name} is not a JSON table: {exc}.") from None
    if isinstance(obj, dict) and "columns" in obj and "data" in obj:
        return pd.DataFrame(obj["data"], columns=obj["columns"])
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
) -> tuple[pd.DataFrame, str, Path]:
    """(table, a name for it, the downloaded file) of a run's predictions artifact.

    ``artifact`` picks one artifact path when the run logged several tables. The file is
    downloaded into ``into`` (a new temporary directory when omitted).
    """
    client, uri = _client(tracking_uri)
    candidates = table_artifacts(run_id, tracking_uri=uri)
    if artifact is None:
        if not candidates:
            raise BadInput(
                f"MLflow run {run_id} has no table artifact (CSV, Parquet or the JSON table "
                "mlflow.evaluate or mlflow.log_table writes)."
            )
        evaluation = [p for p in candidates if Path(p).name == EVAL_TABLE]
        if len(candidates) > 1 and len(evaluation) != 1:
            raise BadInput(
                f"MLflow run {run_id} has {len(candidates)} table artifacts; pick one with "
                f"--artifact: {', '.join(candidates[:8])}."
            )
        artifact = evaluation[0] if evaluation else candidates[0]
    elif artifact not in candidates:
        raise BadInput(
            f"MLflow run {run_id} has no table artifact {artifact!r}"
            + (f" (its tables: {', '.join(candidates[:8])})." if candidates else ".")
        )
    target = Path(into) if into is not None else Path(tempfile.mkdtemp(prefix="metrics-lens-"))
    target.mkdir(parents=True, exist_ok=True)
    try:
        local = Path(client.download_artifacts(run_id, artifact, str(target)))
    except Exception as exc:
        raise BadInput(f"Cannot download {artifact} of MLflow run {run_id}: {exc}") from None
    name = f"mlflow run {run_id} · {artifact}"
    if local.suffix.lower() == ".json":
        return _read_json_table(local), name, local
    frame, _ = load_frame(local)
    return frame, name, local

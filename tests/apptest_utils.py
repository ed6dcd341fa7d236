"""Shared helpers for the AppTest page tests: open a page on a dataset, read what it shows."""

from __future__ import annotations

import base64
import io
import json
import os
import re
from pathlib import Path

import numpy as np
import pandas as pd
from streamlit.testing.v1 import AppTest

APP = str(Path(__file__).resolve().parent.parent / "app.py")


def open_page(page: str, dataset: str | None = None, model: str | None = None) -> AppTest:
    """The app on ``page`` (a pages/*.py path), optionally on a bundled dataset and model."""
    at = AppTest.from_file(APP, default_timeout=60)
    # One run, straight onto the page, as a link opens it: the sidebar's widgets read the
    # dataset and the model from the session state their keys name.
    if dataset is not None:
        at.session_state["dataset"] = dataset
    if model is not None:
        at.session_state["model"] = model
    at.switch_page(page).run()
    assert not at.exception, at.exception
    if dataset is not None:
        assert at.selectbox(key="dataset").value == dataset
    if model is not None:
        assert at.selectbox(key="model").value == model
    return at


def metric_value(at: AppTest, label: str) -> str:
    return next(m.value for m in at.metric if m.label == label)


def figures(at: AppTest) -> list[dict]:
    """Every plotly chart's figure as sent to the browser (arrays may be base64 typed arrays)."""
    return [json.loads(c.proto.spec) for c in at.get("plotly_chart")]


def decode_arrays(value):
    """Plotly sends numeric arrays as {"dtype", "bdata": base64}: back to lists."""
    if isinstance(value, dict) and "bdata" in value:
        array = np.frombuffer(base64.b64decode(value["bdata"]), dtype=value["dtype"])
        return array.reshape(value["shape"]).tolist() if "shape" in value else array.tolist()
    if isinstance(value, dict):
        return {k: decode_arrays(v) for k, v in value.items()}
    if isinstance(value, list):
        return [decode_arrays(v) for v in value]
    return value


def markdown_text(at: AppTest) -> str:
    return "\n".join(m.value for m in at.markdown)


def latex(at: AppTest) -> list[str]:
    return [e.value.strip("$\n") for e in at.latex]


def upload(at: AppTest, name: str, content: bytes) -> AppTest:
    """Switch the sidebar to Upload and send a file through the uploader. An app that has not
    run yet opens on the Upload source, as a new visitor who picks it first (one run fewer,
    and no sample read before the file)."""
    if not at._tree.children:
        at.session_state["source"] = "Upload"
        at.run()
        assert at.segmented_control(key="source").value == "Upload"
    else:
        at.segmented_control(key="source").set_value("Upload").run()
    at.file_uploader(key="upload_file").set_value((name, content, "text/csv")).run()
    return at


def upload_frame(at: AppTest, frame: pd.DataFrame, name: str = "scores.csv") -> AppTest:
    buf = io.StringIO()
    frame.to_csv(buf, index=False)
    return upload(at, name, buf.getvalue().encode())


def app_command(monkeypatch, args: list[str], then):
    """``metrics-lens app *args`` in-process, up to the browser. The server process is a
    stand-in that, once the command printed its address, calls ``then(env, url)`` with the
    environment the command gave the server (while its run directory still exists) and exits 0.
    Returns (exit status, what ``then`` returned or None when it did not run)."""
    from metrics_lens import cli, dashboard

    printed = io.StringIO()
    seen: dict = {}

    class Server:
        def __init__(self, command, cwd=None, env=None, **kwargs):
            seen["env"] = dict(env or os.environ)

        def poll(self):
            return None

        def wait(self, timeout=None):
            url = re.search(r"Metrics Lens: (\S+)", printed.getvalue()).group(1)
            seen["result"] = then(seen["env"], url)
            return 0

        def terminate(self):
            pass

        kill = terminate

    monkeypatch.setattr(dashboard.subprocess, "Popen", Server)
    monkeypatch.setattr(dashboard, "wait_healthy", lambda base, proc, timeout=90: True)
    real_serve = dashboard.serve
    monkeypatch.setattr(dashboard, "serve", lambda *a, **k: real_serve(*a, **{**k, "out": printed}))
    code = cli.main(["app", *args])
    return code, seen.get("result")

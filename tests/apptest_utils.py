"""Shared helpers for the AppTest page tests: open a page on a dataset, read what it shows."""

from __future__ import annotations

import base64
import io
import json
from pathlib import Path

import numpy as np
import pandas as pd
from streamlit.testing.v1 import AppTest

APP = str(Path(__file__).resolve().parent.parent / "app.py")


def open_page(page: str, dataset: str | None = None, model: str | None = None) -> AppTest:
    """The app on ``page`` (a pages/*.py path), optionally on a bundled dataset and model."""
    at = AppTest.from_file(APP, default_timeout=60)
    at.run()
    if dataset is not None:
        at.selectbox(key="dataset").set_value(dataset).run()
    if model is not None:
        at.selectbox(key="model").set_value(model).run()
    at.switch_page(page).run()
    assert not at.exception, at.exception
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
    """Switch the sidebar to Upload and send a file through the uploader."""
    at.segmented_control(key="source").set_value("Upload").run()
    at.file_uploader(key="upload_file").set_value((name, content, "text/csv")).run()
    return at


def upload_frame(at: AppTest, frame: pd.DataFrame, name: str = "scores.csv") -> AppTest:
    buf = io.StringIO()
    frame.to_csv(buf, index=False)
    return upload(at, name, buf.getvalue().encode())

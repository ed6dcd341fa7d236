"""The app and its pages run headless (AppTest) and show what the library computes."""

from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

import metrics
from ui import data

APP = str(Path(__file__).resolve().parent.parent / "app.py")


@pytest.fixture
def app() -> AppTest:
    at = AppTest.from_file(APP, default_timeout=30)
    at.run()
    assert not at.exception
    return at


def _metric(at: AppTest, label: str) -> str:
    return next(m.value for m in at.metric if m.label == label)


def test_opens_on_threshold_page_with_default_data(app):
    assert app.session_state["dataset"] == data.DEFAULT_DATASET
    assert [h.value for h in app.header] == ["Threshold"]
    assert len(app.get("plotly_chart")) == 2


def test_threshold_slider_changes_the_numbers_to_the_library_values(app):
    table = data.bundled_dataset(data.DEFAULT_DATASET)
    model = app.session_state["model"]
    for t in (0.1, 0.5, 0.9):
        app.slider(key="threshold_slider").set_value(t).run()
        assert not app.exception
        c = metrics.confusion_at_threshold(table.y, table.score(model), t, pos_label=True)
        assert _metric(app, "Precision") == f"{c.precision:.3f}"
        assert _metric(app, "Recall (TPR)") == f"{c.recall:.3f}"
        assert _metric(app, "MCC") == f"{c.mcc:.3f}"


def test_switching_model_and_beta(app):
    table = data.bundled_dataset(data.DEFAULT_DATASET)
    app.selectbox(key="model").set_value("naive_bayes").run()
    app.number_input(key="threshold_beta").set_value(2.0).run()
    assert not app.exception
    t = app.slider(key="threshold_slider").value
    c = metrics.confusion_at_threshold(table.y, table.score("naive_bayes"), t, pos_label=True)
    assert _metric(app, "F2") == f"{c.f_beta(2.0):.3f}"


def test_page_opened_first_after_server_start_still_runs_in_the_shell(monkeypatch):
    # Undo the conftest patch: Streamlit's legacy pages/ mode runs the page script directly.
    monkeypatch.undo()
    at = AppTest.from_file(APP, default_timeout=30)
    at.run()  # main page
    at.run()  # the threshold page script, run directly by the legacy mode
    assert not at.exception
    assert [h.value for h in at.header] == ["Threshold"]
    assert at.sidebar.selectbox(key="dataset").value == data.DEFAULT_DATASET

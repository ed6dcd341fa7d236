"""The sidebar's score scales (ui.frame.scales): a wide table lists the first few scales and
the model picked, and says how many it leaves out."""

from __future__ import annotations

from streamlit.testing.v1 import AppTest

from ui.frame import scales


def _app():
    import streamlit as st

    from ui.compute import data, thresholds
    from ui.frame import scales

    ds = data.bundled_dataset("breast_cancer")
    st.session_state.setdefault("model", "naive_bayes")
    thresholds.sync(ds)
    scales.scales_widget(ds)


def test_the_picked_model_is_listed_past_the_limit(monkeypatch):
    monkeypatch.setattr(scales, "MAX_SCALE_WIDGETS", 1)
    at = AppTest.from_function(_app, default_timeout=30)
    at.run()
    assert not at.exception
    assert [box.label for box in at.selectbox] == ["logistic\\_regression", "naive\\_bayes"]
    assert at.caption[0].value.startswith("1 more score column not listed")


def test_every_scale_is_listed_below_the_limit():
    at = AppTest.from_function(_app, default_timeout=30)
    at.run()
    assert len(at.selectbox) == 3
    assert "Default threshold" in at.caption[0].value

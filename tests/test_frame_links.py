"""The page's link (ui.frame.links): read once, on a session's first run; written every run."""

from __future__ import annotations

from streamlit.testing.v1 import AppTest


def _read_app():
    import streamlit as st

    from ui.frame import links

    links.read_query_params()
    st.write(st.session_state.get("dataset", "none"))


def test_a_link_is_read_on_the_first_run_only():
    at = AppTest.from_function(_read_app, default_timeout=30)
    at.query_params["dataset"] = "user_impressions"
    at.run()
    assert not at.exception
    assert at.session_state["dataset"] == "user_impressions"
    assert at.session_state["source"] == "Sample dataset"
    at.session_state["dataset"] = "wine_multiclass"  # the user picked another since
    at.run()
    assert at.session_state["dataset"] == "wine_multiclass"


def _write_app():
    import streamlit as st

    from ui.compute import data
    from ui.frame import links

    ds = data.bundled_dataset("user_impressions")
    st.session_state.setdefault("model", ds.models[1])
    links.write_link(ds)


def test_the_link_names_the_dataset_and_the_model():
    at = AppTest.from_function(_write_app, default_timeout=30)
    at.run()
    assert not at.exception
    assert at.query_params["dataset"] == "user_impressions"
    assert at.query_params["model"] == "model_b"

"""The last usable dataset (ui.frame.last_good): while the sidebar's table cannot be used, the
pages show the last one that could."""

from __future__ import annotations

from streamlit.testing.v1 import AppTest


def _app():
    import dataclasses

    import streamlit as st

    from ui.compute import data
    from ui.frame import last_good
    from ui.tables.checking import Problem

    good = data.bundled_dataset("breast_cancer")
    bad = dataclasses.replace(
        good,
        name="broken.csv",
        prepared=dataclasses.replace(good.prepared, problems=[Problem("error", "No labels.")]),
    )
    st.session_state["model"] = good.models[1]
    st.session_state["before"] = last_good.shown_dataset(bad).name
    last_good.keep_last_good(good)
    last_good.keep_last_good(bad)  # unusable: kept nothing
    st.session_state["after"] = last_good.shown_dataset(bad).name
    st.session_state["usable"] = (last_good.usable(good), last_good.usable(bad))


def test_an_unusable_table_is_shown_as_the_last_usable_one():
    at = AppTest.from_function(_app, default_timeout=30)
    at.run()
    assert not at.exception
    assert at.session_state["usable"] == (True, False)
    assert at.session_state["before"] == "broken.csv"  # nothing kept yet: the table itself
    assert at.session_state["after"] == "Breast cancer: 3 models"
    assert at.session_state["last_good_model"] == "gradient_boosting"

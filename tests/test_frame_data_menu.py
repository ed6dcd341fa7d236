"""The presentation bar's dataset menu (ui.frame.data_menu)."""

from __future__ import annotations

from streamlit.testing.v1 import AppTest

from ui.tables.dataset import BUNDLED


def _app():
    import streamlit as st

    from ui.compute import data
    from ui.frame import data_menu

    menu, shown = data_menu.data_menu(data.bundled_dataset("user_impressions"))
    st.session_state["menu"], st.session_state["shown"] = menu, shown


def test_the_samples_and_your_example_without_an_upload():
    at = AppTest.from_function(_app, default_timeout=30)
    at.run()
    assert not at.exception
    menu = at.session_state["menu"]
    assert list(menu) == [spec.title for spec in BUNDLED.values()] + ["Your example"]
    assert menu[BUNDLED["wine_multiclass"].title] == {
        "source": "Sample dataset",
        "dataset": "wine_multiclass",
    }
    assert menu["Your example"] == {"source": "Your example"}
    assert at.session_state["shown"] == BUNDLED["user_impressions"].title

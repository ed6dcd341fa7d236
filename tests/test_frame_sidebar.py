"""The shared sidebar's parts (ui.frame.sidebar): the model box and the table's problems."""

from __future__ import annotations

from streamlit.testing.v1 import AppTest


def _model_app():
    import streamlit as st

    from ui.compute import data
    from ui.frame import sidebar

    st.session_state.setdefault("model", "a model of another table")
    sidebar.model_box(data.bundled_dataset("breast_cancer"))
    st.session_state["page_sees"] = st.session_state["model"]  # what a page reads next


def test_a_model_the_table_lacks_gives_way_to_its_first():
    at = AppTest.from_function(_model_app, default_timeout=30)
    at.run()
    assert not at.exception
    box = at.selectbox(key="model")
    assert box.label == "Model (score column)"
    assert box.value == "logistic_regression"
    assert at.session_state["page_sees"] == "logistic_regression"


def _problems_app():
    from types import SimpleNamespace

    from ui.frame import sidebar
    from ui.tables.checking import Problem

    prepared = SimpleNamespace(
        problems=[Problem("error", "Label column 'y' is empty."), Problem("warning", "Ties.")],
        n_dropped=2,
    )
    sidebar.problems(SimpleNamespace(prepared=prepared))


def test_errors_warnings_and_dropped_rows_are_told_apart():
    at = AppTest.from_function(_problems_app, default_timeout=30)
    at.run()
    assert [e.value for e in at.error] == ["Label column 'y' is empty\\."]
    assert [w.value for w in at.warning] == ["Ties\\."]
    assert [i.value for i in at.info] == ["Dropped 2 rows with problems."]


def _own_picker_app():
    import dataclasses

    import streamlit as st

    from ui.compute import data
    from ui.frame import sidebar

    ds = data.bundled_dataset("breast_cancer")
    st.session_state.setdefault("model", "a model of another table")
    sidebar.model_box(dataclasses.replace(ds, source_id="server:scores.parquet"))


def test_a_source_with_its_own_model_choice_gets_no_box_but_a_model_of_its_table():
    at = AppTest.from_function(_own_picker_app, default_timeout=30)
    at.run()
    assert not at.exception
    assert not [box for box in at.selectbox if box.key == "model"]
    assert at.session_state["model"] == "logistic_regression"

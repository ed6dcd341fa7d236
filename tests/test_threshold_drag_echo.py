"""A dragged threshold line wins over the slider's stale value in the same rerun.

The browser sends every widget's value with each rerun it asks for. While the server is slow,
the slider's value is still the one from before the drag's earlier reruns reached the page,
and its callback would put the threshold back there (CI under load: let go at 0.239, settled
at 0.267, where the drag began)."""

from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from tests.apptest_utils import open_page


def _both_callbacks(order: str) -> None:
    import streamlit as st

    from ui.compute import thresholds
    from ui.views import threshold_drag

    st.session_state[threshold_drag.KEY] = {"threshold": 0.239}  # where the line was let go
    st.session_state["threshold_slider"] = 0.267  # the browser's value from before the drag
    drag = lambda: threshold_drag._dragged("m", 0.0, 1.0)  # noqa: E731
    slider = lambda: thresholds.set_clamped("m", 0.0, 1.0, None, "threshold_slider")  # noqa: E731
    for callback in (drag, slider) if order == "drag first" else (slider, drag):
        callback()
    st.write(f"threshold {st.session_state['thresholds']['m']}")


@pytest.mark.parametrize("order", ["drag first", "slider first"])
def test_the_dragged_value_wins_whatever_the_order_of_the_callbacks(order):
    at = AppTest.from_function(_both_callbacks, args=(order,)).run()
    assert not at.exception, at.exception
    assert at.markdown[0].value == "threshold 0.239"


def test_a_slider_move_without_a_drag_still_counts():
    """The mark is only ever set by the line's callback and cleared when the script starts, so
    an ordinary slider move sets the threshold."""
    from ui.compute import thresholds

    at = open_page("pages/threshold.py")
    at.slider(key="threshold_slider").set_value(0.3).run()
    assert not at.exception, at.exception
    assert thresholds.DRAGGED not in at.session_state
    assert at.session_state["thresholds"][at.session_state["model"]] == 0.3

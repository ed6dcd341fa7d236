"""Widget callbacks that set session state.

A callback must outlive the page script that names it (Streamlit calls it at the start of the
next run), so pages take these from a module rather than defining their own.
"""

from __future__ import annotations

import streamlit as st


def set_state(**values) -> None:
    """A widget callback that sets session-state keys (defined here, not in a page: see
    :func:`ui.frame.shell.apply_role_edits`)."""
    st.session_state.update(values)


def add_to_state(key: str, delta: int, low: int | None = None, high: int | None = None) -> None:
    """A widget callback that moves an integer in session state by ``delta``, within bounds."""
    value = st.session_state.get(key, 0) + delta
    if low is not None:
        value = max(value, low)
    if high is not None:
        value = min(value, high)
    st.session_state[key] = int(value)

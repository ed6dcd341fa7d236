"""Leaving Streamlit's legacy ``pages/`` mode, so that even a server's first run is ordinary.

Streamlit runs a script in a ``pages/`` folder directly, without ``app.py``, when that folder
exists and ``st.navigation`` has not yet run in the process.
"""

from __future__ import annotations

import sys

import streamlit as st


def leave_legacy_pages_mode() -> None:
    """Rerun at once if Streamlit started this run in its legacy ``pages/`` mode.

    That mode runs the first request after a server start under other script hashes than every
    later run, so widgets would lose their values on the first click (a shared link's dataset
    would snap back to the default). ``st.navigation`` switches the mode off for good; switching
    it off here and rerunning makes even the first run an ordinary one. Whether *this* run is
    legacy is read from its call stack, not only from the process-wide flag: sessions that open
    together on a fresh server all start in legacy mode, and the flag is off again by the time
    the second of them gets here (its first click was lost).
    """
    from streamlit.runtime.pages_manager import PagesManager

    if PagesManager.uses_pages_directory or run_is_legacy():
        PagesManager.uses_pages_directory = False
        st.rerun()


def run_is_legacy() -> bool:
    """Whether Streamlit's legacy multipage runner (``_mpa_v1``) is running this script."""
    from streamlit.runtime.scriptrunner import script_runner

    legacy = getattr(getattr(script_runner, "_mpa_v1", None), "__code__", None)
    frame = sys._getframe(1)
    while legacy is not None and frame is not None:
        if frame.f_code is legacy:
            return True
        frame = frame.f_back
    return False

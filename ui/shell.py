"""The app's frame: page config, the shared sidebar (dataset and model) and navigation.

``app.py`` calls :func:`run_app`. Every page calls :func:`page_context` first. Streamlit runs a
script in a ``pages/`` folder directly, without ``app.py``, when that folder exists and
``st.navigation`` has not yet run in the process (its legacy multipage mode: the first request
after a server start, and every ``AppTest`` run). Then ``page_context`` runs the whole app
instead, which calls ``st.navigation`` and so switches the legacy mode off, and stops the direct
run. Either way a page always runs inside the shell.
"""

from __future__ import annotations

import threading

import streamlit as st

from ui import data

PAGES = [
    ("pages/threshold.py", "Threshold", ":material/tune:"),
]

_inside = threading.local()


def _sidebar() -> data.ScoreTable:
    with st.sidebar:
        st.title("Metrics Lens")
        st.caption("See how classification metrics behave on your scores.")
        st.selectbox(
            "Dataset",
            options=list(data.BUNDLED),
            format_func=lambda key: data.BUNDLED[key].title,
            key="dataset",
        )
        table = data.load_bundled(st.session_state["dataset"])
        st.caption(table.description)
        if st.session_state.get("model") not in table.scores:
            st.session_state["model"] = table.scores[0]
        st.selectbox("Model (score column)", options=table.scores, key="model")
        n_pos = int(table.y.sum())
        st.caption(
            f"{len(table.frame):,} rows: {n_pos:,} {table.positive_name} (positive), "
            f"{len(table.frame) - n_pos:,} {table.negative_name}."
        )
    return table


def run_app() -> None:
    st.set_page_config(page_title="Metrics Lens", page_icon=":material/insights:", layout="wide")
    # Shared state starts here; page-specific keys are prefixed with the page name.
    st.session_state.setdefault("dataset", data.DEFAULT_DATASET)
    _inside.table = _sidebar()
    pages = [
        st.Page(path, title=title, icon=icon, default=i == 0)
        for i, (path, title, icon) in enumerate(PAGES)
    ]
    try:
        st.navigation(pages).run()
    finally:
        del _inside.table


def page_context() -> tuple[data.ScoreTable, str]:
    """(the current table, the selected model) for a page; runs the app shell if needed."""
    table = getattr(_inside, "table", None)
    if table is None:
        run_app()
        st.stop()
    return table, st.session_state["model"]

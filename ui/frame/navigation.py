"""The navigation: the pages in their sections, as ``st.navigation`` lists them.

What a user explores on their own data, the model comparison, the teaching labs, and the table
itself; ``st.navigation`` draws each section's heading.
"""

from __future__ import annotations

import streamlit as st

SECTIONS = {
    "Explore": [
        ("pages/threshold.py", "Threshold", ":material/tune:"),
        ("pages/curves.py", "Curves", ":material/show_chart:"),
        ("pages/decisions.py", "Decisions", ":material/paid:"),
        ("pages/calibration.py", "Calibration", ":material/straighten:"),
        ("pages/gauc.py", "GAUC", ":material/group:"),
        ("pages/ranking.py", "Ranking", ":material/format_list_numbered:"),
        ("pages/runs.py", "Runs", ":material/compare_arrows:"),
        ("pages/multilabel.py", "Multi-class & multi-label", ":material/label:"),
        ("pages/detection.py", "Detection", ":material/center_focus_strong:"),
    ],
    "Compare": [("pages/compare.py", "Compare models", ":material/leaderboard:")],
    "Learn": [
        ("pages/ap_lab.py", "AP lab", ":material/functions:"),
        ("pages/auc_lab.py", "AUC lab", ":material/grid_on:"),
        ("pages/step_through.py", "Step through", ":material/skip_next:"),
        ("pages/lessons.py", "Lessons", ":material/school:"),
    ],
    "Data": [("pages/data.py", "Data", ":material/table:")],
}
PAGES = [page for pages in SECTIONS.values() for page in pages]


def st_pages() -> dict[str, list[st.Page]]:
    """Each section's heading -> its ``st.Page`` objects, the first page the default."""
    return {
        section: [
            st.Page(path, title=title, icon=icon, default=path == PAGES[0][0])
            for path, title, icon in entries
        ]
        for section, entries in SECTIONS.items()
    }

"""Presentation mode for a projector, and the figure-format choice for slides.

:func:`sidebar_controls` draws the two sidebar controls (the "Presentation mode" toggle and the
PNG / SVG choice that :func:`ui.show.chart` reads from ``st.session_state["figure_format"]``).
:func:`apply` runs once per page run, after the sidebar: when presentation mode is on it injects
CSS that enlarges every font and hides the sidebar, and shows a "Leave presentation mode"
button (also the Esc key) at the top of the page, the way back.
"""

from __future__ import annotations

import streamlit as st

from ui.show import FIGURE_FORMATS

__all__ = ["CSS", "KEY", "apply", "sidebar_controls"]

KEY = "presentation"
SCALE = 1.3  # how much larger every font (and the spacing with it) gets

# Streamlit sizes text in rem, so a larger root font enlarges all of it (plotly draws its own
# text in pixels, which pages set); the sidebar and its open/close control are hidden.
CSS = f"""
<style>
html {{ font-size: {16 * SCALE:.0f}px; }}
[data-testid="stSidebar"], [data-testid="stSidebarCollapsedControl"],
[data-testid="stExpandSidebarButton"] {{ display: none !important; }}
</style>
"""


def _leave() -> None:
    st.session_state[KEY] = False


def sidebar_controls() -> None:
    """The presentation toggle and the figure format, drawn in the current container."""
    st.toggle(
        "Presentation mode",
        key=KEY,
        help="Larger fonts and no sidebar, for a projector. Leave it with the button at the top "
        "of the page (or Esc).",
    )
    st.session_state.setdefault("figure_format", "png")
    st.segmented_control(
        "Chart downloads",
        list(FIGURE_FORMATS),
        key="figure_format",
        format_func=str.upper,
        help="The format of the camera button on every chart (SVG for slides that scale).",
    )


def apply() -> bool:
    """When presentation mode is on: the CSS and the way back. Returns whether it is on."""
    if not st.session_state.get(KEY):
        return False
    st.html(CSS)
    st.button(
        "Leave presentation mode",
        key="presentation_exit",
        icon=":material/close_fullscreen:",
        on_click=_leave,
        shortcut="Esc",
        type="tertiary",
    )
    return True

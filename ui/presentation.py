"""Presentation mode for a projector, and the figure-format choice for slides.

:func:`sidebar_controls` draws the two sidebar controls (the "Presentation mode" toggle and the
PNG / SVG choice that :func:`ui.show.chart` reads from ``st.session_state["figure_format"]``).
:func:`apply` runs once per page run, after the sidebar: when presentation mode is on it injects
CSS that enlarges every font and hides the sidebar, and shows a "Leave presentation mode"
button (also the Esc key) at the top of the page, the way back, beside previous / next page
buttons (PageUp / PageDown) and a menu of every page, so a lecturer never leaves the mode to
change page.
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


# The mode also lives under a key no widget owns: a page change by st.switch_page (the page
# keys below) sends no widget values, and Streamlit reset the toggle's own state to off.
_KEPT = "_presenting"


def _leave() -> None:
    st.session_state[KEY] = st.session_state[_KEPT] = False


def _toggled() -> None:
    st.session_state[_KEPT] = bool(st.session_state.get(KEY))


def sidebar_controls() -> None:
    """The presentation toggle and the figure format, drawn in the current container."""
    st.session_state[KEY] = st.session_state.get(_KEPT, False)
    st.toggle(
        "Presentation mode",
        key=KEY,
        on_change=_toggled,
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


def apply(pages: list | None = None, current=None) -> bool:
    """When presentation mode is on: the CSS, the way back and, given the app's ``pages`` (in
    order, ``st.Page`` objects) and the ``current`` one, a page bar that stays while the
    sidebar is hidden: previous / next (PageUp / PageDown) and a menu of every page.
    Returns whether the mode is on."""
    if not st.session_state.get(KEY):
        return False
    st.html(CSS)
    bar = st.container(horizontal=True, vertical_alignment="center")
    bar.button(
        "Leave presentation mode",
        key="presentation_exit",
        icon=":material/close_fullscreen:",
        on_click=_leave,
        shortcut="Esc",
        type="tertiary",
    )
    if pages:
        _page_bar(bar, pages, current)
    return True


def _page_bar(bar, pages: list, current) -> None:
    """Previous / next page buttons with keys, and a list of every page to jump to."""
    paths = [p.url_path for p in pages]
    at = paths.index(current.url_path) if current is not None and current.url_path in paths else 0
    target = None
    if bar.button(
        "Previous page",
        key="presentation_prev",
        icon=":material/navigate_before:",
        shortcut="PageUp",
        type="tertiary",
        disabled=at == 0,
        help=f"{pages[at - 1].title} (PageUp)" if at > 0 else None,
    ):
        target = pages[at - 1]
    if bar.button(
        "Next page",
        key="presentation_next",
        icon=":material/navigate_next:",
        shortcut="PageDown",
        type="tertiary",
        disabled=at == len(pages) - 1,
        help=f"{pages[at + 1].title} (PageDown)" if at < len(pages) - 1 else None,
    ):
        target = pages[at + 1]
    titles = [page.title for page in pages]
    choice = bar.selectbox(
        "Go to page",
        titles,
        index=at,
        key=f"presentation_goto_{at}",  # one per page: a page change starts it afresh
        label_visibility="collapsed",
        width=220,
    )
    if choice != titles[at]:
        target = pages[titles.index(choice)]
    if target is not None:
        st.switch_page(target)

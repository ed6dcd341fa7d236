"""Presentation mode for a projector, and the figure-format choice for slides.

:func:`sidebar_controls` draws the two sidebar controls (the "Presentation mode" toggle and the
PNG / SVG choice that :func:`ui.views.show.chart` reads from ``st.session_state["figure_format"]``).
:func:`apply` runs once per page run, after the sidebar: when presentation mode is on it injects
CSS that enlarges every font and hides the sidebar, and shows a "Leave presentation mode"
button (also the Esc key) at the top of the page, the way back, beside previous / next page
buttons (PageUp / PageDown), a menu of every page and a menu of datasets (the bundled samples,
Your example, the last upload), so a lecturer never leaves the mode to change page or data;
↓ and ↑ jump from one section of a long page to the next. :class:`PageHead` gives a page's
title, its models or data and its settings (in a popover) one row on the projector.
The mode is in the page's URL (``?present=1``), so a reload keeps it.
"""

from __future__ import annotations

import html
import re
from collections.abc import Mapping

import streamlit as st

from ui.frame import plan_panel, presentation_bar
from ui.views.show import FIGURE_FORMATS

__all__ = [
    "CARDS",
    "CSS",
    "KEY",
    "MIN_PX",
    "QUERY",
    "PageHead",
    "apply",
    "on",
    "read_link",
    "sidebar_controls",
]

KEY = "presentation"
CARDS = "presentation_cards"  # a container of st.metric cards drawn smaller, in one row
LINE = "presentation_dataset"  # the bar's dataset line: one line, cut with "…" if too long
SCALE = 1.3  # how much larger every font (and the spacing with it) gets
MIN_PX = 18  # no text smaller on a projector: a lecture hall reads 18 px at best from the back
QUERY = "present"  # the URL's query parameter that keeps the mode over a reload
_KEYS_BOX = "presentation_keys"  # the (hidden) container of the ↓ / ↑ key script

# Streamlit sizes text in rem, so a larger root font enlarges all of it (plotly draws its own
# text in pixels: :func:`ui.figures.charts.scale_chart_text`); the sidebar and its open/close
# control are hidden.
# A projector is short (720 px): the page starts just under the header bar, which turns
# transparent so the page bar can sit beside its menu, and the gaps between elements shrink,
# so that the pages' presentation layouts fit one screen. The bar's buttons are short, so its
# page and dataset menus show their names whole: "Leave presentation mode" without its key (in
# its help), previous / next as an arrow and their key (the names stay for screen readers, the
# target page is in the help). A caption's container keeps no negative
# margin (Streamlit's makes room for the paragraph margin removed here: without it a caption ran
# into the element under it, a table's border or the next heading).
CSS = f"""
<style>
html {{ font-size: {16 * SCALE:.0f}px; }}
[data-testid="stSidebar"], [data-testid="stSidebarCollapsedControl"],
[data-testid="stExpandSidebarButton"] {{ display: none !important; }}
[data-testid="stHeader"] {{ background: transparent; pointer-events: none; }}
[data-testid="stHeader"] [data-testid="stToolbar"] {{ pointer-events: auto; }}
[data-testid="stMain"] .stMainBlockContainer {{
  padding: 0.4rem 1.2rem 1rem 1.2rem !important; max-width: none; }}
[data-testid="stMain"] [data-testid="stVerticalBlock"] {{ gap: 0.45rem; }}
[data-testid="stMain"] [data-testid="stHeading"] h1,
[data-testid="stMain"] [data-testid="stHeading"] h2,
[data-testid="stMain"] [data-testid="stHeading"] h3 {{ padding: 0 0 0.3rem 0; }}
[data-testid="stMain"] [data-testid="stCaptionContainer"] p {{ margin-bottom: 0; }}
[data-testid="stMain"] [data-testid="stCaptionContainer"] {{ margin-bottom: 0; }}
.st-key-{CARDS} [data-testid="stMetricLabel"] {{ min-height: 0; line-height: 1.2; }}
.st-key-{CARDS} [data-testid="stMetricLabel"] p {{ font-size: {MIN_PX}px; }}
[data-testid="stMain"] .ml-steps, [data-testid="stMain"] .ml-steps td,
[data-testid="stMain"] .ml-steps th, [data-testid="stMain"] .ml-note {{
  font-size: {MIN_PX}px !important; }}
.st-key-{CARDS} [data-testid="stMetricValue"] {{ font-size: 1.35rem; line-height: 1.3; }}
.st-key-{LINE} [data-testid="stCaptionContainer"],
.st-key-{LINE} [data-testid="stCaptionContainer"] p {{
  white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }}
.st-key-{LINE} [data-baseweb="select"] > div {{ min-height: 0; }}
.st-key-{_KEYS_BOX}, [data-testid="stLayoutWrapper"]:has(> .st-key-{_KEYS_BOX}) {{ display: none; }}
.st-key-presentation_exit kbd {{ display: none; }}
.st-key-presentation_prev [data-testid="stMarkdownContainer"],
.st-key-presentation_next [data-testid="stMarkdownContainer"] {{
  position: absolute; width: 1px; height: 1px; overflow: hidden; clip-path: inset(50%); }}
</style>
"""


# ↓ and ↑ jump to the next or previous section of a long page: its next heading drawn at the
# page's top level (a heading inside columns is a page's title row, not a section) comes to the
# top of the screen; ↑ above the first section goes back to the page's top. Only in
# presentation mode (the exit button is there) and only while no widget that reads the arrow
# keys itself (a slider, a menu, a text field, radio buttons, tabs) has the focus. Installed
# once per browser tab.
_SECTION_KEYS = """<script>
(() => {
  if (window.__lensSectionKeys) return;
  window.__lensSectionKeys = true;
  const own = 'input, textarea, select, [contenteditable="true"], [role="slider"], '
    + '[role="listbox"], [role="combobox"], [role="option"], [role="radiogroup"], '
    + '[role="radio"], [role="tablist"], [role="tab"], [role="menu"], [data-baseweb="select"]';
  document.addEventListener('keydown', (event) => {
    if (event.key !== 'ArrowDown' && event.key !== 'ArrowUp') return;
    if (event.altKey || event.ctrlKey || event.metaKey || event.shiftKey) return;
    if (!document.querySelector('.st-key-presentation_exit')) return;
    const focused = document.activeElement;
    if (focused && focused !== document.body && focused.closest(own)) return;
    const main = document.querySelector('[data-testid="stMain"]');
    if (!main) return;
    const heads = [...main.querySelectorAll('[data-testid="stHeading"]')].filter(
      (h) => h.offsetParent !== null && !h.closest('[data-testid="stHorizontalBlock"]'));
    const top = (h) => h.getBoundingClientRect().top;
    event.preventDefault();
    if (event.key === 'ArrowDown') {
      const next = heads.find((h) => top(h) > 12);
      if (next) next.scrollIntoView({block: 'start'});
    } else {
      const previous = heads.filter((h) => top(h) < -12).pop();
      (previous || main.querySelector('[data-testid="stMainBlockContainer"]') || main)
        .scrollIntoView({block: 'start'});
    }
  }, true);
})();
</script>"""


# The mode also lives under a key no widget owns: a page change by st.switch_page (the page
# keys below) sends no widget values, and Streamlit reset the toggle's own state to off.
_KEPT = "_presenting"


def on() -> bool:
    """Whether presentation mode is on (pages pick their projector layout with it)."""
    return bool(st.session_state.get(KEY))


class PageHead:
    """The top of a page: its title, a wide cell for what the page shows (the models, the
    data), and its settings. In presentation mode the three share one row and the settings sit
    in a popover, so a projector's first screen keeps its height for the chart and the numbers;
    otherwise the page has its header, the cell is the page itself, and :meth:`settings` is a
    bordered box drawn where the page asks for it."""

    def __init__(self, title: str, widths: tuple[float, float, float] = (1.25, 3.2, 0.9)):
        self.presenting = on()
        self._settings = None
        if self.presenting:
            title_col, self.cell, self._settings_col = st.columns(
                widths, vertical_alignment="bottom"
            )
            title_col.subheader(title, anchor=False)
        else:
            st.header(title)
            self.cell = st.container()

    def _popover(self):
        """The settings popover, made when a page first draws a setting (a page that stops
        before its settings shows none)."""
        if self._settings is None:
            self._settings = self._settings_col.popover(
                "Settings", icon=":material/tune:", width="stretch", key="presentation_settings"
            )
        return self._settings

    def settings(self, widths: tuple[float, ...]) -> list:
        """Cells for the settings: in presentation mode every cell is the popover (one control
        under another); otherwise columns of ``widths`` in a bordered box drawn here."""
        if self.presenting:
            return [self._popover()] * len(widths)
        return list(st.container(border=True).columns(widths))

    def setting(self):
        """The place of one more setting: the popover in presentation mode, else right here."""
        return self._popover() if self.presenting else st.container()


def read_link(query: Mapping) -> None:
    """On a session's first run: a link (or a reload) with ``?present=1`` opens in the mode."""
    if query.get(QUERY) in ("1", "true", "on"):
        st.session_state[_KEPT] = True


def link() -> dict:
    """The query parameter that keeps the mode over a reload, or none when it is off."""
    return {QUERY: "1"} if on() else {}


def _leave() -> None:
    st.session_state[KEY] = st.session_state[_KEPT] = False
    st.session_state[plan_panel.PLAYING] = False  # Esc ends the plan's play too


def _toggled() -> None:
    st.session_state[_KEPT] = bool(st.session_state.get(KEY))


def sidebar_controls() -> None:
    """The presentation toggle and the figure format, drawn in the current container."""
    st.session_state[KEY] = st.session_state.get(_KEPT, False)
    st.toggle(
        "Presentation mode",
        key=KEY,
        on_change=_toggled,
        help="Larger fonts and no sidebar, for a projector: PageUp / PageDown change page, ↓ / ↑ "
        "jump between a page's sections. Leave it with the button at the top of the page (or "
        "Esc).",
    )
    st.session_state.setdefault("figure_format", "png")
    st.segmented_control(
        "Chart downloads",
        list(FIGURE_FORMATS),
        key="figure_format",
        format_func=str.upper,
        help="The format of the camera button on every chart (SVG for slides that scale).",
    )


def apply(
    pages: list | None = None,
    current=None,
    label: str = "",
    datasets: Mapping[str, Mapping] | None = None,
    shown: str = "",
    data_name: str = "",
) -> bool:
    """When presentation mode is on: the CSS, the way back and, given the app's ``pages`` (in
    order, ``st.Page`` objects) and the ``current`` one, a page bar that stays while the
    sidebar is hidden: previous / next (PageUp / PageDown), a menu of every page and
    ``label`` (the dataset shown, in markdown). Given ``datasets`` (a menu entry's name -> the
    session state that shows it) and the entry ``shown``, the dataset's place in the bar is
    a menu of them instead; ``data_name`` (the data's name) tells a lecture plan's view made on
    another upload. Returns whether the mode is on."""
    if not st.session_state.get(KEY):
        return False
    st.html(CSS)
    bar = st.container(horizontal=True, vertical_alignment="center")
    # The key script's element is not displayed (a script runs all the same): no gap for it.
    st.container(key=_KEYS_BOX).html(_SECTION_KEYS, unsafe_allow_javascript=True)
    bar.button(
        "Leave presentation mode",
        key="presentation_exit",
        icon=":material/close_fullscreen:",
        on_click=_leave,
        shortcut="Esc",
        type="tertiary",
        help="Esc",
    )
    if plan_panel.playing():  # PageDown / PageUp walk the lecture plan's views
        presentation_bar.plan_bar(bar, plan_panel.bar_line(data_name), plan_panel.walk)
        return True
    if pages:
        presentation_bar.page_bar(bar, pages, current)
    if datasets:
        presentation_bar.data_menu(bar.container(key=LINE, width="stretch"), datasets, shown, label)
    elif label:
        # The rest of the bar's row, never a row of its own under it: one line, a long name
        # cut with "…" and whole in the tooltip (the line's text, without the markdown).
        plain = re.sub(r"\\(.)", r"\1", re.sub(r":material/\w+:\s*", "", label).replace("**", ""))
        bar.container(key=LINE, width="stretch").caption(
            f'<span title="{html.escape(plain, quote=True)}">{label}</span>',
            unsafe_allow_html=True,
        )
    return True

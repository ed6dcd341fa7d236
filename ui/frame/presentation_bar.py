"""The page bar of presentation mode: previous / next page (PageUp / PageDown), a menu of every
page, and a menu of datasets, so a lecturer never leaves the mode to change page or data.

A page change clicks the (hidden) sidebar's link to the page, as a user would (see ``_GO``).
"""

from __future__ import annotations

import json
import re
import zlib
from collections.abc import Mapping

import streamlit as st

__all__ = ["data_menu", "go", "page_bar", "plan_bar"]


def _pick_data(key: str, datasets: Mapping[str, Mapping]) -> None:
    st.session_state.update(datasets[st.session_state[key]])


def data_menu(where, datasets: Mapping[str, Mapping], shown: str, label: str) -> None:
    """The dataset menu in the bar's row: picking an entry sets the session state its value
    holds (the sidebar's source and sample), as the hidden sidebar would."""
    names = list(datasets)
    at = names.index(shown) if shown in names else 0
    plain = re.sub(r"\\(.)", r"\1", re.sub(r":material/\w+:\s*", "", label).replace("**", ""))
    key = f"presentation_data_{zlib.crc32(shown.encode())}"  # afresh when the data changes
    where.selectbox(
        "Dataset",
        names,
        index=at,
        key=key,
        label_visibility="collapsed",
        on_change=_pick_data,
        args=(key, datasets),
        help=f"Shown: {plain}. Pick another dataset without leaving presentation mode.",
    )


def page_bar(bar, pages: list, current) -> None:
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
        width=320,  # "Multi-class & multi-label" whole at the mode's size
    )
    if choice != titles[at]:
        target = pages[titles.index(choice)]
    if target is not None:
        go(pages.index(target), target.title)


# Changes page as a click on the (hidden) sidebar link to it would. st.switch_page sends no
# widget values with its request, so Streamlit resets every widget on the new page: the data
# source, the uploaded file, the server dataset's columns, and the page would fall back to the
# sample dataset. A link's click sends them, as the sidebar's navigation does.
_GO = """<script>
(() => {
  const [at, title] = %s;
  const links = [...document.querySelectorAll('[data-testid="stSidebarNavLink"]')];
  // The sidebar lists the pages in the bar's order; its text starts with the icon's name.
  const link = links[at] && links[at].textContent.trim().endsWith(title) ? links[at]
    : links.find((a) => a.textContent.trim().endsWith(title));
  if (link) link.click();
})();
</script>"""


def go(at: int, title: str) -> None:
    st.html(_GO % json.dumps([at, title]), unsafe_allow_javascript=True)


def plan_bar(bar, line: str, walk) -> None:
    """While a lecture plan plays: previous / next view (PageUp / PageDown) and the line that
    names the view ("View 4 of 12" and its note), instead of the page and dataset menus."""
    if bar.button(
        "Previous view", key="presentation_prev", icon=":material/navigate_before:",
        shortcut="PageUp", type="tertiary", help="The plan's previous view (PageUp)",
    ):  # fmt: skip
        walk(-1)
    if bar.button(
        "Next view", key="presentation_next", icon=":material/navigate_next:",
        shortcut="PageDown", type="tertiary", help="The plan's next view (PageDown)",
    ):  # fmt: skip
        walk(1)
    bar.container(key="presentation_plan_line", width="stretch").markdown(
        line, unsafe_allow_html=True
    )

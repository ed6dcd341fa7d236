"""Page changes on narrow screens: the sidebar closes and the new page starts at its top.

On a phone the sidebar is drawn over the page. Streamlit closes it after a page link only when
the browser's user agent names a phone (not on a tablet, a narrow desktop window or an emulated
phone), so a chosen page could stay hidden behind the navigation. And a page shares one
scrolling element (``stMain``) with the page before it, which may keep its scroll position.

:func:`after_navigation` runs once per app run, right after ``st.navigation``, with the current
page's key. It draws a hidden ``st.html`` element whose script remembers, in the browser
window, the last page it saw; when the page differs (not on the reruns of one page, nor on the
first page a tab opens) it scrolls the main area to its top and, when the viewport is narrow
enough for the sidebar to cover the page, clicks the sidebar's own collapse button.
"""

from __future__ import annotations

import json

import streamlit as st

__all__ = ["NARROW_PX", "after_navigation", "script"]

# Streamlit draws the sidebar over the page up to its "md" breakpoint (768 px).
NARROW_PX = 768

# The script's element is hidden: it holds no content, and a shown one would add a gap at the
# top of every page. Scripts run whether or not their element is displayed.
_HIDE = '<style>[data-testid="stElementContainer"]:has(#lens-touch){display:none}</style>'

_SCRIPT = """
<span id="lens-touch"></span>
<script>
(() => {
  const page = %(page)s;
  const seen = window.__lensTouchPage;
  window.__lensTouchPage = page;
  if (seen === undefined || seen === page) return;  // a first load, or a rerun of one page
  const toTop = () => {
    const main = document.querySelector('[data-testid="stMain"]');
    if (main) main.scrollTop = 0;
    window.scrollTo(0, 0);
  };
  toTop();
  requestAnimationFrame(toTop);  // after the page's first elements replaced the old ones
  if (window.innerWidth > %(narrow)d) return;
  const sidebar = document.querySelector('[data-testid="stSidebar"]');
  if (!sidebar || sidebar.getAttribute("data-collapsed") !== "false") return;
  const close = document.querySelector('[data-testid="stSidebarCollapseButton"] button');
  if (close) close.click();
})();
</script>
"""


def script(page_key: str) -> str:
    """The HTML :func:`after_navigation` draws for the page ``page_key`` (any string that
    differs between pages, such as ``st.navigation(...).url_path``)."""
    if not isinstance(page_key, str):
        raise TypeError(
            f"after_navigation expected the page's key as a str (for example "
            f"st.navigation(...).url_path), got {type(page_key).__name__}"
        )
    # json.dumps quotes and escapes the key; "</" cannot end the script early after "<\\/".
    page = json.dumps(page_key).replace("</", "<\\/")
    return _HIDE + _SCRIPT % {"page": page, "narrow": NARROW_PX}


def after_navigation(page_key: str) -> None:
    """On a page change: scroll the main area to the top and, on a narrow screen, close the
    sidebar. Call once per run, after ``st.navigation``, with the current page's key.

    Parameters
    ----------
    page_key : str
        What identifies the current page, for example ``current.url_path`` of the
        ``st.Page`` that ``st.navigation`` returned. The script acts when it differs from the
        key of the run the browser drew before.
    """
    st.html(script(page_key), unsafe_allow_javascript=True)

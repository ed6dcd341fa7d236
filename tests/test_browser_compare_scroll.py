"""The Compare page's sticky "On this page" band at a desktop's 1280x720: a table the browser
scrolls to (a followed link, a table focused by the keyboard or scrolled into view) stops with
its header row below the band, not under it."""

from __future__ import annotations

from tests.test_browser import (  # noqa: F401  (fixtures, and the skip without Chromium)
    ARTIFACTS,
    _wait_for_app,
    browser,
    page,
    pytestmark,
    server,
)

# Scrolls the n-th table into view as the browser does for a focus or a link, and returns
# where its top and the band's bottom then are (None for a table not shown).
_INTO_VIEW = """async (n) => {
  const frame = document.querySelectorAll('[data-testid="stDataFrame"]')[n];
  if (!frame.getBoundingClientRect().height) return null;  // in a closed expander
  frame.scrollIntoView();
  await new Promise((done) => setTimeout(done, 400));
  const band = document.querySelector('.st-key-compare_toc').parentElement;
  return {top: frame.getBoundingClientRect().top, band: band.getBoundingClientRect().bottom};
}"""


def test_tables_scrolled_to_show_their_header_below_the_sticky_band(server, page):  # noqa: F811
    page.set_viewport_size({"width": 1280, "height": 720})
    page.goto(f"{server}/compare?dataset=breast_cancer")
    _wait_for_app(page)
    page.wait_for_function(
        "() => document.querySelectorAll('[data-testid=\"stDataFrame\"]').length >= 3",
        timeout=60_000,
    )
    _wait_for_app(page)
    checked = 0
    for i in range(page.locator('[data-testid="stDataFrame"]').count()):
        where = page.evaluate(_INTO_VIEW, i)
        if where is None:
            continue
        if checked == 1:
            ARTIFACTS.mkdir(exist_ok=True)
            page.screenshot(path=ARTIFACTS / "compare-table-below-band.png")
        assert where["top"] >= where["band"], (i, where)
        checked += 1
    assert checked >= 3

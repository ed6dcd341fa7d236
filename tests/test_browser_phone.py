"""The dashboard on a phone (390 x 844, touch): choosing a page in the sidebar closes the
sidebar and the new page starts at its top (ui.frame.touch.after_navigation, called by the shell).

Playwright's phone context keeps Chromium's desktop user agent: Streamlit closes the sidebar
after a page link by itself only for a user agent that names a phone, so these tests see what
a tablet, a narrow window or such a browser sees, and what the app's own script must do.
"""

from __future__ import annotations

import pytest

from tests.lens_browser import settle
from tests.test_browser import (  # noqa: F401  (fixtures, and the skip without Chromium)
    ARTIFACTS,
    _wait_for_app,
    browser,
    pytestmark,
    server,
)

PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True}
SIDEBAR = '[data-testid="stSidebar"]'
MAIN_SCROLL = "() => document.querySelector('[data-testid=\"stMain\"]').scrollTop"


@pytest.fixture
def phone(browser):  # noqa: F811
    context = browser.new_context(**PHONE)
    pg = context.new_page()
    yield pg
    context.close()


def _scroll_main(page, top: int) -> int:
    """Scroll the main area (the element that scrolls in Streamlit) and return where it is;
    while the page is still growing (charts arriving on a loaded machine), scroll again."""
    for _ in range(20):
        page.evaluate(f"document.querySelector('[data-testid=\"stMain\"]').scrollTo(0, {top})")
        settle(page)
        at = page.evaluate(MAIN_SCROLL)
        if at > 500:
            break
    return at


def _open_sidebar(page) -> None:
    page.locator('[data-testid="stExpandSidebarButton"]').click()
    page.wait_for_function(
        f"() => document.querySelector('{SIDEBAR}').getAttribute('data-collapsed') === 'false'"
    )
    settle(page)


def _sidebar_covers_page(page) -> bool:
    box = page.locator(SIDEBAR).bounding_box()
    return box is not None and box["x"] + box["width"] > 1


def test_choosing_a_page_on_a_phone_closes_the_sidebar_and_starts_at_the_top(server, phone):  # noqa: F811
    page = phone
    page.goto(server)
    _wait_for_app(page)
    assert page.locator(SIDEBAR).get_attribute("data-collapsed") == "true"  # closed at first
    assert _scroll_main(page, 2000) > 500  # Threshold is far taller than a phone's screen
    _open_sidebar(page)
    assert _sidebar_covers_page(page)
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=ARTIFACTS / "phone-sidebar-open.png")

    page.get_by_role("link", name="Curves").click()
    page.get_by_role("heading", name="Curves").wait_for(timeout=30_000)
    _wait_for_app(page)
    page.wait_for_function(
        f"() => document.querySelector('{SIDEBAR}').getAttribute('data-collapsed') === 'true'",
        timeout=10_000,
    )
    settle(page)
    assert not _sidebar_covers_page(page)
    assert page.evaluate(MAIN_SCROLL) == 0
    heading = page.get_by_role("heading", name="Curves").bounding_box()
    assert 0 <= heading["y"] < 844  # the new page's title is on the screen
    page.screenshot(path=ARTIFACTS / "phone-after-navigation.png")

    # A rerun of the same page (a widget, or R) keeps the reader's place and the sidebar.
    kept = _scroll_main(page, 1200)
    assert kept > 500
    page.keyboard.press("r")
    settle(page)
    _wait_for_app(page)
    assert page.evaluate(MAIN_SCROLL) == kept
    assert page.locator('[data-testid="stException"]').count() == 0


def test_the_navigation_script_takes_no_room(server, phone):  # noqa: F811
    """The hook's element is hidden: it adds no gap above a page's title."""
    phone.goto(server)
    _wait_for_app(phone)
    hook = phone.locator('[data-testid="stElementContainer"]:has(#lens-touch)')
    hook.wait_for(state="attached", timeout=30_000)  # drawn once the run reaches the page
    assert hook.count() == 1
    assert hook.bounding_box() is None  # display: none


def test_a_wide_window_keeps_its_sidebar_after_a_page_change(server, browser):  # noqa: F811
    """Beside the page (not over it), the sidebar stays open on a desktop."""
    context = browser.new_context(viewport={"width": 1280, "height": 720})
    page = context.new_page()
    try:
        page.goto(server)
        _wait_for_app(page)
        assert _scroll_main(page, 1000) > 500
        page.get_by_role("link", name="Data", exact=True).click()
        page.get_by_role("heading", name="Data").first.wait_for(timeout=30_000)
        _wait_for_app(page)
        assert page.locator(SIDEBAR).get_attribute("data-collapsed") == "false"
        assert _sidebar_covers_page(page)
        page.wait_for_function(f"() => ({MAIN_SCROLL})() === 0", timeout=10_000)
    finally:
        context.close()

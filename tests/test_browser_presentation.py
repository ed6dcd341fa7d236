"""Presentation mode in a real browser: the page bar stays while the sidebar is hidden, and
PageDown / PageUp change page without leaving the mode."""

from __future__ import annotations

from tests.lens_browser import open_options
from tests.test_browser import (  # noqa: F401  (fixtures, and the skip without Chromium)
    ARTIFACTS,
    _wait_for_app,
    browser,
    page,
    pytestmark,
    server,
)


def _heading(tab) -> str:
    return tab.locator('[data-testid="stMain"] [data-testid="stHeading"]').first.inner_text()


def _idle(tab, timeout: float = 30_000) -> None:
    """The script has finished (the sidebar's heading, which _wait_for_app waits for, is
    hidden while presenting)."""
    tab.wait_for_function(
        "() => !document.querySelector('[data-testid=\"stStatusWidget\"]')", timeout=timeout
    )
    tab.wait_for_timeout(500)


_HEADING_STARTS = (
    '(start) => { const h = document.querySelector(\'[data-testid="stMain"] [data-testid="stHeading"]\');'
    " return h && h.innerText.startsWith(start); }"
)
_A_CAPTION_HOLDS = (
    "(line) => [...document.querySelectorAll('[data-testid=\"stCaptionContainer\"]')]"
    ".some((c) => c.innerText.includes(line))"
)


def _wait_for_heading(tab, start: str, timeout: float = 30_000) -> None:
    tab.wait_for_function(_HEADING_STARTS, arg=start, timeout=timeout)
    _idle(tab)


def _go_by_menu(tab, title: str) -> None:
    """Pick ``title`` in the bar's "Go to page" menu (typed, then chosen) and wait for it."""
    menu = tab.get_by_role("combobox", name="Go to page")
    open_options(tab, menu, wait=_idle)
    menu.fill(title.split()[0])
    tab.get_by_role("option", name=title).click()
    _wait_for_heading(tab, title)


def test_page_keys_and_menu_while_presenting(server, page):  # noqa: F811
    page.set_viewport_size({"width": 1280, "height": 720})
    page.goto(f"{server}/?dataset=breast_cancer")
    _wait_for_app(page)
    page.get_by_text("Presentation mode").click()
    exit_button = page.get_by_role("button", name="Leave presentation mode")
    exit_button.wait_for(timeout=30_000)
    _idle(page)
    assert not page.locator('[data-testid="stSidebar"]').is_visible()
    assert _heading(page).startswith("Threshold")
    page.keyboard.press("PageDown")
    _wait_for_heading(page, "Curves")
    exit_button.wait_for(timeout=30_000)  # still presenting
    page.keyboard.press("PageUp")
    _wait_for_heading(page, "Threshold")
    _go_by_menu(page, "Step through")
    exit_button.wait_for(timeout=30_000)
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=ARTIFACTS / "presentation-step-through.png")
    page.keyboard.press("Escape")
    page.locator('[data-testid="stSidebar"]').wait_for(state="visible", timeout=30_000)


def _bar_names(tab, line: str, timeout: float = 30_000) -> None:
    """The page bar's caption names ``line`` (the dataset shown)."""
    tab.wait_for_function(_A_CAPTION_HOLDS, arg=line, timeout=timeout)


def test_changing_page_while_presenting_keeps_the_users_data(server, page, tmp_path):  # noqa: F811
    """The bar's page changes keep every widget: an uploaded file and a server dataset stay on
    screen (st.switch_page reset them, and the pages fell back to the sample dataset)."""
    from tests.test_browser import _upload

    scores = tmp_path / "lecture.csv"
    scores.write_text(
        "y,model_x\n" + "".join(f"{i % 2},{(i * 37 % 101) / 101}\n" for i in range(60))
    )
    page.set_viewport_size({"width": 1280, "height": 720})
    page.goto(f"{server}/?dataset=breast_cancer")
    _wait_for_app(page)
    _upload(page, scores)
    _wait_for_heading(page, "Threshold · model_x")
    page.get_by_text("Presentation mode").click()
    page.get_by_role("button", name="Leave presentation mode").wait_for(timeout=30_000)
    _idle(page)
    _bar_names(page, "Upload: lecture.csv")
    page.keyboard.press("PageDown")
    _wait_for_heading(page, "Curves")
    _bar_names(page, "Upload: lecture.csv")
    _go_by_menu(page, "Compare models")
    _bar_names(page, "Upload: lecture.csv")
    page.goto(f"{server}/?source=server&dataset=user_impressions.csv")  # a new session
    _wait_for_app(page)
    page.get_by_text("Presentation mode").click()
    page.get_by_role("button", name="Leave presentation mode").wait_for(timeout=60_000)
    _idle(page)
    _bar_names(page, "Server dataset: user_impressions.csv", timeout=60_000)
    page.get_by_role("button", name="Next page").click()
    _wait_for_heading(page, "Curves", timeout=60_000)
    _bar_names(page, "Server dataset: user_impressions.csv", timeout=60_000)

"""The "Your example" editor in a real browser at 1280x800 (Debian's Chromium driven by
Playwright): chosen in the sidebar, opened by its link on the Data page, a table pasted and
loaded, a cell typed without a rerun and applied, and the new table's row count and AUC read on
the pages. The server and browser fixtures are those of ``tests/test_browser.py``; screenshots
go to ``test-artifacts/``."""

from __future__ import annotations

import numpy as np
from playwright.sync_api import expect

import metrics
from tests.lens_browser import settle
from tests.test_browser import (  # noqa: F401  (fixtures used by name)
    ARTIFACTS,
    _wait_for_app,
    browser,
    pytestmark,
    server,
)
from ui.sources import example_source as ex

PASTED = "label\tlr\n1\t0.9\n0\t0.8\n1\t0.7\n0\t0.6\n1\t0.55\n0\t0.2\n0\t0.1\n"
LABELS = np.array([1, 0, 1, 0, 1, 0, 0])
SCORES = np.array([0.9, 0.8, 0.7, 0.6, 0.55, 0.2, 0.1])


def _metric(page, label: str):
    card = page.locator('[data-testid="stMetric"]', has_text=label).first
    return card.locator('[data-testid="stMetricValue"]')


def test_paste_type_and_apply_reach_the_pages(server, browser):  # noqa: F811
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    page = context.new_page()
    try:
        page.goto(server)
        _wait_for_app(page)
        page.get_by_role("radio", name="Your example").click()
        _wait_for_app(page)
        sidebar = page.locator('[data-testid="stSidebar"]')
        expect(sidebar.get_by_text("4 positives, 4 negatives; 2 models.")).to_be_visible()
        assert sidebar.locator('[data-testid="stDataFrame"]').count() == 0  # no cramped grid
        sidebar.get_by_role("link", name="Edit the rows").click()
        page.get_by_role("heading", name="Edit the rows").wait_for(timeout=30_000)
        _wait_for_app(page)
        assert "/data" in page.url

        # The grid is wide: at 1280 px it takes the main column, every header readable.
        grid = page.locator('[data-testid="stMain"] [data-testid="stDataFrame"]').first
        box = grid.bounding_box()
        assert box["width"] > 750, box

        page.get_by_role("textbox", name="Or paste a table").fill(PASTED)
        page.get_by_role("button", name="Load the pasted table").click()
        page.get_by_text("Read 7 rows of tab-separated text with a header").wait_for(timeout=30_000)
        _wait_for_app(page)
        expect(page.get_by_text("Your example: 7 rows, 2 columns.")).to_be_visible()
        expect(sidebar.get_by_text("3 positives, 4 negatives; 1 model.")).to_be_visible()
        assert ex.decode(page.url.split("example=", 1)[1]).shape == (7, 2)
        ARTIFACTS.mkdir(exist_ok=True)
        page.screenshot(path=ARTIFACTS / "example_editor-pasted-1280.png")

        # Type row 2's label (0 -> 1): Enter commits the cell and nothing reruns until Apply.
        grid.scroll_into_view_if_needed()
        box = grid.bounding_box()
        label_x = box["x"] + 33 + 64 + 40  # past the gutter and the row column
        page.mouse.dblclick(label_x, box["y"] + 35 * 2 + 17)
        cell = page.locator("input.gdg-input, textarea.gdg-input")
        cell.wait_for(timeout=10_000)
        assert cell.input_value() == "0"
        cell.fill("1")
        cell.press("Enter")
        settle(page)
        expect(page.get_by_text("Your example: 7 rows, 2 columns.")).to_be_visible()
        assert ex.decode(page.url.split("example=", 1)[1])["label"].tolist()[1] == 0
        page.get_by_role("button", name="Apply edits").click()
        page.get_by_text("Applied: 7 rows in the table.").wait_for(timeout=30_000)
        _wait_for_app(page)
        expect(sidebar.get_by_text("4 positives, 3 negatives; 1 model.")).to_be_visible()
        assert ex.decode(page.url.split("example=", 1)[1])["label"].tolist()[1] == 1
        page.screenshot(path=ARTIFACTS / "example_editor-applied-1280.png")

        y = LABELS == 1
        y[1] = True
        page.get_by_role("link", name="AUC lab").click()
        page.get_by_role("heading", name="AUC lab").wait_for(timeout=30_000)
        _wait_for_app(page)
        expect(_metric(page, "Library roc_auc_score")).to_have_text(
            f"{metrics.roc_auc_score(y, SCORES):.4f}", timeout=20_000
        )
        assert page.locator('[data-testid="stException"]').count() == 0
        page.screenshot(path=ARTIFACTS / "example_editor-auc_lab-1280.png")
        page.get_by_role("link", name="AP lab").click()
        page.get_by_role("heading", name="AP lab").wait_for(timeout=30_000)
        _wait_for_app(page)
        expect(_metric(page, "Step")).to_have_text(
            f"{metrics.average_precision_score(y, SCORES):.4f}", timeout=20_000
        )
        page.get_by_role("link", name="Step through").click()
        page.get_by_role("heading", name="Step through · model_a").wait_for(timeout=30_000)
        _wait_for_app(page)
        assert page.get_by_text(f"Step (of {len(set(SCORES))})").count() == 1
        assert page.locator('[data-testid="stException"]').count() == 0
    finally:
        context.close()

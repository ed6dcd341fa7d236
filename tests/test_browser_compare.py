"""Compare and Threshold in a real browser: a click on a slice row scopes every page, and the
rows behind a confusion cell are listed with the right count."""

from __future__ import annotations

import numpy as np
import pytest

from tests.lens_browser import settle
from tests.test_browser import (  # noqa: F401  (fixtures, and the skip without Chromium)
    ARTIFACTS,
    _upload,
    _wait_for_app,
    browser,
    page,
    pytestmark,
    server,
)


@pytest.fixture
def click_log(tmp_path):
    rng = np.random.default_rng(7)
    n = 500
    device = rng.choice(["ios", "android", "web"], n, p=[0.5, 0.3, 0.2])
    y = rng.random(n) < 0.25
    a = np.round(rng.random(n) + 0.5 * y * (device != "web"), 3)
    b = np.round(rng.random(n) + 0.3 * y, 3)
    path = tmp_path / "clicks.csv"
    lines = ["row_id,device,clicked,model_a,model_b"] + [
        f"{i + 1},{d},{int(c)},{x},{z}"
        for i, (d, c, x, z) in enumerate(zip(device, y, a, b, strict=True))
    ]
    path.write_text("\n".join(lines))
    return path, device, y, a, b


def _go(page, name: str) -> None:  # noqa: F811
    page.get_by_role("link", name=name).click()
    _wait_for_app(page)


def test_a_click_on_a_slice_row_scopes_every_page(server, page, click_log):  # noqa: F811
    from playwright.sync_api import expect

    path, device, *_ = click_log
    page.goto(server)
    _wait_for_app(page)
    _upload(page, path)
    page.get_by_text("Slice columns (optional)").wait_for(timeout=30_000)
    _wait_for_app(page)
    _go(page, "Compare models")
    heading = page.get_by_role("heading", name="Slices: where is each model weak?")
    heading.wait_for(timeout=30_000)
    grid = page.locator('.st-key-compare_slices [data-testid="stDataFrame"]')
    grid.scroll_into_view_if_needed()
    settle(page)
    box = grid.bounding_box()
    # Row 1 is "all rows"; row 2, the worst slice, is "device = web" in this table.
    row_height = 35
    page.mouse.click(box["x"] + 15, box["y"] + row_height * 2 + row_height / 2)
    banner = page.get_by_text("Showing only")
    expect(banner).to_be_visible(timeout=30_000)
    text = page.locator('[data-testid="stAlert"]', has_text="Showing only").inner_text()
    web = int((device == "web").sum())
    assert "device = web" in text
    assert f"{web:,} of 500 rows" in text
    _go(page, "Threshold")
    expect(page.get_by_text("Showing only")).to_be_visible(timeout=30_000)
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=ARTIFACTS / "slice-scoped-threshold.png")
    page.get_by_role("button", name="Show all rows").click()
    _wait_for_app(page)
    expect(page.get_by_text("Showing only")).to_have_count(0, timeout=30_000)
    assert page.locator('[data-testid="stException"]').count() == 0


def test_rows_behind_a_confusion_cell(server, page, click_log):  # noqa: F811
    from playwright.sync_api import expect

    path, _, y, a, _ = click_log
    page.goto(server)
    _wait_for_app(page)
    _upload(page, path)
    page.get_by_text("Slice columns (optional)").wait_for(timeout=30_000)
    _wait_for_app(page)
    page.get_by_text("Rows behind the numbers").click()
    page.get_by_text("FP: predicted positive, actually negative").click()
    _wait_for_app(page)
    slider = page.locator('[data-testid="stSlider"] input[type="range"]').first
    t = float(slider.input_value())
    fp = int(((a >= t) & ~y).sum())
    expect(page.get_by_text(f"{fp:,} rows FP", exact=False)).to_be_visible(timeout=20_000)
    expect(page.get_by_role("button", name=f"Download these {fp:,} rows (CSV)")).to_be_visible()
    assert page.locator('[data-testid="stException"]').count() == 0


@pytest.mark.parametrize(
    "device",
    [
        {"viewport": {"width": 1280, "height": 720}},
        {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True},
    ],
    ids=["desktop", "phone"],
)
def test_the_table_of_contents_stays_in_view_and_jumps_to_a_section(server, browser, device):  # noqa: F811
    """Compare is about 6,900 px tall: its list of sections sticks under the header at the
    bottom of the page, and a link brings its section's heading on screen below the list."""
    context = browser.new_context(**device)
    pg = context.new_page()
    height = device["viewport"]["height"]
    try:
        pg.goto(f"{server}/compare")
        pg.get_by_role("heading", name="Calibration", exact=True).wait_for(timeout=60_000)
        _wait_for_app(pg)
        toc = pg.locator(".st-key-compare_toc")
        assert toc.inner_text().startswith("On this page:")
        pg.evaluate(
            "() => { const m = document.querySelector('[data-testid=\"stMain\"]');"
            " m.scrollTo(0, m.scrollHeight); }"
        )
        settle(pg)
        assert (
            pg.evaluate("() => document.querySelector('[data-testid=\"stMain\"]').scrollTop")
            > 4 * height
        )  # far down the page
        box = toc.bounding_box()
        assert box is not None
        assert box["y"] >= 0  # on screen, at the top
        assert box["y"] + box["height"] <= height / 4
        ARTIFACTS.mkdir(exist_ok=True)
        name = "desktop" if device["viewport"]["width"] > 800 else "phone"
        pg.screenshot(path=ARTIFACTS / f"compare-toc-{name}-bottom.png")

        link = toc.get_by_role("link", name="Are the differences real?")
        link.click()
        heading = pg.get_by_role("heading", name="Are the differences real?", exact=True)
        pg.wait_for_function(
            "() => { const h = document.getElementById('differences');"
            " const r = h && h.getBoundingClientRect(); return r && r.top >= 0 && r.top < 400; }",
            timeout=10_000,
        )
        settle(pg)
        toc_box, heading_box = toc.bounding_box(), heading.bounding_box()
        assert heading_box["y"] >= toc_box["y"] + toc_box["height"]  # not under the list
        assert heading_box["y"] + heading_box["height"] <= height
        pg.screenshot(path=ARTIFACTS / f"compare-toc-{name}-jumped.png")
        assert pg.locator('[data-testid="stException"]').count() == 0
    finally:
        context.close()

"""Every chart of a page in one zip, chart downloads on a touch screen, and a toolbar that
stays off the chart titles at 1280x720 (ui/chart_export.js, injected by
``ui.views.show.download_all_button`` from the frame's sidebar).

The zip is opened with Python's zipfile: one image per chart of the page, named as the
chart's camera button names it, each a valid PNG or SVG with a title."""

from __future__ import annotations

import io
import zipfile

from tests.lens_browser import settle
from tests.test_browser import (  # noqa: F401  (fixtures, and the skip without Chromium)
    ARTIFACTS,
    _wait_for_app,
    browser,
    page,
    pytestmark,
    server,
)
from tests.test_browser_exports import choose_format

PNG = b"\x89PNG\r\n\x1a\n"

# What the page's charts are called: the camera button's file name (format and name).
CHART_FILES = """() => [...document.querySelectorAll('.js-plotly-plot')]
  .filter((gd) => !gd.closest('[data-testid="stSidebar"]'))
  .map((gd) => gd._context.toImageButtonOptions)
  .map((o) => `${o.filename}.${o.format}`)"""


def _charts_drawn(tab, at_least: int) -> None:
    """Wait until plotly has drawn ``at_least`` charts on the page (after the script's run)."""
    tab.wait_for_function(
        "(n) => [...document.querySelectorAll('.js-plotly-plot')]"
        ".filter((gd) => gd._fullLayout).length >= n",
        arg=at_least,
        timeout=30_000,
    )
    settle(tab)


def _zip_of_the_page(tab, tmp_path) -> tuple[str, zipfile.ZipFile]:
    button = tab.locator("button.ml-zip-button")
    with tab.expect_download(timeout=60_000) as info:
        button.click()
    path = tmp_path / info.value.suggested_filename
    info.value.save_as(path)
    archive = zipfile.ZipFile(io.BytesIO(path.read_bytes()))
    assert archive.testzip() is None  # every entry's CRC-32 checks out
    return info.value.suggested_filename, archive


def test_the_zip_holds_every_chart_of_the_page_as_png(server, page, tmp_path):  # noqa: F811
    page.goto(f"{server}/?dataset=breast_cancer")  # Threshold: four charts
    _wait_for_app(page)
    choose_format(page, "PNG")
    _charts_drawn(page, 4)
    expected = page.evaluate(CHART_FILES)
    assert len(expected) == 4, expected
    name, archive = _zip_of_the_page(page, tmp_path)
    assert name == "threshold-charts.zip"
    assert sorted(archive.namelist()) == sorted(expected)
    for entry in archive.namelist():
        data = archive.read(entry)
        assert data[:8] == PNG, entry
        assert int.from_bytes(data[16:20], "big") > 200, entry  # a real image, at 2x
    ARTIFACTS.mkdir(exist_ok=True)
    (ARTIFACTS / "zip-threshold-matrix.png").write_bytes(archive.read(expected[0]))


def test_the_zip_in_svg_gives_every_chart_a_title(server, page, tmp_path):  # noqa: F811
    page.goto(f"{server}/curves?dataset=breast_cancer")
    _wait_for_app(page)
    choose_format(page, "SVG")
    _charts_drawn(page, 2)
    expected = page.evaluate(CHART_FILES)
    assert len(expected) >= 2, expected
    assert all(f.endswith(".svg") for f in expected), expected
    name, archive = _zip_of_the_page(page, tmp_path)
    assert name == "curves-charts.zip"
    assert sorted(archive.namelist()) == sorted(expected)
    for entry in archive.namelist():
        text = archive.read(entry).decode()
        assert text.startswith("<svg"), entry
        assert 'class="gtitle"' in text, entry  # every image has its title
    assert ">ROC curves</text>" in archive.read("roc-curves.svg").decode()
    assert ">Precision-recall curves</text>" in archive.read("precision-recall-curves.svg").decode()


def test_a_touch_screen_has_a_download_button_and_no_toolbar(server, browser, tmp_path):  # noqa: F811
    context = browser.new_context(
        viewport={"width": 390, "height": 844}, has_touch=True, is_mobile=True
    )
    tab = context.new_page()
    try:
        tab.goto(f"{server}/curves?dataset=breast_cancer")
        _wait_for_app(tab)
        _charts_drawn(tab, 2)
        chart = tab.locator('[data-testid="stPlotlyChart"]').first
        chart.scroll_into_view_if_needed()
        chart.tap()  # a tap showed plotly's toolbar over the top of the chart, and it stayed
        settle(tab)
        bar = chart.locator(".modebar-container")
        assert bar.count() == 0 or not bar.first.is_visible()
        button = tab.locator("button.ml-chart-download").first
        assert button.is_visible()
        plot, below = chart.bounding_box(), button.bounding_box()
        assert below["y"] >= plot["y"] + plot["height"] - 0.5, (plot, below)  # not on the chart
        button.scroll_into_view_if_needed()
        ARTIFACTS.mkdir(exist_ok=True)
        tab.screenshot(path=ARTIFACTS / "touch-chart-download.png")
        with tab.expect_download(timeout=60_000) as info:
            button.tap()
        assert info.value.suggested_filename == "roc-curves.png"
        path = tmp_path / "touch.png"
        info.value.save_as(path)
        assert path.read_bytes()[:8] == PNG
    finally:
        context.close()


def test_at_1280x720_the_toolbar_leaves_the_chart_titles_free(server, browser):  # noqa: F811
    context = browser.new_context(viewport={"width": 1280, "height": 720})
    tab = context.new_page()
    try:
        tab.goto(f"{server}/?dataset=breast_cancer")  # Threshold: ROC and PR side by side
        _wait_for_app(tab)
        _charts_drawn(tab, 4)
        titled = tab.locator('[data-testid="stPlotlyChart"]').filter(has=tab.locator("text.gtitle"))
        assert titled.count() >= 2
        for i in range(titled.count()):
            chart = titled.nth(i)
            chart.scroll_into_view_if_needed()
            chart.hover()
            settle(tab)
            bar = chart.locator(".modebar-container .modebar").bounding_box()
            title = chart.locator("text.gtitle").bounding_box()
            assert bar
            assert title
            apart = (
                bar["x"] >= title["x"] + title["width"]
                or title["x"] >= bar["x"] + bar["width"]
                or bar["y"] >= title["y"] + title["height"]
                or title["y"] >= bar["y"] + bar["height"]
            )
            assert apart, (i, bar, title)
        ARTIFACTS.mkdir(exist_ok=True)
        tab.screenshot(path=ARTIFACTS / "toolbar-1280x720.png")
    finally:
        context.close()

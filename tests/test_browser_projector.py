"""Presentation mode fits a 1280x720 projector (issue 23): on Threshold, Curves, Step through, AP
lab, AUC lab and Lessons every chart and the controls a lecturer needs are on screen with the
page scrolled to its top, and no chart is taller than the screen.

Each test opens its page in a fresh 1280x720 tab, turns presentation mode on, reads the bounding
boxes of every plotly chart and of the page's controls, and saves a screenshot
(``projector-<page>.png`` in ``test-artifacts/``, or in ``$PROJECTOR_SHOTS``) for a person to
look at. One server for the module (the fixtures of ``tests/test_browser.py``).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.lens_browser import settle, sized_page
from tests.test_browser import (  # noqa: F401  (fixtures used by name, the skip without Chromium)
    ARTIFACTS,
    browser,
    pytestmark,
    server,
)

WIDTH, HEIGHT = 1280, 720
SHOTS = Path(os.environ.get("PROJECTOR_SHOTS", ARTIFACTS))

CHART = '[data-testid="stPlotlyChart"]'
# Every chart's box, and that of the plotly graph inside it, read with the page at its top.
BOXES = """(selector) => [...document.querySelectorAll(selector)].map(e => {
    const r = e.getBoundingClientRect();
    return {x: r.left, y: r.top, width: r.width, height: r.height};
})"""
SCROLLED = """() => Math.max(window.scrollY,
    ...[...document.querySelectorAll('[data-testid="stMain"], [data-testid="stAppViewContainer"],'
        + ' [data-testid="stAppScrollToBottomContainer"]')].map(e => e.scrollTop))"""
TO_TOP = """() => { window.scrollTo(0, 0);
    for (const e of document.querySelectorAll('[data-testid="stMain"],'
        + ' [data-testid="stAppViewContainer"], [data-testid="stAppScrollToBottomContainer"]'))
        e.scrollTop = 0; }"""


@pytest.fixture
def tab(browser, request):  # noqa: F811
    """A tab the size of a 1280x720 projector."""
    yield from sized_page(browser, request, WIDTH, HEIGHT)


def _idle(tab, timeout: float = 30_000) -> None:
    """The script has finished (the sidebar's heading is hidden while presenting, so wait on the
    running indicator)."""
    tab.wait_for_function(
        "() => !document.querySelector('[data-testid=\"stStatusWidget\"]')", timeout=timeout
    )
    settle(tab)


def _present(tab, server: str, path: str) -> None:  # noqa: F811
    tab.goto(f"{server}/{path}?dataset=breast_cancer")
    tab.wait_for_selector('[data-testid="stSidebar"] [data-testid="stHeading"]', timeout=60_000)
    _idle(tab)
    tab.get_by_text("Presentation mode").click()
    tab.get_by_role("button", name="Leave presentation mode").wait_for(timeout=30_000)
    _idle(tab)


def _charts(tab, expected: int) -> list[dict]:
    tab.locator(CHART).nth(expected - 1).wait_for(timeout=30_000)
    tab.wait_for_function(
        "n => document.querySelectorAll('.js-plotly-plot .main-svg').length >= n",
        arg=expected,
        timeout=30_000,
    )
    _idle(tab)
    tab.evaluate(TO_TOP)
    settle(tab)
    assert tab.evaluate(SCROLLED) == 0
    boxes = tab.evaluate(BOXES, CHART)
    assert len(boxes) == expected, f"{len(boxes)} charts drawn, {expected} expected"
    plots = tab.evaluate(BOXES, ".js-plotly-plot")
    assert len(plots) == expected, f"{len(plots)} plotly graphs drawn, {expected} expected"
    return boxes + plots


def _on_screen(box: dict | None, name: str, *, chart: bool = False) -> None:
    """``box`` (a bounding box: x, y, width, height) lies inside the 1280x720 screen; a chart
    is also no taller than the screen and large enough to read."""
    assert box is not None, f"{name} is not drawn"
    bottom, right = box["y"] + box["height"], box["x"] + box["width"]
    if chart:
        assert box["height"] <= HEIGHT, f"{name} is {box['height']:.0f} px tall: over the screen"
        assert box["width"] > 150, f"{name} is too narrow: {box}"
        assert box["height"] > 100, f"{name} is too short: {box}"
    assert box["y"] >= 0, f"{name} starts above the screen: {box}"
    assert box["x"] >= 0, f"{name} starts left of the screen: {box}"
    assert bottom <= HEIGHT + 0.5, f"{name} ends at {bottom:.0f} px, below the {HEIGHT} px fold"
    assert right <= WIDTH + 0.5, f"{name} ends at {right:.0f} px, right of the screen"


def _check(tab, page: str, n_charts: int, controls: dict) -> list[dict]:
    """Every chart (``n_charts`` of them) and every control on screen at the top of the page;
    a screenshot for a person. Returns the charts' boxes."""
    boxes = _charts(tab, n_charts)
    for i, box in enumerate(boxes):
        _on_screen(box, f"{page}: chart {i % n_charts + 1} of {n_charts}", chart=True)
    for name, locator in {
        "Leave presentation mode": tab.get_by_role("button", name="Leave presentation mode"),
        "Next page": tab.get_by_role("button", name="Next page"),
        "Go to page": tab.get_by_role("combobox", name="Go to page"),
        **controls,
    }.items():
        assert locator.count() == 1, f"{page}: {locator.count()} of {name}"
        _on_screen(locator.bounding_box(), f"{page}: {name}")
    SHOTS.mkdir(parents=True, exist_ok=True)
    tab.screenshot(path=SHOTS / f"projector-{page}.png")
    assert tab.locator('[data-testid="stException"]').count() == 0
    return boxes


def _key(tab, key: str):
    return tab.locator(f".st-key-{key}")


def test_threshold_fits_and_its_chart_text_grows(server, tab):  # noqa: F811
    _present(tab, server, "")  # Threshold is the default page, at the root
    _check(
        tab,
        "threshold",
        4,  # the confusion matrix, ROC, PR and the rates against the threshold
        {
            "threshold slider": tab.get_by_role("slider", name="Threshold"),
            "Default button": tab.get_by_role("button", name="Default"),
            "matrix normalisation": _key(tab, "threshold_normalize"),
            "set-it-by choice": _key(tab, "threshold_mode"),
        },
    )
    # Text inside the charts is drawn at the mode's size: the matrix's axis labels and counts,
    # the iso-F1 labels and the chart titles (plotly sets each of these sizes inline).
    sizes = tab.evaluate(
        """() => Object.fromEntries([
            ['matrix ticks', '.st-key-threshold_matrix .xtick text'],
            ['matrix counts', '.st-key-threshold_matrix .heatmap-label'],
            ['axis titles', '.st-key-threshold_matrix .xtitle, .st-key-threshold_pr .ytitle'],
            ['iso-F1 labels', '.st-key-threshold_pr .annotation-text'],
            ['titles', '.st-key-threshold_roc .gtitle'],
        ].map(([name, sel]) => [name, [...document.querySelectorAll(sel)]
            .map(e => parseFloat(getComputedStyle(e).fontSize))]))"""
    )
    assert all(sizes.values()), sizes  # every kind of text found
    # (outside the mode, in px: ticks 12, counts 16, axis titles 14, iso-F1 labels 10, titles 16)
    assert min(sizes["matrix ticks"]) >= 15, sizes
    assert min(sizes["matrix counts"]) >= 20, sizes
    assert min(sizes["axis titles"]) >= 17, sizes
    assert min(sizes["iso-F1 labels"]) >= 13.5, sizes
    assert min(sizes["titles"]) >= 20, sizes


def test_curves_fits(server, tab):  # noqa: F811
    _present(tab, server, "curves")
    _check(
        tab,
        "curves",
        2,
        {
            "model picker": _key(tab, "curves_models"),
            "partial AUC slider": _key(tab, "curves_max_fpr"),
        },
    )


def test_step_through_fits_with_its_sums_and_a_pointer(server, tab):  # noqa: F811
    _present(tab, server, "step_through")
    _key(tab, "step_through_next").get_by_role("button").click()
    tab.wait_for_function(
        "() => document.querySelector('.st-key-step_through_change')"
        "?.innerText.includes('Step 1 of')",
        timeout=30_000,
    )
    _idle(tab)
    _check(
        tab,
        "step_through",
        3,  # the matrix, ROC and PR
        {
            "Previous button": _key(tab, "step_through_prev"),
            "Next button": _key(tab, "step_through_next"),
            "step number": _key(tab, "step_through_k"),
            "sorted rows": tab.locator("table.ml-steps"),
            "threshold line": tab.locator("table.ml-steps tr.ml-line"),
            "AP step sum and AUC pair count": _key(tab, "step_through_sums"),
            "what the step changed": _key(tab, "step_through_change"),
        },
    )
    sums = _key(tab, "step_through_sums").inner_text()
    for part in ("AP step sum", "AUC pair count", "pairs ordered right"):
        assert part in sums
    # The pointer: an arrow labelled with the step on both curves, and the rows that crossed
    # marked in the table.
    for key in ("roc", "pr"):
        assert _key(tab, f"step_through_{key}").locator(".annotation").text_content() == "step 1"
    assert tab.locator("table.ml-steps tr.ml-new").count() >= 1


def test_ap_lab_fits(server, tab):  # noqa: F811
    _present(tab, server, "ap_lab")
    _check(
        tab,
        "ap_lab",
        1,
        {
            "data choice": _key(tab, "aplab_preset"),
            "methods shown": _key(tab, "aplab_show"),
            "the five values": tab.locator('[data-testid="stTable"]').first,
        },
    )
    values = tab.locator('[data-testid="stTable"]').first.inner_text()
    for method in ("Step", "Trapezoid", "VOC 11-point", "VOC all-point", "COCO 101-point"):
        assert method in values


def test_auc_lab_fits(server, tab):  # noqa: F811
    _present(tab, server, "auc_lab")
    metrics = tab.locator('[data-testid="stMetric"]')
    _check(
        tab,
        "auc_lab",
        2,  # the pair grid and the ROC staircase
        {
            "example choice": _key(tab, "auclab_preset"),
            "rows per class": _key(tab, "auclab_sample"),
            "sample seed": _key(tab, "auclab_seed"),
            **{f"number {i + 1}": metrics.nth(i) for i in range(4)},
        },
    )


def test_lessons_fit_with_the_charts_of_the_answer(server, tab):  # noqa: F811
    _present(tab, server, "lessons")
    tab.get_by_role("button", name="Show me").click()
    _check(
        tab,
        "lessons",
        2,  # the ROC and PR curves of the lesson's table
        {
            "lesson choice": _key(tab, "lessons_pick"),
            "New example": tab.get_by_role("button", name="New example"),
            "answer box": tab.get_by_role("textbox", name="Your answer"),
            "Check": tab.get_by_role("button", name="Check"),
            "Show me": tab.get_by_role("button", name="Show me"),
            "the answer": tab.get_by_text("The answer:"),
        },
    )

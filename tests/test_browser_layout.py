"""Layouts checked by the elements' bounding boxes in a real browser, not by eye.

* a projector (1280x720): the Threshold page shows the slider, the confusion matrix and the
  operating point on the ROC and PR curves without scrolling;
* a desktop (1400x1000): the whole confusion matrix is on screen;
* a phone (390x844): nothing is wider than the screen, no chart title runs into another, and
  every table's first column is visible, on every page this file opens.
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


def _open(browser, url: str, width: int, height: int):  # noqa: F811
    context = browser.new_context(viewport={"width": width, "height": height})
    page = context.new_page()
    page.goto(url)
    _wait_for_app(page)
    settle(page)
    assert page.locator('[data-testid="stException"]').count() == 0
    return context, page


def _box(page, selector: str) -> dict:
    loc = page.locator(selector).first
    loc.wait_for(state="visible", timeout=20_000)
    return loc.bounding_box()


def _inside(box: dict, width: int, height: int) -> bool:
    return (
        box["x"] >= -1
        and box["y"] >= -1
        and box["x"] + box["width"] <= width + 1
        and box["y"] + box["height"] <= height + 1
    )


def _overlap(a: dict, b: dict) -> bool:
    return not (
        a["x"] + a["width"] <= b["x"]
        or b["x"] + b["width"] <= a["x"]
        or a["y"] + a["height"] <= b["y"]
        or b["y"] + b["height"] <= a["y"]
    )


PROJECTOR_PARTS = {
    "slider": '[data-testid="stSlider"]',
    "confusion matrix": ".st-key-threshold_matrix .js-plotly-plot",
    "ROC with the operating point": ".st-key-threshold_roc .js-plotly-plot",
    "PR with the operating point": ".st-key-threshold_pr .js-plotly-plot",
}


def test_projector_shows_slider_matrix_and_operating_point_together(server, browser):  # noqa: F811
    context, page = _open(browser, server, 1280, 720)
    try:
        boxes = {name: _box(page, sel) for name, sel in PROJECTOR_PARTS.items()}
        ARTIFACTS.mkdir(exist_ok=True)
        page.screenshot(path=ARTIFACTS / "threshold-1280x720.png")
        for name, box in boxes.items():
            assert _inside(box, 1280, 720), (name, box)
        names = list(boxes)
        for i, a in enumerate(names):
            for b in names[i + 1 :]:
                assert not _overlap(boxes[a], boxes[b]), (a, b)
        # The operating point is drawn inside the ROC chart.
        point = page.locator(".st-key-threshold_roc .scatterlayer .trace .points path").last
        assert _inside(point.bounding_box(), 1280, 720)
    finally:
        context.close()


def test_desktop_shows_the_whole_confusion_matrix(server, browser):  # noqa: F811
    context, page = _open(browser, server, 1400, 1000)
    try:
        matrix = _box(page, ".st-key-threshold_matrix .js-plotly-plot")
        assert _inside(matrix, 1400, 1000), matrix
        cells = page.locator(
            ".st-key-threshold_matrix .heatmaplayer, .st-key-threshold_matrix text"
        )
        for box in cells.evaluate_all(
            "els => els.map(e => { const r = e.getBoundingClientRect();"
            " return {x: r.x, y: r.y, width: r.width, height: r.height}; })"
        ):
            assert _inside(box, 1400, 1000), box
    finally:
        context.close()


PHONE_PAGES = [
    ("", "breast_cancer"),
    ("curves", "breast_cancer"),
    ("compare", "breast_cancer"),
    ("data", "breast_cancer"),
    ("compare", "user_impressions"),
    ("ap_lab", "breast_cancer"),
    ("auc_lab", "breast_cancer"),
    ("gauc", "user_impressions"),
    ("ranking", "query_ranking"),
    ("multilabel", "digits_multilabel"),
    ("multilabel", "wine_multiclass"),
    ("step_through", "breast_cancer"),
    ("lessons", "breast_cancer"),
]


@pytest.fixture(scope="module")
def phone(browser):  # noqa: F811
    """One 390x844 tab for every page this file opens on a phone: each page by its link (a new
    session), the dashboard's scripts cached between pages as a phone's browser keeps them."""
    context = browser.new_context(viewport={"width": 390, "height": 844})
    yield context.new_page()
    context.close()


@pytest.mark.parametrize(("path", "dataset"), PHONE_PAGES)
def test_phone_nothing_overlaps_or_is_cut_off(server, phone, path, dataset):  # noqa: F811
    page = phone
    page.goto(f"{server}/{path}?dataset={dataset}")
    _wait_for_app(page)
    settle(page)
    assert page.locator('[data-testid="stException"]').count() == 0
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=ARTIFACTS / f"phone-{path or 'threshold'}-{dataset}.png")
    # Walk the whole page: Streamlit scrolls its main block, not the document.
    boxes = page.evaluate(
        """() => {
          const out = {wide: [], titles: [], tables: []};
          const W = window.innerWidth;
          for (const el of document.querySelectorAll(
              '[data-testid="stMain"] [data-testid="stElementContainer"]')) {
            const r = el.getBoundingClientRect();
            if (r.width > 0 && r.right > W + 1) out.wide.push(el.className + ' ' + r.right);
          }
          for (const el of document.querySelectorAll('.js-plotly-plot .gtitle, '
              + '.js-plotly-plot .annotation-text, .js-plotly-plot .legendtext')) {
            const r = el.getBoundingClientRect();
            if (r.width > 0) out.titles.push({
              plot: el.closest('.js-plotly-plot').id || '',
              chart: [...document.querySelectorAll('.js-plotly-plot')]
                .indexOf(el.closest('.js-plotly-plot')),
              text: el.textContent, x: r.x, y: r.y, width: r.width, height: r.height,
              kind: el.classList.contains('gtitle') ? 'title' : 'label'});
            if (r.width > 0 && (r.right > W + 1 || r.x < -1))
              out.wide.push('text ' + el.textContent + ' ' + r.x + '-' + r.right);
          }
          for (const el of document.querySelectorAll('[data-testid="stDataFrame"]')) {
            const r = el.getBoundingClientRect();
            out.tables.push({x: r.x, right: r.right});
          }
          return out;
        }"""
    )
    assert boxes["wide"] == [], boxes["wide"]
    titles = [t for t in boxes["titles"] if t["kind"] == "title"]
    for i, a in enumerate(titles):
        for b in titles[i + 1 :]:
            assert not _overlap(a, b), (a["text"], b["text"])
    # Within one chart, a title never runs into a legend entry or label.
    for t in titles:
        for other in boxes["titles"]:
            if other is not t and other["chart"] == t["chart"] and other["kind"] == "label":
                assert not _overlap(t, other), (t["text"], other["text"])
    for table in boxes["tables"]:
        assert table["x"] >= 0
        assert table["right"] <= 391

"""A chart's camera button gives a slide-ready image: read the exported SVG back.

The image is re-drawn by plotly outside the page, where the page's web font is not loaded:
with a font only the page had, legend text ran out of the box plotly had measured for it. The
test downloads the SVG of the Curves page's ROC chart (two models, long legend entries), opens
it in the browser on its own, and measures every legend entry and marker against the image.
The image carries the chart's name as a title (the page shows it as a heading, which the image
left behind): ui/chart_export.js adds it when the camera is clicked.

Needs the frame's ``show.download_all_button()`` (the script behind the downloads)."""

from __future__ import annotations

from tests.lens_browser import settle
from tests.test_browser import (  # noqa: F401  (fixtures, and the skip without Chromium)
    ARTIFACTS,
    _wait_for_app,
    browser,
    page,
    pytestmark,
    server,
)

MEASURE = """() => {
  const box = (el) => { const r = el.getBoundingClientRect();
                        return {text: el.textContent, x: r.x, y: r.y, w: r.width, h: r.height}; };
  const legend = document.querySelector('g.legend rect.bg');
  const title = document.querySelector('text.gtitle');
  return {image: box(document.querySelector('svg.main-svg')),
          title: title ? box(title) : null,
          below: [...document.querySelectorAll('g.ytick text, g.scatterlayer path')].map(box),
          legend: [...document.querySelectorAll('g.legend text.legendtext')].map(box),
          legendBox: legend ? box(legend) : null,
          points: [...document.querySelectorAll('g.scatterlayer path.point')].map(box)};
}"""


def choose_format(tab, fmt: str) -> None:
    """Pick ``fmt`` ("PNG" or "SVG") for chart downloads in the sidebar."""
    choice = tab.locator('[data-testid="stSidebar"] button[role="radio"]').filter(has_text=fmt)
    for attempt in range(3):  # the sidebar re-renders while the page's charts load
        try:
            if choice.get_attribute("aria-checked", timeout=10_000) == "true":
                break  # chosen already (a second click would unselect it)
            choice.click(timeout=10_000)
            break
        except Exception:
            if attempt == 2:
                raise
    _wait_for_app(tab)
    assert choice.get_attribute("aria-checked") == "true"


def _download(tab, fmt: str, tmp_path):
    """Pick ``fmt`` for chart downloads, click the first chart's camera: (the file, the
    chart's size on the page)."""
    choose_format(tab, fmt)
    chart = tab.locator('[data-testid="stPlotlyChart"]').first
    box = chart.bounding_box()
    chart.hover()
    with tab.expect_download() as info:
        chart.locator('.modebar-btn[data-title^="Download plot"]').click()
    path = tmp_path / info.value.suggested_filename
    info.value.save_as(path)
    return path, box


def test_the_exported_svg_is_slide_ready(server, page, tmp_path):  # noqa: F811
    page.goto(f"{server}/curves?dataset=breast_cancer")
    _wait_for_app(page)
    path, _ = _download(page, "SVG", tmp_path)
    assert path.suffix == ".svg"
    text = path.read_text()
    assert "Source Sans" not in text  # slide software may not have the page's web font
    assert "Arial" in text
    assert ">ROC curves</text>" in text  # the title, in the file itself
    page.goto(path.as_uri())
    settle(page)
    found = page.evaluate(MEASURE)
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=ARTIFACTS / "export-roc.png")
    assert found["legend"], "the ROC chart has a legend"
    models = [entry for entry in found["legend"] if "chance" not in entry["text"]]
    assert models
    assert all("(AUC" in entry["text"] for entry in models)
    assert all(entry["text"].endswith(")") for entry in models), models  # not cut
    image = found["image"]
    title = found["title"]  # the chart's name (ui.views.show.chart's name="roc-curves")
    assert title, "the image has a title"
    assert title["text"] == "ROC curves", title
    assert title["x"] >= image["x"], (title, image)
    assert title["y"] >= image["y"] - 0.5, (title, image)
    assert title["x"] + title["w"] <= image["x"] + image["w"] + 0.5, (title, image)
    top = min(part["y"] for part in found["below"] if part["h"])  # the plot's highest mark
    assert title["y"] + title["h"] <= top + 0.5, (title, top)
    right, bottom = image["x"] + image["w"] + 0.5, image["y"] + image["h"] + 0.5
    for entry in found["legend"]:  # every entry whole, inside the legend and the image
        assert entry["x"] >= image["x"] - 0.5, entry
        assert entry["x"] + entry["w"] <= right, (entry, image)
        if found["legendBox"]:
            box = found["legendBox"]
            assert entry["x"] + entry["w"] <= box["x"] + box["w"] + 1, (entry, box)
    for point in found["points"]:  # operating points drawn whole, inside the image
        assert point["x"] >= image["x"] - 0.5, point
        assert point["x"] + point["w"] <= right, (point, image)
        assert point["y"] >= image["y"] - 0.5, point
        assert point["y"] + point["h"] <= bottom, (point, image)


def test_the_png_button_gives_a_2x_image(server, page, tmp_path):  # noqa: F811
    page.goto(f"{server}/curves?dataset=breast_cancer")
    _wait_for_app(page)
    path, box = _download(page, "PNG", tmp_path)
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    width = int.from_bytes(data[16:20], "big")
    assert width >= 1.9 * box["width"], (width, box)

"""Presentation mode in a real browser: the page bar stays while the sidebar is hidden,
PageDown / PageUp change page and the bar's menu changes the dataset without leaving the mode,
and a reload keeps the mode."""

from __future__ import annotations

from tests.lens_browser import open_options
from tests.lens_browser import settle as wait_for_app_at_rest
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


def _idle(tab) -> None:
    """The page is at rest: the script has finished and the charts are laid out (the sidebar's
    heading, which _wait_for_app waits for, is hidden while presenting)."""
    wait_for_app_at_rest(tab)


_HEADING_STARTS = (
    '(start) => { const h = document.querySelector(\'[data-testid="stMain"] [data-testid="stHeading"]\');'
    " return h && h.innerText.startsWith(start); }"
)
_BAR_HOLDS = (  # the bar's dataset menu shows this entry
    "(line) => { const m = document.querySelector('.st-key-presentation_dataset');"
    " const i = m && m.querySelector('input');"
    " return !!m && (m.innerText + ' ' + (i ? i.value : '')).includes(line); }"
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
    """The page bar's dataset menu names ``line`` (the dataset shown)."""
    tab.wait_for_function(_BAR_HOLDS, arg=line, timeout=timeout)


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


def _presenting(tab, url: str) -> None:
    """Open ``url`` at a projector's 1280x720 and turn presentation mode on."""
    tab.set_viewport_size({"width": 1280, "height": 720})
    tab.goto(url)
    _wait_for_app(tab)
    tab.get_by_text("Presentation mode").click()
    tab.get_by_role("button", name="Leave presentation mode").wait_for(timeout=30_000)
    _idle(tab)  # plotly lays out its SVG after the script finishes: settle waits for it


# Each element's box, and whether its text is cut (wider than its box, shown with "…").
_BOXES = """(selector) => [...document.querySelectorAll(selector)].map((e) => {
  const r = e.getBoundingClientRect();
  return {x: r.x, y: r.y, right: r.right, bottom: r.bottom, width: r.width, height: r.height,
          cut: e.scrollWidth > e.clientWidth + 1, text: e.textContent,
          title: (e.querySelector('[title]') || {}).title || ''};
})"""


def _overlap(a: dict, b: dict) -> bool:
    return (
        a["x"] < b["right"]
        and b["x"] < a["right"]
        and a["y"] < b["bottom"]
        and b["y"] < a["bottom"]
    )


def test_threshold_cards_are_whole_on_a_projector(server, page):  # noqa: F811
    """At 1280x720 the ten metric cards sit under the charts, each whole on the first screen
    (two rows of five left the first row's values below the screen's edge), no name or value
    cut short."""
    _presenting(page, f"{server}/?dataset=breast_cancer")
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=ARTIFACTS / "presentation-threshold-cards.png")
    cards = page.evaluate(_BOXES, '[data-testid="stMetric"]')
    assert len(cards) == 10
    for card in cards:
        assert card["y"] >= 0, card
        assert card["bottom"] <= 720, card
        assert card["right"] <= 1280, card
    texts = page.evaluate(
        _BOXES,
        '[data-testid="stMetric"] [data-testid="stMetricLabel"] [data-testid="stMarkdownContainer"],'
        ' [data-testid="stMetric"] [data-testid="stMetricValue"] [data-testid="stMarkdownContainer"]',
    )
    assert len(texts) == 20
    assert [t["text"] for t in texts if t["cut"]] == []
    matrix = page.evaluate(_BOXES, ".st-key-threshold_matrix .js-plotly-plot")[0]
    assert all(card["y"] >= matrix["bottom"] for card in cards)


def test_long_class_names_under_the_matrix_do_not_run_into_each_other(server, page):  # noqa: F811
    """Four charts share a projector's row, so a cell of the matrix is about 70 px wide: long
    class names ("has the property" / "does not") wrap instead of overlapping."""
    _presenting(page, f"{server}/?dataset=digits_multilabel")
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=ARTIFACTS / "presentation-matrix-long-names.png")
    for axis in ("xtick", "ytick"):
        ticks = page.evaluate(_BOXES, f".st-key-threshold_matrix .{axis} text")
        assert len(ticks) == 2, ticks
        assert all(t["width"] > 0 for t in ticks), ticks
        assert not _overlap(*ticks), ticks
    x_ticks = page.evaluate(_BOXES, ".st-key-threshold_matrix .xtick text")
    cells = page.evaluate(_BOXES, ".st-key-threshold_matrix .heatmaplayer image")[0]
    assert all(cells["x"] - 2 <= t["x"] and t["right"] <= cells["right"] + 2 for t in x_ticks)


def test_a_long_dataset_name_stays_on_the_page_bar(server, page):  # noqa: F811
    """The bar's dataset menu is one line in the bar's own row, beside its buttons and never
    over them, a long name cut with "…" (it wrapped to a row of its own under the bar)."""
    _presenting(page, f"{server}/?dataset=user_impressions")
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=ARTIFACTS / "presentation-long-dataset-name.png")
    line = page.evaluate(_BOXES, ".st-key-presentation_dataset [data-testid='stSelectbox']")
    assert len(line) == 1
    line = line[0]
    _bar_names(page, "Recommender clicks: global AUC vs GAUC")
    assert line["height"] < 60, line  # one line
    assert line["right"] <= 1280, line
    controls = page.evaluate(
        _BOXES,
        '[data-testid="stMain"] [data-testid="stButton"] button,'
        ' [data-testid="stMain"] [data-testid="stSelectbox"]:not(.st-key-presentation_dataset *)',
    )
    leave = next(c for c in controls if "Leave presentation mode" in c["text"])
    assert line["y"] < leave["bottom"], (line, leave)  # the bar's row
    assert leave["y"] < line["bottom"], (line, leave)
    for control in controls:
        if control["y"] < 100:  # the bar's buttons and page menu
            assert not _overlap(line, control), control["text"]
    heading = page.evaluate(_BOXES, '[data-testid="stMain"] [data-testid="stHeading"]')[0]
    assert heading["y"] >= line["bottom"]


def test_the_bar_changes_the_dataset_and_a_reload_keeps_the_mode(server, page):  # noqa: F811
    """A lecturer picks the click log in the bar's menu (the sidebar is hidden), and reloads
    the page: the mode, the page and the dataset stay (a reload dropped the mode)."""
    _presenting(page, f"{server}/?dataset=breast_cancer")
    _bar_names(page, "Breast cancer: 3 models")
    menu = page.get_by_role("combobox", name="Dataset")
    open_options(page, menu, wait=_idle)
    page.get_by_role("option", name="Recommender clicks: global AUC vs GAUC").click()
    _bar_names(page, "Recommender clicks: global AUC vs GAUC", timeout=60_000)
    _wait_for_heading(page, "Threshold · model_a", timeout=60_000)
    assert "present=1" in page.url
    assert "dataset=user_impressions" in page.url
    page.reload()
    page.get_by_role("button", name="Leave presentation mode").wait_for(timeout=60_000)
    _wait_for_heading(page, "Threshold · model_a", timeout=60_000)
    _bar_names(page, "Recommender clicks: global AUC vs GAUC")
    assert not page.locator('[data-testid="stSidebar"]').is_visible()
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=ARTIFACTS / "presentation-after-reload.png")
    page.get_by_role("button", name="Leave presentation mode").click()
    page.locator('[data-testid="stSidebar"]').wait_for(state="visible", timeout=30_000)
    page.wait_for_function("() => !location.search.includes('present=')", timeout=30_000)


# Every page on the sample it is made for: (URL path, sample, what the first screen must hold
# whole: the page's main chart, by its key, or None for a page without one).
PROJECTOR_PAGES = [
    ("", "breast_cancer", "threshold_matrix"),
    ("curves", "breast_cancer", None),
    ("decisions", "breast_cancer", "decisions_cost"),
    ("calibration", "breast_cancer", "calibration_reliability_0"),
    ("gauc", "user_impressions", "gauc_histogram"),
    ("ranking", "query_ranking", "ranking_curves"),
    ("multilabel", "digits_multilabel", "multilabel_bars"),
    ("compare", "breast_cancer", "compare_roc_band"),
    ("ap_lab", "breast_cancer", None),
    ("auc_lab", "breast_cancer", None),
    ("step_through", "breast_cancer", "step_through_roc"),
    ("lessons", "breast_cancer", None),
    ("data", "breast_cancer", None),
    ("runs", "breast_cancer", None),
    ("detection", "breast_cancer", None),
]
_FIRST_CHART = """(key) => {
  const box = (e) => { const r = e.getBoundingClientRect();
                       return {top: r.top, bottom: r.bottom, height: r.height}; };
  const keyed = key && document.querySelector(`.st-key-${key} .js-plotly-plot`);
  const any = document.querySelector('[data-testid="stMain"] .js-plotly-plot');
  const e = keyed || any;
  return e ? box(e) : null;
}"""


def test_every_page_opens_with_its_main_chart_whole_on_a_projector(server, browser):  # noqa: F811
    """At 1280x720 in presentation mode each page's main chart (its key when named, else the
    page's first chart) lies within the first 720 px, axes and legend included, no control on
    the first screen is cut and no text there is below 18 px (the lecture file's measures):
    one tab, every page in turn (opened by link, ?present=1, as a reload would)."""
    import contextlib

    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    from tests.test_browser_lecture import CUT, MIN_PX, SMALL_TEXT

    context = browser.new_context(viewport={"width": 1280, "height": 720})
    tab = context.new_page()
    boxes, cut, controls, small = {}, {}, {}, {}
    try:
        for path, sample, key in PROJECTOR_PAGES:
            tab.goto(f"{server}/{path}?dataset={sample}&present=1")
            tab.get_by_role("button", name="Leave presentation mode").wait_for(timeout=60_000)
            _idle(tab)
            wait_for_app_at_rest(tab)
            box = tab.evaluate(_FIRST_CHART, key)
            boxes[path or "threshold"] = box
            if box is not None and not (box["top"] >= 0 and box["bottom"] <= 720):
                cut[path or "threshold"] = box
            # A chart's text is drawn at the theme's size, then at presentation mode's: the
            # page is read once no text is too small or cut, or after 10 s as it then is.
            with contextlib.suppress(PlaywrightTimeout):
                tab.wait_for_function(
                    f"() => ({SMALL_TEXT})({MIN_PX}).length === 0 && ({CUT})().length === 0",
                    timeout=10_000,
                )
            if found := tab.evaluate(CUT):
                controls[path or "threshold"] = found
            if found := tab.evaluate(SMALL_TEXT, MIN_PX):
                small[path or "threshold"] = found
            ARTIFACTS.mkdir(exist_ok=True)
            tab.screenshot(path=ARTIFACTS / f"projector-{path or 'threshold'}.png")
    finally:
        context.close()
    for path, _, key in PROJECTOR_PAGES:  # a page named with its chart has that chart
        assert key is None or boxes[path or "threshold"] is not None, path
    assert cut == {}
    assert controls == {}
    assert small == {}


_SECTION_TOPS = """() => [...document.querySelectorAll('[data-testid="stMain"] [data-testid="stHeading"]')]
  .filter((h) => h.offsetParent !== null && !h.closest('[data-testid="stHorizontalBlock"]'))
  .map((h) => [h.innerText.trim(), Math.round(h.getBoundingClientRect().top)])"""


def _at_top(tab) -> str | None:
    """The section heading at the top of the screen (within a few pixels), if any."""
    for text, top in tab.evaluate(_SECTION_TOPS):
        if abs(top) <= 12:
            return text
    return None


def test_arrow_keys_jump_between_sections_while_presenting(server, browser):  # noqa: F811
    """↓ brings the next section's heading to the top of the screen, ↓ again the one after,
    ↑ goes back one and, above the first, to the page's top; inside a widget the arrow keys
    stay the widget's (a slider moves, the page does not jump)."""
    context = browser.new_context(viewport={"width": 1280, "height": 720})
    tab = context.new_page()
    try:
        tab.goto(f"{server}/ranking?dataset=query_ranking&present=1")
        tab.get_by_role("button", name="Leave presentation mode").wait_for(timeout=60_000)
        _idle(tab)
        wait_for_app_at_rest(tab)
        sections = [text for text, _ in tab.evaluate(_SECTION_TOPS)]
        assert sections[:3] == ["Every model", "Per query", "Query inspector"], sections
        assert _at_top(tab) is None
        tab.keyboard.press("ArrowDown")
        assert _at_top(tab) == sections[0]
        tab.keyboard.press("ArrowDown")
        assert _at_top(tab) == sections[1]
        tab.keyboard.press("ArrowUp")
        assert _at_top(tab) == sections[0]
        tab.keyboard.press("ArrowUp")
        assert _at_top(tab) is None
        title = tab.get_by_role("heading", name="Ranking")
        assert title.bounding_box()["y"] >= 0  # back at the page's top: the title row shows
        # The settings popover's slider (k, at 10) keeps its arrow keys: k moves, no jump.
        tab.get_by_role("button", name="Settings").click()
        slider = tab.get_by_role("slider").first
        slider.focus()
        tab.keyboard.press("ArrowDown")
        tab.get_by_text("P@9").first.wait_for(timeout=30_000)
        _idle(tab)
        assert _at_top(tab) is None
    finally:
        context.close()

"""A lecture at 1280x720 (issue 54): every control whole on the projector, in presentation mode
and out, and every text at least 18 px in presentation mode.

Measured in the browser: each segmented control's options inside their group's box, no text cut
by its box (a menu's name, a box's placeholder), the Threshold page's prevalence box with its
name beside it, the computed font size of every text on the first screen (plotly's SVG text
too), and outside the mode the Threshold page's strip, matrix and curves above the 720 px fold.
One server for the module (the fixtures of ``tests/test_browser.py``); screenshots go to
``test-artifacts/lecture-*.png``.
"""

from __future__ import annotations

import pytest

from tests.lens_browser import settle, sized_page
from tests.test_browser import (  # noqa: F401  (fixtures used by name, the skip without Chromium)
    ARTIFACTS,
    browser,
    pytestmark,
    server,
)

WIDTH, HEIGHT, MIN_PX = 1280, 720, 18


@pytest.fixture
def tab(browser, request):  # noqa: F811
    yield from sized_page(browser, request, WIDTH, HEIGHT)


def _open(tab, url: str, path: str, *, presenting: bool) -> None:
    tab.goto(f"{url}/{path}{'&present=1' if presenting else ''}")
    tab.wait_for_selector('[data-testid="stMain"] [data-testid="stHeading"]', timeout=60_000)
    if presenting:
        tab.get_by_role("button", name="Leave presentation mode").wait_for(timeout=60_000)
    tab.wait_for_function(
        "() => !document.querySelector('[data-testid=\"stStatusWidget\"]')", timeout=60_000
    )
    settle(tab)


# Texts on the first screen smaller than the floor: [size, text], HTML and SVG alike.
SMALL_TEXT = """(floor) => {
  const out = [];
  const main = document.querySelector('[data-testid="stMain"]');
  const walker = document.createTreeWalker(main, NodeFilter.SHOW_TEXT);
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    const text = n.textContent.trim(), e = n.parentElement;
    if (!text || !e || e.closest('style, script, .modebar, [data-testid="stTooltipContent"]'))
      continue;
    const r = e.getBoundingClientRect(), cs = getComputedStyle(e);
    if (!r.width || !r.height || r.top >= 720 || r.bottom <= 0 || cs.visibility === 'hidden')
      continue;
    const size = parseFloat(cs.fontSize);
    if (size < floor - 0.05) out.push([size, text.slice(0, 40)]);
  }
  return out;
}"""

# Controls cut on the first screen: an option of a segmented control outside its group's box,
# a text wider than its box (a menu's name cut with "…"), a placeholder wider than its box.
CUT = """() => {
  const out = [];
  const main = document.querySelector('[data-testid="stAppViewContainer"]');
  const seen = (r) => r.width > 0 && r.top < 720 && r.bottom > 0;
  for (const g of main.querySelectorAll('[data-testid="stButtonGroup"]')) {
    const box = g.getBoundingClientRect();
    if (!seen(box)) continue;
    for (const b of g.querySelectorAll('button')) {
      const r = b.getBoundingClientRect();
      if (r.right > box.right + 1 || r.left < box.left - 1)
        out.push(`option "${b.textContent}" at ${r.left | 0}-${r.right | 0} px, its group ends at ${box.right | 0}`);
    }
  }
  for (const e of main.querySelectorAll('[data-baseweb="select"] div, [data-testid="stMarkdownContainer"] p, button p')) {
    const r = e.getBoundingClientRect();
    if (!seen(r) || e.closest('[data-testid="stSidebar"]') || e.closest('.js-plotly-plot')) continue;
    if (e.children.length === 0 && e.scrollWidth > e.clientWidth + 1)
      out.push(`"${e.textContent}" cut: ${e.scrollWidth} px of text in ${e.clientWidth} px`);
  }
  const ctx = document.createElement('canvas').getContext('2d');
  for (const i of main.querySelectorAll('input')) {  // a menu's name, a box's placeholder
    const r = i.getBoundingClientRect(), cs = getComputedStyle(i);
    const text = i.value || i.placeholder;
    if (!seen(r) || !text || i.closest('[data-testid="stSidebar"]')
        || ['file', 'checkbox', 'radio'].includes(i.type)) continue;  // a toggle's value is "on"
    ctx.font = `${cs.fontWeight} ${cs.fontSize} ${cs.fontFamily}`;
    const room = i.clientWidth - parseFloat(cs.paddingLeft) - parseFloat(cs.paddingRight);
    const need = ctx.measureText(text).width;
    if (need > room + 1) out.push(`"${text}" cut: ${need | 0} px of text in ${room | 0}`);
  }
  return out;
}"""


def _whole(tab, name: str) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    tab.screenshot(path=ARTIFACTS / f"lecture-{name}.png")
    assert tab.locator('[data-testid="stException"]').count() == 0
    assert tab.evaluate(CUT) == [], name


@pytest.mark.parametrize(
    ("name", "path"),
    [
        ("threshold", "?dataset=breast_cancer"),
        ("multilabel", "multilabel?dataset=wine_multiclass"),
        ("step-through", "step_through?dataset=user_impressions"),
    ],
)  # every page on its own sample: tests/test_browser_presentation.py's walk, with these measures
def test_presentation_mode_shows_every_control_whole_and_no_text_below_18_px(
    server,  # noqa: F811
    tab,
    name,
    path,
):
    """Presentation mode at 1280x720: no option outside its group ("per class" on Multi-class),
    no menu name cut in the bar ("Multi-class & multi-label", "Recommender clicks: global AUC
    vs GAUC"), and every text on the first screen at least 18 px (metric-card labels, tick
    labels, iso-F1 labels, the Step-through table)."""
    _open(tab, server, path, presenting=True)
    _whole(tab, f"present-{name}")
    assert tab.evaluate(SMALL_TEXT, MIN_PX) == [], name
    if name == "threshold":  # the prevalence box has its name beside it, in its row
        box = tab.locator(".st-key-threshold_prevalence").bounding_box()
        label = tab.locator('[data-testid="stMarkdownContainer"] p', has_text="Prevalence")
        label = label.first.bounding_box()
        assert label["x"] + label["width"] <= box["x"], (label, box)
        assert abs((label["y"] + label["height"] / 2) - (box["y"] + box["height"] / 2)) < 20


def test_threshold_outside_presentation_mode_fits_the_first_screen(server, tab):  # noqa: F811
    """A laptop on a projector, mode off: the slider, the class-score strip, the matrix and
    both curves above the 720 px fold, "top %" and the prevalence placeholder whole."""
    _open(tab, server, "?dataset=breast_cancer", presenting=False)
    _whole(tab, "threshold-laptop")
    for name, selector in {
        "slider": '[data-testid="stSlider"]',
        "strip": ".st-key-threshold_drag",
        "matrix": ".st-key-threshold_matrix .js-plotly-plot",
        "ROC": ".st-key-threshold_roc .js-plotly-plot",
        "PR": ".st-key-threshold_pr .js-plotly-plot",
    }.items():
        box = tab.locator(selector).first.bounding_box()
        assert box is not None, name
        assert box["y"] >= 0, (name, box)
        assert box["y"] + box["height"] <= HEIGHT + 0.5, (name, box)


def test_page_down_onto_gauc_opens_its_sample_not_a_notice(server, tab):  # noqa: F811
    """Presenting the breast-cancer sample (no user ids), PageDown from Calibration lands on
    GAUC drawn on its own sample: one keystroke, no notice pointing to the hidden sidebar."""
    _open(tab, server, "calibration?dataset=breast_cancer", presenting=True)
    tab.keyboard.press("PageDown")
    tab.wait_for_function(
        """() => { const h = document.querySelector('[data-testid="stMain"] [data-testid="stHeading"]');
                   return h && h.innerText.startsWith('GAUC')
                     && document.querySelector('[data-testid="stMain"] .js-plotly-plot .main-svg'); }""",
        timeout=60_000,
    )
    settle(tab)
    ARTIFACTS.mkdir(exist_ok=True)
    tab.screenshot(path=ARTIFACTS / "lecture-present-gauc-after-page-down.png")
    notices = tab.locator('[data-testid="stMain"] [data-testid="stAlert"]', has_text="needs")
    assert notices.count() == 0
    assert tab.get_by_role("button", name="Leave presentation mode").count() == 1
    menu = tab.locator(".st-key-presentation_dataset input").first.input_value()
    assert menu.startswith("Recommender clicks"), menu


def test_a_plan_link_plays_with_page_down(server, tab):  # noqa: F811
    """The sample plan "Why GAUC" opened from its link in presentation mode: PageDown walks
    its views across pages and data, and the bar names the view and its note."""
    from ui.teaching import lecture_plan as lp

    link = lp.to_link(lp.SAMPLE_PLANS["Why GAUC"])
    _open(tab, server, f"?plan={link}", presenting=True)
    line = tab.locator(".st-key-presentation_plan_line")
    line.get_by_text("View 1 of 4").wait_for(timeout=60_000)
    for n in (2, 3):
        tab.keyboard.press("PageDown")
        line.get_by_text(f"View {n} of 4").wait_for(timeout=60_000)
        settle(tab)
    tab.wait_for_function(
        """() => { const h = document.querySelector('[data-testid="stMain"] [data-testid="stHeading"]');
                   return h && h.innerText.startsWith('GAUC'); }""",
        timeout=60_000,
    )
    settle(tab)
    ARTIFACTS.mkdir(exist_ok=True)
    tab.screenshot(path=ARTIFACTS / "lecture-plan-view-3.png")
    assert "Per-user AUC, weighted by impressions" in line.inner_text()
    assert tab.locator('[data-testid="stMain"] .js-plotly-plot').count() > 0
    tab.keyboard.press("PageUp")
    line.get_by_text("View 2 of 4").wait_for(timeout=60_000)
    tab.keyboard.press("Escape")
    tab.locator('[data-testid="stSidebar"]').wait_for(state="visible", timeout=30_000)

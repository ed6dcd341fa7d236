"""The Multi-label page's decision rule in a real browser: upload a multi-label file, move the
shared threshold, read micro and macro F1 off the page and check them against the library."""

from __future__ import annotations

import re

import numpy as np
import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from tests.lens_browser import settle, table_input
from tests.test_browser import (  # noqa: F401  (fixtures, and the skip without Chromium)
    ARTIFACTS,
    _expect_metric_at_slider,
    _wait_for_app,
    browser,
    page,
    pytestmark,
    server,
)


@pytest.fixture
def multilabel_file(tmp_path):
    rng = np.random.default_rng(22)
    n, classes = 400, ["cat", "dog", "bird", "rare_fish"]
    prevalence = np.array([0.5, 0.35, 0.2, 0.03])
    y = rng.random((n, len(classes))) < prevalence
    s = np.clip(0.45 * y + rng.random(y.shape) * 0.6, 0, 1).round(3)
    path = tmp_path / "tags.csv"
    header = [f"label_{c}" for c in classes] + [f"score_{c}" for c in classes]
    lines = [",".join(header)] + [
        ",".join([*(str(int(v)) for v in y[i]), *(f"{v:.3f}" for v in s[i])]) for i in range(n)
    ]
    path.write_text("\n".join(lines))
    return path, y, s


def _f1(y, s, t, average):
    import metrics

    pred = metrics.predict_at_thresholds(s, t)
    from ui.analyses.decision_rules import fmt
    from ui.figures.multilabel_charts import capture

    return fmt(capture(metrics.f1_score, y, pred, average=average)[0])


def test_upload_move_the_shared_threshold_read_micro_and_macro_f1(server, page, multilabel_file):  # noqa: F811
    from playwright.sync_api import expect

    path, y, s = multilabel_file
    page.goto(server)
    _wait_for_app(page)
    dropzone = table_input(page)
    for _ in range(4):  # under load a click during a rerun can be lost; a second one unselects
        if not dropzone.count():
            page.get_by_role("radio", name="Upload").click()
        try:
            dropzone.wait_for(state="attached", timeout=15_000)
            break
        except Exception:
            _wait_for_app(page)
    dropzone.set_input_files(str(path))
    # read and mapped: Threshold shows the first class's score column
    expect(page.get_by_role("heading", name="Threshold · score_cat")).to_be_visible(timeout=60_000)
    _wait_for_app(page)
    more = page.get_by_text(re.compile(r"^View \d+ more$"))  # a folded navigation
    if more.count():
        more.first.click()
    page.get_by_role("link", name="Multi-label").click()
    _wait_for_app(page)
    heading = page.get_by_role(
        "heading", name="A decision rule: per-class confusion, metrics and their averages"
    )
    heading.wait_for(timeout=60_000)
    _top(heading)
    box = page.locator(".st-key-multilabel_threshold")
    expect(box).to_be_visible(timeout=20_000)
    slider = box.locator('input[type="range"]').first
    if not slider.count():  # the BaseWeb slider of older Streamlit
        slider = box.locator('[role="slider"]').first

    def value() -> float:
        return float(
            slider.input_value()
            if slider.get_attribute("type")
            else slider.get_attribute("aria-valuenow")
        )

    assert value() == 0.5  # probabilities: the default shared threshold
    for avg in ("micro", "macro"):
        _expect_metric_at_slider(
            page, _Slider(value), f"F1 ({avg})", lambda t, a=avg: _f1(y, s, t, a)
        )
    ARTIFACTS.mkdir(exist_ok=True)
    page.set_viewport_size({"width": 1400, "height": 1000})
    _top(heading)
    page.screenshot(path=ARTIFACTS / "multilabel-rule-1400x1000.png")
    slider.focus()
    for _ in range(15):
        page.keyboard.press("ArrowRight")
    _wait_for_app(page)
    assert value() > 0.5
    for avg in ("micro", "macro"):
        _expect_metric_at_slider(
            page, _Slider(value), f"F1 ({avg})", lambda t, a=avg: _f1(y, s, t, a)
        )
    assert _f1(y, s, value(), "micro") != _f1(y, s, 0.5, "micro")
    assert page.locator('[data-testid="stException"]').count() == 0
    _top(heading)
    page.screenshot(path=ARTIFACTS / "multilabel-rule-moved-1400x1000.png")
    page.set_viewport_size({"width": 1280, "height": 720})
    settle(page)
    _top(heading)
    page.screenshot(path=ARTIFACTS / "multilabel-rule-1280x720.png")
    _top(page.get_by_text("Each class's 2 × 2 confusion matrix"))
    settle(page)
    page.screenshot(path=ARTIFACTS / "multilabel-matrices-1280x720.png")
    page.set_viewport_size({"width": 1400, "height": 1000})
    _top(page.locator('[data-testid="stMetric"]', has_text="F1 (micro)").first)
    settle(page)
    page.screenshot(path=ARTIFACTS / "multilabel-tables-1400x1000.png")
    page.set_viewport_size({"width": 1280, "height": 720})
    choose = page.get_by_role("heading", name="Choosing thresholds")
    _top(choose)
    settle(page)
    page.screenshot(path=ARTIFACTS / "multilabel-choose-1280x720.png")
    # a class's button opens that class alone on the Threshold page, same upload
    page.locator(".st-key-multilabel_open_3 button").click()
    _wait_for_app(page)
    page.get_by_role("link", name="Open rare_fish on the Threshold page").click()
    heading = page.get_by_role("heading", name="Threshold · score_rare_fish")
    expect(heading).to_be_visible(timeout=30_000)
    assert page.get_by_text("tags.csv").count()


def _top(locator) -> None:
    """Scroll so that ``locator`` is at the top of the view (for the screenshots)."""
    locator.evaluate("e => e.scrollIntoView({block: 'start'})")


class _Slider:
    """What :func:`_expect_metric_at_slider` reads: ``input_value()`` of the threshold."""

    def __init__(self, value):
        self._value = value

    def input_value(self) -> str:
        return str(self._value())


def test_wine_abstain_rule_in_the_browser(server, page):  # noqa: F811
    """Multi-class: the abstention rule's N x (N + 1) matrix and the micro-F1 = accuracy
    sentence render; screenshots for a person to look at."""
    from playwright.sync_api import expect

    page.set_viewport_size({"width": 1280, "height": 720})
    page.goto(f"{server}/multilabel?dataset=wine_multiclass")
    _wait_for_app(page)
    heading = page.get_by_role(
        "heading", name="A decision rule: per-class confusion, metrics and their averages"
    )
    heading.wait_for(timeout=60_000)
    expect(page.get_by_text("Micro-F1 = accuracy")).to_be_visible(timeout=20_000)
    _top(heading)
    settle(page)
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=ARTIFACTS / "multilabel-wine-argmax-1280x720.png")
    page.get_by_role("radio", name="argmax, abstain below a score").click()
    _wait_for_app(page)
    expect(page.get_by_text("Abstaining breaks micro-F1 = accuracy")).to_be_visible(timeout=20_000)
    _top(page.get_by_text("Each class's 2 × 2 confusion matrix"))
    settle(page)
    page.screenshot(path=ARTIFACTS / "multilabel-wine-abstain-1280x720.png")
    assert page.locator('[data-testid="stException"]').count() == 0


def test_wine_cost_matrix_in_the_browser(server, page):  # noqa: F811
    """Multi-class costs: type a cost into the matrix, the totals and the rows that change
    decision equal metrics.compare_cost_decisions, the Explain unfolds the first row that
    changes; screenshots for a person to look at."""
    from playwright.sync_api import expect

    import metrics
    from ui.compute import data
    from ui.figures import multilabel_charts as mc

    p = mc.problem_from_dataset(data.bundled_dataset("wine_multiclass"))
    cost = 1 - np.eye(3)
    cost[1, 0] = 20  # predicting class_0 for a true class_1
    want = metrics.compare_cost_decisions(p.true_labels(), p.scores, cost, labels=list(p.classes))

    page.set_viewport_size({"width": 1400, "height": 1000})
    page.goto(f"{server}/multilabel?dataset=wine_multiclass")
    _wait_for_app(page)
    heading = page.get_by_role(
        "heading", name="Costs: the minimum-expected-cost decision against argmax"
    )
    heading.wait_for(timeout=120_000)
    _wait_for_app(page)
    _top(heading)
    settle(page)
    changed = page.locator('[data-testid="stMetric"]', has_text="rows changing decision").first
    expect(changed).to_contain_text("0", timeout=60_000)
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=ARTIFACTS / "multilabel-cost-default-1400x1000.png")
    # type 20 into (true class_1, predicted class_0): from the first cell, one right, one down
    grid = page.locator('.st-key-multilabel_cost_editor [data-testid="stDataFrame"]')
    expect(grid).to_be_visible(timeout=20_000)
    # Each key waits for the state the last one made: the grid's canvas focused, then its cell
    # editor open, then the typed value in it. Under load a key pressed before the click had
    # focused the grid was lost, and the test spent 30 s waiting for a total that never came.
    in_grid = (
        "() => !!document.activeElement &&"
        " !!document.activeElement.closest('.st-key-multilabel_cost_editor')"
    )
    editing = (
        "(v) => { const e = document.activeElement;"
        " return !!e && e.classList.contains('gdg-input') && (v === null || e.value === v); }"
    )
    for attempt in range(3):  # an editor that did not open (the grid redrawn): click again
        box = grid.bounding_box()
        page.mouse.click(box["x"] + 30, box["y"] + 35 + 17)  # row 0 of the first column
        try:
            page.wait_for_function(in_grid, timeout=10_000)
            page.keyboard.press("ArrowRight")
            page.keyboard.press("ArrowDown")
            page.keyboard.press("Enter")  # open the cell's editor (typing at once loses a key)
            page.wait_for_function(editing, arg=None, timeout=10_000)
            break
        except PlaywrightTimeout:
            if attempt == 2:
                raise
            page.keyboard.press("Escape")
            settle(page)
    page.keyboard.press("Control+a")
    page.keyboard.type("20", delay=50)
    page.wait_for_function(editing, arg="20", timeout=10_000)
    page.keyboard.press("Enter")
    _wait_for_app(page)
    expect(changed).to_contain_text(f"{want.changed:,}", timeout=30_000)
    total = page.locator('[data-testid="stMetric"]', has_text="total cost, min cost")
    expect(total.first).to_contain_text(f"{want.min_cost_mean * p.n_rows:,.6g}", timeout=20_000)
    mean = page.locator('[data-testid="stMetric"]', has_text="mean cost, argmax").first
    expect(mean).to_contain_text(f"{want.argmax_mean:.4f}")
    assert page.locator('[data-testid="stException"]').count() == 0
    _top(heading)
    settle(page)
    page.screenshot(path=ARTIFACTS / "multilabel-cost-1400x1000.png")
    _top(page.get_by_text("Both N × N matrices").first)
    settle(page)
    page.screenshot(path=ARTIFACTS / "multilabel-cost-matrices-1400x1000.png")
    # the Explain of the first row that changes decision
    row = int(np.flatnonzero(want.min_cost_pred != want.argmax_pred)[0]) + 1
    expect(page.locator(".st-key-multilabel_cost_row input")).to_have_value(str(row))
    page.get_by_text(f"Explain: the expected costs of row {row}").click()
    settle(page)
    _top(page.locator(".st-key-multilabel_cost_row"))
    settle(page)
    page.screenshot(path=ARTIFACTS / "multilabel-cost-explain-1400x1000.png")
    assert page.locator('[data-testid="stException"]').count() == 0

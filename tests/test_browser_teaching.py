"""The teaching pages in a real browser (Debian's Chromium driven by Playwright): step-through
mode driven by the arrow keys on a known 8-row table, its one-screen layout at 1280x720 checked
by bounding boxes, every lesson's formulas rendered by the browser's KaTeX, and lessons revealed
and answered on the page.

The server and browser fixtures are the ones of ``tests/test_browser.py``; screenshots go to
``test-artifacts/``.
"""

from __future__ import annotations

import contextlib

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from tests.lens_browser import settle, sized_page
from tests.test_browser import (  # noqa: F401  (fixtures used by name)
    ARTIFACTS,
    ROOT,
    _choose,
    _serve,
    _upload,
    _wait_for_app,
    browser,
    pytestmark,
    server,
)
from ui.teaching import lessons

# Eight rows, a positive and a negative tied at 0.62 (rows 4 and 5).
LABELS = [1, 1, 0, 1, 0, 1, 0, 0]
SCORES = [0.9, 0.8, 0.7, 0.62, 0.62, 0.4, 0.3, 0.1]
# (TP, FP) after each press of the right arrow: the tied pair crosses in one step.
EXPECTED = [(0, 0), (1, 0), (2, 0), (2, 1), (3, 2), (4, 2), (4, 3), (4, 4)]
N_POS = N_NEG = 4


@pytest.fixture
def projector(browser, request):  # noqa: F811
    """A page the size of a 1280x720 projector."""
    yield from sized_page(browser, request, 1280, 720)


MATRIX_TEXTS = """() => [...document.querySelectorAll('.st-key-step_through_matrix text')]
    .map(e => e.textContent.trim()).filter(t => /^(TP|FP|FN|TN) \\d+$/.test(t)).sort()"""


def _expect_counts(page, tp: int, fp: int) -> None:
    """The confusion matrix heatmap shows exactly these counts (its SVG text), waiting for the
    rerun the key press started."""
    want = sorted(f"{k} {v}" for k, v in (("TP", tp), ("FP", fp), ("FN", N_POS - tp),
                                          ("TN", N_NEG - fp)))  # fmt: skip
    with contextlib.suppress(PlaywrightTimeout):  # the assertion below says what was shown
        page.wait_for_function(
            f"want => JSON.stringify(({MATRIX_TEXTS})()) === JSON.stringify(want)",
            arg=want,
            timeout=20_000,
        )
    assert page.evaluate(MATRIX_TEXTS) == want


def _step_text(page, k: int, timeout: int = 20_000) -> None:
    page.wait_for_function(
        "k => document.querySelector('.st-key-step_through_change')"
        "?.innerText.includes(`Step ${k} of`)",
        arg=k,
        timeout=timeout,
    )


def _press_to_step(page, key: str, k: int) -> None:
    """Press ``key`` until the page shows step ``k``: on a loaded machine a key pressed while
    the page reruns can be lost (CI lost one), so press again only once the page is idle and
    still shows the step before."""
    for _ in range(3):
        page.keyboard.press(key)
        with contextlib.suppress(PlaywrightTimeout):
            _step_text(page, k, timeout=10_000)
            return
        _wait_for_app(page)
        if f"Step {k} of" in page.locator(".st-key-step_through_change").inner_text():
            return
    _step_text(page, k)  # the last chance, and its message


def _open_eight_rows(page, server, tmp_path) -> None:  # noqa: F811
    csv_path = tmp_path / "eight_rows.csv"
    csv_path.write_text(
        "label,score\n" + "\n".join(f"{y},{s}" for y, s in zip(LABELS, SCORES, strict=True))
    )
    page.goto(server)
    _wait_for_app(page)
    _upload(page, csv_path)
    page.get_by_text("Positive label").wait_for(timeout=30_000)
    _wait_for_app(page)
    page.get_by_role("link", name="Step through").click()
    page.get_by_role("heading", name="Step through · score").wait_for(timeout=30_000)
    _wait_for_app(page)


def _in_viewport(page, locator, name: str) -> None:
    box = locator.bounding_box()
    assert box is not None, f"{name} is not drawn"
    vw, vh = page.viewport_size["width"], page.viewport_size["height"]
    assert box["x"] >= 0, (name, box)
    assert box["y"] >= 0, (name, box)
    assert box["x"] + box["width"] <= vw + 1, (name, box)
    assert box["y"] + box["height"] <= vh + 1, (name, box)
    assert box["width"] > 100, (name, box)
    assert box["height"] > 100, (name, box)


def _check_layout(page, label: str) -> None:
    _in_viewport(page, page.locator("table.ml-steps"), "sorted rows")
    for key, name in (("matrix", "confusion matrix"), ("roc", "ROC"), ("pr", "PR curve")):
        _in_viewport(page, page.locator(f".st-key-step_through_{key} .js-plotly-plot"), name)
    # nothing scrolled: the page is at its top, and the threshold line is on screen too
    assert page.evaluate("() => window.scrollY") == 0
    _in_viewport(page, page.locator("table.ml-steps"), f"{label} table")
    line = page.locator("table.ml-steps tr.ml-line").bounding_box()
    assert line is not None
    assert line["y"] + line["height"] <= 720


def test_step_through_with_the_arrow_keys(server, projector, tmp_path):  # noqa: F811
    page = projector
    _open_eight_rows(page, server, tmp_path)
    assert page.locator('[data-testid="stException"]').count() == 0
    _expect_counts(page, 0, 0)
    page.get_by_role("heading", name="Step through · score").click()  # focus off any input
    for k in range(1, len(EXPECTED)):
        _press_to_step(page, "ArrowRight", k)
        _expect_counts(page, *EXPECTED[k])
        if k == 4:  # the tie: both rows cross in one step, the ROC moves diagonally
            change = page.locator(".st-key-step_through_change").inner_text()
            assert "rows 4, 5 (tied at score 0.62" in change
            assert "crossed together: TP 2 → 3, FN 2 → 1, FP 1 → 2, TN 3 → 2" in change
            ARTIFACTS.mkdir(exist_ok=True)
            page.screenshot(path=ARTIFACTS / "step_through-eight-rows-tie.png")
    page.keyboard.press("ArrowRight")  # past the last step: nothing changes
    _wait_for_app(page)
    _expect_counts(page, 4, 4)
    sums = page.locator(".st-key-step_through_sums").inner_text()
    assert "0.8167 = library AP" in sums
    assert "0.7813 = library AUC" in sums  # 12.5 / 16 = 0.78125, rounded half up as by hand
    for k in range(len(EXPECTED) - 2, 1, -1):
        _press_to_step(page, "ArrowLeft", k)
        _expect_counts(page, *EXPECTED[k])
    _check_layout(page, "eight rows")
    page.screenshot(path=ARTIFACTS / "step_through-eight-rows.png")
    assert page.locator('[data-testid="stException"]').count() == 0


def test_step_through_fits_a_projector_on_a_large_table(server, projector):  # noqa: F811
    page = projector
    page.goto(f"{server}/step_through?dataset=breast_cancer")
    _wait_for_app(page)
    _step_text(page, 0)
    settle(page)
    page.get_by_role("heading", name="Step through · logistic_regression").click()
    for k in range(1, 4):
        _press_to_step(page, "ArrowRight", k)
        _wait_for_app(page)
    _check_layout(page, "breast cancer")
    assert page.locator("table.ml-steps tbody tr").count() <= 14  # a window, not 569 rows
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=ARTIFACTS / "step_through-breast_cancer.png")


def test_every_lessons_latex_renders_in_the_browser(browser):  # noqa: F811
    """The browser's KaTeX renders every formula of every lesson (context, question,
    derivation, note, hints), three seeds each, drawn on one page as the Lessons page draws
    them (tests/lessons_latex_page.py). That the Lessons page opens and reveals every lesson
    without an exception is an AppTest (tests/test_lessons.py); walking all 24 here took a
    minute of the suite for what the AppTest sees, and saw one seed."""
    from tests.lessons_latex_page import SEEDS

    served = _serve(script="tests/lessons_latex_page.py", env={"PYTHONPATH": str(ROOT)})
    url = next(served)
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    page = context.new_page()
    try:
        page.goto(url)
        page.locator(".st-key-latex_done").wait_for(timeout=120_000)
        settle(page)
        assert page.locator('[data-testid="stException"]').count() == 0
        for lesson in lessons.LESSONS:
            for seed in SEEDS:
                block = page.locator(f".st-key-latex_{lesson.key}_{seed}")
                assert block.locator(".katex").count() > 0, (lesson.key, seed)
                assert block.locator(".katex-error").count() == 0, (lesson.key, seed)
        assert page.locator(".katex-error").count() == 0
    finally:
        context.close()
        next(served, None)  # the server's stop, after its yield


def test_lessons_reveal_and_check_answers_in_the_browser(server, browser):  # noqa: F811
    """Three lessons opened and revealed on the Lessons page itself (with screenshots), and
    an answer checked right, then wrong."""
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    page = context.new_page()
    try:
        page.goto(f"{server}/lessons")
        _wait_for_app(page)
        for lesson in (lessons.BY_KEY[k] for k in ("ap_trapezoid", "gauc_reversal", "ir_map")):
            _choose(page, "Lesson", f"{lesson.topic} · {lesson.title}")
            page.get_by_role("button", name="Show me").click()
            page.get_by_text("Explain: how the answer is derived").wait_for(timeout=20_000)
            _wait_for_app(page)
            assert page.locator('[data-testid="stException"]').count() == 0, lesson.key
            assert page.locator(".katex-error").count() == 0, lesson.key  # LaTeX that renders
            assert page.locator(".katex").count() > 0, lesson.key
            ARTIFACTS.mkdir(exist_ok=True)
            page.screenshot(path=ARTIFACTS / f"lessons-{lesson.key}.png", full_page=True)
        # answer one: right, then wrong
        _choose(page, "Lesson", f"{lessons.TOPICS[3]} · AP = 5/6 as scikit-learn's step sum")
        box = page.get_by_role("textbox", name="Your answer")
        box.fill("5/6")
        page.get_by_role("button", name="Check").click()
        page.get_by_text("Right: 0.8333 = 5/6").wait_for(timeout=20_000)
        box.fill("0.7917")
        page.get_by_role("button", name="Check").click()
        page.get_by_text("Not quite: the answer is 0.8333 = 5/6").wait_for(timeout=20_000)
    finally:
        context.close()


def _metric(page, label: str) -> str:
    card = page.locator('[data-testid="stMetric"]', has_text=label).first
    return card.locator('[data-testid="stMetricValue"]').inner_text().strip()


def test_enter_then_check_is_one_attempt_and_the_hint_is_on_the_first_screen(server, projector):  # noqa: F811
    """At 1280x720, outside presentation mode: Enter in the answer box and then Check on the
    same wrong answer are one miss (the hint, not the answer or its derivation), and the hint
    sits on the first screen next to the answer box."""
    lesson = lessons.BY_KEY["auc_tie"]
    projector.goto(f"{server}/lessons")
    _wait_for_app(projector)
    _choose(projector, "Lesson", f"{lesson.topic} · {lesson.title}")
    box = projector.get_by_role("textbox", name="Your answer")
    box.fill("0.75")
    box.press("Enter")
    projector.get_by_text("Not quite: you said 0.75").wait_for(timeout=20_000)
    settle(projector)
    projector.get_by_role("button", name="Check").click()
    settle(projector)
    ARTIFACTS.mkdir(exist_ok=True)
    projector.screenshot(path=ARTIFACTS / "lessons-enter-then-check-1280x720.png")
    main = projector.locator('[data-testid="stMain"]').inner_text()
    assert "the answer is" not in main, main
    assert "0.875" not in main, main
    assert projector.get_by_text("Explain: how the answer is derived").count() == 0
    hint = projector.locator('[data-testid="stAlert"]', has_text="Hint:").bounding_box()
    answer = projector.get_by_role("textbox", name="Your answer").bounding_box()
    assert hint["y"] + hint["height"] <= 720, hint
    assert hint["y"] - (answer["y"] + answer["height"]) < 200, (hint, answer)

"""The dashboard in a real browser: Debian's Chromium driven by Playwright.

A fixture starts ``streamlit run app.py`` on a free loopback port and stops it afterwards.
Screenshots of every page go to ``test-artifacts/`` for a person to look at.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from tests.lens_browser import settle, shared, table_input

ROOT = Path(__file__).resolve().parent.parent
ARTIFACTS = ROOT / "test-artifacts"
CHROMIUM = os.environ.get("CHROMIUM", shutil.which("chromium") or "/usr/bin/chromium")

pytestmark = pytest.mark.skipif(
    not Path(CHROMIUM).exists() and not os.environ.get("CI"),
    reason="Debian's chromium is not installed (make test installs it)",
)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def server():
    """The dashboard's URL: one server per test process, shared by the browser files that run
    on it (each test opens its own browser context, so no session, cookie or widget value
    passes between tests); started on first use and stopped when the process's tests end
    (``tests.lens_browser.shared``). A shared server is started once and its
    caches are warm: each file starting its own cost a start and a cold first page each."""
    return shared("server", _serve)


@pytest.fixture
def fresh_server():
    """A server whose first request is the test's own (Streamlit's first run is special)."""
    yield from _serve()


def _serve(env: dict | None = None, script: str = "app.py"):
    """``streamlit run app.py`` (or another ``script`` of the repository) on a free loopback
    port (with ``env`` added to the environment); yields its URL, stops it afterwards.

    The server's output goes to a file, never to a pipe nobody reads: a full pipe (64 KB of
    logs over a module's tests) blocks the server on its next write, and every later page
    load times out."""
    import tempfile

    port = _free_port()
    log = tempfile.TemporaryFile()  # noqa: SIM115 (lives as long as the server; closed below)
    proc = subprocess.Popen(
        [
            sys.executable, "-m", "streamlit", "run", script,
            "--server.port", str(port), "--server.address", "127.0.0.1",
            "--server.headless", "true", "--browser.gatherUsageStats", "false",
        ],
        cwd=ROOT,
        env=None if env is None else {**os.environ, **env},
        stdout=log,
        stderr=subprocess.STDOUT,
    )  # fmt: skip
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as r:
                if r.status == 200:
                    break
        except OSError:
            time.sleep(0.3)
    else:
        proc.kill()
        log.seek(0)
        raise RuntimeError(f"streamlit did not start: {log.read().decode()[-2000:]}")
    yield url
    proc.terminate()
    try:
        proc.wait(timeout=20)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(timeout=20)
    log.close()


@pytest.fixture(scope="module")
def browser():
    """Debian's Chromium, one per test process (shared as the server is); each test opens its
    own context, so no cookies or storage pass between tests."""
    return shared("browser", _chromium)


def _chromium():
    from tests.lens_browser import chromium

    with chromium() as b:
        yield b


@pytest.fixture
def page(browser, request):
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    pg = context.new_page()
    yield pg
    report = getattr(request.node, "rep_call", None)
    if report is not None and report.failed:  # what the page looked like when it failed
        ARTIFACTS.mkdir(exist_ok=True)
        pg.screenshot(path=ARTIFACTS / f"FAILED-{request.node.name}.png", full_page=True)
    context.close()


def _wait_for_app(page) -> None:
    # Streamlit shows a running indicator while the script runs; wait until it is idle.
    page.wait_for_selector('[data-testid="stHeading"]', timeout=60_000)
    settle(page)


def _metric_value(page, label: str) -> str:
    card = page.locator('[data-testid="stMetric"]', has_text=label).first
    return card.locator('[data-testid="stMetricValue"]').inner_text().strip()


def _expect_metric_at_slider(page, slider, label: str, value_at, timeout: float = 20) -> None:
    """The card shows ``value_at(t)`` for the threshold ``t`` the slider shows, once the server
    and the slider have settled (after fast key presses either may still be catching up)."""
    card = page.locator('[data-testid="stMetric"]', has_text=label).first
    deadline = time.monotonic() + timeout
    while True:
        want = value_at(float(slider.input_value()))
        got = card.locator('[data-testid="stMetricValue"]').inner_text().strip()
        if got == want:
            return
        assert time.monotonic() < deadline, f"{label}: {got} on screen, {want} at the slider"
        settle(page)


def _expect_metric(page, label: str, value: str) -> None:
    """The card shows ``value`` (retrying while a rerun is still on its way)."""
    from playwright.sync_api import expect

    card = page.locator('[data-testid="stMetric"]', has_text=label).first
    expect(card.locator('[data-testid="stMetricValue"]')).to_have_text(value, timeout=20_000)


def test_threshold_page_renders_and_reacts_to_the_keyboard(server, page):
    import metrics
    from ui.compute.data import bundled_dataset
    from ui.tables.dataset import DEFAULT_DATASET

    page.goto(server)
    _wait_for_app(page)
    assert page.locator('[data-testid="stException"]').count() == 0
    assert page.get_by_role("heading", name="Threshold · logistic_regression").is_visible()
    from playwright.sync_api import expect

    expect(page.locator(".js-plotly-plot")).to_have_count(4, timeout=20_000)
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=ARTIFACTS / "threshold.png", full_page=True)

    table = bundled_dataset(DEFAULT_DATASET)
    before = _metric_value(page, "Precision")
    slider = page.locator('[data-testid="stSlider"] input[type="range"]').first
    slider.focus()
    for _ in range(100):
        page.keyboard.press("ArrowRight")
    _wait_for_app(page)
    threshold = float(slider.input_value())
    c = metrics.confusion_at_threshold(
        table.y, table.score("logistic_regression"), threshold, pos_label=True
    )
    _expect_metric(page, "Precision", f"{c.precision:.3f}")
    _expect_metric(page, "Recall (TPR)", f"{c.recall:.3f}")
    assert threshold > 0.5
    assert before != _metric_value(page, "Precision") or c.precision == 1.0
    assert page.locator('[data-testid="stException"]').count() == 0
    page.screenshot(path=ARTIFACTS / "threshold-moved.png", full_page=True)


_POINTS = """(key) => {
  const plot = document.querySelector(`.st-key-${key} .js-plotly-plot`);
  return plot ? plot.data.filter((t) => t.mode === 'markers' && t.x && t.x.length === 1)
    .map((t) => [Number(t.x[0]), Number(t.y[0])]) : [];
}"""


def test_dragging_the_threshold_on_the_class_strip_moves_the_matrix_and_the_points(server, page):
    """Issue 35, part 5: the line on the class-score strip is dragged with the mouse. While
    the button is still down the page already follows (the threshold is sent during the drag);
    once let go, the slider, the flagged count, the confusion matrix and the ROC and PR
    operating points all show the threshold the line stands at, exactly."""
    import metrics
    from ui.compute.data import bundled_dataset
    from ui.tables.dataset import DEFAULT_DATASET

    page.goto(server)
    _wait_for_app(page)
    strip = page.locator(".lens-strip-svg")
    strip.wait_for(timeout=30_000)
    slider = page.locator('[data-testid="stSlider"] input[type="range"]').first
    start = float(slider.input_value())
    box = strip.bounding_box()
    y = box["y"] + box["height"] / 2
    agree = (  # the slider and the line (in its component's shadow root) show one value
        "() => { const find = (r) => r.querySelector('.lens-strip-svg') || [...r.querySelectorAll"
        "('*')].filter((e) => e.shadowRoot).map((e) => find(e.shadowRoot)).find(Boolean);"
        " const s = document.querySelector('[data-testid=stSlider] input'), g = find(document);"
        " return !!(s && g) && Number(s.value) === Number(g.getAttribute('aria-valuenow')); }"
    )

    def settled() -> None:
        page.wait_for_function(agree, timeout=30_000)
        _wait_for_app(page)
        page.wait_for_function(agree, timeout=30_000)

    page.mouse.move(box["x"] + box["width"] * 0.6, y)
    page.mouse.down()
    page.mouse.move(box["x"] + box["width"] * 0.45, y, steps=6)
    page.wait_for_function(  # the page follows while the button is still down
        "([v]) => { const s = document.querySelector('[data-testid=stSlider] input');"
        " return s && Number(s.value) !== v; }",
        arg=[start],
        timeout=30_000,
    )
    # The page catches up with the drag before it ends; then the last move and the release
    # come at once: both send the same value, and the second rerun carried the slider's
    # value from before the drag, which put the threshold back (the line stayed where let go).
    _wait_for_app(page)
    page.mouse.move(box["x"] + box["width"] * 0.3, y)
    page.mouse.up()
    let_go = float(strip.get_attribute("aria-valuenow"))  # where the line stands when let go
    # Read the line only once the slider and the line agree and the page is idle: a rerun asked
    # for during the drag may redraw the line at an earlier value before the last one lands.
    settled()
    t = float(strip.get_attribute("aria-valuenow"))
    assert t == let_go != start  # the last move is kept, past every rerun of the drag
    assert float(slider.input_value()) == t
    table = bundled_dataset(DEFAULT_DATASET)
    c = metrics.confusion_at_threshold(
        table.y, table.score("logistic_regression"), t, pos_label=True
    )
    flagged = page.get_by_text("are predicted").first.inner_text()
    assert f"{int(c.tp + c.fp)} of 569 rows" in flagged, (t, flagged)
    matrix = page.locator(".st-key-threshold_matrix").inner_text()
    for cell in (c.tp, c.fp, c.fn, c.tn):
        assert str(int(cell)) in matrix, (t, matrix)
    fpr, tpr = c.fp / (c.fp + c.tn), c.tp / (c.tp + c.fn)
    precision = c.tp / (c.tp + c.fp)
    roc = page.evaluate(_POINTS, "threshold_roc")
    pr = page.evaluate(_POINTS, "threshold_pr")
    assert any(abs(x - fpr) < 1e-9 and abs(yv - tpr) < 1e-9 for x, yv in roc), (t, roc)
    assert any(abs(x - tpr) < 1e-9 and abs(yv - precision) < 1e-9 for x, yv in pr), (t, pr)
    assert page.locator('[data-testid="stException"]').count() == 0
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=ARTIFACTS / "threshold-dragged.png", full_page=True)
    # The strip is a slider for the keyboard too: Right moves the cut up one step of the slider.
    strip.focus()
    page.keyboard.press("ArrowRight")
    page.wait_for_function(
        "([v]) => Number(document.querySelector('[data-testid=stSlider] input').value) > v",
        arg=[t],
        timeout=30_000,
    )
    _wait_for_app(page)
    assert float(slider.input_value()) == pytest.approx(t + 0.001, abs=1e-9)


# Every page on its tour dataset is opened (and photographed) by tests/test_browser_tour.py;
# here, the pages a second bundled layout changes most.
PAGES = [
    ("multilabel", "wine_multiclass"),
]


@pytest.mark.parametrize(("path", "dataset"), PAGES)
def test_every_page_renders_without_an_exception(server, page, path, dataset):
    page.goto(f"{server}/{path}?dataset={dataset}")
    page.wait_for_selector('[data-testid="stHeading"]', timeout=60_000)
    settle(page)
    assert page.locator('[data-testid="stException"]').count() == 0
    assert page.locator('[data-testid="stAlert"]', has_text="cannot be used").count() == 0
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=ARTIFACTS / f"{path}-{dataset}.png", full_page=True)


def _choose(page, label: str, option: str, attempts: int = 3) -> None:
    """Pick an option of the st.selectbox with this label (a react-aria combobox). A rerun
    that lands between typing and the click (after a source change the app re-renders the
    sidebar, as CI once caught: the list closed and the option never came) closes the list:
    then the list is opened and the option typed again, once the app is idle."""
    from tests.lens_browser import open_options

    combo = page.get_by_role("combobox", name=label, exact=True)
    wanted = page.get_by_role("option", name=option, exact=True)
    for attempt in range(attempts):
        open_options(page, combo)
        combo.fill(option)  # type to filter, as a user would
        try:
            wanted.wait_for(timeout=8_000)
            wanted.click(timeout=8_000)
            break
        except Exception:
            if attempt == attempts - 1:
                raise
            page.keyboard.press("Escape")
    _wait_for_app(page)


def _upload(page, path) -> None:
    """Switch the sidebar to Upload and send a file through the real file input."""
    dropzone = table_input(page)
    for _ in range(3):  # a click during a script rerun can be lost: try again
        page.get_by_role("radio", name="Upload").click()
        try:
            dropzone.wait_for(state="attached", timeout=10_000)
            break
        except Exception:
            continue
    dropzone.set_input_files(str(path))


def _legend(page) -> list[str]:
    """Legend entries of every plotly chart on the page (SVG text, so textContent)."""
    from playwright.sync_api import expect

    expect(page.locator(".legendtext").first).to_be_attached(timeout=20_000)
    return page.locator(".legendtext").evaluate_all("els => els.map(e => e.textContent.trim())")


def test_upload_mapping_keyboard_and_model_switch_in_a_real_browser(server, page, tmp_path):
    import numpy as np

    import metrics
    from ui.tables.roles import default_threshold, infer_scale

    rng = np.random.default_rng(3)
    n = 400
    outcome = np.where(rng.random(n) < 0.3, "Yes", "No")
    x = np.round(rng.random(n) + (outcome == "Yes") * 0.4, 4)
    z = np.round(rng.random(n), 4)
    csv_path = tmp_path / "scores.csv"
    csv_path.write_text(
        "outcome,model_x,model_z\n"
        + "\n".join(f"{o},{a},{b}" for o, a, b in zip(outcome, x, z, strict=True))
    )
    page.goto(server)
    _wait_for_app(page)
    _upload(page, csv_path)
    page.get_by_text("Positive label").wait_for(timeout=30_000)
    _wait_for_app(page)
    assert page.locator('[data-testid="stException"]').count() == 0

    # The mapping change: "No" as the positive class, then back to "Yes".
    _choose(page, "Positive label", "No")
    y_no = outcome == "No"
    slider = page.locator('[data-testid="stSlider"] input[type="range"]').first
    # Untouched, the slider stands at the scale's default, which may lie between its steps.
    t = default_threshold(infer_scale(x, "model_x").kind, y_no, x)
    c = metrics.confusion_at_threshold(y_no, x, t, pos_label=True)
    _expect_metric(page, "Recall (TPR)", f"{c.recall:.3f}")
    _choose(page, "Positive label", "Yes")
    y = outcome == "Yes"

    # The threshold moves with the keyboard.
    slider.focus()
    for _ in range(20):
        page.keyboard.press("ArrowLeft")
    _wait_for_app(page)
    _expect_metric_at_slider(
        page, slider, "Precision",
        lambda t: f"{metrics.confusion_at_threshold(y, x, t, pos_label=True).precision:.3f}",
    )  # fmt: skip

    # Switch the model, then read the areas off the Curves page legend.
    _choose(page, "Model (score column)", "model_z")
    t = default_threshold(infer_scale(z, "model_z").kind, y, z)  # model_z's own threshold
    c = metrics.confusion_at_threshold(y, z, t, pos_label=True)
    _expect_metric(page, "Precision", f"{c.precision:.3f}")
    page.get_by_role("link", name="Curves").click()
    page.get_by_role("heading", name="Curves").wait_for(timeout=30_000)
    _wait_for_app(page)
    legend = _legend(page)
    assert f"model_x (AUC {metrics.roc_auc_score(y, x):.3f})" in legend
    assert f"model_z (AP {metrics.average_precision_score(y, z):.3f})" in legend
    assert page.locator('[data-testid="stException"]').count() == 0
    page.screenshot(path=ARTIFACTS / "curves-upload.png", full_page=True)


def test_user_text_is_never_rendered_as_html(server, page):
    bad = Path(__file__).resolve().parent / "data" / "bad" / "html_in_names_and_cells.csv"
    page.goto(server)
    _wait_for_app(page)
    dialogs = []
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    _upload(page, bad)
    page.get_by_text("Positive label").wait_for(timeout=30_000)
    _wait_for_app(page)
    page.get_by_role("link", name="Data").click()
    page.get_by_role("heading", name="Data").wait_for(timeout=30_000)
    _wait_for_app(page)
    assert dialogs == []  # no alert() ran
    assert page.locator("script:has-text('alert(1)')").count() == 0
    assert page.locator("b:text('bold')").count() == 0  # the <b> name is not a bold element
    assert page.locator('[data-testid="stException"]').count() == 0


def test_shared_link_survives_the_first_click_after_a_server_start(fresh_server, page):
    page.goto(f"{fresh_server}/?dataset=wine_multiclass&model=score_class_1&threshold=0.3")
    _wait_for_app(page)
    dataset = page.get_by_role("combobox", name="Sample dataset")
    assert dataset.input_value() == "Wine: 3 cultivars (multi-class)"
    page.get_by_role("radio", name="top k", exact=True).click()
    _wait_for_app(page)
    assert dataset.input_value() == "Wine: 3 cultivars (multi-class)"
    assert page.get_by_role("combobox", name="Class").input_value() == "score_class_1"

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
    port = _free_port()
    proc = subprocess.Popen(
        [
            sys.executable, "-m", "streamlit", "run", "app.py",
            "--server.port", str(port), "--server.address", "127.0.0.1",
            "--server.headless", "true", "--browser.gatherUsageStats", "false",
        ],
        cwd=ROOT,
        stdout=subprocess.PIPE,
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
        raise RuntimeError(f"streamlit did not start: {proc.stdout.read().decode()[-2000:]}")
    yield url
    proc.terminate()
    proc.wait(timeout=20)


@pytest.fixture(scope="module")
def browser():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(
            executable_path=CHROMIUM,
            headless=True,
            args=[
                "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                "--disable-background-networking", "--disable-component-update", "--disable-sync",
            ],
        )  # fmt: skip
        yield b
        b.close()


@pytest.fixture
def page(browser):
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    pg = context.new_page()
    yield pg
    context.close()


def _wait_for_app(page) -> None:
    # Streamlit shows a running indicator while the script runs; wait until it is idle.
    page.wait_for_selector('[data-testid="stMetric"]', timeout=30_000)
    page.wait_for_function(
        "() => !document.querySelector('[data-testid=\"stStatusWidget\"]')", timeout=30_000
    )
    page.wait_for_timeout(500)


def _metric_value(page, label: str) -> str:
    card = page.locator('[data-testid="stMetric"]', has_text=label).first
    return card.locator('[data-testid="stMetricValue"]').inner_text().strip()


def test_threshold_page_renders_and_reacts_to_the_keyboard(server, page):
    import metrics
    from ui.data import DEFAULT_DATASET, bundled_dataset

    page.goto(server)
    _wait_for_app(page)
    assert page.locator('[data-testid="stException"]').count() == 0
    assert page.get_by_role("heading", name="Threshold").is_visible()
    assert page.locator(".js-plotly-plot").count() == 2
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
    c = metrics.confusion_at_threshold(table.y, table.score("logistic_regression"), threshold, pos_label=True)
    assert _metric_value(page, "Precision") == f"{c.precision:.3f}"
    assert _metric_value(page, "Recall (TPR)") == f"{c.recall:.3f}"
    assert threshold > 0.5
    assert before != _metric_value(page, "Precision") or c.precision == 1.0
    assert page.locator('[data-testid="stException"]').count() == 0
    page.screenshot(path=ARTIFACTS / "threshold-moved.png", full_page=True)


@pytest.mark.parametrize("path", ["curves", "compare", "data"])
def test_every_page_renders_without_an_exception(server, page, path):
    page.goto(f"{server}/{path}")
    page.wait_for_selector('[data-testid="stHeading"]', timeout=30_000)
    page.wait_for_function(
        "() => !document.querySelector('[data-testid=\"stStatusWidget\"]')", timeout=60_000
    )
    page.wait_for_timeout(1000)
    assert page.locator('[data-testid="stException"]').count() == 0
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=ARTIFACTS / f"{path}.png", full_page=True)

"""Helpers shared by the metrics-lens command's tests: Chromium, ports, running the command."""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
CHROMIUM = os.environ.get("CHROMIUM", shutil.which("chromium") or "/usr/bin/chromium")

needs_chromium = pytest.mark.skipif(
    not Path(CHROMIUM).exists() and not os.environ.get("CI"),
    reason="Debian's chromium is not installed (make test installs it)",
)


_driver = None


def _playwright():
    """One Playwright driver per test process, started on first use: the session's Chromium
    (``tests/conftest.py``) and a test's own ``chromium()`` share it, since the sync API allows
    one running driver per thread."""
    global _driver
    if _driver is None:
        import atexit

        from playwright.sync_api import sync_playwright

        _driver = sync_playwright().start()
        atexit.register(_driver.stop)
    return _driver


@contextlib.contextmanager
def chromium():
    """A headless Chromium (Debian's, driven by Playwright)."""
    browser = _playwright().chromium.launch(
        executable_path=CHROMIUM,
        headless=True,
        args=["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
              "--disable-background-networking", "--disable-component-update", "--disable-sync"],
    )  # fmt: skip
    try:
        yield browser
    finally:
        browser.close()


# The sidebar's "Score table" uploader (a loaded table adds a second one below it, for another
# model's file of the same rows).
TABLE_INPUT = '[data-testid="stFileUploader"]:has-text("Score table") [data-testid="stFileUploaderDropzoneInput"]'


def table_input(page):
    """The file input of the sidebar's "Score table" uploader."""
    return page.locator(TABLE_INPUT)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def run_module(*args: str, cwd: Path, timeout: float = 300) -> subprocess.CompletedProcess:
    """``python -m metrics_lens ARGS`` from the clone, run in ``cwd``."""
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.run(
        [sys.executable, "-m", "metrics_lens", *args],
        cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout,
    )  # fmt: skip


def wait_for_app(page, timeout: float = 120_000) -> None:
    """The dashboard has drawn its page and is idle."""
    page.wait_for_selector('[data-testid="stHeading"]', timeout=timeout)
    settle(page, timeout)


# The page is at rest: no script run (Streamlit's running indicator), no element left stale
# from the last run, every plotly chart laid out, fonts loaded, no finite CSS animation (a
# sidebar sliding) still playing, and the page's text and layout unchanged over three polls in
# a row. Each is a state the page reports; no fixed pause stands in for one.
_SETTLED = """() => {
  if (document.querySelector('[data-testid="stStatusWidget"]')) return false;
  if (document.querySelector('[data-stale="true"]')) return false;
  if ([...document.querySelectorAll('.js-plotly-plot')].some(p => !p.querySelector('.main-svg')))
    return false;
  if (document.fonts && document.fonts.status !== 'loaded') return false;
  const moving = document.getAnimations().some(a => a.playState === 'running'
      && Number.isFinite(a.effect && a.effect.getComputedTiming().endTime));
  if (moving) return false;
  const main = document.querySelector('[data-testid="stMain"]') || document.documentElement;
  const box = main.getBoundingClientRect();
  const sign = [(main.innerText || main.textContent || '').length, document.querySelectorAll('*').length,
                Math.round(box.height), Math.round(window.scrollY)].join('/');
  if (window.__lensSign !== sign) { window.__lensSign = sign; window.__lensSame = 0; return false; }
  window.__lensSame = (window.__lensSame || 0) + 1;
  return window.__lensSame >= 3;
}"""


def settle(page, timeout: float = 120_000) -> None:
    """Wait until the page is at rest (see ``_SETTLED``): after a click, a key, a scroll or a
    page change, before reading what the page shows or measuring where things are."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    page.evaluate("() => { window.__lensSign = null; window.__lensSame = 0; }")
    try:
        page.wait_for_function(_SETTLED, timeout=timeout, polling=100)
    except PlaywrightTimeout as e:  # say which state the page never reached
        raise AssertionError(f"the page did not come to rest: {page.evaluate(_UNSETTLED)}") from e


_UNSETTLED = """() => ({
  running: !!document.querySelector('[data-testid="stStatusWidget"]'),
  stale: document.querySelectorAll('[data-stale="true"]').length,
  plotsNotLaidOut: [...document.querySelectorAll('.js-plotly-plot')]
      .filter(p => !p.querySelector('.main-svg')).length,
  fonts: document.fonts ? document.fonts.status : 'n/a',
  animations: document.getAnimations().filter(a => a.playState === 'running')
      .map(a => a.animationName || a.transitionProperty || 'animation'),
  lastSignature: window.__lensSign, samePolls: window.__lensSame,
})"""


def announced_url(proc, timeout: float = 120) -> str:
    """The URL ``metrics-lens app`` prints once its server answers (read from its stdout)."""
    import re
    import time
    import urllib.request

    deadline = time.monotonic() + timeout
    lines = []
    while time.monotonic() < deadline:
        line = proc.stdout.readline()
        if not line:
            break
        lines.append(line)
        found = re.search(r"Metrics Lens: (http://\S+)", line)
        if found:
            with urllib.request.urlopen(found.group(1), timeout=10) as r:
                assert r.status == 200
            return found.group(1)
    raise AssertionError("the app announced no URL:\n" + "".join(lines))


def open_options(page, combo, attempts: int = 4, wait=None) -> None:
    """Click a selectbox until its list of options is open. A rerun that lands between the
    click and the list (the app re-renders the sidebar after a source change) closes the list
    again: then wait for the app to be idle and click once more."""
    for attempt in range(attempts):
        (wait or wait_for_app)(page)
        combo.click()
        try:
            page.get_by_role("option").first.wait_for(timeout=8_000)
            return
        except Exception:
            if attempt == attempts - 1:
                raise
            page.keyboard.press("Escape")


def sized_page(browser, request, width: int, height: int):
    """A fixture body: a tab of ``width`` x ``height`` pixels, and a full-page screenshot in
    ``test-artifacts/`` when the test using it failed (``yield from`` it in a fixture)."""
    context = browser.new_context(viewport={"width": width, "height": height})
    pg = context.new_page()
    yield pg
    report = getattr(request.node, "rep_call", None)
    if report is not None and report.failed:
        artifacts = ROOT / "test-artifacts"
        artifacts.mkdir(exist_ok=True)
        pg.screenshot(path=artifacts / f"FAILED-{request.node.name}.png", full_page=True)
    context.close()


# The processes the browser files share within one test process: name -> (the generator that
# started it, what it yielded). Kept here, not in a test file: pytest imports a test file by
# its bare name ("test_browser") and the other files import it as "tests.test_browser", two
# modules with a dict each; this module is imported one way only.
_SHARED: dict = {}


def shared(name: str, start):
    """What the generator function ``start`` yields, started once per test process and kept
    until ``stop_shared``; started again when it has died (a server that no longer answers, a
    browser that lost its connection)."""
    held = _SHARED.get(name)
    if held is not None and not _alive(held[1]):
        _SHARED.pop(name)
        next(held[0], None)
        held = None
    if held is None:
        gen = start()
        held = _SHARED[name] = (gen, next(gen))
    return held[1]


def _alive(thing) -> bool:
    if isinstance(thing, str):  # a server's URL
        try:
            with urllib.request.urlopen(f"{thing}/_stcore/health", timeout=5) as r:
                return r.status == 200
        except OSError:
            return False
    return thing.is_connected()


def stop_shared() -> None:
    """Stop what ``shared`` started, browsers before the servers they browsed (called by
    tests/conftest.py when the session ends)."""
    for name in sorted(_SHARED, key=lambda n: n != "browser"):
        gen, _ = _SHARED.pop(name)
        next(gen, None)

"""A very wide upload on a shared server: how long until its user hears back, and how long
another user's threshold move takes meanwhile.

Starts ``streamlit run app.py`` on a loopback port and drives two real Chromium sessions in two
threads: one uploads a table of ``--columns`` numeric columns and times the answer (the page's
mapping, or the refusal of a table wider than the dashboard reads); the other moves the
Threshold slider with the keyboard again and again and times each move until the page's
"Scores ≥ t" sentence changes. Moves before the upload are the baseline.

    python -m bench.bench_wide --columns 10000
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

import numpy as np

from tests.lens_browser import table_input
from tests.test_browser import CHROMIUM, ROOT, _free_port

ARGS = [
    "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]  # fmt: skip


def _serve(port: int) -> subprocess.Popen:
    proc = subprocess.Popen(
        [sys.executable, "-m", "streamlit", "run", "app.py", "--server.port", str(port),
         "--server.address", "127.0.0.1", "--server.headless", "true"],
        cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    for _ in range(200):
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/_stcore/health", timeout=2):
                return proc
        except OSError:
            time.sleep(0.3)
    proc.kill()
    raise RuntimeError("streamlit did not start")


def _idle(page) -> None:
    page.wait_for_selector('[data-testid="stHeading"]', timeout=60_000)
    page.wait_for_function(
        "() => !document.querySelector('[data-testid=\"stStatusWidget\"]')", timeout=120_000
    )


def _mover(url: str, moves: list, stop: threading.Event, ready: threading.Event) -> None:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=ARGS)
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        page.goto(url)
        _idle(page)
        page.wait_for_timeout(2000)
        sentence = page.locator('[data-testid="stMarkdownContainer"]', has_text="are predicted")
        key = "ArrowLeft"
        ready.set()
        while not stop.is_set():
            before = sentence.first.inner_text()
            page.get_by_role("slider").first.focus()
            start = time.perf_counter()
            page.keyboard.press(key)  # one step: one rerun
            while sentence.first.inner_text() == before:  # re-read: a rerun redraws it
                if time.perf_counter() - start > 60:
                    break
                page.wait_for_timeout(20)
            moves.append(time.perf_counter() - start)
            key = "ArrowRight" if key == "ArrowLeft" else "ArrowLeft"
            page.wait_for_timeout(500)
        browser.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--columns", type=int, default=10_000)
    parser.add_argument("--rows", type=int, default=50)
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    rng = np.random.default_rng(0)
    path = Path(tempfile.mkdtemp()) / "wide.csv"
    header = "label," + ",".join(f"f{i}" for i in range(args.columns))
    body = "\n".join(
        f"{int(rng.random() < 0.3)}," + ",".join(f"{v:.4f}" for v in rng.random(args.columns))
        for _ in range(args.rows)
    )
    path.write_text(header + "\n" + body + "\n")
    port = _free_port()
    proc = _serve(port)
    url = f"http://127.0.0.1:{port}"
    moves: list[float] = []
    stop, ready = threading.Event(), threading.Event()
    other = threading.Thread(target=_mover, args=(url, moves, stop, ready), daemon=True)
    other.start()
    ready.wait(120)
    time.sleep(15)  # the baseline: moves with nobody uploading
    baseline = list(moves)
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=ARGS)
            page = browser.new_page(viewport={"width": 1400, "height": 1000})
            page.goto(url)
            _idle(page)
            page.get_by_role("radio", name="Upload").click()
            drop = table_input(page)
            drop.wait_for(state="attached", timeout=30_000)
            first = len(moves)
            start = time.perf_counter()
            drop.set_input_files(str(path))
            page.locator('[data-testid="stAlert"], [data-testid="stMetric"]').filter(
                has_text=f"{args.columns + 1:,} columns"
            ).or_(page.get_by_text("Score columns (one per model)")).first.wait_for(timeout=600_000)
            answered = time.perf_counter() - start
            time.sleep(2)
            during = moves[first:]
            browser.close()
    finally:
        stop.set()
        other.join(90)
        proc.terminate()
    print(f"{args.rows} rows x {args.columns:,} columns ({path.stat().st_size / 1e6:.1f} MB)")
    print(f"  the uploader heard back after {answered:.1f} s (target: within 10 s)")
    for name, xs in (("before the upload", baseline), ("from the upload to 2 s after", during)):
        if xs:
            print(
                f"  other user's threshold move {name}: median {statistics.median(xs):.2f} s, "
                f"max {max(xs):.2f} s over {len(xs)} moves (target: under 2 s)"
            )


if __name__ == "__main__":
    main()

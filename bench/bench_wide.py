"""A very wide upload on a shared server: how long until its user hears back.

Starts ``streamlit run app.py`` on a loopback port, opens it in a real Chromium, uploads a
table of ``--columns`` numeric columns and times the answer (the page's mapping, or the
refusal of a table wider than the dashboard reads).

    python -m bench.bench_wide --columns 10000
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

import numpy as np

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
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=ARGS)
            page = browser.new_page(viewport={"width": 1400, "height": 1000})
            page.goto(url)
            _idle(page)
            page.get_by_role("radio", name="Upload").click()
            drop = page.locator('[data-testid="stFileUploaderDropzoneInput"]')
            drop.wait_for(state="attached", timeout=30_000)
            start = time.perf_counter()
            drop.set_input_files(str(path))
            page.locator('[data-testid="stAlert"], [data-testid="stMetric"]').filter(
                has_text=f"{args.columns + 1:,} columns"
            ).or_(page.get_by_text("Score columns (one per model)")).first.wait_for(timeout=600_000)
            answered = time.perf_counter() - start
            browser.close()
    finally:
        proc.terminate()
    print(f"{args.rows} rows x {args.columns:,} columns ({path.stat().st_size / 1e6:.1f} MB)")
    print(f"  the uploader heard back after {answered:.1f} s (target: within 10 s)")


if __name__ == "__main__":
    main()

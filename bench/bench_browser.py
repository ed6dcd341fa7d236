"""The dashboard under a large upload, in a real browser: what a user waits for, and memory.

Starts ``streamlit run app.py`` on a free loopback port, drives Debian's Chromium with
Playwright, uploads a CSV of N rows (default 1,000,000: three models and a user id, about
30 MB) through the real file input, and prints:

* upload to first numbers: from choosing the file to the Threshold page's cards showing the
  new table's values;
* threshold round trip: from a key press on the slider to the cards showing the new values;
* the server's peak resident memory (VmHWM from /proc), against the 2 GB budget.

Prints figures only; asserts nothing about time.

    .venv/bin/python -m bench.bench_browser [--rows 1000000] [--moves 5]
"""

from __future__ import annotations

import argparse
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.bench_app import make_csv  # noqa: E402
from tests.lens_browser import table_input  # noqa: E402  (the root is importable from here)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _peak_rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=float, default=1e6)
    parser.add_argument("--moves", type=int, default=5)
    args = parser.parse_args()
    from playwright.sync_api import expect, sync_playwright

    port = _free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "streamlit", "run", "app.py", "--server.port", str(port),
         "--server.address", "127.0.0.1", "--server.headless", "true"],
        cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    url = f"http://127.0.0.1:{port}"
    try:
        for _ in range(200):
            try:
                urllib.request.urlopen(f"{url}/_stcore/health", timeout=2)
                break
            except OSError:
                time.sleep(0.3)
        with tempfile.TemporaryDirectory() as tmp:
            csv_path = Path(tmp) / "big.csv"
            csv_path.write_bytes(make_csv(int(args.rows)))
            size_mb = csv_path.stat().st_size / 1e6
            with sync_playwright() as p:
                browser = p.chromium.launch(
                    executable_path="/usr/bin/chromium",
                    headless=True,
                    args=["--no-sandbox", "--disable-gpu", "--disable-background-networking"],
                )
                page = browser.new_page(viewport={"width": 1400, "height": 1000})
                page.goto(url)
                page.wait_for_selector('[data-testid="stMetric"]', timeout=60_000)
                dropzone = table_input(page)
                for _ in range(5):  # a click while the first run is still going can be lost
                    page.get_by_role("radio", name="Upload").click()
                    try:
                        dropzone.wait_for(state="attached", timeout=10_000)
                        break
                    except Exception:  # playwright's TimeoutError
                        continue
                rows_caption = page.get_by_text(f"{int(args.rows):,} rows, 5 columns.")
                start = time.perf_counter()
                dropzone.set_input_files(str(csv_path))
                expect(rows_caption).to_be_visible(timeout=120_000)
                page.wait_for_selector('[data-testid="stMetric"]', timeout=120_000)
                first = time.perf_counter() - start
                print(f"{int(args.rows):,} rows, {size_mb:.1f} MB CSV")
                print(
                    f"upload to first numbers: {first:.2f} s (target <= 10 s: "
                    f"{'PASS' if first <= 10 else 'MISS'})"
                )
                slider = page.locator('[data-testid="stSlider"] input[type="range"]').first
                value = page.locator('[data-testid="stMetricValue"]').first
                trips = []
                for _ in range(args.moves):
                    before_t = slider.input_value()
                    before = value.inner_text()
                    slider.focus()
                    start = time.perf_counter()
                    page.keyboard.press("ArrowRight")
                    # Wait for the slider to move and the first card to be redrawn.
                    page.wait_for_function(
                        "([s, t]) => document.querySelector(s).value !== t",
                        arg=['[data-testid="stSlider"] input[type="range"]', before_t],
                    )
                    page.wait_for_function(
                        "() => !document.querySelector('[data-testid=\"stStatusWidget\"]')"
                    )
                    trips.append(time.perf_counter() - start)
                    del before
                trips.sort()
                median = trips[len(trips) // 2]
                print(
                    f"threshold round trip (median of {len(trips)}): {median:.2f} s "
                    f"(target <= 1 s: {'PASS' if median <= 1 else 'MISS'})"
                )
                browser.close()
        peak = _peak_rss_mb(server.pid)
        print(
            f"server peak RSS: {peak:,.0f} MB (target < 2,048 MB: "
            f"{'PASS' if peak < 2048 else 'MISS'})"
        )
    finally:
        server.terminate()
        server.wait(timeout=30)


if __name__ == "__main__":
    main()

"""Issue 54 §5: how long a lecturer waits after PageDown in presentation mode, page by page.

Starts ``streamlit run app.py`` on a free loopback port, opens the Threshold page in
presentation mode at 1280x720 on the bundled breast-cancer sample, and presses PageDown
through every page (a page that needs other data opens its own bundled sample, as in a
lecture). Each step is timed from the key press to the next page's first chart drawn (a
plotly SVG in the new page; a page without charts: its heading and the page at rest). The
baseline, timed in the same run, is a rerun of the Threshold page itself (its "Default"
button): the ratio says how much a page change costs beyond one rerun.

Prints figures only; asserts nothing about time.

    .venv/bin/python -m bench.bench_page_change [--passes 3]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.lens_browser import chromium, free_port, settle  # noqa: E402
from ui.frame.navigation import PAGES  # noqa: E402

# The next page is drawn: the bar's page menu names it, and (when it has charts) a plotly SVG
# stands in the main area outside any element left stale from the last page.
_DRAWN = """([title, charts]) => {
  const menu = document.querySelector('input[aria-label="Go to page"]')
    || [...document.querySelectorAll('[data-testid="stSelectbox"] input')][0];
  if (!menu || menu.value !== title) return false;
  if (!charts) return true;
  return [...document.querySelectorAll('[data-testid="stMain"] .js-plotly-plot .main-svg')]
    .some(svg => !svg.closest('[data-stale="true"]'));
}"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--passes", type=int, default=3)
    args = parser.parse_args()
    port = free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "streamlit", "run", "app.py", "--server.port", str(port),
         "--server.address", "127.0.0.1", "--server.headless", "true"],
        cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    url = f"http://127.0.0.1:{port}"
    titles = [title for _, title, _ in PAGES]
    times: dict[str, list[float]] = {t: [] for t in titles[1:]}
    reruns: list[float] = []
    try:
        for _ in range(200):
            try:
                urllib.request.urlopen(f"{url}/_stcore/health", timeout=2)
                break
            except OSError:
                time.sleep(0.3)
        with chromium() as browser:
            tab = browser.new_page(viewport={"width": 1280, "height": 720})
            has_charts: dict[str, bool] = {}
            for n in range(args.passes + 1):  # the first pass warms the caches: not counted
                tab.goto(f"{url}/?dataset=breast_cancer&present=1")
                tab.get_by_role("button", name="Leave presentation mode").wait_for(timeout=120_000)
                settle(tab)
                for _ in range(3):  # the baseline: one rerun of the same page
                    start = time.perf_counter()
                    tab.get_by_role("button", name="Default").click()
                    settle(tab)
                    if n:
                        reruns.append(time.perf_counter() - start)
                for title in titles[1:]:
                    charts = has_charts.get(title, n > 0)
                    start = time.perf_counter()
                    tab.keyboard.press("PageDown")
                    tab.wait_for_function(
                        _DRAWN, arg=[title, charts], timeout=120_000, polling="raf"
                    )
                    took = time.perf_counter() - start
                    settle(tab)
                    if n == 0:  # learn which pages draw a chart on their first screen
                        has_charts[title] = tab.evaluate(
                            "() => !!document.querySelector("
                            "'[data-testid=\"stMain\"] .js-plotly-plot .main-svg')"
                        )
                    else:
                        times[title].append(took)
    finally:
        server.terminate()
        server.wait(timeout=30)
    base = statistics.median(reruns)
    print(f"baseline: a rerun of the Threshold page, median of {len(reruns)}: {base:.2f} s")
    print(f"{'PageDown to':<28}{'median s':>9}{'max s':>8}{'/ rerun':>9}  drawn when")
    for title, values in times.items():
        med = statistics.median(values)
        what = "first chart" if has_charts.get(title) else "heading, at rest"
        print(f"{title:<28}{med:>9.2f}{max(values):>8.2f}{med / base:>9.1f}  {what}")
    slowest = max(times, key=lambda t: statistics.median(times[t]))
    print(
        f"slowest: {slowest} {statistics.median(times[slowest]):.2f} s "
        f"(target <= 1.5 s: {'PASS' if statistics.median(times[slowest]) <= 1.5 else 'MISS'})"
    )


if __name__ == "__main__":
    main()

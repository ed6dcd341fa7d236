"""Issue 54 §5: what a page change costs, every page on the data it needs, against a minimal
Streamlit page measured in the same run.

Two measures, each printed as a table (page, dataset, seconds, ratio to the minimal page):

* ``apptest``: CPU seconds (``time.process_time``, every thread of this process) of one
  ``AppTest`` run that switches from the Threshold page to the page, on a dataset already read.
  "first" is the first visit in the process (the page's own caches cold), "again" a later
  visit (caches warm). The baseline is the same switch in a two-page app of one heading each.
* ``browser``: ``streamlit run app.py`` on a loopback port, Debian's Chromium at 1280x720: the
  page is opened on Threshold with ``?dataset=...``, then the page's link in the sidebar's
  navigation is clicked. Timed from the click to the page's ready state: the server's
  ``script_finished`` message (read from the websocket) and then, in the page, no element left
  stale, no script running and every plotly chart laid out. The server's CPU seconds over the
  same span (psutil) are printed beside the wall seconds, since the machine may be shared. The
  baseline is a click between the two pages of the minimal app, served the same way.

Prints figures only; asserts nothing about time.

    .venv/bin/python -m bench.bench_pages [--only apptest|browser] [--passes 3]
        [--pages gauc,ranking]
"""

from __future__ import annotations

import argparse
import contextlib
import statistics
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

MINIMAL_APP = ROOT / "bench" / "minimal_app" / "app.py"

# (page file, dataset): every page on the bundled sample it is shown with.
CASES = [
    ("pages/threshold.py", "breast_cancer"),
    ("pages/curves.py", "breast_cancer"),
    ("pages/decisions.py", "breast_cancer"),
    ("pages/calibration.py", "breast_cancer"),
    ("pages/calibration.py", "user_impressions"),
    ("pages/gauc.py", "user_impressions"),
    ("pages/ranking.py", "query_ranking"),
    ("pages/runs.py", "breast_cancer"),
    ("pages/multilabel.py", "digits_multilabel"),
    ("pages/multilabel.py", "wine_multiclass"),
    ("pages/detection.py", "breast_cancer"),
    ("pages/compare.py", "breast_cancer"),
    ("pages/ap_lab.py", "breast_cancer"),
    ("pages/auc_lab.py", "breast_cancer"),
    ("pages/step_through.py", "breast_cancer"),
    ("pages/lessons.py", "breast_cancer"),
    ("pages/data.py", "breast_cancer"),
]
START = "pages/threshold.py"  # every change starts here (for Threshold itself: from Data)


def _start_of(page: str) -> str:
    return "pages/data.py" if page == START else START


def _cases(only: str | None) -> list[tuple[str, str]]:
    if not only:
        return CASES
    wanted = only.split(",")
    return [(p, d) for p, d in CASES if any(w in p or w == d for w in wanted)]


# --- AppTest: CPU seconds of one run that changes page -------------------------------------


def _switch_cpu(at, page: str) -> float:
    start = time.process_time()
    at.switch_page(page).run()
    took = time.process_time() - start
    assert not at.exception, at.exception
    return took


def apptest(cases: list[tuple[str, str]], passes: int) -> list[tuple[str, str, float, float]]:
    """(page, dataset, first-visit CPU s, median later-visit CPU s) per case, and the minimal
    app's as ("minimal", "", ...) first."""
    from streamlit.testing.v1 import AppTest

    def minimal() -> tuple[float, float]:
        at = AppTest.from_file(str(MINIMAL_APP), default_timeout=120)
        at.run()
        first = _switch_cpu(at, "two.py")
        again = []
        for _ in range(passes):
            _switch_cpu(at, "one.py")
            again.append(_switch_cpu(at, "two.py"))
        return first, statistics.median(again)

    minimal()  # imports and Streamlit's own first-run work, not counted
    warm = AppTest.from_file(str(ROOT / "app.py"), default_timeout=300)
    warm.switch_page(START).run()  # the app's imports, not counted
    rows = [("minimal page", "", *minimal())]
    for page, dataset in cases:
        at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=300)
        at.session_state["dataset"] = dataset
        at.switch_page(_start_of(page)).run()  # the dataset is read here
        first = _switch_cpu(at, page)
        again = []
        for _ in range(passes):
            _switch_cpu(at, _start_of(page))
            again.append(_switch_cpu(at, page))
        rows.append((page, dataset, first, statistics.median(again)))
        print(f"  apptest {page} on {dataset}: {first:.2f} / {rows[-1][3]:.2f} CPU s", flush=True)
    return rows


# --- A real server and Chromium -------------------------------------------------------------

# The new page is ready: the run is over (no running indicator), nothing is left stale from the
# last page, every plotly chart is laid out.
_READY = """() => {
  if (document.querySelector('[data-testid="stStatusWidget"]')) return false;
  if (document.querySelector('[data-stale="true"]')) return false;
  return ![...document.querySelectorAll('.js-plotly-plot')]
    .some(p => !p.querySelector('.main-svg'));
}"""


@contextlib.contextmanager
def _server(script: Path):
    import psutil

    from tests.lens_browser import free_port

    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "streamlit", "run", str(script), "--server.port", str(port),
         "--server.address", "127.0.0.1", "--server.headless", "true",
         "--browser.gatherUsageStats", "false"],
        cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    url = f"http://127.0.0.1:{port}"
    try:
        for _ in range(400):
            try:
                urllib.request.urlopen(f"{url}/_stcore/health", timeout=2)
                break
            except OSError:
                time.sleep(0.3)
        yield url, psutil.Process(proc.pid)
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def _finished(payload) -> bool:
    from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

    if isinstance(payload, str):
        return False
    msg = ForwardMsg.FromString(payload)
    return (
        msg.WhichOneof("type") == "script_finished"
        and msg.script_finished == ForwardMsg.FINISHED_SUCCESSFULLY
    )


class _Tab:
    """A Chromium tab on one server: its websocket, and a click timed to the ready state."""

    def __init__(self, browser, url: str, server):
        self.tab = browser.new_page(viewport={"width": 1280, "height": 720})
        self.url, self.server, self.sockets = url, server, []
        self.tab.on("websocket", lambda ws: self.sockets.append(ws))

    def open(self, query: str = "") -> None:
        from tests.lens_browser import settle

        self.sockets.clear()
        self.tab.goto(f"{self.url}/{query}")
        self.tab.wait_for_selector('[data-testid="stSidebarNav"] a', timeout=300_000)
        settle(self.tab, 300_000)

    def click(self, url_path: str) -> tuple[float, float, float, float]:
        """(wall s, server CPU s, wall s to the server's end of the run, browser CPU s) from a
        click on the navigation's link to ``url_path`` to the new page's ready state."""
        link = self.tab.locator(f'[data-testid="stSidebarNav"] a[href$="/{url_path}"]')
        ws = self.sockets[-1]
        cpu, chrome = _cpu(self.server), _browser_cpu()
        start = time.perf_counter()
        with ws.expect_event("framereceived", predicate=_finished, timeout=300_000):
            link.click()
        finished = time.perf_counter() - start
        self.tab.wait_for_function(_READY, timeout=300_000, polling="raf")
        wall = time.perf_counter() - start
        return wall, _cpu(self.server) - cpu, finished, _browser_cpu() - chrome


def _cpu(process) -> float:
    times = process.cpu_times()
    return times.user + times.system


def _browser_cpu() -> float:
    """CPU seconds of every Chromium process this bench started (its renderer draws the page)."""
    import psutil

    total = 0.0
    for child in psutil.Process().children(recursive=True):
        with contextlib.suppress(psutil.Error):
            if "chrom" in child.name() or "headless" in child.name():
                total += _cpu(child)
    return total


def _url_path(page: str) -> str:
    return "" if page == START else Path(page).stem


def browser(cases: list[tuple[str, str]], passes: int) -> list[tuple]:
    """(page, dataset, first wall s, first server CPU s, median wall s, median CPU s) per case;
    the minimal app's first."""
    from tests.lens_browser import chromium, settle

    rows = []
    with chromium() as chrome:
        with _server(MINIMAL_APP) as (url, server):
            tab = _Tab(chrome, url, server)
            tab.open()
            first = tab.click("two")
            again = []
            for _ in range(passes + 1):
                tab.click("")
                again.append(tab.click("two"))
            again = again[1:]
            rows.append(("minimal page", "", *first, *_medians(again)))
        with _server(ROOT / "app.py") as (url, server):
            tab = _Tab(chrome, url, server)
            tab.open()  # the server's imports, not counted
            for page, dataset in cases:
                tab.open(f"{_url_path(_start_of(page))}?dataset={dataset}")
                first = tab.click(_url_path(page))
                again = []
                for _ in range(passes):
                    tab.click(_url_path(_start_of(page)))
                    settle(tab.tab)
                    again.append(tab.click(_url_path(page)))
                    settle(tab.tab)
                rows.append((page, dataset, *first, *_medians(again)))
                print(
                    f"  browser {page} on {dataset}: first {first[0]:.2f} s, "
                    f"again {rows[-1][6]:.2f} s",
                    flush=True,
                )
    return rows


def _medians(runs: list[tuple[float, ...]]) -> tuple[float, ...]:
    return tuple(statistics.median(column) for column in zip(*runs, strict=True))


def _name(page: str) -> str:
    return Path(page).stem if page.endswith(".py") else page


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", choices=["apptest", "browser"])
    parser.add_argument("--passes", type=int, default=3)
    parser.add_argument("--pages", help="comma-separated page stems or datasets to time")
    args = parser.parse_args()
    cases = _cases(args.pages)
    if args.only != "browser":
        rows = apptest(cases, args.passes)
        base_first, base_again = rows[0][2], rows[0][3]
        print("\nAppTest, CPU s of the run that changes page (first visit / later visits)")
        print(f"{'page':<14}{'dataset':<19}{'first':>7}{'/ min':>7}{'again':>7}{'/ min':>7}")
        for page, dataset, first, again in rows:
            print(
                f"{_name(page):<14}{dataset:<19}{first:>7.3f}{first / base_first:>7.1f}"
                f"{again:>7.3f}{again / base_again:>7.1f}"
            )
    if args.only != "apptest":
        rows = browser(cases, args.passes)
        base = rows[0]
        print(
            "\nBrowser, click in the navigation to the page ready: wall s, its ratio to the "
            "minimal page's, and where it went\n(run = wall s to the server's end of the run; "
            "server and Chromium CPU s); first visit, then median of "
            f"{args.passes} later visits"
        )
        head = f"{'wall':>7}{'/ min':>7}{'run':>6}{'server':>7}{'chrome':>7}"
        print(f"{'':<33}{'first visit':<34}{'later visits':<34}")
        print(f"{'page':<14}{'dataset':<19}{head}{head}")
        for row in rows:
            page, dataset, first, again = row[0], row[1], row[2:6], row[6:10]
            cells = ""
            for (wall, cpu, run, chrome), minimal in ((first, base[2]), (again, base[6])):
                cells += f"{wall:>7.2f}{wall / minimal:>7.1f}{run:>6.2f}{cpu:>7.2f}{chrome:>7.2f}"
            print(f"{_name(page):<14}{dataset:<19}{cells}")


if __name__ == "__main__":
    main()

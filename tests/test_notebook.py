"""``metrics_lens.show(df)`` from a real notebook, run on a real Jupyter kernel (nbclient).

The notebook starts the dashboard on a frame, shows it (an IFrame in the cell's HTML output),
calls ``show`` again with another frame (the first server ends, the second serves the new rows
on the same port), is refused a bad mapping in one sentence with the running dashboard kept,
and stops. A second notebook leaves its dashboard running: shutting its kernel down must end the
server too. A browser opens the second frame's dashboard and reads its rows.
"""

from __future__ import annotations

import json
import os
import time

import pytest

from tests.lens_browser import ROOT, chromium, needs_chromium, wait_for_app

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")

pytestmark = [pytest.mark.slow, pytest.mark.browser]

SETUP = """
import json, urllib.request
import numpy as np, pandas as pd
import metrics_lens
rng = np.random.default_rng(7)
first = pd.DataFrame({"y": rng.integers(0, 2, 400), "a": rng.random(400), "b": rng.random(400)})
second = pd.DataFrame({"clicked": [0, 1, 0, 1, 1, 0, 1], "ranker": [.1, .9, .3, .8, .35, .2, .7]})
"""

SHOW = """
d = metrics_lens.show(first, label="y", score=["a", "b"], name="first frame")
d
"""

HEALTH = """
assert urllib.request.urlopen(d.url + "/_stcore/health", timeout=10).status == 200
print(json.dumps({"url": d.url, "pid": d.pid, "port": d.port}))
"""

AGAIN = """
d2 = metrics_lens.show(second, label="clicked", score="ranker", name="second frame")
assert not d.running() and d2.running() and d2.port == d.port
assert pd.read_parquet(d2.data_file).equals(second)
print(json.dumps({"url": d2.url, "pid": d2.pid}))
"""

REFUSED = """
try:
    metrics_lens.show(second, label="no such column")
except metrics_lens.inputs.BadInput as e:
    print("refused:", e)
assert d2.running()
"""

STOP = """
d2.stop()
assert not d2.running()
repr(d2)
"""


def _run(cells: list[str], keep_kernel: bool = False):
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(c.strip()) for c in cells]
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    client = nbclient.NotebookClient(nb, timeout=180, kernel_name="python3", resources={
        "metadata": {"path": str(ROOT)}})  # fmt: skip
    if keep_kernel:
        client.km = client.create_kernel_manager()
        client.start_new_kernel(env=env)
        client.start_new_kernel_client()
        for index, cell in enumerate(nb.cells):
            client.execute_cell(cell, index)
        return nb, client
    with client.setup_kernel(env=env):
        for index, cell in enumerate(nb.cells):
            client.execute_cell(cell, index)
    return nb, None


def _text(cell) -> str:
    return "".join(o.get("text", "") for o in cell.outputs if o.get("output_type") == "stream")


def _gone(pid: int, timeout: float = 30) -> bool:
    """Whether process ``pid`` has ended (a zombie counts: it no longer serves)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            with open(f"/proc/{pid}/stat") as f:
                if f.read().split(") ", 1)[1].startswith("Z"):
                    return True
        except FileNotFoundError:
            return True
        time.sleep(0.2)  # polling a process's state, not waiting a fixed time for it
    return False


@needs_chromium
def test_show_from_a_real_notebook_serves_the_new_frame_and_stops():
    nb, _ = _run([SETUP, SHOW, HEALTH, AGAIN, REFUSED])
    html = [o for o in nb.cells[1].outputs if "text/html" in o.get("data", {})]
    first = json.loads(_text(nb.cells[2]))
    second = json.loads(_text(nb.cells[3]))
    assert html
    assert f'<iframe src="{first["url"]}"' in html[0]["data"]["text/html"]
    assert "Metrics Lens dashboard of first frame (running)" in html[0]["data"]["text/plain"]
    assert second["url"] == first["url"]
    assert "refused: " in _text(nb.cells[4])
    assert "no such column" in _text(nb.cells[4])
    assert _gone(first["pid"]), "the first dashboard's server outlived show() with a new frame"
    # The kernel has shut down: its last dashboard ended with it.
    assert _gone(second["pid"]), "the dashboard's server outlived its kernel"


@needs_chromium
def test_the_dashboard_shows_the_frame_and_stop_ends_it():
    nb, client = _run([SETUP, "d2 = metrics_lens.show(second, label='clicked', score='ranker', "
                       "name='second frame')\nprint(json.dumps({'url': d2.url, 'pid': d2.pid}))"],
                      keep_kernel=True)  # fmt: skip
    try:
        shown = json.loads(_text(nb.cells[1]))
        with chromium() as browser:
            page = browser.new_page(viewport={"width": 1280, "height": 900})
            page.goto(shown["url"])
            wait_for_app(page)
            body = page.inner_text("body")
            assert "second frame" in body, body[:800]
            assert "ranker" in body, body[:800]
            assert "of 7 rows" in body, body[:800]
        stop = nbformat.v4.new_code_cell(STOP.strip())
        nb.cells.append(stop)
        client.execute_cell(stop, len(nb.cells) - 1)
        assert "(stopped)" in "".join(str(o.get("data", {})) for o in stop.outputs)
        assert _gone(shown["pid"], timeout=5)
    finally:
        client._cleanup_kernel() if hasattr(
            client, "_cleanup_kernel"
        ) else client.km.shutdown_kernel()

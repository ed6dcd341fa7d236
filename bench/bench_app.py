"""Server time of the dashboard on a large upload, measured with Streamlit's AppTest.

Builds a CSV of N rows (default 1,000,000) with three models' scores and a user id, uploads it
through the sidebar's file uploader, then times what a user waits for on the server: the
upload-and-first-page run, a threshold move (a lookup in cached counts), and a model switch.
Each AppTest run executes the whole script as the server would; browser rendering is not
included (the browser tests cover that). Prints medians; asserts nothing about time.

    .venv/bin/python -m bench.bench_app [--rows 1000000] [--repeat 5]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def make_csv(n: int, seed: int = 0) -> bytes:
    rng = np.random.default_rng(seed)
    y = rng.random(n) < 0.2
    frame = pd.DataFrame(
        {
            "user_id": rng.integers(0, n // 20, n),
            "label": y.astype(int),
            "model_a": np.round(1 / (1 + np.exp(-(rng.normal(size=n) + 1.5 * y))), 6),
            "model_b": np.round(1 / (1 + np.exp(-(rng.normal(size=n) + 1.0 * y))), 6),
            "model_c": np.round(rng.random(n), 4),
        }
    )
    return frame.to_csv(index=False).encode()


def timed(run) -> float:
    start = time.perf_counter()
    run()
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=float, default=1e6)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    n = int(args.rows)

    from streamlit.runtime.pages_manager import PagesManager
    from streamlit.testing.v1 import AppTest

    # As in tests/conftest.py: run the app the way a live server does after its first request.
    original = PagesManager.__init__

    def init(self, *a, **k):
        original(self, *a, **k)
        PagesManager.uses_pages_directory = False

    PagesManager.__init__ = init

    content = make_csv(n)
    print(f"{n:,} rows x 3 models + user id: {len(content) / 1e6:.1f} MB of CSV")
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=600)
    at.run()
    at.segmented_control(key="source").set_value("Upload").run()
    uploader = at.file_uploader(key="upload_file").set_value(("big.csv", content, "text/csv"))
    first = timed(at.run)
    assert not at.exception, at.exception
    print(f"upload, parse, map and first Threshold page: {first:.2f} s")

    moves = []
    for t in np.linspace(0.2, 0.8, args.repeat):
        at.slider(key="threshold_slider").set_value(float(t))
        moves.append(timed(at.run))
        assert not at.exception
    print(
        f"threshold move (median of {len(moves)}): {statistics.median(moves):.3f} s "
        f"(target <= 0.3 s: {'PASS' if statistics.median(moves) <= 0.3 else 'MISS'})"
    )

    at.selectbox(key="model").set_value("model_b")
    switch = timed(at.run)
    print(f"first switch to another model (one sort, then cached): {switch:.3f} s")
    at.slider(key="threshold_slider").set_value(0.5)
    print(f"threshold move after the switch: {timed(at.run):.3f} s")
    at.switch_page("pages/curves.py")
    print(f"Curves page, 3 models (first visit): {timed(at.run):.3f} s")
    del uploader


if __name__ == "__main__":
    main()

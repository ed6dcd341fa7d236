"""What a threshold move costs on Compare: the rerun's time, and how many full-table sorts it runs.

Run from the repository root::

    .venv/bin/python -m bench.bench_compare_rerun --rows 100000

An AppTest session uploads a table of ``--rows`` rows and two models (30% positives), opens
Compare and lets it compute everything once. Then the first model's threshold moves (as the
Threshold page's slider sets it) and the page reruns, ``--repeats`` times, each to a new value.
Printed: the median time of the first full run and of a threshold-move rerun, and the number of
``np.argsort`` / ``np.sort`` / ``np.lexsort`` calls on arrays of at least ``rows / 2`` elements
during one such rerun (counted by wrapping numpy's functions in this process). The ratio line
compares a rerun with one ``np.argsort`` of the scores, measured in the same run. Nothing is
asserted; ``tests/test_compare_rerun.py`` checks the sort count.
"""

from __future__ import annotations

import argparse
import io
import statistics
import sys
import time
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parent.parent
SORTS = ("argsort", "sort", "lexsort")


def table(rows: int, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    y = rng.random(rows) < 0.3
    shared = rng.random(rows) + 0.3 * y
    return pd.DataFrame(
        {
            "label": y.astype(int),
            "model_a": np.clip(shared / 1.6 + 0.2 * rng.random(rows), 0, 1),
            "model_b": np.clip(shared / 1.6 + 0.25 * rng.random(rows) - 0.05 * y, 0, 1),
        }
    )


class SortCounter:
    """Counts numpy sorts of arrays of at least ``size`` elements while active."""

    def __init__(self, size: int) -> None:
        self.size, self.calls, self._saved = size, 0, {}

    def __enter__(self):
        for name in SORTS:
            original = getattr(np, name)
            self._saved[name] = original

            def wrapped(a, *args, _original=original, **kwargs):
                first = a[0] if isinstance(a, tuple | list) and a and np.ndim(a[0]) else a
                if np.size(first) >= self.size:
                    self.calls += 1
                return _original(a, *args, **kwargs)

            setattr(np, name, wrapped)
        return self

    def __exit__(self, *exc) -> None:
        for name, original in self._saved.items():
            setattr(np, name, original)


def compare_session(frame: pd.DataFrame):
    """An AppTest on Compare with ``frame`` uploaded; returns (app, seconds of the first run)."""
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=600)
    at.run()
    buf = io.StringIO()
    frame.to_csv(buf, index=False)
    at.segmented_control(key="source").set_value("Upload").run()
    at.file_uploader(key="upload_file").set_value(
        ("scores.csv", buf.getvalue().encode(), "text/csv")
    ).run()
    start = time.perf_counter()
    at.switch_page("pages/compare.py").run()
    first = time.perf_counter() - start
    if at.exception:
        raise RuntimeError(at.exception)
    return at, first


def move_threshold(at, model: str, value: float) -> None:
    chosen = dict(at.session_state["thresholds"]) if "thresholds" in at.session_state else {}
    chosen[model] = value
    at.session_state["thresholds"] = chosen
    at.run()
    if at.exception:
        raise RuntimeError(at.exception)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=float, default=1e5)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args(argv)
    rows = int(args.rows)
    frame = table(rows)
    at, first = compare_session(frame)
    times, sorts = [], []
    for i in range(args.repeats):
        with SortCounter(rows // 2) as counter:
            start = time.perf_counter()
            move_threshold(at, "model_a", 0.30 + 0.05 * i)
            times.append(time.perf_counter() - start)
        sorts.append(counter.calls)
    scores = frame["model_a"].to_numpy()
    floor = statistics.median(
        (lambda t0: (np.argsort(scores), time.perf_counter() - t0)[1])(time.perf_counter())
        for _ in range(7)
    )
    rerun = statistics.median(times)
    print(f"rows: {rows:,}, models: 2")
    print(f"first Compare run: {first:.2f} s")
    print(f"threshold-move rerun: median {rerun:.3f} s over {args.repeats} "
          f"(each: {', '.join(f'{t:.3f}' for t in times)})")  # fmt: skip
    print(f"full-table sorts per threshold-move rerun: {sorts}")
    print(f"one np.argsort of the scores: {floor * 1e3:.1f} ms; rerun = {rerun / floor:,.0f}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

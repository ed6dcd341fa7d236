"""Benchmark the grouped CI gate: ``metrics-lens check`` with GAUC and AUC over users.

Run from the repository root::

    .venv/bin/python -m bench.bench_check
    .venv/bin/python -m bench.bench_check --rows 3e6 --users 1e5 --resamples 1000

Writes a Parquet table of ROWS impressions of USERS users (about 30% positive, two models, one
rounded to 3 decimals so it ties), then times, in the same run:

* the floor: one ``np.argsort`` of one score column, and one exact ``metrics.roc_auc_score``;
* the command as a user runs it: ``metrics-lens check FILE --baseline a --candidate b
  --metric auc --metric gauc --group user --resamples R --json`` in a fresh process (reading
  the file included), whose JSON must hold a verdict on both metrics.

Issue 37 §5's target: 3M rows with 1,000 user resamples within 60 s (297 s before). Nothing is
asserted on time: the verdict is printed. The exit status is 0 unless the command failed.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import numpy as np
import pandas as pd

import metrics

ROOT = Path(__file__).resolve().parent.parent
TARGET_SECONDS = 60.0


def table(rows: int, users: int, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    user = rng.integers(0, users, rows)
    taste = rng.normal(size=users)[user]  # users differ: rows of one user are not independent
    y = rng.random(rows) < 1 / (1 + np.exp(-(taste - 0.85)))
    a = 1 / (1 + np.exp(-(1.0 * y + taste + rng.normal(size=rows))))
    b = 1 / (1 + np.exp(-(1.1 * y + taste + rng.normal(size=rows))))
    return pd.DataFrame({"user": user, "clicked": y.astype(np.int8), "a": a, "b": b.round(3)})


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--rows", type=float, default=3e6)
    p.add_argument("--users", type=float, default=1e5)
    p.add_argument("--resamples", type=int, default=1000)
    args = p.parse_args(argv)
    rows, users = int(args.rows), int(args.users)
    frame = table(rows, users)
    with tempfile.TemporaryDirectory(prefix="bench-check-") as tmp:
        path = Path(tmp) / "impressions.parquet"
        frame.to_parquet(path, index=False)
        y, s = frame["clicked"].to_numpy() == 1, frame["a"].to_numpy()
        started = time.perf_counter()
        np.argsort(s, kind="stable")
        floor_sort = time.perf_counter() - started
        started = time.perf_counter()
        metrics.roc_auc_score(y, s)
        floor_auc = time.perf_counter() - started
        command = [sys.executable, "-m", "metrics_lens", "check", str(path), "--label", "clicked",
                   "--baseline", "a", "--candidate", "b", "--metric", "auc", "--metric", "gauc",
                   "--group", "user", "--resamples", str(args.resamples), "--json"]  # fmt: skip
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        started = time.perf_counter()
        run = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True)
        took = time.perf_counter() - started
    if run.returncode not in (0, 1):
        print(run.stderr, file=sys.stderr)
        return 1
    result = json.loads(run.stdout)
    print(f"{rows:,} rows, {users:,} users, {args.resamples:,} user resamples")
    print(f"  floor: np.argsort of one score {floor_sort:.2f} s, one AUC {floor_auc:.2f} s")
    for r in result["results"]:
        bounds = f"[{r['lower']:+.4f}, {r['upper']:+.4f}]"
        print(f"  {r['metric']}: baseline {r['baseline']:.4f}, candidate {r['candidate']:.4f}, "
              f"difference {r['difference']:+.4f}, bounds {bounds}")  # fmt: skip
    verdict = "met" if took <= TARGET_SECONDS else "NOT met"
    print(
        f"  metrics-lens check: {took:.1f} s = {took / floor_auc:.0f} x one exact AUC, "
        f"{took / floor_sort:.0f} x one argsort; target {TARGET_SECONDS:.0f} s: {verdict}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

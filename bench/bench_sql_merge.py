"""States that merge, measured: ``python -m bench.bench_sql_merge [--days 7 --rows 200000]``.

Writes ``--days`` Parquet files of ``--rows`` impressions each (users returning across days,
scores rounded to 4 decimals and continuous), computes each day's state on DuckDB, merges them,
and checks the merged metrics are bit-identical to one pass over all the days; prints the
times, and the size of the states beside the rows' Parquet.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

from metrics.sql import load_summary, merge, summarize


def _day(n: int, users: int, seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    y = (rng.random(n) < 0.1).astype(np.int8)
    return pd.DataFrame(
        {
            "y": y,
            "user": rng.integers(0, users, n),
            "rounded": np.round(rng.normal(size=n) + y, 4),
            "continuous": rng.normal(size=n) + 0.7 * y,
        }
    )


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--days", type=int, default=7)
    p.add_argument("--rows", type=int, default=200_000, help="rows per day")
    p.add_argument("--users", type=int, default=50_000)
    args = p.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        files = []
        for d in range(args.days):
            files.append(root / f"day{d}.parquet")
            _day(args.rows, args.users, d).to_parquet(files[-1])
        rows_bytes = sum(f.stat().st_size for f in files)
        for models, group in ((["rounded"], None), (["rounded"], "user"), (["continuous"], "user")):
            t0 = time.perf_counter()
            states = []
            for i, f in enumerate(files):
                s = summarize([str(f)], "y", models, group=group, state=True, cap=10_000_000)
                states.append(s.save(root / f"state{i}.npz"))
            t1 = time.perf_counter()
            week = merge(states)
            t2 = time.perf_counter()
            one = summarize([str(f) for f in files], "y", models, group=group, state=True,
                            cap=10_000_000)  # fmt: skip
            t3 = time.perf_counter()
            m, w = week.models[models[0]], one.models[models[0]]
            same = (m.auc, m.average_precision, m.gauc, m.gauc_by) == (
                w.auc, w.average_precision, w.gauc, w.gauc_by,
            )  # fmt: skip
            size = sum(Path(f).stat().st_size for f in states)
            merged = week.save(root / "week.npz").stat().st_size
            load_summary(root / "week.npz")
            print(
                f"{models[0]:>10} users={group is not None!s:5}: {args.days} day states "
                f"{(t1 - t0) / args.days:.2f} s each, merge {t2 - t1:.2f} s, one pass "
                f"{t3 - t2:.2f} s; bit-identical {same}; states {size / 1e6:.2f} MB "
                f"(merged {merged / 1e6:.2f} MB) for {rows_bytes / 1e6:.1f} MB of Parquet rows "
                f"({args.days * args.rows:,} rows, {m.distinct_scores:,} distinct scores"
                + (f", {m.user_scores.group.size:,} (user, score) pairs)" if group else ")")
            )


if __name__ == "__main__":
    main()

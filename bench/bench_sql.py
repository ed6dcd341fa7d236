"""Benchmark metrics.sql: exact AUC, AP and GAUC of large Parquet tables on DuckDB (and Spark).

Run from the repository root::

    .venv/bin/python -m bench.bench_sql                      # 1e7 rows / 1e6 users
    .venv/bin/python -m bench.bench_sql --sizes 1e7,1e8      # the targets are at 1e8
    .venv/bin/python -m bench.bench_sql --spark              # Spark local[2] at the smallest size

For each size it writes Parquet with DuckDB itself (continuous scores, and scores rounded to 4
decimals), then runs :func:`metrics.sql.summarize` with a 2 GB memory limit and reports the time
of AUC + AP and of GAUC, the process's peak RSS (DuckDB runs in it), and agreement with the numpy
library (loaded into memory for sizes up to ``--check-max``, 1e7 by default). Targets at 1e8 rows
on two cores: AUC + AP under 6 s, GAUC under 40 s, peak RSS under 3 GB, agreement 1e-9 (AUC
exact). Nothing asserts on time; verdicts are printed.
"""

from __future__ import annotations

import argparse
import resource
import sys
import tempfile
import time
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


import metrics
from metrics.sql import summarize

TARGETS = {10**8: {"AUC + AP": 6.0, "GAUC": 40.0}}
RSS_TARGET_GB = 3.0


def peak_rss_gb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20  # KiB on Linux


def write_parquet(path: Path, n: int, users: int, decimals: int | None) -> None:
    import duckdb

    score = "random() + 0.35 * y" if decimals is None else f"round(random() + 0.35 * y, {decimals})"
    duckdb.sql(
        f"""
        COPY (
          SELECT y, {score} AS score, user_id FROM (
            SELECT CAST(random() < 0.3 AS INTEGER) AS y,
                   CAST(floor(random() * {users}) AS BIGINT) AS user_id
            FROM range({n})
          )
        ) TO '{path}' (FORMAT parquet, ROW_GROUP_SIZE 1000000)
        """
    )


def run(n: int, users: int, decimals: int | None, check_max: int, engine: str) -> None:
    kind = "continuous" if decimals is None else f"rounded to {decimals} decimals"
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "impressions.parquet"
        start = time.perf_counter()
        write_parquet(path, n, users, decimals)
        size = path.stat().st_size / 2**20
        print(f"\n{n:,} rows, {users:,} users, scores {kind} ({size:,.0f} MB Parquet, "
              f"written in {time.perf_counter() - start:.1f} s), engine {engine}")  # fmt: skip
        start = time.perf_counter()
        s = summarize(str(path), "y", ["score"], engine=engine, memory_limit="2GB", cap=2_000_000)
        areas = time.perf_counter() - start
        start = time.perf_counter()
        g = summarize(str(path), "y", ["score"], group="user_id", engine=engine,
                      memory_limit="2GB", cap=0)  # fmt: skip
        total = time.perf_counter() - start
        gauc_time = total - areas  # the pass per user and score, beyond the areas
        m = s.models["score"]
        print(f"  AUC + AP: {areas:6.2f} s   AUC {m.auc:.10f}  AP {m.average_precision:.10f}"
              f"  ({m.distinct_scores:,} distinct scores)")  # fmt: skip
        print(f"  AUC + AP + GAUC: {total:6.2f} s, so GAUC's own pass about {gauc_time:.2f} s   "
              f"GAUC {g.models['score'].gauc:.10f}")  # fmt: skip
        print(f"  peak RSS of this process so far: {peak_rss_gb():.2f} GB")
        if n <= check_max:
            import duckdb

            t = duckdb.sql(f"SELECT y, score, user_id FROM '{path}'").fetchnumpy()
            auc = metrics.roc_auc_score(t["y"], t["score"])
            ap = metrics.average_precision_score(t["y"], t["score"])
            gauc = metrics.group_auc_score(t["y"], t["score"], t["user_id"])
            print(f"  agreement with numpy: AUC {'exact' if auc == m.auc else m.auc - auc}, "
                  f"AP {abs(ap - m.average_precision):.1e}, "
                  f"GAUC {abs(gauc - g.models['score'].gauc):.1e}")  # fmt: skip
        for what, limit in TARGETS.get(n, {}).items():
            got = areas if what == "AUC + AP" else gauc_time
            print(f"  target {what} under {limit:g} s: {'PASS' if got < limit else 'MISS'}")
        if n in TARGETS:
            rss = peak_rss_gb()
            print(f"  target peak RSS under {RSS_TARGET_GB:g} GB: "
                  f"{'PASS' if rss < RSS_TARGET_GB else 'MISS'} ({rss:.2f} GB)")  # fmt: skip


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--sizes", default="1e7", help="comma-separated row counts")
    p.add_argument("--check-max", type=float, default=1e7, help="largest size checked in numpy")
    p.add_argument("--spark", action="store_true", help="also Spark local[2] at the first size")
    args = p.parse_args(argv)
    sizes = [int(float(x)) for x in args.sizes.split(",")]
    for n in sizes:
        for decimals in (None, 4):
            run(n, max(n // 10, 1), decimals, int(args.check_max), "duckdb")
    if args.spark:
        run(sizes[0], max(sizes[0] // 10, 1), 4, int(args.check_max), "spark")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

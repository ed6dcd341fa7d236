"""Benchmark metrics.sql: exact AUC, AP and GAUC of large Parquet tables on DuckDB (and Spark).

Run from the repository root::

    .venv/bin/python -m bench.bench_sql                      # 1e7 rows / 1e6 users
    .venv/bin/python -m bench.bench_sql --sizes 1e7,1e8      # the targets are at 1e8
    .venv/bin/python -m bench.bench_sql --spark              # and Spark local[2] (sizes <= 1e7)

For each size it writes Parquet with DuckDB itself (continuous scores, and scores rounded to 4
decimals), then runs :func:`metrics.sql.summarize`, each case in its own process, with a 2 GB
memory limit. It reports the time of AUC + AP and of GAUC, the process's peak RSS (DuckDB runs in
it), and agreement with the numpy library (loaded into memory for sizes up to ``--check-max``, 1e7
by default). Targets at 1e8 rows on two cores: AUC + AP under 6 s, GAUC under 40 s, peak RSS under
3 GB, agreement 1e-9 (AUC exact). Nothing asserts on time; verdicts are printed.
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


import metrics
from metrics.sql import summarize

ROOT = Path(__file__).resolve().parent.parent
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


def measure(path: str, n: int, engine: str, check: bool) -> None:
    """One case, in its own process so that its peak RSS is its own (DuckDB runs in it)."""
    session = None
    if engine == "spark":
        from metrics.sql import local_spark

        start = time.perf_counter()
        session = local_spark()
        session.sparkContext.setLogLevel("ERROR")
        print(f"  Spark local[2] started in {time.perf_counter() - start:.1f} s (not counted; "
              "the JVM's memory is not in the RSS below)")  # fmt: skip
    start = time.perf_counter()
    s = summarize(path, "y", ["score"], engine=engine, memory_limit="2GB", cap=2_000_000,
                  spark=session)  # fmt: skip
    areas = time.perf_counter() - start
    rss_areas = peak_rss_gb()
    steps: list[tuple[float, str]] = []
    start = time.perf_counter()
    g = summarize(path, "y", ["score"], group="user_id", engine=engine, memory_limit="2GB",
                  cap=0, spark=session,
                  progress=lambda line: steps.append((time.perf_counter(), line)))  # fmt: skip
    total = time.perf_counter() - start
    # GAUC's own pass: from its progress line to the end.
    gauc_start = next(t for t, line in steps if "GAUC" in line)
    gauc_time = steps[-1][0] - gauc_start
    rss = peak_rss_gb()
    m, gm = s.models["score"], g.models["score"]
    print(f"  AUC + AP: {areas:6.2f} s   AUC {m.auc:.12f}  AP {m.average_precision:.12f}"
          f"  ({m.distinct_scores:,} distinct scores; peak RSS {rss_areas:.2f} GB)")  # fmt: skip
    print(f"  GAUC: {gauc_time:6.2f} s (its pass per user and score; {total:.2f} s in all)   "
          f"GAUC {gm.gauc:.12f} ({gm.groups_used:,} users used)")  # fmt: skip
    print(f"  peak RSS of the process (engine included): {rss:.2f} GB")
    for what, limit in TARGETS.get(n, {}).items():
        got = areas if what == "AUC + AP" else gauc_time
        print(f"  target {what} under {limit:g} s: {'PASS' if got < limit else 'MISS'}")
    if n in TARGETS:
        print(f"  target peak RSS under {RSS_TARGET_GB:g} GB: "
              f"{'PASS' if rss < RSS_TARGET_GB else 'MISS'} ({rss:.2f} GB)")  # fmt: skip
    if check:
        import duckdb

        t = duckdb.sql(f"SELECT y, score, user_id FROM '{path}'").fetchnumpy()
        start = time.perf_counter()
        auc = metrics.roc_auc_score(t["y"], t["score"])
        ap = metrics.average_precision_score(t["y"], t["score"])
        gauc = metrics.group_auc_score(t["y"], t["score"], t["user_id"])
        numpy_time = time.perf_counter() - start
        print(f"  agreement with numpy: AUC {'exact' if auc == m.auc else m.auc - auc}, "
              f"AP {abs(ap - m.average_precision):.1e}, "
              f"GAUC {abs(gauc - gm.gauc):.1e} (numpy in memory: {numpy_time:.1f} s, "
              f"peak RSS {peak_rss_gb():.2f} GB)")  # fmt: skip
    sys.stdout.flush()


def run(n: int, users: int, decimals: int | None, check_max: int, engines: list[str]) -> None:
    kind = "continuous" if decimals is None else f"rounded to {decimals} decimals"
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "impressions.parquet"
        start = time.perf_counter()
        write_parquet(path, n, users, decimals)
        size = path.stat().st_size / 2**20
        for engine in engines:
            print(f"\n{n:,} rows, {users:,} users, scores {kind} ({size:,.0f} MB Parquet, "
                  f"written in {time.perf_counter() - start:.1f} s), engine {engine}",
                  flush=True)  # fmt: skip
            subprocess.run(
                [sys.executable, "-m", "bench.bench_sql", "--case", str(path), "--sizes", str(n),
                 "--engine", engine] + (["--check"] if n <= check_max else []),
                cwd=ROOT, check=False,
            )  # fmt: skip


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--sizes", default="1e7", help="comma-separated row counts (1e8: the targets)")
    p.add_argument("--check-max", type=float, default=1e7, help="largest size checked in numpy")
    p.add_argument("--spark", action="store_true", help="also Spark local[2] at sizes <= 1e7")
    p.add_argument("--case", help=argparse.SUPPRESS)  # a Parquet file: measure it, in-process
    p.add_argument("--engine", default="duckdb", help=argparse.SUPPRESS)
    p.add_argument("--check", action="store_true", help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    sizes = [int(float(x)) for x in args.sizes.split(",")]
    if args.case:
        measure(args.case, sizes[0], args.engine, args.check)
        return 0
    print(f"metrics.sql benchmark: {os.cpu_count()} cores, duckdb memory_limit 2GB")
    for n in sizes:
        for decimals in (None, 4):
            engines = ["duckdb"]
            if args.spark and n <= 10**7 and decimals == 4:
                engines.append("spark")
            run(n, max(n // 10, 1), decimals, int(args.check_max), engines)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

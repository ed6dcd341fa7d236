"""Benchmark metrics.sql: two models and GAUC from one Parquet table, beside DuckDB's floor.

Run from the repository root::

    .venv/bin/python -m bench.bench_sql                      # 1e7 rows / 1e6 users
    .venv/bin/python -m bench.bench_sql --sizes 1e7,1e8      # the target is at 1e8
    .venv/bin/python -m bench.bench_sql --spark              # and Spark local[2] (sizes <= 1e7)

For each size it writes one Parquet table with DuckDB itself (``y``, a continuous ``score``, the
same rounded to 4 decimals ``score4``, ``user_id``: n / 10 users), kept in ``--data-dir``
(/tmp/metrics-lens-bench-sql) and reused by later runs, since 1e8 rows take a while to write.
Then, each in its own process so that its peak RSS is its own (DuckDB runs in it), with 2
threads and a 2 GB memory limit:

- ours: ``summarize(path, "y", ["score", "score4"], group="user_id")`` (issue 37's run: exact
  AUC, AP, per-score state or binned table, GAUC), its time per step and the process's peak RSS;
- the floor: what DuckDB does fastest for one exact AUC, ``rank() OVER (ORDER BY s)`` with the
  ties from ``count(*) OVER (PARTITION BY s)``, once per model, checked equal to our AUC.

It prints our time over the floor's (both models) and the verdict against the target at 1e8
rows on two cores: two models + GAUC in at most 60 s within 3 GB peak RSS, exact. Up to
``--check-max`` rows (1e7) it also checks every figure against the numpy library in memory.
Nothing asserts on time; verdicts are printed.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
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
TARGET_S = {10**8: 60.0}  # two models + GAUC
RSS_TARGET_GB = 3.0
MODELS = ["score", "score4"]
SETTINGS = ("SET threads = 2", "SET memory_limit = '2GB'", "SET preserve_insertion_order = false")


def peak_rss_gb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20  # KiB on Linux


def table(data_dir: Path, n: int) -> Path:
    """The Parquet table of ``n`` rows, written once and reused."""
    path = data_dir / f"two_models_{n}.parquet"
    if path.exists():
        return path
    import duckdb

    data_dir.mkdir(parents=True, exist_ok=True)
    part = path.with_suffix(".part")
    start = time.perf_counter()
    con = duckdb.connect()
    con.execute("SET threads = 2")
    con.execute("SET enable_progress_bar = false")
    con.execute(
        f"""
        COPY (
          SELECT y, random() + 0.35 * y AS score, round(random() + 0.35 * y, 4) AS score4, user_id
          FROM (SELECT CAST(random() < 0.3 AS INTEGER) AS y,
                       CAST(floor(random() * {max(n // 10, 1)}) AS BIGINT) AS user_id
                FROM range({n}))
        ) TO '{part}' (FORMAT parquet, ROW_GROUP_SIZE 1000000)
        """
    )
    part.rename(path)
    print(f"  wrote {path} in {time.perf_counter() - start:.1f} s", flush=True)
    return path


def ours(path: str, n: int, engine: str, check: bool) -> None:
    """Our run, in its own process."""
    session = None
    if engine == "spark":
        from metrics.sql import local_spark

        session = local_spark()
        session.sparkContext.setLogLevel("ERROR")
    steps: list[tuple[float, str]] = []
    start = time.perf_counter()
    say = lambda line: steps.append((time.perf_counter(), line))  # noqa: E731
    s = summarize(path, "y", MODELS, group="user_id", engine=engine, memory_limit="2GB",
                  spark=session, progress=say)  # fmt: skip
    total = time.perf_counter() - start
    rss = peak_rss_gb()
    ends = [t for t, _ in steps[1:]] + [start + total]
    for (t, line), end in zip(steps, ends, strict=True):
        print(f"    {end - t:6.2f} s  {line}")
    for name, m in s.models.items():
        print(f"  {name}: AUC {m.auc!r} (2U {m.twice_u}), AP {m.average_precision!r}, "
              f"{m.distinct_scores:,} distinct scores, GAUC {m.gauc!r} "
              f"({m.groups_used:,} users used)")  # fmt: skip
    print(f"OURS {total:.2f} {rss:.3f} " + " ".join(str(m.twice_u) for m in s.models.values()))
    if check:
        import duckdb

        t = duckdb.sql(f"SELECT y, score, score4, user_id FROM '{path}'").fetchnumpy()
        for name, m in s.models.items():
            auc = metrics.roc_auc_score(t["y"], t[name])
            ap = metrics.average_precision_score(t["y"], t[name])
            gauc = metrics.group_auc_score(t["y"], t[name], t["user_id"])
            same = "exact" if auc == m.auc else m.auc - auc
            print(
                f"  {name} agreement with numpy: AUC {same}, AP "
                f"{abs(ap - m.average_precision):.1e}, GAUC {abs(gauc - m.gauc):.1e}"
            )
    sys.stdout.flush()


def floor(path: str, model: str) -> None:
    """DuckDB's exact AUC of one model by rank() and the ties' count(*), in its own process."""
    import duckdb

    con = duckdb.connect()
    for setting in SETTINGS:
        con.execute(setting)
    spill = tempfile.mkdtemp(prefix="bench-sql-floor-")
    con.execute("SET temp_directory = ?", [spill])
    start = time.perf_counter()
    twice_rank, p, n = con.execute(
        f"""
        SELECT SUM(CASE WHEN y = 1 THEN 2 * CAST(r AS HUGEINT) + c - 1 ELSE 0 END), SUM(y), COUNT(*)
        FROM (SELECT y, rank() OVER (ORDER BY {model}) AS r,
                     count(*) OVER (PARTITION BY {model}) AS c FROM read_parquet('{path}'))
        """
    ).fetchone()
    took = time.perf_counter() - start
    con.close()
    shutil.rmtree(spill, ignore_errors=True)  # one empty directory per run was left in /tmp
    p, n = int(p), int(n)
    twice_u = int(twice_rank) - p * (p + 1)
    print(f"FLOOR {model} {took:.2f} {peak_rss_gb():.3f} {twice_u}")


def _run(args: list[str]) -> dict:
    """Run a case in a fresh process; its output lines, and the figures of its last line."""
    out = subprocess.run([sys.executable, "-m", "bench.bench_sql", *args], cwd=ROOT, check=False,
                         capture_output=True, text=True)  # fmt: skip
    lines = out.stdout.splitlines()
    for line in lines:
        if not line.startswith(("OURS", "FLOOR")):
            print(line)
    if out.returncode:
        print(out.stderr[-2000:])
    return {line.split()[0] + (line.split()[1] if line.startswith("FLOOR") else ""): line.split()
            for line in lines if line.startswith(("OURS", "FLOOR"))}  # fmt: skip


def run(n: int, data_dir: Path, check: bool, engines: list[str]) -> None:
    path = table(data_dir, n)
    size = path.stat().st_size / 2**20
    print(f"\n{n:,} rows, {max(n // 10, 1):,} users, models {' and '.join(MODELS)} (continuous, "
          f"rounded to 4 decimals), GAUC; {size:,.0f} MB Parquet", flush=True)  # fmt: skip
    floors = {}
    for model in MODELS:
        got = _run(["--floor", str(path), "--model", model])[f"FLOOR{model}"]
        floors[model] = (float(got[2]), float(got[3]), int(got[4]))
        print(f"  floor, {model}: {floors[model][0]:.2f} s (rank() + count(*) windows, exact "
              f"AUC; peak RSS {floors[model][1]:.2f} GB)", flush=True)  # fmt: skip
    floor_s = sum(f[0] for f in floors.values())
    for engine in engines:
        print(f"  ours, engine {engine}:", flush=True)
        got = _run(["--case", str(path), "--sizes", str(n), "--engine", engine]
                   + (["--check"] if check else []))["OURS"]  # fmt: skip
        took, rss = float(got[1]), float(got[2])
        for model, twice_u in zip(MODELS, got[3:], strict=True):
            same = "equal" if int(twice_u) == floors[model][2] else "DIFFERENT"
            print(f"  {model}: our 2U and the floor's are {same}")
        print(f"  ours: {took:.2f} s (two models + GAUC), peak RSS {rss:.2f} GB; floor (one "
              f"exact AUC per model, nothing else) {floor_s:.2f} s; "
              f"ours / floor {took / floor_s:.2f}")  # fmt: skip
        if n in TARGET_S and engine == "duckdb":
            ok = took <= TARGET_S[n] and rss <= RSS_TARGET_GB
            print(f"  target: two models + GAUC in {TARGET_S[n]:g} s within {RSS_TARGET_GB:g} GB: "
                  f"{'PASS' if ok else 'MISS'} ({took:.1f} s, {rss:.2f} GB)")  # fmt: skip
        sys.stdout.flush()


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--sizes", default="1e7", help="comma-separated row counts (1e8: the target)")
    p.add_argument("--check-max", type=float, default=1e7, help="largest size checked in numpy")
    p.add_argument("--spark", action="store_true", help="also Spark local[2] at sizes <= 1e7")
    p.add_argument("--data-dir", default=os.path.join(tempfile.gettempdir(),
                   "metrics-lens-bench-sql"), help="where the tables are kept")  # fmt: skip
    p.add_argument("--case", help=argparse.SUPPRESS)  # a Parquet file: our run, in-process
    p.add_argument("--floor", help=argparse.SUPPRESS)  # a Parquet file: the floor of --model
    p.add_argument("--model", help=argparse.SUPPRESS)
    p.add_argument("--engine", default="duckdb", help=argparse.SUPPRESS)
    p.add_argument("--check", action="store_true", help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    sizes = [int(float(x)) for x in args.sizes.split(",")]
    if args.case:
        ours(args.case, sizes[0], args.engine, args.check)
        return 0
    if args.floor:
        floor(args.floor, args.model)
        return 0
    print(f"metrics.sql benchmark: {os.cpu_count()} cores, DuckDB 2 threads, memory_limit 2GB")
    for n in sizes:
        engines = ["duckdb"] + (["spark"] if args.spark and n <= 10**7 else [])
        run(n, Path(args.data_dir), n <= int(args.check_max), engines)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

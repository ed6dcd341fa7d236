"""Benchmark issue 37's large run: 1e9 rows / 1e7 users of partitioned Parquet, the command line.

Run from the repository root::

    .venv/bin/python -m bench.bench_sql_1e9                  # 1e9 rows, 100 files, 1e7 users
    .venv/bin/python -m bench.bench_sql_1e9 --rows 1e8       # 10 files: an estimate first
    .venv/bin/python -m bench.bench_sql_1e9 --rows 1e7       # and every figure checked in numpy

It writes ``--rows`` rows as files of 1e7 rows (``part-000.parquet``, ...) under
``--data-dir``/rows-N, with bench/bench_sql.py's generator (``y``, a continuous ``score``, the
same rounded to 4 decimals ``score4``, ``user_id``: rows / 100 users drawn afresh on every row,
so each user's rows are spread over the files, as logs are). The files are written once and
reused; delete the directory when done (1e9 rows are about 15 GB).

Then it runs the command exactly as a user would, in a subprocess measured by ``/usr/bin/time
-v`` (wall time and peak RSS of the whole process, DuckDB included)::

    python -m metrics.sql 'DIR/*.parquet' --label y --score score --score score4 \\
        --group user_id --delong --memory-limit 3GB --json -v

and prints the verdict against issue 37's target: AUC, AP, GAUC and the clustered intervals of
both models, exact, in at most 15 minutes within 4 GB peak RSS on two cores. Up to
``--check-max`` rows (1e7) it also loads the rows and checks every figure of the JSON against
the numpy library: AUC, AP and GAUC of each model, Obuchowski's interval of each AUC and the
paired test (:func:`metrics.clustered_auc_test`). Nothing asserts on time; verdicts are printed.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

ROOT = Path(__file__).resolve().parent.parent
FILE_ROWS = 10**7
TARGET_S, TARGET_GB = 15 * 60.0, 4.0
MODELS = ["score", "score4"]


def write(data_dir: Path, n: int) -> Path:
    """``n`` rows as files of at most 1e7 rows, written once (a file at a time, resumable)."""
    import duckdb

    folder = data_dir / f"rows-{n}"
    folder.mkdir(parents=True, exist_ok=True)
    users = max(n // 100, 1)
    files = math.ceil(n / FILE_ROWS)
    con = None
    for i in range(files):
        path = folder / f"part-{i:03d}.parquet"
        if path.exists():
            continue
        if con is None:
            con = duckdb.connect()
            con.execute("SET threads = 2")
            con.execute("SET enable_progress_bar = false")
        rows = min(FILE_ROWS, n - i * FILE_ROWS)
        part = path.with_suffix(".part")
        start = time.perf_counter()
        con.execute(
            f"""
            COPY (
              SELECT y, random() + 0.35 * y AS score, round(random() + 0.35 * y, 4) AS score4,
                     user_id
              FROM (SELECT CAST(random() < 0.3 AS INTEGER) AS y,
                           CAST(floor(random() * {users}) AS BIGINT) AS user_id
                    FROM range({rows}))
            ) TO '{part}' (FORMAT parquet, ROW_GROUP_SIZE 1000000)
            """
        )
        part.rename(path)
        print(f"  wrote {path} ({rows:,} rows) in {time.perf_counter() - start:.1f} s",
              flush=True)  # fmt: skip
    return folder


def command(folder: Path, memory_limit: str) -> list[str]:
    return [sys.executable, "-m", "metrics.sql", str(folder / "*.parquet"), "--label", "y",
            "--score", "score", "--score", "score4", "--group", "user_id", "--delong",
            "--memory-limit", memory_limit, "--json", "-v"]  # fmt: skip


def run(folder: Path, memory_limit: str) -> tuple[dict, float, float, list[str]]:
    """The command under /usr/bin/time -v: its JSON, wall seconds, peak RSS (GB), and each
    progress line with the seconds until the next (read as they come)."""
    cmd = command(folder, memory_limit)
    shown = " ".join(repr(c) if "*" in c else c for c in cmd[1:])
    print(f"  running: python {shown}", flush=True)
    start = time.perf_counter()
    proc = subprocess.Popen(["/usr/bin/time", "-v", *cmd], cwd=ROOT, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)  # fmt: skip
    steps, other = [], []
    for line in proc.stderr:
        if line.startswith("[metrics.sql]"):
            steps.append((time.perf_counter(), line.strip()))
            print(f"    {steps[-1][0] - start:7.1f} s  {line.strip()}", flush=True)
        else:
            other.append(line)
    out = proc.stdout.read()
    proc.wait()
    wall = time.perf_counter() - start
    text = "".join(other)
    if proc.returncode:
        print(text[-3000:])
        raise SystemExit(f"the command failed with status {proc.returncode}")
    rss_kb = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", text).group(1))
    ends = [t for t, _ in steps[1:]] + [start + wall]
    lines = [f"{end - t:7.1f} s  {line}" for (t, line), end in zip(steps, ends, strict=True)]
    return json.loads(out), wall, rss_kb / 2**20, lines


def check(folder: Path, result: dict) -> bool:
    """Every figure of the command's JSON against the numpy library on the rows in memory."""
    import duckdb

    import metrics

    t = duckdb.sql(
        f"SELECT y, score, score4, user_id FROM read_parquet('{folder}/*.parquet')"
    ).fetchnumpy()
    y, g = t["y"], t["user_id"]
    worst, ok = {}, True

    def same(what: str, ours: float, theirs: float, exact: bool = False) -> None:
        nonlocal ok
        diff = abs(ours - theirs)
        worst[what] = max(worst.get(what, 0.0), diff)
        if (exact and ours != theirs) or diff > 1e-9:
            ok = False
            print(f"  DIFFERENT {what}: ours {ours!r}, numpy {theirs!r}")

    for name in MODELS:
        m = result["models"][name]
        same("AUC", m["auc"], metrics.roc_auc_score(y, t[name]), exact=True)
        same("AP", m["average_precision"], metrics.average_precision_score(y, t[name]))
        same("GAUC", m["gauc"], metrics.group_auc_score(y, t[name], g))
    d = result["delong"]
    for name in MODELS:  # each model's interval, as the command computes it: one model alone
        r = metrics.clustered_auc_test(y, t[name], groups=g, small_sample=True)
        for key, theirs in (("auc", r.auc_a), ("std_error", r.std_error_a),
                            ("ci_low", r.ci_low_a), ("ci_high", r.ci_high_a)):  # fmt: skip
            same(f"interval {key}", d["models"][name][key], theirs)
    same("df", d["df"], r.df)  # the last model's, as the command reports it
    r = metrics.clustered_auc_test(y, t["score"], t["score4"], groups=g, small_sample=True)
    pair = d["pairs"][0]
    for key in ("difference", "std_error", "z", "p_value", "ci_low", "ci_high"):
        same(f"paired {key}", pair[key], getattr(r, key))
    print("  largest difference from numpy: "
          + ", ".join(f"{k} {v:.1e}" for k, v in worst.items()))  # fmt: skip
    return ok


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--rows", type=float, default=1e9, help="rows (1e9: the target)")
    p.add_argument("--data-dir", default=os.path.join(tempfile.gettempdir(),
                   "metrics-lens-bench-1e9"), help="where the files are kept")  # fmt: skip
    p.add_argument("--memory-limit", default="3GB")
    p.add_argument("--check-max", type=float, default=1e7, help="largest size checked in numpy")
    p.add_argument("--write-only", action="store_true", help="write the files and stop")
    args = p.parse_args(argv)
    n = int(args.rows)
    folder = write(Path(args.data_dir), n)
    size = sum(f.stat().st_size for f in folder.glob("*.parquet")) / 2**30
    print(f"{n:,} rows, {max(n // 100, 1):,} users, {len(list(folder.glob('*.parquet')))} files, "
          f"{size:.2f} GB of Parquet; {shutil.disk_usage(folder).free / 2**30:.1f} GB free",
          flush=True)  # fmt: skip
    if args.write_only:
        return 0
    result, wall, rss, lines = run(folder, args.memory_limit)
    for line in lines:
        print(f"    {line}")
    for name, m in result["models"].items():
        iv = result["delong"]["models"][name]
        print(f"  {name}: AUC {m['auc']!r}, AP {m['average_precision']!r}, GAUC {m['gauc']!r}, "
              f"clustered 95% CI [{iv['ci_low']:.6f}, {iv['ci_high']:.6f}]")  # fmt: skip
    for r in result["delong"]["pairs"]:
        print(f"  {r['a']} - {r['b']}: {r['difference']:+.6f} [{r['ci_low']:+.6f}, "
              f"{r['ci_high']:+.6f}], p {r['p_value']:.3g} (Obuchowski, "
              f"{result['delong']['df']:.0f} df)")  # fmt: skip
    fits = wall <= TARGET_S and rss <= TARGET_GB
    print(f"  {n:,} rows: {wall:.1f} s ({wall / 60:.1f} min), peak RSS {rss:.2f} GB; target "
          f"{TARGET_S / 60:.0f} min within {TARGET_GB:g} GB: {'PASS' if fits else 'MISS'}",
          flush=True)  # fmt: skip
    if n <= args.check_max:
        print("  exact against the numpy library: " + ("yes" if check(folder, result) else "NO"))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

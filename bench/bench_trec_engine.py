"""A run file too large for memory: trec_evaluate_file (DuckDB ranks it out of core) against
reading it into memory and calling trec_evaluate, each in its own process, same files, same run.

    .venv/bin/python -m bench.bench_trec_engine [--queries 6980 --docs 1000 --memory 256MB]

Prints each side's seconds and peak resident memory, the ratios, and checks that the per-query
numbers are equal. The files are bench_trec's MS MARCO-shaped ones (6,980 queries x 1,000
documents: 7M run lines, 1.1 query judged relevant on average).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

from bench.bench_trec import MEASURES, make_files


def _side(kind: str, qrels: str, run: str, memory: str) -> dict:
    import resource

    import metrics
    from metrics.trec import trec_evaluate_file

    t = time.perf_counter()
    q = metrics.read_trec_qrels(qrels)
    if kind == "memory":
        table = metrics.trec_evaluate(q, metrics.read_trec_run(run), MEASURES, per_query=True)
    else:
        table = trec_evaluate_file(q, run, MEASURES, per_query=True, memory_limit=memory)
    seconds = time.perf_counter() - t
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return {"seconds": seconds, "peak_mb": peak, "table": table.to_dict("list")}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--queries", type=int, default=6980)
    parser.add_argument("--docs", type=int, default=1000)
    parser.add_argument("--memory", default="256MB", help="DuckDB's memory limit")
    parser.add_argument("--dir", default="/tmp/metrics_lens_bench_trec")
    parser.add_argument("--side", choices=["memory", "engine"], help=argparse.SUPPRESS)
    parser.add_argument("--paths", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.side:
        qrels, run = json.loads(args.paths)
        print(json.dumps(_side(args.side, qrels, run, args.memory)))
        return 0
    paths = make_files(Path(args.dir), args.queries, args.docs)
    spec = json.dumps([str(paths["qrels"]), str(paths["a"])])
    got = {}
    for side in ("memory", "engine"):
        out = subprocess.run(
            [sys.executable, "-m", "bench.bench_trec_engine", "--side", side, "--paths", spec,
             "--memory", args.memory],
            capture_output=True, text=True, check=True,
        )  # fmt: skip
        got[side] = json.loads(out.stdout.strip().splitlines()[-1])
    m, e = got["memory"], got["engine"]
    same = m["table"]["query_id"] == e["table"]["query_id"] and all(
        abs(a - b) <= 1e-12
        for name in MEASURES
        for a, b in zip(m["table"][name], e["table"][name], strict=True)
    )
    with open(paths["a"], "rb") as f:
        lines = sum(1 for _ in f)
    size = paths["a"].stat().st_size / 1e6
    print(f"run: {lines:,} lines, {size:.0f} MB; DuckDB limit {args.memory}")
    for side, what in (
        ("memory", "read_trec_run + trec_evaluate"),
        ("engine", "trec_evaluate_file"),
    ):
        r = got[side]
        print(f"{what:>30}: {r['seconds']:.2f} s, peak {r['peak_mb']:.0f} MB")
    print(
        f"ratio engine / memory: time {e['seconds'] / m['seconds']:.2f}, "
        f"peak memory {e['peak_mb'] / m['peak_mb']:.2f}"
    )
    print(f"per-query values equal (1e-12): {same}")
    return 0 if same else 1


if __name__ == "__main__":
    raise SystemExit(main())

"""trec_evaluate + compare_runs against ranx's evaluate + compare, at MS MARCO dev size.

Run from the repository root::

    python3 -m venv /work/venvs/ranx && /work/venvs/ranx/bin/pip install ranx   # once
    .venv/bin/python -m bench.bench_trec
    .venv/bin/python -m bench.bench_trec --queries 1000 --docs 100 --ranx-python /path/to/python

ranx needs numba, which pins numpy, so it lives in a venv of its own (``--ranx-python``, by
default /work/venvs/ranx/bin/python, created as above) and runs as a subprocess on the same
files. Our side runs in a subprocess too, so each side's peak memory (ru_maxrss) is its own.

The data: ``--queries`` queries (6,980, MS MARCO dev) x ``--docs`` documents (1,000) per run,
two runs written as TREC run files (``qid Q0 docno rank score tag``, ~7M lines each), scores
rounded to 4 decimals so that ties happen as they do in BM25 runs, document ids drawn from 8.8M
passages; a qrels file with 1-2 relevant passages per query (MS MARCO dev has 7,437 for 6,980
queries), in the run ~60% of the time. The files are made once in ``--dir``.

Timed, each side warm (ranx's numba functions compiled on a small run first):

* **read**: the qrels and both runs from the files (``read_trec_qrels`` / ``read_trec_run``;
  ranx's ``Qrels.from_file`` / ``Run.from_file``);
* **evaluate + compare**: ``trec_evaluate(qrels, run_a, M)`` then
  ``compare_runs(qrels, {a, b}, M, test="fisher", n_resamples=10_000)``; ranx's
  ``evaluate(qrels, run_a, M)`` then ``compare(qrels, [a, b], M, stat_test="fisher",
  n_permutations=10_000)``; M = ndcg_cut_10, map, recip_rank, recall_100 (ranx: ndcg@10, map,
  mrr, recall@100).

The ratio printed is ours / ranx's for evaluate + compare (target <= 1.0); reading is printed
apart. The two sides' means are printed next to each other (ranx breaks ties its own way, so the
means may differ in the 4th-5th decimal on tied scores). Nothing is asserted.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import time
from pathlib import Path

MEASURES = ["ndcg_cut_10", "map", "recip_rank", "recall_100"]
RANX_MEASURES = ["ndcg@10", "map", "mrr", "recall@100"]
DEFAULT_RANX = "/work/venvs/ranx/bin/python"


def make_files(folder: Path, n_queries: int, n_docs: int, seed: int = 0) -> dict[str, Path]:
    import numpy as np
    import pyarrow as pa
    import pyarrow.csv as pcsv

    folder.mkdir(parents=True, exist_ok=True)
    paths = {
        "qrels": folder / f"qrels_{n_queries}x{n_docs}.txt",
        "a": folder / f"run_a_{n_queries}x{n_docs}.txt",
        "b": folder / f"run_b_{n_queries}x{n_docs}.txt",
    }
    if all(p.exists() for p in paths.values()):
        return paths
    rng = np.random.default_rng(seed)
    qids = np.sort(rng.choice(1_100_000, n_queries, replace=False)).astype(str)
    n_rel = rng.integers(1, 3, n_queries)
    rel_q = np.repeat(np.arange(n_queries), n_rel)
    rel_doc = rng.integers(0, 8_800_000, rel_q.size)
    qrels = pa.table(
        {
            "q": qids[rel_q],
            "it": np.zeros(rel_q.size, np.int8),
            "d": rel_doc.astype(str),
            "r": np.ones(rel_q.size, np.int8),
        }
    )
    options = pcsv.WriteOptions(include_header=False, delimiter=" ", quoting_style="none")
    pcsv.write_csv(qrels, paths["qrels"], write_options=options)
    for name, strength in (("a", 0.0), ("b", 0.15)):
        # Distinct passages within a query: a random block of n_docs ids, one per column.
        docs = rng.integers(0, 8_800_000 // n_docs, (n_queries, n_docs)) * n_docs
        docs += np.arange(n_docs)
        scores = np.sort(np.round(rng.gamma(2.0, 4.0, (n_queries, n_docs)), 4), axis=1)[:, ::-1]
        # Put a relevant passage in the run ~60% of the time, higher for the better run.
        first_rel = rel_doc[np.cumsum(n_rel) - n_rel]
        hit = (rng.random(n_queries) < 0.6) & ~(docs == first_rel[:, None]).any(axis=1)
        where = np.minimum(
            (rng.exponential(30 * (1 - strength), n_queries)).astype(np.int64), n_docs - 1
        )
        docs[hit, where[hit]] = first_rel[hit]
        table = pa.table(
            {
                "q": np.repeat(qids, n_docs),
                "Q0": np.full(n_queries * n_docs, "Q0"),
                "d": docs.ravel().astype(str),
                "rank": np.tile(np.arange(1, n_docs + 1), n_queries),
                "s": scores.ravel(),
                "tag": np.full(n_queries * n_docs, f"run_{name}"),
            }
        )
        pcsv.write_csv(table, paths[name], write_options=options)
    return paths


def _peak_mb() -> float:
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def ours(paths: dict[str, str], n_resamples: int) -> dict:
    import metrics

    t = time.perf_counter()
    qrels = metrics.read_trec_qrels(paths["qrels"])
    a = metrics.read_trec_run(paths["a"])
    b = metrics.read_trec_run(paths["b"])
    read = time.perf_counter() - t
    # Warm: the first call imports pyarrow.compute's kernels.
    metrics.trec_evaluate(qrels, a.head(1000), MEASURES)
    times = []
    for _ in range(2):  # as ranx's side: the better of two calls
        t = time.perf_counter()
        means = metrics.trec_evaluate(qrels, a, MEASURES)
        table = metrics.compare_runs(
            qrels, {"a": a, "b": b}, MEASURES, test="fisher", n_resamples=n_resamples, seed=0
        )
        times.append(time.perf_counter() - t)
    evaluate = min(times)
    return {
        "read": read,
        "evaluate": evaluate,
        "peak_mb": _peak_mb(),
        "means_a": means,
        "p": dict(zip(table["measure"], table["p_value"], strict=True)),
    }


RANX_CODE = r"""
import json, resource, sys, time
from ranx import Qrels, Run, compare, evaluate
paths, n_resamples, small = json.loads(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
metrics = ["ndcg@10", "map", "mrr", "recall@100"]
# Warm: compile numba's functions on a small run of the same shape.
sq = Qrels.from_file(small + "_qrels.txt", kind="trec")
sr = Run.from_file(small + "_run.txt", kind="trec")
sr2 = Run.from_file(small + "_run.txt", kind="trec")
sr2.name = "b2"
evaluate(sq, sr, metrics); compare(sq, [sr, sr2], metrics, stat_test="fisher", n_permutations=100)
t = time.perf_counter()
qrels = Qrels.from_file(paths["qrels"], kind="trec")
a = Run.from_file(paths["a"], kind="trec"); a.name = "a"
b = Run.from_file(paths["b"], kind="trec"); b.name = "b"
read = time.perf_counter() - t
times = []
for _ in range(2):  # the second call is warm at full size too
    t = time.perf_counter()
    means = evaluate(qrels, a, metrics)
    report = compare(qrels, [a, b], metrics, stat_test="fisher", n_permutations=n_resamples)
    times.append(time.perf_counter() - t)
ev = min(times)
print(json.dumps({"read": read, "evaluate": ev,
                  "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
                  "means_a": {k: float(v) for k, v in means.items()}}))
"""


def _small_files(folder: Path) -> str:
    stem = folder / "ranx_warm"
    lines = [f"{q} 0 d{q} 1" for q in range(20)]
    Path(f"{stem}_qrels.txt").write_text("\n".join(lines) + "\n")
    run = [f"{q} Q0 d{d} {d} {1.0 / (d + 1)} w" for q in range(20) for d in range(50)]
    Path(f"{stem}_run.txt").write_text("\n".join(run) + "\n")
    return str(stem)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--queries", type=int, default=6980)
    parser.add_argument("--docs", type=int, default=1000)
    parser.add_argument("--resamples", type=int, default=10_000)
    parser.add_argument("--dir", default="/tmp/metrics_lens_bench_trec")
    parser.add_argument("--ranx-python", default=DEFAULT_RANX)
    parser.add_argument("--side", choices=["ours"], help=argparse.SUPPRESS)
    parser.add_argument("--paths", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.side == "ours":
        print(json.dumps(ours(json.loads(args.paths), args.resamples)))
        return 0

    folder = Path(args.dir)
    t = time.perf_counter()
    paths = {k: str(v) for k, v in make_files(folder, args.queries, args.docs).items()}
    made = time.perf_counter() - t
    print(f"files: {args.queries} queries x {args.docs} docs, two runs ({made:.1f} s to make/find)")
    print(
        f"machine: {platform.machine()}, {os.cpu_count()} CPUs, Python {platform.python_version()}"
    )
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parent.parent)}
    mine = subprocess.run(
        [
            sys.executable,
            "-m",
            "bench.bench_trec",
            "--side",
            "ours",
            "--paths",
            json.dumps(paths),
            "--resamples",
            str(args.resamples),
        ],
        capture_output=True,
        text=True,
        env=env,
        check=True,
    )
    ours_out = json.loads(mine.stdout.strip().splitlines()[-1])
    if not Path(args.ranx_python).exists():
        print(
            f"ranx: {args.ranx_python} not found; create it with\n"
            f"  python3 -m venv /work/venvs/ranx && /work/venvs/ranx/bin/pip install ranx"
        )
        ranx_out = None
    else:
        theirs = subprocess.run(
            [
                args.ranx_python,
                "-c",
                RANX_CODE,
                json.dumps(paths),
                str(args.resamples),
                _small_files(folder),
            ],
            capture_output=True,
            text=True,
            check=False,
        )
        if theirs.returncode:
            print("ranx failed:\n" + theirs.stderr[-2000:])
            ranx_out = None
        else:
            ranx_out = json.loads(theirs.stdout.strip().splitlines()[-1])

    print(f"\n{'':28}{'metrics.trec':>14}{'ranx':>10}{'ratio':>8}")
    for key, label in (
        ("read", "read qrels + 2 runs (s)"),
        ("evaluate", "evaluate + compare (s)"),
        ("peak_mb", "peak memory (MB)"),
    ):
        o = ours_out[key]
        r = ranx_out[key] if ranx_out else float("nan")
        print(f"{label:28}{o:>14.2f}{r:>10.2f}{o / r:>8.2f}")
    print("\nmeans of run a (trec_eval's conventions | ranx's):")
    for m, rm in zip(MEASURES, RANX_MEASURES, strict=True):
        r = ranx_out["means_a"][rm] if ranx_out else float("nan")
        print(f"  {m:12} {ours_out['means_a'][m]:.6f} | {rm:10} {r:.6f}")
    print("Fisher p (b vs a): " + ", ".join(f"{m} {p:.4f}" for m, p in ours_out["p"].items()))
    if ranx_out:
        ratio = ours_out["evaluate"] / ranx_out["evaluate"]
        verdict = "PASS" if ratio <= 1.0 else "MISS"
        print(f"\nevaluate + compare, ours / ranx: {ratio:.2f} ({verdict}, target <= 1.0)")
        peak = ours_out["peak_mb"]
        verdict = "PASS" if peak <= 2048 else "MISS"
        print(f"peak memory, ours: {peak:.0f} MB ({verdict}, target <= 2048 MB)")
    return 0


if __name__ == "__main__":
    sys.exit(main())

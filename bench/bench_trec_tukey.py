"""Tukey's HSD between runs against ranx's ``compare(stat_test="tukey")``, p-values and time.

Run from the repository root::

    .venv/bin/python -m bench.bench_trec_tukey                    # 1,000 queries x 200, 4 runs
    .venv/bin/python -m bench.bench_trec_tukey --queries 6980 --docs 1000 --runs 3

ranx (numba pins numpy) lives in its own venv (``--ranx-python``, by default
/work/venvs/ranx/bin/python; ``bench.bench_trec`` says how to make it) and runs as a subprocess
on the same TREC files.

What ranx computes (read in its source, ``ranx/statistical_tests/tukey_hsd_test.py``): it hands
each run's per-query scores to ``scipy.stats.tukey_hsd``, the one-way design, so the pairing
over queries is ignored. Ours: ``test="tukey-oneway"`` is that design and must give ranx's
p-values; ``test="tukey"`` blocks on queries (two-way ANOVA without interaction) and is printed
beside it to show how much the pairing changes.

The data: ``--runs`` runs of ``--docs`` documents for every one of ``--queries`` queries, scores
distinct within a query (so both tools rank alike), 1-4 relevant documents a query, graded 1-2,
each run with its own skill and its own per-query luck. Timed, each side warm (called once
before): ranx's ``compare`` (which evaluates too) against our ``compare_runs`` for each design;
reading the files is not timed; each side's best of three calls. Nothing is asserted.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

MEASURES = ["ndcg_cut_10", "map", "recip_rank", "recall_100"]
RANX_MEASURES = ["ndcg@10", "map", "mrr", "recall@100"]
DEFAULT_RANX = "/work/venvs/ranx/bin/python"

_RANX_SIDE = r"""
import json, sys, time
from ranx import Qrels, Run, compare
qrels_path, measures, run_paths = sys.argv[1], sys.argv[2].split(","), sys.argv[3:]
qrels = Qrels.from_file(qrels_path, kind="trec")
runs = []
for i, p in enumerate(run_paths):
    r = Run.from_file(p, kind="trec")
    r.name = f"r{i}"
    runs.append(r)
compare(qrels, runs, measures, stat_test="tukey", max_p=0.05)  # warm: numba compiled
seconds = float("inf")
for _ in range(3):  # the best of three: the machine is shared
    t0 = time.perf_counter()
    report = compare(qrels, runs, measures, stat_test="tukey", max_p=0.05)
    seconds = min(seconds, time.perf_counter() - t0)
out = {"seconds": seconds, "p": {}, "mean": {}}
for i, a in enumerate(runs):
    for m in measures:
        out["mean"][f"{a.name}|{m}"] = float(report.results[a.name][m])
    for b in runs[i + 1:]:
        for m in measures:
            p = report.comparisons[a.name, b.name][m]["p_value"]
            out["p"][f"{a.name}|{b.name}|{m}"] = float(p)
print(json.dumps(out))
"""


def make_files(folder: Path, n_queries: int, n_docs: int, n_runs: int, seed: int = 0):
    import numpy as np

    rng = np.random.default_rng(seed)
    qrels_lines, runs = [], [[] for _ in range(n_runs)]
    skills = np.linspace(0.9, 1.1, n_runs)  # close: p-values across the range
    for q in range(n_queries):
        qid = f"q{q}"
        n_rel = int(rng.integers(1, 5))
        rel = np.zeros(n_docs, int)
        rel[rng.choice(n_docs, n_rel, replace=False)] = rng.integers(1, 3, n_rel)
        for d in np.flatnonzero(rel):
            qrels_lines.append(f"{qid} 0 d{d} {rel[d]}")
        for r in range(n_runs):
            luck = max(0.0, rng.normal(1.0, 0.5))
            score = skills[r] * luck * rel + rng.normal(0.0, 1.0, n_docs)
            score += rng.random(n_docs) * 1e-6  # distinct within the query
            order = np.argsort(-score)
            for rank, d in enumerate(order, 1):
                runs[r].append(f"{qid} Q0 d{d} {rank} {score[d]:.9f} r{r}")
    qrels_path = folder / "qrels.txt"
    qrels_path.write_text("\n".join(qrels_lines) + "\n")
    paths = []
    for r, lines in enumerate(runs):
        p = folder / f"run_{r}.txt"
        p.write_text("\n".join(lines) + "\n")
        paths.append(p)
    return qrels_path, paths


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--queries", type=int, default=1000)
    ap.add_argument("--docs", type=int, default=200)
    ap.add_argument("--runs", type=int, default=4)
    ap.add_argument("--ranx-python", default=DEFAULT_RANX)
    args = ap.parse_args(argv)

    from metrics.trec import compare_runs, read_trec_qrels, read_trec_run

    with tempfile.TemporaryDirectory() as tmp:
        qrels_path, run_paths = make_files(Path(tmp), args.queries, args.docs, args.runs)
        proc = subprocess.run(
            [args.ranx_python, "-c", _RANX_SIDE, str(qrels_path), ",".join(RANX_MEASURES)]
            + [str(p) for p in run_paths],
            capture_output=True,
            text=True,
            check=True,
        )
        ranx = json.loads(proc.stdout.strip().splitlines()[-1])
        qrels = read_trec_qrels(qrels_path)
        runs = {f"r{i}": read_trec_run(p) for i, p in enumerate(run_paths)}

    ours = {}
    for test in ("tukey-oneway", "tukey"):
        compare_runs(qrels, runs, MEASURES, test=test)  # warm
        best = float("inf")
        for _ in range(3):  # the best of three, as ranx's side
            t0 = time.perf_counter()
            table = compare_runs(qrels, runs, MEASURES, test=test)
            best = min(best, time.perf_counter() - t0)
        ours[test] = (table, best)

    print(
        f"{args.queries:,} queries x {args.docs:,} documents, {args.runs} runs, "
        f"{len(MEASURES)} measures"
    )
    print(f"{'pair':>9} {'measure':>12} {'ranx':>12} {'tukey-oneway':>13} {'tukey':>12}")
    worst = 0.0
    worst_rel = 0.0
    table_one, _ = ours["tukey-oneway"]
    table_blk, _ = ours["tukey"]
    for (row, blk), ranx_m in zip(
        zip(table_one.itertuples(index=False), table_blk.itertuples(index=False), strict=True),
        [RANX_MEASURES[MEASURES.index(m)] for m in table_one["measure"]],
        strict=True,
    ):
        # compare_runs' pair (run, baseline) is (later, earlier); ranx's key is (earlier, later).
        p_ranx = ranx["p"][f"{row.baseline}|{row.run}|{ranx_m}"]
        err = abs(row.p_value - p_ranx)
        worst = max(worst, err)
        if p_ranx > 1e-6:  # below, scipy's quadrature (ranx's) loses relative digits
            worst_rel = max(worst_rel, err / p_ranx)
        print(
            f"{row.baseline + '-' + row.run:>9} {row.measure:>12} {p_ranx:12.6g} "
            f"{row.p_value:13.6g} {blk.p_value:12.6g}"
        )
    mean_err = max(
        abs(
            float(table_one.loc[(table_one.run == r) & (table_one.measure == m), "mean"].iloc[0])
            - ranx["mean"][f"{r}|{RANX_MEASURES[MEASURES.index(m)]}"]
        )
        for r in list(runs)[1:]
        for m in MEASURES
    )
    print(f"means: largest |ours - ranx| {mean_err:.2e}")
    print(
        f"tukey-oneway p against ranx: largest |difference| {worst:.2e}, relative "
        f"{worst_rel:.2e} (p above 1e-6)"
    )
    t_ranx = ranx["seconds"]
    for test, (_, seconds) in ours.items():
        print(
            f"compare_runs(test={test!r}): {seconds:.3f} s; ranx compare(stat_test='tukey') "
            f"{t_ranx:.3f} s; ratio {seconds / t_ranx:.2f}"
        )


if __name__ == "__main__":
    main(sys.argv[1:])

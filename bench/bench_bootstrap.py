"""Benchmark the fast paired bootstrap against one ``roc_auc_score`` and the generic path.

Run from the repository root::

    .venv/bin/python -m bench.bench_bootstrap
    .venv/bin/python bench/bench_bootstrap.py --sizes 1e5 --resamples 1000

For each size: two correlated models, 30% positives, untied scores (and scores rounded to 3
decimals with ``--tied``). It first checks that :func:`metrics.fast_paired_bootstrap` gives the
very bits of :func:`metrics.paired_bootstrap` with ``roc_auc_score`` and
``average_precision_score`` on the same multinomial draws (the first ``--check`` resamples),
then times, in one run:

* the fast bootstrap, 1000 Poisson resamples, two models, AUC and AP together (median of 3);
* the same with multinomial (stratified) draws;
* one ``roc_auc_score`` call and one ``np.argsort`` of the scores (the floors);
* the generic ``paired_bootstrap``: timed on ``--check`` resamples, extrapolated to 1000
  and labelled so.

Nothing asserts on time; the targets are printed verdicts (1e5 rows under 1.5 s and within
300x one ``roc_auc_score`` of the same run, 1e6 under 15 s). ``--repeat`` runs are timed and
the median kept (the machine may be shared: compare ratios, not seconds). It also prints the
load average before and after, and the fast path's CPU seconds over all threads: on two cores
it runs three threads (the next block's draws beside the two models), so on an idle machine
the wall time is about half the CPU time, and on a machine other work keeps busy it tends to
the CPU time, and the ratio rises with the load. The exit status is 0 unless the two paths
disagree.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import numpy as np

from metrics import (
    average_precision_score,
    fast_paired_bootstrap,
    paired_bootstrap,
    roc_auc_score,
)

POSITIVE_RATE = 0.3
TARGETS = {10**5: 1.5, 10**6: 15.0}  # seconds for 1000 resamples, two models, AUC + AP
RATIO_TARGET = 300  # at 1e5 rows, times one roc_auc_score call


def make_case(n: int, seed: int, tied: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    y = rng.random(n) < POSITIVE_RATE
    shared = rng.random(n) + 0.3 * y
    a = shared + 0.3 * rng.random(n)
    b = shared + 0.4 * rng.random(n) - 0.1 * y
    if tied:
        a, b = np.round(a, 3), np.round(b, 3)
    return y, a, b


def check(y, a, b, resamples: int) -> None:
    """The fast path's replicates equal the generic path's, bit for bit."""
    fast = fast_paired_bootstrap(y, a, b, n_resamples=resamples, counts="multinomial", seed=7)
    for name, metric in (
        ("roc_auc", roc_auc_score),
        ("average_precision", average_precision_score),
    ):
        slow = paired_bootstrap(metric, y, a, b, n_resamples=resamples, seed=7)
        if not np.array_equal(fast.results[name].replicates, slow.replicates):
            worst = np.max(np.abs(fast.results[name].replicates - slow.replicates))
            raise SystemExit(f"n={y.size:,}: {name} replicates differ (by up to {worst:.3g})")


def seconds(call: Callable[[], object], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        call()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def wall_and_cpu(call: Callable[[], object], repeat: int) -> tuple[float, float]:
    """Median wall seconds and median CPU seconds of this process (every thread) per call:
    the CPU time is the work done, the wall time also says how many cores other work on a
    shared machine left free."""
    wall, cpu = [], []
    for _ in range(repeat):
        start, start_cpu = time.perf_counter(), time.process_time()
        call()
        wall.append(time.perf_counter() - start)
        cpu.append(time.process_time() - start_cpu)
    return statistics.median(wall), statistics.median(cpu)


def load() -> str:
    """The 1-minute load average against the cores (over 1 per core: other work competes)."""
    if not hasattr(os, "getloadavg"):
        return "load unknown"
    return f"load {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores"


def run(n: int, resamples: int, check_resamples: int, tied: bool, repeat: int) -> None:
    y, a, b = make_case(n, 0, tied)
    check(y, a, b, check_resamples)
    before = load()
    fast, fast_cpu = wall_and_cpu(
        lambda: fast_paired_bootstrap(y, a, b, n_resamples=resamples), repeat
    )
    multi = seconds(
        lambda: fast_paired_bootstrap(y, a, b, n_resamples=resamples, counts="multinomial"), 1
    )
    one_auc = seconds(lambda: roc_auc_score(y, a), 15)
    argsort = seconds(lambda: np.argsort(a), 15)

    def generic():
        for metric in (roc_auc_score, average_precision_score):
            paired_bootstrap(metric, y, a, b, n_resamples=check_resamples)

    slow = seconds(generic, 1) * resamples / check_resamples
    kind = "tied (3 decimals)" if tied else "untied"
    print(f"\nn = {n:,} rows, {kind}, {resamples} resamples, 2 models, AUC + AP")
    print(f"  {before} before timing, {load()} after")
    rows = [
        ("fast, Poisson draws", fast),
        ("fast, multinomial draws", multi),
        (f"generic paired_bootstrap (from {check_resamples}, extrapolated)", slow),
        ("one roc_auc_score", one_auc),
        ("one np.argsort", argsort),
    ]
    for label, value in rows:
        print(
            f"  {label:58s} {value:9.3f} s   {value / one_auc:9.0f} x one AUC"
            f"   {value / argsort:8.0f} x argsort"
        )
    print(
        f"  fast, Poisson draws: {fast_cpu:.3f} CPU seconds (all threads, median) for"
        f" {fast:.3f} wall ({fast_cpu / fast:.2f} cores busy on average)"
    )
    print(f"  speed-up of the fast path over the generic one: {slow / fast:.0f}x")
    target = TARGETS.get(n)
    if target is not None:
        verdict = "PASS" if fast < target else "MISS"
        print(f"  target: under {target:g} s -> {verdict} ({fast:.2f} s)")
    if n == 10**5:
        # Issue #19: within RATIO_TARGET x one roc_auc_score measured in this same run (a ratio
        # holds on a loaded or slower machine where seconds do not).
        verdict = "PASS" if fast / one_auc <= RATIO_TARGET else "MISS"
        print(f"  target: within {RATIO_TARGET}x one AUC -> {verdict} ({fast / one_auc:.0f}x)")


def parse_sizes(text: str) -> list[int]:
    return [int(float(part)) for part in text.split(",") if part.strip()]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", type=parse_sizes, default=[10**5, 10**6])
    parser.add_argument("--resamples", type=int, default=1000)
    parser.add_argument("--check", type=int, default=10, help="resamples checked bit for bit")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--tied", action="store_true", help="scores rounded to 3 decimals")
    args = parser.parse_args(argv)
    print(f"{os.cpu_count()} cores, numpy {np.__version__}")
    for n in args.sizes:
        run(n, args.resamples, args.check, args.tied, args.repeat if n <= 10**5 else 2)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

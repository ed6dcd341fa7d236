"""Benchmark group AUC (GAUC) against pandas groupby + scikit-learn per group, in one run.

Run from the repository root::

    .venv/bin/python -m bench.bench_groups
    .venv/bin/python -m bench.bench_groups --sizes 1e6:5e4,1e7:1e6 --repeat 5

Each size is ROWS:USERS (a bare ROWS means ROWS / 20 users). Every row's user is drawn at random,
about 30% of rows are positive, scores are ``rng.random`` ("untied") or the same rounded to 3
decimals ("tied").

The reference is what users write today: ``df.groupby("user")`` and ``sklearn.metrics.
roc_auc_score`` on every group with both classes, weighted by the group's rows (seed 004's
formula). It takes about a minute per million rows, so it runs on a random subsample of whole
groups (``--ref-groups``, 2,000 by default) and its time is extrapolated linearly to the full
number of groups; our result on that subsample must equal the reference's to 1e-12.

Nothing here asserts anything about time: the targets at the end are printed verdicts. The exit
status is 0 unless a result disagrees with the reference.
"""

from __future__ import annotations

import argparse
import gc
import os
import platform
import statistics
import sys
import time
import tracemalloc
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

if __package__ in (None, ""):
    # Run as a script (python bench/bench_groups.py): make the repository root importable.
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import numpy as np
import pandas as pd
import sklearn
import sklearn.metrics as skm

from metrics._validation import UndefinedMetricWarning, check_binary_inputs
from metrics.groups import _check_groups, _table, group_auc_score

KINDS = ("untied", "tied")
DEFAULT_SIZES = ((10**6, 5 * 10**4), (10**7, 10**6))
ROWS_PER_USER = 20  # users for a bare ROWS size
POSITIVE_RATE = 0.3
TOLERANCE = 1e-12
MEMORY_MAX_ROWS = 10**6  # peak memory is measured for sizes up to this many rows

SPEEDUP_TARGET = 200.0  # at least this many times faster than the reference
SECONDS_TARGET = 3.0  # ... and 1e7 rows in under this many seconds
SECONDS_TARGET_ROWS = 10**7


@dataclass(frozen=True)
class Case:
    """One data set: labels, scores and user ids of ``n`` rows."""

    n: int
    users: int
    kind: str
    y: np.ndarray
    scores: np.ndarray
    groups: np.ndarray
    weights: np.ndarray


def make_cases(n: int, users: int, seed: int) -> dict[str, Case]:
    """Untied and tied cases sharing labels, users and weights, from one seeded rng."""
    rng = np.random.default_rng(seed)
    y = (rng.random(n) < POSITIVE_RATE).astype(np.int64)
    groups = rng.integers(0, users, size=n)
    untied = rng.random(n)
    tied = np.round(untied, 3)
    weights = rng.random(n)
    return {
        kind: Case(n, users, kind, y, scores, groups, weights)
        for kind, scores in (("untied", untied), ("tied", tied))
    }


# --- the reference -------------------------------------------------------------------------


def reference_gauc(y: np.ndarray, scores: np.ndarray, groups: np.ndarray) -> float:
    """GAUC as users write it today: pandas groupby, scikit-learn per group, impressions."""
    df = pd.DataFrame({"user": groups, "label": y, "score": scores})
    total_auc = 0.0
    impressions = 0
    for _, part in df.groupby("user", sort=False):
        if part["label"].nunique() < 2:  # one class: AUC undefined, user skipped
            continue
        total_auc += skm.roc_auc_score(part["label"], part["score"]) * len(part)
        impressions += len(part)
    return total_auc / impressions


def subsample(case: Case, n_groups: int, seed: int) -> tuple[Case, int]:
    """The rows of ``n_groups`` random whole groups, and the number of groups in the full case."""
    present = np.unique(case.groups)
    chosen = np.random.default_rng(seed).choice(
        present, size=min(n_groups, present.size), replace=False
    )
    keep = np.isin(case.groups, chosen)
    sub = Case(
        int(keep.sum()),
        chosen.size,
        case.kind,
        case.y[keep],
        case.scores[keep],
        case.groups[keep],
        case.weights[keep],
    )
    return sub, present.size


# --- timing --------------------------------------------------------------------------------

Call = Callable[[Case], object]


def _validated_core(case: Case) -> object:
    """Our computation on already-validated arrays: what validation adds is the difference."""
    y, s, w = check_binary_inputs(case.y, case.scores, None, None, default_positive="greater")
    ids = _check_groups(case.groups, y.size)
    start = time.perf_counter()
    _table(y, s, w, ids)
    return time.perf_counter() - start


CALLS: dict[str, Call] = {
    "ours": lambda c: group_auc_score(c.y, c.scores, c.groups),
    "weighted": lambda c: group_auc_score(c.y, c.scores, c.groups, sample_weight=c.weights),
    "argsort": lambda c: np.argsort(c.scores),
}


def median_times(case: Case, repeats: int) -> dict[str, float]:
    """Median seconds per call, the repeats run round-robin so that slow phases hit all alike."""
    samples: dict[str, list[float]] = {name: [] for name in [*CALLS, "core"]}
    for _ in range(repeats):
        for name, call in CALLS.items():
            gc.collect()
            start = time.perf_counter()
            call(case)
            samples[name].append(time.perf_counter() - start)
        gc.collect()
        samples["core"].append(float(_validated_core(case)))
    return {name: statistics.median(times) for name, times in samples.items()}


def peak_extra_bytes(call: Call, case: Case) -> int:
    """Peak memory allocated during ``call(case)``, by tracemalloc (numpy reports to it)."""
    gc.collect()
    tracemalloc.start()
    try:
        base = tracemalloc.get_traced_memory()[0]
        tracemalloc.reset_peak()
        call(case)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    return peak - base


@dataclass(frozen=True)
class Result:
    """One line of the table."""

    case: Case
    times: dict[str, float]
    ref_sub_seconds: float
    ref_groups: int
    ref_rows: int
    n_groups: int
    difference: float
    memory: float | None  # peak extra bytes / (n * 8)

    @property
    def ref_seconds(self) -> float:
        """The reference's time extrapolated linearly from the subsample to every group."""
        return self.ref_sub_seconds * self.n_groups / self.ref_groups

    @property
    def speedup(self) -> float:
        return self.ref_seconds / self.times["ours"]

    @property
    def vs_argsort(self) -> float:
        return self.times["ours"] / self.times["argsort"]


def run_case(case: Case, repeats: int, ref_groups: int, seed: int) -> Result:
    sub, n_groups = subsample(case, ref_groups, seed)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        ours_sub = group_auc_score(sub.y, sub.scores, sub.groups)
    warm, _ = subsample(sub, 20, seed)  # first calls pay for imports and caches: not timed
    reference_gauc(warm.y, warm.scores, warm.groups)
    gc.collect()
    start = time.perf_counter()
    ref_sub = reference_gauc(sub.y, sub.scores, sub.groups)
    ref_sub_seconds = time.perf_counter() - start
    memory = None
    if case.n <= MEMORY_MAX_ROWS:
        memory = peak_extra_bytes(CALLS["ours"], case) / (case.n * 8)
    return Result(
        case=case,
        times=median_times(case, repeats),
        ref_sub_seconds=ref_sub_seconds,
        ref_groups=sub.users,
        ref_rows=sub.n,
        n_groups=n_groups,
        difference=abs(ours_sub - ref_sub),
        memory=memory,
    )


# --- printing ------------------------------------------------------------------------------


def _ms(seconds: float) -> str:
    ms = seconds * 1e3
    return f"{ms:.1f}" if ms < 100 else f"{ms:.0f}"


def print_table(results: Sequence[Result], repeats: int) -> None:
    print(
        f"\nTimes are medians of {repeats} interleaved runs, in ms. 'ref s' is the pandas + "
        "scikit-learn reference, EXTRAPOLATED linearly from one run on a subsample of whole "
        "groups (shown as 'from')."
    )
    header = (
        f"{'rows':>10} {'users':>9} {'kind':<6} {'ours':>7} {'core':>7} {'weighted':>8} "
        f"{'argsort':>7} {'ours/argsort':>12} {'ref s':>8} {'from':>20} {'speed-up':>9} "
        f"{'|diff|':>8} {'mem/8n':>6}"
    )
    print(header)
    print("-" * len(header))
    for r in results:
        t = r.times
        source = f"{r.ref_groups:,} groups {r.ref_sub_seconds:.2f}s"
        memory = "-" if r.memory is None else f"{r.memory:.2f}"
        print(
            f"{r.case.n:>10,} {r.case.users:>9,} {r.case.kind:<6} {_ms(t['ours']):>7} "
            f"{_ms(t['core']):>7} {_ms(t['weighted']):>8} {_ms(t['argsort']):>7} "
            f"{r.vs_argsort:>12.2f} {r.ref_seconds:>8.1f} {source:>20} {r.speedup:>8.0f}x "
            f"{r.difference:>8.1e} {memory:>6}"
        )
    print(
        "\ncore: our computation on already-validated arrays (the rest of 'ours' is input "
        "checking). weighted: with sample_weight. |diff|: |ours - reference| on the subsample. "
        "mem/8n: peak extra memory of one unweighted call (tracemalloc) / (rows * 8 bytes)."
    )


def print_targets(results: Sequence[Result]) -> None:
    print("\nTargets (printed, never asserted)")
    worst = min(results, key=lambda r: r.speedup)
    verdict = "PASS" if worst.speedup >= SPEEDUP_TARGET else "MISS"
    print(
        f"  >= {SPEEDUP_TARGET:g}x faster than the reference: worst {worst.speedup:,.0f}x "
        f"(n={worst.case.n:,}, {worst.case.kind})  {verdict}"
    )
    big = [r for r in results if r.case.n >= SECONDS_TARGET_ROWS]
    if not big:
        print(f"  {SECONDS_TARGET_ROWS:.0e} rows in < {SECONDS_TARGET:g} s: not measured")
        return
    slowest = max(big, key=lambda r: r.times["ours"])
    seconds = slowest.times["ours"]
    verdict = "PASS" if seconds < SECONDS_TARGET else "MISS"
    print(
        f"  {SECONDS_TARGET_ROWS:.0e} rows in < {SECONDS_TARGET:g} s: slowest {seconds:.2f} s "
        f"(n={slowest.case.n:,}, {slowest.case.kind})  {verdict}"
    )


# --- command line --------------------------------------------------------------------------


def parse_sizes(text: str) -> list[tuple[int, int]]:
    sizes = []
    try:
        for part in (p.strip() for p in text.split(",")):
            if not part:
                continue
            rows, _, users = part.partition(":")
            n = int(float(rows))
            sizes.append((n, int(float(users)) if users else max(1, n // ROWS_PER_USER)))
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"sizes must look like 1e6:5e4,1e7:1e6 (ROWS:USERS), got {text!r}"
        ) from None
    if not sizes or any(n < 2 or users < 1 for n, users in sizes):
        raise argparse.ArgumentTypeError(f"sizes need >= 2 rows and >= 1 user, got {text!r}")
    return sizes


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="bench.bench_groups", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument(
        "--sizes",
        type=parse_sizes,
        default=list(DEFAULT_SIZES),
        help="comma-separated ROWS:USERS pairs (default 1e6:5e4,1e7:1e6)",
    )
    parser.add_argument("--repeat", type=int, default=5, help="timed runs per call (median)")
    parser.add_argument(
        "--ref-groups", type=int, default=2000, help="groups in the reference's subsample"
    )
    parser.add_argument("--seed", type=int, default=0)
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    print(
        f"GAUC benchmark: numpy {np.__version__}, pandas {pd.__version__}, scikit-learn "
        f"{sklearn.__version__}, Python {platform.python_version()}, {os.cpu_count()} CPUs"
    )
    results = []
    for n, users in args.sizes:
        for kind, case in make_cases(n, users, args.seed).items():
            print(f"  measuring n={n:,} users={users:,} {kind} ...", flush=True)
            results.append(run_case(case, max(1, args.repeat), args.ref_groups, args.seed))
    print_table(results, max(1, args.repeat))
    print_targets(results)
    bad = [r for r in results if not r.difference <= TOLERANCE]
    for r in bad:
        print(
            f"MISMATCH n={r.case.n:,} {r.case.kind}: ours and the reference differ by "
            f"{r.difference:.3g} on the subsample"
        )
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())

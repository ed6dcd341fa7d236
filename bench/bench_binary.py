"""Benchmark the binary metrics against scikit-learn and the ``np.sort`` floor, in one run.

Run from the repository root::

    .venv/bin/python -m bench.bench_binary
    .venv/bin/python bench/bench_binary.py --sizes 1e5,1e6 --repeat 3

For each size and each kind of scores ("untied": ``rng.random(n)``, "tied": the same rounded to
3 decimals) it first checks that our results equal scikit-learn's, then times both sides and the
sorting floors with the repeats interleaved, and prints the median of each. Nothing here asserts
anything about time: the targets at the end are printed verdicts. The exit status is 0 unless
a result disagrees with scikit-learn.
"""

from __future__ import annotations

import argparse
import gc
import math
import os
import platform
import statistics
import sys
import time
import tracemalloc
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

if __package__ in (None, ""):
    # Run as a script (python bench/bench_binary.py): make the repository root importable.
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import numpy as np
import sklearn
import sklearn.metrics as skm

import metrics

KINDS = ("untied", "tied")
DEFAULT_SIZES = (10**5, 10**6, 10**7)
POSITIVE_RATE = 0.3
AREA_TOLERANCE = 1e-12
MIN_ROWS = 2

# Targets, checked on the unweighted calls over every size and kind measured.
AUC_TARGET = 10.0  # roc_auc_score: at least this many times faster than scikit-learn
CURVES_TARGET = 3.0  # average precision and the curves: at least this many times faster
TIED_SORT_TARGET = 4.0  # tied scores: every one of our calls within this multiple of np.sort
CURVE_FUNCTIONS = ("average_precision_score", "roc_curve", "precision_recall_curve")

FLOOR = "floor"


@dataclass(frozen=True)
class Case:
    """One data set: labels, scores and weights of ``n`` rows."""

    n: int
    kind: str
    y: np.ndarray
    scores: np.ndarray
    weights: np.ndarray


def make_cases(n: int, seed: int) -> dict[str, Case]:
    """Untied and tied cases of ``n`` rows sharing labels and weights, from one seeded rng."""
    rng = np.random.default_rng(seed)
    y = (rng.random(n) < POSITIVE_RATE).astype(np.int64)
    untied = rng.random(n)
    tied = np.round(rng.random(n), 3)
    weights = rng.random(n)
    return {
        "untied": Case(n, "untied", y, untied, weights),
        "tied": Case(n, "tied", y, tied, weights),
    }


Call = Callable[[Case], Any]
Check = Callable[[Any, Any], str | None]


def _same_area(ours: Any, theirs: Any) -> str | None:
    if abs(float(ours) - float(theirs)) <= AREA_TOLERANCE:
        return None
    return f"ours {float(ours)!r} != sklearn {float(theirs)!r} (diff {float(ours) - theirs:.3g})"


def _same_arrays(names: Sequence[str], ours: Sequence[Any], theirs: Sequence[Any]) -> str | None:
    bad = [
        f"{name} (shapes {np.shape(a)} vs {np.shape(b)})"
        for name, a, b in zip(names, ours, theirs, strict=True)
        if not np.array_equal(a, b)
    ]
    return f"arrays differ: {', '.join(bad)}" if bad else None


def _same_curve(names: Sequence[str]) -> Check:
    def check(ours: Any, theirs: Any) -> str | None:
        return _same_arrays(names, ours, theirs)

    return check


def _same_counts(ours: metrics.ThresholdCounts, theirs: Any) -> str | None:
    mine = (ours.n_neg - ours.fps, ours.fps, ours.n_pos - ours.tps, ours.tps, ours.thresholds)
    return _same_arrays(("tns", "fps", "fns", "tps", "thresholds"), mine, theirs)


@dataclass(frozen=True)
class Contender:
    """One of our functions, its scikit-learn counterpart, and how to compare their results."""

    name: str
    ours: Call
    sklearn: Call
    check: Check
    weighted: bool = False


CONTENDERS = (
    Contender(
        "roc_auc_score",
        lambda c: metrics.roc_auc_score(c.y, c.scores),
        lambda c: skm.roc_auc_score(c.y, c.scores),
        _same_area,
    ),
    Contender(
        "roc_auc_score (weighted)",
        lambda c: metrics.roc_auc_score(c.y, c.scores, sample_weight=c.weights),
        lambda c: skm.roc_auc_score(c.y, c.scores, sample_weight=c.weights),
        _same_area,
        weighted=True,
    ),
    Contender(
        "average_precision_score",
        lambda c: metrics.average_precision_score(c.y, c.scores),
        lambda c: skm.average_precision_score(c.y, c.scores),
        _same_area,
    ),
    Contender(
        "roc_curve",
        lambda c: metrics.roc_curve(c.y, c.scores),
        lambda c: skm.roc_curve(c.y, c.scores, drop_intermediate=False),
        _same_curve(("fpr", "tpr", "thresholds")),
    ),
    Contender(
        "precision_recall_curve",
        lambda c: metrics.precision_recall_curve(c.y, c.scores),
        lambda c: skm.precision_recall_curve(c.y, c.scores),
        _same_curve(("precision", "recall", "thresholds")),
    ),
    Contender(
        "threshold_counts",
        lambda c: metrics.threshold_counts(c.y, c.scores),
        lambda c: skm.confusion_matrix_at_thresholds(c.y, c.scores),
        _same_counts,
    ),
)

FLOORS: tuple[tuple[str, Call], ...] = (
    ("np.sort", lambda c: np.sort(c.scores)),
    ("np.argsort", lambda c: np.argsort(c.scores)),
)


def contenders_for(kind: str) -> tuple[Contender, ...]:
    """Every contender; the single weighted row per size goes with the untied scores."""
    return tuple(c for c in CONTENDERS if not c.weighted or kind == "untied")


class ResultMismatchError(Exception):
    """Our result differs from scikit-learn's: the timings would compare different answers."""


def verify(case: Case) -> None:
    """Raise :class:`ResultMismatchError` unless every contender agrees with scikit-learn."""
    for contender in contenders_for(case.kind):
        problem = contender.check(contender.ours(case), contender.sklearn(case))
        if problem is not None:
            raise ResultMismatchError(
                f"{contender.name}, n={case.n:,}, {case.kind} scores: {problem}"
            )


# --- timing --------------------------------------------------------------------------------


def default_repeats(n: int) -> tuple[int, int]:
    """(our and the floors' repeats, scikit-learn's repeats) for ``n`` rows."""
    if n <= 10**5:
        return 7, 7
    if n <= 10**6:
        return 5, 5
    return 3, 2  # scikit-learn takes seconds per call at 1e7


@dataclass(frozen=True)
class Timed:
    """One function to time: its row in the table, which side it is, and how often to run it."""

    row: str
    side: str  # "ours", "sklearn" or FLOOR
    call: Call
    repeats: int


def _seconds(call: Call, case: Case) -> float:
    start = time.perf_counter()
    call(case)
    return time.perf_counter() - start


def median_times(case: Case, jobs: Sequence[Timed]) -> dict[tuple[str, str], float]:
    """Median seconds per (row, side), running the repeats round-robin across all the jobs.

    Interleaving spreads any slow phase of a shared machine over every function alike, so the
    ratios between them stay fair even when the absolute times drift.
    """
    samples: dict[tuple[str, str], list[float]] = {(j.row, j.side): [] for j in jobs}
    for round_ in range(max(j.repeats for j in jobs)):
        for job in jobs:
            if round_ < job.repeats:
                samples[job.row, job.side].append(_seconds(job.call, case))
    return {key: statistics.median(times) for key, times in samples.items()}


def jobs_for(case: Case, repeats: tuple[int, int]) -> list[Timed]:
    ours_repeats, sklearn_repeats = repeats
    jobs = [Timed(name, FLOOR, call, ours_repeats) for name, call in FLOORS]
    for c in contenders_for(case.kind):
        jobs.append(Timed(c.name, "ours", c.ours, ours_repeats))
        jobs.append(Timed(c.name, "sklearn", c.sklearn, sklearn_repeats))
    return jobs


@dataclass(frozen=True)
class Row:
    """One line of a results table."""

    n: int
    kind: str
    name: str
    ours_ms: float
    sklearn_ms: float | None
    sort_ms: float

    @property
    def speedup(self) -> float | None:
        return None if self.sklearn_ms is None else self.sklearn_ms / self.ours_ms

    @property
    def vs_sort(self) -> float:
        return self.ours_ms / self.sort_ms


def measure(case: Case, repeats: tuple[int, int]) -> list[Row]:
    gc.collect()
    medians = median_times(case, jobs_for(case, repeats))
    sort_ms = medians["np.sort", FLOOR] * 1e3
    rows = [
        Row(case.n, case.kind, name, medians[name, FLOOR] * 1e3, None, sort_ms)
        for name, _ in FLOORS
    ]
    rows += [
        Row(
            case.n,
            case.kind,
            c.name,
            medians[c.name, "ours"] * 1e3,
            medians[c.name, "sklearn"] * 1e3,
            sort_ms,
        )
        for c in contenders_for(case.kind)
    ]
    return rows


# --- memory --------------------------------------------------------------------------------


def peak_extra_bytes(call: Call, case: Case) -> int:
    """Peak memory allocated during ``call(case)`` (its result included), by tracemalloc.

    numpy reports its array buffers to tracemalloc, so this sees the temporaries of a call.
    """
    gc.collect()
    tracemalloc.start()
    try:
        base = tracemalloc.get_traced_memory()[0]
        tracemalloc.reset_peak()
        result = call(case)
        peak = tracemalloc.get_traced_memory()[1]
        del result
    finally:
        tracemalloc.stop()
    return peak - base


# --- printing ------------------------------------------------------------------------------

NAME_WIDTH = 26
WHOLE_MS_ABOVE = 100.0  # print times of 100 ms and more without decimals


def _ms(value: float | None) -> str:
    if value is None:
        return "-"
    return f"{value:.2f}" if value < WHOLE_MS_ABOVE else f"{value:.0f}"


def print_table(case: Case, rows: Sequence[Row], repeats: tuple[int, int]) -> None:
    distinct = np.unique(case.scores).size
    print(
        f"\nn = {case.n:,}  {case.kind} scores ({distinct:,} distinct)  "
        f"median of {repeats[0]} runs (sklearn: {repeats[1]})"
    )
    header = (
        f"{'function':<{NAME_WIDTH}} {'ours ms':>10} {'sklearn ms':>11} "
        f"{'speed-up':>9} {'ours/np.sort':>13}"
    )
    print(header)
    print("-" * len(header))
    for row in rows:
        speedup = "-" if row.speedup is None else f"{row.speedup:.1f}x"
        print(
            f"{row.name:<{NAME_WIDTH}} {_ms(row.ours_ms):>10} {_ms(row.sklearn_ms):>11} "
            f"{speedup:>9} {row.vs_sort:>13.2f}"
        )


def _memory_cells(call: Call, cases: dict[str, Case], kinds: Sequence[str]) -> list[str]:
    unit = next(iter(cases.values())).n * 8
    return [f"{peak_extra_bytes(call, cases[k]) / unit:.2f}" if k in kinds else "-" for k in KINDS]


def print_memory(n: int, seed: int) -> None:
    cases = make_cases(n, seed)
    print(f"\nPeak extra memory per call at n = {n:,}, in float64 arrays of n ({n * 8:,} bytes)")
    header = (
        f"{'function':<{NAME_WIDTH}} {'ours untied':>12} {'ours tied':>10} "
        f"{'sklearn untied':>15} {'sklearn tied':>13}"
    )
    print(header)
    print("-" * len(header))
    lines = [(name, _memory_cells(call, cases, KINDS), ["-", "-"]) for name, call in FLOORS]
    for c in CONTENDERS:
        kinds = ("untied",) if c.weighted else KINDS
        lines.append(
            (c.name, _memory_cells(c.ours, cases, kinds), _memory_cells(c.sklearn, cases, kinds))
        )
    for name, ours, theirs in lines:
        print(f"{name:<{NAME_WIDTH}} {ours[0]:>12} {ours[1]:>10} {theirs[0]:>15} {theirs[1]:>13}")


def _where(row: Row) -> str:
    return f"{row.name}, n={row.n:,}, {row.kind}"


def _verdict_line(label: str, worst: float, row: Row, passed: bool) -> str:
    return f"  {label:<34} worst {worst:6.2f}x  ({_where(row)})  {'PASS' if passed else 'MISS'}"


def _speedup(row: Row) -> float:
    """sklearn / ours; infinite for a floor, which has no scikit-learn time."""
    return math.inf if row.speedup is None else row.speedup


def print_summary(rows: Sequence[Row]) -> None:
    compared = [r for r in rows if r.sklearn_ms is not None and "weighted" not in r.name]
    auc = min((r for r in compared if r.name == "roc_auc_score"), key=_speedup)
    curves = min((r for r in compared if r.name in CURVE_FUNCTIONS), key=_speedup)
    tied = max((r for r in compared if r.kind == "tied"), key=lambda r: r.vs_sort)
    print("\nTargets (worst case over every size and kind measured; unweighted calls)")
    label = f"roc_auc_score >= {AUC_TARGET:g}x sklearn"
    print(_verdict_line(label, _speedup(auc), auc, _speedup(auc) >= AUC_TARGET))
    label = f"AP and curves >= {CURVES_TARGET:g}x sklearn"
    print(_verdict_line(label, _speedup(curves), curves, _speedup(curves) >= CURVES_TARGET))
    label = f"tied: all within {TIED_SORT_TARGET:g}x np.sort"
    print(_verdict_line(label, tied.vs_sort, tied, tied.vs_sort <= TIED_SORT_TARGET))


# --- command line --------------------------------------------------------------------------


def parse_sizes(text: str) -> list[int]:
    try:
        sizes = [int(float(part)) for part in text.split(",") if part.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"sizes must look like 1e5,1e6, got {text!r}") from None
    if not sizes or min(sizes) < MIN_ROWS:
        raise argparse.ArgumentTypeError(f"sizes must be at least 2 rows, got {text!r}")
    return sizes


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="bench.bench_binary", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument(
        "--sizes",
        type=parse_sizes,
        default=list(DEFAULT_SIZES),
        help="comma-separated row counts (default: 1e5,1e6,1e7)",
    )
    parser.add_argument(
        "--repeat",
        type=int,
        default=None,
        help="runs per timing, for every function and side (default: 7 at 1e5, 5 at 1e6, "
        "3 above, with 2 for scikit-learn above 1e6)",
    )
    parser.add_argument("--seed", type=int, default=0, help="numpy Generator seed (default: 0)")
    parser.add_argument(
        "--mem-size",
        type=lambda text: int(float(text)),
        default=10**6,
        help="rows for the tracemalloc memory table; 0 skips it (default: 1e6)",
    )
    args = parser.parse_args(argv)
    if args.repeat is not None and args.repeat < 1:
        parser.error("--repeat must be at least 1")
    return args


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    print(
        f"numpy {np.__version__}, scikit-learn {sklearn.__version__}, "
        f"Python {platform.python_version()}, {os.cpu_count()} CPUs, seed {args.seed}"
    )
    print("Times are medians in ms; speed-up = sklearn / ours; ours/np.sort = ours / np.sort.")
    rows: list[Row] = []
    try:
        for n in args.sizes:
            repeats = default_repeats(n) if args.repeat is None else (args.repeat, args.repeat)
            for case in make_cases(n, args.seed).values():
                verify(case)
                table = measure(case, repeats)
                print_table(case, table, repeats)
                rows += table
        if args.mem_size:
            if args.mem_size not in args.sizes:
                for case in make_cases(args.mem_size, args.seed).values():
                    verify(case)
            print_memory(args.mem_size, args.seed)
    except ResultMismatchError as mismatch:
        print(f"\nRESULT MISMATCH, not timing wrong answers: {mismatch}", file=sys.stderr)
        return 1
    print_summary(rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Benchmark DeLong's test and the paired bootstrap against sorting floors, in one run.

Run from the repository root::

    .venv/bin/python -m bench.bench_compare
    .venv/bin/python bench/bench_compare.py --sizes 1e5,1e6 --boot-sizes 1e4

DeLong: for each size and each kind of scores ("untied": continuous, "tied": rounded to 3
decimals) it first checks our result against a naive Sun & Xu implementation built on
``scipy.stats.rankdata`` (when scipy is installed), then times ours, the naive one and the
floors ``np.sort`` / ``np.argsort`` with the repeats interleaved, and prints medians and ratios.

Bootstrap: 1000 resamples of ``roc_auc_score`` for one model, timed once per size, as time per
resample against one ``roc_auc_score`` call (unweighted and weighted) on the same rows.

Nothing asserts on time; the target at the end is a printed PASS or MISS. The exit status is 0
unless a result disagrees with the reference. BLAS runs on one thread (OPENBLAS_NUM_THREADS=1
unless set), which only the naive reference's ``np.cov`` uses.
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
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

# One BLAS thread: np.cov in the naive reference would otherwise leave OpenBLAS threads spinning
# after each call, slowing whichever timing comes next on a machine with few cores.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

if __package__ in (None, ""):
    # Run as a script (python bench/bench_compare.py): make the repository root importable.
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import numpy as np

from metrics.areas import roc_auc_score
from metrics.compare import delong_test, paired_bootstrap, roc_auc_ci

try:
    import scipy
    from scipy.stats import norm, rankdata
except ImportError:  # the naive reference is optional
    scipy = None

KINDS = ("untied", "tied")
DEFAULT_SIZES = (10**5, 10**6, 10**7)
DEFAULT_BOOT_SIZES = (10**4, 10**5)
BOOT_RESAMPLES = 1000
POSITIVE_RATE = 0.3
TARGET_SIZE = 10**6
SORT_TARGET = 10.0  # delong_test within this multiple of one np.sort at TARGET_SIZE
FLOOR = "np.sort"


@dataclass(frozen=True)
class Case:
    n: int
    kind: str
    y: np.ndarray
    a: np.ndarray
    b: np.ndarray


def make_cases(n: int, seed: int) -> dict[str, Case]:
    """Two correlated models' scores, untied and rounded to 3 decimals, sharing labels."""
    rng = np.random.default_rng(seed)
    y = (rng.random(n) < POSITIVE_RATE).astype(np.int64)
    shared = rng.random(n) + 0.3 * y
    a = shared + 0.3 * rng.random(n)
    b = shared + 0.4 * rng.random(n) - 0.1 * y
    return {
        "untied": Case(n, "untied", y, a, b),
        "tied": Case(n, "tied", y, np.round(a, 3), np.round(b, 3)),
    }


def naive_delong(y: np.ndarray, a: np.ndarray, b: np.ndarray) -> tuple[float, ...]:
    """Sun & Xu as usually written, three rankdata calls per model: (auc_a, auc_b, se, z, p)."""
    y = y.astype(bool)
    m, n = int(y.sum()), int((~y).sum())
    aucs, v10, v01 = [], [], []
    for s in (a, b):
        tx, ty, tz = rankdata(s[y]), rankdata(s[~y]), rankdata(s)
        aucs.append((tz[y].sum() - m * (m + 1) / 2) / (m * n))
        v10.append((tz[y] - tx) / n)
        v01.append(1.0 - (tz[~y] - ty) / m)
    cov = np.cov(np.array(v10)) / m + np.cov(np.array(v01)) / n
    se = math.sqrt(cov[0, 0] + cov[1, 1] - 2 * cov[0, 1])
    z = (aucs[0] - aucs[1]) / se
    return aucs[0], aucs[1], se, z, 2 * norm.sf(abs(z))


class ResultMismatchError(Exception):
    """Our result differs from the reference: the timings would compare different answers."""


def verify(case: Case) -> None:
    ours = delong_test(case.y, case.a, case.b)
    if ours.auc_a != roc_auc_score(case.y, case.a) or ours.auc_b != roc_auc_score(case.y, case.b):
        raise ResultMismatchError(f"n={case.n:,} {case.kind}: AUCs differ from roc_auc_score")
    if scipy is None:
        return
    auc_a, auc_b, se, z, p = naive_delong(case.y, case.a, case.b)
    problems = [
        f"{name}: ours {mine!r} vs naive {theirs!r}"
        for name, mine, theirs, tol in (
            ("auc_a", ours.auc_a, auc_a, 1e-12),
            ("auc_b", ours.auc_b, auc_b, 1e-12),
            ("std_error", ours.std_error, se, 1e-9 * se),
            ("z", ours.z, z, 1e-9 * abs(z) + 1e-12),
            ("p_value", ours.p_value, p, 1e-8 * p + 1e-300),
        )
        if not abs(mine - theirs) <= tol
    ]
    if problems:
        raise ResultMismatchError(f"n={case.n:,} {case.kind}: " + "; ".join(problems))


# --- timing --------------------------------------------------------------------------------

Call = Callable[[Case], Any]


def contenders() -> list[tuple[str, Call, bool]]:
    """(row name, call, is it one of ours)."""
    rows: list[tuple[str, Call, bool]] = [
        (FLOOR, lambda c: np.sort(c.a), False),
        ("np.argsort", lambda c: np.argsort(c.a), False),
        ("roc_auc_score x2", lambda c: (roc_auc_score(c.y, c.a), roc_auc_score(c.y, c.b)), True),
        ("roc_auc_ci", lambda c: roc_auc_ci(c.y, c.a), True),
        ("delong_test", lambda c: delong_test(c.y, c.a, c.b), True),
    ]
    if scipy is not None:
        rows.append(("naive rankdata DeLong", lambda c: naive_delong(c.y, c.a, c.b), False))
    return rows


def default_repeats(n: int) -> tuple[int, int]:
    """(repeats of ours and the floors, repeats of the naive reference) for ``n`` rows."""
    if n <= 10**5:
        return 9, 5
    if n <= 10**6:
        return 7, 3
    return 3, 1


def median_ms(case: Case, repeats: tuple[int, int]) -> dict[str, float]:
    """Median milliseconds per row, the repeats run round-robin so drift hits every row alike."""
    rows = contenders()
    samples: dict[str, list[float]] = {name: [] for name, _, _ in rows}
    for round_ in range(repeats[0]):
        for name, call, _ in rows:
            if name.startswith("naive") and round_ >= repeats[1]:
                continue
            gc.collect()
            start = time.perf_counter()
            call(case)
            samples[name].append(time.perf_counter() - start)
    return {name: statistics.median(times) * 1e3 for name, times in samples.items()}


def _ms(value: float) -> str:
    return f"{value:.2f}" if value < 100 else f"{value:.0f}"


def print_delong_table(case: Case, medians: dict[str, float], repeats: tuple[int, int]) -> None:
    distinct = np.unique(case.a).size
    print(
        f"\nDeLong  n = {case.n:,}  {case.kind} scores ({distinct:,} distinct)  "
        f"median of {repeats[0]} runs (naive: {repeats[1]})"
    )
    header = f"{'function':<24} {'ms':>10} {'/ np.sort':>10} {'naive / this':>13}"
    print(header)
    print("-" * len(header))
    sort_ms = medians[FLOOR]
    naive_ms = medians.get("naive rankdata DeLong")
    for name, ms in medians.items():
        speedup = "-"
        if name == "delong_test" and naive_ms is not None:
            speedup = f"{naive_ms / ms:.1f}x"
        print(f"{name:<24} {_ms(ms):>10} {ms / sort_ms:>10.2f} {speedup:>13}")


# --- bootstrap -----------------------------------------------------------------------------


def bootstrap_rows(n: int, seed: int) -> list[tuple[str, float, float, float]]:
    """(name, ms per resample, / unweighted call, / weighted call) for 1000 resamples."""
    case = make_cases(n, seed)["untied"]
    weights = np.random.default_rng(seed).integers(0, 3, n).astype(np.float64)
    calls = {
        "roc_auc_score": lambda: roc_auc_score(case.y, case.a),
        "roc_auc_score weighted": lambda: roc_auc_score(case.y, case.a, sample_weight=weights),
    }
    samples: dict[str, list[float]] = {name: [] for name in calls}
    for _ in range(21):
        for name, call in calls.items():
            start = time.perf_counter()
            call()
            samples[name].append(time.perf_counter() - start)
    plain = statistics.median(samples["roc_auc_score"]) * 1e3
    weighted = statistics.median(samples["roc_auc_score weighted"]) * 1e3
    rows = [
        ("one roc_auc_score call", plain, 1.0, plain / weighted),
        ("one weighted call", weighted, weighted / plain, 1.0),
    ]
    for resample in ("weights", "rows"):
        gc.collect()
        start = time.perf_counter()
        paired_bootstrap(
            roc_auc_score, case.y, case.a, n_resamples=BOOT_RESAMPLES, resample=resample
        )
        per = (time.perf_counter() - start) * 1e3 / BOOT_RESAMPLES
        rows.append((f"bootstrap, resample={resample!r}", per, per / plain, per / weighted))
    return rows


def print_bootstrap_table(n: int, rows: list[tuple[str, float, float, float]]) -> None:
    print(
        f"\nBootstrap  n = {n:,}  {BOOT_RESAMPLES} resamples of roc_auc_score, one model; "
        "ms per resample (calls: median of 21)"
    )
    header = f"{'what':<34} {'ms':>9} {'/ call':>8} {'/ weighted call':>16}"
    print(header)
    print("-" * len(header))
    for name, ms, per_plain, per_weighted in rows:
        print(f"{name:<34} {ms:>9.3f} {per_plain:>8.2f} {per_weighted:>16.2f}")
    total = rows[2][1] * BOOT_RESAMPLES / 1e3
    print(f"  (resample='weights': {total:.1f} s for all {BOOT_RESAMPLES} resamples)")


# --- command line --------------------------------------------------------------------------


def parse_sizes(text: str) -> list[int]:
    try:
        sizes = [int(float(part)) for part in text.split(",") if part.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"sizes must look like 1e5,1e6, got {text!r}") from None
    if not sizes or min(sizes) < 4:
        raise argparse.ArgumentTypeError(f"sizes must be at least 4 rows, got {text!r}")
    return sizes


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="bench.bench_compare", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument(
        "--sizes",
        type=parse_sizes,
        default=list(DEFAULT_SIZES),
        help="DeLong row counts (default: 1e5,1e6,1e7)",
    )
    parser.add_argument(
        "--boot-sizes",
        type=parse_sizes,
        default=list(DEFAULT_BOOT_SIZES),
        help="bootstrap row counts (default: 1e4,1e5)",
    )
    parser.add_argument("--no-boot", action="store_true", help="skip the bootstrap tables")
    parser.add_argument("--seed", type=int, default=0, help="numpy Generator seed (default: 0)")
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    naive = f"scipy {scipy.__version__}" if scipy is not None else "no scipy: naive row skipped"
    print(
        f"numpy {np.__version__}, {naive}, Python {platform.python_version()}, "
        f"{os.cpu_count()} CPUs, seed {args.seed}"
    )
    print("Times are medians in ms; '/ np.sort' = this / one np.sort of one score array.")
    at_target: list[tuple[str, float]] = []
    try:
        for n in args.sizes:
            repeats = default_repeats(n)
            for case in make_cases(n, args.seed).values():
                verify(case)
                medians = median_ms(case, repeats)
                print_delong_table(case, medians, repeats)
                if n == TARGET_SIZE:
                    at_target.append((case.kind, medians["delong_test"] / medians[FLOOR]))
    except ResultMismatchError as mismatch:
        print(f"\nRESULT MISMATCH, not timing wrong answers: {mismatch}", file=sys.stderr)
        return 1
    if not args.no_boot:
        for n in args.boot_sizes:
            print_bootstrap_table(n, bootstrap_rows(n, args.seed))
    print(f"\nTarget: delong_test within {SORT_TARGET:g}x one np.sort of the same scores")
    for kind, ratio in at_target:
        verdict = "PASS" if ratio <= SORT_TARGET else "MISS"
        print(f"  n={TARGET_SIZE:,} {kind:<7} {ratio:6.2f}x  {verdict}")
    if not at_target:
        print(f"  not measured (n={TARGET_SIZE:,} not among --sizes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())

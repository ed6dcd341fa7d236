"""Per-class threshold counts and threshold search against scikit-learn, measured in one run.

1. Counts (TP/FP at every distinct threshold of every class) of a multi-label table, default
   1,000,000 rows x 20 classes, ~10% positives per class, scores rounded to 3 decimals and
   continuous. Baselines: scikit-learn's ``confusion_matrix_at_thresholds`` once per class (its
   own sort-based sweep), and ``multilabel_confusion_matrix`` called at each threshold (the
   loop a user writes); the loop is timed on a few thresholds and extrapolated to all of them.
2. The per-class threshold search (the F1-maximising threshold of every class, which is also
   the exact macro-F1 optimum) on 100,000 x 20. Baselines: ``precision_recall_curve`` once per
   class with the F1 argmax, and ``precision_recall_fscore_support(average=None)`` called at each
   candidate threshold (timed on a few, extrapolated to every distinct score).

Results are checked equal to scikit-learn's before anything is timed. Targets (on this
machine): counts at 1e6 x 20 under 2 s; the per-class search at 1e5 x 20 under 1 s. The
machine is shared; the load average is printed with the figures. Prints only.

    .venv/bin/python -m bench.bench_classification [--rows 1e6] [--search-rows 1e5] [--classes 20]
"""

from __future__ import annotations

import argparse
import os
import sys
import time
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import sklearn.metrics as skm

from metrics import multiclass_thresholds as mt

LOOP_SAMPLE = 5  # thresholds timed for the extrapolated loop baselines


def timed(fn, repeat: int = 1) -> float:
    """Median wall-clock seconds."""
    return timed_both(fn, repeat)[0]


def timed_both(fn, repeat: int = 1) -> tuple[float, float]:
    """Median wall-clock and process CPU seconds (CPU time is what a busy shared machine
    does not inflate: other processes' load shows in wall time only)."""
    wall, cpu = [], []
    for _ in range(repeat):
        start, start_cpu = time.perf_counter(), time.process_time()
        fn()
        wall.append(time.perf_counter() - start)
        cpu.append(time.process_time() - start_cpu)
    return float(np.median(wall)), float(np.median(cpu))


def table(n: int, c: int, rounded: bool, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    y = rng.random((n, c)) < 0.1
    s = rng.random((n, c)) + 0.3 * y
    return y, (np.round(s, 3) if rounded else s)


def verdict(wall: float, cpu: float, target: float) -> str:
    def word(seconds: float) -> str:
        return "PASS" if seconds < target else "MISS"

    return f"{word(wall)} wall / {word(cpu)} cpu (target < {target:g} s)"


def bench_counts(n: int, c: int) -> None:
    print(f"\n1. Counts at every threshold, every class: {n:,} rows x {c} classes")
    print(
        f"{'scores':<11} {'thresholds':>11} {'ours s':>8} {'cpu s':>6} {'sk sweep s':>11} "
        f"{'ratio':>7} "
        f"{'sk loop s':>11} {'ratio':>9}  verdict"
    )
    for rounded in (True, False):
        y, s = table(n, c, rounded)
        ours = mt.class_threshold_counts(y, s)
        for k in (0, c - 1):  # equal to scikit-learn's sweep
            _, fps, _, tps, thr = skm.confusion_matrix_at_thresholds(y[:, k], s[:, k])
            got = ours.counts(k)
            assert np.array_equal(got.thresholds, thr)
            assert np.array_equal(got.tps, tps)
            assert np.array_equal(got.fps, fps)
        t_ours, c_ours = timed_both(lambda y=y, s=s: mt.class_threshold_counts(y, s), repeat=3)
        t_sweep = timed(
            lambda y=y, s=s: [
                skm.confusion_matrix_at_thresholds(y[:, k], s[:, k]) for k in range(c)
            ]
        )
        # The loop a user writes: one multilabel_confusion_matrix per threshold, for one
        # shared threshold list (every class's distinct scores), timed on a few.
        n_thr = ours.thresholds.size
        sample = ours.thresholds[:: max(1, n_thr // LOOP_SAMPLE)][:LOOP_SAMPLE]
        t_loop = timed(
            lambda y=y, s=s, sample=sample: [
                skm.multilabel_confusion_matrix(y, s >= t) for t in sample
            ]
        )
        t_loop_all = t_loop / sample.size * np.unique(ours.thresholds).size
        print(
            f"{'rounded' if rounded else 'continuous':<11} {n_thr:>11,} {t_ours:8.2f} "
            f"{c_ours:6.2f} {t_sweep:11.2f} {t_sweep / t_ours:6.1f}x {t_loop_all:10.0f}* "
            f"{t_loop_all / t_ours:8.0f}x  {verdict(t_ours, c_ours, 2.0)}"
        )
    print(
        f"* extrapolated from {LOOP_SAMPLE} thresholds to every distinct score "
        "(one multilabel_confusion_matrix call per threshold)."
    )


def sklearn_best_f1(y: np.ndarray, s: np.ndarray) -> np.ndarray:
    """Per class, the highest F1 over its thresholds, from scikit-learn's PR curve."""
    best = np.empty(y.shape[1])
    for k in range(y.shape[1]):
        p, r, _ = skm.precision_recall_curve(y[:, k], s[:, k])
        with np.errstate(invalid="ignore", divide="ignore"):
            f = np.where(p + r > 0, 2 * p * r / (p + r), 0.0)
        best[k] = f.max()
    return best


def bench_search(n: int, c: int) -> None:
    print(f"\n2. Per-class threshold search (best F1 per class = exact macro): {n:,} x {c}")
    print(
        f"{'scores':<11} {'ours s':>8} {'cpu s':>6} {'+shared s':>10} {'micro s':>8} "
        f"{'sk PR s':>8} "
        f"{'ratio':>7} {'sk loop s':>10} {'ratio':>9}  verdict"
    )
    for rounded in (True, False):
        y, s = table(n, c, rounded, seed=1)
        choice = mt.best_class_thresholds(y, s)
        want = sklearn_best_f1(y, s)
        assert np.allclose(choice.per_class, want, rtol=0, atol=1e-12), (choice.per_class, want)
        t_search, c_search = timed_both(
            lambda y=y, s=s: mt.best_class_thresholds(y, s, shared=False), repeat=3
        )
        t_shared = timed(lambda y=y, s=s: mt.best_class_thresholds(y, s), repeat=3)
        t_micro = timed(lambda y=y, s=s: mt.optimise_thresholds(y, s, objective="micro"), repeat=3)
        t_pr = timed(lambda y=y, s=s: sklearn_best_f1(y, s))
        candidates = np.unique(s)
        sample = candidates[:: max(1, candidates.size // LOOP_SAMPLE)][:LOOP_SAMPLE]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            t_loop = timed(
                lambda y=y, s=s, sample=sample: [
                    skm.precision_recall_fscore_support(y, s >= t, average=None) for t in sample
                ]
            )
        t_loop_all = t_loop / sample.size * candidates.size
        print(
            f"{'rounded' if rounded else 'continuous':<11} {t_search:8.2f} {c_search:6.2f} "
            f"{t_shared:10.2f} {t_micro:8.2f} {t_pr:8.2f} {t_pr / t_search:6.1f}x "
            f"{t_loop_all:9.0f}* {t_loop_all / t_search:8.0f}x  "
            f"{verdict(t_search, c_search, 1.0)}"
        )
    print(
        "ours: counts + per-class argmax; +shared: also the best single shared threshold (the "
        "gain's baseline); micro: + coordinate ascent on pooled counts.\n"
        f"* precision_recall_fscore_support at every distinct score, extrapolated from "
        f"{LOOP_SAMPLE}; ratios are against 'ours'."
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=float, default=1e6)
    parser.add_argument("--search-rows", type=float, default=1e5)
    parser.add_argument("--classes", type=int, default=20)
    args = parser.parse_args()
    print(f"load average at start: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    bench_counts(int(args.rows), args.classes)
    bench_search(int(args.search_rows), args.classes)
    print(f"\nload average at end: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()

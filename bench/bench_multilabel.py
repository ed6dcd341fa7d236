"""Multi-label AP and AUC in every averaging mode against scikit-learn, measured in one run.

Default: 1,000,000 rows x 20 labels, ~10% positives per label, scores rounded to 3 decimals.
scikit-learn's "samples" mode loops over rows in Python (minutes at 1e6), so it is timed on a
subsample of rows and extrapolated linearly; the table says so. Results are checked equal to
scikit-learn (on the subsample for "samples") before anything is timed. Prints only.

    .venv/bin/python -m bench.bench_multilabel [--rows 1e6] [--labels 20]
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from functools import partial
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import sklearn.metrics as skm

import metrics

MODES = ("macro", "micro", "weighted", "samples")
SAMPLES_SUBSET = 20_000


def timed(fn, repeat: int = 1) -> float:
    best = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        best.append(time.perf_counter() - start)
    return float(np.median(best))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=float, default=1e6)
    parser.add_argument("--labels", type=int, default=20)
    args = parser.parse_args()
    n, c = int(args.rows), args.labels
    rng = np.random.default_rng(0)
    y = rng.random((n, c)) < 0.1
    s = np.round(rng.random((n, c)) + 0.3 * y, 3)
    print(f"{n:,} rows x {c} labels; times in s (ours: median of 3; scikit-learn: one run)")
    print(f"{'metric':<10} {'average':<9} {'ours':>8} {'sklearn':>10} {'speed-up':>9}")
    worst = np.inf
    warnings.simplefilter("ignore")
    for name, ours, theirs in (
        ("AP", metrics.average_precision_score, skm.average_precision_score),
        ("AUC", metrics.roc_auc_score, skm.roc_auc_score),
    ):
        for mode in MODES:
            if mode == "samples":
                # Rows with one class only are left out by us, NaN / 0 in scikit-learn: compare
                # on rows where both are defined.
                sub = slice(0, SAMPLES_SUBSET)
                ys, ss = y[sub], s[sub]
                keep = ys.any(axis=1) & (~ys).any(axis=1)
                got = ours(ys[keep], ss[keep], average=mode)
                want = theirs(ys[keep], ss[keep], average=mode)
                assert abs(got - want) < 1e-12, (name, mode, got, want)
                t_theirs = timed(partial(theirs, ys, ss, average=mode)) * n / SAMPLES_SUBSET
                label = f"{t_theirs:8.1f}*"
            else:
                got, want = ours(y, s, average=mode), theirs(y, s, average=mode)
                assert abs(got - want) < 1e-12, (name, mode, got, want)
                t_theirs = timed(partial(theirs, y, s, average=mode))
                label = f"{t_theirs:9.2f}"
            t_ours = timed(partial(ours, y, s, average=mode), repeat=3)
            worst = min(worst, t_theirs / t_ours)
            print(f"{name:<10} {mode:<9} {t_ours:8.2f} {label:>10} {t_theirs / t_ours:8.1f}x")
    print(f"* extrapolated from {SAMPLES_SUBSET:,} rows (scikit-learn loops over rows).")
    print(
        f"Target: at least 3x scikit-learn in every mode: worst {worst:.1f}x "
        f"{'PASS' if worst >= 3 else 'MISS'}"
    )


if __name__ == "__main__":
    main()

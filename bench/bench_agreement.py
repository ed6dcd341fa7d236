"""Issue 50 §6: agreement at the sizes an attacker (or a crowd-sourcing export) sends.

Times metrics.agreement against the code it replaced, in the same run:

* ``score_against_annotators``' item bootstrap: the old draw of n item indices per resample
  (kept here as the baseline) against the multinomial counts of each reference's outcomes;
* Cohen's kappa for every pair of annotators: the old loop of ``cohen_kappa_score`` per pair
  against the three einsum products of ``_pair_kappas``.

Prints figures and ratios only; asserts nothing about time.

    .venv/bin/python -m bench.bench_agreement [--items 100000] [--annotators 3]
"""

from __future__ import annotations

import argparse
import resource
import sys
import time
import warnings
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from metrics.agreement import _pair_kappas, score_against_annotators  # noqa: E402
from metrics.classification import cohen_kappa_score  # noqa: E402


def _old_bootstrap(r: np.ndarray, pred: np.ndarray, n_resamples: int, seed: int) -> None:
    """The replaced code's inner loop: every reference on n drawn item indices per resample."""
    rated = ~np.isnan(r)
    correct = np.where(rated, (r == 1) == pred[:, None], 0.0).T
    ok = rated.T.astype(float)
    rng = np.random.default_rng(seed)
    n = r.shape[0]
    block = max(1, 4_000_000 // max(n * correct.shape[0], 1))
    for start in range(0, n_resamples, block):
        stop = min(start + block, n_resamples)
        draws = rng.integers(0, n, size=(stop - start, n))
        correct[:, draws].sum(axis=2)
        ok[:, draws].sum(axis=2)


def _old_kappas(r: np.ndarray) -> None:
    k = r.shape[1]
    for i in range(k):
        for j in range(i + 1, k):
            both = ~np.isnan(r[:, i]) & ~np.isnan(r[:, j])
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                cohen_kappa_score(r[both, i], r[both, j])


def _timed(f, *args) -> float:
    t = time.perf_counter()
    f(*args)
    return time.perf_counter() - t


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--items", type=int, default=100_000)
    p.add_argument("--annotators", type=int, default=3)
    p.add_argument("--resamples", type=int, default=1000)
    p.add_argument("--kappa-items", type=int, default=2_000)
    p.add_argument("--kappa-annotators", type=int, default=60)
    a = p.parse_args()
    rng = np.random.default_rng(0)
    r = rng.integers(0, 2, (a.items, a.annotators)).astype(float)
    r[rng.random(r.shape) < 0.2] = np.nan
    pred = rng.random(a.items) < 0.5
    old = _timed(_old_bootstrap, r, pred, a.resamples, 0)
    new = _timed(lambda: score_against_annotators(r, pred, n_resamples=a.resamples))
    print(
        f"bootstrap, {a.items:,} items x {a.annotators} annotators, {a.resamples} resamples: "
        f"old {old:.2f} s, new {new:.2f} s (whole call), old/new {old / new:.1f}"
    )
    r = rng.integers(0, 2, (a.kappa_items, a.kappa_annotators)).astype(float)
    r[rng.random(r.shape) < 0.2] = np.nan
    old = _timed(_old_kappas, r)
    new = _timed(_pair_kappas, r)
    pairs = a.kappa_annotators * (a.kappa_annotators - 1) // 2
    print(
        f"Cohen's kappa, {pairs:,} pairs on {a.kappa_items:,} items: old {old:.2f} s, "
        f"new {new:.3f} s, old/new {old / new:.0f}"
    )
    print(f"peak RSS {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MB")


if __name__ == "__main__":
    main()

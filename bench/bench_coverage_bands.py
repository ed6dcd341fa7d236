"""Whole-curve coverage of ROC and precision-recall bands, by simulation with known truth.

Run from the repository root::

    .venv/bin/python -m bench.bench_coverage_bands                 # ~15 min on 2 cores
    .venv/bin/python -m bench.bench_coverage_bands --sizes 1000 --reps 200 --json out.json

**The generator.** Binormal scores: negatives ``N(0, 1)``, positives ``N(mu, 1)`` with
``mu = 1`` (AUC 0.76), prevalence 30% or 50%.

**The truth** in closed form: the ROC curve ``TPR(x) = Phi(mu + Phi^-1(x))`` at each FPR
``x`` of the grid (0, 0.01, ..., 1), and the precision at recall ``r`` (0.01, ..., 1)
``pi r / (pi r + (1 - pi) FPR)`` with ``FPR = 1 - Phi(mu + Phi^-1(1 - r))`` and ``pi`` the
prevalence.

**The bands.** :func:`metrics.roc_band` and :func:`metrics.pr_band`, simultaneous (bootstrap
sup-t, Montiel Olea & Plagborg-Møller 2019) and pointwise (percentile), both 95%, from the
same resamples (same seed). A band *covers the whole curve* when the true curve lies inside it
at every grid point (the ROC bounds are monotone, so between grid points too). Also reported:
the mean sup-t critical value (1.96 would be pointwise) and, for PR, the coverage on recall
0.05-0.95 (at the ends one row decides the precision).

**The verdict.** Target for the simultaneous bands at 1,000 rows and more: 92.5-97.5%; the
pointwise band is expected to cover the whole curve far less often. With 400 repetitions a
rate's Monte Carlo standard error is about 1.1 points near 95%. The exit status is 0 whatever
the rates (measurements, not assertions).
"""

from __future__ import annotations

import os

for _name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_name, "1")

import argparse  # noqa: E402
import json  # noqa: E402
import time  # noqa: E402
from concurrent.futures import ProcessPoolExecutor  # noqa: E402
from statistics import NormalDist  # noqa: E402

import numpy as np  # noqa: E402

from metrics.bands import pr_band, roc_band  # noqa: E402

MU = 1.0
ROC_GRID = np.linspace(0.0, 1.0, 101)
PR_GRID = np.linspace(0.01, 1.0, 100)
_N = NormalDist()


def true_roc(grid: np.ndarray, mu: float = MU) -> np.ndarray:
    """``Phi(mu + Phi^-1(x))``; 0 at x = 0 and 1 at x = 1."""
    out = np.empty(grid.size)
    for i, x in enumerate(grid):
        out[i] = 0.0 if x <= 0 else 1.0 if x >= 1 else _N.cdf(mu + _N.inv_cdf(x))
    return out


def true_precision(grid: np.ndarray, prevalence: float, mu: float = MU) -> np.ndarray:
    """Precision at each recall ``r``: the threshold ``t`` where ``1 - Phi(t - mu) = r``."""
    out = np.empty(grid.size)
    for i, r in enumerate(grid):
        fpr = 1.0 if r >= 1 else 1.0 - _N.cdf(mu + _N.inv_cdf(1.0 - r))
        out[i] = prevalence * r / (prevalence * r + (1.0 - prevalence) * fpr)
    return out


def inside(band, truth: np.ndarray, keep: np.ndarray | None = None) -> bool:
    ok = (band.lower - 1e-12 <= truth) & (truth <= band.upper + 1e-12)
    return bool(ok.all() if keep is None else ok[keep].all())


def _cell(args) -> dict:
    kind, n, prevalence, reps, resamples, seed = args
    rng = np.random.default_rng([seed, n, int(prevalence * 100), kind == "roc"])
    grid = ROC_GRID if kind == "roc" else PR_GRID
    truth = true_roc(grid) if kind == "roc" else true_precision(grid, prevalence)
    inner = (grid >= 0.05) & (grid <= 0.95)
    band = roc_band if kind == "roc" else pr_band
    hits = {"simultaneous": 0, "pointwise": 0, "simultaneous_inner": 0, "pointwise_inner": 0}
    ks = []
    started = time.perf_counter()
    for r in range(reps):
        y = rng.random(n) < prevalence
        s = rng.normal(0.0, 1.0, n) + MU * y
        for simultaneous in (True, False):
            b = band(y, s, n_resamples=resamples, seed=[seed, r], simultaneous=simultaneous,
                     grid=grid)  # fmt: skip
            name = "simultaneous" if simultaneous else "pointwise"
            hits[name] += inside(b, truth)
            hits[f"{name}_inner"] += inside(b, truth, inner)
            if simultaneous:
                ks.append(b.critical_value)
    return {
        "curve": kind, "rows": n, "prevalence": prevalence, "reps": reps,
        **{k: v / reps for k, v in hits.items()}, "mean_critical_value": float(np.mean(ks)),
        "seconds": time.perf_counter() - started,
    }  # fmt: skip


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--sizes", default="1000,5000", help="rows, comma list")
    p.add_argument("--prevalences", default="0.3,0.5")
    p.add_argument("--curves", default="roc,pr")
    p.add_argument("--reps", type=int, default=400)
    p.add_argument("--resamples", type=int, default=500)
    p.add_argument("--jobs", type=int, default=min(2, os.cpu_count() or 1))
    p.add_argument("--seed", type=int, default=20261127)
    p.add_argument("--json", help="write the results here")
    args = p.parse_args(argv)
    cells = [
        (kind, int(n), float(prev), args.reps, args.resamples, args.seed)
        for kind in args.curves.split(",")
        for prev in args.prevalences.split(",")
        for n in args.sizes.split(",")
    ]
    with ProcessPoolExecutor(args.jobs) as pool:
        results = list(pool.map(_cell, cells))
    print(f"{'curve':>5} {'rows':>6} {'prev':>5} {'simult.':>8} {'pointwise':>9} "
          f"{'sim 5-95%':>9} {'pw 5-95%':>8} {'k':>5}")  # fmt: skip
    for r in results:
        print(f"{r['curve']:>5} {r['rows']:>6} {r['prevalence']:>5} {r['simultaneous']:>8.3f} "
              f"{r['pointwise']:>9.3f} {r['simultaneous_inner']:>9.3f} "
              f"{r['pointwise_inner']:>8.3f} {r['mean_critical_value']:>5.2f}")  # fmt: skip
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(results, fh, indent=1)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""Whole-curve coverage of ROC and precision-recall bands, by simulation with known truth.

Run from the repository root::

    .venv/bin/python -m bench.bench_coverage_bands                 # ~15 min on 2 cores
    .venv/bin/python -m bench.bench_coverage_bands --sizes 1000 --reps 200 --json out.json
    .venv/bin/python -m bench.bench_coverage_bands --edges --sizes 300,800,3000 --reps 500

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

**The edges** (``--edges``; issue 51 §3): binormal truth with unequal spreads, positives
``N(1.2, 1.4^2)`` and negatives ``N(0, 1)``, 25% positive, so ``TPR(x) = Phi((1.2 +
Phi^-1(x)) / 1.4)``; at 300, 800 and 3,000 rows. Per FPR of the grid, how often the 95%
pointwise ROC band holds the true TPR (the least over FPR 0.01-0.99, and at 0.01 and 0.99),
and how often the simultaneous band holds the whole curve, *before* (the percentile band and
the sup-t band alone) and *after* (both at least the Wilson interval of the TPR over the
positives), from the same resamples. Beside them, the fixed-width Kolmogorov-Smirnov band of
Campbell (1994, Statistics in Medicine 13: 499-508): the empirical ROC curve shifted by the
negatives' KS critical value across and the positives' up and down, each at ``sqrt(0.95)``
(exact ``kstwo`` quantiles), so that both hold at once with probability 0.95; the widths are
the mean upper minus lower over FPR 0.01-0.99.
"""

from __future__ import annotations

import os

for _name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_name, "1")

import argparse  # noqa: E402
import json  # noqa: E402
import math  # noqa: E402
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


EDGE_GRID = np.linspace(0.0, 1.0, 101)
EDGE_INNER = (EDGE_GRID > 0.005) & (EDGE_GRID < 0.995)


def edge_truth(grid: np.ndarray = EDGE_GRID) -> np.ndarray:
    """``Phi((1.2 + Phi^-1(x)) / 1.4)``: positives N(1.2, 1.4^2), negatives N(0, 1)."""
    return np.array(
        [0.0 if x <= 0 else 1.0 if x >= 1 else _N.cdf((1.2 + _N.inv_cdf(x)) / 1.4) for x in grid]
    )


def ks_band(y: np.ndarray, s: np.ndarray, grid: np.ndarray, confidence: float = 0.95):
    """Campbell's (1994) fixed-width band: the empirical ROC ``R`` at ``x -/+ d_neg``, then
    ``-/+ d_pos``, with ``d`` the exact two-sided KS quantiles at ``sqrt(confidence)``."""
    from scipy import stats

    from metrics import roc_curve

    gamma = math.sqrt(confidence)
    d_neg = float(stats.kstwo.ppf(gamma, int((~y).sum())))
    d_pos = float(stats.kstwo.ppf(gamma, int(y.sum())))
    fpr, tpr, _ = roc_curve(y, s)

    def r(u):  # the empirical ROC as a step: the highest TPR with FPR <= u
        i = np.searchsorted(fpr, np.clip(u, 0.0, 1.0), side="right") - 1
        return np.where(u < 0, 0.0, tpr[np.maximum(i, 0)])

    lower = np.maximum(r(grid - d_neg) - d_pos, 0.0)
    upper = np.minimum(np.where(grid + d_neg >= 1, 1.0, r(grid + d_neg)) + d_pos, 1.0)
    return lower, upper


def _edge_cell(args) -> dict:
    """Pointwise and whole-curve coverage at the edges, before and after the Wilson floor."""
    import metrics.bands as bands
    from metrics.bootstrap import fast_paired_bootstrap

    n, reps, resamples, seed = args
    rng = np.random.default_rng([seed, n, 51])
    truth = edge_truth()
    names = ("pointwise_before", "pointwise_after", "simultaneous_before", "simultaneous_after")
    point = {k: np.zeros(EDGE_GRID.size) for k in names}
    whole = dict.fromkeys((*names, "ks"), 0)
    width = {k: [] for k in (*names, "ks")}
    wilson = bands._wilson
    started = time.perf_counter()
    for r in range(reps):
        y = rng.random(n) < 0.25
        s = np.where(y, rng.normal(1.2, 1.4, n), rng.normal(0.0, 1.0, n))
        fb = fast_paired_bootstrap(y, s, n_resamples=resamples, seed=[seed, r],
                                   roc_grid=EDGE_GRID)  # fmt: skip
        curve, reps_ = fb.original.rocs[0][0], fb.roc_curves[0]
        for name in names:
            sim = name.startswith("simultaneous")
            if name.endswith("before"):  # no Wilson floor: NaN bounds leave fmin/fmax as is
                bands._wilson = lambda rate, *_: (rate * np.nan, rate * np.nan)
            try:
                b = bands.band_from_resamples("roc", EDGE_GRID, curve, reps_, simultaneous=sim,
                                              n_positive=float(y.sum()))  # fmt: skip
            finally:
                bands._wilson = wilson
            ok = (b.lower - 1e-12 <= truth) & (truth <= b.upper + 1e-12)
            point[name] += ok
            whole[name] += bool(ok.all())
            width[name].append(float(np.mean((b.upper - b.lower)[EDGE_INNER])))
        low, high = ks_band(y, s, EDGE_GRID)
        whole["ks"] += bool(((low - 1e-12 <= truth) & (truth <= high + 1e-12)).all())
        width["ks"].append(float(np.mean((high - low)[EDGE_INNER])))
    out = {"rows": n, "reps": reps, "seconds": time.perf_counter() - started}
    for name in names:
        rate = point[name][EDGE_INNER] / reps
        out[name] = {
            "least": float(rate.min()),
            "at": float(EDGE_GRID[EDGE_INNER][rate.argmin()]),
            "fpr_0.01": float(point[name][1] / reps),
            "fpr_0.99": float(point[name][-2] / reps),
            "whole": whole[name] / reps,
            "width": float(np.mean(width[name])),
        }
    out["ks"] = {"whole": whole["ks"] / reps, "width": float(np.mean(width["ks"]))}
    return out


def edges_table(results: list[dict]) -> str:
    lines = [
        "| rows | pointwise: least over FPR 0.01-0.99 (before → after) | at FPR 0.01 | "
        "at FPR 0.99 | simultaneous: whole curve (before → after) | mean width: pointwise, "
        "simultaneous, KS (Campbell) | KS: whole curve |",
        "|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in results:
        b, a = r["pointwise_before"], r["pointwise_after"]
        sb, sa = r["simultaneous_before"], r["simultaneous_after"]
        lines.append(
            f"| {r['rows']:,} | {b['least']:.1%} (FPR {b['at']:.2f}) → {a['least']:.1%} "
            f"(FPR {a['at']:.2f}) | {b['fpr_0.01']:.1%} → {a['fpr_0.01']:.1%} | "
            f"{b['fpr_0.99']:.1%} → {a['fpr_0.99']:.1%} | {sb['whole']:.1%} → {sa['whole']:.1%} | "
            f"{b['width']:.3f} → {a['width']:.3f}, {sb['width']:.3f} → {sa['width']:.3f}, "
            f"{r['ks']['width']:.3f} | {r['ks']['whole']:.1%} |"
        )
    return "\n".join(lines)


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
    p.add_argument("--edges", action="store_true",
                   help="the edges of the pointwise ROC band (issue 51 §3) instead")  # fmt: skip
    args = p.parse_args(argv)
    if args.edges:
        sizes = [int(n) for n in args.sizes.split(",")]
        cells = [(n, args.reps, args.resamples, args.seed) for n in sizes]
        with ProcessPoolExecutor(args.jobs) as pool:
            results = list(pool.map(_edge_cell, cells))
        print(edges_table(results))
        print(f"\n{args.reps} data sets per size, {args.resamples} resamples, 95% bands.")
        if args.json:
            with open(args.json, "w") as fh:
                json.dump(results, fh, indent=1)
        return 0
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

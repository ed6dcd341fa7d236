"""Coverage of the calibration error interval, by simulation with known truth.

Run from the repository root::

    .venv/bin/python -m bench.bench_coverage_calibration                 # ~10 min on 2 cores
    .venv/bin/python -m bench.bench_coverage_calibration --sizes 1000 --reps 200 --json out.json

**The generator.** Scores ``s ~ Beta(2, 3)`` (most mass around 0.3, few rows near 1, so the
upper bins are small); labels ``y ~ Bernoulli(q(s))`` with ``q(s) = sigmoid(a logit(s))``:
``a = 1`` is perfectly calibrated (the true calibration error is 0), ``a = 0.7`` is
under-confident and ``a = 1.5`` over-confident (Guo et al. 2017's temperature family).
Optionally rows come in users (``--groups``): each user's rows share a shift of the log-odds,
and the interval resamples whole users.

**The truth** is the binned squared calibration error of the population with the same 10
uniform bins, ``sum_b P(b) (E[s | b] - E[q(s) | b])^2``, by numerical integration over the
Beta density (scipy's ``quad``): the quantity :func:`metrics.calibration_error_interval`
estimates. For ``a = 1`` it is 0 exactly.

**The methods.** :func:`metrics.calibration_error_interval` (the debiased estimate of Kumar,
Liang & Ma 2019 and its interval by test inversion over recentred worlds), and for contrast
the percentile bootstrap interval of the plug-in binned error (what the page showed before):
the same resamples, ``sum_b share_b (rbar_b)^2`` on each.

**Coverage** of an interval ``[low, high]`` is ``low <= truth <= high``, on the scale of the
debiased estimator, whose interval may reach below 0: at ``a = 1`` an interval is counted as a
miss when it lies wholly below 0 (as it does when the estimate is more negative than noise
explains), never counted as a hit by clipping it at 0. Also reported: how often the interval
contains its own estimate (100% by construction for the debiased interval), and the mean
estimate against the truth (bias). Targets at 1,000 rows and more: 92.5-97.5%. With 400
repetitions a coverage's Monte Carlo standard error is about 1.1 points. The exit status is 0
whatever the rates (measurements, not assertions).
"""

from __future__ import annotations

import os

for _name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_name, "1")

import argparse  # noqa: E402
import itertools  # noqa: E402
import json  # noqa: E402
import time  # noqa: E402
from concurrent.futures import ProcessPoolExecutor  # noqa: E402

import numpy as np  # noqa: E402

from metrics.calibration import (  # noqa: E402
    _binned,
    _ce_features,
    calibration_error_interval,
)

N_BINS = 10
SLOPES = (1.0, 0.7, 1.5)
BETA = (2.0, 3.0)


def calibrated_probability(s: np.ndarray, a: float) -> np.ndarray:
    """``sigmoid(a logit(s))``: the true probability of a positive at score ``s``."""
    z = a * (np.log(s) - np.log1p(-s))
    return 1.0 / (1.0 + np.exp(-z))


def true_error(a: float, n_bins: int = N_BINS) -> float:
    """The population's binned squared calibration error, by numerical integration."""
    from scipy import integrate, stats

    dist = stats.beta(*BETA)
    edges = np.linspace(0.0, 1.0, n_bins + 1)
    total = 0.0
    for lo, hi in itertools.pairwise(edges):
        mass = dist.cdf(hi) - dist.cdf(lo)
        if mass <= 0:
            continue
        gap = integrate.quad(
            lambda s: (s - calibrated_probability(np.array([s]), a)[0]) * dist.pdf(s), lo, hi,
            epsabs=1e-13,
        )[0]  # fmt: skip
        total += gap * gap / mass
    return float(total)


def draw(rng: np.random.Generator, n: int, a: float, users: int | None):
    s = rng.beta(*BETA, size=n)
    s = np.clip(s, 1e-9, 1 - 1e-9)
    if users is None:
        return s, rng.random(n) < calibrated_probability(s, a), None
    # A user's rows share a shift of the log-odds; drawn symmetric so that, averaged over
    # users, q(s) stays (to second order) the population's calibration map. The truth here is
    # computed by Monte Carlo on a large sample of the same generator instead.
    g = rng.integers(0, users, n)
    u = rng.normal(0.0, 0.5, users)[g]
    z = a * (np.log(s) - np.log1p(-s)) + u
    return s, rng.random(n) < 1.0 / (1.0 + np.exp(-z)), g


def grouped_truth(a: float, rows: int = 4_000_000, seed: int = 7) -> float:
    rng = np.random.default_rng(seed)
    s, y, _ = draw(rng, rows, a, users=rows // 20)
    b = np.minimum((s * N_BINS).astype(int), N_BINS - 1)
    share = np.bincount(b, minlength=N_BINS) / rows
    # E[y - s | b] by the exact conditional probability would need the user effect integrated
    # out; the sample mean of y - s on 4e6 rows has a standard error near 2e-4 per bin.
    gap = np.bincount(b, y - s, N_BINS) / np.maximum(np.bincount(b, minlength=N_BINS), 1)
    return float(np.sum(share * gap * gap))


def percentile_plugin(y, s, n_resamples: int, seed: int, alpha: float = 0.05):
    """The percentile interval of the plug-in binned squared error, from the same draws."""
    from metrics.compare import _Draws

    b = _binned(y, s, None, N_BINS, "uniform")
    f = _ce_features(y - s, b.weight, b.index, N_BINS)
    c = _Draws(y, seed, "poisson", False).block(n_resamples).astype(float) @ f
    c = c.reshape(n_resamples, N_BINS, 6)
    w, ar = c[..., 0], c[..., 3]
    with np.errstate(invalid="ignore", divide="ignore"):
        reps = np.nansum(np.where(w > 0, (ar / w) ** 2 * w, 0.0), axis=1) / w.sum(axis=1)
    est_f = f.sum(axis=0).reshape(N_BINS, 6)
    used = est_f[:, 0] > 0
    est = float(np.sum((est_f[used, 3] / est_f[used, 0]) ** 2 * est_f[used, 0]) / len(y))
    low, high = np.quantile(reps, [alpha / 2, 1 - alpha / 2])
    return est, float(low), float(high)


def _cell(args) -> dict:
    n, a, reps, resamples, seed, truth, grouped = args
    rng = np.random.default_rng([seed, n, int(a * 100), int(grouped)])
    hits = contains = plug_hits = plug_contains = 0
    estimates = []
    started = time.perf_counter()
    for r in range(reps):
        s, y, g = draw(rng, n, a, users=max(50, n // 20) if grouped else None)
        res = calibration_error_interval(
            y, s, n_bins=N_BINS, n_resamples=resamples, seed=[seed, r], groups=g
        )
        hits += res.low <= truth <= res.high
        contains += res.low <= res.estimate <= res.high
        estimates.append(res.estimate)
        if not grouped:
            est, low, high = percentile_plugin(y, s, resamples, r)
            plug_hits += low <= truth <= high
            plug_contains += low <= est <= high
    out = {
        "rows": n, "slope": a, "grouped": grouped, "truth": truth, "reps": reps,
        "coverage": hits / reps, "contains_estimate": contains / reps,
        "mean_estimate": float(np.mean(estimates)), "seconds": time.perf_counter() - started,
    }  # fmt: skip
    if not grouped:
        out["plugin_percentile_coverage"] = plug_hits / reps
        out["plugin_percentile_contains_estimate"] = plug_contains / reps
    return out


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--sizes", default="1000,5000", help="rows, comma list")
    p.add_argument("--slopes", default=",".join(map(str, SLOPES)), help="a in sigmoid(a logit s)")
    p.add_argument("--reps", type=int, default=400)
    p.add_argument("--resamples", type=int, default=500)
    p.add_argument("--groups", action="store_true", help="also rows clustered in users")
    p.add_argument("--jobs", type=int, default=min(2, os.cpu_count() or 1))
    p.add_argument("--seed", type=int, default=20261127)
    p.add_argument("--json", help="write the results here")
    args = p.parse_args(argv)
    sizes = [int(x) for x in args.sizes.split(",")]
    slopes = [float(x) for x in args.slopes.split(",")]
    cells = []
    for grouped in (False, True) if args.groups else (False,):
        for a in slopes:
            truth = (grouped_truth(a) if grouped else true_error(a)) if a != 1.0 or grouped else 0.0
            cells += [(n, a, args.reps, args.resamples, args.seed, truth, grouped) for n in sizes]
    with ProcessPoolExecutor(args.jobs) as pool:
        results = list(pool.map(_cell, cells))
    print(f"{'rows':>6} {'a':>4} {'users':>5} {'truth':>9} {'mean est':>9} {'coverage':>8} "
          f"{'contains':>8} {'plug-in pct cov':>15} {'contains':>8}")  # fmt: skip
    for r in results:
        extra = f"{'':>15} {'':>8}"
        if "plugin_percentile_coverage" in r:
            cov, inside = r["plugin_percentile_coverage"], r["plugin_percentile_contains_estimate"]
            extra = f"{cov:>15.3f} {inside:>8.3f}"
        print(f"{r['rows']:>6} {r['slope']:>4} {'yes' if r['grouped'] else 'no':>5} "
              f"{r['truth']:>9.6f} {r['mean_estimate']:>9.6f} {r['coverage']:>8.3f} "
              f"{r['contains_estimate']:>8.3f} {extra}")  # fmt: skip
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(results, fh, indent=1)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

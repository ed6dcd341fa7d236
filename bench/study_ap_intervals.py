"""Which 95% interval of Average Precision keeps its coverage at 10% positives? (issue #19, §5)

Run from the repository root::

    .venv/bin/python -m bench.study_ap_intervals                       # 400 reps per cell
    .venv/bin/python -m bench.study_ap_intervals --reps 50 --sizes 5000 --prevalences 0.1

``bench/bench_coverage.py`` found the Poisson percentile interval of AP covering 91.2-92.2% at
10% positives and 5,000-10,000 independent rows (target 92.5-97.5%), and BCa no better. This
study draws the same kind of data (:func:`bench.bench_coverage.simulate`, independent rows) and,
on each data set, computes every candidate interval from the same replicates:

* ``percentile``: the Poisson bootstrap's 2.5% and 97.5% quantiles (the library's default);
* ``basic``: the reverse percentile, ``2 est - q(97.5%)``, ``2 est - q(2.5%)``;
* ``BC``: bias-corrected percentile (Efron's z0 only, quantile levels ``Phi(2 z0 -+ z)``);
* ``BCa``: :func:`metrics.bootstrap.bca_interval` with the exact jackknife
  (:func:`metrics.ap_jackknife`), as ``interval="bca"`` gives it;
* ``logit Wald``: ``expit(logit(est) -+ z sd(logit(reps)))``. (A *percentile* interval on the
  logit scale is the percentile interval itself: quantiles commute with a monotone map.)
* ``Wald boot SE``: ``est -+ z sd(reps)``; ``Wald jack SE``: ``est -+ z se_jack``;
* ``boot-t jack SE`` (studentized): ``est - t* se_jack``, the ``t*`` quantiles of
  ``(rep - est) / se_jack(rep)``, each replicate's own jackknife SE computed on its multinomial
  stratified resample (``--boot-t`` resamples per data set, the slowest method: 10% cells only);
* ``multinomial percentile``: the percentile interval of the stratified multinomial bootstrap
  (``counts="multinomial"``, each class keeps its row count) instead of Poisson, and
  ``multinomial BC`` / ``multinomial basic`` from those replicates.

The same for AUC (its jackknife from :func:`metrics.auc_jackknife`), to see whether a change
made for AP would hurt AUC.

**The truth.** The bench's truth is the *population* value (a 2e6-row sample). Here the
population AP and AUC are exact, by numerical integration of the binormal model (scores of
both classes normal with sd ``sqrt(1 + SHARED_ROW_NOISE**2)``, means ``MU`` apart). AP is biased
at finite n, so the script also reports the mean AP estimate over the repetitions (the
expectation at that n, with its Monte Carlo SE) and the coverage of every interval against
that expectation: if an interval covers ``E[AP_n]`` at 95% but the population value less
often, the shortfall is the estimator's bias, which no interval around the estimate removes
without a bias correction.
"""

from __future__ import annotations

import os

for _name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_name, "1")

import argparse  # noqa: E402
import math  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
import warnings  # noqa: E402
from concurrent.futures import ProcessPoolExecutor  # noqa: E402
from pathlib import Path  # noqa: E402
from statistics import NormalDist  # noqa: E402

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import numpy as np  # noqa: E402

from bench.bench_coverage import (  # noqa: E402
    Design,
    population_truth,
    simulate,
    truth,
)
from metrics import (  # noqa: E402
    ap_jackknife,
    average_precision_score,
    fast_paired_bootstrap,
    roc_auc_score,
)
from metrics.bootstrap import auc_jackknife, bca_interval  # noqa: E402

ALPHA = 0.05
Z = NormalDist().inv_cdf(1 - ALPHA / 2)
TARGET = (0.925, 0.975)
SIZES = (1000, 5000, 10000)
PREVALENCES = (0.1, 0.5)
METHODS = (
    "percentile",
    "basic",
    "BC",
    "BCa",
    "logit Wald",
    "Wald boot SE",
    "Wald jack SE",
    "boot-t jack SE",
    "multinomial percentile",
    "multinomial basic",
    "multinomial BC",
)


def _quantiles(values: np.ndarray, levels) -> tuple[float, float]:
    lo, hi = np.quantile(values, levels)
    return float(lo), float(hi)


def _bc_levels(est: float, reps: np.ndarray) -> tuple[float, float] | None:
    below = (np.count_nonzero(reps < est) + 0.5 * np.count_nonzero(reps == est)) / reps.size
    if not 0 < below < 1:
        return None
    nd = NormalDist()
    z0 = nd.inv_cdf(below)
    return nd.cdf(2 * z0 - Z), nd.cdf(2 * z0 + Z)


def _jack_se(jack: np.ndarray) -> float:
    jack = jack[np.isfinite(jack)]
    n = jack.size
    return float(math.sqrt((n - 1) / n * np.sum((jack - jack.mean()) ** 2)))


def _logit(p):
    return np.log(p) - np.log1p(-p)


def _expit(x: float) -> float:
    return 1.0 / (1.0 + math.exp(-x))


def intervals(
    est: float, poisson: np.ndarray, multi: np.ndarray, jack: np.ndarray, t_stats
) -> dict[str, tuple[float, float]]:
    """Every candidate interval from one data set's replicates (finite ones only)."""
    poisson = poisson[np.isfinite(poisson)]
    multi = multi[np.isfinite(multi)]
    q = (ALPHA / 2, 1 - ALPHA / 2)
    out: dict[str, tuple[float, float]] = {}
    lo, hi = _quantiles(poisson, q)
    out["percentile"] = (lo, hi)
    out["basic"] = (2 * est - hi, 2 * est - lo)
    levels = _bc_levels(est, poisson)
    out["BC"] = _quantiles(poisson, levels) if levels else (lo, hi)
    b = bca_interval(est, poisson, jack[np.isfinite(jack)], ALPHA)
    out["BCa"] = (b.ci_low, b.ci_high)
    inside = poisson[(poisson > 0) & (poisson < 1)]
    if 0 < est < 1 and inside.size > 1:
        sd = float(np.std(_logit(inside), ddof=1))
        centre = float(_logit(est))
        out["logit Wald"] = (_expit(centre - Z * sd), _expit(centre + Z * sd))
    sd = float(np.std(poisson, ddof=1))
    out["Wald boot SE"] = (est - Z * sd, est + Z * sd)
    se = _jack_se(jack)
    out["Wald jack SE"] = (est - Z * se, est + Z * se)
    if t_stats is not None:
        t = t_stats[np.isfinite(t_stats)]
        t_lo, t_hi = np.quantile(t, q)
        out["boot-t jack SE"] = (est - float(t_hi) * se, est - float(t_lo) * se)
    lo, hi = _quantiles(multi, q)
    out["multinomial percentile"] = (lo, hi)
    out["multinomial basic"] = (2 * est - hi, 2 * est - lo)
    levels = _bc_levels(est, multi)
    out["multinomial BC"] = _quantiles(multi, levels) if levels else (lo, hi)
    return out


def _boot_t(y: np.ndarray, s: np.ndarray, est: float, b: int, rng) -> np.ndarray:
    """``(AP(rep) - est) / se_jack(rep)`` over ``b`` stratified multinomial resamples."""
    pos, neg = np.flatnonzero(y), np.flatnonzero(~y)
    out = np.empty(b)
    for r in range(b):
        idx = np.concatenate([rng.choice(pos, pos.size), rng.choice(neg, neg.size)])
        yr, sr = y[idx], s[idx]
        ap = average_precision_score(yr, sr, pos_label=True)
        se = _jack_se(ap_jackknife(yr, [sr])[:, 0])
        out[r] = (ap - est) / se if se > 0 else np.nan
    return out


def one(args) -> dict:
    prevalence, n, rep, seed, resamples, boot_t = args
    rng = np.random.default_rng([seed, rep, n, int(prevalence * 1000), 0])
    y, a, _b, _g = simulate(rng, n, Design(prevalence, False))
    y = np.asarray(y, dtype=bool)
    boot_seed = int(rng.integers(2**31))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fp = fast_paired_bootstrap(y, a, n_resamples=resamples, seed=boot_seed)
        fm = fast_paired_bootstrap(
            y, a, n_resamples=resamples, seed=boot_seed, counts="multinomial", stratified=True
        )
        est = {"AP": float(average_precision_score(y, a, pos_label=True))}
        est["AUC"] = float(roc_auc_score(y, a))
        jack = {"AP": ap_jackknife(y, [a])[:, 0], "AUC": auc_jackknife(y, [a])[:, 0]}
        t_stats = None
        if boot_t and prevalence == 0.1:
            t_stats = _boot_t(y, a, est["AP"], boot_t, np.random.default_rng(boot_seed))
    out = {"estimate": est, "intervals": {}}
    for metric, key in (("AP", "average_precision"), ("AUC", "roc_auc")):
        p = fp.results[key].replicates[:, 0]
        m = fm.results[key].replicates[:, 0]
        ts = t_stats if metric == "AP" else None
        out["intervals"][metric] = intervals(est[metric], p, m, jack[metric], ts)
    return out


def _run_chunk(tasks):
    return [one(t) for t in tasks]


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--sizes", default=",".join(map(str, SIZES)))
    p.add_argument("--prevalences", default=",".join(map(str, PREVALENCES)))
    p.add_argument("--reps", type=int, default=400)
    p.add_argument("--resamples", type=int, default=1000)
    p.add_argument("--boot-t", type=int, default=0, help="bootstrap-t resamples (0: skip)")
    p.add_argument("--jobs", type=int, default=2)
    p.add_argument("--seed", type=int, default=20261124)
    p.add_argument(
        "--bench-truth", action="store_true",
        help="also score coverage against bench_coverage.py's truth (one 2e6-row sample)",
    )  # fmt: skip
    a = p.parse_args(argv)
    sizes = [int(float(s)) for s in a.sizes.split(",")]
    prevs = [float(s) for s in a.prevalences.split(",")]
    cells = [(pv, n) for pv in prevs for n in sizes]
    tasks = [(pv, n, r, a.seed, a.resamples, a.boot_t) for pv, n in cells for r in range(a.reps)]
    order = np.random.default_rng(a.seed).permutation(len(tasks))
    chunks = [[tasks[i] for i in order[k : k + 5]] for k in range(0, len(tasks), 5)]
    t0 = time.perf_counter()
    results: dict[tuple, list] = {}
    outputs = (
        ProcessPoolExecutor(a.jobs).map(_run_chunk, chunks)
        if a.jobs > 1
        else map(_run_chunk, chunks)
    )
    done = 0
    for chunk, outs in zip(chunks, outputs, strict=True):
        for t, o in zip(chunk, outs, strict=True):
            results.setdefault((t[0], t[1]), []).append(o)
        done += len(chunk)
        if done % 100 < 5:
            print(f"{done}/{len(tasks)} {time.perf_counter() - t0:.0f} s", file=sys.stderr)
    print(
        f"## AP and AUC 95% intervals, independent rows: {a.reps} data sets per cell, "
        f"{a.resamples} resamples, seed {a.seed}, boot-t {a.boot_t} resamples "
        f"({time.perf_counter() - t0:.0f} s)\n"
    )
    bench_truths = None
    if a.bench_truth:
        # The truth bench_coverage.py uses: one 2e6-row sample, its default seed.
        bench_truths = {pv: truth(Design(pv, False), 0.0, 2_000_000, 20261123) for pv in prevs}
    for metric in ("AP", "AUC"):
        report(metric, cells, results, a.reps, bench_truths)
    return 0


def _cov(rows, metric, method, value):
    hits = []
    for r in rows:
        iv = r["intervals"][metric].get(method)
        if iv is None or not (math.isfinite(iv[0]) and math.isfinite(iv[1])):
            continue
        hits.append(iv[0] <= value <= iv[1])
    if not hits:
        return math.nan, math.nan, 0
    c = float(np.mean(hits))
    return c, math.sqrt(c * (1 - c) / len(hits)), len(hits)


def report(metric: str, cells, results, reps: int, bench_truths=None) -> None:
    truths = {pv: population_truth(pv)[metric] for pv, _ in cells}
    print(f"### {metric}\n")
    print("| prevalence | rows | population truth | mean estimate (E at n) | MC SE | bias / SD |")
    print("|---|---:|---:|---:|---:|---:|")
    expect = {}
    for pv, n in cells:
        est = np.array([r["estimate"][metric] for r in results[(pv, n)]])
        expect[(pv, n)] = float(est.mean())
        se = est.std(ddof=1) / math.sqrt(est.size)
        bias = (est.mean() - truths[pv]) / est.std(ddof=1)
        print(
            f"| {pv:.0%} | {n:,} | {truths[pv]:.5f} | {est.mean():.5f} | {se:.5f} | {bias:+.3f} |"
        )
    population = {(pv, n): truths[pv] for pv, n in cells}
    targets = [
        (f"the exact population {metric}", population),
        (f"the mean estimate at n (E[{metric}_n], Monte Carlo)", expect),
    ]
    if bench_truths:
        bench = {(pv, n): bench_truths[pv][metric] for pv, n in cells}
        shown = ", ".join(f"{pv:.0%}: {t[metric]:.5f}" for pv, t in bench_truths.items())
        targets.append((f"bench_coverage's truth (one 2e6-row sample; {shown})", bench))
    for label, target in targets:
        print(f"\n{metric} coverage of {label}")
        head = " | ".join(f"{pv:.0%}, {n:,}" for pv, n in cells)
        print(f"\n| method | {head} | cells in target |")
        print("|---|" + "---:|" * len(cells) + "---:|")
        methods = [
            m
            for m in METHODS
            if any(m in r["intervals"][metric] for c in cells for r in results[c])
        ]
        for method in methods:
            row, ok = [], 0
            for pv, n in cells:
                value = target[(pv, n)]
                c, se, used = _cov(results[(pv, n)], metric, method, value)
                if not math.isfinite(c):
                    row.append("—")
                    continue
                good = TARGET[0] <= c <= TARGET[1]
                ok += good
                short = "" if used == reps else f" [{used}]"
                row.append(f"{100 * c:.1f} ± {100 * se:.1f}{'' if good else ' ✗'}{short}")
            print(f"| {method} | " + " | ".join(row) + f" | {ok} |")
        print()
    widths = []
    for pv, n in cells:
        rows = results[(pv, n)]
        w = {
            m: np.nanmean(
                [
                    r["intervals"][metric][m][1] - r["intervals"][metric][m][0]
                    for r in rows
                    if m in r["intervals"][metric]
                ]
            )
            for m in ("percentile", "Wald jack SE", "multinomial percentile")
        }
        widths.append(f"{pv:.0%}, {n:,}: " + ", ".join(f"{k} {v:.4f}" for k, v in w.items()))
    print("Mean widths: " + "; ".join(widths) + "\n")


if __name__ == "__main__":
    sys.exit(main())

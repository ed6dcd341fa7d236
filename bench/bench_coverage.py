"""Intervals as claims about repeated experiments: coverage and rejection rates by simulation.

Run from the repository root::

    .venv/bin/python -m bench.bench_coverage                    # ~15 min on 2 cores
    .venv/bin/python -m bench.bench_coverage --sizes 1000 --reps 100 --json out.json
    .venv/bin/python -m bench.bench_coverage --designs clustered --sizes 1000 --jobs 1

A 95% interval claims that, over repeated experiments, it covers the true value 95% of the
time; a test at 5% claims to reject a true null 5% of the time. Here both claims are checked
against data whose truth is known by construction.

**The generator.** Two models score the same rows. Each score is ``mu * y + u + v_model + e0 +
e_model``: ``e0`` is row noise both models share (they agree on hard rows, as real models
do), ``e_model`` each model's own noise. The two models are exchangeable, so their expected
AUC, AP, precision, recall, F1 and GAUC are equal: every "model a vs model b" test has a true
null. Designs:

* *independent*: no users (``u = v = 0``), ``y ~ Bernoulli(prevalence)``;
* *clustered*: rows belong to users (between 50 and 500: ``rows / 20`` clipped), of unequal
  activity (log-normal); each user has an effect ``u`` shared by the label (it shifts the
  log-odds of a positive) and by both models' scores, and per-model user offsets ``v_a``,
  ``v_b`` (how each model mis-ranks that user): rows of one user move together, so a method that
  counts rows as independent units understates its uncertainty.

Prevalence 50% (balanced) or 10% (unbalanced; "about", as the user effect moves it a little).

**The truth** of each single-model quantity (AUC, AP, precision/recall/F1 at the fixed
threshold, GAUC) is its value on one huge sample (``--truth-rows``, 2e6 by default) from the same
generator, with users of the same size distribution. The truth of every difference is 0.

**The methods.** Row level: DeLong (:func:`metrics.roc_auc_ci`, :func:`metrics.delong_test`),
the fast paired bootstrap's percentile intervals and its BCa for AUC and AP
(:func:`metrics.fast_paired_bootstrap`, Poisson counts, ``--resamples`` resamples; AP's BCa
from its exact jackknife, :func:`metrics.ap_jackknife`). Group level, on clustered data:
Obuchowski's clustered AUC (:func:`metrics.clustered_auc_test`) with its normal reference and
with the small-sample t reference (``small_sample=True``), the fast bootstrap resampling whole
users (``groups=``) and the cluster bootstrap of GAUC (:func:`metrics.cluster_bootstrap`), each
with plain percentile intervals ("bootstrap percentile", computed here from the replicates) and
with the library's default few-groups correction ("percentile, small-G corrected":
:class:`metrics.SmallGroups`, a t quantile with G* - 1 degrees of freedom and the G / (G - 1)
factor). A test at 5% rejects when its p-value is below 0.05 (DeLong, Obuchowski) or its 95%
interval of the difference excludes 0 (bootstraps).

**The verdict.** Targets at 1,000 rows and more: coverage 92.5-97.5%, rejection 2.5-7.5%. With
400 repetitions a rate's Monte Carlo standard error is about 1.1 points at 95% and 1.1 at 5%.
Row-level methods on clustered data are expected to miss: that is what the table shows. The exit
status is 0 whatever the rates (they are measurements, not assertions); a non-zero status means
the script itself failed.
"""

from __future__ import annotations

import os

# One BLAS thread per worker process: the workers are the parallelism.
for _name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_name, "1")

import argparse  # noqa: E402
import inspect  # noqa: E402
import json  # noqa: E402
import math  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
import warnings  # noqa: E402
from concurrent.futures import ProcessPoolExecutor  # noqa: E402
from dataclasses import dataclass  # noqa: E402
from pathlib import Path  # noqa: E402
from statistics import NormalDist  # noqa: E402

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import numpy as np  # noqa: E402

from metrics import (  # noqa: E402
    average_precision_score,
    cluster_bootstrap,
    clustered_auc_test,
    confusion_at_threshold,
    delong_test,
    fast_paired_bootstrap,
    group_auc_table,
    roc_auc_ci,
    roc_auc_score,
)

DEFAULT_SIZES = (200, 1000, 5000, 10000)
DEFAULT_REPS = 400
DEFAULT_RESAMPLES = 1000  # with 200, ~5 replicates per 2.5% tail made AP's interval narrow
PREVALENCES = (0.5, 0.1)
ALPHA = 0.05
TARGET_ROWS = 1000  # the targets apply from this many rows up
COVERAGE_TARGET = (0.925, 0.975)
REJECTION_TARGET = (0.025, 0.075)

# The generator's constants (see the module notes).
MU = 1.0  # class separation of the scores
SHARED_ROW_NOISE = 0.6  # sd of e0, the row noise both models share
USER_EFFECT = 1.0  # sd of u: shifts a user's label log-odds and both models' scores
MODEL_USER_OFFSET = 1.0  # sd of v_a, v_b: each model's own mis-ranking of a user
ACTIVITY_SIGMA = 1.0  # log-normal spread of users' activity (rows per user)
ROWS_PER_USER = 20
MIN_USERS, MAX_USERS = 50, 500
THRESHOLD = 1.0  # the fixed threshold of precision, recall and F1 (score >= THRESHOLD)

HAS_GROUPS = "groups" in inspect.signature(fast_paired_bootstrap).parameters


@dataclass(frozen=True)
class Design:
    """What one experiment looks like; the strengths default to the module's constants."""

    prevalence: float
    clustered: bool
    user_effect: float = USER_EFFECT
    model_offset: float = MODEL_USER_OFFSET
    activity_sigma: float = ACTIVITY_SIGMA

    @property
    def name(self) -> str:
        balance = "balanced (50%)" if self.prevalence == 0.5 else f"{self.prevalence:.0%} positive"
        return f"{balance}, {'clustered in users' if self.clustered else 'independent rows'}"


def n_users(n: int) -> int:
    return int(np.clip(n // ROWS_PER_USER, MIN_USERS, MAX_USERS))


def simulate(rng: np.random.Generator, n: int, design: Design, users: int | None = None):
    """One experiment: (y bool, score_a, score_b, user or None); ``users`` defaults to
    :func:`n_users`."""
    logit = math.log(design.prevalence / (1 - design.prevalence))
    if design.clustered:
        users = n_users(n) if users is None else users
        activity = rng.lognormal(0.0, design.activity_sigma, users)
        g = rng.choice(users, size=n, p=activity / activity.sum())
        u = rng.normal(0.0, design.user_effect, users)[g]
        v_a = rng.normal(0.0, design.model_offset, users)[g]
        v_b = rng.normal(0.0, design.model_offset, users)[g]
        y = rng.random(n) < 1.0 / (1.0 + np.exp(-(logit + u)))
    else:
        g = None
        u = v_a = v_b = 0.0
        y = rng.random(n) < design.prevalence
    shared = u + MU * y + rng.normal(0.0, SHARED_ROW_NOISE, n)
    a = shared + v_a + rng.normal(size=n)
    b = shared + v_b + rng.normal(size=n)
    return y, a, b, g


def _threshold_metrics(y: np.ndarray, s: np.ndarray) -> dict[str, float]:
    c = confusion_at_threshold(y, s, THRESHOLD, pos_label=True)
    precision, recall = float(c.precision), float(c.recall)
    f1 = 2 * precision * recall / (precision + recall) if precision + recall > 0 else math.nan
    return {"precision": precision, "recall": recall, "f1": f1}


def population_truth(prevalence: float) -> dict[str, float]:
    """Exact population AUC and AP of one model under the bench's independent-row generator.

    Negatives' scores ~ N(0, s), positives' ~ N(MU, s), s = sqrt(1 + SHARED_ROW_NOISE^2):
    AUC = Phi(MU / (s sqrt 2)); AP = integral of precision(t) dTPR(t), precision =
    pi TPR / (pi TPR + (1 - pi) FPR), on a fine grid of thresholds (trapezoid in TPR).
    """
    s = math.sqrt(1.0 + SHARED_ROW_NOISE**2)
    nd = NormalDist()
    auc = nd.cdf(MU / (s * math.sqrt(2.0)))
    t = np.linspace(MU + 12 * s, -12 * s, 400_001)  # descending thresholds
    erfc = np.vectorize(math.erfc)
    tpr = 0.5 * erfc((t - MU) / (s * math.sqrt(2.0)))
    fpr = 0.5 * erfc(t / (s * math.sqrt(2.0)))
    with np.errstate(invalid="ignore", divide="ignore"):
        prec = prevalence * tpr / (prevalence * tpr + (1 - prevalence) * fpr)
    prec[0] = 1.0 if not np.isfinite(prec[0]) else prec[0]
    ap = float(np.sum(0.5 * (prec[1:] + prec[:-1]) * np.diff(tpr)))
    return {"AUC": float(auc), "AP": ap}


def truth(
    design: Design, rows_per_user: float, rows: int, seed: int, repeats: int = 1
) -> dict[str, float]:
    """Each single-model quantity on a huge sample of ``rows`` rows (the mean of both
    exchangeable models), with ``rows_per_user`` rows per user on average when clustered; with
    ``repeats`` > 1, the mean over that many independent samples (the first is the one
    ``repeats=1`` uses)."""
    if repeats > 1:
        runs = [_truth_sample(design, rows_per_user, rows, seed, r) for r in range(repeats)]
        return {k: float(np.mean([t[k] for t in runs])) for k in runs[0]}
    return _truth_sample(design, rows_per_user, rows, seed, 0)


def _truth_sample(design, rows_per_user: float, rows: int, seed: int, r: int) -> dict[str, float]:
    key = [seed, 7, int(design.prevalence * 1000), design.clustered, int(rows_per_user * 1000)]
    rng = np.random.default_rng(key if r == 0 else [*key, r])
    users = max(1, round(rows / rows_per_user)) if design.clustered else None
    y, a, b, g = simulate(rng, rows, design, users)
    out: dict[str, list[float]] = {}
    for s in (a, b):
        values = {
            "AUC": roc_auc_score(y, s),
            "AP": average_precision_score(y, s, pos_label=True),
            **_threshold_metrics(y, s),
        }
        if g is not None:
            values["GAUC"] = group_auc_table(y, s, g).score("impressions")
        for k, v in values.items():
            out.setdefault(k, []).append(float(v))
    return {k: float(np.mean(v)) for k, v in out.items()}


def rows_per_user(design: Design, n: int) -> float:
    """Rows per user at size ``n`` (the truth depends on it, through within-user pairs and
    GAUC's users with one class); 0 for independent rows."""
    return n / n_users(n) if design.clustered else 0.0


def _covers(low: float, high: float, value: float) -> float:
    if not (math.isfinite(low) and math.isfinite(high)):
        return math.nan
    return float(low <= value <= high)


def _rejects_interval(low: float, high: float) -> float:
    if not (math.isfinite(low) and math.isfinite(high)):
        return math.nan
    return float(low > 0 or high < 0)


def _rejects_p(p: float) -> float:
    return math.nan if not math.isfinite(p) else float(p < ALPHA)


BOOT_METRICS = {"AUC": "roc_auc", "AP": "average_precision", "precision": "precision"}
BOOT_METRICS |= {"recall": "recall", "f1": "f1"}
BCA_METRICS = ("roc_auc", "average_precision")


def _bootstrap_rows(out, fb, truths: dict[str, float], method: str, bca: bool) -> None:
    """Coverage and rejection of every metric of one fast bootstrap (percentile intervals
    computed from the replicates, BCa where the library applied it)."""
    for metric, key in BOOT_METRICS.items():
        result = fb.results[key]
        reps = result.replicates
        col = reps[:, 0]
        col = col[np.isfinite(col)]
        diff = reps[:, 0] - reps[:, 1]
        diff = diff[np.isfinite(diff)]
        if col.size:
            low, high = np.quantile(col, [ALPHA / 2, 1 - ALPHA / 2])
            out[f"{metric}|{method} percentile|coverage"] = _covers(low, high, truths[metric])
        if diff.size:
            low, high = np.quantile(diff, [ALPHA / 2, 1 - ALPHA / 2])
            out[f"{metric}|{method} percentile|rejection"] = _rejects_interval(low, high)
        if bca and key in fb.bca:
            iv = result.models[0]
            out[f"{metric}|{method} BCa|coverage"] = _covers(iv.ci_low, iv.ci_high, truths[metric])
            d = result.differences[(0, 1)]
            out[f"{metric}|{method} BCa|rejection"] = _rejects_interval(d.ci_low, d.ci_high)


def one_experiment(args) -> dict[str, float]:
    design, n, rep, seed, resamples, truths = args
    rng = np.random.default_rng([seed, rep, n, int(design.prevalence * 1000), design.clustered])
    y, a, b, g = simulate(rng, n, design)
    out: dict[str, float] = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # one-class resamples etc.: counted as undefined below
        ci = roc_auc_ci(y, a)
        out["AUC|row: DeLong|coverage"] = _covers(ci.ci_low, ci.ci_high, truths["AUC"])
        out["AUC|row: DeLong|rejection"] = _rejects_p(delong_test(y, a, b).p_value)
        common = {"n_resamples": resamples, "seed": int(rng.integers(2**31))}
        fb = fast_paired_bootstrap(
            y, a, b, thresholds=[THRESHOLD] * 2, interval="bca", bca_metrics=BCA_METRICS,
            **common,
        )  # fmt: skip
        _bootstrap_rows(out, fb, truths, "row:", bca=True)
        if g is not None:
            for label, small in (("", False), (", t (small-G)", True)):
                c = clustered_auc_test(y, a, b, groups=g, small_sample=small)
                key = f"AUC|user: Obuchowski{label}"
                out[f"{key}|coverage"] = _covers(c.ci_low_a, c.ci_high_a, truths["AUC"])
                out[f"{key}|rejection"] = _rejects_p(c.p_value)
            if HAS_GROUPS:
                fg = fast_paired_bootstrap(y, a, b, thresholds=[THRESHOLD] * 2, groups=g, **common)
                # The plain percentile rows come from the replicates, the corrected ones are the
                # library's intervals (its default with groups).
                _bootstrap_rows(out, fg, truths, "user: bootstrap", bca=False)
                _library_rows(out, fg.results, truths, CORRECTED)
            ta, tb = group_auc_table(y, a, g), group_auc_table(y, b, g)
            values = np.column_stack([ta.auc, tb.auc])
            weights = np.column_stack([ta.weights(), tb.weights()])
            cb = cluster_bootstrap(values, weights, **common)
            col, diff = cb.replicates[:, 0], cb.replicates[:, 0] - cb.replicates[:, 1]
            low, high = np.quantile(col[np.isfinite(col)], [ALPHA / 2, 1 - ALPHA / 2])
            key = "GAUC|user: cluster bootstrap"
            out[f"{key}|coverage"] = _covers(low, high, truths["GAUC"])
            low, high = np.quantile(diff[np.isfinite(diff)], [ALPHA / 2, 1 - ALPHA / 2])
            out[f"{key}|rejection"] = _rejects_interval(low, high)
            _library_rows(out, {"GAUC": cb}, truths, CORRECTED)
    return out


CORRECTED = "user: percentile, small-G corrected"


def _library_rows(out, results: dict, truths: dict[str, float], method: str) -> None:
    """Coverage and rejection of the intervals the library returned (model 0, and 0 - 1)."""
    names = {v: k for k, v in BOOT_METRICS.items()} | {"GAUC": "GAUC"}
    for key, result in results.items():
        if key not in names:
            continue
        metric = names[key]
        iv, d = result.models[0], result.differences[(0, 1)]
        out[f"{metric}|{method}|coverage"] = _covers(iv.ci_low, iv.ci_high, truths[metric])
        out[f"{metric}|{method}|rejection"] = _rejects_interval(d.ci_low, d.ci_high)


def _chunks(items: list, size: int) -> list[list]:
    return [items[i : i + size] for i in range(0, len(items), size)]


def _run_chunk(tasks: list) -> list[dict[str, float]]:
    return [one_experiment(t) for t in tasks]


def run(
    sizes, reps, resamples, jobs, seed, truth_rows, prevalences, log, kinds=(False, True),
    truth_repeats=1,
):  # fmt: skip
    designs = [Design(p, c) for c in kinds for p in prevalences]
    truths = {}
    t0 = time.perf_counter()
    cache: dict[tuple, dict[str, float]] = {}
    for d in designs:
        for n in sizes:
            key = (d, rows_per_user(d, n))
            if key not in cache:
                cache[key] = truth(d, key[1], truth_rows, seed, truth_repeats)
                if not d.clustered:  # AUC and AP are known exactly there: no sampling error
                    cache[key].update(population_truth(d.prevalence))
            truths[(d, n)] = cache[key]
    log(
        f"{len(cache)} truths on {truth_repeats} x {truth_rows:,} rows each: "
        f"{time.perf_counter() - t0:.1f} s"
    )
    tasks = [
        (d, n, r, seed, resamples, truths[(d, n)])
        for d in designs
        for n in sizes
        for r in range(reps)
    ]
    # Mixed chunks (big and small experiments interleaved) keep both workers busy to the end.
    order = np.random.default_rng(seed).permutation(len(tasks))
    chunks = _chunks([tasks[i] for i in order], 10)
    results: dict[tuple, list[dict[str, float]]] = {}
    done = 0
    t0 = time.perf_counter()
    if jobs > 1:
        pool = ProcessPoolExecutor(max_workers=jobs)
        outputs = pool.map(_run_chunk, chunks)
    else:
        pool = None
        outputs = map(_run_chunk, chunks)
    try:
        for chunk, out in zip(chunks, outputs, strict=True):
            for (d, n, *_), o in zip(chunk, out, strict=True):
                results.setdefault((d, n), []).append(o)
            done += len(chunk)
            if done % 400 < 10 or done == len(tasks):
                log(f"{done}/{len(tasks)} experiments, {time.perf_counter() - t0:.0f} s")
    finally:
        if pool is not None:
            pool.shutdown()
    table = {}
    for (d, n), rows in results.items():
        keys = sorted({k for r in rows for k in r})
        for k in keys:
            v = np.array([r.get(k, math.nan) for r in rows])
            defined = v[np.isfinite(v)]
            table[(d, n, k)] = (float(defined.mean()) if defined.size else math.nan, defined.size)
    return {
        "designs": designs,
        "sizes": list(sizes),
        "reps": reps,
        "truths": truths,
        "table": table,
        "seconds": time.perf_counter() - t0,
    }


ORDER = ["AUC", "AP", "precision", "recall", "f1", "GAUC"]


def _verdict(kind: str, rate: float, n: int) -> str:
    if n < TARGET_ROWS or not math.isfinite(rate):
        return ""
    low, high = COVERAGE_TARGET if kind == "coverage" else REJECTION_TARGET
    return "" if low <= rate <= high else " ✗"


def markdown(res: dict) -> str:
    sizes, table = res["sizes"], res["table"]
    lines = []
    for d in res["designs"]:
        lines.append(f"\n### {d.name}\n")
        head = " | ".join(f"{n:,} rows" for n in sizes)
        lines.append(f"| metric | method | claim | {head} |")
        lines.append("|---|---|---|" + "---:|" * len(sizes))
        keys = sorted(
            {k for (dd, _, k) in table if dd == d},
            key=lambda k: (ORDER.index(k.split("|")[0]), k.split("|")[2], k.split("|")[1]),
        )
        for k in keys:
            metric, method, kind = k.split("|")
            claim = "95% CI covers truth" if kind == "coverage" else "rejects a true null at 5%"
            cells = []
            for n in sizes:
                rate, used = table.get((d, n, k), (math.nan, 0))
                if not math.isfinite(rate):
                    cells.append("n/a")
                    continue
                short = "" if used == res["reps"] else f" ({used})"
                cells.append(f"{100 * rate:.1f}%{_verdict(kind, rate, n)}{short}")
            lines.append(f"| {metric} | {method} | {claim} | " + " | ".join(cells) + " |")
    lines.append(
        f"\n{res['reps']} experiments per cell; ✗: outside the target (coverage "
        f"{100 * COVERAGE_TARGET[0]}-{100 * COVERAGE_TARGET[1]}%, rejection "
        f"{100 * REJECTION_TARGET[0]}-{100 * REJECTION_TARGET[1]}%) at {TARGET_ROWS:,} rows or "
        "more. A number in brackets: experiments where the interval was defined, when fewer."
    )
    return "\n".join(lines)


def as_json(res: dict) -> dict:
    return {
        "reps": res["reps"],
        "sizes": res["sizes"],
        "seconds": res["seconds"],
        "targets": {"coverage": COVERAGE_TARGET, "rejection": REJECTION_TARGET},
        "from_rows": TARGET_ROWS,
        "group_bootstrap": HAS_GROUPS,
        "truths": [{"design": d.name, "rows": n, **t} for (d, n), t in res["truths"].items()],
        "rates": [
            {
                "design": d.name,
                "rows": n,
                "metric": k.split("|")[0],
                "method": k.split("|")[1],
                "claim": k.split("|")[2],
                "rate": rate,
                "experiments": used,
            }
            for (d, n, k), (rate, used) in res["table"].items()
        ],
    }


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--sizes", default=",".join(map(str, DEFAULT_SIZES)), help="rows, comma list")
    p.add_argument("--reps", type=int, default=DEFAULT_REPS, help="experiments per cell")
    p.add_argument("--resamples", type=int, default=DEFAULT_RESAMPLES, help="bootstrap resamples")
    p.add_argument("--jobs", type=int, default=min(2, os.cpu_count() or 1), help="processes")
    p.add_argument("--seed", type=int, default=20261123)
    p.add_argument("--truth-rows", type=float, default=2e6, help="rows of the truth's sample")
    p.add_argument(
        "--truth-repeats", type=int, default=1,
        help="average the truth over this many samples (AP at 10%% positives moves by about "
        "0.0014 from one 2e6-row sample to the next: a tenth of its standard error at 10,000 rows)",
    )  # fmt: skip
    p.add_argument("--prevalences", default=",".join(map(str, PREVALENCES)))
    p.add_argument(
        "--designs", choices=["all", "independent", "clustered"], default="all",
        help="run only independent rows or only clustered rows",
    )  # fmt: skip
    p.add_argument("--json", metavar="PATH", help="also write the rates as JSON here")
    a = p.parse_args(argv)
    sizes = [int(float(s)) for s in a.sizes.split(",")]
    prevalences = [float(s) for s in a.prevalences.split(",")]

    def log(msg: str) -> None:
        print(msg, file=sys.stderr, flush=True)

    if not HAS_GROUPS:
        log("fast_paired_bootstrap has no groups= here: the user-level bootstrap rows are left out")
    kinds = {"all": (False, True), "independent": (False,), "clustered": (True,)}[a.designs]
    res = run(
        sizes, a.reps, a.resamples, a.jobs, a.seed, int(a.truth_rows), prevalences, log, kinds,
        a.truth_repeats,
    )  # fmt: skip
    print(
        f"## Coverage and rejection: {a.reps} simulated experiments per cell, "
        f"{a.resamples} bootstrap resamples, seed {a.seed}, truths from {a.truth_repeats} x "
        f"{int(a.truth_rows):,} rows ({res['seconds']:.0f} s)"
    )
    print(markdown(res))
    if a.json:
        Path(a.json).write_text(json.dumps(as_json(res), indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())

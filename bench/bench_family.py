"""How often Compare stars a model when the models are equal: before and after the family.

Run from the repository root::

    .venv/bin/python -m bench.bench_family                          # 2,000 per design: long
    .venv/bin/python -m bench.bench_family --reps 200 --designs binary-rows multiclass-rows

Two exchangeable models score the same rows (same signal, a shared row noise and an own noise of
the same size), so every difference Compare tests has a true null and any star is wrong. Per
design (binary, multi-class and multi-label; rows independent, or rows in users of unequal size
with a user effect, every test then resampling whole users), each experiment runs the page's own
comparison once and reads three rules off the same tests:

* **before**: a metric stars a model where its test, Holm-corrected across that metric's pairs
  only, is below 5% (with two models, no correction at all): any metric may star;
* **primary**: the declared primary metric (AUC, macro AUC) alone, the others exploratory;
* **every metric**: Holm across metrics × pairs.

It prints the share of experiments in which anything is starred under each rule, with a 95%
Wilson interval. The target (issue 51): at most 5% after.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
import warnings

import numpy as np

import metrics
from bench.bench_coverage import Design, simulate
from bench.bench_coverage_multiclass import draw
from metrics.families import default_primary, family_best, family_verdicts
from metrics.significance import best_model

DESIGNS = (
    "binary-rows",
    "binary-groups",
    "multiclass-rows",
    "multilabel-rows",
    "multiclass-groups",
    "multilabel-groups",
)
RULES = ("before", "primary", "every metric")


def _multilabel(rng, n: int, classes: int, mu: float, groups: bool):
    """Two exchangeable multi-label models: each class's probability is a logistic of
    ``mu * (2y - 1)`` plus a shared and an own noise; labels correlated through a row effect
    (and a user effect with ``groups``)."""
    g = None
    user = np.zeros((n, 1))
    if groups:
        sizes = rng.lognormal(0, 1, max(20, n // 20))
        g = rng.choice(sizes.size, n, p=sizes / sizes.sum())
        user = rng.normal(0, 1.0, sizes.size)[g][:, None]
    row = rng.normal(0, 0.7, (n, 1))
    y = rng.random((n, classes)) < 1 / (1 + np.exp(-(row + user - 0.4)))
    shared = rng.normal(size=(n, classes)) + 0.5 * user
    scores = {
        m: 1 / (1 + np.exp(-(mu * (2 * y - 1) + shared + rng.normal(size=(n, classes)))))
        for m in "ab"
    }
    return y.astype(int), scores, g


def _binary_tests(rng, rows: int, resamples: int, grouped: bool, seed: int):
    """The binary page's comparison of two exchangeable probability models: (tests,
    values, higher_is_better, names)."""
    from ui.analyses import summaries

    y, a, b, g = simulate(rng, rows, Design(0.3, clustered=grouped))
    scores = {"a": 1 / (1 + np.exp(-(a - 1))), "b": 1 / (1 + np.exp(-(b - 1)))}
    specs = summaries.metric_specs(probabilities=True, groups=g, max_fpr=0.1)
    table, pairs, _ = summaries.model_table(
        y, scores, specs, n_resamples=resamples, seed=seed, cluster=g
    )
    tests = [
        (m, x, z, float(p), float(d))
        for m, x, z, p, d in pairs[["metric", "model A", "model B", "p-value", "A − B"]]
        .itertuples(index=False)
    ]  # fmt: skip
    values = {s.name: table[s.name].to_numpy(dtype=float) for s in specs}
    return tests, values, {s.name: s.higher_is_better for s in specs}, ("a", "b"), {}


def _multi_tests(rng, kind: str, rows: int, resamples: int, grouped: bool, seed: int):
    if kind == "multiclass":
        y, scores, g = draw(rng, rows, 4, 1.2, grouped)
    else:
        y, scores, g = _multilabel(rng, rows, 4, 0.8, grouped)
    r = metrics.compare_multiclass_models(y, scores, groups=g, n_resamples=resamples, seed=seed)
    tests = [(p.metric, p.model_a, p.model_b, p.p_value, p.difference) for p in r.pairs]
    higher = {s.name: s.higher_is_better for s in r.metrics}
    return tests, r.values, higher, r.models, r.family.duplicates


def experiment(design: str, rng, rows: int, resamples: int, seed: int):
    """One comparison of two exchangeable models: (tests, values per metric,
    higher_is_better per metric, model names, duplicates the library found)."""
    kind, how = design.split("-")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if kind == "binary":
            return _binary_tests(rng, rows, resamples, how == "groups", seed)
        return _multi_tests(rng, kind, rows, resamples, how == "groups", seed)


def stars(tests, values, higher, names, duplicates, rule: str, primary: str) -> bool:
    """Whether the page stars any model under ``rule`` (one of :data:`RULES`)."""
    if rule == "before":  # each metric on its own, Holm across its pairs only
        index = {n: i for i, n in enumerate(names)}
        for metric in higher:
            p = {(index[a], index[b]): pv for m, a, b, pv, _ in tests if m == metric}
            found = best_model(names, values[metric], p, higher_is_better=higher[metric])
            if found.best is not None:
                return True
        return False
    family = primary if rule == "primary" else "all"
    result = family_verdicts(tests, family=family, duplicates=duplicates)
    return any(
        family_best(result, m, names, values[m], higher_is_better=higher[m]).best is not None
        for m in higher
    )


def wilson(k: int, n: int, z: float = 1.96) -> tuple[float, float]:
    if n == 0:
        return math.nan, math.nan
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def run(
    design: str, reps: int, rows: int, resamples: int, seed: int, progress: int = 0
) -> dict[str, int]:
    """Counts of experiments with any star under each rule, and the experiments run; with
    ``progress`` the running counts go to stderr every ``progress`` experiments (a run cut
    short still tells how far it got)."""
    rng = np.random.default_rng([seed, DESIGNS.index(design)])
    primary = default_primary(design.split("-")[0])
    counts = dict.fromkeys(RULES, 0)
    for r in range(reps):
        found = experiment(design, rng, rows, resamples, seed=r)
        for rule in RULES:
            counts[rule] += stars(*found, rule, primary)
        if progress and (r + 1) % progress == 0:
            done = ", ".join(f"{rule} {counts[rule]}" for rule in RULES)
            print(f"{design}: {r + 1} experiments, starred: {done}", file=sys.stderr, flush=True)
    counts["n"] = reps
    counts["metrics"] = len(found[2])
    return counts


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--reps", type=int, default=2000)
    parser.add_argument("--rows", type=int, default=300)
    parser.add_argument("--resamples", type=int, default=200)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--progress", type=int, default=0, help="print the running counts every N experiments"
    )
    parser.add_argument("--designs", nargs="+", default=list(DESIGNS), choices=DESIGNS)
    args = parser.parse_args(argv)
    print(
        f"Any-star rate with two exchangeable models: {args.reps} experiments per design, "
        f"{args.rows} rows, {args.resamples} bootstrap resamples, seed {args.seed}"
    )
    print(f"{'design':<18} {'metrics':>7} " + " ".join(f"{r:>24}" for r in RULES) + "  seconds")
    for design in args.designs:
        start = time.perf_counter()
        c = run(design, args.reps, args.rows, args.resamples, args.seed, args.progress)
        cells = []
        for rule in RULES:
            low, high = wilson(c[rule], c["n"])
            cells.append(f"{c[rule] / c['n']:6.1%} [{low:5.1%}, {high:5.1%}]")
        elapsed = time.perf_counter() - start
        print(
            f"{design:<18} {c['metrics']:>7} " + " ".join(f"{x:>24}" for x in cells)
            + f"  {elapsed:7.0f}",
            flush=True,
        )  # fmt: skip
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

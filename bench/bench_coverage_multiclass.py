"""Coverage and rejection rates of :func:`metrics.compare_multiclass_models` by simulation.

Run from the repository root::

    .venv/bin/python -m bench.bench_coverage_multiclass                 # a few minutes
    .venv/bin/python -m bench.bench_coverage_multiclass --reps 400 --rows 1000

Two multi-class models score the same rows: each model's class logits are ``mu * onehot(y) +
e0 + e_model`` (``e0`` shared: the models agree on hard rows), soft-maxed. The models are
exchangeable, so every "A vs B" difference has a true null: its paired bootstrap test at 5%
should reject about 5% of the time (Holm over one pair is the plain test). The truth of each
single-model metric is its value on one huge sample (``--truth-rows``) from the same generator;
a 95% interval should cover it about 95% of the time. ``--groups`` puts the rows in users of
unequal size whose effect shifts both the class and the scores, and resamples whole users.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from metrics.multiclass_compare import compare_multiclass_models

METRICS = ("macro AUC", "micro AUC", "weighted AUC", "macro AP", "log loss", "Brier",
           "accuracy", "macro F1", "micro F1")  # fmt: skip


def _softmax(z: np.ndarray) -> np.ndarray:
    e = np.exp(z - z.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def draw(rng, n: int, classes: int, mu: float, groups: bool):
    g = None
    shift = np.zeros((n, classes))
    if groups:
        sizes = rng.lognormal(0, 1, max(20, n // 20))
        g = rng.choice(sizes.size, n, p=sizes / sizes.sum())
        shift = rng.normal(0, 1.0, (sizes.size, classes))[g]
    y = np.argmax(shift + rng.gumbel(size=(n, classes)), axis=1)
    truth = np.eye(classes)[y]
    shared = rng.normal(size=(n, classes)) + 0.5 * shift
    scores = {m: _softmax(mu * truth + shared + rng.normal(size=(n, classes))) for m in "ab"}
    return y, scores, g


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--reps", type=int, default=200)
    parser.add_argument("--rows", type=int, default=1000)
    parser.add_argument("--classes", type=int, default=4)
    parser.add_argument("--resamples", type=int, default=500)
    parser.add_argument("--truth-rows", type=int, default=400_000)
    parser.add_argument("--groups", action="store_true")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)
    mu = 1.2
    y, scores, _ = draw(rng, args.truth_rows, args.classes, mu, args.groups)
    truth = compare_multiclass_models(y, {"a": scores["a"]}, n_resamples=0).values
    covered = {m: 0 for m in METRICS}
    rejected = {m: 0 for m in METRICS}
    start = time.perf_counter()
    for _ in range(args.reps):
        y, scores, g = draw(rng, args.rows, args.classes, mu, args.groups)
        r = compare_multiclass_models(
            y, scores, groups=g, n_resamples=args.resamples, seed=int(rng.integers(2**31))
        )
        for m in METRICS:
            iv = r.results[m].models[0]
            covered[m] += iv.ci_low <= truth[m][0] <= iv.ci_high
            pair = next(p for p in r.pairs if p.metric == m)
            rejected[m] += pair.holm_p < 0.05
    elapsed = time.perf_counter() - start
    print(
        f"{args.reps} experiments of {args.rows} rows, {args.classes} classes, "
        f"{args.resamples} resamples, {'users resampled' if args.groups else 'rows'}; "
        f"{elapsed:.0f} s"
    )
    print(f"{'metric':<14} {'truth':>8} {'coverage':>9} {'rejects':>8}")
    for m in METRICS:
        print(
            f"{m:<14} {truth[m][0]:8.4f} {covered[m] / args.reps:9.1%} "
            f"{rejected[m] / args.reps:8.1%}"
        )


if __name__ == "__main__":
    main()

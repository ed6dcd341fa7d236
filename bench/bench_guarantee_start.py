"""Where the precision (NPV) guarantee starts its walk: before and after the 30-row floor.

Run from the repository root::

    .venv/bin/python -m bench.bench_guarantee_start               # 1,000 repetitions, ~8 min
    .venv/bin/python -m bench.bench_guarantee_start --reps 200

:func:`metrics.threshold_with_guarantee` walks the thresholds of precision from the highest
down and stops at the first whose Clopper-Pearson bound misses the target; it starts where
the flagged rows are enough for an estimate halfway between the target and 1 to pass. For a
low target that start is a handful of rows (precision 0.4: 11 rows), where the first test needs
an estimate of 0.7: a model whose top rows are about that precise fails it about half the time
and the walk ends with no threshold. "Before" is that rule (``MIN_START = 0``), "after" the
same rule with the walk starting no earlier than 30 rows (``MIN_START = 30``, the library's).

**The designs** (no internet here, so the issue's real datasets are simulated with their shapes):

- *Default-like, bootstrap*: a population of 10,000 rows built to the summary of ISLR's
  ``Default`` (James, Witten, Hastie and Tibshirani, *An Introduction to Statistical
  Learning*): 29.4% students; balance ``max(0, N(771.8, 470))`` for non-students and
  ``max(0, N(987.5, 470))`` for students (about 5% at zero, as in the data); income
  ``N(40,012, 10,000)`` and ``N(17,950, 4,900)``, at least 772; the default drawn once from the
  published logistic fit ``-10.87 + 0.005737 balance + 3.033e-6 income - 0.6468 student``
  with the intercept moved to -10.65 so the default rate is about the data's 3.3% (this seed:
  3.1%, AUC 0.94). The score is that fit's probability (6 decimals). Each test set is a
  bootstrap sample of 3,000 rows (so with tied rows, as the issue's); the truth at a threshold
  is the metric on the 10,000 rows.
- *Pima-like, logistic truth*: each row's linear predictor ``L ~ N(-0.95, 1.75^2)`` and
  ``P(diabetes) = 1 / (1 + exp(-L))``: 34.9% positive and AUC 0.84, the prevalence and
  separation of the logistic model on the Pima Indians data (768 women, 268 with diabetes).
  The score is ``L`` itself; test sets of 768 rows (and 300) are drawn fresh; the truth at a
  threshold comes from integrating over ``L``.

**The verdict.** "No threshold" is counted over the test sets where the plain choice exists
(some threshold's estimate meets the target); misses over all test sets (a miss is a returned
threshold whose true metric is below the target); the recall (NPV: specificity) at the
returned threshold is the true one, its median over the test sets where a threshold was
found, and the same on the sets where both rules found one (paired). The exit status is 0
whatever the rates; non-zero means the script failed.
"""

from __future__ import annotations

import argparse
import time
from dataclasses import dataclass

import numpy as np

import metrics.guarantees as guarantees
from metrics import threshold_with_guarantee

FLOOR = guarantees.MIN_START


def default_population(seed: int = 51) -> tuple[np.ndarray, np.ndarray]:
    """The 10,000-row Default-like population: (defaulted, score)."""
    rng = np.random.default_rng(seed)
    n = 10_000
    student = rng.random(n) < 0.294
    balance = np.maximum(0.0, rng.normal(np.where(student, 987.5, 771.8), 470.0))
    income = np.maximum(
        772.0, rng.normal(np.where(student, 17_950.0, 40_012.0), np.where(student, 4_900, 10_000))
    )
    lp = -10.65 + 0.005737 * balance + 3.033e-6 * income - 0.6468 * student
    p = 1.0 / (1.0 + np.exp(-lp))
    return rng.random(n) < p, np.round(p, 6)


class DefaultLike:
    """Bootstrap test sets from the finite population; the truth is the population's metric."""

    name = "Default-like, bootstrap"

    def __init__(self, rows: int):
        self.rows = rows
        self.y, self.s = default_population()
        order = np.argsort(-self.s, kind="stable")
        self.sorted = self.s[order]
        self.cum = np.concatenate([[0], np.cumsum(self.y[order])])
        self.n, self.pos = self.y.size, int(self.y.sum())

    def sample(self, rng):
        i = rng.integers(0, self.n, self.rows)
        return self.y[i], self.s[i]

    def truth(self, t: float) -> dict:
        m = int(np.searchsorted(-self.sorted, -t, side="right"))  # rows with score >= t
        tp = float(self.cum[m])
        fn = self.pos - tp
        tn = self.n - m - fn
        return {
            "precision": tp / m if m else 1.0,
            "npv": tn / (tn + fn) if tn + fn else 1.0,
            "recall": tp / self.pos,
            "specificity": tn / (self.n - self.pos),
        }


class PimaLike:
    """A logistic truth on a normal linear predictor; the truth by integration over it."""

    name = "Pima-like, logistic truth"
    MU, SD = -0.95, 1.75

    def __init__(self, rows: int):
        self.rows = rows
        x = np.linspace(self.MU - 9 * self.SD, self.MU + 9 * self.SD, 40_001)
        dens = np.exp(-0.5 * ((x - self.MU) / self.SD) ** 2)
        dens /= dens.sum()
        p = 1.0 / (1.0 + np.exp(-x))
        self.x = x
        self.tp = np.append(np.cumsum((dens * p)[::-1])[::-1], 0.0)  # P(y = 1, L >= x)
        self.flag = np.append(np.cumsum(dens[::-1])[::-1], 0.0)  # P(L >= x)
        self.pos = float(self.tp[0])

    def sample(self, rng):
        lp = rng.normal(self.MU, self.SD, self.rows)
        return rng.random(self.rows) < 1.0 / (1.0 + np.exp(-lp)), lp

    def truth(self, t: float) -> dict:
        j = int(np.searchsorted(self.x, t)) if np.isfinite(t) else self.x.size
        tp, flag = float(self.tp[j]), float(self.flag[j])
        fn = self.pos - tp
        tn = 1.0 - flag - fn
        return {
            "precision": tp / flag if flag > 0 else 1.0,
            "npv": tn / (1.0 - flag) if flag < 1 else 1.0,
            "recall": tp / self.pos,
            "specificity": tn / (1.0 - self.pos),
        }


@dataclass(frozen=True)
class Design:
    family: type
    metric: str
    target: float
    rows: int


DESIGNS = [
    Design(DefaultLike, "precision", 0.4, 3000),
    Design(PimaLike, "precision", 0.7, 768),
    Design(PimaLike, "precision", 0.7, 300),
    Design(DefaultLike, "npv", 0.99, 3000),
    Design(PimaLike, "npv", 0.85, 768),
]


def _choose(y, s, design: Design, floor: float):
    guarantees.MIN_START = floor
    try:
        return threshold_with_guarantee(
            y, s, metric=design.metric, target=design.target, confidence=0.95
        )
    finally:
        guarantees.MIN_START = FLOOR


def simulate(design: Design, reps: int, seed: int = 0, floors=(0.0, FLOOR)) -> dict:
    """Per floor: no-threshold rate where the plain choice exists, miss rate, and the true
    recall (specificity for NPV) at each returned threshold (NaN when none)."""
    family = design.family(design.rows)
    rng = np.random.default_rng(seed)
    gain = "recall" if design.metric == "precision" else "specificity"
    plain = np.zeros(reps, bool)
    found = {f: np.zeros(reps, bool) for f in floors}
    miss = {f: np.zeros(reps, bool) for f in floors}
    value = {f: np.full(reps, np.nan) for f in floors}
    first = {f: np.zeros(reps, int) for f in floors}
    for i in range(reps):
        y, s = family.sample(rng)
        for f in floors:
            r = _choose(y, s, design, f)
            plain[i] = r.plain.threshold is not None
            first[f][i] = r.n_tested
            if r.threshold is None:
                continue
            truth = family.truth(r.threshold)
            found[f][i] = True
            miss[f][i] = truth[design.metric] < design.target
            value[f][i] = truth[gain]
    out = {"design": design, "family": family.name, "reps": reps, "plain": plain.mean()}
    both = np.logical_and.reduce([found[f] for f in floors])
    for f in floors:
        n_plain = max(int(plain.sum()), 1)
        out[f] = {
            "none": float((plain & ~found[f]).sum() / n_plain),
            "miss": float(miss[f].mean()),
            "median": float(np.nanmedian(value[f])) if found[f].any() else np.nan,
            "paired": float(np.median(value[f][both])) if both.any() else np.nan,
            "tests": float(np.median(first[f])),
        }
    return out


def table(results: list[dict]) -> str:
    lines = [
        "| design | metric ≥ target | rows | plain exists | no threshold (before → after) | "
        "misses (before → after) | median recall found (before → after) | "
        "same, where both found | median tests (before → after) |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in results:
        d = r["design"]
        b, a = r[0.0], r[FLOOR]
        gain = "" if d.metric == "precision" else " (specificity)"
        lines.append(
            f"| {r['family']} | {d.metric} ≥ {d.target:g} | {d.rows:,} | {r['plain']:.1%} | "
            f"{b['none']:.1%} → {a['none']:.1%} | {b['miss']:.1%} → {a['miss']:.1%} | "
            f"{b['median']:.3f} → {a['median']:.3f}{gain} | "
            f"{b['paired']:.3f} → {a['paired']:.3f} | {b['tests']:.0f} → {a['tests']:.0f} |"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=20261207)
    args = parser.parse_args(argv)
    start = time.perf_counter()
    results = [simulate(d, args.reps, seed=args.seed + i) for i, d in enumerate(DESIGNS)]
    print(table(results))
    print(
        f"\n{args.reps:,} repetitions per row, confidence 0.95; before = the halfway start "
        f"alone, after = not before {FLOOR:g} rows; {time.perf_counter() - start:.0f} s."
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

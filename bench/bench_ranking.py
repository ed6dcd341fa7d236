"""Benchmark the ranking metrics against what users write today, and against one argsort.

Run from the repository root::

    .venv/bin/python -m bench.bench_ranking
    .venv/bin/python bench/bench_ranking.py --rows 1e5 --queries 1e4 --repeat 3

Query-grouped metrics (k = 10): ``--rows`` rows in ``--queries`` queries (about 10 rows each, the
rows of a query scattered through the table), graded relevance 0-3 with ~30% of the rows relevant.
Each function is timed on all the rows, with scores untied (``rng.random``) and tied (the same
rounded to 2 decimals), against:

* the **groupby reference**: ``DataFrame.groupby("query")[["rel", "score"]].apply(f)`` with a
  per-query numpy function ``f`` (sort the query's rows by score, compute the metric), the way
  such metrics are usually written. It is timed on the first ``--ref-queries`` queries only and
  the time is scaled up by ``queries / ref-queries`` (it is linear in the number of queries);
  those times are marked "extrapolated".
* the **floor**: one ``np.argsort`` of all the scores, the least a ranking metric can cost.

Label-matrix metrics: ``label_ranking_average_precision_score`` and ``ndcg_score`` on a
``--matrix-rows`` x ``--labels`` matrix with tied scores, against scikit-learn on the full matrix.

Every result is first checked against its reference (1e-12); on a mismatch the script says which
and exits 1. Nothing about time is asserted: the verdicts at the end are printed, PASS or MISS.
"""

from __future__ import annotations

import argparse
import gc
import os
import platform
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

if __package__ in (None, ""):
    # Run as a script (python bench/bench_ranking.py): make the repository root importable.
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import numpy as np
import pandas as pd
import sklearn
import sklearn.metrics as skm

from metrics import ranking

K = 10
RELEVANT_RATE = 0.3
TOLERANCE = 1e-12
GROUPBY_TARGET = 10.0  # ours at least this many times faster than the groupby reference

# --- data ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Grouped:
    """Query-grouped rows: relevance, untied and tied scores, query ids."""

    rel: np.ndarray
    untied: np.ndarray
    tied: np.ndarray
    query: np.ndarray
    n_queries: int


def make_grouped(n_rows: int, n_queries: int, seed: int) -> Grouped:
    rng = np.random.default_rng(seed)
    query = rng.integers(0, n_queries, size=n_rows)  # ~n_rows / n_queries rows per query
    rel = np.where(rng.random(n_rows) < RELEVANT_RATE, rng.integers(1, 4, size=n_rows), 0)
    untied = rng.random(n_rows) + 0.2 * rel
    return Grouped(rel, untied, np.round(untied, 2), query, np.unique(query).size)


def subsample(data: Grouped, n_queries: int) -> Grouped:
    """The rows of the queries with id < n_queries (ids are uniform, so about that many)."""
    keep = data.query < n_queries
    return Grouped(
        data.rel[keep],
        data.untied[keep],
        data.tied[keep],
        data.query[keep],
        np.unique(data.query[keep]).size,
    )


# --- the groupby reference: a per-query numpy function under pandas' groupby-apply ---------


def _precision(rel: np.ndarray) -> float:
    return np.count_nonzero(rel[:K]) / K


def _recall(rel: np.ndarray) -> float:
    return np.count_nonzero(rel[:K]) / np.count_nonzero(rel)


def _average_precision(rel: np.ndarray) -> float:
    hit = rel[:K] > 0
    ranks = np.flatnonzero(hit) + 1
    return float(np.sum(np.arange(1, ranks.size + 1) / ranks) / np.count_nonzero(rel))


def _ndcg(rel: np.ndarray) -> float:
    discount = 1 / np.log2(np.arange(2, min(K, rel.size) + 2))
    ideal = np.sort(rel)[::-1]
    return float(rel[:K] @ discount / (ideal[:K] @ discount))


def _reciprocal_rank(rel: np.ndarray) -> float:
    return 1 / (np.argmax(rel > 0) + 1)


def _all(rel: np.ndarray) -> tuple[float, ...]:
    return tuple(f(rel) for f in (_precision, _recall, _average_precision, _ndcg, _reciprocal_rank))


def groupby_reference(metric: Callable[[np.ndarray], Any], score: str) -> Callable[[Grouped], Any]:
    def per_query(frame: pd.DataFrame) -> Any:
        rel = frame["rel"].to_numpy()
        if not (rel > 0).any():
            return np.nan  # no relevant row: left out of the mean, as ours does
        order = np.argsort(-frame["score"].to_numpy(), kind="stable")
        return metric(rel[order])

    def run(data: Grouped) -> Any:
        frame = pd.DataFrame({"query": data.query, "rel": data.rel, "score": getattr(data, score)})
        per = frame.groupby("query")[["rel", "score"]].apply(per_query).dropna()
        if metric is _all:
            return tuple(np.mean(np.stack(per.to_numpy()), axis=0))
        return float(per.mean())

    return run


@dataclass(frozen=True)
class GroupedContender:
    name: str
    ours: Callable[[Grouped, str], Any]
    metric: Callable[[np.ndarray], Any]


def _report_means(data: Grouped, score: str) -> tuple[float, ...]:
    report = ranking.ranking_report(data.rel, getattr(data, score), data.query, k=K)
    names = ("precision", "recall", "average_precision", "ndcg", "reciprocal_rank")
    return tuple(report.mean(name) for name in names)


GROUPED = (
    GroupedContender(
        "precision_at_k",
        lambda d, s: ranking.precision_at_k(d.rel, getattr(d, s), d.query, k=K),
        _precision,
    ),
    GroupedContender(
        "recall_at_k",
        lambda d, s: ranking.recall_at_k(d.rel, getattr(d, s), d.query, k=K),
        _recall,
    ),
    GroupedContender(
        "mean_average_precision",
        lambda d, s: ranking.mean_average_precision(d.rel, getattr(d, s), d.query, k=K),
        _average_precision,
    ),
    GroupedContender(
        "ndcg_at_k",
        lambda d, s: ranking.ndcg_at_k(d.rel, getattr(d, s), d.query, k=K),
        _ndcg,
    ),
    GroupedContender(
        "mean_reciprocal_rank",
        lambda d, s: ranking.mean_reciprocal_rank(d.rel, getattr(d, s), d.query),
        _reciprocal_rank,
    ),
    GroupedContender("ranking_report (all five)", _report_means, _all),
)


# --- label matrices ------------------------------------------------------------------------


@dataclass(frozen=True)
class Matrix:
    labels: np.ndarray  # 0/1
    grades: np.ndarray  # 0-3
    scores: np.ndarray  # rounded to 2 decimals: ties


def make_matrix(n_rows: int, n_labels: int, seed: int) -> Matrix:
    rng = np.random.default_rng(seed + 1)
    relevant = rng.random((n_rows, n_labels)) < RELEVANT_RATE
    grades = np.where(relevant, rng.integers(1, 4, size=(n_rows, n_labels)), 0)
    scores = np.round(rng.random((n_rows, n_labels)) + 0.2 * grades, 2)
    return Matrix(relevant.astype(np.int64), grades, scores)


MATRIX = (
    (
        "label_ranking_average_precision",
        lambda m: ranking.label_ranking_average_precision_score(m.labels, m.scores),
        lambda m: skm.label_ranking_average_precision_score(m.labels, m.scores),
    ),
    (
        "ndcg_score",
        lambda m: ranking.ndcg_score(m.grades, m.scores),
        lambda m: skm.ndcg_score(m.grades, m.scores),
    ),
    (
        "ndcg_score (k=10)",
        lambda m: ranking.ndcg_score(m.grades, m.scores, k=K),
        lambda m: skm.ndcg_score(m.grades, m.scores, k=K),
    ),
    (
        "ndcg_score (ignore_ties)",
        lambda m: ranking.ndcg_score(m.grades, m.scores, ignore_ties=True),
        lambda m: skm.ndcg_score(m.grades, m.scores, ignore_ties=True),
    ),
)


# --- checking and timing -------------------------------------------------------------------


class ResultMismatchError(Exception):
    """Our result differs from the reference's: the timings would compare different answers."""


def check(name: str, ours: Any, theirs: Any) -> None:
    a, b = np.atleast_1d(np.asarray(ours, float)), np.atleast_1d(np.asarray(theirs, float))
    if a.shape != b.shape or not np.allclose(a, b, rtol=TOLERANCE, atol=TOLERANCE):
        raise ResultMismatchError(f"{name}: ours {a.tolist()} != reference {b.tolist()}")


def median_seconds(jobs: dict[str, tuple[Callable[[], Any], int]]) -> dict[str, float]:
    """Median seconds per job, the repeats run round-robin so slow spells hit every job alike."""
    samples: dict[str, list[float]] = {name: [] for name in jobs}
    for round_ in range(max(repeats for _, repeats in jobs.values())):
        for name, (call, repeats) in jobs.items():
            if round_ < repeats:
                gc.collect()
                start = time.perf_counter()
                call()
                samples[name].append(time.perf_counter() - start)
    return {name: statistics.median(times) for name, times in samples.items()}


def _ms(seconds: float) -> str:
    ms = seconds * 1e3
    return f"{ms:.1f}" if ms < 100 else f"{ms:.0f}"


@dataclass(frozen=True)
class Verdict:
    name: str
    speedup: float


def bench_grouped(args: argparse.Namespace) -> list[Verdict]:
    data = make_grouped(args.rows, args.queries, args.seed)
    sample = subsample(data, args.ref_queries)
    scale = data.n_queries / sample.n_queries

    for c in GROUPED:  # correctness first, on the subsample
        for score in ("untied", "tied"):
            check(
                f"{c.name} ({score})",
                c.ours(sample, score),
                groupby_reference(c.metric, score)(sample),
            )

    jobs: dict[str, tuple[Callable[[], Any], int]] = {
        "argsort untied": (lambda: np.argsort(data.untied), args.repeat),
        "argsort tied": (lambda: np.argsort(data.tied), args.repeat),
    }
    for c in GROUPED:
        for score in ("untied", "tied"):
            jobs[f"{c.name} {score}"] = (lambda c=c, score=score: c.ours(data, score), args.repeat)
        reference = groupby_reference(c.metric, "untied")
        jobs[f"{c.name} reference"] = (lambda r=reference: r(sample), args.ref_repeat)
    t = median_seconds(jobs)

    print(
        f"\nQuery-grouped metrics, k = {K}: {args.rows:,} rows, {data.n_queries:,} queries, "
        f"{np.count_nonzero(data.rel) / data.rel.size:.0%} relevant rows; "
        f"median of {args.repeat} runs"
    )
    print(
        f"groupby reference: pandas groupby-apply of a per-query numpy function, timed on "
        f"{sample.n_queries:,} queries ({sample.rel.size:,} rows, median of {args.ref_repeat}) "
        f"and extrapolated x{scale:.1f}"
    )
    header = (
        f"{'function':<27} {'ours ms':>8} {'groupby ref ms':>15} {'speed-up':>9} "
        f"{'ours/argsort':>13} {'tied ms':>8} {'tied/argsort':>13}"
    )
    print(header)
    print("-" * len(header))
    floor, floor_tied = t["argsort untied"], t["argsort tied"]
    print(
        f"{'np.argsort(scores) (floor)':<27} {_ms(floor):>8} {'-':>15} {'-':>9} {1:>13.2f} "
        f"{_ms(floor_tied):>8} {1:>13.2f}"
    )
    verdicts = []
    for c in GROUPED:
        ours, tied = t[f"{c.name} untied"], t[f"{c.name} tied"]
        reference = t[f"{c.name} reference"] * scale
        speedup = reference / ours
        verdicts.append(Verdict(c.name, speedup))
        print(
            f"{c.name:<27} {_ms(ours):>8} {_ms(reference) + ' (extrap.)':>15} "
            f"{speedup:>8.0f}x {ours / floor:>13.2f} {_ms(tied):>8} {tied / floor_tied:>13.2f}"
        )
    return verdicts


def bench_matrix(args: argparse.Namespace) -> None:
    m = make_matrix(args.matrix_rows, args.labels, args.seed)
    for name, ours, theirs in MATRIX:
        check(name, ours(m), theirs(m))
    jobs: dict[str, tuple[Callable[[], Any], int]] = {
        "argsort": (lambda: np.argsort(m.scores, axis=1), args.repeat)
    }
    for name, ours, theirs in MATRIX:
        jobs[f"{name} ours"] = (lambda f=ours: f(m), args.repeat)
        jobs[f"{name} sklearn"] = (lambda f=theirs: f(m), args.sklearn_repeat)
    t = median_seconds(jobs)
    print(
        f"\nLabel matrices: {args.matrix_rows:,} x {args.labels}, scores rounded to 2 decimals "
        f"(ties); median of {args.repeat} runs (scikit-learn: {args.sklearn_repeat})"
    )
    header = (
        f"{'function':<33} {'ours ms':>8} {'sklearn ms':>11} {'speed-up':>9} {'ours/argsort':>13}"
    )
    print(header)
    print("-" * len(header))
    floor = t["argsort"]
    print(f"{'np.argsort(scores, axis=1)':<33} {_ms(floor):>8} {'-':>11} {'-':>9} {1:>13.2f}")
    for name, _, _ in MATRIX:
        ours, theirs = t[f"{name} ours"], t[f"{name} sklearn"]
        print(
            f"{name:<33} {_ms(ours):>8} {_ms(theirs):>11} {theirs / ours:>8.1f}x "
            f"{ours / floor:>13.2f}"
        )


def print_verdicts(verdicts: Sequence[Verdict]) -> None:
    print(f"\nTarget: ours at least {GROUPBY_TARGET:g}x faster than the groupby reference (untied)")
    for v in verdicts:
        status = "PASS" if v.speedup >= GROUPBY_TARGET else "MISS"
        print(f"  {v.name:<27} {v.speedup:8.0f}x  {status}")


# --- command line --------------------------------------------------------------------------


def _count(text: str) -> int:
    try:
        value = int(float(text))
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a count such as 1e6, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a positive count, got {text!r}")
    return value


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="bench.bench_ranking", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument("--rows", type=_count, default=10**6, help="rows (default 1e6)")
    parser.add_argument("--queries", type=_count, default=10**5, help="queries (default 1e5)")
    parser.add_argument(
        "--ref-queries",
        type=_count,
        default=5000,
        help="queries the groupby reference is timed on, then extrapolated (default 5000)",
    )
    parser.add_argument("--matrix-rows", type=_count, default=10**5, help="default 1e5")
    parser.add_argument("--labels", type=_count, default=20, help="matrix columns (default 20)")
    parser.add_argument("--repeat", type=_count, default=5, help="runs per timing of ours (5)")
    parser.add_argument("--ref-repeat", type=_count, default=3, help="groupby reference runs (3)")
    parser.add_argument("--sklearn-repeat", type=_count, default=1, help="scikit-learn runs (1)")
    parser.add_argument("--seed", type=int, default=0, help="numpy Generator seed (default 0)")
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    print(
        f"numpy {np.__version__}, pandas {pd.__version__}, scikit-learn {sklearn.__version__}, "
        f"Python {platform.python_version()}, {os.cpu_count()} CPUs (shared: compare ratios)"
    )
    try:
        verdicts = bench_grouped(args)
        bench_matrix(args)
    except ResultMismatchError as exc:
        print(f"\nRESULT MISMATCH: {exc}", file=sys.stderr)
        return 1
    print_verdicts(verdicts)
    return 0


if __name__ == "__main__":
    sys.exit(main())

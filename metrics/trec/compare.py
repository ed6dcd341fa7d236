"""Runs compared as information retrieval compares them: paired over queries, one test per
(measure, pair of runs), the family of tests declared and corrected.

Each run is evaluated once (:func:`metrics.trec.measures.evaluate_per_query`, trec_eval's
per-query values); a pair is compared on the queries both runs were evaluated on, through the
per-query differences ``d = run - baseline``:

* ``"student"``: the paired t-test (``scipy.stats.ttest_rel``'s p), t interval of the mean of d;
* ``"fisher"``: Fisher's randomization test (IR's "permutation test": Smucker, Allan and
  Carterette 2007), every resample flipping the sign of each query's difference at random, all
  resamples and measures of a pair in one matrix product; p = (1 + resamples at least as extreme)
  / (1 + resamples); t interval;
* ``"bootstrap"``: queries resampled with replacement; the percentile interval, and p from the
  resampled means shifted to the null (Efron and Tibshirani's bootstrap test);
* ``"wilcoxon"``: the signed-rank test, zero differences dropped, normal approximation with the
  tie correction (``scipy.stats.wilcoxon(..., method="asymptotic")``); t interval;
* ``"tukey"``: Tukey's HSD over every pair of the runs at once, with the queries as blocks: the
  residual of the two-way ANOVA without interaction (run + query, the randomised block design
  Carterette 2012 and Sakai 2014 use for IR runs) on ``(k - 1)(n - 1)`` degrees of freedom, the
  studentized range of ``k`` means for p, Tukey's simultaneous interval. With two runs it is
  the paired t-test. All runs are compared on the queries every run was evaluated on;
* ``"tukey-oneway"``: the same over the one-way ANOVA's residual on ``k (n - 1)`` degrees of
  freedom, the pairing over queries ignored: what ranx's ``compare(stat_test="tukey")`` computes
  (it calls ``scipy.stats.tukey_hsd`` on the per-query scores), kept to reproduce its tables.
  The query-to-query spread counts as noise, so it finds fewer differences than ``"tukey"``.

A query with the same value in both runs counts as a tie everywhere: a difference of 0.

Every row also says what the pair could see (:mod:`metrics.trec.power`, the paired t-test's
view whatever the test): the effect size ``d_z`` of the differences, the power at that effect and
the smallest difference detected 80% of the time at alpha 0.05 (``effect_size``, ``power``,
``detectable``).

The family. ``correction`` adjusts every p-value of the family together (Holm by default).
Without ``primary`` the family is every measure x every pair; with ``primary`` it is the primary
measure's pairs only (chosen before looking), and the other measures' rows are exploratory:
their ``p_adjusted`` is NaN and ``significant`` is False. The returned table's
``attrs["family"]`` says which, in words. Tukey's p-values already hold the family of a
measure's pairs (``p_value`` is Tukey's adjusted p, as ranx shows it); across the family's
measures ``"holm"`` and ``"bonferroni"`` multiply it by their number (Bonferroni), ``"none"``
leaves it.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np

from metrics._student_t import t_cdf, t_quantile
from metrics._studentized import studentized_range_quantile, studentized_range_sf
from metrics.trec.measures import _prepare_qrels, evaluate_per_query, parse_measures
from metrics.trec.power import paired_power

__all__ = ["CORRECTIONS", "TESTS", "adjust_p_values", "compare_runs", "runs_beaten", "tukey_hsd"]

TESTS = ("student", "fisher", "bootstrap", "wilcoxon", "tukey", "tukey-oneway")
TUKEY = ("tukey", "tukey-oneway")
CORRECTIONS = ("holm", "bonferroni", "none")

# Resamples drawn per block: a block's sign matrix is (block, queries) bytes.
_BLOCK = 1024


def adjust_p_values(p_values: Any, method: str) -> np.ndarray:
    """The family's adjusted p-values, in the input order (NaN stays NaN, not counted).

    The one seam for multiple-comparison adjustment in :mod:`metrics.trec`: a shared family
    module can replace this function's body without touching the tests that call it.
    """
    from metrics.significance import holm_adjust

    p = np.asarray(p_values, dtype=np.float64)
    if method == "holm":
        return holm_adjust(p)
    if method == "bonferroni":
        m = int(np.sum(~np.isnan(p)))
        return np.minimum(1.0, p * m)
    return p.copy()


def _t_interval(d: np.ndarray, confidence: float) -> tuple[float, float, float]:
    """(p of the paired t-test, interval low, high) for the mean of d."""
    n = d.size
    mean = float(d.mean())
    if n < 2:
        return math.nan, math.nan, math.nan
    sd = float(d.std(ddof=1))
    if sd == 0.0:
        p = 1.0 if mean == 0.0 else 0.0
        return p, mean, mean
    se = sd / math.sqrt(n)
    t = mean / se
    p = min(1.0, 2.0 * t_cdf(-abs(t), n - 1))
    half = t_quantile(0.5 + confidence / 2.0, n - 1) * se
    return p, mean - half, mean + half


def _fisher(d: np.ndarray, n_resamples: int, rng: np.random.Generator) -> np.ndarray:
    """p of the sign-flip randomization test for each column of d (queries x measures)."""
    n, m = d.shape
    observed = np.abs(d.sum(axis=0))
    # Compared with a relative slack, so a resample equal to the observed sum up to rounding
    # (the identity flip, all signs equal) counts as "at least as extreme".
    slack = 1e-9 * np.maximum(np.abs(d).sum(axis=0), 1e-300)
    total = d.sum(axis=0)
    extreme = np.zeros(m, np.int64)
    done = 0
    while done < n_resamples:
        b = min(_BLOCK, n_resamples - done)
        bits = np.unpackbits(rng.integers(0, 256, size=(b, (n + 7) // 8), dtype=np.uint8), axis=1)
        flipped = bits[:, :n].astype(np.float64) @ d  # sum of the flipped differences
        sums = total - 2.0 * flipped
        extreme += (np.abs(sums) >= observed - slack).sum(axis=0)
        done += b
    return (1.0 + extreme) / (1.0 + n_resamples)


def _bootstrap(
    d: np.ndarray, n_resamples: int, rng: np.random.Generator, confidence: float
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(p, low, high) per column of d from queries resampled with replacement."""
    n, m = d.shape
    means = np.empty((n_resamples, m))
    done = 0
    while done < n_resamples:
        b = min(_BLOCK, n_resamples - done)
        draws = rng.integers(0, n, size=(b, n))
        counts = np.bincount((draws + (np.arange(b) * n)[:, None]).ravel(), minlength=b * n)
        means[done : done + b] = counts.reshape(b, n).astype(np.float64) @ d / n
        done += b
    mean = d.mean(axis=0)
    tail = (1.0 - confidence) / 2.0
    low, high = np.quantile(means, [tail, 1.0 - tail], axis=0)
    extreme = (np.abs(means - mean) >= np.abs(mean) - 1e-12).sum(axis=0)
    p = (1.0 + extreme) / (1.0 + n_resamples)
    p = np.where((mean == 0.0) & np.all(d == 0.0, axis=0), 1.0, p)
    return p, low, high


def _wilcoxon(d: np.ndarray) -> float:
    """Two-sided p of the signed-rank test, zeros dropped, normal approximation with the tie
    correction and no continuity correction (scipy's ``method="asymptotic"``)."""
    nz = d[d != 0.0]
    n = nz.size
    if n == 0:
        return 1.0
    a = np.abs(nz)
    order = np.argsort(a, kind="stable")
    sorted_a = a[order]
    # Average ranks of tied absolute differences.
    starts = np.flatnonzero(np.concatenate(([True], sorted_a[1:] != sorted_a[:-1])))
    sizes = np.diff(np.append(starts, n))
    avg = starts + (sizes + 1) / 2.0
    ranks = np.empty(n)
    ranks[order] = np.repeat(avg, sizes)
    r_plus = float(ranks[nz > 0].sum())
    r_minus = float(ranks[nz < 0].sum())
    t = min(r_plus, r_minus)
    mn = n * (n + 1) / 4.0
    var = n * (n + 1) * (2 * n + 1) / 24.0 - float((sizes**3 - sizes).sum()) / 48.0
    if var <= 0.0:
        return 1.0
    z = (t - mn) / math.sqrt(var)
    return min(1.0, 2.0 * 0.5 * math.erfc(-z / math.sqrt(2.0)))


def tukey_hsd(
    values: Any, *, blocked: bool = True, confidence: float = 0.95
) -> tuple[np.ndarray, np.ndarray, float]:
    """Tukey's HSD between the columns of ``values`` (queries x runs, one measure).

    Parameters
    ----------
    values : array-like of shape (n_queries, n_runs)
        Each run's per-query values on the same queries (``n_queries >= 2``, ``n_runs >= 2``).
    blocked : bool, default True
        Queries as blocks (two-way ANOVA without interaction, ``(k-1)(n-1)`` degrees of
        freedom); False is the one-way ANOVA (``k (n-1)``), ``scipy.stats.tukey_hsd``'s design.
    confidence : float
        Level of the simultaneous intervals.

    Returns
    -------
    p : ndarray of shape (n_runs, n_runs)
        Tukey's p of each pair (1 on the diagonal).
    half : float
        Half-width of every pair's simultaneous interval around ``mean_i - mean_j``.
    df : float
        Degrees of freedom of the residual.
    """
    y = np.asarray(values, dtype=np.float64)
    if y.ndim != 2 or y.shape[0] < 2 or y.shape[1] < 2:
        raise ValueError(
            f"Tukey's HSD needs at least two queries and two runs; got values of shape {y.shape}."
        )
    n, k = y.shape
    means = y.mean(axis=0)
    if blocked:
        resid = y - y.mean(axis=1, keepdims=True) - means + y.mean()
        df = float((n - 1) * (k - 1))
    else:
        resid = y - means
        df = float(k * (n - 1))
    mse = float((resid**2).sum()) / df
    gap = np.abs(means[:, None] - means[None, :])
    # A residual at rounding level (runs equal up to a constant per query) is no spread.
    if mse <= 1e-24 * max(1.0, float((y**2).mean())):
        return np.where(gap > 1e-12, 0.0, 1.0), 0.0, df
    se = math.sqrt(mse / n)
    i, j = np.triu_indices(k, 1)
    p = np.ones((k, k))
    p[i, j] = p[j, i] = studentized_range_sf(gap[i, j] / se, k, df)
    return p, studentized_range_quantile(confidence, k, df) * se, df


def _tukey_all(
    per_run: dict[str, tuple[np.ndarray, np.ndarray]],
    order: list[str],
    names: list[str],
    blocked: bool,
    confidence: float,
) -> tuple[dict[str, tuple[np.ndarray, np.ndarray]], list[tuple[np.ndarray, float]]]:
    """Every run cut to the queries all runs were evaluated on, and Tukey's (p, half-width) per
    measure over them."""
    common = per_run[order[0]][0]
    for name in order[1:]:
        common = np.intersect1d(common, per_run[name][0], assume_unique=True)
    if common.size < 2:
        raise ValueError(
            f"Tukey's HSD compares every run on the queries all {len(order)} runs answered; "
            f"they share {common.size}, and it needs at least 2."
        )
    cut = {}
    for name in order:
        ids, values = per_run[name]
        _, idx, _ = np.intersect1d(ids, common, assume_unique=True, return_indices=True)
        cut[name] = (common, values[idx])
    stacked = np.stack([cut[name][1] for name in order], axis=2)  # queries x measures x runs
    tukey = []
    for c in range(len(names)):
        p, half, _ = tukey_hsd(stacked[:, c, :], blocked=blocked, confidence=confidence)
        tukey.append((p, half))
    return cut, tukey


def _check_runs(runs: Any) -> dict[str, Any]:
    if not isinstance(runs, Mapping) or len(runs) < 2:
        raise ValueError(
            "runs must be a mapping of at least two names to runs, e.g. "
            "{'bm25': run_a, 'dense': run_b}."
        )
    return {str(name): run for name, run in runs.items()}


def compare_runs(
    qrels: Any,
    runs: Mapping[str, Any],
    measures: Any,
    *,
    test: str = "student",
    n_resamples: int = 10_000,
    seed: int | None = None,
    baseline: str | None = None,
    correction: str = "holm",
    primary: str | None = None,
    alpha: float = 0.05,
    confidence: float = 0.95,
    relevance_level: int = 1,
    judged_only: bool = False,
    complete: bool = False,
) -> Any:
    """Paired tests over queries between runs, one per (measure, pair), corrected as a family.

    Parameters
    ----------
    qrels : DataFrame or mapping
        As :func:`metrics.trec_evaluate` takes it.
    runs : mapping of str to run
        Two or more runs by name (DataFrames or ``{query_id: {doc_id: score}}``).
    measures : str or list of str
        trec_eval's measure names.
    test : {"student", "fisher", "bootstrap", "wilcoxon", "tukey", "tukey-oneway"}
        See the module docstring.
    n_resamples : int, default 10_000
        Resamples of the Fisher and bootstrap tests.
    seed : int, optional
        Seed of the resamples; the same seed gives the same table.
    baseline : str, optional
        Compare every other run with this one; by default every pair (each run with each run
        listed before it).
    correction : {"holm", "bonferroni", "none"}
        Adjustment over the family.
    primary : str, optional
        The measure chosen before looking; the family is then its tests alone.
    alpha : float
        ``significant`` is ``p_adjusted < alpha``.
    confidence : float
        Level of the interval of the mean difference.

    Returns
    -------
    DataFrame
        One row per (run, baseline, measure): ``run, baseline, measure, n_queries, mean,
        baseline_mean, difference, ci_low, ci_high, p_value, p_adjusted, significant, wins,
        ties, losses, effect_size, power, detectable`` (the last three from
        :func:`metrics.trec.power.paired_power`). ``attrs["family"]`` describes the family of tests.
    """
    import pandas as pd

    runs = _check_runs(runs)
    parsed = parse_measures(measures)
    names = [m.name for m in parsed]
    if test not in TESTS:
        raise ValueError(f"test must be one of {', '.join(TESTS)}; got {test!r}.")
    if correction not in CORRECTIONS:
        raise ValueError(f"correction must be one of {', '.join(CORRECTIONS)}; got {correction!r}.")
    if baseline is not None and str(baseline) not in runs:
        raise ValueError(f"baseline {baseline!r} is not one of the runs: {', '.join(runs)}.")
    if primary is not None and primary not in names:
        raise ValueError(f"primary {primary!r} is not one of the measures: {', '.join(names)}.")
    if isinstance(n_resamples, bool) or not isinstance(n_resamples, (int, np.integer)):
        raise ValueError(f"n_resamples must be a whole number, got {n_resamples!r}.")
    if test in ("fisher", "bootstrap") and n_resamples < 1:
        raise ValueError(f"n_resamples must be at least 1, got {n_resamples}.")
    if not 0.0 < alpha < 1.0 or not 0.0 < confidence < 1.0:
        raise ValueError("alpha and confidence must be between 0 and 1.")

    qr = _prepare_qrels(qrels, int(relevance_level))
    per_run: dict[str, tuple[np.ndarray, np.ndarray]] = {}
    for name, run in runs.items():
        try:
            ids, values = evaluate_per_query(
                None,
                run,
                names,
                relevance_level=relevance_level,
                judged_only=judged_only,
                complete=complete,
                _qrels=qr,
            )
        except ValueError as exc:
            raise ValueError(f"Run {name!r}: {exc}") from None
        per_run[name] = (ids, np.column_stack([values[m] for m in names]))

    order = list(runs)
    if baseline is not None:
        pairs = [(r, str(baseline)) for r in order if r != str(baseline)]
    else:
        pairs = [(order[j], order[i]) for i in range(len(order)) for j in range(i + 1, len(order))]

    if test in TUKEY:
        per_run, tukey = _tukey_all(per_run, order, names, test == "tukey", confidence)

    rng = np.random.default_rng(seed)
    rows = []
    for run_name, base_name in pairs:
        ids_a, va = per_run[run_name]
        ids_b, vb = per_run[base_name]
        common, ia, ib = np.intersect1d(ids_a, ids_b, assume_unique=True, return_indices=True)
        a, b = va[ia], vb[ib]
        d = a - b
        n = common.size
        if n == 0:
            raise ValueError(
                f"Runs {run_name!r} and {base_name!r} share no evaluated query; a paired test "
                f"needs queries both runs answered."
            )
        if test in TUKEY:
            i, j = order.index(run_name), order.index(base_name)
            p = np.array([tukey[c][0][i, j] for c in range(len(names))])
            intervals = [
                (d[:, c].mean() - tukey[c][1], d[:, c].mean() + tukey[c][1])
                for c in range(len(names))
            ]
        elif test == "fisher":
            p = _fisher(d, int(n_resamples), rng)
            intervals = [_t_interval(d[:, c], confidence)[1:] for c in range(d.shape[1])]
        elif test == "bootstrap":
            p, low, high = _bootstrap(d, int(n_resamples), rng, confidence)
            intervals = list(zip(low, high, strict=True))
        else:
            tt = [_t_interval(d[:, c], confidence) for c in range(d.shape[1])]
            intervals = [t[1:] for t in tt]
            if test == "student":
                p = np.array([t[0] for t in tt])
            else:
                p = np.array([_wilcoxon(d[:, c]) for c in range(d.shape[1])])
        for c, m in enumerate(names):
            pw = paired_power(d[:, c], alpha=alpha)
            rows.append(
                {
                    "run": run_name,
                    "baseline": base_name,
                    "measure": m,
                    "n_queries": n,
                    "mean": float(a[:, c].mean()),
                    "baseline_mean": float(b[:, c].mean()),
                    "difference": float(d[:, c].mean()),
                    "ci_low": float(intervals[c][0]),
                    "ci_high": float(intervals[c][1]),
                    "p_value": float(p[c]),
                    "wins": int((d[:, c] > 0).sum()),
                    "ties": int((d[:, c] == 0).sum()),
                    "losses": int((d[:, c] < 0).sum()),
                    "effect_size": pw.effect_size,
                    "power": pw.power,
                    "detectable": pw.detectable,
                }
            )
    table = pd.DataFrame(rows)
    in_family = (
        np.ones(len(table), bool) if primary is None else (table["measure"] == primary).to_numpy()
    )
    adjusted = np.full(len(table), np.nan)
    if test in TUKEY:
        # Tukey's p holds a measure's pairs; Bonferroni over the family's measures.
        n_measures = 1 if primary is not None else len(names)
        scale = 1.0 if correction == "none" else float(n_measures)
        adjusted[in_family] = np.minimum(1.0, table["p_value"].to_numpy()[in_family] * scale)
    else:
        adjusted[in_family] = adjust_p_values(table["p_value"].to_numpy()[in_family], correction)
    table["p_adjusted"] = adjusted
    table["significant"] = np.where(np.isnan(adjusted), False, adjusted < alpha)
    table = table[
        [
            "run",
            "baseline",
            "measure",
            "n_queries",
            "mean",
            "baseline_mean",
            "difference",
            "ci_low",
            "ci_high",
            "p_value",
            "p_adjusted",
            "significant",
            "wins",
            "ties",
            "losses",
            "effect_size",
            "power",
            "detectable",
        ]
    ]
    n_family = int(in_family.sum())
    how = {"holm": "Holm", "bonferroni": "Bonferroni", "none": "no correction"}[correction]
    if test in TUKEY:
        design = "queries as blocks" if test == "tukey" else "one-way, queries not paired"
        across = (
            ""
            if primary is not None or len(names) == 1
            else (
                f", Bonferroni over {len(names)} measures"
                if correction != "none"
                else f", no correction over {len(names)} measures"
            )
        )
        k = len(order)
        table.attrs["family"] = (
            f"{n_family} tests, Tukey's HSD over the {k * (k - 1) // 2} pairs of {k} runs "
            f"({design}) for each "
            + (f"measure{across}" if primary is None else f"of primary measure {primary}")
            + f", alpha {alpha:g}, on the {int(table['n_queries'].iloc[0])} queries every run "
            f"answered" + ("" if primary is None else "; the other measures are exploratory")
        )
    elif primary is None:
        table.attrs["family"] = (
            f"{n_family} tests ({len(names)} measures x {len(pairs)} pairs), {how}, "
            f"alpha {alpha:g}, {test} test"
        )
    else:
        table.attrs["family"] = (
            f"{n_family} tests (primary measure {primary} x {len(pairs)} pairs), {how}, "
            f"alpha {alpha:g}, {test} test; the other measures are exploratory"
        )
    return table


def runs_beaten(table: Any) -> dict[tuple[str, str], list[str]]:
    """{(run, measure): the runs it is significantly better than}, from :func:`compare_runs`'s
    table: ranx's superscripts, computed here so a page or a report only shows them."""
    out: dict[tuple[str, str], list[str]] = {}
    for row in table.itertuples(index=False):
        if not row.significant:
            continue
        winner, loser = (row.run, row.baseline) if row.difference > 0 else (row.baseline, row.run)
        out.setdefault((winner, row.measure), []).append(loser)
    return out

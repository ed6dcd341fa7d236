"""Tables that compare models: metric x model with paired bootstrap intervals, DeLong pairs.

Pure functions over numpy arrays returning DataFrames; no Streamlit (``ui.compute.data`` caches
them).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pandas as pd

import metrics
from metrics.calibration import brier_score_loss, log_loss
from metrics.compare import delong_test, paired_bootstrap
from metrics.families import FamilyResult, family_best, family_pair_verdict, family_verdicts
from metrics.groups import group_auc_score
from metrics.significance import BestModel

# What each kind of resampling is called on every page: one name for one test.
ROW_TEST = "paired bootstrap"
CLUSTER_TEST = "cluster bootstrap"


@dataclass(frozen=True)
class MetricSpec:
    """A metric of the comparison table and how its resamples are scored.

    ``fast``: its key in :func:`metrics.fast_paired_bootstrap`'s results (sorted once);
    ``loss``: a per-row loss whose (weighted) mean is the metric, resampled the same way;
    ``groups``: resampled by whole group (cluster bootstrap) instead of by row.
    """

    name: str
    fn: Callable[..., float]
    higher_is_better: bool
    help: str
    fast: str | None = None
    loss: Callable[[np.ndarray, np.ndarray], np.ndarray] | None = None
    groups: np.ndarray | None = None
    max_fpr: float | None = None  # for the partial AUC


def _brier_rows(y: np.ndarray, p: np.ndarray) -> np.ndarray:
    return (p - y) ** 2


def _log_loss_rows(y: np.ndarray, p: np.ndarray) -> np.ndarray:
    eps = np.finfo(np.float64).eps  # clipped as metrics.log_loss clips
    p = np.clip(p, eps, 1 - eps)
    return -np.where(y, np.log(p), np.log1p(-p))


def partial_auc_name(max_fpr: float) -> str:
    return f"pAUC (FPR ≤ {max_fpr:g})"


def metric_specs(
    *, probabilities: bool, groups: np.ndarray | None, max_fpr: float | None = None
) -> list[MetricSpec]:
    """The metrics that apply: AUC and AP always, partial AUC when ``max_fpr`` is given, GAUC
    with a group column, Brier and log loss when every score is a probability."""
    specs = [
        MetricSpec("AUC", metrics.roc_auc_score, True, "area under the ROC curve", "roc_auc"),
        MetricSpec(
            "AP", metrics.average_precision_score, True, "average precision (step sum)",
            "average_precision",
        ),
    ]  # fmt: skip
    if max_fpr is not None:

        def partial(y, s, sample_weight=None):
            return metrics.roc_auc_score(y, s, sample_weight=sample_weight, max_fpr=max_fpr)

        specs.append(
            MetricSpec(
                partial_auc_name(max_fpr), partial, True,
                f"area under the ROC up to FPR {max_fpr:g}, McClish-standardised (0.5 = chance)",
                "partial_auc", max_fpr=max_fpr,
            )
        )  # fmt: skip
    if groups is not None:

        def gauc(y, s, sample_weight=None):
            return group_auc_score(y, s, groups, sample_weight=sample_weight)

        specs.append(
            MetricSpec("GAUC", gauc, True, "per-group AUC weighted by rows", groups=groups)
        )
    if probabilities:
        specs += [
            MetricSpec(
                "Brier", brier_score_loss, False, "mean squared error of the probability",
                loss=_brier_rows,
            ),
            MetricSpec("Log loss", log_loss, False, "cross-entropy in nats", loss=_log_loss_rows),
        ]  # fmt: skip
    return specs


def bootstrap_results(
    y: np.ndarray,
    scores: dict[str, np.ndarray],
    specs: list[MetricSpec],
    *,
    weight: np.ndarray | None,
    n_resamples: int,
    seed: int = 0,
    bca: bool = False,
    cluster: np.ndarray | None = None,
    **fast_options,
) -> tuple[dict[str, metrics.BootstrapResult], metrics.FastBootstrap]:
    """Every spec's paired bootstrap, from one set of Poisson resamples of the rows (sorted
    once per model), or of the groups for GAUC (per-group AUCs computed once); and the fast
    bootstrap itself, which ``fast_options`` (curves on grids, KS, ...) add to.

    ``cluster``: the group of each row (users, queries); every metric then resamples whole
    groups (the same groups for every model and, with the same seed, for GAUC)."""
    arrays = [scores[m] for m in scores]
    yb = np.asarray(y).astype(bool)
    losses = {s.name: [s.loss(yb, a) for a in arrays] for s in specs if s.loss is not None}
    max_fpr = next((s.max_fpr for s in specs if s.max_fpr is not None), None)
    fast = metrics.fast_paired_bootstrap(
        yb, *arrays, n_resamples=n_resamples, seed=seed, sample_weight=weight,
        row_means=losses or None, interval="bca" if bca else "percentile", max_fpr=max_fpr,
        groups=cluster, **fast_options,
    )  # fmt: skip
    out = {}
    for spec in specs:
        if spec.fast is not None:
            out[spec.name] = fast.results[spec.fast]
        elif spec.loss is not None:
            out[spec.name] = fast.results[spec.name]
        elif spec.groups is not None:
            tables = [
                metrics.group_auc_table(yb, a, spec.groups, sample_weight=weight) for a in arrays
            ]
            out[spec.name] = metrics.cluster_bootstrap(
                np.column_stack([t.auc for t in tables]),
                np.column_stack([t.weights() for t in tables]),
                n_resamples=n_resamples,
                seed=seed,
            )
        else:
            out[spec.name] = paired_bootstrap(
                spec.fn, y, *arrays, n_resamples=n_resamples, seed=seed, sample_weight=weight,
                counts="poisson",
            )  # fmt: skip
    return out, fast


def model_table(
    y: np.ndarray,
    scores: dict[str, np.ndarray],
    specs: list[MetricSpec],
    *,
    weight: np.ndarray | None = None,
    n_resamples: int = 0,
    seed: int = 0,
    bca: bool = False,
    cluster: np.ndarray | None = None,
    **fast_options,
) -> tuple[pd.DataFrame, pd.DataFrame, metrics.FastBootstrap | None]:
    """(models, pairs, the fast bootstrap or None without resamples).

    ``models``: one row per model; per metric its value and, with resamples, a 95% paired
    bootstrap interval (columns ``<metric>``, ``<metric> low``, ``<metric> high``).

    ``pairs``: one row per metric and pair of models: the difference A − B, its interval, and a
    paired test's p-value: DeLong's for AUC without weights, else the paired bootstrap's (NaN
    when no resamples ran), with the test's name.

    ``cluster``: the group of each row. Rows of one user are not independent, so with it every
    interval and test resamples whole groups (the cluster bootstrap) and DeLong's row-level
    test is not the verdict: its p-value is kept beside, in ``"row-level p"``, labelled.
    """
    names = list(scores)
    table = pd.DataFrame({"model": names})
    pairs = []
    results, fast = (
        bootstrap_results(
            y,
            scores,
            specs,
            weight=weight,
            n_resamples=n_resamples,
            seed=seed,
            bca=bca,
            cluster=cluster,
            **fast_options,
        )
        if n_resamples
        else ({}, None)
    )
    for spec in specs:
        result = results.get(spec.name)
        if result is not None:
            table[spec.name] = [iv.estimate for iv in result.models]
            table[f"{spec.name} low"] = [iv.ci_low for iv in result.models]
            table[f"{spec.name} high"] = [iv.ci_high for iv in result.models]
        else:
            table[spec.name] = [float(spec.fn(y, scores[m], sample_weight=weight)) for m in names]
        values = table[spec.name].to_numpy(dtype=float)
        for i, j in itertools.combinations(range(len(names)), 2):
            row = {
                "metric": spec.name,
                "model A": names[i],
                "model B": names[j],
                "A − B": values[i] - values[j],
                "low": np.nan,
                "high": np.nan,
                "p-value": np.nan,
                "test": "none (no resamples)",
            }
            if result is not None:
                diff = result.differences[(i, j)]
                clustered = cluster is not None or spec.groups is not None
                row.update(
                    low=diff.ci_low,
                    high=diff.ci_high,
                    test=CLUSTER_TEST if clustered else ROW_TEST,
                )
                row["p-value"] = result.difference_p_value(i, j)
            if spec.name == "AUC" and weight is None:
                r = delong_test(y, scores[names[i]], scores[names[j]])
                if cluster is None:
                    row.update({"p-value": r.p_value, "test": "DeLong"})
                    if result is None:
                        row.update(low=r.ci_low, high=r.ci_high)
                else:  # shown beside the verdict, never as it
                    row["row-level p"] = r.p_value
            pairs.append(row)
    columns = ["metric", "model A", "model B", "A − B", "low", "high", "p-value", "test"]
    if cluster is not None:
        columns.append("row-level p")
    return table, pd.DataFrame(pairs, columns=columns), fast


def verdicts(
    table: pd.DataFrame,
    pairs: pd.DataFrame,
    specs: list[MetricSpec],
    alpha: float = 0.05,
    family: str = "AUC",
) -> tuple[dict[str, BestModel], pd.DataFrame]:
    """:func:`verdicts_in_family` without the family itself."""
    found, pairs, _ = verdicts_in_family(table, pairs, specs, family=family, alpha=alpha)
    return found, pairs


def verdicts_in_family(
    table: pd.DataFrame,
    pairs: pd.DataFrame,
    specs: list[MetricSpec],
    *,
    family: str = "AUC",
    alpha: float = 0.05,
    n_resamples: int = 0,
) -> tuple[dict[str, BestModel], pd.DataFrame, FamilyResult]:
    """Per metric, which model (if any) is significantly best within the declared family
    (:func:`metrics.families.family_verdicts`: the primary metric ``family``, AUC by default,
    Holm across its pairs and the other metrics exploratory; or ``"all"``, Holm across metrics
    × pairs); ``pairs`` with the family's "Holm p" (NaN for an exploratory test), the "role"
    of each test and its "verdict"; and the family. ``n_resamples``: the bootstrap's, for the
    smallest p-value an exploratory verdict can claim."""
    names = table["model"].tolist()
    direction = {s.name: s.higher_is_better for s in specs}
    if family != "all" and family not in direction:
        family = "AUC"  # a primary metric this table lacks (a partial AUC turned off)
    fam = family_verdicts(
        [
            (m, a, b, float(p), float(d))
            for m, a, b, p, d in pairs[["metric", "model A", "model B", "p-value", "A − B"]]
            .itertuples(index=False)
        ],
        family=family,
        alpha=alpha,
    )  # fmt: skip
    out = {
        s.name: family_best(
            fam, s.name, names, table[s.name].to_numpy(dtype=float),
            higher_is_better=s.higher_is_better,
            floor=1 / n_resamples if n_resamples and s.name != "AUC" else 0.0,
        )
        for s in specs
    }  # fmt: skip
    holm, role, said = [], [], []
    for row, test, low, high in zip(
        fam.rows, pairs["test"], pairs["low"], pairs["high"], strict=True
    ):
        bootstrap = test in (ROW_TEST, CLUSTER_TEST)
        holm.append(row.adjusted_p)
        role.append(row.role)
        said.append(
            family_pair_verdict(
                row, ci=(low, high), higher_is_better=direction[row.metric], alpha=alpha,
                floor=1 / n_resamples if bootstrap and n_resamples else 0.0,
            )
        )  # fmt: skip
    return out, pairs.assign(**{"Holm p": holm, "role": role, "verdict": said}), fam


def delong_pairs(y: np.ndarray, scores: dict[str, np.ndarray]) -> pd.DataFrame:
    """DeLong's test for every pair of models: AUCs, difference, its 95% interval, p-value."""
    rows = []
    for a, b in itertools.combinations(scores, 2):
        r = delong_test(y, scores[a], scores[b])
        rows.append(
            {
                "model A": a,
                "model B": b,
                "AUC A": r.auc_a,
                "AUC B": r.auc_b,
                "A - B": r.difference,
                "95% CI low": r.ci_low,
                "95% CI high": r.ci_high,
                "z": r.z,
                "p-value": r.p_value,
            }
        )
    return pd.DataFrame(rows)


def slice_table(
    columns: dict[str, np.ndarray],
    y: np.ndarray,
    scores: dict[str, np.ndarray],
    *,
    weight: np.ndarray | None = None,
    min_size: int = 30,
    max_values: int = 20,
    cross: tuple[str, str] | None = None,
    n_resamples: int = 200,
    cluster: np.ndarray | None = None,
) -> pd.DataFrame:
    """Every model's AUC and AP on each slice with at least ``min_size`` rows, beside the whole
    table ("all rows", first), worst slice first.

    A slice is a value of a category column or, with ``cross``, a pair of values of those two
    columns. Per slice: rows, positives, per model AUC with DeLong's 95% interval (unweighted
    data; with weights a paired bootstrap interval), AP with a paired bootstrap interval
    (``n_resamples`` Poisson resamples, 0 for none), and AUC − AUC on all rows. Slices with one
    class only have undefined metrics (NaN) and sort last. ``column`` and ``value`` hold the
    column name and the category as the table holds them (tuples of two for a crossed slice),
    so a page can select the slice with them.

    With ``cluster`` (the group of each row) every interval resamples whole groups within the
    slice (AUC too: DeLong's interval assumes independent rows).
    """
    import warnings

    from metrics.compare import roc_auc_ci

    names = list(scores)

    def row(name: str, column, value, mask: np.ndarray | None) -> dict:
        yy = y if mask is None else y[mask]
        ww = weight if weight is None or mask is None else weight[mask]
        gg = cluster if cluster is None or mask is None else cluster[mask]
        out = {"slice": name, "column": column, "value": value, "rows": int(yy.size)}
        out["positives"] = int(np.count_nonzero(yy))
        arrays = [scores[m] if mask is None else scores[m][mask] for m in names]
        both = 0 < out["positives"] < yy.size
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            boot = (
                metrics.fast_paired_bootstrap(
                    np.asarray(yy).astype(bool),
                    *arrays,
                    n_resamples=n_resamples,
                    sample_weight=ww,
                    groups=gg,
                )
                if n_resamples and both
                else None
            )
            for k, (m, ss) in enumerate(zip(names, arrays, strict=True)):
                if ww is None and gg is None:
                    ci = roc_auc_ci(yy, ss)
                    out[f"{m} AUC"], low, high = ci.auc, ci.ci_low, ci.ci_high
                else:
                    out[f"{m} AUC"] = metrics.roc_auc_score(yy, ss, sample_weight=ww)
                    iv = boot.results["roc_auc"].models[k] if boot else None
                    low, high = (iv.ci_low, iv.ci_high) if iv else (np.nan, np.nan)
                out[f"{m} AUC low"], out[f"{m} AUC high"] = low, high
                out[f"{m} AP"] = metrics.average_precision_score(yy, ss, sample_weight=ww)
                iv = boot.results["average_precision"].models[k] if boot else None
                out[f"{m} AP low"], out[f"{m} AP high"] = (
                    (iv.ci_low, iv.ci_high) if iv else (np.nan, np.nan)
                )
        return out

    def plain(value):
        return value.item() if hasattr(value, "item") else value

    rows = [row("all rows", None, None, None)]
    for column, values in columns.items():
        series = pd.Series(values)
        for value, count in series.value_counts().head(max_values).items():
            if count >= min_size:
                rows.append(
                    row(f"{column} = {plain(value)}", column, plain(value),
                        (series == value).to_numpy())
                )  # fmt: skip
    if cross is not None:
        a, b = cross
        pairs = pd.DataFrame({"a": columns[a], "b": columns[b]})
        counts = pairs.value_counts().head(max_values * max_values)
        for (va, vb), count in counts.items():
            if count >= min_size:
                mask = ((pairs["a"] == va) & (pairs["b"] == vb)).to_numpy()
                rows.append(
                    row(f"{a} = {plain(va)} × {b} = {plain(vb)}", (a, b), (plain(va), plain(vb)),
                        mask)
                )  # fmt: skip
    table = pd.DataFrame(rows)
    for m in scores:
        table[f"{m} AUC − all"] = table[f"{m} AUC"] - table.loc[0, f"{m} AUC"]
    worst = table[[f"{m} AUC − all" for m in scores]].min(axis=1)
    order = [0, *worst.iloc[1:].sort_values(na_position="last").index.tolist()]
    return table.loc[order].reset_index(drop=True)

"""The family of tests a verdict rests on: which tests a star may come from, and their Holm
adjustment.

A comparison of models tests every pair on every metric it shows. Each test at 5% is fine on
its own, but a page that stars a model wherever *some* test is significant stars something far
more often than 5% when the models are equal (eleven metrics of two exchangeable models: about
13%). A reviewer asks which family of tests the verdict rests on, declared before looking:

* one **primary metric** (AUC for a binary model, macro AUC for multi-class and multi-label,
  NDCG@10 for rankings): its pairs form the family, Holm-adjusted across them; every other
  metric is **exploratory**, shown with its unadjusted p-value and never starred;
* or **every metric**: Holm across metrics × pairs, and every test may star.

Either way the familywise error rate (the chance of one or more wrong stars) is at most
``alpha``. Metrics that are the same number (accuracy, micro-F1, micro-precision and
micro-recall on single-label data) are one test: the first of them stands for the others, which
are labelled duplicates and share its result.

:func:`family_verdicts` is pure and knows nothing of where its p-values come from (a paired
bootstrap, DeLong's test, a per-query t-test of two TREC runs, a per-image test of two
detectors): pass one :class:`FamilyTest` per metric and pair.
:func:`direction_disagreements` says, in a sentence, when a threshold-free metric and a metric
at a fixed cut-off favour different models.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from metrics.significance import BestModel, best_model, format_p, holm_adjust, pair_verdict

__all__ = [
    "ALL_METRICS",
    "FamilyResult",
    "FamilyRow",
    "FamilyTest",
    "default_primary",
    "direction_disagreements",
    "equal_metrics",
    "family_best",
    "family_pair_verdict",
    "family_verdicts",
]

ALL_METRICS = "all"
PRIMARY, FAMILY, EXPLORATORY, DUPLICATE = "primary", "family", "exploratory", "duplicate"

# The primary metric a comparison rests on unless the user declares another before looking.
DEFAULT_PRIMARY = {
    "binary": "AUC",
    "multiclass": "macro AUC",
    "multilabel": "macro AUC",
    "ranking": "NDCG@10",
}


def default_primary(kind: str) -> str:
    """The primary metric of a kind of comparison: ``"binary"`` AUC, ``"multiclass"`` and
    ``"multilabel"`` macro AUC, ``"ranking"`` NDCG@10.

    >>> default_primary("multiclass")
    'macro AUC'
    """
    try:
        return DEFAULT_PRIMARY[kind]
    except KeyError:
        raise ValueError(
            f"kind must be one of {', '.join(map(repr, DEFAULT_PRIMARY))}, got {kind!r}."
        ) from None


@dataclass(frozen=True)
class FamilyTest:
    """One test of the comparison: ``metric`` on the pair (``a``, ``b``), its two-sided
    p-value (NaN: not tested) and the estimated difference ``a − b``."""

    metric: str
    a: str
    b: str
    p_value: float
    estimate: float


@dataclass(frozen=True)
class FamilyRow:
    """A test with its place in the family.

    Attributes
    ----------
    metric, a, b, p_value, estimate
        As given.
    role : {"primary", "family", "exploratory", "duplicate"}
        ``primary``: the declared primary metric's test; ``family``: a test of the every-metric
        family; ``exploratory``: outside the family (no star, the p-value unadjusted);
        ``duplicate``: the same number as ``same_as``, not tested again.
    adjusted_p : float
        Holm's adjusted p-value across the family (for a duplicate, its twin's); NaN for an
        exploratory test or one not run.
    significant : bool
        In the family (or a duplicate of a test that is) and ``adjusted_p < alpha``.
    same_as : str or None
        For a duplicate, the metric whose test stands for it.
    """

    metric: str
    a: str
    b: str
    p_value: float
    estimate: float
    role: str
    adjusted_p: float
    significant: bool
    same_as: str | None = None

    @property
    def in_family(self) -> bool:
        return self.role in (PRIMARY, FAMILY)

    @property
    def label(self) -> str:
        """The row's label in words, as a table shows it."""
        if self.role == DUPLICATE:
            return f"same number as {self.same_as}"
        return {PRIMARY: "primary", FAMILY: "in the family", EXPLORATORY: "exploratory"}[self.role]


@dataclass(frozen=True)
class FamilyResult:
    """Every test with its role, adjusted p-value and flag; and the family in words.

    Attributes
    ----------
    declared : str
        The primary metric, or ``"all"``.
    metrics : tuple of str
        The metrics whose tests are in the family (duplicates left out).
    duplicates : dict of str -> str
        Each duplicate metric and the metric that stands for it.
    size : int
        Tests in the family that ran (finite p-values): Holm's ``m``.
    alpha : float
    rows : tuple of FamilyRow
        In the order given.
    """

    declared: str
    metrics: tuple[str, ...]
    duplicates: dict[str, str]
    size: int
    alpha: float
    rows: tuple[FamilyRow, ...]

    def row(self, metric: str, a: str, b: str) -> FamilyRow:
        """The row of ``metric`` on the pair (``a``, ``b``), in either order."""
        for r in self.rows:
            if r.metric == metric and {r.a, r.b} == {a, b}:
                return r
        raise KeyError(f"no test of {metric!r} on {a!r} and {b!r}")

    def role(self, metric: str) -> str:
        """``primary``, ``family``, ``exploratory`` or ``duplicate``."""
        if metric in self.duplicates:
            return DUPLICATE
        if metric in self.metrics:
            return PRIMARY if self.declared != ALL_METRICS else FAMILY
        return EXPLORATORY

    def in_family(self, metric: str) -> bool:
        """Whether a star on ``metric`` is covered by the family's error control (a duplicate
        is when its twin is)."""
        return self.duplicates.get(metric, metric) in self.metrics

    @property
    def any_significant(self) -> bool:
        return any(r.significant for r in self.rows)

    @property
    def description(self) -> str:
        """The family in one sentence, for a caption or a report."""
        level = (
            f"{self.alpha:.0%}"
            if self.alpha * 100 == round(self.alpha * 100)
            else (f"{self.alpha:g}")
        )
        if self.declared == ALL_METRICS:
            n_pairs = len({(r.a, r.b) for r in self.rows if r.in_family})
            head = (
                f"Every metric: Holm across {len(self.metrics)} metric"
                f"{'s' if len(self.metrics) != 1 else ''} × {n_pairs} pair"
                f"{'s' if n_pairs != 1 else ''} ({self.size} test{'s' if self.size != 1 else ''})"
            )
        else:
            tests = f"Holm across its {self.size} pairs"
            if self.size == 1:
                tests = "one test (its one pair)"
            elif self.size == 0:
                tests = "no test ran"
            head = (
                f"Primary metric {self.declared}, declared before looking: {tests}; the other "
                "metrics are exploratory (unadjusted p-values, no star)"
            )
        text = f"{head}. The chance of any wrong star is at most {level}."
        if self.duplicates:
            groups: dict[str, list[str]] = {}
            for dup, twin in self.duplicates.items():
                groups.setdefault(twin, []).append(dup)
            said = "; ".join(" = ".join([twin, *dups]) for twin, dups in groups.items())
            text += f" One number, tested once: {said}."
        return text


def _check_family(family: str, metrics: Sequence[str], duplicates: Mapping[str, str]) -> str:
    if not isinstance(family, str):
        raise ValueError(
            f'family must be a metric name (the primary metric) or "all", got {family!r}.'
        )
    if family == ALL_METRICS or not metrics:  # no tests (one model): any family is empty
        return family
    if family not in metrics:
        raise ValueError(
            f"the primary metric {family!r} is not one of the metrics tested "
            f'({", ".join(map(repr, metrics))}); declare one of them or "all".'
        )
    return duplicates.get(family, family)


def family_verdicts(
    tests: Iterable[FamilyTest | tuple],
    *,
    family: str,
    duplicates: Mapping[str, str] | None = None,
    alpha: float = 0.05,
) -> FamilyResult:
    """Holm across the declared family of tests; every other test labelled exploratory.

    Parameters
    ----------
    tests : iterable of FamilyTest, or of tuples (metric, a, b, p_value, estimate)
        One test per metric and pair of models (or runs, or detectors). NaN p-values (no test
        ran) stay NaN and do not count in Holm's ``m``.
    family : str
        The primary metric's name, declared before looking at the results (its pairs form the
        family), or ``"all"`` (every metric's pairs, Holm across metrics × pairs).
    duplicates : mapping of str -> str, optional
        Metrics that are the same number as another (``{"micro F1": "accuracy"}``): tested once,
        through the metric they map to, and labelled ``"same number as accuracy"``.
    alpha : float, default 0.05
        The familywise error rate.

    Returns
    -------
    FamilyResult

    Examples
    --------
    >>> tests = [("AUC", "a", "b", 0.02, 0.03), ("AP", "a", "b", 0.01, 0.04)]
    >>> r = family_verdicts(tests, family="AUC")
    >>> [(row.metric, row.label, row.significant) for row in r.rows]
    [('AUC', 'primary', True), ('AP', 'exploratory', False)]
    >>> r = family_verdicts(tests, family="all")
    >>> [(row.metric, round(row.adjusted_p, 3), row.significant) for row in r.rows]
    [('AUC', 0.02, True), ('AP', 0.02, True)]
    """
    alpha = float(alpha)
    if not 0.0 < alpha < 1.0:
        raise ValueError(f"alpha must be strictly between 0 and 1, got {alpha!r}.")
    rows_in = [t if isinstance(t, FamilyTest) else FamilyTest(*t) for t in tests]
    order = list(dict.fromkeys(t.metric for t in rows_in))
    duplicates = dict(duplicates or {})
    for dup, twin in duplicates.items():
        if dup == twin or twin in duplicates:
            raise ValueError(
                f"duplicates must map a metric to the one that stands for it, never to itself "
                f"or to another duplicate; got {dup!r} -> {twin!r}."
            )
    duplicates = {d: t for d, t in duplicates.items() if d in order and t in order}
    primary = _check_family(family, order, duplicates)
    tested = [m for m in order if m not in duplicates]
    members = tuple(tested if primary == ALL_METRICS else [primary])
    seen = set()
    for t in rows_in:
        key = (t.metric, frozenset((t.a, t.b)))
        if key in seen:
            raise ValueError(f"{t.metric!r} on {t.a!r} and {t.b!r} is given twice.")
        seen.add(key)
    in_family = [k for k, t in enumerate(rows_in) if t.metric in members]
    p = np.array([float(rows_in[k].p_value) for k in in_family], dtype=np.float64)
    adjusted = holm_adjust(p) if p.size else p
    held = dict(zip(in_family, adjusted.tolist(), strict=True))
    by_key = {(t.metric, frozenset((t.a, t.b))): k for k, t in enumerate(rows_in)}
    role = PRIMARY if primary != ALL_METRICS else FAMILY
    out = []
    for k, t in enumerate(rows_in):
        same_as = None
        if k in held:
            r, adj = role, held[k]
        elif t.metric in duplicates:
            same_as = duplicates[t.metric]
            twin = by_key.get((same_as, frozenset((t.a, t.b))))
            r = DUPLICATE
            adj = held.get(twin, math.nan) if twin is not None else math.nan
        else:
            r, adj = EXPLORATORY, math.nan
        significant = bool(math.isfinite(adj) and adj < alpha and t.estimate != 0)
        out.append(
            FamilyRow(t.metric, t.a, t.b, float(t.p_value), float(t.estimate), r, float(adj),
                      significant, same_as)
        )  # fmt: skip
    return FamilyResult(
        declared=primary if family != ALL_METRICS else ALL_METRICS,
        metrics=members,
        duplicates=duplicates,
        size=int(np.count_nonzero(np.isfinite(p))),
        alpha=alpha,
        rows=tuple(out),
    )


def family_best(
    result: FamilyResult,
    metric: str,
    names: Sequence[str],
    values: Sequence[float],
    *,
    higher_is_better: bool = True,
    floor: float = 0.0,
) -> BestModel:
    """The verdict on one metric under the family: the model significantly best by the
    family's adjusted p-values (a duplicate: by its twin's), or, for an exploratory metric,
    never a best model, only the leader and its largest unadjusted p-value against another
    model in words (``floor``: the smallest p-value the test resolves).

    >>> r = family_verdicts([("AUC", "a", "b", 0.01, 0.1), ("AP", "a", "b", 0.01, 0.1)],
    ...                     family="AUC")
    >>> family_best(r, "AUC", ["a", "b"], [0.9, 0.8]).best
    0
    >>> family_best(r, "AP", ["a", "b"], [0.9, 0.8]).verdict
    'exploratory (outside the declared family, no star): a leads, unadjusted p = 0.01'
    """
    index = {n: i for i, n in enumerate(names)}
    rows = [r for r in result.rows if r.metric == metric]
    if result.in_family(metric):
        p = {}
        for r in rows:
            i, j = index[r.a], index[r.b]
            p[(min(i, j), max(i, j))] = r.adjusted_p
        found = best_model(
            names, values, p, higher_is_better=higher_is_better, alpha=result.alpha, adjusted=True
        )
        if metric in result.duplicates:
            twin = result.duplicates[metric]
            return BestModel(
                found.best, found.leader, found.adjusted, f"same number as {twin}: {found.verdict}"
            )
        return found
    v = np.asarray(values, dtype=np.float64)
    if not np.isfinite(v).any():
        return BestModel(None, None, {}, "no finite value")
    ranked = np.where(np.isfinite(v), v, -np.inf if higher_is_better else np.inf)
    leader = int(np.argmax(ranked) if higher_is_better else np.argmin(ranked))
    if len(v) < 2:
        return BestModel(None, leader, {}, "one model: nothing to compare")
    mine = [r.p_value for r in rows if names[leader] in (r.a, r.b) and math.isfinite(r.p_value)]
    said = f"exploratory (outside the declared family, no star): {names[leader]} leads"
    if mine:
        said += ", " + format_p(max(mine), floor=floor, name="unadjusted p")
    return BestModel(None, leader, {}, said)


def equal_metrics(
    replicates: Mapping[str, np.ndarray], *, rtol: float = 1e-12, atol: float = 1e-12
) -> dict[str, str]:
    """Metrics that are the same number: equal to an earlier one in every model and every
    resample (arrays of the same shape, NaN equal to NaN). Returns ``{later: earlier}``.

    A test of such a metric repeats its twin's test, so a family counts it once.

    >>> equal_metrics({"accuracy": np.array([0.5, 0.7]), "micro F1": np.array([0.5, 0.7]),
    ...                "macro F1": np.array([0.4, 0.7])})
    {'micro F1': 'accuracy'}
    """
    names = list(replicates)
    arrays = {n: np.asarray(replicates[n], dtype=np.float64) for n in names}
    out: dict[str, str] = {}
    for k, later in enumerate(names):
        for earlier in names[:k]:
            if earlier in out or arrays[earlier].shape != arrays[later].shape:
                continue
            if np.allclose(arrays[earlier], arrays[later], rtol=rtol, atol=atol, equal_nan=True):
                out[later] = earlier
                break
    return out


def _p(p_values: Mapping, metric: str, a: str, b: str) -> float:
    p = p_values.get((metric, a, b), math.nan)
    return p if math.isfinite(p) else math.inf


def family_pair_verdict(
    row: FamilyRow,
    *,
    ci: tuple[float, float] | None = None,
    higher_is_better: bool = True,
    alpha: float = 0.05,
    floor: float = 0.0,
) -> str:
    """One pair's verdict in words under the family: a test in it (or a duplicate of one) as
    :func:`metrics.significance.pair_verdict` says it, with the family's adjusted p-value; an
    exploratory one as its difference and unadjusted p-value, never "better" (``floor``: the
    smallest p-value the test resolves, 1 / resamples for a bootstrap).

    >>> r = family_verdicts([("AUC", "a", "b", 0.2, 0.01), ("AP", "a", "b", 0.01, 0.04)],
    ...                     family="AUC")
    >>> family_pair_verdict(r.rows[1])
    'exploratory on AP, no verdict: a − b = +0.0400, unadjusted p = 0.01'
    """
    if row.in_family or (row.role == DUPLICATE and math.isfinite(row.adjusted_p)):
        said = pair_verdict(row.metric, row.a, row.b, row.estimate, row.adjusted_p, ci=ci,
                            higher_is_better=higher_is_better, alpha=alpha)  # fmt: skip
        return said if row.same_as is None else f"{said} (the same number as {row.same_as})"
    text = f"exploratory on {row.metric}, no verdict: {row.a} − {row.b} = {row.estimate:+.4f}"
    if ci is not None and math.isfinite(ci[0]) and math.isfinite(ci[1]):
        text += f" [{ci[0]:+.4f}, {ci[1]:+.4f}]"
    if math.isfinite(row.p_value):
        text += ", " + format_p(row.p_value, floor=floor, name="unadjusted p")
    else:
        text = text.replace("exploratory on", "exploratory, not tested, on", 1)
    if row.same_as is not None:
        text += f" (the same number as {row.same_as})"
    return text


def direction_disagreements(
    estimates: Mapping[tuple[str, str, str], float],
    *,
    threshold_free: Mapping[str, bool],
    thresholded: Mapping[str, bool],
    cut_off: str,
    p_values: Mapping[tuple[str, str, str], float] | None = None,
    alpha: float = 0.05,
) -> list[str]:
    """Sentences where a threshold-free metric and a thresholded one favour different models.

    Parameters
    ----------
    estimates : mapping (metric, a, b) -> float
        The difference ``a − b`` of each metric on each pair.
    threshold_free, thresholded : mapping of metric -> higher_is_better
        The metrics read from the whole ranking (AUC, AP, log loss) and those read at one
        cut-off (accuracy, F1 at a decision rule). Only the first threshold-free metric present
        for a pair is compared: the one the verdict leads with.
    cut_off : str
        The decision rule in words ("score ≥ 0.5"), for the sentence.
    p_values : mapping (metric, a, b) -> float, optional
        With them, a disagreement is said only where one of the two metrics' (unadjusted)
        p-values is below ``alpha``: two directions that are both noise say nothing.
    alpha : float, default 0.05

    Returns
    -------
    list of str
        One sentence per pair where they disagree (none when they agree or one is tied).

    >>> direction_disagreements(
    ...     {("macro AUC", "a", "b"): 0.02, ("macro F1", "a", "b"): -0.01},
    ...     threshold_free={"macro AUC": True}, thresholded={"macro F1": True},
    ...     cut_off="score ≥ 0.5")[0][:60]
    'macro AUC favours a while macro F1 at score ≥ 0.5 favours b:'
    """
    pairs = list(dict.fromkeys((a, b) for _, a, b in estimates))
    out = []
    for a, b in pairs:
        lead = next(
            (m for m in threshold_free if math.isfinite(estimates.get((m, a, b), math.nan))), None
        )
        if lead is None:
            continue
        d = estimates[(lead, a, b)] * (1 if threshold_free[lead] else -1)
        if d == 0:
            continue
        against = [
            m
            for m, higher in thresholded.items()
            if math.isfinite(e := estimates.get((m, a, b), math.nan))
            and e * (1 if higher else -1) * d < 0
            and (p_values is None or min(_p(p_values, lead, a, b), _p(p_values, m, a, b)) < alpha)
        ]
        if not against:
            continue
        winner, loser = (a, b) if d > 0 else (b, a)
        names = (
            " and ".join(against)
            if len(against) <= 2
            else (", ".join(against[:-1]) + " and " + against[-1])
        )
        out.append(
            f"{lead} favours {winner} while {names} at {cut_off} favour"
            f"{'s' if len(against) == 1 else ''} {loser}: a thresholded metric depends on the "
            f"cut-off, and at another one it may order {winner} and {loser} the other way; "
            f"{lead} reads the whole ranking."
        )
    return out

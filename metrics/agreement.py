"""Labels people disagree on: agreement between annotators, and what it leaves for a model.

When several people (or a model judge) label the same items, their disagreement is a fact about
the task, and it caps what any model can score against one of them. This module measures the
agreement (Cohen's kappa for two annotators, Fleiss' kappa and Krippendorff's alpha for more),
scores a model's predictions against every annotator, the majority and the soft label (the
share of annotators saying positive) with bootstrap intervals over items, and gives the ceiling:
the expected accuracy, against an annotator drawn at random, of the best possible predictions
(the majority of each item), beside how often two different annotators agree.

Ratings are an array of shape (n_items, n_annotators); NaN marks an item an annotator did not
label (Krippendorff's alpha allows it; Fleiss' kappa needs every item rated by every annotator).
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import Any

import numpy as np

from metrics._bounds import (
    MAX_KAPPA_ANNOTATORS,
    MAX_RATING_CELLS,
    MAX_RESAMPLES,
    check_cells,
    check_count,
)
from metrics._validation import as_real

__all__ = [
    "AgreementReport",
    "AnnotatorScores",
    "LongRatings",
    "annotator_agreement",
    "fleiss_kappa",
    "krippendorff_alpha",
    "ratings_from_long",
    "score_against_annotators",
]


def _ratings(ratings: Any) -> np.ndarray:
    r = as_real(ratings, "ratings")
    if r.ndim != 2 or r.shape[1] < 2:
        raise ValueError(
            f"ratings must be a table of shape (n_items, n_annotators) with at least two "
            f"annotators, got shape {r.shape}."
        )
    _check_size("ratings", *r.shape)
    return r


def _check_size(name: str, n_items: int, n_annotators: int) -> None:
    """Refuse a ratings table past :data:`metrics._bounds.MAX_RATING_CELLS` cells: a long
    table of 10,000 annotators who each labelled a few of 100,000 items is 10^9 cells once
    pivoted, mostly empty (8 GB), and every statistic here works on the pivoted table."""
    cells = n_items * n_annotators
    if cells > MAX_RATING_CELLS:
        raise ValueError(
            f"{name} would be a table of {n_items:,} items x {n_annotators:,} annotators = "
            f"{cells:,} cells, more than the bound of {MAX_RATING_CELLS:,} (160 MB); measure "
            "agreement on a sample of the items, or on the annotators who labelled the most."
        )


@dataclass(frozen=True)
class LongRatings:
    """A long table of labels (one row per item and annotator) as the (n_items, n_annotators)
    ratings this module takes: ``items`` and ``annotators`` name its rows and columns (sorted),
    and ``ratings`` holds NaN where an annotator did not label an item."""

    items: np.ndarray
    annotators: np.ndarray
    ratings: np.ndarray


def ratings_from_long(items: Any, annotators: Any, labels: Any) -> LongRatings:
    """Ratings from a long table of (item, annotator, label) rows, as annotation tools export
    them (one row per judgement).

    An item an annotator did not label is NaN. Two labels of one item by one annotator are
    refused: which one counts is the user's decision, not this function's.

    >>> r = ratings_from_long(["a", "a", "b", "b", "b"], [1, 2, 1, 2, 3], [1, 0, 1, 1, 1])
    >>> r.items.tolist(), r.annotators.tolist()
    (['a', 'b'], [1, 2, 3])
    >>> r.ratings.tolist()
    [[1.0, 0.0, nan], [1.0, 1.0, 1.0]]
    """
    it, an = np.asarray(items).reshape(-1), np.asarray(annotators).reshape(-1)
    lab = as_real(labels, "labels").reshape(-1)
    if not it.size == an.size == lab.size:
        raise ValueError(
            f"items, annotators and labels must have one value per row; got {it.size}, "
            f"{an.size} and {lab.size}."
        )
    item_ids, row = np.unique(it, return_inverse=True)
    annotator_ids, column = np.unique(an, return_inverse=True)
    _check_size("The judgements", item_ids.size, annotator_ids.size)  # before the table
    row, column = row.reshape(-1), column.reshape(-1)
    cell = row * annotator_ids.size + column
    _, first, counts = np.unique(cell, return_index=True, return_counts=True)
    if (counts > 1).any():
        twice = int(np.flatnonzero(counts > 1)[0])
        at = int(first[twice])
        who, what = (v.item() if isinstance(v, np.generic) else v for v in (an[at], it[at]))
        raise ValueError(
            f"Annotator {who!r} labelled item {what!r} {int(counts[twice])} times "
            f"({int((counts > 1).sum())} such item-annotator pair(s)); keep one label per pair."
        )
    ratings = np.full((item_ids.size, annotator_ids.size), np.nan)
    ratings[row, column] = lab
    return LongRatings(item_ids, annotator_ids, ratings)


def _counts(r: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(categories, counts of shape (n_items, n_categories)), missing ratings left out."""
    cats = np.unique(r[~np.isnan(r)])
    counts = np.stack([(r == c).sum(axis=1) for c in cats], axis=1)
    return cats, counts


def fleiss_kappa(ratings: Any) -> float:
    """Fleiss' kappa (1971) for any number of annotators who each rated every item.

    ``(P_bar - P_e) / (1 - P_e)``: ``P_bar`` the mean share of agreeing annotator pairs per
    item, ``P_e`` the sum of squared category shares. Equal to statsmodels' ``fleiss_kappa``
    on the counts table.

    Examples
    --------
    >>> round(fleiss_kappa([[1, 1, 1], [0, 1, 1], [1, 0, 1], [0, 0, 0]]), 6)
    0.314286
    """
    r = _ratings(ratings)
    if np.isnan(r).any():
        raise ValueError(
            "Fleiss' kappa needs every item rated by every annotator; ratings has "
            f"{int(np.isnan(r).sum())} missing. Use krippendorff_alpha, which allows them."
        )
    _, n_ij = _counts(r)
    n = r.shape[1]
    p_i = ((n_ij * n_ij).sum(axis=1) - n) / (n * (n - 1))
    p_j = n_ij.sum(axis=0) / n_ij.sum()
    p_e = float((p_j * p_j).sum())
    if p_e == 1:
        return float("nan")  # one category only: chance agreement is perfect
    return float((p_i.mean() - p_e) / (1 - p_e))


def krippendorff_alpha(ratings: Any) -> float:
    """Krippendorff's alpha for nominal labels, missing ratings allowed (Krippendorff, 2011,
    "Computing Krippendorff's Alpha-Reliability"): ``1 - D_o / D_e`` from the coincidence
    matrix of pairable values (items rated by at least two annotators). Equal to the
    ``krippendorff`` package's ``alpha(level_of_measurement="nominal")``.

    Examples
    --------
    >>> round(krippendorff_alpha([[0, 0, 1], [1, 1, 1], [1, 0, 1], [0, 0, 0]]), 6)
    0.388889
    """
    r = _ratings(ratings)
    _, counts = _counts(r)
    m = counts.sum(axis=1)
    counts, m = counts[m >= 2], m[m >= 2]
    if not m.size:
        return float("nan")
    # coincidences o_ck = sum over items of n_c (n_k - [c == k]) / (m - 1)
    o = np.einsum("uc,uk->ck", counts / (m - 1)[:, None], counts) - np.diag(
        (counts / (m - 1)[:, None]).sum(axis=0)
    )
    n_c = o.sum(axis=1)
    n = n_c.sum()
    observed = o.sum() - np.trace(o)
    expected = (n_c.sum() ** 2 - (n_c * n_c).sum()) / (n - 1)
    if expected == 0:
        return float("nan")
    return float(1 - observed / expected)


@dataclass(frozen=True)
class AgreementReport:
    """Agreement between annotators on binary labels, and the ceiling it puts on a model.

    ``cohen_kappa``: {(i, j): kappa} for every pair of annotators (NaN for a pair that used
    one label only, or that rated no item in common), given up to
    ``metrics._bounds.MAX_KAPPA_ANNOTATORS`` (100) annotators and empty past it (10,000
    annotators are 50 million pairs: Fleiss' kappa and Krippendorff's alpha say the agreement
    of all of them at once); ``share``: per item the
    share of its annotators saying positive (the soft label); ``majority``: per item the
    majority label (ties to positive); ``pair_agreement``: the chance that two different
    annotators, drawn at random, agree on an item drawn at random; ``ceiling``: the expected
    accuracy, against one annotator drawn at random, of the best possible predictions (each
    item's majority): ``mean(max(q, 1 - q))``. No model can expect more against a random
    annotator, however good it is.
    """

    n_items: int
    n_annotators: int
    cohen_kappa: dict[tuple[int, int], float]
    fleiss_kappa: float
    krippendorff_alpha: float
    share: np.ndarray
    majority: np.ndarray
    pair_agreement: float
    ceiling: float


def annotator_agreement(ratings: Any) -> AgreementReport:
    """Agreement of binary (0/1) annotator labels; see :class:`AgreementReport`.

    Examples
    --------
    >>> a = annotator_agreement([[1, 1, 1], [0, 1, 1], [1, 0, 1], [0, 0, 0]])
    >>> round(a.ceiling, 4), round(a.pair_agreement, 4)
    (0.8333, 0.6667)
    """
    r = _ratings(ratings)
    values = np.unique(r[~np.isnan(r)])
    if not np.isin(values, (0, 1)).all():
        raise ValueError(
            f"Annotator labels must be 0 or 1 (missing as NaN), got {values[:6].tolist()}."
        )
    k = r.shape[1]
    kappas = _pair_kappas(r) if k <= MAX_KAPPA_ANNOTATORS else {}
    pos = np.nansum(r, axis=1)
    m = (~np.isnan(r)).sum(axis=1)
    rated = m > 0
    share = np.where(rated, pos / np.maximum(m, 1), np.nan)
    pairable = m >= 2
    agree = (pos * (pos - 1) + (m - pos) * (m - pos - 1))[pairable] / (m * (m - 1))[pairable]
    return AgreementReport(
        n_items=int(r.shape[0]),
        n_annotators=k,
        cohen_kappa=kappas,
        fleiss_kappa=fleiss_kappa(r) if not np.isnan(r).any() else float("nan"),
        krippendorff_alpha=krippendorff_alpha(r),
        share=share,
        majority=np.where(rated, share >= 0.5, False),
        pair_agreement=float(agree.mean()) if agree.size else float("nan"),
        ceiling=float(np.nanmean(np.maximum(share, 1 - share))),
    )


def _pair_kappas(r: np.ndarray) -> dict[tuple[int, int], float]:
    """Cohen's kappa of every pair of annotators on the items both rated, from four matrix
    products (scikit-learn's ``cohen_kappa_score`` on each pair's 2 x 2 table, without a loop
    over pairs): ``1 - (O01 + O10) / (E01 + E10)`` with ``E`` the product of the margins."""
    # float32 counts are exact up to 2^24 items, more than a table within MAX_RATING_CELLS
    # holds, at half the time of float64 products
    rated = (~np.isnan(r)).astype(np.float32)
    said = np.nan_to_num(r, nan=0.0).astype(np.float32)  # 1 where an annotator said positive
    # (einsum, not a BLAS product: several times faster here on a loaded shared server)
    n = np.einsum("ui,uj->ij", rated, rated).astype(np.float64)  # items both rated
    both = np.einsum("ui,uj->ij", said, said).astype(np.float64)  # both said positive
    first = np.einsum("ui,uj->ij", said, rated).astype(np.float64)  # i said 1, j rated it
    second = first.T
    with np.errstate(invalid="ignore", divide="ignore"):
        disagree = (first - both) + (second - both)
        expected = ((n - first) * second + first * (n - second)) / n
        kappa = 1 - disagree / expected
    i, j = np.triu_indices(r.shape[1], 1)
    return {(int(a), int(b)): float(kappa[a, b]) for a, b in zip(i, j, strict=True)}


def _share_interval(
    correct: np.ndarray, ok: np.ndarray, n_resamples: int, rng: np.random.Generator, alpha: float
) -> tuple[float, float, float]:
    """``sum(correct) / sum(ok)`` over the items and its percentile bootstrap interval.

    A resample of the n items holds each distinct outcome (an item's ``correct`` where ``ok``,
    or not rated) a multinomial number of times with the outcomes' shares as probabilities:
    the same distribution as drawing n item indices, at a cost of resamples x outcomes (three
    for an annotator or the majority) instead of resamples x items (10^9 draws for a million
    items, minutes). The outcomes past :data:`metrics._bounds.MAX_CELLS` over the resamples
    are refused."""
    rated = ok.astype(bool)
    n, total = rated.size, int(rated.sum())
    value = float(correct[rated].sum() / total) if total else float("nan")
    if not total:
        return value, float("nan"), float("nan")
    shares, counts = np.unique(correct[rated].astype(float), return_counts=True)
    outcome = np.r_[shares, 0.0]  # each distinct value where rated; then the unrated items
    rated_outcome = np.r_[np.ones(shares.size), 0.0]
    counts = np.r_[counts, n - total]
    check_cells(
        "score_against_annotators",
        ("n_resamples", n_resamples),
        ("distinct per-item values of one reference", outcome.size),
    )
    hits, seen = np.empty(n_resamples), np.empty(n_resamples)
    block = max(1, 4_000_000 // outcome.size)  # about 32 MB of counts at a time
    for start in range(0, n_resamples, block):
        stop = min(start + block, n_resamples)
        draws = rng.multinomial(n, counts / n, size=stop - start).astype(float)
        hits[start:stop], seen[start:stop] = draws @ outcome, draws @ rated_outcome
    with np.errstate(invalid="ignore", divide="ignore"):
        reps = hits / seen
    reps = reps[np.isfinite(reps)]
    if not reps.size:
        return value, float("nan"), float("nan")
    low, high = np.quantile(reps, [alpha, 1 - alpha])
    return value, float(low), float(high)


def _tally_intervals(
    tallies: np.ndarray, n_resamples: int, rng: np.random.Generator, alpha: float
) -> list[tuple[float, float, float]]:
    """For each reference's (agree, disagree, not rated) counts over the items: the share
    agreeing among the rated items and its percentile bootstrap interval (a resample of the
    items is a multinomial draw of the three counts, as in :func:`_share_interval`).

    References with the same counts have the same bootstrap distribution, so each distinct
    tally is drawn once: 10,000 annotators of three items are a handful of draws."""
    distinct, which = np.unique(tallies, axis=0, return_inverse=True)
    n = int(tallies[0].sum())
    out = np.full((distinct.shape[0], 3), np.nan)
    seen_total = distinct[:, 0] + distinct[:, 1]
    with np.errstate(invalid="ignore", divide="ignore"):
        out[:, 0] = distinct[:, 0] / seen_total
    check_cells(
        "score_against_annotators",
        ("n_resamples", n_resamples),
        ("references with distinct counts", distinct.shape[0]),
    )
    block = max(1, 4_000_000 // (3 * n_resamples))
    for start in range(0, distinct.shape[0], block):
        stop = min(start + block, distinct.shape[0])
        draws = rng.multinomial(n, distinct[start:stop] / n, size=(n_resamples, stop - start))
        with np.errstate(invalid="ignore", divide="ignore"):
            reps = draws[..., 0] / (draws[..., 0] + draws[..., 1])  # NaN: none rated
        with warnings.catch_warnings():  # a reference that rated nothing: NaN, as documented
            warnings.simplefilter("ignore", RuntimeWarning)
            out[start:stop, 1:] = np.nanquantile(reps, [alpha, 1 - alpha], axis=0).T
    return [tuple(float(v) for v in out[i]) for i in np.asarray(which).reshape(-1)]


@dataclass(frozen=True)
class AnnotatorScores:
    """Accuracy of predictions against each reference, with percentile bootstrap intervals
    over items: ``rows`` are (reference, accuracy, low, high); the references are every
    annotator, the majority, the soft label (expected accuracy against a random annotator)."""

    rows: list[tuple[str, float, float, float]]
    ceiling: float
    confidence: float


def score_against_annotators(
    ratings: Any,
    y_pred: Any,
    *,
    names: list[str] | None = None,
    confidence: float = 0.95,
    n_resamples: int = 1000,
    seed: int = 0,
) -> AnnotatorScores:
    """How often binary predictions agree with each annotator, the majority and the soft label.

    The soft label's row is the expected accuracy against an annotator drawn at random,
    ``mean(q if pred else 1 - q)``, comparable with :attr:`AgreementReport.ceiling`.
    Intervals resample items (a percentile bootstrap, seeded; each reference on its own
    resamples, drawn as multinomial counts of its distinct per-item values, so a million
    items cost what a hundred do): ``n_resamples`` from 1 to
    100,000 (``metrics._bounds.MAX_RESAMPLES``; a ValueError past it).

    Examples
    --------
    >>> s = score_against_annotators([[1, 1], [0, 1], [0, 0]], [1, 1, 0], n_resamples=200)
    >>> [(name, round(acc, 3)) for name, acc, _, _ in s.rows]
    [('annotator 1', 0.667), ('annotator 2', 1.0), ('majority', 1.0), ('soft label', 0.833)]
    """
    check_count(n_resamples, "n_resamples", MAX_RESAMPLES)
    r = _ratings(ratings)
    pred = as_real(y_pred, "y_pred").astype(bool)
    if pred.shape != (r.shape[0],):
        raise ValueError(
            f"y_pred has {pred.size} rows but ratings has {r.shape[0]} items; one prediction "
            "per item."
        )
    report = annotator_agreement(r)
    names = list(names) if names is not None else [f"annotator {i + 1}" for i in range(r.shape[1])]
    if len(names) != r.shape[1]:
        raise ValueError(
            f"names has {len(names)} names but ratings has {r.shape[1]} annotators; one name "
            "per annotator (column)."
        )
    n = r.shape[0]
    # Each annotator and the majority: per reference, how many items it rated the prediction
    # agrees with, disagrees with, and did not rate (one pass over the table, not a loop).
    rated = ~np.isnan(r)
    right = rated & ((r == 1) == pred[:, None])
    has_share = ~np.isnan(report.share)
    right_majority = has_share & (report.majority == pred)
    tallies = np.column_stack(
        [
            np.r_[right.sum(axis=0), right_majority.sum()],
            np.r_[(rated & ~right).sum(axis=0), (has_share & ~right_majority).sum()],
            np.r_[n - rated.sum(axis=0), n - has_share.sum()],
        ]
    )
    rng = np.random.default_rng(seed)
    alpha = (1 - confidence) / 2
    intervals = _tally_intervals(tallies, n_resamples, rng, alpha)
    rows = [
        (name, *interval) for name, interval in zip([*names, "majority"], intervals, strict=True)
    ]
    soft = np.where(pred, report.share, 1 - report.share)
    rows.append(
        ("soft label", *_share_interval(np.where(has_share, soft, 0.0), has_share, n_resamples,
                                         rng, alpha))
    )  # fmt: skip
    return AnnotatorScores(rows, report.ceiling, confidence)

"""One metric, several libraries' conventions: ROC AUC as TensorFlow/Keras and Spark compute it;
NDCG@k and MAP@k as trec_eval, scikit-learn and LightGBM compute them.

The exact ROC AUC (:func:`metrics.roc_auc_score`, scikit-learn's) counts every distinct score as
a threshold. Two widely used libraries approximate it:

* **Keras** (``keras.metrics.AUC``, ``curve="ROC"``): ``num_thresholds`` (200) thresholds
  evenly spaced over [0, 1] (plus one just below 0 and one just above 1), a score strictly
  above a threshold counted positive; the curve's area by ``summation_method``:
  ``"interpolation"`` (the trapezoid), ``"minoring"`` (each step's lower height, a lower
  bound) or ``"majoring"`` (the higher, an upper bound). Scores outside [0, 1] all fall on the
  end thresholds, and rows between two thresholds are tied.
* **Spark** (``BinaryClassificationMetrics`` behind ``BinaryClassificationEvaluator``, whose
  ``numBins`` defaults to 1,000): with more distinct scores than bins, the distinct scores
  (descending) are cut into runs of ``n_distinct // num_bins`` consecutive scores, each run
  counted as one threshold (its highest score); then the trapezoid over (0, 0), the points and
  (1, 1).

For rankings (rows grouped by query, graded relevance), the libraries differ in three places
(:func:`ranking_conventions`):

* **ties**: trec_eval breaks tied scores by document id, descending (here the row number
  stands for the id); scikit-learn's ``ndcg_score`` averages the gain over each tied group;
  LightGBM and this library keep row order;
* **gain**: linear (trec_eval, scikit-learn) or ``2**rel - 1`` (LightGBM's default
  ``label_gain``);
* **queries with no relevant row**: skipped (this library), counted as 0 (trec_eval,
  scikit-learn) or as 1 (LightGBM's NDCG);
* and MAP@k's divisor: every relevant row of the query (trec_eval's ``map_cut``) or
  ``min(k, R)`` (the top-k variant of recommender libraries).

PASCAL VOC's average precision (:func:`voc_devkit_ap`) differs from the library's ``voc11`` and
``voc_all`` methods only on tied scores: the devkit takes every row (detection) as its own
point in the order of its sort, so on tied scores its value depends on the rows' order.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from metrics._validation import as_real, check_binary_inputs

__all__ = [
    "KERAS_SUMMATION",
    "GaucConvention",
    "RankConvention",
    "RocConvention",
    "gauc_conventions",
    "keras_cells",
    "keras_roc_auc",
    "ranking_conventions",
    "roc_auc_conventions",
    "sklearn_ndcg_per_query",
    "spark_bins",
    "spark_roc_auc",
    "tied_pairs",
    "tied_relevant_queries",
    "voc_devkit_ap",
    "voc_tie_range",
]

KERAS_SUMMATION = ("interpolation", "minoring", "majoring")
_KERAS_EPSILON = 1e-7


def _keras_thresholds(num_thresholds: int) -> np.ndarray:
    """Keras's thresholds: -1e-7, then i / (num_thresholds - 1) for i = 1 .. num_thresholds - 2,
    then 1 + 1e-7."""
    inner = [(i + 1) / (num_thresholds - 1) for i in range(num_thresholds - 2)]
    return np.array([-_KERAS_EPSILON, *inner, 1.0 + _KERAS_EPSILON])


def keras_roc_auc(
    y_true: Any,
    y_score: Any,
    *,
    num_thresholds: int = 200,
    summation_method: str = "interpolation",
    sample_weight: Any = None,
) -> float:
    """ROC AUC as ``keras.metrics.AUC(num_thresholds, curve="ROC", summation_method)``.

    Examples
    --------
    The example of Keras' documentation (three thresholds: -1e-7, 0.5, 1 + 1e-7):

    >>> keras_roc_auc([0, 0, 1, 1], [0, 0.5, 0.3, 0.9], num_thresholds=3)
    0.75
    """
    if summation_method not in KERAS_SUMMATION:
        raise ValueError(
            f"summation_method must be one of {KERAS_SUMMATION}, got {summation_method!r}."
        )
    if num_thresholds < 2:
        raise ValueError(f"num_thresholds must be at least 2, got {num_thresholds}.")
    y, s, w = check_binary_inputs(y_true, y_score, sample_weight)
    w = np.ones(y.size) if w is None else w
    thresholds = _keras_thresholds(num_thresholds)
    # counts of score > threshold, per threshold (ascending thresholds)
    order = np.argsort(s, kind="stable")
    s_sorted = s[order]
    pos = np.cumsum(np.where(y[order], w[order], 0.0)[::-1])[::-1]
    neg = np.cumsum(np.where(y[order], 0.0, w[order])[::-1])[::-1]
    first_above = np.searchsorted(s_sorted, thresholds, side="right")
    tp = np.append(pos, 0.0)[first_above]
    fp = np.append(neg, 0.0)[first_above]
    n_pos, n_neg = w[y].sum(), w[~y].sum()
    # Keras divides by (tp + fn) and (fp + tn) with divide_no_nan: 0 without a class
    tpr = tp / n_pos if n_pos > 0 else np.zeros_like(tp)
    fpr = fp / n_neg if n_neg > 0 else np.zeros_like(fp)
    x, h = fpr[:-1] - fpr[1:], tpr
    if summation_method == "interpolation":
        heights = (h[:-1] + h[1:]) / 2
    elif summation_method == "minoring":
        heights = np.minimum(h[:-1], h[1:])
    else:
        heights = np.maximum(h[:-1], h[1:])
    return float(np.sum(x * heights))


def spark_roc_auc(
    y_true: Any, y_score: Any, *, num_bins: int = 1000, sample_weight: Any = None
) -> float:
    """ROC AUC as Spark's ``BinaryClassificationMetrics(scoreAndLabels, numBins)`` (one
    partition), the metric of ``BinaryClassificationEvaluator`` (``numBins`` 1,000).

    Examples
    --------
    Four distinct scores in two bins of two (thresholds 0.8 and 0.35): each bin holds a
    positive and a negative, so the ranking inside each is lost (exact AUC 0.75).

    >>> spark_roc_auc([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8], num_bins=2)
    0.5
    >>> spark_roc_auc([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8], num_bins=0)  # no binning: exact
    0.75
    """
    y, s, w = check_binary_inputs(y_true, y_score, sample_weight)
    w = np.ones(y.size) if w is None else w
    # Per distinct score, descending; a score of weight 0 is still a key (a bin member) in
    # Spark, unlike scikit-learn, which drops it
    distinct, inverse = np.unique(s, return_inverse=True)
    pos = np.bincount(inverse, np.where(y, w, 0.0), distinct.size)[::-1]
    neg = np.bincount(inverse, np.where(y, 0.0, w), distinct.size)[::-1]
    n = distinct.size
    if num_bins > 0:
        grouping = n // num_bins
        if grouping >= 2:  # Spark's grouped(grouping): runs of that many, the last shorter
            starts = np.arange(0, n, grouping)
            pos = np.add.reduceat(np.asarray(pos, dtype=np.float64), starts)
            neg = np.add.reduceat(np.asarray(neg, dtype=np.float64), starts)
    tp = np.concatenate(([0.0], np.cumsum(pos, dtype=np.float64)))
    fp = np.concatenate(([0.0], np.cumsum(neg, dtype=np.float64)))
    if tp[-1] == 0 or fp[-1] == 0:
        return float("nan")
    tpr, fpr = np.append(tp / tp[-1], 1.0), np.append(fp / fp[-1], 1.0)
    return float(np.sum(np.diff(fpr) * (tpr[1:] + tpr[:-1]) / 2))


def keras_cells(y_score: Any, *, num_thresholds: int = 200) -> np.ndarray:
    """For each score, how many of Keras's thresholds it lies strictly above (0 to
    ``num_thresholds``): rows in one cell are tied for Keras, whatever their scores.

    Keras's trapezoid (``summation_method="interpolation"``) is the exact ROC AUC of these
    cells taken as the scores.

    >>> keras_cells([0.0, 0.004, 0.006, 0.5, 1.0, 7.0]).tolist()
    [1, 1, 2, 100, 199, 200]
    """
    s = as_real(y_score, "y_score").reshape(-1)
    return np.searchsorted(_keras_thresholds(num_thresholds), s, side="left")


def spark_bins(y_score: Any, *, num_bins: int = 1000) -> np.ndarray:
    """Each score's bin in Spark's ``BinaryClassificationMetrics`` (one partition): 0 for the
    run of highest distinct scores, then 1, ... Without binning (``num_bins`` 0, or fewer
    than ``2 * num_bins`` distinct scores) each distinct score is its own bin.

    Spark's AUC is the exact ROC AUC of the negated bins taken as the scores.

    >>> spark_bins([0.1, 0.4, 0.35, 0.8], num_bins=2).tolist()
    [1, 0, 1, 0]
    """
    s = as_real(y_score, "y_score").reshape(-1)
    distinct, inverse = np.unique(s, return_inverse=True)
    descending = distinct.size - 1 - inverse.reshape(-1)
    grouping = distinct.size // num_bins if num_bins > 0 else 0
    return descending // grouping if grouping >= 2 else descending


def tied_pairs(y_true: Any, keys: Any, *, sample_weight: Any = None) -> float:
    """The (positive, negative) pairs sharing a key, by weight: the pairs an AUC counts one
    half. With the scores as keys, the ties of the data; with :func:`keras_cells` or
    :func:`spark_bins`, the ties of that convention.

    >>> tied_pairs([0, 1, 1, 0], [0.2, 0.2, 0.5, 0.5])
    2.0
    """
    y, k, w = check_binary_inputs(y_true, keys, sample_weight)
    w = np.ones(y.size) if w is None else w
    _, inverse = np.unique(k, return_inverse=True)
    pos = np.bincount(inverse, np.where(y, w, 0.0))
    neg = np.bincount(inverse, np.where(y, 0.0, w))
    return float(pos @ neg)


@dataclass(frozen=True)
class RocConvention:
    """ROC AUC as one library computes it, and why it differs from the exact value.

    ``tied_pairs``: the (positive, negative) pairs the convention ties (counts one half,
    or in Keras's bounds 0 or 1), by weight; ``extra_tied_pairs`` those of them whose scores
    differ, the pairs whose order it loses; ``outside``: rows whose score is outside [0, 1]
    (Keras puts them on its end thresholds).
    """

    library: str
    setting: str
    auc: float
    tied_pairs: float
    extra_tied_pairs: float
    outside: int = 0


def roc_auc_conventions(
    y_true: Any,
    y_score: Any,
    *,
    sample_weight: Any = None,
    num_thresholds: int = 200,
    num_bins: int = 1000,
) -> list[RocConvention]:
    """ROC AUC under the conventions of scikit-learn (exact), Keras (``num_thresholds``,
    three summation methods) and Spark's evaluator (``num_bins``), each with the pairs it ties.

    >>> [round(c.auc, 4) for c in roc_auc_conventions([0, 0, 1, 1], [0, 0.5, 0.3, 0.9],
    ...                                               num_thresholds=3, num_bins=2)]
    [0.75, 0.75, 0.5, 1.0, 0.5]
    """
    from metrics.areas import roc_auc_score

    y, s, w = check_binary_inputs(y_true, y_score, sample_weight)
    exact_ties = tied_pairs(y, s, sample_weight=w)
    cells = keras_cells(s, num_thresholds=num_thresholds)
    keras_ties = tied_pairs(y, cells, sample_weight=w)
    outside = int(np.sum((s < 0) | (s > 1)))
    bins = spark_bins(s, num_bins=num_bins)
    spark_ties = tied_pairs(y, bins, sample_weight=w)
    keras = f"keras.metrics.AUC(num_thresholds={num_thresholds}"
    out = [
        RocConvention(
            "scikit-learn", "roc_auc_score", roc_auc_score(y, s, sample_weight=w), exact_ties, 0.0
        )
    ]
    for method in KERAS_SUMMATION:
        setting = keras + (")" if method == "interpolation" else f", summation_method='{method}')")
        auc = keras_roc_auc(
            y, s, num_thresholds=num_thresholds, summation_method=method, sample_weight=w
        )
        out.append(
            RocConvention("Keras", setting, auc, keras_ties, keras_ties - exact_ties, outside)
        )
    out.append(
        RocConvention(
            "Spark",
            f"BinaryClassificationEvaluator(numBins={num_bins})",
            spark_roc_auc(y, s, num_bins=num_bins, sample_weight=w),
            spark_ties,
            spark_ties - exact_ties,
        )
    )
    return out


# --- rankings ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class RankConvention:
    """NDCG@k or MAP@k as one library computes it: its mean over ``n_counted`` of the
    ``n_queries`` queries, its ties, gain and handling of queries with no relevant row."""

    metric: str
    library: str
    setting: str
    value: float
    n_counted: int
    n_queries: int
    ties: str
    no_relevant: str


def sklearn_ndcg_per_query(y_true: Any, y_score: Any, groups: Any, *, k: int | None) -> np.ndarray:
    """Each query's ``sklearn.metrics.ndcg_score([rel], [score], k=k)`` (``ignore_ties=False``):
    a tied group of scores shares its positions' discounts, each row the group's mean gain; 0
    for a query with no relevant row. Queries in order of their sorted ids."""
    from metrics.ranking import _check_grouped

    rel, s, codes, _ids = _check_grouped(y_true, y_score, groups)
    n_q = int(codes.max()) + 1 if codes.size else 0
    order = np.lexsort((-s, codes))  # by query, then by descending score
    q, sc, g = codes[order], s[order], rel[order]
    counts = np.bincount(q, minlength=n_q)
    first_row = np.cumsum(counts) - counts
    pos = np.arange(q.size) - first_row[q]  # rank within the query, from 0
    longest = int(counts.max()) if n_q else 0
    discount = 1.0 / np.log2(np.arange(2, longest + 2))
    if k is not None:
        discount[k:] = 0.0
    cum = np.concatenate(([0.0], np.cumsum(discount)))  # cum[i]: the first i positions
    # tie runs: equal (query, score) in a row
    new = np.ones(q.size, dtype=bool)
    new[1:] = (q[1:] != q[:-1]) | (sc[1:] != sc[:-1])
    run = np.cumsum(new) - 1
    starts = np.flatnonzero(new)
    ends = np.append(starts[1:], q.size)
    run_gain = np.bincount(run, weights=g) / (ends - starts)
    run_discount = cum[pos[ends - 1] + 1] - cum[pos[starts]]
    dcg = np.bincount(q[starts], weights=run_gain * run_discount, minlength=n_q)
    ideal_order = np.lexsort((-g, q))
    ideal = g[ideal_order]
    idcg = np.bincount(q, weights=ideal * discount[pos], minlength=n_q)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(idcg > 0, dcg / np.where(idcg > 0, idcg, 1.0), 0.0)


def ranking_conventions(
    y_true: Any, y_score: Any, groups: Any, *, k: int = 10
) -> list[RankConvention]:
    """NDCG@k and MAP@k on query-grouped rows under the conventions of this library,
    trec_eval (``ndcg_cut.k``, ``map_cut.k``), scikit-learn (``ndcg_score`` per query),
    LightGBM (``ndcg@k``) and the top-k MAP that divides by ``min(k, R)``.

    Query 1 ties its first two rows (grades 2 and 0); query 2 has no relevant row.

    >>> y, s, q = [2, 0, 1, 0, 0, 0], [0.5, 0.5, 0.2, 0.9, 0.3, 0.1], [1, 1, 1, 2, 2, 2]
    >>> [(c.library, round(c.value, 4), c.n_counted) for c in ranking_conventions(y, s, q, k=2)]
    ... # doctest: +NORMALIZE_WHITESPACE
    [('metrics', 0.7602, 1), ('trec_eval', 0.2398, 2), ('scikit-learn', 0.31, 2),
     ('LightGBM', 0.9131, 2), ('metrics', 0.5, 1), ('trec_eval', 0.125, 2),
     ('top-k MAP', 0.5, 1)]
    """
    from metrics.ranking import _average_precision, _check_grouped, _ndcg, _rank

    if not isinstance(k, int | np.integer) or isinstance(k, bool) or k < 1:
        raise ValueError(f"k must be a positive integer, got {k!r}.")
    rel, s, codes, ids = _check_grouped(y_true, y_score, groups)
    rows = _rank(rel, s, codes, ids)
    # trec_eval breaks ties by document id, descending: the row order reversed
    flipped = _rank(rel[::-1], s[::-1], codes[::-1], ids)
    n_q = rows.n_queries
    has = rows.has_relevant
    counted = int(has.sum())

    def skipped(values: np.ndarray) -> float:
        return float(values[has].mean()) if counted else float("nan")

    def as_zero(values: np.ndarray) -> float:
        return float(np.nan_to_num(values, nan=0.0).mean()) if n_q else float("nan")

    row_order, by_id, averaged = "row order", "document id, descending", "gain averaged"
    skip, zero, one = "skipped", "counted as 0", "counted as 1"
    lightgbm = np.where(has, _ndcg(rows, k, "exponential"), 1.0)
    return [
        RankConvention(
            "NDCG", "metrics", f"ndcg_at_k(k={k})", skipped(_ndcg(rows, k, "linear")),
            counted, n_q, row_order, skip,
        ),
        RankConvention(
            "NDCG", "trec_eval", f"ndcg_cut.{k}", as_zero(_ndcg(flipped, k, "linear")),
            n_q, n_q, by_id, zero,
        ),
        RankConvention(
            "NDCG", "scikit-learn", f"ndcg_score(k={k}), per query",
            float(sklearn_ndcg_per_query(rel, s, codes, k=k).mean()) if n_q else float("nan"),
            n_q, n_q, averaged, zero,
        ),
        RankConvention(
            "NDCG", "LightGBM", f"ndcg@{k} (label_gain 2^rel − 1)",
            float(lightgbm.mean()) if n_q else float("nan"), n_q, n_q, row_order, one,
        ),
        RankConvention(
            "MAP", "metrics", f"mean_average_precision(k={k})",
            skipped(_average_precision(rows, k, "relevant")), counted, n_q, row_order, skip,
        ),
        RankConvention(
            "MAP", "trec_eval", f"map_cut.{k}", as_zero(_average_precision(flipped, k, "relevant")),
            n_q, n_q, by_id, zero,
        ),
        RankConvention(
            "MAP", "top-k MAP", f"AP@{k} / min({k}, R)",
            skipped(_average_precision(rows, k, "min_k")), counted, n_q, row_order, skip,
        ),
    ]  # fmt: skip


def tied_relevant_queries(y_true: Any, y_score: Any, groups: Any) -> int:
    """How many queries hold a relevant row whose score another row of the query shares: the
    queries where the libraries' tie-breaks can give different values.

    >>> y, s, q = [2, 0, 1, 0, 0, 0], [0.5, 0.5, 0.2, 0.9, 0.9, 0.1], [1, 1, 1, 2, 2, 2]
    >>> tied_relevant_queries(y, s, q)  # query 2's tie holds no relevant row
    1
    """
    from metrics.ranking import _check_grouped

    rel, s, codes, _ids = _check_grouped(y_true, y_score, groups)
    pairs = np.unique(np.column_stack((codes, s)), axis=0, return_inverse=True)[1].reshape(-1)
    size = np.bincount(pairs)
    relevant = np.bincount(pairs, weights=rel > 0)
    tied = (size > 1) & (relevant > 0)
    return int(np.unique(codes[tied[pairs]]).size)


# --- GAUC -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class GaucConvention:
    """GAUC as one library computes it, on the rows given.

    ``low`` and ``high`` bound the value where the library breaks tied scores by sort order
    (every tied positive-negative pair of a counted user lost, or won); they equal ``gauc``
    elsewhere. ``contribution`` is each user's share of ``gauc`` minus the first convention's
    value (they sum to it exactly where both are defined), in the order of
    ``metrics.group_auc_table``'s groups."""

    library: str
    setting: str
    gauc: float
    low: float
    high: float
    users: int  # counted in the mean
    skipped: int  # left out
    weighted: bool  # whether the library reads sample weights
    contribution: np.ndarray


def _user_ties(y: np.ndarray, s: np.ndarray, codes: np.ndarray, n_groups: int) -> np.ndarray:
    """Positive-negative pairs with equal scores within each user (unweighted counts)."""
    order = np.lexsort((s, codes))
    c, v, pos = codes[order], s[order], y[order]
    new = np.ones(c.size, dtype=bool)
    new[1:] = (c[1:] != c[:-1]) | (v[1:] != v[:-1])
    starts = np.flatnonzero(new)
    p = np.add.reduceat(pos.astype(np.int64), starts) if starts.size else np.zeros(0, np.int64)
    n = np.diff(np.append(starts, c.size)) - p
    return np.bincount(c[starts], weights=(p * n).astype(np.float64), minlength=n_groups)


def _torchrec_identical(s: np.ndarray, codes: np.ndarray, n_groups: int) -> np.ndarray:
    """TorchRec skips a session whose every prediction equals its first one or 0 (its padding)."""
    first = np.full(n_groups, s.size, dtype=np.intp)
    np.minimum.at(first, codes, np.arange(s.size))
    other = (s != s[first][codes]) & (s != 0)
    return np.bincount(codes, weights=other.astype(np.float64), minlength=n_groups) == 0


def gauc_conventions(
    y_true: Any, y_score: Any, groups: Any, *, sample_weight: Any = None
) -> list[GaucConvention]:
    """GAUC under the conventions of the code people compute it with: the mean of each user's
    ROC AUC, weighted by the user's rows (as the DIN paper defines it, and this library's
    default), by positives (RecBole's ``GAUC``: each user's AUC from mean ranks, so ties count
    one half) or equally (the plain mean), and TorchRec's ``GAUCMetric``: a plain mean that also
    skips users whose scores are all equal (or 0, its padding) and breaks tied scores by sort
    order, so its value lies between ``low`` and ``high``. RecBole and TorchRec read no sample
    weights: with ``sample_weight`` their rows count once each. Every convention skips users
    with one class only.

    >>> c = gauc_conventions([1, 0, 1, 0, 0, 1, 1, 0, 0], [.9, .2, .4, .4, .5, .5, .6, .1, .7],
    ...                      ["a", "a", "a", "a", "b", "b", "c", "c", "c"])
    >>> [(x.library, round(x.gauc, 4)) for x in c]  # doctest: +NORMALIZE_WHITESPACE
    [('DIN (impressions)', 0.6667), ('RecBole', 0.6875), ('plain mean', 0.625),
     ('TorchRec', 0.6875)]
    >>> round(c[-1].low, 4), round(c[-1].high, 4), c[-1].skipped  # b's scores are all equal
    (0.625, 0.75, 1)
    """
    from metrics.groups import _check_groups, _factorize, group_auc_table

    y, s, w = check_binary_inputs(y_true, y_score, sample_weight)
    ids = _check_groups(groups, y.size)
    weighted = group_auc_table(y, s, ids, sample_weight=w)
    plain = weighted if w is None else group_auc_table(y, s, ids)
    _, codes, _ = _factorize(ids)
    n_groups = plain.group.size
    pairs = (plain.positives * plain.negatives).astype(np.float64)
    ties = _user_ties(y, s, codes, n_groups)
    with np.errstate(invalid="ignore", divide="ignore"):
        half = np.where(plain.defined, ties / (2 * pairs), 0.0)
    torch_users = plain.defined & ~_torchrec_identical(s, codes, n_groups)

    def share(weight: np.ndarray) -> np.ndarray:
        total = weight.sum()
        return weight / total if total > 0 else weight * 0.0

    base = share(weighted.weights("impressions").astype(np.float64))
    auc = np.where(weighted.defined | plain.defined, np.nan_to_num(weighted.auc), 0.0)
    auc_plain = np.nan_to_num(plain.auc)

    def make(library, setting, p, values, *, spread=None, reads_weights=True, counted=None):
        p = np.asarray(p, dtype=np.float64)
        value = float(np.dot(p, values)) if p.sum() > 0 else float("nan")
        lo = hi = value
        if spread is not None and p.sum() > 0:
            lo, hi = value - float(np.dot(p, spread)), value + float(np.dot(p, spread))
        users = int(np.count_nonzero(counted))
        return GaucConvention(
            library, setting, value, lo, hi, users, n_groups - users, reads_weights,
            p * values - base * auc,
        )  # fmt: skip

    out = [
        make(
            "DIN (impressions)", "weight: rows per user",
            base, auc, counted=weighted.defined,
        ),
        make(
            "RecBole", "GAUC: weight: positives; ties at mean rank",
            share(plain.weights("positives").astype(np.float64)), auc_plain,
            reads_weights=False, counted=plain.defined,
        ),
        make(
            "plain mean", "weight: 1 per user",
            share(weighted.weights("uniform").astype(np.float64)), auc,
            counted=weighted.defined,
        ),
        make(
            "TorchRec", "GAUCMetric: weight 1; all-equal users out; ties by sort",
            share(torch_users.astype(np.float64)), auc_plain, spread=half,
            reads_weights=False, counted=torch_users,
        ),
    ]  # fmt: skip
    return out


VOC_SORTS = ("stable", "quicksort")


def _voc_ap_sorted(hit: np.ndarray, n_positive: float, method: str) -> float:
    """VOCevaldet's precision and recall per row (``hit`` in ranked order), then VOCap's
    all-point sum or the 11-point mean."""
    tp = np.cumsum(hit, dtype=np.float64)
    fp = np.cumsum(~hit, dtype=np.float64)
    rec = tp / n_positive
    prec = tp / (tp + fp)
    if method == "voc11":  # VOC 2007: for t = 0:0.1:1, the best precision at recall >= t
        levels = np.arange(0.0, 1.1, 0.1)  # as the Python port builds them
        best = np.maximum.accumulate(prec[::-1])[::-1]
        at = np.searchsorted(rec, levels, side="left")  # first row with recall >= t
        return float(np.where(at < rec.size, best[np.minimum(at, rec.size - 1)], 0.0).sum() / 11)
    mrec = np.concatenate([[0.0], rec, [1.0]])
    mpre = np.concatenate([[0.0], prec, [0.0]])
    mpre = np.maximum.accumulate(mpre[::-1])[::-1]
    i = np.flatnonzero(mrec[1:] != mrec[:-1]) + 1
    return float(np.sum((mrec[i] - mrec[i - 1]) * mpre[i]))


def _voc_inputs(y_true: Any, y_score: Any, method: str, n_positive: Any):
    if method not in ("voc11", "voc_all"):
        raise ValueError(f'method must be "voc11" (VOC 2007) or "voc_all" (2010+), got {method!r}.')
    y, s, _ = check_binary_inputs(y_true, y_score, None, None)
    npos = float(y.sum()) if n_positive is None else float(n_positive)
    if not npos >= max(float(y.sum()), 1.0) or not np.isfinite(npos):
        raise ValueError(
            f"n_positive must be a number at least the {int(y.sum())} positive rows (and at "
            f"least 1): the ground-truth objects, found or missed; got {n_positive!r}."
        )
    return y, s, npos


def voc_devkit_ap(
    y_true: Any,
    y_score: Any,
    *,
    method: str = "voc_all",
    sort: str = "stable",
    n_positive: float | None = None,
) -> float:
    """Average precision as the PASCAL VOC devkit computes it, tied scores in row order.

    The devkit (``VOCevaldet.m``) sorts the detections by ``sort(-confidence)`` and makes each
    one a point of the precision-recall curve, tied or not; ``VOCap.m`` (VOC 2010+, ``voc_all``)
    sums the precision envelope over the recall steps, VOC 2007 (``voc11``) averages the best
    precision at recall 0, 0.1, ..., 1. MATLAB's ``sort`` is stable, so tied rows keep their
    row order (``sort="stable"``); the widely copied Python port (``voc_eval.py`` of
    py-faster-rcnn and its descendants) calls ``np.argsort(-confidence)``, numpy's default
    quicksort, which is not stable (``sort="quicksort"``: what that port gives here). Either
    way the value on tied scores depends on the rows' order; :func:`voc_tie_range` gives its
    range, and :func:`metrics.average_precision_score` (``voc11``, ``voc_all``) groups ties,
    which no row order changes.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        1 for a true detection, 0 for a false one.
    y_score : array-like of shape (n_samples,)
        The detections' confidences.
    method : {"voc_all", "voc11"}, default "voc_all"
    sort : {"stable", "quicksort"}, default "stable"
    n_positive : float, optional
        The ground-truth objects (``npos``), found or missed; default the positive rows.

    Examples
    --------
    >>> voc_devkit_ap([1, 0], [0.5, 0.5]), voc_devkit_ap([0, 1], [0.5, 0.5])
    (1.0, 0.5)
    """
    if sort not in VOC_SORTS:
        raise ValueError(f"sort must be one of {VOC_SORTS}, got {sort!r}.")
    y, s, npos = _voc_inputs(y_true, y_score, method, n_positive)
    order = np.argsort(-s, kind="stable") if sort == "stable" else np.argsort(-s)
    return _voc_ap_sorted(y[order], npos, method)


def voc_tie_range(
    y_true: Any, y_score: Any, *, method: str = "voc_all", n_positive: float | None = None
) -> tuple[float, float]:
    """The lowest and highest :func:`voc_devkit_ap` over every order of the tied rows: false
    detections first within each tie, then true ones first (moving a true detection ahead of
    a false one never lowers a precision). Equal when no tie mixes the two.

    >>> voc_tie_range([0, 1, 1], [0.5, 0.5, 0.2])
    (0.6666666666666666, 0.8333333333333333)
    """
    y, s, npos = _voc_inputs(y_true, y_score, method, n_positive)
    low = np.lexsort((y, -s))  # within a tie, false detections (0) first
    high = np.lexsort((~y, -s))
    return _voc_ap_sorted(y[low], npos, method), _voc_ap_sorted(y[high], npos, method)

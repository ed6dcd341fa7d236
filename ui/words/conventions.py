"""ROC AUC under other libraries' conventions: the table and the sentences that say why each
value differs on the user's rows (pure: values in, a frame and text out)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from metrics.conventions import GaucConvention, RankConvention, RocConvention
from ui.words.numbers import decimals, plural

SOURCES = (
    "Keras: keras.metrics.AUC (num_thresholds, summation_method); Spark: "
    "pyspark.ml.evaluation.BinaryClassificationEvaluator (numBins, default 1,000) over "
    "BinaryClassificationMetrics."
)


def table(conventions: list[RocConvention]) -> pd.DataFrame:
    """One row per convention: the library, the call, its AUC, the difference from the exact
    value and the positive-negative pairs it counts as tied."""
    exact = conventions[0].auc
    return pd.DataFrame(
        {
            "library": [c.library for c in conventions],
            "as called": [c.setting for c in conventions],
            "ROC AUC": [decimals(c.auc) for c in conventions],
            "− exact": [
                "" if i == 0 else decimals(c.auc - exact, 6, plus=True)
                for i, c in enumerate(conventions)
            ],
            "tied pairs": [f"{c.tied_pairs:,.0f}" for c in conventions],
            "tied only by the convention": [
                "" if i == 0 else f"{c.extra_tied_pairs:,.0f}" for i, c in enumerate(conventions)
            ],
        }
    )


def reasons(
    conventions: list[RocConvention], scores: np.ndarray, *, num_bins: int = 1000
) -> list[str]:
    """Why each library's value differs here, in a sentence each (markdown)."""
    exact, keras, spark = conventions[0], conventions[1], conventions[-1]
    pairs = exact.tied_pairs
    out = [
        "**scikit-learn** (and pROC, and Spark with `numBins=0`) takes every distinct score as "
        "a threshold: a positive and a negative with equal scores count one half "
        + (f"({pairs:,.0f} such pairs here)." if pairs else "(no such pair here).")
    ]
    lost = keras.extra_tied_pairs
    keras_text = (
        "**Keras** counts a score as positive when it is strictly above each of 200 thresholds "
        "evenly spaced over [0, 1], so rows between two neighbouring thresholds are tied: "
    )
    if lost:
        keras_text += (
            f"{lost:,.0f} positive-negative pairs with different scores fall in one cell and "
            "count one half (the trapezoid, `interpolation`), 0 (`minoring`, a lower bound) or "
            "1 (`majoring`, an upper bound)."
        )
    else:
        keras_text += "no two rows of different classes share a cell here, so it is exact."
    if keras.outside:
        keras_text += (
            f" {plural(keras.outside, 'score')} outside [0, 1] sit on the end thresholds, all "
            "tied: Keras expects probabilities in [0, 1]."
        )
    out.append(keras_text)
    distinct = int(np.unique(scores).size)
    grouping = distinct // num_bins if num_bins > 0 else 0
    if grouping >= 2:
        spark_text = (
            f"**Spark**'s evaluator cuts the {distinct:,} distinct scores, highest first, into "
            f"runs of {grouping:,} ({distinct:,} // {num_bins:,} bins), each run one threshold: "
            f"{spark.extra_tied_pairs:,.0f} pairs with different scores share a run. (On a "
            "cluster the runs restart in each partition of the sorted scores; these are one "
            "partition's.)"
        )
    else:
        spark_text = (
            f"**Spark**'s evaluator bins only past {2 * num_bins:,} distinct scores; with "
            f"{distinct:,} here it is exact."
        )
    out.append(spark_text)
    return out


RANKING_SOURCES = (
    "trec_eval: ndcg_cut.k and map_cut.k (also pytrec_eval); scikit-learn: "
    "sklearn.metrics.ndcg_score (ignore_ties=False), which takes one query per call; LightGBM: "
    "the ndcg@k metric with its default label_gain; top-k MAP: LightGBM's map@k, RecBole's "
    "MAP@K, Kaggle's apk."
)


def ranking_table(conventions: list[RankConvention]) -> pd.DataFrame:
    """One row per metric and library: the value, the queries its mean counts, and the three
    choices that make the libraries differ."""
    return pd.DataFrame(
        {
            "metric": [c.metric for c in conventions],
            "library": [c.library for c in conventions],
            "as called": [c.setting for c in conventions],
            "value": [decimals(c.value) for c in conventions],
            "queries counted": [f"{c.n_counted:,} of {c.n_queries:,}" for c in conventions],
            "ties": [c.ties for c in conventions],
            "queries with no relevant row": [c.no_relevant for c in conventions],
        }
    )


def ranking_reasons(conventions: list[RankConvention], *, tied_queries: int) -> list[str]:
    """What makes the values differ on these rows (markdown sentences)."""
    first = conventions[0]
    empty = first.n_queries - first.n_counted
    out = []
    if empty:
        out.append(
            f"{plural(empty, 'query', 'queries')} of {first.n_queries:,} have no relevant row: "
            "this library leaves them out of the means, trec_eval and scikit-learn count them "
            "as 0 and LightGBM's NDCG as 1."
        )
    else:
        out.append("Every query has a relevant row, so no library leaves one out or scores it 0.")
    if tied_queries:
        out.append(
            f"{plural(tied_queries, 'query', 'queries')} tie a relevant row's score with another "
            "row's: trec_eval breaks the tie by document id (here the row number, highest "
            "first), scikit-learn averages the tied rows' gains, LightGBM and this library keep "
            "the rows' order."
        )
    else:
        out.append(
            "No relevant row shares its score with another row of its query: ties change nothing."
        )
    out.append(
        "LightGBM's gain is 2^rel − 1, which weighs a grade-3 row 7 times a grade-1 row where the "
        "linear gain weighs it 3 times; with grades 0/1 the two are equal."
    )
    return out


GAUC_SOURCES = (
    "DIN: Zhou et al., Deep Interest Network for Click-Through Rate Prediction (KDD 2018), the "
    "GAUC weighted by each user's impressions; RecBole: recbole.evaluator.metrics.GAUC on its "
    "collector's mean ranks; TorchRec: torchrec.metrics.gauc.GAUCMetric (compute_gauc_3d)."
)


def gauc_table(conventions: list[GaucConvention], users: np.ndarray) -> pd.DataFrame:
    """One row per library: its GAUC (with the range its tie-breaking allows), the gap from the
    impressions-weighted value, the users it counts, and the user whose share moves it most."""
    first = conventions[0].gauc

    def range_of(c: GaucConvention) -> str:
        lo, hi = decimals(c.low), decimals(c.high)
        return "" if lo == hi else f"{lo} to {hi}"

    def mover(i: int, c: GaucConvention) -> str:
        if i == 0 or not np.any(c.contribution):
            return ""
        top = int(np.argmax(np.abs(c.contribution)))
        return f"{users[top]} ({decimals(c.contribution[top], plus=True)})"

    return pd.DataFrame(
        {
            "library": [c.library for c in conventions],
            "GAUC": [decimals(c.gauc) for c in conventions],
            "as ties fall": [range_of(c) for c in conventions],
            "− impressions": [
                "" if i == 0 else decimals(c.gauc - first, plus=True)
                for i, c in enumerate(conventions)
            ],
            "users": [f"{c.users:,}" for c in conventions],
            "skipped": [f"{c.skipped:,}" for c in conventions],
            "moved most by": [mover(i, c) for i, c in enumerate(conventions)],
            # last: the longest text; on a phone the values come first, before a sideways scroll
            "as computed": [c.setting for c in conventions],
        }
    )


def gauc_reasons(
    conventions: list[GaucConvention], *, weighted: bool, nonpositive_scores: int
) -> list[str]:
    """Why each library's GAUC differs on these rows (markdown sentences)."""
    din, recbole, plain, torchrec = conventions
    out = [
        "**The weights.** The DIN paper weights each user's AUC by the user's impressions "
        "(rows), so heavy users dominate; RecBole (which cites that paper) weights by "
        "positives, so users who click more count more; the plain mean counts every user once, "
        f"so a user with 2 rows counts as much as one with 2,000. Here: "
        f"{decimals(din.gauc)}, {decimals(recbole.gauc)} and {decimals(plain.gauc)}. The last "
        "column names the user whose change of weight moves each value most away from the "
        "impressions-weighted one, and by how much (users' moves partly cancel)."
    ]
    extra = torchrec.skipped - plain.skipped
    tor = (
        "**TorchRec** takes the plain mean, but also skips "
        + (
            f"{plural(extra, 'user')} whose scores are all equal (the others count them as AUC 0.5)"
            if extra > 0
            else "users whose scores are all equal (none here)"
        )
        + ", and it breaks tied scores within a user by the order its sort leaves them in "
    )
    if torchrec.low == torchrec.high:
        tor += "(no user of it has a positive and a negative tied here, so the order is moot)."
    elif decimals(torchrec.low) == decimals(torchrec.high):
        tor += (
            f"(not stable); the few tied pairs here move it by less than 0.0001 either way "
            f"({torchrec.low:.6f} to {torchrec.high:.6f})."
        )
    else:
        tor += (
            f"(not stable): its value lies anywhere from {decimals(torchrec.low)} (every tied "
            f"pair lost) to {decimals(torchrec.high)} (every one won); {decimals(torchrec.gauc)} "
            "is the middle, ties counted one half."
        )
    if nonpositive_scores:
        tor += (
            f" It pads sessions with scores of 0, so {plural(nonpositive_scores, 'score')} at or "
            "below 0 here would meet the padding: give it probabilities."
        )
    out.append(tor)
    out.append(
        "**Skipped users.** Every library leaves out users with one class only: their AUC is "
        f"undefined ({plural(plain.skipped, 'user')} here)."
    )
    if weighted:
        out.append(
            "**Sample weights.** RecBole and TorchRec read none: their rows count once each, "
            "where the DIN and plain-mean rows here use the weights."
        )
    return out


def voc_tie_sentence(y: np.ndarray, scores: np.ndarray, weight: np.ndarray | None) -> str:
    """What the PASCAL VOC devkit gives on these rows in their order, and its range over the
    orders of tied rows (markdown); a short sentence when no tie mixes the classes."""
    from metrics.conventions import voc_devkit_ap, voc_tie_range

    y = np.asarray(y, bool)
    s = np.asarray(scores, np.float64)
    _, codes = np.unique(s, return_inverse=True)
    pos = np.bincount(codes, y)
    size = np.bincount(codes)
    mixed = (pos > 0) & (pos < size)
    n_mixed = int(size[mixed].sum())
    devkit = (
        "The PASCAL VOC devkit makes every row its own point of the curve, in the order of "
        "`sort(-confidence)`"
    )
    if n_mixed == 0:
        return (
            f"{devkit}; no tied score here mixes positives and negatives, so it gives the VOC "
            "values above in any row order."
        )
    a07, a12 = (voc_devkit_ap(y, s, method=m) for m in ("voc11", "voc_all"))
    (l07, h07), (l12, h12) = (voc_tie_range(y, s, method=m) for m in ("voc11", "voc_all"))
    weights = (
        " (it reads no weights: these are the rows unweighted)"
        if weight is not None and not np.all(np.asarray(weight) == 1)
        else ""
    )
    return (
        f"**The VOC devkit depends on row order here.** {plural(n_mixed, 'row')} share a score "
        "with a row of the other class. The VOC values above group each tie into one point, "
        f"which no row order changes. {devkit} (MATLAB's sort is stable: tied rows stay in "
        "row order; the Python port's `np.argsort(-confidence)` is not stable, so its order "
        f"of ties is numpy's){weights}. In this table's row order the devkit gives VOC 2007 "
        f"{decimals(a07)} and VOC 2010+ {decimals(a12)}; over the orders of the tied rows, "
        f"{decimals(l07)} to {decimals(h07)} and {decimals(l12)} to {decimals(h12)} "
        "(negatives first in each tie, then positives first)."
    )

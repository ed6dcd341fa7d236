"""ROC AUC under other libraries' conventions: the table and the sentences that say why each
value differs on the user's rows (pure: values in, a frame and text out)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from metrics.conventions import RocConvention
from ui.numbers import decimals, plural

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

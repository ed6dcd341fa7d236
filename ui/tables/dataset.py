"""A dataset: a table, its column mapping and the arrays the metrics take; the bundled samples.

Pure (no Streamlit): a source makes a :class:`Dataset` (the cached reading and preparing are in
:mod:`ui.compute.data`), and every page reads the same fields from it.
"""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

import metrics
from ui.tables.checking import Prepared
from ui.tables.loading import ColumnMapping
from ui.tables.score_state import ScoreState

SAMPLE_DIR = Path(__file__).resolve().parents[2] / "sample_data"

_DIGIT_CLASSES = ("even", "prime", "greater_than_4", "closed_loop", "multiple_of_3", "two_loops")


@dataclass(frozen=True)
class BundledDataset:
    """A file in ``sample_data/`` and how its columns map onto a problem."""

    key: str
    title: str
    file: str
    mapping: ColumnMapping
    description: str
    positive_name: str = "positive"
    negative_name: str = "negative"


BUNDLED: dict[str, BundledDataset] = {
    d.key: d
    for d in (
        BundledDataset(
            key="breast_cancer",
            title="Breast cancer: 3 models",
            file="breast_cancer.csv",
            mapping=ColumnMapping(
                label="label",
                scores=("logistic_regression", "gradient_boosting", "naive_bayes"),
                pos_label=1,
            ),
            positive_name="malignant",
            negative_name="benign",
            description=(
                "Wisconsin diagnostic breast cancer (569 tumours, 212 malignant). Out-of-fold "
                "probabilities of malignancy from logistic regression, gradient boosting and "
                "naive Bayes."
            ),
        ),
        BundledDataset(
            key="user_impressions",
            title="Recommender clicks: global AUC vs GAUC",
            file="user_impressions.csv",
            mapping=ColumnMapping(
                label="clicked", scores=("model_a", "model_b"), pos_label=1, group="user_id"
            ),
            positive_name="clicked",
            negative_name="not clicked",
            description=(
                "Synthetic log: 25,523 impressions from 300 users (heavy-tailed activity, 11% "
                "clicks). model_a knows each user's click rate and wins on global AUC; model_b "
                "ranks each user's items better and wins on GAUC."
            ),
        ),
        BundledDataset(
            key="digits_multilabel",
            title="Digits: 6 overlapping labels",
            file="digits_multilabel.csv",
            mapping=ColumnMapping(
                label=None,
                scores=tuple(f"score_{c}" for c in _DIGIT_CLASSES),
                labels=tuple(f"label_{c}" for c in _DIGIT_CLASSES),
                classes=_DIGIT_CLASSES,
            ),
            positive_name="has the property",
            negative_name="does not",
            description=(
                "1,797 handwritten digits (UCI), each labelled with properties of its digit: "
                "even, prime, greater than 4, closed loop, multiple of 3, two loops. Out-of-fold "
                "probabilities from one logistic regression per label."
            ),
        ),
        BundledDataset(
            key="wine_multiclass",
            title="Wine: 3 cultivars (multi-class)",
            file="wine_multiclass.csv",
            mapping=ColumnMapping(
                label="label",
                scores=("score_class_0", "score_class_1", "score_class_2"),
                pos_label=None,
                classes=("class_0", "class_1", "class_2"),
            ),
            positive_name="this class",
            negative_name="other classes",
            description=(
                "178 Italian wines from three cultivars (UCI; 59/71/48). Out-of-fold class "
                "probabilities from a logistic regression on 13 chemical measurements."
            ),
        ),
        BundledDataset(
            key="query_ranking",
            title="Search ranking: BM25-like vs neural",
            file="query_ranking.csv",
            mapping=ColumnMapping(
                label="relevance",
                scores=("bm25_like", "neural_like"),
                pos_label=None,
                group="query_id",
                graded=True,
            ),
            positive_name="relevant",
            negative_name="not relevant",
            description=(
                "Synthetic search results: 200 queries with 10-50 documents, graded relevance "
                "0-3 (30 queries have no relevant document). The lexical model wins on P@k, MAP "
                "and MRR; the neural one on graded NDCG."
            ),
        ),
    )
}
DEFAULT_DATASET = "breast_cancer"


class RowsNeeded(RuntimeError):
    """A row was read from a dataset that holds none (a page forgot to say it needs them)."""


@dataclass(frozen=True)
class GroupState:
    """What GAUC reads: the user (or query) column's name, whether rows are weighted, and per
    model its global AUC and per-group table (:class:`metrics.GroupAUC`)."""

    column: str
    weighted: bool
    tables: Mapping[str, tuple[float, metrics.GroupAUC]]


@dataclass(frozen=True)
class Dataset:
    """A table, its column mapping, and the arrays prepared from it."""

    source_id: str
    name: str
    frame: pd.DataFrame = field(repr=False)
    mapping: ColumnMapping
    prepared: Prepared = field(repr=False)
    description: str = ""
    positive_name: str = "positive"
    negative_name: str = "negative"
    # How a user makes the other class the positive one ("pick 0 as the Positive label under
    # Columns in the sidebar"); empty where the source fixes the label.
    relabel: str = ""
    slice: tuple[str, object] | None = None  # (column, value) when showing one category only
    rows_before_slice: int = 0
    # A server dataset: the engine's summary behind the per-score state
    # (ui.compute.server_source.ServerTable); None for rows held in memory.
    engine: object = field(default=None, repr=False)
    # Each model's per-score state (ui.tables.score_state.ScoreState) as the source produced it (an
    # engine's GROUP BY); None: made from the rows, with one cached sort, on first use.
    states: Mapping[str, ScoreState] | None = field(default=None, repr=False)
    # The per-user state as the source produced it (an engine's per-user sums); None: made
    # from the rows' group column.
    group_state: GroupState | None = field(default=None, repr=False)
    # False when the source handed states and no rows (a server dataset: ``frame`` is the
    # engine's per-score table); pages needing rows say so (ui.frame.shell.needs), and reading a
    # row raises :class:`RowsNeeded`.
    holds_rows: bool = True

    @functools.cached_property
    def models(self) -> tuple[str, ...]:
        return tuple(m for m in self.mapping.scores if m in self.prepared.scores)

    def _rows(self) -> Prepared:
        if not self.holds_rows:
            raise RowsNeeded(
                f"{self.name} holds no rows, only each model's per-score state: read it with "
                "data.state, or say that the page needs the rows (shell.needs)."
            )
        return self.prepared

    @property
    def y(self) -> np.ndarray:
        return self._rows().y

    @property
    def weight(self) -> np.ndarray | None:
        return self._rows().weight

    def score(self, model: str) -> np.ndarray:
        return self._rows().scores[model]

    def positions(self, mask: np.ndarray) -> np.ndarray:
        """Where the rows selected by ``mask`` (over the prepared arrays) sit in ``frame``."""
        where = np.flatnonzero(mask)
        return where if self.prepared.kept is None else self.prepared.kept[where]

    def labels_for(self, model: str) -> np.ndarray:
        """The binary labels that go with a model's scores (its class, for multi-label data)."""
        if self.mapping.per_class:
            return self.y[:, self.mapping.class_of(model)]
        return self.y

    @functools.cached_property
    def key(self) -> tuple:
        """What identifies the prepared arrays, for caches (dropping bad rows changes them).

        The mapping enters as a digest: every cached call hashes this key, and a table of
        thousands of score columns would otherwise make each call cost as much as its columns
        (a rerun quadratic in them)."""
        return (self.source_id, mapping_digest(self.mapping), self.prepared.n_dropped)


@functools.lru_cache(maxsize=256)
def mapping_digest(mapping: ColumnMapping) -> str:
    """A short, stable name for a column mapping."""
    return hashlib.blake2b(repr(mapping).encode(), digest_size=16).hexdigest()

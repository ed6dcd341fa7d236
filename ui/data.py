"""Score tables: the bundled datasets, and cached per-model computations over them."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import streamlit as st

import metrics

SAMPLE_DIR = Path(__file__).resolve().parent.parent / "sample_data"


@dataclass(frozen=True)
class BundledDataset:
    """A file in ``sample_data/`` and how its columns map onto a score table."""

    key: str
    title: str
    file: str
    label: str
    pos_label: Any
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
            label="label",
            pos_label=1,
            positive_name="malignant",
            negative_name="benign",
            description=(
                "Wisconsin diagnostic breast cancer (569 tumours, 212 malignant). Out-of-fold "
                "probabilities of malignancy from logistic regression, gradient boosting and "
                "naive Bayes. See sample_data/README.md."
            ),
        ),
    )
}
DEFAULT_DATASET = "breast_cancer"


@dataclass(frozen=True)
class ScoreTable:
    """A loaded table with its column mapping: one label column, one or more model scores."""

    name: str
    frame: pd.DataFrame = field(repr=False)
    label: str
    scores: tuple[str, ...]
    pos_label: Any = 1
    positive_name: str = "positive"
    negative_name: str = "negative"
    description: str = ""

    @property
    def y(self) -> np.ndarray:
        """True for the positive class."""
        return (self.frame[self.label] == self.pos_label).to_numpy()

    def score(self, model: str) -> np.ndarray:
        return self.frame[model].to_numpy(dtype=np.float64)


@st.cache_data(max_entries=8, show_spinner=False)
def _read_bundled(file: str) -> pd.DataFrame:
    return pd.read_csv(SAMPLE_DIR / file)


def load_bundled(key: str) -> ScoreTable:
    spec = BUNDLED[key]
    frame = _read_bundled(spec.file)
    return ScoreTable(
        name=spec.title,
        frame=frame,
        label=spec.label,
        scores=tuple(c for c in frame.columns if c != spec.label),
        pos_label=spec.pos_label,
        positive_name=spec.positive_name,
        negative_name=spec.negative_name,
        description=spec.description,
    )


@st.cache_data(max_entries=32, show_spinner=False)
def threshold_counts(y: np.ndarray, score: np.ndarray) -> metrics.ThresholdCounts:
    """Counts at every distinct threshold, cached by the data: a slider move is a lookup."""
    return metrics.threshold_counts(y, score)


@st.cache_data(max_entries=32, show_spinner=False)
def areas(y: np.ndarray, score: np.ndarray) -> dict[str, float]:
    return {
        "auc": metrics.roc_auc_score(y, score),
        "ap": metrics.average_precision_score(y, score),
    }

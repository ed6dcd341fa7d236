"""Compare's computations that do not depend on a threshold, cached per (dataset, model).

Each sorts a model's scores once (inside the metrics library) and is then a lookup, so moving a
threshold, changing a cost or picking another lift model reruns the page without sorting the
table again (``bench/bench_compare_rerun.py`` counts the sorts; ``tests/test_compare_rerun.py``
checks there are none). Keyed by the dataset's ``key`` as :mod:`ui.compute.data` does; the dataset
is
passed unhashed.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import streamlit as st

import metrics
from ui.compute import data, uncertainty
from ui.compute.data import UPLOAD_TTL
from ui.tables.dataset import Dataset

__all__ = ["class_histogram", "costs", "gains", "ks", "lift", "net_benefit"]


def _args(ds: Dataset, model: str) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    return ds.labels_for(model), ds.score(model), ds.weight


@st.cache_data(max_entries=32, ttl=UPLOAD_TTL, show_spinner=False)
def gains(key: tuple, model: str, _ds: Dataset) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    y, s, w = _args(_ds, model)
    return metrics.cumulative_gain_curve(y, s, sample_weight=w)


@st.cache_data(max_entries=32, ttl=UPLOAD_TTL, show_spinner=False)
def ks(key: tuple, model: str, _ds: Dataset) -> tuple[np.ndarray, np.ndarray, float, float]:
    """(share flagged, TPR − FPR) from nothing flagged down through every distinct score, the
    KS statistic and the score where it is reached."""
    c = data.threshold_counts(key, model, _ds)
    y, s, w = _args(_ds, model)
    result = metrics.ks_statistic(y, s, sample_weight=w)
    flagged = np.concatenate(([0.0], (c.tps + c.fps) / (c.n_pos + c.n_neg)))
    gap = np.concatenate(([0.0], c.tps / c.n_pos - c.fps / c.n_neg))
    return flagged, gap, result.statistic, result.threshold


@st.cache_data(max_entries=32, ttl=UPLOAD_TTL, show_spinner=False)
def lift(key: tuple, model: str, bins: int, _ds: Dataset) -> pd.DataFrame:
    y, s, w = _args(_ds, model)
    return metrics.lift_table(y, s, bins=bins, sample_weight=w)


@st.cache_data(max_entries=64, ttl=UPLOAD_TTL, show_spinner=False)
def costs(
    key: tuple, model: str, cost_fp: float, cost_fn: float, gain_tp: float, gain_tn: float,
    _ds: Dataset,
):  # fmt: skip
    y, s, w = _args(_ds, model)
    return metrics.expected_cost(
        y, s, cost_fp=cost_fp, cost_fn=cost_fn, benefit_tp=gain_tp, benefit_tn=gain_tn,
        sample_weight=w,
    )  # fmt: skip


@st.cache_data(max_entries=32, ttl=UPLOAD_TTL, show_spinner=False)
def net_benefit(key: tuple, model: str, _ds: Dataset) -> tuple[np.ndarray, np.ndarray]:
    """(the model's net benefit, treat-all's) on :data:`ui.compute.uncertainty.DECISION_GRID`."""
    y, s, w = _args(_ds, model)
    nets, treat_all, _ = metrics.net_benefit(y, s, uncertainty.DECISION_GRID, sample_weight=w)
    return nets, treat_all


@st.cache_data(max_entries=32, ttl=UPLOAD_TTL, show_spinner=False)
def class_histogram(key: tuple, model: str, bins: int, _ds: Dataset):
    """(bin edges, share of the negatives per bin, share of the positives per bin)."""
    y, s, _ = _args(_ds, model)
    y = y.astype(bool)
    edges = np.linspace(s.min(), s.max() if s.max() > s.min() else s.min() + 1, bins + 1)
    shares = []
    for mask in (~y, y):
        counts, _ = np.histogram(s[mask], bins=edges)
        shares.append(counts / max(counts.sum(), 1))
    return edges, shares[0], shares[1]

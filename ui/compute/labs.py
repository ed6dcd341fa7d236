"""The labs' and the GAUC page's cached results, keyed by the dataset (:mod:`ui.compute.data`):
the AUC lab's rank table, pair grid and other libraries' AUC; the AP lab's five methods and its
per-class table; the GAUC page's per-user offset sweep and other libraries' GAUC."""

from __future__ import annotations

import numpy as np
import streamlit as st

import metrics
from metrics import conventions
from ui.compute import data
from ui.figures import ap_charts, gauc_charts
from ui.tables.dataset import Dataset


@st.cache_data(max_entries=16, show_spinner="Computing AP five ways...")
def ap_lab(key: tuple, model: str, _ds) -> ap_charts.APLab:
    """Every AP method on this model's rows, with what each sums."""
    return ap_charts.ap_lab(*data.binary_rows(_ds, model))


@st.cache_data(max_entries=16, show_spinner=False)
def voc_tie_words(key: tuple, model: str, _ds) -> str:
    """The VOC devkit's AP on these rows in their order, and its range over the orders of tied
    rows (four sorts: cached, so a rerun of the page does not sort the rows again)."""
    from ui.words.conventions import voc_tie_sentence

    return voc_tie_sentence(*data.binary_rows(_ds, model))


@st.cache_data(max_entries=8, show_spinner=False)
def ap_per_class(key: tuple, class_model: str | None, _ds):
    """Each class's AP by every method, for a per-class table."""
    names = _ds.mapping.classes or _ds.mapping.scores
    columns = _ds.mapping.class_columns(class_model)  # several models' columns: this one's
    scores = np.column_stack([_ds.score(m) for m in columns])
    return ap_charts.per_class_frame(_ds.y, scores, _ds.weight, tuple(str(c) for c in names))


@st.cache_data(max_entries=16, show_spinner=False)
def auc_lab(key: tuple, model: str, _ds) -> tuple:
    """Rank table, threshold counts, ROC points and the library's AUC (rows unweighted)."""
    y, s = _ds.labels_for(model), _ds.score(model)
    return (
        metrics.auc_rank_table(y, s),
        metrics.threshold_counts(y, s),
        metrics.roc_curve(y, s, drop_intermediate=False),
        metrics.roc_auc_score(y, s),
    )


@st.cache_data(max_entries=16, show_spinner=False)
def auc_pair_grid(key: tuple, model: str, per_class: int, seed: int, _ds) -> metrics.AUCPairGrid:
    """The grid of (positive, negative) pairs, sampled to at most ``per_class`` a side."""
    return metrics.auc_pair_grid(
        _ds.labels_for(model), _ds.score(model), max_per_class=per_class, seed=seed
    )


@st.cache_data(max_entries=16, show_spinner=False)
def auc_conventions(key: tuple, model: str, _ds) -> list:
    """ROC AUC as scikit-learn, Keras and Spark compute it on these rows (unweighted)."""
    return conventions.roc_auc_conventions(_ds.labels_for(model), _ds.score(model))


@st.cache_data(max_entries=16, show_spinner="Shifting scores...")
def gauc_offset_sweep(
    key: tuple, name: str, mode: str, weighting: str, strengths: tuple, _ds: Dataset
):
    """Global AUC and GAUC after one offset per user at each strength, the offsets' k and rate."""
    s = _ds.score(name)
    offsets = gauc_charts.user_offsets(
        data.group_state(_ds).tables[name][1], _ds.prepared.groups, s, mode
    )
    sweep = gauc_charts.offset_sweep(
        _ds.labels_for(name), s, offsets.codes, offsets.per_row, np.array(strengths),
        weighting=weighting, sample_weight=_ds.weight,
    )  # fmt: skip
    return sweep, offsets.k, offsets.overall_rate


@st.cache_data(max_entries=8, show_spinner="Computing other libraries' GAUC...")
def gauc_conventions(key: tuple, name: str, _ds: Dataset) -> list:
    """GAUC as DIN's paper, RecBole and TorchRec compute it on these rows."""
    y, s = _ds.labels_for(name), _ds.score(name)
    return conventions.gauc_conventions(y, s, _ds.prepared.groups, sample_weight=_ds.weight)

"""Datasets the dashboard works on, and cached computations over them.

A :class:`Dataset` is a table plus its column mapping plus the arrays the metrics take. Bundled
datasets come from ``sample_data/``; uploads are parsed once per file by :mod:`ui.tables.loading`.
Heavy results are cached with ``st.cache_data`` keyed by the dataset's ``source_id`` and the
mapping, so a slider move recomputes only what depends on the threshold.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pandas as pd
import streamlit as st

import metrics
from ui.tables import score_state
from ui.tables.checking import Prepared, prepare
from ui.tables.dataset import (
    BUNDLED,
    SAMPLE_DIR,
    Dataset,
    GroupState,
)
from ui.tables.loading import ColumnMapping
from ui.tables.roles import MAX_SLICE_VALUES
from ui.tables.score_state import ScoreState

# Caches below may hold results for uploads, which no other session shares: an hour after their
# last use they go. Together with every other st.cache_data they are also bounded in bytes (a
# share of the memory budget, see ui.compute.budget).
UPLOAD_TTL = "1h"


@st.cache_data(max_entries=8, show_spinner=False)
def read_bundled(file: str) -> pd.DataFrame:
    return pd.read_csv(SAMPLE_DIR / file)


@st.cache_data(max_entries=8, ttl=UPLOAD_TTL, show_spinner="Checking every row...")
def _prepare(
    source_id: str, mapping: ColumnMapping, drop_bad_rows: bool, _frame: pd.DataFrame
) -> Prepared:
    return prepare(_frame, mapping, drop_bad_rows=drop_bad_rows)


def bundled_dataset(key: str) -> Dataset:
    spec = BUNDLED[key]
    frame = read_bundled(spec.file)
    source_id = f"bundled:{key}"
    return Dataset(
        source_id=source_id,
        name=spec.title,
        frame=frame,
        mapping=spec.mapping,
        prepared=_prepare(source_id, spec.mapping, False, frame),
        description=spec.description,
        positive_name=spec.positive_name,
        negative_name=spec.negative_name,
    )


def uploaded_dataset(
    source_id: str, name: str, frame: pd.DataFrame, mapping: ColumnMapping, drop_bad_rows: bool
) -> Dataset:
    relabel = ""
    if mapping.graded:
        positive, negative = f"{mapping.label} > 0", f"{mapping.label} = 0"
    elif mapping.per_class:
        positive, negative = "this class", "other classes"
    else:
        others = [v for v in pd.unique(frame[mapping.label].dropna()) if v != mapping.pos_label]
        positive = f"{mapping.label} = {mapping.pos_label}"
        negative = (
            f"{mapping.label} = {others[0]}"
            if len(others) == 1
            else f"{mapping.label} ≠ {mapping.pos_label}"
        )
        relabel = (
            f"pick {others[0]} as the Positive label under Columns in the sidebar"
            if len(others) == 1
            else "pick another Positive label under Columns in the sidebar"
        )
    return Dataset(
        source_id=source_id,
        name=name,
        frame=frame,
        mapping=mapping,
        prepared=_prepare_upload(source_id, mapping, drop_bad_rows, frame),
        positive_name=positive,
        negative_name=negative,
        relabel=relabel,
    )


def _prepare_upload(
    source_id: str, mapping: ColumnMapping, drop_bad_rows: bool, frame: pd.DataFrame
) -> Prepared:
    """An upload's arrays live with the upload in the memory budget (ui.compute.budget), not in
    st.cache_data: one per session, counted, and dropped with the upload."""
    from ui.compute import budget

    store = budget.session_store()
    key = (source_id, mapping, drop_bad_rows)
    kept = store.get("prepared")
    if kept is not None and kept[0] == key:
        return kept[1]
    prepared = prepare(frame, mapping, drop_bad_rows=drop_bad_rows)
    if source_id in store:  # not dropped meanwhile
        store["prepared"] = (key, prepared)
        budget.set_size(budget.nbytes(store))
    return prepared


def slice_label(column, value) -> str:
    """``device = web``, or ``device = web × country = FR`` for a crossed slice."""
    if isinstance(column, tuple):
        return " × ".join(f"{c} = {v}" for c, v in zip(column, value, strict=True))
    return f"{column} = {value}"


def sliced(ds: Dataset, column, value) -> Dataset:
    """The rows of ``ds`` whose ``column`` equals ``value`` (or, for a tuple of two columns,
    whose columns equal the tuple of values), prepared afresh (its own caches)."""
    frame = _slice_frame(ds.source_id, column, value, ds.frame)
    source_id = f"{ds.source_id}|{column}={value!r}"
    return replace(
        ds,
        source_id=source_id,
        name=f"{ds.name} · {slice_label(column, value)}",
        frame=frame,
        prepared=_prepare(
            source_id, ds.mapping, bool(st.session_state.get("map_drop_bad_rows")), frame
        ),
        slice=(column, value),
        rows_before_slice=len(ds.frame),
        states=None,  # a slice's states come from its own rows
        group_state=None,
    )


@st.cache_data(max_entries=8, ttl=UPLOAD_TTL, show_spinner=False)
def _slice_frame(source_id: str, column, value, _frame: pd.DataFrame) -> pd.DataFrame:
    if isinstance(column, tuple):
        mask = np.logical_and.reduce([_frame[c] == v for c, v in zip(column, value, strict=True)])
    else:
        mask = _frame[column] == value
    return _frame.loc[mask].reset_index(drop=True)


# --- cached metric results, keyed by (dataset key, model) -------------------------------------


def state(ds: Dataset, model: str) -> ScoreState:
    """The model's per-score state: the one its source produced, else one cached sort of the
    rows. Every threshold view, curve and area reads this, whatever the source."""
    if ds.states is not None:
        return ds.states[model]
    return _state_from_rows(ds.key, model, ds)


def group_state(ds: Dataset) -> GroupState:
    """The per-user state GAUC reads: the source's, else made from the rows' group column."""
    if ds.group_state is not None:
        return ds.group_state
    tables = {m: (areas(ds.key, m, ds)["auc"], _group_table(ds.key, m, ds)) for m in ds.models}
    return GroupState(ds.mapping.group or "user", ds.weight is not None, tables)


@st.cache_data(max_entries=32, ttl=UPLOAD_TTL, show_spinner=False)
def _group_table(key: tuple, model: str, _ds: Dataset) -> metrics.GroupAUC:
    return metrics.group_auc_table(
        _ds.labels_for(model), _ds.score(model), _ds.prepared.groups, sample_weight=_ds.weight
    )


def binary_rows(ds: Dataset, model: str) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    """(labels, scores, weights) for the row-based library functions: the rows when the
    dataset holds them; else its per-score state, one row per distinct score and class
    weighted by its count, which gives every metric that sums over rows exactly."""
    if ds.holds_rows:
        return ds.labels_for(model), ds.score(model), ds.weight
    return state(ds, model).weighted_rows()


def scores_seen(ds: Dataset, model: str) -> np.ndarray:
    """The model's scores as its source holds them: the state's distinct scores when the source
    handed a state, else the rows' own, unsorted (the sidebar reads the scale of many models,
    and of tables not yet usable, so this must not sort)."""
    if ds.states is not None:
        return ds.states[model].finite_scores()
    return ds.score(model)


@st.cache_data(max_entries=32, ttl=UPLOAD_TTL, show_spinner=False)
def _state_from_rows(key: tuple, model: str, _ds: Dataset) -> ScoreState:
    return score_state.from_rows(_ds.labels_for(model), _ds.score(model), _ds.weight)


def threshold_counts(key: tuple, model: str, ds: Dataset) -> metrics.ThresholdCounts:
    """Counts at every distinct threshold: one sort per (data, model); a slider move is a lookup."""
    return state(ds, model).counts


def areas(key: tuple, model: str, ds: Dataset) -> dict[str, float]:
    """AUC and AP (scikit-learn's step sum) over every row."""
    s = state(ds, model)
    return {"auc": s.auc, "ap": s.ap}


@st.cache_data(max_entries=32, ttl=UPLOAD_TTL, show_spinner=False)
def partial_auc(key: tuple, model: str, max_fpr: float, _ds: Dataset) -> float:
    """The McClish-standardised partial AUC over FPR in [0, max_fpr]."""
    return state(_ds, model).partial_auc(max_fpr)


@st.cache_data(max_entries=16, ttl=UPLOAD_TTL, show_spinner=False)
def delong_pairs(key: tuple, models: tuple[str, ...], _ds: Dataset):
    from ui.analyses import summaries

    return summaries.delong_pairs(_ds.labels_for(models[0]), {m: _ds.score(m) for m in models})


@st.cache_data(max_entries=8, ttl=UPLOAD_TTL, show_spinner="Scoring every slice...")
def slice_table(
    key: tuple,
    models: tuple[str, ...],
    min_size: int,
    _ds: Dataset,
    cross: tuple[str, str] | None = None,
    clustered: bool = False,
):
    """The slices table; ``clustered``: intervals resample the dataset's groups."""
    from ui.analyses import summaries

    columns = {c: _ds.frame[c].to_numpy() for c in _ds.mapping.slices}
    if _ds.prepared.kept is not None:
        columns = {c: v[_ds.prepared.kept] for c, v in columns.items()}
    return summaries.slice_table(
        columns,
        _ds.labels_for(models[0]),
        {m: _ds.score(m) for m in models},
        weight=_ds.weight,
        min_size=min_size,
        max_values=MAX_SLICE_VALUES,
        cross=cross,
        cluster=_ds.prepared.groups if clustered else None,
    )


@st.cache_data(max_entries=16, ttl=UPLOAD_TTL, show_spinner=False)
def operating_points(
    key: tuple, models: tuple[str, ...], constraint: str, target: float, _ds: Dataset
) -> pd.DataFrame:
    """Each model's threshold and rates at an operating point (see :mod:`metrics.operating`)."""
    rows = []
    for m in models:
        y, s, w = _ds.labels_for(m), _ds.score(m), _ds.weight
        if constraint == "top %":
            _, _, t = metrics.top_k_precision_recall(y, s, fraction=target / 100, sample_weight=w)
        else:
            find = {
                "recall ≥": metrics.precision_at_recall,
                "precision ≥": metrics.recall_at_precision,
                "FPR ≤": metrics.tpr_at_fpr,
            }[constraint]
            t = find(y, s, target, sample_weight=w).threshold
        if np.isnan(t):
            rows.append({"model": m, "threshold": np.nan, "precision": np.nan, "recall": np.nan,
                         "FPR": np.nan, "rows flagged": np.nan})  # fmt: skip
            continue
        c = threshold_counts(key, m, _ds).at(t)
        rows.append(
            {
                "model": m,
                "threshold": t,
                "precision": c.precision,
                "recall": c.recall,
                "FPR": c.fpr,
                "rows flagged": float(c.tp + c.fp),
            }
        )
    return pd.DataFrame(rows)

"""One threshold per model, shared by every page and the URL, and each model's score scale.

Session state (set only through this module):

* ``thresholds``: {model: threshold} for the current table; a model without an entry uses its
  scale's default (:func:`ui.tables.roles.default_threshold`);
* ``scales``: {model: scale kind} where the user overrode the inferred scale;
* ``thresholds_for``: the dataset the two belong to; a new table starts both afresh.
"""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
import pandas as pd
import streamlit as st

import metrics
from ui.compute import data
from ui.tables.dataset import Dataset
from ui.tables.roles import SCALES, Scale, default_threshold, default_threshold_rule, infer_scale
from ui.words.numbers import shortest_cut

__all__ = [
    "current",
    "default",
    "label",
    "label_on",
    "reset",
    "scale",
    "set_scale",
    "set_threshold",
    "slider_range",
    "sync",
]

# The slider's ends per scale; margins and ranks use the scores' own range.
_SCALE_RANGE = {"probability": (0.0, 1.0), "percent": (0.0, 100.0)}
_FLOAT_MAX = float(np.finfo(np.float64).max)


# The scale, the slider's range and the default threshold read the model's per-score state
# when its source handed one (ui.tables.score_state: an engine's), else the rows, without the full
# state's sort and areas: the sidebar asks them of many models, and of tables not yet usable.
# The two give the same answers (tests/test_score_state.py).


@st.cache_data(max_entries=64, show_spinner=False)
def _inferred(key: tuple, model: str, _ds: Dataset) -> Scale:
    return infer_scale(data.scores_seen(_ds, model), model)


@st.cache_data(max_entries=64, show_spinner=False)
def _default(key: tuple, model: str, kind: str, _ds: Dataset) -> float:
    if _ds.states is not None:  # the source's per-score state: no rows to read
        return _ds.states[model].default_threshold(kind)
    # The rows (the sidebar asks for tables not yet usable, and for many models: no full state)
    return default_threshold(kind, _ds.labels_for(model), _ds.score(model), _ds.weight)


def sync(ds: Dataset) -> None:
    """Start the per-model state afresh when the table (or its mapping) changed."""
    # A slice, or the list of slice columns, keeps every model's threshold.
    owner = ds.source_id.split("|")[0], replace(ds.mapping, slices=())
    if st.session_state.get("thresholds_for") != owner:
        st.session_state["thresholds_for"] = owner
        pending = st.session_state.pop("thresholds_from_url", {})
        if "" in pending:  # a bare value in a link: the link's model, else the first
            pending.setdefault(st.session_state.get("model") or ds.models[0], pending.pop(""))
        st.session_state["thresholds"] = {m: v for m, v in pending.items() if m in ds.models}
        st.session_state["scales"] = {}


def scale(ds: Dataset, model: str) -> Scale:
    """The model's scale: the user's choice, else the inferred one."""
    inferred = _inferred(ds.key, model, ds)
    chosen = st.session_state.get("scales", {}).get(model)
    if chosen is None or chosen == inferred.kind:
        return inferred
    return Scale(chosen, f"set by you (read as {SCALES[inferred.kind]}: {inferred.reason})")


def probabilities(ds: Dataset, models) -> bool:
    """Whether every one of ``models`` is read as probabilities: its scale (detected, or set in
    the sidebar) is "probability" and its scores lie in [0, 1] (a scale set by hand on scores
    outside it would give log loss and net benefit nonsense)."""
    return all(
        scale(ds, m).kind == "probability" and ds.score(m).min() >= 0 and ds.score(m).max() <= 1
        for m in models
    )


def set_scale(model: str, kind: str) -> None:
    """Override a model's scale; its threshold goes back to the new scale's default.

    Takes no dataset: a widget callback holding one would keep an upload the memory budget
    dropped alive until the session's next run."""
    st.session_state.setdefault("scales", {})[model] = kind
    st.session_state.setdefault("thresholds", {}).pop(model, None)


def default(ds: Dataset, model: str) -> tuple[float, str]:
    """(the default threshold, the rule that gave it) for the model's scale."""
    kind = scale(ds, model).kind
    return _default(ds.key, model, kind, ds), default_threshold_rule(kind)


def current(ds: Dataset, model: str) -> float:
    """The model's threshold: what the user set, else its scale's default."""
    value = st.session_state.get("thresholds", {}).get(model)
    return default(ds, model)[0] if value is None else value


def label(ds: Dataset, model: str, threshold: float) -> str:
    """``threshold`` as the pages write it for ``model``: :func:`label_on` its scores (cached:
    the sidebar writes every listed model's on each rerun)."""
    return _label(ds.key, model, float(threshold), ds)


@st.cache_data(max_entries=256, show_spinner=False)
def _label(key: tuple, model: str, threshold: float, _ds: Dataset) -> str:
    # the scores as the source holds them, unsorted: one pass, no sort (as the sidebar needs)
    return label_on(data.scores_seen(_ds, model), threshold)


def label_on(scores: np.ndarray, threshold: float) -> str:
    """``threshold`` with the fewest digits (at least 4 significant) that predict the same rows
    of ``scores`` (any order, repeats allowed) as ``score >= threshold``: a sentence "scores ≥
    X: n rows" stays true, and X typed back gives the same rule. An infinite one in words."""
    t = float(threshold)
    if math.isinf(t):
        return "+∞ (no row flagged)" if t > 0 else "−∞ (every row flagged)"
    s = np.asarray(scores, dtype=np.float64)
    s = s[np.isfinite(s)]
    under, over = s[s < t], s[s >= t]
    below = float(under.max()) if under.size else -math.inf
    above = float(over.min()) if over.size else math.inf
    return f"{shortest_cut(t, below, above):.15g}"


def set_threshold(model: str, value: float) -> None:
    if math.isfinite(value):
        st.session_state.setdefault("thresholds", {})[model] = float(value)


# Set by the threshold line's callback (ui.views.threshold_drag) for the rest of the callbacks
# of the same rerun; the frame clears it when the script starts.
DRAGGED = "threshold_dragged"


def set_clamped(
    model: str, low: float, high: float, value: float | None = None, key: str | None = None
) -> None:
    """Set the model's threshold to ``value`` (or the widget ``key``'s value) within
    [low, high]. A widget callback lives here, not in a page: a page's function would keep the
    page's globals, its dataset among them, alive in the session's widget state.

    A widget's value is ignored in a rerun in which the line was dragged: the browser sends
    every widget's value with each rerun it asks for, and while the server is slow the
    slider's is still the one it had before the drag's earlier reruns reached the page, which
    would put the threshold back there (seen under load: the line let go at 0.239 and the page
    settling at 0.267, where the drag began)."""
    if key is not None:
        if st.session_state.get(DRAGGED):
            return
        value = st.session_state[key]
    set_threshold(model, float(min(max(value, low), high)))


def reset(model: str) -> None:
    st.session_state.setdefault("thresholds", {}).pop(model, None)


def slider_range(ds: Dataset, model: str) -> tuple[float, float, float]:
    """The slider's (low, high, step): the scale's range (0-1, 0-100) or the scores' own,
    widened so one end predicts every row positive and the other none, on a round step that
    the scale's own default (0.5, 50, a whole-number rank) falls on."""
    s = np.asarray(data.scores_seen(ds, model), dtype=np.float64)
    s = s[np.isfinite(s)]
    low, high = (float(np.min(s)), float(np.max(s))) if s.size else (0.0, 1.0)
    kind = scale(ds, model).kind
    lo, hi = _SCALE_RANGE.get(kind, (low, high))
    lo, hi = min(lo, low), max(hi, high)
    # Halves first: the span of scores near ±1.8e308 overflows (an OverflowError in floor).
    span = 2 * (hi / 2 - lo / 2) if hi > lo else 1.0
    span = min(span, _FLOAT_MAX)
    step = 10.0 ** math.floor(math.log10(span / 1000))  # about 1,000 to 10,000 steps
    if kind == "rank":
        step = max(step, 1.0)
    lo = max(math.floor(lo / step) * step, -_FLOAT_MAX)
    if hi == high:  # above the highest score nothing is predicted positive
        hi = min(high + max(step, span / 100), _FLOAT_MAX)
    hi = min(math.ceil(hi / step) * step, _FLOAT_MAX)
    return lo, hi, step


@st.cache_data(max_entries=64, show_spinner=False)
def guaranteed(key: tuple, model: str, metric: str, target: float, _ds: Dataset):
    """:func:`metrics.threshold_with_guarantee` at 95% for the model (cached: a preset's
    target changes it, a slider move does not): users counted as clusters when the table
    has a group column. None when the rows it needs are not held (weights summed by an engine
    have no per-row squares for the effective sample size)."""
    if not _ds.holds_rows and data.state(_ds, model).weighted:
        return None
    y, s, w = data.binary_rows(_ds, model)
    groups = _ds.prepared.groups if _ds.holds_rows and _ds.mapping.group else None
    return metrics.threshold_with_guarantee(
        y, s, metric=metric, target=target, confidence=0.95, sample_weight=w, groups=groups
    )


def threshold_table(counts, beta: float) -> pd.DataFrame:
    """Every rate at every distinct threshold (the Threshold page's download)."""
    every = counts.confusion().as_dict(beta=beta)
    table = pd.DataFrame({"threshold": counts.thresholds, **every})
    return table.rename(columns={"f_beta": f"f{beta:g}"})

"""The sidebar's score scales: each model's scale (inferred, overridable) and the default
threshold it gives."""

from __future__ import annotations

import streamlit as st

from ui.compute import thresholds
from ui.tables.dataset import Dataset
from ui.tables.roles import SCALES
from ui.words.numbers import plural
from ui.words.safe import md

# A table may hold thousands of score columns, and every rerun draws each scale setting listed.
MAX_SCALE_WIDGETS = 20


def scales_widget(ds: Dataset) -> None:
    """Each model's score scale (inferred, overridable) and the default threshold it gives."""
    with st.expander("Score scales and thresholds"):
        token = abs(hash(ds.key)) % 10**8
        shown = _listed(ds)
        if len(ds.models) > len(shown):
            st.caption(
                f"{plural(len(ds.models) - len(shown), 'more score column')} not listed: pick "
                "one as the model above to see and set its scale here."
            )
        for model in shown:
            _scale_setting(ds, model, key=f"scale_{token}_{model}")


def _listed(ds: Dataset) -> list[str]:
    """The models whose scale is listed: the first :data:`MAX_SCALE_WIDGETS`, and the model
    picked in the sidebar."""
    shown = list(ds.models[:MAX_SCALE_WIDGETS])
    current = st.session_state.get("model")
    if current in ds.models and current not in shown:
        shown.append(current)
    return shown


def _scale_setting(ds: Dataset, model: str, key: str) -> None:
    """The scale box of ``model`` and the caption under it: why that scale, and the default
    threshold it gives (and the current one, when set apart)."""
    sc = thresholds.scale(ds, model)
    kinds = list(SCALES)
    st.selectbox(
        md(model),
        kinds,
        index=kinds.index(sc.kind),
        format_func=SCALES.get,
        key=key,
        on_change=lambda m=model, k=key: thresholds.set_scale(m, st.session_state[k]),
    )
    if not ds.prepared.ok:  # no usable labels yet: no default from the positives
        st.caption(f"{md(sc.reason)}.")
        return
    value, rule = thresholds.default(ds, model)
    now = thresholds.current(ds, model)
    st.caption(
        f"{md(sc.reason)}. Default threshold {thresholds.label(ds, model, value)}: "
        f"{rule}." + ("" if now == value else f" Now {thresholds.label(ds, model, now)}.")
    )

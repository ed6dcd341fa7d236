"""The bundled sample datasets: a picker in the sidebar, and links that reopen a view
(``?dataset=<key>&model=<score column>&threshold=<model>:<value>``, the threshold repeated per
model; a bare value is the threshold of the link's ``model``)."""

from __future__ import annotations

import math
from collections.abc import Mapping

import streamlit as st

from ui.compute import data
from ui.sources.base import Source
from ui.tables.dataset import BUNDLED, DEFAULT_DATASET, Dataset
from ui.words.safe import md

__all__ = ["SOURCE", "fallback"]


_BAD = "sample_link_bad"  # the link's thresholds that are not finite numbers


def sidebar() -> Dataset:
    if bad := st.session_state.pop(_BAD, None):
        st.warning(
            md(
                "The link's thresholds "
                + ", ".join(f"“{b[:40]}”" for b in bad[:5])
                + " are not finite numbers (write model:0.5), so those models keep their "
                "default thresholds.",
                limit=600,
            )
        )
    st.session_state.setdefault("dataset", DEFAULT_DATASET)
    st.selectbox(
        "Sample dataset",
        options=list(BUNDLED),
        format_func=lambda key: BUNDLED[key].title,
        key="dataset",
    )
    ds = data.bundled_dataset(st.session_state["dataset"])
    st.caption(ds.description)
    return ds


def fallback() -> Dataset:
    """The sample dataset shown while another source has no table yet (no picker: the
    sidebar belongs to the source the user chose)."""
    st.session_state.setdefault("dataset", DEFAULT_DATASET)
    ds = data.bundled_dataset(st.session_state["dataset"])
    st.caption(f"Showing the sample dataset {md(ds.name)} until a table loads.")
    return ds


def read_link(q: Mapping) -> bool:
    if q.get("source") or q.get("dataset") not in BUNDLED:  # another source's link
        return False
    st.session_state["dataset"] = q["dataset"]
    st.session_state["source"] = SOURCE.label
    if "model" in q:
        st.session_state["model"] = q["model"]
    pending, bad = {}, []
    for item in q.get_all("threshold"):
        model, _, value = item.rpartition(":")
        try:
            number = float(value)
        except ValueError:
            number = math.nan  # not a number: said, and the default kept
        if math.isfinite(number):  # past the scores is fine: the page clamps it to its range
            pending[model or q.get("model", "")] = number
        else:
            bad.append(item)
    st.session_state["thresholds_from_url"] = pending
    if bad:
        st.session_state[_BAD] = bad
    return True


def link(ds: Dataset) -> dict | None:
    if not ds.models:
        return None
    params: dict = {"dataset": ds.source_id.split(":", 1)[1], "model": st.session_state["model"]}
    chosen = st.session_state.get("thresholds", {})
    if chosen:
        params["threshold"] = [f"{m}:{v:.6g}" for m, v in chosen.items()]
    return params


SOURCE = Source(label="Sample dataset", prefix="bundled", sidebar=sidebar, read_link=read_link,
                link=link)  # fmt: skip

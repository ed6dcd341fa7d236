"""Tables on the server, read out of core by an engine (:mod:`ui.server_source`), and the
``?source=server&dataset=<file or glob>&label=...&score=...&model=...`` links that open one
(``metrics-lens app`` prints such a link)."""

from __future__ import annotations

from collections.abc import Mapping

import streamlit as st

from ui import server_compare, server_source
from ui.data import Dataset
from ui.numbers import plural
from ui.sources import Source

__all__ = ["SOURCE", "link_mapping"]


def link_mapping(q: Mapping) -> dict:
    """The source's widget values a link gives (only those it names)."""
    mapping = {}
    if q.get("label"):
        mapping["server_label"] = q["label"]
    if q.get_all("score"):
        mapping["server_scores"] = q.get_all("score")
    if q.get("group"):
        mapping["server_group"] = q["group"]
    if q.get("weight"):
        mapping["server_weight"] = q["weight"]
    if q.get("pos"):
        mapping["server_pos"] = q["pos"]
    return mapping


def read_link(q: Mapping) -> bool:
    """A ``source=server`` link: the file, its columns and the model. The source keeps a
    mapping per file (``server_mappings``, keyed by the file's id) and restores it over the
    widgets when a file is first shown, so the link's columns go there as well as into the
    widgets' state."""
    if q.get("source") != "server" or not q.get("dataset"):
        return False
    st.session_state["source"] = SOURCE.label
    st.session_state["server_file"] = q["dataset"]
    mapping = link_mapping(q)
    st.session_state.update(mapping)
    if mapping:
        try:
            files = server_source.sandboxed(q["dataset"])
        except server_source.OutsideRoot:
            files = []  # the source says why when it draws the file picker
        if files:
            key = server_source.file_id(tuple(str(f) for f in files))
            st.session_state.setdefault("server_mappings", {})[key] = mapping
    if q.get("model"):
        st.session_state["server_model"] = q["model"]
    return True


def _rows(ds: Dataset) -> str:
    scores = plural(len(ds.states[ds.models[0]].counts), "distinct score")
    return (
        f"{plural(ds.engine.summary.rows, 'row')} on the server, read by the pages as the "
        f"engine's per-score counts ({scores})."
    )


def _compare(ds: Dataset) -> bool:
    """Compare from the engine's sums of every model (one more pass for DeLong's pairs)."""
    server_compare.show(ds)
    return True


SOURCE = Source(
    label="Server dataset", prefix="server", sidebar=server_source.server_dataset,
    read_link=read_link, waits=True, own_model_picker=True, rows=_rows,
    pages={"compare": _compare, "gauc": server_source.gauc_unavailable,
           "data": server_source.data_page},
)  # fmt: skip

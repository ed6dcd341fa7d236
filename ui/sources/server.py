"""Tables on the server, read out of core by an engine (:mod:`ui.compute.server_source`), and the
``?source=server&dataset=<file>&label=...&score=...&model=...`` links that open one
(``metrics-lens app`` prints such a link; ``glob=<pattern>`` in place of ``dataset`` opens the
files a glob matches, and ``dataset`` is never read as one)."""

from __future__ import annotations

import glob
import json
import os
from collections.abc import Mapping
from pathlib import Path

import streamlit as st

from ui.compute import server_source
from ui.sources.base import Source
from ui.tables.dataset import Dataset
from ui.tables.roles import NONE
from ui.views import server_compare
from ui.words.numbers import plural

__all__ = ["APP_FILE_ENV", "SOURCE", "link_mapping"]

APP_FILE_ENV = "METRICS_LENS_APP_FILE"  # set by metrics-lens app (metrics_lens.dashboard)


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


class _Link(dict):
    """A link's parameters, read as ``st.query_params`` reads them (``get_all`` for a key that
    repeats)."""

    def get_all(self, key: str) -> list:
        value = self.get(key)
        return [] if value is None else list(value) if isinstance(value, list) else [value]


def _open_app_file() -> bool:
    """The bare address of ``metrics-lens app FILE`` (``METRICS_LENS_APP_FILE`` names the
    file under the data directory): a file that fits the memory budget opens as rows, exactly
    as if uploaded (the same reader and the same guess, with the roles the command was given);
    a larger one, or one the reader refuses now, on this source as the command's link opens
    it."""
    try:
        spec = json.loads(os.environ[APP_FILE_ENV])
        name = str(spec["file"])
    except (KeyError, TypeError, ValueError):
        return False
    roles = {k: spec.get(k) for k in ("label", "scores", "group", "weight", "pos_label")}
    if spec.get("rows"):
        from ui.compute import budget
        from ui.compute.parse_lanes import parsing
        from ui.compute.reading import read_path
        from ui.sources import upload
        from ui.tables.loading import LoadError, mapping_with

        path = server_source.data_root() / name
        try:
            stat = path.stat()
            budget.make_room(stat.st_size)
            frame, notes = read_path(path, max_bytes=budget.rows_limit(), lane=parsing)
            mapping = mapping_with(frame, **roles)
        except (OSError, LoadError):
            pass  # the engine's path below says what is wrong with it
        else:
            upload.preload(
                Path(name).name, frame, notes, mapping, version=f"{stat.st_mtime_ns}-{stat.st_size}"
            )
            return True
    link = _Link(source="server", dataset=name)
    for key, value in (("label", roles["label"]), ("group", roles["group"]),
                       ("weight", roles["weight"]), ("pos", roles["pos_label"])):  # fmt: skip
        if value is not None:
            link[key] = value
    if roles["scores"]:
        link["score"] = list(roles["scores"])
        link["model"] = roles["scores"][0]
    return read_link(link)


def read_link(q: Mapping) -> bool:
    """A ``source=server`` link: the file, its columns and the model. The source keeps a
    mapping per file (``server_mappings``, keyed by the file's id) and restores it over the
    widgets when a file is first shown, so the link's columns go there as well as into the
    widgets' state. ``dataset`` names ONE file, compared exactly and never read as a pattern
    (``a?.csv`` is not ``a1.csv``); a link to a glob says so with ``glob``. A link naming a file
    that is not offered says so (the source shows no other file in its place). Without a link,
    the file ``metrics-lens app`` was given."""
    if not q.get("source") and os.environ.get(APP_FILE_ENV):
        return _open_app_file()
    if q.get("source") != "server" or not (q.get("dataset") or q.get("glob")):
        return False
    st.session_state["source"] = SOURCE.label
    if q.get("dataset"):
        dataset = str(q["dataset"])
        try:
            files = server_source.sandboxed(dataset, exact=True)
        except server_source.OutsideRoot:
            st.session_state["server_missing"] = dataset
            st.session_state.pop("server_file", None)
            return True
        if dataset in server_source.listed():
            st.session_state["server_file"] = dataset
        else:  # a path the list does not spell that way (or past its length): that file alone
            st.session_state["server_file"] = "a glob..."
            st.session_state["server_glob"] = glob.escape(dataset)
    else:
        pattern = str(q["glob"])
        st.session_state["server_file"] = "a glob..."
        st.session_state["server_glob"] = pattern
        try:
            files = server_source.sandboxed(pattern)
        except server_source.OutsideRoot:
            files = []  # the sidebar says why, under the glob box
    mapping = link_mapping(q)
    st.session_state.update(mapping)
    if mapping and files:
        key = server_source.file_id(tuple(str(f) for f in files))
        st.session_state.setdefault("server_mappings", {})[key] = mapping
    if q.get("model"):
        st.session_state["server_model"] = q["model"]
    return True


def link(ds: Dataset) -> dict | None:
    """The current view as the link :func:`read_link` reads: the file (or the glob), its columns
    and the model shown, so the address bar reopens this table, not the sample (a reload, a
    link sent to a colleague on the same server)."""
    state = st.session_state
    key, dataset = "dataset", state.get("server_file")
    if dataset == "a glob...":
        key, dataset = "glob", state.get("server_glob")
    if not dataset:
        return None
    params: dict = {"source": "server", key: str(dataset)}
    if state.get("server_label") is not None:
        params["label"] = str(state["server_label"])
    if state.get("server_scores"):
        params["score"] = [str(s) for s in state["server_scores"]]
    for key, name in (("server_group", "group"), ("server_weight", "weight")):
        if state.get(key) not in (None, NONE):
            params[name] = str(state[key])
    if state.get("server_pos"):
        params["pos"] = str(state["server_pos"])
    if state.get("server_model") is not None:
        params["model"] = str(state["server_model"])
    return params


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
    read_link=read_link, link=link, waits=True, own_model_picker=True, rows=_rows,
    pages={"compare": _compare, "gauc": server_source.gauc_unavailable,
           "data": server_source.data_page},
)  # fmt: skip

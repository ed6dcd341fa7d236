"""The presentation bar's dataset menu: the datasets one pick away, and the session state that
shows each."""

from __future__ import annotations

import streamlit as st

from ui import sources
from ui.compute import budget
from ui.tables.dataset import BUNDLED, Dataset

SAMPLE, EXAMPLE, UPLOAD = "bundled", "example", "upload"  # the sources' prefixes


def source_label(prefix: str) -> str:
    """The label of the source whose prefix is ``prefix`` (the value of the ``source`` key)."""
    return next(s.label for s in sources.REGISTRY.values() if s.prefix == prefix)


def data_menu(shown: Dataset) -> tuple[dict[str, dict], str]:
    """The presentation bar's dataset menu: each entry's name -> the session state that shows
    it (the bundled samples, Your example, the last upload while it is kept), and the name of
    the entry shown. A dataset of another source (a server table) is an entry of its own."""
    menu: dict[str, dict] = {
        spec.title: {"source": source_label(SAMPLE), "dataset": key}
        for key, spec in BUNDLED.items()
    }
    menu[source_label(EXAMPLE)] = {"source": source_label(EXAMPLE)}
    _add_upload(menu)
    source = sources.of(shown)
    if source.prefix == SAMPLE:
        name = shown.name  # a bundled dataset is named by its title, the menu's key
    elif source.prefix == EXAMPLE:
        name = source.label
    else:
        name = f"{source.label}: {shown.name}"
        menu.setdefault(name, {"source": source.label})
    return menu, name


def _add_upload(menu: dict[str, dict]) -> None:
    """Add the last upload to ``menu`` while the budget keeps it."""
    current = st.session_state.get("upload_current")  # never uploaded: no budget entry made
    store = budget.session_store() if current else {}
    upload = store.get(current)
    if upload is not None:  # named by what picking it shows: an unusable file shows the last good
        kept = store.get("last_good")
        name = kept[0].name if kept else upload.name
        menu[f"{source_label(UPLOAD)}: {name}"] = {"source": source_label(UPLOAD)}

"""The app's frame: it runs the app (sidebar, link, navigation, page) and gives each page its
context.

``app.py`` calls :func:`run_app`. Every page calls :func:`page_context` first. Streamlit runs a
script in a ``pages/`` folder directly, without ``app.py``, when that folder exists and
``st.navigation`` has not yet run in the process (its legacy multipage mode: the first request
after a server start, and every ``AppTest`` run). Then ``page_context`` runs the whole app
instead, which calls ``st.navigation`` and so switches the legacy mode off, and stops the direct
run. Either way a page always runs inside the shell.

Shared session state (set by the frame, read by pages): ``source`` ("bundled" or "upload"),
``dataset`` (bundled key), ``model``; each model's threshold and scale live in
:mod:`ui.compute.thresholds`. Page-specific keys are prefixed with the
page name. Uploads that parsed are kept in ``uploads`` so a later bad upload loses nothing.
The sidebar is :mod:`ui.frame.sidebar`, the last usable dataset :mod:`ui.frame.last_good`.
"""

from __future__ import annotations

import threading

import streamlit as st

from ui import sources
from ui.compute import budget, thresholds
from ui.frame import (
    last_good,
    legacy,
    links,
    navigation,
    notes,
    plan_panel,
    presentation,
    sidebar,
    touch,
    trec_note,
)
from ui.frame.data_menu import SAMPLE, data_menu, source_label
from ui.frame.last_good import shown_dataset
from ui.frame.navigation import PAGES, SECTIONS
from ui.frame.notes import dataset_line
from ui.sources.slice_picker import choose_slice
from ui.sources.upload import apply_role_edits
from ui.tables.dataset import BUNDLED, Dataset

# A table may hold thousands of score columns: a model picker draws this many at first.
MAX_DEFAULT_MODELS = 8

_inside = threading.local()

__all__ = [
    "PAGES",
    "SECTIONS",
    "apply_role_edits",
    "choose_slice",
    "data_menu",
    "dataset_line",
    "drawn_by_source",
    "model_picker",
    "needs",
    "offer_samples",
    "page_context",
    "run_app",
    "shown_dataset",
    "use_sample",
]


def model_picker(label: str, key: str, ds: Dataset) -> tuple[str, ...]:
    """A multiselect of models that survives a new table: it starts, and starts again whenever
    the table changes, with every model of the table selected; a visit to another page keeps
    the user's choice."""
    owner, kept = (ds.source_id, ds.models), f"{key}_kept"
    if st.session_state.get(f"{key}_for") != owner:
        st.session_state[f"{key}_for"] = owner
        st.session_state[key] = list(ds.models[:MAX_DEFAULT_MODELS])
    elif key not in st.session_state:  # back on the page: Streamlit dropped the widget's state
        st.session_state[key] = st.session_state.get(kept, list(ds.models[:MAX_DEFAULT_MODELS]))
    picked = tuple(st.multiselect(label, ds.models, key=key))
    st.session_state[kept] = list(picked)  # outlives the page, which the widget's key does not
    if len(ds.models) > MAX_DEFAULT_MODELS and st.session_state.get(f"{key}_for") == owner:
        st.caption(
            f"The table has {len(ds.models):,} score columns; the first {MAX_DEFAULT_MODELS} "
            "are drawn at first. Add or remove models above."
        )
    if sources.of(ds).own_model_picker and len(ds.models) == 1:
        st.caption(
            'This source hands the pages one model at a time: pick another under "Model '
            'shown on the pages" in the sidebar. Compare and GAUC put every model side by side.'
        )
    return picked


def run_app() -> None:
    """Run the whole app: the sidebar, the link, the navigation and the page it picks."""
    # A run stopped by a newer one (a click during a long page) left its frames to collect.
    budget.collect_garbage(uploads=st.session_state.get("_run_unfinished", False))
    st.session_state["_run_unfinished"] = True
    st.session_state.pop(thresholds.DRAGGED, None)  # the callbacks of this rerun have run
    legacy.leave_legacy_pages_mode()
    st.set_page_config(page_title="Metrics Lens", page_icon=":material/insights:", layout="wide")
    links.read_query_params()
    _open_pending_sample()
    plan_panel.open_pending()  # a lecture plan's view: its data and settings, before the sidebar
    ds = sidebar.sidebar()
    links.write_link(ds)
    _inside.dataset = ds
    pages = navigation.st_pages()
    try:
        _run_page(pages, ds)
    finally:
        del _inside.dataset
        _inside.page_title = None
    st.session_state["_run_unfinished"] = False  # not reached when the run was stopped
    budget.collect_garbage()


def _run_page(pages: dict[str, list[st.Page]], ds: Dataset) -> None:
    """Draw the navigation of ``pages`` and the presentation bar, and run the page picked."""
    current = st.navigation(pages, expanded=True)  # every page listed, none in "View more"
    touch.after_navigation(current.url_path)  # a phone: close the sidebar, page at its top
    _inside.page_title = current.title
    shown = shown_dataset(ds)
    menu, shown_name = data_menu(shown)
    presentation.apply(
        [p for section in pages.values() for p in section],
        current,
        label=dataset_line(shown),
        datasets=menu,
        shown=shown_name,
        data_name=ds.name,
    )
    plan_panel.panel(ds, current.url_path)
    if plan_panel.go_to(current.url_path):  # a plan's view on another page: click its link
        st.stop()
    current.run()


# What a page may need that a dataset may lack, and the sentence that says so. A dataset's
# source decides what it has (a server dataset holds the engine's per-score counts, not rows).
NEEDS = {
    "rows": (
        lambda ds: ds.holds_rows,
        lambda ds, what: (
            f"{what} needs the table's rows, and this dataset holds none: "
            f"{sources.of(ds).rows(ds)} Upload a sample of the table for this page, or pick a "
            "sample dataset."
        ),
    ),
    "groups": (
        lambda ds: ds.prepared.groups is not None or ds.group_state is not None,
        lambda ds, what: (
            f"{what} needs a user or query id on every row. Map a user/query id "
            "column in the sidebar (Upload → Columns → User / query id), or pick the "
            '"Recommender clicks" sample.'
        ),
    ),
}


def needs(ds: Dataset, need: str, what: str, instead: str = "", *, say: str | None = None) -> bool:
    """True, after saying so on the page, when ``ds`` lacks what ``what`` needs (a key of
    :data:`NEEDS`); ``instead`` adds a sentence on what works here, ``say`` replaces the
    whole sentence with the page's own."""
    has, sentence = NEEDS[need]
    if has(ds):
        return False
    st.info(say or sentence(ds, what) + (f" {instead}" if instead else ""))
    if need in SAMPLE_FOR:
        offer_samples(SAMPLE_FOR[need])
    return True


SAMPLE_FOR = {"groups": "user_impressions"}  # the bundled sample that has what a need names


def drawn_by_source(ds: Dataset, page: str) -> bool:
    """True when the dataset's source drew ``page`` (a page file's stem) its own way, or said
    why it cannot be drawn: the page then stops. Sources declare such pages
    (:attr:`ui.sources.Source.pages`), so a page never asks what kind of dataset it shows."""
    draw = sources.of(ds).pages.get(page)
    return draw is not None and draw(ds)


def use_sample(key: str) -> None:
    """A button's callback: show the bundled sample ``key`` (the sidebar follows)."""
    st.session_state["source"] = source_label(SAMPLE)
    st.session_state["dataset"] = key


# In presentation mode a page whose bundled sample lacks what it needs opens its own sample at
# once (the next run, before the sidebar's widgets are drawn, sets it): a projector never
# stays on a notice. The key holds (the sample's key, the page, the dataset it replaced).
_OPEN_NEXT = "_presentation_open_sample"


def _open_pending_sample() -> None:
    pending = st.session_state.pop(_OPEN_NEXT, None)
    if pending is None:
        return
    key, page, _before = pending
    use_sample(key)
    # short (a toast shows three lines); the dataset it replaced is one pick away in the bar
    st.toast(f"{page} needs other data: '{BUNDLED[key].title}' opened.", icon=":material/dataset:")


def offer_samples(*keys: str) -> None:
    """A button per bundled sample that opens it in one click (in presentation mode too, where
    the sidebar is hidden): for a page whose data lacks what it needs. In presentation mode on
    another bundled sample, the first of ``keys`` opens at once instead (no notice on the
    projector); an upload or a typed example stays, with the buttons."""
    ds = getattr(_inside, "dataset", None)
    if (
        presentation.on()
        and ds is not None
        and sources.of(ds).prefix == SAMPLE
        and st.session_state.get("dataset") not in keys
    ):
        page = getattr(_inside, "page_title", None) or "This page"
        st.session_state[_OPEN_NEXT] = (keys[0], page, ds.name)
        st.rerun()
    row = st.container(horizontal=True)
    for key in keys:
        row.button(
            f"Open the sample '{BUNDLED[key].title}'",
            key=f"offer_sample_{key}",
            icon=":material/dataset:",
            on_click=use_sample,
            args=(key,),
        )


def page_context(
    *, require_usable: bool = True, requires: tuple[str, ...] = (), what: str = "This page"
) -> tuple[Dataset, str | None]:
    """(the current dataset, the selected model) for a page; runs the app shell if needed.

    Stops the page with a short message when the data cannot be used yet (the sidebar says
    why), so a page body only ever sees usable data, unless ``require_usable`` is False (the
    Data page shows any table that parsed). ``requires`` names what the page needs (keys of
    :data:`NEEDS`): when the data lacks one, the page stops with a sentence saying so. A page
    of usable data opens with the line naming the dataset it shows (:func:`dataset_line`; in
    presentation mode it stands in the page bar instead), so a page never shows a dataset
    without saying which.
    """
    ds = getattr(_inside, "dataset", None)
    if ds is None:
        run_app()
        st.stop()
    notes.slice_note(ds)
    notes.stand_in_notes(ds)
    trec_note.trec_note(ds, getattr(_inside, "page_title", None))
    if not require_usable:
        return ds, st.session_state.get("model")
    if not last_good.usable(ds):
        return _last_good_context(ds)
    notes.name(ds)
    _stop_unless_has(ds, requires, what)
    return ds, st.session_state["model"]


def _last_good_context(ds: Dataset) -> tuple[Dataset, str]:
    """(the last usable dataset, its model) for a page while ``ds`` cannot be used, said on the
    page; the page stops when there is none."""
    previous = st.session_state.get("last_good_dataset")
    if previous is None:
        st.info("The data cannot be used yet: the sidebar says what to fix.")
        st.stop()
    notes.last_good_note(ds, previous)
    notes.name(previous)
    model = st.session_state.get("model")  # the sidebar's box lists previous's models
    return previous, model if model in previous.models else st.session_state["last_good_model"]


def _stop_unless_has(ds: Dataset, requires: tuple[str, ...], what: str) -> None:
    """Stop the page, under its title, with the sentence on the first of ``requires`` (keys of
    :data:`NEEDS`) that ``ds`` lacks; nothing when it has them all."""
    missing = [need for need in requires if not NEEDS[need][0](ds)]
    if missing:  # the page stops before its own heading: give it one above the sentence
        title = getattr(_inside, "page_title", None)
        if title:
            st.header(title, anchor=False)
        needs(ds, missing[0], what)
        st.stop()


# The frame and the libraries it imported live as long as the server: out of every collection.
budget.freeze_imports()

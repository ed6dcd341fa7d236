"""The app's frame: page config, the shared sidebar (data, column mapping, model) and navigation.

``app.py`` calls :func:`run_app`. Every page calls :func:`page_context` first. Streamlit runs a
script in a ``pages/`` folder directly, without ``app.py``, when that folder exists and
``st.navigation`` has not yet run in the process (its legacy multipage mode: the first request
after a server start, and every ``AppTest`` run). Then ``page_context`` runs the whole app
instead, which calls ``st.navigation`` and so switches the legacy mode off, and stops the direct
run. Either way a page always runs inside the shell.

Shared session state (set here, read by pages): ``source`` ("bundled" or "upload"),
``dataset`` (bundled key), ``model``; each model's threshold and scale live in
:mod:`ui.compute.thresholds`. Page-specific keys are prefixed with the
page name. Uploads that parsed are kept in ``uploads`` so a later bad upload loses nothing.
"""

from __future__ import annotations

import sys
import threading

import streamlit as st

from ui import sources
from ui.compute import budget, data, thresholds
from ui.frame import presentation, touch
from ui.sources.slice_picker import ALL_ROWS, choose_slice
from ui.sources.upload import apply_role_edits
from ui.tables.dataset import BUNDLED, Dataset
from ui.tables.roles import SCALES
from ui.views import show
from ui.words.numbers import plural
from ui.words.safe import md

# The navigation, in sections (st.navigation draws each heading): what a user explores on
# their own data, the model comparison, the teaching labs, and the table itself.
SECTIONS = {
    "Explore": [
        ("pages/threshold.py", "Threshold", ":material/tune:"),
        ("pages/curves.py", "Curves", ":material/show_chart:"),
        ("pages/decisions.py", "Decisions", ":material/paid:"),
        ("pages/calibration.py", "Calibration", ":material/straighten:"),
        ("pages/gauc.py", "GAUC", ":material/group:"),
        ("pages/ranking.py", "Ranking", ":material/format_list_numbered:"),
        ("pages/multilabel.py", "Multi-class & multi-label", ":material/label:"),
    ],
    "Compare": [("pages/compare.py", "Compare models", ":material/leaderboard:")],
    "Learn": [
        ("pages/ap_lab.py", "AP lab", ":material/functions:"),
        ("pages/auc_lab.py", "AUC lab", ":material/grid_on:"),
        ("pages/step_through.py", "Step through", ":material/skip_next:"),
        ("pages/lessons.py", "Lessons", ":material/school:"),
    ],
    "Data": [("pages/data.py", "Data", ":material/table:")],
}
PAGES = [page for pages in SECTIONS.values() for page in pages]
# A table may hold thousands of score columns: draw this many at first, and list this many
# scale settings in the sidebar (every rerun draws each one).
MAX_DEFAULT_MODELS = 8
MAX_SCALE_WIDGETS = 20

_inside = threading.local()

__all__ = ["apply_role_edits", "choose_slice", "model_picker", "page_context", "run_app"]


def _read_query_params() -> None:
    """On a session's first run, the source whose link it is sets the view from it."""
    if st.session_state.get("_query_read"):
        return
    st.session_state["_query_read"] = True
    q = st.query_params
    presentation.read_link(q)  # ?present=1: a reload keeps presentation mode
    any(source.read_link(q) for source in sources.REGISTRY.values())


def _touch_budget() -> None:
    """Every run: mark this session used; if the budget dropped its upload, say so."""
    if budget.touch():
        st.session_state["upload_dropped"] = st.session_state.get("upload_current") or True
        st.session_state.pop("upload_current", None)
        budget.session_store().clear()  # anything this run put back after the drop
        previous = st.session_state.get("last_good_dataset")
        if previous is not None and sources.of(previous).in_budget:
            del st.session_state["last_good_dataset"]


def _problems(ds: Dataset) -> None:
    for note in ds.prepared.problems:
        (st.error if note.level == "error" else st.warning)(md(note.message, limit=2000))
    if ds.prepared.n_dropped:
        st.info(f"Dropped {plural(ds.prepared.n_dropped, 'row')} with problems.")


def _sidebar() -> Dataset:
    with st.sidebar:
        st.title("Metrics Lens")
        st.caption("See how classification metrics behave on your scores.")
        st.session_state.setdefault("source", sources.DEFAULT)
        _touch_budget()
        chosen = st.segmented_control("Data", sources.labels(), key="source")
        source = sources.REGISTRY.get(chosen, sources.REGISTRY[sources.DEFAULT])
        st.session_state["_showing_last_good"] = False
        ds = source.sidebar()
        if ds is None:  # the source said why; its last usable table, else the sample
            ds = _source_last_good(source) or sources.sample.fallback()
        _problems(ds)
        if not _usable(ds):  # the last usable table into session state: the pages show it
            _keep_last_good(ds)
        shown = shown_dataset(ds)  # the model box lists the models of the table the pages show
        if shown.models:
            thresholds.sync(shown)
            if st.session_state.get("model") not in shown.models:
                st.session_state["model"] = shown.models[0]
            if not sources.of(shown).own_model_picker:
                st.selectbox(
                    "Class" if shown.mapping.per_class else "Model (score column)",
                    options=shown.models,
                    key="model",
                )
            _scales_widget(shown)
        st.caption(sources.of(ds).rows(ds))
        st.divider()
        presentation.sidebar_controls()
        show.download_all_button()  # every chart of the page as one zip; titled downloads
    _keep_last_good(ds)
    return ds


def _source_last_good(source: sources.Source) -> Dataset | None:
    """The last usable table of ``source`` while its sidebar has none (a setting it cannot use,
    a file it cannot read): the pages keep it, with a warning, rather than the sample."""
    if source.in_budget:
        kept = budget.session_store().get("last_good")
        good = kept[0] if kept else None
    else:
        good = st.session_state.get("last_good_dataset")
    if good is None or not source.owns(good):
        return None
    st.session_state["_showing_last_good"] = True
    return good


def _keep_last_good(ds: Dataset) -> None:
    """Keep the last usable dataset so that a later table with problems loses nothing: pages
    fall back to it. An upload's is kept in the budget's store, so a drop frees it, and put
    in session state only while the current table is unusable."""
    upload = sources.of(ds).in_budget
    if ds.prepared.ok and ds.models:
        if upload:
            store = budget.session_store()
            previous = store.get("last_good")
            same = previous is not None and (previous[0].key, previous[0].slice) == (
                ds.key,
                ds.slice,
            )
            store["last_good"] = (previous[0] if same else ds, st.session_state["model"])
            if not same:  # new arrays (a new mapping or slice): count them
                budget.set_size(budget.nbytes(store))
            previous = st.session_state.get("last_good_dataset")
            if previous is not None and sources.of(previous).in_budget:
                del st.session_state["last_good_dataset"]
        else:
            st.session_state["last_good_dataset"] = ds
            st.session_state["last_good_model"] = st.session_state["model"]
    elif upload and "last_good" in budget.session_store():
        good, model = budget.session_store()["last_good"]
        st.session_state["last_good_dataset"] = good
        st.session_state["last_good_model"] = model


def _scales_widget(ds: Dataset) -> None:
    """Each model's score scale (inferred, overridable) and the default threshold it gives."""
    with st.expander("Score scales and thresholds"):
        token = abs(hash(ds.key)) % 10**8
        shown = list(ds.models[:MAX_SCALE_WIDGETS])
        current = st.session_state.get("model")
        if current in ds.models and current not in shown:
            shown.append(current)
        if len(ds.models) > len(shown):
            st.caption(
                f"{plural(len(ds.models) - len(shown), 'more score column')} not listed: pick "
                "one as the model above to see and set its scale here."
            )
        for model in shown:
            sc = thresholds.scale(ds, model)
            kinds = list(SCALES)
            key = f"scale_{token}_{model}"
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
                continue
            value, rule = thresholds.default(ds, model)
            now = thresholds.current(ds, model)
            st.caption(
                f"{md(sc.reason)}. Default threshold {thresholds.label(ds, model, value)}: "
                f"{rule}." + ("" if now == value else f" Now {thresholds.label(ds, model, now)}.")
            )


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


def _leave_legacy_pages_mode() -> None:
    """Rerun at once if Streamlit started this run in its legacy ``pages/`` mode.

    That mode runs the first request after a server start under other script hashes than every
    later run, so widgets would lose their values on the first click (a shared link's dataset
    would snap back to the default). ``st.navigation`` switches the mode off for good; switching
    it off here and rerunning makes even the first run an ordinary one. Whether *this* run is
    legacy is read from its call stack, not only from the process-wide flag: sessions that open
    together on a fresh server all start in legacy mode, and the flag is off again by the time
    the second of them gets here (its first click was lost).
    """
    from streamlit.runtime.pages_manager import PagesManager

    if PagesManager.uses_pages_directory or _run_is_legacy():
        PagesManager.uses_pages_directory = False
        st.rerun()


def _run_is_legacy() -> bool:
    """Whether Streamlit's legacy multipage runner (``_mpa_v1``) is running this script."""
    from streamlit.runtime.scriptrunner import script_runner

    legacy = getattr(getattr(script_runner, "_mpa_v1", None), "__code__", None)
    frame = sys._getframe(1)
    while legacy is not None and frame is not None:
        if frame.f_code is legacy:
            return True
        frame = frame.f_back
    return False


def run_app() -> None:
    # A run stopped by a newer one (a click during a long page) left its frames to collect.
    budget.collect_garbage(uploads=st.session_state.get("_run_unfinished", False))
    st.session_state["_run_unfinished"] = True
    _leave_legacy_pages_mode()
    st.set_page_config(page_title="Metrics Lens", page_icon=":material/insights:", layout="wide")
    _read_query_params()
    ds = _sidebar()
    link = {**(sources.of(ds).link(ds) or {}), **presentation.link()}
    if link:
        st.query_params.from_dict(link)
    else:
        st.query_params.clear()
    _inside.dataset = ds
    pages = {
        section: [
            st.Page(path, title=title, icon=icon, default=path == PAGES[0][0])
            for path, title, icon in entries
        ]
        for section, entries in SECTIONS.items()
    }
    try:
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
        )
        current.run()
    finally:
        del _inside.dataset
        _inside.page_title = None
    st.session_state["_run_unfinished"] = False  # not reached when the run was stopped
    budget.collect_garbage()


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


def dataset_line(ds: Dataset) -> str:
    """The line that names the dataset a page shows, and its source (markdown)."""
    label = sources.of(ds).label
    if ds.name == label:  # "Your example: Your example" says it twice
        return f":material/table_chart: **{md(ds.name)}**"
    return f":material/table_chart: {label}: **{md(ds.name)}**"


SAMPLE, EXAMPLE, UPLOAD = "bundled", "example", "upload"  # the sources' prefixes


def _source_label(prefix: str) -> str:
    return next(s.label for s in sources.REGISTRY.values() if s.prefix == prefix)


def data_menu(shown: Dataset) -> tuple[dict[str, dict], str]:
    """The presentation bar's dataset menu: each entry's name -> the session state that shows
    it (the bundled samples, Your example, the last upload while it is kept), and the name of
    the entry shown. A dataset of another source (a server table) is an entry of its own."""
    menu: dict[str, dict] = {
        spec.title: {"source": _source_label(SAMPLE), "dataset": key}
        for key, spec in BUNDLED.items()
    }
    menu[_source_label(EXAMPLE)] = {"source": _source_label(EXAMPLE)}
    current = st.session_state.get("upload_current")  # never uploaded: no budget entry made
    store = budget.session_store() if current else {}
    upload = store.get(current)
    if upload is not None:  # named by what picking it shows: an unusable file shows the last good
        kept = store.get("last_good")
        name = kept[0].name if kept else upload.name
        menu[f"{_source_label(UPLOAD)}: {name}"] = {"source": _source_label(UPLOAD)}
    source = sources.of(shown)
    if source.prefix == SAMPLE:
        name = shown.name  # a bundled dataset is named by its title, the menu's key
    elif source.prefix == EXAMPLE:
        name = source.label
    else:
        name = f"{source.label}: {shown.name}"
        menu.setdefault(name, {"source": source.label})
    return menu, name


def use_sample(key: str) -> None:
    """A button's callback: show the bundled sample ``key`` (the sidebar follows)."""
    st.session_state["source"] = _source_label(SAMPLE)
    st.session_state["dataset"] = key


def offer_samples(*keys: str) -> None:
    """A button per bundled sample that opens it in one click (in presentation mode too, where
    the sidebar is hidden): for a page whose data lacks what it needs."""
    row = st.container(horizontal=True)
    for key in keys:
        row.button(
            f"Open the sample '{BUNDLED[key].title}'",
            key=f"offer_sample_{key}",
            icon=":material/dataset:",
            on_click=use_sample,
            args=(key,),
        )


def _settings_text(ds: Dataset) -> str:
    """The column settings a dataset was read with, in a few words of markdown ("positive
    relevance > 0; user/query query_id; model ranker"), the names escaped."""
    m = ds.mapping
    parts = [f"positive {md(ds.positive_name)}"]
    if m.group:
        parts.append(f"user/query {md(m.group)}")
    if m.weight:
        parts.append(f"weight {md(m.weight)}")
    models = ", ".join(md(x) for x in ds.models[:4]) + (", ..." if len(ds.models) > 4 else "")
    parts.append(f"model{'s' * (len(ds.models) != 1)} {models}")
    return "; ".join(parts)


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
    if ds.slice is not None:
        note, button = st.columns([5, 1], vertical_alignment="center")
        note.info(
            f"Showing only **{md(data.slice_label(*ds.slice))}**: {len(ds.frame):,} of "
            f"{ds.rows_before_slice:,} rows.",
            icon=":material/filter_alt:",
        )
        button.button(
            "Show all rows",
            key="slice_reset",
            on_click=lambda: st.session_state.update(slice_choice=ALL_ROWS),
        )
    chosen = sources.REGISTRY.get(st.session_state.get("source"))
    if chosen is not None and chosen.waits and not chosen.owns(ds):  # never another silently
        st.info(
            f"Showing the sample dataset **{md(ds.name)}** until your table is ready: the "
            "sidebar says what it needs.",
            icon=":material/info:",
        )
    if st.session_state.get("_showing_last_good"):
        st.warning(
            f"The sidebar's settings cannot be used yet (it says why); showing {md(ds.name)} "
            "as it last could be used."
        )
    if not require_usable:
        return ds, st.session_state.get("model")
    if not _usable(ds):
        previous = st.session_state.get("last_good_dataset")
        if previous is not None:
            if previous.name == ds.name:  # the same file under settings that cannot be used
                st.warning(
                    f"{md(ds.name)} cannot be used with the sidebar's current settings (it says "
                    f"what to fix). The pages show it as it last could be used: "
                    f"{_settings_text(previous)}."
                )
            else:
                st.warning(
                    f"{md(ds.name)} cannot be used yet (the sidebar says what to fix); showing "
                    f"{md(previous.name)} meanwhile."
                )
            _name(previous)
            model = st.session_state.get("model")  # the sidebar's box lists previous's models
            return previous, model if model in previous.models else st.session_state[
                "last_good_model"
            ]
        st.info("The data cannot be used yet: the sidebar says what to fix.")
        st.stop()
    _name(ds)
    missing = [need for need in requires if not NEEDS[need][0](ds)]
    if missing:  # the page stops before its own heading: give it one above the sentence
        title = getattr(_inside, "page_title", None)
        if title:
            st.header(title, anchor=False)
        needs(ds, missing[0], what)
        st.stop()
    return ds, st.session_state["model"]


def _usable(ds: Dataset) -> bool:
    return ds.prepared.ok and bool(ds.models)


def shown_dataset(ds: Dataset) -> Dataset:
    """The dataset the pages show: ``ds``, or while it cannot be used the last usable one."""
    previous = st.session_state.get("last_good_dataset")
    return ds if _usable(ds) or previous is None else previous


def _name(ds: Dataset) -> None:
    if not presentation.on():
        st.caption(dataset_line(ds))


# The frame and the libraries it imported live as long as the server: out of every collection.
budget.freeze_imports()

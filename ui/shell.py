"""The app's frame: page config, the shared sidebar (data, column mapping, model) and navigation.

``app.py`` calls :func:`run_app`. Every page calls :func:`page_context` first. Streamlit runs a
script in a ``pages/`` folder directly, without ``app.py``, when that folder exists and
``st.navigation`` has not yet run in the process (its legacy multipage mode: the first request
after a server start, and every ``AppTest`` run). Then ``page_context`` runs the whole app
instead, which calls ``st.navigation`` and so switches the legacy mode off, and stops the direct
run. Either way a page always runs inside the shell.

Shared session state (set here, read by pages): ``source`` ("bundled" or "upload"),
``dataset`` (bundled key), ``model``; each model's threshold and scale live in
:mod:`ui.thresholds`. Page-specific keys are prefixed with the
page name. Uploads that parsed are kept in ``uploads`` so a later bad upload loses nothing.
"""

from __future__ import annotations

import math
import threading
from dataclasses import dataclass

import streamlit as st

from ui import (
    budget,
    data,
    example_source,
    presentation,
    server_source,
    synthetic_source,
    thresholds,
)
from ui.loading import ColumnMapping, LoadError, guess_mapping, guess_pos_label, read_table
from ui.numbers import plural
from ui.roles import ROLES, SCALES
from ui.safe import md

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
        ("pages/multilabel.py", "Multi-label", ":material/label:"),
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
UPLOAD_TYPES = ["csv", "tsv", "txt", "gz", "parquet"]
SOURCES = ["Sample dataset", "Upload", "Server dataset", "Your example", "Synthetic"]
NONE = "(none)"
# A table may hold thousands of score columns: draw this many at first, and list this many
# scale settings in the sidebar (every rerun draws each one).
MAX_DEFAULT_MODELS = 8
MAX_SCALE_WIDGETS = 20
MAX_GUESSED_SCORES = 50  # score columns mapped as models at first (a wide table: features)

_inside = threading.local()

__all__ = ["choose_slice", "model_picker", "page_context", "run_app"]


@dataclass
class Upload:
    name: str
    frame: object
    notes: list[str]
    guess: ColumnMapping


def _read_query_params() -> None:
    """On a session's first run, a shared link (bundled data only) sets the view.

    ``threshold`` may repeat, one ``model:value`` per model; a bare value is the threshold of
    the link's ``model``.
    """
    if st.session_state.get("_query_read"):
        return
    st.session_state["_query_read"] = True
    q = st.query_params
    if q.get(example_source.QUERY_KEY):
        st.session_state["source"] = "Your example"
        return
    if q.get(synthetic_source.QUERY_KEY):
        st.session_state["source"] = "Synthetic"
        bad = synthetic_source.apply_link(q[synthetic_source.QUERY_KEY])
        if bad:
            st.session_state["synth_link_bad"] = bad
        return
    if q.get("dataset") not in data.BUNDLED:
        return
    st.session_state["dataset"] = q["dataset"]
    st.session_state["source"] = "Sample dataset"
    if "model" in q:
        st.session_state["model"] = q["model"]
    pending = {}
    for item in q.get_all("threshold"):
        model, _, value = item.rpartition(":")
        try:
            number = float(value)
        except ValueError:
            continue  # not a number: keep the default
        if math.isfinite(number):
            pending[model or q.get("model", "")] = number
    st.session_state["thresholds_from_url"] = pending


def _upload_widget() -> None:
    uploaded = st.file_uploader(
        "Score table",
        type=UPLOAD_TYPES,
        key="upload_file",
        help="CSV, TSV or semicolon-separated text (optionally .gz), or Parquet. One row per "
        "example: a label column and one score column per model; optionally a user/query id "
        "and a sample weight. Multi-label: label_<class> and score_<class> column pairs.",
    )
    # The memory budget (ui.budget) owns the uploads: it may empty this dict to make room.
    uploads: dict[str, Upload] = budget.session_store()
    st.session_state["uploads"] = uploads
    if uploaded is None:
        _dropped_message()
        return
    file_id = f"upload:{uploaded.name}:{uploaded.file_id}"
    if file_id in uploads:
        st.session_state["upload_current"] = file_id
        return
    if st.session_state.get("upload_dropped") == file_id:
        _dropped_message()  # the uploader still holds the file the budget dropped
        return
    if st.session_state.get("upload_failed") == file_id:
        st.error(md(st.session_state["upload_error"], limit=2000))
        return
    try:
        with budget.parsing():
            budget.make_room(uploaded.size)  # room first: a class uploading at once peaks here
            frame, notes = read_table(uploaded.name, uploaded.getvalue())
    except LoadError as exc:
        st.session_state["upload_failed"] = file_id
        st.session_state["upload_error"] = str(exc)
        st.error(md(str(exc), limit=2000))
        return
    uploads.clear()  # keep one upload in memory: tables can be large
    upload = Upload(uploaded.name, frame, notes, guess_mapping(frame))
    uploads[file_id] = upload
    budget.forget_raw_file(uploaded.file_id)  # parsed: the raw bytes are not needed again
    budget.set_size(budget.nbytes(uploads), uploaded.file_id)
    st.session_state.pop("upload_dropped", None)
    st.session_state["upload_current"] = file_id
    _show_mapping(_mapping_for(upload), frame)


def _file_key(upload: Upload) -> tuple:
    """What identifies a table across uploads of it: its name and its columns."""
    return (upload.name, tuple(str(c) for c in upload.frame.columns))


def _mapping_for(upload: Upload) -> ColumnMapping:
    """The mapping a table starts with: the one last used for it in this session (edited by
    hand, say), else the guess."""
    return st.session_state.get("upload_mappings", {}).get(_file_key(upload), upload.guess)


def _show_mapping(mapping: ColumnMapping, frame) -> None:
    """Set every mapping widget to ``mapping`` before the widgets run.

    Deleting the widgets' state is not enough: a browser keeps a widget's last value and sends
    it back on the next click, so a second table would get the first one's score columns
    (filtered to nothing) or its positive label. Values set in session state before a widget
    is drawn are pushed to the browser.
    """
    for key in [k for k in st.session_state if str(k).startswith("map_")]:
        del st.session_state[key]
    layout = _guess_layout(mapping)
    state = {
        "map_layout": layout,
        "map_group": mapping.group or NONE,
        "map_weight": mapping.weight or NONE,
    }
    if layout == "multilabel":
        state["map_classes"] = list(mapping.classes)
    elif mapping.label is not None:
        state["map_label"] = mapping.label
        if layout == "binary":
            state[f"map_graded_{mapping.label}"] = bool(mapping.graded)
            values = list(frame[mapping.label].dropna().unique()[:50])
            if not mapping.graded and mapping.pos_label in values:
                state[f"map_pos_{mapping.label}"] = values[values.index(mapping.pos_label)]
            state["map_scores"] = list(mapping.scores[:MAX_GUESSED_SCORES])
            state["map_slices"] = list(mapping.slices)
    st.session_state.update(state)


def _remember_mapping(upload: Upload, mapping: ColumnMapping) -> None:
    """Keep the mapping of each table seen in this session (a few small tuples each)."""
    kept = st.session_state.setdefault("upload_mappings", {})
    kept[_file_key(upload)] = mapping
    while len(kept) > 20:
        kept.pop(next(iter(kept)))


def _dropped_message() -> None:
    if st.session_state.get("upload_dropped"):
        st.warning(budget.MESSAGE, icon=":material/memory:")


def _touch_budget() -> None:
    """Every run: mark this session used; if the budget dropped its upload, say so."""
    if budget.touch():
        st.session_state["upload_dropped"] = st.session_state.get("upload_current") or True
        st.session_state.pop("upload_current", None)
        budget.session_store().clear()  # anything this run put back after the drop
        previous = st.session_state.get("last_good_dataset")
        if str(getattr(previous, "source_id", "")).startswith("upload:"):
            del st.session_state["last_good_dataset"]


LAYOUTS = {
    "binary": "Label column",
    "multiclass": "Multi-class: label + score_<class>",
    "multilabel": "Multi-label: label_<class> + score_<class>",
}


def _guess_layout(guess: ColumnMapping) -> str:
    if guess.is_multilabel:
        return "multilabel"
    return "multiclass" if guess.is_multiclass else "binary"


def _mapping_widgets(upload: Upload) -> ColumnMapping:
    frame = upload.frame
    columns = [str(c) for c in frame.columns]
    guess = upload.guess
    layout = st.radio(
        "Layout",
        list(LAYOUTS),
        index=_unset("map_layout", list(LAYOUTS).index(_guess_layout(guess))),
        format_func=LAYOUTS.get,
        key="map_layout",
    )
    optional = [NONE, *columns]
    group = st.selectbox(
        "User / query id (optional)",
        optional,
        index=_unset("map_group", optional.index(guess.group) if guess.group else 0),
        key="map_group",
    )
    weight = st.selectbox(
        "Sample weight (optional)",
        optional,
        index=_unset("map_weight", optional.index(guess.weight) if guess.weight else 0),
        key="map_weight",
    )
    group = None if group == NONE else group
    weight = None if weight == NONE else weight
    if layout == "multilabel":
        classes = [c[6:] for c in columns if c.startswith("label_") and f"score_{c[6:]}" in columns]
        _keep_options("map_classes", classes)
        chosen = st.multiselect(
            "Classes", classes, default=_unset("map_classes", classes), key="map_classes"
        )
        return ColumnMapping(
            label=None,
            scores=tuple(f"score_{c}" for c in chosen),
            labels=tuple(f"label_{c}" for c in chosen),
            classes=tuple(chosen),
            group=group,
            weight=weight,
        )
    label = st.selectbox(
        "Label column",
        columns,
        index=_unset("map_label", columns.index(guess.label) if guess.label in columns else 0),
        key="map_label",
    )
    if layout == "multiclass":
        classes = sorted(str(v) for v in frame[label].dropna().unique()[:200])
        with_scores = [c for c in classes if f"score_{c}" in columns]
        if len(with_scores) < 2:
            st.error(
                f"Multi-class needs a score_<class> column for each class of {label!r} "
                f"(its classes: {', '.join(classes[:8])}{', ...' if len(classes) > 8 else ''})."
            )
        return ColumnMapping(
            label=label,
            scores=tuple(f"score_{c}" for c in with_scores),
            pos_label=None,
            classes=tuple(with_scores),
            group=group,
            weight=weight,
        )
    graded = st.checkbox(
        "Graded relevance (label > 0 is relevant)",
        value=_unset(f"map_graded_{label}", guess.graded and label == guess.label) or False,
        key=f"map_graded_{label}",
        help="For ranking data with relevance grades 0, 1, 2, ...: rows with a grade above 0 "
        "count as positive, and NDCG uses the grades.",
    )
    pos_label = None
    if not graded:
        values = list(frame[label].dropna().unique()[:50])
        default_pos = guess.pos_label if label == guess.label else guess_pos_label(frame[label])
        pos_label = st.selectbox(
            "Positive label",
            values,
            index=_unset(
                f"map_pos_{label}", values.index(default_pos) if default_pos in values else 0
            ),
            key=f"map_pos_{label}",
            format_func=str,
        )
        pos_label = pos_label.item() if hasattr(pos_label, "item") else pos_label
    candidates = [c for c in columns if c not in (label, group, weight)]
    allowed = set(candidates)
    default_scores = [c for c in guess.scores if c in allowed][:MAX_GUESSED_SCORES]
    _keep_options("map_scores", candidates)
    scores = st.multiselect(
        "Score columns (one per model)",
        candidates,
        default=_unset("map_scores", default_scores),
        key="map_scores",
        help="The Data page lists every column with the role guessed for it and why.",
    )
    chosen = set(scores)
    others = [c for c in candidates if c not in chosen]
    if len(guess.scores) > MAX_GUESSED_SCORES:
        st.caption(
            f"{len(guess.scores):,} columns look like scores; the first {MAX_GUESSED_SCORES} "
            "are mapped as models. Add others above."
        )
    _keep_options("map_slices", others)
    slices = st.multiselect(
        "Slice columns (optional)",
        others,
        default=_unset("map_slices", [c for c in guess.slices if c in others]),
        key="map_slices",
        help="Categories (country, device, segment) to look at one value at a time.",
    )
    return ColumnMapping(
        label=label,
        scores=tuple(scores),
        pos_label=pos_label,
        group=group,
        weight=weight,
        graded=graded,
        slices=tuple(slices),
    )


def _unset(key: str, default):
    """A widget's default, or None when session state already holds its value (set by
    :func:`_show_mapping` or the Data page): Streamlit takes one or the other, not both."""
    return None if key in st.session_state else default


def _keep_options(key: str, options: list[str]) -> None:
    """Drop from a multiselect's state the columns that are no longer its options (one became
    the label, say), so the widget keeps the rest instead of failing."""
    if key in st.session_state:
        allowed = set(options)
        kept = [c for c in st.session_state[key] if c in allowed]
        if kept != st.session_state[key]:
            st.session_state[key] = kept


def _problems(ds: data.Dataset) -> None:
    for note in ds.prepared.problems:
        (st.error if note.level == "error" else st.warning)(md(note.message, limit=2000))
    if ds.prepared.n_dropped:
        st.info(f"Dropped {plural(ds.prepared.n_dropped, 'row')} with problems.")


def _sidebar() -> data.Dataset:
    with st.sidebar:
        st.title("Metrics Lens")
        st.caption("See how classification metrics behave on your scores.")
        st.session_state.setdefault("source", "Sample dataset")
        _touch_budget()
        source = st.segmented_control("Data", SOURCES, key="source")
        ds = None
        if source == "Your example":
            ds = example_source.example_dataset()
        elif source == "Synthetic":
            bad = st.session_state.pop("synth_link_bad", None)
            if bad:
                st.warning(
                    md(
                        "The link's synthetic settings "
                        + ", ".join(f"“{b}”" for b in bad[:5])
                        + " were not understood and keep their defaults.",
                        limit=600,
                    )
                )
            ds = synthetic_source.synthetic_dataset()
        elif source == "Server dataset":
            ds = server_source.server_dataset()
        elif source == "Upload":
            _upload_widget()
            current = st.session_state.get("upload_current")
            upload = budget.session_store().get(current)
            if upload is None:
                if not st.session_state.get("upload_dropped"):
                    st.info("Upload a score table, or pick a sample dataset.")
            else:
                for note in upload.notes:
                    st.caption(f":material/info: {md(note, limit=2000)}")
                with st.expander("Columns", expanded=True):
                    mapping = _mapping_widgets(upload)
                    _remember_mapping(upload, mapping)
                    drop = st.checkbox(
                        "Drop rows with missing or bad values",
                        key="map_drop_bad_rows",
                        help="Rows with a missing label, score, weight or id, or a non-numeric "
                        "or infinite score.",
                    )
                ds = data.uploaded_dataset(current, upload.name, upload.frame, mapping, drop)
                ds = _slice_widget(ds)
        if ds is None:
            st.session_state.setdefault("dataset", data.DEFAULT_DATASET)
            if source in (None, "Sample dataset"):
                st.selectbox(
                    "Sample dataset",
                    options=list(data.BUNDLED),
                    format_func=lambda key: data.BUNDLED[key].title,
                    key="dataset",
                )
            ds = data.bundled_dataset(st.session_state["dataset"])
            if source in ("Upload", "Server dataset"):
                st.caption(f"Showing the sample dataset {md(ds.name)} until a table loads.")
            else:
                st.caption(ds.description)
        _problems(ds)
        if ds.models:
            thresholds.sync(ds)
            if st.session_state.get("model") not in ds.models:
                st.session_state["model"] = ds.models[0]
            if ds.engine is None:  # a server dataset has its own model picker
                st.selectbox(
                    "Class" if ds.mapping.per_class else "Model (score column)",
                    options=ds.models,
                    key="model",
                )
            _scales_widget(ds)
        if ds.engine is not None:
            st.caption(
                f"{plural(ds.engine.summary.rows, 'row')} on the server, read by the pages as "
                f"{plural(len(ds.frame), 'weighted per-score row')}."
            )
        else:
            n = len(ds.frame) - ds.prepared.n_dropped
            st.caption(f"{plural(n, 'row')}, {plural(len(ds.frame.columns), 'column')}.")
        st.divider()
        presentation.sidebar_controls()
    _keep_last_good(ds)
    return ds


def _keep_last_good(ds: data.Dataset) -> None:
    """Keep the last usable dataset so that a later table with problems loses nothing: pages
    fall back to it. An upload's is kept in the budget's store, so a drop frees it, and put
    in session state only while the current table is unusable."""
    upload = ds.source_id.startswith("upload:")
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
            if str(getattr(st.session_state.get("last_good_dataset"), "source_id", "")).startswith(
                "upload:"
            ):
                del st.session_state["last_good_dataset"]
        else:
            st.session_state["last_good_dataset"] = ds
            st.session_state["last_good_model"] = st.session_state["model"]
    elif upload and "last_good" in budget.session_store():
        good, model = budget.session_store()["last_good"]
        st.session_state["last_good_dataset"] = good
        st.session_state["last_good_model"] = model


ALL_ROWS = "(all rows)"


def _slice_widget(ds: data.Dataset) -> data.Dataset:
    """With slice columns mapped: show every page on the rows of one category only."""
    if not ds.mapping.slices:
        return ds
    options = [ALL_ROWS]
    for col in ds.mapping.slices:
        values = ds.frame[col].dropna().value_counts().index[: data.MAX_SLICE_VALUES]
        options += [(col, v.item() if hasattr(v, "item") else v) for v in values]
    if "slice_pending" in st.session_state:  # chosen on a page, after this widget last ran
        st.session_state["slice_choice"] = st.session_state.pop("slice_pending")
    current = st.session_state.get("slice_choice")
    if _is_crossed(current, ds):  # two columns crossed, picked on Compare: offer it too
        options.append(current)
    if current not in options:
        st.session_state["slice_choice"] = ALL_ROWS
    choice = st.selectbox(
        "Show only",
        options,
        key="slice_choice",
        format_func=lambda o: o if o == ALL_ROWS else data.slice_label(*o),
        help="Every page then works on the rows of this category only.",
    )
    return ds if choice == ALL_ROWS else data.sliced(ds, *choice)


def _is_crossed(choice, ds: data.Dataset) -> bool:
    return (
        isinstance(choice, tuple)
        and len(choice) == 2
        and isinstance(choice[0], tuple)
        and all(c in ds.mapping.slices for c in choice[0])
    )


def choose_slice(column, value) -> None:
    """Show every page on the rows where ``column`` is ``value`` (from the next run on)."""
    st.session_state["slice_pending"] = (column, value)


def _scales_widget(ds: data.Dataset) -> None:
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
            value, rule = thresholds.default(ds, model)
            now = thresholds.current(ds, model)
            st.caption(
                f"{md(sc.reason)}. Default threshold {value:.4g}: {rule}."
                + ("" if now == value else f" Now {now:.4g}.")
            )


def model_picker(label: str, key: str, ds: data.Dataset) -> tuple[str, ...]:
    """A multiselect of models that survives a new table: it starts, and starts again whenever
    the table changes, with every model of the table selected."""
    owner = (ds.source_id, ds.models)
    if st.session_state.get(f"{key}_for") != owner:
        st.session_state[f"{key}_for"] = owner
        st.session_state[key] = list(ds.models[:MAX_DEFAULT_MODELS])
    picked = tuple(st.multiselect(label, ds.models, key=key))
    if len(ds.models) > MAX_DEFAULT_MODELS and st.session_state.get(f"{key}_for") == owner:
        st.caption(
            f"The table has {len(ds.models):,} score columns; the first {MAX_DEFAULT_MODELS} "
            "are drawn at first. Add or remove models above."
        )
    return picked


def _leave_legacy_pages_mode() -> None:
    """Rerun at once if Streamlit started this run in its legacy ``pages/`` mode.

    That mode runs the first request after a server start under other script hashes than every
    later run, so widgets would lose their values on the first click (a shared link's dataset
    would snap back to the default). ``st.navigation`` switches the mode off for good; switching
    it off here and rerunning makes even the first run an ordinary one.
    """
    from streamlit.runtime.pages_manager import PagesManager

    if PagesManager.uses_pages_directory:
        PagesManager.uses_pages_directory = False
        st.rerun()


def run_app() -> None:
    # A run stopped by a newer one (a click during a long page) left its frames to collect.
    budget.collect_garbage(uploads=st.session_state.get("_run_unfinished", False))
    st.session_state["_run_unfinished"] = True
    _leave_legacy_pages_mode()
    st.set_page_config(page_title="Metrics Lens", page_icon=":material/insights:", layout="wide")
    _read_query_params()
    ds = _sidebar()
    if ds.source_id.startswith("bundled:") and ds.models:
        st.query_params.update(
            dataset=ds.source_id.split(":", 1)[1], model=st.session_state["model"]
        )
        chosen = st.session_state.get("thresholds", {})
        if chosen:
            st.query_params["threshold"] = [f"{m}:{v:.6g}" for m, v in chosen.items()]
        elif "threshold" in st.query_params:
            del st.query_params["threshold"]
    elif ds.source_id.startswith("example:"):
        # The typed table travels in the URL, so a reload or a shared link reopens it.
        table = st.session_state.get("example_current")
        if table is not None and len(table) <= example_source.MAX_ROWS:
            st.query_params.from_dict({example_source.QUERY_KEY: example_source.encode(table)})
    elif ds.source_id.startswith("synthetic:"):
        # Every generator setting travels in the URL, so a shared link redraws the same table.
        st.query_params.from_dict({synthetic_source.QUERY_KEY: synthetic_source.encode()})
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
        presentation.apply([p for section in pages.values() for p in section], current)
        current.run()
    finally:
        del _inside.dataset
    st.session_state["_run_unfinished"] = False  # not reached when the run was stopped
    budget.collect_garbage()


def page_context(*, require_usable: bool = True) -> tuple[data.Dataset, str | None]:
    """(the current dataset, the selected model) for a page; runs the app shell if needed.

    Stops the page with a short message when the data cannot be used yet (the sidebar says
    why), so a page body only ever sees usable data, unless ``require_usable`` is False (the
    Data page shows any table that parsed).
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
    if st.session_state.get("source") in ("Upload", "Server dataset") and ds.source_id.startswith(
        "bundled:"
    ):  # never another dataset silently
        st.info(
            f"Showing the sample dataset **{md(ds.name)}** until your table is ready: the "
            "sidebar says what it needs.",
            icon=":material/info:",
        )
    if not require_usable:
        return ds, st.session_state.get("model")
    if not ds.prepared.ok or not ds.models:
        previous = st.session_state.get("last_good_dataset")
        if previous is not None:
            st.warning(
                f"{md(ds.name)} cannot be used yet (the sidebar says what to fix); showing "
                f"{md(previous.name)} meanwhile."
            )
            return previous, st.session_state["last_good_model"]
        st.info("The data cannot be used yet: the sidebar says what to fix.")
        st.stop()
    return ds, st.session_state["model"]


def set_state(**values) -> None:
    """A widget callback that sets session-state keys (defined here, not in a page: see
    :func:`apply_role_edits`)."""
    st.session_state.update(values)


def add_to_state(key: str, delta: int, low: int | None = None, high: int | None = None) -> None:
    """A widget callback that moves an integer in session state by ``delta``, within bounds."""
    value = st.session_state.get(key, 0) + delta
    if low is not None:
        value = max(value, low)
    if high is not None:
        value = min(value, high)
    st.session_state[key] = int(value)


def apply_role_edits(columns: list[str], before: dict[str, str]) -> None:
    """The Data page's role editor callback: turn the edited roles into the sidebar's mapping
    widgets (read on the next run). Widget callbacks live in ui modules: a page's function
    would keep the page's globals, its dataset among them, alive in the session's widget state."""
    edits = st.session_state["data_roles"]["edited_rows"]
    after = dict(before)
    changed = []
    for row, change in edits.items():
        if "role" in change and change["role"] in ROLES:
            after[columns[int(row)]] = change["role"]
            changed.append(columns[int(row)])
    # One label, one group, one weight: the column just given the role takes it.
    for role in ("label", "group", "weight"):
        holders = [c for c in columns if after[c] == role]
        if len(holders) > 1:
            keep = next((c for c in reversed(changed) if after[c] == role), holders[0])
            for c in holders:
                if c != keep:
                    after[c] = "ignore"
    label = next((c for c in columns if after[c] == "label"), None)
    if label is None:
        st.session_state["data_roles_error"] = "A table needs a label column: one stays."
        return
    st.session_state["map_label"] = label
    st.session_state["map_group"] = next((c for c in columns if after[c] == "group"), "(none)")
    st.session_state["map_weight"] = next((c for c in columns if after[c] == "weight"), "(none)")
    st.session_state["map_scores"] = [c for c in columns if after[c] == "score"]
    st.session_state["map_slices"] = [c for c in columns if after[c] == "slice"]

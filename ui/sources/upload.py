"""A table the user uploads: the file widget, the column mapping widgets (guessed for every new
file, kept per file when edited), and the Data page's role editor that drives them.

Uploads that parsed live in the memory budget (:mod:`ui.compute.budget`), one per session, so a
later
bad upload loses nothing and a full server drops the oldest first.
"""

from __future__ import annotations

from dataclasses import dataclass

import streamlit as st

from ui.compute import budget, data
from ui.compute.parse_lanes import parsing
from ui.compute.reading import read_table
from ui.sources import slice_picker
from ui.sources.base import Source
from ui.tables.dataset import Dataset
from ui.tables.loading import ColumnMapping, LoadError, guess_mapping, guess_pos_label
from ui.tables.model_files import add_model_file
from ui.tables.roles import NONE, ROLES, class_models, class_score_columns
from ui.words.safe import md

__all__ = ["SOURCE", "Upload", "apply_role_edits", "preload"]

UPLOAD_TYPES = ["csv", "tsv", "txt", "gz", "parquet"]
MAX_GUESSED_SCORES = 50  # score columns mapped as models at first (a wide table: features)


@dataclass
class Upload:
    name: str
    frame: object
    notes: list[str]
    guess: ColumnMapping


def _upload_widget() -> None:
    uploaded = st.file_uploader(
        "Score table",
        type=UPLOAD_TYPES,
        key="upload_file",
        help="CSV, TSV or semicolon-separated text (optionally .gz), or Parquet. One row per "
        "example: a label column and one score column per model; optionally a user/query id "
        "and a sample weight. Multi-label: label_<class> and score_<class> column pairs. Several "
        "multi-class or multi-label models: <model>__<class> columns (lr__A, hgb__A, ...).",
    )
    # The memory budget (ui.compute.budget) owns the uploads: it may empty this dict to make room.
    uploads: dict[str, Upload] = budget.session_store()
    st.session_state["uploads"] = uploads
    if uploaded is None:
        _dropped_message()
        return
    file_id = f"upload:{uploaded.name}:{uploaded.file_id}"
    if file_id in uploads:
        st.session_state["upload_current"] = file_id
        return
    if file_id in st.session_state.get("upload_merged_from", ()):
        return  # that table now holds a second file's models too (_model_file_widget)
    if st.session_state.get("upload_dropped") == file_id:
        _dropped_message()  # the uploader still holds the file the budget dropped
        return
    if st.session_state.get("upload_failed") == file_id:
        st.error(md(st.session_state["upload_error"], limit=2000))
        return
    try:
        budget.make_room(uploaded.size)  # room first: a class uploading at once peaks here
        # The parse itself in its lane (ui.compute.parse_lanes.parsing): large tables one at a time,
        # small
        # ones beside them, so no upload waits behind another student's large file.
        # Words while it runs (Streamlit shows them after half a second): a large table or a
        # class's queue of large parses takes seconds.
        with st.spinner(f"Reading {md(uploaded.name)} ({uploaded.size / 1e6:,.1f} MB)...",
                        show_time=True):  # fmt: skip
            frame, notes = read_table(uploaded.name, uploaded.getvalue(), lane=parsing)
    except LoadError as exc:
        st.session_state["upload_failed"] = file_id
        st.session_state["upload_error"] = str(exc)
        st.error(md(str(exc), limit=2000))
        return
    # One upload in memory (tables can be large), and the last usable table: the pages show it
    # while this one cannot be used yet, so a bad second file loses nothing already loaded.
    with uploads.lock:
        for key in [k for k in uploads if k != "last_good"]:
            del uploads[key]
    upload = Upload(uploaded.name, frame, notes, guess_mapping(frame))
    uploads[file_id] = upload
    budget.forget_raw_file(uploaded.file_id)  # parsed: the raw bytes are not needed again
    budget.set_size(budget.nbytes(uploads), uploaded.file_id)
    st.session_state.pop("upload_dropped", None)
    st.session_state["upload_current"] = file_id
    _show_mapping(_mapping_for(upload), frame)


def preload(name: str, frame, notes: list[str], mapping: ColumnMapping, version: str = "") -> None:
    """Open a table handed over by ``metrics-lens app FILE`` exactly as if it had been uploaded
    (the same reader, :func:`ui.compute.reading.read_path`), with ``mapping`` (the roles the command
    was given over the guess) as its starting mapping. Call on a session's first run.
    ``version`` (the file's modification time and size) names this reading of the file: the
    caches keyed by it never serve a session the numbers of the file as it was before."""
    uploads: dict[str, Upload] = budget.session_store()
    st.session_state["uploads"] = uploads
    file_id = f"upload:{name}:app:{version}"
    with uploads.lock:
        for key in [k for k in uploads if k != "last_good"]:
            del uploads[key]
    uploads[file_id] = Upload(name, frame, notes, mapping)
    budget.set_size(budget.nbytes(uploads))
    st.session_state["upload_current"] = file_id
    st.session_state["source"] = SOURCE.label
    _show_mapping(mapping, frame)


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
    if mapping.per_class:
        state["map_class_models"] = list(mapping.class_models)
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
        label_classes = [c[6:] for c in columns if c.startswith("label_")]
        found, covered = class_models(columns, label_classes)  # <model>__<class> columns
        classes = covered if found else [c for c in label_classes if f"score_{c}" in columns]
        _keep_options("map_classes", classes)
        chosen = st.multiselect(
            "Classes", classes, default=_unset("map_classes", classes), key="map_classes"
        )
        models = _class_models_widget(found)
        return ColumnMapping(
            label=None,
            scores=class_score_columns(chosen, models),
            labels=tuple(f"label_{c}" for c in chosen),
            classes=tuple(chosen),
            group=group,
            weight=weight,
            class_models=models,
        )
    label = st.selectbox(
        "Label column",
        columns,
        index=_unset("map_label", columns.index(guess.label) if guess.label in columns else 0),
        key="map_label",
    )
    if layout == "multiclass":
        classes = sorted(str(v) for v in frame[label].dropna().unique()[:200])
        if label == guess.label and set(guess.classes) == set(classes):
            classes = list(guess.classes)  # the file's order of the score columns
        found, covered = class_models(columns, classes)  # <model>__<class> columns
        with_scores = (
            [c for c in classes if c in covered]
            if found
            else [c for c in classes if f"score_{c}" in columns]
        )
        if len(with_scores) < 2:
            st.error(
                f"Multi-class needs a score_<class> column (or <model>__<class> columns) for each "
                f"class of {label!r} (its classes: {', '.join(classes[:8])}"
                f"{', ...' if len(classes) > 8 else ''})."
            )
        models = _class_models_widget(found)
        return ColumnMapping(
            label=label,
            scores=class_score_columns(with_scores, models),
            pos_label=None,
            classes=tuple(with_scores),
            group=group,
            weight=weight,
            class_models=models,
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


def _class_models_widget(found: list[str]) -> tuple[str, ...]:
    """The models of a per-class table of <model>__<class> columns (none: score_<class>)."""
    if not found:
        return ()
    _keep_options("map_class_models", found)
    return tuple(
        st.multiselect(
            "Models (<model>__<class> columns)",
            found,
            default=_unset("map_class_models", found),
            key="map_class_models",
            help="Each model scores every class in columns named <model>__<class> (lr__A, "
            "hgb__A, ...). Compare puts two or more of them side by side.",
        )
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
    st.session_state["map_group"] = next((c for c in columns if after[c] == "group"), NONE)
    st.session_state["map_weight"] = next((c for c in columns if after[c] == "weight"), NONE)
    st.session_state["map_scores"] = [c for c in columns if after[c] == "score"]
    st.session_state["map_slices"] = [c for c in columns if after[c] == "slice"]


def sidebar() -> Dataset | None:
    _upload_widget()
    current = st.session_state.get("upload_current")
    upload = budget.session_store().get(current)
    if upload is None:
        if not st.session_state.get("upload_dropped"):
            st.info("Upload a score table, or pick a sample dataset.")
        return None
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
    _model_file_widget(current, upload, mapping)
    ds = data.uploaded_dataset(current, upload.name, upload.frame, mapping, drop)
    return slice_picker.slice_widget(ds)


def _model_file_widget(current: str, upload: Upload, mapping: ColumnMapping) -> None:
    """A second file of the same rows, added as another model (:mod:`ui.tables.model_files`): the
    table becomes both files' models together, with the mapping the first one had."""
    second = st.file_uploader(
        "Another model's file (same rows)",
        type=UPLOAD_TYPES,
        key="upload_model_file",
        help="One predictions file per model? Add the next one here: same rows, in the same "
        "order with the same label column, or with an id column both files have (unique per "
        "row). Its score columns become more models (per-class scores: one more whole "
        "model, named after the file).",
    )
    if second is None:
        return
    added: set = st.session_state.setdefault("upload_model_done", set())
    if second.file_id in added:  # each file once (the uploader keeps returning it)
        return
    added.add(second.file_id)
    uploads: dict[str, Upload] = budget.session_store()
    try:
        budget.make_room(second.size)
        with st.spinner(f"Reading {md(second.name)} ({second.size / 1e6:,.1f} MB)...",
                        show_time=True):  # fmt: skip
            other, _ = read_table(second.name, second.getvalue(), lane=parsing)
        frame, merged, notes = add_model_file(upload.frame, mapping, upload.name, other,
                                              second.name)  # fmt: skip
    except LoadError as exc:
        st.error(md(str(exc), limit=2000))
        return
    finally:
        budget.forget_raw_file(second.file_id)
    file_id = f"upload:{upload.name}+{second.name}:{second.file_id}"
    joined = Upload(f"{upload.name} + {second.name}", frame, [*upload.notes, *notes], merged)
    with uploads.lock:
        for key in [k for k in uploads if k != "last_good"]:
            del uploads[key]
        uploads[file_id] = joined
    budget.set_size(budget.nbytes(uploads))
    st.session_state.setdefault("upload_merged_from", set()).add(current)
    st.session_state["upload_current"] = file_id
    _show_mapping(merged, frame)
    st.rerun()


SOURCE = Source(label="Upload", prefix="upload", sidebar=sidebar, waits=True,
                roles_editable=True, in_budget=True)  # fmt: skip

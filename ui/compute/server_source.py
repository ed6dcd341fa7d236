"""The "Server dataset" source: a Parquet or CSV table (or glob) on the server, too large to
upload, reduced by :mod:`metrics.sql` (DuckDB, out of core) to exact per-score counts.

Only files under one directory are offered: ``METRICS_LENS_DATA_DIR`` when set, else
``sample_data/``. A path is resolved (``..`` and symlinks followed) before it is compared with
that directory, so neither can reach outside it; the directory's own path is never read as a
glob (``.../r[1]`` is not ``.../r1``), and the engine is handed exactly the files approved
here, as a list it does not expand again. Summaries written by
``python -m metrics.sql ... --out FILE.npz`` under the directory open the same way, without the
engine.

Each file keeps its own column mapping: a file opened for the first time gets a fresh guess,
and a mapping edited by hand comes back when its file is picked again.

A dataset from here holds no rows: it hands the pages each model's per-score state (the
engine's counts per distinct score and its exact AUC and AP, :mod:`ui.tables.score_state`) and the
per-user tables, the same state rows held in memory produce. Above the cap the state is the
table of score ranges, and the page says how far off a rate can be. Pages that need the rows
(the AUC lab, Step through, Calibration, the rows behind a cell) say so.
"""

from __future__ import annotations

import glob
import hashlib
import os
from dataclasses import dataclass
from pathlib import Path

import pandas as pd
import streamlit as st

from ui.tables import score_state
from ui.tables.checking import Prepared
from ui.tables.dataset import BUNDLED, SAMPLE_DIR, Dataset, GroupState, mapping_digest
from ui.tables.loading import ColumnMapping, guess_mapping
from ui.tables.roles import NONE
from ui.words.safe import md

ROOT_ENV = "METRICS_LENS_DATA_DIR"
MEMORY_ENV = "METRICS_LENS_SQL_MEMORY"
SUFFIXES = (".parquet", ".pq", ".csv", ".npz")
MAX_LISTED = 200
SAMPLE_ROWS = 20_000


@dataclass(frozen=True)
class ServerTable:
    """What a page needs of a server dataset beyond the chosen model's weighted rows: the
    engine's summary of every model, and (for Parquet or CSV, not a summary file) the files and
    mapping, for the one more pass DeLong's paired test makes."""

    summary: object  # metrics.sql.Summary
    paths: tuple[str, ...] = ()
    stamps: tuple[float, ...] = ()
    pos_label: str | None = None

    @property
    def has_rows(self) -> bool:
        return bool(self.paths)


class OutsideRoot(ValueError):
    """A path that resolves outside the data directory, or matches nothing under it."""


def data_root() -> Path:
    return Path(os.environ.get(ROOT_ENV) or SAMPLE_DIR).resolve()


# DuckDB's memory limit on a server, unless METRICS_LENS_SQL_MEMORY sets one: half of the memory
# budget (METRICS_LENS_BUDGET_MB) less what a summary holds past DuckDB's own limit (allocations
# it does not count, the numpy side of the streams: measured at most 200 MB from 1M to 10M rows
# and limits of 128 to 512 MiB, bench/README.md "The engine's memory on a server"), so that
# the engine's peak fits in that half; room for it is made before it runs (:func:`engine_room`).
ENGINE_SHARE = 0.5
OVERSHOOT_MB = 224  # the measured 200 MB, with margin (bench/bench_engine_memory.py --overshoot)
MIN_ENGINE_MB = 64


def engine_bytes() -> int:
    """The engine's limit in bytes at the current budget (the setting's, when one is given)."""
    from metrics.sql._inputs import memory_bytes

    return int(memory_bytes(memory_limit()))


def memory_limit() -> str:
    """DuckDB's memory limit: ``METRICS_LENS_SQL_MEMORY`` when set (checked by
    :func:`metrics.sql.memory_limit`; SQLInputError with a sentence otherwise), else
    :data:`ENGINE_SHARE` of the memory budget less :data:`OVERSHOOT_MB`, at least
    :data:`MIN_ENGINE_MB` (288 MiB at the default budget of 1,024 MB)."""
    from metrics.sql import memory_limit as checked
    from ui.compute.budget import MB, budget_bytes

    raw = os.environ.get(MEMORY_ENV)
    if raw:
        return checked(raw, what=f"{MEMORY_ENV} setting")
    mb = max(MIN_ENGINE_MB, int(budget_bytes() * ENGINE_SHARE / MB) - OVERSHOOT_MB)
    return checked(f"{mb}MiB")


def engine_room() -> None:
    """Before an engine pass in a script run: make room in the budget for its peak (other
    sessions' least recently used uploads are dropped, as for an upload)."""
    from ui.compute.budget import MB, make_room_for_engine

    make_room_for_engine(engine_bytes() + OVERSHOOT_MB * MB)


def _pattern(text: str, root: Path) -> str:
    """``text`` as a glob whose root part matches only the root itself: the root's path is
    escaped (a directory named ``r[1]`` must not match ``r1``), the user's part is a glob."""
    if not os.path.isabs(text):
        return os.path.join(glob.escape(str(root)), text)
    for base in (str(root), os.path.abspath(os.environ.get(ROOT_ENV) or SAMPLE_DIR)):
        if text == base or text.startswith(base.rstrip(os.sep) + os.sep):
            return glob.escape(base) + text[len(base) :]
    return text


def sandboxed(pattern: str, root: Path | None = None, *, exact: bool = False) -> list[Path]:
    """The files ``pattern`` (a path or glob, relative to the root or absolute) names, every one
    resolved inside ``root``; raises :class:`OutsideRoot` otherwise. A path naming an existing
    file is taken as it is, even if it holds glob characters. With ``exact``, ``pattern`` is a
    file name and never a pattern (a link's ``dataset``, a listed file): ``a?.csv`` names the
    file ``a?.csv`` only, never ``a1.csv``; and it is taken as given, not stripped."""
    root = (root or data_root()).resolve()
    text = pattern if exact else pattern.strip()
    if not text:
        raise OutsideRoot("Give a file name or a glob such as impressions/*.parquet.")
    if "\x00" in text:
        raise OutsideRoot("A file name cannot hold a NUL character; remove it from the glob.")
    full = text if os.path.isabs(text) else str(root / text)
    try:
        literal = exact or os.path.isfile(full)
        globbed = any(c in text for c in "*?[") and not literal
        matches = sorted(glob.glob(_pattern(text, root))) if globbed else [full]
        files, hidden = [], False
        for m in matches:
            real = Path(m).resolve()
            if _hidden(Path(m), root) or _hidden(real, root):
                hidden = True  # a dotfile (or a link to one) is not offered, as in listed()
                continue
            if real != root and root not in real.parents:
                raise OutsideRoot(
                    f"{text} leads outside the data directory: only files under it can "
                    f"be opened (the operator sets it with {ROOT_ENV})."
                )
            if real.is_file():
                files.append(real)
    except (OSError, ValueError) as exc:
        if isinstance(exc, OutsideRoot):
            raise
        raise OutsideRoot(
            f"Cannot look for {text[:200]} in the data directory: "
            f"{getattr(exc, 'strerror', None) or exc}."
        ) from None
    if not files:
        if hidden:
            raise OutsideRoot(
                f"{text} is a hidden file (a name starting with a dot): hidden files are not "
                "offered. Pick a listed file."
            )
        raise OutsideRoot(f"No file in the data directory matches {text}.")
    if len({f.suffix.lower() for f in files}) > 1:
        raise OutsideRoot(f"{text} mixes file types; pick Parquet or CSV files only.")
    if files[0].suffix.lower() not in SUFFIXES:
        raise OutsideRoot(f"{files[0].name} is not a Parquet, CSV or summary (.npz) file.")
    return files


def _hidden(path: Path, root: Path) -> bool:
    """A file or directory under ``root`` whose name starts with a dot (``.hidden.csv``,
    ``.cache/x.csv``): not offered to students (an operator's working files)."""
    try:
        parts = path.relative_to(root).parts
    except ValueError:
        parts = path.parts[-1:]
    return any(p.startswith(".") and p not in (".", "..") for p in parts)


def listed(root: Path | None = None) -> list[str]:
    """Data files under the root, relative to it (at most ``MAX_LISTED``), hidden ones left
    out."""
    root = root or data_root()
    found = []
    for path in sorted(root.rglob("*")):
        if _hidden(path, root):
            continue
        if path.suffix.lower() in SUFFIXES and path.is_file():
            found.append(str(path.relative_to(root)))
            if len(found) >= MAX_LISTED:
                break
    return found


@st.cache_data(max_entries=8, show_spinner=False)
def sample(
    paths: tuple[str, ...], stamps: tuple[float, ...]
) -> tuple[pd.DataFrame, tuple[tuple[str, str], ...]]:
    """The first ``SAMPLE_ROWS`` rows of the columns that hold one value per row, to guess
    the column roles from, and the (column, type) of the list, struct or map columns left out.
    The engine reads exactly ``paths`` (it does not glob them); raises SQLInputError."""
    import duckdb

    from metrics.sql import SQLInputError
    from metrics.sql._engine import DuckDBEngine, nested

    eng = DuckDBEngine(memory_limit())
    eng.register(list(paths))
    types = eng.columns()
    skipped = tuple((c, t) for c, t in types.items() if nested(t))
    keep = [c for c in types if not nested(types[c])]
    if not keep:
        return pd.DataFrame(), skipped
    listing = ", ".join(eng.dialect.q(c) for c in keep)
    try:
        frame = eng.con.execute(f"SELECT {listing} FROM src LIMIT {int(SAMPLE_ROWS)}").df()
    except duckdb.Error as exc:
        raise SQLInputError(eng._explain(exc)) from None
    return frame, skipped


@st.cache_data(max_entries=8, show_spinner=False)
def summary(
    paths: tuple[str, ...],
    stamps: tuple[float, ...],
    label: str,
    scores: tuple[str, ...],
    group: str | None,
    weight: str | None,
    pos_label: str | None,
):
    """The engine's summary, cached by the files, their modification times and the mapping.
    The engine reads exactly ``paths``, the files the sandbox approved."""
    from metrics.sql import summarize

    engine_room()
    s = summarize(
        list(paths), label, list(scores), group=group, weight=weight,
        pos_label=pos_label or None, memory_limit=memory_limit(),
    )  # fmt: skip
    s.source = _shown(paths)
    return s


def _shown(paths: tuple[str, ...]) -> str:
    """The files relative to the data directory, for titles."""
    root = data_root()
    names = []
    for p in paths:
        try:
            names.append(str(Path(p).relative_to(root)))
        except ValueError:
            names.append(Path(p).name)
    if len(names) == 1:
        return names[0]
    return f"{names[0]} and {len(names) - 1} more file{'s' if len(names) > 2 else ''}"


def _class_names(s) -> tuple[str, str]:
    """(positive, negative) as the pages say them: a bundled sample served from the server
    keeps its names (malignant / benign) while its positive class is the sample's own; any
    other table, or another positive class (a cut ">= 3" of graded relevance), says its label
    and positive value."""
    for spec in BUNDLED.values():
        own = "> 0" if spec.mapping.graded else str(spec.mapping.pos_label)
        if (Path(s.source).name, s.label, s.positive) == (spec.file, spec.mapping.label, own):
            return spec.positive_name, spec.negative_name
    if s.positive.startswith(">"):  # graded: every label above a cut (">0", ">= 3")
        op, cut = s.positive.split(" ", 1)
        above, below = (">", "≤") if op == ">" else ("≥", "<")
        return f"{s.label} {above} {cut}", f"{s.label} {below} {cut}"
    return f"{s.label} = {s.positive}", f"{s.label} ≠ {s.positive}"


def model_dataset(source: ServerTable, model: str, source_id: str) -> Dataset:
    """One model of a server table as the pages read it: the engine's per-score state (and
    per-user tables), no rows. ``frame`` is the per-score table itself, for the Data page."""
    s = source.summary
    m = s.models[model]
    table = m.display_table()
    frame = pd.DataFrame({model: table.scores, "positives": table.pos, "negatives": table.neg})
    mapping = ColumnMapping(label=None, scores=(model,), pos_label=None)
    prepared = Prepared(y=None, scores={model: table.scores}, groups=None, weight=None,
                        problems=[])  # fmt: skip
    # The caches keyed by the dataset (the default threshold, the scale, the areas) must see
    # what the engine read: another positive class or label column is another dataset.
    reads = mapping_digest((s.label, s.positive, s.group, s.weight))
    kind, files = source_id.split(":", 1)
    key = f"{kind}:{reads}:{files}#{model}"
    names = _class_names(s)
    return Dataset(
        source_id=key,
        name=Path(s.source).name,  # the pages name the model beside it
        frame=frame,
        mapping=mapping,
        prepared=prepared,
        description=f"{s.rows:,} rows reduced by {s.engine} to {m.distinct_scores:,} distinct "
        "scores: each line holds a score and its positives and negatives"
        + (", weighted" if s.weight is not None else "")
        + ("." if m.exact else f" (score ranges, above the cap of {s.cap:,} distinct scores)."),
        positive_name=names[0],
        negative_name=names[1],
        relabel='type the other class in "Positive class (when not 0/1)" under Columns in the '
        "sidebar",
        engine=source,
        # the engine's counts, not a sort of rows
        states={model: score_state.from_summary(m, s.weight is not None)},
        group_state=_group_state(s),
        holds_rows=False,
    )


def _group_state(s) -> GroupState | None:
    """The engine's per-user tables of every model, when it kept them (a group column mapped,
    at most its cap of users)."""
    if s.group is None or any(m.groups is None for m in s.models.values()):
        return None
    tables = {name: (m.auc, m.groups) for name, m in s.models.items()}
    return GroupState(s.group, s.weight is not None, tables)


MAPPING_KEYS = ("server_label", "server_scores", "server_group", "server_weight", "server_pos")


def file_id(paths: tuple[str, ...]) -> str:
    return hashlib.sha1("\n".join(paths).encode()).hexdigest()[:16]


def _guessed(columns: list[str], guess) -> dict:
    if guess.is_multilabel and guess.labels[0] in columns:
        # One label_<class> and score_<class> per class: the engine reads one binary label,
        # so the first class's pair, never every class's score as a model of that one label
        # (they would be scored against the first class's label and ranked as models).
        label, scores = guess.labels[0], [guess.scores[0]]
    else:
        label = guess.label if guess.label in columns else columns[0]
        scores = [c for c in guess.scores if c in columns]
    return {
        "server_label": label,
        "server_scores": scores,
        "server_group": guess.group if guess.group in columns else NONE,
        "server_weight": guess.weight if guess.weight in columns else NONE,
        # A graded label (LETOR grades 0-4): every grade above 0 is positive on the pages.
        "server_pos": ">0" if guess.graded and label == guess.label else "",
    }


def _seed_mapping(file_id: str, columns: list[str], guess) -> None:
    """Put this file's mapping in the column widgets' state before they are drawn: the one
    kept for it (edited by hand earlier), or a fresh guess for a file not seen before. Another
    file's choices never carry over: its columns would empty the score list, and the page would
    fall back to a sample dataset."""
    kept = st.session_state.setdefault("server_mappings", {})
    values = dict(_guessed(columns, guess), **kept.get(file_id, {}))
    switched = st.session_state.get("server_current") != file_id
    others = [NONE, *columns]
    valid = {
        "server_label": lambda v: v in columns,
        "server_scores": lambda v: isinstance(v, list) and all(c in columns for c in v),
        "server_group": lambda v: v in others,
        "server_weight": lambda v: v in others,
        "server_pos": lambda v: isinstance(v, str),
    }
    for key in MAPPING_KEYS:
        if switched or key not in st.session_state or not valid[key](st.session_state[key]):
            value = values[key]
            st.session_state[key] = value if valid[key](value) else _guessed(columns, guess)[key]
    st.session_state["server_current"] = file_id


def _keep_mapping(file_id: str) -> None:
    st.session_state["server_mappings"][file_id] = {
        key: st.session_state[key] for key in MAPPING_KEYS if key in st.session_state
    }


def server_dataset() -> Dataset | None:
    """The sidebar widgets of the source, and the chosen model's dataset (None until ready,
    after saying why in the sidebar)."""
    from metrics.sql import SQLInputError, load_summary

    root = data_root()
    files_here = listed(root)
    st.caption(f"Files in the server's data directory ({ROOT_ENV} sets it).")
    missing = st.session_state.get("server_missing")
    if missing is not None and st.session_state.get("server_file") is not None:
        missing = st.session_state["server_missing"] = None  # a file was picked since
    choice = st.selectbox(
        "Server file", [*files_here, "a glob..."], key="server_file",
        index=None if missing is not None else 0, placeholder="Pick a file",
        help="Parquet or CSV files, or a summary written by python -m metrics.sql --out.",
    )  # fmt: skip
    if missing is not None:
        st.error(
            md(
                f"The file in the link, {missing}, is not available on this server (not a "
                "listed file, or no longer there). Pick a file above.",
                limit=600,
            )
        )
        return None
    pattern = choice
    if choice == "a glob...":
        pattern = st.text_input("Glob under the directory", key="server_glob",
                                placeholder="impressions/*.parquet")  # fmt: skip
    try:  # a listed file is that file, whatever characters its name holds
        files = sandboxed(pattern or "", root, exact=choice != "a glob...")
    except OutsideRoot as exc:
        st.error(md(str(exc), limit=600))
        return None
    paths = tuple(str(f) for f in files)
    stamps = tuple(f.stat().st_mtime for f in files)
    source_id = f"server:{'|'.join(paths)}@{max(stamps)}"
    if files[0].suffix.lower() == ".npz":
        try:
            s = load_summary(files[0])
        except ValueError as exc:
            st.error(md(str(exc), limit=600))
            return None
        table = ServerTable(s)
    else:
        try:
            head, skipped = sample(paths, stamps)
        except SQLInputError as exc:
            st.error(md(f"Cannot read {_shown(paths)}: {exc}", limit=600))
            return None
        except Exception as exc:
            st.error(md(f"Cannot read {files[0].name}: {str(exc).splitlines()[0]}", limit=600))
            return None
        if skipped:
            st.caption(
                ":material/info: "
                + md(
                    "Left out of the column roles (a list, struct or map, not one value per "
                    "row): " + ", ".join(f"{c} ({t.lower()})" for c, t in skipped[:10])
                    + ("..." if len(skipped) > 10 else "") + ".",
                    limit=600,
                )
            )  # fmt: skip
        columns = [str(c) for c in head.columns]
        if head.empty or not columns:
            st.error(
                md(f"{_shown(paths)} has no rows with plain columns to read scores from.", 600)
            )
            return None
        fid = file_id(paths)
        guess = guess_mapping(head)
        _seed_mapping(fid, columns, guess)
        if guess.is_multilabel:
            st.caption(
                ":material/info: One label and one score per class: the engine reads one "
                "class at a time (pick its label and score below). Upload the table to see "
                "every class together on the Multi-class & multi-label page."
            )
        with st.expander("Columns", expanded=True):
            label = st.selectbox("Label column", columns, key="server_label")
            scores = st.multiselect("Score columns (one per model)", columns, key="server_scores")
            others = [NONE, *columns]
            group = st.selectbox("User or query column (adds GAUC)", others, key="server_group")
            weight = st.selectbox("Weight column", others, key="server_weight")
            pos_label = st.text_input(
                "Positive class (when not 0/1)", key="server_pos",
                help="The label value counted as positive; for graded relevance a cut such as "
                ">0 or >=3 makes every label above it positive.",
            )  # fmt: skip
        _keep_mapping(fid)
        if not scores:
            st.info(f"Pick at least one score column of {_shown(paths)}.")
            return None
        try:
            with st.spinner(f"DuckDB is reading {len(files)} file(s), out of core..."):
                s = summary(paths, stamps, label, tuple(scores),
                            None if group == NONE else group, None if weight == NONE else weight,
                            pos_label or None)  # fmt: skip
        except SQLInputError as exc:
            st.error(md(_in_the_sidebar(str(exc)), limit=600))
            return None
        table = ServerTable(s, paths, stamps, pos_label or None)
    if st.session_state.get("server_model") not in s.models:
        st.session_state["server_model"] = next(iter(s.models))
    model = st.selectbox("Model shown on the pages", list(s.models), key="server_model")
    _engine_table(s)
    return model_dataset(table, model, source_id)


def _engine_table(s) -> None:
    rows = []
    for name, m in s.models.items():
        row = {"model": name, "AUC": m.auc, "AP": m.average_precision}
        if m.gauc is not None:
            row["GAUC"] = m.gauc
        row["distinct scores"] = m.distinct_scores
        rows.append(row)
    with st.expander("Engine results (every model)", expanded=False):
        st.dataframe(pd.DataFrame(rows), hide_index=True, width="stretch")
        st.caption(
            f"{s.rows:,} rows, {s.dropped:,} dropped (NULL or NaN), positive class "
            f"{md(s.positive)}; exact, on {s.engine}. Pages show one model at a time: the "
            "per-score counts of different models do not pair their rows, so paired tests "
            "(DeLong between models, the bootstrap) need the rows themselves."
        )
        binned = [n for n, m in s.models.items() if m.table is None]
        if binned:
            worst = max(s.models[n].bin_error for n in binned)
            st.warning(
                f"{', '.join(binned)}: more distinct scores than the cap ({s.cap:,}); the "
                f"threshold views read score ranges, so a rate there may be off by up to "
                f"{worst:.2%}. AUC, AP and GAUC above are exact."
            )


@st.cache_data(max_entries=8, show_spinner=False)
def delong(
    paths: tuple[str, ...],
    stamps: tuple[float, ...],
    label: str,
    scores: tuple[str, ...],
    pos_label: str | None,
    group: str | None = None,
):
    """DeLong's sums for every pair of models (with ``group``, each user's too, for the
    clustered variance): one more pass of the engine over exactly the files the sandbox
    approved (``paths``)."""
    from metrics.sql import delong as engine_delong

    engine_room()
    return engine_delong(
        list(paths), label, list(scores), group=group, pos_label=pos_label,
        memory_limit=memory_limit(),
    )  # fmt: skip


def _in_the_sidebar(message: str) -> str:
    """The engine's sentence with its command-line option named as the sidebar's field."""
    field = '"Positive class (when not 0/1)" under Columns'
    return message.replace(
        "pass --pos-label with the positive class", f"type the positive class in {field}"
    ).replace("--pos-label ", "The positive class ")


def data_page(ds: Dataset) -> bool:
    """The Data page of a server dataset: the table's columns as the engine read them, and the
    per-score state the pages read (no rows are held here)."""
    s = ds.engine.summary
    st.header("Data")
    st.markdown(
        f"**{md(_shown(ds.engine.paths) if ds.engine.paths else Path(s.source).name)}**: "
        f"{s.rows:,} rows read by {s.engine}"
        + (f" ({s.dropped:,} dropped: a missing label or score)" if s.dropped else "")
        + ". The pages read each model's counts per distinct score, not the rows."
    )
    roles = [
        {"column": s.label, "role": "label", "read as": f"positive: {_class_names(s)[0]}"},
        *({"column": name, "role": "score",
           "read as": f"{m.distinct_scores:,} distinct scores"
           + ("" if m.exact else f", kept as score ranges (cap {s.cap:,})")}
          for name, m in s.models.items()),
    ]  # fmt: skip
    if s.group is not None:
        roles.append({"column": s.group, "role": "user / query id", "read as": "per-user sums"})
    if s.weight is not None:
        roles.append({"column": s.weight, "role": "weight", "read as": "sums of weights"})
    st.subheader("Columns")
    st.dataframe(pd.DataFrame(roles), hide_index=True, width="stretch")
    model = ds.models[0]
    st.subheader(f"Per-score counts · {model}")
    st.caption(
        "The state every threshold view, curve and area of the pages reads for this model: one "
        "line per distinct score, highest first, with the rows (or weight) of each class at it. "
        "The first 200 lines:"
    )
    first = ds.frame.head(200).rename(columns={model: "score"})
    st.dataframe(first, hide_index=True, width="stretch")
    return True


def gauc_unavailable(ds: Dataset) -> bool:
    """True, after saying why (and showing the engine's exact GAUC values where it has them),
    when the engine kept no per-user table: no group column mapped, or more users than its
    cap. The GAUC page then stops; otherwise it reads the dataset's group state."""
    s = ds.engine.summary
    if s.group is None:
        st.info(
            "GAUC needs a user or query id: pick one under Columns → User or query column in "
            "the sidebar, and the engine adds per-user AUCs."
        )
        return True
    missing = [name for name, m in s.models.items() if m.groups is None]
    if missing:
        st.info(
            f"The engine kept no per-user table for {', '.join(missing)}: more users than its "
            f"cap ({s.cap:,}). Its GAUC values, exact:"
        )
        rows = [
            {"model": name, **(m.gauc_by or {}), "users counted": m.groups_used,
             "users skipped": m.groups_skipped}
            for name, m in s.models.items()
        ]  # fmt: skip
        st.dataframe(pd.DataFrame(rows), hide_index=True, width="stretch")
        return True
    return False

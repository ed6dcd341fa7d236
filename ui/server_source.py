"""The "Server dataset" source: a Parquet or CSV table (or glob) on the server, too large to
upload, reduced by :mod:`metrics.sql` (DuckDB, out of core) to exact per-score counts.

Only files under one directory are offered: ``METRICS_LENS_DATA_DIR`` when set, else
``sample_data/``. A path is resolved (``..`` and symlinks followed) before it is compared with
that directory, so neither can reach outside it. Summaries written by
``python -m metrics.sql ... --out FILE.npz`` under the directory open the same way, without the
engine.

Each model's per-score table becomes a small weighted table (one positive and one negative row
per distinct score, weighted by their counts), which every threshold view reads exactly as it
would read the raw rows; above the cap the binned table serves instead and the page says how
far off a rate can be.
"""

from __future__ import annotations

import glob
import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
import streamlit as st

from ui import data
from ui.loading import ColumnMapping, guess_mapping
from ui.safe import md

ROOT_ENV = "METRICS_LENS_DATA_DIR"
SUFFIXES = (".parquet", ".pq", ".csv", ".npz")
MAX_LISTED = 200
SAMPLE_ROWS = 20_000
NONE = "(none)"


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
    return Path(os.environ.get(ROOT_ENV) or data.SAMPLE_DIR).resolve()


def sandboxed(pattern: str, root: Path | None = None) -> list[Path]:
    """The files ``pattern`` (a path or glob, relative to the root or absolute) names, every one
    resolved inside ``root``; raises :class:`OutsideRoot` otherwise."""
    root = (root or data_root()).resolve()
    text = pattern.strip()
    if not text:
        raise OutsideRoot("Give a file name or a glob such as impressions/*.parquet.")
    full = text if os.path.isabs(text) else str(root / text)
    matches = sorted(glob.glob(full)) if any(c in text for c in "*?[") else [full]
    files = []
    for m in matches:
        real = Path(m).resolve()
        if real != root and root not in real.parents:
            raise OutsideRoot(
                f"{text} leads outside the data directory {root}: only files under it can be "
                f"opened (the operator sets it with {ROOT_ENV})."
            )
        if real.is_file():
            files.append(real)
    if not files:
        raise OutsideRoot(f"No file under {root} matches {text}.")
    if len({f.suffix.lower() for f in files}) > 1:
        raise OutsideRoot(f"{text} mixes file types; pick Parquet or CSV files only.")
    if files[0].suffix.lower() not in SUFFIXES:
        raise OutsideRoot(f"{files[0].name} is not a Parquet, CSV or summary (.npz) file.")
    return files


def listed(root: Path | None = None) -> list[str]:
    """Data files under the root, relative to it (at most ``MAX_LISTED``)."""
    root = root or data_root()
    found = []
    for path in sorted(root.rglob("*")):
        if path.suffix.lower() in SUFFIXES and path.is_file():
            found.append(str(path.relative_to(root)))
            if len(found) >= MAX_LISTED:
                break
    return found


def _source_text(files: list[Path]) -> str:
    """One path, or a glob of the directory when several files were matched."""
    return str(files[0]) if len(files) == 1 else str(files[0].parent / ("*" + files[0].suffix))


@st.cache_data(max_entries=8, show_spinner=False)
def sample(paths: tuple[str, ...], stamps: tuple[float, ...]) -> pd.DataFrame:
    """The first ``SAMPLE_ROWS`` rows, to guess the column roles from."""
    import duckdb

    reader = "read_csv_auto" if paths[0].lower().endswith(".csv") else "read_parquet"
    listing = "[" + ", ".join("'" + p.replace("'", "''") + "'" for p in paths) + "]"
    return duckdb.sql(f"SELECT * FROM {reader}({listing}) LIMIT {SAMPLE_ROWS}").df()


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
    """The engine's summary, cached by the files, their modification times and the mapping."""
    from metrics.sql import summarize

    source = paths[0] if len(paths) == 1 else _source_text([Path(p) for p in paths])
    return summarize(
        source, label, list(scores), group=group, weight=weight, pos_label=pos_label or None,
        memory_limit=os.environ.get("METRICS_LENS_SQL_MEMORY", "2GB"),
    )  # fmt: skip


def model_dataset(source: ServerTable, model: str, source_id: str) -> data.Dataset:
    """One model's per-score table as a weighted table the pages read like raw rows."""
    s = source.summary
    m = s.models[model]
    table = m.display_table()
    y, scores, w = table.weighted_rows()
    frame = pd.DataFrame({"label": np.where(y, 1, 0), model: scores, "rows": w})
    mapping = ColumnMapping(label="label", scores=(model,), pos_label=1, weight="rows")
    key = f"{source_id}#{model}"
    return data.Dataset(
        source_id=key,
        name=f"{Path(s.source).name} · {model}",
        frame=frame,
        mapping=mapping,
        prepared=data._prepare(key, mapping, False, frame),
        description=f"{s.rows:,} rows reduced by {s.engine} to {m.distinct_scores:,} distinct "
        "scores, weighted by their counts.",
        positive_name=f"{s.label} = {s.positive}",
        negative_name=f"{s.label} ≠ {s.positive}",
        engine=source,
    )


def server_dataset() -> data.Dataset | None:
    """The sidebar widgets of the source, and the chosen model's dataset (None until ready)."""
    from metrics.sql import SQLInputError, load_summary

    root = data_root()
    files_here = listed(root)
    st.caption(f"Files under {md(str(root))} ({ROOT_ENV} sets the directory).")
    choice = st.selectbox(
        "Server file", [*files_here, "a glob..."], key="server_file",
        help="Parquet or CSV files, or a summary written by python -m metrics.sql --out.",
    )  # fmt: skip
    pattern = choice
    if choice == "a glob...":
        pattern = st.text_input("Glob under the directory", key="server_glob",
                                placeholder="impressions/*.parquet")  # fmt: skip
    try:
        files = sandboxed(pattern or "", root)
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
            head = sample(paths, stamps)
        except Exception as exc:
            st.error(md(f"Cannot read {files[0].name}: {str(exc).splitlines()[0]}", limit=600))
            return None
        guess = guess_mapping(head)
        columns = [str(c) for c in head.columns]
        with st.expander("Columns", expanded=True):

            def pick(title: str, options: list[str], guessed, key: str) -> str:
                at = options.index(guessed) if guessed in options else 0
                return st.selectbox(title, options, index=at, key=key)

            label = pick("Label column", columns, guess.label, "server_label")
            scores = st.multiselect(
                "Score columns (one per model)", columns, key="server_scores",
                default=[c for c in guess.scores if c in columns],
            )  # fmt: skip
            others = [NONE, *columns]
            group = pick("User or query column (adds GAUC)", others, guess.group, "server_group")
            weight = pick("Weight column", others, guess.weight, "server_weight")
            pos_label = st.text_input("Positive class (when not 0/1)", key="server_pos")
        if not scores:
            st.info("Pick at least one score column.")
            return None
        try:
            with st.spinner(f"DuckDB is reading {len(files)} file(s), out of core..."):
                s = summary(paths, stamps, label, tuple(scores),
                            None if group == NONE else group, None if weight == NONE else weight,
                            pos_label or None)  # fmt: skip
        except SQLInputError as exc:
            st.error(md(str(exc), limit=600))
            return None
        table = ServerTable(s, paths, stamps, pos_label or None)
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
):
    """DeLong's sums for every pair of models: one more pass of the engine over the files."""
    from metrics.sql import delong as engine_delong

    source = paths[0] if len(paths) == 1 else _source_text([Path(p) for p in paths])
    return engine_delong(
        source, label, list(scores), pos_label=pos_label,
        memory_limit=os.environ.get("METRICS_LENS_SQL_MEMORY", "2GB"),
    )  # fmt: skip


def rows_needed(ds: data.Dataset, what: str, instead: str = "") -> bool:
    """True (after saying so) when ``ds`` is a server dataset, whose rows ``what`` needs."""
    if ds.engine is None:
        return False
    st.info(
        f"{what} needs the table's rows, and a server dataset reaches the pages as the "
        f"engine's per-score counts ({ds.engine.summary.rows:,} rows reduced to one line per "
        "distinct score). Upload a sample of the table for this page, or pick a sample dataset."
        + (f" {instead}" if instead else "")
    )
    return True


def gauc_results(s) -> dict | None:
    """Per model, (global AUC, per-user table) from the engine's summary; None, after saying
    why, when the summary has no per-user table."""
    if s.group is None:
        st.info(
            "GAUC needs a user or query id: pick one under Columns → User or query column in "
            "the sidebar, and the engine adds per-user AUCs."
        )
        return None
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
        return None
    return {name: (m.auc, m.groups) for name, m in s.models.items()}

"""The Runs page's cached results, keyed by the files' bytes: the qrels and runs read once (or
the seeded synthetic example), then the paired comparison and the per-query values a widget asks
for."""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from pathlib import Path

import numpy as np
import streamlit as st

from metrics import trec

EXAMPLE = "example"  # the seeded synthetic example's key
# Set by ``metrics-lens app --qrels QRELS RUN...`` (metrics_lens.dashboard): the files' names
# under METRICS_LENS_DATA_DIR, {"qrels": name, "runs": [name, ...]}.
RUNS_ENV = "METRICS_LENS_RUNS"
GIVEN = "runs_trec_given"  # session key: this session holds TREC files of the user's
MEASURES = ("ndcg_cut_10", "map", "P_10", "recall_100", "recip_rank")
SEED = 0  # the Fisher and bootstrap resamples' seed, so a table does not move on a rerun
N_RESAMPLES = 10_000


def key_of(name: str, data: bytes) -> str:
    return f"{name}:{hashlib.sha256(data).hexdigest()[:16]}"


def _read(name: str, data: bytes, reader):
    """A qrels or run from an upload: the reader picks the format from the file's name."""
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / (Path(name).name or "upload")
        path.write_bytes(data)
        return reader(path)


def example(n_queries: int = 60, n_docs: int = 120, seed: int = 7):
    """(qrels, {name: run}): graded judgements and three runs of different skill, seeded.

    Each query has documents with a latent relevance 0-3; about a third of the retrieved
    documents are unjudged. A run's score is its skill times the relevance plus noise, each run
    with its own query-by-query luck, so the runs win on some queries and lose on others."""
    import pandas as pd

    rng = np.random.default_rng(seed)
    qids = np.repeat([f"q{q:03d}" for q in range(n_queries)], n_docs)
    dids = np.tile([f"d{d:04d}" for d in range(n_docs)], n_queries)
    rel = rng.choice(4, size=qids.size, p=[0.8, 0.1, 0.06, 0.04])
    judged = rng.random(qids.size) < 0.65
    qrels = pd.DataFrame(
        {"query_id": qids[judged], "doc_id": dids[judged], "relevance": rel[judged]}
    )
    runs = {}
    for name, skill in (("bm25", 0.8), ("dense", 1.3), ("hybrid", 1.4)):
        luck = rng.normal(1.0, 0.3, n_queries).clip(0.0, None).repeat(n_docs)
        score = skill * luck * rel + rng.normal(0.0, 1.0, qids.size)
        runs[name] = pd.DataFrame({"query_id": qids, "doc_id": dids, "score": score.round(4)})
    return qrels, runs


def _unique(names: list[str]) -> list[str]:
    """Run names made unique: a repeated tag gets " (2)", " (3)"..."""
    seen: dict[str, int] = {}
    out = []
    for name in names:
        seen[name] = seen.get(name, 0) + 1
        out.append(name if seen[name] == 1 else f"{name} ({seen[name]})")
    return out


@st.cache_data(max_entries=4, show_spinner="Reading the qrels and runs...")
def read(key: str, _qrels_file: tuple | None, _run_files: tuple | None):
    """(qrels, {name: run}, what they are), from the uploads or the example; a run's name is
    its run tag (TREC files) or its file name."""
    if _qrels_file is None:
        qrels, runs = example()
        what = (
            "a seeded synthetic example, not real data (60 queries, 120 documents each, graded "
            "relevance 0-3, three runs)"
        )
        return qrels, runs, what
    qrels = _read(*_qrels_file, trec.read_qrels)
    frames = [_read(name, data, trec.read_run) for name, data in _run_files]
    names = _unique(
        [str(f.attrs.get("run_tag") or n) for f, (n, _) in zip(frames, _run_files, strict=True)]
    )
    files = ", ".join(name for name, _ in _run_files)
    return qrels, dict(zip(names, frames, strict=True)), f"{_qrels_file[0]} with {files}"


def app_files() -> tuple[Path, tuple[Path, ...]] | None:
    """The qrels and runs ``metrics-lens app --qrels`` was given (paths under the data
    directory), or None. Only base names are taken from the environment: nothing outside the
    directory is read."""
    from ui.compute.server_source import data_root

    try:
        spec = json.loads(os.environ[RUNS_ENV])
        root = data_root()
        qrels = root / Path(str(spec["qrels"])).name
        runs = tuple(root / Path(str(r)).name for r in spec["runs"])
    except (KeyError, TypeError, ValueError):
        return None
    return qrels, runs


# Files under the data directory offered to the Runs page: qrels by name ("qrels" in it), runs by
# the suffixes TREC tools write (a score table's .csv / .parquet belongs to the other pages).
RUN_SUFFIXES = (".run", ".trec", ".txt", ".tsv", ".res", ".gz", ".json")
MAX_SERVER_FILES = 200


def server_files() -> tuple[list[str], list[str]]:
    """(qrels, runs): the TREC files under the data directory, relative to it, hidden ones
    (a dot in the path) left out, at most ``MAX_SERVER_FILES`` looked at."""
    from ui.compute.server_source import _hidden, data_root

    root = data_root()
    qrels, runs = [], []
    try:
        paths = sorted(root.rglob("*"))
    except OSError:
        return [], []
    for path in paths[: MAX_SERVER_FILES * 10]:
        if _hidden(path, root) or not path.is_file():
            continue
        name = str(path.relative_to(root))
        if "qrel" in path.name.lower():
            qrels.append(name)
        elif path.suffix.lower() in RUN_SUFFIXES:
            runs.append(name)
        if len(qrels) + len(runs) >= MAX_SERVER_FILES:
            break
    return qrels, runs


def server_paths(qrels: str, runs: list[str]) -> tuple[Path, tuple[Path, ...]]:
    """The chosen files' paths, each resolved (links and ``..`` followed) inside the data
    directory; a ValueError sentence otherwise."""
    from ui.compute.server_source import data_root

    root = data_root()

    def inside(name: str) -> Path:
        real = (root / name).resolve()
        if root not in real.parents or not real.is_file():
            raise ValueError(f"{name} is not a file in the data directory; pick a listed one.")
        return real

    return inside(qrels), tuple(inside(r) for r in runs)


def key_of_paths(qrels: Path, runs: tuple[Path, ...]) -> str:
    """The app files' cache key: each file's name, size and modification time (a 7M-line run is
    not hashed on every rerun)."""
    parts = []
    for p in (qrels, *runs):
        try:
            stat = p.stat()
            parts.append(f"{p.name}:{stat.st_size}:{stat.st_mtime_ns}")
        except OSError:
            parts.append(f"{p.name}:missing")
    return "|".join(parts)


@st.cache_data(max_entries=2, show_spinner="Reading the qrels and runs...")
def read_paths(key: str, _qrels: Path, _runs: tuple[Path, ...], origin: str = "app"):
    """(qrels, {name: run}, what they are) from files under the data directory: those
    ``metrics-lens app`` was given (``origin="app"``) or those picked on the page
    (``"server"``)."""
    for p in (_qrels, *_runs):
        if not p.is_file():
            again = "restart the command" if origin == "app" else "pick the files again"
            raise ValueError(f"{p.name} is no longer in the data directory; {again}.")
    qrels = trec.read_qrels(_qrels)
    frames = [trec.read_run(p) for p in _runs]
    names = _unique(
        [str(f.attrs.get("run_tag") or p.stem) for f, p in zip(frames, _runs, strict=True)]
    )
    files = ", ".join(p.name for p in _runs)
    given = "metrics-lens app was given" if origin == "app" else "picked on the server"
    what = f"{_qrels.name} with {files}, the files {given}"
    return qrels, dict(zip(names, frames, strict=True)), what


@st.cache_data(max_entries=16, show_spinner="Comparing the runs query by query...")
def comparison(key: str, test: str, primary: str | None, _qrels, _runs):
    """compare_runs' table: every pair of runs on every measure, Holm over the family."""
    return trec.compare_runs(
        _qrels,
        _runs,
        list(MEASURES),
        test=test,
        n_resamples=N_RESAMPLES,
        seed=SEED,
        primary=primary,
        correction="holm",
    )


@st.cache_data(max_entries=16, show_spinner=False)
def per_query(key: str, _qrels, _runs):
    """{run: trec_evaluate's per-query table of every measure}."""
    return {
        name: trec.trec_evaluate(_qrels, run, list(MEASURES), per_query=True)
        for name, run in _runs.items()
    }


@st.cache_data(max_entries=16, show_spinner=False)
def duplicates(key: str, _runs) -> dict:
    """{run: its documents returned more than once for a query} for the runs that have any."""
    out = {}
    for name, run in _runs.items():
        dups = trec.duplicate_documents(run)
        if len(dups):
            out[name] = dups
    return out


def differences(tables: dict, candidate: str, baseline: str, measure: str):
    """The queries both runs were evaluated on: baseline, candidate and their difference, the
    largest gains first."""
    a = tables[candidate][["query_id", measure]].rename(columns={measure: candidate})
    b = tables[baseline][["query_id", measure]].rename(columns={measure: baseline})
    both = b.merge(a, on="query_id", how="inner", suffixes=(" (baseline)", ""))
    cand_col, base_col = both.columns[2], both.columns[1]
    both["difference"] = both[cand_col] - both[base_col]
    return both.sort_values(["difference", "query_id"], ascending=[False, True], kind="stable")


__all__ = [
    "EXAMPLE",
    "GIVEN",
    "MEASURES",
    "RUNS_ENV",
    "app_files",
    "comparison",
    "differences",
    "duplicates",
    "example",
    "key_of",
    "key_of_paths",
    "per_query",
    "read",
    "read_paths",
]

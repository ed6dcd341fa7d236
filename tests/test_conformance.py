"""The conformance matrix: every page on every table layout through every way in (issue 31 §8).

Each page either shows numbers equal to the library's (scikit-learn's where it has the metric)
on the table the user gave, in that table's layout, or says in one plain sentence what it
needs; never numbers computed on another layout (the sample, the first class's label), never
an exception. The cells are generated: a seeded table per layout, and per way in the exact
mechanism a user goes through:

- upload: the sidebar's file uploader;
- ``metrics-lens app FILE``: the command itself runs (``metrics_lens.cli.main``) with the
  server process replaced by a stand-in that records its environment; the session then opens
  the address the command prints, with that environment, so whatever way the command hands
  the file over (a data directory, a link, ...) is the way the test takes;
- server directory: ``METRICS_LENS_DATA_DIR`` at a fresh directory and the sidebar's file
  picker;
- shared link: the query string the app writes for the view, opened in a fresh session.

Ways that do not exist for a layout are not cells: a typed example and a synthetic table come
from their own sidebar sources (and their links); an uploaded file cannot travel in a link (the
shared-link cells reopen the server's views, whose files stay on the server).

``report`` and ``check`` on the binary, grouped and weighted layouts give the dashboard's
numbers; on the per-class layouts they either do the same or refuse with one line and exit 2.
"""

from __future__ import annotations

import contextlib
import io
import json
import math
import os
import re
import urllib.parse
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import sklearn.metrics as skm
from streamlit.testing.v1 import AppTest

import metrics
from tests.apptest_utils import app_command, figures, upload_frame

APP = str(Path(__file__).resolve().parent.parent / "app.py")
N = 240  # rows per table: enough for every metric, small enough for 13 pages a cell
TIMEOUT = 120

PAGES = {
    "threshold": "pages/threshold.py",
    "curves": "pages/curves.py",
    "decisions": "pages/decisions.py",
    "calibration": "pages/calibration.py",
    "gauc": "pages/gauc.py",
    "ranking": "pages/ranking.py",
    "multilabel": "pages/multilabel.py",
    "compare": "pages/compare.py",
    "step_through": "pages/step_through.py",
    "lessons": "pages/lessons.py",
    "ap_lab": "pages/ap_lab.py",
    "auc_lab": "pages/auc_lab.py",
    "data": "pages/data.py",
}


# --- the layouts ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Layout:
    """A table and what its columns mean: the truth every page is checked against."""

    name: str
    table: pd.DataFrame = field(repr=False)
    # "binary", "multiclass", "multilabel", or two models' per-class scores: "models_per_class"
    # (multi-class) and "multilabel_models"
    kind: str
    label: str | None = None
    scores: tuple[str, ...] = ()
    group: str | None = None
    weight: str | None = None
    graded: bool = False

    @property
    def file(self) -> str:
        # One name per layout: a name is what a file is known by across sessions.
        return f"{self.name}.csv"

    @property
    def per_class(self) -> bool:
        return self.kind != "binary"

    def class_of(self, column: str) -> str:
        """The class a per-class score column scores (``score_A``, ``lr__A``)."""
        if "__" in column:
            return column.rsplit("__", 1)[1]
        return column.removeprefix("score_")

    def truth(self, column: str) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
        """(positive?, score, weight) of one score column, one-vs-rest on per-class tables."""
        t = self.table
        if self.kind in ("multilabel", "multilabel_models"):
            y = t[f"label_{self.class_of(column)}"].to_numpy() == 1
        elif self.per_class:
            y = t[self.label].astype(str).to_numpy() == self.class_of(column)
        elif self.graded:
            y = t[self.label].to_numpy() > 0
        else:
            y = t[self.label].to_numpy() == 1
        w = t[self.weight].to_numpy(dtype=float) if self.weight else None
        return y, t[column].to_numpy(dtype=float), w

    def knows(self, column: str) -> bool:
        return column in self.table.columns and (
            column in self.scores or (self.per_class and column.startswith(("score_",)))
        )


def _rng(seed: int) -> np.random.Generator:
    return np.random.default_rng(seed)


def _binary(seed: int = 0, n: int = N) -> pd.DataFrame:
    rng = _rng(seed)
    y = rng.integers(0, 2, n)
    return pd.DataFrame(
        {
            "y": y,
            "model_a": np.clip(0.35 * y + 0.65 * rng.random(n), 0, 1).round(3),
            "model_b": np.clip(0.2 * y + 0.8 * rng.random(n), 0, 1).round(3),
            "model_c": np.clip(0.1 * y + 0.9 * rng.random(n), 0, 1).round(3),
        }
    )


def _per_class_probabilities(rng, label: np.ndarray, k: int, strength: float) -> np.ndarray:
    raw = rng.random((label.size, k)) + strength * np.eye(k)[label]
    return (raw / raw.sum(axis=1, keepdims=True)).round(4)


def _layouts() -> dict[str, Layout]:
    out = {}
    t = _binary(1)
    out["binary"] = Layout("binary", t, "binary", "y", ("model_a", "model_b", "model_c"))
    rng = _rng(12)  # not the table's own stream: ids independent of the labels
    t = _binary(2).assign(user_id=rng.integers(0, 24, N))[["user_id", "y", "model_a", "model_b"]]
    out["grouped"] = Layout("grouped", t, "binary", "y", ("model_a", "model_b"), group="user_id")
    rng = _rng(13)
    t = _binary(3)[["y", "model_a", "model_b"]].assign(weight=rng.choice([0.5, 1.0, 2.0, 3.0], N))
    out["weighted"] = Layout("weighted", t, "binary", "y", ("model_a", "model_b"), weight="weight")
    rng = _rng(4)
    classes = np.array(["A", "B", "C"])
    lab = rng.integers(0, 3, N)
    p = _per_class_probabilities(rng, lab, 3, 0.6)
    t = pd.DataFrame(
        {"label": classes[lab], **{f"score_{c}": p[:, k] for k, c in enumerate(classes)}}
    )
    out["multiclass"] = Layout(
        "multiclass", t, "multiclass", "label", tuple(f"score_{c}" for c in classes)
    )
    rng = _rng(5)
    lab = rng.integers(0, 3, N)
    strong, weak = (_per_class_probabilities(rng, lab, 3, s) for s in (0.9, 0.3))
    t = pd.DataFrame(
        {
            "label": classes[lab],
            **{f"lr__{c}": strong[:, k] for k, c in enumerate(classes)},
            **{f"hgb__{c}": weak[:, k] for k, c in enumerate(classes)},
        }
    )
    out["models_per_class"] = Layout(
        "models_per_class", t, "models_per_class", "label",
        tuple(f"{m}__{c}" for m in ("lr", "hgb") for c in classes),
    )  # fmt: skip
    rng = _rng(6)
    labels = rng.integers(0, 2, (N, 3))
    t = pd.DataFrame(
        {
            **{f"label_{c}": labels[:, k] for k, c in enumerate("xyz")},
            **{
                f"score_{c}": np.clip(0.3 * labels[:, k] + 0.7 * rng.random(N), 0, 1).round(3)
                for k, c in enumerate("xyz")
            },
        }
    )
    out["multilabel"] = Layout(
        "multilabel", t, "multilabel", None, ("score_x", "score_y", "score_z")
    )
    rng = _rng(8)
    labels = rng.integers(0, 2, (N, 3))
    t = pd.DataFrame(
        {
            **{f"label_{c}": labels[:, k] for k, c in enumerate("xyz")},
            **{
                f"{m}__{c}": np.clip(a * labels[:, k] + (1 - a) * rng.random(N), 0, 1).round(3)
                for m, a in (("lr", 0.4), ("hgb", 0.2))
                for k, c in enumerate("xyz")
            },
        }
    )
    out["multilabel_models"] = Layout(
        "multilabel_models", t, "multilabel_models", None,
        tuple(f"{m}__{c}" for m in ("lr", "hgb") for c in "xyz"),
    )  # fmt: skip
    rng = _rng(7)
    q = np.repeat(np.arange(N // 10), 10)
    rel = rng.integers(0, 4, N)
    t = pd.DataFrame(
        {
            "query_id": q,
            "relevance": rel,
            "bm25": (0.5 * rel + 2 * rng.random(N)).round(3),
            "neural": (0.3 * rel + 2 * rng.random(N)).round(3),
        }
    )
    out["graded"] = Layout(
        "graded", t, "binary", "relevance", ("bm25", "neural"), group="query_id", graded=True
    )
    return out


LAYOUTS = _layouts()


# --- opening the app through each way in ---------------------------------------------------------


def _new(query: dict | None = None) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=TIMEOUT)
    for key, value in (query or {}).items():
        at.query_params[key] = value
    return at


def _settle(at: AppTest) -> AppTest:
    at.run()
    assert not at.exception, at.exception
    return at


def open_upload(lay: Layout, tmp_path, monkeypatch) -> AppTest:
    at = _new()
    upload_frame(at, lay.table, lay.file)
    assert not at.exception, at.exception
    return at


def _write(lay: Layout, directory: Path) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / lay.file
    if path.suffix == ".npz":
        raise AssertionError("summaries are written by _summary")
    lay.table.to_csv(path, index=False)
    return path


def open_server_directory(lay: Layout, tmp_path, monkeypatch, path: Path | None = None) -> AppTest:
    path = path or _write(lay, tmp_path / "data")
    monkeypatch.setenv("METRICS_LENS_DATA_DIR", str(path.parent))
    at = _settle(_new())
    at.segmented_control(key="source").set_value("Server dataset").run()
    assert not at.exception, at.exception
    at.selectbox(key="server_file").set_value(path.name).run()
    assert not at.exception, at.exception
    return at


class _Refused(Exception):
    """The command refused the file (exit 2) with this one-line message."""


def run_app_command(path: Path, monkeypatch, capsys, then):
    """``metrics-lens app PATH`` up to the browser: the server process is a stand-in that, once
    the command printed its address, calls ``then(env, url)`` (while the command's run directory
    still exists) and exits 0. Returns what ``then`` returned; raises :class:`_Refused` when the
    command exits 2."""
    code, result = app_command(monkeypatch, [str(path), "--no-browser"], then)
    if code == 2:
        err = capsys.readouterr().err.strip()
        raise _Refused(err)
    assert code == 0, capsys.readouterr()
    return result


def _query_of(url: str) -> dict:
    parsed = urllib.parse.urlsplit(url)
    query: dict[str, list[str]] = {}
    for key, value in urllib.parse.parse_qsl(parsed.query):
        query.setdefault(key, []).append(value)
    return {k: v if len(v) > 1 else v[0] for k, v in query.items()}


def _env_from(env: dict, monkeypatch) -> None:
    for key, value in env.items():
        if key.startswith("METRICS_LENS") and os.environ.get(key) != value:
            monkeypatch.setenv(key, value)


def _links(at: AppTest) -> dict:
    """The query string the app wrote for the view (what the address bar shares)."""
    return {k: (v if len(v) > 1 else v[0]) for k, v in at.query_params.items() if v}


# --- reading a page ------------------------------------------------------------------------------


def _main_text(at: AppTest) -> list[str]:
    """Every info, warning and error sentence of the page (not the sidebar)."""
    main = at.main
    return [e.value for elements in (main.info, main.warning, main.error) for e in elements]


def _cards(at: AppTest) -> dict[str, str]:
    return {m.label: m.value for m in at.main.metric}


def _trace_names(at: AppTest) -> list[str]:
    return [str(t.get("name")) for f in figures(at) for t in f["data"] if t.get("name")]


def _frames(at: AppTest) -> list[pd.DataFrame]:
    return [d.value for d in at.main.dataframe]


def _estimate(cell) -> float:
    """A table cell "★ 0.8219  [0.77, 0.87]" or a number: its estimate."""
    if isinstance(cell, (int, float, np.floating)):
        return float(cell)
    match = re.search(r"-?\d+\.\d+|nan", str(cell))
    return float(match.group()) if match else math.nan


def _shows(text, want: float, digits: int) -> bool:
    """A number shown to ``digits`` decimals is ``want`` (rounded either way at a tie: the
    page rounds half up, and two sums of the same terms may differ in the last bit)."""
    return abs(_estimate(text) - want) <= 0.5 * 10.0**-digits + 1e-9


def _fmt(x: float, digits: int) -> str:
    return f"{x:.{digits}f}"


def _auc(lay: Layout, column: str, *, weighted: bool = True) -> float:
    y, s, w = lay.truth(column)
    return skm.roc_auc_score(y, s, sample_weight=w if weighted else None)


def _ap(lay: Layout, column: str) -> float:
    y, s, w = lay.truth(column)
    return skm.average_precision_score(y, s, sample_weight=w)


# Sentences a page may say instead of numbers: each names what the page needs.
NEEDS = re.compile(
    r"needs?\b|one score column per model|only .* rows here|not probabilities|no probability"
    r"|per-class|one model's|classes are not|probability scores|ranks whole models",
    re.IGNORECASE,
)


def _said_what_it_needs(at: AppTest) -> bool:
    return any(NEEDS.search(t) for t in _main_text(at))


class Cell:
    """What a page showed, checked against the layout's truth; ``problems`` lists mismatches."""

    def __init__(self, at: AppTest, lay: Layout, page: str):
        self.at, self.lay, self.page = at, lay, page
        self.problems: list[str] = []

    def expect(self, ok: bool, what: str) -> None:
        if not ok:
            self.problems.append(f"{self.page}: {what}")

    def sentence_instead(self, why: str) -> None:
        """The page showed no number it is checked on: it must say what it needs."""
        self.expect(
            _said_what_it_needs(self.at),
            f"{why}, and no sentence naming what it needs ({_main_text(self.at)!r:.300})",
        )

    def model(self) -> str:
        state = self.at.session_state
        if state["source"] == "Server dataset" and "server_model" in state:
            return state["server_model"]
        return state["model"]


def check_threshold(c: Cell) -> None:
    cards = _cards(c.at)
    if "Precision" not in cards:
        return c.sentence_instead("no confusion cards")
    model = c.model()
    c.expect(c.lay.knows(model), f"shows {model!r}, not a score column of the table")
    if not c.lay.knows(model):
        return None
    t = c.at.slider(key="threshold_slider").value if c.at.slider else None
    t = c.at.session_state["thresholds"].get(model, t) if "thresholds" in c.at.session_state else t
    y, s, w = c.lay.truth(model)
    conf = metrics.confusion_at_threshold(y, s, t, sample_weight=w)
    want = {
        "Precision": conf.precision,
        "Recall (TPR)": conf.recall,
        "FPR": conf.fpr,
        "Accuracy": conf.accuracy,
    }
    for name, value in want.items():
        c.expect(_shows(cards[name], value, 3), f"{name} {cards[name]} ≠ {value:.3f} at {t}")
    names = _trace_names(c.at)
    auc = f"{model} (AUC {_auc(c.lay, model):.3f})"
    c.expect(auc in names, f"no trace {auc!r} in {names[:6]}")


def check_curves(c: Cell) -> None:
    names = _trace_names(c.at)
    shown = [re.match(r"(.+) \((AUC|AP) (\d\.\d{3})\)$", n) for n in names]
    shown = [m for m in shown if m and not m.group(1).startswith("chance")]
    if not shown:
        return c.sentence_instead("no ROC or PR curve")
    for m in shown:
        column, what, value = m.groups()
        c.expect(c.lay.knows(column), f"a curve of {column!r}, not a score column of the table")
        if c.lay.knows(column):
            want = _auc(c.lay, column) if what == "AUC" else _ap(c.lay, column)
            c.expect(_shows(value, want, 3), f"{column} {what} {value} ≠ {want:.3f}")


def check_decisions(c: Cell) -> None:
    table = next((f for f in _frames(c.at) if {"AUPRG", "AP", "model"} <= set(f.columns)), None)
    if table is None:
        return c.sentence_instead("no AUPRG / AP table")
    for row in table.to_dict("records"):
        column = row["model"]
        c.expect(c.lay.knows(column), f"a row for {column!r}, not a score column of the table")
        if c.lay.knows(column):
            want = _ap(c.lay, column)
            c.expect(abs(row["AP"] - want) < 1e-9, f"{column} AP {row['AP']} ≠ {want}")


def check_calibration(c: Cell) -> None:
    table = next((f for f in _frames(c.at) if {"Brier", "ECE", "model"} <= set(f.columns)), None)
    if table is None:
        return c.sentence_instead("no calibration table")
    for row in table.to_dict("records"):
        column = row["model"]
        c.expect(c.lay.knows(column), f"a row for {column!r}, not a score column of the table")
        if c.lay.knows(column):
            y, s, w = c.lay.truth(column)
            if s.min() < 0 or s.max() > 1:  # not probabilities: the table is after Platt's map
                c.expect(_said_what_it_needs(c.at), f"{column}: not probabilities, unsaid")
                continue
            want = float(np.average((s - y) ** 2, weights=w))
            c.expect(
                _shows(row["Brier"], want, 4),
                f"{column} Brier {row['Brier']} ≠ {want:.4f}",
            )
        break  # the first table is before recalibration; the second one after it


def check_gauc(c: Cell) -> None:
    cards = _cards(c.at)
    gauc = next((k for k in cards if k.startswith("GAUC (") and "shifted" not in k), None)
    if gauc is None:
        return c.sentence_instead("no GAUC card")
    c.expect(c.lay.group is not None, "a GAUC on a table without a user or query column")
    if c.lay.group is None:
        return None
    model = c.model()
    y, s, w = c.lay.truth(model)
    want = metrics.group_auc_score(y, s, c.lay.table[c.lay.group].to_numpy(), sample_weight=w)
    c.expect(_shows(cards[gauc], want, 4), f"{gauc} {cards[gauc]} ≠ {want:.4f}")
    want = _auc(c.lay, model)
    c.expect(_shows(cards["Global AUC"], want, 4), f"Global AUC {cards['Global AUC']} ≠ {want}")


def check_ranking(c: Cell) -> None:
    cards = _cards(c.at)
    if "MAP@10" not in cards:
        return c.sentence_instead("no MAP@10 card")
    c.expect(c.lay.group is not None, "ranking metrics on a table without queries")
    if c.lay.group is None:
        return None
    model = c.model()
    y, s, _ = c.lay.truth(model)
    want = metrics.mean_average_precision(y, s, c.lay.table[c.lay.group].to_numpy(), k=10)
    c.expect(_shows(cards["MAP@10"], want, 4), f"MAP@10 {cards['MAP@10']} ≠ {want:.4f}")


def _per_class_truth(lay: Layout, columns: list[str]):
    ys, ss = zip(*(lay.truth(col)[:2] for col in columns), strict=True)
    w = lay.truth(columns[0])[2]
    return np.column_stack(ys).astype(int), np.column_stack(ss), w


def check_multilabel(c: Cell) -> None:
    cards = _cards(c.at)
    if "mAP (macro AP)" not in cards:
        return c.sentence_instead("no macro AP card")
    c.expect(c.lay.per_class, "per-class averages of a table of one score per model")
    if not c.lay.per_class:
        return None
    per_class = next(f for f in _frames(c.at) if {"class", "AP", "AUC"} <= set(f.columns))
    classes = [str(k) for k in per_class["class"]]
    columns = [col for col in c.lay.scores if c.lay.class_of(col) in classes]
    if c.lay.kind in ("models_per_class", "multilabel_models"):  # one model's classes at a time
        model = c.model()
        prefix = model.rsplit("__", 1)[0] if "__" in model else None
        columns = [col for col in columns if prefix is None or col.startswith(f"{prefix}__")]
    y, s, w = _per_class_truth(c.lay, columns)
    want = skm.average_precision_score(y, s, average="macro", sample_weight=w)
    c.expect(
        _shows(cards["mAP (macro AP)"], want, 4),
        f"mAP {cards['mAP (macro AP)']} ≠ scikit-learn's {want:.4f} ({columns})",
    )
    for row in per_class.to_dict("records"):
        column = next(col for col in columns if c.lay.class_of(col) == str(row["class"]))
        want = _ap(c.lay, column)
        c.expect(abs(row["AP"] - want) < 1e-9, f"class {row['class']} AP {row['AP']} ≠ {want}")


def check_compare(c: Cell) -> None:
    tables = [f for f in _frames(c.at) if {"model", "AUC"} <= set(f.columns)]
    if c.lay.kind in ("multiclass", "multilabel"):
        # One model's per-class scores: classes are not models; never a table ranking them.
        listed = {str(m) for t in tables for m in t["model"]} & set(c.lay.scores)
        c.expect(len(listed) < 2, f"the classes' score columns {sorted(listed)} ranked as models")
        c.expect(
            not any("★" in str(v) for t in tables for v in t.to_numpy().ravel()),
            "a class starred as best",
        )
        if len(listed) >= 2:
            return None
        if not listed:
            return c.sentence_instead("no comparison of models")
        # One class's label and score (a source that reads one binary label): its own AUC.
        (column,) = listed
        row = next(r for t in tables for r in t.to_dict("records") if str(r["model"]) == column)
        want = _auc(c.lay, column)
        c.expect(
            _shows(row["AUC"], want, 4),
            f"{column} AUC {row['AUC']} ≠ its one-vs-rest {want:.4f}",
        )
        return None
    if c.lay.kind in ("models_per_class", "multilabel_models"):
        listed = {str(m) for t in tables for m in t["model"]} & set(c.lay.scores)
        if not listed:
            return _check_models_per_class(c, tables)
        # A source that reads one class at a time (the engine: one label column): that class's
        # models side by side, each against its own label, never classes against each other.
        classes = {c.lay.class_of(col) for col in listed}
        c.expect(len(classes) == 1, f"score columns of several classes ranked: {sorted(listed)}")
        for row in (r for t in tables for r in t.to_dict("records") if str(r["model"]) in listed):
            want = _auc(c.lay, str(row["model"]))
            c.expect(_shows(row["AUC"], want, 4), f"{row['model']} AUC {row['AUC']} ≠ {want:.4f}")
        return None
    if not tables:
        return c.sentence_instead("no model table")
    table = tables[0]
    for row in table.to_dict("records"):
        column = row["model"]
        c.expect(c.lay.knows(column), f"a row for {column!r}, not a score column of the table")
        if c.lay.knows(column):
            want = _auc(c.lay, column)
            c.expect(
                _shows(row["AUC"], want, 4),
                f"{column} AUC {row['AUC']} ≠ {want:.4f}",
            )
            if "AP" in table.columns:
                want = _ap(c.lay, column)
                c.expect(
                    _shows(row["AP"], want, 4),
                    f"{column} AP {row['AP']} ≠ {want:.4f}",
                )


def _check_models_per_class(c: Cell, tables: list[pd.DataFrame]) -> None:
    """Two models' per-class scores: a table of the models (not the classes), with macro AUC
    and AP equal to scikit-learn's one-vs-rest macro averages."""
    lay = c.lay
    models = sorted({col.rsplit("__", 1)[0] for col in lay.scores})
    rows = [
        t
        for t in _frames(c.at)
        if "model" in t.columns and set(map(str, t["model"])) == set(models)
    ]
    c.expect(bool(rows), f"no table of the models {models} ({[list(t.columns) for t in tables]})")
    if not rows:
        return None
    table = rows[0]
    classes = sorted({lay.class_of(col) for col in lay.scores})
    if lay.kind == "multilabel_models":
        onehot = lay.table[[f"label_{k}" for k in classes]].to_numpy()
    else:
        y = lay.table[lay.label].astype(str).to_numpy()
        onehot = (y[:, None] == np.array(classes)).astype(int)
    for name in models:
        p = lay.table[[f"{name}__{k}" for k in classes]].to_numpy()
        row = table[table["model"].astype(str) == name].iloc[0]
        for column, want in (  # one-vs-rest macro averages (the scores need not sum to 1)
            ("macro AUC", skm.roc_auc_score(onehot, p, average="macro")),
            ("macro AP", skm.average_precision_score(onehot, p, average="macro")),
        ):
            found = [k for k in table.columns if str(k).lower().startswith(column.lower())]
            c.expect(bool(found), f"no {column!r} column in {list(table.columns)}")
            if found:
                c.expect(
                    _shows(row[found[0]], want, 4),
                    f"{name} {column} {row[found[0]]} ≠ scikit-learn's {want:.4f}",
                )


def check_step_through(c: Cell) -> None:
    rocs = [t for f in figures(c.at) for t in f["data"] if t.get("name") == "curve"]
    if not rocs:
        return c.sentence_instead("no curve to step along")
    model = c.model()
    c.expect(c.lay.knows(model), f"steps through {model!r}, not a score column of the table")
    if not c.lay.knows(model):
        return None
    from tests.apptest_utils import decode_arrays

    roc = decode_arrays(rocs[0])
    area = float(np.trapezoid(roc["y"], roc["x"]))
    want = _auc(c.lay, model, weighted=False)  # stepping counts rows (the page says so)
    c.expect(abs(area - want) < 1e-9, f"the stepped ROC's area {area:.6f} ≠ AUC {want:.6f}")


def check_lessons(c: Cell) -> None:
    """Lessons bring their own tables: the page only must run."""


def check_ap_lab(c: Cell) -> None:
    cards = _cards(c.at)
    if "Step" not in cards:
        return c.sentence_instead("no AP card")
    model = c.model()
    c.expect(c.lay.knows(model), f"AP of {model!r}, not a score column of the table")
    if c.lay.knows(model):
        want = _ap(c.lay, model)
        c.expect(_shows(cards["Step"], want, 4), f"AP (step) {cards['Step']} ≠ {want:.4f}")


def check_auc_lab(c: Cell) -> None:
    cards = _cards(c.at)
    if "Library roc_auc_score" not in cards:
        return c.sentence_instead("no AUC card")
    model = c.model()
    c.expect(c.lay.knows(model), f"AUC of {model!r}, not a score column of the table")
    if not c.lay.knows(model):
        return None
    want = _auc(c.lay, model, weighted=False)  # the lab pairs rows; it names the weighted AUC
    for card in ("Pair counting", "Library roc_auc_score"):
        c.expect(_shows(cards[card], want, 4), f"{card} {cards[card]} ≠ {want:.4f}")
    if c.lay.weight:
        weighted = f"{_auc(c.lay, model):.4f}"
        said = " ".join(e.value for e in c.at.main.caption)
        c.expect(weighted in said, f"the weighted AUC {weighted} is not named")


def check_data(c: Cell) -> None:
    roles = next((f for f in _frames(c.at) if {"column", "role"} <= set(f.columns)), None)
    if roles is None:  # a server dataset: the engine's columns and counts
        frames = _frames(c.at)
        c.expect(bool(frames) or _said_what_it_needs(c.at), "no table and no sentence")
        return None
    role = dict(zip(roles["column"].astype(str), roles["role"], strict=True))
    c.expect(set(role) <= set(map(str, c.lay.table.columns)), f"columns {sorted(role)}")
    if c.lay.label:
        c.expect(role.get(c.lay.label) == "label", f"{c.lay.label} is {role.get(c.lay.label)}")
    # A source that reads one class at a time (the server's engine) maps one class's score.
    allowed = ("score", None, "ignore") if c.lay.per_class else ("score",)
    for column in c.lay.scores:
        c.expect(role.get(column) in allowed, f"{column} is {role.get(column)}, not a score")
    if c.lay.group:
        c.expect(
            role.get(c.lay.group) in ("group", "user / query id"),
            f"{c.lay.group} is {role.get(c.lay.group)}",
        )
    if c.lay.weight:
        c.expect(role.get(c.lay.weight) == "weight", f"{c.lay.weight} is {role.get(c.lay.weight)}")


CHECKS = {
    "threshold": check_threshold,
    "curves": check_curves,
    "decisions": check_decisions,
    "calibration": check_calibration,
    "gauc": check_gauc,
    "ranking": check_ranking,
    "multilabel": check_multilabel,
    "compare": check_compare,
    "step_through": check_step_through,
    "lessons": check_lessons,
    "ap_lab": check_ap_lab,
    "auc_lab": check_auc_lab,
    "data": check_data,
}


def visit(at: AppTest, lay: Layout, pages) -> list[str]:
    """Every page in ``pages``: the problems found (empty: the cell conforms)."""
    problems = []
    for page in pages:
        # The point estimates are what is checked: few resamples.
        if page == "compare":
            at.session_state["compare_resamples"] = 100
        if page == "calibration":
            at.session_state["calibration_resamples"] = 100
        at.switch_page(PAGES[page]).run()
        if at.exception:
            problems.append(f"{page}: exception {at.exception[0].message[:300]}")
            continue
        cell = Cell(at, lay, page)
        if any("until your table is ready" in t for t in _main_text(at)):
            # The source cannot use the table: the pages show the sample under a banner that
            # says so, and the sidebar says what the table needs.
            said = [e.value for kind in (at.sidebar.error, at.sidebar.info) for e in kind]
            cell.expect(bool(said), "the sample shown, and no sentence in the sidebar on why")
        else:
            CHECKS[page](cell)
        problems += cell.problems
    return problems


# --- the matrix ----------------------------------------------------------------------------------

WAYS = ("upload", "app_file", "server_directory", "shared_link")
ROW_LAYOUTS = (
    "binary", "grouped", "weighted", "multiclass", "models_per_class", "multilabel",
    "multilabel_models", "graded",
)  # fmt: skip
NOT_COMPARE = tuple(p for p in PAGES if p != "compare")


def _open(way: str, lay: Layout, tmp_path, monkeypatch, capsys, then):
    """Open ``lay`` through ``way`` and return ``then(at)``; None when the way refused the file
    with one sentence (checked here)."""
    if way == "upload":
        return then(open_upload(lay, tmp_path, monkeypatch))
    if way == "server_directory":
        return then(open_server_directory(lay, tmp_path, monkeypatch))
    if way == "app_file":
        path = _write(lay, tmp_path / "files")

        def opened(env, url):
            _env_from(env, monkeypatch)
            return then(_settle(_new(_query_of(url))))

        try:
            return run_app_command(path, monkeypatch, capsys, opened)
        except _Refused as refused:
            message = str(refused)
            assert len(message.splitlines()) == 1, message
            assert "Traceback" not in message
            return None
    if way == "shared_link":
        first = open_server_directory(lay, tmp_path, monkeypatch)
        if any("until your table is ready" in t for t in _main_text(first)):
            return then(first)  # no view of the table to share: the sidebar says why
        return then(_settle(_new(_links(first))))
    raise ValueError(way)


def _cell_id(layout: str, way: str) -> str:
    return f"{layout}-{way}"


ROW_CELLS = [(layout, way) for layout in ROW_LAYOUTS for way in WAYS]


@pytest.mark.parametrize(("layout", "way"), ROW_CELLS, ids=[_cell_id(*c) for c in ROW_CELLS])
def test_every_page_conforms(layout, way, tmp_path, monkeypatch, capsys):
    lay = LAYOUTS[layout]
    problems = _open(
        way, lay, tmp_path, monkeypatch, capsys, lambda at: visit(at, lay, NOT_COMPARE)
    )
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize(("layout", "way"), ROW_CELLS, ids=[_cell_id(*c) for c in ROW_CELLS])
def test_compare_conforms(layout, way, tmp_path, monkeypatch, capsys):
    """Compare on its own (the page of the models' verdicts): a binary table's models with the
    library's AUC and AP; one model's per-class scores get a sentence, never a ranking of the
    classes; two models' per-class scores get the models' table with scikit-learn's macro
    averages."""
    lay = LAYOUTS[layout]
    problems = _open(
        way, lay, tmp_path, monkeypatch, capsys, lambda at: visit(at, lay, ["compare"])
    )
    assert not problems, "\n".join(problems)


# --- the typed example and the synthetic table: their own sources and their links --------------

TYPED = pd.DataFrame(
    {
        "label": [1, 0, 1, 1, 0, 0, 1, 0, 1, 0, 0, 1],
        "model_a": [0.9, 0.8, 0.7, 0.62, 0.62, 0.4, 0.35, 0.3, 0.28, 0.2, 0.1, 0.05],
        "model_b": [0.6, 0.3, 0.85, 0.7, 0.2, 0.55, 0.5, 0.15, 0.45, 0.35, 0.25, 0.9],
    }
)


def _example_layout(table: pd.DataFrame) -> Layout:
    scores = tuple(c for c in table.columns if c != "label")
    return Layout("typed_example", table, "binary", "label", scores)


def _synthetic_layout(spec) -> Layout:
    from ui.tables.synthetic import generate

    table = generate(spec)
    scores = tuple(c for c in table.columns if c.startswith("score"))
    return Layout("synthetic", table, "binary", "label", scores)


def _synthetic_spec():
    from ui.tables.synthetic import SyntheticSpec, dprime_from_auc

    return SyntheticSpec(
        rows=200, prevalence=0.3, dprime=round(dprime_from_auc(0.8), 6), decimals=2,
        calibration=1.0, seed=3, others=((round(dprime_from_auc(0.75), 6), 1.0),),
    )  # fmt: skip


SOURCE_CELLS = [
    ("typed_example", "sidebar"),
    ("typed_example", "shared_link"),
    ("synthetic", "sidebar"),
    ("synthetic", "shared_link"),
]


@pytest.mark.parametrize(("layout", "way"), SOURCE_CELLS, ids=[_cell_id(*c) for c in SOURCE_CELLS])
def test_a_typed_or_synthetic_table_conforms_on_every_page(layout, way):
    from ui.sources import example_source

    if layout == "typed_example":
        if way == "sidebar":  # the source's own prefilled table
            lay = _example_layout(example_source.DEFAULT)
            at = _settle(_new())
            at.segmented_control(key="source").set_value("Your example").run()
        else:
            lay = _example_layout(TYPED)
            at = _settle(_new({example_source.QUERY_KEY: example_source.encode(TYPED)}))
    else:
        lay = _synthetic_layout(_synthetic_spec())
        settings = (
            "by:AUC,auc:0.8,prev:30,rows:200,round:2 decimals,cal:1,seed:3,models:2,auc2:0.75"
        )
        if way == "sidebar":
            at = _settle(_new())
            at.segmented_control(key="source").set_value("Synthetic").run()
            for key, value in (("synth_seed", 3), ("synth_rounding", "2 decimals"),
                               ("synth_models", 2)):  # fmt: skip
                at.session_state[key] = value
            at.run()
        else:
            at = _settle(_new({"synth": settings}))
    assert not at.exception, at.exception
    problems = visit(at, lay, PAGES)
    assert not problems, "\n".join(problems)


# --- a server summary: the engine's per-score counts, no rows -----------------------------------


def _summary(lay: Layout, directory: Path) -> Path:
    """``python -m metrics.sql TABLE --out NAME.npz``: the engine's summary of the table."""
    from metrics.sql.__main__ import main as sql_main

    directory.mkdir(parents=True, exist_ok=True)
    source = directory.parent / f"{lay.name}.parquet"
    lay.table.to_parquet(source, index=False)
    out = directory / f"{lay.name}.npz"
    args = [str(source), "--label", lay.label, "--out", str(out)]
    for score in lay.scores:
        args += ["--score", score]
    with contextlib.redirect_stdout(io.StringIO()):
        assert sql_main(args) == 0
    return out


SUMMARY_WAYS = ("server_directory", "app_file", "shared_link")


@pytest.mark.parametrize("way", SUMMARY_WAYS)
def test_a_server_summary_conforms_on_every_page(way, tmp_path, monkeypatch, capsys):
    lay = LAYOUTS["binary"]
    lay = Layout("summary", lay.table, "binary", "y", lay.scores)
    path = _summary(lay, tmp_path / "data")
    if way == "app_file":

        def opened(env, url):
            _env_from(env, monkeypatch)
            return visit(_settle(_new(_query_of(url))), lay, PAGES)

        problems = run_app_command(path, monkeypatch, capsys, opened)
    else:
        at = open_server_directory(lay, tmp_path, monkeypatch, path)
        if way == "shared_link":
            at = _settle(_new(_links(at)))
        problems = visit(at, lay, PAGES)
    assert not problems, "\n".join(problems)


# --- report and check give the dashboard's numbers -----------------------------------------------


def _dashboard_table(lay: Layout) -> pd.DataFrame:
    """Compare's model table for ``lay`` uploaded: the numbers the command must give."""
    at = open_upload(lay, None, None)
    at.session_state["compare_resamples"] = 100
    at.switch_page(PAGES["compare"]).run()
    assert not at.exception, at.exception
    table = next(f for f in _frames(at) if {"model", "AUC", "AP"} <= set(f.columns))
    return table.set_index("model")


@pytest.mark.parametrize("layout", ["binary", "grouped", "weighted"])
def test_report_and_check_give_the_dashboards_numbers(layout, tmp_path, capsys):
    from metrics_lens.cli import main

    lay = LAYOUTS[layout]
    path = _write(lay, tmp_path)
    shown = _dashboard_table(lay)
    a, b = lay.scores[:2]
    for metric, column in (("auc", "AUC"), ("ap", "AP")):
        code = main(["check", str(path), "--baseline", a, "--candidate", b, "--metric", metric,
                     "--resamples", "100", "--json"])  # fmt: skip
        out = capsys.readouterr().out
        assert code in (0, 1), out
        (row,) = json.loads(out)["results"]
        for name, model in (("baseline", a), ("candidate", b)):
            assert _shows(shown.loc[model, column], row[name], 4), (
                metric, model, row[name], shown.loc[model, column])  # fmt: skip
            want = _auc(lay, model) if metric == "auc" else _ap(lay, model)
            assert row[name] == pytest.approx(want, abs=1e-12)
    out = tmp_path / "report.html"
    assert main(["report", str(path), "-o", str(out), "--resamples", "100"]) == 0
    html = out.read_text(encoding="utf-8")
    for model in lay.scores:
        for column in ("AUC", "AP"):
            value = _fmt(_estimate(shown.loc[model, column]), 4)
            assert value in html, (model, column, value)
    if lay.group:
        gauc = _fmt(_estimate(shown.loc[a, "GAUC"]), 4)
        assert gauc in html


@pytest.mark.parametrize(
    "layout", ["multiclass", "models_per_class", "multilabel", "multilabel_models"]
)
def test_report_and_check_on_a_per_class_table_refuse_in_one_line(layout, tmp_path, capsys):
    """Per-class tables: ``report`` and ``check`` score binary models; given one they either
    refuse with one line and exit 2, or give numbers equal to the library's for what they
    say they scored."""
    from metrics_lens.cli import main

    lay = LAYOUTS[layout]
    path = _write(lay, tmp_path)
    a, b = lay.scores[:2]
    code = main(["check", str(path), "--baseline", a, "--candidate", b, "--metric", "auc",
                 "--resamples", "100", "--json"])  # fmt: skip
    captured = capsys.readouterr()
    if code == 2:
        said = json.loads(captured.out)["error"] if captured.out.strip() else captured.err
        assert len(said.strip().splitlines()) == 1, said
        assert "Traceback" not in said
    else:
        (row,) = json.loads(captured.out)["results"]
        for name, model in (("baseline", a), ("candidate", b)):
            assert row[name] == pytest.approx(_auc(lay, model), abs=1e-12), (layout, name)
    code = main(["report", str(path), "-o", str(tmp_path / "r.html"), "--resamples", "100"])
    captured = capsys.readouterr()
    if code == 2:
        assert len(captured.err.strip().splitlines()) == 1, captured.err
        assert "Traceback" not in captured.err
    else:
        assert code == 0
        html = (tmp_path / "r.html").read_text(encoding="utf-8")
        for model in lay.scores:
            assert _fmt(_auc(lay, model), 4) in html, (layout, model)

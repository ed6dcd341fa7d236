"""Issue 50's dictionary payload through the engine's doors: the Server dataset source and
``metrics-lens app FILE`` above the rows limit, with its 3,000-character text column as the
group. Each answers (GAUC per user, grouped by an exact number: :mod:`metrics.sql._keys`) or
refuses in one sentence, the session kept; the engine's memory limit comes from the budget.
The peak memory of the same payload is checked in ``tests/test_sql_long_ids.py`` (a child).
"""

from __future__ import annotations

import os

import numpy as np
import pandas as pd
from streamlit.testing.v1 import AppTest

import metrics
from tests import hostile_payloads as payloads
from tests.apptest_utils import APP, app_command
from ui.compute import server_source

TIMEOUT = 180


def _open(query: dict | None = None) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=TIMEOUT)
    for key, value in (query or {}).items():
        at.query_params[key] = value
    at.run()
    assert not at.exception, at.exception
    return at


def _with_group(at: AppTest, group: str) -> AppTest:
    at.selectbox(key="server_group").set_value(group).run()
    assert not at.exception, at.exception
    return at


def _errors(at: AppTest) -> str:
    return " | ".join(e.value.replace("\\", "") for e in at.error)


def _gauc_row(at: AppTest) -> pd.Series:
    engine = next(d.value for d in at.dataframe if "GAUC" in d.value.columns)
    return engine.set_index("model").loc["prod"]


def _mixed(rows: int) -> pd.DataFrame:
    """The payload's columns with both classes in every user: a GAUC to compare."""
    k = np.arange(rows)
    return pd.DataFrame({
        "label": (k // 64 % 2).astype(np.int8),
        "prod": (k % 2 * 3 + k % 13) / 16,
        "note": pd.Categorical([f"{i:02d}" + "x" * 2998 for i in k % 64]),
    })  # fmt: skip


def test_the_server_directory_groups_by_3000_character_ids(tmp_path, monkeypatch):
    root = tmp_path / "data"
    root.mkdir()
    (root / "categorical.parquet").write_bytes(payloads.categorical_text(5_000))
    t = _mixed(5_000)
    t.to_parquet(root / "mixed.parquet")
    monkeypatch.setenv(server_source.ROOT_ENV, str(root))
    monkeypatch.setenv("METRICS_LENS_BUDGET_MB", "64")  # the engine's limit: its minimum, 64MiB
    monkeypatch.delenv(server_source.MEMORY_ENV, raising=False)
    assert server_source.memory_limit() == "64MiB"
    at = _open()
    at.segmented_control(key="source").set_value("Server dataset").run()
    at.selectbox(key="server_file").set_value("mixed.parquet").run()
    _with_group(at, "note")
    assert not _errors(at), _errors(at)
    want = metrics.group_auc_score(t.label, t["prod"], t.note.astype(str))
    assert _gauc_row(at)["GAUC"] == want
    at.selectbox(key="server_file").set_value("categorical.parquet").run()
    _with_group(at, "note")  # one class per user: no GAUC, the session kept
    assert not at.exception, at.exception
    assert not _errors(at), _errors(at)


def test_ids_the_budget_cannot_hold_are_refused_in_one_sentence(tmp_path, monkeypatch):
    root = tmp_path / "data"
    root.mkdir()
    n = 6_000  # distinct ids of 3,000 characters: 72 MB as numpy text, past half of 64MiB
    pd.DataFrame({
        "label": np.arange(n) % 2, "prod": np.arange(n) % 7 / 7,
        "note": [f"{i:05d}" + "x" * 2995 for i in range(n)],
    }).to_parquet(root / "long.parquet")  # fmt: skip
    monkeypatch.setenv(server_source.ROOT_ENV, str(root))
    monkeypatch.setenv("METRICS_LENS_BUDGET_MB", "64")
    monkeypatch.delenv(server_source.MEMORY_ENV, raising=False)
    at = _open()
    at.segmented_control(key="source").set_value("Server dataset").run()
    at.selectbox(key="server_file").set_value("long.parquet").run()
    _with_group(at, "note")
    said = _errors(at)
    assert "column 'note' holds ids of up to 3,000 bytes" in said, said
    assert "pick a column of short user or query ids as the group" in said


def test_app_file_above_the_rows_limit_groups_by_the_long_ids(tmp_path, monkeypatch):
    monkeypatch.setenv("METRICS_LENS_BUDGET_MB", "1")  # rows up to 192 kB: the engine reads it
    monkeypatch.delenv(server_source.MEMORY_ENV, raising=False)
    path = tmp_path / "mixed.parquet"
    t = _mixed(5_000)
    t.to_parquet(path)

    def opened(env: dict, url: str):
        for key, value in env.items():
            if key.startswith("METRICS_LENS") and os.environ.get(key) != value:
                monkeypatch.setenv(key, value)
        assert "source=server" in url
        at = _with_group(_open(), "note")
        return _errors(at), _gauc_row(at)["GAUC"], server_source.memory_limit()

    code, (errors, gauc, limit) = app_command(
        monkeypatch, [str(path), "--no-browser", "--port", "8599"], opened
    )
    assert code == 0
    assert not errors, errors
    assert limit == "64MiB"  # from the budget (its floor), not a fixed 2GB
    assert gauc == metrics.group_auc_score(t.label, t["prod"], t.note.astype(str))

"""The memory budget for user data (ui.compute.budget): least recently used uploads go first, with a
clear message, and a session's data goes when the session ends."""

from __future__ import annotations

import gc
import time
import weakref
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from tests.apptest_utils import APP, upload_frame
from ui.compute import budget

MB = 1024 * 1024


def _frame(n: int, seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    y = rng.random(n) < 0.3
    return pd.DataFrame(
        {
            "label": y.astype(int),
            "model_a": np.round(rng.normal(size=n) + y, 6),
            "model_b": np.round(rng.random(n), 6),
        }
    )


# --- the registry ------------------------------------------------------------------------------


def test_nbytes_counts_frames_arrays_and_nested_containers_once():
    frame = _frame(1000, 0)
    array = np.zeros(500)
    size = budget.nbytes({"a": frame, "b": [array, array], "c": (frame, None)})
    assert size == frame.memory_usage(deep=True).sum() + array.nbytes


def test_over_budget_the_least_recently_used_upload_goes_first():
    registry = budget.Registry(limit=250)

    def add(key: str) -> list[str]:
        time.sleep(0.002)
        registry.store(key, key.split("#")[0])["upload"] = key
        return registry.set_size(key, 100)

    add("s1#a")
    add("s2#b")
    time.sleep(0.002)
    registry.touch("s1#a")  # s1 uploaded first but ran since: s2 is the least recently used
    assert add("s3#c") == ["s2#b"]
    assert registry.usage() == {"s1#a": 100, "s2#b": 0, "s3#c": 100}
    assert registry.store("s2#b", "s2") == {}
    assert registry.touch("s2#b") is True  # told once...
    assert registry.touch("s2#b") is False  # ...not on every run after
    assert registry.touch("s1#a") is False
    assert add("s4#d") == ["s3#c"]  # s1 ran after s3 last did
    assert registry.total_bytes == 200


def test_the_newest_upload_is_never_dropped_even_alone_over_budget():
    registry = budget.Registry(limit=100)
    registry.store("old#1")["x"] = 1
    registry.set_size("old#1", 50)
    registry.store("new#2")["x"] = 2
    assert registry.set_size("new#2", 500) == ["old#1"]
    assert registry.usage() == {"old#1": 0, "new#2": 500}


def test_over_its_rss_limit_the_server_drops_older_uploads_by_the_excess():
    rss = [900]
    registry = budget.Registry(limit=10_000, rss=lambda: rss[0], rss_limit=1000)
    for key in ("a#1", "b#2"):
        time.sleep(0.002)
        registry.store(key)["x"] = key
        assert registry.set_size(key, 300) == []  # counted bytes and RSS both within limits
    rss[0] = 1250  # parsing, caches and heaps took more than was counted
    time.sleep(0.002)
    registry.store("c#3")["x"] = "c"
    assert registry.set_size("c#3", 100) == ["a#1"]  # 250 over: the oldest 300 go
    assert registry.usage() == {"a#1": 0, "b#2": 300, "c#3": 100}


def test_room_is_made_before_a_parse_for_what_it_will_take():
    rss = [700]
    registry = budget.Registry(limit=2_000, rss=lambda: rss[0], rss_limit=1000)
    for key in ("a#1", "b#2", "c#3"):
        time.sleep(0.002)
        registry.store(key)["x"] = key
        assert registry.set_size(key, 200) == []
    assert registry.make_room("d#4", 200) == []  # 700 + 200 fits under 1000
    assert registry.make_room("d#4", 650) == ["a#1", "b#2"]  # 350 over: the two oldest go
    assert registry.usage() == {"a#1": 0, "b#2": 0, "c#3": 200}
    assert registry.make_room("c#3", 5_000) == []  # never the session that is uploading
    rss[0] = 0
    assert registry.make_room("d#4", 1_900) == ["c#3"]  # the counted limit, less what comes


def test_a_drop_frees_the_table_and_runs_the_drop_callback():
    registry = budget.Registry(limit=1)
    frame = _frame(10_000, 1)
    alive = weakref.ref(frame)
    registry.store("a#1")["upload"] = frame
    freed = []
    registry.set_size("a#1", budget.nbytes(frame), on_drop=lambda: freed.append("raw file"))
    del frame
    registry.store("b#2")["upload"] = _frame(10, 2)
    registry.set_size("b#2", 10)
    gc.collect()
    assert alive() is None
    assert freed == ["raw file"]


def test_runs_collect_cycles_while_uploads_are_held_or_memory_grew(monkeypatch):
    """Streamlit's collection after every run is off; ours runs when memory matters."""
    from streamlit import config

    assert config.get_option("runner.postScriptGC") is False  # .streamlit/config.toml
    collections = []
    monkeypatch.setattr(budget.gc, "collect", lambda *a: collections.append(1) or 0)
    rss = [500 * MB]
    monkeypatch.setattr(budget, "process_rss", lambda: rss[0])
    registry = budget.Registry(limit=10 * MB)
    monkeypatch.setattr(budget, "REGISTRY", registry)
    monkeypatch.setattr(budget, "_collected_rss", 0)  # a fresh server: nothing measured yet

    assert budget.collect_garbage()  # the first run
    assert not budget.collect_garbage()  # sample data, memory flat: none
    rss[0] += budget.GROWTH_MB * MB - 1
    assert not budget.collect_garbage()
    rss[0] += 1
    assert budget.collect_garbage()  # grew by GROWTH_MB since the last collection
    rss[0] -= 200 * MB  # memory went back: growth is measured from the lower mark
    assert not budget.collect_garbage()
    rss[0] += budget.GROWTH_MB * MB
    assert budget.collect_garbage()
    registry.store("a#1")["upload"] = _frame(100, 3)
    registry.set_size("a#1", 1000)
    assert budget.collect_garbage()  # every run's end while one is held
    assert budget.collect_garbage()
    assert not budget.collect_garbage(uploads=False)  # a start after a finished run
    assert budget.collect_garbage(uploads=True)  # a start after a stopped run
    registry.release("a#1")
    rss[0] = 0  # memory cannot be read: collect as Streamlit would
    before = len(collections)
    assert budget.collect_garbage()
    assert budget.collect_garbage()
    assert len(collections) == before + 2


def test_a_cycle_holding_a_table_is_freed_by_the_next_run_that_collects():
    class Node:
        pass

    node = Node()
    node.self, node.table = node, np.zeros(1_000_000)
    alive = weakref.ref(node)
    budget.REGISTRY.store("cycle#1")["x"] = 1
    budget.REGISTRY.set_size("cycle#1", 1)
    try:
        del node
        gc.disable()  # no automatic collection may beat the run to it
        assert alive() is not None
        assert budget.collect_garbage()
        assert alive() is None
    finally:
        gc.enable()
        budget.REGISTRY.release("cycle#1")


def test_limit_comes_from_the_environment(monkeypatch):
    monkeypatch.delenv(budget.ENV_VAR, raising=False)
    assert budget.budget_bytes() == 1024 * MB  # the documented default: 1 GB
    monkeypatch.setenv(budget.ENV_VAR, "300")
    assert budget.budget_bytes() == 300 * MB
    monkeypatch.setenv(budget.ENV_VAR, "lots")
    assert budget.budget_bytes() == 1024 * MB


def test_session_end_releases_its_uploads():
    registry = budget.Registry(limit=10**9)
    frame = _frame(10_000, 3)
    alive = weakref.ref(frame)
    registry.store("gone#1", "gone")["upload"] = frame
    registry.set_size("gone#1", budget.nbytes(frame))
    registry.store("here#2", "here")["upload"] = _frame(10, 4)
    registry.set_size("here#2", 10)
    del frame
    assert registry.sweep({"here"}) == ["gone#1"]
    gc.collect()
    assert alive() is None
    assert registry.usage() == {"here#2": 10}
    assert registry.touch("gone#1") is False  # ended, not dropped: no message to show


def test_active_sessions_come_from_the_session_manager(monkeypatch):
    from streamlit.runtime import Runtime

    infos = [SimpleNamespace(session=SimpleNamespace(id=i)) for i in ("s1", "s2")]
    fake = SimpleNamespace(_session_mgr=SimpleNamespace(list_active_sessions=lambda: infos))
    monkeypatch.setattr(Runtime, "exists", classmethod(lambda cls: True))
    monkeypatch.setattr(Runtime, "instance", classmethod(lambda cls: fake))
    assert budget.active_session_ids() == {"s1", "s2"}
    monkeypatch.setattr(Runtime, "exists", classmethod(lambda cls: False))
    assert budget.active_session_ids() is None


def test_sweeping_on_a_server_closes_the_sessions_that_ended(monkeypatch):
    from streamlit.runtime import Runtime

    registry = budget.Registry(limit=10**9)
    monkeypatch.setattr(budget, "REGISTRY", registry)
    for key in ("left#1", "here#2"):
        registry.store(key, key.split("#")[0])["upload"] = _frame(10, 5)
        registry.set_size(key, 100)
    closed = []
    fake = SimpleNamespace(clear_user_info_for_session=closed.append)
    monkeypatch.setattr(Runtime, "instance", classmethod(lambda cls: fake))
    monkeypatch.setattr(budget, "active_session_ids", lambda: {"here"})
    monkeypatch.setenv(budget.RECONNECT_ENV, "0")  # gone at once (a server waits a minute)
    assert budget.sweep_ended() == ["left#1"]
    assert closed == ["left"]  # Streamlit shuts it down now: its state goes too
    assert registry.usage() == {"here#2": 100}


# --- two sessions of the app -------------------------------------------------------------------


@pytest.fixture
def small_budget(monkeypatch):
    """A registry of its own, room for about one 20k-row upload with its arrays."""
    registry = budget.Registry(limit=int(1.6 * MB))
    monkeypatch.setattr(budget, "REGISTRY", registry)
    return registry


def _rows_caption(at: AppTest) -> str:
    return next(c.value for c in at.sidebar.caption if " rows, " in c.value)


def test_over_budget_the_oldest_session_is_asked_to_upload_again(small_budget):
    old, new = (
        AppTest.from_file(APP, default_timeout=60),
        AppTest.from_file(APP, default_timeout=60),
    )
    old.run()
    new.run()
    upload_frame(old, _frame(20_000, 5), "old.csv")
    assert not old.exception
    assert _rows_caption(old).startswith("20,000 rows")
    assert sum(small_budget.usage().values()) > 0.8 * MB  # the table and its arrays count

    upload_frame(new, _frame(20_000, 6), "new.csv")  # over budget: the old upload goes
    assert not new.exception
    assert _rows_caption(new).startswith("20,000 rows")

    old.run()  # the old session's next rerun
    assert not old.exception
    warnings = [w.value for w in old.warning]
    assert budget.MESSAGE in warnings
    assert "Showing the sample dataset" in " ".join(c.value for c in old.sidebar.caption)
    assert old.metric  # the pages still show numbers (of the sample dataset)
    old.run()  # the message stays until a new upload
    assert budget.MESSAGE in [w.value for w in old.warning]

    new.run()  # the newest keeps its numbers
    assert not new.exception
    assert budget.MESSAGE not in [w.value for w in new.warning]
    assert _rows_caption(new).startswith("20,000 rows")
    assert new.metric

    upload_frame(old, _frame(20_000, 7), "again.csv")  # uploading again works, and says no more
    assert not old.exception
    assert budget.MESSAGE not in [w.value for w in old.warning]
    assert _rows_caption(old).startswith("20,000 rows")


def test_a_browser_away_for_a_moment_keeps_its_upload():
    # A busy server can miss a heartbeat: the session comes back, its table must still be there.
    registry = budget.Registry(limit=10 * budget.MB)
    registry.store("s#1", "s")["upload"] = _frame(10, 3)
    registry.set_size("s#1", 1000)
    assert registry.sweep(set(), grace=60, now=100.0) == []  # away from t = 100
    assert registry.sweep(set(), grace=60, now=150.0) == []
    assert registry.sweep({"s"}, grace=60, now=155.0) == []  # back: no longer away
    assert registry.sweep(set(), grace=60, now=200.0) == []  # away again from t = 200
    assert registry.sweep(set(), grace=60, now=259.0) == []
    assert registry.sweep(set(), grace=60, now=260.0) == ["s#1"]  # a minute gone: released
    assert registry.usage() == {}


def test_the_reconnect_grace_comes_from_the_environment(monkeypatch):
    monkeypatch.setenv(budget.RECONNECT_ENV, "5")
    assert budget.reconnect_seconds() == 5.0
    monkeypatch.setenv(budget.RECONNECT_ENV, "soon")
    assert budget.reconnect_seconds() == budget.DEFAULT_RECONNECT_SECONDS
    monkeypatch.delenv(budget.RECONNECT_ENV)
    assert budget.reconnect_seconds() == budget.DEFAULT_RECONNECT_SECONDS

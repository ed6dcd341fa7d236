"""DeLong's and Obuchowski's sums from one stream (metrics.sql._stream.PlacementSums).

``delong`` and ``summarize_with_delong`` on DuckDB take every model's placements from one stream
of the rows: sorted by the model with many distinct scores (its placements from its runs of equal
scores, a run possibly spanning batches), the other models' joined from their per-score tables,
and each user's sums counted in numpy. The reducer is checked on its own against placements
counted pair by pair, fed the rows cut anywhere; the engine is checked against the joins it
replaces (``FUSE = "never"``: the same integers, so the same intervals) and against the numpy
library, on generated tables with ties, every score tied, one user, one class per user, text
user ids, the smallest batches and sorted streams cut into parts.
"""

from __future__ import annotations

import itertools
import os
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import metrics
from metrics.sql import _engine, _engines, _stream, delong, summarize_with_delong
from metrics.sql._stream import PlacementSums, exact_dot, exact_sum
from tests.strategies import examples
from tests.test_sql_stream import _cuts, assert_same, rows


def twice_placements(y: np.ndarray, s: np.ndarray) -> np.ndarray:
    """Each row's twice-placement, pair by pair: a positive's negatives below (ties one half),
    a negative's positives above (ties one half), doubled."""
    pos, neg = s[y == 1], s[y == 0]
    out = np.empty(y.size, np.int64)
    for i, (label, v) in enumerate(zip(y, s, strict=True)):
        if label == 1:
            out[i] = 2 * np.sum(neg < v) + np.sum(neg == v)
        else:
            out[i] = 2 * np.sum(pos > v) + np.sum(pos == v)
    return out


def reference(y, scores, g):
    """(sums, products, clusters) as the engine's joins define them, in Python integers."""
    a = [[int(v) for v in twice_placements(y, s)] for s in scores]
    width = len(scores)
    sums = {c: [sum(a[i][r] for r in range(y.size) if y[r] == c) for i in range(width)]
            for c in (0, 1)}  # fmt: skip
    products = {c: {(i, j): sum(a[i][r] * a[j][r] for r in range(y.size) if y[r] == c)
                    for i in range(width) for j in range(i, width)} for c in (0, 1)}  # fmt: skip
    vectors = {}
    for u in np.unique(g):
        rows_u = np.flatnonzero(g == u)
        v = {"m": int(np.sum(y[rows_u])), "n": int(np.sum(1 - y[rows_u]))}
        for i in range(width):
            v[f"p{i}"] = sum(a[i][r] for r in rows_u if y[r] == 1)
        for i in range(width):
            v[f"q{i}"] = sum(a[i][r] for r in rows_u if y[r] == 0)
        vectors[u] = v
    names = ["m", "n", *(f"p{i}" for i in range(width)), *(f"q{i}" for i in range(width))]
    clustered = {(p, q): sum(v[p] * v[q] for v in vectors.values())
                 for i, p in enumerate(names) for q in names[i:]}  # fmt: skip
    counts = (len(vectors), sum(v["m"] > 0 for v in vectors.values()),
              sum(v["n"] > 0 for v in vectors.values()))  # fmt: skip
    return sums, products, (*counts, clustered)


@settings(max_examples=examples(150), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), r=rows(), ranked=st.sampled_from([None, 0, 1]),
       flush=st.sampled_from([1, 3, 1 << 22]))  # fmt: skip
def test_placement_sums_cut_anywhere_equal_pair_counting(data, r, ranked, flush):
    y, s, g = r
    y = y.astype(np.int64)
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1), label="seed"))
    scores = [s, np.round(s + rng.random(s.size), 1), rng.integers(0, 3, s.size).astype(float)]
    if ranked is not None:  # the stream in the ranked model's order, descending
        order = np.argsort(-scores[ranked], kind="stable")
        y, g, scores = y[order], g[order], [v[order] for v in scores]
    users, slot = np.unique(g, return_inverse=True)
    want_sums, want_products, want_clusters = reference(y, scores, g)
    placed = {i: twice_placements(y, v) for i, v in enumerate(scores) if i != ranked}
    old = _stream._FLUSH
    _stream._FLUSH = flush  # per-user buffers counted every few rows; a long run as counts
    try:
        sums = PlacementSums(int(y.sum()), int((1 - y).sum()), 3, ranked, users.size)
        for a, b in itertools.pairwise(_cuts(data.draw, y.size)):
            sums.add(y[a:b], {i: v[a:b] for i, v in placed.items()},
                     None if ranked is None else scores[ranked][a:b], slot[a:b])  # fmt: skip
        sums.finish()
    finally:
        _stream._FLUSH = old
    assert sums.rows == y.size
    assert sums.sums == want_sums
    assert sums.products == want_products
    assert sums.clusters() == want_clusters


def test_exact_sums_and_dots_past_int64():
    rng = np.random.default_rng(3)
    x = rng.integers(0, 2**62, 5000, dtype=np.int64)
    assert exact_sum(x) == sum(int(v) for v in x)
    a = rng.integers(0, 2**63 - 1, 3000, dtype=np.int64)
    b = rng.integers(0, 2**40, 3000, dtype=np.int64)
    assert exact_dot(a, b) == sum(int(p) * int(q) for p, q in zip(a, b, strict=True))
    assert exact_dot(a[:0], b[:0]) == 0


def _quiet(fn, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*args, **kwargs)


def _same_sums(got, want) -> None:
    assert got.models == want.models
    assert (got.n_pos, got.n_neg) == (want.n_pos, want.n_neg)
    assert got.sums == want.sums
    assert got.products == want.products
    assert got.clusters == want.clusters


@settings(max_examples=examples(25), deadline=None, suppress_health_check=[HealthCheck.too_slow,
          HealthCheck.function_scoped_fixture])  # fmt: skip
@given(r=rows(max_size=300), data=st.data(), cap=st.sampled_from([1, 40, 2_000_000]),
       text=st.booleans(), parts=st.sampled_from([None, 7, 100]),
       batch=st.sampled_from([1, 1 << 20]))  # fmt: skip
def test_the_fused_pass_gives_the_joins_integers_and_numpys_figures(
    tmp_path_factory, monkeypatch, r, data, cap, text, parts, batch
):
    y, s, g = r
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1), label="seed"))
    t = pd.DataFrame({"y": y.astype(int), "a": s, "b": np.round(s + rng.random(s.size), 1),
                      "user": np.char.add("u", g.astype(str)) if text else g + 10})  # fmt: skip
    path = str(tmp_path_factory.mktemp("fused") / "t.parquet")
    t.to_parquet(path)
    monkeypatch.setattr(_engines, "STREAM_BATCH", batch)  # 1: DuckDB's smallest batches
    monkeypatch.setattr(_engine, "PART_ROWS", parts)  # sorted streams cut into parts
    summary, fused = summarize_with_delong(path, "y", ["a", "b"], group="user", cap=cap)
    alone = delong(path, "y", ["a", "b"], group="user")
    monkeypatch.setattr(_engine, "FUSE", "never")
    monkeypatch.setattr(_engine, "PART_ROWS", None)
    want_summary, want = summarize_with_delong(path, "y", ["a", "b"], group="user", cap=cap)
    _same_sums(fused, want)
    _same_sums(alone, want)
    assert_same(summary, want_summary, exact_sums=False)
    # ... and the numpy library on the rows: the same intervals and test
    yy, a, b, users = t["y"].to_numpy(), t["a"].to_numpy(), t["b"].to_numpy(), t["user"]
    got = _quiet(fused.clustered, "a", "b", small_sample=True)
    ref = _quiet(metrics.clustered_auc_test, yy, a, b, groups=users.to_numpy(),
                 small_sample=True)  # fmt: skip
    for f in ("auc_a", "auc_b", "difference", "std_error", "p_value", "ci_low", "ci_high"):
        g_, w_ = getattr(got, f), getattr(ref, f)
        assert (np.isnan(g_) and np.isnan(w_)) or g_ == pytest.approx(w_, rel=1e-9, abs=1e-12), f
    test = _quiet(fused.test, "a", "b")
    ref = _quiet(metrics.delong_test, yy, a, b)
    for f in ("difference", "std_error", "p_value"):
        g_, w_ = getattr(test, f), getattr(ref, f)
        assert (np.isnan(g_) and np.isnan(w_)) or g_ == pytest.approx(w_, rel=1e-9, abs=1e-12), f
    assert summary.models["a"].auc == metrics.roc_auc_score(yy, a)
    assert summary.models["b"].auc == metrics.roc_auc_score(yy, b)


def _table(tmp_path, n=3000, users=300, seed=1):
    rng = np.random.default_rng(seed)
    y = (rng.random(n) < 0.3).astype(int)
    t = pd.DataFrame({"y": y, "a": rng.random(n) + 0.3 * y, "b": np.round(rng.random(n), 2),
                      "c": rng.random(n), "user": rng.integers(0, users, n)})  # fmt: skip
    path = str(tmp_path / "t.parquet")
    t.to_parquet(path)
    return path


def test_the_fused_pass_is_what_runs_at_the_default_settings(tmp_path, monkeypatch):
    """A continuous score above the cap is sorted once for its summary and every model's
    placements; the rounded one's placements are joined from its per-score table."""
    path = _table(tmp_path)
    said: list[str] = []
    summary, fused = summarize_with_delong(path, "y", ["a", "b"], group="user", cap=1000,
                                           progress=said.append)  # fmt: skip
    assert any(line.startswith("a: one sort of the scores") and "DeLong placements" in line
               for line in said)  # fmt: skip
    assert not any(line.startswith("b: one sort") for line in said)
    assert not any(line.endswith(": placements") for line in said)  # no joins
    monkeypatch.setattr(_engine, "FUSE", "never")
    joined: list[str] = []
    want_summary, want = summarize_with_delong(path, "y", ["a", "b"], group="user", cap=1000,
                                               progress=joined.append)  # fmt: skip
    assert any(line.endswith(": placements") for line in joined)
    _same_sums(fused, want)
    assert_same(summary, want_summary, exact_sums=False)


def test_two_models_past_the_cap_and_spark_style_settings_join_as_before(tmp_path, monkeypatch):
    """Two continuous models cannot share one sort: the joins run, with the same integers."""
    path = _table(tmp_path, seed=2)
    said: list[str] = []
    _, got = summarize_with_delong(path, "y", ["a", "c", "b"], group="user", cap=100,
                                   progress=said.append)  # fmt: skip
    assert any(line.endswith(": placements") for line in said)
    monkeypatch.setattr(_engine, "FUSE", "never")
    _, want = summarize_with_delong(path, "y", ["a", "c", "b"], group="user", cap=100)
    _same_sums(got, want)


def test_users_past_the_slots_join_as_before(tmp_path, monkeypatch):
    path = _table(tmp_path, seed=4)
    monkeypatch.setattr(_engine, "SLOTS", 10)  # fewer slots than users
    said: list[str] = []
    _, got = summarize_with_delong(path, "y", ["a", "b"], group="user", cap=100,
                                   progress=said.append)  # fmt: skip
    assert any(line.endswith(": placements") for line in said)
    monkeypatch.setattr(_engine, "FUSE", "never")
    _, want = summarize_with_delong(path, "y", ["a", "b"], group="user", cap=100)
    _same_sums(got, want)


def test_without_a_group_the_fused_pass_gives_delongs_test(tmp_path, monkeypatch):
    path = _table(tmp_path, seed=6)
    _, got = summarize_with_delong(path, "y", ["a", "b"], cap=100)
    assert got.clusters is None
    monkeypatch.setattr(_engine, "FUSE", "never")
    _, want = summarize_with_delong(path, "y", ["a", "b"], cap=100)
    _same_sums(got, want)
    t = pd.read_parquet(path)
    ref = metrics.delong_test(t["y"].to_numpy(), t["a"].to_numpy(), t["b"].to_numpy())
    assert got.test("a", "b").p_value == pytest.approx(ref.p_value, rel=1e-12)


def test_sorted_streams_are_cut_into_as_few_parts_as_the_spill_disk_holds(monkeypatch, tmp_path):
    """One sort spilled is cheaper than parts that each read the source again, so a stream is
    cut only when its spill would take more than DISK_SHARE of the disk DuckDB spills to."""
    eng = _engine.DuckDBEngine()
    gb = 2**30
    for free, n, want in [(40 * gb, 10**9, 2), (100 * gb, 10**9, 1), (40 * gb, 10**8, 1),
                             (1 * gb, 10**9, 53), (0, 10, 10)]:  # fmt: skip
        monkeypatch.setattr(_engine, "free_bytes", lambda _path, free=free: free)
        assert _engine._parts(eng, n) == want, (free, n)
    monkeypatch.undo()
    # the spill directory does not exist until DuckDB spills: its parent's file system counts
    assert not os.path.exists(eng.spill)
    spill_disk, parent = (
        _engine.free_bytes(eng.spill),
        _engine.free_bytes(os.path.dirname(eng.spill)),
    )
    assert spill_disk > 0
    assert abs(spill_disk - parent) < gb  # the same file system (other tests write beside us)
    assert _engine.free_bytes(str(tmp_path / "a" / "b")) > 0

"""The sorted streams of metrics.sql (metrics.sql._stream): the same numbers as the GROUP BY path.

A continuous score is sorted once by DuckDB and its runs reduced in numpy, and GAUC comes from
one sort per user and score; both are cut into batches, and a run of equal scores, or a user,
may span batches. The reducers are checked on their own, fed the same rows cut anywhere, against
the tables the merge code builds (:class:`UserScoreTable`, :func:`table_areas`), and the engine
is checked both ways (``STREAM = "always"`` against ``"never"``) on generated tables with ties,
one class per user, one user, text ids, states and caps that keep or drop every table.
"""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import metrics
from metrics.average_precision import ap_breakdown
from metrics.sql import _engine, _engines, summarize
from metrics.sql._state import UserScoreTable, table_areas
from metrics.sql._stream import ScoreRuns, UserRuns
from metrics.sql._summary import ScoreTable
from tests.strategies import examples


@st.composite
def rows(draw, max_size: int = 80):
    """(y, s, g): labels with both classes, scores with ties (or none), user ids."""
    n = draw(st.integers(2, max_size))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    y = rng.random(n) < draw(st.sampled_from([0.1, 0.5, 0.9]))
    y[0], y[1] = True, False
    kind = draw(st.sampled_from(["continuous", "ties", "one score", "few"]))
    if kind == "continuous":
        s = rng.random(n)
    elif kind == "ties":
        s = np.round(rng.random(n), 1)
    elif kind == "one score":
        s = np.full(n, 0.5)
    else:
        s = rng.integers(-2, 3, n).astype(float)
    users = draw(st.sampled_from([1, 2, 5, n]))
    g = rng.integers(0, users, n)
    return y, s, g


def _cuts(draw, n: int) -> list[int]:
    cuts = sorted(set(draw(st.lists(st.integers(1, max(1, n - 1)), max_size=6))))
    return [0, *[c for c in cuts if 0 < c < n], n]


@settings(max_examples=examples(150), deadline=None)
@given(data=st.data(), r=rows(), cap=st.sampled_from([1, 3, 1000]))
def test_score_runs_cut_anywhere_equal_the_table(data, r, cap):
    y, s, _ = r
    order = np.argsort(-s, kind="stable")
    s, y = s[order], y[order].astype(np.int32)
    bins = data.draw(st.sampled_from([1, 4, 100]), label="bins")
    runs = ScoreRuns(int((y == 0).sum()), cap, bins, float(s.min()), float(s.max()))
    cuts = _cuts(data.draw, s.size)
    for a, b in itertools.pairwise(cuts):
        runs.add(s[a:b], y[a:b])
    runs.finish()
    values, inverse = np.unique(-s, return_inverse=True)
    pos = np.bincount(inverse, weights=y).astype(np.int64)
    neg = np.bincount(inverse, weights=1 - y).astype(np.int64)
    want = ScoreTable(-values, pos, neg)
    assert runs.distinct == values.size
    assert runs.twice_u == table_areas(want, False)[2]
    step = ap_breakdown(np.cumsum(pos), np.cumsum(neg), "step").value
    assert runs.ap_sum / y.sum() == pytest.approx(step, abs=1e-12)
    table = runs.table()
    if values.size <= cap:
        for got, w in zip(table, (want.scores, want.pos, want.neg), strict=True):
            np.testing.assert_array_equal(got, w)
    else:
        assert table is None
    # the binned table as q.binned computes it, row by row
    lo, hi = s.min(), s.max()
    width = hi - lo if hi > lo else 1.0
    k = np.floor((s - lo) / width * float(bins)).astype(np.int64)
    keys = np.unique(k)
    got = ScoreTable.from_unsorted(*runs.binned())
    ref = ScoreTable.from_unsorted(
        [s[k == b].min() for b in keys],
        [int(y[k == b].sum()) for b in keys],
        [int((1 - y[k == b]).sum()) for b in keys],
    )
    for c in ("scores", "pos", "neg"):
        np.testing.assert_array_equal(getattr(got, c), getattr(ref, c))


@settings(max_examples=examples(150), deadline=None)
@given(data=st.data(), r=rows(), cap=st.sampled_from([1, 4, 1000]), text=st.booleans())
def test_user_runs_cut_anywhere_equal_the_per_user_table(data, r, cap, text):
    y, s, g = r
    if text:
        g = np.array([f"u{v}" for v in g], dtype=object)
    order = np.lexsort((-s, g))
    y, s, g = y[order].astype(np.int32), s[order], g[order]
    runs = UserRuns(cap, pairs=True)
    cuts = _cuts(data.draw, s.size)
    for a, b in itertools.pairwise(cuts):
        runs.add(g[a:b], s[a:b], y[a:b])
    runs.finish()
    ones = np.ones(y.size, np.int64)
    pairs = UserScoreTable.combine([(g, s, ones, y, 1 - y)], False)
    users = pairs.users()
    assert runs.users == users.group.size
    got = runs.pair_table()
    if pairs.group.size <= cap:
        got = UserScoreTable.combine([got], False)
        for c in ("group", "scores", "rows", "pos", "neg"):
            np.testing.assert_array_equal(getattr(got, c), getattr(pairs, c))
    else:
        assert got is None
    table = runs.user_table()
    if users.group.size <= cap:
        from metrics.sql._state import UserTable

        t = UserTable.from_unsorted(*table, False)
        for c in ("group", "rows", "pos", "neg", "twice_u"):
            np.testing.assert_array_equal(getattr(t, c), getattr(users, c))
    else:
        assert table is None
    ga = users.group_auc()
    assert runs.used == int(ga.defined.sum())
    assert runs.skipped == {r: int(np.count_nonzero(ga.reason == r)) for r in
                            ("only positives", "only negatives", "zero weight")}  # fmt: skip
    for w, value in runs.gauc().items():
        if ga.defined.any():
            assert value == pytest.approx(float(ga.score(w)), abs=1e-12)
        else:
            assert value is None


FIELDS = ("n_pos", "n_neg", "twice_u", "auc", "distinct_scores", "bin_error", "groups_used",
          "groups_skipped", "groups_skipped_by")  # fmt: skip


def _both(path, cap, state, monkeypatch, **kw):
    out = {}
    for way in ("never", "always"):
        monkeypatch.setattr(_engine, "STREAM", way)
        monkeypatch.setattr(_engines, "STREAM_BATCH", 1)  # DuckDB's smallest batches
        out[way] = summarize(str(path), "y", ["a", "b"], cap=cap, state=state, **kw)
    return out["never"], out["always"]


def assert_same(got, want, exact_sums: bool) -> None:
    for name, w in want.models.items():
        g = got.models[name]
        for f in FIELDS:
            assert getattr(g, f) == getattr(w, f), (name, f)
        # Sums of doubles: the same bits from the tables (finish), else to rounding.
        if exact_sums or w.table is not None:
            assert g.average_precision == w.average_precision
        else:
            assert g.average_precision == pytest.approx(w.average_precision, abs=1e-12)
        if w.gauc_by is not None and (exact_sums or w.groups is not None):
            assert g.gauc_by == w.gauc_by
        elif w.gauc_by is not None:
            assert g.gauc_by == pytest.approx(w.gauc_by, abs=1e-12)
        for kind in ("table", "binned"):
            a, b = getattr(g, kind), getattr(w, kind)
            assert (a is None) == (b is None), kind
            if a is not None:
                for c in ("scores", "pos", "neg"):
                    np.testing.assert_array_equal(getattr(a, c), getattr(b, c))
        for kind, cols in (("groups", ("group", "rows", "positives", "negatives", "auc", "reason")),
                           ("user_scores", ("group", "scores", "rows", "pos", "neg"))):  # fmt: skip
            a, b = getattr(g, kind), getattr(w, kind)
            assert (a is None) == (b is None), kind
            if a is not None:
                for c in cols:
                    np.testing.assert_array_equal(getattr(a, c), getattr(b, c))


@settings(max_examples=examples(25), deadline=None, suppress_health_check=[HealthCheck.too_slow,
          HealthCheck.function_scoped_fixture])  # fmt: skip
@given(r=rows(max_size=300), r2=st.data(), cap=st.sampled_from([2, 40, 2_000_000]),
       state=st.booleans(), text=st.booleans(), hold=st.sampled_from([None, 1]))  # fmt: skip
def test_the_engine_streams_give_the_grouped_numbers(tmp_path_factory, monkeypatch, r, r2, cap,
                                                     state, text, hold):  # fmt: skip
    y, s, g = r
    if hold is not None:  # a user longer than this: the other model sorted on its own
        monkeypatch.setattr(_engine, "HOLD_ROWS", hold)
    rng = np.random.default_rng(r2.draw(st.integers(0, 2**32 - 1), label="seed"))
    t = pd.DataFrame({"y": y.astype(int), "a": s, "b": np.round(s + rng.random(s.size), 1),
                      "user": np.char.add("u", g.astype(str)) if text else g})  # fmt: skip
    path = tmp_path_factory.mktemp("stream") / "t.parquet"
    t.to_parquet(path)
    want, got = _both(path, cap, state, monkeypatch, group="user")
    assert_same(got, want, exact_sums=False)
    # ... and the numpy library on the rows
    for name in ("a", "b"):
        col = t[name].to_numpy()
        assert got.models[name].auc == metrics.roc_auc_score(y, col)
        assert got.models[name].average_precision == pytest.approx(
            metrics.average_precision_score(y, col), abs=1e-12
        )


def test_a_weighted_table_and_a_float_user_id_keep_the_grouped_path(tmp_path, monkeypatch):
    rng = np.random.default_rng(5)
    n = 500
    t = pd.DataFrame({"y": (rng.random(n) < 0.4).astype(int), "a": rng.random(n),
                      "b": np.round(rng.random(n), 1), "w": rng.random(n) * 2,
                      "user": rng.integers(0, 30, n).astype(float)})  # fmt: skip
    t.loc[::7, "w"] = 0.0
    path = tmp_path / "t.parquet"
    t.to_parquet(path)
    want, got = _both(path, 10, False, monkeypatch, group="user", weight="w")
    # Both ran the SQL; DuckDB's parallel SUM of doubles differs in the last bit run to run.
    assert_same(got, want, exact_sums=False)
    want, got = _both(path, 10, False, monkeypatch, group="user")
    assert_same(got, want, exact_sums=False)


def test_the_stream_is_what_runs_at_the_default_settings(tmp_path, monkeypatch):
    """A continuous score above the cap is sorted, not grouped; a rounded one is grouped."""
    rng = np.random.default_rng(1)
    n = 3000
    t = pd.DataFrame({"y": (rng.random(n) < 0.3).astype(int), "a": rng.random(n),
                      "b": np.round(rng.random(n), 2), "user": rng.integers(0, 300, n)})  # fmt: skip
    path = tmp_path / "t.parquet"
    t.to_parquet(path)
    said: list[str] = []
    s = summarize(str(path), "y", ["a", "b"], group="user", cap=1000, progress=said.append)
    assert any(line.startswith("a: one sort of the scores") for line in said)
    assert not any(line.startswith("b: one sort of the scores") for line in said)
    assert s.models["a"].binned is not None
    assert s.models["b"].table is not None
    monkeypatch.setattr(_engine, "STREAM", "never")
    want = summarize(str(path), "y", ["a", "b"], group="user", cap=1000)
    assert_same(s, want, exact_sums=False)

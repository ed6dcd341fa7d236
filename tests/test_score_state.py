"""The per-score state pages read: made from rows or by an engine, it gives the same answers as
the rows themselves (ui.tables.score_state)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as hs

import metrics
from metrics.sql import summarize
from tests.strategies import binary_tables, examples
from ui.tables import score_state
from ui.tables.roles import default_threshold, infer_scale


def _weighted(table, s):
    """The rows the state stands for: those of positive weight (weight 0 changes no metric)."""
    if table.weights is None:
        return table.y, s, None
    keep = table.weights > 0
    return table.y[keep], s[keep], table.weights[keep]


@settings(max_examples=examples(150), deadline=None)
@given(table=binary_tables(weights=True), name=hs.sampled_from(["score", "rank", "pct"]))
def test_rows_state_answers_as_the_rows_do(table, name):
    for s in table.scores:
        state = score_state.from_rows(table.y, s, table.weights)
        y, s_kept, w = _weighted(table, s)
        got, want = state.scale(name), infer_scale(s_kept, name)
        assert got.kind == want.kind
        if not np.any((s_kept == 0) & np.signbit(s_kept)):  # -0 and 0 are one distinct score
            assert got.reason == want.reason
        for kind in ("margin", "rank", "probability", "percent"):
            assert state.default_threshold(kind) == default_threshold(kind, y, s_kept, w)
        assert state.auc == metrics.roc_auc_score(table.y, s, sample_weight=table.weights)
        for max_fpr in (0.05, 0.3, 0.5, 1.0):
            want = metrics.roc_auc_score(table.y, s, sample_weight=table.weights, max_fpr=max_fpr)
            assert state.partial_auc(max_fpr) == want or (
                np.isnan(want) and np.isnan(state.partial_auc(max_fpr))
            )
        scores, pos, neg = state.runs()
        assert np.all(np.diff(scores) < 0)
        assert pos.sum() == pytest.approx(state.counts.n_pos)
        assert neg.sum() == pytest.approx(state.counts.n_neg)


def _tables():
    rng = np.random.default_rng(7)
    out = {}
    y = np.r_[np.ones(40, bool), np.zeros(40, bool)]  # equal class counts
    out["balanced, tied"] = (y, np.round(rng.normal(size=80) + y, 1))
    y = np.r_[np.ones(1, bool), np.zeros(30, bool)]  # one row of a class
    out["one positive"] = (y, rng.normal(size=31))
    y = rng.random(200) < 0.2
    out["ranks"] = (y, rng.integers(0, 12, 200).astype(float))
    out["all tied"] = (np.r_[np.ones(5, bool), np.zeros(7, bool)], np.full(12, 0.25))
    return out


@pytest.mark.parametrize("case", list(_tables()))
def test_engine_state_equals_the_rows_state(tmp_path, case):
    y, s = _tables()[case]
    path = tmp_path / "t.parquet"
    pd.DataFrame({"label": y.astype(int), "model": s}).to_parquet(path)
    engine = score_state.from_summary(summarize(str(path), "label", ["model"]).models["model"])
    rows = score_state.from_rows(y, s, None)
    np.testing.assert_array_equal(engine.counts.thresholds, rows.counts.thresholds)
    np.testing.assert_array_equal(engine.counts.tps, rows.counts.tps)
    np.testing.assert_array_equal(engine.counts.fps, rows.counts.fps)
    assert engine.exact
    assert engine.auc == rows.auc
    assert engine.ap == pytest.approx(rows.ap, rel=1e-15)
    assert engine.scale("model") == rows.scale("model")
    for kind in ("margin", "rank"):
        assert engine.default_threshold(kind) == rows.default_threshold(kind)
    for max_fpr in (0.1, 0.5):
        assert engine.partial_auc(max_fpr) == rows.partial_auc(max_fpr)


def test_a_server_dataset_hands_the_pages_the_engines_state(tmp_path):
    """The pages' counts on a server dataset are the engine's own, not a sort of rows."""
    from ui.compute import data, server_source

    y, s = _tables()["balanced, tied"]
    path = tmp_path / "t.parquet"
    pd.DataFrame({"label": y.astype(int), "model": s}).to_parquet(path)
    summary = summarize(str(path), "label", ["model"])
    ds = server_source.model_dataset(
        server_source.ServerTable(summary=summary), "model", "server:test"
    )
    state = data.state(ds, "model")
    assert state is ds.states["model"]
    want = summary.models["model"].table.counts()
    np.testing.assert_array_equal(data.threshold_counts(ds.key, "model", ds).tps, want.tps)
    assert data.areas(ds.key, "model", ds) == {
        "auc": summary.models["model"].auc,
        "ap": summary.models["model"].average_precision,
    }

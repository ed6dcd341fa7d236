"""Obuchowski's clustered AUC variance from the engine's sums (metrics.sql.delong with a group)
equals metrics.clustered_auc_test on the rows: generated tables with clusters of one row, two
clusters, many, clusters of one class, ties, one row of a class."""

from __future__ import annotations

import math
import tempfile
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import metrics
from metrics.sql import delong
from tests.strategies import binary_tables, examples

FIELDS = ("auc_a", "std_error_a", "ci_low_a", "ci_high_a", "auc_b", "std_error_b",
          "difference", "std_error", "z", "p_value", "ci_low", "ci_high", "df")  # fmt: skip
COUNTS = ("n_pos", "n_neg", "n_groups", "n_groups_pos", "n_groups_neg")


def _quiet(fn, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*args, **kwargs)


def _assert_same(got, want) -> None:
    for f in COUNTS:
        assert getattr(got, f) == getattr(want, f), f
    for f in FIELDS:
        g, w = getattr(got, f), getattr(want, f)
        if w is None:
            assert g is None, f
        else:
            # The engine's sums are exact integers and its variance is evaluated in fractions;
            # the rows' deviations are floats: they agree to rounding.
            assert g == pytest.approx(w, rel=1e-9, abs=1e-12, nan_ok=True), f


@settings(max_examples=examples(30), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(binary_tables(max_size=90, max_models=3, groups=True), st.booleans())
def test_engine_sums_give_the_rows_clustered_test(t, small_sample):
    names = [f"s{k}" for k in range(len(t.scores))]
    frame = pd.DataFrame(
        {"y": t.y.astype(int), "g": t.groups, **dict(zip(names, t.scores, strict=True))}
    )
    with tempfile.TemporaryDirectory() as tmp:
        path = str(Path(tmp) / "t.parquet")
        frame.to_parquet(path)
        s = _quiet(delong, path, "y", names, group="g")
    for k, name in enumerate(names):
        want = _quiet(metrics.clustered_auc_test, t.y, t.scores[k], groups=t.groups,
                      small_sample=small_sample)  # fmt: skip
        _assert_same(_quiet(s.clustered, name, small_sample=small_sample), want)
    if len(names) > 1:
        want = _quiet(metrics.clustered_auc_test, t.y, t.scores[0], t.scores[-1],
                      groups=t.groups, small_sample=small_sample)  # fmt: skip
        got = _quiet(s.clustered, names[0], names[-1], small_sample=small_sample)
        _assert_same(got, want)


def test_clusters_of_one_row_give_delongs_test(tmp_path):
    rng = np.random.default_rng(2)
    y = rng.integers(0, 2, 300)
    a, b = np.round(rng.random(300) + 0.4 * y, 2), np.round(rng.random(300) + 0.2 * y, 1)
    path = str(tmp_path / "t.parquet")
    pd.DataFrame({"y": y, "a": a, "b": b, "g": np.arange(300)}).to_parquet(path)
    s = delong(path, "y", ["a", "b"], group="g")
    got, want = s.clustered("a", "b"), s.test("a", "b")
    assert got.std_error == pytest.approx(want.std_error, rel=1e-12)
    assert got.p_value == pytest.approx(want.p_value, rel=1e-9)
    assert got.std_error_a == pytest.approx(s.interval("a").std_error, rel=1e-12)


def test_a_user_whose_rows_move_together_widens_the_interval(tmp_path):
    """Forty users whose rows share a user effect: the clustered standard error is wider than
    DeLong's row-level one, as it must be (the point of the group column)."""
    rng = np.random.default_rng(0)
    g = rng.integers(0, 40, 2000)
    u = rng.normal(size=40)[g]
    y = (rng.random(2000) < 1 / (1 + np.exp(-u))).astype(int)
    a = np.round(0.8 * y + 0.5 * u + rng.normal(size=2000), 2)
    path = str(tmp_path / "t.parquet")
    pd.DataFrame({"y": y, "a": a, "g": g}).to_parquet(path)
    s = delong(path, "y", ["a"], group="g")
    assert s.clustered("a").std_error_a > 1.2 * s.interval("a").std_error


def test_positives_in_one_cluster_leave_the_variance_undefined(tmp_path):
    path = str(tmp_path / "t.parquet")
    pd.DataFrame(
        {"y": [1, 1, 0, 0, 0], "a": [0.9, 0.4, 0.5, 0.1, 0.2], "g": [7, 7, 7, 8, 9]}
    ).to_parquet(path)
    s = _quiet(delong, path, "y", ["a"], group="g")
    got = _quiet(s.clustered, "a")
    assert got.auc_a == pytest.approx(5 / 6)
    assert math.isnan(got.std_error_a)
    assert got.n_groups_pos == 1


def test_without_a_group_the_summary_says_how_to_get_the_sums(tmp_path):
    path = str(tmp_path / "t.parquet")
    pd.DataFrame({"y": [1, 0, 1, 0], "a": [0.9, 0.4, 0.5, 0.1]}).to_parquet(path)
    s = delong(path, "y", ["a"])
    with pytest.raises(ValueError, match="group="):
        s.clustered("a")

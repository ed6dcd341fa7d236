"""States that merge: the ``--out`` file of metrics.sql adds up across days and shards.

Rows are split into shards, each shard's state is computed by DuckDB, and the states are merged
in a generated order and grouping (a random binary tree, some nodes written to a file and read
back): every metric must be BIT-IDENTICAL to one pass over all the rows, users split across
shards included, and equal to the numpy library. What a state cannot give is refused.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import metrics
from metrics.sql import StateError, delong, load_summary, merge, summarize
from metrics.sql._state import STATE_FORMAT, UserScoreTable, UserTable
from tests.strategies import binary_tables, examples

ROOT = Path(__file__).resolve().parent.parent
MODELS = ["a", "b"]


def _frame(y, scores, users) -> pd.DataFrame:
    t = pd.DataFrame({"y": np.asarray(y, int), "user": users})
    for name, s in zip(MODELS, scores, strict=False):
        t[name] = s
    return t


def _shards(rng: np.random.Generator, y: np.ndarray, k: int) -> np.ndarray:
    """A shard per row, each of the ``k`` shards holding both classes."""
    shard = rng.integers(0, k, y.size)
    shard[np.flatnonzero(y)[:k]] = np.arange(k)
    shard[np.flatnonzero(~y)[:k]] = np.arange(k)
    return shard


def _state(t: pd.DataFrame, path: Path, cap: int = 2_000_000):
    t.to_parquet(path)
    models = [m for m in MODELS if m in t]
    return summarize(str(path), "y", models, group="user", state=True, cap=cap)


def _tree(draw, items: list, tmp: Path, counter: list):
    """Merge ``items`` along a drawn binary tree; some nodes go through a file and back."""
    if len(items) == 1:
        node = items[0]
    else:
        cut = draw(st.integers(1, len(items) - 1))
        node = merge(
            [_tree(draw, items[:cut], tmp, counter), _tree(draw, items[cut:], tmp, counter)]
        )
    if draw(st.booleans()):
        counter[0] += 1
        node = load_summary(node.save(tmp / f"node{counter[0]}.npz"))
    return node


def assert_same_metrics(got, want) -> None:
    """Every metric, table and interval of two states, bit for bit."""
    assert (got.rows, got.dropped, list(got.models)) == (want.rows, want.dropped, list(want.models))
    for name, w in want.models.items():
        g = got.models[name]
        for f in ("n_pos", "n_neg", "twice_u", "auc", "average_precision", "distinct_scores",
                  "gauc", "gauc_by", "groups_used", "groups_skipped", "groups_skipped_by"):  # fmt: skip
            assert getattr(g, f) == getattr(w, f), (name, f)
        for method in metrics.AP_METHODS:
            assert g.ap(method) == w.ap(method), method
        for c in ("scores", "pos", "neg"):
            np.testing.assert_array_equal(getattr(g.table, c), getattr(w.table, c))
        for c in ("group", "rows", "positives", "negatives", "auc", "reason"):
            np.testing.assert_array_equal(getattr(g.groups, c), getattr(w.groups, c))
        for c in ("group", "scores", "rows", "pos", "neg"):
            np.testing.assert_array_equal(getattr(g.user_scores, c), getattr(w.user_scores, c))
        for got_curve, want_curve in zip(g.roc_curve(), w.roc_curve(), strict=True):
            np.testing.assert_array_equal(got_curve, want_curve)
        assert _fields(g.auc_interval()) == _fields(w.auc_interval())
        assert _fields(g.clustered_interval()) == _fields(w.clustered_interval())


def _fields(r) -> dict:
    """The fields of a result, NaN as None (NaN is not equal to itself)."""
    return {k: None if isinstance(v, float) and np.isnan(v) else v for k, v in vars(r).items()}


@settings(max_examples=examples(20), deadline=None, suppress_health_check=[HealthCheck.too_slow,
          HealthCheck.function_scoped_fixture])  # fmt: skip
@given(data=st.data(), b=binary_tables(max_size=65, max_models=2, groups=True))
def test_any_grouping_and_order_of_shards_is_one_pass(tmp_path_factory, data, b):
    tmp = tmp_path_factory.mktemp("merge")
    k_max = min(4, int(b.y.sum()), int((~b.y).sum()))
    k = data.draw(st.integers(1, k_max), label="shards")
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1), label="seed"))
    users = (
        b.groups
        if data.draw(st.booleans(), label="int users")
        else np.char.add("u", b.groups.astype(str))
    )
    t = _frame(b.y, b.scores, users)
    shard = _shards(rng, b.y, k)
    one = _state(t, tmp / "all.parquet")
    parts = [_state(t[shard == i], tmp / f"s{i}.parquet") for i in range(k)]
    order = data.draw(st.permutations(range(k)), label="order")
    merged = _tree(data.draw, [parts[i] for i in order], tmp, [0])
    assert_same_metrics(merged, one)
    # ... and the numpy library on the rows (its AP and GAUC sum in another order: 1e-12).
    for name in one.models:
        s = t[name].to_numpy()
        assert merged.models[name].auc == metrics.roc_auc_score(b.y, s)
        assert merged.models[name].average_precision == pytest.approx(
            metrics.average_precision_score(b.y, s), abs=1e-12
        )
        want = metrics.group_auc_table(b.y, s, users)
        got = merged.models[name].groups
        np.testing.assert_array_equal(got.auc, want.auc)
        np.testing.assert_array_equal(got.rows, want.rows)
        if want.defined.any():
            assert merged.models[name].gauc == pytest.approx(
                metrics.group_auc_score(b.y, s, users), abs=1e-12
            )


def _clicks(n: int = 3000, seed: int = 0, users: int = 120) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    y = (rng.random(n) < 0.3).astype(int)
    u = rng.integers(0, users, n)
    skill = rng.normal(size=users)[u]  # rows of one user move together
    return pd.DataFrame(
        {
            "y": y,
            "user": u,
            "a": np.round(rng.normal(size=n) + y + skill, 1),
            "b": np.round(rng.normal(size=n) + 0.5 * y, 2),
            "day": rng.integers(0, 3, n),
        }
    )


def test_intervals_from_a_merged_state_equal_the_rows(tmp_path):
    t = _clicks()
    days = [_state(d.drop(columns="day"), tmp_path / f"d{i}.parquet") for i, d in t.groupby("day")]
    week = merge(days)
    t.to_parquet(tmp_path / "all.parquet")
    rows = delong(str(tmp_path / "all.parquet"), "y", MODELS, group="user")
    for name in MODELS:
        m = week.models[name]
        # Obuchowski's clustered interval: equal to the engine's pass over the rows, bit for bit
        assert _fields(m.clustered_interval()) == _fields(rows.clustered(name, small_sample=True))
        want = metrics.clustered_auc_test(t.y, t[name], groups=t.user, small_sample=True)
        assert m.clustered_interval().std_error_a == pytest.approx(want.std_error_a, rel=1e-12)
        # DeLong's (rows independent) from the per-score counts, as the library's
        iv, ref = m.auc_interval(), metrics.roc_auc_ci(t.y, t[name])
        assert iv.auc == ref.auc
        assert iv.std_error == pytest.approx(ref.std_error, rel=1e-12)
    with pytest.raises(StateError, match="needs every row's placement under both models"):
        week.delong_test("a", "b")


def test_users_over_the_cap_keep_sums_that_merge_only_when_disjoint(tmp_path):
    t = _clicks(n=2000, users=40)
    t["a"] = np.round(t["a"], 0)
    pairs = t.groupby(["user", "a"]).ngroups
    cap = max(t["a"].nunique(), 40) + 1
    assert pairs > cap  # the per-(user, score) table is over the cap: per-user sums only
    low, high = t[t.user < 20], t[t.user >= 20]
    one = _state(t[["y", "user", "a"]], tmp_path / "all.parquet", cap=cap)
    a = _state(low[["y", "user", "a"]], tmp_path / "low.parquet", cap=cap)
    b = _state(high[["y", "user", "a"]], tmp_path / "high.parquet", cap=cap)
    assert a.models["a"].user_scores is None
    assert a.models["a"].users is not None
    both = merge([load_summary(b.save(tmp_path / "b.npz")), a])
    m, w = both.models["a"], one.models["a"]
    assert (m.auc, m.gauc, m.gauc_by) == (w.auc, w.gauc, w.gauc_by)
    np.testing.assert_array_equal(m.groups.auc, w.groups.auc)
    with pytest.raises(StateError, match="Obuchowski's clustered interval needs each user's"):
        m.clustered_interval()
    days = [_state(d[["y", "user", "a"]], tmp_path / f"d{i}.parquet", cap=cap)
            for i, d in t.groupby("day")]  # fmt: skip
    with pytest.raises(StateError, match=r"user '?\d+'? is in state 1 .* and state 2"):
        merge(days[:2])


def test_states_that_cannot_merge_are_refused_with_a_sentence(tmp_path):
    t = _clicks(n=600)
    base = _state(t[["y", "user", "a"]], tmp_path / "t.parquet")
    other = summarize(str(tmp_path / "t.parquet"), "y", ["a"], state=True)  # no user column
    with pytest.raises(StateError, match="differ in their group"):
        merge([base, other])
    plain = summarize(str(tmp_path / "t.parquet"), "y", ["a"], group="user")
    with pytest.raises(StateError, match="a summary without its state"):
        merge([base, plain])
    v1 = plain.save(tmp_path / "v1.npz")
    with pytest.raises(StateError, match=r"v1\.npz is a summary without its state"):
        merge([base, v1])
    binned = summarize(str(tmp_path / "t.parquet"), "y", ["a"], group="user", state=True, cap=3)
    with pytest.raises(StateError, match="score ranges, which do not merge exactly"):
        merge([binned, binned])
    with pytest.raises(StateError, match="at least one state"):
        merge([])


def test_the_state_file_says_what_it_holds_and_stays_small(tmp_path):
    t = _clicks(n=5000, users=300)
    s = _state(t[["y", "user", "a", "b"]], tmp_path / "t.parquet")
    path = s.save(tmp_path / "s.npz")
    with np.load(path) as data:
        header = json.loads(bytes(data["header"]).decode())
        sizes = {k: data[k].size for k in data.files if k != "header"}
    assert header["format"] == STATE_FORMAT
    for i, name in enumerate(["a", "b"]):
        assert sizes[f"{i}_table_scores"] == t[name].nunique()
        assert sizes[f"{i}_pairs_group"] == t.groupby(["user", name]).ngroups
        assert f"{i}_users_group" not in sizes  # derived from the pairs
    back = load_summary(path)
    assert back.state
    assert_same_metrics(back, s)


def _rewrite(src: Path, dst: Path, change: dict) -> Path:
    with np.load(src) as data:
        arrays = {k: data[k] for k in data.files}
    arrays.update(change)
    np.savez(dst, **arrays)
    return dst


def test_a_crafted_state_is_refused_with_a_sentence(tmp_path):
    t = _clicks(n=500)
    good = _state(t[["y", "user", "a"]], tmp_path / "t.parquet").save(tmp_path / "good.npz")
    with np.load(good) as data:
        group, scores, pos = data["0_pairs_group"], data["0_pairs_scores"], data["0_pairs_pos"]
    cases = {
        "not sorted": ({"0_pairs_scores": scores[::-1].copy()}, "is not sorted"),
        "negative": ({"0_pairs_pos": -pos}, "negative counts"),
        "unknown": ({"0_pairs_evil": pos}, "unknown array"),
        "object": ({"0_pairs_group": group.astype(object)}, "not a summary"),
        "2-d": ({"0_pairs_rows": np.ones((2, 2))}, "0_pairs_rows"),
        "short": ({"0_pairs_rows": np.ones(2, np.int64)}, "differ in length"),
        "counts off": ({"0_pairs_pos": pos + 1}, "do not add up"),
    }
    for case, (change, message) in cases.items():
        bad = _rewrite(good, tmp_path / f"{case}.npz", change)
        with pytest.raises(ValueError, match=message) as e:
            load_summary(bad)
        assert "\n" not in str(e.value), case


def test_tables_merge_by_hand():
    """The two reductions, on a case worked out on paper."""
    u = UserScoreTable.combine(
        [(np.array([2, 1, 1]), np.array([0.5, 0.9, 0.1]), [1, 1, 1], [1, 1, 0], [0, 0, 1]),
         (np.array([1, 2]), np.array([0.1, 0.5]), [2, 1], [0, 0], [2, 1])],
        weighted=False,
    )  # fmt: skip
    assert u.group.tolist() == [1, 1, 2]
    assert u.scores.tolist() == [0.9, 0.1, 0.5]
    assert (u.rows.tolist(), u.pos.tolist(), u.neg.tolist()) == ([1, 3, 2], [1, 0, 1], [0, 3, 1])
    users = u.users()
    assert isinstance(users, UserTable)
    # user 1: the positive at 0.9 above 3 negatives at 0.1: 2U = 1 * (2 * 3 + 0) = 6;
    # user 2: one positive and one negative tied at 0.5: 2U = 1 * (0 + 1) = 1.
    assert users.twice_u.tolist() == [6, 1]
    assert users.group_auc().auc.tolist() == [1.0, 0.5]


def _cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "metrics.sql", *args], cwd=ROOT, capture_output=True, text=True,
        timeout=300, env={**os.environ, "PYTHONPATH": str(ROOT)},
    )  # fmt: skip


@pytest.mark.slow  # starts the command (or a JVM): not in make test-fast
def test_cli_merge_of_daily_states(tmp_path):
    t = _clicks(n=2000)
    base = ["--label", "y", "--score", "a", "--score", "b", "--group", "user"]
    (tmp_path / "days").mkdir()
    for i, d in t.groupby("day"):
        d.to_parquet(tmp_path / f"d{i}.parquet")
        r = _cli(
            str(tmp_path / f"d{i}.parquet"), *base, "--out", str(tmp_path / "days" / f"{i}.npz")
        )
        assert r.returncode == 0, r.stderr
    t.to_parquet(tmp_path / "all.parquet")
    one = _cli(str(tmp_path / "all.parquet"), *base, "--json")
    r = _cli("merge", str(tmp_path / "days" / "*.npz"), "--out", str(tmp_path / "week.npz"),
             "--json", "--delong")  # fmt: skip
    assert r.returncode == 0, r.stderr
    got = json.loads(r.stdout)
    tests = got.pop("delong")
    assert got == json.loads(one.stdout)  # bit-identical figures
    assert tests["test"] == "obuchowski"
    assert "needs every row's placement under both models" in tests["pairs_refused"]
    want = metrics.clustered_auc_test(t.y, t.a, groups=t.user, small_sample=True)
    assert tests["models"]["a"]["std_error"] == pytest.approx(want.std_error_a, rel=1e-12)
    assert load_summary(tmp_path / "week.npz").rows == len(t)
    # Bad input: one line, exit 2.
    r = _cli("merge", str(tmp_path / "days" / "0.npz"), str(tmp_path / "all.parquet"))
    assert r.returncode == 2
    assert len(r.stderr.splitlines()) == 1, r.stderr
    assert "all.parquet is not a summary written by metrics.sql --out" in r.stderr
    r = _cli("merge", str(tmp_path / "days" / "0.npz"), "--out", str(tmp_path / "week.npz"))
    assert r.returncode == 2
    assert "exists: pass --force" in r.stderr
    r = _cli("merge", str(tmp_path / "days" / "0.npz"), "--out", str(tmp_path / "days" / "0.npz"),
             "--force")  # fmt: skip
    assert r.returncode == 2
    assert "is an input file" in r.stderr


def test_the_dashboard_opens_a_merged_state_as_a_summary(tmp_path, monkeypatch):
    from streamlit.testing.v1 import AppTest

    from tests.apptest_utils import APP

    t = _clicks(n=2400)
    root = tmp_path / "data"
    root.mkdir()
    days = [_state(d.drop(columns="day"), tmp_path / f"d{i}.parquet") for i, d in t.groupby("day")]
    merge(days).save(root / "week.npz")
    monkeypatch.setenv("METRICS_LENS_DATA_DIR", str(root))
    at = AppTest.from_file(APP, default_timeout=120)
    at.run()
    at.segmented_control(key="source").set_value("Server dataset").run()
    at.selectbox(key="server_file").set_value("week.npz").run()
    assert not at.exception, at.exception
    assert not at.error, [e.value for e in at.error]
    engine = next(d.value for d in at.dataframe if "GAUC" in d.value.columns)
    row = engine.set_index("model").loc["b"]
    assert row["AUC"] == metrics.roc_auc_score(t.y, t.b)
    assert row["GAUC"] == pytest.approx(metrics.group_auc_score(t.y, t.b, t.user), abs=1e-12)
    at.switch_page("pages/gauc.py").run()
    assert not at.exception, at.exception
    cards = {m.label: m.value for m in at.metric}
    assert cards["GAUC (impressions)"] == f"{metrics.group_auc_score(t.y, t.a, t.user):.4f}"

"""GAUC page builders without Streamlit: what they send equals the library's numbers."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

import metrics
from ui.figures import gauc_charts as gc


def ref_pair_auc(y, s):
    """Pair counting, ties one half: the definition seed 004 starts from."""
    pos, neg = s[y], s[~y]
    return ((pos[:, None] > neg[None, :]).sum() + 0.5 * (pos[:, None] == neg[None, :]).sum()) / (
        pos.size * neg.size
    )


@pytest.fixture(scope="module")
def clicks():
    """Users with different click rates and activity, some single-class, scores with ties."""
    rng = np.random.default_rng(7)
    n_users = 120
    sizes = rng.integers(1, 60, size=n_users)
    rate = rng.beta(1, 6, size=n_users)
    groups = np.repeat(np.array([f"u{i:03d}" for i in range(n_users)]), sizes)
    codes = np.repeat(np.arange(n_users), sizes)
    y = rng.random(codes.size) < rate[codes]
    s = np.round(rng.normal(size=codes.size) + y + 2 * rate[codes], 2)
    perm = rng.permutation(codes.size)
    return y[perm], s[perm], groups[perm]


def test_weighting_sources_are_stated_as_specified():
    assert list(gc.WEIGHTING_LABELS) == list(metrics.WEIGHTINGS)
    assert gc.WEIGHTING_USED_BY == {
        "impressions": "as many CTR papers' code computes group AUC",
        "positives": "as RecBole does",
        "uniform": "as DIN's code and TorchRec do",
    }


@pytest.mark.parametrize("weighting", metrics.WEIGHTINGS)
def test_gauc_value_is_the_library_score(clicks, weighting):
    y, s, g = clicks
    table = metrics.group_auc_table(y, s, g)
    assert gc.gauc_value(table, weighting) == metrics.group_auc_score(y, s, g, weighting=weighting)


def test_gauc_value_is_nan_without_a_warning_when_every_user_has_one_class():
    table = metrics.group_auc_table([1, 1, 0, 0], [0.2, 0.4, 0.1, 0.3], ["a", "a", "b", "b"])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert np.isnan(gc.gauc_value(table, "impressions"))


def test_skipped_counts_give_the_reasons():
    table = metrics.group_auc_table(
        [0, 1, 1, 1, 0, 0, 0], [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7], list("aabbccc")
    )
    assert gc.skipped_counts(table) == {"only positives": 1, "only negatives": 1}
    assert table.n_skipped == 2


@pytest.mark.parametrize("weighting", metrics.WEIGHTINGS)
def test_model_summary_equals_the_library(clicks, weighting):
    y, s, g = clicks
    other = s[::-1].copy()
    results = {
        name: (metrics.roc_auc_score(y, sc), metrics.group_auc_table(y, sc, g))
        for name, sc in (("good", s), ("noise", other))
    }
    frame = gc.model_summary_frame(results, weighting)
    assert frame["model"].tolist() == ["good", "noise"]
    for name, sc in (("good", s), ("noise", other)):
        row = frame.set_index("model").loc[name]
        gauc = metrics.group_auc_score(y, sc, g, weighting=weighting)
        assert row["global AUC"] == metrics.roc_auc_score(y, sc)
        assert row["GAUC"] == gauc
        assert row["GAUC − AUC"] == gauc - metrics.roc_auc_score(y, sc)
        table = metrics.group_auc_table(y, sc, g)
        assert row["users counted"] == table.defined.sum()
        assert row["skipped: only positives"] == (table.reason == "only positives").sum()
        assert row["skipped: only negatives"] == (table.reason == "only negatives").sum()
    assert "skipped: zero weight" not in frame.columns


def test_model_summary_counts_zero_weight_users_when_there_are_some():
    y, s, g = [0, 1, 0, 1], [0.1, 0.9, 0.2, 0.8], ["a", "a", "b", "b"]
    table = metrics.group_auc_table(y, s, g, sample_weight=[1, 1, 0, 0])
    frame = gc.model_summary_frame({"m": (1.0, table)}, "impressions")
    assert frame["skipped: zero weight"].tolist() == [1]


@pytest.mark.parametrize("weighting", metrics.WEIGHTINGS)
def test_user_frame_is_the_group_auc_table(clicks, weighting):
    y, s, g = clicks
    table = metrics.group_auc_table(y, s, g)
    frame = gc.user_frame(table, weighting, group_name="user_id")
    assert list(frame.columns) == [
        "user_id", "rows", "positives", "negatives", "AUC", "skipped because", "weight",
        "share of weight",
    ]  # fmt: skip
    assert len(frame) == len(table)
    np.testing.assert_array_equal(frame["user_id"], table.group)
    np.testing.assert_array_equal(frame["rows"], table.rows)
    np.testing.assert_array_equal(frame["positives"], table.positives)
    np.testing.assert_array_equal(frame["AUC"], table.auc)
    np.testing.assert_array_equal(frame["skipped because"], table.reason)
    np.testing.assert_array_equal(frame["weight"], table.weights(weighting))
    assert frame["share of weight"].sum() == pytest.approx(1.0)
    assert (frame.loc[frame["skipped because"] != "", "weight"] == 0).all()
    # The weighted mean of the table's AUCs is the GAUC.
    counted = frame[frame["skipped because"] == ""]
    assert np.dot(counted["share of weight"], counted["AUC"]) == pytest.approx(
        metrics.group_auc_score(y, s, g, weighting=weighting), rel=1e-12
    )
    # A user's AUC is the pair-counting AUC of its rows.
    first = counted.iloc[0]
    mine = g == first["user_id"]
    assert first["AUC"] == pytest.approx(ref_pair_auc(y[mine], s[mine]), abs=1e-15)


def test_pair_counts_within_users_and_overall(clicks):
    y, s, g = clicks
    table = metrics.group_auc_table(y, s, g)
    within, every = gc.pair_counts(table)
    expected_within = sum(int(y[g == u].sum()) * int((~y[g == u]).sum()) for u in np.unique(g))
    assert within == expected_within
    assert every == y.sum() * (~y).sum()


# --- histogram --------------------------------------------------------------------------------


def test_histogram_bins_the_counted_users_and_marks_both_aucs(clicks):
    y, s, g = clicks
    table = metrics.group_auc_table(y, s, g)
    gauc = metrics.group_auc_score(y, s, g, weighting="positives")
    global_auc = metrics.roc_auc_score(y, s)
    fig = gc.auc_histogram_figure(table, "positives", gauc=gauc, global_auc=global_auc, bins=10)
    bars = [t for t in fig.data if t.type == "bar"]
    assert len(bars) == 1
    assert len(bars[0].x) == 10
    expected, _ = np.histogram(table.auc[table.defined], bins=np.linspace(0, 1, 11))
    assert list(bars[0].y) == expected.tolist()
    assert sum(bars[0].y) == table.defined.sum()
    share = np.asarray(bars[0].customdata)[:, 2]
    assert share.sum() == pytest.approx(1.0)
    lines = {t.name: t for t in fig.data if t.type == "scatter"}
    assert set(lines) == {f"GAUC (positives) {gauc:.4f}", f"global AUC {global_auc:.4f}"}
    assert list(lines[f"GAUC (positives) {gauc:.4f}"].x) == [gauc, gauc]
    assert list(lines[f"global AUC {global_auc:.4f}"].x) == [global_auc, global_auc]
    assert fig.layout.xaxis.range == (0, 1)


def test_histogram_sends_one_bar_per_bin_whatever_the_number_of_users():
    rng = np.random.default_rng(1)
    n_users = 50_000
    g = np.repeat(np.arange(n_users), 4)
    y = np.tile([True, False, True, False], n_users)
    s = rng.random(g.size)
    table = metrics.group_auc_table(y, s, g)
    fig = gc.auc_histogram_figure(table, "uniform", gauc=0.5, global_auc=0.5)
    sent = sum(len(t.x) for t in fig.data)
    assert sent == 20 + 2 + 2
    assert sum(fig.data[0].y) == n_users


def test_histogram_leaves_out_an_undefined_line():
    table = metrics.group_auc_table([0, 1], [0.1, 0.9], ["a", "a"])
    fig = gc.auc_histogram_figure(table, "impressions", gauc=1.0, global_auc=float("nan"))
    assert [t.type for t in fig.data] == ["bar", "scatter"]


# --- the offset experiment --------------------------------------------------------------------


def test_click_rate_offsets_follow_the_formula(clicks):
    y, s, g = clicks
    table = metrics.group_auc_table(y, s, g)
    off = gc.user_offsets(table, g, s, "click_rate")
    rate = table.positives / table.rows
    overall = y.mean()
    assert off.overall_rate == pytest.approx(overall)
    assert off.k == pytest.approx(np.std(s) / np.std(rate))
    np.testing.assert_allclose(off.per_user, (rate - overall) * off.k, rtol=0, atol=1e-12)
    # Every row of a user gets that user's offset.
    for i in (0, 5, 77):
        np.testing.assert_array_equal(off.per_row[g == table.group[i]], off.per_user[i])


def test_random_offsets_are_seeded_and_per_user(clicks):
    y, s, g = clicks
    table = metrics.group_auc_table(y, s, g)
    a = gc.user_offsets(table, g, s, "random")
    b = gc.user_offsets(table, g, s, "random")
    np.testing.assert_array_equal(a.per_row, b.per_row)
    assert a.k == pytest.approx(np.std(s))
    assert np.unique(a.per_row).size == len(table)


def test_offsets_reject_unknown_mode_and_other_groups(clicks):
    y, s, g = clicks
    table = metrics.group_auc_table(y, s, g)
    with pytest.raises(ValueError, match="mode must be one of click_rate, random; got 'x'"):
        gc.user_offsets(table, g, s, "x")
    with pytest.raises(ValueError, match="groups do not match"):
        gc.user_offsets(table, np.full(g.size, "someone"), s, "random")


@pytest.mark.parametrize("mode", list(gc.OFFSET_MODES))
@pytest.mark.parametrize("weighting", metrics.WEIGHTINGS)
def test_per_user_offsets_move_global_auc_and_leave_gauc_exactly_equal(clicks, mode, weighting):
    y, s, g = clicks
    table = metrics.group_auc_table(y, s, g)
    off = gc.user_offsets(table, g, s, mode)
    strengths = np.array([-2.0, -0.5, 0.0, 0.75, 2.0])
    sweep = gc.offset_sweep(y, s, g, off.per_row, strengths, weighting=weighting)
    assert sweep["strength"].tolist() == strengths.tolist()
    gauc = metrics.group_auc_score(y, s, g, weighting=weighting)
    assert (sweep["GAUC"] == gauc).all()  # within-user order unchanged: exactly equal
    for strength, value in zip(strengths, sweep["global AUC"], strict=True):
        assert value == metrics.roc_auc_score(y, s + strength * off.per_row)
    assert sweep["global AUC"].iloc[2] == metrics.roc_auc_score(y, s)
    assert sweep["global AUC"].nunique() > 1
    # Integer user codes give the same numbers as the ids, without sorting the ids again.
    np.testing.assert_array_equal(off.codes, np.unique(g, return_inverse=True)[1])
    by_code = gc.offset_sweep(y, s, off.codes, off.per_row, strengths, weighting=weighting)
    pd.testing.assert_frame_equal(by_code, sweep)


def test_offset_sweep_with_sample_weights_uses_them(clicks):
    y, s, g = clicks
    w = np.random.default_rng(3).integers(1, 4, size=y.size).astype(float)
    table = metrics.group_auc_table(y, s, g, sample_weight=w)
    off = gc.user_offsets(table, g, s, "click_rate")
    sweep = gc.offset_sweep(y, s, g, off.per_row, [1.0], weighting="impressions", sample_weight=w)
    assert sweep["GAUC"].iloc[0] == pytest.approx(
        metrics.group_auc_score(y, s, g, sample_weight=w), rel=1e-12
    )
    assert sweep["global AUC"].iloc[0] == metrics.roc_auc_score(y, s + off.per_row, sample_weight=w)


def test_sweep_figure_draws_both_curves_and_the_current_strength():
    sweep = pd.DataFrame(
        {"strength": [-1.0, 0.0, 1.0], "global AUC": [0.6, 0.7, 0.75], "GAUC": [0.8] * 3}
    )
    fig = gc.offset_sweep_figure(sweep, strength=0.5)
    assert [t.name for t in fig.data] == ["global AUC", "GAUC"]
    assert list(fig.data[0].x) == [-1.0, 0.0, 1.0]
    assert list(fig.data[0].y) == [0.6, 0.7, 0.75]
    assert list(fig.data[1].y) == [0.8] * 3
    assert [shape.x0 for shape in fig.layout.shapes] == [0.5]
    low, high = fig.layout.yaxis.range
    assert low < 0.6
    assert high > 0.8


# --- seed 004 ---------------------------------------------------------------------------------


def seed004_gauc(labels, scores, users):
    """Seed 004's cal_group_auc as a plain loop (without its round): skip users whose labels
    are all equal, weight each user's pair-counting AUC by its number of rows."""
    total = impressions = 0.0
    for user in dict.fromkeys(users):
        mine = users == user
        if labels[mine].all() or not labels[mine].any():
            continue
        total += ref_pair_auc(labels[mine], scores[mine]) * mine.sum()
        impressions += mine.sum()
    return total / impressions


def test_seed004_gauc_skips_the_single_class_user_and_weights_by_impressions():
    # Inline: user "a" AUC 3/4 (4 rows), "b" perfect (2 rows), "c" only non-clicks (skipped).
    y = np.array([0, 0, 1, 1, 1, 0, 0, 0], dtype=bool)
    s = np.array([0.1, 0.4, 0.35, 0.8, 0.3, 0.2, 0.5, 0.6])
    users = np.array(["a", "a", "a", "a", "b", "b", "c", "c"])
    expected = (4 * 0.75 + 2 * 1.0) / (4 + 2)
    assert seed004_gauc(y, s, users) == pytest.approx(expected, abs=1e-15)
    table = metrics.group_auc_table(y, s, users)
    assert table.reason.tolist() == ["", "", "only negatives"]
    assert gc.gauc_value(table, "impressions") == pytest.approx(expected, abs=1e-15)
    assert gc.user_frame(table, "impressions")["weight"].tolist() == [4, 2, 0]


def test_seed004_example_users_reproduce_the_seed_numbers():
    y, s, users = gc.four_users_example()
    table = metrics.group_auc_table(y, s, users)
    assert table.group.tolist() == ["a", "b", "c", "d"]
    assert table.auc[0] == 0.75  # example 1
    assert table.auc[1] == 0.875  # example 2: the tie counts one half
    assert table.auc[2] == pytest.approx(10 / 12, abs=1e-15)  # rank formula with ties
    assert table.reason[3] == "only positives"
    expected = (4 * 0.75 + 4 * 0.875 + 7 * 10 / 12) / 15
    assert table.score("impressions") == pytest.approx(expected, abs=1e-15)
    assert table.score("impressions") == pytest.approx(seed004_gauc(y, s, users), abs=1e-15)
    assert round(table.score("impressions"), 4) == 0.8222

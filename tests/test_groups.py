"""Group AUC (GAUC) against slow per-group references, seed 004's algorithm and scikit-learn."""

from __future__ import annotations

import itertools
import warnings
from collections import defaultdict

import numpy as np
import pandas as pd
import pytest
import sklearn.metrics as skm
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from metrics._validation import UndefinedMetricWarning
from metrics.areas import roc_auc_score
from metrics.groups import WEIGHTINGS, GroupAUC, group_auc_score, group_auc_table
from tests.strategies import examples

# --- slow, obviously correct references ------------------------------------------------------


def ref_pair_auc(y, s, w):
    """Weighted pair counting: (sum of w_i w_j over pairs ranked right + half the ties) / total."""
    num = den = 0.0
    for i, j in itertools.product(np.flatnonzero(y), np.flatnonzero(~y)):
        pair = w[i] * w[j]
        den += pair
        num += pair * (1.0 if s[i] > s[j] else 0.5 if s[i] == s[j] else 0.0)
    return num / den if den > 0 else float("nan")


def ref_table(y, s, groups, w=None):
    """One Python loop over the groups: {group id: (rows, positives, negatives, auc, reason)}."""
    y = np.asarray(y, dtype=bool)
    s = np.asarray(s, dtype=float)
    groups = np.asarray(groups)
    weighted = w is not None
    w = np.ones(y.size) if w is None else np.asarray(w, dtype=float)
    table = {}
    for gid in sorted(set(groups.tolist())):
        m = groups == gid
        yg, sg, wg = y[m], s[m], w[m]
        pos, neg = wg[yg].sum(), wg[~yg].sum()
        if not weighted:
            pos, neg = int(pos), int(neg)
        if pos > 0 and neg > 0:
            reason = ""
        elif pos > 0:
            reason = "only positives"
        elif neg > 0:
            reason = "only negatives"
        else:
            reason = "zero weight"
        auc = ref_pair_auc(yg, sg, wg) if reason == "" else float("nan")
        table[gid] = (int(m.sum()), pos, neg, auc, reason)
    return table


def ref_gauc(y, s, groups, w=None, weighting="impressions"):
    """The weighted mean written as a loop over the reference table."""
    total = weight_sum = 0.0
    for _, pos, neg, auc, reason in ref_table(y, s, groups, w).values():
        if reason:
            continue
        weight = {"impressions": pos + neg, "positives": pos, "uniform": 1.0}[weighting]
        total += weight * auc
        weight_sum += weight
    return total / weight_sum if weight_sum else float("nan")


def seed004_cal_group_auc(labels, preds, user_id_list):
    """Seed 004's ``cal_group_auc`` written plainly, without its final round(..., 4).

    Group rows per user, skip users whose labels are all equal, weight each user's
    scikit-learn AUC by the user's number of rows (impressions).
    """
    group_score = defaultdict(list)
    group_truth = defaultdict(list)
    for user_id, truth, score in zip(user_id_list, labels, preds, strict=True):
        group_score[user_id].append(score)
        group_truth[user_id].append(truth)
    impression_total = 0
    total_auc = 0.0
    for user_id, truths in group_truth.items():
        if len(set(truths)) < 2:  # all positive or all negative: not counted
            continue
        auc = skm.roc_auc_score(np.asarray(truths), np.asarray(group_score[user_id]))
        total_auc += auc * len(truths)
        impression_total += len(truths)
    return total_auc / impression_total


def random_grouped(rng, *, ids="int", ties=True, weights=False, n_groups=None):
    """Rows of a few users of very different sizes (many of one row), some single-class."""
    n_groups = n_groups or int(rng.integers(1, 12))
    sizes = rng.choice([1, 1, 2, 3, 5, 8, 20, 40], size=n_groups)
    n = int(sizes.sum())
    codes = np.repeat(np.arange(n_groups), sizes)
    rng.shuffle(codes)
    rate = rng.choice([0.0, 0.3, 0.5, 1.0], size=n_groups)  # some users single-class
    y = rng.random(n) < rate[codes]
    s = rng.normal(size=n) + y * rng.uniform(0, 1.5)
    if ties:
        s = np.round(s, int(rng.integers(0, 2)))
    w = None
    if weights:
        w = rng.integers(0, 4, size=n) * rng.choice([1.0, 0.37, 2.5])
    labels = {
        "int": rng.permutation(1000)[:n_groups] - 300,
        "str": np.array([f"user{k}" for k in rng.permutation(1000)[:n_groups]]),
        "big": rng.integers(-(2**62), 2**62, size=n_groups),
    }[ids]
    return y.astype(int), s, labels[codes], w


def assert_table_equals_reference(table, ref, *, exact):
    assert table.group.tolist() == list(ref)
    rows, pos, neg, auc, reason = (list(col) for col in zip(*ref.values(), strict=True))
    assert table.rows.tolist() == rows
    assert table.reason.tolist() == reason
    if exact:
        assert table.positives.tolist() == pos
        assert table.negatives.tolist() == neg
    else:
        np.testing.assert_allclose(table.positives, pos, rtol=1e-12)
        np.testing.assert_allclose(table.negatives, neg, rtol=1e-12)
    np.testing.assert_allclose(table.auc, auc, rtol=0, atol=1e-12)  # NaN == NaN here


CASES = [
    (seed, ids, ties, weights)
    for seed in range(60)
    for ids, ties, weights in [
        ("int", True, False),
        ("str", True, True),
        ("big", False, False),
        ("int", False, True),
        ("str", True, False),
    ]
]


# --- against the references ------------------------------------------------------------------


@pytest.mark.parametrize(("seed", "ids", "ties", "weights"), CASES)
def test_table_and_every_weighting_match_slow_reference(seed, ids, ties, weights):
    rng = np.random.default_rng(seed)
    y, s, groups, w = random_grouped(rng, ids=ids, ties=ties, weights=weights)
    table = group_auc_table(y, s, groups, sample_weight=w)
    assert_table_equals_reference(table, ref_table(y, s, groups, w), exact=w is None)
    for weighting in WEIGHTINGS:
        expected = ref_gauc(y, s, groups, w, weighting)
        if np.isnan(expected):
            with pytest.warns(UndefinedMetricWarning, match="group AUC is undefined"):
                got = group_auc_score(y, s, groups, weighting=weighting, sample_weight=w)
            assert np.isnan(got)
        else:
            got = group_auc_score(y, s, groups, weighting=weighting, sample_weight=w)
            assert got == pytest.approx(expected, rel=0, abs=1e-12)
            assert got == table.score(weighting)


@pytest.mark.parametrize("seed", range(150))
def test_matches_seed004_algorithm(seed):
    rng = np.random.default_rng(1000 + seed)
    y, s, groups, _ = random_grouped(rng, ids="str" if seed % 2 else "int")
    # One user with both classes, else seed 004's code divides by zero.
    y = np.append(y, [1, 0])
    s = np.append(s, [0.0, 0.0])
    groups = np.append(groups, [groups[0], groups[0]])
    expected = seed004_cal_group_auc(y.tolist(), s.tolist(), groups.tolist())
    assert group_auc_score(y, s, groups) == pytest.approx(expected, rel=0, abs=1e-12)


@pytest.mark.parametrize(("seed", "weights"), [(seed, w) for seed in range(80) for w in (0, 1)])
def test_per_group_auc_matches_sklearn(seed, weights):
    rng = np.random.default_rng(2000 + seed)
    y, s, groups, w = random_grouped(rng, weights=bool(weights), n_groups=int(rng.integers(3, 30)))
    table = group_auc_table(y, s, groups, sample_weight=w)
    for gid, auc, reason in zip(table.group, table.auc, table.reason, strict=True):
        m = groups == gid
        if reason:
            assert np.isnan(auc)
            continue
        expected = skm.roc_auc_score(y[m], s[m], sample_weight=None if w is None else w[m])
        assert auc == pytest.approx(expected, rel=0, abs=1e-12)


@pytest.mark.parametrize("seed", range(40))
def test_unweighted_group_auc_is_bit_identical_to_roc_auc_score(seed):
    # Both are exact integer Mann-Whitney counts and one correctly rounded division.
    rng = np.random.default_rng(3000 + seed)
    n = 5000
    groups = rng.integers(0, 300, size=n)
    y = rng.random(n) < 0.3
    s = np.round(rng.random(n), int(rng.integers(1, 4)))
    table = group_auc_table(y, s, groups)
    for gid, auc, reason in zip(table.group, table.auc, table.reason, strict=True):
        if not reason:
            m = groups == gid
            assert auc == roc_auc_score(y[m], s[m])


def test_weighted_groups_stay_accurate_after_a_heavy_group():
    # A global running sum of the weights would carry the first group's 1e13 into every later
    # group and round their small sums away (errors of 0.27 in AUC); each group must be as
    # accurate as if it were computed alone.
    rng = np.random.default_rng(7)
    groups = np.concatenate([np.zeros(50, dtype=int), rng.integers(1, 300, size=3000)])
    n = groups.size
    y = rng.random(n) < 0.4
    s = np.round(rng.random(n), 2)
    w = rng.random(n)
    w[:50] *= 1e13
    table = group_auc_table(y, s, groups, sample_weight=w)
    for gid, auc, reason in zip(table.group, table.auc, table.reason, strict=True):
        if not reason:
            m = groups == gid
            expected = skm.roc_auc_score(y[m], s[m], sample_weight=w[m])
            assert auc == pytest.approx(expected, rel=0, abs=1e-12)


def test_large_input_matches_a_loop_of_roc_auc_score():
    rng = np.random.default_rng(11)
    n = 200_000
    groups = rng.integers(0, 20_000, size=n)
    y = rng.random(n) < 0.3
    for s in (rng.random(n), np.round(rng.random(n), 3)):
        table = group_auc_table(y, s, groups)
        order = np.argsort(groups, kind="stable")
        bounds = np.flatnonzero(np.diff(groups[order])) + 1
        expected = []
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UndefinedMetricWarning)
            for rows in np.split(order, bounds):
                expected.append(roc_auc_score(y[rows], s[rows]))
        np.testing.assert_array_equal(table.auc, expected)


# --- seed 004 --------------------------------------------------------------------------------


def test_seed004_example1_single_user_gauc_is_075():
    assert group_auc_score([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8], ["u"] * 4) == 0.75


def test_seed004_example2_tie_counts_half_single_user_gauc_is_0875():
    assert group_auc_score([0, 0, 1, 1], [0.1, 0.4, 0.4, 0.8], ["u"] * 4) == 0.875


def test_seed004_rank_formula_with_ties_single_user_gauc_is_ten_twelfths():
    y = [0, 1, 1, 0, 0, 1, 1]
    s = [0.3, 0.5, 0.5, 0.5, 0.5, 0.7, 0.8]
    assert group_auc_score(y, s, [7] * 7) == pytest.approx(10 / 12, rel=0, abs=1e-15)


def test_seed004_gauc_skips_single_class_users_and_weights_by_impressions():
    # User "a" is example 1 (AUC 3/4, 4 rows), "b" is example 2 (AUC 7/8, 4 rows) with an
    # extra tied user "c" of 3 rows (AUC 1/2), and "d" only clicks: it is not counted.
    y = [0, 0, 1, 1, 0, 0, 1, 1, 1, 0, 0, 1, 1]
    s = [0.1, 0.4, 0.35, 0.8, 0.1, 0.4, 0.4, 0.8, 0.5, 0.5, 0.5, 0.2, 0.9]
    groups = ["a"] * 4 + ["b"] * 4 + ["c"] * 3 + ["d"] * 2
    expected = (0.75 * 4 + 0.875 * 4 + 0.5 * 3) / 11
    assert group_auc_score(y, s, groups) == pytest.approx(expected, rel=0, abs=1e-15)
    assert group_auc_score(y, s, groups) == pytest.approx(
        seed004_cal_group_auc(y, s, groups), rel=0, abs=1e-15
    )
    # The seed rounds its result to 4 decimals.
    assert round(group_auc_score(y, s, groups), 4) == 0.7273
    table = group_auc_table(y, s, groups)
    assert table.reason.tolist() == ["", "", "", "only positives"]
    assert table.n_skipped == 1


# --- weightings and the table ----------------------------------------------------------------


def test_weightings_on_a_fixed_example():
    # a: AUC 3/4 with 4 rows and 2 positives; b: AUC 1/2 with 3 rows and 1 positive.
    y = [0, 0, 1, 1, 1, 0, 0, 0]
    s = [0.1, 0.4, 0.35, 0.8, 0.3, 0.2, 0.6, 0.5]
    groups = ["a", "a", "a", "a", "b", "b", "b", "c"]
    assert group_auc_score(y, s, groups) == pytest.approx((3 + 1.5) / 7)
    assert group_auc_score(y, s, groups, weighting="impressions") == pytest.approx(4.5 / 7)
    assert group_auc_score(y, s, groups, weighting="positives") == pytest.approx(2 / 3)
    assert group_auc_score(y, s, groups, weighting="uniform") == pytest.approx(0.625)


def test_table_fields_dtypes_and_order():
    y = [1, 0, 1, 1, 0, 0]
    s = [0.9, 0.1, 0.5, 0.4, 0.4, 0.3]
    table = group_auc_table(y, s, [30, 30, 10, 10, 10, 20])
    assert isinstance(table, GroupAUC)
    assert len(table) == 3
    assert table.group.tolist() == [10, 20, 30]
    assert table.rows.tolist() == [3, 1, 2]
    assert table.rows.dtype == np.int64
    assert table.positives.tolist() == [2, 0, 1]
    assert table.negatives.tolist() == [1, 1, 1]
    assert table.positives.dtype.kind == "i"
    np.testing.assert_array_equal(table.auc, [0.75, np.nan, 1.0])
    assert table.reason.tolist() == ["", "only negatives", ""]
    assert table.defined.tolist() == [True, False, True]
    assert table.n_skipped == 1
    assert table.weights("impressions").tolist() == [3, 0, 2]
    assert table.weights("positives").tolist() == [2, 0, 1]
    assert table.weights("uniform").tolist() == [1, 0, 1]
    with pytest.raises(AttributeError):
        table.auc = np.zeros(3)  # frozen


def test_weighted_table_reasons_and_float_counts():
    y = [1, 0, 1, 0, 1, 0, 1, 1]
    s = [0.9, 0.1, 0.8, 0.2, 0.7, 0.3, 0.6, 0.5]
    groups = ["both", "both", "pos-weight-0", "pos-weight-0", "all-0", "all-0", "pos", "pos"]
    w = [1.5, 2.0, 0.0, 1.0, 0.0, 0.0, 1.0, 3.0]
    table = group_auc_table(y, s, groups, sample_weight=w)
    assert table.group.tolist() == ["all-0", "both", "pos", "pos-weight-0"]
    assert table.reason.tolist() == ["zero weight", "", "only positives", "only negatives"]
    assert table.positives.dtype == np.float64
    assert table.positives.tolist() == [0.0, 1.5, 4.0, 0.0]
    assert table.negatives.tolist() == [0.0, 2.0, 0.0, 1.0]
    assert table.rows.tolist() == [2, 2, 2, 2]
    assert table.score("impressions") == 1.0


def test_groups_of_one_row_are_skipped():
    table = group_auc_table([1, 0, 1, 0], [0.2, 0.1, 0.9, 0.9], ["x", "y", "z", "z"])
    assert table.reason.tolist() == ["only positives", "only negatives", ""]
    assert table.auc[2] == 0.5


def test_every_group_skipped_gives_nan_and_warning():
    with pytest.warns(UndefinedMetricWarning, match=r"Every one of the 3 groups has only one"):
        assert np.isnan(group_auc_score([1, 0, 1], [0.1, 0.2, 0.3], ["a", "b", "c"]))
    with pytest.warns(UndefinedMetricWarning, match=r"Every one of the 1 group has only one"):
        assert np.isnan(group_auc_score([0, 0], [0.1, 0.2], [5, 5], weighting="uniform"))
    with pytest.warns(UndefinedMetricWarning, match="group AUC is undefined, returning NaN"):
        assert np.isnan(group_auc_score([1, 0], [0.1, 0.2], [5, 5], sample_weight=[1, 0]))


def test_ties_across_a_group_boundary_do_not_mix():
    # Group 1's top score equals group 2's bottom score (0.7), and they are adjacent after the
    # sort: mixed, the positive of 1 and the negative of 2 would tie.
    y = [0, 1, 0, 1]
    s = [0.1, 0.7, 0.7, 0.8]
    table = group_auc_table(y, s, [1, 1, 2, 2])
    assert table.auc.tolist() == [1.0, 1.0]
    table = group_auc_table([1, 0, 1, 0], [0.7, 0.1, 0.8, 0.7], [2, 2, 1, 1])
    assert table.auc.tolist() == [1.0, 1.0]


def test_global_auc_differs_from_gauc_when_users_differ_in_level():
    # Each user's items are ranked perfectly, but user A's scores all sit above user B's:
    # the global AUC punishes B's positive scoring below A's negative, GAUC does not.
    y = [1, 0, 1, 0]
    s = [0.9, 0.8, 0.2, 0.1]
    groups = ["A", "A", "B", "B"]
    assert roc_auc_score(y, s) == 0.75
    assert group_auc_score(y, s, groups) == 1.0


# --- group ids -------------------------------------------------------------------------------


def test_id_types_give_the_same_aucs():
    rng = np.random.default_rng(5)
    n = 300
    codes = rng.integers(0, 20, size=n)
    y = rng.random(n) < 0.4
    s = np.round(rng.random(n), 1)
    expected = group_auc_table(y, s, codes).auc
    for ids in (
        codes.astype(np.int8),
        codes.astype(np.uint16),
        codes.astype(np.uint64) + np.uint64(2**63),  # beyond int64
        codes * 10**15,  # too sparse for the lookup table: np.unique
        codes - 10,
        codes.astype(float) / 2,
        np.array([f"u{c:02d}" for c in codes]),
        np.array([f"u{c:02d}".encode() for c in codes]),
        np.array([f"u{c:02d}" for c in codes], dtype=object),
        pd.Series([f"u{c:02d}" for c in codes]),
        pd.Series(codes).astype("category"),
        (np.datetime64("2024-01-01") + codes).astype("datetime64[D]"),
        codes.tolist(),
        codes.reshape(-1, 1),
    ):
        table = group_auc_table(y, s, ids)
        np.testing.assert_array_equal(table.auc, expected)
        assert len(table.group) == 20


def test_bool_ids_keep_their_type():
    table = group_auc_table([1, 0, 1, 0], [0.9, 0.1, 0.2, 0.8], [True, True, False, False])
    assert table.group.dtype == bool
    assert table.group.tolist() == [False, True]
    assert table.auc.tolist() == [0.0, 1.0]


def test_group_ids_are_returned_as_given():
    table = group_auc_table([1, 0, 1, 0], [0.9, 0.1, 0.2, 0.8], [10**12, 10**12, -5, -5])
    assert table.group.tolist() == [-5, 10**12]
    assert table.group.dtype == np.int64


# --- validation ------------------------------------------------------------------------------


def test_groups_length_must_match():
    with pytest.raises(ValueError, match="groups has 3 rows but y_true has 4; they must be"):
        group_auc_score([0, 1, 0, 1], [0.1, 0.2, 0.3, 0.4], ["a", "a", "b"])


@pytest.mark.parametrize(
    "groups",
    [
        ["a", None, "b", None, "b"],
        [1.0, np.nan, 2.0, np.nan, 2.0],
        pd.Series(["a", None, "b", None, "b"]),
        pd.array([1, None, 2, None, 2], dtype="Int64"),
        np.array(["a", pd.NA, "b", pd.NA, "b"], dtype=object),
        np.array(["2024-01-01", "NaT", "2024-01-02", "NaT", "2024-01-02"], dtype="datetime64[D]"),
    ],
)
def test_missing_group_ids_are_named(groups):
    with pytest.raises(
        ValueError, match=r"groups has 2 missing ids \(None or NaN\) at positions 1, 3; every row"
    ):
        group_auc_score([0, 1, 0, 1, 1], [0.1, 0.2, 0.3, 0.4, 0.5], groups)


def test_many_missing_ids_list_the_first_positions():
    groups = np.array([None] * 8 + ["a", "a"], dtype=object)
    with pytest.raises(ValueError, match=r"8 missing ids .* positions 0, 1, 2, 3, 4, \.\.\."):
        group_auc_score([0, 1] * 5, np.arange(10.0), groups)


def test_bad_weighting_lists_the_options():
    with pytest.raises(
        ValueError,
        match=r"weighting must be one of 'impressions', 'positives', 'uniform'; got 'rows'",
    ):
        group_auc_score([0, 1], [0.1, 0.2], [1, 1], weighting="rows")
    table = group_auc_table([0, 1], [0.1, 0.2], [1, 1])
    with pytest.raises(ValueError, match="weighting must be one of"):
        table.score("clicks")


def test_mixed_id_types_are_refused():
    with pytest.raises(ValueError, match=r"groups mixes ids of types .*\(int, str\)"):
        group_auc_score([0, 1, 0, 1], [0.1, 0.2, 0.3, 0.4], np.array([1, "1", 2, 2], dtype=object))


def test_two_dimensional_groups_are_refused():
    with pytest.raises(ValueError, match=r"groups must be one-dimensional .* shape \(2, 2\)"):
        group_auc_score([0, 1, 0, 1], [0.1, 0.2, 0.3, 0.4], [[1, 1], [2, 2]])


def test_shared_checks_apply():
    with pytest.raises(ValueError, match="y_score has 1 NaN value at position 1"):
        group_auc_score([0, 1], [0.1, np.nan], [1, 1])
    with pytest.raises(ValueError, match="sample_weight has 1 negative value"):
        group_auc_score([0, 1], [0.1, 0.2], [1, 1], sample_weight=[1, -1])
    with pytest.raises(ValueError, match="y_true has 3 distinct values"):
        group_auc_score([0, 1, 2], [0.1, 0.2, 0.3], [1, 1, 1])


def test_string_labels_with_pos_label():
    labels = ["click", "skip", "skip", "click"]
    s = [0.9, 0.1, 0.5, 0.4]
    got = group_auc_score(labels, s, [1, 1, 2, 2], pos_label="click")
    assert got == group_auc_score([1, 0, 0, 1], s, [1, 1, 2, 2]) == 0.5
    # Without pos_label the greater label ("skip") is positive, as in roc_auc_score.
    assert group_auc_score(labels, s, [1, 1, 2, 2]) == 0.5


# --- properties ------------------------------------------------------------------------------

rows = st.lists(
    st.tuples(st.integers(0, 4), st.booleans(), st.integers(0, 12), st.integers(0, 3)),
    min_size=1,
    max_size=60,
)


def as_arrays(data):
    g, y, s, w = (np.array(col) for col in zip(*data, strict=True))
    return g, y, s.astype(float), w.astype(float)


def quiet_score(*args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        return group_auc_score(*args, **kwargs)


@settings(max_examples=examples(200), deadline=None)
@given(rows, st.lists(st.integers(1, 5), min_size=5, max_size=5), st.data())
def test_gauc_invariant_under_per_group_monotone_transforms(data, slopes, draw):
    g, y, s, _ = as_arrays(data)
    # A different increasing map per group: slope, offset and a cube, all exact in float64.
    offsets = draw.draw(st.lists(st.integers(-1000, 1000), min_size=5, max_size=5))
    cube = draw.draw(st.lists(st.booleans(), min_size=5, max_size=5))
    t = s * np.array(slopes)[g] + np.array(offsets)[g]
    t = np.where(np.array(cube)[g], t**3, t)
    before, after = group_auc_table(y, s, g), group_auc_table(y, t, g)
    np.testing.assert_array_equal(before.auc, after.auc)
    for weighting in WEIGHTINGS:
        np.testing.assert_array_equal(
            quiet_score(y, s, g, weighting=weighting), quiet_score(y, t, g, weighting=weighting)
        )


@settings(max_examples=examples(200), deadline=None)
@given(rows, st.randoms(use_true_random=False), st.booleans())
def test_row_permutation_changes_nothing(data, random, weighted):
    g, y, s, w = as_arrays(data)
    perm = np.array(random.sample(range(g.size), g.size))
    w = w if weighted else None
    a = group_auc_table(y, s, g, sample_weight=w)
    b = group_auc_table(y[perm], s[perm], g[perm], sample_weight=None if w is None else w[perm])
    assert a.group.tolist() == b.group.tolist()
    assert a.reason.tolist() == b.reason.tolist()
    if w is None:
        np.testing.assert_array_equal(a.auc, b.auc)
    else:
        np.testing.assert_allclose(a.auc, b.auc, rtol=0, atol=1e-12)


@settings(max_examples=examples(200), deadline=None)
@given(rows, st.booleans())
def test_single_group_gauc_equals_roc_auc_score(data, weighted):
    _, y, s, w = as_arrays(data)
    w = w if weighted else None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        expected = roc_auc_score(y, s, sample_weight=w)
    for weighting in WEIGHTINGS:
        got = quiet_score(y, s, np.zeros(y.size, dtype=int), weighting=weighting, sample_weight=w)
        if np.isnan(expected):
            assert np.isnan(got)
        else:
            # The group's AUC is bit-identical unweighted; the mean w * auc / w may round once.
            assert got == pytest.approx(expected, rel=0, abs=1e-15 if w is None else 1e-12)
    if w is None and not np.isnan(expected):
        assert group_auc_table(y, s, np.zeros(y.size)).auc[0] == expected


@settings(max_examples=examples(200), deadline=None)
@given(rows)
def test_integer_weights_equal_repeated_rows(data):
    g, y, s, w = as_arrays(data)
    repeat = w.astype(int)
    assume(repeat.sum() > 0)
    weighted = group_auc_table(y, s, g, sample_weight=w)
    repeated = group_auc_table(np.repeat(y, repeat), np.repeat(s, repeat), np.repeat(g, repeat))
    kept = np.isin(weighted.group, repeated.group)  # groups of weight 0 vanish when repeated
    assert weighted.group[kept].tolist() == repeated.group.tolist()
    assert weighted.positives[kept].tolist() == repeated.positives.tolist()
    assert weighted.negatives[kept].tolist() == repeated.negatives.tolist()
    np.testing.assert_allclose(weighted.auc[kept], repeated.auc, rtol=0, atol=1e-12)
    assert (weighted.reason[~kept] == "zero weight").all()
    for weighting in WEIGHTINGS:
        a = quiet_score(y, s, g, weighting=weighting, sample_weight=w)
        b = quiet_score(
            np.repeat(y, repeat), np.repeat(s, repeat), np.repeat(g, repeat), weighting=weighting
        )
        assert a == pytest.approx(b, rel=0, abs=1e-12, nan_ok=True)


@settings(max_examples=examples(100), deadline=None)
@given(rows)
def test_flipping_scores_gives_one_minus_auc_per_group(data):
    g, y, s, _ = as_arrays(data)
    a, b = group_auc_table(y, s, g), group_auc_table(y, -s, g)
    np.testing.assert_allclose(a.auc + b.auc, np.where(a.defined, 1.0, np.nan), atol=1e-15)

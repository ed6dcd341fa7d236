"""Ranking metrics against slow references, trec_eval (pytrec_eval) and scikit-learn."""

from __future__ import annotations

import itertools
import math
import warnings
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest
import pytrec_eval
import sklearn.metrics as skm
from hypothesis import given, settings
from hypothesis import strategies as st

import metrics.ranking as ranking
from metrics._validation import UndefinedMetricWarning
from metrics.ranking import (
    RankingReport,
    label_ranking_average_precision_score,
    mean_average_precision,
    mean_reciprocal_rank,
    ndcg_at_k,
    ndcg_score,
    precision_at_k,
    ranking_report,
    recall_at_k,
)
from tests.strategies import examples

# --- slow, obviously correct references: plain loops over queries and rows --------------------


def ref_ranked(y, s, g):
    """{query: relevance of its rows ranked by descending score, ties in row order}."""
    y, s, g = list(y), [float(v) for v in s], list(g)
    ranked = {}
    for q in sorted(set(g)):
        rows = [i for i in range(len(g)) if g[i] == q]
        rows.sort(key=lambda i: -s[i])  # sorted() is stable: ties keep row order
        ranked[q] = [float(y[i]) for i in rows]
    return ranked


def ref_precision(rels, k):
    top = rels if k is None else rels[:k]
    return sum(r > 0 for r in top) / (len(rels) if k is None else k)


def ref_recall(rels, k):
    top = rels if k is None else rels[:k]
    return sum(r > 0 for r in top) / sum(r > 0 for r in rels)


def ref_ap(rels, k, denominator="relevant"):
    top = rels if k is None else rels[:k]
    hits, total = 0, 0.0
    for rank, r in enumerate(top, start=1):
        if r > 0:
            hits += 1
            total += hits / rank
    n_relevant = sum(r > 0 for r in rels)
    if denominator == "min_k" and k is not None:
        return total / min(k, n_relevant)
    return total / n_relevant


def ref_dcg(rels, k, gain):
    top = rels if k is None else rels[:k]
    g = (lambda r: r) if gain == "linear" else (lambda r: 2.0**r - 1)
    return sum(g(r) / math.log2(rank + 1) for rank, r in enumerate(top, start=1))


def ref_ndcg(rels, k, gain="linear"):
    return ref_dcg(rels, k, gain) / ref_dcg(sorted(rels, reverse=True), k, gain)


def ref_rr(rels):
    return next(1 / rank for rank, r in enumerate(rels, start=1) if r > 0)


def ref_mean(metric, y, s, g, *args):
    """Mean of a per-query reference over the queries with a relevant row."""
    values = [metric(rels, *args) for rels in ref_ranked(y, s, g).values() if max(rels) > 0]
    return sum(values) / len(values) if values else float("nan")


def ref_lrap(y, s, w=None):
    """LRAP by its definition: per relevant label j, #relevant >= s_j / #labels >= s_j."""
    y, s = np.asarray(y), np.asarray(s, dtype=float)
    w = np.ones(len(y)) if w is None else np.asarray(w, dtype=float)
    total = 0.0
    for i in range(len(y)):
        relevant = [j for j in range(y.shape[1]) if y[i, j]]
        if not relevant or len(relevant) == y.shape[1]:
            score = 1.0
        else:
            ratios = []
            for j in relevant:
                above = [m for m in range(y.shape[1]) if s[i, m] >= s[i, j]]
                ratios.append(sum(1 for m in above if y[i, m]) / len(above))
            score = sum(ratios) / len(ratios)
        total += w[i] * score
    return total / w.sum()


def ref_ndcg_every_tie_order(y, s, k=None):
    """Per row: the mean NDCG over every order of the tied scores (brute force), 0 if IDCG = 0."""
    out = []
    for yi, si in zip(np.asarray(y, dtype=float), np.asarray(s, dtype=float), strict=True):
        tie_groups = [
            [j for j in range(len(si)) if si[j] == value] for value in sorted(set(si), reverse=True)
        ]
        dcgs = [
            ref_dcg([yi[j] for group in orders for j in group], k, "linear")
            for orders in itertools.product(*(itertools.permutations(g) for g in tie_groups))
        ]
        ideal = ref_dcg(sorted(yi, reverse=True), k, "linear")
        out.append(sum(dcgs) / len(dcgs) / ideal if ideal > 0 else 0.0)
    return out


# --- random inputs ----------------------------------------------------------------------------


def random_queries(rng, *, ties=True, string_ids=False, skipped=True):
    """Rows of 1-12 queries of 1-15 rows each, shuffled so that queries are not contiguous."""
    n_queries = int(rng.integers(1, 13))
    sizes = rng.integers(1, 16, size=n_queries)
    g = np.repeat(rng.choice(1000, size=n_queries, replace=False), sizes)
    n = g.size
    y = np.where(rng.random(n) < rng.uniform(0.1, 0.6), rng.integers(1, 4, size=n), 0)
    if not skipped:
        # Give every query at least one relevant row.
        first = np.unique(g, return_index=True)[1]
        y[first] = np.maximum(y[first], 1)
    s = rng.normal(size=n) + 0.5 * y
    if ties:
        s = np.round(s, int(rng.integers(0, 2)))
    perm = rng.permutation(n)
    g, y, s = g[perm], y[perm], s[perm]
    if string_ids:
        g = np.array([f"q{v}" for v in g])
    return y, s, g


GROUPED_CASES = [(seed, ties) for seed in range(150) for ties in (True, False)]
KS = (1, 3, 10, None)


def all_means(y, s, g, k, gain="linear", denominator="relevant"):
    out = {
        "ap": mean_average_precision(y, s, g, k=k, denominator=denominator),
        "ndcg": ndcg_at_k(y, s, g, k=k, gain=gain),
        "rr": mean_reciprocal_rank(y, s, g),
    }
    if k is not None:
        out["p"] = precision_at_k(y, s, g, k=k)
        out["r"] = recall_at_k(y, s, g, k=k)
    return out


def ref_means(y, s, g, k, gain="linear", denominator="relevant"):
    out = {
        "ap": ref_mean(ref_ap, y, s, g, k, denominator),
        "ndcg": ref_mean(ref_ndcg, y, s, g, k, gain),
        "rr": ref_mean(ref_rr, y, s, g),
    }
    if k is not None:
        out["p"] = ref_mean(ref_precision, y, s, g, k)
        out["r"] = ref_mean(ref_recall, y, s, g, k)
    return out


# --- query-grouped metrics against the references ---------------------------------------------


@pytest.mark.parametrize(("seed", "ties"), GROUPED_CASES)
def test_grouped_means_match_reference(seed, ties):
    rng = np.random.default_rng(seed)
    y, s, g = random_queries(rng, ties=ties, string_ids=seed % 2 == 0, skipped=seed % 3 != 0)
    if not (y > 0).any():
        y[0] = 1
    gain = ("linear", "exponential")[seed % 2]
    denominator = ("relevant", "min_k")[(seed // 2) % 2]
    for k in KS:
        ours = all_means(y, s, g, k, gain, denominator)
        expected = ref_means(y, s, g, k, gain, denominator)
        assert ours == pytest.approx(expected, rel=1e-12, abs=1e-12), k


@pytest.mark.parametrize("seed", range(100))
def test_report_per_query_matches_reference(seed):
    rng = np.random.default_rng(1000 + seed)
    y, s, g = random_queries(rng, ties=seed % 2 == 0)
    k = KS[seed % len(KS)]
    gain = ("linear", "exponential")[seed % 2]
    denominator = ("relevant", "min_k")[(seed // 2) % 2]
    report = ranking_report(y, s, g, k=k, gain=gain, denominator=denominator)
    ranked = ref_ranked(y, s, g)
    assert report.query.tolist() == list(ranked)
    assert report.n_docs.tolist() == [len(r) for r in ranked.values()]
    assert report.n_relevant.tolist() == [sum(v > 0 for v in r) for r in ranked.values()]
    assert report.n_skipped == sum(max(r) == 0 for r in ranked.values())
    columns = {
        "precision": lambda r: ref_precision(r, k),
        "recall": lambda r: ref_recall(r, k),
        "average_precision": lambda r: ref_ap(r, k, denominator),
        "ndcg": lambda r: ref_ndcg(r, k, gain),
        "reciprocal_rank": ref_rr,
    }
    for name, ref in columns.items():
        expected = [ref(r) if max(r) > 0 else np.nan for r in ranked.values()]
        np.testing.assert_allclose(getattr(report, name), expected, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("seed", range(40))
def test_report_means_equal_the_functions(seed):
    rng = np.random.default_rng(2000 + seed)
    y, s, g = random_queries(rng, skipped=False)
    k = (1, 4, None)[seed % 3]
    report = ranking_report(y, s, g, k=k, gain="exponential", denominator="min_k")
    assert report.mean("average_precision") == mean_average_precision(
        y, s, g, k=k, denominator="min_k"
    )
    assert report.mean("ndcg") == ndcg_at_k(y, s, g, k=k, gain="exponential")
    assert report.mean("reciprocal_rank") == mean_reciprocal_rank(y, s, g)
    if k is not None:
        assert report.mean("precision") == precision_at_k(y, s, g, k=k)
        assert report.mean("recall") == recall_at_k(y, s, g, k=k)


def test_fractional_and_large_grades_take_the_general_ideal_order():
    # Non-integer grades, and grades beyond the integer fast path, sort through np.unique.
    rng = np.random.default_rng(7)
    for grades in ([0, 0.5, 1.5, 2.25], [0, 1, 3, 2**21]):
        y, s, g = random_queries(rng, skipped=False)
        y = np.asarray(grades)[np.minimum(y, 3)]
        y[0] = grades[-1]
        for k in (2, None):
            assert ndcg_at_k(y, s, g, k=k) == pytest.approx(
                ref_mean(ref_ndcg, y, s, g, k, "linear"), rel=1e-12
            )


def test_sparse_and_exotic_query_ids_give_the_same_result():
    rng = np.random.default_rng(3)
    y, s, g = random_queries(rng, skipped=False)
    codes = np.unique(g, return_inverse=True)[1]
    expected = ranking_report(y, s, codes, k=3)
    variants = [
        codes * 10**12,  # too sparse for the lookup table: np.unique
        codes.astype(np.uint64) + np.uint64(2**63),  # near the top of uint64
        codes - 50,  # negative
        codes.astype(np.int8),
        codes.astype(float) / 2,
        np.array([f"query-{c:03d}" for c in codes]),
        np.array([f"query-{c:03d}" for c in codes], dtype=object),
        pd.Series(codes).astype("category"),
    ]
    for ids in variants:
        got = ranking_report(y, s, ids, k=3)
        for name in ("n_docs", "n_relevant", "precision", "average_precision", "ndcg"):
            np.testing.assert_array_equal(getattr(got, name), getattr(expected, name))
    assert ranking_report(y, s, codes - 50, k=3).query.tolist() == (np.unique(codes) - 50).tolist()
    big = ranking_report(y, s, codes.astype(np.uint64) + np.uint64(2**63), k=3).query
    assert big.dtype == np.uint64
    assert big[0] == np.uint64(2**63)


@pytest.mark.parametrize("dtype", [np.int8, np.uint8, np.int16, np.uint64, np.int64])
def test_integer_ids_over_the_whole_range_of_their_type(dtype):
    # 70 rows: int8 and uint8 ids (a span of 256) go through the lookup table, wider types
    # through np.unique.
    info = np.iinfo(dtype)
    low, high = max(int(info.min), -(2**40)), int(info.max)
    ids = np.array([high, low, high, low + 1] + [low] * 66, dtype=dtype)
    y = [1, 1, 0, 1] + [0] * 66
    s = [0.1, 0.2, 0.3, 0.4] + [0.0] * 66
    report = ranking_report(y, s, ids)
    assert report.query.dtype == dtype
    assert report.query.tolist() == [low, low + 1, high]
    assert report.n_docs.tolist() == [67, 1, 2]
    assert report.reciprocal_rank.tolist() == [1.0, 1.0, 0.5]


def test_pandas_input():
    df = pd.DataFrame(
        {
            "q": ["a", "a", "a", "a", "b", "b"],
            "rel": [0, 0, 1, 1, 1, 0],
            "score": [0.1, 0.4, 0.35, 0.8, 0.2, 0.9],
        }
    )
    assert mean_reciprocal_rank(df["rel"], df["score"], df["q"]) == 0.75
    frame = pd.DataFrame(ranking_report(df["rel"], df["score"], df["q"], k=2).as_dict())
    assert frame["query"].tolist() == ["a", "b"]
    assert frame["average_precision"].tolist() == pytest.approx([0.5, 0.5])


def test_unkeyed_sort_fallback_agrees(monkeypatch):
    rng = np.random.default_rng(11)
    y, s, g = random_queries(rng, ties=True, skipped=False)
    expected = ranking_report(y, s, g, k=4)
    monkeypatch.setattr(ranking, "_MAX_KEYED_ROWS", 0)
    got = ranking_report(y, s, g, k=4)
    for name in ("precision", "recall", "average_precision", "ndcg", "reciprocal_rank"):
        np.testing.assert_array_equal(getattr(got, name), getattr(expected, name))


# --- conventions ------------------------------------------------------------------------------


def test_ties_are_ranked_in_row_order():
    # Equal scores: the first row of the query ranks first.
    assert mean_reciprocal_rank([0, 1], [0.5, 0.5], [7, 7]) == 0.5
    assert mean_reciprocal_rank([1, 0], [0.5, 0.5], [7, 7]) == 1.0
    # Rows of other queries in between change nothing.
    assert mean_reciprocal_rank([0, 1, 1], [0.5, 0.9, 0.5], [7, 8, 7]) == 0.75
    assert precision_at_k([0, 0, 1], [2.0, 2.0, 2.0], ["q", "q", "q"], k=2) == 0.0
    assert precision_at_k([1, 0, 0], [2.0, 2.0, 2.0], ["q", "q", "q"], k=1) == 1.0


def test_precision_divides_by_k_even_for_short_queries():
    # trec_eval's P_k: 2 relevant rows of a 2-row query, at k = 5, give 2/5.
    assert precision_at_k([1, 1], [0.3, 0.2], [1, 1], k=5) == 0.4
    assert recall_at_k([1, 1], [0.3, 0.2], [1, 1], k=5) == 1.0


def test_k_larger_than_every_query_is_the_whole_list():
    rng = np.random.default_rng(5)
    y, s, g = random_queries(rng, skipped=False)
    assert mean_average_precision(y, s, g, k=1000) == mean_average_precision(y, s, g)
    assert mean_average_precision(y, s, g, k=1000, denominator="min_k") == (
        mean_average_precision(y, s, g)
    )
    assert ndcg_at_k(y, s, g, k=1000) == ndcg_at_k(y, s, g)
    assert recall_at_k(y, s, g, k=1000) == 1.0


def test_map_denominators_by_hand():
    # 3 relevant rows ranked 1, 2 and 5; at k = 2 the third is out of reach.
    y, s, g = [1, 1, 0, 0, 1], [5, 4, 3, 2, 1], [0] * 5
    assert mean_average_precision(y, s, g, k=2) == pytest.approx(2 / 3)  # (1 + 1) / 3
    assert mean_average_precision(y, s, g, k=2, denominator="min_k") == 1.0  # (1 + 1) / 2
    assert mean_average_precision(y, s, g) == pytest.approx((1 + 1 + 3 / 5) / 3)
    assert mean_average_precision(y, s, g, denominator="min_k") == pytest.approx(
        (1 + 1 + 3 / 5) / 3
    )


def test_ndcg_gains_by_hand():
    # Ranked relevance [3, 2, 3, 0, 1, 2].
    y, s, g = [3, 2, 3, 0, 1, 2], [6, 5, 4, 3, 2, 1], [0] * 6
    d = [1 / math.log2(i + 1) for i in range(1, 7)]
    dcg_lin = sum(r * di for r, di in zip(y, d, strict=True))
    idcg_lin = sum(r * di for r, di in zip([3, 3, 2, 2, 1, 0], d, strict=True))
    dcg_exp = sum((2**r - 1) * di for r, di in zip(y, d, strict=True))
    idcg_exp = sum((2**r - 1) * di for r, di in zip([3, 3, 2, 2, 1, 0], d, strict=True))
    assert ndcg_at_k(y, s, g) == pytest.approx(dcg_lin / idcg_lin, rel=1e-15)
    assert ndcg_at_k(y, s, g, gain="exponential") == pytest.approx(dcg_exp / idcg_exp, rel=1e-15)
    assert ndcg_at_k(y, s, g, k=3) == pytest.approx(
        (3 + 2 * d[1] + 3 * d[2]) / (3 + 3 * d[1] + 2 * d[2])
    )


def test_binary_relevance_linear_and_exponential_gain_agree():
    rng = np.random.default_rng(9)
    y, s, g = random_queries(rng, skipped=False)
    y = (y > 0).astype(int)
    for k in (2, None):
        assert ndcg_at_k(y, s, g, k=k, gain="exponential") == ndcg_at_k(y, s, g, k=k)


# --- queries with no relevant row ---------------------------------------------------------------


def test_queries_without_relevant_rows_are_left_out_and_counted():
    y = [1, 0, 0, 0, 0, 1]
    s = [0.9, 0.1, 0.5, 0.4, 0.8, 0.3]
    g = ["a", "a", "b", "b", "c", "c"]
    report = ranking_report(y, s, g, k=1)
    assert report.n_queries == 3
    assert report.n_skipped == 1
    assert report.skipped.tolist() == [False, True, False]
    assert np.isnan(report.average_precision[1])
    assert np.isnan(report.precision[1])
    assert mean_reciprocal_rank(y, s, g) == 0.75  # (1 + 1/2) / 2, query b left out
    assert precision_at_k(y, s, g, k=1) == 0.5


@pytest.mark.parametrize(
    ("call", "what"),
    [
        (lambda y, s, g: precision_at_k(y, s, g, k=2), "precision@k"),
        (lambda y, s, g: recall_at_k(y, s, g, k=2), "recall@k"),
        (lambda y, s, g: mean_average_precision(y, s, g), "average precision"),
        (lambda y, s, g: ndcg_at_k(y, s, g, k=3), "NDCG"),
        (lambda y, s, g: mean_reciprocal_rank(y, s, g), "reciprocal rank"),
        (lambda y, s, g: ranking_report(y, s, g).mean("ndcg"), "ndcg"),
    ],
)
def test_no_relevant_row_anywhere_is_nan_with_warning(call, what):
    with pytest.warns(
        UndefinedMetricWarning, match=f"None of the 2 queries has a relevant row.*{what}"
    ):
        assert math.isnan(call([0, 0, 0], [0.1, 0.2, 0.3], [1, 1, 2]))


def test_single_query_without_relevant_row_message():
    match = r"The only query has no relevant row \(y_true > 0\): NDCG is undefined, returning NaN"
    with pytest.warns(UndefinedMetricWarning, match=match):
        assert math.isnan(ndcg_at_k([0, 0], [0.1, 0.2], ["q", "q"]))


def test_report_of_all_skipped_queries():
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # building the report itself does not warn
        report = ranking_report([0, 0], [0.1, 0.2], ["x", "y"], k=1)
    assert report.n_skipped == 2
    assert np.isnan(report.ndcg).all()


# --- seeds: every worked number in scope ---------------------------------------------------------


def seed001_queries():
    """Seed 001's two topics, as rows ranked by score (k = 7 is the retrieved list).

    Topic 1: 4 relevant, retrieved at ranks 1, 2, 4, 7. Topic 2: 5 relevant, 3 retrieved at ranks
    1, 3, 5; the other 2 are ranked below the 7 retrieved rows.
    """
    y1 = [1, 1, 0, 1, 0, 0, 1]
    y2 = [1, 0, 1, 0, 1, 0, 0, 1, 1]
    y = y1 + y2
    s = [-i for i in range(len(y1))] + [-i for i in range(len(y2))]
    g = [1] * len(y1) + [2] * len(y2)
    return y, s, g


def test_seed001_ir_ap_topic1_is_083():
    y, s, g = seed001_queries()
    ap = ranking_report(y, s, g, k=7).average_precision[0]
    expected = (Fraction(1, 1) + Fraction(2, 2) + Fraction(3, 4) + Fraction(4, 7)) / 4
    assert Fraction(float(ap)).limit_denominator(1000) == expected
    assert ap == pytest.approx(float(expected), abs=1e-15)
    assert round(ap, 2) == 0.83


def test_seed001_ir_ap_topic2_is_045():
    y, s, g = seed001_queries()
    ap = ranking_report(y, s, g, k=7).average_precision[1]
    expected = (Fraction(1, 1) + Fraction(2, 3) + Fraction(3, 5)) / 5
    assert Fraction(float(ap)).limit_denominator(1000) == expected
    assert ap == pytest.approx(float(expected), abs=1e-15)
    assert round(ap, 2) == 0.45


def test_seed001_ir_map_is_064():
    y, s, g = seed001_queries()
    ap1 = (Fraction(1, 1) + Fraction(2, 2) + Fraction(3, 4) + Fraction(4, 7)) / 4
    ap2 = (Fraction(1, 1) + Fraction(2, 3) + Fraction(3, 5)) / 5
    mean_ap = mean_average_precision(y, s, g, k=7)
    assert Fraction(mean_ap).limit_denominator(20000) == (ap1 + ap2) / 2 == Fraction(10783, 16800)
    assert mean_ap == pytest.approx(float((ap1 + ap2) / 2), abs=1e-15)
    assert round(mean_ap, 2) == 0.64
    # The article's denominator is every relevant document: "min_k" gives the same here (k = 7).
    assert mean_average_precision(y, s, g, k=7, denominator="min_k") == mean_ap


def test_seed002_lrap_is_five_sixths():
    assert label_ranking_average_precision_score(
        [[1, 0, 1, 0]], [[1, 0.8, 0.6, 0.4]]
    ) == pytest.approx(5 / 6, abs=1e-15)
    assert Fraction(
        label_ranking_average_precision_score([[1, 0, 1, 0]], [[1, 0.8, 0.6, 0.4]])
    ).limit_denominator(100) == Fraction(5, 6)


def test_seed002_ir_ap_of_the_same_labels_is_five_sixths():
    ap = mean_average_precision([1, 0, 1, 0], [1, 0.8, 0.6, 0.4], ["x"] * 4)
    assert ap == pytest.approx(5 / 6, abs=1e-15)


def seed004_ap(ranked_list, ground_truth):
    """Seed 004's AP, transcribed: precision at each hit, summed, over len(ground_truth)."""
    hits = 0
    sum_precs = 0
    for n in range(len(ranked_list)):
        if ranked_list[n] in ground_truth:
            hits += 1
            sum_precs += hits / (n + 1.0)
    if hits > 0:
        return sum_precs / len(ground_truth)
    return 0


@pytest.mark.parametrize("seed", range(50))
def test_seed004_ap_definition(seed):
    # Seed 004's AP of a top-k recommendation list is our AP@k with denominator "relevant".
    rng = np.random.default_rng(4000 + seed)
    n = int(rng.integers(2, 20))
    y = (rng.random(n) < 0.4).astype(int)
    y[rng.integers(n)] = 1
    s = rng.random(n)
    k = int(rng.integers(1, n + 2))
    ranked = list(np.argsort(-s, kind="stable"))[:k]
    expected = seed004_ap(ranked, set(np.flatnonzero(y)))
    got = ranking_report(y, s, [0] * n, k=k).average_precision[0]
    assert got == pytest.approx(expected, abs=1e-15)


def test_seed004_ndcg_definition():
    # Seed 004: DCG@k = sum (2^rel_i - 1) / log2(i + 1); IDCG from the list sorted by rel.
    rel = [2, 0, 5, 3, 0, 1, 4]  # graded 0-5, in ranked order
    s = list(range(len(rel), 0, -1))
    for k in (1, 3, 5, 7):
        dcg = sum((2 ** rel[i - 1] - 1) / math.log2(i + 1) for i in range(1, k + 1))
        ideal = sorted(rel, reverse=True)
        idcg = sum((2 ** ideal[i - 1] - 1) / math.log2(i + 1) for i in range(1, k + 1))
        got = ndcg_at_k(rel, s, [0] * len(rel), k=k, gain="exponential")
        assert got == pytest.approx(dcg / idcg, rel=1e-14)
        assert 0 < got <= 1
    # Binary relevance delta(i in I_u): gain 2^1 - 1 = 1 for a hit, as with linear gain.
    hits = [1, 0, 1, 0, 0]
    assert ndcg_at_k(hits, [5, 4, 3, 2, 1], [0] * 5, gain="exponential") == pytest.approx(
        (1 + 1 / math.log2(4)) / (1 + 1 / math.log2(3)), rel=1e-15
    )


# --- trec_eval (pytrec_eval) as an oracle ---------------------------------------------------------


def trec_eval(y, s, g, k):
    """pytrec_eval's per-query results. Row i is document d{n - i}, so that trec_eval's tie-break
    (docno descending) is our row order."""
    n = len(y)
    qrel, run = {}, {}
    for i in range(n):
        q, doc = str(g[i]), f"d{n - i:08d}"
        qrel.setdefault(q, {})[doc] = int(y[i])
        run.setdefault(q, {})[doc] = float(s[i])
    measures = {
        "map",
        f"map_cut.{k}",
        f"P.{k}",
        f"recall.{k}",
        f"ndcg_cut.{k}",
        "recip_rank",
        "ndcg",
    }
    return pytrec_eval.RelevanceEvaluator(qrel, measures).evaluate(run)


@pytest.mark.parametrize(
    ("seed", "ties"), [(seed, ties) for seed in range(100) for ties in (False, True)]
)
def test_trec_eval_oracle(seed, ties):
    rng = np.random.default_rng(5000 + seed)
    y, s, g = random_queries(rng, ties=ties, skipped=seed % 4 == 0)
    if not (y > 0).any():
        y[0] = 1
    k = int(rng.integers(1, 12))
    trec = trec_eval(y, s, g, k)
    kept = [q for q in trec if any(y[i] > 0 for i in range(len(y)) if str(g[i]) == q)]
    report_k = ranking_report(y, s, g, k=k)
    report_all = ranking_report(y, s, g)
    index = {str(q): i for i, q in enumerate(report_k.query)}
    pairs = [
        (report_k.precision, f"P_{k}"),
        (report_k.recall, f"recall_{k}"),
        (report_k.average_precision, f"map_cut_{k}"),
        (report_k.ndcg, f"ndcg_cut_{k}"),
        (report_all.average_precision, "map"),
        (report_all.ndcg, "ndcg"),
        (report_all.reciprocal_rank, "recip_rank"),
    ]
    for ours, measure in pairs:
        got = [ours[index[q]] for q in kept]
        expected = [trec[q][measure] for q in kept]
        np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-12, err_msg=measure)
    # And the means over the queries with a relevant row.
    mean = lambda measure: np.mean([trec[q][measure] for q in kept])  # noqa: E731
    assert precision_at_k(y, s, g, k=k) == pytest.approx(mean(f"P_{k}"), rel=1e-12)
    assert recall_at_k(y, s, g, k=k) == pytest.approx(mean(f"recall_{k}"), rel=1e-12)
    assert mean_average_precision(y, s, g, k=k) == pytest.approx(mean(f"map_cut_{k}"), rel=1e-12)
    assert mean_average_precision(y, s, g) == pytest.approx(mean("map"), rel=1e-12)
    assert ndcg_at_k(y, s, g, k=k) == pytest.approx(mean(f"ndcg_cut_{k}"), rel=1e-12)
    assert mean_reciprocal_rank(y, s, g) == pytest.approx(mean("recip_rank"), rel=1e-12)


def test_trec_eval_hand_computed_values():
    # One query, ties at 0.5 broken by docno descending in trec_eval: c, b, a, then d.
    trec = pytrec_eval.RelevanceEvaluator(
        {"q": {"a": 1, "b": 0, "c": 2, "d": 0}}, {"map", "ndcg_cut.2"}
    ).evaluate({"q": {"a": 0.5, "b": 0.5, "c": 0.5, "d": 0.1}})["q"]
    # Our rows in the order c, b, a, d give the same ranking.
    y, s, g = [2, 0, 1, 0], [0.5, 0.5, 0.5, 0.1], ["q"] * 4
    assert trec["map"] == pytest.approx((1 + 2 / 3) / 2)
    assert mean_average_precision(y, s, g) == pytest.approx(trec["map"], rel=1e-15)
    assert trec["ndcg_cut_2"] == pytest.approx(2 / (2 + 1 / math.log2(3)))
    assert ndcg_at_k(y, s, g, k=2) == pytest.approx(trec["ndcg_cut_2"], rel=1e-15)


# --- property tests ---------------------------------------------------------------------------


@st.composite
def grouped_rows(draw, ties=False):
    n = draw(st.integers(1, 40))
    g = draw(st.lists(st.integers(0, 5), min_size=n, max_size=n))
    y = draw(st.lists(st.integers(0, 3), min_size=n, max_size=n))
    if ties:
        s = draw(st.lists(st.integers(-3, 3), min_size=n, max_size=n))
    else:
        s = draw(st.permutations(range(n)))
    return np.array(y), np.array(s, dtype=float), np.array(g)


REPORT_FIELDS = (
    "n_docs",
    "n_relevant",
    "precision",
    "recall",
    "average_precision",
    "ndcg",
    "reciprocal_rank",
)


def reports(y, s, g):
    return [
        ranking_report(y, s, g, k=k, gain=gain, denominator=denominator)
        for k in (1, 3, None)
        for gain in ("linear", "exponential")
        for denominator in ("relevant", "min_k")
    ]


def assert_same_reports(a, b):
    for ra, rb in zip(a, b, strict=True):
        np.testing.assert_array_equal(ra.query, rb.query)
        for name in REPORT_FIELDS:
            np.testing.assert_allclose(getattr(ra, name), getattr(rb, name), rtol=1e-13, atol=1e-15)


@settings(max_examples=examples(150), deadline=None)
@given(rows=grouped_rows(), data=st.data())
def test_row_permutation_invariance_without_ties(rows, data):
    y, s, g = rows
    perm = np.array(data.draw(st.permutations(range(y.size))))
    assert_same_reports(reports(y, s, g), reports(y[perm], s[perm], g[perm]))


@settings(max_examples=examples(150), deadline=None)
@given(rows=grouped_rows(ties=True))
def test_monotone_score_transform_invariance(rows):
    # Strictly increasing maps keep every order and every tie, so the results are identical.
    y, s, g = rows
    expected = reports(y, s, g)
    assert_same_reports(expected, reports(y, np.exp(s / 3) - 7, g))
    assert_same_reports(expected, reports(y, 2 * s + 1, g))


@settings(max_examples=examples(150), deadline=None)
@given(rows=grouped_rows(ties=True))
def test_metrics_lie_in_unit_interval(rows):
    y, s, g = rows
    for report in reports(y, s, g):
        for name in ("precision", "recall", "average_precision", "ndcg", "reciprocal_rank"):
            values = getattr(report, name)
            assert np.array_equal(np.isnan(values), report.skipped)
            kept = values[~report.skipped]
            assert ((kept >= 0) & (kept <= 1 + 1e-12)).all(), name


@settings(max_examples=examples(100), deadline=None)
@given(rows=grouped_rows(ties=True))
def test_query_relabelling_invariance(rows):
    y, s, g = rows
    relabelled = np.array([f"user {9 - v}" for v in g])
    a, b = reports(y, s, g), reports(y, s, relabelled)
    # Query ids sort differently, so compare the per-query values by id.
    for ra, rb in zip(a, b, strict=True):
        order = np.argsort([f"user {9 - v}" for v in ra.query])
        for name in REPORT_FIELDS:
            np.testing.assert_array_equal(getattr(ra, name)[order], getattr(rb, name))


# --- scikit-learn's LRAP and ndcg_score -----------------------------------------------------------


def random_matrix(rng, *, binary, ties=True, weights=False):
    n, m = int(rng.integers(1, 30)), int(rng.integers(2, 9))
    if binary:
        y = (rng.random((n, m)) < rng.uniform(0.1, 0.7)).astype(int)
    elif rng.random() < 0.3:
        y = np.round(rng.random((n, m)) * 3, 2) * (rng.random((n, m)) < 0.6)
    else:
        y = rng.integers(0, 5, size=(n, m)) * (rng.random((n, m)) < 0.6)
    s = rng.normal(size=(n, m))
    if ties:
        s = np.round(s, int(rng.integers(0, 2)))
    w = rng.integers(0, 4, size=n) * rng.uniform(0.5, 2) if weights else None
    if w is not None and w.sum() == 0:
        w[0] = 1.0
    return y, s, w


MATRIX_CASES = [
    (seed, ties, weights)
    for seed in range(100)
    for ties in (True, False)
    for weights in (False, True)
]


@pytest.mark.parametrize(("seed", "ties", "weights"), MATRIX_CASES)
def test_lrap_matches_sklearn_and_reference(seed, ties, weights):
    rng = np.random.default_rng(6000 + seed)
    y, s, w = random_matrix(rng, binary=True, ties=ties, weights=weights)
    ours = label_ranking_average_precision_score(y, s, sample_weight=w)
    assert ours == pytest.approx(
        skm.label_ranking_average_precision_score(y, s, sample_weight=w), rel=1e-12, abs=1e-12
    )
    assert ours == pytest.approx(ref_lrap(y, s, w), rel=1e-12, abs=1e-12)


@pytest.mark.parametrize(("seed", "ties", "weights"), MATRIX_CASES)
def test_ndcg_score_matches_sklearn(seed, ties, weights):
    rng = np.random.default_rng(7000 + seed)
    y, s, w = random_matrix(rng, binary=seed % 4 == 0, ties=ties, weights=weights)
    for k in (None, 1, 3, y.shape[1] + 2):
        for ignore_ties in (False, True):
            ours = ndcg_score(y, s, k=k, sample_weight=w, ignore_ties=ignore_ties)
            theirs = skm.ndcg_score(y, s, k=k, sample_weight=w, ignore_ties=ignore_ties)
            assert ours == pytest.approx(theirs, rel=1e-12, abs=1e-12), (k, ignore_ties)


@pytest.mark.parametrize("seed", range(60))
def test_ndcg_score_is_the_mean_over_every_order_of_the_ties(seed):
    rng = np.random.default_rng(8000 + seed)
    n, m = int(rng.integers(1, 6)), int(rng.integers(2, 7))
    y = rng.integers(0, 4, size=(n, m))
    s = rng.integers(0, 3, size=(n, m)).astype(float)
    for k in (None, 1, 2):
        assert ndcg_score(y, s, k=k) == pytest.approx(
            np.mean(ref_ndcg_every_tie_order(y, s, k)), rel=1e-12, abs=1e-12
        )


def test_ndcg_score_docstring_examples_of_sklearn():
    y = [[10, 0, 0, 1, 5]]
    assert ndcg_score(y, [[0.1, 0.2, 0.3, 4, 70]]) == pytest.approx(
        skm.ndcg_score(y, [[0.1, 0.2, 0.3, 4, 70]])
    )
    assert ndcg_score(y, [[0.05, 1.1, 1.0, 0.5, 0.0]], k=4) == pytest.approx(
        skm.ndcg_score(y, [[0.05, 1.1, 1.0, 0.5, 0.0]], k=4)
    )
    assert ndcg_score(y, [[1, 0, 0, 0, 1]], k=1) == 0.75
    assert ndcg_score(y, [[1, 0, 0, 0, 1]], k=1, ignore_ties=True) == pytest.approx(0.5)


def test_ndcg_score_all_zero_rows_score_zero_and_count():
    y = [[0, 0, 0], [1, 0, 0]]
    s = [[0.3, 0.2, 0.1], [0.3, 0.2, 0.1]]
    assert ndcg_score(y, s) == 0.5 == skm.ndcg_score(y, s)


def test_lrap_degenerate_rows_score_one():
    y = [[0, 0, 0], [1, 1, 1], [0, 1, 0]]
    s = [[0.3, 0.2, 0.1], [0.3, 0.2, 0.1], [0.3, 0.2, 0.1]]
    expected = (1 + 1 + 1 / 2) / 3
    assert label_ranking_average_precision_score(y, s) == pytest.approx(expected)
    assert skm.label_ranking_average_precision_score(y, s) == pytest.approx(expected)
    # One label: every row is all-relevant or all-irrelevant.
    assert label_ranking_average_precision_score([[1], [0]], [[0.2], [0.1]]) == 1.0


def test_lrap_ties_count_against_the_label():
    # Both relevant labels tie with an irrelevant one: each sees 2 relevant among 3.
    assert label_ranking_average_precision_score([[1, 1, 0]], [[0.5, 0.5, 0.5]]) == pytest.approx(
        2 / 3
    )


@settings(max_examples=examples(100), deadline=None)
@given(
    y=st.lists(st.lists(st.integers(0, 1), min_size=4, max_size=4), min_size=1, max_size=8),
    s=st.lists(st.lists(st.integers(-2, 2), min_size=4, max_size=4), min_size=8, max_size=8),
    w=st.lists(st.integers(0, 3), min_size=8, max_size=8),
)
def test_integer_weights_equal_repeated_samples(y, s, w):
    n = len(y)
    y, s, w = np.array(y), np.array(s[:n], dtype=float), np.array(w[:n])
    if w.sum() == 0:
        w[0] = 1
    repeated = np.repeat(np.arange(n), w)
    assert label_ranking_average_precision_score(y, s, sample_weight=w) == pytest.approx(
        label_ranking_average_precision_score(y[repeated], s[repeated]), rel=1e-12
    )
    assert ndcg_score(y, s, sample_weight=w) == pytest.approx(
        ndcg_score(y[repeated], s[repeated]), rel=1e-12
    )
    # Monotone transforms change neither, and both stay in [0, 1].
    for f in (label_ranking_average_precision_score, ndcg_score):
        value = f(y, s)
        assert f(y, np.exp(s) - 3) == value
        assert 0 <= value <= 1


# --- validation messages ------------------------------------------------------------------------

Y, S, G = [0, 1, 1], [0.2, 0.5, 0.1], ["a", "a", "b"]


@pytest.mark.parametrize("bad_k", [0, -2, 1.5, True, "3", None])
def test_k_must_be_a_positive_integer(bad_k):
    with pytest.raises(ValueError, match="k must be a positive integer"):
        precision_at_k(Y, S, G, k=bad_k)
    with pytest.raises(ValueError, match="k must be a positive integer"):
        recall_at_k(Y, S, G, k=bad_k)
    if bad_k is not None:
        with pytest.raises(
            ValueError, match=r"k must be a positive integer or None \(the whole list\)"
        ):
            mean_average_precision(Y, S, G, k=bad_k)
        with pytest.raises(ValueError, match="k must be a positive integer or None"):
            ndcg_at_k(Y, S, G, k=bad_k)
        with pytest.raises(ValueError, match="k must be a positive integer or None"):
            ranking_report(Y, S, G, k=bad_k)
        with pytest.raises(ValueError, match="k must be a positive integer or None"):
            ndcg_score([[1, 0]], [[0.1, 0.2]], k=bad_k)


def test_numpy_integer_k_is_accepted():
    assert precision_at_k(Y, S, G, k=np.int64(1)) == precision_at_k(Y, S, G, k=1)


def test_option_names_are_checked():
    with pytest.raises(ValueError, match="gain must be 'linear' or 'exponential', got 'exp'"):
        ndcg_at_k(Y, S, G, gain="exp")
    with pytest.raises(ValueError, match="denominator must be 'relevant' or 'min_k', got 'k'"):
        mean_average_precision(Y, S, G, denominator="k")
    with pytest.raises(
        ValueError,
        match="metric must be one of 'precision', 'recall', 'average_precision', 'ndcg', 'reciprocal_rank', got 'map'",
    ):
        ranking_report(Y, S, G).mean("map")


@pytest.mark.parametrize(
    ("y", "s", "g", "message"),
    [
        (
            [0, -1, 2],
            S,
            G,
            r"y_true has 1 negative value at position 1; relevance grades must be >= 0",
        ),
        ([0, np.nan, 2], S, G, r"y_true has 1 non-finite value \(NaN or inf\) at position 1"),
        (
            ["0", "x", 1],
            S,
            G,
            r"y_true has 1 non-numeric value at position 1 \(for example .*'x'.*\); relevance grades must be numbers",
        ),
        (
            Y,
            [0.1, np.nan, np.inf],
            G,
            r"y_score has 1 NaN value and 1 \+inf value at positions 1, 2",
        ),
        (Y, [0.1, 0.2], G, "y_true has 3 rows but y_score has 2; they must be the same length"),
        (Y, S, ["a", "b"], "y_true has 3 rows but groups has 2; they must be the same length"),
        (
            Y,
            S,
            ["a", None, "b"],
            "groups has 1 missing query id at position 1; every row needs a query id",
        ),
        (Y, S, [1.0, np.nan, np.nan], "groups has 2 missing query ids at positions 1, 2"),
        (
            Y,
            S,
            np.array(["a", 1, 2], dtype=object),
            r"groups mixes query ids that cannot be compared \(int, str\)",
        ),
        ([], [], [], "y_true is empty"),
        (
            [[0, 1], [1, 0]],
            S,
            G,
            r"y_true must be one-dimensional \(one value per row\), got shape \(2, 2\)",
        ),
    ],
)
def test_grouped_input_errors(y, s, g, message):
    with pytest.raises(ValueError, match=message):
        mean_average_precision(y, s, g)


def test_mixed_query_id_types_are_named_even_late_in_the_rows():
    g = np.array(["a"] * 60 + [1, 2], dtype=object)
    with pytest.raises(
        ValueError,
        match=r"groups mixes query ids that cannot be compared \(int, str\); use one type",
    ):
        ndcg_at_k(np.ones(62), np.arange(62.0), g)


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (
            lambda: label_ranking_average_precision_score([1, 0], [0.1, 0.2]),
            r"y_true must be two-dimensional \(n_samples, n_labels\), got shape \(2,\)",
        ),
        (
            lambda: label_ranking_average_precision_score([[1, 0]], [[0.1, 0.2, 0.3]]),
            r"y_true has shape \(1, 2\) but y_score has shape \(1, 3\)",
        ),
        (
            lambda: label_ranking_average_precision_score([[1, 2], [0, 3]], [[0.1, 0.2]] * 2),
            r"y_true has 2 values that are not 0/1 label indicators, at cells \(row, column\) \(0, 1\), \(1, 1\)",
        ),
        (
            lambda: label_ranking_average_precision_score([[1, 0]], [[0.1, np.nan]]),
            r"y_score has 1 non-finite value \(NaN or inf\) at cell \(row, column\) \(0, 1\); scores must be finite",
        ),
        (
            lambda: label_ranking_average_precision_score([[1, 0]], [["a", 0.1]]),
            r"y_score has 1 non-numeric value at cell \(row, column\) \(0, 0\)",
        ),
        (
            lambda: label_ranking_average_precision_score(
                [[1, 0]], [[0.1, 0.2]], sample_weight=[1, 2]
            ),
            "sample_weight has 2 rows but y_true has 1",
        ),
        (
            lambda: ndcg_score([[1, -1]], [[0.1, 0.2]]),
            r"y_true has 1 value that is not relevance values >= 0, at cell \(row, column\) \(0, 1\)",
        ),
        (
            lambda: ndcg_score([[1], [0]], [[0.1], [0.2]]),
            "y_true has 1 column; NDCG needs at least 2 labels",
        ),
        (
            lambda: ndcg_score(np.zeros((0, 3)), np.zeros((0, 3))),
            r"y_true is empty \(shape \(0, 3\)\)",
        ),
    ],
)
def test_matrix_input_errors(call, message):
    with pytest.raises(ValueError, match=message):
        call()


def test_weights_summing_to_zero_are_undefined():
    with pytest.warns(
        UndefinedMetricWarning, match="sample_weight sums to 0: label ranking average precision"
    ):
        assert math.isnan(
            label_ranking_average_precision_score([[1, 0]], [[0.1, 0.2]], sample_weight=[0])
        )
    with pytest.warns(UndefinedMetricWarning, match="sample_weight sums to 0: NDCG is undefined"):
        assert math.isnan(ndcg_score([[1, 0]], [[0.1, 0.2]], sample_weight=[0]))


def test_report_is_frozen():
    report = ranking_report(Y, S, G)
    assert isinstance(report, RankingReport)
    with pytest.raises(AttributeError):
        report.k = 3


def test_sparse_label_matrices_as_scikit_learn_accepts_them():
    import scipy.sparse
    from sklearn.metrics import label_ranking_average_precision_score as sk_lrap

    rng = np.random.default_rng(4)
    y = (rng.random((30, 5)) < 0.3).astype(int)
    y[:, 0] = 1
    s = rng.random((30, 5))
    sparse = scipy.sparse.csr_matrix(y)
    assert label_ranking_average_precision_score(sparse, s) == pytest.approx(sk_lrap(sparse, s))
    assert label_ranking_average_precision_score(sparse, s) == (
        label_ranking_average_precision_score(y, s)
    )

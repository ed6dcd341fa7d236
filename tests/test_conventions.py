"""ROC AUC under Keras's and Spark's conventions (metrics.conventions), checked on Keras's own
documented example and against independent formulations: Spark's bins as scores replaced by
their bin's highest score (then the exact AUC), Keras's grid as the exact AUC when every score
sits alone in a grid cell, minoring <= interpolation <= majoring."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from metrics import roc_auc_score
from metrics.conventions import (
    keras_cells,
    keras_roc_auc,
    ranking_conventions,
    roc_auc_conventions,
    sklearn_ndcg_per_query,
    spark_bins,
    spark_roc_auc,
    tied_pairs,
    tied_relevant_queries,
)
from tests.strategies import binary_tables, examples


def test_keras_documented_example():
    # keras.metrics.AUC docs: num_thresholds=3, y_true [0, 0, 1, 1], y_pred [0, 0.5, 0.3, 0.9]
    assert keras_roc_auc([0, 0, 1, 1], [0, 0.5, 0.3, 0.9], num_thresholds=3) == pytest.approx(0.75)


@settings(max_examples=examples(60), deadline=None)
@given(binary_tables(max_size=60, max_models=1, weights=True))
def test_keras_bounds_bracket_the_trapezoid(table):
    s = 1 / (1 + np.exp(-table.scores[0]))
    lo, mid, hi = (
        keras_roc_auc(table.y, s, summation_method=m, sample_weight=table.weights)
        for m in ("minoring", "interpolation", "majoring")
    )
    assert lo <= mid + 1e-12
    assert mid <= hi + 1e-12


@settings(max_examples=examples(60), deadline=None)
@given(st.integers(2, 80), st.integers(0, 2**32 - 1))
def test_keras_equals_exact_when_each_score_has_its_own_grid_cell(n, seed):
    rng = np.random.default_rng(seed)
    cells = rng.choice(199, size=n, replace=False)  # 200 thresholds: 199 cells in [0, 1]
    s = (cells + 0.5) / 199
    y = rng.random(n) < 0.5
    y[0], y[1] = True, False
    assert keras_roc_auc(y, s) == pytest.approx(roc_auc_score(y, s), abs=1e-12)


def _binned_reference(y, s, w, num_bins):
    """Every score replaced by the highest score of its Spark bin; then the exact AUC."""
    distinct = np.unique(s)[::-1]
    grouping = distinct.size // num_bins
    if grouping < 2:
        return roc_auc_score(y, s, sample_weight=w)
    top = distinct[(np.arange(distinct.size) // grouping) * grouping]
    mapped = top[np.searchsorted(-distinct, -s)]
    return roc_auc_score(y, mapped, sample_weight=w)


@settings(max_examples=examples(80), deadline=None)
@given(binary_tables(max_size=129, max_models=1, weights=True), st.sampled_from([1, 2, 3, 7, 50]))
def test_spark_bins_equal_the_exact_auc_of_binned_scores(table, num_bins):
    y, s, w = table.y, table.scores[0], table.weights
    if w is not None and not (w[y].sum() > 0 and w[~y].sum() > 0):
        return
    got = spark_roc_auc(y, s, num_bins=num_bins, sample_weight=w)
    assert got == pytest.approx(_binned_reference(y, s, w, num_bins), abs=1e-12)


def test_spark_without_binning_is_exact():
    rng = np.random.default_rng(0)
    y = rng.random(5000) < 0.3
    s = rng.normal(size=5000) + y
    assert spark_roc_auc(y, s, num_bins=0) == pytest.approx(roc_auc_score(y, s), abs=1e-12)
    assert spark_roc_auc(y, s) != pytest.approx(roc_auc_score(y, s), abs=1e-6)  # 1,000 bins


def test_bad_summation_method_says_so():
    with pytest.raises(ValueError, match="summation_method must be one of"):
        keras_roc_auc([0, 1], [0.2, 0.7], summation_method="riemann")


@settings(max_examples=examples(80), deadline=None)
@given(binary_tables(max_size=129, max_models=1, weights=True), st.sampled_from([3, 5, 200]))
def test_keras_trapezoid_is_the_exact_auc_of_its_cells(table, num_thresholds):
    y, w = table.y, table.weights
    s = 1 / (1 + np.exp(-table.scores[0]))
    if w is not None and not (w[y].sum() > 0 and w[~y].sum() > 0):
        return
    cells = keras_cells(s, num_thresholds=num_thresholds)
    got = keras_roc_auc(y, s, num_thresholds=num_thresholds, sample_weight=w)
    assert got == pytest.approx(roc_auc_score(y, cells, sample_weight=w), abs=1e-12)


@settings(max_examples=examples(80), deadline=None)
@given(binary_tables(max_size=129, max_models=1, weights=True), st.sampled_from([0, 1, 2, 7, 50]))
def test_spark_auc_is_the_exact_auc_of_its_bins(table, num_bins):
    y, s, w = table.y, table.scores[0], table.weights
    if w is not None and not (w[y].sum() > 0 and w[~y].sum() > 0):
        return
    bins = spark_bins(s, num_bins=num_bins)
    got = spark_roc_auc(y, s, num_bins=num_bins, sample_weight=w)
    assert got == pytest.approx(roc_auc_score(y, -bins, sample_weight=w), abs=1e-12)


def _tied_pairs_by_loops(y, keys, w):
    return sum(
        w[i] * w[j] for i in np.flatnonzero(y) for j in np.flatnonzero(~y) if keys[i] == keys[j]
    )


@settings(max_examples=examples(60), deadline=None)
@given(binary_tables(max_size=40, max_models=1, weights=True))
def test_tied_pairs_and_what_each_convention_loses(table):
    y, s = table.y, table.scores[0]
    w = np.ones(y.size) if table.weights is None else table.weights
    assert tied_pairs(y, s, sample_weight=w) == pytest.approx(_tied_pairs_by_loops(y, s, w))
    p = 1 / (1 + np.exp(-s))
    got = {c.setting: c for c in roc_auc_conventions(y, p, sample_weight=w, num_bins=3)}
    exact = got["roc_auc_score"]
    assert exact.extra_tied_pairs == 0
    keras = got["keras.metrics.AUC(num_thresholds=200)"]
    cells = keras_cells(p)
    assert keras.tied_pairs == pytest.approx(_tied_pairs_by_loops(y, cells, w))
    assert keras.extra_tied_pairs == pytest.approx(keras.tied_pairs - exact.tied_pairs)
    assert keras.extra_tied_pairs >= -1e-9  # a convention only adds ties
    spark = got["BinaryClassificationEvaluator(numBins=3)"]
    assert spark.tied_pairs == pytest.approx(_tied_pairs_by_loops(y, spark_bins(p, num_bins=3), w))
    assert spark.extra_tied_pairs >= -1e-9


# --- rankings: NDCG@k and MAP@k under trec_eval's, scikit-learn's and LightGBM's conventions -----


def _queries(seed: int, ties: bool):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(3, 120))
    g = rng.integers(0, max(1, n // 6), n)
    y = np.where(rng.random(n) < 0.3, rng.integers(1, 4, n), 0)
    s = rng.integers(0, 4, n).astype(float) if ties else rng.random(n)
    return y, s, g


def _pytrec(y, s, g, k):
    """pytrec_eval with the row number as the document id (d00000000, d00000001, ...)."""
    import pytrec_eval

    qrel, run = {}, {}
    for i in range(len(y)):
        q, doc = str(g[i]), f"d{i:08d}"
        qrel.setdefault(q, {})[doc] = int(y[i])
        run.setdefault(q, {})[doc] = float(s[i])
    return pytrec_eval.RelevanceEvaluator(qrel, {f"ndcg_cut.{k}", f"map_cut.{k}"}).evaluate(run)


def _by(conventions, metric, library):
    return next(c for c in conventions if c.metric == metric and c.library == library)


@pytest.mark.parametrize(("seed", "ties"), [(s, t) for s in range(40) for t in (False, True)])
def test_trec_eval_convention_is_pytrec_evals_mean_over_every_query(seed, ties):
    y, s, g = _queries(seed, ties)
    k = 1 + seed % 7
    trec = _pytrec(y, s, g, k)
    got = ranking_conventions(y, s, g, k=k)
    assert len(trec) == np.unique(g).size  # trec_eval scores every query of the qrels
    ndcg = _by(got, "NDCG", "trec_eval")
    assert ndcg.value == pytest.approx(
        np.mean([v[f"ndcg_cut_{k}"] for v in trec.values()]), abs=1e-12
    )
    assert ndcg.n_counted == len(trec)
    ap = _by(got, "MAP", "trec_eval")
    assert ap.value == pytest.approx(np.mean([v[f"map_cut_{k}"] for v in trec.values()]), abs=1e-12)


@pytest.mark.parametrize(("seed", "ties"), [(s, t) for s in range(40) for t in (False, True)])
def test_sklearn_convention_is_ndcg_score_on_each_query(seed, ties):
    from sklearn.metrics import ndcg_score

    y, s, g = _queries(seed, ties)
    k = 1 + seed % 7
    per_query = sklearn_ndcg_per_query(y, s, g, k=k)
    for i, q in enumerate(np.unique(g)):
        rows = g == q
        if rows.sum() < 2:  # scikit-learn refuses a query of one row: the formula's value
            assert per_query[i] == float(y[rows][0] > 0)
            continue
        assert per_query[i] == pytest.approx(ndcg_score([y[rows]], [s[rows]], k=k), abs=1e-12)
    assert _by(ranking_conventions(y, s, g, k=k), "NDCG", "scikit-learn").value == pytest.approx(
        per_query.mean(), abs=1e-15
    )


def _lightgbm_ndcg_by_loops(y, s, g, k):
    """LightGBM's NDCG@k as its rank_metric computes it: label_gain 2^rel - 1, the query's rows
    stable-sorted by descending score, and 1 for a query whose ideal DCG is 0."""
    values = []
    for q in np.unique(g):
        rel, sc = y[g == q], s[g == q]
        order = sorted(range(rel.size), key=lambda i: -sc[i])  # stable
        dcg = sum((2.0 ** rel[i] - 1) / math.log2(r + 2) for r, i in enumerate(order[:k]))
        ideal = sorted(rel, reverse=True)[:k]
        idcg = sum((2.0**v - 1) / math.log2(r + 2) for r, v in enumerate(ideal))
        values.append(dcg / idcg if idcg > 0 else 1.0)
    return np.mean(values)


@pytest.mark.parametrize(("seed", "ties"), [(s, t) for s in range(20) for t in (False, True)])
def test_lightgbm_convention_equals_its_formula(seed, ties):
    y, s, g = _queries(seed, ties)
    k = 1 + seed % 7
    got = _by(ranking_conventions(y, s, g, k=k), "NDCG", "LightGBM").value
    assert got == pytest.approx(_lightgbm_ndcg_by_loops(y, s, g, k), abs=1e-12)


def test_this_librarys_rows_equal_its_own_functions():
    from metrics import mean_average_precision, ndcg_at_k

    y, s, g = _queries(3, True)
    got = ranking_conventions(y, s, g, k=5)
    assert _by(got, "NDCG", "metrics").value == ndcg_at_k(y, s, g, k=5)
    assert _by(got, "MAP", "metrics").value == mean_average_precision(y, s, g, k=5)
    assert _by(got, "MAP", "top-k MAP").value == mean_average_precision(
        y, s, g, k=5, denominator="min_k"
    )


@pytest.mark.parametrize("seed", range(20))
def test_tied_relevant_queries_by_loops(seed):
    y, s, g = _queries(seed, ties=True)
    want = sum(
        any(y[i] > 0 and np.sum((g == q) & (s == s[i])) > 1 for i in np.flatnonzero(g == q))
        for q in np.unique(g)
    )
    assert tied_relevant_queries(y, s, g) == want


# --- GAUC: RecBole's and TorchRec's formulas, ported loop by loop from their documented code --


@st.composite
def _user_tables(draw):
    """Users of 1-9 rows: one-class users, all-tied users, scores from a small set (ties),
    a score of 0 (TorchRec's padding value), optional weights with zeros."""
    n_users = draw(st.integers(1, 12))
    sizes = draw(st.lists(st.integers(1, 9), min_size=n_users, max_size=n_users))
    n = sum(sizes)
    g = np.repeat(np.arange(n_users) * 7 % 13, sizes)  # ids not in row order
    y = np.array(draw(st.lists(st.integers(0, 1), min_size=n, max_size=n)))
    pool = draw(st.sampled_from([[0.0, 0.5, 1.0], [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7], None]))
    if pool is None:
        s = np.array(draw(st.lists(st.floats(0.01, 1), min_size=n, max_size=n, unique=True)))
    else:
        s = np.array(draw(st.lists(st.sampled_from(pool), min_size=n, max_size=n)))
    w = draw(st.none() | st.lists(st.sampled_from([0.0, 0.5, 1.0, 3.0]), min_size=n, max_size=n))
    if y.min() == y.max():
        y[0] = 1 - y[0]
    return y, s, g, None if w is None else np.array(w)


def _recbole(y, s, g):
    """RecBole's GAUC.metric_info on mean descending ranks (its collector's rec.meanrank)."""
    from scipy.stats import rankdata

    num = den = 0.0
    for u in np.unique(g):
        yu, su = y[g == u], s[g == u]
        n, p = yu.size, int(yu.sum())
        if p == 0 or p == n:
            continue
        rank = rankdata(-su, method="average")
        pair_num = (n + 1) * p - p * (p + 1) / 2 - rank[yu == 1].sum()
        num += pair_num / ((n - p) * p) * p
        den += p
    return num / den if den else math.nan


def _torchrec(y, s, g, *, positives_first):
    """TorchRec's compute_gauc_3d on one task, each session padded to the longest with zeros,
    ties among a session's scores broken with the positives first (or last)."""
    users = list(dict.fromkeys(g.tolist()))  # sessions in order of first appearance
    width = max(int((g == u).sum()) for u in users)
    auc_sum = count = 0.0
    for u in users:
        yu, su = y[g == u].astype(float), s[g == u]
        n = yu.size
        pred = np.concatenate([su, np.zeros(width - n)])
        lab = np.concatenate([yu, np.zeros(width - n)])
        tie_key = -lab if positives_first else lab
        order = np.lexsort((tie_key, -pred))  # descending score
        sorted_lab = lab[order]
        rank = np.arange(width, 0, -1)
        num_zeros = (width - n) * (sorted_lab != 0)
        positive_rank = sorted_lab * rank - num_zeros
        p = sorted_lab.sum()
        auc = (positive_rank.sum() - p * (p + 1) / 2) / (p * (n - p) + 1e-10)
        identical = np.all((pred == pred[0]) | (pred == 0))
        if p >= 1 and p < n and not identical:
            auc_sum += auc
            count += 1
    return (auc_sum + 1e-9) / (count + 2e-9)


@settings(max_examples=examples(150), deadline=None)
@given(_user_tables())
def test_gauc_conventions_reproduce_recbole_and_torchrec(table):
    from metrics import group_auc_score
    from metrics.conventions import gauc_conventions

    y, s, g, w = table
    if np.any(s <= 0):  # TorchRec's padding meets a real score of 0 (said on the page)
        s = np.where(s <= 0, 0.05, s)
    din, recbole, plain, torchrec = gauc_conventions(y, s, g, sample_weight=w)
    if w is None or (w > 0).all():
        expected = group_auc_score(y, s, g, weighting="impressions", sample_weight=w)
        assert din.gauc == pytest.approx(expected, abs=1e-12) or math.isnan(expected)
    assert recbole.gauc == pytest.approx(_recbole(y, s, g), abs=1e-12, nan_ok=True)
    if torchrec.users:
        lo = _torchrec(y, s, g, positives_first=False)
        hi = _torchrec(y, s, g, positives_first=True)
        assert torchrec.low == pytest.approx(lo, abs=1e-8)
        assert torchrec.high == pytest.approx(hi, abs=1e-8)
        assert torchrec.low <= torchrec.gauc <= torchrec.high
    for c in (din, recbole, plain, torchrec):
        if not math.isnan(c.gauc - din.gauc):  # each user's share sums to the gap from the first
            assert c.contribution.sum() == pytest.approx(c.gauc - din.gauc, abs=1e-12)
        assert c.users + c.skipped == np.unique(g).size


def test_torchrec_skips_a_session_of_zeros_and_equal_scores():
    from metrics.conventions import gauc_conventions

    # u: the scores are its first score or 0, so TorchRec skips it; v: counted
    y = [1, 0, 0, 1, 0]
    s = [0.4, 0.0, 0.4, 0.9, 0.2]
    g = ["u", "u", "u", "v", "v"]
    torchrec = gauc_conventions(y, s, g)[-1]
    assert (torchrec.users, torchrec.skipped, torchrec.gauc) == (1, 1, 1.0)


# ---------------------------------------------------------------- PASCAL VOC's devkit, tie order


def _devkit_reference(y, s, method, order):
    """VOCevaldet.m and VOCap.m line by line in plain Python: detections in ``order``, one
    precision-recall point each; VOCap's envelope from the right and its sum over the recall
    steps, or VOC 2007's 11 levels."""
    npos = sum(y)
    tp = fp = 0
    rec, prec = [], []
    for i in order:
        tp, fp = tp + bool(y[i]), fp + (not y[i])
        rec.append(tp / npos)
        prec.append(tp / (tp + fp))
    if method == "voc11":
        ap = 0.0
        for t in np.arange(0.0, 1.1, 0.1):
            p = [q for r, q in zip(rec, prec, strict=True) if r >= t]
            ap += (max(p) if p else 0.0) / 11
        return ap
    mrec, mpre = [0.0, *rec, 1.0], [0.0, *prec, 0.0]
    for i in range(len(mpre) - 2, -1, -1):
        mpre[i] = max(mpre[i], mpre[i + 1])
    return sum(
        (mrec[i] - mrec[i - 1]) * mpre[i] for i in range(1, len(mrec)) if mrec[i] != mrec[i - 1]
    )


@settings(max_examples=examples(60), deadline=None)
@given(table=binary_tables(max_size=60, max_models=1), method=st.sampled_from(["voc11", "voc_all"]))
def test_voc_devkit_ap_is_the_devkit_in_row_order(table, method):
    from metrics import average_precision_score
    from metrics.conventions import voc_devkit_ap, voc_tie_range

    y, s = table.y, table.scores[0]
    stable = sorted(range(y.size), key=lambda i: -s[i])  # Python's sort is stable, as MATLAB's
    got = voc_devkit_ap(y, s, method=method)
    assert got == pytest.approx(_devkit_reference(y, s, method, stable), abs=1e-12)
    # the Python port's np.argsort(-confidence)
    port = voc_devkit_ap(y, s, method=method, sort="quicksort")
    assert port == pytest.approx(_devkit_reference(y, s, method, np.argsort(-s)), abs=1e-12)
    low, high = voc_tie_range(y, s, method=method)
    rng = np.random.default_rng(0)
    for _ in range(5):  # any order of the rows: within the range
        p = rng.permutation(y.size)
        v = voc_devkit_ap(y[p], s[p], method=method)
        assert low - 1e-12 <= v <= high + 1e-12
    assert low - 1e-12 <= got <= high + 1e-12
    if np.unique(s).size == s.size:  # no ties: one value
        assert low == pytest.approx(high, abs=1e-12)
    if method == "voc_all":
        # the library's grouped value is one no row order changes, inside the range too, and
        # the devkit's own without ties (voc11 differs where a recall is exactly 0.3, 0.6 or
        # 0.7: the port's np.arange levels are a hair above those)
        grouped = average_precision_score(y, s, method=method)
        assert low - 1e-12 <= grouped <= high + 1e-12
        if np.unique(s).size == s.size:
            assert got == pytest.approx(grouped, abs=1e-12)


def test_voc_devkit_ap_depends_on_the_row_order_of_ties():
    from metrics.conventions import voc_devkit_ap, voc_tie_range

    # a true and a false detection tied: true first gives 1, false first 0.5
    assert voc_devkit_ap([1, 0], [0.5, 0.5]) == 1.0
    assert voc_devkit_ap([0, 1], [0.5, 0.5]) == 0.5
    assert voc_tie_range([0, 1], [0.5, 0.5]) == (0.5, 1.0)
    # missed objects count in the recall: npos = 4 ground truths, 2 found
    assert voc_devkit_ap([1, 1, 0], [0.9, 0.8, 0.1], n_positive=4) == pytest.approx(0.5)
    with pytest.raises(ValueError, match="n_positive must be a number at least the 2 positive"):
        voc_devkit_ap([1, 1, 0], [0.9, 0.8, 0.1], n_positive=1)
    with pytest.raises(ValueError, match='method must be "voc11"'):
        voc_devkit_ap([1, 0], [0.5, 0.5], method="coco")
    with pytest.raises(ValueError, match="sort must be one of"):
        voc_devkit_ap([1, 0], [0.5, 0.5], sort="merge")

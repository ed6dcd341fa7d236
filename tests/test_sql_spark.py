"""metrics.sql on Spark (local[2]): the same numbers as DuckDB and the numpy library, and no
window over the whole table (the two-level running sums), read off the physical plan.

pyspark and Java are installed by ``make test``; without them this module fails, it does not skip.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import metrics
from metrics.sql import _queries as q
from metrics.sql import delong, local_spark, summarize
from metrics.sql._engine import SparkEngine


@pytest.fixture(scope="module")
def spark():
    session = local_spark()
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()


def _table(n: int = 3000) -> pd.DataFrame:
    rng = np.random.default_rng(7)
    y = (rng.random(n) < 0.3).astype(int)
    t = pd.DataFrame(
        {
            "clicked": y,
            "tied": np.round(rng.normal(size=n) + y, 1),
            "smooth": rng.normal(size=n) + 0.4 * y,
            "user": rng.integers(0, 80, n),
            "w": rng.uniform(0.2, 2.0, n),
        }
    )
    t.loc[5, "tied"] = np.nan
    return t


def test_spark_equals_duckdb_and_numpy(tmp_path, spark):
    t = _table()
    path = str(tmp_path / "t.parquet")
    t.to_parquet(path)
    s = summarize(path, "clicked", ["tied", "smooth"], group="user", engine="spark", spark=spark)
    d = summarize(path, "clicked", ["tied", "smooth"], group="user")
    ok = t.dropna()
    assert (s.rows, s.dropped) == (d.rows, d.dropped) == (len(ok), 1)
    for name in ("tied", "smooth"):
        m = s.models[name]
        assert m.auc == d.models[name].auc == metrics.roc_auc_score(ok.clicked, ok[name])
        assert m.average_precision == pytest.approx(
            metrics.average_precision_score(ok.clicked, ok[name]), abs=1e-12
        )
        assert m.ap("voc_all") == pytest.approx(
            metrics.average_precision_score(ok.clicked, ok[name], method="voc_all"), abs=1e-12
        )
        assert m.gauc == pytest.approx(
            metrics.group_auc_score(ok.clicked, ok[name], ok.user), abs=1e-12
        )


def test_spark_weighted(tmp_path, spark):
    t = _table()
    path = str(tmp_path / "t.parquet")
    t.to_parquet(path)
    s = summarize(path, "clicked", ["smooth"], weight="w", engine="spark", spark=spark)
    m = s.models["smooth"]
    want = metrics.roc_auc_score(t.clicked, t.smooth, sample_weight=t.w)
    assert m.auc == pytest.approx(want, abs=1e-12)


def test_no_window_runs_on_a_single_partition(tmp_path, spark):
    t = _table()
    path = str(tmp_path / "t.parquet")
    t.to_parquet(path)
    eng = SparkEngine(spark)
    eng.register(path)
    eng.view("clean", q.clean(q.SPARK, "src", "clicked", ["smooth"], positive="clicked = 1"))
    eng.view("counts_0", q.per_score(0, False))
    two_level = eng.plan(eng.cumulative("counts_0", 0))
    assert "Window" in two_level
    assert "SinglePartition" not in two_level
    # The check can fail: a plain running sum over the whole table is gathered on one partition.
    assert "SinglePartition" in eng.plan(q.cumulative("counts_0"))


def test_spark_no_overflow_at_1e10_rows(spark):
    eng = SparkEngine(spark)
    eng.view("counts", "SELECT * FROM VALUES (0.9E0, 3000000000L, 1000000000L), "
                       "(0.5E0, 1000000000L, 2000000000L), (0.1E0, 1000000001L, 1999999999L) "
                       "AS c(s, pos, neg)")  # fmt: skip
    pos = [3_000_000_000, 1_000_000_000, 1_000_000_001]
    neg = [1_000_000_000, 2_000_000_000, 1_999_999_999]
    twice_u, _ = eng.rows(q.areas(q.SPARK, eng.cumulative("counts", 3), False, sum(neg)))[0]
    below, want = sum(neg), 0
    for p, n in zip(pos, neg, strict=True):
        below -= n
        want += p * (2 * below + n)
    assert want > 2**63
    assert int(twice_u) == want


def test_spark_ranking_equals_the_numpy_library(tmp_path, spark):
    from metrics.sql import ranking_curves, ranking_summary

    rng = np.random.default_rng(3)
    n = 800
    t = pd.DataFrame(
        {
            "query": rng.integers(0, 40, n),
            "grade": rng.choice([0, 0, 1, 2], n).astype(float),
            "score": rng.normal(size=n),  # no ties: Spark's row order is the read order
        }
    )
    path = str(tmp_path / "r.parquet")
    t.to_parquet(path)
    got = ranking_summary(path, "grade", "score", "query", k=5, engine="spark", spark=spark)
    want = metrics.ranking_report(t.grade, t.score, t["query"], k=5)
    for metric in ("precision", "recall", "average_precision", "ndcg", "reciprocal_rank"):
        assert got.means[metric] == pytest.approx(want.mean(metric), abs=1e-12), metric
    # the curves' cut-offs from one ranking, on Spark's SQL too
    curves = ranking_curves(path, "grade", "score", "query", [1, 5, 3], engine="spark",
                            spark=spark, cap=10)  # fmt: skip
    for k, r in zip([1, 5, 3], curves, strict=True):
        want = metrics.ranking_report(t.grade, t.score, t["query"], k=k)
        assert r.report is None
        assert r.n_queries == want.n_queries
        for metric in ("precision", "recall", "average_precision", "ndcg", "reciprocal_rank"):
            assert r.means[metric] == pytest.approx(want.mean(metric), abs=1e-12), (k, metric)


def test_spark_delong_equals_the_numpy_library(tmp_path, spark):
    from tests.test_sql import _assert_delong_equals_the_rows

    t = _table()
    path = str(tmp_path / "t.parquet")
    t.to_parquet(path)
    s = delong(path, "clicked", ["tied", "smooth"], engine="spark", spark=spark)
    _assert_delong_equals_the_rows(s, t.dropna(), ["tied", "smooth"])


def test_spark_clustered_delong_equals_the_numpy_library(tmp_path, spark):
    t = _table()
    path = str(tmp_path / "t.parquet")
    t.to_parquet(path)
    s = delong(path, "clicked", ["tied", "smooth"], group="user", engine="spark", spark=spark)
    ok = t.dropna()
    got = s.clustered("tied", "smooth")
    want = metrics.clustered_auc_test(ok.clicked, ok.tied, ok.smooth, groups=ok.user)
    assert got.n_groups == want.n_groups == 80
    for f in ("auc_a", "std_error_a", "std_error_b", "std_error", "p_value"):
        assert getattr(got, f) == pytest.approx(getattr(want, f), rel=1e-9), f


def test_spark_keeps_every_grade_above_a_cut(tmp_path, spark):
    """pos_label ">0" (graded relevance) reads the same on Spark as in numpy."""
    rng = np.random.default_rng(11)
    n = 900
    t = pd.DataFrame(
        {"grade": rng.choice([0, 0, 1, 2, 3], n), "s": np.round(rng.normal(size=n), 1)}
    )
    path = str(tmp_path / "g.parquet")
    t.to_parquet(path)
    s = summarize(path, "grade", ["s"], pos_label=">0", engine="spark", spark=spark)
    assert s.positive == "> 0"
    assert s.models["s"].auc == metrics.roc_auc_score(t.grade > 0, t.s)


@pytest.mark.parametrize("num_bins", [1000, 7, 0])
def test_spark_evaluator_equals_metrics_conventions(spark, num_bins):
    """Spark's own BinaryClassificationEvaluator (areaUnderROC, ``numBins``) on one partition
    equals metrics.conventions.spark_roc_auc: its bins of distinct scores, not the exact AUC."""
    from pyspark.ml.evaluation import BinaryClassificationEvaluator

    from metrics.conventions import spark_roc_auc

    rng = np.random.default_rng(3)
    n = 5000
    y = (rng.random(n) < 0.3).astype(float)
    s = np.round(rng.random(n) * 0.6 + 0.4 * y, 4)  # ties, and more distinct scores than bins
    frame = spark.createDataFrame(pd.DataFrame({"label": y, "score": s})).coalesce(1)
    evaluator = BinaryClassificationEvaluator(
        rawPredictionCol="score", labelCol="label", metricName="areaUnderROC", numBins=num_bins
    )
    got = evaluator.evaluate(frame)
    want = spark_roc_auc(y, s, num_bins=num_bins)
    assert got == pytest.approx(want, abs=1e-12)
    if num_bins:
        assert want != pytest.approx(metrics.roc_auc_score(y, s), abs=1e-9)

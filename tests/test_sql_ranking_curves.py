"""metrics.sql.ranking_curves: every cut-off from one ranking of the rows, equal to
ranking_summary at each k and to the numpy library (metrics.ranking_report)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import metrics
from metrics.sql import ranking_curves, ranking_summary
from tests.strategies import examples
from tests.test_sql import _ranking_table

METRICS = ("precision", "recall", "average_precision", "ndcg", "reciprocal_rank")


@pytest.fixture(scope="module")
def table(tmp_path_factory):
    t = _ranking_table(n=1500)
    path = tmp_path_factory.mktemp("curves") / "r.parquet"
    t.to_parquet(path)
    return str(path), t.dropna().reset_index(drop=True)


@settings(max_examples=examples(12), deadline=None)
@given(
    ks=st.lists(st.integers(1, 14), min_size=1, max_size=6),
    gain=st.sampled_from(["linear", "exponential"]),
    denominator=st.sampled_from(["relevant", "min_k"]),
    cap=st.sampled_from([10, 10_000]),
)
def test_each_cut_off_equals_ranking_summary_and_the_numpy_library(
    table, ks, gain, denominator, cap
):
    path, ok = table
    options = {"gain": gain, "denominator": denominator}
    got = ranking_curves(path, "grade", "score", "query", ks, cap=cap, **options)
    assert [r.k for r in got] == ks  # in the order asked, repeats included
    for k, r in zip(ks, got, strict=True):
        one = ranking_summary(path, "grade", "score", "query", k=k, cap=cap, **options)
        want = metrics.ranking_report(ok.grade, ok.score, ok["query"], k=k, **options)
        assert (r.rows, r.dropped, r.n_queries, r.n_skipped) == (
            one.rows, one.dropped, one.n_queries, one.n_skipped,
        )  # fmt: skip
        assert (r.report is None) == (one.report is None) == (cap < want.n_queries)
        for m in METRICS:
            assert r.means[m] == pytest.approx(one.means[m], rel=1e-12)
            assert r.means[m] == pytest.approx(want.mean(m), rel=1e-12)
            if r.report is not None:
                np.testing.assert_array_equal(r.report.query, want.query)
                np.testing.assert_allclose(getattr(r.report, m), getattr(want, m),
                                           rtol=0, atol=1e-12, err_msg=m)  # fmt: skip


def test_bad_cut_offs_are_refused(table):
    path, _ = table
    with pytest.raises(ValueError, match="at least one cut-off"):
        ranking_curves(path, "grade", "score", "query", [])
    with pytest.raises(ValueError, match="positive int"):
        ranking_curves(path, "grade", "score", "query", [3, 0])

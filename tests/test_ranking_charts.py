"""The Ranking page's pure parts: tables, figures and explain LaTeX equal the library's numbers."""

from __future__ import annotations

import math
import warnings
from fractions import Fraction

import numpy as np
import pytest

import metrics
from ui.figures import ranking_charts as rc

SEED001_AP1 = (Fraction(1, 1) + Fraction(2, 2) + Fraction(3, 4) + Fraction(4, 7)) / 4
SEED001_AP2 = (Fraction(1, 1) + Fraction(2, 3) + Fraction(3, 5)) / 5


def random_input(rng, *, graded: bool, ties: bool, n_queries: int = 12) -> rc.RankingInput:
    sizes = rng.integers(1, 15, size=n_queries)
    groups = np.repeat(np.array([f"q{i:02d}" for i in range(n_queries)]), sizes)
    order = rng.permutation(groups.size)  # a query's rows need not be contiguous
    groups = groups[order]
    n = groups.size
    rel = rng.integers(0, 4, size=n).astype(float) if graded else (rng.random(n) < 0.3) * 1.0
    rel[groups == "q00"] = 0.0  # one skipped query
    scores = {
        "a": np.round(rng.random(n), 1) if ties else rng.random(n),
        "b": rng.normal(size=n) + rel,
    }
    return rc.RankingInput(
        name="random",
        models=("a", "b"),
        scores=scores,
        groups=groups,
        relevance_for=lambda m: rel,
        graded=graded,
    )


def _quiet(fn, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", metrics.UndefinedMetricWarning)
        return fn(*args, **kwargs)


# --- seed 001 preset ---------------------------------------------------------------------------


def test_seed001_preset_reproduces_the_article_exactly():
    data = rc.ir_textbook_example()
    r = rc.report(data, rc.IR_TEXTBOOK_MODEL, k=7, gain="linear", denominator="relevant")
    assert r.query.tolist() == ["topic 1", "topic 2"]
    assert r.n_relevant.tolist() == [4, 5]
    ap1, ap2 = r.average_precision.tolist()
    assert Fraction(ap1).limit_denominator(1000) == SEED001_AP1
    assert Fraction(ap2).limit_denominator(1000) == SEED001_AP2
    assert ap1 == pytest.approx(float(SEED001_AP1), abs=1e-15)
    assert ap2 == pytest.approx(float(SEED001_AP2), abs=1e-15)
    assert (round(ap1, 2), round(ap2, 2)) == (0.83, 0.45)
    mean_ap = r.mean("average_precision")
    assert Fraction(mean_ap).limit_denominator(20000) == (SEED001_AP1 + SEED001_AP2) / 2
    assert round(mean_ap, 2) == 0.64
    # The same numbers the seed tests get from their encoding, and with min(k, R) at k = 7.
    y, s, g = data.relevance_for(""), data.scores[rc.IR_TEXTBOOK_MODEL], data.groups
    assert mean_ap == metrics.mean_average_precision(y, s, g, k=7)
    assert mean_ap == metrics.mean_average_precision(y, s, g, k=7, denominator="min_k")


def test_seed001_ranks_are_the_articles():
    data = rc.ir_textbook_example()
    y, s, g = data.relevance_for(""), data.scores[rc.IR_TEXTBOOK_MODEL], data.groups
    b1 = rc.query_breakdown(y, s, g, "topic 1", k=7)
    b2 = rc.query_breakdown(y, s, g, "topic 2", k=7)
    assert (b1.rank[b1.relevant]).tolist() == [1, 2, 4, 7]
    assert (b2.rank[b2.relevant & b2.in_top_k]).tolist() == [1, 3, 5]
    assert int((b2.relevant & ~b2.in_top_k).sum()) == 2  # never retrieved
    assert b1.average_precision == pytest.approx(float(SEED001_AP1), abs=1e-15)
    assert b2.average_precision == pytest.approx(float(SEED001_AP2), abs=1e-15)


def test_seed001_ap_latex_is_the_articles_sum():
    data = rc.ir_textbook_example()
    y, s, g = data.relevance_for(""), data.scores[rc.IR_TEXTBOOK_MODEL], data.groups
    r = rc.report(data, rc.IR_TEXTBOOK_MODEL, k=7, gain="linear", denominator="relevant")
    lines1 = rc.ap_lines(rc.query_breakdown(y, s, g, "topic 1", k=7), r.average_precision)
    lines2 = rc.ap_lines(rc.query_breakdown(y, s, g, "topic 2", k=7), r.average_precision)
    assert lines1[1] == (
        r"= \frac{1}{4}\left(\frac{1}{1} + \frac{2}{2} + \frac{3}{4} + \frac{4}{7}\right)"
        " = 0.8304"
    )
    assert lines2[1] == (
        r"= \frac{1}{5}\left(\frac{1}{1} + \frac{2}{3} + \frac{3}{5} + 0 + 0\right) = 0.4533"
    )
    assert lines1[3] == r"= \frac{0.8304 + 0.4533}{2} = 0.6418"


# --- the per-query breakdown equals the library -------------------------------------------------


@pytest.mark.parametrize("seed", range(30))
def test_query_breakdown_equals_the_report(seed):
    rng = np.random.default_rng(seed)
    graded = seed % 2 == 0
    data = random_input(rng, graded=graded, ties=seed % 3 == 0)
    k = int(rng.integers(1, 12))
    gain = ("linear", "exponential")[seed % 2]
    denominator = ("relevant", "min_k")[(seed // 2) % 2]
    for model in data.models:
        r = rc.report(data, model, k=k, gain=gain, denominator=denominator)
        for i, q in enumerate(r.query.tolist()):
            b = rc.query_breakdown(
                data.relevance_for(model), data.scores[model], data.groups, q,
                k=k, gain=gain, denominator=denominator,
            )  # fmt: skip
            assert b.n_docs == r.n_docs[i]
            assert b.n_relevant == r.n_relevant[i]
            for got, want in (
                (b.precision_at_k, r.precision[i]),
                (b.recall_at_k, r.recall[i]),
                (b.average_precision, r.average_precision[i]),
                (b.ndcg, r.ndcg[i]),
                (b.reciprocal_rank, r.reciprocal_rank[i]),
            ):
                if np.isnan(want):
                    assert math.isnan(got)
                else:
                    assert got == pytest.approx(want, rel=1e-12, abs=1e-15)


def test_breakdown_keeps_tied_rows_in_row_order():
    y = np.array([0, 1, 0, 1.0])
    s = np.array([0.5, 0.5, 0.9, 0.5])
    b = rc.query_breakdown(y, s, np.zeros(4, int), 0, k=2)
    assert b.row.tolist() == [2, 0, 1, 3]
    assert b.precision_at_k == metrics.precision_at_k(y, s, np.zeros(4), k=2) == 0.0


def test_breakdown_frame_columns_and_terms():
    y = np.array([3, 0, 1, 2.0])
    s = np.array([0.1, 0.9, 0.5, 0.3])
    b = rc.query_breakdown(y, s, np.array(["q"] * 4), "q", k=3, gain="exponential")
    frame = b.frame()
    assert frame["rank"].tolist() == [1, 2, 3, 4]
    assert frame["row"].tolist() == [2, 3, 4, 1]
    assert frame["relevance"].tolist() == [0, 1, 2, 3]
    assert frame["gain"].tolist() == [0, 1, 3, 7]
    assert frame["ideal relevance"].tolist() == [3, 2, 1, 0]
    assert np.isnan(frame["DCG term"].iloc[3])  # below k
    assert frame["AP term"].iloc[1:3].tolist() == [1 / 2, 2 / 3]
    assert b.dcg == pytest.approx(1 / math.log2(3) + 3 / 2)
    assert b.ideal_dcg == pytest.approx(7 + 3 / math.log2(3) + 1 / 2)
    assert len(b.frame(2)) == 2
    with pytest.raises(ValueError, match="No row has query id 'x'"):
        rc.query_breakdown(y, s, np.array(["q"] * 4), "x", k=3)


# --- tables ------------------------------------------------------------------------------------


def test_model_table_equals_the_library_functions():
    rng = np.random.default_rng(7)
    data = random_input(rng, graded=True, ties=True)
    k, gain, denominator = 5, "exponential", "min_k"
    reports = {m: rc.report(data, m, k=k, gain=gain, denominator=denominator) for m in data.models}
    table = rc.model_metrics_table(reports, k).set_index("model")
    for m in data.models:
        y, s, g = data.relevance_for(m), data.scores[m], data.groups
        row = table.loc[m]
        assert row["P@5"] == metrics.precision_at_k(y, s, g, k=k)
        assert row["R@5"] == metrics.recall_at_k(y, s, g, k=k)
        assert row["MAP@5"] == metrics.mean_average_precision(y, s, g, k=k, denominator=denominator)
        assert row["NDCG@5"] == metrics.ndcg_at_k(y, s, g, k=k, gain=gain)
        assert row["MRR"] == metrics.mean_reciprocal_rank(y, s, g)
        skipped = int((np.bincount(np.unique(g, return_inverse=True)[1], weights=y) == 0).sum())
        assert row["skipped"] == reports[m].n_skipped == skipped >= 1
        assert row["queries counted"] == reports[m].n_queries - skipped


def test_per_query_frame_is_the_report():
    rng = np.random.default_rng(8)
    data = random_input(rng, graded=False, ties=False)
    r = rc.report(data, "b", k=4, gain="linear", denominator="relevant")
    frame = rc.per_query_frame(r)
    assert list(frame.columns) == [
        "query", "documents", "relevant", "P@4", "R@4", "AP@4", "NDCG@4", "RR",
    ]  # fmt: skip
    np.testing.assert_array_equal(frame["AP@4"], r.average_precision)
    np.testing.assert_array_equal(frame["RR"], r.reciprocal_rank)
    assert frame["query"].tolist() == r.query.tolist()


# --- metric@k curves ---------------------------------------------------------------------------


def test_k_grid_every_k_when_few_else_capped():
    assert rc.k_grid(9, 100, 1) == tuple(range(1, 10))
    ks = rc.k_grid(100, 6_000, 2)
    assert len(ks) <= 25
    assert ks[0] == 1
    assert ks[-1] == 100
    big = rc.k_grid(100, 1_000_000, 2)
    assert len(big) == 10  # rows x models x k values stays under the budget
    assert rc.k_grid(100, 50_000_000, 4)[-1] == 100
    assert len(rc.k_grid(100, 50_000_000, 4)) == 4


def test_curves_equal_the_library_at_every_k():
    rng = np.random.default_rng(9)
    data = random_input(rng, graded=True, ties=True)
    ks = (1, 3, 8)
    curves = rc.metric_at_k_curves(data, data.models, ks, gain="linear", denominator="relevant")
    for m in data.models:
        y, s, g = data.relevance_for(m), data.scores[m], data.groups
        for i, k in enumerate(ks):
            assert curves[m]["precision"][i] == metrics.precision_at_k(y, s, g, k=k)
            assert curves[m]["recall"][i] == metrics.recall_at_k(y, s, g, k=k)
            assert curves[m]["average_precision"][i] == metrics.mean_average_precision(y, s, g, k=k)
            assert curves[m]["ndcg"][i] == metrics.ndcg_at_k(y, s, g, k=k)
    fig = rc.metric_at_k_figure(ks, curves, k=3)
    assert len(fig.data) == 2 * 4  # one line per model and metric
    assert [t.name for t in fig.data if t.showlegend] == ["a", "b"]
    first = fig.data[0]
    assert list(first.x) == [1, 3, 8]
    np.testing.assert_array_equal(first.y, curves["a"]["precision"])
    assert len(fig.layout.shapes) == 4  # the chosen k, in each panel


# --- figures -----------------------------------------------------------------------------------


def test_histogram_bins_server_side_and_drops_skipped_queries():
    values = np.array([0.0, 0.05, 0.5, 1.0, 1.0, np.nan])
    fig = rc.per_query_histogram_figure({"AP": values, "NDCG": values[:3]}, bins=10)
    assert len(fig.data) == 2
    assert len(fig.data[0].x) == 10
    assert sum(fig.data[0].y) == 5
    assert fig.data[0].y[0] == 2
    assert fig.data[0].y[-1] == 2
    assert sum(fig.data[1].y) == 3


def test_query_gain_figure_sums_to_dcg_and_ideal_dcg():
    rng = np.random.default_rng(3)
    rel = rng.integers(0, 4, size=40).astype(float)
    s = rng.random(40)
    b = rc.query_breakdown(rel, s, np.zeros(40), 0.0, k=8, gain="exponential")
    fig = rc.query_gain_figure(b)
    model, ideal = fig.data
    assert len(model.x) == 20  # max(k + 5, 20) ranks of 40
    assert sum(model.y[:8]) == pytest.approx(b.dcg)
    assert sum(ideal.y[:8]) == pytest.approx(b.ideal_dcg)
    assert sum(model.y[:8]) / sum(ideal.y[:8]) == pytest.approx(
        metrics.ndcg_at_k(rel, s, np.zeros(40), k=8, gain="exponential"), rel=1e-12
    )
    assert fig.layout.shapes[0].x0 == 8.5
    short = rc.query_breakdown(rel[:5], s[:5], np.zeros(5), 0.0, k=10)
    assert len(rc.query_gain_figure(short).data[0].x) == 5
    assert not rc.query_gain_figure(short).layout.shapes  # k beyond the list: no line


# --- explain LaTeX -----------------------------------------------------------------------------


def test_precision_ndcg_and_rr_lines_substitute_the_query():
    y = np.array([0, 2, 0, 1.0, 0])
    s = np.array([5, 4, 3, 2, 1.0])
    g = np.zeros(5)
    b = rc.query_breakdown(y, s, g, 0.0, k=3, gain="exponential")
    p, r = rc.precision_lines(b)
    assert p.endswith(r"= \frac{1}{3} = 0.3333")
    assert r.endswith(r"= \frac{1}{2} = 0.5")
    ndcg = rc.ndcg_lines(b)
    assert ndcg[1] == r"= \frac{(2^{2} - 1)}{\log_2 3} = 1.893"
    assert ndcg[2].startswith(r"\text{IDCG@3} = \frac{(2^{2} - 1)}{\log_2 2} + ")
    want = _quiet(metrics.ndcg_at_k, y, s, g, k=3, gain="exponential")
    assert ndcg[3].endswith(f"= {want:.4g}")
    rr = rc.rr_lines(b, np.array([0.5, 1.0]))
    assert rr[0].endswith(r"= \frac{1}{2} = 0.5")
    assert rr[2] == r"= \frac{0.5 + 1}{2} = 0.75"


def test_min_k_denominator_and_long_sums():
    y = np.ones(30)
    s = -np.arange(30.0)
    b = rc.query_breakdown(y, s, np.zeros(30), 0.0, k=12, denominator="min_k")
    lines = rc.ap_lines(b, np.array([b.average_precision] * 7))
    assert r"\min(12, R)" in lines[0]
    assert lines[1].startswith(r"= \frac{1}{12}\left(")
    assert r"\dots\ (\text{12 terms in all}) + 0 \times 18" in lines[1]
    assert lines[1].endswith("= 1")
    assert lines[3] == r"= \frac{7}{7} = 1"  # more than 5 queries: the sum, not terms


def test_a_skipped_query_says_undefined_and_escapes_its_id():
    b = rc.query_breakdown(np.zeros(3), np.arange(3.0), np.array(["a_$1"] * 3), "a_$1", k=2)
    for lines in (
        rc.precision_lines(b),
        rc.ap_lines(b, np.array([0.5])),
        rc.ndcg_lines(b),
        rc.rr_lines(b, np.array([1.0])),
    ):
        assert len(lines) == 1
        assert r"query a\_\$1: no relevant document" in lines[0]
    assert math.isnan(b.average_precision)
    assert math.isnan(b.ndcg)


@pytest.mark.parametrize(
    "ids",
    [
        np.array([10**12, 5, 5, 10**12, -3, 5, -3]),
        np.array(["b", "a", "a", "b", "c", "a", "c"], dtype=object),
        np.array([2.5, 1.0, 1.0, 2.5, 0.5, 1.0, 0.5]),
    ],
)
def test_report_through_query_codes_equals_the_library_on_the_ids(ids):
    y = np.array([1, 0, 2, 0, 1, 1, 0.0])
    s = np.array([0.3, 0.2, 0.2, 0.9, 0.1, 0.5, 0.4])
    data = rc.RankingInput("ids", ("m",), {"m": s}, ids, lambda m: y, graded=True)
    got = rc.report(data, "m", k=2, gain="exponential", denominator="min_k")
    want = metrics.ranking_report(y, s, ids, k=2, gain="exponential", denominator="min_k")
    assert got.query.tolist() == want.query.tolist()
    for name, values in want.as_dict().items():
        np.testing.assert_array_equal(got.as_dict()[name], values)

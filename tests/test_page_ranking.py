"""The Ranking page headless (AppTest): it opens on every dataset and on the seed 001 preset, and
shows the library's and the seed's numbers."""

from __future__ import annotations

import base64
import json
import warnings
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

import metrics
from tests.apptest_utils import latex as _latex
from tests.apptest_utils import markdown_text as _markdown
from tests.apptest_utils import metric_value as _metric
from tests.apptest_utils import open_page
from tests.apptest_utils import upload as _upload
from ui.compute import data
from ui.tables.dataset import BUNDLED, DEFAULT_DATASET


def _open(dataset: str = "query_ranking", model: str | None = None) -> AppTest:
    return open_page(PAGE, dataset, model)


APP = str(Path(__file__).resolve().parent.parent / "app.py")
PAGE = "pages/ranking.py"


def _frame(at: AppTest, first_column: str, contains: str | None = None):
    for df in at.dataframe:
        value = df.value
        if value.columns[0] == first_column and (contains is None or contains in value.columns):
            return value
    raise AssertionError(f"no dataframe starting with {first_column!r}")


def _arr(v) -> np.ndarray:
    """A plotly array as sent: a list, or a typed array {"dtype", "bdata", "shape"}."""
    if isinstance(v, dict) and "bdata" in v:
        return np.frombuffer(base64.b64decode(v["bdata"]), dtype=v["dtype"])
    return np.asarray(v, dtype=float)


def _quiet(fn, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", metrics.UndefinedMetricWarning)
        return fn(*args, **kwargs)


def _arrays(dataset: str, model: str):
    ds = data.bundled_dataset(dataset)
    y = ds.prepared.relevance if ds.mapping.graded else ds.labels_for(model).astype(float)
    return y, ds.score(model), ds.prepared.groups


def _assert_cards(at, dataset, model, *, k, gain="linear", denominator="relevant"):
    y, s, g = _arrays(dataset, model)
    assert _metric(at, f"P@{k}") == f"{metrics.precision_at_k(y, s, g, k=k):.4f}"
    assert _metric(at, f"R@{k}") == f"{metrics.recall_at_k(y, s, g, k=k):.4f}"
    want_map = metrics.mean_average_precision(y, s, g, k=k, denominator=denominator)
    assert _metric(at, f"MAP@{k}") == f"{want_map:.4f}"
    assert _metric(at, f"NDCG@{k}") == f"{metrics.ndcg_at_k(y, s, g, k=k, gain=gain):.4f}"
    assert _metric(at, "MRR") == f"{metrics.mean_reciprocal_rank(y, s, g):.4f}"
    report = metrics.ranking_report(y, s, g, k=k, gain=gain, denominator=denominator)
    assert _metric(at, "Queries counted") == f"{report.n_queries - report.n_skipped:,}"
    return report


# --- query-grouped datasets ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("dataset", "model"),
    [
        ("query_ranking", "bm25_like"),
        ("query_ranking", "neural_like"),
        ("user_impressions", "model_a"),
        ("user_impressions", "model_b"),
    ],
)
def test_cards_tables_and_charts_equal_the_library(dataset, model):
    at = _open(dataset, model)
    assert not at.error
    report = _assert_cards(at, dataset, model, k=10)
    assert f"{report.n_skipped:,} skipped" in "\n".join(c.value for c in at.caption)
    # every model x metric
    table = _frame(at, "model").set_index("model")
    for m in data.bundled_dataset(dataset).models:
        y, s, g = _arrays(dataset, m)
        assert table.loc[m, "MAP@10"] == metrics.mean_average_precision(y, s, g, k=10)
        assert table.loc[m, "NDCG@10"] == metrics.ndcg_at_k(y, s, g, k=10)
    # the per-query report
    per_query = _frame(at, "query", "AP@10")
    assert per_query["query"].tolist() == report.query.tolist()
    np.testing.assert_array_equal(per_query["AP@10"], report.average_precision)
    np.testing.assert_array_equal(per_query["NDCG@10"], report.ndcg)
    np.testing.assert_array_equal(per_query["RR"], report.reciprocal_rank)
    # charts: the metric@k curves (4 panels per model), the histogram, the query's gains
    figs = [json.loads(c.proto.spec) for c in at.get("plotly_chart")]
    assert len(figs) == 3
    n_models = len(data.bundled_dataset(dataset).models)
    assert len(figs[0]["data"]) == 4 * n_models
    assert _arr(figs[1]["data"][0]["y"]).sum() == report.n_queries - report.n_skipped


def test_k_denominator_and_gain_change_the_numbers():
    at = _open("query_ranking")
    at.slider(key="ranking_k_dataset").set_value(3).run()
    at.radio(key="ranking_denominator").set_value("min_k").run()
    at.radio(key="ranking_gain").set_value("exponential").run()
    assert not at.exception
    _assert_cards(at, "query_ranking", "bm25_like", k=3, gain="exponential", denominator="min_k")
    y, s, g = _arrays("query_ranking", "bm25_like")
    # min(k, R) differs from R on this data, and the graded gains differ too
    assert metrics.mean_average_precision(y, s, g, k=3, denominator="min_k") != (
        metrics.mean_average_precision(y, s, g, k=3)
    )
    assert metrics.ndcg_at_k(y, s, g, k=3, gain="exponential") != metrics.ndcg_at_k(y, s, g, k=3)
    latex = "\n".join(_latex(at))
    assert r"\min(3, R)" in latex
    assert r"2^{rel_i} - 1" in latex


def test_query_inspector_equals_the_per_query_report():
    at = _open("query_ranking")
    at.selectbox(key="ranking_query_dataset").set_value("q007").run()
    assert not at.exception
    y, s, g = _arrays("query_ranking", "bm25_like")
    report = metrics.ranking_report(y, s, g, k=10)
    i = report.query.tolist().index("q007")
    text = _markdown(at)
    assert f"AP@10 **{report.average_precision[i]:.4f}**" in text
    assert f"NDCG@10 **{report.ndcg[i]:.4f}**" in text
    ranked = _frame(at, "rank")
    rows = np.flatnonzero(g == "q007")
    assert len(ranked) == rows.size
    assert (np.diff(ranked["score"]) <= 0).all()
    n_relevant = int((y[rows] > 0).sum())
    assert ranked["AP term"].sum() / n_relevant == pytest.approx(
        report.average_precision[i], rel=1e-12
    )
    dcg = ranked["DCG term"].sum()
    assert dcg / ranked["ideal DCG term"].sum() == pytest.approx(report.ndcg[i], rel=1e-12)
    latex = _latex(at)
    assert any(line.endswith(f"= {report.ndcg[i]:.4g}") and "NDCG" in line for line in latex)


def test_a_skipped_query_is_explained_not_an_error():
    at = _open("query_ranking")
    y, s, g = _arrays("query_ranking", "bm25_like")
    report = metrics.ranking_report(y, s, g, k=10)
    skipped = report.query[report.skipped][0]
    at.selectbox(key="ranking_query_dataset").set_value(skipped).run()
    assert not at.exception
    assert "none relevant: skipped by every mean" in _markdown(at)
    assert all("no relevant document" in line for line in _latex(at))


@pytest.mark.parametrize("dataset", ["breast_cancer", "digits_multilabel", "wine_multiclass"])
def test_data_without_query_ids_gets_an_info_and_a_way_out(dataset):
    at = _open(dataset)
    assert not at.metric
    assert any('"Search ranking"' in i.value for i in at.info)
    at.button(key="ranking_use_sample").click().run()
    assert not at.exception
    assert at.session_state["dataset"] == "query_ranking"
    _assert_cards(at, "query_ranking", "bm25_like", k=10)


def test_every_bundled_dataset_opens():
    at = _open(DEFAULT_DATASET)
    for dataset in BUNDLED:
        at.selectbox(key="dataset").set_value(dataset).run()
        assert not at.exception, (dataset, at.exception)


# --- seed 001 preset ----------------------------------------------------------------------------

AP1 = (Fraction(1, 1) + Fraction(2, 2) + Fraction(3, 4) + Fraction(4, 7)) / 4
AP2 = (Fraction(1, 1) + Fraction(2, 3) + Fraction(3, 5)) / 5


@pytest.mark.parametrize("dataset", ["breast_cancer", "query_ranking"])
def test_seed001_preset_shows_the_articles_numbers(dataset):
    at = _open(dataset)
    at.segmented_control(key="ranking_source").set_value("seed001").run()
    assert not at.exception
    assert at.slider(key="ranking_k_seed001").value == 7
    mean_ap = (AP1 + AP2) / 2
    assert _metric(at, "MAP@7") == f"{float(mean_ap):.4f}" == "0.6418"
    assert _metric(at, "Queries counted") == "2"
    per_query = _frame(at, "query", "AP@7")
    assert per_query["query"].tolist() == ["topic 1", "topic 2"]
    ap1, ap2 = per_query["AP@7"].tolist()
    assert Fraction(ap1).limit_denominator(1000) == AP1
    assert Fraction(ap2).limit_denominator(1000) == AP2
    assert ap1 == pytest.approx(float(AP1), abs=1e-15)
    assert ap2 == pytest.approx(float(AP2), abs=1e-15)
    text = _markdown(at)
    assert "to two decimals 0.83, 0.45 and 0.64" in text
    assert "(93/112)" in text
    assert "(34/75)" in text
    assert "(10783/16800)" in text
    latex = _latex(at)
    assert (
        r"= \frac{1}{4}\left(\frac{1}{1} + \frac{2}{2} + \frac{3}{4} + \frac{4}{7}\right)"
        " = 0.8304"
    ) in latex
    assert any(line.endswith(r"= \frac{0.8304 + 0.4533}{2} = 0.6418") for line in latex)
    # Topic 2: two relevant documents never retrieved add 0 + 0, as the article writes.
    at.selectbox(key="ranking_query_seed001").set_value("topic 2").run()
    assert not at.exception
    assert (
        r"= \frac{1}{5}\left(\frac{1}{1} + \frac{2}{3} + \frac{3}{5} + 0 + 0\right) = 0.4533"
    ) in _latex(at)
    ranked = _frame(at, "rank")
    assert ranked["rank"][ranked["relevance"] > 0].tolist() == [1, 3, 5, 8, 9]
    assert ranked["in top 7"].tolist() == [True] * 7 + [False] * 2


def test_seed001_preset_at_another_k_says_where_the_article_stands():
    at = _open()
    at.segmented_control(key="ranking_source").set_value("seed001").run()
    at.slider(key="ranking_k_seed001").set_value(3).run()
    assert not at.exception
    y = [1, 1, 0, 1, 0, 0, 1, 1, 0, 1, 0, 1, 0, 0, 1, 1]
    s = [7, 6, 5, 4, 3, 2, 1, 7, 6, 5, 4, 3, 2, 1, 0, 0]
    g = [1] * 7 + [2] * 9
    want = metrics.mean_average_precision(y, s, g, k=3)
    assert _metric(at, "MAP@3") == f"{want:.4f}"
    assert "are at k = 7" in _markdown(at)
    # Back on the dataset, its own k is kept.
    at.segmented_control(key="ranking_source").set_value("dataset").run()
    assert not at.exception
    assert at.slider(key="ranking_k_dataset").value == 10


# --- uploads ------------------------------------------------------------------------------------


def test_upload_with_a_query_column_and_ties():
    csv = b"query,clicked,score\na,1,0.5\na,0,0.5\na,1,0.9\nb,0,0.3\nb,1,0.2\nc,0,0.1\nc,0,0.4\n"
    at = _open()
    _upload(at, "clicks.csv", csv)
    at.switch_page(PAGE).run()
    assert not at.exception
    y = np.array([1, 0, 1, 0, 1, 0, 0.0])
    s = np.array([0.5, 0.5, 0.9, 0.3, 0.2, 0.1, 0.4])
    g = np.array(list("aaabbcc"))
    assert at.slider(key="ranking_k_dataset").max == 3  # the longest query
    assert at.slider(key="ranking_k_dataset").value == 3
    assert _metric(at, "MAP@3") == f"{metrics.mean_average_precision(y, s, g, k=3):.4f}"
    assert _metric(at, "P@3") == f"{metrics.precision_at_k(y, s, g, k=3):.4f}"
    assert _metric(at, "Queries counted") == "2"
    ranked = _frame(at, "rank")
    assert ranked["row"].tolist() == [3, 1, 2]  # tied 0.5s keep the row order


def test_upload_with_no_relevant_row_gets_a_warning():
    csv = b"query,relevance,score\na,0,0.5\na,0,0.4\nb,0,0.3\nb,0,0.2\n"
    at = _open()
    _upload(at, "graded.csv", csv)
    at.checkbox(key="map_graded_relevance").check().run()
    at.switch_page(PAGE).run()
    assert not at.exception
    assert not at.metric
    assert any("None of the 2 queries has a relevant document" in w.value for w in at.warning)


def test_many_queries_list_the_first_and_accept_a_typed_id():
    n = 2_100
    lines = ["query,clicked,score"] + [
        f"q{i:05d},{j % 2},{(i * 7 + j) % 13 / 13:.3f}" for i in range(n) for j in range(2)
    ]
    at = _open()
    _upload(at, "many.csv", "\n".join(lines).encode())
    at.switch_page(PAGE).run()
    assert not at.exception
    picker = at.selectbox(key="ranking_query_dataset")
    assert len(picker.options) == 2_000
    at.text_input(key="ranking_query_typed_dataset").input("q02050").run()
    assert not at.exception
    assert "Query **q02050**: 2 documents, 1 relevant" in _markdown(at)
    at.text_input(key="ranking_query_typed_dataset").input("nope").run()
    assert not at.exception
    assert any("No query has the id nope; showing q00000" in w.value for w in at.warning)
    assert "Query **q00000**" in _markdown(at)


def test_other_libraries_conventions_on_the_rows():
    from metrics.conventions import ranking_conventions

    at = _open()
    model = at.selectbox(key="model").value
    k = at.slider(key="ranking_k_dataset").value
    y, s, g = _arrays("query_ranking", model)
    want = ranking_conventions(y, s, g, k=k)
    shown = at.dataframe[-1].value
    assert list(shown["library"]) == [c.library for c in want]
    assert list(shown["value"]) == [f"{c.value:.4f}" for c in want]
    empty = want[0].n_queries - want[0].n_counted
    assert empty > 0  # the sample has queries with no relevant row: the conventions differ
    assert len(set(shown["value"][shown["metric"] == "NDCG"])) >= 3
    assert f"{empty} queries of {want[0].n_queries} have no relevant row" in _markdown(at)

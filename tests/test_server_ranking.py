"""The Ranking page on a server dataset: metrics.sql.ranking_summary over the approved files,
the same cards, tables and charts as on rows, each number equal to metrics.ranking_report on
the same rows read with pandas; a precise sentence where the engine cannot rank."""

from __future__ import annotations

import os
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

import metrics
from tests.apptest_utils import APP, figures
from tests.apptest_utils import decode_arrays as _decoded
from tests.apptest_utils import markdown_text as _markdown
from tests.apptest_utils import metric_value as _metric
from ui.tables.dataset import SAMPLE_DIR
from ui.tables.roles import NONE

ROOT = Path(__file__).resolve().parent.parent
PAGE = "pages/ranking.py"
METRICS = (("precision", "P"), ("recall", "R"), ("average_precision", "MAP"), ("ndcg", "NDCG"))

# (file, label, scores, query column, positive class) of the bundled query-grouped samples.
SAMPLES = {
    "user_impressions": ("user_impressions.csv", "clicked", ("model_a", "model_b"), "user_id", ""),
    "query_ranking": ("query_ranking.csv", "relevance", ("bm25_like", "neural_like"), "query_id",
                      "3"),
}  # fmt: skip


def _link(file: str, label: str, scores, group: str | None = None, pos: str = "") -> AppTest:
    """The app opened by a ``?source=server&dataset=...`` link, on the Ranking page."""
    at = AppTest.from_file(APP, default_timeout=180)
    at.query_params["source"] = "server"
    at.query_params["dataset"] = file
    at.query_params["label"] = label
    at.query_params["score"] = list(scores)
    if group:
        at.query_params["group"] = group
    if pos:
        at.query_params["pos"] = pos
    at.run()
    assert not at.exception, at.exception
    at.switch_page(PAGE).run()
    assert not at.exception, at.exception
    return at


def _report(y, s, g, **options) -> metrics.RankingReport:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", metrics.UndefinedMetricWarning)
        return metrics.ranking_report(y, s, g, **options)


def _mean(r: metrics.RankingReport, metric: str) -> float:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", metrics.UndefinedMetricWarning)
        return r.mean(metric)


def _frame(at: AppTest, first_column: str, contains: str) -> pd.DataFrame:
    return next(
        d.value
        for d in at.dataframe
        if d.value.columns[0] == first_column and contains in d.value.columns
    )


def _assert_page_equals(at: AppTest, t: pd.DataFrame, label, scores, group, model, **options):
    """Cards, every-model table, per-query table, curves and histogram against the library."""
    k = options["k"]
    y = t[label].to_numpy(np.float64)
    g = t[group].to_numpy()
    want = _report(y, t[model].to_numpy(), g, **options)
    assert _metric(at, f"P@{k}") == f"{_mean(want, 'precision'):.4f}"
    assert _metric(at, f"R@{k}") == f"{_mean(want, 'recall'):.4f}"
    assert _metric(at, f"MAP@{k}") == f"{_mean(want, 'average_precision'):.4f}"
    assert _metric(at, f"NDCG@{k}") == f"{_mean(want, 'ndcg'):.4f}"
    assert _metric(at, "MRR") == f"{_mean(want, 'reciprocal_rank'):.4f}"
    assert _metric(at, "Queries counted") == f"{want.n_queries - want.n_skipped:,}"
    table = _frame(at, "model", "MRR").set_index("model")
    for m in scores:
        r = _report(y, t[m].to_numpy(), g, **options)
        for attr, short in METRICS:
            assert table.loc[m, f"{short}@{k}"] == pytest.approx(_mean(r, attr), rel=1e-12)
        assert table.loc[m, "MRR"] == pytest.approx(_mean(r, "reciprocal_rank"), rel=1e-12)
        assert table.loc[m, "skipped"] == r.n_skipped
    per_query = _frame(at, "query", "RR")
    assert per_query["query"].astype(str).tolist() == want.query.astype(str).tolist()
    np.testing.assert_array_equal(per_query["documents"], want.n_docs)
    np.testing.assert_array_equal(per_query["relevant"], want.n_relevant)
    for column, values in ((f"P@{k}", want.precision), (f"AP@{k}", want.average_precision),
                           (f"NDCG@{k}", want.ndcg), ("RR", want.reciprocal_rank)):  # fmt: skip
        np.testing.assert_allclose(per_query[column].to_numpy(float), values, rtol=1e-12)
    curves, histogram, gains = figures(at)
    assert len(curves["data"]) == 4 * len(scores)
    for i, m in enumerate(scores):  # each model's four traces: P, R, MAP, NDCG at each k
        traces = curves["data"][4 * i : 4 * i + 4]
        ks = [int(v) for v in _decoded(traces[0]["x"])]
        assert ks[0] == 1
        for trace, (attr, _) in zip(traces, METRICS, strict=True):
            assert trace["name"] == m
            at_k = [_mean(_report(y, t[m].to_numpy(), g, **(options | {"k": kk})), attr)
                    for kk in ks]  # fmt: skip
            np.testing.assert_allclose(np.asarray(_decoded(trace["y"]), float), at_k, rtol=1e-12)
    assert np.asarray(_decoded(histogram["data"][0]["y"])).sum() == want.n_queries - want.n_skipped
    assert gains["data"]
    return want


@pytest.fixture(autouse=True)
def _sample_directory(monkeypatch):
    """The server's data directory is the bundled samples' (the default), unless a test moves it."""
    monkeypatch.delenv("METRICS_LENS_DATA_DIR", raising=False)


@pytest.mark.parametrize("name", list(SAMPLES))
def test_the_page_equals_the_library_on_the_same_rows(name):
    file, label, scores, group, pos = SAMPLES[name]
    at = _link(file, label, scores, group, pos)
    assert not at.error
    assert not at.warning
    t = pd.read_csv(SAMPLE_DIR / file)
    _assert_page_equals(at, t, label, scores, group, scores[0], k=10)
    said = " ".join(c.value for c in at.caption)
    assert "metrics.sql.ranking_summary" in said
    if name == "user_impressions":
        assert "Relevance is binary: 1 for clicked (clicked = 1), else 0" in said
    else:  # the label's grades, as the rows path's graded sample, not "relevance = 3"
        assert "Graded relevance from relevance (0 to 3; > 0 is relevant)" in said
        assert "not as the positive class 3" in said


def test_k_denominator_and_gain_reach_the_engine():
    file, label, scores, group, pos = SAMPLES["query_ranking"]
    at = _link(file, label, scores, group, pos)
    at.slider(key="ranking_k_dataset").set_value(3).run()
    at.radio(key="ranking_denominator").set_value("min_k").run()
    at.radio(key="ranking_gain").set_value("exponential").run()
    assert not at.exception, at.exception
    t = pd.read_csv(SAMPLE_DIR / file)
    options = {"k": 3, "gain": "exponential", "denominator": "min_k"}
    _assert_page_equals(at, t, label, scores, group, scores[0], **options)
    # the options change the numbers on this data (graded relevance 0-3)
    y, s, g = t[label].to_numpy(float), t[scores[0]].to_numpy(), t[group].to_numpy()
    assert _mean(_report(y, s, g, **options), "ndcg") != _mean(_report(y, s, g, k=3), "ndcg")
    assert _mean(_report(y, s, g, **options), "average_precision") != _mean(
        _report(y, s, g, k=3), "average_precision"
    )


def test_the_query_inspector_reads_one_querys_rows_in_the_files_order(tmp_path, monkeypatch):
    """Integer query ids, tied scores (kept in row order), a NaN score dropped as the engine
    drops it: the inspector's ranks and terms are the per-query report's."""
    root = tmp_path / "data"
    root.mkdir()
    rng = np.random.default_rng(3)
    n = 400
    t = pd.DataFrame({
        "session": rng.integers(0, 25, n),
        "clicked": (rng.random(n) < 0.3).astype(int),
        "score": np.round(rng.random(n), 1),  # many ties
    })  # fmt: skip
    t.loc[5, "score"] = np.nan
    t.to_parquet(root / "sessions.parquet")
    monkeypatch.setenv("METRICS_LENS_DATA_DIR", str(root))
    at = _link("sessions.parquet", "clicked", ["score"], "session")
    kept = t.dropna()
    y, s, g = kept.clicked.to_numpy(float), kept.score.to_numpy(), kept.session.to_numpy()
    want = _report(y, s, g, k=10)
    assert _metric(at, "MAP@10") == f"{_mean(want, 'average_precision'):.4f}"
    said = " ".join(c.value for c in at.caption)
    assert "399 rows ranked by duckdb (1 dropped: NULL or NaN relevance, score or query)" in said
    query = int(want.query[~want.skipped][3])
    at.selectbox(key="ranking_query_dataset").set_value(str(query)).run()
    assert not at.exception, at.exception
    i = want.query.tolist().index(query)
    text = _markdown(at)
    assert f"AP@10 **{want.average_precision[i]:.4f}**" in text
    assert f"NDCG@10 **{want.ndcg[i]:.4f}**" in text
    ranked = _frame(at, "rank", "AP term")
    rows = np.flatnonzero(g == query)
    order = rows[np.argsort(-s[rows], kind="stable")]  # ties in row order, as the library
    np.testing.assert_array_equal(ranked["score"], s[order])
    np.testing.assert_array_equal(ranked["relevance"], y[order])
    # row: the query's rows counted from 1 in the files' order
    np.testing.assert_array_equal(ranked["row"], np.searchsorted(rows, order) + 1)
    assert ranked["AP term"].sum() / want.n_relevant[i] == pytest.approx(
        want.average_precision[i], rel=1e-12
    )


def test_without_a_query_column_the_page_says_where_to_pick_one():
    file, label, scores, _, _ = SAMPLES["user_impressions"]
    at = _link(file, label, scores)
    at.selectbox(key="server_group").set_value(NONE).run()
    at.switch_page(PAGE).run()
    assert not at.exception, at.exception
    assert not at.metric
    assert any(
        "Ranking metrics need a query or user id: pick one under Columns → User or query column"
        in i.value
        for i in at.info
    )


def test_a_summary_file_says_it_has_no_rows(tmp_path, monkeypatch):
    root = tmp_path / "data"
    root.mkdir()
    r = subprocess.run(
        [sys.executable, "-m", "metrics.sql", str(SAMPLE_DIR / "user_impressions.csv"),
         "--label", "clicked", "--score", "model_a", "--group", "user_id",
         "--out", str(root / "impressions.npz")],
        cwd=ROOT, capture_output=True, text=True, timeout=120, env=dict(os.environ),
    )  # fmt: skip
    assert r.returncode == 0, r.stderr
    monkeypatch.setenv("METRICS_LENS_DATA_DIR", str(root))
    at = AppTest.from_file(APP, default_timeout=120)
    at.query_params["source"] = "server"
    at.query_params["dataset"] = "impressions.npz"
    at.run()
    at.switch_page(PAGE).run()
    assert not at.exception, at.exception
    assert not at.metric
    assert any(
        "is a summary file: it holds each model's per-score counts" in i.value
        and "Open the Parquet or CSV files it was made from" in i.value
        for i in at.info
    )


@pytest.mark.parametrize(
    ("outcome", "pos", "said"),
    [
        (["yes", "no"] * 6, "yes", "takes a relevance column, not a positive class), and outcome "
         "is varchar"),
        ([-1, 0, 1] * 4, "1", "a grade >= 0 (0 = not relevant), and outcome goes down to -1"),
        ([1, 0] * 6, "0", "Relevance is binary: 1 where outcome = 1, else 0. The engine's ranking "
         "pass reads relevance as the column's value, so the positive class 0 the other pages "
         "use does not apply here."),
    ],
)  # fmt: skip
def test_the_label_is_read_as_relevance_or_the_page_says_why_not(
    tmp_path, monkeypatch, outcome, pos, said
):
    root = tmp_path / "data"
    root.mkdir()
    t = pd.DataFrame(
        {"q": np.repeat(["a", "b", "c"], 4), "outcome": outcome, "score": np.linspace(0, 1, 12)}
    )
    t.to_parquet(root / "labels.parquet")
    monkeypatch.setenv("METRICS_LENS_DATA_DIR", str(root))
    at = _link("labels.parquet", "outcome", ["score"], "q", pos)
    if pos == "0":  # ranked, with relevance = outcome (> 0), as the caption says
        assert said in " ".join(c.value for c in at.caption)
        want = _report(t.outcome.to_numpy(float), t.score.to_numpy(), t.q.to_numpy(), k=4)
        assert _metric(at, "MAP@4") == f"{_mean(want, 'average_precision'):.4f}"
    else:
        assert not at.metric
        assert any(said in i.value for i in at.info)


def test_over_the_engines_cap_the_means_still_show(monkeypatch):
    """More queries than the engine keeps per-query values for: the cards and the table from
    its means, and a sentence where the per-query parts would be."""
    from ui.views import server_ranking

    monkeypatch.setattr(server_ranking, "CAP", 50)
    monkeypatch.setattr(server_ranking, "AUTO_CURVE_ROWS", 1)  # the curves wait for a click
    file, label, scores, group, pos = SAMPLES["user_impressions"]
    at = _link(file, label, scores, group, pos)
    t = pd.read_csv(SAMPLE_DIR / file)
    y, g = t[label].to_numpy(float), t[group].to_numpy()
    want = _report(y, t[scores[0]].to_numpy(), g, k=10)
    assert _metric(at, "MAP@10") == f"{_mean(want, 'average_precision'):.4f}"
    assert _metric(at, "Queries counted") == f"{want.n_queries - want.n_skipped:,}"
    assert any("The engine kept the means only: 300 queries" in i.value for i in at.info)
    assert not figures(at)
    at.button(key="ranking_server_curves_run").click().run()
    assert not at.exception, at.exception
    (curves,) = figures(at)
    assert len(curves["data"]) == 4 * len(scores)

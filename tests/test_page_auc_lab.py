"""The AUC lab page headless (AppTest): it opens on every dataset and preset and shows the
library's and seed 004's numbers."""

from __future__ import annotations

import base64
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

import metrics
from tests.apptest_utils import figures as _figs
from tests.apptest_utils import latex as _latex
from tests.apptest_utils import markdown_text as _markdown
from tests.apptest_utils import metric_value as _metric
from tests.apptest_utils import open_page, upload_frame
from ui.compute import data
from ui.figures import auc_charts as ac
from ui.tables.dataset import DEFAULT_DATASET


def _open(dataset: str = DEFAULT_DATASET, model: str | None = None) -> AppTest:
    return open_page(PAGE, dataset, model)


def _upload(at: AppTest, frame: pd.DataFrame) -> AppTest:
    return upload_frame(at, frame)


APP = str(Path(__file__).resolve().parent.parent / "app.py")
PAGE = "pages/auc_lab.py"


def _arr(v) -> np.ndarray:
    """A plotly array as sent: a (nested) list, or a typed array {"dtype", "bdata", "shape"}."""
    if isinstance(v, dict) and "bdata" in v:
        flat = np.frombuffer(base64.b64decode(v["bdata"]), dtype=v["dtype"])
        shape = [int(n) for n in str(v.get("shape", flat.size)).split(",")]
        return flat.reshape(shape)
    return np.asarray(v, dtype=float)


@pytest.mark.parametrize(
    ("dataset", "model"),
    [
        ("breast_cancer", "logistic_regression"),
        ("breast_cancer", "naive_bayes"),
        ("user_impressions", "model_a"),
        ("digits_multilabel", "score_even"),
        ("wine_multiclass", "score_class_1"),
        ("query_ranking", "bm25_like"),
    ],
)
def test_bundled_data_shows_three_equal_numbers(dataset, model):
    at = _open(dataset, model)
    assert [h.value for h in at.header] == ["AUC lab"]
    assert not at.error
    ds = data.bundled_dataset(dataset)
    y, s = ds.labels_for(model), ds.score(model)
    auc = metrics.roc_auc_score(y, s)
    for label in ("Pair counting", "Rank sum", "Library roc_auc_score"):
        assert _metric(at, label) == f"{auc:.4f}", label
    assert _metric(at, "Pairs P·N") == f"{y.sum() * (~y).sum():,}"
    # the grid: a seeded sample of 40 per class, whose mean the page reports as the sample's AUC
    grid = metrics.auc_pair_grid(y, s, max_per_class=40, seed=0)
    heat = _figs(at)[0]["data"][0]
    assert heat["type"] == "heatmap"
    np.testing.assert_array_equal(_arr(heat["z"]), grid.outcome)
    assert f"the grid's mean ({grid.auc:.4f}) is the sample's AUC" in " ".join(
        c.value for c in at.caption
    )
    pc = ac.pair_counts(metrics.threshold_counts(y, s))
    assert f"{pc.wins:,} win" in " ".join(c.value for c in at.caption)
    # the rank sum with the page's numbers
    t = metrics.auc_rank_table(y, s)
    assert ac.rank_sum_text(t) in _markdown(at)
    assert _latex(at)[-1] == ac.rank_sum_latex(t)[-1]
    # the ROC staircase: every diagonal counted, from the run counts
    roc = _figs(at)[1]
    n_diag = ac.diagonal_runs(metrics.threshold_counts(y, s)).size
    names = [trace.get("name", "") for trace in roc["data"]]
    assert any(f"({n_diag:,} diagonal" in n for n in names) == (n_diag > 0)


@pytest.mark.parametrize("title", list(ac.PRESETS))
def test_presets_show_the_seed_numbers(title):
    at = _open()
    at.selectbox(key="auclab_preset").set_value(title).run()
    assert not at.exception
    p = ac.PRESETS[title]
    exact = {
        "AUC 0.75: no ties": ("0.7500", "**3 wins**, **0 ties**, **1 loss**", "3/4"),
        "AUC 0.875: a tie counts 1/2": (
            "0.8750",
            "**3 wins**, **1 tie**, **0 losses**",
            "3.5/4",
        ),
        "AUC 10/12: the rank formula with ties": (
            "0.8333",
            "**8 wins**, **4 ties**, **0 losses**",
            "10/12",
        ),
    }[title]
    value, outcomes, fraction = exact
    for label in ("Pair counting", "Rank sum", "Library roc_auc_score"):
        assert _metric(at, label) == value
    assert f"{metrics.roc_auc_score(p.y, p.scores):.4f}" == value
    lines = [m.value for m in at.markdown]
    pair_line = next(line for line in lines if line.startswith(outcomes))
    rank_line = next(line for line in lines if line.startswith("AUC = (R − P(P+1)/2)"))
    assert f"= {fraction} = " in pair_line
    assert f"= {fraction} = " in rank_line
    # the grid is the whole (small) data, not a sample, and no sample controls are offered
    heat = _figs(at)[0]["data"][0]
    grid = metrics.auc_pair_grid(p.y, p.scores)
    np.testing.assert_array_equal(_arr(heat["z"]), grid.outcome)
    assert not [s for s in at.slider if s.key == "auclab_sample"]
    table = at.dataframe[0].value
    t = metrics.auc_rank_table(p.y, p.scores)
    assert table["rank"].tolist() == t.rank.tolist()
    assert table["label"].tolist() == t.positive.astype(int).tolist()


def test_rank_preset_table_and_formula_are_the_seeds():
    at = _open()
    at.selectbox(key="auclab_preset").set_value("AUC 10/12: the rank formula with ties").run()
    table = at.dataframe[0].value
    assert table["rank"].tolist() == [1, 3.5, 3.5, 3.5, 3.5, 6, 7]
    assert "**R = 20**" in _markdown(at)
    assert "(20 − 10) / (4·3) = 10/12 = 0.8333" in _markdown(at)
    latex = _latex(at)
    assert r"R_{pos} = 3.5 + 3.5 + 6 + 7 = 20" in latex
    assert any(r"\frac{8 + 4/2}{4 \cdot 3}" in line for line in latex)
    roc = _figs(at)[1]
    diag = [tr for tr in roc["data"] if tr.get("name", "").startswith("tied")]
    assert len(diag) == 1
    assert _arr(diag[0]["x"])[:2].tolist() == pytest.approx([0, 2 / 3])
    # back to the data
    at.selectbox(key="auclab_preset").set_value("Current data").run()
    assert not at.exception
    assert at.slider(key="auclab_sample").value == 40


def test_sample_size_and_seed_change_the_grid():
    at = _open()
    ds = data.bundled_dataset(DEFAULT_DATASET)
    model = at.session_state["model"]
    y, s = ds.labels_for(model), ds.score(model)
    at.slider(key="auclab_sample").set_value(150).run()
    assert not at.exception
    z = _arr(_figs(at)[0]["data"][0]["z"])
    assert z.shape == (150, 150)
    np.testing.assert_array_equal(z, metrics.auc_pair_grid(y, s, max_per_class=150).outcome)
    at.number_input(key="auclab_seed").set_value(7).run()
    assert not at.exception
    grid = metrics.auc_pair_grid(y, s, max_per_class=150, seed=7)
    np.testing.assert_array_equal(_arr(_figs(at)[0]["data"][0]["z"]), grid.outcome)
    assert f"= {grid.auc:.4g}" in _markdown(at)
    # the three full-data numbers do not depend on the sample
    assert _metric(at, "Rank sum") == f"{metrics.roc_auc_score(y, s):.4f}"


def test_rank_view_switches_to_tied_groups():
    at = _open("user_impressions", "model_a")
    ds = data.bundled_dataset("user_impressions")
    t = metrics.auc_rank_table(ds.labels_for("model_a"), ds.score("model_a"))
    assert len(at.dataframe[0].value) == 2 * ac.ENDS
    at.segmented_control(key="auclab_rank_view").set_value("ties").run()
    assert not at.exception
    shown = at.dataframe[0].value
    expected, note = ac.rank_view(t, "ties")
    assert shown["position"].tolist() == expected["position"].tolist()
    assert note in [c.value for c in at.caption]


def test_one_class_data_gives_an_info_message():
    at = AppTest.from_file(APP, default_timeout=60)
    at.run()
    _upload(at, pd.DataFrame({"label": [1, 1, 1, 1], "score": [0.2, 0.4, 0.4, 0.9]}))
    at.switch_page(PAGE).run()
    assert not at.exception
    assert any("AUC needs both classes" in i.value for i in at.info)
    assert not at.metric
    # a worked example still works from there
    at.selectbox(key="auclab_preset").set_value("AUC 0.75: no ties").run()
    assert not at.exception
    assert _metric(at, "Rank sum") == "0.7500"


def test_multilabel_class_without_positives_gives_an_info_message():
    at = AppTest.from_file(APP, default_timeout=60)
    at.run()
    frame = pd.DataFrame(
        {
            "label_a": [1, 0, 1, 0],
            "score_a": [0.9, 0.1, 0.6, 0.4],
            "label_b": [0, 0, 0, 0],
            "score_b": [0.3, 0.2, 0.5, 0.1],
        }
    )
    _upload(at, frame)
    at.switch_page(PAGE).run()
    assert not at.exception
    at.selectbox(key="model").set_value("score_b").run()
    assert not at.exception
    assert any("AUC needs both classes" in i.value for i in at.info)
    at.selectbox(key="model").set_value("score_a").run()
    assert _metric(at, "Library roc_auc_score") == "1.0000"


def test_weighted_upload_counts_rows_and_names_the_weighted_auc():
    rng = np.random.default_rng(3)
    frame = pd.DataFrame(
        {
            "label": (rng.random(60) < 0.4).astype(int),
            "score": np.round(rng.random(60), 1),
            "weight": rng.integers(1, 5, size=60).astype(float),
        }
    )
    at = AppTest.from_file(APP, default_timeout=60)
    at.run()
    _upload(at, frame)
    at.switch_page(PAGE).run()
    assert not at.exception
    assert at.selectbox(key="map_weight").value == "weight"
    y, s, w = frame["label"].to_numpy() == 1, frame["score"].to_numpy(), frame["weight"].to_numpy()
    assert _metric(at, "Library roc_auc_score") == f"{metrics.roc_auc_score(y, s):.4f}"
    weighted = metrics.roc_auc_score(y, s, sample_weight=w)
    assert any(f"the weighted AUC is {weighted:.4f}" in c.value for c in at.caption)
    # small data: the grid is every pair and its mean is the pair-count AUC
    grid = metrics.auc_pair_grid(y, s, max_per_class=40)
    assert not grid.sampled
    assert _metric(at, "Pair counting") == f"{grid.auc:.4f}"
    assert grid.ties > 0


def test_other_libraries_conventions_are_the_librarys_values_on_the_rows():
    from metrics.conventions import keras_roc_auc, spark_roc_auc, tied_pairs

    at = _open("user_impressions")
    ds = data.bundled_dataset("user_impressions")
    model = at.selectbox(key="model").value
    y, s = ds.labels_for(model), ds.score(model)
    shown = at.dataframe[-1].value  # the last table of the page
    assert list(shown["library"]) == ["scikit-learn", "Keras", "Keras", "Keras", "Spark"]
    want = [
        metrics.roc_auc_score(y, s),
        keras_roc_auc(y, s),
        keras_roc_auc(y, s, summation_method="minoring"),
        keras_roc_auc(y, s, summation_method="majoring"),
        spark_roc_auc(y, s),
    ]
    assert list(shown["ROC AUC"]) == [f"{v:.4f}" for v in want]
    assert len({f"{v:.4f}" for v in want}) >= 3  # these rows tell the conventions apart
    assert shown["tied pairs"][0] == f"{tied_pairs(y, s):,.0f}"
    text = _markdown(at)
    distinct = np.unique(s).size
    assert f"cuts the {distinct:,} distinct scores" in text
    assert f"runs of {distinct // 1000:,}" in text

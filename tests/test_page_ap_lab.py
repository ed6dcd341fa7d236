"""The AP lab page runs headless (AppTest) and shows the library's and the seeds' numbers."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

import metrics
from metrics import AP_METHODS
from tests.apptest_utils import decode_arrays
from tests.apptest_utils import markdown_text as _markdown
from ui.compute import data
from ui.figures import ap_charts
from ui.figures.ap_charts import METHOD_LABELS, PRESETS, exact_text
from ui.tables.dataset import BUNDLED, DEFAULT_DATASET, Dataset

APP = str(Path(__file__).resolve().parent.parent / "app.py")
PAGE = "pages/ap_lab.py"


@pytest.fixture
def lab_page() -> AppTest:
    at = AppTest.from_file(APP, default_timeout=60)
    at.run()
    at.switch_page(PAGE).run()
    assert not at.exception
    return at


def _metrics(at: AppTest) -> dict[str, str]:
    return {m.label: m.value for m in at.metric}


def _df(at: AppTest, columns: list[str]):
    """The first dataframe whose columns start with ``columns``."""
    for d in at.dataframe:
        if list(d.value.columns[: len(columns)]) == columns:
            return d.value
    raise AssertionError(f"no dataframe with columns {columns}")


def _figure(at: AppTest) -> dict:
    """The chart's figure as sent to the browser, arrays decoded."""
    return decode_arrays(json.loads(at.get("plotly_chart")[0].proto.spec))


def _library(ds: Dataset, model: str) -> dict[str, float]:
    y, s, w = ds.labels_for(model), ds.score(model), ds.weight
    return {m: metrics.average_precision_score(y, s, sample_weight=w, method=m) for m in AP_METHODS}


def test_default_data_shows_the_five_library_values(lab_page):
    at = lab_page
    assert [h.value for h in at.header] == ["AP lab"]
    ds = data.bundled_dataset(DEFAULT_DATASET)
    expected = _library(ds, at.session_state["model"])
    shown = _metrics(at)
    for m in AP_METHODS:
        assert shown[METHOD_LABELS[m]] == f"{expected[m]:.4f}"
    table = _df(at, ["method", "used by", "AP"])
    np.testing.assert_array_equal(table["AP"], [expected[m] for m in AP_METHODS])
    assert table["used by"].tolist() == [metrics.AP_METHOD_SOURCES[m] for m in AP_METHODS]
    # the step table: first 20 thresholds of many, and the sum's final value is named
    step = _df(at, ["threshold", "rows", "positives"])
    assert len(step) == 20
    y, s = ds.labels_for(at.session_state["model"]), ds.score(at.session_state["model"])
    full = metrics.ap_step_table(y, s)
    np.testing.assert_allclose(step["running AP"], full.running_ap[:20])
    assert f"continues over {len(full.threshold) - 20:,} more to **AP = " in _markdown(at)
    assert len(at.expander) >= 6  # five explains and the points table
    assert any(r"\sum_i (R_i - R_{i-1})" in x.value for x in at.latex)


def test_step_rows_and_points_method_can_be_changed(lab_page):
    at = lab_page
    ds = data.bundled_dataset(DEFAULT_DATASET)
    model = at.session_state["model"]
    at.number_input(key="aplab_rows").set_value(55).run()
    assert not at.exception
    assert len(_df(at, ["threshold", "rows", "positives"])) == 55
    at.selectbox(key="aplab_points_method").set_value("voc11").run()
    assert not at.exception
    points = _df(at, ["recall level", "precision used"])
    assert len(points) == 11
    assert points["running sum"].iloc[-1] == pytest.approx(_library(ds, model)["voc11"], abs=1e-12)
    at.selectbox(key="aplab_points_method").set_value("trapezoid").run()
    points = _df(at, ["recall", "precision used"])
    assert points["running sum"].iloc[-1] == pytest.approx(
        _library(ds, model)["trapezoid"], abs=1e-12
    )


def test_toggles_change_the_regions_drawn(lab_page):
    at = lab_page
    names = [t["name"] for t in _figure(at)["data"]]
    assert [n.split(":")[0] for n in names] == [
        "VOC all-point",
        "Step",
        "PR points (one per threshold)",
    ]
    at.pills(key="aplab_show").set_value(["trapezoid", "coco101"]).run()
    assert not at.exception
    traces = _figure(at)["data"]
    assert [t["name"].split(":")[0] for t in traces] == [
        "Trapezoid",
        "COCO 101-point",
        "PR points (one per threshold)",
    ]
    assert len(traces[1]["x"]) == 101
    lab = ap_charts.ap_lab(
        *(lambda d, m: (d.labels_for(m), d.score(m), d.weight))(
            data.bundled_dataset(DEFAULT_DATASET), at.session_state["model"]
        )
    )
    t = traces[0]
    assert ap_charts.polygon_area(t["x"], t["y"]) == pytest.approx(
        lab.values["trapezoid"], abs=1e-12
    )


def test_score_grid_next_to_voc_levels(lab_page):
    at = lab_page
    ds = data.bundled_dataset(DEFAULT_DATASET)
    model = at.session_state["model"]
    y, s = ds.labels_for(model), ds.score(model)
    grid = metrics.score_grid_average_precision(y, s)
    shown = _metrics(at)
    assert shown["Step sum at scores 1, 0.9, ..., 0 (11 fixed score thresholds)"] == exact_text(
        grid.value
    )
    voc11 = metrics.average_precision_score(y, s, method="voc11")
    assert shown["VOC 2007: best precision at recall ≥ 0, 0.1, ..., 1"] == exact_text(voc11)
    table = _df(at, ["score ≥", "TP", "FP"])
    np.testing.assert_array_equal(table["TP"], grid.tp)
    assert "depends only on the ranking" in _markdown(at)


@pytest.mark.parametrize("dataset", list(BUNDLED))
def test_every_bundled_dataset_and_model(lab_page, dataset):
    at = lab_page
    at.selectbox(key="dataset").set_value(dataset).run()
    assert not at.exception
    ds = data.bundled_dataset(dataset)
    for model in ds.models[:2]:
        at.selectbox(key="model").set_value(model).run()
        assert not at.exception
        assert not at.error
        shown = _metrics(at)
        expected = _library(ds, model)
        for m in AP_METHODS:
            assert shown[METHOD_LABELS[m]] == f"{expected[m]:.4f}", (dataset, model, m)
        low, high = ds.score(model).min(), ds.score(model).max()
        assert any("outside [0, 1]" in w.value for w in at.warning) == (low < 0 or high > 1)
    if ds.mapping.per_class:
        per_class = _df(at, ["class", "Step"])
        assert len(per_class) == len(ds.models) + 2


EXPECTED_STEP = {
    "AP as scikit-learn's step sum (5/6)": "5/6",
    "Sample weights as row counts (AP 8/9)": "8/9",
    "Multi-label mAP (11/12)": "3/4",
    "Trapezoid (scikit-learn < 0.19) vs step": "5/6",
}


@pytest.mark.parametrize("name", list(PRESETS))
def test_every_preset_shows_the_seeds_numbers(lab_page, name):
    at = lab_page
    at.selectbox(key="aplab_preset").set_value(name).run()
    assert not at.exception
    preset = PRESETS[name]
    claims = _df(at, ["number", "the article", "computed", "matches"])
    assert claims["matches"].tolist() == ["✓"] * len(preset.claims)
    assert claims["the article"].tolist() == [c.article for c in preset.claims]
    lab = ap_charts.ap_lab(*preset.arrays(0))
    shown = _metrics(at)
    for m in AP_METHODS:
        assert shown[METHOD_LABELS[m]] == f"{lab.values[m]:.4f}"
    page_text = _markdown(at)
    assert f"= {EXPECTED_STEP[name]} exactly" in page_text
    assert f"**AP = {exact_text(lab.values['step'])}**, the step value above" in page_text
    step = _df(at, ["threshold", "rows", "positives"])
    assert len(step) == lab.n_thresholds
    assert step["running AP"].iloc[-1] == pytest.approx(lab.values["step"], abs=1e-15)


def test_preset_claims_are_the_seed_values(lab_page):
    at = lab_page
    at.selectbox(key="aplab_preset").set_value("Trapezoid (scikit-learn < 0.19) vs step").run()
    claims = _df(at, ["number", "the article", "computed"])
    assert claims["computed"].tolist() == ["19/24 = 0.7917", "5/6 = 0.8333", "5/6 = 0.8333"]
    assert _metrics(at)["Trapezoid"] == "0.7917"
    at.selectbox(key="aplab_preset").set_value("Sample weights as row counts (AP 8/9)").run()
    step = _df(at, ["threshold", "rows", "positives"])
    np.testing.assert_allclose(step["precision"], [2 / 2, 2 / 2.5, 2 / 3.5, 3 / 4.5])
    np.testing.assert_allclose(step["recall"], [2 / 3, 2 / 3, 2 / 3, 1])
    assert any(r"\frac{8}{9}" in x.value for x in at.latex)


def test_multilabel_preset_per_class_averages_and_class_choice(lab_page):
    at = lab_page
    at.selectbox(key="aplab_preset").set_value("Multi-label mAP (11/12)").run()
    per_class = _df(at, ["class", "Step"])
    assert per_class["Step"].tolist() == [
        "3/4 = 0.7500",
        "1.0000",
        "1.0000",
        "11/12 = 0.9167",
        "13/14 = 0.9286",
    ]
    claims = _df(at, ["number", "the article", "computed"])
    assert claims["computed"].tolist() == [
        "3/4 = 0.7500",
        "1.0000",
        "1.0000",
        "11/12 = 0.9167",
        "13/14 = 0.9286",
    ]
    assert _metrics(at)["Step"] == "0.7500"
    at.selectbox(key="aplab_class").set_value("class_2").run()
    assert not at.exception
    assert _metrics(at)["Step"] == "1.0000"
    assert len(_df(at, ["threshold", "rows", "positives"])) == 4


def test_back_to_current_data(lab_page):
    at = lab_page
    at.selectbox(key="aplab_preset").set_value("Trapezoid (scikit-learn < 0.19) vs step").run()
    at.selectbox(key="aplab_preset").set_value("Current data").run()
    assert not at.exception
    ds = data.bundled_dataset(DEFAULT_DATASET)
    assert _metrics(at)["Step"] == f"{_library(ds, at.session_state['model'])['step']:.4f}"


NO_POSITIVES = (
    b"label_a,score_a,label_b,score_b\n0,0.2,1,0.9\n0,0.7,0,0.1\n0,0.4,1,0.6\n0,0.1,0,0.3\n"
)


def test_a_class_without_positives_gets_a_message(lab_page):
    at = lab_page
    at.segmented_control(key="source").set_value("Upload").run()
    at.file_uploader(key="upload_file").set_value(("ml.csv", NO_POSITIVES, "text/csv")).run()
    assert not at.exception
    assert at.selectbox(key="model").value == "score_a"
    assert any("AP needs at least one positive row" in i.value for i in at.info)
    assert not at.metric
    at.selectbox(key="model").set_value("score_b").run()
    assert not at.exception
    assert (
        _metrics(at)["Step"]
        == f"{metrics.average_precision_score([1, 0, 1, 0], [0.9, 0.1, 0.6, 0.3]):.4f}"
    )
    # the worked examples still work on top of an unusable class
    at.selectbox(key="model").set_value("score_a").run()
    at.selectbox(key="aplab_preset").set_value("AP as scikit-learn's step sum (5/6)").run()
    assert _metrics(at)["Step"] == "0.8333"


def test_voc_devkit_says_it_depends_on_row_order(lab_page):
    # Issue 51 §4: naive Bayes on breast cancer ties 499 rows across the classes (scores of 1):
    # the page gives the devkit's values in the table's row order and their range over tie
    # orders; the logistic model has no such tie and gets the one-line sentence.
    from metrics.conventions import voc_devkit_ap, voc_tie_range
    from ui.words.numbers import decimals

    at = lab_page
    ds = data.bundled_dataset(DEFAULT_DATASET)
    at.selectbox(key="model").set_value("naive_bayes").run()
    assert not at.exception
    y, s = ds.labels_for("naive_bayes"), ds.score("naive_bayes")
    text = _markdown(at)
    assert "The VOC devkit depends on row order here." in text
    assert "499 rows share a score with a row of the other class" in text
    assert f"VOC 2010+ {decimals(voc_devkit_ap(y, s))}" in text
    low, high = voc_tie_range(y, s)
    assert f"{decimals(low)} to {decimals(high)} (negatives first" in text
    at.selectbox(key="model").set_value("logistic_regression").run()
    assert "so it gives the VOC values above in any row order" in _markdown(at)

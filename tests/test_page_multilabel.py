"""The Multi-label page runs headless (AppTest) and shows what the library computes."""

from __future__ import annotations

import base64
import warnings
from pathlib import Path

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

import metrics
from tests.apptest_utils import figures as _figures
from tests.apptest_utils import metric_value as _metric
from tests.apptest_utils import open_page
from ui import data
from ui import multilabel_charts as mc


def _open(dataset: str) -> AppTest:
    return open_page(PAGE, dataset)


APP = str(Path(__file__).resolve().parent.parent / "app.py")
PAGE = "pages/multilabel.py"
SEED_000 = "mAP 11/12: 4 samples × 3 classes"
SEED_002 = "LRAP = step AP 5/6: one row"


@pytest.fixture
def digits() -> AppTest:
    return _open("digits_multilabel")


@pytest.fixture
def wine() -> AppTest:
    return _open("wine_multiclass")


def _array(value) -> np.ndarray:
    """A plotly array from the JSON sent: a list, or a base64 typed array."""
    if isinstance(value, dict) and "bdata" in value:
        shape = [int(n) for n in str(value.get("shape", "-1")).split(",")]
        raw = base64.b64decode(value["bdata"])
        return np.frombuffer(raw, dtype=np.dtype(value["dtype"])).reshape(shape)
    return np.asarray(value)


def _library(y, s, fn, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", metrics.UndefinedMetricWarning)
        return fn(y, s, **kw)


def test_digits_every_average_equals_the_library(digits):
    assert [h.value for h in digits.header] == ["Multi-label"]
    p = mc.problem_from_dataset(data.bundled_dataset("digits_multilabel"))
    for mode in ["macro", "micro", "weighted", "samples"]:
        digits.segmented_control(key="multilabel_average").set_value(mode).run()
        assert not digits.exception
        ap = _library(p.y, p.scores, metrics.average_precision_score, average=mode)
        auc = _library(p.y, p.scores, metrics.roc_auc_score, average=mode)
        assert _metric(digits, f"AP ({mode})") == mc.fmt(ap)
        assert _metric(digits, f"AUC ({mode})") == mc.fmt(auc)
        assert mc.MODE_LINES[mode] in digits.markdown[1].value
    macro = metrics.average_precision_score(p.y, p.scores)
    assert _metric(digits, "mAP (macro AP)") == f"{macro:.4f}"


def test_digits_samples_warning_is_shown_not_printed(digits):
    p = mc.problem_from_dataset(data.bundled_dataset("digits_multilabel"))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        metrics.average_precision_score(p.y, p.scores, average="samples")
    digits.segmented_control(key="multilabel_average").set_value("samples").run()
    captions = [c.value for c in digits.caption]
    assert f":material/warning: {caught[0].message}" in captions
    assert any("0 = even, 1 = prime" in c for c in captions)


def test_digits_per_class_table_and_lrap_equal_the_library(digits):
    p = mc.problem_from_dataset(data.bundled_dataset("digits_multilabel"))
    table = digits.dataframe[0].value
    assert table["class"].tolist() == list(p.classes)
    np.testing.assert_array_equal(
        table["AP"], metrics.average_precision_score(p.y, p.scores, average=None)
    )
    np.testing.assert_array_equal(table["AUC"], metrics.roc_auc_score(p.y, p.scores, average=None))
    assert table["positives"].tolist() == p.y.sum(axis=0).tolist()
    lrap = metrics.label_ranking_average_precision_score(p.y, p.scores)
    samples = _library(p.y, p.scores, metrics.average_precision_score, average="samples")
    assert _metric(digits, "LRAP") == mc.fmt(lrap)
    assert _metric(digits, "samples AP") == mc.fmt(samples)
    assert _metric(digits, "LRAP, rows with a label") == mc.fmt(samples)  # equal there
    assert any("182 of 1,797 rows without a relevant label" in c.value for c in digits.caption)
    assert not any("Multi-class" in s.value for s in digits.subheader)


def test_digits_widgets_change_the_charts(digits):
    digits.segmented_control(key="multilabel_bar_metric").set_value("AUC").run()
    digits.segmented_control(key="multilabel_curve").set_value("ROC").run()
    assert not digits.exception
    bars, curves = _figures(digits)[:2]
    p = mc.problem_from_dataset(data.bundled_dataset("digits_multilabel"))
    auc = metrics.roc_auc_score(p.y, p.scores, average="micro")
    assert bars["layout"]["yaxis"]["title"]["text"] == "AUC"
    assert curves["data"][-1]["name"] == f"micro: all cells pooled (AUC {auc:.3f})"
    assert curves["data"][0]["name"] == "chance (AUC 0.5)"
    digits.number_input(key="multilabel_row").set_value(2).run()  # row 2, digit 1: no label
    assert not digits.exception
    assert digits.dataframe[-1].value["relevant"].sum() == 0


def test_digits_per_class_mode_shows_the_chosen_class(digits):
    p = mc.problem_from_dataset(data.bundled_dataset("digits_multilabel"))
    digits.segmented_control(key="multilabel_average").set_value("per class").run()
    digits.selectbox(key="multilabel_class").set_value("two_loops").run()
    assert not digits.exception
    c = p.classes.index("two_loops")
    ap = metrics.average_precision_score(p.y[:, c], p.scores[:, c])
    assert _metric(digits, "AP (two_loops)") == mc.fmt(ap)


def test_wine_confusion_matrix_and_top_k_equal_the_library(wine):
    ds = data.bundled_dataset("wine_multiclass")
    truth = ds.frame["label"].to_numpy()
    p = mc.problem_from_dataset(ds)
    labels = list(p.classes)
    assert "Multi-class: arg-max confusion matrix and top-k accuracy" in [
        s.value for s in wine.subheader
    ]
    heat = next(f for f in _figures(wine) if f["data"][0]["type"] == "heatmap")
    counts = metrics.multiclass_confusion_matrix(truth, p.scores, labels=labels)
    np.testing.assert_array_equal(_array(heat["data"][0]["z"]), counts)
    wine.segmented_control(key="multilabel_normalize").set_value("by true class").run()
    assert not wine.exception
    heat = next(f for f in _figures(wine) if f["data"][0]["type"] == "heatmap")
    np.testing.assert_allclose(
        _array(heat["data"][0]["z"]),
        metrics.multiclass_confusion_matrix(truth, p.scores, labels=labels, normalize="true"),
    )
    topk = wine.dataframe[2].value
    assert topk["k"].tolist() == [1, 2, 3]
    assert topk["top-k accuracy"].tolist() == [
        metrics.top_k_accuracy_score(truth, p.scores, k=k, labels=labels) for k in (1, 2, 3)
    ]
    auc = metrics.roc_auc_score(truth, p.scores, labels=labels, average="weighted")
    wine.segmented_control(key="multilabel_average").set_value("weighted").run()
    assert _metric(wine, "AUC (weighted)") == mc.fmt(auc)


def test_seed000_preset_reproduces_the_article(digits):
    digits.segmented_control(key="multilabel_preset").set_value(SEED_000).run()
    assert not digits.exception
    assert _metric(digits, "AP (macro)") == "0.9167 = 11/12"
    assert _metric(digits, "mAP (macro AP)") == "0.9167 = 11/12"
    digits.segmented_control(key="multilabel_average").set_value("weighted").run()
    assert _metric(digits, "AP (weighted)") == "0.9286 = 13/14"
    table = digits.dataframe[0].value
    assert table["AP"].tolist() == pytest.approx([0.75, 1, 1])
    assert table["weight w_c"].tolist() == pytest.approx([2 / 7, 4 / 7, 1 / 7])
    digits.segmented_control(key="multilabel_average").set_value("per class").run()
    digits.selectbox(key="multilabel_class").set_value("class_0").run()
    assert _metric(digits, "AP (class_0)") == "0.7500 = 3/4"
    assert not digits.exception


def test_seed002_preset_lrap_samples_ap_and_trapezoid(digits):
    digits.segmented_control(key="multilabel_preset").set_value(SEED_002).run()
    assert not digits.exception
    assert _metric(digits, "LRAP") == "0.8333 = 5/6"
    assert _metric(digits, "samples AP") == "0.8333 = 5/6"
    assert _metric(digits, "samples AP, trapezoid") == "0.7917 = 19/24"
    # macro leaves the classes without positives out, and says so
    assert any(
        c.value.startswith(":material/warning: Average precision is undefined for 2")
        for c in digits.caption
    )
    row = digits.dataframe[-1].value
    assert row["precision"].dropna().tolist() == pytest.approx([1, 2 / 3])


def test_binary_dataset_gets_an_info_and_presets_still_work():
    at = _open("breast_cancer")
    assert any("Digits: 6 overlapping labels" in i.value for i in at.info)
    assert not at.metric
    at.segmented_control(key="multilabel_preset").set_value(SEED_000).run()
    assert not at.exception
    assert _metric(at, "AP (macro)") == "0.9167 = 11/12"


def test_ranking_dataset_gets_an_info():
    at = _open("query_ranking")
    assert any("one score column per model" in i.value for i in at.info)


def test_weighted_multilabel_upload_uses_the_weights():
    rng = np.random.default_rng(0)
    n = 30
    y = rng.random((n, 3)) < 0.5
    y[0], y[1] = True, False
    s = np.round(rng.random((n, 3)), 3)
    w = np.round(rng.uniform(0.5, 2, n), 2)
    lines = ["label_a,label_b,label_c,score_a,score_b,score_c,weight"]
    lines += [
        ",".join([*(str(int(v)) for v in y[i]), *(str(v) for v in s[i]), str(w[i])])
        for i in range(n)
    ]
    at = AppTest.from_file(APP, default_timeout=60)
    at.run()
    at.segmented_control(key="source").set_value("Upload").run()
    at.file_uploader(key="upload_file").set_value(
        ("ml.csv", "\n".join(lines).encode(), "text/csv")
    ).run()
    assert at.radio(key="map_layout").value == "multilabel"
    at.switch_page(PAGE).run()
    assert not at.exception
    at.segmented_control(key="multilabel_average").set_value("weighted").run()
    ap = metrics.average_precision_score(y, s, average="weighted", sample_weight=w)
    assert _metric(at, "AP (weighted)") == mc.fmt(ap)
    lrap = metrics.label_ranking_average_precision_score(y, s, sample_weight=w)
    assert _metric(at, "LRAP") == mc.fmt(lrap)


def test_wine_shows_one_vs_one_auc(wine):
    from tests.apptest_utils import markdown_text

    p = mc.problem_from_dataset(data.bundled_dataset("wine_multiclass"))
    labels = np.argmax(p.y, axis=1)
    ovo = metrics.roc_auc_score(labels, p.scores, multi_class="ovo", average="macro")
    assert f"macro **{ovo:.4f}**" in markdown_text(wine)

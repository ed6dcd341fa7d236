"""The Multi-label page runs headless (AppTest) and shows what the library computes."""

from __future__ import annotations

import base64
import json
import warnings
from pathlib import Path

import numpy as np
import pytest
import sklearn.metrics as skm
from streamlit.testing.v1 import AppTest

import metrics
from tests.apptest_utils import figures as _figures
from tests.apptest_utils import metric_value as _metric
from tests.apptest_utils import open_page
from ui.analyses import decision_rules as dr
from ui.compute import data
from ui.figures import multilabel_charts as mc
from ui.words.numbers import decimals


def _open(dataset: str) -> AppTest:
    return open_page(PAGE, dataset)


APP = str(Path(__file__).resolve().parent.parent / "app.py")
PAGE = "pages/multilabel.py"
SKLEARN_AP_EXAMPLE = "mAP 11/12: 4 samples × 3 classes"
LRAP_VS_AP_EXAMPLE = "LRAP = step AP 5/6: one row"


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
    assert [h.value for h in digits.header] == ["Multi-class & multi-label"]
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
    # and what scikit-learn's samples AP gives on the same rows (rows without a label as 0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        sk = skm.average_precision_score(p.y, p.scores, average="samples")
    said = [c for c in captions if "182 of 1,797 rows have no relevant label" in c]
    assert len(said) == 1
    assert f"**{mc.fmt(sk)}**" in said[0], said


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
    auc = metrics.roc_auc_score(
        truth, p.scores, labels=labels, multi_class="ovr", average="weighted"
    )
    wine.segmented_control(key="multilabel_average").set_value("weighted").run()
    assert _metric(wine, "AUC (weighted)") == mc.fmt(auc)


def test_seed000_preset_reproduces_the_article(digits):
    digits.segmented_control(key="multilabel_preset").set_value(SKLEARN_AP_EXAMPLE).run()
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
    digits.segmented_control(key="multilabel_preset").set_value(LRAP_VS_AP_EXAMPLE).run()
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
    at.segmented_control(key="multilabel_preset").set_value(SKLEARN_AP_EXAMPLE).run()
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


# --- the decision rule (issue 22) ------------------------------------------------------------


def _frame(at: AppTest, first_column: str, having: str):
    """The dataframe whose first column is ``first_column`` and which has column ``having``."""
    return next(
        d.value
        for d in at.dataframe
        if d.value.columns[0] == first_column and having in d.value.columns
    )


def _check_rule_numbers(at: AppTest, p: mc.ClassScores, rule: dr.Rule, beta: float = 1.0) -> None:
    """Every number of the decision-rule section equals the library's for ``rule``."""
    assert not at.exception, at.exception
    yt, yp, labels = dr.predictions(p, rule)
    kw = dict(labels=labels, sample_weight=p.weight)
    fns = {
        "precision": metrics.precision_score,
        "recall": metrics.recall_score,
        "F1": metrics.f1_score,
        "Jaccard": metrics.jaccard_score,
    }
    averages = _frame(at, "metric", "samples").set_index("metric")
    for avg in dr.AVERAGES:
        for name, fn in fns.items():
            got = averages.loc[name, avg]
            if rule.single and avg == "samples":
                assert np.isnan(got)
                continue
            want = _library(yt, yp, fn, average=avg, **kw)
            assert got == want, (name, avg)
        f1 = np.nan if rule.single and avg == "samples" else averages.loc["F1", avg]
        assert _metric(at, f"F1 ({avg})") == dr.fmt(f1)
    accuracy = metrics.accuracy_score(yt, yp, sample_weight=p.weight)
    if p.multiclass and rule.kind == "top-k" and rule.k > 1:
        # the true class among the k predicted (subset accuracy is 0 by construction)
        hit = np.asarray(yp, bool)[np.arange(len(yp)), np.asarray(yt).argmax(axis=1)]
        assert _metric(at, f"top-{rule.k} accuracy") == dr.fmt(np.average(hit, weights=p.weight))
    else:
        assert _metric(at, "accuracy" if rule.single else "subset accuracy") == dr.fmt(accuracy)
    table = _frame(at, "class", "MCC")
    mcm = metrics.multilabel_confusion_matrix(yt, yp, **kw)
    np.testing.assert_array_equal(table["TP"], mcm[:, 1, 1])
    np.testing.assert_array_equal(table["FP"], mcm[:, 0, 1])
    np.testing.assert_array_equal(table["FN"], mcm[:, 1, 0])
    np.testing.assert_array_equal(table["TN"], mcm[:, 0, 0])
    prec, rec, fb, support = _library(
        yt, yp, metrics.precision_recall_fscore_support, beta=beta, average=None, **kw
    )
    np.testing.assert_array_equal(table["precision"], prec)
    np.testing.assert_array_equal(table["recall"], rec)
    np.testing.assert_array_equal(table[f"F{beta:g}"], fb)
    np.testing.assert_array_equal(table["support"], support)
    np.testing.assert_array_equal(
        table["Jaccard"], _library(yt, yp, metrics.jaccard_score, average=None, **kw)
    )
    pred = dr.indicator(p, rule)
    mcc = [_library(p.y[:, c], pred[:, c], metrics.matthews_corrcoef) for c in range(p.n_classes)]
    np.testing.assert_array_equal(table["MCC"], mcc)
    small = next(
        f for f in _figures(at) if len(f["data"]) == p.n_classes and "customdata" in f["data"][0]
    )
    for c, trace in enumerate(small["data"]):
        m = mcm[c]
        np.testing.assert_array_equal(
            _array(trace["customdata"]), [[m[1, 1], m[1, 0]], [m[0, 1], m[0, 0]]]
        )


def test_digits_every_rule_shows_the_library_numbers(digits):
    p = mc.problem_from_dataset(data.bundled_dataset("digits_multilabel"))
    assert digits.slider(key="multilabel_threshold").value == 0.5  # probabilities
    _check_rule_numbers(digits, p, dr.Rule("shared", threshold=0.5))
    digits.slider(key="multilabel_threshold").set_value(0.3).run()
    _check_rule_numbers(digits, p, dr.Rule("shared", threshold=0.3))
    digits.number_input(key="multilabel_beta").set_value(2.0).run()
    _check_rule_numbers(digits, p, dr.Rule("shared", threshold=0.3), beta=2.0)
    digits.segmented_control(key="multilabel_rule_ml").set_value("top-k per row").run()
    digits.number_input(key="multilabel_k").set_value(3).run()
    _check_rule_numbers(digits, p, dr.Rule("top-k", k=3), beta=2.0)
    digits.segmented_control(key="multilabel_rule_ml").set_value("per-class thresholds").run()
    _check_rule_numbers(digits, p, dr.Rule("per-class", thresholds=(0.5,) * 6), beta=2.0)
    # 182 digits have no label: the sentence says so, with samples-F1 with and without them
    text = "\n".join(m.value for m in digits.markdown)
    assert "**182 of 1,797 rows have no true label.**" in text
    assert "The rarest class" in text


def test_digits_choosing_thresholds_equals_the_library_and_applies(digits):
    p = mc.problem_from_dataset(data.bundled_dataset("digits_multilabel"))
    best = metrics.optimise_thresholds(p.y, p.scores, objective="macro")
    micro = metrics.optimise_thresholds(p.y, p.scores, objective="micro")
    assert _metric(digits, "macro-F1, per-class thresholds") == dr.fmt(best.macro)
    assert _metric(digits, "macro-F1, shared threshold") == dr.fmt(best.shared_value)
    assert _metric(digits, "micro-F1, per-class thresholds") == dr.fmt(micro.micro)
    assert _metric(digits, "micro-F1, shared threshold") == dr.fmt(micro.shared_value)
    table = _frame(digits, "class", "micro-optimal threshold")
    # each shown (short) threshold, typed back, predicts the rows the chosen one does
    np.testing.assert_array_equal(
        table["best F1 threshold"], dr.typed_thresholds(p, best.thresholds)
    )
    np.testing.assert_array_equal(
        table["micro-optimal threshold"], dr.typed_thresholds(p, micro.thresholds)
    )
    for shown, chosen in (
        (table["best F1 threshold"], best),
        (table["micro-optimal threshold"], micro),
    ):
        np.testing.assert_array_equal(p.scores >= shown.to_numpy(), p.scores >= chosen.thresholds)
    assert table["micro-optimal threshold"].map(lambda t: len(repr(t))).max() <= 8
    # the thresholds show as written; the F1 columns to 4 decimals
    shown = next(d for d in digits.dataframe if "micro-optimal threshold" in d.value.columns)
    formats = {k: v["type_config"]["format"] for k, v in json.loads(shown.proto.columns).items()
               if "type_config" in v}  # fmt: skip
    assert formats == {"best F1 threshold": "plain", "F1 there": "%.4f",
                       "micro-optimal threshold": "plain", "F1 at the micro threshold": "%.4f"}  # fmt: skip
    assert any("local optimum" in m.value for m in digits.markdown)
    assert any("overstate" in w.value for w in digits.warning)
    digits.button(key="multilabel_apply_micro").click().run()
    assert digits.segmented_control(key="multilabel_rule_ml").value == "per-class thresholds"
    thresholds = dr.finite_thresholds(p, micro.thresholds)
    _check_rule_numbers(digits, p, dr.Rule("per-class", thresholds=tuple(thresholds)))
    assert _metric(digits, "F1 (micro)") == dr.fmt(micro.micro)
    # choose on one half, report on the other
    digits.toggle(key="multilabel_choose_half").set_value(True).run()
    assert not digits.exception
    half = metrics.choose_on_half(p.y, p.scores, objective="macro", seed=0)
    assert _metric(digits, "macro-F1, choosing half") == dr.fmt(half.choice.value)
    assert _metric(digits, "macro-F1, held-out half") == dr.fmt(half.report_value)
    digits.button(key="multilabel_apply_macro").click().run()
    thresholds = dr.finite_thresholds(p, half.choice.thresholds)
    _check_rule_numbers(digits, p, dr.Rule("per-class", thresholds=tuple(thresholds)))


def test_wine_argmax_abstain_and_top_k_show_the_library_numbers(wine):
    p = mc.problem_from_dataset(data.bundled_dataset("wine_multiclass"))
    _check_rule_numbers(wine, p, dr.Rule("argmax"))
    text = "\n".join(m.value for m in wine.markdown)
    truth = p.true_labels()
    acc = metrics.accuracy_score(truth, metrics.predict_argmax(p.scores, labels=list(p.classes)))
    assert f"micro-F1 {acc:.4f}, accuracy {acc:.4f}" in text
    wine.segmented_control(key="multilabel_rule_mc").set_value(
        "argmax, abstain below a score"
    ).run()
    wine.slider(key="multilabel_abstain").set_value(0.9).run()
    _check_rule_numbers(wine, p, dr.Rule("abstain", threshold=0.9))
    heat = [  # the rule's matrix: the last heatmap before the cost section's two titled ones
        f
        for f in _figures(wine)
        if f["data"][0]["type"] == "heatmap" and "title" not in f["layout"]
    ][-1]
    assert heat["data"][0]["x"][-1] == f"pred {dr.ABSTAINED}"
    abstained = (p.scores.max(axis=1) < 0.9).sum()
    assert _array(heat["data"][0]["z"])[:, -1].sum() == abstained
    wine.segmented_control(key="multilabel_rule_mc").set_value("top-k").run()
    _check_rule_numbers(wine, p, dr.Rule("top-k", k=2))
    text = "\n".join(m.value for m in wine.markdown)
    assert "Top-2 accuracy" in text
    assert "Accuracy here is subset accuracy" not in text
    assert "Choosing thresholds" not in [s.value for s in wine.subheader]


def test_wine_per_class_cut_offs_show_the_library_numbers(wine):
    """Multi-class per-class cut-offs: argmax among the classes at or above their own cut-off,
    no prediction where none is; from the lowest score they are plain argmax."""
    p = mc.problem_from_dataset(data.bundled_dataset("wine_multiclass"))
    wine.segmented_control(key="multilabel_rule_mc").set_value("argmax, per-class cut-offs").run()
    assert not wine.exception
    floor = float(min(0.0, np.nanmin(p.scores)))
    _check_rule_numbers(wine, p, dr.Rule("cut-offs", thresholds=(floor,) * p.n_classes))
    text = "\n".join(m.value for m in wine.markdown)
    assert "**Micro-F1 = accuracy**" in text  # nothing abstains yet: argmax's lesson holds
    cuts = [floor] * p.n_classes
    cuts[0] = 0.8  # the first class asks for 0.8
    wine.session_state["multilabel_cut_editor"] = {
        "edited_rows": {0: {"cut-off": 0.8}}, "added_rows": [], "deleted_rows": []
    }  # fmt: skip
    wine.run()
    rule = dr.Rule("cut-offs", thresholds=tuple(cuts))
    _check_rule_numbers(wine, p, rule)
    predicted = metrics.predict_argmax(p.scores, labels=list(p.classes), min_score=cuts,
                                       abstain=dr.ABSTAINED)  # fmt: skip
    top_is_first = p.scores.argmax(axis=1) == 0
    moved = top_is_first & (p.scores[:, 0] < 0.8)
    assert moved.any()  # rows whose top class is the first but below its cut-off
    assert not (predicted[moved] == p.classes[0]).any()
    text = "\n".join(m.value for m in wine.markdown)
    if (predicted == dr.ABSTAINED).any():
        assert "**Abstaining breaks micro-F1 = accuracy**" in text


def test_wine_matrix_of_all_rows(wine):
    ds = data.bundled_dataset("wine_multiclass")
    p = mc.problem_from_dataset(ds)
    wine.segmented_control(key="multilabel_normalize").set_value("of all rows").run()
    heat = next(f for f in _figures(wine) if f["data"][0]["type"] == "heatmap")
    np.testing.assert_allclose(
        _array(heat["data"][0]["z"]),
        metrics.multiclass_confusion_matrix(
            ds.frame["label"].to_numpy(), p.scores, labels=list(p.classes), normalize="all"
        ),
    )


def test_a_class_button_makes_it_the_model_and_links_to_threshold(digits):
    assert digits.session_state["model"] == "score_even"
    digits.button(key="multilabel_open_5").click().run()
    assert not digits.exception
    assert digits.session_state["model"] == "score_two_loops"
    links = [e.proto.label for e in digits.get("page_link")]
    assert "Open two_loops on the Threshold page" in links
    digits.switch_page("pages/threshold.py").run()
    assert not digits.exception
    assert digits.session_state["model"] == "score_two_loops"


def test_bad_input_is_said_and_nothing_is_lost():
    rng = np.random.default_rng(4)
    n = 40
    truth = rng.choice(["a", "b", "c"], n)
    s = rng.random((n, 3)).round(3)  # not summing to 1
    lines = ["label,score_a,score_b,score_c"] + [
        f"{t},{x},{y},{z}" for t, (x, y, z) in zip(truth, s, strict=True)
    ]
    at = AppTest.from_file(APP, default_timeout=60)
    at.run()
    at.segmented_control(key="source").set_value("Upload").run()
    at.file_uploader(key="upload_file").set_value(
        ("mc.csv", "\n".join(lines).encode(), "text/csv")
    ).run()
    at.switch_page(PAGE).run()
    assert not at.exception
    captions = " ".join(c.value for c in at.caption)
    if at.radio(key="map_layout").value == "multiclass":
        assert "not 1: allowed" in captions
    # a multi-label table where one class has no positives keeps that class, and says so
    y = rng.random((n, 3)) < 0.4
    y[:, 2] = False
    lines = ["label_a,label_b,label_c,score_a,score_b,score_c"] + [
        ",".join([*(str(int(v)) for v in y[i]), *(str(v) for v in s[i])]) for i in range(n)
    ]
    at.file_uploader(key="upload_file").set_value(
        ("ml.csv", "\n".join(lines).encode(), "text/csv")
    ).run()
    at.switch_page(PAGE).run()
    assert not at.exception
    captions = " ".join(c.value for c in at.caption)
    assert "c has no true row" in captions
    p = mc.ClassScores("ml", y, s, ("a", "b", "c"))
    _check_rule_numbers(at, p, dr.Rule("shared", threshold=0.5))


# --- the cost matrix and the minimum-expected-cost decision (issue 22) ---------------------------


def _edit_cost(at: AppTest, edits: dict[int, dict[str, float]]) -> AppTest:
    """Type into the cost matrix editor: {row: {column (predicted class): value}}."""
    at.session_state["multilabel_cost_editor"] = {
        "edited_rows": edits,
        "added_rows": [],
        "deleted_rows": [],
    }
    return at.run()


def _check_costs(at: AppTest, p: mc.ClassScores, cost: np.ndarray) -> None:
    """The cost section's numbers equal metrics.compare_cost_decisions computed directly."""
    assert not at.exception, at.exception
    truth = p.true_labels()
    want = metrics.compare_cost_decisions(truth, p.scores, cost, labels=list(p.classes))
    n = p.n_rows
    assert _metric(at, "total cost, argmax") == f"{want.argmax_mean * n:,.6g}"
    assert _metric(at, "total cost, min cost") == f"{want.min_cost_mean * n:,.6g}"
    assert _metric(at, "mean cost, argmax") == dr.fmt(want.argmax_mean)
    assert _metric(at, "mean cost, min cost") == dr.fmt(want.min_cost_mean)
    assert _metric(at, "rows changing decision") == f"{want.changed:,}"
    names = np.asarray(p.classes)
    labels = list(p.classes)
    heat = {
        f["layout"]["title"]["text"]: _array(f["data"][0]["customdata"])
        for f in _figures(at)
        if f["data"][0]["type"] == "heatmap" and "title" in f["layout"]
    }
    for title, pred in (
        ("argmax", want.argmax_pred),
        ("minimum expected cost", want.min_cost_pred),
    ):
        np.testing.assert_array_equal(
            heat[title], metrics.confusion_matrix(truth, names[pred], labels=labels)
        )
    table = _frame(at, "class", "recall change")
    for col, pred in (
        ("recall, argmax", want.argmax_pred),
        ("recall, min cost", want.min_cost_pred),
    ):
        np.testing.assert_array_equal(
            table[col],
            _library(truth, names[pred], metrics.recall_score, labels=labels, average=None),
        )


def test_wine_cost_matrix_changes_the_decision_totals(wine):
    p = mc.problem_from_dataset(data.bundled_dataset("wine_multiclass"))
    assert "Costs: the minimum-expected-cost decision against argmax" in [
        s.value for s in wine.subheader
    ]
    editor = wine.session_state["multilabel_cost_editor"]
    assert editor["edited_rows"] == {}  # the 0-1 default: the rule is argmax
    _check_costs(wine, p, 1 - np.eye(3))
    assert _metric(wine, "rows changing decision") == "0"
    assert any("assumes calibrated probabilities" in i.value for i in wine.info)
    assert any("Elkan, C. (2001). The foundations of cost-sensitive learning" in c.value
               for c in wine.caption)  # fmt: skip
    # predicting class_0 for a true class_1 costs 20: rows move out of class_0's column
    cost = 1 - np.eye(3)
    cost[1, 0] = 20
    _edit_cost(wine, {1: {"class_0": 20.0}})
    _check_costs(wine, p, cost)
    before = metrics.compare_cost_decisions(p.true_labels(), p.scores, 1 - np.eye(3))
    after = metrics.compare_cost_decisions(p.true_labels(), p.scores, cost)
    assert after.changed > 0
    assert after.min_cost_mean != before.min_cost_mean
    # the Explain of a row that changed: its probabilities times the matrix, the argmin
    row = int(np.flatnonzero(after.min_cost_pred != after.argmax_pred)[0])
    assert any(f"Rows whose decision changes: {row + 1}" in c.value for c in wine.caption)
    assert wine.number_input(key="multilabel_cost_row").value == row + 1  # a new matrix: jumps
    wine.number_input(key="multilabel_cost_row").set_value(1).run()
    np.testing.assert_allclose(
        _frame(wine, "class", "expected cost if predicted")["probability"], p.scores[0]
    )
    wine.number_input(key="multilabel_cost_row").set_value(row + 1).run()
    assert not wine.exception
    unfolded = _frame(wine, "class", "expected cost if predicted")
    np.testing.assert_allclose(unfolded["probability"], p.scores[row])
    np.testing.assert_allclose(unfolded["expected cost if predicted"], p.scores[row] @ cost)
    picked = unfolded.set_index("class")["picked by"]
    assert picked[p.classes[after.min_cost_pred[row]]] == "min expected cost"
    assert picked[p.classes[after.argmax_pred[row]]] == "argmax"
    from tests.apptest_utils import latex

    shown = latex(wine)
    assert any(r"\leftarrow \min" in line for line in shown)
    assert any(line.startswith("p = (") for line in shown)


def test_wine_negative_cost_is_said_and_the_page_stays(wine):
    _edit_cost(wine, {1: {"class_0": -2.0}})
    assert not wine.exception
    message = " ".join(w.value for w in wine.warning)
    assert "true class_1 → predicted class_0 is -2, below 0" in message
    assert "The rest of the page is unaffected" in message
    assert not any(m.label == "total cost, argmax" for m in wine.metric)
    # everything else is still there: the decision rule's cards and the LRAP section
    assert _metric(wine, "F1 (micro)") != ""
    assert "Label ranking AP vs samples-averaged AP" in [s.value for s in wine.subheader]
    # the typed value is kept; fixing it brings the numbers back
    assert wine.session_state["multilabel_cost_editor"]["edited_rows"] == {1: {"class_0": -2.0}}
    _edit_cost(wine, {1: {"class_0": 3.0}})
    cost = 1 - np.eye(3)
    cost[1, 0] = 3
    _check_costs(wine, mc.problem_from_dataset(data.bundled_dataset("wine_multiclass")), cost)


def test_wine_cost_of_missing_a_class_shortcut_and_reset(wine):
    p = mc.problem_from_dataset(data.bundled_dataset("wine_multiclass"))
    wine.selectbox(key="multilabel_cost_class").set_value("class_2").run()
    wine.number_input(key="multilabel_cost_miss").set_value(50.0).run()
    wine.button(key="multilabel_cost_set").click().run()
    cost = 1 - np.eye(3)
    cost[2, :2] = 50
    assert wine.session_state["multilabel_cost_values"] == cost.tolist()
    _check_costs(wine, p, cost)
    # a second class keeps the first one's row
    wine.selectbox(key="multilabel_cost_class").set_value("class_0").run()
    wine.number_input(key="multilabel_cost_miss").set_value(4.0).run()
    wine.button(key="multilabel_cost_set").click().run()
    cost[0, 1:] = 4
    _check_costs(wine, p, cost)
    wine.button(key="multilabel_cost_reset").click().run()
    _check_costs(wine, p, 1 - np.eye(3))


def _multiclass_upload(n_classes: int, n: int = 120, seed: int = 9, scale=None):
    """A multi-class upload (one label column, a score column per class): the app on this page,
    the true labels, the class names and the scores as the file holds them."""
    rng = np.random.default_rng(seed)
    names = [f"k{c:02d}" for c in range(n_classes)]
    truth = rng.integers(0, n_classes, n)
    s = rng.dirichlet(np.ones(n_classes), n) + 2.0 * np.eye(n_classes)[truth] * rng.random((n, 1))
    s /= s.sum(axis=1, keepdims=True)
    if scale is not None:
        s = s * scale[:, None]
    text = [[f"{v:.6f}" for v in row] for row in s]
    lines = ["label," + ",".join(f"score_{c}" for c in names)]
    lines += [f"{names[t]}," + ",".join(row) for t, row in zip(truth, text, strict=True)]
    at = AppTest.from_file(APP, default_timeout=60)
    at.run()
    at.segmented_control(key="source").set_value("Upload").run()
    at.file_uploader(key="upload_file").set_value(
        ("mc.csv", "\n".join(lines).encode(), "text/csv")
    ).run()
    if at.radio(key="map_layout").value != "multiclass":
        at.radio(key="map_layout").set_value("multiclass").run()
    at.switch_page(PAGE).run()
    assert not at.exception, at.exception
    scores = np.array([[float(v) for v in row] for row in text])
    return at, np.asarray(names)[truth], names, scores


def test_many_classes_use_the_shortcut_and_unnormalised_rows_are_said():
    from ui.analyses import cost_matrix as cm

    n_classes = cm.MAX_EDITABLE + 2
    rng = np.random.default_rng(1)
    at, truth, names, scores = _multiclass_upload(n_classes, scale=rng.uniform(0.5, 0.9, 120))
    assert "Costs: the minimum-expected-cost decision against argmax" in [
        s.value for s in at.subheader
    ]
    assert "multilabel_cost_editor" not in at.session_state  # no cell-by-cell editor
    assert any(f"With {n_classes} classes" in c.value for c in at.caption)
    assert any("each row was divided by its sum" in c.value for c in at.caption)
    at.selectbox(key="multilabel_cost_class").set_value("k03").run()
    at.number_input(key="multilabel_cost_miss").set_value(8.0).run()
    at.button(key="multilabel_cost_set").click().run()
    assert not at.exception
    cost = 1 - np.eye(n_classes)
    cost[3, [c for c in range(n_classes) if c != 3]] = 8
    view = next(d.value for d in at.dataframe if d.value.columns[0] == cm.CORNER)
    np.testing.assert_array_equal(view.iloc[:, 1:].to_numpy(float), cost)
    proba = scores / scores.sum(axis=1, keepdims=True)
    want = metrics.compare_cost_decisions(truth, proba, cost, labels=names)
    assert want.changed > 0
    assert _metric(at, "rows changing decision") == f"{want.changed:,}"
    assert _metric(at, "mean cost, min cost") == dr.fmt(want.min_cost_mean)
    assert _metric(at, "total cost, argmax") == f"{want.argmax_mean * truth.size:,.6g}"
    # dividing each row by its sum changes no decision
    raw = metrics.compare_cost_decisions(truth, scores, cost, labels=names)
    np.testing.assert_array_equal(raw.min_cost_pred, want.min_cost_pred)


@pytest.mark.parametrize("dataset", ["wine_multiclass", "digits_multilabel"])
def test_the_averages_show_their_intervals(dataset):
    """Issue 31: the decision rule's averages (macro-F1 among them) and the averaged AP and AUC
    carry 95% bootstrap intervals, the library's for the rule on the page; 0 resamples hides
    them."""
    at = _open(dataset)
    p = mc.problem_from_dataset(data.bundled_dataset(dataset))
    rule = dr.Rule("argmax") if p.multiclass else None
    if rule is None:
        rule = dr.Rule("shared", threshold=float(at.slider(key="multilabel_threshold").value))
    want = metrics.decision_intervals(p.y, dr.indicator(p, rule), sample_weight=p.weight,
                                      n_resamples=200)  # fmt: skip
    table = _frame(at, "metric", "weighted")
    shown = next(d.value for d in at.dataframe if "micro" in d.value.columns and d.value["macro"]
                 .astype(str).str.startswith("[").any()).set_index("metric")  # fmt: skip
    for name in ("precision", "recall", "F1", "Jaccard"):
        for avg in ("micro", "macro", "weighted"):
            assert shown.loc[name, avg] == dr.interval(want.intervals[(name, avg)]), (name, avg)
        if p.multiclass:
            assert shown.loc[name, "samples"] == "—"
    assert table is not None
    captions = "\n".join(c.value for c in at.caption)
    assert f"{dr.interval(want.accuracy_interval)}. The rule's predictions fixed" in captions
    truth = p.true_labels() if p.multiclass else p.y
    band = metrics.compare_multiclass_models(
        truth, {p.name: p.scores}, classes=list(p.classes) if p.multiclass else None,
        sample_weight=p.weight, n_resamples=200, probabilities=False,
    )  # fmt: skip
    ap = band.results["macro AP"].models[0]
    assert f"AP (macro) [{decimals(ap.ci_low)}, {decimals(ap.ci_high)}]" in captions
    assert ap.estimate == pytest.approx(float(_metric(at, "AP (macro)")), abs=5e-5)
    at.selectbox(key="multilabel_resamples").set_value(0).run()
    assert not at.exception
    assert not any(d.value["macro"].astype(str).str.startswith("[").any() for d in at.dataframe
                   if "macro" in d.value.columns)  # fmt: skip
    assert "AP (macro) [" not in "\n".join(c.value for c in at.caption)

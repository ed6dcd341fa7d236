"""The app and its pages run headless (AppTest) and show what the library computes."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

import metrics
from tests.apptest_utils import figures, markdown_text, open_page
from ui.compute import data
from ui.tables.dataset import BUNDLED, DEFAULT_DATASET, SAMPLE_DIR

APP = str(Path(__file__).resolve().parent.parent / "app.py")


@pytest.fixture
def app() -> AppTest:
    at = AppTest.from_file(APP, default_timeout=30)
    at.run()
    assert not at.exception
    return at


def _metric(at: AppTest, label: str) -> str:
    return next(m.value for m in at.metric if m.label == label)


def _threshold(at: AppTest) -> float:
    """The current model's threshold, as the Threshold page's slider shows it."""
    return at.slider(key="threshold_slider").value


def test_opens_on_threshold_page_with_default_data(app):
    assert app.session_state["dataset"] == DEFAULT_DATASET
    assert [h.value for h in app.subheader] == ["Threshold · logistic\\_regression"]
    # the confusion matrix, the ROC and PR curves with the point, rates against the threshold
    assert len(app.get("plotly_chart")) == 4
    assert _threshold(app) == 0.5  # probabilities: 0.5


def test_threshold_slider_changes_the_numbers_to_the_library_values(app):
    table = data.bundled_dataset(DEFAULT_DATASET)
    model = app.session_state["model"]
    for t in (0.1, 0.5, 0.9):
        app.slider(key="threshold_slider").set_value(t).run()
        assert not app.exception
        c = metrics.confusion_at_threshold(table.y, table.score(model), t, pos_label=True)
        assert _metric(app, "Precision") == f"{c.precision:.3f}"
        assert _metric(app, "Recall (TPR)") == f"{c.recall:.3f}"
        assert _metric(app, "MCC") == f"{c.mcc:.3f}"


def test_switching_model_and_beta(app):
    table = data.bundled_dataset(DEFAULT_DATASET)
    app.selectbox(key="model").set_value("naive_bayes").run()
    app.number_input(key="threshold_beta").set_value(2.0).run()
    assert not app.exception
    t = app.slider(key="threshold_slider").value
    c = metrics.confusion_at_threshold(table.y, table.score("naive_bayes"), t, pos_label=True)
    assert _metric(app, "F2") == f"{c.f_beta(2.0):.3f}"


def test_page_opened_first_after_server_start_still_runs_in_the_shell(monkeypatch):
    # Undo the conftest patch: Streamlit's legacy pages/ mode runs the page script directly.
    monkeypatch.undo()
    at = AppTest.from_file(APP, default_timeout=30)
    at.run()  # main page
    at.run()  # the threshold page script, run directly by the legacy mode
    assert not at.exception
    assert at.subheader[0].value.startswith("Threshold")
    assert at.sidebar.selectbox(key="dataset").value == DEFAULT_DATASET


GOOD_CSV = (
    b"outcome,model_x,model_y\nYes,0.9,0.4\nNo,0.2,0.6\nYes,0.7,0.3\nNo,0.4,0.1\nNo,0.1,0.5\n"
)


def _upload(at: AppTest, name: str, content: bytes) -> AppTest:
    at.segmented_control(key="source").set_value("Upload").run()
    at.file_uploader(key="upload_file").set_value((name, content, "text/csv")).run()
    return at


def _values(at: AppTest, kind: str) -> list[str]:
    """Element texts as a reader sees them (markdown escapes removed)."""
    return [re.sub(r"\\(.)", r"\1", e.value) for e in getattr(at, kind)]


def test_upload_maps_columns_and_shows_the_library_values(app):
    _upload(app, "scores.csv", GOOD_CSV)
    assert not app.exception
    assert app.selectbox(key="map_label").value == "outcome"
    assert app.selectbox(key="map_pos_outcome").value == "Yes"
    assert app.multiselect(key="map_scores").value == ["model_x", "model_y"]
    y = np.array([1, 0, 1, 0, 0], bool)
    s = np.array([0.9, 0.2, 0.7, 0.4, 0.1])
    c = metrics.confusion_at_threshold(y, s, _threshold(app), pos_label=True)
    assert _metric(app, "Precision") == f"{c.precision:.3f}"
    # A mapping change: the other model, then "No" as the positive class.
    app.selectbox(key="model").set_value("model_y").run()
    app.selectbox(key="map_pos_outcome").set_value("No").run()
    assert not app.exception
    c = metrics.confusion_at_threshold(
        ~y, np.array([0.4, 0.6, 0.3, 0.1, 0.5]), _threshold(app), pos_label=True
    )
    assert _metric(app, "Recall (TPR)") == f"{c.recall:.3f}"


def test_bad_upload_keeps_the_previous_data(app):
    _upload(app, "scores.csv", GOOD_CSV)
    app.file_uploader(key="upload_file").set_value(
        ("broken.csv", b"a,b\n1,2\n3,4,5\n", "text/csv")
    ).run()
    assert not app.exception
    assert any("line 3 has 3 fields" in e for e in _values(app, "error"))
    assert app.multiselect(key="map_scores").value == ["model_x", "model_y"]  # still the good table
    assert len(app.metric) == 10


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"", "is empty"),
        (b"y,s\n1,0.5\n0,\n1,0.2\n", "has 1 missing value (row 2)"),
        (b"y,s\n1,0.5\n0,abc\n1,0.2\n", "1 non-numeric value (row 2, e.g. 'abc')"),
        (b"y,s\n1,0.5\n2,0.1\n0,0.2\n", "3 distinct values"),
        # unusable labels and scores that are not probabilities: the sidebar's default
        # threshold needs the positives, which there are none of yet
        (b"y,s\n1,2.5\n2,-1.1\n0,0.2\n", "3 distinct values"),
    ],
)
def test_bad_data_gives_a_message_not_a_traceback(app, content, message):
    _upload(app, "bad.csv", content)
    assert not app.exception
    shown = _values(app, "error") + _values(app, "warning")
    assert any(message in e for e in shown), shown


def test_missing_scores_can_be_dropped(app):
    _upload(app, "holes.csv", b"y,s\n1,0.5\n0,\n1,0.2\n0,0.1\n")
    assert any("Drop those rows" in e for e in _values(app, "error"))
    app.checkbox(key="map_drop_bad_rows").check().run()
    assert not app.exception
    assert not _values(app, "error")
    assert any("Dropped 1 row with" in e for e in _values(app, "info"))
    assert len(app.metric) == 10


def test_curves_page_shows_every_model_with_library_areas(app):
    app.switch_page("pages/curves.py").run()
    assert not app.exception
    table = data.bundled_dataset(DEFAULT_DATASET)
    figs = [json.loads(c.proto.spec) for c in app.get("plotly_chart")]
    roc_names = [
        t["name"]
        for t in figs[0]["data"]
        if "(AUC" in t.get("name", "") and "logistic" in t["name"]
    ]
    auc = metrics.roc_auc_score(table.y, table.score("logistic_regression"))
    assert roc_names == [f"logistic_regression (AUC {auc:.3f})"]
    ap = metrics.average_precision_score(table.y, table.score("naive_bayes"))
    assert any(t.get("name") == f"naive_bayes (AP {ap:.3f})" for t in figs[1]["data"])


def test_shared_link_reopens_the_view():
    at = AppTest.from_file(APP, default_timeout=30)
    at.query_params["dataset"] = "breast_cancer"
    at.query_params["model"] = "gradient_boosting"
    at.query_params["threshold"] = "0.25"
    at.run()
    assert not at.exception
    assert at.session_state["model"] == "gradient_boosting"
    assert _threshold(at) == 0.25
    assert at.session_state["thresholds"] == {"gradient_boosting": 0.25}
    # Every model's own threshold, one "model:value" each.
    at = AppTest.from_file(APP, default_timeout=30)
    at.query_params["dataset"] = "breast_cancer"
    at.query_params["model"] = "naive_bayes"
    at.query_params["threshold"] = ["naive_bayes:0.7", "logistic_regression:0.3"]
    at.run()
    assert _threshold(at) == 0.7
    at.selectbox(key="model").set_value("logistic_regression").run()
    assert _threshold(at) == 0.3
    assert sorted(at.query_params["threshold"]) == [
        "logistic_regression:0.3",
        "naive_bayes:0.7",
    ]


def test_compare_page_table_equals_the_library_and_stars_only_what_the_test_supports(app):
    from metrics.compare import delong_test

    app.switch_page("pages/compare.py").run()
    assert not app.exception
    table = data.bundled_dataset(DEFAULT_DATASET)
    shown = app.dataframe[0].value
    auc = metrics.roc_auc_score(table.y, table.score("naive_bayes"))
    row = shown[shown["model"] == "naive_bayes"].iloc[0]
    assert row["AUC"].startswith(f"{auc:.4f}  [")
    # Logistic regression leads on AUC, but DeLong against gradient boosting says p = 0.325:
    # after Holm's correction no model may carry a star on AUC.
    r = delong_test(table.y, table.score("logistic_regression"), table.score("gradient_boosting"))
    assert r.p_value == pytest.approx(0.325, abs=0.0005)
    assert not any(v.startswith("★") for v in shown["AUC"])
    text = markdown_text(app)
    assert "**AUC**: no significant difference" in text
    assert f"p = {r.p_value:.3g}" in text
    # A star, where there is one, sits on the model whose verdict says it is best.
    for metric in ("AP", "Brier", "Log loss"):
        starred = shown[shown[metric].str.startswith("★")]["model"].tolist()
        assert len(starred) <= 1
        if starred:
            assert f"**{metric}**: ★ {starred[0]} is best" in text.replace("\\_", "_")
    # The intervals are the fast paired bootstrap's: 1000 Poisson resamples, seed 0, one set
    # of draws for every metric.
    names = list(shown["model"])
    fast = metrics.fast_paired_bootstrap(
        table.y.astype(bool), *(table.score(m) for m in names), n_resamples=1000
    )
    k = names.index("naive_bayes")
    iv = fast.results["average_precision"].models[k]
    assert row["AP"].endswith(f"{iv.estimate:.4f}  [{iv.ci_low:.4f}, {iv.ci_high:.4f}]")
    # bands, threshold stability, gains, the decision curve, histograms (one per model) and the
    # reliability diagram
    all_keys = [c.key for c in app.get("plotly_chart")]
    assert "compare_many_cd" in all_keys  # three models: the critical-difference diagram
    keys = [k for k in all_keys if k != "compare_many_cd"]
    assert keys[:8] == [
        "compare_roc_band", "compare_pr_band", "compare_rate_band", "compare_stability",
        "compare_gains", "compare_ks", "compare_cost", "compare_decision_curve",
    ]  # fmt: skip
    assert len(keys) == 12
    # The KS chart marks each model's KS where the library finds it.
    ks_fig = next(f for f in figures(app) if f["layout"]["yaxis"]["title"]["text"] == "TPR − FPR")
    marks = [tr["name"] for tr in ks_fig["data"] if tr.get("mode") == "markers"]
    assert marks == [
        f"KS {metrics.ks_statistic(table.y, table.score(m)).statistic:.3f}" for m in shown["model"]
    ]


def test_compare_operating_point_gains_and_decision_curve_equal_the_library(app):
    from metrics.operating import precision_at_recall, top_k_precision_recall

    table = data.bundled_dataset(DEFAULT_DATASET)
    y = table.y
    app.switch_page("pages/compare.py").run()
    ops = next(d.value for d in app.dataframe if "rows flagged" in d.value.columns)
    names = list(ops["model"])
    fast = metrics.fast_paired_bootstrap(
        y.astype(bool), *(table.score(m) for m in names), n_resamples=200,
        thresholds=list(ops["threshold"]),
    )  # fmt: skip
    for k, row in ops.iterrows():
        p = precision_at_recall(y, table.score(row["model"]), 0.9)
        assert row["threshold"] == p.threshold
        assert float(row["precision"].split()[0]) == pytest.approx(p.value, abs=5e-5)
        iv = fast.results["recall"].models[k]
        assert row["recall"] == f"{iv.estimate:.4f}  [{iv.ci_low:.4f}, {iv.ci_high:.4f}]"
    app.segmented_control(key="compare_op_kind").set_value("top %").run()
    ops = next(d.value for d in app.dataframe if "rows flagged" in d.value.columns)
    _, recall, t = top_k_precision_recall(y, table.score("naive_bayes"), fraction=0.05)
    got = ops.set_index("model").loc["naive_bayes"]
    assert got["threshold"] == t
    assert float(got["recall"].split()[0]) == pytest.approx(recall, abs=5e-5)
    ks = next(d.value for d in app.dataframe if "KS" in d.value.columns)
    expected = metrics.ks_statistic(y, table.score("gradient_boosting"))
    got = ks.set_index("model").loc["gradient_boosting"]
    assert got["at threshold"] == expected.threshold
    assert got["KS"].startswith(f"{expected.statistic:.4f}  [")
    lift = next(d.value for d in app.dataframe if "cumulative lift" in d.value.columns)
    expected = metrics.lift_table(y, table.score("logistic_regression"), bins=10)
    np.testing.assert_allclose(lift["lift"], expected["lift"])
    best = metrics.expected_cost(y, table.score("naive_bayes"), cost_fp=1, cost_fn=5)
    assert f"naive\\_bayes {best.cost[best.best]:,.4g} at {best.best_threshold:.4g}" in "".join(
        c.value for c in app.caption
    )
    decision = next(f for f in figures(app) if f["layout"]["xaxis"]["title"]["text"].startswith(
        "threshold probability"))  # fmt: skip
    names = [t["name"] for t in decision["data"]]
    bands = [n for n in names if n.endswith("95% band")]
    assert len(bands) == 3  # one per model, drawn first, under the lines
    assert names[3:5] == ["treat all", "treat none"]


def test_model_choice_survives_a_dataset_switch_on_every_page(app):
    for page, key in (("pages/curves.py", "curves_models"), ("pages/compare.py", "compare_models")):
        app.switch_page(page).run()
        app.selectbox(key="dataset").set_value("user_impressions").run()
        assert not app.exception
        assert app.multiselect(key=key).value == ["model_a", "model_b"]
        _upload(app, "scores.csv", GOOD_CSV)
        assert app.multiselect(key=key).value == ["model_x", "model_y"]
        app.segmented_control(key="source").set_value("Sample dataset").run()
        app.selectbox(key="dataset").set_value("breast_cancer").run()
        assert len(app.multiselect(key=key).value) == 3


def test_data_page_summarises_even_an_unusable_upload(app):
    _upload(app, "holes.csv", b"y,s\n1,0.5\n0,\n1,0.2\n0,0.1\n")
    app.switch_page("pages/data.py").run()
    assert not app.exception
    summary = app.dataframe[0].value
    assert summary.set_index("column").loc["s", "missing"] == 1
    assert summary.set_index("column").loc["y", "role"] == "label"


PAGE_FILES = ["pages/threshold.py", "pages/curves.py", "pages/compare.py", "pages/data.py"]


@pytest.mark.parametrize("dataset", list(BUNDLED))
def test_every_bundled_dataset_opens_on_every_page(app, dataset):
    app.selectbox(key="dataset").set_value(dataset).run()
    assert not app.exception
    assert not _values(app, "error"), _values(app, "error")
    ds = data.bundled_dataset(dataset)
    assert app.selectbox(key="model").options == list(ds.models)
    for page in PAGE_FILES:
        app.switch_page(page).run()
        assert not app.exception, (dataset, page, app.exception)


def test_multiclass_upload_is_one_vs_rest_per_class(app):
    content = (SAMPLE_DIR / "wine_multiclass.csv").read_bytes()
    _upload(app, "wine.csv", content)
    assert not app.exception
    assert app.radio(key="map_layout").value == "multiclass"
    assert app.selectbox(key="model").options == ["score_class_0", "score_class_1", "score_class_2"]
    ds = data.bundled_dataset("wine_multiclass")
    y = ds.labels_for("score_class_0")
    c = metrics.confusion_at_threshold(
        y, ds.score("score_class_0"), _threshold(app), pos_label=True
    )
    assert _metric(app, "Precision") == f"{c.precision:.3f}"


def test_explain_formulas_are_clean_latex(app):
    formulas = [e.value for e in app.get("latex")] if hasattr(app, "get") else []
    assert any(r"\frac{TP\cdot TN" in f for f in formulas)
    assert any(r"\text{precision} = \frac{TP}{TP + FP}" in f for f in formulas)
    assert not any(ch in f for f in formulas for ch in "\x0c\t\x08")


def test_a_slice_scopes_every_page_with_a_banner_and_a_reset(app):
    import pandas as pd

    rng = np.random.default_rng(5)
    n = 400
    frame = pd.DataFrame(
        {
            "item_id": rng.permutation(n),
            "device": rng.choice(["ios", "android", "web"], n),
            "clicked": rng.random(n) < 0.25,
            "model_pct": np.round(rng.random(n) * 100, 2),
        }
    )
    from tests.apptest_utils import upload_frame

    upload_frame(app, frame, "clicks.csv")
    assert app.multiselect(key="map_scores").value == ["model_pct"]
    assert app.multiselect(key="map_slices").value == ["device"]
    assert _threshold(app) == 50.0  # percent scores: 50, not the lowest score
    app.selectbox(key="slice_choice").set_value(("device", "web")).run()
    assert not app.exception
    web = frame[frame.device == "web"]
    assert any("Showing only" in i.value and f"{len(web):,} of 400" in i.value for i in app.info)
    c = metrics.confusion_at_threshold(web.clicked, web.model_pct, 50.0, pos_label=True)
    assert _metric(app, "Recall (TPR)") == f"{c.recall:.3f}"
    app.switch_page("pages/curves.py").run()
    assert any("Showing only" in i.value for i in app.info)
    app.button(key="slice_reset").click().run()
    assert not any("Showing only" in i.value for i in app.info)


def test_curves_page_shows_partial_auc_with_its_region(app):
    table = data.bundled_dataset(DEFAULT_DATASET)
    app.switch_page("pages/curves.py").run()
    app.select_slider(key="curves_max_fpr").set_value(0.1).run()
    assert not app.exception
    pauc = metrics.roc_auc_score(table.y, table.score("naive_bayes"), max_fpr=0.1)
    assert any(f"naive\\_bayes {pauc:.4f}" in c.value for c in app.caption)
    roc = figures(app)[0]
    assert roc["layout"]["shapes"][0]["x1"] == 0.1


def test_compare_lists_its_sections_at_the_top():
    """Compare is long: a line of links to the sections this run drew, in page order."""
    app = open_page("pages/compare.py")
    assert not app.exception
    toc = next(c.value for c in app.caption if c.value.startswith("On this page:"))
    links = re.findall(r"\[([^\]]+)\]\(#([a-z-]+)\)", toc)
    headings = [h.value for h in app.subheader]
    assert [t for t, _ in links] == [h for h in headings if h in dict(links)]
    anchors = dict(links)
    assert anchors["Are the differences real?"] == "differences"
    assert "3 models at once: ranks, critical difference, McNemar" in anchors  # three models
    assert len(links) >= 8
    assert [a.proto.anchor for a in app.subheader if a.value in anchors] == list(anchors.values())


ANALYSIS_PAGES = [
    f"pages/{p}.py"
    for p in ("threshold", "curves", "decisions", "calibration", "gauc", "ranking", "multilabel",
              "compare", "ap_lab", "auc_lab", "step_through")
]  # fmt: skip


def test_every_page_names_the_dataset_it_shows(app):
    """#19 §3: a page never shows a dataset without saying which, after a switch of sample, an
    upload, and an upload that cannot be used yet (the last good one shows, named)."""

    def named(line: str) -> None:
        for page in ANALYSIS_PAGES:
            app.switch_page(page).run()
            assert not app.exception, (page, app.exception)
            shown = re.sub(r"\\(.)", r"\1", app.caption[0].value)  # markdown escapes removed
            assert shown.endswith(line), (page, shown, line)

    app.selectbox(key="dataset").set_value("user_impressions").run()
    named("Sample dataset: **" + data.bundled_dataset("user_impressions").name + "**")
    _upload(app, "scores.csv", GOOD_CSV)
    named("Upload: **scores.csv**")
    _upload(app, "holes.csv", b"y,s\n1,0.5\n0,\n1,0.2\n0,0.1\n")  # unusable: scores.csv stays
    named("Upload: **scores.csv**")
    app.toggle(key="presentation").set_value(True).run()  # the bar's dataset menu stands in
    menu = next(s for s in app.selectbox if s.key and s.key.startswith("presentation_data_"))
    assert menu.value == "Upload: scores.csv", menu.value
    assert not any("holes.csv" in option for option in menu.options), menu.options[5:]


def test_a_pages_model_choice_outlives_a_visit_to_another_page(app):
    """Streamlit drops a widget's state when its page is left: the model pickers came back
    empty ("Pick at least one model") on a second visit."""
    for page, key in (("pages/compare.py", "compare_models"), ("pages/curves.py", "curves_models")):
        app.switch_page(page).run()
        assert len(app.multiselect(key=key).value) == 3
        app.multiselect(key=key).set_value(["gradient_boosting", "naive_bayes"]).run()
        app.switch_page("pages/threshold.py").run()
        app.switch_page(page).run()
        assert not app.exception, app.exception
        assert app.multiselect(key=key).value == ["gradient_boosting", "naive_bayes"], page


def test_while_an_upload_cannot_be_used_the_model_box_picks_among_the_shown_tables_models(app):
    """A second upload with problems: the pages show the last usable one, so the sidebar's
    model box lists that table's models (not the broken file's) and picking one shows it."""
    _upload(app, "scores.csv", GOOD_CSV)
    _upload(app, "holes.csv", b"y,s\n1,0.5\n0,\n1,0.2\n0,0.1\n")  # unusable: scores.csv stays
    box = app.sidebar.selectbox(key="model")
    assert list(box.options) == ["model_x", "model_y"]
    box.set_value("model_y").run()
    app.switch_page("pages/threshold.py").run()
    assert not app.exception, app.exception
    assert any("Threshold · model\\_y" in h.value for h in app.subheader), [
        h.value for h in app.subheader
    ]


def test_the_data_page_of_an_unusable_upload_says_what_the_other_pages_show(app):
    _upload(app, "scores.csv", GOOD_CSV)
    _upload(app, "holes.csv", b"y,s\n1,0.5\n0,\n1,0.2\n0,0.1\n")
    app.switch_page("pages/data.py").run()
    assert not app.exception, app.exception
    said = " ".join(i.value for i in app.info)
    assert "the other pages show scores\\.csv" in said, said

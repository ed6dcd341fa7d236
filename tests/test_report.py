"""``metrics-lens report``: one HTML file that opens in Chromium with the network off and shows
the library's numbers; the notebook entry; bad input."""

from __future__ import annotations

import re
import warnings

import numpy as np
import pandas as pd
import pytest

import metrics
import metrics_lens
from metrics.conventions import gauc_conventions, keras_roc_auc, spark_roc_auc
from metrics_lens.cli import main
from metrics_lens.report import ReportHTML
from tests.lens_browser import ROOT, chromium, needs_chromium, run_module

CANCER = ROOT / "sample_data" / "breast_cancer.csv"
IMPRESSIONS = ROOT / "sample_data" / "user_impressions.csv"
RESAMPLES = 200


def f4(x) -> str:
    return f"{float(x):.4f}"


@pytest.fixture(scope="module")
def cancer_report(tmp_path_factory):
    out = tmp_path_factory.mktemp("report") / "cancer.html"
    code = main(["report", str(CANCER), "-o", str(out), "--resamples", str(RESAMPLES),
                 "--threshold", "naive_bayes=0.9"])  # fmt: skip
    assert code == 0
    return out


@pytest.fixture(scope="module")
def grouped_report(tmp_path_factory):
    out = tmp_path_factory.mktemp("report") / "impressions.html"
    code = main(["report", str(IMPRESSIONS), "--group", "user_id", "-o", str(out),
                 "--resamples", str(RESAMPLES)])  # fmt: skip
    assert code == 0
    return out


def _read_offline(path) -> tuple[dict, list[str], int]:
    """Open the report with the network off: (numbers by (metric, model) or cell, the requests
    the page made, plotly figures drawn)."""
    requests = []
    with chromium() as browser:
        context = browser.new_context(offline=True)
        context.route(
            "**/*",
            lambda route: (
                route.continue_() if route.request.url.startswith("file://") else route.abort()
            ),
        )
        page = context.new_page()
        page.on("request", lambda r: requests.append(r.url))
        page.goto(path.as_uri())
        page.wait_for_selector("#roc-figure .main-svg", timeout=30_000)
        page.wait_for_selector("#pr-figure .main-svg", timeout=30_000)
        numbers = page.evaluate(
            """() => {
              const out = {};
              for (const td of document.querySelectorAll('td[data-metric][data-model]')) {
                const ci = td.querySelector('.ci');
                out[td.dataset.metric + '|' + td.dataset.model] = [
                  td.querySelector('.v').textContent, ci ? ci.textContent : null];
              }
              for (const td of document.querySelectorAll('td[data-cell]')) {
                out['cell ' + td.dataset.cell + '|' + td.dataset.model] = [td.textContent, null];
              }
              for (const s of document.querySelectorAll('span.threshold')) {
                out['threshold|' + s.dataset.model] = [s.textContent, null];
              }
              return out;
            }"""
        )
        traces = page.evaluate("() => document.getElementById('roc-figure').data.length")
        context.close()
    return numbers, requests, traces


@needs_chromium
def test_the_report_opens_offline_and_shows_the_librarys_numbers(cancer_report):
    frame = pd.read_csv(CANCER)
    y = frame["label"].to_numpy() == 1
    models = ["logistic_regression", "gradient_boosting", "naive_bayes"]
    numbers, requests, traces = _read_offline(cancer_report)
    assert requests == [cancer_report.as_uri()]  # nothing else was fetched
    assert traces == 2 * len(models) + 1  # a curve and an operating point each, and chance
    scores = [frame[m].to_numpy() for m in models]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        boot = metrics.fast_paired_bootstrap(y, *scores, n_resamples=RESAMPLES, seed=0,
                                             max_fpr=0.1)  # fmt: skip
    for k, m in enumerate(models):
        s = scores[k]
        auc_iv = boot.results["roc_auc"].models[k]
        assert numbers[f"AUC|{m}"] == [
            f4(metrics.roc_auc_score(y, s)), f"[{f4(auc_iv.ci_low)}, {f4(auc_iv.ci_high)}]"
        ]  # fmt: skip
        ap_iv = boot.results["average_precision"].models[k]
        assert numbers[f"AP|{m}"] == [
            f4(metrics.average_precision_score(y, s)),
            f"[{f4(ap_iv.ci_low)}, {f4(ap_iv.ci_high)}]",
        ]
        assert numbers[f"pAUC (FPR ≤ 0.1)|{m}"][0] == f4(metrics.roc_auc_score(y, s, max_fpr=0.1))
        assert numbers[f"Brier|{m}"][0] == f4(metrics.brier_score_loss(y, s))
        for method in metrics.AP_METHODS:
            value = metrics.average_precision_score(y, s, method=method)
            assert numbers[f"AP {method}|{m}"][0] == f4(value)
        keras, spark = keras_roc_auc(y, s), spark_roc_auc(y, s)
        assert numbers[f"ROC AUC keras.metrics.AUC(num_thresholds=200)|{m}"][0] == f4(keras)
        spark_cell = numbers[f"ROC AUC BinaryClassificationEvaluator(numBins=1000)|{m}"]
        assert spark_cell[0] == f4(spark)
    # Thresholds: the one given, and 0.5 (probabilities) for the others.
    assert numbers["threshold|naive_bayes"][0] == "0.9"
    assert numbers["threshold|gradient_boosting"][0] == "0.5"
    for m, t in (("naive_bayes", 0.9), ("gradient_boosting", 0.5)):
        c = metrics.confusion_at_threshold(y, frame[m], t)
        for cell in ("tp", "fp", "fn", "tn"):
            assert numbers[f"cell {cell}|{m}"][0] == f"{int(getattr(c, cell)):,}"
        assert numbers[f"precision|{m}"][0] == f4(c.precision)
        assert numbers[f"recall|{m}"][0] == f4(c.recall)
        assert numbers[f"f1|{m}"][0] == f4(c.f1)
        assert numbers[f"mcc|{m}"][0] == f4(c.mcc)


@needs_chromium
def test_a_grouped_report_shows_gauc_and_resamples_whole_users(grouped_report):
    frame = pd.read_csv(IMPRESSIONS)
    y = frame["clicked"].to_numpy() == 1
    groups = frame["user_id"].to_numpy()
    numbers, requests, _ = _read_offline(grouped_report)
    assert requests == [grouped_report.as_uri()]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        boot = metrics.fast_paired_bootstrap(
            y, frame["model_a"], frame["model_b"], n_resamples=RESAMPLES, seed=0, groups=groups
        )
    for k, m in enumerate(["model_a", "model_b"]):
        s = frame[m].to_numpy()
        assert numbers[f"GAUC|{m}"][0] == f4(metrics.group_auc_score(y, s, groups))
        for weighting in ("positives", "uniform"):
            want = metrics.group_auc_score(y, s, groups, weighting=weighting)
            assert numbers[f"GAUC {weighting}|{m}"][0] == f4(want)
        torchrec = gauc_conventions(y, s, groups)[-1]
        assert numbers[f"GAUC torchrec|{m}"][0] == f4(torchrec.gauc)
        iv = boot.results["roc_auc"].models[k]
        assert numbers[f"AUC|{m}"][1] == f"[{f4(iv.ci_low)}, {f4(iv.ci_high)}]"
    text = grouped_report.read_text(encoding="utf-8")
    assert "whole groups (cluster bootstrap)" in text
    assert "row-level p (DeLong, not the verdict)" in text


def test_the_report_is_self_contained(cancer_report):
    text = cancer_report.read_text(encoding="utf-8")
    assert not re.search(r"""<(script|link|img|iframe)[^>]+(src|href)=["']?(https?:)?//""", text)
    assert "Plotly" in text  # the library itself, inline
    for section in ("dataset", "metrics", "curves", "thresholds", "ap-methods",
                    "auc-conventions", "verdicts", "settings"):  # fmt: skip
        assert f'<section id="{section}">' in text
    assert '<section id="gauc">' not in text  # no group column, no GAUC
    assert "metrics-lens report" in text  # the command that produced it


def test_column_names_are_escaped(tmp_path):
    rng = np.random.default_rng(0)
    y = rng.random(200) < 0.5
    name = '<img src=x onerror="alert(1)">'
    frame = pd.DataFrame({"label": y.astype(int), name: rng.random(200) + y})
    page = metrics_lens.report_html(frame, label="label", score=name, n_resamples=100)
    assert name not in page
    assert html_escape(name) in page


def html_escape(text: str) -> str:
    import html

    return html.escape(text, quote=True)


def test_the_notebook_entry_returns_the_reports_html_and_shows_inline():
    frame = pd.read_csv(CANCER)
    page = metrics_lens.report_html(frame, label="label", score=["naive_bayes",
                                    "logistic_regression"], n_resamples=100)  # fmt: skip
    assert isinstance(page, ReportHTML)
    assert isinstance(page, str)
    assert page.startswith("<!DOCTYPE html>")
    y = frame["label"].to_numpy() == 1
    auc = f4(metrics.roc_auc_score(y, frame["naive_bayes"]))
    assert f'data-metric="AUC" data-model="naive_bayes"><span class="v">{auc}</span>' in page
    inline = page._repr_html_()
    assert inline.startswith("<iframe")
    assert 'srcdoc="&lt;!DOCTYPE html&gt;' in inline


def test_the_notebook_entry_reads_a_file_too(tmp_path):
    page = metrics_lens.report_html(CANCER, score="naive_bayes", n_resamples=100)
    assert "breast_cancer.csv" in page
    saved = page.save(tmp_path / "r.html")
    assert saved.read_text(encoding="utf-8") == page


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["missing.csv"], "missing.csv: no such file."),
        ([str(CANCER), "--label", "nope"], "No column named 'nope'"),
        ([str(CANCER), "--score", "nope"], "No column named 'nope'"),
        ([str(CANCER), "--threshold", "naive_bayes=high"], "--threshold takes MODEL=T"),
        # issue 50 §6: not a number, past a double, empty, no model, no threshold at all
        *(([str(CANCER), "--threshold", t], "--threshold takes MODEL=T with a finite number")
          for t in ("naive_bayes=nan", "naive_bayes=inf", "naive_bayes=-inf",
                    "naive_bayes=1e400", "naive_bayes=", "=0.5", "", "naive_bayes")),
        ([str(CANCER), "--threshold", "other=0.5", "--score", "naive_bayes"],
         "--threshold names 'other'"),
    ],
)  # fmt: skip
def test_bad_input_is_one_line_and_exit_2(tmp_path, capsys, args, says):
    code = main(["report", *args, "-o", str(tmp_path / "r.html")])
    err = capsys.readouterr().err
    assert code == 2
    assert len(err.strip().splitlines()) == 1
    assert says in err
    assert not (tmp_path / "r.html").exists()


def test_a_single_class_label_is_refused_without_a_traceback(tmp_path):
    (tmp_path / "one.csv").write_text("label,score\n1,0.2\n1,0.4\n1,0.9\n", encoding="utf-8")
    r = run_module("report", "one.csv", "-o", "r.html", cwd=tmp_path)
    assert r.returncode == 2
    assert r.stderr.strip().splitlines() == [
        "metrics-lens report: error: Label column 'label' has one class only (every row is 1): "
        "AUC and AP need both classes."
    ]


def test_an_output_into_a_missing_directory_is_refused(tmp_path, capsys):
    code = main(["report", str(CANCER), "-o", str(tmp_path / "no" / "r.html")])
    assert code == 2
    assert "does not exist" in capsys.readouterr().err


def test_a_report_on_the_other_class_says_so(tmp_path, capsys):
    """--pos-label ham on scores for spam: the report's dataset notes say which way the scores
    rank and the option that turns the label around."""
    rng = np.random.default_rng(4)
    y = rng.random(300) < 0.4
    frame = pd.DataFrame({"label": np.where(y, "spam", "ham"), "m": y + rng.normal(0, 1, 300)})
    frame.to_csv(tmp_path / "mail.csv", index=False)
    out = tmp_path / "r.html"
    code = main(["report", str(tmp_path / "mail.csv"), "--pos-label", "ham", "-o", str(out),
                 "--resamples", "100"])  # fmt: skip
    assert code == 0, capsys.readouterr().err
    notes = re.findall(r"<ul class='notes'>(.*?)</ul>", out.read_text(encoding="utf-8"))
    assert len(notes) == 1
    assert "m ranks label = spam above label = ham: AUC 0.2" in notes[0]
    assert "pass --pos-label spam" in notes[0]

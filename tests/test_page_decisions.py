"""The Decision curves page runs headless (AppTest) and shows the library's numbers: on the
bundled sample data, on per-class data, and on an upload with a score that is no probability."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

import metrics
from tests.apptest_utils import open_page, upload_frame
from ui.compute import data
from ui.tables.dataset import DEFAULT_DATASET

PAGE = "pages/decisions.py"


def _frames(at) -> dict[str, pd.DataFrame]:
    """The page's tables, by their second column's name."""
    return {d.value.columns[1]: d.value for d in at.dataframe}


def _figures(at) -> dict[str, dict]:
    """The charts in page order: cost, Brier, precision-recall gain, DET."""
    names = ("cost", "brier", "prg", "det")
    charts = [json.loads(c.proto.spec) for c in at.get("plotly_chart")]
    return dict(zip(names, charts, strict=True))


def _area(x, y) -> float:
    x, y = np.asarray(x), np.asarray(y)
    return float(np.sum(np.diff(x) * (y[1:] + y[:-1]) / 2))


@pytest.fixture(scope="module")
def sample_page():
    return open_page(PAGE)


def test_sample_data_every_tab_equals_the_library(sample_page):
    at = sample_page
    assert [h.value for h in at.header] == ["Decision curves"]
    assert [t.label for t in at.tabs] == ["Cost curves", "Brier curves", "Precision-recall gain",
                                          "DET"]  # fmt: skip
    ds = data.bundled_dataset(DEFAULT_DATASET)
    tables = _frames(at)
    cost, brier, prg, det = (tables[k] for k in ("threshold", "area under Brier curve", "AUPRG",
                                                  "EER"))  # fmt: skip
    assert cost["model"].tolist() == list(ds.models)
    for i, m in enumerate(ds.models):
        y, s = ds.labels_for(m), ds.score(m)
        x, c = metrics.cost_curve(y, s)
        assert cost["area under envelope"][i] == pytest.approx(_area(x, c), abs=1e-15)
        conf = metrics.confusion_at_threshold(y, s, 0.5)
        assert cost["FPR"][i] == conf.fp / (conf.fp + conf.tn)
        assert cost["FNR"][i] == conf.fn / (conf.fn + conf.tp)
        pi = y.mean()
        assert cost["PC(+)"][i] == pytest.approx(pi)  # cost ratio 1: PC(+) is the prevalence
        assert cost["least cost (envelope)"][i] == pytest.approx(np.interp(pi, x, c))
        bx, bl = metrics.brier_curve(y, s)
        assert brier["area under Brier curve"][i] == pytest.approx(_area(bx, bl), abs=1e-15)
        assert prg["AUPRG"][i] == metrics.precision_recall_gain_auc(y, s)
        assert prg["AP"][i] == metrics.average_precision_score(y, s)
        e = metrics.equal_error_rate(y, s)
        assert det["EER"][i] == e.rate
        assert det["nearest threshold"][i] == e.threshold
    figs = _figures(at)
    assert len(figs["cost"]["data"]) == 1 + 2 * len(ds.models)
    assert len(figs["det"]["data"]) == 1 + 2 * len(ds.models)
    # one Explain per tab, each naming its published source
    explains = [e.label for e in at.expander if e.label.startswith("Explain")]
    assert len(explains) == 4
    notes = " ".join(c.value for c in at.caption)
    for source in ("Drummond and R. C. Holte", "Hernández-Orallo", "Flach and M. Kull",
                   "Martin, G. Doddington"):  # fmt: skip
        assert source in notes
    assert ".py" not in notes


def test_cost_ratio_moves_the_probability_cost(sample_page):
    at = sample_page
    at.number_input(key="decisions_cost_ratio").set_value(4.0).run()
    assert not at.exception
    cost = _frames(at)["threshold"]
    ds = data.bundled_dataset(DEFAULT_DATASET)
    pi = ds.y.mean()
    assert cost["PC(+)"][0] == pytest.approx(4 * pi / (4 * pi + 1 - pi))
    fig = _figures(at)["cost"]
    assert fig["layout"]["shapes"][0]["x0"] == pytest.approx(cost["PC(+)"][0])


def test_per_class_data_reads_each_class_one_vs_rest():
    at = open_page(PAGE, "wine_multiclass")
    assert not at.exception
    assert any("one-vs-rest" in c.value for c in at.caption)
    ds = data.bundled_dataset("wine_multiclass")
    prg = _frames(at)["AUPRG"]
    for i, m in enumerate(ds.models):
        y = ds.labels_for(m)
        assert prg["AUPRG"][i] == metrics.precision_recall_gain_auc(y, ds.score(m))


def test_upload_with_a_score_that_is_no_probability():
    rng = np.random.default_rng(5)
    n = 300
    y = (rng.random(n) < 0.4).astype(int)
    frame = pd.DataFrame(
        {
            "label": y,
            "prob": np.round(np.clip(0.4 + 0.4 * (y - 0.4) + rng.normal(0, 0.25, n), 0, 1), 4),
            "margin": np.round(rng.normal(0, 1, n) + 1.2 * y, 4),
        }
    )
    at = open_page(PAGE)
    upload_frame(at, frame)
    at.switch_page(PAGE).run()
    assert not at.exception
    tables = _frames(at)
    assert tables["AUPRG"]["model"].tolist() == ["prob", "margin"]
    for i, m in enumerate(["prob", "margin"]):
        s = frame[m].to_numpy()
        assert tables["AUPRG"]["AUPRG"][i] == metrics.precision_recall_gain_auc(y == 1, s)
        assert tables["EER"]["EER"][i] == metrics.equal_error_rate(y == 1, s).rate
    # the margin has no Brier curve, and the page says why
    assert tables["area under Brier curve"]["model"].tolist() == ["prob"]
    assert any("Not probabilities" in w.value and "margin" in w.value for w in at.warning)


def test_server_dataset_curves_are_exact_from_the_engines_counts(tmp_path, monkeypatch):
    from tests.test_server_source import _open, _table

    root = tmp_path / "data"
    root.mkdir()
    t = _table(3000)
    t.to_parquet(root / "impressions.parquet")
    monkeypatch.setenv("METRICS_LENS_DATA_DIR", str(root))
    at = _open(root, "impressions.parquet")
    at.selectbox(key="server_model").set_value("model_a").run()
    at.switch_page(PAGE).run()
    assert not at.exception, at.exception
    assert any("per-score counts" in c.value for c in at.caption)
    y, s = t.clicked.to_numpy() == 1, t.model_a.to_numpy()
    tables = _frames(at)
    assert tables["AUPRG"]["model"].tolist() == ["model_a"]
    assert tables["AUPRG"]["AUPRG"][0] == pytest.approx(
        metrics.precision_recall_gain_auc(y, s), abs=1e-12
    )
    assert tables["EER"]["EER"][0] == pytest.approx(metrics.equal_error_rate(y, s).rate, abs=1e-12)
    x, c = metrics.cost_curve(y, s)
    assert tables["threshold"]["area under envelope"][0] == pytest.approx(_area(x, c), abs=1e-12)

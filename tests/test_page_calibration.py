"""The Calibration page runs headless (AppTest) and shows the library's numbers: reliability
bins with pointwise or simultaneous bands, the debiased calibration error with its interval,
ECE, MCE and the Brier decomposition, and cross-fitted recalibration; on
the bundled sample data, on grouped data (whole users resampled) and on an upload whose score
is no probability."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

import metrics
from tests.apptest_utils import decode_arrays, open_page, upload_frame
from ui.compute import data, decision_compute
from ui.tables.dataset import DEFAULT_DATASET
from ui.words.safe import md

PAGE = "pages/calibration.py"


def _tables(at) -> list[pd.DataFrame]:
    return [d.value for d in at.dataframe]


def _estimate(cell: str) -> float:
    return float(cell.split()[0])


def _interval(cell: str) -> tuple[float, float]:
    low, high = cell.split("[", 1)[1].rstrip("]").split(",")
    return float(low), float(high)


@pytest.fixture(scope="module")
def sample_page():
    return open_page(PAGE)


def test_sample_data_reliability_numbers_equal_the_library(sample_page):
    at = sample_page
    assert [h.value for h in at.header] == ["Calibration"]
    ds = data.bundled_dataset(DEFAULT_DATASET)
    before = _tables(at)[0]
    assert before["model"].tolist() == list(ds.models)
    for i, m in enumerate(ds.models):
        y, p = ds.labels_for(m), ds.score(m)
        ece = metrics.calibration_error(y, p)
        mce = metrics.calibration_error(y, p, norm="max")
        d = metrics.brier_decomposition(y, p)
        # Binned plug-ins, biased upwards: values without intervals (issue 31).
        for column, value in (("ECE", ece), ("MCE", mce), ("reliability", d.reliability),
                              ("resolution", d.resolution)):  # fmt: skip
            assert before[column][i] == f"{value:.4f}", (column, before[column][i], value)
        ce = metrics.calibration_error_interval(y, p, n_resamples=500, seed=0)
        assert before["RMS calibration error"][i] == (
            f"{ce.rms:.4f}  [{ce.rms_low:.4f}, {ce.rms_high:.4f}]"
        )
        for column, value in (("RMS calibration error", ce.rms), ("Brier", d.brier),
                              ("uncertainty", d.uncertainty)):  # fmt: skip
            cell = before[column][i]
            assert cell.startswith(f"{value:.4f}  ["), (column, cell, value)
            low, high = _interval(cell)
            assert low <= _estimate(cell) <= high, (column, cell)
    figs = [json.loads(c.proto.spec) for c in at.get("plotly_chart")]
    assert len(figs) == 2 * len(ds.models)  # a diagram per model, then one after recalibration
    stats = decision_compute.calibration_stats(
        ds.labels_for(ds.models[0]), {m: ds.score(m) for m in ds.models}, n_resamples=500
    )
    for m, fig in zip(ds.models, figs, strict=False):
        bands = [t for t in fig["data"] if t.get("fill") == "toself"]
        assert len(bands) == 1
        assert [t["name"] for t in fig["data"] if t.get("mode") == "lines+markers"] == [m]
        # simultaneous by default: the sup-t band of the bins' rates
        assert bands[0]["name"] == f"{m} 95% simultaneous band"
        k = stats[m].sim_high.size
        high = np.asarray(decode_arrays(bands[0])["y"][:k], dtype=float)
        np.testing.assert_allclose(high, stats[m].sim_high)
        assert np.all(stats[m].sim_high >= stats[m].band_high - 1e-12)
    assert any("95% bootstrap, rows resampled interval" in c.value for c in at.caption)
    notes = " ".join(c.value for c in at.caption)
    assert "Murphy (1973)" in notes
    assert "Kumar, Liang & Ma (2019" in notes
    assert "Montiel Olea & Plagborg-Møller 2019" in notes
    assert "Naeini" in notes
    assert "Platt (1999)" in notes
    assert ".py" not in notes


def test_recalibration_table_equals_the_library(sample_page):
    at = sample_page
    ds = data.bundled_dataset(DEFAULT_DATASET)
    table = _tables(at)[1]
    for i, m in enumerate(ds.models):
        y, s = ds.labels_for(m), ds.score(m)
        q = metrics.recalibrate(y, s, method="platt", cv=5, seed=0)
        row = table.iloc[i]
        assert row["AUC before"] == metrics.roc_auc_score(y, s)
        assert row["AUC after (out of fold)"] == metrics.roc_auc_score(y, q)
        # a monotone map, fitted once on every row, leaves AUC exactly where it was
        assert row["AUC, one map for all rows"] == pytest.approx(row["AUC before"], abs=1e-12)
        assert row["Brier after"] == metrics.brier_score_loss(y, q)
        assert row["log loss after"] == metrics.log_loss(y, q)
        f = metrics.fit_calibrator(y, s, method="platt")
        assert row["threshold as a probability"] == pytest.approx(float(f(np.array([0.5]))[0]))
    text = " ".join(m.value for m in at.markdown)
    assert "What it cannot change" in text
    assert "Brier score, log loss" in text


def test_switching_to_isotonic_recomputes_out_of_fold(sample_page):
    at = sample_page
    at.radio(key="calibration_method").set_value("isotonic").run()
    assert not at.exception
    ds = data.bundled_dataset(DEFAULT_DATASET)
    m = ds.models[0]
    q = metrics.recalibrate(ds.labels_for(m), ds.score(m), method="isotonic", cv=5, seed=0)
    table = _tables(at)[1]
    assert table["Brier after"][0] == metrics.brier_score_loss(ds.labels_for(m), q)
    after = _tables(at)[2]
    assert _estimate(after["ECE"][0]) == pytest.approx(
        round(metrics.calibration_error(ds.labels_for(m), q), 4)
    )


def test_grouped_data_resamples_whole_users():
    at = open_page(PAGE, "user_impressions")
    assert not at.exception
    wanted = f"cluster bootstrap, whole {md('user_id')} values resampled"
    assert any(wanted in c.value for c in at.caption)
    ds = data.bundled_dataset("user_impressions")
    before = _tables(at)[0]
    y = ds.labels_for("model_a")
    assert _estimate(before["ECE"][0]) == pytest.approx(
        round(metrics.calibration_error(y, ds.score("model_a")), 4)
    )


def test_upload_with_a_score_that_is_no_probability_says_so_and_recalibrates():
    rng = np.random.default_rng(9)
    n = 400
    y = (rng.random(n) < 0.3).astype(int)
    frame = pd.DataFrame(
        {
            "label": y,
            "prob": np.round(np.clip(0.3 + 0.5 * (y - 0.3) + rng.normal(0, 0.2, n), 0, 1), 4),
            "margin": np.round(rng.normal(0, 1, n) + 1.5 * y, 4),
        }
    )
    at = open_page(PAGE)
    upload_frame(at, frame)
    at.switch_page(PAGE).run()
    assert not at.exception
    warnings = [w.value for w in at.warning]
    assert any("margin" in w and "not probabilities" in w for w in warnings)
    before, table, _after = _tables(at)
    assert before["model"].tolist() == ["prob"]
    assert table["model"].tolist() == ["prob", "margin"]
    margin = frame["margin"].to_numpy()
    q = metrics.recalibrate(y, margin, method="platt")
    assert table["Brier after"][1] == metrics.brier_score_loss(y, q)
    assert pd.isna(table["Brier before"][1])
    assert _estimate(before["ECE"][0]) == pytest.approx(
        round(metrics.calibration_error(y, frame["prob"].to_numpy()), 4)
    )
    # beta reads scores as probabilities: the margin gets the library's reason, prob is shown
    at.radio(key="calibration_method").set_value("beta").run()
    assert not at.exception
    assert any("margin" in w.value and "reads scores as probabilities" in w.value
               for w in at.warning)  # fmt: skip
    assert _tables(at)[1]["model"].tolist() == ["prob"]


def test_server_dataset_is_refused_with_the_reason(tmp_path, monkeypatch):
    from tests.test_server_source import _open, _table

    root = tmp_path / "data"
    root.mkdir()
    _table(2000).to_parquet(root / "impressions.parquet")
    monkeypatch.setenv("METRICS_LENS_DATA_DIR", str(root))
    at = _open(root, "impressions.parquet")
    at.switch_page(PAGE).run()
    assert not at.exception, at.exception
    (info,) = [i.value for i in at.info]
    assert "Calibration needs the rows" in info
    assert "cross-fitting" in info
    assert not at.get("plotly_chart")

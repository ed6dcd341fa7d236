"""Compare's intervals: each metric resampled the right way, and the page shows exactly that.

AUC and AP come from the fast paired bootstrap (rows, sorted once), Brier and log loss from the
same Poisson resamples as row means, GAUC from the cluster bootstrap over users. The page's
bands, threshold-stability table and GAUC head-to-head interval equal the library's.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

import metrics
from tests.apptest_utils import decode_arrays, figures, open_page, upload_frame
from ui.analyses import summaries
from ui.compute import data
from ui.tables.dataset import DEFAULT_DATASET


def _table(seed: int = 0, n: int = 1500, users: int = 60) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    y = (rng.random(n) < 0.3).astype(int)
    a = 1 / (1 + np.exp(-(rng.normal(size=n) + 1.5 * y)))
    b = 1 / (1 + np.exp(-(rng.normal(size=n) + 1.0 * y)))
    return pd.DataFrame(
        {"user_id": rng.integers(0, users, n), "label": y, "model_a": a, "model_b": b}
    )


def test_each_metric_is_resampled_as_its_spec_says():
    t = _table()
    y, g = t["label"].to_numpy(), t["user_id"].to_numpy()
    scores = {m: t[m].to_numpy() for m in ("model_a", "model_b")}
    specs = summaries.metric_specs(probabilities=True, groups=g)
    assert [s.name for s in specs] == ["AUC", "AP", "GAUC", "Brier", "Log loss"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", metrics.UndefinedMetricWarning)
        got, _ = summaries.bootstrap_results(y, scores, specs, weight=None, n_resamples=40, seed=3)
        fast = metrics.fast_paired_bootstrap(
            y.astype(bool), *scores.values(), n_resamples=40, seed=3
        )
        assert np.array_equal(got["AUC"].replicates, fast.results["roc_auc"].replicates)
        assert np.array_equal(got["AP"].replicates, fast.results["average_precision"].replicates)
        for name, metric in (("Brier", metrics.brier_score_loss), ("Log loss", metrics.log_loss)):
            slow = metrics.paired_bootstrap(
                metric, y, *scores.values(), n_resamples=40, seed=3, counts="poisson"
            )
            np.testing.assert_allclose(got[name].replicates, slow.replicates, rtol=1e-12)
        tables = [metrics.group_auc_table(y, s, g) for s in scores.values()]
        cluster = metrics.cluster_bootstrap(
            np.column_stack([x.auc for x in tables]),
            np.column_stack([x.weights() for x in tables]),
            n_resamples=40,
            seed=3,
        )
    assert np.array_equal(got["GAUC"].replicates, cluster.replicates)
    # Resampling users, not rows: the GAUC interval is not the row bootstrap's.
    rows = metrics.paired_bootstrap(
        lambda yy, s, sample_weight=None: metrics.group_auc_score(
            yy, s, g, sample_weight=sample_weight
        ),
        y,
        scores["model_a"],
        n_resamples=40,
        seed=3,
        counts="poisson",
    )
    assert not np.array_equal(rows.replicates[:, 0], got["GAUC"].replicates[:, 0])


def test_bca_changes_only_the_auc_intervals():
    t = _table(1)
    y = t["label"].to_numpy()
    scores = {m: t[m].to_numpy() for m in ("model_a", "model_b")}
    specs = summaries.metric_specs(probabilities=False, groups=None)
    plain, _, _ = summaries.model_table(y, scores, specs, n_resamples=200)
    bca, _, _ = summaries.model_table(y, scores, specs, n_resamples=200, bca=True)
    assert plain["AP low"].tolist() == bca["AP low"].tolist()
    assert plain["AUC low"].tolist() != bca["AUC low"].tolist()


@pytest.fixture(scope="module")
def compare_page():
    at = open_page("pages/compare.py")
    at.select_slider(key="compare_resamples").set_value(200).run()
    assert not at.exception
    return at


def test_bands_and_threshold_stability_equal_the_library(compare_page):
    at = compare_page
    ds = data.bundled_dataset(DEFAULT_DATASET)
    models = tuple(ds.models)
    fb = metrics.fast_paired_bootstrap(
        ds.y.astype(bool),
        *(ds.score(m) for m in models),
        n_resamples=200,
        roc_grid=np.linspace(0, 1, 101),
        pr_grid=np.linspace(0, 1, 101)[1:],
        best_thresholds=True,
    )
    roc = next(f for f in figures(at) if f["layout"]["xaxis"]["title"]["text"] == "false "
               "positive rate")  # fmt: skip
    band = decode_arrays(
        roc["data"][1]
    )  # the first model's band polygon: high forwards, low backwards
    # By default the band is simultaneous: metrics.roc_band's on the same draws (a row's
    # Poisson counts do not depend on how many models are scored).
    sim = metrics.roc_band(ds.y, ds.score(models[0]), n_resamples=200, seed=0)
    assert sim.simultaneous
    assert sim.critical_value > 2.0
    np.testing.assert_allclose(np.asarray(band["y"][:101], dtype=float), sim.upper)
    np.testing.assert_allclose(np.asarray(band["y"][101:], dtype=float), sim.lower[::-1])
    assert "simultaneous" in roc["data"][1]["name"]
    captions = " ".join(c.value for c in at.caption)
    assert "Montiel Olea & Plagborg-Møller 2019" in captions
    # Pointwise: the percentile band of the same resamples (held to contain the curve).
    at.radio(key="compare_band_kind").set_value("pointwise").run()
    assert not at.exception
    roc = next(f for f in figures(at) if f["layout"]["xaxis"]["title"]["text"] == "false "
               "positive rate")  # fmt: skip
    band = decode_arrays(roc["data"][1])
    point = metrics.roc_band(ds.y, ds.score(models[0]), n_resamples=200, seed=0, simultaneous=False)
    np.testing.assert_allclose(np.asarray(band["y"][:101], dtype=float), point.upper)
    np.testing.assert_allclose(np.asarray(band["y"][101:], dtype=float), point.lower[::-1])
    # ... which holds the curve and the percentile band of the same resamples (and, at the
    # edges, the Wilson interval of the TPR, where the bootstrap collapses to a point)
    low, high = fb.band(fb.roc_curves[0])
    curve = fb.original.rocs[0][0]
    assert np.all(point.upper >= np.fmax(high, curve) - 1e-12)
    assert np.all(point.lower <= np.fmin(low, curve) + 1e-12)
    assert np.all(sim.upper - sim.lower >= point.upper - point.lower - 1e-12)
    at.radio(key="compare_band_kind").set_value("simultaneous").run()
    stability = next(d.value for d in at.dataframe if "on all rows" in d.value.columns)
    for k, m in enumerate(models):
        row = stability.set_index("model").loc[m]
        assert row["on all rows"] == fb.original.chosen["max F1"][0, k]
        assert row["median"] == pytest.approx(np.nanmedian(fb.chosen_thresholds["max F1"][:, k]))


def test_gauc_head_to_head_shows_the_cluster_interval():
    t = _table(2, n=3000, users=120)
    at = open_page("pages/threshold.py")
    upload_frame(at, t)
    at.switch_page("pages/gauc.py").run()
    assert not at.exception, at.exception
    y, g = t["label"].to_numpy(), t["user_id"].to_numpy()
    tables = [metrics.group_auc_table(y, t[m].to_numpy(), g) for m in ("model_a", "model_b")]
    r = metrics.cluster_bootstrap(
        np.column_stack([x.auc for x in tables]),
        np.column_stack([x.weights() for x in tables]),
        n_resamples=1000,
    )
    d = r.differences[(0, 1)]
    text = "\n".join(c.value for c in at.caption) + "\n".join(m.value for m in at.markdown)
    assert f"{d.estimate:+.4f} [{d.ci_low:+.4f}, {d.ci_high:+.4f}]" in text


def test_partial_auc_column_with_its_interval(compare_page):
    ds = data.bundled_dataset(DEFAULT_DATASET)
    shown = compare_page.dataframe[0].value
    names = list(shown["model"])
    fast = metrics.fast_paired_bootstrap(
        ds.y.astype(bool), *(ds.score(m) for m in names), n_resamples=200, max_fpr=0.1
    )
    for k, m in enumerate(names):
        iv = fast.results["partial_auc"].models[k]
        assert iv.estimate == pytest.approx(metrics.roc_auc_score(ds.y, ds.score(m), max_fpr=0.1))
        cell = shown["pAUC (FPR ≤ 0.1)"].iloc[k].removeprefix("★ ")
        assert cell == f"{iv.estimate:.4f}  [{iv.ci_low:.4f}, {iv.ci_high:.4f}]"


def test_decision_curve_band_equals_the_library(compare_page):
    ds = data.bundled_dataset(DEFAULT_DATASET)
    grid = np.round(np.linspace(0.01, 0.99, 99), 2)
    models = list(ds.models)
    r = metrics.fast_paired_bootstrap(
        ds.y.astype(bool), *(ds.score(m) for m in models), n_resamples=200,
        threshold_grid=[grid] * len(models),
    )  # fmt: skip
    low, high = r.band(r.threshold_curves["net_benefit"][0])
    fig = next(f for f in figures(compare_page) if f["layout"]["xaxis"]["title"]["text"]
               == "threshold probability t")  # fmt: skip
    band = decode_arrays(fig["data"][0])
    ok = np.isfinite(low) & np.isfinite(high)
    np.testing.assert_allclose(band["y"], np.concatenate((high[ok], low[ok][::-1])))


def test_ks_interval(compare_page):
    ds = data.bundled_dataset(DEFAULT_DATASET)
    table = next(d.value for d in compare_page.dataframe if "KS" in d.value.columns)
    names = list(table["model"])
    r = metrics.fast_paired_bootstrap(
        ds.y.astype(bool), *(ds.score(m) for m in names), n_resamples=200, ks=True
    )
    for k in range(len(names)):
        iv = r.results["ks"].models[k]
        assert table["KS"].iloc[k] == f"{iv.estimate:.4f}  [{iv.ci_low:.4f}, {iv.ci_high:.4f}]"


def test_power_beside_the_auc_verdict_equals_the_library(compare_page):
    ds = data.bundled_dataset(DEFAULT_DATASET)
    a, b = ds.models[0], ds.models[1]
    power = metrics.auc_difference_power(ds.y, ds.score(a), ds.score(b), 0.02)
    smallest = metrics.auc_min_detectable_difference(ds.y, ds.score(a), ds.score(b))
    text = "\n".join(m.value for m in compare_page.markdown)
    n_pos = int(ds.y.sum())
    assert (
        f"With these {n_pos:,} positives and {ds.y.size - n_pos:,} negatives, a difference of "
        f"**0.020** in AUC"
    ) in text
    assert f"found with power **{power:.0%}**" in text
    assert f"the smallest difference found with 80% power is **{smallest:.3f}**" in text


def test_the_html_report_downloads_from_compare_with_the_library_numbers():
    import re

    at = open_page("pages/compare.py")
    at.select_slider(key="compare_resamples").set_value(100).run()
    at.button(key="compare_report").click().run()
    assert not at.exception, at.exception
    ds = data.bundled_dataset(DEFAULT_DATASET)
    from metrics_lens.report import dataset_report
    from ui.compute import thresholds

    models = tuple(ds.models)
    chosen = {m: float(thresholds.current(ds, m)) for m in models}
    html = dataset_report(ds, models, None, chosen, 100).decode()
    assert "<html" in html.lower()
    auc = metrics.roc_auc_score(ds.y, ds.score(ds.models[0]))
    assert f"{auc:.4f}" in html
    assert re.search(r"Download the report", str(at.get("download_button")))


def test_models_that_rank_alike_get_no_power_figure():
    """A calibrated model and its sharpened copy rank every row alike: the paired AUC difference
    has no variance, so "power 100%, smallest difference 0.000" would mean nothing; the page
    says why there is no figure instead."""
    rng = np.random.default_rng(5)
    y = rng.random(600) < 0.4
    p = 1 / (1 + np.exp(-(rng.normal(size=600) + 1.5 * y - 0.5)))
    sharp = p**3 / (p**3 + (1 - p) ** 3)  # the same order, over-confident
    at = open_page("pages/threshold.py")
    upload_frame(at, pd.DataFrame({"label": y.astype(int), "p_cal": p, "p_sharp": sharp}))
    at.switch_page("pages/compare.py").run()
    assert not at.exception, at.exception
    text = "\n".join(m.value for m in at.markdown)
    assert "found with power" not in text
    assert "order these rows' positive-negative pairs (almost) the same way" in text

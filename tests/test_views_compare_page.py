"""Compare's views on the page (``ui.views.compare_*``): each section shows the metrics
library's numbers, on the bundled sample and on an upload grouped by user with a slice column.
The pieces they lay out are checked without Streamlit in ``test_views_compare.py``."""

from __future__ import annotations

import re
import warnings

import numpy as np
import pandas as pd
import pytest

import metrics
from tests.apptest_utils import (
    decode_arrays,
    figures,
    latex,
    markdown_text,
    open_page,
    upload_frame,
)
from ui.analyses import compare_setup
from ui.compute import data
from ui.tables.dataset import DEFAULT_DATASET
from ui.words.numbers import decimals
from ui.words.safe import md
from ui.words.text import num

MODELS = ("model_a", "model_b", "model_c")


def _frame(seed: int = 4, users: int = 24, per_user: int = 50) -> pd.DataFrame:
    """Three models on rows grouped by user, with a device column to slice on."""
    rng = np.random.default_rng(seed)
    user = np.repeat(np.arange(users), per_user)
    y = (rng.random(user.size) < 1 / (1 + np.exp(-(rng.normal(size=users)[user] - 0.8)))).astype(
        int
    )
    return pd.DataFrame(
        {
            "user_id": [f"u{u:03d}" for u in user],
            "device": np.where(user % 3 == 0, "web", np.where(user % 3 == 1, "ios", "android")),
            "label": y,
            **{
                m: np.round(k * y + rng.normal(size=user.size), 4)
                for m, k in zip(MODELS, (0.4, 0.8, 1.6), strict=True)
            },
        }
    )


def _frame_of(at, column: str) -> pd.DataFrame:
    return next(d.value for d in at.dataframe if column in d.value.columns)


@pytest.fixture(scope="module")
def bundled():
    at = open_page("pages/compare.py")
    at.select_slider(key="compare_resamples").set_value(200).run()
    assert not at.exception, at.exception
    return at, data.bundled_dataset(DEFAULT_DATASET)


@pytest.fixture(scope="module")
def grouped():
    at = open_page("pages/threshold.py")
    upload_frame(at, _frame())
    at.switch_page("pages/compare.py").run()
    assert not at.exception, at.exception
    return at


def test_the_table_shows_each_models_auc_and_the_contents_link_every_section(bundled):
    at, ds = bundled
    table = _frame_of(at, "AUC")
    for row in table.to_dict("records"):
        auc = metrics.roc_auc_score(ds.y, ds.score(row["model"]))
        assert row["AUC"].removeprefix("★ ").startswith(f"{decimals(auc)}  [")
    contents = next(c.value for c in at.caption if c.value.startswith("On this page: "))
    for heading in at.subheader:
        assert f"[{heading.value}](#{heading.proto.anchor})" in contents


def test_the_stars_rest_on_the_family_declared_before_looking(bundled):
    """AUC is the primary metric by default: only its pairs can star, the others are
    exploratory with unadjusted p-values; "every metric" puts them all under one Holm."""
    at, _ = bundled
    box = at.selectbox(key="compare_family")
    assert box.value == "AUC (primary)"
    said = " ".join(c.value for c in at.caption).replace("\\", "")  # markdown escapes
    assert "Primary metric AUC, declared before looking: Holm across its 3 pairs" in said
    assert "The chance of any wrong star is at most 5%." in said
    text = markdown_text(at).replace("\\", "")
    assert "exploratory on AP, no verdict" in text
    assert "- **AP**: exploratory (outside the declared family, no star)" in text
    assert not any(str(v).startswith("★") for v in _frame_of(at, "AP")["AP"])
    try:
        box.set_value("every metric (Holm)").run()
        assert not at.exception, at.exception
        said = " ".join(c.value for c in at.caption).replace("\\", "")
        assert "Every metric: Holm across 5 metrics × 3 pairs (15 tests)" in said
        assert "exploratory" not in markdown_text(at)
    finally:
        at.selectbox(key="compare_family").set_value("AUC (primary)").run()


def test_the_pairs_give_delongs_z_and_the_power_of_these_rows(bundled):
    at, ds = bundled
    a, b = ds.models[0], ds.models[1]
    n_pos = int(np.count_nonzero(ds.y))
    assert f"With these {n_pos:,} positives and {ds.y.size - n_pos:,} negatives" in (
        markdown_text(at)
    )
    r = metrics.delong_test(ds.y, ds.score(a), ds.score(b))
    z_line = next(line for line in latex(at) if line.startswith("z = "))
    assert z_line.endswith(f"= {num(r.z)}")


def test_the_threshold_stability_starts_from_the_best_f1_on_all_rows(bundled):
    at, ds = bundled
    stability = _frame_of(at, "share within ±10% of it")
    for row in stability.to_dict("records"):
        c = metrics.threshold_counts(ds.y, ds.score(row["model"]))
        f1 = 2 * c.tps / (2 * c.tps + c.fps + (c.n_pos - c.tps))
        at_pick = f1[np.flatnonzero(c.thresholds == row["on all rows"])[0]]
        assert at_pick == pytest.approx(f1.max(), abs=1e-12)


def test_each_operating_point_meets_the_recall_target(bundled):
    at, ds = bundled
    points = _frame_of(at, "rows flagged")
    for row in points.to_dict("records"):
        c = metrics.confusion_at_threshold(ds.y, ds.score(row["model"]), row["threshold"])
        assert c.recall >= 0.9
        assert row["precision"].startswith(f"{decimals(c.precision)}  [")


def test_ks_and_the_least_cost_are_the_librarys(bundled):
    at, ds = bundled
    ks = _frame_of(at, "KS")
    for row in ks.to_dict("records"):
        r = metrics.ks_statistic(ds.y, ds.score(row["model"]))
        assert row["KS"].startswith(f"{decimals(r.statistic)}  [")
        assert row["at threshold"] == pytest.approx(r.threshold)
    caption = next(c.value for c in at.caption if c.value.startswith("Total cost"))
    for m in ds.models:
        c = metrics.expected_cost(ds.y, ds.score(m), cost_fp=1.0, cost_fn=5.0)
        assert f"{md(m)} {c.cost[c.best]:,.4g} at " in caption


def test_the_reliability_diagram_is_the_librarys_calibration_curve(bundled):
    at, ds = bundled
    diagram = next(
        f for f in figures(at)
        if f["layout"]["xaxis"]["title"]["text"] == "mean predicted probability"
    )  # fmt: skip
    for trace, m in zip(diagram["data"][1:], ds.models, strict=True):
        prob_true, prob_pred, _ = metrics.calibration_curve(ds.y, ds.score(m), n_bins=10)
        np.testing.assert_allclose(decode_arrays(trace["y"]), prob_true)
        np.testing.assert_allclose(decode_arrays(trace["x"]), prob_pred)


def test_the_banner_counts_the_users_and_the_ranks_are_friedmans(grouped):
    at = grouped
    frame = _frame()
    assert any(
        f"Rows are grouped by **user\\_id** ({frame['user_id'].nunique():,} groups)" in i.value
        for i in at.info
    )
    assert at.selectbox(key="compare_many_blocks").value == ("users", "user_id")
    y, g = frame["label"].to_numpy(), frame["user_id"].to_numpy()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", metrics.UndefinedMetricWarning)
        aucs = np.column_stack([metrics.group_auc_table(y, frame[m], g).auc for m in MODELS])
    fr = metrics.friedman_test(aucs[np.isfinite(aucs).all(axis=1)])
    ranks = _frame_of(at, "letters").set_index("model")["mean rank"]
    np.testing.assert_allclose([ranks[m] for m in MODELS], fr.average_ranks)


def test_the_slices_and_the_flips_are_the_librarys(grouped):
    at = grouped
    frame = _frame()
    web = frame[frame["device"] == "web"]
    slices = _frame_of(at, "slice").set_index("slice")
    for m in MODELS:
        want = metrics.roc_auc_score(web["label"], web[m])
        assert slices.loc["device = web", f"{m} AUC"] == pytest.approx(want, rel=1e-12)
    at.session_state["thresholds"] = {"model_a": 0.5, "model_b": 0.25}
    at.selectbox(key="compare_flip_a").set_value("model_a")
    at.selectbox(key="compare_flip_b").set_value("model_b").run()
    assert not at.exception, at.exception
    caption = next(c.value for c in at.caption if c.value.startswith("Each model at its own"))
    assert re.search(r"model\\_a ≥ 0\.5\d*, model\\_b ≥ 0\.25", caption), caption
    flips = metrics.flip_table(frame["label"], frame["model_a"], 0.5, frame["model_b"], 0.25)
    assert f"flip rate (predictions differ): **{flips.flip_rate:.2%}**" in markdown_text(at)


def test_a_large_table_asks_before_it_resamples(monkeypatch):
    monkeypatch.setattr(compare_setup, "AUTO_LIMIT", 1000)
    at = open_page("pages/compare.py")
    ds = data.bundled_dataset(DEFAULT_DATASET)
    n_models = len(ds.models)
    asked = f"{ds.y.size:,} rows: 1000 resamples x {n_models} models take a while."
    assert asked in markdown_text(at)
    assert "How sure are the curves?" not in [s.value for s in at.subheader]
    at.button(key="compare_run").click().run()
    assert not at.exception, at.exception
    assert asked not in markdown_text(at)
    assert "How sure are the curves?" in [s.value for s in at.subheader]

"""Slices: each category's metrics equal filtering the table and calling the metric; the
Compare table scopes every page to the slice picked."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import metrics
from metrics.compare import roc_auc_ci
from tests.apptest_utils import open_page, upload_frame
from ui.analyses.summaries import slice_table


def _data(seed: int = 0, n: int = 600):
    rng = np.random.default_rng(seed)
    device = rng.choice(["ios", "android", "web", "tv"], n, p=[0.4, 0.3, 0.25, 0.05])
    y = rng.random(n) < np.where(device == "web", 0.4, 0.2)
    a = np.round(rng.random(n) + 0.5 * y * (device != "web"), 2)  # weak on web
    b = np.round(rng.random(n) + 0.3 * y, 2)
    return device, y, {"a": a, "b": b}


@pytest.mark.parametrize("weighted", [False, True])
def test_each_slice_equals_filtering_and_calling_the_metric(weighted):
    device, y, scores = _data()
    w = np.random.default_rng(1).integers(1, 4, y.size).astype(float) if weighted else None
    table = slice_table({"device": device}, y, scores, weight=w, min_size=50)
    assert table.loc[0, "slice"] == "all rows"
    assert "device = tv" not in table["slice"].tolist()  # about 30 rows: below the minimum
    for _, row in table.iloc[1:].iterrows():
        mask = device == row["value"]
        assert row["rows"] == mask.sum()
        assert row["positives"] == y[mask].sum()
        for m, s in scores.items():
            ww = None if w is None else w[mask]
            auc = metrics.roc_auc_score(y[mask], s[mask], sample_weight=ww)
            assert row[f"{m} AUC"] == pytest.approx(auc, rel=1e-12)
            ap = metrics.average_precision_score(y[mask], s[mask], sample_weight=ww)
            assert row[f"{m} AP"] == pytest.approx(ap, rel=1e-12)
            whole = metrics.roc_auc_score(y, s, sample_weight=w)
            assert row[f"{m} AUC − all"] == pytest.approx(auc - whole, rel=1e-9)
            if w is None:
                ci = roc_auc_ci(y[mask], s[mask])
                assert (row[f"{m} AUC low"], row[f"{m} AUC high"]) == (ci.ci_low, ci.ci_high)
    # worst first: the lowest AUC − all over the models decides the order
    worst = table.iloc[1:][["a AUC − all", "b AUC − all"]].min(axis=1).tolist()
    assert worst == sorted(worst)
    assert table.loc[1, "value"] == "web"


def test_picking_a_slice_in_the_compare_table_scopes_every_page():
    device, y, scores = _data(2)
    frame = pd.DataFrame({"device": device, "clicked": y, **scores})
    at = open_page("pages/compare.py")
    upload_frame(at, frame)
    at.switch_page("pages/compare.py").run()
    assert not at.exception
    table = next(d for d in at.dataframe if "slice" in d.value.columns)
    web_row = table.value["slice"].tolist().index("device = web")
    # AppTest cannot click a row: set the selection as the browser would send it.
    at.session_state["compare_slices"] = {"selection": {"rows": [web_row], "columns": []}}
    at.run()
    assert not at.exception
    assert at.selectbox(key="slice_choice").value == ("device", "web")
    assert any("Showing only" in i.value for i in at.info)


def test_crossed_slices_equal_filtering_on_both_columns():
    device, y, scores = _data(3, n=2000)
    country = np.random.default_rng(4).choice(["FR", "DE"], y.size)
    table = slice_table(
        {"device": device, "country": country}, y, scores, min_size=100,
        cross=("device", "country"), n_resamples=50,
    )  # fmt: skip
    crossed = table[table["column"].apply(lambda c: isinstance(c, tuple))]
    assert len(crossed) >= 4
    for _, row in crossed.iterrows():
        (dv, cv) = row["value"]
        mask = (device == dv) & (country == cv)
        assert row["slice"] == f"device = {dv} × country = {cv}"
        assert row["rows"] == mask.sum() >= 100
        for m, s in scores.items():
            assert row[f"{m} AUC"] == pytest.approx(metrics.roc_auc_score(y[mask], s[mask]))
            boot = metrics.fast_paired_bootstrap(
                y[mask], *(scores[k][mask] for k in scores), n_resamples=50
            )
            iv = boot.results["average_precision"].models[list(scores).index(m)]
            assert (row[f"{m} AP low"], row[f"{m} AP high"]) == (iv.ci_low, iv.ci_high)


def test_picking_a_crossed_slice_scopes_every_page():
    device, y, scores = _data(5, n=1500)
    country = np.random.default_rng(6).choice(["FR", "DE"], y.size)
    frame = pd.DataFrame({"device": device, "country": country, "clicked": y, **scores})
    at = open_page("pages/compare.py")
    upload_frame(at, frame)
    at.switch_page("pages/compare.py").run()
    at.selectbox(key="compare_cross").set_value(("device", "country")).run()
    assert not at.exception, at.exception
    table = next(d for d in at.dataframe if "slice" in d.value.columns)
    index = table.value["slice"].tolist().index("device = web × country = FR")
    at.session_state["compare_slices"] = {"selection": {"rows": [index], "columns": []}}
    at.run()
    assert not at.exception, at.exception
    assert at.selectbox(key="slice_choice").value == (("device", "country"), ("web", "FR"))
    assert any("device = web × country = FR" in i.value for i in at.info)
    at.switch_page("pages/threshold.py").run()
    assert not at.exception
    shown = ((device == "web") & (country == "FR")).sum()
    assert any(f"{shown:,} of {y.size:,} rows" in i.value for i in at.info)


def test_the_scope_button_under_the_slice_table_scopes_every_page():
    device, y, scores = _data(2)
    frame = pd.DataFrame({"device": device, "clicked": y, **scores})
    at = open_page("pages/compare.py")
    upload_frame(at, frame)
    at.switch_page("pages/compare.py").run()
    assert at.button(key="compare_scope_button").disabled
    table = next(d for d in at.dataframe if "slice" in d.value.columns)
    web_row = table.value["slice"].tolist().index("device = web")
    at.selectbox(key="compare_scope_pick").set_value(web_row).run()
    at.button(key="compare_scope_button").click().run()
    assert not at.exception
    assert at.selectbox(key="slice_choice").value == ("device", "web")
    assert any("Showing only" in i.value for i in at.info)

"""Compare on rows grouped by user: every interval and test resamples users, never rows.

A click log of 16 users x 600 impressions, where each user's rows share a random effect that
moves both models' scores and the labels: row-level DeLong calls one model better with a tiny
p-value, resampling whole users does not. With a group column mapped, the page's verdicts,
stars, slices, operating points and bands come from the cluster bootstrap; DeLong's row-level
p-value is shown beside, labelled, never as the verdict.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

import metrics
from tests.apptest_utils import markdown_text, open_page, upload_frame
from ui.analyses import summaries


def click_log(seed: int = 1, users: int = 16, per_user: int = 600) -> pd.DataFrame:
    """Two models equally good by construction; each user shifts each model's scores and the
    click rate by effects of its own, so on 16 users one model looks better by chance."""
    rng = np.random.default_rng(seed)
    user = np.repeat(np.arange(users), per_user)
    ey, ea, eb = (rng.normal(size=users)[user] for _ in range(3))
    y = (rng.random(user.size) < 1 / (1 + np.exp(-(1.5 * ey - 1.0)))).astype(int)
    a = 0.5 * y + ea + rng.normal(size=user.size)
    b = 0.5 * y + eb + rng.normal(size=user.size)
    return pd.DataFrame({"user_id": user, "label": y, "model_a": a, "model_b": b})


def _quiet(fn, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", metrics.UndefinedMetricWarning)
        return fn(*args, **kwargs)


def test_cluster_table_resamples_users_and_keeps_delong_only_beside():
    t = click_log()
    y, g = t["label"].to_numpy(), t["user_id"].to_numpy()
    scores = {m: t[m].to_numpy() for m in ("model_a", "model_b")}
    specs = summaries.metric_specs(probabilities=False, groups=g)
    table, pairs, _ = _quiet(
        summaries.model_table, y, scores, specs, n_resamples=300, seed=1, cluster=g
    )
    auc = pairs[pairs["metric"] == "AUC"].iloc[0]
    assert auc["test"] == summaries.CLUSTER_TEST
    assert set(pairs["test"]) == {summaries.CLUSTER_TEST}  # no row-level verdict anywhere
    delong = metrics.delong_test(y, scores["model_a"], scores["model_b"])
    assert auc["row-level p"] == delong.p_value
    assert delong.p_value < 1e-3  # rows as independent: "significant"
    # The interval and p are the user-resampled ones, from the same draws as the library's.
    direct = _quiet(
        metrics.fast_paired_bootstrap, y.astype(bool), *scores.values(), n_resamples=300, seed=1,
        groups=g,
    )  # fmt: skip
    d = direct.results["roc_auc"].differences[(0, 1)]
    assert (auc["low"], auc["high"]) == (d.ci_low, d.ci_high)
    assert auc["low"] < 0 < auc["high"]  # users resampled: not significant
    assert auc["p-value"] > 0.05
    rows = pairs[pairs["metric"] == "AP"].iloc[0]
    ap = direct.results["average_precision"].differences[(0, 1)]
    assert (rows["low"], rows["high"]) == (ap.ci_low, ap.ci_high)
    found, pairs = summaries.verdicts(table, pairs, specs)
    assert found["AUC"].best is None


def test_cluster_intervals_are_wider_than_row_intervals_on_clustered_rows():
    t = click_log(3)
    y, g = t["label"].to_numpy(), t["user_id"].to_numpy()
    s = [t["model_a"].to_numpy(), t["model_b"].to_numpy()]
    rows = _quiet(metrics.fast_paired_bootstrap, y.astype(bool), *s, n_resamples=300)
    users = _quiet(metrics.fast_paired_bootstrap, y.astype(bool), *s, n_resamples=300, groups=g)
    for name in ("roc_auc", "average_precision"):
        r, u = rows.results[name].differences[(0, 1)], users.results[name].differences[(0, 1)]
        assert u.std_error > 2 * r.std_error, name


def test_slice_table_with_groups_uses_cluster_intervals_for_auc():
    t = click_log(5, users=40, per_user=100)
    t["device"] = np.where(t["user_id"] % 2 == 0, "web", "app")
    y, g = t["label"].to_numpy(), t["user_id"].to_numpy()
    scores = {m: t[m].to_numpy() for m in ("model_a", "model_b")}
    got = summaries.slice_table(
        {"device": t["device"].to_numpy()}, y, scores, n_resamples=100, cluster=g
    )
    web = (t["device"] == "web").to_numpy()
    boot = _quiet(
        metrics.fast_paired_bootstrap, y[web].astype(bool), *(s[web] for s in scores.values()),
        n_resamples=100, groups=g[web],
    )  # fmt: skip
    row = got[got["slice"] == "device = web"].iloc[0]
    iv = boot.results["roc_auc"].models[0]
    assert (row["model_a AUC low"], row["model_a AUC high"]) == (iv.ci_low, iv.ci_high)


@pytest.fixture(scope="module")
def clustered_page():
    at = open_page("pages/threshold.py")
    upload_frame(at, click_log())
    at.switch_page("pages/compare.py").run()
    assert not at.exception, at.exception
    return at


def test_page_gives_no_row_level_verdict_when_a_group_column_is_mapped(clustered_page):
    at = clustered_page
    text = markdown_text(at)
    assert "(DeLong)" not in text  # the verdict's test is never DeLong
    assert "(cluster bootstrap)" in text
    assert "row-level DeLong p < 0.001 (ignores user\\_id)" in text
    assert any("cluster bootstrap" in i.value for i in at.info)
    assert "★" not in "".join(str(v) for v in at.dataframe[0].value["AUC"])


def test_switch_for_independent_rows_brings_delong_back(clustered_page):
    at = clustered_page
    at.toggle(key="compare_rows_independent").set_value(True).run()
    assert not at.exception, at.exception
    text = markdown_text(at)
    assert "(DeLong)" in text
    assert "row-level" not in text
    # ...with a warning beside it that the verdicts are now row-level
    assert any("treated as independent" in w.value for w in at.warning), [
        w.value for w in at.warning
    ]
    at.toggle(key="compare_rows_independent").set_value(False).run()
    assert not any("treated as independent" in w.value for w in at.warning)

"""The GAUC page headless (AppTest): it opens where it should and shows the library's numbers."""

from __future__ import annotations

import base64
import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

import metrics
from tests.apptest_utils import latex as _latex
from tests.apptest_utils import open_page, upload_frame
from ui.compute import data
from ui.figures import gauc_charts as gc
from ui.tables.dataset import Dataset
from ui.views.explain import num


def _open(dataset: str = "user_impressions") -> AppTest:
    return open_page(PAGE, dataset)


def _upload(at: AppTest, frame: pd.DataFrame) -> AppTest:
    return upload_frame(at, frame, "log.csv")


APP = str(Path(__file__).resolve().parent.parent / "app.py")
PAGE = "pages/gauc.py"


@pytest.fixture
def app() -> AppTest:
    return _open()


def _metric(at: AppTest, label: str):
    return next(m for m in at.metric if m.label == label)


def _frame(at: AppTest, first_column: str) -> pd.DataFrame:
    return next(d.value for d in at.dataframe if d.value.columns[0] == first_column)


def _values(v) -> list:
    """A plotly array as sent: a list, or a typed array {"dtype", "bdata"} (base64)."""
    if isinstance(v, dict) and "bdata" in v:
        return np.frombuffer(base64.b64decode(v["bdata"]), dtype=v["dtype"]).tolist()
    return list(v)


def _expected(ds: Dataset, model: str, weighting: str):
    y, s, g, w = ds.labels_for(model), ds.score(model), ds.prepared.groups, ds.weight
    table = metrics.group_auc_table(y, s, g, sample_weight=w)
    return (
        metrics.roc_auc_score(y, s, sample_weight=w),
        metrics.group_auc_score(y, s, g, weighting=weighting, sample_weight=w),
        table,
    )


def _check_cards(at: AppTest, ds: Dataset, model: str, weighting: str) -> None:
    global_auc, gauc, table = _expected(ds, model, weighting)
    assert _metric(at, "Global AUC").value == f"{global_auc:.4f}"
    assert _metric(at, f"GAUC ({weighting})").value == f"{gauc:.4f}"
    assert _metric(at, "Users counted").value == f"{table.defined.sum():,} of {len(table):,}"
    assert _metric(at, "Users skipped").value == f"{table.n_skipped:,}"


def test_recommender_clicks_cards_and_tables_equal_the_library(app):
    ds = data.bundled_dataset("user_impressions")
    assert [h.value for h in app.header] == ["GAUC: per-user AUC"]
    model = app.session_state["model"]
    _check_cards(app, ds, model, "impressions")
    _, _, table = _expected(ds, model, "impressions")
    skipped = gc.skipped_counts(table)
    assert any(
        f"{skipped['only positives']} with only positives (clicked), "
        f"{skipped['only negatives']} with only negatives (not clicked)" in c.value
        for c in app.caption
    )
    # Every model: global AUC next to GAUC.
    summary = _frame(app, "model").set_index("model")
    for m in ds.models:
        global_auc, gauc, t = _expected(ds, m, "impressions")
        assert summary.loc[m, "global AUC"] == global_auc
        assert summary.loc[m, "GAUC"] == gauc
        assert summary.loc[m, "users counted"] == t.defined.sum()
        assert summary.loc[m, "skipped: only negatives"] == (t.reason == "only negatives").sum()
    # model_a wins on global AUC, model_b on GAUC, as the dataset is built.
    assert any("model\\_a** has the higher global AUC" in c.value for c in app.caption)
    # The per-user table is the library's table.
    users = _frame(app, "user_id")
    assert len(users) == len(table)
    np.testing.assert_array_equal(users["user_id"], table.group)
    expected = ["skipped" if np.isnan(a) else f"{a:.4f}" for a in table.auc]
    assert users["AUC"].tolist() == expected  # a skipped user says so, never "None"
    np.testing.assert_array_equal(users["skipped because"], table.reason)
    np.testing.assert_array_equal(users["weight"], table.weights("impressions"))
    assert any(f"{len(table):,} users, {table.n_skipped} skipped" in c.value for c in app.caption)


def test_histogram_marks_gauc_and_global_auc(app):
    ds = data.bundled_dataset("user_impressions")
    global_auc, gauc, table = _expected(ds, app.session_state["model"], "impressions")
    fig = json.loads(app.get("plotly_chart")[0].proto.spec)
    bars = [t for t in fig["data"] if t["type"] == "bar"]
    assert sum(_values(bars[0]["y"])) == table.defined.sum()
    names = {t.get("name") for t in fig["data"]}
    assert f"GAUC (impressions) {gauc:.4f}" in names
    assert f"global AUC {global_auc:.4f}" in names


def test_explain_shows_the_sums_behind_gauc(app):
    ds = data.bundled_dataset("user_impressions")
    _, gauc, table = _expected(ds, app.session_state["model"], "impressions")
    w = table.weights("impressions")
    total = int(w.sum())
    latex = _latex(app)
    gauc_line = next(x for x in latex if x.startswith(r"\text{GAUC} = \frac{") and "w_u" not in x)
    assert f"{{{total:,}}}".replace(",", "\\,") in gauc_line
    weighted = float(np.dot(w[table.defined], table.auc[table.defined]))
    assert gauc_line.startswith(rf"\text{{GAUC}} = \frac{{{num(weighted, 8)}}}")
    assert weighted / total == pytest.approx(gauc, rel=1e-12)
    assert gauc_line.endswith(f"= {gauc:.4g}")
    assert any(
        f"Sums over the {table.defined.sum()} users with both classes; the {table.n_skipped} "
        "others" in c.value
        for c in app.caption
    )


def test_seed004_example_is_shown_with_the_seed_number(app):
    latex = _latex(app)
    line = next(x for x in latex if r"\tfrac{10}{12}" in x and "GAUC" in x)
    assert line.endswith("= 0.8222")
    assert any(r"\text{AUC}_a = 0.75,\ \text{AUC}_b = 0.875" in x for x in latex)
    assert any("only positives, skipped" in x for x in latex)


@pytest.mark.parametrize("weighting", ["positives", "uniform", "impressions"])
def test_weighting_changes_gauc_and_weights(app, weighting):
    ds = data.bundled_dataset("user_impressions")
    app.radio(key="gauc_weighting").set_value(weighting).run()
    assert not app.exception
    model = app.session_state["model"]
    _check_cards(app, ds, model, weighting)
    _, _, table = _expected(ds, model, weighting)
    users = _frame(app, "user_id")
    np.testing.assert_array_equal(users["weight"], table.weights(weighting))
    summary = _frame(app, "model").set_index("model")
    for m in ds.models:
        assert summary.loc[m, "GAUC"] == _expected(ds, m, weighting)[1]


def test_switching_model(app):
    ds = data.bundled_dataset("user_impressions")
    app.selectbox(key="model").set_value("model_b").run()
    app.radio(key="gauc_weighting").set_value("positives").run()
    assert not app.exception
    _check_cards(app, ds, "model_b", "positives")
    assert app.subheader[0].value == "Per-user AUC of model\\_b"


@pytest.mark.parametrize(
    ("mode", "strength"),
    [("click_rate", 1.0), ("click_rate", -1.5), ("click_rate", 0.75), ("random", 2.0)],
)
def test_offset_moves_global_auc_and_leaves_gauc_unchanged(app, mode, strength):
    ds = data.bundled_dataset("user_impressions")
    model = app.session_state["model"]
    app.radio(key="gauc_offset_mode").set_value(mode).run()
    app.slider(key="gauc_offset_strength").set_value(strength).run()
    assert not app.exception
    y, s, g = ds.labels_for(model), ds.score(model), ds.prepared.groups
    global_auc, gauc, table = _expected(ds, model, "impressions")
    off = gc.user_offsets(table, g, s, mode)
    shifted = metrics.roc_auc_score(y, s + strength * off.per_row)
    assert shifted != global_auc
    global_card = _metric(app, "Global AUC, shifted")
    assert global_card.value == f"{shifted:.4f}"
    assert global_card.delta == f"{shifted - global_auc:+.4f} vs no offset"
    gauc_card = _metric(app, "GAUC (impressions), shifted")
    assert gauc_card.value == f"{gauc:.4f}"
    assert gauc_card.delta == "unchanged"
    fig = json.loads(app.get("plotly_chart")[1].proto.spec)
    curves = {t["name"]: t for t in fig["data"]}
    assert len(_values(curves["GAUC"]["x"])) == 9
    assert set(_values(curves["GAUC"]["y"])) == {gauc}
    assert _values(curves["global AUC"]["y"])[4] == global_auc  # strength 0


def test_search_ranking_queries_work_as_users():
    at = _open("query_ranking")
    ds = data.bundled_dataset("query_ranking")
    model = at.session_state["model"]
    _check_cards(at, ds, model, "impressions")
    assert "query_id" in _frame(at, "query_id").columns
    _, _, table = _expected(ds, model, "impressions")
    assert (table.reason == "only negatives").sum() == 30  # queries with no relevant document


@pytest.mark.parametrize("dataset", ["breast_cancer", "wine_multiclass", "digits_multilabel"])
def test_data_without_users_gets_an_info_message(dataset):
    at = _open(dataset)
    assert not at.error
    assert any("Map a user/query id column in the sidebar" in i.value for i in at.info)
    assert any('"Recommender clicks" sample' in i.value for i in at.info)
    assert not at.metric


def _log(rng: np.random.Generator, n_users: int = 30) -> pd.DataFrame:
    sizes = rng.integers(2, 15, size=n_users)
    user = np.repeat([f"x{i}" for i in range(n_users)], sizes)
    clicked = (rng.random(user.size) < 0.3).astype(int)
    return pd.DataFrame(
        {
            "user_id": user,
            "clicked": clicked,
            "model_x": np.round(rng.random(user.size) + 0.5 * clicked, 3),
            "model_y": np.round(rng.random(user.size), 3),
            "weight": rng.integers(1, 4, size=user.size).astype(float),
        }
    )


def test_upload_with_user_and_weight_columns_uses_both():
    log = _log(np.random.default_rng(5))
    at = AppTest.from_file(APP, default_timeout=60)
    at.run()
    _upload(at, log)
    at.switch_page(PAGE).run()
    assert not at.exception
    assert at.selectbox(key="map_group").value == "user_id"
    assert at.selectbox(key="map_weight").value == "weight"
    y = log["clicked"].to_numpy() == 1
    s = log["model_x"].to_numpy()
    g = log["user_id"].to_numpy()
    w = log["weight"].to_numpy()
    gauc = metrics.group_auc_score(y, s, g, sample_weight=w)
    assert _metric(at, "GAUC (impressions)").value == f"{gauc:.4f}"
    assert _metric(at, "Global AUC").value == f"{metrics.roc_auc_score(y, s, sample_weight=w):.4f}"
    assert any("sums of sample weights" in c.value for c in at.caption)
    # Unmapping the user column leaves the page with a message.
    at.selectbox(key="map_group").set_value("(none)").run()
    assert not at.exception
    assert any("Map a user/query id column" in i.value for i in at.info)


def test_upload_where_no_user_has_both_classes_warns():
    log = pd.DataFrame(
        {"user_id": ["a", "a", "b", "b"], "clicked": [1, 1, 0, 0], "model_x": [0.9, 0.8, 0.2, 0.1]}
    )
    at = AppTest.from_file(APP, default_timeout=60)
    at.run()
    _upload(at, log)
    at.switch_page(PAGE).run()
    assert not at.exception
    assert _metric(at, "GAUC (impressions)").value == "undefined"
    assert any("No user has both classes" in w.value for w in at.warning)


def test_head_to_head_counts_the_users_each_model_wins(app):
    import metrics as lib

    ds = data.bundled_dataset("user_impressions")
    a = lib.group_auc_table(ds.y, ds.score("model_a"), ds.prepared.groups)
    b = lib.group_auc_table(ds.y, ds.score("model_b"), ds.prepared.groups)
    both = a.defined & b.defined
    better = np.mean(b.auc[both] > a.auc[both])
    assert any(f"ranks {better:.1%} better" in c.value for c in app.caption)
    assert "gauc_head_to_head" in [c.key for c in app.get("plotly_chart")]


def test_other_libraries_gauc_table_equals_the_library_on_a_weighted_upload():
    from metrics.conventions import gauc_conventions

    log = _log(np.random.default_rng(11))
    log.loc[log.user_id == "x3", "model_x"] = 0.5  # one user whose scores are all equal
    at = _upload(_open(), log)
    assert not at.exception
    model = at.session_state["model"]
    y = (log["clicked"] == 1).to_numpy()
    found = gauc_conventions(y, log[model].to_numpy(), log["user_id"].to_numpy(),
                             sample_weight=log["weight"].to_numpy())  # fmt: skip
    shown = _frame(at, "library")
    assert shown["library"].tolist() == [c.library for c in found]
    assert shown["GAUC"].tolist() == [f"{c.gauc:.4f}" for c in found]
    assert shown["skipped"].tolist() == [f"{c.skipped:,}" for c in found]
    texts = " ".join(m.value for m in at.markdown)
    assert "RecBole and TorchRec read none" in texts  # the upload maps a weight column
    assert model == "model_x"  # the first score column
    assert found[-1].skipped > found[2].skipped  # x3's equal scores: TorchRec skips it
    assert "whose scores are all equal (the others count them as AUC 0.5)" in texts

"""Several files in one session: each gets its own mapping, and every page names what it shows.

A second upload once kept the first file's column mapping: the browser sent the old widget
values back, so the score columns emptied, or a multi-class table was read with the binary
layout. Each new table now starts from its own guess (or the mapping last used for it), written
into the widgets before they are drawn; a table with very many columns stays quick.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import metrics
from tests.apptest_utils import metric_value, open_page, upload_frame


def _binary(seed: int, label: str, models: tuple[str, ...], n: int = 200) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    frame = {label: y}
    for k, m in enumerate(models):
        frame[m] = 1 / (1 + np.exp(-(rng.normal(size=n) + (1 + k) * y)))
    return pd.DataFrame(frame)


def _multiclass(seed: int, n: int = 150) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    p = rng.dirichlet(np.ones(3), n)
    return pd.DataFrame(
        {
            "label": np.array(["cat", "dog", "fox"])[p.argmax(1)],
            "score_cat": p[:, 0],
            "score_dog": p[:, 1],
            "score_fox": p[:, 2],
        }
    )


def _multilabel(seed: int, n: int = 150) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    out = {}
    for c in ("red", "green"):
        y = rng.integers(0, 2, n)
        out[f"label_{c}"] = y
        out[f"score_{c}"] = np.clip(0.3 * y + rng.random(n) * 0.7, 0, 1)
    return pd.DataFrame(out)


def _sidebar(at) -> dict:
    values = {}
    for key in ("map_layout", "map_label", "map_scores", "map_classes"):
        try:
            widget = (
                at.radio(key=key)
                if key == "map_layout"
                else at.selectbox(key=key)
                if key == "map_label"
                else at.multiselect(key=key)
            )
        except KeyError:
            continue
        values[key] = widget.value
    return values


def _problems(at) -> list[str]:
    return [e.value for e in at.error] + [w.value for w in at.warning]


def test_three_differently_shaped_uploads_each_get_their_own_mapping():
    at = open_page("pages/threshold.py")
    first = _binary(0, "label", ("model_a", "model_b"))
    upload_frame(at, first, "first.csv")
    assert _sidebar(at)["map_scores"] == ["model_a", "model_b"]
    at.selectbox(key="model").set_value("model_b").run()
    assert metric_value(at, "Prevalence") == f"{first['label'].mean():.3f}"

    second = _binary(1, "clicked", ("ctr_old", "ctr_new", "ctr_big"))
    upload_frame(at, second, "second.csv")
    assert not at.exception, at.exception
    got = _sidebar(at)
    assert got["map_label"] == "clicked"
    assert got["map_scores"] == ["ctr_old", "ctr_new", "ctr_big"]
    assert not _problems(at), _problems(at)
    assert at.selectbox(key="model").value == "ctr_old"
    assert metric_value(at, "Prevalence") == f"{second['clicked'].mean():.3f}"
    recall = metrics.confusion_at_threshold(second["clicked"], second["ctr_old"], 0.5).recall
    assert metric_value(at, "Recall (TPR)") == f"{recall:.3f}"

    third = _multiclass(2)
    upload_frame(at, third, "third.csv")
    assert not at.exception, at.exception
    assert _sidebar(at)["map_layout"] == "multiclass"
    assert not [e for e in _problems(at) if "needs a score_" in e]
    assert at.selectbox(key="model").value in ("score_cat", "score_dog", "score_fox")

    fourth = _multilabel(3)
    upload_frame(at, fourth, "fourth.csv")
    assert not at.exception, at.exception
    got = _sidebar(at)
    assert got["map_layout"] == "multilabel"
    assert got["map_classes"] == ["red", "green"]
    assert not _problems(at), _problems(at)


def test_a_mapping_edited_by_hand_comes_back_with_its_file():
    at = open_page("pages/threshold.py")
    first = _binary(0, "label", ("model_a", "model_b"))
    upload_frame(at, first, "first.csv")
    at.multiselect(key="map_scores").set_value(["model_b"]).run()
    upload_frame(at, _binary(1, "clicked", ("p1", "p2")), "other.csv")
    assert _sidebar(at)["map_scores"] == ["p1", "p2"]
    upload_frame(at, first, "first.csv")  # the same table again
    assert _sidebar(at)["map_scores"] == ["model_b"]


def test_a_table_with_thousands_of_score_columns_is_capped_with_a_sentence():
    rng = np.random.default_rng(0)
    n_cols = 900
    wide = pd.DataFrame(rng.random((40, n_cols)), columns=[f"f{i}" for i in range(n_cols)])
    wide.insert(0, "label", rng.integers(0, 2, 40))
    at = open_page("pages/threshold.py")
    upload_frame(at, wide, "wide.csv")
    assert not at.exception, at.exception
    assert len(at.multiselect(key="map_scores").value) == 50
    captions = "\n".join(c.value for c in at.caption)
    assert "900 columns look like scores; the first 50 are mapped" in captions
    assert "30 more score columns not listed" in captions  # 20 scale settings of 50
    at.switch_page("pages/curves.py").run()
    assert not at.exception, at.exception
    assert len(at.multiselect(key="curves_models").value) == 8


@pytest.mark.parametrize("n_cols", [61, 200])
def test_rows_behind_a_wide_table_show_its_first_columns(n_cols):
    from ui.views import show

    frame = pd.DataFrame(
        np.arange(5 * n_cols).reshape(5, n_cols), columns=[f"c{i}" for i in range(n_cols)]
    )
    rows = show._numbered(frame.iloc[:, : show.MAX_COLUMNS_SHOWN], np.array([3, 1]))
    assert list(rows.index) == [4, 2]
    assert rows.shape[1] == show.MAX_COLUMNS_SHOWN
    import weakref

    full = show._rows_of(weakref.ref(frame), np.array([3, 1]))
    assert full.shape == (2, n_cols + 1)
    assert list(full["row"]) == [4, 2]


def test_the_page_says_when_it_shows_the_sample_instead_of_your_table():
    at = open_page("pages/threshold.py")
    at.segmented_control(key="source").set_value("Upload").run()
    assert not at.exception, at.exception
    assert any("Showing the sample dataset" in i.value for i in at.info)
    at.segmented_control(key="source").set_value("Sample dataset").run()
    assert not any("Showing the sample dataset" in i.value for i in at.info)


def test_a_table_of_ten_thousand_columns_is_refused_and_the_last_table_kept():
    rng = np.random.default_rng(1)
    at = open_page("pages/threshold.py")
    first = _binary(0, "label", ("model_a", "model_b"))
    upload_frame(at, first, "first.csv")
    wide = pd.DataFrame(rng.random((50, 10_000)), columns=[f"f{i}" for i in range(10_000)])
    wide.insert(0, "label", rng.integers(0, 2, 50))
    upload_frame(at, wide, "wide.csv")
    assert not at.exception, at.exception
    errors = [e.value for e in at.error]
    assert any("has 10,001 columns; the dashboard reads at most 1,000" in e for e in errors)
    assert metric_value(at, "Prevalence") == f"{first['label'].mean():.3f}"

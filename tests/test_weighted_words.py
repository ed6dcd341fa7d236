"""A weighted table's counts are sums of weights: the Threshold page says weight, never rows."""

from __future__ import annotations

import numpy as np
import pandas as pd
from streamlit.testing.v1 import AppTest

from tests.apptest_utils import APP, markdown_text, upload_frame


def _frame(weighted: bool) -> pd.DataFrame:
    rng = np.random.default_rng(3)
    y = rng.integers(0, 2, 300)
    frame = pd.DataFrame({"label": y, "score": np.round(rng.random(300) + 0.3 * y, 3)})
    if weighted:
        frame["weight"] = rng.choice([0.5, 1.0, 2.5], 300)
    return frame


def _threshold_page(frame: pd.DataFrame) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=60)
    at.run()
    upload_frame(at, frame)
    at.switch_page("pages/threshold.py").run()
    assert not at.exception, at.exception
    return at


def test_a_weighted_table_is_counted_in_weight_not_rows():
    frame = _frame(weighted=True)
    at = _threshold_page(frame)
    text = markdown_text(at)
    total = frame["weight"].sum()
    assert f"of the total {total:,.2f}".rstrip("0").rstrip(".") in text, text
    assert " rows." not in text.split("predicted")[1].split("\n")[0]
    mode = at.segmented_control(key="threshold_mode")
    assert list(mode.options) == ["score", "top %"]
    mode.set_value("top %").run()
    assert not at.exception, at.exception
    assert at.slider(key="threshold_pct").label == "Flag the top percent of the weight"


def test_an_unweighted_table_is_counted_in_rows():
    at = _threshold_page(_frame(weighted=False))
    assert "of 300 rows" in markdown_text(at)
    assert list(at.segmented_control(key="threshold_mode").options) == ["score", "top k", "top %"]

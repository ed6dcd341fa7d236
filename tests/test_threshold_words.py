"""What the Threshold page says of unusual tables: counts that are weights, labels of one class."""

from __future__ import annotations

import numpy as np
import pandas as pd
from streamlit.testing.v1 import AppTest

from tests.apptest_utils import APP, figures, markdown_text, metric_value, upload_frame


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


def test_labels_of_the_positive_class_only_say_what_is_undefined():
    """All rows positive: the warning names what is undefined (not 'without positives'), the
    ROC says its AUC is undefined (never 'nan'), and the FPR card shows a dash, not a cut word."""
    rng = np.random.default_rng(0)
    frame = pd.DataFrame({"label": np.ones(50, int), "score": rng.random(50)})
    at = _threshold_page(frame)
    warnings = " ".join(w.value for w in at.sidebar.warning) + " ".join(w.value for w in at.warning)
    assert "without negatives" in warnings, warnings
    assert "without positives" not in warnings, warnings
    titles = [f["layout"]["title"]["text"] for f in figures(at) if "title" in f["layout"]]
    assert "ROC · AUC undefined (one class)" in titles, titles
    assert not any("nan" in t for t in titles)
    assert metric_value(at, "FPR") == "—"

"""What the Threshold page says of unusual tables: counts that are weights, labels of one class."""

from __future__ import annotations

import numpy as np
import pandas as pd
from streamlit.testing.v1 import AppTest

import metrics
from tests.apptest_utils import APP, figures, markdown_text, metric_value, upload_frame
from ui.tables import score_state


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


def test_scores_that_rank_the_other_class_higher_get_a_hint():
    """Scores that rate the negative class (AUC far below 0.5) are named, with the way out;
    an ordinary table gets no such warning."""
    frame = _frame(weighted=False)
    at = _threshold_page(frame.assign(label=1 - frame["label"]))
    said = [w.value for w in at.warning if "ranks" in w.value]
    assert len(said) == 1, said
    assert "score ranks label = 0 above label = 1: AUC 0.2" in said[0]
    assert "pick 0 as the Positive label under Columns in the sidebar" in said[0]
    at = _threshold_page(frame)
    assert not [w.value for w in at.warning if "ranks" in w.value]


def test_below_chance_is_rare_under_chance_and_sure_when_inverted():
    """A seeded simulation: scores that ignore the label (ties too) are called inverted in
    under 1% of 2,000 tables (3 standard deviations: 0.13% expected); a model at AUC 0.3 on
    200 rows is called inverted every time."""
    rng = np.random.default_rng(11)
    calls = 0
    for rep in range(2000):
        n = int(rng.integers(10, 300))
        y = rng.random(n) < rng.uniform(0.1, 0.9)
        if y.all() or not y.any():
            continue
        s = rng.random(n).round(1 if rep % 2 else 6)  # half of them heavily tied
        auc = metrics.roc_auc_score(y, s)
        calls += score_state.below_chance(auc, y.sum(), (~y).sum())
    assert calls < 20, calls
    for _ in range(50):
        y = rng.random(200) < 0.5
        s = rng.normal(size=200) - 0.75 * y  # AUC about 0.3
        assert score_state.below_chance(metrics.roc_auc_score(y, s), y.sum(), (~y).sum())
    assert not score_state.below_chance(0.45, 10, 10)  # a small table: within chance
    assert score_state.below_chance(0.35, 10, 10, weighted=True)  # weights: the 0.1 margin
    assert not score_state.below_chance(float("nan"), 10, 10)


def test_the_threshold_written_in_the_sentence_gives_its_count():
    """Log-odds at full precision (a fraud log's): the page writes the threshold with as many
    digits as it takes for "Scores ≥ X: n rows" to hold when X is typed back (2.722 for
    2.72171... had dropped a row), on the Threshold page, in the sidebar and on Curves."""
    rng = np.random.default_rng(7)
    y = rng.random(3000) < 0.05
    s = rng.normal(size=3000) * 2 - 3 + 2.5 * y
    s[np.argsort(-s)[82]] = 2.72171234  # the default (k-th highest) and one just above
    s[np.argsort(-s)[81]] = 2.7219
    at = _threshold_page(pd.DataFrame({"label": y.astype(int), "logit": s}))
    for value in (None, 0.123456789, -1.0000001):
        if value is not None:
            at.slider(key="threshold_slider").set_value(value).run()
        text = markdown_text(at)
        shown = text.split("Scores ≥ **")[1].split("**")[0]
        count = int(text.split("are predicted label = 1: **")[1].split("**")[0].replace(",", ""))
        assert (s >= float(shown)).sum() == count, (value, shown, count)
        assert len(shown.lstrip("-").replace(".", "")) <= 9, shown
    sidebar = " ".join(c.value for c in at.sidebar.caption)
    assert f"Now {shown}." in sidebar, sidebar
    at.switch_page("pages/curves.py").run()
    assert any(f"logit {shown}" in c.value for c in at.caption)


def test_a_setting_that_cannot_be_used_on_the_same_file_says_which_settings_are_shown():
    """A graded search log: unticking "Graded relevance" leaves a 5-valued label. The sidebar
    says to tick it back; the page says it shows the same file as it last could be used, and
    with which settings, instead of "showing search.csv" about search.csv."""
    rng = np.random.default_rng(2)
    n = 400
    frame = pd.DataFrame({"query_id": np.repeat(np.arange(20), 20),
                          "relevance": rng.integers(0, 5, n),
                          "ranker": rng.random(n)})  # fmt: skip
    at = _threshold_page(frame)
    graded = next(c for c in at.sidebar.checkbox if c.label.startswith("Graded relevance"))
    assert graded.value
    graded.uncheck().run()
    assert not at.exception, at.exception
    errors = " ".join(e.value for e in at.sidebar.error)
    assert 'tick "Graded relevance"' in errors, errors
    said = [w.value for w in at.warning if "cannot be used" in w.value]
    assert len(said) == 1, said
    assert "cannot be used with the sidebar's current settings" in said[0]
    assert "as it last could be used: positive relevance \\> 0; user/query query\\_id" in said[0]

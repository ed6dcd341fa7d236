"""The Threshold page's "with a guarantee" presets: the plain choice, the guaranteed one, what
the guarantee costs, and the method by name; Apply moves the threshold to the guaranteed one."""

from __future__ import annotations

import numpy as np

import metrics
from tests.apptest_utils import markdown_text, open_page
from ui.compute import data
from ui.tables.dataset import DEFAULT_DATASET


def _preset(at, name: str, target: float):
    at.number_input(key="threshold_target").set_value(target).run()
    at.selectbox(key="threshold_preset").set_value(name).run()
    assert not at.exception, at.exception
    return at


def test_recall_guarantee_preset_shows_both_choices_and_the_cost():
    at = _preset(open_page("pages/threshold.py"), "Recall ≥ target, guaranteed", 0.9)
    ds = data.bundled_dataset(DEFAULT_DATASET)
    model = at.selectbox(key="model").value
    want = metrics.threshold_with_guarantee(
        ds.labels_for(model), ds.score(model), metric="recall", target=0.9
    )
    text = markdown_text(at)
    assert "With a guarantee" in text
    assert "Learn-then-Test" in text
    assert "Clopper-Pearson" in text
    assert "The guarantee costs" in text
    assert f"{want.bound:.3f}" in text
    table = next(df for df in at.dataframe if "choice" in df.value.columns).value
    assert list(table["choice"]) == ["plain: on these rows", "with a guarantee"]
    assert list(table["bound ≥ 0.9"]) == ["no", "yes"]
    assert table["flagged"].iloc[1] == f"{want.n_flagged:,.0f}"
    at.button(key="threshold_apply").click().run()
    assert not at.exception
    assert at.session_state["thresholds"][model] == want.threshold


def test_grouped_table_counts_users_and_names_the_rule():
    at = open_page("pages/threshold.py", dataset="user_impressions")
    at = _preset(at, "Precision ≥ target, guaranteed", 0.5)
    text = markdown_text(at) + "\n".join(c.value for c in at.caption)
    assert "Korn-Graubard effective sample size over" in text


def test_a_target_of_one_says_why_no_guarantee():
    at = _preset(open_page("pages/threshold.py"), "Recall ≥ target, guaranteed", 1.0)
    captions = "\n".join(c.value for c in at.caption)
    assert "strictly between 0 and 1" in captions
    assert at.button(key="threshold_apply").disabled


def test_words_say_when_no_threshold_can_promise():
    from ui.words.guarantee_text import guarantee_words

    y = np.r_[np.ones(10, bool), np.zeros(30, bool)]
    r = metrics.threshold_with_guarantee(y, np.arange(40.0), metric="recall", target=0.9)
    words = guarantee_words(r, str, str)
    assert words.startswith("No threshold can promise recall ≥ 0.9 at 95% confidence")

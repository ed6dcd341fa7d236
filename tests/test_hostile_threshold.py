"""The Threshold page's controls fed what an attacker sends (issue 50 §6): the prevalence at 0,
1, NaN, 1e-300, 1 - 1e-16, negative, a text, an integer past a float's range, through the
library, a lecture plan (file, link, or one already in the session) and the box itself; the
draggable line's component value and the link's thresholds as NaN, infinities, texts, huge
numbers. Each is one sentence (a ValueError in the library, a notice on the page with the
session kept), never a traceback."""

from __future__ import annotations

import json
import math
import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from streamlit.testing.v1 import AppTest

import metrics
from tests.apptest_utils import APP, metric_value
from tests.strategies import examples
from ui.analyses.threshold_presets import PREVALENCE_RANGE, beta_problem, prevalence_problem
from ui.teaching import lecture_plan as lp
from ui.views.threshold_drag import dragged_value

# What a plan's JSON, a link or a client can hold where a number is expected.
hostile = st.one_of(
    st.floats(),  # NaN, infinities, subnormals, 1 - 1e-16 ...
    st.sampled_from([0.0, 1.0, 1e-300, 1 - 1e-16, -0.5, 5e-324, 10**400, -(10**400), True]),
    st.integers(),
    st.text(max_size=8),
    st.lists(st.floats(), max_size=2),
    st.dictionaries(st.text(max_size=3), st.integers(), max_size=2),
    st.none(),
)


@given(hostile)
@settings(max_examples=examples(60), deadline=None)
def test_a_prevalence_is_taken_only_within_the_controls_range_and_else_said(value):
    problem = prevalence_problem(value)
    low, high = PREVALENCE_RANGE
    number = (
        isinstance(value, (int, float))
        and not isinstance(value, bool)
        and abs(value) < 1e300
        and low <= float(value) <= high
    )
    if value is None or number:
        assert problem is None
    else:
        assert problem.startswith("The prevalence")
        assert problem.count(".") >= 1
        assert "0.001 to 0.999" in problem
        if isinstance(value, str):  # a text is never echoed: every text gets one sentence
            assert problem == prevalence_problem("a text")


@given(hostile)
@settings(max_examples=examples(60), deadline=None)
def test_the_librarys_reweighting_refuses_what_is_no_prevalence_in_a_sentence(value):
    counts = metrics.threshold_counts([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8])
    inside = (
        isinstance(value, (int, float))
        and not isinstance(value, bool)
        and abs(value) < 1e300
        and 0 < float(value) < 1
    )
    if not inside:
        with pytest.raises(ValueError, match="between 0 and 1"):
            counts.at_prevalence(value)
    else:  # taken: a real number strictly inside (0, 1), the total weight kept
        moved = counts.at_prevalence(value)
        assert 0 < float(value) < 1
        assert float(moved.n_pos + moved.n_neg) == pytest.approx(4.0)


@pytest.mark.parametrize(
    ("key", "value", "said"),
    [
        ("threshold_prevalence", 0, "prevalence 0.0 is outside"),
        ("threshold_prevalence", 1 - 1e-16, "prevalence 0.9999999999999999 is outside"),
        ("threshold_prevalence", 1e-300, "prevalence 1e-300 is outside"),
        ("threshold_prevalence", "0.3", "not a number (a str)"),
        ("threshold_beta", -1, "beta -1.0 is outside"),
    ],
)
def test_a_plan_file_with_a_setting_out_of_bounds_is_refused_in_one_sentence(key, value, said):
    view = {"page": "", "link": {"dataset": "breast_cancer"}, "settings": {key: value}}
    body = {"format": lp.FORMAT, "version": 1, "title": "t", "views": [view]}
    with pytest.raises(ValueError, match=rf"View 1's setting '{key}': .*{re.escape(said)}"):
        lp.from_json(json.dumps(body))


def _plan_open(settings: dict) -> AppTest:
    """The Threshold page after a plan already in the session (an old link's, or one a client
    crafted: never checked by lp.from_json) opens a view with ``settings``."""
    link = {"dataset": "breast_cancer", "model": "logistic_regression"}
    at = AppTest.from_file(APP, default_timeout=60).run()
    at.session_state["plan"] = lp.Plan("t", (lp.View("", "Threshold", link, settings, "n"),))
    at.session_state["_plan_open"] = 0
    return at.run()


def test_the_page_refuses_a_hostile_prevalence_and_shows_the_datas_own_balance():
    # (texts and huge integers: the generated test of prevalence_problem, which the page calls)
    at = _plan_open({"threshold_prevalence": 0.0, "threshold_beta": "x"})
    assert not at.exception, at.exception
    said = [w.value for w in at.warning]
    assert any(w.startswith("The prevalence") and "0.001 to 0.999" in w for w in said), said
    assert any(w.startswith("F-beta's beta is not a number") for w in said), said
    assert at.session_state["threshold_prevalence"] is None  # the box emptied
    assert metric_value(at, "Prevalence") == "0.373"  # the data's own (212 of 569)
    at.number_input(key="threshold_prevalence").set_value(0.05).run()  # the session goes on
    assert not at.exception
    assert metric_value(at, "Prevalence") == "0.050"


def test_a_plan_sets_only_its_pages_own_settings():
    at = _plan_open({"dataset": "nope", "threshold_mode": "top %"})
    assert not at.exception, at.exception
    assert at.session_state["dataset"] == "breast_cancer"
    assert at.session_state["threshold_mode"] == "top %"
    errors = [e.value for e in at.sidebar.error]
    assert any("settings dataset are not its page's own" in e for e in errors), errors


@given(
    st.one_of(
        st.fixed_dictionaries({"threshold": hostile}),
        hostile,
        st.fixed_dictionaries({"threshold": st.floats(allow_nan=False, allow_infinity=False)}),
    )
)
@settings(max_examples=examples(60), deadline=None)
def test_the_lines_value_is_a_finite_number_or_a_sentence(state):
    value, refused = dragged_value(state)
    if value is not None:
        assert refused is None
        assert math.isfinite(value)
        assert value == float(state["threshold"])
    elif refused is not None:
        assert refused.startswith("The threshold line sent")
        assert "stays" in refused
    else:  # nothing sent: no state, or a state without a threshold yet
        assert state is None or state.get("threshold") is None


def _drag(state) -> None:
    import streamlit as st

    from ui.views import threshold_drag

    st.session_state.setdefault("thresholds", {"m": 0.4})
    st.session_state[threshold_drag.KEY] = state
    threshold_drag._dragged("m", 0.0, 1.0)
    st.write(f"threshold {st.session_state['thresholds']['m']}")
    st.write(st.session_state.get(threshold_drag.NOTICE) or "no notice")


@pytest.mark.parametrize(
    ("state", "threshold", "notice"),
    [
        ({"threshold": "abc"}, 0.4, "sent a str, not a number"),
        ({"threshold": 10**400}, 0.4, "sent inf, not a finite number"),
        ({"threshold": float("nan")}, 0.4, "sent nan"),
        ({"threshold": [0.2]}, 0.4, "sent a list"),
        ({"threshold": 1e308}, 1.0, "no notice"),  # a number past the range: clamped
        ({"threshold": 0.25}, 0.25, "no notice"),
    ],
)
def test_the_lines_callback_keeps_the_threshold_and_says_why(state, threshold, notice):
    at = AppTest.from_function(_drag, args=(state,), default_timeout=30).run()
    assert not at.exception, at.exception
    assert at.markdown[0].value == f"threshold {threshold}"
    assert notice in at.markdown[1].value


def test_a_links_threshold_that_is_no_finite_number_is_said_and_the_default_kept():
    at = AppTest.from_file(APP, default_timeout=60)
    at.query_params["dataset"] = "breast_cancer"
    at.query_params["model"] = "logistic_regression"
    at.query_params["threshold"] = ["logistic_regression:nan", "naive_bayes:1e400"]
    at.run()
    assert not at.exception, at.exception
    said = " ".join(w.value for w in at.warning)
    assert "logistic\\_regression\\:nan" in said
    assert "naive\\_bayes\\:1e400" in said
    assert at.slider(key="threshold_slider").value == 0.5  # the default
    assert np.isfinite(at.slider(key="threshold_slider").value)


def test_a_beta_is_a_number_from_0_to_10():
    assert beta_problem(1.0) is None
    assert beta_problem(0) is None
    assert "outside 0.0 to 10.0" in beta_problem(11)
    assert "not a number (a str)" in beta_problem("1")


def test_the_strip_bins_a_range_wider_than_a_float_holds():
    """Scores near ±1.7e308 (the data layer keeps uploads within MAX_SCORE, but the strip draws
    any source's counts): more rows than dots are binned, not a numpy "Too many bins"."""
    from ui.views.threshold_drag import DOTS_UP_TO, strip_data

    n = DOTS_UP_TO + 1
    scores = np.linspace(-1.7, 1.7, n) * 1e308
    data = strip_data(
        scores, np.ones(n), np.ones(n), low=-1.7e308, high=1.7e308, step=1e305, threshold=0.0,
        positive_name="a", negative_name="b",
    )  # fmt: skip
    for row in data["rows"]:
        assert sum(row["counts"]) == n
        assert row["edges"][0] == -1.7e308
        assert row["edges"][-1] == 1.7e308
        assert all(np.isfinite(row["edges"]))

"""The seeded synthetic source: exact class counts, the same table for the same seed, the
target AUC reached, the classic lesson (prevalence falls: AUC stays, AP drops), ties from
rounding, calibration that bends probabilities but not the ranking, and the controls."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as hs
from streamlit.testing.v1 import AppTest

import metrics
from tests.apptest_utils import metric_value
from tests.strategies import examples
from ui.tables.synthetic import SyntheticSpec, auc_from_dprime, dprime_from_auc, generate


def _arrays(spec):
    t = generate(spec)
    return t["label"].to_numpy() == 1, t["score"].to_numpy()


def test_same_seed_same_table_other_seed_other_table():
    spec = SyntheticSpec(rows=500, seed=3)
    assert generate(spec).equals(generate(spec))
    assert not generate(spec).equals(generate(SyntheticSpec(rows=500, seed=4)))


@pytest.mark.parametrize(("rows", "prevalence", "positives"), [(200, 0.3, 60), (1000, 0.005, 5),
                                                              (10, 0.01, 1), (10, 0.99, 9)])  # fmt: skip
def test_positives_are_exact(rows, prevalence, positives):
    t = generate(SyntheticSpec(rows=rows, prevalence=prevalence))
    assert len(t) == rows
    assert int(t["label"].sum()) == positives


@pytest.mark.parametrize("auc", [0.6, 0.75, 0.9, 0.97])
def test_target_auc_is_reached(auc):
    assert auc_from_dprime(dprime_from_auc(auc)) == pytest.approx(auc)
    y, s = _arrays(SyntheticSpec(rows=40_000, prevalence=0.3, dprime=dprime_from_auc(auc),
                                 decimals=None))  # fmt: skip
    assert metrics.roc_auc_score(y, s) == pytest.approx(auc, abs=0.01)


def test_prevalence_falls_auc_stays_ap_drops():
    dprime = dprime_from_auc(0.85)
    results = []
    for prevalence in (0.5, 0.2, 0.05, 0.01):
        y, s = _arrays(SyntheticSpec(rows=round(2000 / prevalence), prevalence=prevalence,
                                     dprime=dprime, decimals=None, seed=1))  # fmt: skip
        results.append((metrics.roc_auc_score(y, s), metrics.average_precision_score(y, s)))
    aucs, aps = np.array(results).T
    assert np.ptp(aucs) < 0.02  # ROC AUC stays put
    assert (np.diff(aps) < -0.05).all()  # AP drops at every step down
    assert aps[-1] < 0.2 < 0.8 < aps[0]


def test_rounding_makes_ties_and_none_keeps_them_apart():
    _, s = _arrays(SyntheticSpec(rows=1000, decimals=1))
    assert len(np.unique(s)) <= 11
    _, s = _arrays(SyntheticSpec(rows=1000, decimals=None))
    assert len(np.unique(s)) == 1000


def test_calibration_bends_probabilities_not_the_ranking():
    base = SyntheticSpec(rows=5000, prevalence=0.2, dprime=1.5, decimals=None, seed=2)
    y, calibrated = _arrays(base)
    _, over = _arrays(SyntheticSpec(**{**base.__dict__, "calibration": 3.0}))
    assert metrics.roc_auc_score(y, over) == metrics.roc_auc_score(y, calibrated)
    assert metrics.average_precision_score(y, over) == metrics.average_precision_score(
        y, calibrated
    )
    # calibrated scores are probabilities: the mean matches the prevalence; distorted ones do not
    assert calibrated.mean() == pytest.approx(0.2, abs=0.02)
    assert metrics.brier_score_loss(y, over) > metrics.brier_score_loss(y, calibrated) + 0.01


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [({"rows": 1}, "rows"), ({"prevalence": 0}, "prevalence"), ({"prevalence": 1}, "prevalence"),
     ({"calibration": 0}, "calibration")],
)  # fmt: skip
def test_bad_specs_are_refused(kwargs, message):
    with pytest.raises(ValueError, match=message):
        generate(SyntheticSpec(**kwargs))


def _app():
    import streamlit as st

    from ui.sources.synthetic_source import synthetic_dataset

    with st.sidebar:
        ds = synthetic_dataset()
    y, s = ds.y, ds.score("score")
    import metrics

    st.metric("rows", len(y))
    st.metric("positives", int(y.sum()))
    st.metric("AUC", f"{metrics.roc_auc_score(y, s):.4f}")
    st.session_state["_source_id"] = ds.source_id


def test_controls_drive_the_table():
    at = AppTest.from_function(_app, default_timeout=30)
    at.run()
    assert not at.exception
    assert metric_value(at, "rows") == "200"
    assert metric_value(at, "positives") == "60"
    first = at.session_state["_source_id"]
    at.select_slider(key="synth_prevalence").set_value(5).run()
    assert metric_value(at, "positives") == "10"
    at.select_slider(key="synth_rows").set_value(1000).run()
    assert metric_value(at, "positives") == "50"
    at.segmented_control(key="synth_by").set_value("d'").run()
    at.slider(key="synth_dprime").set_value(0.0).run()
    assert float(metric_value(at, "AUC")) == pytest.approx(0.5, abs=0.1)
    at.selectbox(key="synth_rounding").set_value("1 decimal").run()
    at.number_input(key="synth_seed").set_value(9).run()
    assert not at.exception
    spec = SyntheticSpec(rows=1000, prevalence=0.05, dprime=0.0, decimals=1, seed=9)
    y, s = _arrays(spec)
    assert metric_value(at, "AUC") == f"{metrics.roc_auc_score(y, s):.4f}"
    assert at.session_state["_source_id"] != first


# --- several models, and the link -------------------------------------------------------------


@settings(max_examples=examples(25), deadline=None)
@given(
    seed=hs.integers(0, 10_000),
    d2=hs.floats(0, 4),
    c2=hs.floats(0.25, 4),
    r=hs.floats(-0.9, 0.9),
)
def test_more_models_leave_the_first_one_as_it_was(seed, d2, c2, r):
    one = generate(SyntheticSpec(rows=300, seed=seed))
    three = generate(
        SyntheticSpec(rows=300, seed=seed, others=((d2, c2), (1.0, 1.0)), correlation=r)
    )
    assert list(three.columns) == ["label", "score", "score_2", "score_3"]
    pd.testing.assert_frame_equal(three[["label", "score"]], one)
    assert three[["score_2", "score_3"]].to_numpy().min() >= 0
    assert three[["score_2", "score_3"]].to_numpy().max() <= 1


def test_each_model_has_its_population_auc_and_the_noise_correlation():
    spec = SyntheticSpec(
        rows=200_000, prevalence=0.3, dprime=1.5, decimals=None,
        others=((1.0, 1.0), (2.0, 3.0)), correlation=0.6, seed=2,
    )  # fmt: skip
    t = generate(spec)
    y = t["label"].to_numpy() == 1
    for column, dprime in (("score", 1.5), ("score_2", 1.0), ("score_3", 2.0)):
        assert metrics.roc_auc_score(y, t[column]) == pytest.approx(
            auc_from_dprime(dprime), abs=0.004
        )
    # The latent noise of the models is correlated as asked (log-odds are affine in it).
    logit = lambda p: np.log(p / (1 - p))  # noqa: E731
    for cls in (True, False):
        r = np.corrcoef(logit(t["score"][y == cls]), logit(t["score_2"][y == cls]))[0, 1]
        assert r == pytest.approx(0.6, abs=0.01)
    with pytest.raises(ValueError, match="at most 3"):
        generate(SyntheticSpec(others=((1, 1),) * 3))


def _app_with_models():
    import streamlit as st

    from ui.sources.synthetic_source import encode, synthetic_dataset

    with st.sidebar:
        ds = synthetic_dataset()
    st.session_state["_scores"] = list(ds.mapping.scores)
    st.session_state["_link"] = encode()


def _from_link(link):
    import streamlit as st

    from tests.test_synthetic import _app_with_models
    from ui.sources import synthetic_source

    if "_applied" not in st.session_state:
        st.session_state["_applied"] = synthetic_source.apply_link(link)
    _app_with_models()


def test_three_models_from_the_controls_and_the_link_round_trip():
    at = AppTest.from_function(_app_with_models, default_timeout=30)
    at.run()
    assert at.session_state["_scores"] == ["score"]
    at.segmented_control(key="synth_models").set_value(3).run()
    assert at.session_state["_scores"] == ["score", "score_2", "score_3"]
    at.slider(key="synth_auc_2").set_value(0.6).run()
    at.slider(key="synth_calibration_3").set_value(2.5).run()
    link = at.session_state["_link"]
    assert link == LINK
    assert "models:3" in link
    assert "auc2:0.6" in link
    assert "cal3:2.5" in link

    again = AppTest.from_function(_from_link, default_timeout=30, args=(LINK,))
    again.run()  # a fresh session reads the link
    assert not again.exception
    assert again.session_state["_applied"] == []
    assert again.session_state["_link"] == link
    assert again.session_state["_scores"] == ["score", "score_2", "score_3"]


LINK = "by:AUC,auc:0.8,prev:30,rows:200,round:none,cal:1,seed:0,models:3,auc2:0.6,cal2:1,auc3:0.85,cal3:2.5"


def test_a_bad_link_keeps_the_defaults_and_says_which_parts():
    from tests.apptest_utils import APP

    at = AppTest.from_file(APP, default_timeout=60)
    at.query_params["synth"] = "rows:7,models:9,auc:0.7,nonsense,prev:30"
    at.run()
    assert not at.exception
    warning = " ".join(w.value for w in at.warning).replace("\\", "")  # markdown escapes
    assert "rows:7" in warning
    assert "models:9" in warning
    assert "nonsense" in warning
    assert at.slider(key="synth_auc").value == 0.7
    assert at.segmented_control(key="synth_models").value == 1

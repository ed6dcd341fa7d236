"""Column roles, score scales and default thresholds: the guesses a person would make by eye."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from tests.strategies import examples
from ui.tables.checking import prepare
from ui.tables.loading import guess_mapping
from ui.tables.roles import (
    GROUP_NAMES,
    LABEL_NAMES,
    MAX_CODE_VALUES,
    MAX_SLICE_VALUES,
    MIN_EXPECTED_REPEATS,
    MIN_ROWS_PER_CODE,
    NESTED_REASON,
    WEIGHT_NAMES,
    ColumnRole,
    default_threshold,
    expected_repeats,
    infer_roles,
    infer_scale,
)


@pytest.fixture
def click_log() -> pd.DataFrame:
    rng = np.random.default_rng(0)
    n = 500
    return pd.DataFrame(
        {
            "row": np.arange(1, n + 1),
            "request_id": rng.permutation(n) + 10**6,
            "item": rng.integers(0, 5000, n),
            "user_id": rng.integers(0, 40, n),
            "session": rng.integers(0, 200, n),
            "event_time": pd.date_range("2025-01-01", periods=n, freq="min").astype(str),
            "ts": 1_700_000_000 + np.arange(n) * 7,
            "device": rng.choice(["ios", "android", "web"], n),
            "country_code": rng.integers(0, 4, n),
            "version": "v2",
            "clicked": rng.random(n) < 0.1,
            "ctr_model": rng.random(n),
            "ranker_pct": rng.random(n) * 100,
        }
    )


def test_a_click_log_has_two_models_and_everything_else_in_its_place(click_log):
    roles = infer_roles(click_log)
    got = {c: r.role for c, r in roles.items()}
    assert got == {
        "row": "ignore",
        "request_id": "ignore",
        "item": "ignore",
        "user_id": "group",
        "session": "ignore",
        "event_time": "ignore",
        "ts": "ignore",
        "device": "slice",
        "country_code": "slice",
        "version": "ignore",
        "clicked": "label",
        "ctr_model": "score",
        "ranker_pct": "score",
    }
    assert all(r.reason for r in roles.values())
    assert "row numbers" in roles["row"].reason
    assert "id" in roles["request_id"].reason
    assert "Unix time" in roles["ts"].reason
    assert "dates" in roles["event_time"].reason
    assert "same value" in roles["version"].reason
    m = guess_mapping(click_log)
    assert (m.label, m.scores, m.group, m.pos_label) == (
        "clicked",
        ("ctr_model", "ranker_pct"),
        "user_id",
        True,
    )
    assert m.slices == ("device", "country_code")


def test_an_unnamed_unique_integer_column_is_an_id_but_unique_floats_are_scores():
    rng = np.random.default_rng(1)
    n = 200
    frame = pd.DataFrame(
        {"label": rng.random(n) < 0.3, "x": rng.permutation(n) * 37 + 5, "m": rng.random(n)}
    )
    roles = infer_roles(frame)
    assert roles["x"].role == "ignore"
    assert "unique whole number" in roles["x"].reason
    assert roles["m"].role == "score"


def test_a_rank_column_is_a_score_even_when_unique():
    n = 100
    frame = pd.DataFrame({"label": np.arange(n) % 3 == 0, "model_rank": np.arange(1, n + 1)})
    assert infer_roles(frame)["model_rank"].role == "score"


def test_small_tables_typed_by_hand_keep_their_scores():
    frame = pd.DataFrame(
        {"y": [1, 0, 1, 0, 0], "a": [5, 3, 4, 1, 2], "b": [0.9, 0.2, 0.7, 0.4, 0.1]}
    )
    assert guess_mapping(frame).scores == ("a", "b")


@pytest.mark.parametrize(
    ("values", "name", "kind"),
    [
        ([0.1, 0.9, 0.5], "p", "probability"),
        ([0.0, 1.0, 1.0], "p", "probability"),
        ([3.5, 97.2, 50.0], "score", "percent"),
        ([3, 97, 50], "score", "percent"),
        ([-2.1, 0.3, 4.0], "logit", "margin"),
        ([-12.0, -0.5, -3.0], "log_prob", "margin"),
        ([0.5, 250.7, 1000.2], "s", "margin"),
        ([0.0, 0.7, 1.5], "s", "margin"),  # just above 1: not a percentage
        ([0.0, 0.7, 1.5], "ctr_pct", "percent"),
        ([1, 5000, 17], "s", "rank"),
        ([1, 2, 3, 40], "rank", "rank"),
        ([0, 3, 12], "click_count", "rank"),
    ],
)
def test_scales(values, name, kind):
    scale = infer_scale(np.array(values, dtype=float), name)
    assert scale.kind == kind
    assert scale.reason


def _brute_force_threshold(y, s, w):
    """The highest distinct score t with weight(score >= t) >= weight(positives)."""
    need = w[y].sum()
    return max(t for t in np.unique(s) if w[s >= t].sum() >= need - 1e-9)


@pytest.mark.parametrize("seed", range(20))
def test_default_threshold_predicts_the_prevalence_share(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(5, 80))
    s = np.round(rng.normal(size=n), int(rng.integers(0, 3)))  # ties
    y = rng.random(n) < 0.3
    y[0] = True
    w = rng.integers(1, 4, n).astype(float) if seed % 2 else np.ones(n)
    t = default_threshold("margin", y, s, w if seed % 2 else None)
    assert t == _brute_force_threshold(y, s, w)
    assert default_threshold("probability", y, s) == 0.5
    assert default_threshold("percent", y, s) == 50.0


def test_default_threshold_without_positives_predicts_nothing():
    s = np.array([1.0, 2.0, 3.0])
    t = default_threshold("rank", np.zeros(3, bool), s)
    assert t > 3.0
    assert not (s >= t).any()


def test_a_column_of_infinities_only_is_no_score():
    frame = pd.DataFrame({"label": [0, 1, 0], "s": [np.inf, -np.inf, np.inf], "m": [0.1, 0.9, 0.3]})
    roles = infer_roles(frame)
    assert roles["s"].role == "ignore"
    assert "infinities" in roles["s"].reason
    assert guess_mapping(frame).scores == ("m",)


def test_editing_roles_on_the_data_page_sets_the_sidebar_mapping():
    from streamlit.testing.v1 import AppTest

    def script():
        import streamlit as st

        from ui.frame import shell

        columns = ["y", "a", "b", "user"]
        before = {"y": "label", "a": "score", "b": "score", "user": "group"}
        edits = st.session_state.get("edits", {})
        st.session_state["data_roles"] = {"edited_rows": edits}
        shell.apply_role_edits(columns, before)

    at = AppTest.from_function(script)
    at.session_state["edits"] = {2: {"role": "label"}, 3: {"role": "slice"}}
    at.run()
    assert not at.exception, at.exception
    assert at.session_state["map_label"] == "b"  # the column just made the label takes it
    assert at.session_state["map_scores"] == ["a"]
    assert at.session_state["map_group"] == "(none)"
    assert at.session_state["map_slices"] == ["user"]
    at.session_state["edits"] = {0: {"role": "score"}}
    at.run()
    assert at.session_state["data_roles_error"] == "A table needs a label column: one stays."


def test_list_and_struct_columns_take_no_role_and_say_so():
    frame = pd.DataFrame(
        {
            "label": [0, 1, 0, 1],
            "score": [0.1, 0.9, 0.3, 0.7],
            "tags": [np.array([1]), np.array([2, 3]), np.array([]), None],
            "meta": [{"a": 1}, {"a": 2}, {"a": 3}, {"a": 4}],
        }
    )
    roles = infer_roles(frame)
    assert roles["tags"] == ColumnRole("ignore", NESTED_REASON)
    assert roles["meta"] == ColumnRole("ignore", NESTED_REASON)
    assert NESTED_REASON.startswith("ignored: list/struct column")
    assert roles["label"].role == "label"
    assert roles["score"].role == "score"


def test_tables_a_new_user_brought_are_guessed_as_they_mean_them():
    """Three tables a reviewer made: a LETOR-style search log (relevance named ``rel``), a
    fraud export with the transaction amount beside the models, a churn table with tenure."""
    rng = np.random.default_rng(11)
    n = 400
    search = pd.DataFrame({"qid": np.repeat(np.arange(40), 10), "rel": rng.integers(0, 5, n),
                           "bm25": rng.random(n) * 20, "ltr": rng.normal(size=n)})  # fmt: skip
    m = guess_mapping(search)
    assert (m.label, m.group, m.graded, m.scores) == ("rel", "qid", True, ("bm25", "ltr"))
    y = rng.random(n) < 0.1
    fraud = pd.DataFrame({"is_fraud": np.where(y, "yes", "no"), "xgb_v3": rng.random(n),
                          "rules_score": rng.integers(0, 101, n), "merchant_id": rng.integers(0, 50, n),
                          "amount": np.round(rng.lognormal(3, 1, n), 2)})  # fmt: skip
    m = guess_mapping(fraud)
    assert (m.label, m.pos_label, m.scores) == ("is_fraud", "yes", ("xgb_v3", "rules_score"))
    churn = pd.DataFrame({"churned": y.astype(int), "p_churn_lr": rng.random(n),
                          "tenure_months": rng.integers(1, 72, n)})  # fmt: skip
    m = guess_mapping(churn)
    assert (m.label, m.scores) == ("churned", ("p_churn_lr",))
    assert infer_roles(churn)["tenure_months"].role == "ignore"
    # a name that says "model output" wins over a quantity's name
    assert (
        infer_roles(churn.rename(columns={"tenure_months": "age_score"}))["age_score"].role
        == "score"
    )


# --- issue 31 §3: roles guessed wrong on real exports ------------------------------------------

_NAMES = st.text(alphabet="abcdefghijklmnopqrstuvwxyz", min_size=3, max_size=10).filter(
    lambda s: (
        s not in LABEL_NAMES
        and s not in GROUP_NAMES
        and s not in WEIGHT_NAMES
        and not re.search(r"score|prob|pred|rank|model|id$", s)
    )
)


@settings(max_examples=examples(40), deadline=None)
@given(
    label=_NAMES,
    classes=st.lists(st.sampled_from(list("ANUYBCDX")), min_size=3, max_size=5, unique=True),
    models=st.sampled_from([(), ("lr", "hgb"), ("lr",), ("a_b", "c")]),
    row_first=st.booleans(),
    seed=st.integers(0, 2**16),
)
def test_a_column_naming_the_class_columns_is_the_multiclass_label(
    label, classes, models, row_first, seed
):
    """Chile as exported (respondent, region, vote, score_A ... score_Y): whatever the label is
    called and wherever it sits, the column whose values name the class score columns is the
    label, the row number never is, and the class columns are one model's (or each model's)."""
    rng = np.random.default_rng(seed)
    n = 120
    truth = rng.choice(classes, n)
    truth[: len(classes)] = classes  # every class present
    frame = {"respondent": np.arange(1, n + 1)} if row_first else {}
    frame["region"] = rng.choice(["C", "M", "N", "S", "SA"], n)
    frame[label] = truth
    if not row_first:
        frame["respondent"] = np.arange(1, n + 1)
    p = rng.dirichlet(np.ones(len(classes)), (max(len(models), 1), n))
    for k, m in enumerate(models or (None,)):
        for j, c in enumerate(classes):
            frame[f"score_{c}" if m is None else f"{m}__{c}"] = p[k, :, j]
    frame = pd.DataFrame(frame)
    roles = infer_roles(frame)
    assert roles[label].role == "label", roles[label]
    assert roles["respondent"].role == "ignore"
    m = guess_mapping(frame)
    assert m.label == label
    assert m.is_multiclass
    assert m.classes == tuple(classes)
    assert m.class_models == tuple(models)
    assert m.scores == tuple(
        f"score_{c}" if not models else f"{mm}__{c}" for mm in (models or (None,)) for c in classes
    )
    assert prepare(frame, m).ok


def test_a_row_number_is_never_the_label():
    rng = np.random.default_rng(0)
    n = 80
    frame = pd.DataFrame(
        {"row_no": np.arange(1, n + 1), "grade": rng.integers(0, 4, n), "m": rng.random(n)}
    )
    assert guess_mapping(frame).label == "grade"
    assert "row number" in infer_roles(frame)["grade"].reason


def test_several_multilabel_models_are_guessed_from_model__class_columns():
    rng = np.random.default_rng(3)
    n = 60
    frame = pd.DataFrame({f"label_{c}": rng.integers(0, 2, n) for c in ("health", "limit")})
    for m in ("lr", "nb"):
        for c in ("health", "limit"):
            frame[f"{m}__{c}"] = rng.random(n)
    m = guess_mapping(frame)
    assert m.is_multilabel
    assert m.class_models == ("lr", "nb")
    assert m.scores == ("lr__health", "lr__limit", "nb__health", "nb__limit")
    assert m.class_columns("nb") == ("nb__health", "nb__limit")
    assert m.class_of("nb__limit") == 1
    assert m.class_model_of("nb__limit") == "nb"
    roles = infer_roles(frame)
    assert roles["nb__limit"] == ColumnRole("score", "model 'nb': score of class 'limit'")


@settings(max_examples=examples(40), deadline=None)
@given(
    n_values=st.integers(11, MAX_CODE_VALUES),
    per_value=st.integers(MIN_ROWS_PER_CODE, 40),
    start=st.sampled_from([0, 1, 100]),
    seed=st.integers(0, 2**16),
)
def test_heavily_repeated_whole_numbers_are_a_group_or_slice_never_a_model(
    n_values, per_value, start, seed
):
    """mlmRev Contraception's district (1-61, about 32 rows each) beside four models."""
    rng = np.random.default_rng(seed)
    n = n_values * per_value
    frame = pd.DataFrame(
        {
            "use": rng.integers(0, 2, n),
            "district": rng.permutation(np.repeat(np.arange(start, start + n_values), per_value)),
            "lr": rng.random(n),
            "rf": rng.random(n),
        }
    )
    role = infer_roles(frame)["district"]
    assert role.role == ("slice" if n_values <= MAX_SLICE_VALUES else "ignore")
    assert "not a model's score" in role.reason
    if role.role == "ignore":
        assert "user/query id" in role.reason
    assert guess_mapping(frame).scores == ("lr", "rf")


def test_whole_number_scores_that_do_not_repeat_heavily_stay_models():
    rng = np.random.default_rng(4)
    n = 2000
    frame = pd.DataFrame(
        {
            "label": rng.integers(0, 2, n),
            "fico": rng.integers(300, 851, n),  # 551 values: a score, not a code
            "risk_score": rng.integers(1, 30, n),  # named like a score: kept whatever repeats
        }
    )
    roles = infer_roles(frame)
    assert roles["fico"].role == "score"
    assert roles["risk_score"].role == "score"


# --- ids nested in a code, and entity numbers (issue 51 §6) -----------------------------------


def _exam_like(rng, sizes, id_name: str, outer: str, outer_kind: str) -> pd.DataFrame:
    """mlmRev's Exam as exported: a school code, a student number restarting in each school
    (1..m within a school of m), the outcome and two models' probabilities."""
    n_outer = len(sizes)
    codes = {
        "whole": np.arange(1, n_outer + 1),
        "text": np.array([f"S{k:03d}" for k in range(n_outer)]),
    }[outer_kind]
    order = rng.permutation(int(np.sum(sizes)))
    frame = pd.DataFrame(
        {
            outer: np.repeat(codes, sizes),
            id_name: np.concatenate([rng.permutation(np.arange(1, m + 1)) for m in sizes]),
        }
    ).iloc[order]
    n = len(frame)
    frame["passed"] = rng.integers(0, 2, n)
    frame["model_lr"] = rng.random(n)
    frame["model_hgb"] = rng.random(n)
    return frame.reset_index(drop=True)


def test_mlmrev_exam_student_is_an_id_and_school_a_code():
    rng = np.random.default_rng(51)
    sizes = rng.integers(2, 199, 65)
    sizes[0] = 198
    frame = _exam_like(rng, sizes, "student", "school", "whole")
    roles = infer_roles(frame)
    assert roles["student"].role == "ignore"
    assert "id" in roles["student"].reason
    assert roles["school"].role == "ignore"
    assert "a code rows share" in roles["school"].reason
    assert guess_mapping(frame).scores == ("model_lr", "model_hgb")
    # Not by its name only: the same numbers under a neutral name are nested in the school.
    frame = frame.rename(columns={"student": "v2"})
    reason = infer_roles(frame)["v2"].reason
    assert "start again within each 'school'" in reason
    assert guess_mapping(frame).scores == ("model_lr", "model_hgb")


@settings(max_examples=examples(40), deadline=None)
@given(
    sizes=st.lists(st.integers(1, 80), min_size=2, max_size=70),
    id_name=st.sampled_from(["v2", "number", "k", "pupil_no", "seq"]),
    outer=st.sampled_from(["school", "district", "user", "site"]),
    outer_kind=st.sampled_from(["whole", "text"]),
    seed=st.integers(0, 2**16),
)
def test_an_id_nested_in_a_code_is_never_offered_as_a_model(
    sizes, id_name, outer, outer_kind, seed
):
    """Whole numbers that restart within each value of a code are an id of rows within it,
    whenever the groups are large enough to tell: were they a score, about
    ``MIN_EXPECTED_REPEATS`` (school, value) pairs would repeat."""
    assume(expected_repeats(np.array(sizes), max(sizes)) >= MIN_EXPECTED_REPEATS)
    frame = _exam_like(np.random.default_rng(seed), sizes, id_name, outer, outer_kind)
    assert infer_roles(frame)[id_name].role != "score"
    assert id_name not in guess_mapping(frame).scores


@settings(max_examples=examples(40), deadline=None)
@given(
    sizes=st.lists(st.integers(5, 80), min_size=2, max_size=40),
    kind=st.sampled_from(["counts", "rating_0_100", "points_1_30"]),
    name=st.sampled_from(["v3", "rating", "votes", "order_count", "n_items"]),
    outer_kind=st.sampled_from(["whole", "text"]),
    seed=st.integers(0, 2**16),
)
def test_whole_number_scores_beside_a_code_stay_models(sizes, kind, name, outer_kind, seed):
    """Counts and 0-100 ratings repeat within a school once it has a few rows: they are
    scores, and the nesting rule never takes them for ids (even named with an entity word
    and a count, as order_count or n_items)."""
    rng = np.random.default_rng(seed)
    frame = _exam_like(rng, sizes, "student", "school", outer_kind)
    n = len(frame)
    frame[name] = {
        "counts": rng.poisson(3.0, n),
        "rating_0_100": rng.integers(0, 101, n),
        "points_1_30": rng.integers(1, 31, n),
    }[kind]
    roles = infer_roles(frame)
    distinct = frame[name].nunique()
    if roles[name].role != "score":  # only a code (heavily repeated) or a slice, never an id
        assert roles[name].role in ("slice", "ignore")
        assert distinct <= MAX_CODE_VALUES
        assert "start again" not in roles[name].reason
        assert "named like an entity" not in roles[name].reason
        return
    assert name in guess_mapping(frame).scores
    assert "student" not in guess_mapping(frame).scores


@pytest.mark.parametrize(
    "name", ["student", "patient_no", "customer", "account", "device", "session", "item_nr"]
)
def test_whole_numbers_named_like_an_entity_are_an_id(name):
    rng = np.random.default_rng(7)
    n = 500
    frame = pd.DataFrame(
        {
            "label": rng.integers(0, 2, n),
            name: rng.integers(1, 400, n),  # repeated, not unique: an entity's number
            "model": rng.random(n),
        }
    )
    assert infer_roles(frame)[name].role in ("ignore", "group")  # a session id may group rows
    assert guess_mapping(frame).scores == ("model",)

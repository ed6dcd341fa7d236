"""Lecture plans without Streamlit: editing, walking, the file and the link, and one sentence
for every bad plan (ui.teaching.lecture_plan)."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.strategies import examples
from ui.frame.navigation import PAGES
from ui.teaching import lecture_plan as lp

URL_PATHS = {
    "" if i == 0 else path.removeprefix("pages/").removesuffix(".py")
    for i, (path, _, _) in enumerate(PAGES)
}

_notes = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=60)
_views = st.builds(
    lp.View,
    page=st.sampled_from(sorted(URL_PATHS)),
    title=st.sampled_from(["Threshold", "GAUC", ""]),
    link=st.fixed_dictionaries(
        {"dataset": st.sampled_from(["breast_cancer", "user_impressions"])},
        optional={"threshold": st.lists(st.text(max_size=12), max_size=3)},
    ),
    settings=st.dictionaries(
        st.from_regex(r"[a-z][a-z0-9_]{0,12}", fullmatch=True),
        st.one_of(
            st.integers(),
            st.floats(allow_nan=False, allow_infinity=False),
            st.text(max_size=10),
            st.booleans(),
            st.lists(st.integers(), max_size=3),
        ),
        max_size=4,
    ),
    note=_notes.map(lambda s: " ".join(s.split())),
    upload=st.sampled_from(["", "", "scores.csv"]),
)
_plans = st.builds(
    lp.Plan,
    title=st.text(max_size=30).map(lambda s: " ".join(s.split())),
    views=st.lists(_views, min_size=1, max_size=8).map(tuple),
)


@given(_plans)
@settings(max_examples=examples(40), deadline=None)
def test_a_plan_survives_its_file_and_its_link(plan):
    assert lp.from_json(lp.to_json(plan), URL_PATHS) == plan
    assert lp.from_json(lp.to_json(plan).encode(), URL_PATHS) == plan
    if lp.linkable(plan):
        assert lp.from_link(lp.to_link(plan), URL_PATHS) == plan
    else:
        with pytest.raises(ValueError, match="cannot carry an upload"):
            lp.to_link(plan)


@given(_plans, st.data())
@settings(max_examples=examples(40), deadline=None)
def test_editing_moves_removes_and_notes_one_view(plan, data):
    n = len(plan)
    at = data.draw(st.integers(0, n - 1))
    by = data.draw(st.integers(-n, n))
    moved = lp.move(plan, at, by)
    assert sorted(map(repr, moved.views)) == sorted(map(repr, plan.views))  # same views
    assert moved.views[min(max(at + by, 0), n - 1)] == plan.views[at]
    assert lp.remove(plan, at).views == plan.views[:at] + plan.views[at + 1 :]
    noted = lp.with_note(plan, at, "  Two\nlines  ")
    assert noted.views[at].note == "Two lines"
    assert noted.views[:at] == plan.views[:at]


def test_step_walks_the_views_and_stops_at_the_ends():
    assert lp.step(3, None, 1) == 0
    assert lp.step(3, 0, 1) == 1
    assert lp.step(3, 2, 1) is None  # past the last view: stay
    assert lp.step(3, 0, -1) is None
    assert lp.step(3, 2, -1) == 1
    assert lp.step(0, None, 1) is None


def _body(**change) -> str:
    body = json.loads(lp.to_json(lp.SAMPLE_PLANS["Why GAUC"]))
    body.update(change)
    return json.dumps(body)


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("not json {", "not valid JSON (line 1"),
        ("[1, 2]", "is not a lecture plan"),
        (json.dumps({"title": "x", "views": []}), "is not a lecture plan"),
        (_body(version=2), "version 2"),
        (_body(views=[]), "has no views"),
        (_body(views=[{"page": "nowhere"}]), "'nowhere', which this app does not have"),
        (_body(views=[{"page": "gauc", "note": "x" * 200}]), "a note is one line of at most"),
        (_body(views=[{"page": "gauc", "settings": {"k": {"a": 1}}}]), "setting 'k' is not"),
        (_body(views=[{"page": "gauc", "settings": {"k": float("nan")}}]), "setting 'k' is not"),
        (_body(views=[{"page": "gauc", "link": {"dataset": 3}}]), "is not text"),
        (_body(views=[{"page": "../x"}]), "has no page"),
        (_body(views=[{"page": "gauc"}] * (lp.MAX_VIEWS + 1)), "at most 60"),
        (b"\xff\xfe", "not UTF-8"),
        (b" " * (lp.MAX_BYTES + 1), "a plan is at most"),
    ],
)
def test_a_bad_plan_file_gets_one_sentence(text, says):
    with pytest.raises(ValueError, match=r"^[^\n]+$") as caught:
        lp.from_json(text, URL_PATHS)
    assert says in str(caught.value)


def test_a_damaged_link_gets_one_sentence():
    link = lp.to_link(lp.SAMPLE_PLANS["Why GAUC"])
    for bad in (link[:-5], "!!!", link[: len(link) // 2]):
        with pytest.raises(ValueError, match=r"damaged|not valid JSON|not a lecture plan"):
            lp.from_link(bad, URL_PATHS)


def test_the_sample_plans_open_on_bundled_data_and_real_pages():
    from ui.tables.dataset import BUNDLED

    assert set(lp.SAMPLE_PLANS) == {"Precision, recall and AP in 50 minutes", "Why GAUC"}
    for plan in lp.SAMPLE_PLANS.values():
        assert lp.from_json(lp.to_json(plan), URL_PATHS) == plan
        for view in plan.views:
            assert view.link["dataset"] in BUNDLED
            assert view.note
            assert not view.upload
            if "model" in view.link:
                assert view.link["model"] in BUNDLED[view.link["dataset"]].mapping.scores


def test_a_plan_holds_at_most_max_views():
    plan = lp.Plan("x", (lp.View("gauc"),) * lp.MAX_VIEWS)
    with pytest.raises(ValueError, match="at most 60 views"):
        lp.add(plan, lp.View("gauc"))

"""The lecture plan in the app (AppTest): a view added with its page, data, threshold, settings
and note; reordered, noted and removed; a plan file read back, a bad one refused in one
sentence with the plan kept; a sample plan played in presentation mode, where the bar's next
button walks the plan and names "View 2 of 4" and the note; a plan's link opens it."""

from __future__ import annotations

from streamlit.testing.v1 import AppTest

from tests.apptest_utils import APP, open_page
from ui.frame import plan_panel
from ui.teaching import lecture_plan as lp


def _plan(at) -> lp.Plan:
    return at.session_state[plan_panel.PLAN]


def test_add_a_view_then_edit_reorder_and_remove():
    at = open_page("pages/threshold.py", dataset="breast_cancer")
    at.segmented_control(key="threshold_mode").set_value("top %").run()
    at.text_input(key="plan_new_note").input("Flag the top tenth").run()
    at.button(key="plan_add").click().run()
    assert not at.exception
    (view,) = _plan(at).views
    assert view.page == ""  # the Threshold page, the app's first
    assert view.link["dataset"] == "breast_cancer"
    assert view.link["model"] == "logistic_regression"
    assert view.settings["threshold_mode"] == "top %"
    assert view.note == "Flag the top tenth"
    at.switch_page("pages/gauc.py").run()
    at.button(key="plan_add").click().run()
    assert [v.page for v in _plan(at).views] == ["", "gauc"]
    at.button(key="plan_up_1").click().run()
    assert [v.page for v in _plan(at).views] == ["gauc", ""]
    at.text_input(key="plan_note_0").input("Per-user AUC").run()
    assert _plan(at).views[0].note == "Per-user AUC"
    at.button(key="plan_remove_0").click().run()
    assert [v.note for v in _plan(at).views] == ["Flag the top tenth"]
    assert not at.exception


def test_a_plan_file_is_read_back_and_a_bad_one_is_one_sentence_with_the_plan_kept():
    at = open_page("pages/threshold.py", dataset="breast_cancer")
    at.selectbox(key="plan_sample").set_value("Why GAUC").run()
    at.button(key="plan_load_sample").click().run()
    saved = lp.to_json(_plan(at))
    at.selectbox(key="plan_sample").set_value("Precision, recall and AP in 50 minutes").run()
    at.button(key="plan_load_sample").click().run()
    uploader = at.file_uploader(key="plan_file")
    uploader.set_value(("plan.json", saved.encode(), "application/json")).run()
    assert not at.exception
    assert _plan(at) == lp.SAMPLE_PLANS["Why GAUC"]
    at.file_uploader(key="plan_file").set_value(
        ("other.json", b'{"views": []}', "application/json")
    ).run()
    assert not at.exception
    (error,) = [e.value for e in at.error]
    assert error.startswith("This JSON is not a lecture plan")
    assert "\n" not in error
    assert _plan(at) == lp.SAMPLE_PLANS["Why GAUC"]  # kept


def test_a_sample_plan_plays_with_the_bars_next_view():
    at = open_page("pages/threshold.py", dataset="breast_cancer")
    at.selectbox(key="plan_sample").set_value("Why GAUC").run()
    at.button(key="plan_load_sample").click().run()
    at.button(key="plan_play").click().run()
    assert not at.exception
    assert at.toggle(key="presentation").value
    assert at.session_state[plan_panel.AT] == 0
    assert "View 1 of 4" in " ".join(m.value for m in at.markdown)
    at.button(key="presentation_next").click().run()
    assert not at.exception
    assert at.session_state[plan_panel.AT] == 1
    assert at.session_state["dataset"] == "user_impressions"
    line = " ".join(m.value for m in at.markdown)
    assert "View 2 of 4" in line
    assert "One global ranking" in line
    at.button(key="presentation_exit").click().run()
    assert not at.session_state[plan_panel.PLAYING]


def test_a_plans_link_opens_it():
    at = AppTest.from_file(APP, default_timeout=60)
    at.query_params[plan_panel.QUERY] = lp.to_link(lp.SAMPLE_PLANS["Why GAUC"])
    at.run()
    assert not at.exception
    assert _plan(at) == lp.SAMPLE_PLANS["Why GAUC"]
    assert at.session_state[plan_panel.AT] == 0
    broken = AppTest.from_file(APP, default_timeout=60)
    broken.query_params[plan_panel.QUERY] = "damaged"
    broken.run()
    assert not broken.exception
    assert any("damaged" in e.value for e in broken.error)


def test_a_views_threshold_is_set_on_the_same_table():
    """View 2 of the 50-minute plan raises the threshold to 0.9 on the table view 1 shows."""
    at = open_page("pages/threshold.py", dataset="breast_cancer")
    at.button(key="plan_load_sample").click().run()  # the first sample plan
    at.button(key="plan_play").click().run()
    at.button(key="presentation_next").click().run()
    assert not at.exception
    assert at.session_state[plan_panel.AT] == 1
    assert at.session_state["thresholds"]["logistic_regression"] == 0.9
    assert at.slider(key="threshold_slider").value == 0.9


def test_a_views_toggles_are_kept_and_its_buttons_are_not():
    """A toggle's on or off is a setting the view sets again (Lessons' "Reveal on first
    miss"); a button's value (Lessons' "New example") is not, since none can be set."""
    at = open_page("pages/lessons.py", dataset="breast_cancer")
    at.toggle(key="lessons_reveal_first").set_value(True).run()
    at.button(key="plan_add").click().run()
    assert not at.exception
    (view,) = _plan(at).views
    assert view.settings["lessons_reveal_first"] is True
    assert not {"lessons_new", "lessons_first"} & set(view.settings)
    at.toggle(key="lessons_reveal_first").set_value(False).run()
    at.switch_page("pages/threshold.py").run()
    at.button(key="plan_show_0").click().run()
    assert not at.exception, at.exception
    assert at.session_state["lessons_reveal_first"] is True
    at.switch_page("pages/lessons.py").run()  # as the view's page change lands in a browser
    assert at.toggle(key="lessons_reveal_first").value is True


def test_every_pages_switch_is_one_a_view_keeps():
    """Each st.toggle / st.checkbox the pages draw under a page's key prefix is listed in
    plan_panel.SWITCHES (so a view keeps it), and every listed key is still drawn."""
    import ast
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    prefixes = tuple(f"{url or 'threshold'}_" for url in plan_panel.URL_PATHS)
    found = set()
    for path in [*root.glob("pages/*.py"), *root.glob("ui/**/*.py")]:
        for node in ast.walk(ast.parse(path.read_text())):
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
                continue
            if node.func.attr not in ("toggle", "checkbox"):
                continue
            for kw in node.keywords:
                value = kw.value
                if (
                    kw.arg == "key"
                    and isinstance(value, ast.Constant)
                    and isinstance(value.value, str)
                ) and value.value.startswith(prefixes):
                    found.add(value.value)
    assert found == set(plan_panel.SWITCHES)


def test_a_view_made_on_an_upload_says_to_upload_it_again():
    """An upload cannot travel in a plan: while one plays on other data, the bar says which
    file the view was made on."""
    at = open_page("pages/threshold.py", dataset="breast_cancer")
    view = lp.View("", "Threshold", {}, {}, "The spam filter", "spam_scores.csv")
    at.session_state[plan_panel.PLAN] = lp.Plan("Uploads", (view,))
    at.run()
    at.button(key="plan_play").click().run()
    assert not at.exception, at.exception
    line = " ".join(m.value for m in at.markdown if "View 1 of 1" in m.value)
    assert "The spam filter" in line
    assert "made on the upload spam_scores.csv: upload it again" in line

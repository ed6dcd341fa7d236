"""Presentation mode and the figure format (AppTest on the two functions the sidebar calls)."""

from __future__ import annotations

import json

import pytest
from streamlit.testing.v1 import AppTest

from ui.frame import presentation
from ui.tables.dataset import BUNDLED


def _app():
    import plotly.graph_objects as go
    import streamlit as st

    from ui.frame import presentation
    from ui.views.show import chart

    with st.sidebar:
        presentation.sidebar_controls()
    presentation.apply()
    st.header("Page")
    chart(go.Figure(go.Scatter(x=[0, 1], y=[0, 1])), key="c", name="ROC of model a")


def _config(at) -> dict:
    return json.loads(at.get("plotly_chart")[0].proto.config)


def test_toggle_injects_the_css_and_the_way_back():
    at = AppTest.from_function(_app, default_timeout=30)
    at.run()
    assert not at.exception
    assert not [b for b in at.button if b.key == "presentation_exit"]
    at.toggle(key="presentation").set_value(True).run()
    html = [e.proto.body for e in at.get("html")]
    assert presentation.CSS.strip() in html
    assert 'stSidebar"]' in presentation.CSS
    assert "display: none" in presentation.CSS
    at.button(key="presentation_exit").click().run()
    assert at.toggle(key="presentation").value is False
    assert not at.get("html")


def test_figure_format_sets_the_download():
    at = AppTest.from_function(_app, default_timeout=30)
    at.run()
    options = _config(at)["toImageButtonOptions"]
    assert options == {"format": "png", "filename": "roc-of-model-a", "scale": 2}
    at.segmented_control(key="figure_format").set_value("svg").run()
    assert _config(at)["toImageButtonOptions"]["format"] == "svg"


def test_presentation_mode_enlarges_the_text_inside_charts():
    from streamlit.testing.v1 import AppTest

    from tests.apptest_utils import APP, figures
    from ui.views.show import PRESENTATION_FONT

    at = AppTest.from_file(APP, default_timeout=60)
    at.run()
    assert all(f["layout"]["font"]["size"] != PRESENTATION_FONT for f in figures(at))
    at.toggle(key="presentation").set_value(True).run()
    assert not at.exception
    assert figures(at)
    assert all(f["layout"]["font"]["size"] == PRESENTATION_FONT for f in figures(at))


def test_presentation_grows_the_text_sizes_a_figure_sets_itself_once():
    """Plotly's layout font is a default only: a title, an annotation (an iso-F1 label), an
    axis or a heatmap's text with its own size ignore it, so the mode grows each of them."""
    import plotly.graph_objects as go

    from ui.views.show import PRESENTATION_FONT, finish

    def figure() -> go.Figure:
        fig = go.Figure(go.Heatmap(z=[[1, 2]], text=[["a", "b"]], textfont=dict(size=16)))
        fig.update_layout(font=dict(size=13), title=dict(text="t", font=dict(size=13)))
        fig.add_annotation(x=0, y=0, text="F1=0.2", font=dict(size=10))
        fig.update_xaxes(tickfont=dict(size=12), title=dict(text="x", font=dict(size=13)))
        return fig

    def sizes(fig: go.Figure) -> tuple:
        layout = fig.layout
        return (layout.font.size, layout.title.font.size, layout.annotations[0].font.size,
                layout.xaxis.tickfont.size, layout.xaxis.title.font.size, fig.data[0].textfont.size)  # fmt: skip

    assert sizes(finish(figure(), False)) == (13, 13, 10, 12, 13, 16)
    grown = finish(figure(), True)
    factor = PRESENTATION_FONT / 13
    # and none below the mode's size (an iso-F1 label's 10 grew to 13.8 px only)
    want = (
        PRESENTATION_FONT,
        *(max(round(s * factor, 1), PRESENTATION_FONT) for s in (13, 10, 12, 13, 16)),
    )
    assert sizes(grown) == want
    assert sizes(finish(grown, True)) == want  # done once: a shared figure is not grown again


# --- changing data without leaving the mode, and a reload that keeps it ------------------------


def _presenting(page: str | None = None):
    from tests.apptest_utils import APP

    at = AppTest.from_file(APP, default_timeout=60)
    at.run()
    at.toggle(key="presentation").set_value(True).run()
    if page is not None:
        at.switch_page(page).run()
    assert not at.exception
    return at


def _data_menu(at):
    return next(s for s in at.selectbox if s.key and s.key.startswith("presentation_data_"))


def test_the_bar_changes_the_dataset_without_leaving_the_mode():

    at = _presenting()
    menu = _data_menu(at)
    titles = [spec.title for spec in BUNDLED.values()]
    assert menu.options[: len(titles)] == titles  # the bundled samples, then Your example
    assert "Your example" in menu.options
    assert menu.value == BUNDLED["breast_cancer"].title
    menu.set_value(BUNDLED["user_impressions"].title).run()
    assert not at.exception
    assert at.session_state["dataset"] == "user_impressions"
    assert at.toggle(key="presentation").value  # still presenting
    assert _data_menu(at).value == BUNDLED["user_impressions"].title
    assert at.selectbox(key="model").options == ["model_a", "model_b"]
    _data_menu(at).set_value("Your example").run()
    assert not at.exception
    assert at.session_state["source"] == "Your example"
    assert _data_menu(at).value == "Your example"
    assert at.toggle(key="presentation").value


def test_the_bar_offers_the_last_upload():
    from tests.apptest_utils import upload

    at = _presenting()
    at.toggle(key="presentation").set_value(False).run()
    upload(
        at, "lecture.csv", b"y,model_x\n" + b"".join(b"%d,0.%d\n" % (i % 2, i) for i in range(40))
    )
    at.toggle(key="presentation").set_value(True).run()
    assert _data_menu(at).value == "Upload: lecture.csv"
    _data_menu(at).set_value("Wine: 3 cultivars (multi-class)").run()
    assert at.session_state["dataset"] == "wine_multiclass"
    _data_menu(at).set_value("Upload: lecture.csv").run()  # back to the upload, still kept
    assert not at.exception
    assert at.session_state["source"] == "Upload"
    assert at.selectbox(key="model").value == "model_x"


@pytest.mark.parametrize(
    ("page", "sample", "gone"),
    [("pages/gauc.py", "user_impressions", "needs a user or query id"),
     ("pages/multilabel.py", "digits_multilabel", "one score column per model"),
     ("pages/ranking.py", "query_ranking", None)],
)  # fmt: skip
def test_a_page_that_needs_other_data_opens_the_right_sample_by_itself(page, sample, gone):
    """Presenting on a bundled sample that lacks what the page needs (breast cancer: no
    groups, no classes, no graded relevance), the page opens its own sample on arrival (a
    PageDown from the bar): no notice on the projector, a toast says what changed."""
    at = _presenting(page)
    assert not at.exception
    assert at.session_state["dataset"] == sample
    assert at.toggle(key="presentation").value
    assert not [b for b in at.button if b.key and b.key.startswith("offer_sample_")]
    if gone:
        assert not any(gone in e.value for e in at.info)
    assert any(BUNDLED[sample].title in t.value for t in at.toast)
    assert at.get("plotly_chart")  # the page's charts, not a notice


def test_an_upload_that_lacks_the_layout_keeps_a_one_click_button_in_the_page():
    """The user's own upload is never replaced unasked: the page says what it needs and offers
    the sample in a button in the page (the sidebar is hidden), which opens it in one click."""
    from tests.apptest_utils import upload

    at = _presenting()
    at.toggle(key="presentation").set_value(False).run()
    upload(
        at, "lecture.csv", b"y,model_x\n" + b"".join(b"%d,0.%d\n" % (i % 2, i) for i in range(40))
    )
    at.toggle(key="presentation").set_value(True).run()
    at.switch_page("pages/gauc.py").run()
    assert not at.exception
    assert at.session_state["source"] == "Upload"
    at.button(key="offer_sample_user_impressions").click().run()
    assert not at.exception
    assert at.session_state["dataset"] == "user_impressions"
    assert at.toggle(key="presentation").value


def test_the_mode_is_in_the_url_and_a_reload_keeps_it():
    from tests.apptest_utils import APP

    at = _presenting()
    assert at.query_params.get("present") == "1"
    assert at.query_params.get("dataset") == "breast_cancer"  # beside the view's own link
    again = AppTest.from_file(APP, default_timeout=60)  # a new session on the same URL
    for name, values in at.query_params.items():
        again.query_params[name] = values
    again.run()
    assert not again.exception
    assert again.toggle(key="presentation").value
    assert [b for b in again.button if b.key == "presentation_exit"]
    again.button(key="presentation_exit").click().run()
    assert "present" not in again.query_params


def test_your_example_is_named_once():
    at = _presenting()
    at.toggle(key="presentation").set_value(False).run()
    at.segmented_control(key="source").set_value("Your example").run()
    lines = [c.value for c in at.caption if "table_chart" in c.value]
    assert lines == [":material/table_chart: **Your example**"]

"""Presentation mode and the figure format (AppTest on the two functions the sidebar calls)."""

from __future__ import annotations

import json

from streamlit.testing.v1 import AppTest

from ui import presentation


def _app():
    import plotly.graph_objects as go
    import streamlit as st

    from ui import presentation
    from ui.show import chart

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
    from ui.show import PRESENTATION_FONT

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

    from ui.show import PRESENTATION_FONT, finish

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
    want = (PRESENTATION_FONT, *(round(s * factor, 1) for s in (13, 10, 12, 13, 16)))
    assert sizes(grown) == want
    assert sizes(finish(grown, True)) == want  # done once: a shared figure is not grown again

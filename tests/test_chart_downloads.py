"""Every chart on every page downloads as PNG or SVG, under a meaningful file name."""

from __future__ import annotations

import json

import pytest

from tests.apptest_utils import open_page

PAGES = [
    ("pages/threshold.py", None),
    ("pages/curves.py", None),
    ("pages/compare.py", None),
    ("pages/ap_lab.py", None),
    ("pages/auc_lab.py", None),
    ("pages/step_through.py", None),
    ("pages/gauc.py", "user_impressions"),
    ("pages/ranking.py", "query_ranking"),
    ("pages/multilabel.py", "digits_multilabel"),
    ("pages/multilabel.py", "wine_multiclass"),
]


def _configs(at) -> list[dict]:
    return [json.loads(c.proto.config) for c in at.get("plotly_chart")]


@pytest.mark.parametrize(("page", "dataset"), PAGES)
def test_every_chart_has_a_named_download_in_the_chosen_format(page, dataset):
    at = open_page(page, dataset)
    configs = _configs(at)
    assert configs, page
    for config in configs:
        options = config["toImageButtonOptions"]
        assert options["format"] == "png"
        assert options["filename"]
        assert options["filename"] != "chart"
    at.segmented_control(key="figure_format").set_value("svg").run()
    assert not at.exception
    assert {c["toImageButtonOptions"]["format"] for c in _configs(at)} == {"svg"}


# --- slide-ready exports: the title each image gets, the page script ---------------------------


def test_export_titles_read_as_the_chart_names():
    from ui.views.show import export_title

    assert export_title("roc-curves") == "ROC curves"
    assert export_title("precision-recall-curves") == "Precision-recall curves"
    assert export_title("confusion-matrix-model_a") == "Confusion matrix model_a"
    assert export_title("ks") == "KS"
    assert export_title("critical-difference") == "Critical difference"


def test_a_chart_carries_its_export_title_and_keeps_its_own():
    import plotly.graph_objects as go

    from ui.views.show import label

    plain = go.Figure(go.Scatter(x=[0, 1], y=[0, 1]))
    assert label(plain, "ROC curves").layout.meta == {"export_title": "ROC curves"}
    titled = go.Figure(layout=dict(title="ROC · AUC 0.9"))
    assert label(titled, "ROC curves").layout.meta is None  # its own title is the export's
    templated = go.Figure(layout=dict(meta=[3.5]))  # meta used by the figure's own text
    assert label(templated, "x").layout.meta == (3.5,)
    shared = label(go.Figure(), "Rates")
    before = shared.layout.meta
    label(shared, "Rates")
    assert shared.layout.meta is before  # labelled already: only read (shared figures)


def test_the_page_chart_export_script_survives_streamlits_sanitizer():
    """DOMPurify drops a <script> whose text has "<" before a letter, "/" or "!" (it did:
    the first version's "<br>" left the page without the script)."""
    import re

    from ui.views.show import _SCRIPT, _downloads_html

    assert not re.search(r"<[/\w!]", _SCRIPT.read_text())
    html = _downloads_html()
    assert html.count("<script>") == 1
    assert 'class="ml-zip-button"' in html
    assert "@media (hover: none)" in html  # the touch screen's buttons, no toolbar


def test_the_download_all_button_runs_its_script_in_the_page():
    from streamlit.testing.v1 import AppTest

    def app():
        from ui.views import show

        show.download_all_button()

    at = AppTest.from_function(app, default_timeout=30).run()
    assert not at.exception
    (html,) = at.get("html")
    assert html.proto.unsafe_allow_javascript
    assert "Download every chart (zip)" in html.proto.body


def test_titled_figures_get_a_vertical_toolbar_and_the_charts_font():
    import plotly.graph_objects as go

    from ui.views.show import CHART_FONT, finish

    titled = finish(go.Figure(layout=dict(title="ROC · AUC 0.9")), presentation=False)
    assert titled.layout.modebar.orientation == "v"  # off the title line, top left
    assert titled.layout.title.font.family == CHART_FONT  # not the theme's web font
    assert finish(go.Figure(), presentation=False).layout.modebar.orientation is None

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

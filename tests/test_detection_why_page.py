"""The Detection page's "Why the numbers differ" section (AppTest) and its figures and words.

On the page's seeded example the waterfall starts at detection_ap's mAP under the first
convention and ends at the second's, its steps are convention_effects' differences, and the
TIDE table is tide_errors' on the same boxes.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

from metrics.detection import (
    RULES,
    coco_evaluate,
    convention_effects,
    detection_ap,
    load_detections,
    load_ground_truth,
    synthetic_coco,
    tide_errors,
)
from tests.apptest_utils import open_page
from ui.figures.detection_why_charts import convention_waterfall_figure, tide_figure
from ui.words.detection_why_text import points, rule_sentence

PAGE = "pages/detection.py"


@pytest.fixture(scope="module")
def example():
    gt, dt = synthetic_coco(n_images=80, n_cats=8, dets_per_image=40, seed=7)
    g = load_ground_truth(gt)
    return g, load_detections(dt, g)


def _waterfall(at):
    for c in at.get("plotly_chart"):
        spec = json.loads(c.proto.spec)
        if spec["data"] and spec["data"][0]["type"] == "waterfall":
            return spec["data"][0]
    raise AssertionError("no waterfall on the page")


def test_the_section_walks_from_one_convention_to_the_other(example):
    g, d = example
    at = open_page(PAGE)
    assert "Why the numbers differ" in [s.value for s in at.subheader]
    w = _waterfall(at)
    start, end = (detection_ap(g, d, convention=c).mean() for c in ("coco", "voc07"))
    assert w["y"][0] == pytest.approx(100 * start, abs=1e-9)
    assert w["y"][-1] == pytest.approx(100 * end, abs=1e-9)
    assert sum(w["y"][1:-1]) == pytest.approx(100 * (end - start), abs=1e-9)
    walk = convention_effects(g, d, from_="coco", to="voc07")
    sentences = [m.value for m in at.markdown if m.value.startswith("- **")]
    assert len(sentences) == 1
    assert sentences[0].count("\n- ") == int((walk.setting_from != walk.setting_to).sum()) - 1
    assert "AP points" in sentences[0]
    tide = tide_errors(g, d)
    shown = [f for f in at.dataframe if "dAP (AP points)" in f.value.columns]
    assert len(shown) == 1
    assert shown[0].value["count"].tolist() == tide.table["count"].tolist()

    at.selectbox(key="detection_why_to").set_value("ultralytics").run()
    assert not at.exception, at.exception
    end = detection_ap(g, d, convention="ultralytics").mean()
    assert _waterfall(at)["y"][-1] == pytest.approx(100 * end, abs=1e-9)
    at.checkbox(key="detection_why_range").check().run()
    assert not at.exception, at.exception
    w = _waterfall(at)
    assert w["y"][0] == pytest.approx(100 * coco_evaluate(g, d).stats[0], abs=1e-9)
    assert any("IoU 0.5:0.95 (the mean of ten thresholds)" in m.value for m in at.markdown)
    at.selectbox(key="detection_why_to").set_value("coco").run()
    assert "Pick two different conventions" in at.info[-1].value


def test_figures_and_words(example):
    g, d = example
    walk = convention_effects(g, d, from_="coco", to="voc12")
    fig = convention_waterfall_figure(walk, from_label="COCO", to_label="VOC 2012")
    tr = fig.data[0]
    assert list(tr.measure) == ["absolute", *["relative"] * len(RULES), "total"]
    assert tr.x[0] == "COCO"
    assert tr.x[-1] == "VOC 2012"
    np.testing.assert_allclose(np.sum(tr.y[:-1]), tr.y[-1], atol=1e-9)
    table = tide_errors(g, d).table
    bars = tide_figure(table).data[0]
    assert len(bars.y) == len(table) == 8
    assert bars.y[-1] == table["label"].iloc[0]  # TIDE's first type on top
    assert points(0.41234) == "41.23"
    assert points(-0.00001, plus=True) == "+0.00"
    assert points(-0.0123, plus=True) == "−1.23"
    assert points(float("nan")) == "n/a"
    row = walk.set_index("rule").loc["interpolation"].to_dict()
    row["largest_category"] = "a *bold* name"
    text = rule_sentence(row)
    assert text.startswith("**interpolation** (101 recall points \\(COCO\\) → every recall step")
    assert "a \\*bold\\* name" in text  # a user's category name cannot format the page

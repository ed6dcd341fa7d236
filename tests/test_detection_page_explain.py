"""The Detection page's image section, its greedy-match lesson and the detectors compared
(AppTest): what the page draws and counts is the library's match_image / coco_evaluate /
compare_detector_set on the same boxes; a second detection file turns the comparison on; a bad
one is a sentence naming the file, with the page above kept."""

from __future__ import annotations

import json
import re

import numpy as np
import pytest

from metrics.detection import (
    OUTCOMES,
    coco_evaluate,
    compare_detector_set,
    image_costs,
    load_detections,
    load_ground_truth,
    match_image,
    synthetic_coco,
    synthetic_detector_variant,
)
from tests.apptest_utils import decode_arrays, open_page

PAGE = "pages/detection.py"


@pytest.fixture(scope="module")
def page():
    return open_page(PAGE)


@pytest.fixture(scope="module")
def example():
    gt, dt = synthetic_coco(n_images=80, n_cats=8, dets_per_image=40, seed=7)
    g = load_ground_truth(gt)
    return gt, dt, g, load_detections(dt, g)


def _figure(at, title_part: str) -> dict:
    for c in at.get("plotly_chart"):
        spec = json.loads(c.proto.spec)
        if title_part in spec["layout"].get("title", {}).get("text", ""):
            return decode_arrays(spec)
    raise AssertionError(f"no chart titled with {title_part!r}")


def _legend_counts(fig: dict) -> dict[str, int]:
    found = (re.fullmatch(r"(.*) \((\d+)\)", t["name"]) for t in fig["data"])
    return {m.group(1): int(m.group(2)) for m in found}


def _table(at, column: str):
    return next(d.value for d in at.dataframe if column in d.value.columns)


def _plain(text: str) -> str:
    return text.replace("\\", "")


def _check_drawing(at, g, d, image, **kw):
    m = match_image(g, d, image, **kw)
    fig = _figure(at, f"Image {image}")
    counts = _legend_counts(fig)
    want = {OUTCOMES[k]: v for k, v in m.counts().items() if v}
    assert {k: v for k, v in counts.items() if not k.startswith("ground truth")} == want
    assert counts.get("ground truth: missed", 0) == int((m.gt_outcome == "missed").sum())
    # one shape a box, on an axis in image coordinates with y growing downwards
    assert len(fig["layout"]["shapes"]) == m.det_rows.size + m.gt_rows.size
    assert fig["layout"]["yaxis"]["range"][0] > fig["layout"]["yaxis"]["range"][1]
    tp = next(t for t in fig["data"] if t["name"].startswith("true positive"))
    assert re.search(r"score [\d.]+ · true positive<br>IoU [\d.]+ with annotation", tp["text"][0])
    return m


def test_the_costliest_image_its_lesson_and_the_threshold_slider(page, example):
    at = page
    _, _, g, d = example
    costs = image_costs(g, d)
    assert at.selectbox(key="detection_image").value == costs.worst
    image = int(g.image_ids[costs.worst])
    m = _check_drawing(at, g, d, image)
    # the lesson: the last step's running counts are the category's outcomes in the library
    category = at.selectbox(key="detection_greedy_category").value
    mine = m.outcome[m.category == category]
    at.number_input(key="detection_greedy_step").set_value(mine.size).run()
    assert not at.exception, at.exception
    said = next(c.value for c in at.markdown if c.value.startswith(f"**Step {mine.size} of "))
    tp, fp = int((mine == "tp").sum()), int(np.isin(mine, ("fp", "duplicate")).sum())
    assert f"TP {tp}, FP {fp}" in said
    assert at.button(key="detection_greedy_next").disabled
    table = next(h.proto.body for h in at.get("html") if "greedy-steps" in h.proto.body)
    assert table.count("<tr") == min(mine.size + 1, 12) + 1  # the head and a window of steps
    # another image, and the slider re-runs the match: COCO at 0.8, then VOC's rule at 0.5
    other = 2 if costs.worst != 2 else 3  # (not the uploads' costliest, see the last test)
    image = int(g.image_ids[other])
    at.selectbox(key="detection_image").set_value(other)
    at.select_slider(key="detection_image_iou").set_value(0.8).run()
    _check_drawing(at, g, d, image, iou_threshold=0.8)
    at.select_slider(key="detection_image_iou").set_value("VOC 0.5").run()
    assert not at.exception, at.exception
    _check_drawing(at, g, d, image, convention="voc")


def test_the_example_detectors_compared_and_the_family_redeclared(page, example):
    at = page
    _, dt, g, d = example
    variant = load_detections(
        synthetic_detector_variant(dt, seed=8, shift=0.03, drop=0.05, rescore=0.1), g
    )
    base, cand = coco_evaluate(g, d), coco_evaluate(g, variant)
    shown = {m.label: m.value for m in at.metric}
    assert shown["mAP synthetic detector"] == f"{base.stats[0]:.4f}"
    assert shown["mAP its variant"] == f"{cand.stats[0]:.4f}"
    assert shown["Difference"] == f"{cand.stats[0] - base.stats[0]:+.4f}"
    classes = _table(at, "role")
    diff = (cand.per_class["ap"] - base.per_class["ap"]).to_numpy()
    by_id = dict(zip(base.per_class["category_id"], diff, strict=True))
    want = [by_id[c] for c in classes["category_id"]]
    np.testing.assert_allclose(classes["difference"], want, rtol=1e-12)
    assert (np.diff(np.abs(classes["difference"])) <= 0).all()  # the largest first
    assert set(classes["role"]) == {"exploratory"}
    assert "Primary metric COCO mAP" in _plain("\n".join(c.value for c in at.caption))
    at.radio(key="detection_cmp_family").set_value("all").run()
    assert set(_table(at, "role")["role"]) == {"family"}
    assert "Holm across 9 metrics × 1 pair" in _plain("\n".join(c.value for c in at.caption))
    images = _table(at, "influence")
    assert len(images) == 10


def test_uploaded_detectors_are_compared_and_a_bad_one_is_a_sentence(page):
    at = page
    gt, dt = synthetic_coco(n_images=12, n_cats=3, dets_per_image=15, seed=4)
    other = synthetic_detector_variant(dt, seed=5)
    at.file_uploader(key="detection_gt").set_value(
        ("gt.json", json.dumps(gt).encode(), "application/json")
    )
    at.file_uploader(key="detection_det").set_value(
        [("one.json", json.dumps(dt).encode(), "application/json")]
    ).run()
    assert not at.exception, at.exception
    assert any("Load two or more detection files" in i.value for i in at.info)
    files = [("one.json", dt), ("two.json", other)]
    at.file_uploader(key="detection_det").set_value(
        [(n, json.dumps(x).encode(), "application/json") for n, x in files]
    ).run()
    assert not at.exception, at.exception
    # new boxes start at their own costliest image, not at the position picked before
    g2 = load_ground_truth(gt)
    worst = image_costs(g2, load_detections(dt, g2)).worst
    assert worst not in (2, 3)
    assert at.selectbox(key="detection_image").value == worst
    comp = compare_detector_set(gt, dict(files), n_resamples=200)
    shown = {m.label: m.value for m in at.metric}
    assert shown["mAP two.json"] == f"{comp.map[1]:.4f}"
    row = comp.pair("two.json", "one.json").iloc[0]
    low, high = sorted((abs(row["ci_low"]), abs(row["ci_high"])))  # said from the better one
    assert f"[{low:.3f}, {high:.3f}]" in _plain("\n".join(m.value for m in at.markdown))
    bad = [{**other[0], "category_id": 999}, *other[1:]]
    at.file_uploader(key="detection_det").set_value(
        [(n, json.dumps(x).encode(), "application/json") for n, x in (files[0], ("bad.json", bad))]
    ).run()
    assert not at.exception, at.exception
    assert "bad.json: 1 unknown category (999)" in _plain(at.error[0].value)
    assert at.get("plotly_chart")  # the page above the comparison is kept

"""metrics-lens detection --why: the walk between two conventions and TIDE's breakdown, as
text and as the JSON's "why" member; the same numbers as the library."""

from __future__ import annotations

import json

import pytest

from metrics.detection import (
    RULES,
    coco_evaluate,
    convention_effects,
    detection_ap,
    synthetic_coco,
    tide_errors,
)
from metrics_lens.cli import main


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    path = tmp_path_factory.mktemp("why")
    gt, dt = synthetic_coco(n_images=12, n_cats=4, dets_per_image=30, seed=5)
    (path / "gt.json").write_text(json.dumps(gt))
    (path / "dt.json").write_text(json.dumps(dt))
    return path, gt, dt


def test_json_why_is_the_library_walk_and_tide(files, capsys):
    path, gt, dt = files
    args = ["detection", str(path / "gt.json"), str(path / "dt.json"), "--why", "--json"]
    assert main([*args, "--to", "ultralytics", "--iou", "0.75"]) == 0
    why = json.loads(capsys.readouterr().out)["why"]
    assert (why["from"], why["to"], why["order"]) == ("coco", "ultralytics", list(RULES))
    start = detection_ap(gt, dt, convention="coco", iou_threshold=0.75).mean()
    end = detection_ap(gt, dt, convention="ultralytics", iou_threshold=0.75).mean()
    assert why["map_from"] == pytest.approx(start, abs=1e-12)
    assert why["map_to"] == pytest.approx(end, abs=1e-12)
    walk = convention_effects(gt, dt, from_="coco", to="ultralytics", iou_threshold=0.75)
    assert [s["change"] for s in why["steps"]] == walk["change"].tolist()
    assert [s["difference"] for s in why["steps"]] == pytest.approx(walk["difference"].tolist())
    tide = tide_errors(gt, dt)
    assert [e["count"] for e in why["tide"]["errors"]] == tide.table["count"].tolist()
    assert why["tide"]["ap"] == pytest.approx(tide.ap)


def test_text_names_each_rule_and_bad_input_is_one_line(files, capsys):
    path, gt, dt = files
    args = ["detection", str(path / "gt.json"), str(path / "dt.json")]
    assert main([*args, "--why"]) == 0
    out = capsys.readouterr().out
    assert "Why the numbers differ: coco mAP@0.5" in out
    assert "8. interpolation (101 recall points (COCO) -> 11 recall points (VOC 2007))" in out
    assert "Dupe: a second detection of a matched object" in out
    assert main([*args]) == 0
    assert "Why the numbers differ" not in capsys.readouterr().out
    assert main([*args, "--why", "--why-range", "--json"]) == 0
    why = json.loads(capsys.readouterr().out)["why"]
    assert why["iou_threshold"] == "0.5:0.95"
    assert why["map_from"] == pytest.approx(coco_evaluate(gt, dt).stats[0], abs=1e-12)
    with pytest.raises(SystemExit) as exc:
        main([*args, "--why", "--to", "yolo"])
    assert exc.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1
    assert "invalid choice: 'yolo'" in err[0]

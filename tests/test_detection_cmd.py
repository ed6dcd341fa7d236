"""metrics-lens detection / check --gt: pycocotools' printout, JSON stats, the image gate."""

from __future__ import annotations

import contextlib
import copy
import io
import json

import numpy as np
import pytest

from metrics.detection import coco_evaluate, compare_detectors, load_detections, load_ground_truth
from metrics.detection.coco import _accumulate, coco_match
from metrics_lens.cli import main

pytest.importorskip("pycocotools")
from pycocotools.coco import COCO
from pycocotools.cocoeval import COCOeval


def _data(seed=3):
    """A small COCO-shaped set from the bench's generator (crowds, area spread, ties)."""
    from metrics.detection.synthetic import synthetic_coco

    return synthetic_coco(n_images=12, n_cats=6, dets_per_image=30, seed=seed)


def _pycocotools(gt, dt):
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        cg = COCO()
        cg.dataset = copy.deepcopy(gt)
        cg.createIndex()
        ev = COCOeval(cg, cg.loadRes(copy.deepcopy(dt)), "bbox")
        ev.evaluate()
        ev.accumulate()
        start = out.tell()
        ev.summarize()
    return ev, out.getvalue()[start:]


@pytest.fixture
def files(tmp_path):
    gt, dt = _data()
    (tmp_path / "gt.json").write_text(json.dumps(gt))
    (tmp_path / "dt.json").write_text(json.dumps(dt))
    worse = [{**d, "bbox": [d["bbox"][0] + 0.6 * d["bbox"][2], *d["bbox"][1:]]} for d in dt]
    (tmp_path / "worse.json").write_text(json.dumps(worse))
    return tmp_path, gt, dt


def test_detection_prints_what_pycocotools_prints(files, capsys):
    path, gt, dt = files
    _, printed = _pycocotools(gt, dt)
    assert main(["detection", str(path / "gt.json"), str(path / "dt.json")]) == 0
    assert capsys.readouterr().out.strip("\n") == printed.strip("\n")


def test_detection_json_has_the_stats_and_every_convention(files, capsys):
    path, gt, dt = files
    ev, _ = _pycocotools(gt, dt)
    code = main(
        ["detection", str(path / "gt.json"), str(path / "dt.json"), "--json", "--convention", "all"]
    )
    assert code == 0
    out = json.loads(capsys.readouterr().out)
    np.testing.assert_allclose(out["stats"], ev.stats, atol=1e-9)
    assert set(out["conventions"]) == {"coco", "voc07", "voc12", "ultralytics"}


def test_bad_files_exit_2_with_one_line(files, capsys):
    path, _gt, dt = files
    bad = copy.deepcopy(dt)
    bad[0]["image_id"] = 999_999
    (path / "bad.json").write_text(json.dumps(bad))
    assert main(["detection", str(path / "gt.json"), str(path / "bad.json")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1
    assert "unknown image id (999999) not in the ground truth" in err[0]
    assert (
        main(
            [
                "check",
                "--gt",
                str(path / "gt.json"),
                str(path / "dt.json"),
                str(path / "nope.json"),
                "--metric",
                "coco_map",
            ]
        )
        == 2
    )


def test_check_gate_passes_equal_detectors_and_fails_a_worse_one(files, capsys):
    path, _, _ = files
    gt, dt, worse = (str(path / n) for n in ("gt.json", "dt.json", "worse.json"))
    assert main(["check", "--gt", gt, dt, dt, "--metric", "coco_map", "--resamples", "100"]) == 0
    capsys.readouterr()
    code = main(
        ["check", "--gt", gt, dt, worse, "--metric", "coco_map", "--resamples", "100", "--json"]
    )
    out = json.loads(capsys.readouterr().out)
    assert code == 1
    assert out["exit_code"] == 1
    assert out["metrics"][0]["upper"] < 0


def test_image_counts_equal_pycocotools_on_the_repeated_images():
    # A resample repeats images; with distinct scores that equals pycocotools on a dataset
    # where each image is copied count times (new ids, adjacent so the tie order agrees).
    gt, dt = _data()
    rng = np.random.default_rng(0)
    for d in dt:
        d["score"] = float(rng.random())
    counts = rng.integers(0, 4, len(gt["images"]))
    counts[:2] = (0, 2)  # an image dropped, one repeated
    ids = sorted(im["id"] for im in gt["images"])
    copies = {i: c for i, c in zip(ids, counts[np.argsort(np.argsort(ids))], strict=True)}
    big_gt = {"categories": gt["categories"], "images": [], "annotations": []}
    big_dt = []
    for i in ids:
        for c in range(copies[i]):
            new = i * 10 + c
            big_gt["images"].append({"id": new})
            for a in gt["annotations"]:
                if a["image_id"] == i:
                    big_gt["annotations"].append(
                        {**a, "image_id": new, "id": len(big_gt["annotations"]) + 1}
                    )
            big_dt += [{**d, "image_id": new} for d in dt if d["image_id"] == i]
    ev, _ = _pycocotools(big_gt, big_dt)
    g = load_ground_truth(gt)
    d = load_detections(dt, g)
    image_counts = np.array([copies[i] for i in g.image_ids])
    precision, _, _ = _accumulate(g, d, coco_match(g, d), image_counts=image_counts)
    np.testing.assert_allclose(precision, ev.eval["precision"], atol=1e-12)


def test_compare_detectors_estimates_are_the_coco_stats():
    gt, dt = _data()
    comp = compare_detectors(gt, dt, dt, n_resamples=100, seed=1)
    assert comp.baseline == pytest.approx(coco_evaluate(gt, dt).stats[0], abs=1e-12)
    assert comp.bounds(0.05) == (0.0, 0.0)

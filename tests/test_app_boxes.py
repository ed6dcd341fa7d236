"""``metrics-lens app --gt GT DET...``: the boxes read once by the command (a bad file is exit 2
in one line), then the dashboard on the Detection page with them, its 12 numbers those of
coco_evaluate on the same files; the second detection file is compared with the first."""

from __future__ import annotations

import json

import numpy as np
import pytest

from metrics.detection import coco_evaluate, synthetic_coco, synthetic_detector_variant
from tests.apptest_utils import app_command, open_page


def _files(tmp_path):
    gt, dt = synthetic_coco(n_images=12, n_cats=3, dets_per_image=10, seed=4)
    other = synthetic_detector_variant(dt, seed=5)
    paths = []
    for name, data in (("gt.json", gt), ("baseline.json", dt), ("candidate.json", other)):
        path = tmp_path / name
        path.write_text(json.dumps(data))
        paths.append(path)
    return paths


def test_app_gt_opens_the_detection_page_on_the_given_boxes(tmp_path, monkeypatch, capsys):
    gt_path, base_path, cand_path = _files(tmp_path)

    def opened(env, url):
        assert url.endswith("/detection"), url
        for key, value in env.items():
            if key.startswith("METRICS_LENS"):
                monkeypatch.setenv(key, value)
        at = open_page("pages/detection.py")
        assert not at.exception, at.exception
        return at

    code, at = app_command(
        monkeypatch, ["--gt", str(gt_path), str(base_path), str(cand_path), "--no-browser"], opened
    )
    assert code == 0, capsys.readouterr()
    text = "\n".join(m.value for m in at.markdown)
    assert "gt.json and baseline.json" in text
    stats = at.dataframe[0].value["value"].to_numpy()  # the first table: the 12 numbers
    np.testing.assert_allclose(stats, coco_evaluate(str(gt_path), str(base_path)).stats)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--gt", "{gt}"], "needs one or more detection files"),
        (["--gt", "{gt}", "{bad}"], "bad.json"),
        (["--gt", "{gt}", "{base}", "--label", "y"], "--label name columns of a score table"),
        (["--gt", "{gt}", "{base}", "--qrels", "{base}"], "not both"),
    ],
)
def test_bad_boxes_are_one_line_and_exit_2(tmp_path, capsys, args, message):
    from metrics_lens import cli

    gt_path, base_path, _ = _files(tmp_path)
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps([{"image_id": 999, "category_id": 1, "bbox": [0, 0, 1, 1],
                                "score": 0.5}]))  # fmt: skip
    names = {"gt": gt_path, "base": base_path, "bad": bad}
    code = cli.main(["app", *(a.format(**names) for a in args), "--no-browser"])
    err = capsys.readouterr().err
    assert code == 2
    assert message in err
    assert "Traceback" not in err

"""Every door into metrics.detection gives the same numbers, and a bad file says what is wrong."""

from __future__ import annotations

import io
import json
import zipfile

import numpy as np
import pandas as pd
import pytest

from metrics.detection import coco_evaluate, detection_ap, load_detections, load_ground_truth

GT = {
    "images": [{"id": 1, "width": 200, "height": 100}, {"id": 2, "width": 100, "height": 100}],
    "categories": [{"id": 1, "name": "cat"}, {"id": 3, "name": "dog"}],
    "annotations": [
        {"id": 1, "image_id": 1, "category_id": 1, "bbox": [10, 10, 40, 20], "iscrowd": 0},
        {"id": 2, "image_id": 1, "category_id": 3, "bbox": [100, 20, 80, 60], "iscrowd": 0},
        {"id": 3, "image_id": 2, "category_id": 1, "bbox": [0, 0, 10, 10], "iscrowd": 0},
    ],
}
DT = [
    {"image_id": 1, "category_id": 1, "bbox": [12, 10, 40, 20], "score": 0.9},
    {"image_id": 1, "category_id": 3, "bbox": [100, 25, 80, 60], "score": 0.8},
    {"image_id": 2, "category_id": 1, "bbox": [50, 50, 10, 10], "score": 0.7},
    {"image_id": 2, "category_id": 3, "bbox": [0, 0, 10, 10], "score": 0.6},
]


def _tables():
    gt = pd.DataFrame(
        [
            {
                "image_id": a["image_id"],
                "category": {1: "cat", 3: "dog"}[a["category_id"]],
                "x": a["bbox"][0],
                "y": a["bbox"][1],
                "w": a["bbox"][2],
                "h": a["bbox"][3],
            }
            for a in GT["annotations"]
        ]
    )
    dt = pd.DataFrame(
        [
            {
                "image_id": d["image_id"],
                "category": {1: "cat", 3: "dog"}[d["category_id"]],
                "x": d["bbox"][0],
                "y": d["bbox"][1],
                "w": d["bbox"][2],
                "h": d["bbox"][3],
                "score": d["score"],
            }
            for d in DT
        ]
    )
    return gt, dt


def _yolo_zip(rows_by_image: dict[str, list[str]], extra: dict[str, str] | None = None) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        for stem, rows in rows_by_image.items():
            zf.writestr(f"labels/{stem}.txt", "\n".join(rows) + "\n")
        for name, text in (extra or {}).items():
            zf.writestr(name, text)
    return buf.getvalue()


def _yolo_line(box, size, cls, score=None):
    (x, y, w, h), (W, H) = box, size
    vals = [cls, (x + w / 2) / W, (y + h / 2) / H, w / W, h / H]
    if score is not None:
        vals.append(score)
    return " ".join(repr(float(v)) if i else str(v) for i, v in enumerate(vals))


def test_table_and_coco_json_give_the_same_stats(tmp_path):
    gt_t, dt_t = _tables()
    gt_t.to_csv(tmp_path / "gt.csv", index=False)
    dt_t.to_parquet(tmp_path / "dt.parquet")
    (tmp_path / "gt.json").write_text(json.dumps(GT))
    (tmp_path / "dt.json").write_text(json.dumps(DT))
    from_json = coco_evaluate(tmp_path / "gt.json", tmp_path / "dt.json")
    from_tables = coco_evaluate(tmp_path / "gt.csv", tmp_path / "dt.parquet")
    np.testing.assert_array_equal(from_json.stats, from_tables.stats)
    assert from_tables.per_class["name"].tolist() == ["cat", "dog"]


def test_yolo_zip_with_sizes_equals_pixels_and_without_sizes_says_areas_are_unavailable(tmp_path):
    sizes = {1: (200, 100), 2: (100, 100)}
    anns = {str(i): [] for i in sizes}
    for a in GT["annotations"]:
        anns[str(a["image_id"])].append(
            _yolo_line(a["bbox"], sizes[a["image_id"]], [1, 3].index(a["category_id"]))
        )
    dets = {str(i): [] for i in sizes}
    for d in DT:
        dets[str(d["image_id"])].append(
            _yolo_line(d["bbox"], sizes[d["image_id"]], [1, 3].index(d["category_id"]), d["score"])
        )
    (tmp_path / "gt.zip").write_bytes(_yolo_zip(anns, {"classes.txt": "cat\ndog\n"}))
    (tmp_path / "dt.zip").write_bytes(_yolo_zip(dets))
    (tmp_path / "sizes.csv").write_text("image,width,height\n1.jpg,200,100\n2.jpg,100,100\n")
    gt = load_ground_truth(tmp_path / "gt.zip", image_sizes=tmp_path / "sizes.csv")
    assert gt.category_names == ("cat", "dog")
    ours = coco_evaluate(gt, load_detections(tmp_path / "dt.zip", gt))
    np.testing.assert_allclose(ours.stats, coco_evaluate(GT, DT).stats, atol=1e-12)

    plain = load_ground_truth(tmp_path / "gt.zip")
    res = coco_evaluate(plain, load_detections(tmp_path / "dt.zip", plain))
    assert np.isnan(res.stats[[3, 4, 5, 9, 10, 11]]).all()
    assert "area ranges (small, medium, large) are unavailable" in res.notes[0]
    # IoU does not change under scaling each axis, so AP over all areas is the same
    np.testing.assert_allclose(res.stats[[0, 1, 2, 6, 7, 8]], ours.stats[[0, 1, 2, 6, 7, 8]])


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda g, d: g["annotations"][0].update(bbox=[0, 0, 5, -2]), "negative height"),
        (lambda g, d: d[0].update(category_id=9), r"unknown category \(9\)"),
        (lambda g, d: d[0].update(image_id=42), r"unknown image id \(42\) not in the ground truth"),
        (lambda g, d: g["annotations"][0].update(image_id=5), r"unknown image id \(5\)"),
        (lambda g, d: d[0].update(score=None), "numeric score|missing or infinite score"),
        (lambda g, d: d[0].pop("bbox"), "has no 'bbox'"),
        (lambda g, d: g["annotations"][0].update(bbox=[1, 2, 3]), r"a bbox is \[x, y, width"),
    ],
)
def test_bad_coco_files_are_named_by_what_is_wrong(change, message):
    g, d = json.loads(json.dumps(GT)), json.loads(json.dumps(DT))
    change(g, d)
    with pytest.raises(ValueError, match=message):
        coco_evaluate(g, d)


def test_bad_tables_and_zips(tmp_path):
    gt_t, dt_t = _tables()
    dt_t.loc[1, "category"] = "horse"
    with pytest.raises(ValueError, match=r"unknown category \('horse'\)"):
        detection_ap(gt_t, dt_t, convention="voc12")
    with pytest.raises(ValueError, match="has no 'score' column"):
        coco_evaluate(gt_t, dt_t.drop(columns="score"))
    (tmp_path / "bad.zip").write_bytes(_yolo_zip({"a": ["0 0.5 0.5 0.1"]}))
    with pytest.raises(
        ValueError, match=r"a.txt line 1 has 4 values; YOLO labels are 'class cx cy"
    ):
        load_ground_truth(tmp_path / "bad.zip")
    (tmp_path / "ok.zip").write_bytes(_yolo_zip({"a": ["0 0.5 0.5 0.1 0.1"], "b": []}))
    with pytest.raises(ValueError, match=r"no image size for 1 image \(b\)"):
        load_ground_truth(tmp_path / "ok.zip", image_sizes={"a": (10, 10)})
    (tmp_path / "not.zip").write_text("hello")
    with pytest.raises(ValueError, match="is not a zip file"):
        load_ground_truth(tmp_path / "not.zip")
    (tmp_path / "broken.json").write_text("{")
    with pytest.raises(ValueError, match="is not valid JSON"):
        load_ground_truth(tmp_path / "broken.json")


def test_several_unknown_categories_read_as_english():
    d = json.loads(json.dumps(DT))
    d[0]["category_id"], d[1]["category_id"] = 8, 9
    with pytest.raises(ValueError, match=r"2 unknown categories \(8, 9\)"):
        coco_evaluate(GT, d)
    d[1]["image_id"], d[2]["image_id"] = 11, 12
    with pytest.raises(ValueError, match=r"2 unknown image ids \(11, 12\)"):
        coco_evaluate(GT, d)


def test_results_as_pycocotools_loadres_leaves_them_read_alike(tmp_path):
    """A results file written from pycocotools itself (``COCO.loadRes`` then its ``dataset``
    dumped: a dict with images, annotations holding area and id, and categories) gives the
    same 12 numbers as the plain results list; ids typed apart ("1" against 1) are named."""
    import contextlib

    from pycocotools.coco import COCO

    gt_path = tmp_path / "gt.json"
    gt_path.write_text(json.dumps(GT))
    with contextlib.redirect_stdout(io.StringIO()):
        loaded = COCO(str(gt_path)).loadRes(json.loads(json.dumps(DT)))
    res_path = tmp_path / "loadres.json"
    res_path.write_text(json.dumps(loaded.dataset))
    want = coco_evaluate(GT, DT).stats
    np.testing.assert_array_equal(coco_evaluate(str(gt_path), str(res_path)).stats, want)
    texts = [{**d, "image_id": str(d["image_id"])} for d in DT]
    with pytest.raises(ValueError, match=r"written as str \('1'\) where the ground truth has int"):
        coco_evaluate(GT, texts)


def _picture(size: tuple[int, int], fmt: str, orientation: int | None = None) -> bytes:
    from PIL import Image

    out = io.BytesIO()
    im = Image.new("RGB", size)
    if orientation is None:
        im.save(out, fmt)
    else:
        exif = Image.Exif()
        exif[0x0112] = orientation
        im.save(out, fmt, exif=exif)
    return out.getvalue()


def test_yolo_zip_with_its_images_reads_sizes_from_their_headers(tmp_path):
    """Images beside the labels (images/x.jpg, labels/x.txt) give the sizes, a JPEG stored
    on its side turned by its EXIF orientation as YOLO trainers turn it; an image without a
    label file is an image with no object, where a detection is a false positive."""
    sizes = {1: (200, 100), 2: (100, 100)}
    anns = {str(i): [] for i in sizes}
    for a in GT["annotations"]:
        anns[str(a["image_id"])].append(
            _yolo_line(a["bbox"], sizes[a["image_id"]], [1, 3].index(a["category_id"]))
        )
    dets = {str(i): [] for i in (*sizes, 3)}
    for d in DT:
        dets[str(d["image_id"])].append(
            _yolo_line(d["bbox"], sizes[d["image_id"]], [1, 3].index(d["category_id"]), d["score"])
        )
    dets["3"].append(_yolo_line([5, 5, 20, 20], (50, 50), 0, 0.95))
    pictures = {
        "images/1.jpg": _picture((100, 200), "JPEG", orientation=6),  # shown 200 wide
        "images/2.png": _picture((100, 100), "PNG"),
        "images/3.png": _picture((50, 50), "PNG"),  # no label file: background
    }
    (tmp_path / "gt.zip").write_bytes(_yolo_zip(anns, {"classes.txt": "cat\ndog\n", **pictures}))
    (tmp_path / "dt.zip").write_bytes(_yolo_zip(dets))
    gt = load_ground_truth(tmp_path / "gt.zip")
    assert gt.has_areas
    np.testing.assert_allclose(gt.image_sizes, [[200, 100], [100, 100], [50, 50]])
    pixels = gt.boxes[np.argsort(gt.ann_id if gt.ann_id.size else gt.image, kind="stable")]
    np.testing.assert_allclose(
        np.sort(pixels, axis=0), np.sort([a["bbox"] for a in GT["annotations"]], axis=0)
    )
    got = coco_evaluate(gt, load_detections(tmp_path / "dt.zip", gt))
    ground = {**GT, "images": [*GT["images"], {"id": 3, "width": 50, "height": 50}]}
    want = coco_evaluate(ground, [*DT, {"image_id": 3, "category_id": 1,
                                        "bbox": [5, 5, 20, 20], "score": 0.95}])  # fmt: skip
    np.testing.assert_allclose(got.stats, want.stats, atol=1e-12)
    assert got.stats[1] < coco_evaluate(GT, DT).stats[1]  # the background image's false positive

    broken = _yolo_zip(
        anns, {"images/1.jpg": b"not a picture", "images/2.png": pictures["images/2.png"]}
    )
    (tmp_path / "broken.zip").write_bytes(broken)
    with pytest.raises(ValueError, match=r"images/1.jpg is not an image whose size can be read"):
        load_ground_truth(tmp_path / "broken.zip")

"""tide_errors against a slow, literal reference of TIDE's definitions and on hand-built boxes.

The reference below follows the TIDE paper and its reference code's loop (tidecv's
``TIDEExample``, ``TIDERun._eval_image``, ``fix_errors`` and ``APDataObject.get_ap``; facts
carried over, our own code): one image, one prediction, one ground truth at a time, Python
lists. bench/bench_tide.py compares with tidecv itself (its own venv; too heavy for CI).
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings

from metrics.detection import ERROR_TYPES, tide_errors
from tests.strategies import detection_datasets, examples

# --- TIDE, literally ------------------------------------------------------------------------


def _iou(d, g, crowd=False):
    dx, dy, dw, dh = d
    gx, gy, gw, gh = g
    w = min(dw + dx, gw + gx) - max(dx, gx)
    h = min(dh + dy, gh + gy) - max(dy, gy)
    if w <= 0 or h <= 0:
        return 0.0
    inter = w * h
    union = dw * dh if crowd else dw * dh + gw * gh - inter
    return inter / union


def _ap(points, n_gt):
    if n_gt == 0:
        return 0.0
    points = sorted(points, key=lambda p: -p[0])
    prec, rec, nt, nf = [], [], 0, 0
    for _, ok in points:
        nt, nf = nt + ok, nf + (not ok)
        prec.append(nt / (nt + nf))
        rec.append(nt / n_gt)
    for i in range(len(prec) - 1, 0, -1):
        prec[i - 1] = max(prec[i - 1], prec[i])
    idx = np.searchsorted(np.array(rec), np.arange(101) / 100, side="left")
    return sum(prec[i] if i < len(prec) else 0 for i in idx) / 101


def _map(points_by_cls, npos):
    aps = [
        _ap(points_by_cls.get(k, []), npos.get(k, 0))
        for k in sorted(set(points_by_cls) | set(npos))
        if points_by_cls.get(k) or npos.get(k, 0)
    ]
    return sum(aps) / len(aps) if aps else float("nan")


def tide_reference(gt, dt, pos=0.5, bg=0.1, max_dets=100):
    npos, base_pts = {}, {}
    errors = []  # (type, det index, cls, score, ignored, gt key or None)
    tps = []  # (cls, score)
    labels = {}
    missed = set()
    best = {}  # gt key -> (score, det index)
    for img in sorted(im["id"] for im in gt["images"]):
        anns = [a for a in gt["annotations"] if a["image_id"] == img]
        real = [a for a in anns if not a.get("iscrowd")]
        crowd = [a for a in anns if a.get("iscrowd")]
        for a in real:
            npos[a["category_id"]] = npos.get(a["category_id"], 0) + 1
        preds = [i for i, d in enumerate(dt) if d["image_id"] == img]
        preds = sorted(preds, key=lambda i: -dt[i]["score"])[:max_dets]
        used = [False] * len(real)
        match = {}
        for i in preds:
            row = [
                _iou(dt[i]["bbox"], a["bbox"])
                if a["category_id"] == dt[i]["category_id"] and not used[j]
                else 0.0
                for j, a in enumerate(real)
            ]
            if row and max(row) >= pos:
                j = row.index(max(row))
                used[j] = True
                match[i] = j
        ignored = set()
        for i in preds:
            if i in match:
                continue
            for c in crowd:
                same_cls = c["category_id"] == dt[i]["category_id"]
                if same_cls and _iou(dt[i]["bbox"], c["bbox"], crowd=True) > pos:
                    ignored.add(i)
        usable = set()
        for i in preds:
            d = dt[i]
            cls = d["category_id"]
            if i in match:
                labels[i] = "true positive"
                tps.append((cls, d["score"]))
                base_pts.setdefault(cls, []).append((d["score"], True))
                continue
            if i not in ignored:
                base_pts.setdefault(cls, []).append((d["score"], False))
            same = [_iou(d["bbox"], a["bbox"]) * (a["category_id"] == cls) for a in real]
            other = [_iou(d["bbox"], a["bbox"]) * (a["category_id"] != cls) for a in real]
            dupe = [v * used[j] for j, v in enumerate(same)]
            anyc = [_iou(d["bbox"], a["bbox"]) for a in real]
            target = None
            if not real:
                kind = "background"
            elif bg <= max(same) <= pos:
                kind, target = "localisation", same.index(max(same))
            elif max(other) >= pos:
                kind, target = "classification", other.index(max(other))
            elif max(dupe) >= pos:
                kind = "duplicate"
            elif max(anyc) <= bg:
                kind = "background"
            else:
                kind = "both"
            labels[i] = kind
            key = None
            if target is not None and not used[target]:
                key = (img, target)
                usable.add(target)
                if key not in best or best[key][0] < d["score"]:
                    best[key] = (d["score"], i)
            gcls = real[target]["category_id"] if target is not None else None
            errors.append((kind, i, cls, d["score"], i in ignored, key, gcls))
        for j, a in enumerate(real):
            if not used[j] and j not in usable:
                missed.add(a["id"])
                errors.append(("missed", None, a["category_id"], None, False, None, None))
    fn = {}
    for a in gt["annotations"]:
        if not a.get("iscrowd"):
            fn[a["category_id"]] = fn.get(a["category_id"], 0)

    def fixed(kinds, fp_last=False, forgive=None):
        pts, n = {}, dict(npos)
        for kind, i, cls, score, ign, key, gcls in errors:
            if kind == "missed":
                if kind in kinds:
                    n[cls] -= 1
                continue
            if kind in kinds:
                fixable = kind in ("classification", "localisation") and key is not None
                if fixable and best[key][1] == i:
                    c = gcls if kind == "classification" else cls
                    pts.setdefault(c, []).append((score, True))
                continue
            if not ign:
                pts.setdefault(cls, []).append((0.0 if fp_last else score, False))
        for cls, score in sorted(tps, key=lambda t: t[0]):
            pts.setdefault(cls, []).append((1.0 if fp_last else score, True))
        for k, v in (forgive or {}).items():
            n[k] = n.get(k, 0) - v
        return _map(pts, n)

    base = _map(base_pts, npos)
    unused = {}
    for cls, _ in tps:
        unused[cls] = unused.get(cls, 0) - 1
    for k, v in npos.items():
        unused[k] = unused.get(k, 0) + v
    return {
        "ap": base,
        "labels": labels,
        "missed": missed,
        "dap": {k: max(fixed({k}) - base, 0.0) for k in ERROR_TYPES},
        "fp": fixed(set(), fp_last=True) - base,
        "fn": fixed(set(), forgive=unused) - base,
        "all": fixed(set(ERROR_TYPES)),
    }


@settings(max_examples=examples(20), deadline=None)
@given(detection_datasets(max_images=4))
def test_equal_to_the_literal_reference(data):
    gt, dt = data
    ours = tide_errors(gt, dt)
    ref = tide_reference(gt, dt)
    got = {i: lab for i, lab in enumerate(ours.detection_error) if lab != "beyond max_dets"}
    assert got == ref["labels"]
    ann_ids = np.array([a["id"] for a in gt["annotations"]])
    assert set(ann_ids[ours.missed].tolist()) == ref["missed"]
    tab = ours.table.set_index("error")
    if np.isnan(ref["ap"]):
        assert np.isnan(ours.ap)
        return
    want = [ref["ap"], *(ref["dap"][k] for k in ERROR_TYPES), ref["fp"], ref["fn"], ref["all"]]
    got = [ours.ap, *tab["dap"].tolist(), ours.fixed_ap(ERROR_TYPES)]
    # NaN where nothing is left to average (tidecv divides by zero there)
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-12, equal_nan=True)


@settings(max_examples=examples(20), deadline=None)
@given(detection_datasets(max_images=5))
def test_invariants_on_generated_boxes(data):
    gt, dt = data
    r = tide_errors(gt, dt)
    tab = r.table.set_index("error")
    labels = r.detection_error
    typed = np.isin(labels, ERROR_TYPES)
    evaluated = labels != "beyond max_dets"
    # every evaluated detection that is not a true positive has exactly one type
    assert typed.sum() == (evaluated & (labels != "true positive")).sum()
    assert sum(int(tab.loc[k, "count"]) for k in ERROR_TYPES[:-1]) == typed.sum()
    assert int(tab.loc["missed", "count"]) == r.missed.sum()
    # missed <= unmatched objects (the false negatives); the rest are fixable by cls/loc
    assert r.missed.sum() <= int(tab.loc["false_negatives", "count"])
    assert (tab.loc[list(ERROR_TYPES), "dap"].dropna() >= 0).all()
    real = np.array([not a["iscrowd"] for a in gt["annotations"]], dtype=bool)
    if (real & ~r.missed).any():
        # fixing every error leaves only true positives and every object found: AP 1
        assert r.fixed_ap(ERROR_TYPES) == pytest.approx(1.0, abs=1e-12)
    else:  # every object missed and forgiven, every false positive removed: nothing left
        assert np.isnan(r.fixed_ap(ERROR_TYPES))


def _case(anns, dets, cats=(1,), images=(1,)):
    gt = {
        "images": [{"id": i} for i in images],
        "categories": [{"id": c, "name": f"c{c}"} for c in cats],
        "annotations": [
            {
                "id": i + 1,
                "image_id": a.get("image", 1),
                "category_id": a.get("cat", 1),
                "bbox": a["bbox"],
                "iscrowd": a.get("crowd", 0),
            }
            for i, a in enumerate(anns)
        ],
    }
    dt = [
        {
            "image_id": d.get("image", 1),
            "category_id": d.get("cat", 1),
            "bbox": d["bbox"],
            "score": d["score"],
        }
        for d in dets
    ]
    return tide_errors(gt, dt)


def _dap(r, name):
    return float(r.table.set_index("error").loc[name, "dap"])


def test_classification_fixed_moves_the_box_to_the_right_class():
    box = [0, 0, 10, 10]
    r = _case([{"bbox": box, "cat": 1}], [{"bbox": box, "cat": 2, "score": 0.9}], cats=(1, 2))
    assert r.detection_error.tolist() == ["classification"]
    assert not r.missed.any()  # the classification error points to it: not "missed"
    assert r.ap == 0.0  # class 1: nothing found; class 2: one false positive, no objects
    assert _dap(r, "classification") == pytest.approx(1.0)
    assert _dap(r, "missed") == 0.0


def test_duplicate_background_both_and_missed():
    g1, g2 = [0, 0, 10, 10], [100, 0, 10, 10]
    r = _case(
        [{"bbox": g1}, {"bbox": g2}],
        [{"bbox": g1, "score": 0.9}, {"bbox": g1, "score": 0.8}, {"bbox": g2, "score": 0.7}],
    )
    assert r.detection_error.tolist() == ["true positive", "duplicate", "true positive"]
    base = (51 + 50 * 2 / 3) / 101  # precision 1 up to recall 0.5, then 2/3
    assert r.ap == pytest.approx(base)
    assert _dap(r, "duplicate") == pytest.approx(1 - base)

    r = _case(
        [{"bbox": g1}, {"bbox": g2}],
        [
            {"bbox": [200, 200, 10, 10], "score": 0.9},  # nothing there
            {"bbox": [5, 0, 10, 10], "cat": 2, "score": 0.8},  # wrong class, IoU 1/3
            {"bbox": g1, "score": 0.7},
        ],
        cats=(1, 2),
    )
    assert r.detection_error.tolist() == ["background", "both", "true positive"]
    assert r.missed.tolist() == [False, True]
    tab = r.table.set_index("error")
    assert tab.loc["missed", "count"] == 1
    assert tab.loc["background", "count"] == 1
    # class 1: FP then TP, 1 of 2 found -> 0.5 * 51/101; class 2: a false positive -> 0
    assert r.ap == pytest.approx((0.5 * 51 / 101 + 0.0) / 2)
    assert _dap(r, "missed") == pytest.approx((0.5 - 0.5 * 51 / 101) / 2)


def test_a_crowd_region_hides_its_detection_from_the_ap_but_not_from_the_types():
    r = _case(
        [{"bbox": [0, 0, 100, 100], "crowd": 1}, {"bbox": [200, 0, 10, 10]}],
        [{"bbox": [10, 10, 20, 20], "score": 0.9}, {"bbox": [200, 0, 10, 10], "score": 0.5}],
    )
    assert r.detection_ignored.tolist() == [True, False]
    assert r.detection_error.tolist() == ["background", "true positive"]
    assert r.ap == pytest.approx(1.0)  # the ignored one is not a point


def test_max_dets_counts_across_categories_of_an_image():
    dets = [{"bbox": [300 + i, 0, 5, 5], "cat": 2, "score": 0.9} for i in range(100)]
    r = _case([{"bbox": [0, 0, 10, 10]}], [*dets, {"bbox": [0, 0, 10, 10], "score": 0.1}], (1, 2))
    assert r.detection_error[-1] == "beyond max_dets"
    assert r.missed.tolist() == [True]


def test_bad_thresholds_are_one_sentence():
    empty = {"images": [{"id": 1}], "categories": [{"id": 1}], "annotations": []}
    with pytest.raises(ValueError, match="need 0 < background <= pos <= 1"):
        tide_errors(empty, [], pos_threshold=0.3, background_threshold=0.5)
    with pytest.raises(ValueError, match="max_dets=0 must be a whole number"):
        tide_errors(empty, [], max_dets=0)
    with pytest.raises(ValueError, match="unknown error types"):
        _case([{"bbox": [0, 0, 1, 1]}], [{"bbox": [0, 0, 1, 1], "score": 1}]).fixed_ap(["oops"])


def test_localisation_is_tested_before_classification():
    # the box is exactly the class-2 object (IoU 1) and overlaps the class-1 object at 1/3:
    # TIDE calls it a localisation error of its own class first.
    r = _case(
        [{"bbox": [0, 0, 30, 10], "cat": 1}, {"bbox": [10, 0, 10, 10], "cat": 2}],
        [{"bbox": [10, 0, 10, 10], "cat": 1, "score": 0.9}],
        cats=(1, 2),
    )
    assert r.detection_error.tolist() == ["localisation"]
    assert r.missed.tolist() == [False, True]

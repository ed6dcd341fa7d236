"""compare_detector_set: estimates equal coco_evaluate, every replicate equal coco_evaluate on
the resampled images written out (each image copied as many times as the resample draws it,
the same copies for every detector), the family as metrics.families declares it, and the
images' influence equal to coco_evaluate with the image removed."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from metrics.detection import (
    IOU_THRESHOLDS,
    MAP_NAME,
    coco_evaluate,
    compare_detector_set,
    load_detections,
    load_ground_truth,
)
from tests.strategies import detection_datasets, examples


def _second(dt: list, seed: int) -> list:
    """Another detector on the same images: boxes moved, scores changed, some boxes dropped."""
    rng = np.random.default_rng(seed)
    out = []
    for d in dt:
        if rng.random() < 0.2:
            continue
        b = np.array(d["bbox"]) + rng.normal(0, 2.0, 4) * [1, 1, 0, 0]
        out.append({**d, "bbox": b.tolist(), "score": float(rng.random())})
    return out or dt[:1]


def _distinct(dt: list, seed: int) -> list:
    rng = np.random.default_rng(seed)
    return [{**d, "score": float(s)} for d, s in zip(dt, rng.random(len(dt)), strict=True)]


@settings(max_examples=examples(10), deadline=None)
@given(detection_datasets(max_images=4, burst=False))
def test_estimates_are_coco_evaluate_and_the_table_is_every_pair(data):
    gt, dt = data
    dets = {"base": dt, "moved": _second(dt, 1), "other": _second(dt, 2)}
    comp = compare_detector_set(gt, dets, n_resamples=3, seed=0)
    for j, d in enumerate(dets.values()):
        ev = coco_evaluate(gt, d)
        want = ev.stats[0] if ev.stats[0] > -1 else np.nan
        assert comp.map[j] == pytest.approx(want, abs=1e-12, nan_ok=True)
        np.testing.assert_allclose(comp.class_ap[j], ev.per_class["ap"], rtol=0, atol=1e-12)
    t = comp.table
    n_metrics = 1 + load_ground_truth(gt).n_categories
    assert len(t) == 3 * n_metrics  # three pairs
    pair = comp.pair("other", "base")
    np.testing.assert_allclose(
        pair["difference"].to_numpy()[1:], comp.class_ap[2] - comp.class_ap[0], equal_nan=True
    )
    flipped = comp.pair("base", "other")
    np.testing.assert_allclose(flipped["difference"], -pair["difference"], equal_nan=True)
    np.testing.assert_allclose(flipped["ci_low"], -pair["ci_high"], equal_nan=True)
    # the interval leaves 0 out exactly when the p-value is below 5%
    tested = t[t["p_value"].notna()]
    outside = (tested["ci_low"] > 0) | (tested["ci_high"] < 0)
    np.testing.assert_array_equal(outside, tested["p_value"] < 0.05)
    # the primary metric alone is the family: the per-class tests never star
    assert set(t.loc[t["metric"] == MAP_NAME, "role"]) == {"primary"}
    assert set(t.loc[t["metric"] != MAP_NAME, "role"]) <= {"exploratory"}
    assert not t.loc[t["metric"] != MAP_NAME, "significant"].any()


def _written_out(gt: dict, dt: list, copies: dict) -> tuple[dict, list]:
    big_gt = {"categories": gt["categories"], "images": [], "annotations": []}
    big_dt = []
    for i in sorted(copies):
        for c in range(copies[i]):
            new = i * 1000 + c
            big_gt["images"].append({"id": new})
            for a in gt["annotations"]:
                if a["image_id"] == i:
                    big_gt["annotations"].append(
                        {**a, "image_id": new, "id": len(big_gt["annotations"]) + 1}
                    )
            big_dt += [{**d, "image_id": new} for d in dt if d["image_id"] == i]
    return big_gt, big_dt


@settings(max_examples=examples(6), deadline=None)
@given(detection_datasets(max_images=4, burst=False))
def test_every_replicate_is_coco_evaluate_on_the_resampled_images(data):
    gt, dt = data
    a, b = _distinct(dt, 3), _distinct(_second(dt, 4), 5)
    comp = compare_detector_set(gt, {"a": a, "b": b}, n_resamples=3, seed=11)
    ids = load_ground_truth(gt).image_ids.tolist()
    rng = np.random.default_rng(11)  # the documented draw: Poisson(1) per image, in id order
    for r in range(3):
        copies = dict(zip(ids, rng.poisson(1.0, len(ids)).tolist(), strict=True))
        for j, d in enumerate((a, b)):
            big_gt, big_dt = _written_out(gt, d, copies)
            if not big_dt or not big_gt["images"]:
                continue
            ev = coco_evaluate(big_gt, big_dt)
            want = ev.stats[0] if ev.stats[0] > -1 else np.nan
            assert comp.map_replicates[r, j] == pytest.approx(want, abs=1e-12, nan_ok=True)
            np.testing.assert_allclose(
                comp.class_replicates[r, j], ev.per_class["ap"], rtol=0, atol=1e-12
            )


def test_a_detector_against_itself_differs_by_nothing_and_never_stars():
    from metrics.detection import synthetic_coco

    gt, dt = synthetic_coco(n_images=12, n_cats=3, dets_per_image=10, seed=3)
    comp = compare_detector_set(gt, {"a": dt, "b": dt}, n_resamples=20, family="all")
    t = comp.table
    assert (t["difference"].fillna(0) == 0).all()
    assert (t["p_value"].dropna() == 1.0).all()
    assert not t["significant"].any()
    assert set(t["role"]) == {"family"}
    assert "Holm across 4 metrics × 1 pair" in t.attrs["family"]
    assert comp.images("b", "a").empty  # no image changes anything


def test_a_better_detector_is_found_and_its_images_are_the_ones_that_moved():
    from metrics.detection import synthetic_coco

    gt, dt = synthetic_coco(n_images=30, n_cats=3, dets_per_image=12, seed=5)
    # the candidate: the baseline with its best box on the first 8 images dropped
    gone = {im["id"] for im in gt["images"][:8]}
    best = {}
    for k, d in enumerate(dt):
        if d["image_id"] in gone and d["score"] > best.get(d["image_id"], (-1, 0))[0]:
            best[d["image_id"]] = (d["score"], k)
    drop = {k for _, k in best.values()}
    worse = [d for k, d in enumerate(dt) if k not in drop]
    comp = compare_detector_set(gt, {"base": dt, "worse": worse}, n_resamples=100, seed=0)
    row = comp.pair("worse", "base").iloc[0]
    assert row["metric"] == MAP_NAME
    assert row["difference"] < 0
    assert row["ci_high"] < 0
    assert row["significant"]
    # the same resamples declared as one Holm family over mAP and every class
    every = comp.declare("all")
    same = compare_detector_set(
        gt, {"base": dt, "worse": worse}, n_resamples=100, seed=0, family="all"
    )
    assert every.table.equals(same.table)
    assert set(every.table["role"]) == {"family"}
    assert every.table["p_adjusted"].iloc[0] >= comp.table["p_adjusted"].iloc[0]
    tested = comp.table[comp.table["p_value"].notna()]
    outside = (tested["ci_low"] > 0) | (tested["ci_high"] < 0)
    np.testing.assert_array_equal(outside, tested["p_value"] < 0.05)
    images = comp.images("worse", "base", top=20)
    assert set(images["image_id"]) <= gone
    for _, r in images.iterrows():  # the influence: the difference with it minus without it
        keep = [im for im in gt["images"] if im["id"] != r["image_id"]]
        g2 = {**gt, "images": keep,
              "annotations": [a for a in gt["annotations"] if a["image_id"] != r["image_id"]]}  # fmt: skip
        d_with = comp.map[1] - comp.map[0]
        d_without = (
            coco_evaluate(g2, [d for d in worse if d["image_id"] != r["image_id"]]).stats[0]
            - coco_evaluate(g2, [d for d in dt if d["image_id"] != r["image_id"]]).stats[0]
        )
        assert r["influence"] == pytest.approx(d_with - d_without, abs=1e-12)


def test_bad_arguments_are_one_sentence():
    from metrics.detection import synthetic_coco

    gt, dt = synthetic_coco(n_images=3, n_cats=2, dets_per_image=4, seed=1)
    with pytest.raises(ValueError, match="two or more detectors"):
        compare_detector_set(gt, {"a": dt})
    with pytest.raises(ValueError, match="family='AP50' must be 'COCO mAP'"):
        compare_detector_set(gt, {"a": dt, "b": dt}, family="AP50")
    with pytest.raises(ValueError, match=r"confidence=1\.5"):
        compare_detector_set(gt, {"a": dt, "b": dt}, confidence=1.5)


@settings(max_examples=examples(15), deadline=None)
@given(detection_datasets(), st.integers(0, 2**32 - 1))
def test_weighted_scores_equal_the_repeated_images_accumulation(data, seed):
    # every resample at once (weighted cumulative counts) against _accumulate repeating each
    # image's rows: zero counts, large counts, ties, more than 100 detections an image
    from metrics.detection.coco import IOU_THRESHOLDS, _accumulate
    from metrics.detection.compare import _class_ap, match_all_area, weighted_scores

    gt = load_ground_truth(data[0])
    dt = load_detections(data[1], gt)
    match = match_all_area(gt, dt, IOU_THRESHOLDS)
    rng = np.random.default_rng(seed)
    weights = rng.integers(0, 4, (6, gt.n_images))
    weights[0] = 1
    weights[1, : max(1, gt.n_images // 2)] = 0
    weights[2] = rng.integers(0, 60, gt.n_images)
    maps, ap = weighted_scores(gt, dt, match, weights, max_cells=500)  # small blocks too
    for b in range(weights.shape[0]):
        precision, _, _ = _accumulate(gt, dt, match, max_dets=(100,), image_counts=weights[b])
        s = precision[..., 0, 0]
        np.testing.assert_allclose(ap[b], _class_ap(s), rtol=0, atol=1e-12)
        want = s[s > -1].mean() if (s > -1).any() else np.nan
        assert maps[b] == pytest.approx(want, abs=1e-12, nan_ok=True)


def test_a_class_never_detected_scores_zero_on_every_resample():
    from metrics.detection.compare import match_all_area, weighted_scores

    gt = load_ground_truth(
        {
            "images": [{"id": 1}, {"id": 2}],
            "categories": [{"id": 1, "name": "cat"}, {"id": 2, "name": "dog"}],
            "annotations": [
                {"id": 1, "image_id": 1, "category_id": 1, "bbox": [0, 0, 10, 10], "area": 100,
                 "iscrowd": 0},
                {"id": 2, "image_id": 2, "category_id": 2, "bbox": [0, 0, 10, 10], "area": 100,
                 "iscrowd": 0},
            ],
        }
    )  # fmt: skip
    dt = load_detections(
        [{"image_id": 1, "category_id": 1, "bbox": [0, 0, 10, 10], "score": 1}], gt
    )
    weights = np.array([[1, 1], [0, 1], [1, 0], [2, 3]])
    maps, ap = weighted_scores(gt, dt, match_all_area(gt, dt, IOU_THRESHOLDS), weights)
    np.testing.assert_allclose(ap[:, 1], [0.0, 0.0, np.nan, 0.0])  # no dog image: undefined
    np.testing.assert_allclose(ap[:, 0], [1.0, np.nan, 1.0, 1.0])
    np.testing.assert_allclose(maps, [0.5, 0.0, 1.0, 0.5])


def test_the_interval_and_the_p_value_agree_at_the_boundary():
    # 5 of 200 resampled differences >= 0: p = 2 * 5 / 200 = 0.05, not below 5%, so the 95%
    # interval must reach 0 (its upper end is the 5th largest difference, not the 6th)
    from metrics.detection.compare import _order_interval
    from metrics.significance import bootstrap_p_value

    d = np.concatenate([-np.arange(1.0, 196.0), [1e-3, 2e-3, 3e-3, 4e-3, 5e-3]])
    tail = (1 - 0.95) / 2
    low, high = _order_interval(d, tail)
    assert bootstrap_p_value(d) == 0.05
    assert high == 1e-3
    assert low == -191.0  # the 5th smallest
    low, high = _order_interval(np.delete(d, -1), tail)  # 4 of 199: p < 5%, 0 left out
    assert bootstrap_p_value(np.delete(d, -1)) < 0.05
    assert high < 0

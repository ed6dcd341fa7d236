"""A seeded, COCO-shaped synthetic detection set: for the bench, the tests and the Detection
page's example when no boxes are given. Not real data; every number is drawn from the seed.

Long-tailed class frequencies (COCO's ids with gaps), COCO's split of small / medium / large
boxes, 1% crowd regions, annotation areas below the box area (as masks are), detections near
the ground truths with noise that spreads the IoU, background boxes, scores rounded to 3
decimals so ties occur.
"""

from __future__ import annotations

import numpy as np

__all__ = ["synthetic_coco", "synthetic_detector_variant"]


def synthetic_coco(n_images=5000, n_cats=80, gt_per_image=7.3, dets_per_image=100, seed=0):
    rng = np.random.default_rng(seed)
    images = [{"id": int(i), "width": 640, "height": 480} for i in range(1, n_images + 1)]
    cat_ids = np.arange(1, 91)[rng.permutation(90)[:n_cats]]  # COCO's ids have gaps
    cat_ids.sort()
    cats = [{"id": int(c), "name": f"class {c}"} for c in cat_ids]
    freq = 1.0 / np.arange(1, n_cats + 1) ** 0.9  # a long tail, "person" first
    freq /= freq.sum()
    anns, dets = [], []
    n_gt = rng.poisson(gt_per_image, n_images)
    for img, ng in zip(images, n_gt, strict=True):
        iid = img["id"]
        present = rng.choice(cat_ids, size=min(3, n_cats), p=freq, replace=False)
        c_gt = rng.choice(present, size=ng)
        # COCO's split: ~41% small (< 32^2), ~34% medium, ~25% large
        side = np.exp(rng.uniform(np.log(6), np.log(400), ng))
        aspect = np.exp(rng.normal(0, 0.4, ng))
        w, h = np.minimum(side * aspect, 630), np.minimum(side / aspect, 470)
        x, y = rng.uniform(0, 640 - w), rng.uniform(0, 480 - h)
        crowd = rng.random(ng) < 0.01
        for j in range(ng):
            anns.append(
                {
                    "id": len(anns) + 1,
                    "image_id": iid,
                    "category_id": int(c_gt[j]),
                    "bbox": [float(x[j]), float(y[j]), float(w[j]), float(h[j])],
                    "area": float(w[j] * h[j] * rng.uniform(0.55, 0.9)),  # a mask's area
                    "iscrowd": int(crowd[j]),
                }
            )
        # detections: up to 6 per gt near it, the rest background; 100 in all
        n_near = min(dets_per_image, ng * int(rng.integers(2, 7)))
        src = rng.integers(0, max(ng, 1), n_near)
        noise = rng.normal(0, rng.choice([0.04, 0.12, 0.3], n_near)[:, None], (n_near, 4))
        if ng:
            bx = np.column_stack([x[src], y[src], w[src], h[src]])
            scale = np.column_stack([w[src], h[src], w[src], h[src]])
            b = bx + noise * scale
            b[:, 2:] = np.abs(b[:, 2:]) + 0.5
            quality = np.exp(-np.abs(noise).sum(axis=1) * 4)
            s = np.clip(quality * rng.uniform(0.5, 1.0, n_near), 0.001, 1)
            wrong = rng.random(n_near) < 0.1
            c_near = np.where(wrong, rng.choice(cat_ids, n_near), c_gt[src])
        else:
            b, s, c_near = np.zeros((0, 4)), np.zeros(0), np.zeros(0, dtype=int)
        n_bg = dets_per_image - n_near
        bw = np.exp(rng.uniform(np.log(4), np.log(300), n_bg))
        bh = bw * np.exp(rng.normal(0, 0.4, n_bg))
        bg = np.column_stack([rng.uniform(0, 600, n_bg), rng.uniform(0, 440, n_bg), bw, bh])
        s_bg = rng.beta(1, 6, n_bg)
        c_bg = np.where(
            rng.random(n_bg) < 0.5, rng.choice(present, n_bg), rng.choice(cat_ids, n_bg)
        )
        allb = np.vstack([b, bg])
        alls = np.round(np.concatenate([s, s_bg]), 3)  # 3 decimals: ties, as exported files have
        allc = np.concatenate([c_near, c_bg])
        for j in range(allb.shape[0]):
            dets.append(
                {
                    "image_id": iid,
                    "category_id": int(allc[j]),
                    "bbox": [float(v) for v in allb[j]],
                    "score": float(alls[j]),
                }
            )
    return {"images": images, "annotations": anns, "categories": cats}, dets


def synthetic_detector_variant(detections, *, seed=1, shift=0.06, drop=0.1, rescore=0.15):
    """Another seeded detector on the same images, for a two-detector example: each box moved
    by ``shift`` of its size (normal noise), a fraction ``drop`` of boxes removed and every
    score multiplied by ``1 + rescore * N(0, 1)`` (rounded to 3 decimals, clipped to [0.001,
    1]). Not real data."""
    rng = np.random.default_rng(seed)
    out = []
    for d in detections:
        if rng.random() < drop:
            continue
        x, y, w, h = d["bbox"]
        dx, dy = rng.normal(0, shift, 2) * (w, h)
        s = float(np.clip(round(d["score"] * (1 + rescore * rng.normal()), 3), 0.001, 1.0))
        out.append({**d, "bbox": [x + dx, y + dy, w, h], "score": s})
    return out

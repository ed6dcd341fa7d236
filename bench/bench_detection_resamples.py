"""The paired image bootstrap of COCO mAP: every resample at once (``weighted_scores``: weighted
cumulative counts) against one ``_accumulate`` a resample with the images' rows repeated (what
``compare_detectors`` does), on the same resamples, in the same run.

Run from the repository root::

    .venv/bin/python -m bench.bench_detection_resamples                    # 1,000 images
    .venv/bin/python -m bench.bench_detection_resamples --images 5000 --resamples 50

Prints both times, their ratio and the largest difference between the two (0 up to rounding).
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from metrics.detection import load_detections, load_ground_truth, synthetic_coco
from metrics.detection.coco import IOU_THRESHOLDS
from metrics.detection.compare import _map, match_all_area, weighted_scores


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--images", type=int, default=1000)
    p.add_argument("--categories", type=int, default=20)
    p.add_argument("--detections", type=int, default=100, help="per image")
    p.add_argument("--resamples", type=int, default=200)
    args = p.parse_args(argv)
    gt, dt = synthetic_coco(
        n_images=args.images, n_cats=args.categories, dets_per_image=args.detections, seed=0
    )
    g = load_ground_truth(gt)
    d = load_detections(dt, g)
    match = match_all_area(g, d, IOU_THRESHOLDS)
    counts = np.random.default_rng(0).poisson(1.0, (args.resamples, g.n_images))
    t0 = time.perf_counter()
    fast, _ = weighted_scores(g, d, match, counts)
    t1 = time.perf_counter()
    slow = np.array([_map(g, d, match, c) for c in counts])
    t2 = time.perf_counter()
    print(
        f"{args.images:,} images, {len(d):,} detections, {args.categories} categories, "
        f"{args.resamples} resamples"
    )
    print(f"  every resample at once (weighted_scores)   {t1 - t0:8.2f} s")
    print(f"  one _accumulate a resample (rows repeated) {t2 - t1:8.2f} s")
    print(f"  ratio at once / one at a time              {(t1 - t0) / (t2 - t1):8.2f}")
    print(f"  largest difference                         {np.nanmax(np.abs(fast - slow)):8.1e}")


if __name__ == "__main__":
    main()

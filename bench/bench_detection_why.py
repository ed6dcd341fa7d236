"""Issue 53 §3: the cost of "Why the numbers differ" at COCO val2017 size, against
``coco_evaluate`` (pycocotools' full evaluate + accumulate + summarize) in the same run.

The walk (:func:`metrics.detection.convention_effects`) evaluates the boxes once per rule
that differs (up to 10 hybrid evaluations at one IoU threshold); TIDE
(:func:`metrics.detection.tide_errors`) matches once and re-ranks the points once per fix.
Peak memory is tracemalloc's (numpy reports its arrays to it).

    python -m bench.bench_detection_why [--images 5000]
"""

from __future__ import annotations

import argparse
import sys
import time
import tracemalloc

from metrics.detection import (
    coco_evaluate,
    convention_effects,
    load_detections,
    load_ground_truth,
    synthetic_coco,
    tide_errors,
)


def _timed(fn):
    tracemalloc.start()
    t0 = time.perf_counter()
    out = fn()
    secs = time.perf_counter() - t0
    peak = tracemalloc.get_traced_memory()[1] / 2**20
    tracemalloc.stop()
    return out, secs, peak


def main(argv=None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--images", type=int, default=5000)
    args = ap.parse_args(argv)
    gt, dt = synthetic_coco(n_images=args.images, n_cats=80, dets_per_image=100, seed=0)
    g = load_ground_truth(gt)
    d = load_detections(dt, g)
    print(f"{args.images:,} images, {len(g):,} ground truths, {len(d):,} detections")
    _, base, base_mb = _timed(lambda: coco_evaluate(g, d))
    print(f"  coco_evaluate (baseline)        {base:7.2f} s   peak {base_mb:7.0f} MiB")
    for src, dst in (("coco", "voc07"), ("coco", "ultralytics")):
        _, secs, mb = _timed(lambda s=src, t=dst: convention_effects(g, d, from_=s, to=t))
        print(
            f"  convention_effects {src}->{dst:<12}{secs:7.2f} s   peak {mb:7.0f} MiB   "
            f"ratio {secs / base:.2f}"
        )
    _, secs, mb = _timed(lambda: tide_errors(g, d))
    print(
        f"  tide_errors                     {secs:7.2f} s   peak {mb:7.0f} MiB   "
        f"ratio {secs / base:.2f}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())

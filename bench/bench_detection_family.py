"""How often the Detection page's "Detectors compared" stars a difference when two detectors
are equal, under each family, and how often the mAP interval covers the true difference (0).

Run from the repository root::

    .venv/bin/python -m bench.bench_detection_family                 # 400 experiments
    .venv/bin/python -m bench.bench_detection_family --reps 100 --images 40

Each experiment draws a new seeded synthetic COCO-shaped set (``synthetic_coco``) and two
exchangeable detectors made from its detections by the same random process
(``synthetic_detector_variant`` with two seeds: boxes moved, boxes dropped, scores changed), so
the expected difference of every metric is 0 and any star is wrong. It runs the page's own
``compare_detector_set`` (200 image resamples) and reads three rules off the same resamples:

* **per-class, unadjusted**: any class's (or mAP's) p below 5% stars — what a table of per-class
  p-values invites;
* **primary**: COCO mAP alone (the page's default; the classes exploratory);
* **every metric**: Holm across mAP and every class.

Printed: the share of experiments with any star under each rule, and the share whose 95% mAP
interval leaves 0 out, each with a 95% Wilson interval. The target: at most about 5%.
"""

from __future__ import annotations

import argparse
import math
import time

from metrics.detection import (
    MAP_NAME,
    compare_detector_set,
    load_detections,
    load_ground_truth,
    synthetic_coco,
    synthetic_detector_variant,
)


def wilson(k: int, n: int, z: float = 1.96) -> tuple[float, float]:
    if n == 0:
        return float("nan"), float("nan")
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return centre - half, centre + half


def experiment(rep: int, n_images: int, n_cats: int, resamples: int) -> dict[str, bool]:
    gt, dt = synthetic_coco(n_images=n_images, n_cats=n_cats, dets_per_image=20, seed=10_000 + rep)
    g = load_ground_truth(gt)
    a = synthetic_detector_variant(dt, seed=2 * rep + 1, shift=0.03, drop=0.05, rescore=0.1)
    b = synthetic_detector_variant(dt, seed=2 * rep + 2, shift=0.03, drop=0.05, rescore=0.1)
    comp = compare_detector_set(
        g, {"a": load_detections(a, g), "b": load_detections(b, g)},
        n_resamples=resamples, seed=rep,
    )  # fmt: skip
    t = comp.table
    every = comp.declare("all").table
    head = t.iloc[0]
    assert head["metric"] == MAP_NAME
    return {
        "unadjusted": bool((t["p_value"] < 0.05).any()),
        "primary": bool(t["significant"].any()),
        "every": bool(every["significant"].any()),
        "interval": bool(head["ci_low"] > 0 or head["ci_high"] < 0),
    }


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--reps", type=int, default=400)
    p.add_argument("--images", type=int, default=60)
    p.add_argument("--categories", type=int, default=5)
    p.add_argument("--resamples", type=int, default=200)
    args = p.parse_args(argv)
    start = time.perf_counter()
    counts = {"unadjusted": 0, "primary": 0, "every": 0, "interval": 0}
    for rep in range(args.reps):
        for k, v in experiment(rep, args.images, args.categories, args.resamples).items():
            counts[k] += v
    took = time.perf_counter() - start
    print(
        f"{args.reps} experiments, {args.images} images, {args.categories} categories, "
        f"{args.resamples} resamples ({took:.0f} s)"
    )
    for k, label in (
        ("unadjusted", "any p < 5% (mAP or a class), unadjusted"),
        ("primary", "primary: COCO mAP alone (the page's default)"),
        ("every", "every metric: Holm across mAP and the classes"),
        ("interval", "95% mAP interval leaves 0 out"),
    ):
        lo, hi = wilson(counts[k], args.reps)
        print(f"  {label:<48} {counts[k] / args.reps:6.1%} [{lo:.1%}, {hi:.1%}]")


if __name__ == "__main__":
    main()

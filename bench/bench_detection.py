"""Issue 53 §5: COCO box AP at val2017 size against faster-coco-eval's C++ COCOeval_faster.

A synthetic but COCO-shaped set: 5,000 images, 80 categories, about 36,000 ground-truth boxes
(COCO's long-tailed class frequencies, its small/medium/large split, 1% crowd regions) and 100
detections an image (500,000): most near a ground truth with noise that spreads the IoU over
0.3-1, the rest background boxes on classes present and absent, scores higher for better
boxes, a share of tied scores. Each library loads the same dicts; the timed part is what the
issue names, evaluate + accumulate + summarize (faster-coco-eval's ``COCOeval_faster``,
pycocotools' ``COCOeval`` and ``metrics.detection.coco_evaluate`` on already-read arrays), and
each run's result is checked against pycocotools' stats first (1e-9) so no wrong answer is
timed. Memory is measured in a fresh child process: tracemalloc's peak during our call (numpy
reports its arrays to it) and the process's max RSS.

    python -m bench.bench_detection [--images 5000 --repeat 3 --no-pycocotools]
"""

from __future__ import annotations

import argparse
import contextlib
import copy
import io
import json
import resource
import subprocess
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

import numpy as np

from metrics.detection.synthetic import synthetic_coco


def _quiet():
    return contextlib.redirect_stdout(io.StringIO())


def run_faster(gt, dt):
    from faster_coco_eval import COCO, COCOeval_faster

    coco_gt = COCO(copy.deepcopy(gt))
    coco_dt = coco_gt.loadRes(copy.deepcopy(dt))
    ev = COCOeval_faster(coco_gt, coco_dt, "bbox", print_function=lambda *a, **k: None)
    t0 = time.perf_counter()
    with _quiet():
        ev.evaluate()
        ev.accumulate()
        ev.summarize()
    return time.perf_counter() - t0, np.asarray(ev.stats[:12])


def run_pycocotools(gt, dt):
    from pycocotools.coco import COCO
    from pycocotools.cocoeval import COCOeval

    with _quiet():
        coco_gt = COCO()
        coco_gt.dataset = copy.deepcopy(gt)
        coco_gt.createIndex()
        coco_dt = coco_gt.loadRes(copy.deepcopy(dt))
        ev = COCOeval(coco_gt, coco_dt, "bbox")
        t0 = time.perf_counter()
        ev.evaluate()
        ev.accumulate()
        ev.summarize()
    return time.perf_counter() - t0, np.asarray(ev.stats)


def run_ours(gt, dt):
    from metrics.detection import coco_evaluate, load_detections, load_ground_truth

    t0 = time.perf_counter()
    g = load_ground_truth(gt)
    d = load_detections(dt, g)
    t_read = time.perf_counter() - t0
    t0 = time.perf_counter()
    res = coco_evaluate(g, d)
    return time.perf_counter() - t0, t_read, res.stats


def _child_peak(path: str) -> None:
    """In a fresh process: read the arrays, then our evaluation; print its RSS growth."""
    from metrics.detection import coco_evaluate, load_detections, load_ground_truth

    data = json.loads(Path(path).read_text())
    g = load_ground_truth(data["gt"])
    d = load_detections(data["dt"], g)
    del data
    tracemalloc.start()
    coco_evaluate(g, d)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(json.dumps({"eval_peak_mb": peak / 2**20, "process_peak_mb": rss / 1024}))


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--images", type=int, default=5000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--no-pycocotools", action="store_true")
    ap.add_argument("--child-peak", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.child_peak:
        _child_peak(args.child_peak)
        return
    t0 = time.perf_counter()
    gt, dt = synthetic_coco(n_images=args.images)
    crowd = sum(a["iscrowd"] for a in gt["annotations"])
    print(
        f"{len(gt['images']):,} images, {len(gt['categories'])} categories, "
        f"{len(gt['annotations']):,} ground-truth boxes ({crowd} crowd), {len(dt):,} detections"
        f" (made in {time.perf_counter() - t0:.1f} s)"
    )
    ref = None
    if not args.no_pycocotools:
        t_py, ref = run_pycocotools(gt, dt)
        print(f"pycocotools COCOeval          {t_py:8.2f} s  (evaluate + accumulate + summarize)")
    fast, ours, read = [], [], []
    for _ in range(args.repeat):
        t_f, s_f = run_faster(gt, dt)
        t_o, t_r, s_o = run_ours(gt, dt)
        fast.append(t_f)
        ours.append(t_o)
        read.append(t_r)
        if ref is not None:
            assert np.abs(s_o - ref).max() <= 1e-9, (s_o, ref)
            print(f"  faster-coco-eval vs pycocotools: max |diff| {np.abs(s_f - ref).max():.2e}")
        else:  # faster-coco-eval equals pycocotools here (the full run checks it): compare to it
            assert np.abs(s_o - s_f).max() <= 1e-9, (s_o, s_f)
    t_f, t_o, t_r = np.median(fast), np.median(ours), np.median(read)
    print(f"faster-coco-eval COCOeval_faster {t_f:6.2f} s  (median of {args.repeat})")
    print(f"metrics.detection.coco_evaluate  {t_o:6.2f} s  (+ {t_r:.2f} s reading the dicts)")
    print(f"ratio ours / faster-coco-eval    {t_o / t_f:6.2f}   (target <= 1.0)")
    print(f"ratio (ours + reading) / faster  {(t_o + t_r) / t_f:6.2f}")
    if not args.no_pycocotools:
        print(f"ratio pycocotools / ours         {t_py / t_o:6.1f}")
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as fh:
        json.dump({"gt": gt, "dt": dt}, fh)
    out = subprocess.run(
        [sys.executable, "-m", "bench.bench_detection", "--child-peak", fh.name],
        capture_output=True,
        text=True,
        check=True,
    )
    Path(fh.name).unlink()
    peak = json.loads(out.stdout.strip().splitlines()[-1])
    print(
        f"memory: coco_evaluate allocates at most {peak['eval_peak_mb']:.0f} MB (tracemalloc) on "
        f"top of the read arrays; the whole process (JSON dicts included) peaks at "
        f"{peak['process_peak_mb']:.0f} MB RSS (target <= 2048 MB)"
    )


if __name__ == "__main__":
    main()

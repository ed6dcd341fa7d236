"""Issue 53 §3: ``metrics.detection.tide_errors`` against the TIDE authors' ``tidecv`` package.

tidecv (with OpenCV and matplotlib) is too heavy for CI, so it lives in its own venv and runs
in a child process: ``python -m venv /work/venvs/tide && /work/venvs/tide/bin/pip install
tidecv opencv-python-headless``. Both read the same seeded synthetic sets (images in id order,
as tidecv keeps the order the images are added); the script prints, per set, TIDE's mAP and
each error type's dAP from both (tidecv's 0-100 scale), the largest difference, the error
counts, and both run times with their ratio.

    python -m bench.bench_tide [--tide-python /work/venvs/tide/bin/python] [--images 300]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from metrics.detection import load_detections, load_ground_truth, synthetic_coco, tide_errors

_CHILD = r"""
import json, sys, time
from tidecv import TIDE, Data
from tidecv.errors.main_errors import (ClassError, BoxError, OtherError, DuplicateError,
    BackgroundError, MissedError)
gt, dt = json.load(open(sys.argv[1]))
t0 = time.perf_counter()
g = Data("gt"); p = Data("dt")
for im in gt["images"]:
    g.add_image(im["id"], str(im["id"])); p.add_image(im["id"], str(im["id"]))
for a in gt["annotations"]:
    if a.get("iscrowd"):
        g.add_ignore_region(a["image_id"], a["category_id"], a["bbox"])
    else:
        g.add_ground_truth(a["image_id"], a["category_id"], a["bbox"])
for d in dt:
    p.add_detection(d["image_id"], d["category_id"], d["score"], d["bbox"])
tide = TIDE()
run = tide.evaluate(g, p, mode=TIDE.BOX)
main = run.fix_main_errors()
special = run.fix_special_errors()
counts = run.count_errors()
secs = time.perf_counter() - t0
names = {ClassError: "classification", BoxError: "localisation", OtherError: "both",
         DuplicateError: "duplicate", BackgroundError: "background", MissedError: "missed"}
out = {"ap": run.ap, "dap": {names[k]: v for k, v in main.items()},
       "count": {names[k]: v for k, v in counts.items()},
       "special": [float(v) for v in special.values()], "seconds": secs}
print(json.dumps(out))
"""


def _ours(gt, dt):
    t0 = time.perf_counter()
    g = load_ground_truth(gt)
    r = tide_errors(g, load_detections(dt, g))
    secs = time.perf_counter() - t0
    tab = r.table.set_index("error")
    return r, tab, secs


def main(argv=None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--tide-python", default="/work/venvs/tide/bin/python")
    ap.add_argument("--images", type=int, default=300)
    args = ap.parse_args(argv)
    if not Path(args.tide_python).exists():
        print(f"no tidecv venv at {args.tide_python}; see this script's docstring")
        return 2
    cases = [
        ("synthetic, scores to 3 decimals (ties)", dict(seed=1, round_scores=True)),
        ("synthetic, distinct scores", dict(seed=2, round_scores=False)),
        ("synthetic, 150 detections an image (cap)", dict(seed=3, round_scores=False, dets=150)),
    ]
    worst = 0.0
    for title, c in cases:
        gt, dt = synthetic_coco(
            n_images=args.images, n_cats=12, dets_per_image=c.get("dets", 60), seed=c["seed"]
        )
        if not c["round_scores"]:
            rng = np.random.default_rng(c["seed"])
            for d in dt:
                d["score"] = float(rng.random())
        with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as fh:
            json.dump([gt, dt], fh)
        res = subprocess.run(
            [args.tide_python, "-c", _CHILD, fh.name], capture_output=True, text=True, check=True
        )
        theirs = json.loads(res.stdout.strip().splitlines()[-1])
        r, tab, secs = _ours(gt, dt)
        print(f"\n{title}: {args.images} images, {len(dt):,} detections")
        print(f"  mAP@50      ours {100 * r.ap:9.4f}  tidecv {theirs['ap']:9.4f}")
        diffs = [abs(100 * r.ap - theirs["ap"])]
        for name in tab.index[:6]:
            ours_d = 100 * float(tab.loc[name, "dap"])
            diffs.append(abs(ours_d - theirs["dap"][name]))
            print(
                f"  {name:<15} dAP ours {ours_d:7.4f}  tidecv {theirs['dap'][name]:7.4f}   "
                f"count ours {int(tab.loc[name, 'count']):6d}  tidecv {theirs['count'][name]:6d}"
            )
        for name, v in zip(("false_positives", "false_negatives"), theirs["special"], strict=True):
            ours_d = 100 * float(tab.loc[name, "dap"])
            diffs.append(abs(ours_d - v))
            print(f"  {name:<15} dAP ours {ours_d:7.4f}  tidecv {v:7.4f}")
        worst = max(worst, max(diffs))
        print(
            f"  largest difference {max(diffs):.2e} AP points; time ours {secs:.3f} s, tidecv "
            f"{theirs['seconds']:.3f} s (ratio {secs / theirs['seconds']:.3f})"
        )
    print(f"\nlargest difference over all sets: {worst:.2e} AP points")
    return 0


if __name__ == "__main__":
    sys.exit(main())

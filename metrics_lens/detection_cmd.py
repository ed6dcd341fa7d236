"""``metrics-lens detection`` and ``metrics-lens check --gt``: boxes in, COCO numbers out.

    metrics-lens detection GT DET [--json] [--convention coco|voc07|voc12|ultralytics|all]
        [--why [--from CONVENTION] [--to CONVENTION]]
    metrics-lens check --gt GT BASELINE CANDIDATE --metric coco_map [--max-drop D] [--strict]

GT is COCO ground-truth JSON, a CSV/Parquet box table (image_id, category, x, y, w, h) or a
zip of YOLO labels; DET the matching results (COCO results JSON, a table with score, a zip of
YOLO predictions). Bad input: one line on stderr, exit 2.
"""

from __future__ import annotations

import argparse
import json
import sys

__all__ = ["check_main", "detection_main", "wants_detection_check"]

MIN_RESAMPLES, MAX_RESAMPLES = 100, 100_000
MAX_SEED = 2**32 - 1


class _Parser(argparse.ArgumentParser):
    def error(self, message: str):  # one line, exit 2, as the other commands
        print(f"{self.prog}: error: {message}", file=sys.stderr)
        raise SystemExit(2)


def _inputs(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--image-sizes",
        metavar="FILE",
        help="YOLO labels: a CSV (image, width, height) or JSON {image: [w, h]}; without it "
        "boxes stay normalised and the area ranges are unavailable",
    )
    p.add_argument("--json", action="store_true", help="print one JSON object on stdout")


def _detection_parser() -> argparse.ArgumentParser:
    p = _Parser(
        prog="metrics-lens detection",
        description="COCO box AP/AR of detections (the 12 numbers pycocotools prints, equal to "
        "its COCOeval), and AP per category under other libraries' conventions.",
    )
    p.add_argument("gt", metavar="GT", help="ground truth: COCO JSON, CSV/Parquet table, YOLO zip")
    p.add_argument("det", metavar="DET", help="detections: COCO results JSON, table, YOLO zip")
    p.add_argument(
        "--convention",
        action="append",
        choices=("coco", "voc07", "voc12", "ultralytics", "all"),
        help="also AP per category under this convention at --iou (repeat; 'all' for every one)",
    )
    p.add_argument(
        "--iou", type=float, default=0.5, help="IoU threshold of --convention (default 0.5)"
    )
    p.add_argument(
        "--why",
        action="store_true",
        help="also why two conventions' mAPs differ on these boxes: one rule at a time from "
        "--from to --to at --iou, and TIDE's error breakdown",
    )
    names = ("coco", "voc07", "voc12", "ultralytics")
    p.add_argument("--from", dest="why_from", choices=names, default="coco", help="(coco)")
    p.add_argument("--to", dest="why_to", choices=names, default="voc07", help="(voc07)")
    p.add_argument(
        "--why-range",
        action="store_true",
        help="with --why: average each step over IoU 0.50:0.95 (COCO's AP, Ultralytics' "
        "mAP50-95) instead of --iou",
    )
    _inputs(p)
    return p


def _check_parser() -> argparse.ArgumentParser:
    p = _Parser(
        prog="metrics-lens check",
        description="Gate a candidate detector against a baseline on the same images: exit 0 "
        "when it is not worse beyond the allowed drop, 1 when it is, 2 on bad input. Both are "
        "scored on the same bootstrap resamples of images (Poisson counts per image); d = "
        "candidate - baseline on every resample, U its 1 - alpha quantile and L its alpha "
        "quantile. Default: exit 1 when U < -max_drop. --strict: exit 0 only when L >= "
        "-max_drop.",
    )
    p.add_argument("--gt", required=True, metavar="GT", help="the ground truth both are scored on")
    p.add_argument("baseline", metavar="BASELINE", help="the baseline's detections")
    p.add_argument("candidate", metavar="CANDIDATE", help="the candidate's detections")
    p.add_argument(
        "--metric",
        action="append",
        required=True,
        choices=("coco_map", "coco_map50"),
        help="coco_map: AP@[.5:.95] (pycocotools' stats[0]); coco_map50: AP@.5 (repeat)",
    )
    p.add_argument("--max-drop", type=float, default=0.0, help="allowed drop (default 0)")
    p.add_argument("--alpha", type=float, default=0.05, help="one-sided level (default 0.05)")
    p.add_argument("--strict", action="store_true", help="non-inferiority (see above)")
    p.add_argument(
        "--resamples",
        type=int,
        default=200,
        help="image resamples, 100 to 100,000 (default 200: about 1 s each at COCO val size)",
    )
    p.add_argument("--seed", type=int, default=0, help="0 to 4,294,967,295 (0)")
    _inputs(p)
    return p


def wants_detection_check(argv: list[str]) -> bool:
    """``check`` with ``--gt``: the detection gate, not the score-table gate."""
    return (
        bool(argv)
        and argv[0] == "check"
        and any(a == "--gt" or a.startswith("--gt=") for a in argv[1:])
    )


def _fail(command: str, message: str, as_json: bool) -> int:
    message = " ".join(str(message).split())
    if as_json:
        print(json.dumps({"passed": False, "exit_code": 2, "error": message}))
    print(f"metrics-lens {command}: error: {message}", file=sys.stderr)
    return 2


def _load(gt_path: str, det_paths: list[str], sizes):
    from metrics.detection import load_detections, load_ground_truth

    kwargs = {"image_sizes": sizes} if sizes else {}
    gt = (
        load_ground_truth(gt_path, **kwargs)
        if gt_path.lower().endswith(".zip")
        else (load_ground_truth(gt_path))
    )
    dets = [
        load_detections(p, gt, **kwargs) if p.lower().endswith(".zip") else load_detections(p, gt)
        for p in det_paths
    ]
    return gt, dets


def detection_main(argv: list[str]) -> int:
    args = _detection_parser().parse_args(argv)
    try:
        from metrics.detection import CONVENTIONS, coco_evaluate, detection_ap

        gt, (det,) = _load(args.gt, [args.det], args.image_sizes)
        if not 0.0 <= args.iou <= 1.0:
            raise ValueError(f"--iou {args.iou} must be between 0 and 1.")
        result = coco_evaluate(gt, det)
        conventions = []
        for c in args.convention or []:
            for name in CONVENTIONS if c == "all" else (c,):
                if name not in conventions:
                    conventions.append(name)
        per_convention = {
            c: detection_ap(gt, det, convention=c, iou_threshold=args.iou) for c in conventions
        }
        if args.why:
            from metrics_lens import detection_why as dw

            iou = "0.5:0.95" if args.why_range else args.iou
            why_args = dict(from_=args.why_from, to=args.why_to, iou=iou)
            walk, tide = dw.why(gt, det, **why_args)
    except ValueError as exc:
        return _fail("detection", str(exc), args.json)
    if args.json:
        out = result.to_dict()
        out["conventions"] = {
            c: {
                "iou_threshold": args.iou,
                "map": None if s.isna().all() else float(s.mean()),
                "ap": {str(k): (None if v != v else float(v)) for k, v in s.items()},
            }
            for c, s in per_convention.items()
        }
        if args.why:
            out["why"] = dw.why_json(walk, tide, **why_args)
        print(json.dumps(out))
        return 0
    print(result.summary_text())
    for note in result.notes:
        print(f"note: {note}")
    names = dict(zip(result.category_ids.tolist(), result.category_names, strict=True))
    for c, s in per_convention.items():
        m = s.mean()
        print(f"\n{c} AP@{args.iou:g} per category (mAP {m:.4f} over {int(s.notna().sum())}):")
        for k, v in s.items():
            shown = "   n/a (no ground truth it counts)" if v != v else f"{v:.4f}"
            print(f"  {k:>6} {names[k]:<24} {shown}")
    if args.why:
        print("\n" + dw.why_text(walk, tide, **why_args))
    return 0


def check_main(argv: list[str]) -> int:
    args = _check_parser().parse_args(argv)
    if not MIN_RESAMPLES <= args.resamples <= MAX_RESAMPLES:
        return _fail("check", "--resamples must be 100 to 100,000.", args.json)
    if not 0 <= args.seed <= MAX_SEED:
        return _fail("check", "--seed must be 0 to 4,294,967,295.", args.json)
    if not 0.0 < args.alpha < 0.5:
        return _fail("check", "--alpha must be between 0 and 0.5.", args.json)
    try:
        from metrics.detection import compare_detectors

        gt, (base, cand) = _load(args.gt, [args.baseline, args.candidate], args.image_sizes)
        results = []
        for metric in dict.fromkeys(args.metric):
            comp = compare_detectors(
                gt, base, cand, metric=metric, n_resamples=args.resamples, seed=args.seed
            )
            lower, upper = comp.bounds(args.alpha)
            if lower != lower:
                raise ValueError(f"{metric} is undefined: the ground truth has no boxes it counts.")
            passed = lower >= -args.max_drop if args.strict else not upper < -args.max_drop
            results.append((comp, lower, upper, bool(passed)))
    except ValueError as exc:
        return _fail("check", str(exc), args.json)
    ok = all(r[3] for r in results)
    code = 0 if ok else 1
    level = f"{1 - args.alpha:.0%}"
    rule = (
        f"pass when the {level} one-sided lower bound of candidate - baseline is >= "
        f"{-args.max_drop + 0.0:g}"
        if args.strict
        else f"fail when the {level} one-sided upper bound of candidate - baseline is < "
        f"{-args.max_drop + 0.0:g}"
    )
    if args.json:
        print(
            json.dumps(
                {
                    "passed": ok,
                    "exit_code": code,
                    "rule": rule,
                    "resampling": "images (Poisson(1) counts per image, the same for both)",
                    "resamples": args.resamples,
                    "seed": args.seed,
                    "alpha": args.alpha,
                    "max_drop": args.max_drop,
                    "metrics": [
                        {
                            "metric": c.metric,
                            "baseline": c.baseline,
                            "candidate": c.candidate,
                            "difference": c.difference,
                            "lower": lo,
                            "upper": hi,
                            "passed": p,
                            "n_images": c.n_images,
                        }
                        for c, lo, hi, p in results
                    ],
                }
            )
        )
        return code
    print(f"Gate: {rule}; {args.resamples} image resamples, seed {args.seed}.")
    for c, lo, hi, p in results:
        print(
            f"{'PASS' if p else 'FAIL'} {c.metric}: baseline {c.baseline:.4f}, candidate "
            f"{c.candidate:.4f}, difference {c.difference:+.4f}, bounds [{lo:+.4f}, {hi:+.4f}] "
            f"over {c.n_images:,} images"
        )
    return code

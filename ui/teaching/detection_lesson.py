"""The greedy match, walked: one image, one category, detections in score order, one step each.

No Streamlit. The outcome of every step is the library's (:func:`metrics.detection.match_image`,
which runs the evaluation's own matching); the walk only writes down, step by step, which
objects were still free, the best IoU among them, and the running TP / FP, precision and recall
(recall over the image's objects of that category that count), as the step-through table does
for a threshold.
"""

from __future__ import annotations

import html

import numpy as np
import pandas as pd

from metrics.detection import GroundTruth, ImageMatch
from metrics.detection.explain import OUTCOMES
from ui.teaching.stepper import step_table_style

__all__ = ["default_category", "greedy_walk", "step_text", "steps_html"]

MAX_STEPS_SHOWN = 12


def default_category(match: ImageMatch, gt: GroundTruth) -> int | None:
    """The category worth walking: the one with the most detections among those with an object
    that counts (else the one with the most detections); None on an image without detections."""
    if match.category.size == 0:
        return None
    counts = np.bincount(match.category, minlength=gt.n_categories)
    with_objects = np.zeros(gt.n_categories, dtype=bool)
    rows = match.gt_rows[np.isin(match.gt_outcome, ("found", "missed"))]
    with_objects[gt.category[rows]] = True
    pool = np.where(with_objects & (counts > 0), counts, 0)
    if pool.max() == 0:
        pool = counts
    return int(np.argmax(pool))


def greedy_walk(match: ImageMatch, gt: GroundTruth, category: int) -> pd.DataFrame:
    """One row a detection of ``category`` (an index into the ground truth's categories) in the
    order the match visits them, after a row 0 for "nothing matched yet".

    Columns: ``step, detection, score, free objects, best IoU (free), best free object,
    matched to, IoU, outcome, TP, FP, precision, recall``. COCO: an object is free until a
    detection takes it (a crowd region never is taken); the best free IoU is over the objects
    still free. VOC looks at its best overlap whether taken or not: there the column is the best
    IoU over every object.
    """
    det = np.flatnonzero(match.category == category)
    det = det[np.argsort(match.rank[det], kind="stable")]
    cols = np.flatnonzero(gt.category[match.gt_rows] == category)
    objects = match.gt_rows[cols]
    counts = np.isin(match.gt_outcome[cols], ("found", "missed"))
    n_pos = int(counts.sum())
    crowd = gt.iscrowd[objects]
    taken = np.zeros(cols.size, dtype=bool)
    ann = gt.ann_id
    rows = [
        {
            "step": 0,
            "detection": "",
            "score": np.nan,
            "free objects": int((~taken).sum()),
            "best IoU (free)": np.nan,
            "best free object": "",
            "matched to": "",
            "IoU": np.nan,
            "outcome": "",
            "TP": 0,
            "FP": 0,
            "precision": np.nan,
            "recall": 0.0 if n_pos else np.nan,
        }
    ]
    tp = fp = 0
    for step, j in enumerate(det, start=1):
        free = np.ones(cols.size, dtype=bool) if match.convention == "voc" else (~taken | crowd)
        ious = match.iou_matrix[j, cols]
        best = np.flatnonzero(free)[np.argmax(ious[free])] if free.any() else None
        outcome = str(match.outcome[j])
        if outcome == "tp":
            tp += 1
        elif outcome in ("fp", "duplicate"):
            fp += 1
        g = int(match.matched_gt[j])
        if g >= 0:
            taken[np.flatnonzero(objects == g)] = True
        rows.append(
            {
                "step": step,
                "detection": str(int(match.det_rows[j])),
                "score": float(match.score[j]),
                "free objects": int(free.sum()),
                "best IoU (free)": float(ious[best]) if best is not None else np.nan,
                "best free object": "" if best is None else f"annotation {int(ann[objects[best]])}",
                "matched to": f"annotation {int(ann[g])}" if g >= 0 else "—",
                "IoU": float(match.iou[j]),
                "outcome": OUTCOMES[outcome],
                "TP": tp,
                "FP": fp,
                "precision": tp / (tp + fp) if tp + fp else np.nan,
                "recall": tp / n_pos if n_pos else np.nan,
            }
        )
    frame = pd.DataFrame(rows)
    if match.convention == "voc":
        frame = frame.rename(
            columns={"best IoU (free)": "best IoU (any)", "best free object": "best object"}
        )
    frame.attrs["n_objects"] = n_pos
    return frame


def _num(v: float, digits: int = 3) -> str:
    return "—" if not np.isfinite(v) else f"{v:.{digits}f}"


def step_text(walk: pd.DataFrame, k: int, *, threshold: float, convention: str) -> str:
    """What step ``k`` did, in one or two sentences."""
    n_obj = walk.attrs.get("n_objects", 0)
    if k == 0:
        return (
            f"Nothing matched yet: {n_obj} object{'s' if n_obj != 1 else ''} of this category "
            f"count{'s' if n_obj == 1 else ''} on this image. The detections are visited from "
            "the highest score down; each takes one object or is an error."
        )
    r = walk.iloc[k]
    best_col = "best IoU (any)" if convention == "voc" else "best IoU (free)"
    rule = f"> {threshold:g}" if convention == "voc" else f"≥ {threshold:.2f}"
    head = f"Detection {r['detection']} (score {r['score']:.4g}): "
    outcome = r["outcome"]
    if outcome == OUTCOMES["tp"]:
        body = f"takes {r['matched to']} with IoU {_num(r['IoU'])} {rule}: a true positive."
    elif outcome == OUTCOMES["duplicate"]:
        body = (
            f"its object is already taken by a higher score; the best IoU it can still get is "
            f"{_num(r[best_col])}, not {rule}: a duplicate, counted as a false positive."
            if convention == "coco"
            else f"its best object is already taken (overlap {_num(r[best_col])}): a duplicate, "
            "counted as a false positive — VOC does not try the next-best object."
        )
    elif outcome == OUTCOMES["fp"]:
        body = f"best IoU {_num(r[best_col])} is not {rule}: a false positive."
    elif outcome == OUTCOMES["capped"]:
        body = "past the 100 highest scores of its category on this image: never evaluated."
    else:
        body = f"{outcome}: neither a true nor a false positive, the counts do not move."
    tail = (
        f" TP {int(r['TP'])}, FP {int(r['FP'])}: precision {_num(r['precision'], 2)}, "
        f"recall {_num(r['recall'], 2)}."
    )
    return head + body + tail


def steps_html(walk: pd.DataFrame, k: int, *, size: int = MAX_STEPS_SHOWN) -> str:
    """The walk as the step-through table draws it: the current step highlighted, the steps not
    yet taken faded, a window of ``size`` rows around the current one."""
    n = len(walk)
    start = 0 if n <= size else max(0, min(k - size // 2, n - size))
    stop = min(n, start + size)
    best_col = "best IoU (any)" if "best IoU (any)" in walk.columns else "best IoU (free)"
    heads = ["step", "detection", "score", best_col, "matched to", "outcome", "TP", "FP",
             "precision", "recall"]  # fmt: skip
    head = "".join(f"<th>{html.escape(h)}</th>" for h in heads)
    body = []
    for i in range(start, stop):
        r = walk.iloc[i]
        cls = "ml-new" if i == k else ("ml-later" if i > k else "")
        cells = [
            str(int(r["step"])),
            html.escape(str(r["detection"])),
            "" if not np.isfinite(r["score"]) else f"{r['score']:.4g}",
            "" if i == 0 else _num(r[best_col]),
            html.escape(str(r["matched to"])),
            html.escape(str(r["outcome"])),
            str(int(r["TP"])),
            str(int(r["FP"])),
            _num(r["precision"], 2),
            _num(r["recall"], 2),
        ]
        body.append(f'<tr class="{cls}">' + "".join(f"<td>{c}</td>" for c in cells) + "</tr>")
    note = ""
    if start or stop < n:
        note = f'<div class="ml-note">steps {start}–{stop - 1} of {n - 1}</div>'
    style = step_table_style(".ml-steps tr.ml-later td{opacity:.45}")
    return (
        f'{style}<table class="ml-steps" data-testid="greedy-steps">'
        f"<thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>{note}"
    )

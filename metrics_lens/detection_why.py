"""``metrics-lens detection --why``: why two conventions' mAPs differ on these boxes.

The walk of :func:`metrics.detection.convention_effects` (one rule at a time, a fixed order)
and TIDE's error breakdown (:func:`metrics.detection.tide_errors`), as text and as the
``"why"`` member of ``--json``. ``report`` has no detection door, so this is where the
Detection page's "Why the numbers differ" section reaches the command line.
"""

from __future__ import annotations

import math

__all__ = ["why", "why_json", "why_text"]


def why(gt, det, *, from_: str, to: str, iou):
    """(the walk, TIDE's result) on loaded boxes."""
    from metrics.detection import convention_effects, tide_errors

    return convention_effects(gt, det, from_=from_, to=to, iou_threshold=iou), tide_errors(gt, det)


def _num(v):
    v = float(v)
    return None if math.isnan(v) else v


def why_json(walk, tide, *, from_: str, to: str, iou: float) -> dict:
    from metrics.detection import RULES

    steps = []
    for row in walk.to_dict(orient="records"):
        steps.append(
            {
                "step": int(row["step"]),
                "rule": row["rule"],
                "label": row["label"],
                "setting_from": row["setting_from"],
                "setting_to": row["setting_to"],
                "change": row["change"],
                "n_changed": int(row["n_changed"]),
                "ap_before": _num(row["ap_before"]),
                "ap_after": _num(row["ap_after"]),
                "difference": _num(row["difference"]),
                "n_categories": int(row["n_categories"]),
                "largest_category": row["largest_category"] or None,
                "largest_category_change": _num(row["largest_category_change"]),
            }
        )
    return {
        "from": from_,
        "to": to,
        "iou_threshold": iou,
        "order": list(RULES),
        "map_from": _num(walk["ap_before"].iloc[0]),
        "map_to": _num(walk["ap_after"].iloc[-1]),
        "steps": steps,
        "tide": {
            "pos_threshold": tide.pos_threshold,
            "background_threshold": tide.background_threshold,
            "ap": _num(tide.ap),
            "errors": [
                {
                    "error": r["error"],
                    "label": r["label"],
                    "count": int(r["count"]),
                    "dap": _num(r["dap"]),
                }
                for r in tide.table.to_dict(orient="records")
            ],
        },
    }


def _pts(v, plus=False) -> str:
    if v != v:
        return "n/a"
    v = 100 * float(v)
    v = 0.0 if abs(v) < 0.005 else v
    return f"{v:+.2f}" if plus else f"{v:.2f}"


def why_text(walk, tide, *, from_: str, to: str, iou: float) -> str:
    lines = [
        f"Why the numbers differ: {from_} mAP@{iou if isinstance(iou, str) else f'{iou:g}'} "
        f"{_pts(walk['ap_before'].iloc[0])} -> "
        f"{to} {_pts(walk['ap_after'].iloc[-1])} (AP points), one rule at a time in this order:"
    ]
    for row in walk.to_dict(orient="records"):
        if row["setting_from"] == row["setting_to"]:
            lines.append(f"  {row['step']}. {row['label']}: the same in both")
            continue
        most = ""
        if row["largest_category"]:
            most = (
                f" (most in {row['largest_category']}: "
                f"{_pts(row['largest_category_change'], plus=True)})"
            )
        lines.append(
            f"  {row['step']}. {row['label']} ({row['setting_from']} -> {row['setting_to']}): "
            f"{_pts(row['difference'], plus=True)}; {row['change']}{most}"
        )
    lines.append(
        f"\nTIDE errors at IoU {tide.pos_threshold:g} (background {tide.background_threshold:g})"
        f": mAP {_pts(tide.ap)}; dAP is the AP fixing that type alone would recover."
    )
    lines.append(f"  {'error':<46} {'count':>8} {'dAP':>7}")
    for r in tide.table.to_dict(orient="records"):
        lines.append(f"  {r['label']:<46} {int(r['count']):>8,} {_pts(r['dap'], plus=True):>7}")
    return "\n".join(lines)

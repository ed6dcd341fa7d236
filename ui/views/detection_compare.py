"""The Detection page's "Detectors compared" section: with two or more detection files (or the
example's two detectors), every pair paired over images — COCO mAP and each category's AP
difference with a bootstrap interval and p-value under the declared family, and the categories
and images where the two differ most."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import streamlit as st

from metrics.detection import MAP_NAME
from metrics.families import family_pair_verdict
from metrics.significance import format_p
from ui.compute import detection_explain as de
from ui.compute.detection_compute import EXAMPLE, key_of
from ui.figures.detection_compare_charts import difference_forest_figure
from ui.views.show import chart
from ui.words.safe import md

__all__ = ["render"]

FAMILIES = {
    MAP_NAME: "COCO mAP only, declared before looking (per-class exploratory)",
    "all": "COCO mAP and every class, Holm across all",
}
TOP = 10


def _fmt(columns) -> dict:
    return {
        c: st.column_config.NumberColumn(c, format="%.4f")
        for c in columns
        if c not in ("metric", "category_id", "role", "significant", "image_id", "p", "Holm p")
        and not c.startswith(("TP ", "FP ", "ground"))
    }


def render(gt, dt, gt_key: str, det_files: tuple | None) -> None:
    """The section; ``dt`` is the page's (first) detections, ``det_files`` every uploaded
    detection file (None: the example's two detectors)."""
    st.subheader("Detectors compared")
    det_keys = tuple(key_of(*f) for f in det_files) if det_files else (EXAMPLE,)
    try:
        dets = de.detectors(gt_key, det_keys, gt, dt, det_files)
    except ValueError as exc:
        st.error(md(" ".join(str(exc).split()), 400), icon=":material/error:")
        return
    names = list(dets)
    if len(names) < 2:
        st.info(
            "Load two or more detection files (of the same images) to compare them: COCO mAP "
            "and every class's AP difference, paired over images, with intervals and p-values."
        )
        return
    try:
        comp = de.comparison(gt_key, det_keys, gt, dets)
    except ValueError as exc:
        st.error(md(" ".join(str(exc).split()), 400), icon=":material/error:")
        return
    c1, c2, c3 = st.columns([1, 1, 1.6])
    baseline = c1.selectbox("Baseline", names, key="detection_cmp_baseline")
    others = [n for n in names if n != baseline]
    candidate = c2.selectbox("Candidate", others, key="detection_cmp_candidate")
    family = c3.radio(
        "Family of tests",
        list(FAMILIES),
        format_func=FAMILIES.get,
        key="detection_cmp_family",
        help="Which tests a 'significant' may come from, chosen before looking at the results. "
        "Either way the chance of any wrong star is at most 5%.",
    )
    comp = comp.declare(family)
    pair = comp.pair(candidate, baseline)
    head = pair.iloc[0]
    ib, ia = names.index(baseline), names.index(candidate)
    m1, m2, m3 = st.columns(3)
    m1.metric(f"mAP {baseline}", f"{comp.map[ib]:.4f}")
    m2.metric(f"mAP {candidate}", f"{comp.map[ia]:.4f}")
    m3.metric(
        "Difference",
        f"{head['difference']:+.4f}",
        help=f"95% interval {head['ci_low']:+.4f} to {head['ci_high']:+.4f}",
    )
    row = next(
        r for r in comp.family.rows if r.metric == MAP_NAME and {r.a, r.b} == {candidate, baseline}
    )
    if row.a != candidate:  # the family stores the later detector first: say it our way round
        row = replace(row, a=candidate, b=baseline, estimate=-row.estimate)
    floor = 1 / comp.n_resamples  # a bootstrap of B resamples cannot tell p below 1/B from 0
    said = family_pair_verdict(row, ci=(head["ci_low"], head["ci_high"]), floor=floor)
    said += f" ({format_p(row.p_value, floor=floor)}"
    if np.isfinite(row.adjusted_p) and row.adjusted_p != row.p_value:
        said += ", " + format_p(row.adjusted_p, floor=floor, name="Holm-adjusted p")
    st.markdown(md(said + ").", 500))
    st.caption(
        md(
            f"Paired over {comp.n_images:,} images: {comp.n_resamples} resamples draw a "
            f"Poisson(1) count for every image, the same for every detector (seed {de.SEED}); "
            "an interval runs from the 2.5% to the 97.5% point of the resampled differences "
            "(order statistics) and a p-value is twice the smaller share beyond 0, so the "
            "interval leaves 0 out exactly when p < 0.05. The family: "
            + comp.table.attrs["family"],
            900,
        )
    )
    chart(
        difference_forest_figure(pair, candidate=candidate, baseline=baseline),
        key="detection_cmp_forest",
        name=f"ap-difference-{candidate}-{baseline}",
    )
    st.markdown("**The classes where they differ most**")
    classes = comp.classes(candidate, baseline).head(TOP)
    # p-values as words: a bootstrap of B resamples shows "p < 1/B", never a bare 0
    classes["p"] = [format_p(v, floor=floor, name="p") for v in classes["p_value"]]
    classes["Holm p"] = [
        format_p(v, floor=floor, name="p") if np.isfinite(v) else "—" for v in classes["p_adjusted"]
    ]
    classes = classes.drop(columns=["candidate", "baseline", "p_value", "p_adjusted"])
    st.dataframe(
        classes.replace({np.nan: None}),
        hide_index=True,
        column_config=_fmt(classes.columns),
        key="detection_cmp_classes",
    )
    st.markdown("**The images where they differ most**")
    images = comp.images(candidate, baseline, top=TOP)
    if images.empty:
        st.markdown("No image changes the difference: the two match every image alike.")
    else:
        st.dataframe(
            images, hide_index=True, column_config=_fmt(images.columns), key="detection_cmp_images"
        )
        st.caption(
            "influence: the mAP difference with the image minus without it (positive: the "
            f"image favours {md(candidate, 60)}). TP and FP are averaged over the ten IoU "
            "thresholds; pick an image above to see its boxes."
        )

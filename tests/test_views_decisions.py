"""The Decision curves page's pieces: its tables (ui.analyses.decisions_tables) and formulas
(ui.words.decisions_text) against the metrics library, and on the page."""

from __future__ import annotations

import math
from types import SimpleNamespace

import numpy as np
import pytest

import metrics
from metrics.thresholds import choose_threshold
from tests.apptest_utils import latex, open_page
from ui.analyses import decisions_tables as tables
from ui.compute.data import bundled_dataset
from ui.tables.dataset import DEFAULT_DATASET
from ui.words import decisions_text as words
from ui.words.text import num

RNG = np.random.default_rng(9)
Y = RNG.random(500) < 0.35
P = np.clip(0.3 * Y + 0.7 * RNG.random(500), 0.0, 1.0)
Q = np.clip(0.5 * Y + 0.5 * RNG.random(500), 0.0, 1.0)


def _area(x, y) -> float:
    return float(np.sum(np.diff(x) * (y[1:] + y[:-1]) / 2))


def _curves(y, s) -> SimpleNamespace:
    cx, cost = metrics.cost_curve(y, s)
    bx, bl = metrics.brier_curve(y, s)
    return SimpleNamespace(
        cost_x=cx, cost=cost, cost_area=_area(cx, cost), brier_area=_area(bx, bl),
        auprg=metrics.precision_recall_gain_auc(y, s), ap=metrics.average_precision_score(y, s),
        eer=metrics.equal_error_rate(y, s), n_pos=float(y.sum()), n_neg=float((~y).sum()),
    )  # fmt: skip


CURVES = {"p": _curves(Y, P), "q": _curves(Y, Q)}


@pytest.mark.parametrize("ratio", [0.25, 1.0, 4.0])
def test_the_cost_row_is_the_librarys_cost_at_the_threshold_and_on_the_envelope(ratio):
    # Youden's J is a linear objective: its threshold is a vertex of the ROC convex hull.
    t = choose_threshold(metrics.threshold_counts(Y, P), "youden").threshold
    c = metrics.confusion_at_threshold(Y, P, t)
    fpr, fnr = c.fp / (c.fp + c.tn), c.fn / (c.fn + c.tp)
    row = tables.cost_row("p", CURVES["p"], t, fpr, fnr, ratio)
    pi = Y.mean()
    pc = pi * ratio / (pi * ratio + 1 - pi)
    cx, cost = metrics.cost_curve(Y, P)
    assert row["PC(+)"] == pytest.approx(pc)
    assert row["cost at threshold"] == pytest.approx(fnr * pc + fpr * (1 - pc))
    assert row["least cost (envelope)"] == pytest.approx(np.interp(pc, cx, cost))
    assert row["least cost (envelope)"] <= row["cost at threshold"] + 1e-12
    low, high = (float(x) for x in row["optimal for PC(+) in"].strip("[]").split(","))
    assert np.interp(low, cx, cost) == pytest.approx(fnr * low + fpr * (1 - low), abs=1e-3)
    assert low <= high
    off_hull = tables.cost_row("p", CURVES["p"], 0.5, 0.9, 0.9, ratio)
    assert off_hull["optimal for PC(+) in"] == "none (off the ROC convex hull)"


def test_the_tables_beside_the_curves_are_the_librarys():
    brier = tables.brier_frame(CURVES, ["p", "q"])
    bx, bl = metrics.brier_curve(Y, Q)
    assert brier["area under Brier curve"][1] == pytest.approx(_area(bx, bl))
    assert brier["gap (threshold from the probabilities)"][0] == pytest.approx(
        CURVES["p"].brier_area - CURVES["p"].cost_area
    )
    gain = tables.gain_frame(CURVES, ["p", "q"])
    assert gain["AUPRG"][0] == metrics.precision_recall_gain_auc(Y, P)
    assert gain["prevalence"][1] == pytest.approx(Y.mean())
    det = tables.det_frame(CURVES, ["p", "q"])
    e = metrics.equal_error_rate(Y, Q)
    assert (det["EER"][1], det["nearest threshold"][1]) == (e.rate, e.threshold)


def test_the_brier_terms_make_the_area_under_the_brier_curve():
    pos, neg = tables.brier_terms(Y, P, None)
    assert (pos + neg) / 2 == pytest.approx(CURVES["p"].brier_area, abs=1e-3)
    weighted = tables.brier_terms(Y, P, np.full(Y.size, 2.0))
    assert weighted == pytest.approx((pos, neg))
    lines = words.brier_lines("p", pos, neg, CURVES["p"].brier_area)
    assert rf"\approx {num(CURVES['p'].brier_area)}" in lines[2]


def test_the_formulas_carry_the_first_models_numbers():
    c = metrics.confusion_at_threshold(Y, P, 0.5)
    fpr, fnr = c.fp / (c.fp + c.tn), c.fn / (c.fn + c.tp)
    row = tables.cost_row("p", CURVES["p"], 0.5, fpr, fnr, 2.0)
    cost = words.cost_lines("p", Y.mean(), 2.0, row)
    assert cost[0].endswith(f"= {num(row['PC(+)'])}")
    assert cost[2].endswith(f"= {num(row['cost at threshold'])}")
    assert cost[3].endswith(num(row["least cost (envelope)"]))
    gain = words.gain_lines("p", Y.sum(), (~Y).sum(), Y.mean(), CURVES["p"].auprg, CURVES["p"].ap)
    assert gain[2].endswith(
        rf"= {num(CURVES['p'].auprg)}, \qquad \text{{AP}} = {num(CURVES['p'].ap)}"
    )
    e = metrics.equal_error_rate(Y, P)
    det = words.det_lines("p", e)
    assert f"= {num(e.rate)}" in det[1]
    assert (r"\text{nearest threshold }" in det[1]) == math.isfinite(e.threshold)


def test_the_notes_name_the_models():
    assert words.same_envelopes([("a_1", "b")]).startswith(
        r":material/visibility_off: a\_1 draws exactly over b"
    )
    assert words.not_probabilities(["m", "n"]).startswith(
        "Not probabilities, so no Brier curve: **m**, **n**"
    )


def test_the_page_shows_the_librarys_numbers_in_the_formulas():
    at = open_page("pages/decisions.py")
    ds = bundled_dataset(DEFAULT_DATASET)
    m = ds.models[0]
    y, s = ds.labels_for(m), ds.score(m)
    e = metrics.equal_error_rate(y, s)
    assert any(x.endswith(f"= {num(e.rate)}") or f"= {num(e.rate)}" in x for x in latex(at))
    pos, neg = tables.brier_terms(y, s, None)
    assert any(rf"\tfrac12\,({num(pos)} + {num(neg)})" in x for x in latex(at))

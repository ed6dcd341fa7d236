"""The Threshold page's pieces: its words (ui.words.threshold_text) and choices
(ui.analyses.threshold_presets) against the metrics library, and its sections
(ui.views.threshold_view) on the page."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go
import pytest

import metrics
from metrics.thresholds import choose_threshold
from tests.apptest_utils import open_page
from ui.analyses import threshold_presets as presets
from ui.compute.data import bundled_dataset
from ui.tables.dataset import DEFAULT_DATASET
from ui.words import threshold_text as words
from ui.words.numbers import decimals
from ui.words.text import num

RNG = np.random.default_rng(7)
Y = RNG.random(400) < 0.3
S = np.round(np.clip(0.35 * Y + 0.65 * RNG.random(400), 0, 1), 2)  # ties on purpose
COUNTS = metrics.threshold_counts(Y, S)


def test_the_cards_show_the_librarys_rates_and_a_dash_where_one_is_undefined():
    c = metrics.confusion_at_threshold(Y, S, 0.5)
    cards = {name: value for name, value, _ in words.rate_cards(COUNTS.at(0.5), 2.0, True, True)}
    assert cards["Precision"] == decimals(c.precision, 3)
    assert cards["Recall (TPR)"] == decimals(c.recall, 3)
    assert cards["FPR"] == decimals(c.fpr, 3)
    assert cards["F2"] == decimals(c.f_beta(2.0), 3)
    assert cards["MCC"] == decimals(c.mcc, 3)
    assert cards["Cohen's kappa"] == decimals(c.cohen_kappa, 3)
    no_positives = dict((n, v) for n, v, _ in words.rate_cards(c, 1.0, False, True))
    assert no_positives["Recall (TPR)"] == no_positives["Balanced accuracy"] == "—"
    assert no_positives["Precision"] == decimals(c.precision, 3)


def test_the_formulas_carry_the_counts_and_chance_agreement_of_the_library():
    c = metrics.confusion_at_threshold(Y, S, 0.4)
    n = float(Y.size)
    lines = words.explain_lines(c, 1.0, n)
    chance = ((c.tp + c.fp) * (c.tp + c.fn) + (c.tn + c.fn) * (c.tn + c.fp)) / n**2
    assert lines[0].endswith(f"= {num(c.precision)}")
    assert lines[-1].endswith(f"p_e = {num(chance)},\\quad \\kappa = {num(c.cohen_kappa)}")
    assert (1 - chance) * c.cohen_kappa == pytest.approx(c.accuracy - chance)
    assert f"n = {Y.size:,}." in words.explain_note("0.4", n, weighted=False)
    assert "sum the weights" in words.explain_note("0.4", n, weighted=True)


def test_the_flagged_line_counts_the_rows_the_library_flags():
    c = metrics.confusion_at_threshold(Y, S, 0.5)
    flagged = float(c.tp + c.fp)
    line = words.flagged_line(
        "0.5", "yes", flagged, float(Y.size), weighted=False, prevalence=None,
        data_prevalence=Y.mean(), presenting=False,
    )  # fmt: skip
    assert f"**{int(flagged):,}** of {Y.size:,} rows." in line
    assert words.amount(flagged + 0.5, True) == f"{flagged + 0.5:,.1f}"
    nothing = words.flagged_line(
        "2", "yes", 0.0, 10.0, weighted=True, prevalence=0.2, data_prevalence=0.3, presenting=True
    )
    assert "(none: the threshold is above every score)." in nothing
    assert "Reweighted to prevalence **0.200** (data 0.300)." in nothing


def test_the_reweighting_caption_gives_the_weights_the_library_uses():
    moved = COUNTS.at_prevalence(0.1)
    caption = words.reweight_caption(0.1, float(Y.mean()), "yes", "no")
    assert f"each yes row counts {float(moved.n_pos / COUNTS.n_pos):.3g}" in caption
    assert f"each no row {float(moved.n_neg / COUNTS.n_neg):.3g}" in caption


@pytest.mark.parametrize("wanted", [1, 37, 120, 399.5])
def test_top_k_flags_at_least_k_rows_and_the_next_threshold_fewer(wanted):
    t = presets.top_threshold(COUNTS, wanted)
    c = metrics.confusion_at_threshold(Y, S, t)
    assert c.tp + c.fp >= min(wanted, Y.size) - 1e-9
    higher = np.unique(S[t < S])
    if higher.size:
        c_up = metrics.confusion_at_threshold(Y, S, higher[0])
        assert c_up.tp + c_up.fp < wanted


def _guaranteed(metric: str, target: float):
    return metrics.threshold_with_guarantee(Y, S, metric=metric, target=target)


def test_a_plain_preset_is_the_librarys_choice_and_its_caption_names_it():
    choice, guarantee, why = presets.choose(
        COUNTS, "Max F-beta", _guaranteed, beta=2.0, target=0.9, cost_fp=1.0, cost_fn=5.0
    )
    assert (guarantee, why) == (None, "")
    assert choice == choose_threshold(COUNTS, "max_f_beta", beta=2.0, target=0.9)
    caption = words.preset_caption("Max F-beta", choice, 2.0, 0.9)
    assert (
        caption == f"Max F-beta: threshold {choice.threshold:.6g}, where F2 is {choice.value:.4g}."
    )
    inverted = metrics.threshold_counts([0, 1], [0.9, 0.1])  # precision never above 1/2
    none = choose_threshold(inverted, "precision_at_least", target=0.9)
    assert none.threshold is None
    assert words.preset_caption("Precision ≥ target", none, 1.0, 0.9).startswith("No threshold")


def test_a_guaranteed_preset_holds_the_librarys_bound_or_says_why_not():
    choice, guarantee, why = presets.choose(
        COUNTS, "Recall ≥ target, guaranteed", _guaranteed, beta=1, target=0.8, cost_fp=1, cost_fn=5
    )
    expected = metrics.threshold_with_guarantee(Y, S, metric="recall", target=0.8)
    assert guarantee == expected
    assert why == ""
    assert choice.threshold == expected.threshold
    kw = dict(beta=1.0, cost_fp=1.0, cost_fn=5.0)
    _, none, why = presets.choose(
        COUNTS, "Recall ≥ target, guaranteed", _guaranteed, target=1.0, **kw
    )
    assert none is None
    assert "strictly between 0 and 1, not 1" in why
    _, none, why = presets.choose(
        COUNTS, "Precision ≥ target, guaranteed", lambda m, t: None, target=0.9, **kw
    )
    assert none is None
    assert why == presets.NO_ROW_WEIGHTS

    def refuse(metric, target):
        raise ValueError("a group is missing")

    choice, none, why = presets.choose(
        COUNTS, "Recall ≥ target, guaranteed", refuse, target=0.9, **kw
    )
    assert (choice.threshold, none, why) == (None, None, "a group is missing")


def test_the_cells_hold_the_rows_of_the_librarys_confusion_matrix():
    c = metrics.confusion_at_threshold(Y, S, 0.45)
    cells = presets.cells(S, Y, 0.45)
    sums = [int(mask.sum()) for mask in list(cells.values())[:4]]
    assert sums == [c.tp, c.fp, c.fn, c.tn]
    assert cells["a score range"] is None


def test_presented_figures_are_resized_copies():
    shared = {name: go.Figure(layout=dict(height=300)) for name in ("matrix", "roc", "pr", "rates")}
    shown = presets.presented(shared, 262)
    assert {f.layout.height for f in shown.values()} == {262}
    assert {f.layout.height for f in shared.values()} == {300}
    assert shown["roc"].layout.yaxis.constrain == "domain"
    assert shown["rates"].layout.title.text == "Rates vs threshold"


def test_the_words_name_the_rule_and_the_modes():
    assert words.rule("a*b", "probability").startswith(r"A row is predicted **a\*b**")
    assert "top k" not in words.mode_help(weighted=True)
    assert "top k / top %" in words.mode_help(weighted=False)


def test_the_page_sections_show_the_librarys_numbers():
    """ui.views.threshold_view on the sample: the flagged line, a preset's caption, the rows
    behind a cell."""
    at = open_page("pages/threshold.py")
    ds = bundled_dataset(DEFAULT_DATASET)
    y, s = ds.labels_for("logistic_regression"), ds.score("logistic_regression")
    c = metrics.confusion_at_threshold(y, s, 0.5)
    line = next(m.value for m in at.markdown if m.value.startswith("Scores ≥"))
    assert f"**{int(c.tp + c.fp):,}** of {y.size:,} rows" in line
    counts = metrics.threshold_counts(y, s)
    choice = choose_threshold(counts, "max_f_beta", beta=1.0)
    assert any(f"threshold {choice.threshold:.6g}, where F1 is {choice.value:.4g}" in x.value
               for x in at.caption)  # fmt: skip
    assert any(x.value.startswith(f"{int(c.tp):,} rows TP") for x in at.caption)

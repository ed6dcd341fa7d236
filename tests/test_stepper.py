"""Step-through mode: the walk's counts, sentences and running sums (pure), and the page
headless (AppTest): Next / Previous move one distinct score, tied rows cross together."""

from __future__ import annotations

import base64

import numpy as np
import pandas as pd
import pytest

import metrics
from tests.apptest_utils import figures, open_page, upload_frame
from tests.test_charts import MATRIX_LOOK, shown_matrix
from ui.teaching import stepper
from ui.words.numbers import decimals

# Eight rows with a positive and a negative tied at 0.62.
Y8 = np.array([1, 1, 0, 1, 0, 1, 0, 0])
S8 = np.array([0.9, 0.8, 0.7, 0.62, 0.62, 0.4, 0.3, 0.1])
PAGE = "pages/step_through.py"


def _slow_counts(y, s, t):
    """Counts at threshold t by looping over rows (score >= t is positive)."""
    tp = sum(1 for a, b in zip(y, s, strict=True) if a and b >= t)
    fp = sum(1 for a, b in zip(y, s, strict=True) if not a and b >= t)
    return tp, fp


def _slow_pairs(y, s):
    pos = [b for a, b in zip(y, s, strict=True) if a]
    neg = [b for a, b in zip(y, s, strict=True) if not a]
    return sum(1.0 if p > n else 0.5 if p == n else 0.0 for p in pos for n in neg)


def test_eight_rows_step_by_step():
    w = stepper.walk(Y8, S8)
    assert w.n_steps == 7  # eight rows, two of them tied
    expected = [(0, 0), (1, 0), (2, 0), (2, 1), (3, 2), (4, 2), (4, 3), (4, 4)]
    assert [(int(w.tp[k]), int(w.fp[k])) for k in range(8)] == expected
    c = w.confusion(4)
    assert (c.tp, c.fp, c.tn, c.fn) == (3, 2, 2, 1)
    assert w.crossed(4).tolist() == [3, 4]  # the tied pair crosses as one step


def test_sentences_say_what_changed():
    w = stepper.walk(Y8, S8)
    assert stepper.change_text(w, 1).startswith(
        "row 1 (score 0.9, positive) crossed: TP 0 → 1, FN 4 → 3, recall 0.00 → 0.25"
    )
    three = stepper.change_text(w, 3)
    assert "row 3 (score 0.7, negative) crossed: FP 0 → 1, TN 4 → 3" in three
    assert "precision 1.00 → 0.67" in three
    tie = stepper.change_text(w, 4)
    assert tie.startswith("rows 4, 5 (tied at score 0.62: 1 positive, 1 negative) crossed together")
    assert "TP 2 → 3" in tie
    assert "FP 1 → 2" in tie
    assert "diagonally" in tie
    assert "no row is predicted positive" in stepper.change_text(w, 0)


def test_row_numbers_follow_the_table():
    w = stepper.walk(Y8, S8, row_numbers=np.arange(11, 19))
    assert stepper.change_text(w, 1).startswith("row 11 ")


@pytest.mark.parametrize("seed", range(6))
def test_running_sums_end_on_the_library_values(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(5, 80))
    y = rng.random(n) < 0.4
    y[:2] = [True, False]
    s = np.round(rng.random(n), int(rng.integers(1, 3)))  # ties
    w = stepper.walk(y, s)
    assert w.ap_running[-1] == pytest.approx(metrics.average_precision_score(y, s), abs=1e-12)
    assert w.auc_so_far(w.n_steps) == pytest.approx(metrics.roc_auc_score(y, s), abs=1e-12)
    assert w.pairs_running[-1] == _slow_pairs(y, s)
    for k in range(1, w.n_steps + 1):
        assert (w.tp[k], w.fp[k]) == _slow_counts(y, s, w.thresholds[k - 1])
    # the running sums only grow, and each term is the step's own
    assert (np.diff(w.ap_running) >= -1e-15).all()
    assert (np.diff(w.pairs_running) >= 0).all()


def test_one_class_is_refused():
    with pytest.raises(ValueError, match="one positive and one negative"):
        stepper.walk([1, 1], [0.2, 0.3])


def test_table_draws_a_window_around_the_line():
    rng = np.random.default_rng(0)
    y = rng.random(300) < 0.3
    s = rng.random(300)
    w = stepper.walk(y, s)
    start, stop = stepper.table_window(w, 150)
    assert stop - start == stepper.MAX_TABLE_ROWS
    assert start < w.first_row[150] <= stop
    html = stepper.table_html(w, 150)
    assert html.count("<tr") == stepper.MAX_TABLE_ROWS + 2  # header, rows, the line
    assert "of 300 by score" in html


def test_table_escapes_class_names():
    w = stepper.walk(Y8, S8)
    html = stepper.table_html(w, 2, positive_name="<b>yes</b>")
    assert "<b>yes" not in html
    assert "&lt;b&gt;yes" in html


def test_roc_figure_has_the_diagonal_of_the_tie():
    w = stepper.walk(Y8, S8)
    fig = stepper.roc_step_figure(w, 4)
    walked = fig.data[1]
    assert list(walked.x)[-2:] == [0.25, 0.5]
    assert list(walked.y)[-2:] == [0.5, 0.75]
    assert (fig.data[2].x[0], fig.data[2].y[0]) == (0.5, 0.75)


# --- the page ---------------------------------------------------------------------------------


def _eight_rows(at):
    frame = pd.DataFrame({"label": Y8, "score": S8})
    upload_frame(at, frame)
    at.switch_page(PAGE).run()
    assert not at.exception, at.exception
    return at


def _matrix(at) -> list[list[float]]:
    """The confusion matrix heatmap's counts as sent (a list or a base64 typed array)."""
    z = figures(at)[0]["data"][0]["z"]
    if isinstance(z, dict):
        flat = np.frombuffer(base64.b64decode(z["bdata"]), dtype=z["dtype"])
        z = flat.reshape([int(n) for n in str(z["shape"]).split(",")])
    return np.asarray(z).tolist()


def test_matrix_figure_draws_what_it_drew():
    """The step-through's matrix, pinned: the same cells, texts, colours, labels and sizes, in
    the page's mode and in presentation mode (18 px axis text, cells 17 x 18/12)."""
    fig = stepper.matrix_figure(stepper.walk(Y8, S8), 4, height=140)
    expected = {
        **MATRIX_LOOK,
        "cells": [
            ("actual −", "predicted −", 2.0, "TN 2"),
            ("actual −", "predicted +", 2.0, "FP 2"),
            ("actual +", "predicted −", 1.0, "FN 1"),
            ("actual +", "predicted +", 3.0, "TP 3"),
        ],
        "text_size": 17,
        "font_size": 12,
        "axis_titles": (None, None),
        "tickangles": (None, None),
        "height": 140,
        "margin": (10, 10, 6, 6),
        "hover": "skip",
    }
    assert shown_matrix(fig) == expected
    presenting = shown_matrix(fig, presentation=True)
    assert (presenting["text_size"], presenting["font_size"]) == (25.5, 18)
    assert presenting["tick_sizes"] == (18, 18)  # named: the chart theme drew them smaller
    # Counts with thousands commas; the default height.
    many = stepper.walk(np.r_[np.ones(3), np.zeros(1234)], np.arange(1237.0)[::-1])
    fig = stepper.matrix_figure(many, 0)
    assert [cell[3] for cell in shown_matrix(fig)["cells"]] == ["TN 1,234", "FP 0", "FN 3", "TP 0"]
    assert fig.layout.height == 150


def test_page_steps_with_next_and_previous():
    at = _eight_rows(open_page("pages/threshold.py"))
    assert at.number_input(key="step_through_k").value == 0
    expected = [(0, 0), (1, 0), (2, 0), (2, 1), (3, 2), (4, 2), (4, 3), (4, 4)]
    for k in range(1, 8):
        at.button(key="step_through_next").click().run()
        assert not at.exception
        tp, fp = expected[k]
        assert _matrix(at) == [[4 - fp, fp], [4 - tp, tp]], k
        assert f"**Step {k} of 7**" in at.markdown[0].value
    assert at.button(key="step_through_next").disabled
    ap = metrics.average_precision_score(Y8, S8)
    auc = metrics.roc_auc_score(Y8, S8)
    text = " ".join(m.value for m in at.markdown)
    assert f"**AP step sum** {decimals(ap)} = library AP" in text
    assert f"**AUC pair count** {decimals(auc)} = library AUC" in text  # 0.78125: 0.7813
    at.button(key="step_through_prev").click().run()
    assert at.number_input(key="step_through_k").value == 6
    at.number_input(key="step_through_k").set_value(4).run()
    assert "crossed together" in at.markdown[0].value
    assert _matrix(at) == [[2, 2], [1, 3]]


def test_page_opens_on_a_bundled_dataset_and_jumps():
    at = open_page(PAGE, "breast_cancer")
    assert not at.exception
    ds_steps = at.number_input(key="step_through_k")
    assert ds_steps.value == 0
    ds_steps.set_value(100).run()
    assert not at.exception
    assert "**Step 100 of" in at.markdown[0].value
    assert len(figures(at)) == 3

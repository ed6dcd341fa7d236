"""The GAUC page's pieces: its formulas and table (ui.teaching.gauc_explain) and sentences
(ui.words.gauc_text) against the metrics library, and its sections (ui.views.gauc_view) on the
page."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import metrics
from metrics.significance import format_p
from tests.apptest_utils import markdown_text, metric_value, open_page
from ui.compute.data import bundled_dataset
from ui.figures import gauc_charts
from ui.teaching import gauc_explain
from ui.words import gauc_text as words
from ui.words.numbers import count, decimals
from ui.words.text import num

RNG = np.random.default_rng(5)
G = RNG.integers(0, 40, 900).astype(str)
Y = RNG.random(900) < 0.3
A = Y * 0.3 + RNG.random(900)
B = Y * 0.5 + RNG.random(900)
TABLE_A = metrics.group_auc_table(Y, A, G)
TABLE_B = metrics.group_auc_table(Y, B, G)


@pytest.mark.parametrize("weighting", ["impressions", "positives", "uniform"])
def test_the_gauc_formula_is_the_librarys_weighted_mean(weighting):
    gauc = metrics.group_auc_score(Y, A, G, weighting=weighting)
    global_auc = metrics.roc_auc_score(Y, A)
    lines, note = gauc_explain.gauc(TABLE_A, weighting, gauc, global_auc, weighted=False)
    w = TABLE_A.weights(weighting)
    total = float(w.sum())
    weighted_sum = float(np.dot(w[TABLE_A.defined], TABLE_A.auc[TABLE_A.defined]))
    assert weighted_sum / total == pytest.approx(gauc, rel=1e-12)
    assert lines[1] == (
        rf"\text{{GAUC}} = \frac{{{num(weighted_sum, 8)}}}{{{num(total, 8)}}} = {num(gauc)}"
    )
    within = float(np.sum(TABLE_A.positives * TABLE_A.negatives))
    every = float(Y.sum() * (~Y).sum())
    assert f"compares all {count(every)} positive-negative pairs" in note
    assert f"the {count(within)} pairs within a user ({within / every:.1%} of them)" in note
    assert f"Global AUC ({decimals(global_auc)})" in note


def test_one_users_formula_is_that_users_auc_by_the_library():
    lines, note = gauc_explain.one_user(TABLE_A)
    rows = np.where(TABLE_A.defined, TABLE_A.rows, -1)
    user = TABLE_A.group[int(np.argmax(rows))]
    mine = np.asarray(G) == user
    auc = metrics.roc_auc_score(Y[mine], A[mine])
    p, n = int(Y[mine].sum()), int((~Y[mine]).sum())
    assert lines[1].endswith(rf"{{{num(p, 8)} \cdot {num(n, 8)}}} = {num(auc)}")
    assert f"u = {user}, the counted user with the most rows ({mine.sum():,})" in note


def test_the_small_example_is_the_librarys_gauc():
    lines, note = gauc_explain.example()
    gauc = metrics.group_auc_score(*gauc_charts.four_users_example())
    assert lines[1].endswith(f"= {num(gauc)}")
    assert note.endswith(f"GAUC = {decimals(gauc)}.")
    assert "skipped" in lines[0]


def test_the_offset_names_its_scale():
    click = gauc_explain.offset("click_rate", 0.125, 2.5)
    assert rf"\overline{{\text{{click rate}}}} = {num(0.125)}" in click[0]
    assert click[0].endswith(f" = {num(2.5)}")
    assert "z_u" in gauc_explain.offset("random", 0.125, 2.5)[0]


def test_the_shown_users_are_the_most_active_with_skipped_written_out():
    users = gauc_charts.user_frame(TABLE_A, "impressions")
    shown = gauc_explain.shown_users(users, 10)
    assert len(shown) == 10
    assert shown["rows"].min() >= np.sort(TABLE_A.rows)[-10]
    every = gauc_explain.shown_users(users, 10_000)
    expected = ["skipped" if np.isnan(a) else decimals(a) for a in TABLE_A.auc]
    assert every["AUC"].tolist() == expected


def test_the_sentences_count_what_the_library_counts():
    reasons = pd.Series(TABLE_A.reason).value_counts()
    sentence = words.skipped(gauc_charts.skipped_counts(TABLE_A), "clicked", "not")
    assert f"{reasons.get('only negatives', 0):,} with only negatives (not)" in sentence
    assert words.defined(float("nan")) == "undefined"
    assert words.defined(0.8125) == decimals(0.8125)
    assert words.users_caption(900, 3, None).startswith("900 users, 3 skipped (weight 0).")
    assert words.users_caption(900, 3, 100).endswith("Showing the 100 users with the most rows.")
    both = TABLE_A.defined & TABLE_B.defined
    better = np.mean(TABLE_B.auc[both] > TABLE_A.auc[both])
    h2h = words.head_to_head("a", "b", gauc_charts.head_to_head(TABLE_A, TABLE_B))
    assert f"b ranks {better:.1%} better" in h2h
    assert "**a** has the higher global AUC, **b** the higher GAUC" in words.disagree("a", "b")


def test_the_difference_sentence_is_the_librarys_bootstrap():
    boot = metrics.cluster_bootstrap(
        np.column_stack([TABLE_A.auc, TABLE_B.auc]),
        np.column_stack([TABLE_A.weights("impressions"), TABLE_B.weights("impressions")]),
        n_resamples=200,
    )
    d, p = boot.differences[(0, 1)], boot.difference_p_value(0, 1)
    sentence = words.difference("impressions", "a", "b", d, p, boot.n_resamples)
    assert sentence.startswith(
        f"**GAUC (impressions) of a − b: {decimals(d.estimate, plus=True)} "
        f"[{decimals(d.ci_low, plus=True)}, {decimals(d.ci_high, plus=True)}]**"
    )
    assert format_p(p, floor=1 / 200) in sentence
    assert sentence.endswith(": b is better.")  # b ranks within users better, by construction


def test_the_page_sections_show_the_librarys_numbers():
    """ui.views.gauc_view on the recommender sample: the shifted GAUC stays the library's, the
    head-to-head difference is GAUC(a) − GAUC(b)."""
    at = open_page("pages/gauc.py", "user_impressions")
    ds = bundled_dataset("user_impressions")
    g = ds.prepared.groups
    gauc = {m: metrics.group_auc_score(ds.y, ds.score(m), g) for m in ("model_a", "model_b")}
    assert metric_value(at, "GAUC (impressions), shifted") == decimals(gauc["model_a"])
    difference = decimals(gauc["model_a"] - gauc["model_b"], plus=True)
    assert f"GAUC (impressions) of model\\_a − model\\_b: {difference} [" in markdown_text(at)

"""AUC lab builders (ui.figures.auc_charts) without Streamlit: what the figures send, the tables, the
formulas, and seed 004's worked numbers."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

import metrics
from ui.figures import auc_charts as ac
from ui.figures.charts import MAX_POINTS, sample_indices

# --- slow, obviously-correct references ---------------------------------------------------------


def _pairs_by_loop(y, s):
    wins = ties = losses = 0
    for i in np.flatnonzero(y):
        for j in np.flatnonzero(~y):
            if s[i] > s[j]:
                wins += 1
            elif s[i] == s[j]:
                ties += 1
            else:
                losses += 1
    return wins, ties, losses


def _diagonals_by_loop(y, s):
    """Thresholds (descending distinct scores) whose tied rows hold both classes."""
    out = []
    for i, v in enumerate(np.unique(s)[::-1]):
        at = s == v
        if y[at].any() and (~y[at]).any():
            out.append(i)
    return out


def _random(seed, n=300, levels=12):
    rng = np.random.default_rng(seed)
    y = rng.random(n) < 0.35
    s = np.round(rng.random(n) + 0.4 * y, 1) * levels // 1 / levels  # heavy ties
    return y, s


PRESET_NUMBERS = {
    # title: (wins, ties, losses, exact AUC, pair text, rank text)
    "AUC 0.75: no ties": (3, 0, 1, Fraction(3, 4), "3/4 = 0.75", "(6 − 3) / (2·2)"),
    "AUC 0.875: a tie counts 1/2": (
        3,
        1,
        0,
        Fraction(7, 8),
        "(3 + 1/2) / (2·2) = 3.5/4 = 0.875",
        "(6.5 − 3) / (2·2) = 3.5/4 = 0.875",
    ),
    "AUC 10/12: the rank formula with ties": (
        8,
        4,
        0,
        Fraction(10, 12),
        "(8 + 4/2) / (4·3) = 10/12 = 0.8333",
        "(20 − 10) / (4·3) = 10/12 = 0.8333",
    ),
}


# --- seed 004 ----------------------------------------------------------------------------------


@pytest.mark.parametrize("title", list(ac.PRESETS))
def test_presets_reproduce_seed_004(title):
    p = ac.PRESETS[title]
    wins, ties, losses, exact, pair_text, rank_text = PRESET_NUMBERS[title]
    counts = metrics.threshold_counts(p.y, p.scores)
    pc = ac.pair_counts(counts)
    assert (pc.wins, pc.ties, pc.losses) == (wins, ties, losses)
    grid = metrics.auc_pair_grid(p.y, p.scores)
    assert (grid.wins, grid.ties, grid.losses) == (wins, ties, losses)
    assert not grid.sampled
    table = metrics.auc_rank_table(p.y, p.scores)
    library = metrics.roc_auc_score(p.y, p.scores)
    for value in (pc.auc, grid.auc, table.auc, library):
        assert value == pytest.approx(float(exact), abs=1e-15)
    assert pair_text in ac.pair_count_text(pc)
    assert rank_text in ac.rank_sum_text(table)


def test_rank_preset_ranks_and_rank_sum_match_the_seed():
    p = ac.PRESETS["AUC 10/12: the rank formula with ties"]
    frame = ac.rank_frame(metrics.auc_rank_table(p.y, p.scores))
    assert frame["rank"].tolist() == [1, 3.5, 3.5, 3.5, 3.5, 6, 7]
    assert frame["score"].tolist() == [0.3, 0.5, 0.5, 0.5, 0.5, 0.7, 0.8]
    assert frame["label"].tolist() == [0, 1, 1, 0, 0, 1, 1]
    assert frame["tied rows"].tolist() == [1, 4, 4, 4, 4, 1, 1]
    assert frame["position"].tolist() == list(range(1, 8))
    lines = ac.rank_sum_latex(metrics.auc_rank_table(p.y, p.scores))
    assert r"R_{pos} = 3.5 + 3.5 + 6 + 7 = 20" in lines
    assert r"\frac{20 - 4\cdot5/2}{4 \cdot 3}" in lines[-1]
    assert r"\frac{10}{12} = 0.8333" in lines[-1]


def test_example_1_rank_formula_is_the_seeds():
    p = ac.PRESETS["AUC 0.75: no ties"]
    t = metrics.auc_rank_table(p.y, p.scores)
    assert ac.rank_frame(t)["rank"].tolist() == [1, 2, 3, 4]
    assert ac.rank_sum_text(t).endswith("(6 − 3) / (2·2) = 3/4 = 0.75")


# --- pair counts -------------------------------------------------------------------------------


@pytest.mark.parametrize("seed", range(5))
def test_pair_counts_equal_the_loop_and_the_library(seed):
    y, s = _random(seed)
    pc = ac.pair_counts(metrics.threshold_counts(y, s))
    assert (pc.wins, pc.ties, pc.losses) == _pairs_by_loop(y, s)
    assert pc.ties > 0
    assert (pc.n_pos, pc.n_neg) == (y.sum(), (~y).sum())
    assert pc.auc == pytest.approx(metrics.roc_auc_score(y, s), abs=1e-12)
    grid = metrics.auc_pair_grid(y, s, max_per_class=400)
    assert (grid.wins, grid.ties, grid.losses) == (pc.wins, pc.ties, pc.losses)


def test_pair_count_latex_substitutes_the_counts():
    pc = ac.PairCounts(wins=75327, ties=2, losses=355, n_pos=212, n_neg=357)
    lines = ac.pair_count_latex(pc)
    assert lines[0] == r"\text{AUC} = \frac{\text{wins} + \text{ties}/2}{P \cdot N}"
    assert r"\frac{75\,327 + 2/2}{212 \cdot 357}" in lines[1]
    assert r"\frac{75\,328}{75\,684}" in lines[1]
    assert lines[1].endswith(f"= {pc.auc:.4g}")


def test_plain_numbers_and_plurals():
    assert ac.plain(54216852) == "54,216,852"
    assert ac.plain(1183123.5) == "1,183,123.5"
    assert ac.plain(0.8333333) == "0.8333"
    assert ac.frac(3.5, 4) == "3.5/4"
    assert ac.outcomes_text(3, 1, 0) == "3 wins, 1 tie, 0 losses"
    assert ac.outcomes_text(1, 0, 1, bold=True) == "**1 win**, **0 ties**, **1 loss**"


# --- the pair grid figure ----------------------------------------------------------------------


def test_small_grid_sends_the_outcomes_with_cell_text_and_score_ticks():
    p = ac.PRESETS["AUC 0.875: a tie counts 1/2"]
    grid = metrics.auc_pair_grid(p.y, p.scores)
    fig = ac.pair_grid_figure(grid)
    assert len(fig.data) == 1
    heat = fig.data[0]
    assert heat.type == "heatmap"
    np.testing.assert_array_equal(np.asarray(heat.z), [[1.0, 1.0], [0.5, 1.0]])
    assert np.asarray(heat.text).tolist() == [["1", "1"], ["½", "1"]]
    assert (heat.zmin, heat.zmax) == (0, 1)
    # discrete: three colours, each over a third of the range
    colours = [c for _, c in heat.colorscale]
    assert set(colours) == set(ac.OUTCOME_COLORS.values())
    assert list(heat.colorbar.ticktext) == ["loss (0)", "tie (½)", "win (1)"]
    assert list(fig.layout.xaxis.ticktext) == ["0.4", "0.1"]
    assert list(fig.layout.yaxis.ticktext) == ["0.8", "0.4"]
    custom = np.asarray(heat.customdata)
    assert custom.shape == (2, 2, 2)
    assert custom[1, 0].tolist() == [0.4, 0.4]


def test_large_grid_is_a_sample_without_cell_text():
    y, s = _random(1, n=5000)
    grid = metrics.auc_pair_grid(y, s, max_per_class=150, seed=3)
    assert grid.sampled
    fig = ac.pair_grid_figure(grid, positive_name="clicked", negative_name="not clicked")
    heat = fig.data[0]
    assert np.asarray(heat.z).shape == (150, 150)
    assert heat.text is None
    assert np.asarray(heat.z).mean() == pytest.approx(grid.auc)
    assert "(sample)" in fig.layout.xaxis.title.text
    assert fig.layout.yaxis.title.text.startswith("clicked (sample)")


# --- the ROC staircase -------------------------------------------------------------------------


@pytest.mark.parametrize("seed", range(4))
def test_diagonal_runs_are_the_thresholds_with_both_classes(seed):
    y, s = _random(seed)
    counts = metrics.threshold_counts(y, s)
    assert ac.diagonal_runs(counts).tolist() == _diagonals_by_loop(y, s)
    assert ac.diagonal_runs(counts).size > 0


def _roc_parts(y, s):
    fpr, tpr, thr = metrics.roc_curve(y, s, drop_intermediate=False)
    return fpr, tpr, thr, metrics.threshold_counts(y, s)


def test_small_staircase_draws_every_point_and_the_tied_segment():
    p = ac.PRESETS["AUC 10/12: the rank formula with ties"]
    fpr, tpr, thr, counts = _roc_parts(np.array(p.y, bool), np.array(p.scores))
    fig = ac.roc_staircase_figure(fpr, tpr, thr, counts, auc=10 / 12)
    chance, curve, diag = fig.data
    assert chance.name.startswith("chance")
    np.testing.assert_array_equal(curve.x, fpr)
    np.testing.assert_array_equal(curve.y, tpr)
    assert "markers" in curve.mode
    assert curve.name == "ROC (AUC 0.8333)"
    # the four rows tied at 0.5 (2 positives, 2 negatives) move from (0, 1/2) to (2/3, 1)
    assert list(diag.x[:2]) == pytest.approx([0, 2 / 3])
    assert list(diag.y[:2]) == pytest.approx([0.5, 1])
    assert np.isnan(diag.x[2])
    assert diag.line.color == ac.OUTCOME_COLORS["tie"]
    assert diag.name == "tied positive and negative (1 diagonal)"


def test_staircase_without_ties_has_no_diagonal_trace():
    p = ac.PRESETS["AUC 0.75: no ties"]
    fpr, tpr, thr, counts = _roc_parts(np.array(p.y, bool), np.array(p.scores))
    fig = ac.roc_staircase_figure(fpr, tpr, thr, counts, auc=0.75)
    assert len(fig.data) == 2


def test_large_staircase_caps_the_points_but_keeps_exact_diagonals():
    rng = np.random.default_rng(7)
    y = rng.random(200_000) < 0.2
    s = np.round(rng.normal(size=y.size) + y, 3)  # ~ thousands of distinct scores, many tied
    fpr, tpr, thr, counts = _roc_parts(y, s)
    assert fpr.size > MAX_POINTS
    fig = ac.roc_staircase_figure(fpr, tpr, thr, counts, auc=0.7)
    _, curve, diag = fig.data
    assert len(curve.x) <= MAX_POINTS + 1
    assert curve.x[0] == 0
    assert curve.y[0] == 0
    assert curve.x[-1] == 1
    assert curve.y[-1] == 1
    assert curve.mode == "lines"
    runs = ac.diagonal_runs(counts)
    assert runs.size > MAX_POINTS // 2  # so the diagonal trace is capped too
    xs = np.asarray(diag.x, dtype=float).reshape(-1, 3)
    ys = np.asarray(diag.y, dtype=float).reshape(-1, 3)
    assert len(xs) <= MAX_POINTS // 2 + 1
    # every segment drawn is a true diagonal of the full curve: both rates grow
    assert (xs[:, 1] > xs[:, 0]).all()
    assert (ys[:, 1] > ys[:, 0]).all()
    # ... and they are exactly the curve's moves over the (evenly sampled) tied runs
    shown = runs[sample_indices(runs.size, MAX_POINTS // 2)]
    np.testing.assert_array_equal(xs[:, 0], fpr[shown])
    np.testing.assert_array_equal(xs[:, 1], fpr[shown + 1])
    np.testing.assert_array_equal(ys[:, 0], tpr[shown])
    np.testing.assert_array_equal(ys[:, 1], tpr[shown + 1])
    assert f"({runs.size:,} diagonals)" in diag.name


# --- the rank table ----------------------------------------------------------------------------


def test_rank_view_small_tables_show_every_row():
    p = ac.PRESETS["AUC 10/12: the rank formula with ties"]
    shown, note = ac.rank_view(metrics.auc_rank_table(p.y, p.scores), "ties")
    assert len(shown) == 7
    assert note == ""


def test_rank_view_ends_and_mixed_ties():
    y, s = _random(2, n=500)
    t = metrics.auc_rank_table(y, s)
    ends, note = ac.rank_view(t, "ends")
    assert ends["position"].tolist() == [*range(1, 11), *range(491, 501)]
    assert "10 lowest and 10 highest of 500 rows" in note
    ties, note = ac.rank_view(t, "ties")
    assert len(ties) <= ac.MAX_TIED_ROWS
    for score in ties["score"].unique():
        at = t.score == score
        assert t.positive[at].any()
        assert (~t.positive[at]).any()
    assert "shared by a positive and a negative" in note
    # every rank shown is the average of the positions its score takes
    for score, group in ac.rank_frame(t).groupby("score"):
        assert (group["rank"] == group["position"].mean()).all(), score


def test_rank_view_without_mixed_ties_says_so():
    y = np.array([0, 0, 1, 1] * 10, bool)
    s = np.arange(40.0)
    s[1] = s[0]  # a tie between two negatives only
    shown, note = ac.rank_view(metrics.auc_rank_table(y, s), "ties")
    assert shown.empty
    assert note.startswith("No score is shared by a positive and a negative")

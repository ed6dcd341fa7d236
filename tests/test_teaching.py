"""The teaching tables end exactly at the library's numbers, and reproduce the seeds."""

from __future__ import annotations

import numpy as np
import pytest

from metrics import average_precision_score, roc_auc_score
from metrics.average_precision import AP_METHODS
from metrics.teaching import (
    ap_step_table,
    auc_pair_grid,
    auc_rank_table,
    average_precision_breakdown,
    score_grid_average_precision,
)


def random_binary(seed, n=None):
    rng = np.random.default_rng(seed)
    n = n or int(rng.integers(2, 50))
    y = (rng.random(n) < 0.4).astype(int)
    y[:2] = [1, 0]
    return y, np.round(rng.random(n), 1), rng.uniform(0.1, 2, n)


@pytest.mark.parametrize("seed", range(50))
def test_tables_end_at_the_library_values(seed):
    y, s, w = random_binary(seed)
    table = ap_step_table(y, s, sample_weight=w)
    assert table.running_ap[-1] == pytest.approx(
        average_precision_score(y, s, sample_weight=w), abs=1e-12
    )
    assert table.value == pytest.approx(table.running_ap[-1], abs=1e-12)
    assert table.rows.sum() == pytest.approx(w.sum())
    for method in AP_METHODS:
        b = average_precision_breakdown(y, s, method=method)
        assert b.value == pytest.approx(average_precision_score(y, s, method=method), abs=1e-12)
    grid = auc_pair_grid(y, s, max_per_class=1000)
    assert not grid.sampled
    assert grid.auc == pytest.approx(roc_auc_score(y, s), abs=1e-12)
    assert grid.wins + grid.ties + grid.losses == grid.outcome.size
    assert auc_rank_table(y, s).auc == pytest.approx(roc_auc_score(y, s), abs=1e-12)


def test_pair_grid_samples_large_data_with_a_flag():
    y, s, _ = random_binary(1, n=2000)
    g = auc_pair_grid(y, s, max_per_class=30)
    assert g.sampled
    assert g.outcome.shape == (30, 30)
    assert g.full_auc == roc_auc_score(y, s)
    assert (np.diff(g.pos_score) <= 0).all()


def test_seed000_step_table_rows():
    t = ap_step_table([0, 0, 1, 1], [0.4, 0.1, 0.8, 0.35])
    assert t.precision.tolist() == pytest.approx([1, 1 / 2, 2 / 3, 2 / 4])
    assert t.recall.tolist() == pytest.approx([1 / 2, 1 / 2, 1, 1])
    assert t.delta_recall.tolist() == pytest.approx([1 / 2, 0, 1 / 2, 0])
    assert t.value == pytest.approx(5 / 6, abs=1e-15)


def test_seed000_weighted_table_is_eight_ninths():
    t = ap_step_table([1, 0, 0, 1], [0.5, 0.4, 0.3, 0.1], sample_weight=[2, 0.5, 1, 1])
    assert t.precision.tolist() == pytest.approx([2 / 2, 2 / 2.5, 2 / 3.5, 3 / 4.5])
    assert t.recall.tolist() == pytest.approx([2 / 3, 2 / 3, 2 / 3, 1])
    assert t.value == pytest.approx(8 / 9, abs=1e-15)


def test_seed000_score_grid_reading_differs_from_step_in_general():
    # On the seed's example the fixed grid 0, 0.1, ..., 1 happens to hit every point...
    assert score_grid_average_precision([0, 0, 1, 1], [0.4, 0.1, 0.8, 0.35]).value == pytest.approx(
        5 / 6
    )
    # ...but scores squeezed between grid points merge thresholds, and rescaling changes it.
    y, s = [1, 0, 1, 0], [0.19, 0.18, 0.17, 0.11]
    grid = score_grid_average_precision(y, s)
    assert grid.value == pytest.approx(0.5)  # all four rows enter together at 0.1
    assert average_precision_score(y, s) == pytest.approx(5 / 6)
    assert score_grid_average_precision(y, np.array(s) * 5).value != grid.value


def test_seed002_trapezoid_breakdown():
    b = average_precision_breakdown([1, 0, 1, 0], [1, 0.8, 0.6, 0.4], method="trapezoid")
    assert round(b.value, 4) == 0.7917
    assert b.precision.tolist() == pytest.approx([1, 0.75, 7 / 12, 7 / 12])


def test_seed004_pair_grid_examples():
    g1 = auc_pair_grid([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8])
    assert (g1.wins, g1.ties, g1.losses, g1.auc) == (3, 0, 1, 0.75)
    g2 = auc_pair_grid([0, 0, 1, 1], [0.1, 0.4, 0.4, 0.8])
    assert (g2.wins, g2.ties, g2.losses, g2.auc) == (3, 1, 0, 0.875)


def test_seed004_rank_formula_examples():
    t1 = auc_rank_table([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8])
    assert t1.rank[t1.positive].tolist() == [2.0, 4.0]
    assert t1.auc == 0.75  # ((2 + 4) - 3) / 4
    t2 = auc_rank_table([0, 1, 1, 0, 0, 1, 1], [0.3, 0.5, 0.5, 0.5, 0.5, 0.7, 0.8])
    assert t2.rank[t2.positive].tolist() == [3.5, 3.5, 6.0, 7.0]
    assert (t2.rank_sum, t2.n_pos, t2.n_neg) == (20.0, 4, 3)
    assert t2.auc == pytest.approx(10 / 12, abs=1e-15)


def test_tables_say_what_is_wrong():
    with pytest.raises(ValueError, match="no positive rows"):
        ap_step_table([0, 0], [0.1, 0.2])
    with pytest.raises(ValueError, match="at least one positive and one negative"):
        auc_pair_grid([1, 1], [0.1, 0.2])
    with pytest.raises(ValueError, match="thresholds must be"):
        score_grid_average_precision([0, 1], [0.1, 0.2], thresholds=[])

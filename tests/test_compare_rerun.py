"""A threshold move on Compare re-sorts nothing: every threshold-free computation is cached.

Counted, not timed: numpy's sorts are wrapped while the page reruns after the first model's
threshold moves (bench/bench_compare_rerun.py prints the same count with the rerun's time)."""

from __future__ import annotations

import numpy as np

from bench.bench_compare_rerun import SortCounter, compare_session, move_threshold, table


def test_a_threshold_move_on_compare_sorts_nothing():
    rows = 3_000
    at, _ = compare_session(table(rows, seed=4))
    with SortCounter(rows // 2) as counter:
        move_threshold(at, "model_a", 0.41)
    assert counter.calls == 0
    # The page did rerun on the new threshold: its McNemar table reads it.
    assert at.session_state["thresholds"]["model_a"] == 0.41


def test_the_counter_sees_a_sort():
    with SortCounter(10) as counter:
        np.argsort(np.arange(20))
        np.sort(np.arange(5))  # below the size: not counted
    assert counter.calls == 1

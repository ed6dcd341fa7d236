"""The page-change bench (``bench/bench_pages.py``) runs: its AppTest part on one page and the
minimal app, each figure a positive CPU time. Times are printed by the bench, never asserted."""

from __future__ import annotations

from bench import bench_pages


def test_the_apptest_part_times_a_page_and_the_minimal_one():
    rows = bench_pages.apptest([("pages/data.py", "breast_cancer")], passes=1)
    assert [(page, dataset) for page, dataset, *_ in rows] == [
        ("minimal page", ""),
        ("pages/data.py", "breast_cancer"),
    ]
    assert all(first > 0 and again > 0 for *_, first, again in rows)


def test_the_cases_pick_pages_by_stem_or_dataset():
    assert bench_pages._cases("gauc") == [("pages/gauc.py", "user_impressions")]
    assert ("pages/calibration.py", "user_impressions") in bench_pages._cases("user_impressions")
    assert bench_pages._start_of("pages/threshold.py") == "pages/data.py"

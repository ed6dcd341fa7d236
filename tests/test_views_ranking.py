"""The Ranking page's pieces: its words (ui.words.ranking_text) and query picker
(ui.analyses.ranking_queries) against the metrics library, and its sections
(ui.views.ranking_view) on the page."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

import metrics
from metrics.conventions import ranking_conventions
from tests.apptest_utils import markdown_text, open_page
from ui.analyses.ranking_queries import query_options
from ui.figures import ranking_charts as rc
from ui.words import ranking_text as words
from ui.words.numbers import decimals

TEXTBOOK = rc.ir_textbook_example()
RELEVANCE = TEXTBOOK.relevance_for(rc.IR_TEXTBOOK_MODEL)
SCORES = TEXTBOOK.scores[rc.IR_TEXTBOOK_MODEL]


def _report(k: int, **kw) -> metrics.RankingReport:
    return metrics.ranking_report(RELEVANCE, SCORES, TEXTBOOK.groups, k=k, **kw)


@pytest.mark.parametrize("k", [3, 7])
def test_the_textbook_values_are_the_librarys_aps(k):
    ap1, ap2 = _report(k).average_precision.tolist()
    mean = (ap1 + ap2) / 2
    text = words.textbook_values(ap1, ap2, mean, k)
    assert text.startswith(
        f"At k = {k}: AP = **{decimals(ap1)}** ({Fraction(ap1).limit_denominator(100_000)}) and "
        f"**{decimals(ap2)}**"
    )
    assert f"to two decimals {decimals(ap1, 2)}, {decimals(ap2, 2)} and {decimals(mean, 2)}" in text
    if k == 7:
        assert (decimals(ap1, 2), decimals(ap2, 2), decimals(mean, 2)) == ("0.83", "0.45", "0.64")
        assert text.endswith("The textbook's worked values: 0.83, 0.45 and 0.64.")


def test_the_cards_carry_the_models_means():
    report = _report(5, denominator="min_k")
    table = rc.model_metrics_table({"m": report}, 5).set_index("model").loc["m"]
    cards = words.cards(table, 5, "min_k", "linear")
    assert [c[0] for c in cards] == ["P@5", "R@5", "MAP@5", "NDCG@5", "MRR"]
    skipped = report.skipped
    assert cards[2][1] == pytest.approx(np.mean(report.average_precision[~skipped]))
    assert cards[4][1] == pytest.approx(np.mean(report.reciprocal_rank[~skipped]))
    assert "divided by min(5, R)" in cards[2][2]


def test_one_querys_sentence_is_its_row_of_the_report():
    rng = np.random.default_rng(2)
    groups = np.repeat([10, 20, 30], 8)
    relevance = (rng.random(24) < 0.4).astype(int)
    relevance[[3, 12, 23]] = 1  # every query has a relevant document
    scores = rng.random(24)
    report = metrics.ranking_report(relevance, scores, groups, k=5)
    for qi, query in enumerate(report.query):
        b = rc.query_breakdown(relevance, scores, groups, query, k=5)
        sentence = words.query_sentence(str(query), b, report, qi, 5)
        assert f"{int(relevance[groups == query].sum()):,} relevant" in sentence
        assert f"P@5 **{decimals(report.precision[qi])}**" in sentence
        assert f"AP@5 **{decimals(report.average_precision[qi])}**" in sentence
        assert f"NDCG@5 **{decimals(report.ndcg[qi])}**" in sentence
        assert f"RR **{decimals(report.reciprocal_rank[qi])}**" in sentence
    assert len(set(report.reciprocal_rank.tolist())) > 1  # the queries tell their RRs apart
    none = rc.query_breakdown(np.zeros(3, int), np.arange(3.0), np.zeros(3), 0, k=5)
    assert "none relevant: skipped by every mean" in words.query_sentence("0", none, report, 0, 5)


def test_the_picker_lists_the_first_queries_and_opens_on_the_first_counted():
    queries = np.array([10, 11, 12, 13, 14])
    skipped = np.array([True, True, True, False, False])
    labels, options, first = query_options(queries, skipped, 2)
    assert labels == ["10", "11", "12", "13", "14"]
    assert (options, first) == (["10", "11", "13"], "13")
    report = _report(7)
    labels, options, first = query_options(report.query, report.skipped, 2000)
    assert options == labels == [str(q) for q in report.query]
    assert first == labels[0]


def test_the_notes_and_captions():
    assert words.k_help(None, 100) == "Up to 100."
    assert words.k_help(250, 100) == "The longest query has 250 rows; the slider stops at 100."
    assert words.k_help(7, 100).endswith("7 rows.")
    assert "(5 values of k from 1 to 9)" in words.curves_caption(5, 9, "relevant")
    assert words.curves_caption(9, 9, "min_k").endswith("MAP@k can fall as k grows.")
    assert "12,345 queries" in words.engine_kept_means(12_345)
    assert words.rows_caption(800, 500, 500, 4).startswith("The top 500 of 800 ranks. ")
    assert "map_cut" in words.ap_note("relevant", 4)
    assert "min(4, R)" in words.ap_note("min_k", 4)
    assert "2^rel_i − 1" in words.ndcg_note("exponential")


def test_the_page_sections_show_the_librarys_numbers():
    """ui.views.ranking_view on the textbook example: the per-query table, one query's formulas
    and the other libraries' table."""
    at = open_page("pages/ranking.py")
    at.segmented_control(key="ranking_source").set_value("seed001").run()
    report = _report(7)
    queries = next(d.value for d in at.dataframe if "query" in d.value.columns)
    np.testing.assert_allclose(queries["AP@7"].to_numpy(float), report.average_precision)
    assert "AP@7 **" + decimals(report.average_precision[0]) in markdown_text(at)
    libraries = next(d.value for d in at.dataframe if "library" in d.value.columns)
    found = ranking_conventions(RELEVANCE, SCORES, TEXTBOOK.groups, k=7)
    assert libraries["value"].tolist() == [decimals(c.value) for c in found]

"""Hypothesis strategies for TREC qrels and runs, drawing the shapes trec_eval's conventions
turn on: tied scores (broken on the doc id as text), ids that sort differently as text and as
numbers ("9" > "10" as text), documents the qrels do not hold, relevance below 0 (in the pool,
unjudged), queries without a relevant document, queries only in the run or only in the qrels.

Kept apart from tests/strategies.py so the TREC work merges without touching it."""

from __future__ import annotations

from dataclasses import dataclass

from hypothesis import strategies as st

# Ids whose text order and number order disagree, plus a few that are not numbers.
IDS = ("1", "2", "9", "10", "11", "010", "100", "a", "B", "b-2", "Z", "é")


@dataclass(frozen=True)
class TrecCase:
    qrels: dict[str, dict[str, int]]
    run: dict[str, dict[str, float]]

    def __repr__(self) -> str:
        return f"TrecCase(qrels={self.qrels!r}, run={self.run!r})"


@st.composite
def trec_cases(draw, max_queries: int = 4, max_docs: int = 12) -> TrecCase:
    queries = draw(st.lists(st.sampled_from(IDS), min_size=1, max_size=max_queries, unique=True))
    docs = st.sampled_from(IDS + tuple(f"d{i}" for i in range(max_docs)))
    tied = draw(st.booleans())
    # Few distinct scores make ties common; otherwise any float (ties are then rare).
    score = (
        st.sampled_from([0.0, 0.5, 1.0, 2.0, -1.0])
        if tied
        else st.floats(-1e6, 1e6, allow_nan=False, allow_subnormal=False, width=32)
    )
    qrels: dict[str, dict[str, int]] = {}
    run: dict[str, dict[str, float]] = {}
    for q in queries:
        in_qrels, in_run = draw(
            st.sampled_from([(True, True), (True, True), (True, False), (False, True)])
        )
        if in_qrels:
            judged = draw(st.dictionaries(docs, st.integers(-1, 3), min_size=1, max_size=max_docs))
            # trec_eval (and pytrec_eval) loop forever on ndcg when every judgement of a query is
            # below 0; a real qrels file always holds a judged document.
            first = next(iter(judged))
            judged[first] = max(judged[first], 0)
            qrels[q] = judged
        if in_run:
            ranking = draw(st.dictionaries(docs, score, min_size=1, max_size=max_docs))
            if in_qrels and draw(st.booleans()):
                # Put some judged documents in the run, so relevant ones are retrieved.
                for d in draw(st.lists(st.sampled_from(sorted(qrels[q])), max_size=4)):
                    ranking[d] = draw(score)
            run[q] = ranking
    if not qrels:
        qrels[queries[0]] = {"d0": 1}
    return TrecCase(qrels, run)

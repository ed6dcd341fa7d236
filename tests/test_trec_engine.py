"""trec_evaluate_file: the run ranked by DuckDB out of core gives trec_evaluate's numbers, query
by query, on generated qrels and runs (ties broken on the doc id as bytes, unjudged documents,
queries only in the run or the qrels, -J, -c, relevance levels), from TREC text (spaces, tabs,
gzip) and Parquet; a damaged line or a duplicate judged document is one sentence."""

from __future__ import annotations

import gzip

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from metrics.trec import read_trec_qrels, read_trec_run, trec_evaluate, trec_evaluate_file
from tests.strategies import examples
from tests.test_trec import MEASURES
from tests.trec_strategies import trec_cases


def _write(tmp_path, case, sep=" ", gz=False):
    qrels = [
        f"{q}{sep}0{sep}{d}{sep}{r}" for q, docs in case.qrels.items() for d, r in docs.items()
    ]
    run = [
        f"{q}{sep}Q0{sep}{d}{sep}{i}{sep}{s!r}{sep}tag"
        for q, docs in case.run.items()
        for i, (d, s) in enumerate(docs.items(), start=1)
    ]
    qp, rp = tmp_path / "q.txt", tmp_path / ("r.txt.gz" if gz else "r.txt")
    qp.write_text("\n".join(qrels) + "\n", encoding="utf-8")
    opener = gzip.open if gz else open
    with opener(rp, "wt", encoding="utf-8") as f:
        f.write("\n".join(run) + "\n")
    return qp, rp


@settings(max_examples=examples(40), deadline=None)
@given(
    trec_cases(),
    st.sampled_from([" ", "\t", " \t "]),
    st.booleans(),
    st.sampled_from([1, 2]),
    st.booleans(),
    st.booleans(),
)
def test_the_engine_equals_trec_evaluate_query_by_query(
    tmp_path_factory, case, sep, gz, level, judged_only, complete
):
    if not case.run:
        case.run["1"] = {"x": 1.0}
    qp, rp = _write(tmp_path_factory.mktemp("trec"), case, sep=sep, gz=gz)
    qrels, run = read_trec_qrels(qp), read_trec_run(rp)
    options = dict(relevance_level=level, judged_only=judged_only, complete=complete)
    want = trec_evaluate(qrels, run, MEASURES, per_query=True, **options)
    got = trec_evaluate_file(qrels, rp, MEASURES, per_query=True, **options)
    pd.testing.assert_frame_equal(got, want, check_exact=False, atol=1e-12, rtol=0)
    means = trec_evaluate_file(qrels, rp, MEASURES, memory_limit="64MB", **options)
    assert means == pytest.approx(trec_evaluate(qrels, run, MEASURES, **options), nan_ok=True)


def test_a_parquet_run_and_many_ties_at_a_small_memory_limit(tmp_path):
    """20,000 rows, every score tied within a query on purpose: the order is the doc ids'
    bytes, descending, as trec_eval's strcmp; the same from a Parquet table."""
    rng = np.random.default_rng(0)
    n_q, n_d = 40, 500
    q = np.repeat([f"q{i}" for i in range(n_q)], n_d)
    d = np.tile([f"D{j}" if j % 3 else f"d{j}" for j in range(n_d)], n_q)
    run = pd.DataFrame({"query_id": q, "doc_id": d, "score": rng.integers(0, 4, q.size) / 2})
    judged = run.sample(3_000, random_state=1)
    qrels = pd.DataFrame(
        {"query_id": judged.query_id, "doc_id": judged.doc_id,
         "relevance": rng.integers(-1, 3, len(judged))}
    )  # fmt: skip
    path = tmp_path / "run.parquet"
    run.to_parquet(path)
    want = trec_evaluate(qrels, run, MEASURES, per_query=True)
    got = trec_evaluate_file(qrels, path, MEASURES, per_query=True, memory_limit="32MB")
    pd.testing.assert_frame_equal(got, want, check_exact=False, atol=1e-12, rtol=0)


@pytest.mark.parametrize(
    ("text", "match"),
    [
        ("1 Q0 a 1 0.5 t\n1 Q0 b 2 t\n", r"line 2 has 5 fields"),
        ("1 Q0 a 1 0.5 t\n1 Q0 b 2 high t\n", r"line 2 has a score that is not a number"),
        ("1 Q0 a 1 0.5 t\n1 Q0 a 2 0.4 t\n", r"returns document 'a' twice for query '1'"),
    ],
)
def test_a_bad_run_file_is_one_sentence(tmp_path, text, match):
    path = tmp_path / "r.txt"
    path.write_text(text)
    qrels = pd.DataFrame({"query_id": ["1"], "doc_id": ["a"], "relevance": [1]})
    with pytest.raises(ValueError, match=match):
        trec_evaluate_file(qrels, path, "map")
    with pytest.raises(ValueError, match="does not exist"):
        trec_evaluate_file(qrels, tmp_path / "missing.txt", "map")
    with pytest.raises(ValueError, match="memory_limit must be a size"):
        trec_evaluate_file(qrels, path, "map", memory_limit="lots")

"""trec_eval's measures against trec_eval itself (pytrec_eval), TREC files in, and agreement with
the Ranking measures where the definitions are the same."""

from __future__ import annotations

import gzip
import json

import numpy as np
import pandas as pd
import pytest
import pytrec_eval
from hypothesis import given, settings
from hypothesis import strategies as st

import metrics
from metrics.ranking import (
    mean_average_precision,
    mean_reciprocal_rank,
    ndcg_at_k,
    precision_at_k,
    recall_at_k,
)
from metrics.trec import read_qrels, read_run, read_trec_qrels, read_trec_run, trec_evaluate
from metrics.trec.measures import parse_measures
from tests.strategies import examples
from tests.trec_strategies import trec_cases

MEASURES = [
    "map",
    "map_cut_3",
    "P_1",
    "P_5",
    "recall_2",
    "recall_10",
    "success_1",
    "success_3",
    "ndcg",
    "ndcg_cut_3",
    "ndcg_cut_10",
    "recip_rank",
    "Rprec",
    "bpref",
    "num_ret",
    "num_rel",
    "num_rel_ret",
]


def oracle(qrels, run, *, level=1, judged_only=False, complete=False):
    """pytrec_eval's per-query values; ``complete`` adds the qrels queries the run lacks with
    no documents, which is what trec_eval's -c does."""
    if complete:
        run = {**{q: {} for q in qrels}, **run}
    evaluator = pytrec_eval.RelevanceEvaluator(
        qrels, set(MEASURES), relevance_level=level, judged_docs_only_flag=judged_only
    )
    return evaluator.evaluate(run)


def assert_same(got: pd.DataFrame, want: dict) -> None:
    assert sorted(got["query_id"]) == sorted(want)
    for row in got.itertuples(index=False):
        values = row._asdict()
        for m in MEASURES:
            assert values[m] == pytest.approx(want[values["query_id"]][m], abs=1e-9), (
                m,
                values["query_id"],
            )


@settings(max_examples=examples(100), deadline=None)
@given(trec_cases(), st.sampled_from([1, 2]), st.booleans())
def test_every_measure_equals_trec_eval_per_query(case, level, judged_only):
    got = trec_evaluate(
        case.qrels,
        case.run,
        MEASURES,
        per_query=True,
        relevance_level=level,
        judged_only=judged_only,
    )
    assert_same(got, oracle(case.qrels, case.run, level=level, judged_only=judged_only))


@settings(max_examples=examples(40), deadline=None)
@given(trec_cases())
def test_complete_scores_missing_queries_zero_as_dash_c(case):
    got = trec_evaluate(case.qrels, case.run, MEASURES, per_query=True, complete=True)
    want = oracle(case.qrels, case.run, complete=True)
    assert_same(got, want)
    means = trec_evaluate(case.qrels, case.run, MEASURES, complete=True)
    for m in MEASURES:
        assert means[m] == pytest.approx(np.mean([v[m] for v in want.values()]), abs=1e-12)


def test_ties_break_on_doc_id_as_text_descending():
    # "9" > "10" > "1" as text; trec_eval ranks tied documents by doc id descending.
    qrels = {"q": {"10": 1}}
    run = {"q": {"1": 1.0, "10": 1.0, "9": 1.0}}
    got = trec_evaluate(qrels, run, ["recip_rank"])
    assert got["recip_rank"] == pytest.approx(0.5)
    assert got == pytest.approx({"recip_rank": oracle(qrels, run)["q"]["recip_rank"]})


def test_documented_example():
    qrels = pd.DataFrame({"query_id": ["1", "1"], "doc_id": ["a", "b"], "relevance": [1, 0]})
    run = pd.DataFrame({"query_id": ["1", "1"], "doc_id": ["a", "b"], "score": [0.2, 0.9]})
    assert trec_evaluate(qrels, run, ["P_1", "recip_rank"]) == {"P_1": 0.0, "recip_rank": 0.5}


def test_many_rows_many_ties_against_trec_eval():
    # Larger than hypothesis draws: 300 queries, a coarse score grid (many ties), unjudged rows.
    rng = np.random.default_rng(7)
    qrels, run = {}, {}
    for q in range(300):
        docs = [str(d) for d in rng.choice(400, 60, replace=False)]
        qrels[str(q)] = {d: int(rng.integers(0, 4)) for d in docs[:25]}
        run[str(q)] = {d: float(rng.integers(0, 6)) for d in docs[5:]}
    got = trec_evaluate(qrels, run, MEASURES, per_query=True)
    assert_same(got, oracle(qrels, run))


def test_means_are_over_queries_in_run_and_qrels():
    qrels = {"1": {"a": 1}, "2": {"b": 1}}
    run = {"1": {"a": 1.0}, "3": {"b": 1.0}}
    assert trec_evaluate(qrels, run, ["map"]) == {"map": 1.0}
    assert trec_evaluate(qrels, run, ["map"], complete=True) == {"map": 0.5}
    empty = trec_evaluate(qrels, {"3": {"a": 1.0}}, ["map"])
    assert np.isnan(empty["map"])


@pytest.mark.parametrize(
    ("measures", "match"),
    [
        (["ndcg@10"], "Unknown measure 'ndcg@10'"),
        (["P"], "needs a cutoff, as P_10"),
        (["map_cut_0"], "cutoff must be 1"),
        (["map_10"], r"map takes no cutoff \(map_cut_10 is map cut at 10\)"),
        (["recip_rank_5"], "takes no cutoff"),
        (["map", "map"], "twice"),
        ([], "is empty"),
    ],
)
def test_bad_measure_names_say_what_is_known(measures, match):
    with pytest.raises(ValueError, match=match):
        parse_measures(measures)


def test_bad_inputs_one_sentence():
    qrels = {"1": {"a": 1}}
    with pytest.raises(ValueError, match="twice for query '1'"):
        trec_evaluate(
            qrels,
            pd.DataFrame({"query_id": ["1", "1"], "doc_id": ["a", "a"], "score": [1.0, 2.0]}),
            ["map"],
        )
    with pytest.raises(ValueError, match="twice for query '1'"):
        trec_evaluate(
            qrels,
            pd.DataFrame(
                {"query_id": ["1", "1", "1"], "doc_id": ["z", "a", "z"], "score": [1.0, 1.0, 1.0]}
            ),
            ["map"],
        )
    with pytest.raises(ValueError, match="judge document 'a' twice"):
        trec_evaluate(
            pd.DataFrame({"query_id": ["1", "1"], "doc_id": ["a", "a"], "relevance": [1, 0]}),
            {"1": {"a": 1.0}},
            ["map"],
        )
    with pytest.raises(ValueError, match="NaN"):
        trec_evaluate(qrels, {"1": {"a": float("nan")}}, ["map"])
    with pytest.raises(ValueError, match="no 'score' column"):
        trec_evaluate(qrels, pd.DataFrame({"query_id": ["1"], "doc_id": ["a"]}), ["map"])
    with pytest.raises(ValueError, match="relevance_level must be a whole number"):
        trec_evaluate(qrels, {"1": {"a": 1.0}}, ["map"], relevance_level=1.5)


# --- the Ranking page's measures agree where the definitions are the same ---------------------


@settings(max_examples=examples(40), deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 6))
def test_ranking_measures_agree_with_trec_eval(seed, k):
    """Same definition: every query has a relevant row, every judged document is in the run, and
    rows are put in trec_eval's tie order (doc id descending) before the stable ranking."""
    rng = np.random.default_rng(seed)
    rows = []
    for q in range(int(rng.integers(1, 6))):
        n = int(rng.integers(1, 9))
        rel = rng.integers(0, 3, n)
        rel[rng.integers(0, n)] = int(rng.integers(1, 3))
        for i in range(n):
            rows.append(
                (f"q{q}", f"d{rng.integers(0, 1000)}_{i}", int(rel[i]), float(rng.integers(0, 3)))
            )
    table = pd.DataFrame(rows, columns=["query_id", "doc_id", "relevance", "score"])
    table = table.sort_values("doc_id", ascending=False, kind="stable")
    y, s, g = table["relevance"].to_numpy(), table["score"].to_numpy(), table["query_id"].to_numpy()
    trec = trec_evaluate(
        table[["query_id", "doc_id", "relevance"]],
        table[["query_id", "doc_id", "score"]],
        [f"P_{k}", f"recall_{k}", "map", f"map_cut_{k}", f"ndcg_cut_{k}", "ndcg", "recip_rank"],
    )
    assert trec[f"P_{k}"] == pytest.approx(precision_at_k(y, s, g, k=k), abs=1e-12)
    assert trec[f"recall_{k}"] == pytest.approx(recall_at_k(y, s, g, k=k), abs=1e-12)
    assert trec["map"] == pytest.approx(mean_average_precision(y, s, g), abs=1e-12)
    assert trec[f"map_cut_{k}"] == pytest.approx(mean_average_precision(y, s, g, k=k), abs=1e-12)
    assert trec[f"ndcg_cut_{k}"] == pytest.approx(ndcg_at_k(y, s, g, k=k), abs=1e-12)
    assert trec["ndcg"] == pytest.approx(ndcg_at_k(y, s, g), abs=1e-12)
    assert trec["recip_rank"] == pytest.approx(mean_reciprocal_rank(y, s, g), abs=1e-12)


# --- files in ----------------------------------------------------------------------------------


def _write_case(tmp_path, case, *, sep=" ", gz=False):
    qrels_lines = [
        f"{q}{sep}0{sep}{d}{sep}{r}" for q, docs in case.qrels.items() for d, r in docs.items()
    ]
    run_lines = []
    for q, docs in case.run.items():
        for rank, (d, s) in enumerate(docs.items(), start=1):
            run_lines.append(f"{q}{sep}Q0{sep}{d}{sep}{rank}{sep}{s!r}{sep}my_run")
    opener = gzip.open if gz else open
    qp, rp = tmp_path / ("q.txt.gz" if gz else "q.txt"), tmp_path / ("r.txt.gz" if gz else "r.txt")
    with opener(qp, "wt", encoding="utf-8") as f:
        f.write("\n".join(qrels_lines) + "\n")
    with opener(rp, "wt", encoding="utf-8") as f:
        f.write("\n".join(run_lines) + "\n")
    return qp, rp


@settings(max_examples=examples(25), deadline=None)
@given(trec_cases(), st.sampled_from([" ", "\t", "  "]), st.booleans())
def test_files_read_as_trec_eval_reads_them(tmp_path_factory, case, sep, gz):
    if not case.run:
        case.run["1"] = {"x": 1.0}
    tmp_path = tmp_path_factory.mktemp("trec")
    qp, rp = _write_case(tmp_path, case, sep=sep, gz=gz)
    qrels, run = read_trec_qrels(qp), read_trec_run(rp)
    assert list(qrels.columns) == ["query_id", "doc_id", "relevance"]
    assert list(run.columns) == ["query_id", "doc_id", "score"]
    assert run.attrs["run_tag"] == "my_run"
    got = trec_evaluate(qrels, run, MEASURES, per_query=True)
    assert_same(got, oracle(case.qrels, case.run))


def test_ids_stay_text(tmp_path):
    (tmp_path / "q").write_text("007 0 0010 1\n7 0 10 0\n")
    qrels = read_trec_qrels(tmp_path / "q")
    assert qrels["query_id"].tolist() == ["007", "7"]
    assert qrels["doc_id"].tolist() == ["0010", "10"]


@pytest.mark.parametrize(
    ("text", "match"),
    [
        ("1 Q0 a 1 0.5 r\n1 Q0 b 2 0.4\n", r"line 2: a run line has 6"),
        ("1 Q0 a 1 0.5 r\n\n1 Q0 b 2 high r\n", r"line 3: the score 'high' is not a number"),
        ("1 Q0 a 1 0.5 r\n1 Q0 b 2 nan r\n", r"line 2: the score 'nan'"),
        ("1\tQ0\ta\t1\t0.5\tr\n1 Q0 b 2 0.4 r extra\n", r"line 2: a run line has 6"),
    ],
)
def test_a_damaged_run_line_is_named(tmp_path, text, match):
    path = tmp_path / "run.txt"
    path.write_text(text)
    with pytest.raises(ValueError, match=match):
        read_trec_run(path)


def test_a_damaged_qrels_line_is_named(tmp_path):
    path = tmp_path / "qrels.txt"
    path.write_text("1 0 a 1\n1 0 b 1.5\n")
    with pytest.raises(ValueError, match=r"line 2: the relevance '1.5' is not a whole number"):
        read_trec_qrels(path)
    path.write_text("1 0 a 1\n1 0 b\n")
    with pytest.raises(ValueError, match=r"line 2: a qrels line has 4"):
        read_trec_qrels(path)
    with pytest.raises(ValueError, match="does not exist"):
        read_trec_qrels(tmp_path / "missing")


def test_runs_as_tables_and_json(tmp_path):
    mapping = {"1": {"a": 0.5, "b": 0.7}, "10": {"c": 1.0}}
    qrels = {"1": {"a": 1}, "10": {"c": 0}}
    (tmp_path / "run.json").write_text(json.dumps(mapping))
    (tmp_path / "qrels.json").write_text(json.dumps(qrels))
    table = pd.DataFrame(
        {"query_id": [1, 1, 10], "doc_id": ["a", "b", "c"], "score": [0.5, 0.7, 1.0]}
    )
    table.to_csv(tmp_path / "run.csv", index=False)
    table.to_parquet(tmp_path / "run.parquet")
    want = trec_evaluate(qrels, mapping, MEASURES)
    for name in ("run.json", "run.csv", "run.parquet"):
        run = read_run(tmp_path / name)
        assert run["query_id"].tolist() == ["1", "1", "10"]
        assert trec_evaluate(read_qrels(tmp_path / "qrels.json"), run, MEASURES) == want
    assert read_run(tmp_path / "run.csv").attrs["run_tag"] == "run"
    pd.DataFrame({"query_id": [1], "doc_id": ["a"]}).to_csv(tmp_path / "bad.csv", index=False)
    with pytest.raises(ValueError, match="no column 'score'"):
        read_run(tmp_path / "bad.csv")
    (tmp_path / "bad.json").write_text("{not json")
    with pytest.raises(ValueError, match="not valid JSON"):
        read_run(tmp_path / "bad.json")


def test_public_api():
    assert metrics.trec_evaluate is trec_evaluate
    assert metrics.read_trec_run is read_trec_run


def test_integer_ids_in_a_dataframe_are_their_text():
    qrels = pd.DataFrame({"query_id": [1, 1], "doc_id": [9, 10], "relevance": [0, 1]})
    run = pd.DataFrame({"query_id": [1, 1], "doc_id": [9, 10], "score": [1.0, 1.0]})
    # As text "9" > "10": the tie puts 9 first, so the relevant 10 is at rank 2.
    assert trec_evaluate(qrels, run, ["recip_rank"]) == {"recip_rank": 0.5}
    got = trec_evaluate(qrels, run, ["recip_rank"], per_query=True)
    assert got["query_id"].tolist() == ["1"]

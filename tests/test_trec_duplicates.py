"""Documents a run returns twice for one query: found, said, and what they do to the numbers.

trec_eval refuses such a run ("duplicate docs", form_res_rels.c); pytrec_eval cannot hold one
(a mapping). Here a judged duplicate is refused and an unjudged one keeps every copy's rank:
checked against the same run with the extra copy renamed to a fresh unjudged document."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from metrics.trec import duplicate_documents, trec_evaluate
from metrics_lens.cli import main
from tests.strategies import examples
from ui.words.runs_text import duplicates_sentence

MEASURES = ["map", "P_5", "recip_rank", "ndcg_cut_10", "recall_10"]


@settings(max_examples=examples(30), deadline=None)
@given(st.integers(0, 2**32 - 1), st.sampled_from([1, 4, 40]), st.booleans())
def test_duplicates_equal_a_groupby_count(seed, n_docs, numeric_ids):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 60))
    q = rng.integers(0, 3, n)
    d = rng.integers(0, n_docs, n)
    # Numeric ids: 9 and 09 are different documents as text, as trec_eval compares them.
    docs = d if numeric_ids else np.array([f"d{x:0{1 + x % 2}d}" for x in d], dtype=object)
    run = pd.DataFrame({"query_id": q, "doc_id": docs, "score": rng.random(n)})
    got = duplicate_documents(run)
    text = run.assign(query_id=run["query_id"].astype(str), doc_id=run["doc_id"].astype(str))
    want = text.groupby(["query_id", "doc_id"]).size().rename("copies").reset_index()
    want = want[want["copies"] > 1].sort_values(["query_id", "doc_id"]).reset_index(drop=True)
    assert got["query_id"].tolist() == want["query_id"].tolist()
    assert got["doc_id"].tolist() == want["doc_id"].tolist()
    assert got["copies"].tolist() == want["copies"].tolist()
    assert (duplicates_sentence("r", got) == "") == want.empty


def test_an_unjudged_duplicate_takes_a_rank_per_copy():
    qrels = pd.DataFrame(
        {"query_id": ["1", "1", "2"], "doc_id": ["rel", "non", "rel"], "relevance": [1, 0, 2]}
    )
    run = pd.DataFrame(
        {
            "query_id": ["1", "1", "1", "1", "2", "2"],
            "doc_id": ["junk", "junk", "rel", "non", "rel", "x"],
            "score": [5.0, 4.0, 3.0, 2.0, 1.0, 0.5],
        }
    )
    renamed = run.assign(doc_id=["junk", "junk-2", "rel", "non", "rel", "x"])
    got = trec_evaluate(qrels, run, MEASURES, per_query=True)
    want = trec_evaluate(qrels, renamed, MEASURES, per_query=True)
    pd.testing.assert_frame_equal(got, want)
    assert got.loc[got["query_id"] == "1", "recip_rank"].item() == pytest.approx(1 / 3)
    dups = duplicate_documents(run)
    assert dups.to_dict("records") == [{"query_id": "1", "doc_id": "junk", "copies": 2}]


def test_a_judged_duplicate_is_refused_and_a_mapping_has_none():
    qrels = {"1": {"rel": 1}}
    run = pd.DataFrame({"query_id": ["1", "1"], "doc_id": ["rel", "rel"], "score": [2.0, 1.0]})
    with pytest.raises(ValueError, match="trec_eval refuses duplicate documents"):
        trec_evaluate(qrels, run, ["map"])
    assert duplicate_documents(run)["copies"].tolist() == [2]
    assert duplicate_documents({"1": {"rel": 1.0, "x": 0.5}}).empty


def test_report_says_so(tmp_path, capsys):
    (tmp_path / "q.txt").write_text("1 0 rel 1\n2 0 rel 1\n")
    a = tmp_path / "a.txt"
    a.write_text("1 Q0 junk 1 9 a\n1 Q0 junk 2 8 a\n1 Q0 rel 3 7 a\n2 Q0 rel 1 5 a\n")
    b = tmp_path / "b.txt"
    b.write_text("1 Q0 rel 1 9 b\n2 Q0 rel 1 5 b\n")
    out_html = tmp_path / "r.html"
    code = main(["report", "--qrels", str(tmp_path / "q.txt"), str(a), str(b), "-o", str(out_html)])
    out = capsys.readouterr().out
    assert code == 0
    assert out.startswith("note: Run a returns 1 document more than once for a query")
    assert "trec_eval refuses such a run" in out_html.read_text()

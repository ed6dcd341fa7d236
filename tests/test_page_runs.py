"""The Runs page (AppTest): the seeded example's table is trec_evaluate's means with
compare_runs' superscripts and the family named; uploaded TREC files are read and their numbers
are trec_evaluate's; a damaged run line is one error naming the line, the page kept."""

from __future__ import annotations

import json

import numpy as np
import pytest

from metrics import trec
from tests.apptest_utils import decode_arrays, markdown_text, open_page
from ui.compute.runs_compute import MEASURES, example

PAGE = "pages/runs.py"


@pytest.fixture(scope="module")
def page():
    return open_page(PAGE)


_COLUMNS = {"runs_table": "run", "runs_pairs": "p_adjusted", "runs_flips": "query_id"}


def _table(at, key):
    """A table of the page, known by a column only it has (the side by side by its first)."""
    column = _COLUMNS[key]
    if key == "runs_table":
        return next(d.value for d in at.dataframe if d.value.columns[0] == column)
    return next(d.value for d in at.dataframe if column in d.value.columns)


def _means(frame, measure):
    """The side-by-side table's numbers of one measure (the superscripts dropped)."""
    return [float(cell.split()[0]) for cell in frame[measure]]


def test_the_example_shows_trec_evaluate_means_superscripts_and_the_family(page):
    at = page
    assert at.title[0].value == "Runs"
    assert "seeded synthetic example, not real data" in markdown_text(at)
    qrels, runs = example()
    shown = _table(at, "runs_table")
    assert list(shown["run"]) == ["a  bm25", "b  dense", "c  hybrid"]
    for measure in MEASURES:
        want = [trec.trec_evaluate(qrels, r, measure)[measure] for r in runs.values()]
        np.testing.assert_allclose(_means(shown, measure), want, atol=5e-5)
    # hybrid beats bm25 on the primary measure: the superscript a on hybrid's ndcg_cut_10
    table = trec.compare_runs(qrels, runs, list(MEASURES), primary="ndcg_cut_10")
    beaten = trec.runs_beaten(table)
    assert beaten[("hybrid", "ndcg_cut_10")] == ["bm25"]
    assert shown["ndcg_cut_10"][2].endswith(" ᵃ")
    assert "primary measure ndcg_cut_10 x 3 pairs" in markdown_text(at).replace("\\", "")
    # the per-query difference chart of dense - bm25: wins, ties and losses add to the queries
    counts = [int(m.value) for m in at.metric]
    assert sum(counts) == 60
    spec = decode_arrays(json.loads(at.get("plotly_chart")[0].proto.spec))
    bars = [np.asarray(t["y"]) for t in spec["data"]]
    assert [b.size for b in bars] == counts
    assert (bars[0] > 0).all()
    assert (bars[2] < 0).all()

    row = table[(table["run"] == "dense") & (table["measure"] == "ndcg_cut_10")].iloc[0]
    text = markdown_text(at).replace("\\", "")
    assert f"dense - bm25 on ndcg_cut_10: {row['difference']:+.4f}" in text
    assert f"Holm-adjusted {row['p_adjusted']:.4f}: not significant" in text
    at.selectbox(key="runs_baseline").set_value("dense").run()  # the pair read the other way
    text = markdown_text(at).replace("\\", "")
    assert f"bm25 - dense on ndcg_cut_10: {-row['difference']:+.4f}" in text
    assert f"{-row['ci_high']:+.4f} to {-row['ci_low']:+.4f}" in text

    at.selectbox(key="runs_test").set_value("fisher").run()
    at.radio(key="runs_family").set_value("all").run()
    assert not at.exception, at.exception
    text = markdown_text(at).replace("\\", "")
    assert "15 tests (5 measures x 3 pairs), Holm, alpha 0.05, fisher test" in text

    # Tukey's HSD over the three runs, and what each pair could see
    at.selectbox(key="runs_test").set_value("tukey").run()
    at.radio(key="runs_family").set_value("primary").run()
    assert not at.exception, at.exception
    text = markdown_text(at).replace("\\", "")
    assert "3 tests, Tukey's HSD over the 3 pairs of 3 runs (queries as blocks)" in text
    assert any("ranx's compare(stat_test='tukey')" in c.value for c in at.caption)
    tukey = trec.compare_runs(qrels, runs, list(MEASURES), test="tukey", primary="ndcg_cut_10")
    tukey = tukey[tukey["measure"] == "ndcg_cut_10"]
    pairs = _table(at, "runs_pairs")
    np.testing.assert_allclose(pairs["p_value"], tukey["p_value"], rtol=1e-12)
    np.testing.assert_allclose(pairs["detectable"], tukey["detectable"], rtol=1e-12)
    for r in tukey.itertuples(index=False):
        assert (
            f"{r.run} - {r.baseline}: with 60 queries, a true difference of "
            f"{r.detectable:.3f} ndcg_cut_10 would be missed 1 time in 5 by the paired t-test"
        ) in text
        assert f"would be found {r.power:.0%} of the time" in text


def _qrels_bytes(qrels):
    return "".join(
        f"{q} 0 {d} {r}\n" for q, d, r in qrels.itertuples(index=False, name=None)
    ).encode()


def _run_bytes(run, tag):
    lines = []
    for q, group in run.groupby("query_id", sort=True):
        group = group.sort_values("score", ascending=False)
        for rank, (d, s) in enumerate(zip(group["doc_id"], group["score"], strict=True), start=1):
            lines.append(f"{q} Q0 {d} {rank} {s:.6f} {tag}\n")
    return "".join(lines).encode()


def test_uploaded_trec_files_and_a_damaged_line(page):
    at = page
    rng = np.random.default_rng(3)
    qrels, runs = example(n_queries=12, n_docs=30, seed=11)
    run_a, run_b = runs["bm25"], runs["hybrid"]
    run_b = run_b.assign(score=run_b["score"] + rng.normal(0, 0.5, len(run_b)))
    at.file_uploader(key="runs_qrels").set_value(
        ("judged.qrels", _qrels_bytes(qrels), "text/plain")
    )
    at.file_uploader(key="runs_runs").set_value(
        [
            ("a.run", _run_bytes(run_a, "sparse"), "text/plain"),
            ("b.run", _run_bytes(run_b, "neural"), "text/plain"),
        ]
    ).run()
    assert not at.exception, at.exception
    assert not at.error
    assert "judged.qrels with a.run, b.run" in markdown_text(at).replace("\\", "")
    shown = _table(at, "runs_table")
    assert list(shown["run"]) == ["a  sparse", "b  neural"]
    # the numbers as trec_eval's files give them: the runs read back from the same text
    read_a = trec.read_trec_run(_write(_run_bytes(run_a, "sparse")))
    read_b = trec.read_trec_run(_write(_run_bytes(run_b, "neural")))
    for measure in MEASURES:
        want = [trec.trec_evaluate(qrels, r, measure)[measure] for r in (read_a, read_b)]
        np.testing.assert_allclose(_means(shown, measure), want, atol=5e-5)
    pairs = _table(at, "runs_pairs")
    want = trec.trec_evaluate(qrels, read_b, "ndcg_cut_10")["ndcg_cut_10"]
    np.testing.assert_allclose(pairs["mean"].to_numpy(), [want], rtol=1e-12)
    flips = _table(at, "runs_flips")
    per_a = trec.trec_evaluate(qrels, read_a, "ndcg_cut_10", per_query=True)
    per_b = trec.trec_evaluate(qrels, read_b, "ndcg_cut_10", per_query=True)
    d = per_b.set_index("query_id")["ndcg_cut_10"] - per_a.set_index("query_id")["ndcg_cut_10"]
    top = d[d != 0].abs().sort_values(ascending=False).iloc[: len(flips)]
    np.testing.assert_allclose(np.abs(flips["difference"].to_numpy()), top.to_numpy(), rtol=1e-12)
    signed = d.loc[flips["query_id"].astype(str)].to_numpy()  # neural - sparse, signed
    np.testing.assert_allclose(flips["difference"].to_numpy(), signed, rtol=1e-12)
    spec = decode_arrays(json.loads(at.get("plotly_chart")[0].proto.spec))
    bars = np.concatenate([np.asarray(t.get("y", []), dtype=float) for t in spec["data"]])
    np.testing.assert_allclose(bars, np.sort(d.to_numpy())[::-1], rtol=1e-12)

    damaged = _run_bytes(run_b, "neural").replace(b" Q0 ", b" Q0 X ", 1)
    at.file_uploader(key="runs_runs").set_value(
        [("a.run", _run_bytes(run_a, "sparse"), "text/plain"), ("b.run", damaged, "text/plain")]
    ).run()
    assert not at.exception, at.exception
    assert len(at.error) == 1
    message = at.error[0].value.replace("\\", "")
    assert "b.run, line 1" in message
    assert "this one has 7" in message
    assert at.title[0].value == "Runs"

    # An unjudged document returned twice: said, and the numbers still shown
    first = _run_bytes(run_a, "sparse").decode().splitlines()
    q0 = first[0].split()[0]
    extra = f"{q0} Q0 never-judged 999 99.0 sparse\n{q0} Q0 never-judged 999 98.0 sparse\n"
    at.file_uploader(key="runs_runs").set_value(
        [
            ("a.run", (extra + "\n".join(first) + "\n").encode(), "text/plain"),
            ("b.run", _run_bytes(run_b, "neural"), "text/plain"),
        ]
    ).run()
    assert not at.exception, at.exception
    assert not at.error
    warning = " ".join(w.value.replace("\\", "") for w in at.warning)
    assert "Run sparse returns 1 document more than once for a query (1 extra row" in warning
    assert "trec_eval refuses such a run" in warning
    assert _table(at, "runs_table") is not None


def _write(data: bytes):
    import tempfile
    from pathlib import Path

    path = Path(tempfile.mkdtemp()) / "run.txt"
    path.write_bytes(data)
    return path


def test_trec_files_on_the_server_are_picked_on_the_page(tmp_path, monkeypatch):
    """A classroom's shared TREC files under the data directory: listed (qrels by name, runs
    by suffix; a hidden file and a score table not), picked, and read as an upload is; a name
    leading outside the directory is refused in one sentence."""
    qrels, runs = example(n_queries=10, n_docs=25, seed=5)
    (tmp_path / "msmarco").mkdir()
    (tmp_path / "msmarco" / "dev.qrels").write_bytes(_qrels_bytes(qrels))
    (tmp_path / "msmarco" / "bm25.run").write_bytes(_run_bytes(runs["bm25"], "bm25"))
    (tmp_path / "msmarco" / "dense.run").write_bytes(_run_bytes(runs["dense"], "dense"))
    (tmp_path / ".draft.run").write_bytes(_run_bytes(runs["hybrid"], "draft"))
    (tmp_path / "scores.csv").write_text("label,score\n1,0.3\n0,0.2\n")
    monkeypatch.setenv("METRICS_LENS_DATA_DIR", str(tmp_path))
    at = open_page(PAGE)
    assert at.selectbox(key="runs_server_q").options == ["msmarco/dev.qrels"]
    assert at.multiselect(key="runs_server_r").options == ["msmarco/bm25.run", "msmarco/dense.run"]
    at.selectbox(key="runs_server_q").set_value("msmarco/dev.qrels")
    at.multiselect(key="runs_server_r").set_value(["msmarco/bm25.run", "msmarco/dense.run"]).run()
    assert not at.exception, at.exception
    assert not at.error
    text = markdown_text(at).replace("\\", "")
    assert "dev.qrels with bm25.run, dense.run, the files picked on the server" in text
    shown = _table(at, "runs_table")
    assert list(shown["run"]) == ["a  bm25", "b  dense"]
    read = {n: trec.read_trec_run(tmp_path / "msmarco" / f"{n}.run") for n in ("bm25", "dense")}
    for measure in MEASURES:
        want = [trec.trec_evaluate(qrels, r, measure)[measure] for r in read.values()]
        np.testing.assert_allclose(_means(shown, measure), want, atol=5e-5)
    # A name that leads outside the directory (the menu offers none; the check stands behind
    # it): one sentence.
    from ui.compute.runs_compute import server_paths

    (tmp_path.parent / "secret.run").write_bytes(b"x")
    for name in ("../secret.run", "msmarco/../../secret.run", str(tmp_path.parent / "secret.run")):
        with pytest.raises(ValueError, match="is not a file in the data directory"):
            server_paths("msmarco/dev.qrels", ["msmarco/bm25.run", name])

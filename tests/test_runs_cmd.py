"""``metrics-lens check --qrels QRELS BASELINE CANDIDATE --metric M``: the retrieval gate's exit
codes (0 pass, 1 worse, 2 bad input in one line)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from metrics_lens.cli import main

N = 40


def _files(tmp_path, *, candidate_good: bool):
    qrels = "".join(f"{q} 0 rel{q} 1\n{q} 0 non{q} 0\n" for q in range(N))
    (tmp_path / "qrels.txt").write_text(qrels)

    def run(name: str, rel_first: bool) -> str:
        lines = []
        for q in range(N):
            docs = [f"rel{q}", f"non{q}", f"x{q}"] if rel_first else [f"non{q}", f"x{q}", f"rel{q}"]
            for rank, d in enumerate(docs, start=1):
                lines.append(f"{q} Q0 {d} {rank} {10 - rank} {name}")
        path = tmp_path / f"{name}.txt"
        path.write_text("\n".join(lines) + "\n")
        return str(path)

    base = run("base", rel_first=True)
    cand = run("cand", rel_first=candidate_good)
    return str(tmp_path / "qrels.txt"), base, cand


def test_a_significantly_worse_candidate_exits_1(tmp_path, capsys):
    qrels, base, cand = _files(tmp_path, candidate_good=False)
    code = main(["check", "--qrels", qrels, base, cand, "--metric", "ndcg_cut_10"])
    out = capsys.readouterr().out
    assert code == 1
    assert out.startswith("FAILED")
    assert "significantly worse" in out


def test_an_equal_candidate_exits_0(tmp_path, capsys):
    qrels, base, cand = _files(tmp_path, candidate_good=True)
    args = ["check", "--qrels", qrels, base, cand, "--metric", "recip_rank", "--metric", "map"]
    assert main([*args, "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["passed"]
    assert report["exit_code"] == 0
    assert report["family"].startswith("2 tests (2 measures x 1 pairs), Holm")
    assert [m["metric"] for m in report["metrics"]] == ["recip_rank", "map"]


@pytest.fixture
def worse(tmp_path):
    (tmp_path / "w").mkdir()
    return _files(tmp_path / "w", candidate_good=False)


def test_max_drop_fails_a_drop_larger_than_allowed(worse, capsys):
    qrels, base, cand = worse
    # Student's t on identical differences: the drop is certain, and larger than 0.1.
    code = main(
        ["check", "--qrels", qrels, base, cand, "--metric", "P_1", "--max-drop", "0.1", "--json"]
    )
    report = json.loads(capsys.readouterr().out)
    assert code == 1
    assert "--max-drop 0.1" in report["metrics"][0]["reason"]


@pytest.mark.parametrize(
    ("change", "match"),
    [
        ({"metric": "ndcg@10"}, "Unknown measure 'ndcg@10'"),
        ({"baseline": "missing.txt"}, "does not exist"),
        ({"damage": True}, "line 2: a run line has 6"),
        ({"alpha": "2"}, "--alpha must be between 0 and 1"),
    ],
)
def test_bad_input_exits_2_with_one_line(tmp_path, capsys, change, match):
    qrels, base, cand = _files(tmp_path, candidate_good=True)
    if change.get("damage"):
        path = tmp_path / "cand.txt"
        lines = path.read_text().splitlines()
        lines[1] = "0 Q0 broken 2"
        path.write_text("\n".join(lines) + "\n")
    if "baseline" in change:
        base = str(tmp_path / change["baseline"])
    argv = ["check", "--qrels", qrels, base, cand, "--metric", change.get("metric", "map")]
    if "alpha" in change:
        argv += ["--alpha", change["alpha"]]
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1
    assert err.startswith("metrics-lens check: error:")
    assert match in err


def test_the_table_form_of_check_is_untouched(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["check", "--metric", "auc"])
    assert exc.value.code == 2
    assert "--baseline" in capsys.readouterr().err


def test_report_marks_the_runs_each_run_significantly_beats(tmp_path, capsys):
    qrels, base, worse_run = _files(tmp_path, candidate_good=False)
    out_html = tmp_path / "runs.html"
    code = main(
        [
            "report",
            "--qrels",
            qrels,
            base,
            worse_run,
            "--metric",
            "P_1",
            "--test",
            "student",
            "-o",
            str(out_html),
        ]
    )
    out = capsys.readouterr().out
    assert code == 0
    lines = out.splitlines()
    assert lines[1].startswith("(a) base")
    assert "1.0000^b" in lines[1]
    assert lines[2].startswith("(b) cand")
    assert "^" not in lines[2].split("cand", 1)[1]
    assert "<sup>b</sup>" in out_html.read_text()


def test_report_with_one_run_exits_2(tmp_path, capsys):
    qrels, base, _ = _files(tmp_path, candidate_good=True)
    assert main(["report", "--qrels", qrels, base]) == 2
    assert "at least two runs" in capsys.readouterr().err


def test_complete_counts_the_queries_a_run_lacks(tmp_path, capsys):
    qrels, base, cand = _files(tmp_path, candidate_good=True)
    # The candidate answers only the first 10 queries; with -c the other 30 score 0 there.
    path = tmp_path / "cand.txt"
    lines = [ln for ln in path.read_text().splitlines() if int(ln.split()[0]) < 10]
    path.write_text("\n".join(lines) + "\n")
    argv = ["check", "--qrels", qrels, base, cand, "--metric", "recip_rank", "--json"]
    assert main(argv) == 0
    assert json.loads(capsys.readouterr().out)["metrics"][0]["queries"] == 10
    assert main([*argv, "--complete"]) == 1
    assert json.loads(capsys.readouterr().out)["metrics"][0]["queries"] == N


@pytest.mark.parametrize(
    ("extra", "match"),
    [
        ("one_run", "--qrels needs two or more runs to compare after it, got 1"),
        ("damaged", "cand.txt, line 3: a run line has 6"),
        ("label", "--label name columns of a score table"),
        ("twice", "A file is given twice"),
        ("missing", "nothere.txt"),
    ],
)
def test_app_with_qrels_refuses_bad_input_in_one_line(extra, match, tmp_path, capsys):
    """``app --qrels`` reads every file before it starts a server: exit 2, one line."""
    qrels, base, cand = _files(tmp_path, candidate_good=True)
    runs = [base, cand]
    flags = ["--no-browser", "--port", "1"]  # never reached: the files are refused first
    if extra == "one_run":
        runs = [base]
    elif extra == "damaged":
        path = tmp_path / "cand.txt"
        lines = path.read_text().splitlines()
        lines[2] = "7 Q0 x7"
        path.write_text("\n".join(lines) + "\n")
    elif extra == "label":
        flags += ["--label", "y"]
    elif extra == "twice":
        runs = [base, base]
    elif extra == "missing":
        runs = [base, str(tmp_path / "nothere.txt")]
    code = main(["app", "--qrels", qrels, *runs, *flags])
    err = capsys.readouterr().err.strip()
    assert code == 2
    assert len(err.splitlines()) == 1, err
    assert match in err
    assert "Traceback" not in err


def test_report_with_tukey_names_its_family(tmp_path, capsys):
    qrels, base, cand = _files(tmp_path, candidate_good=False)
    third = tmp_path / "third.txt"
    third.write_text(Path(cand).read_text().replace(" cand\n", " third\n"))
    code = main(["report", "--qrels", qrels, base, cand, str(third), "--test", "tukey"])
    out = capsys.readouterr().out
    assert code == 0
    assert "Tukey's HSD over the 3 pairs of 3 runs (queries as blocks)" in out

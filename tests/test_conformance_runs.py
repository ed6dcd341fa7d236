"""The conformance matrix's qrels + runs layout (issue 52): TREC files in, through each way a
user gives them (the Runs page's uploaders; ``metrics-lens app --qrels QRELS RUN...``, run as
``tests/test_conformance.py`` runs the command, its server replaced by a stand-in that hands
the environment it was given to a fresh session at the address it printed).

Every page either shows numbers equal to the library's on the files (the Runs page:
``trec_evaluate``'s means and ``compare_runs``' tests) or says in one sentence what it needs (the
score-table pages: a table of labels and scores, with the TREC files on the Runs page), never an
exception.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from metrics import trec
from tests.apptest_utils import app_command
from tests.test_conformance import PAGES, _main_text, _new, _said_what_it_needs, _settle
from ui.compute.runs_compute import MEASURES, example
from ui.frame.trec_note import SENTENCE

RUNS_PAGE = "pages/runs.py"
# After an upload the sentence comes from the session (the Runs page marks it), not from the
# command's environment; the frame says it the same way on every page, so the upload cell
# visits a score page, a teaching page and the Data page (which shows any table), the command's
# cell every page.
UPLOAD_PAGES = ("threshold", "ap_lab", "data")


def _write(tmp_path: Path) -> tuple[Path, list[Path]]:
    """A small seeded qrels file and three runs, as trec_eval reads them."""
    qrels, runs = example(n_queries=14, n_docs=30, seed=5)
    folder = tmp_path / "trec"
    folder.mkdir()
    q = folder / "judged.qrels"
    q.write_text("".join(f"{a} 0 {b} {c}\n" for a, b, c in qrels.itertuples(index=False)))
    paths = []
    for name, run in runs.items():
        lines = []
        for qid, group in run.groupby("query_id", sort=True):
            group = group.sort_values("score", ascending=False, kind="stable")
            pairs = zip(group["doc_id"], group["score"], strict=True)
            for rank, (doc, score) in enumerate(pairs, start=1):
                lines.append(f"{qid} Q0 {doc} {rank} {score:.4f} {name}\n")
        p = folder / f"{name}.run"
        p.write_text("".join(lines))
        paths.append(p)
    return q, paths


def _check_runs_page(at, qrels_path: Path, run_paths: list[Path]) -> list[str]:
    """The Runs page's side-by-side means and pair tests against the library on the files."""
    problems = []
    qrels = trec.read_trec_qrels(qrels_path)
    runs = {p.stem: trec.read_trec_run(p) for p in run_paths}
    shown = next(d.value for d in at.main.dataframe if d.value.columns[0] == "run")
    names = [cell.split(maxsplit=1)[1] for cell in shown["run"]]
    if names != list(runs):
        return [f"runs: shows {names}, the files are {list(runs)}"]
    for m in MEASURES:
        got = [float(c.split()[0]) for c in shown[m]]
        want = [trec.trec_evaluate(qrels, r, m)[m] for r in runs.values()]
        if not np.allclose(got, want, atol=5e-5):
            problems.append(f"runs: {m} means {got}, trec_evaluate {want}")
    table = trec.compare_runs(qrels, runs, list(MEASURES), primary="ndcg_cut_10")
    table = table[table["measure"] == "ndcg_cut_10"]
    pairs = next(d.value for d in at.main.dataframe if "p_adjusted" in d.value.columns)
    if not np.allclose(pairs["p_value"], table["p_value"], rtol=1e-12):
        problems.append(f"runs: p {list(pairs['p_value'])}, compare_runs {list(table['p_value'])}")
    return problems


def _visit(at, qrels_path: Path, run_paths: list[Path], pages) -> list[str]:
    """The Runs page checked on the files, then each of ``pages``: the sentence naming what it
    needs (and where the TREC files are), no exception."""
    problems = _check_runs_page(at, qrels_path, run_paths)
    for page in pages:
        path = PAGES[page]
        at.switch_page(path).run()
        if at.exception:
            problems.append(f"{page}: exception {at.exception[0].message[:300]}")
            continue
        if not (_said_what_it_needs(at) and SENTENCE in _main_text(at)):
            problems.append(f"{page}: no sentence on what it needs ({_main_text(at)!r:.200})")
    return problems


@pytest.mark.parametrize("way", ["upload", "app_qrels"])
def test_qrels_and_runs_conform_on_every_page(way, tmp_path, monkeypatch, capsys):
    qrels_path, run_paths = _write(tmp_path)
    if way == "upload":
        at = _settle(_new())
        at.switch_page(RUNS_PAGE).run()
        at.file_uploader(key="runs_qrels").set_value(
            (qrels_path.name, qrels_path.read_bytes(), "text/plain")
        )
        at.file_uploader(key="runs_runs").set_value(
            [(p.name, p.read_bytes(), "text/plain") for p in run_paths]
        ).run()
        assert not at.exception, at.exception
        problems = _visit(at, qrels_path, run_paths, UPLOAD_PAGES)
    else:

        def opened(env, url):
            assert url.endswith("/runs"), url  # the command opens the Runs page
            for key, value in env.items():
                if key.startswith("METRICS_LENS"):
                    monkeypatch.setenv(key, value)
            at = _new()
            at.switch_page(RUNS_PAGE).run()
            assert not at.exception, at.exception
            text = "\n".join(m.value for m in at.markdown).replace("\\", "")
            assert "the files metrics-lens app was given" in text
            return _visit(at, qrels_path, run_paths, PAGES)

        args = ["--qrels", str(qrels_path), *map(str, run_paths), "--no-browser"]
        code, problems = app_command(monkeypatch, args, opened)
        assert code == 0, capsys.readouterr()
    assert not problems, "\n".join(problems)

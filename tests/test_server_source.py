"""The Server dataset source: files only under the data directory, the engine's exact counts
on every threshold view, summaries written by the CLI opening the same way."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

import metrics
from metrics.significance import format_p
from tests.apptest_utils import APP, figures
from ui.compute.server_source import OutsideRoot, sandboxed
from ui.tables.dataset import BUNDLED, SAMPLE_DIR

ROOT = Path(__file__).resolve().parent.parent


def _table(n: int = 5000, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    y = (rng.random(n) < 0.25).astype(int)
    return pd.DataFrame(
        {
            "user_id": rng.integers(0, 200, n),
            "clicked": y,
            "model_a": np.round(rng.normal(size=n) + y, 2),
            "model_b": rng.normal(size=n) + 0.5 * y,
        }
    )


def test_paths_outside_the_data_directory_are_refused(tmp_path):
    root = tmp_path / "data"
    (root / "logs").mkdir(parents=True)
    _table(100).to_parquet(root / "logs" / "a.parquet")
    _table(100).to_parquet(root / "logs" / "b.parquet")
    secret = tmp_path / "secret.csv"
    secret.write_text("clicked,score\n1,0.5\n")
    (root / "link.csv").symlink_to(secret)
    assert [f.name for f in sandboxed("logs/*.parquet", root)] == ["a.parquet", "b.parquet"]
    for pattern in ("../secret.csv", str(secret), "link.csv", "logs/../../secret.csv", "*/../../*"):
        with pytest.raises(OutsideRoot, match="outside the data directory"):
            sandboxed(pattern, root)
    with pytest.raises(OutsideRoot, match="No file"):
        sandboxed("logs/missing.parquet", root)


def _open(root: Path, file: str) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=120)
    at.run()
    at.segmented_control(key="source").set_value("Server dataset").run()
    at.selectbox(key="server_file").set_value(file).run()
    assert not at.exception, at.exception
    return at


def _serve(tmp_path, monkeypatch, t: pd.DataFrame) -> AppTest:
    """``t`` as impressions.parquet in a fresh data directory, opened as a server dataset."""
    root = tmp_path / "data"
    root.mkdir()
    t.to_parquet(root / "impressions.parquet")
    monkeypatch.setenv("METRICS_LENS_DATA_DIR", str(root))
    return _open(root, "impressions.parquet")


def test_the_pages_read_the_engines_exact_counts(tmp_path, monkeypatch):
    t = _table()
    at = _serve(tmp_path, monkeypatch, t)
    assert at.selectbox(key="server_label").value == "clicked"
    assert at.multiselect(key="server_scores").value == ["model_a", "model_b"]
    assert at.selectbox(key="server_group").value == "user_id"
    engine = next(d.value for d in at.dataframe if "GAUC" in d.value.columns)
    row = engine.set_index("model").loc["model_b"]
    assert row["AUC"] == metrics.roc_auc_score(t.clicked, t.model_b)
    assert row["GAUC"] == pytest.approx(
        metrics.group_auc_score(t.clicked, t.model_b, t.user_id), abs=1e-12
    )
    at.selectbox(key="server_model").set_value("model_a").run()
    at.switch_page("pages/curves.py").run()
    assert not at.exception, at.exception
    names = " ".join(str(tr.get("name")) for f in figures(at) for tr in f["data"])
    assert f"{metrics.roc_auc_score(t.clicked, t.model_a):.3f}" in names
    assert f"{metrics.average_precision_score(t.clicked, t.model_a):.3f}" in names
    at.switch_page("pages/ap_lab.py").run()
    assert not at.exception, at.exception


def test_a_summary_written_by_the_cli_opens_the_same_way(tmp_path, monkeypatch):
    root = tmp_path / "data"
    root.mkdir()
    t = _table(seed=1)
    t.to_parquet(tmp_path / "big.parquet")
    r = subprocess.run(
        [sys.executable, "-m", "metrics.sql", str(tmp_path / "big.parquet"), "--label",
         "clicked", "--score", "model_a", "--out", str(root / "big.npz")],
        cwd=ROOT, capture_output=True, text=True, timeout=120, env=dict(os.environ),
    )  # fmt: skip
    assert r.returncode == 0, r.stderr
    monkeypatch.setenv("METRICS_LENS_DATA_DIR", str(root))
    at = _open(root, "big.npz")
    engine = next(d.value for d in at.dataframe if "AUC" in d.value.columns)
    assert engine.loc[0, "AUC"] == metrics.roc_auc_score(t.clicked, t.model_a)


def test_bad_files_and_columns_give_a_message(tmp_path, monkeypatch):
    root = tmp_path / "data"
    root.mkdir()
    (root / "broken.parquet").write_bytes(b"not parquet")
    t = _table().assign(clicked=0)
    t.to_parquet(root / "one_class.parquet")
    monkeypatch.setenv("METRICS_LENS_DATA_DIR", str(root))
    at = _open(root, "broken.parquet")
    assert any("Cannot read" in e.value for e in at.error)
    at.selectbox(key="server_file").set_value("one_class.parquet").run()
    assert not at.exception
    assert any("one value only" in e.value for e in at.error)


def test_gauc_and_compare_read_the_engines_sums(tmp_path, monkeypatch):
    t = _table(n=6000, seed=2)
    at = _serve(tmp_path, monkeypatch, t)
    at.switch_page("pages/gauc.py").run()
    assert not at.exception, at.exception
    cards = {m.label: m.value for m in at.metric}
    want = metrics.group_auc_score(t.clicked, t.model_a, t.user_id)
    assert cards["GAUC (impressions)"] == f"{want:.4f}"
    assert cards["Global AUC"] == f"{metrics.roc_auc_score(t.clicked, t.model_a):.4f}"
    assert any("needs the rows" in i.value for i in at.info)  # the score-shift sweep
    per_user = next(d.value for d in at.dataframe if "share of weight" in d.value.columns)
    assert len(per_user) == t.user_id.nunique()
    assert any("GAUC (impressions) of" in m.value for m in at.markdown)  # head to head

    at.switch_page("pages/compare.py").run()
    assert not at.exception, at.exception
    shown = next(
        d.value
        for d in at.dataframe
        if "GAUC" in d.value and not pd.api.types.is_numeric_dtype(d.value["AUC"])
    ).set_index("model")
    y = t.clicked.to_numpy()
    for name in ("model_a", "model_b"):
        # users mapped: Obuchowski's clustered interval (t reference), as the library gives it
        ci = metrics.clustered_auc_test(y, t[name], groups=t.user_id, small_sample=True)
        star = "★ " if shown.loc[name, "AUC"].startswith("★") else ""
        assert shown.loc[name, "AUC"] == (
            f"{star}{ci.auc_a:.4f}  [{ci.ci_low_a:.4f}, {ci.ci_high_a:.4f}]"
        )
    r = metrics.clustered_auc_test(y, t.model_a, t.model_b, groups=t.user_id, small_sample=True)
    said = " ".join(m.value for m in at.markdown)
    assert format_p(r.p_value) in said  # the one p-value formatter
    assert not re.search(r"p = [0-9.]+e-", said), said  # never a p below what a test resolves
    assert "(DeLong)" not in said  # #19: no row-level verdict when a group column is mapped
    assert "(Obuchowski, clustered)" in said
    assert "(cluster bootstrap)" in said

    at.switch_page("pages/ranking.py").run()  # per query on the engine (ranking_summary)
    assert not at.exception, at.exception
    cards = {m.label: m.value for m in at.metric}
    want = metrics.mean_average_precision(t.clicked, t.model_a, t.user_id, k=10)
    assert cards["MAP@10"] == f"{want:.4f}"
    at.switch_page("pages/multilabel.py").run()
    assert not at.exception, at.exception
    assert any("needs the table's rows" in i.value for i in at.info)


def test_a_bundled_sample_on_the_server_keeps_its_class_names(tmp_path, monkeypatch):
    """The breast cancer sample served from the data directory says malignant / benign, as the
    sample does, not "label = 1 / label ≠ 1"; another table says its label and positive."""
    import shutil

    root = tmp_path / "data"
    root.mkdir()
    spec = BUNDLED["breast_cancer"]
    shutil.copy(SAMPLE_DIR / spec.file, root / spec.file)
    _table().to_parquet(root / "impressions.parquet")
    monkeypatch.setenv("METRICS_LENS_DATA_DIR", str(root))
    at = _open(root, spec.file)
    at.switch_page("pages/threshold.py").run()
    assert not at.exception, at.exception
    shown = " ".join(m.value for m in at.markdown)
    assert f"predicted {spec.positive_name}" in shown
    at.selectbox(key="server_file").set_value("impressions.parquet").run()
    assert not at.exception, at.exception
    shown = " ".join(m.value for m in at.markdown)
    assert "predicted clicked = 1" in shown


def test_a_bundled_sample_with_another_positive_class_says_that_class(tmp_path, monkeypatch):
    """The graded ranking sample keeps "relevant" for its own cut (> 0) only: with the positive
    class ">= 3" the pages say "relevance ≥ 3", not the sample's "relevant"."""
    import shutil

    root = tmp_path / "data"
    root.mkdir()
    spec = BUNDLED["query_ranking"]
    shutil.copy(SAMPLE_DIR / spec.file, root / spec.file)
    monkeypatch.setenv("METRICS_LENS_DATA_DIR", str(root))
    at = _open(root, spec.file)
    at.switch_page("pages/threshold.py").run()
    assert not at.exception, at.exception
    assert f"predicted {spec.positive_name}" in " ".join(m.value for m in at.markdown)
    at.text_input(key="server_pos").set_value(">=3").run()
    assert not at.exception, at.exception
    shown = " ".join(m.value for m in at.markdown)
    assert "predicted relevance ≥ 3" in shown, shown
    assert f"predicted {spec.positive_name}" not in shown


def test_every_page_reads_the_engines_state_or_says_it_needs_rows(tmp_path, monkeypatch):
    """A server dataset holds no rows (reading one raises ui.tables.dataset.RowsNeeded, an exception on
    the page): every page either draws from the engine's per-score and per-user state or says
    it needs the rows."""
    t = _table(n=3000, seed=4)
    at = _serve(tmp_path, monkeypatch, t)
    rows_needed = {"threshold.py", "auc_lab.py", "step_through.py", "multilabel.py"}
    for page in sorted(p.name for p in (ROOT / "pages").glob("*.py")):
        at.switch_page(f"pages/{page}").run()
        assert not at.exception, (page, at.exception)
        said = " ".join(i.value for i in at.info)
        assert ("needs the table's rows" in said) == (page in rows_needed), (page, said)
        if page in ("auc_lab.py", "step_through.py"):  # stopped before its heading: one given
            assert at.header, page
            assert at.header[0].value in ("AUC lab", "Step through"), page
        # Data names it its own way; lessons bring theirs; Detection reads its own boxes
        if page not in ("data.py", "lessons.py", "detection.py", "runs.py"):
            assert at.caption[0].value.endswith(r"Server dataset: **impressions\.parquet**"), page
    at.switch_page("pages/decisions.py").run()  # from the state's weighted runs: exact
    assert any("per-score counts" in c.value for c in at.caption)
    assert any("one model at a time" in c.value for c in at.caption)  # where the others are
    at.switch_page("pages/data.py").run()  # the engine's columns and the per-score table
    roles, counts = (d.value for d in at.dataframe[:2])
    assert dict(zip(roles.column, roles.role, strict=True)) == {
        "clicked": "label", "model_a": "score", "model_b": "score", "user_id": "user / query id"
    }  # fmt: skip
    first = t.model_a.max()
    assert counts.iloc[0].to_dict() == {
        "score": first,
        "positives": int(t.clicked[t.model_a == first].sum()),
        "negatives": int((1 - t.clicked[t.model_a == first]).sum()),
    }
    at.switch_page("pages/ap_lab.py").run()  # the five APs of the state equal the rows'
    cards = [m.value for m in at.metric][: len(metrics.AP_METHODS)]
    want = [metrics.average_precision_score(t.clicked, t.model_a, method=m)
            for m in metrics.AP_METHODS]  # fmt: skip
    assert cards == [f"{v:.4f}" for v in want]


def test_a_label_of_many_values_asks_for_the_sidebars_positive_class(tmp_path, monkeypatch):
    """The engine's sentence names the command line's --pos-label; the page names its field."""
    # Three label words (three numbers would read as graded relevance, every grade above 0
    # positive: the next test).
    t = _table(n=600).assign(clicked=lambda f: np.array(["cat", "dog", "eel"])[f.user_id % 3])
    at = _serve(tmp_path, monkeypatch, t)
    errors = re.sub(r"\\(.)", r"\1", " ".join(e.value for e in at.error))  # markdown escapes
    assert "Positive class (when not 0/1)" in errors, errors
    assert "--pos-label" not in errors
    at.text_input(key="server_pos").set_value("eel").run()
    assert not at.exception, at.exception
    assert not at.error, [e.value for e in at.error]


def test_a_graded_label_opens_with_every_grade_above_0_positive(tmp_path, monkeypatch):
    """A LETOR-style log (grades 0-4 in 'rel', queries in 'qid'): the guess reads the grades as
    graded relevance, so the threshold pages open on 'rel > 0' (the upload's checkbox), not on
    an error asking for one positive class; Ranking keeps the grades."""
    rng = np.random.default_rng(8)
    n = 1500
    rel = rng.choice([0, 0, 0, 1, 2, 3, 4], n)
    t = pd.DataFrame(
        {"qid": rng.integers(0, 60, n), "rel": rel, "bm25": rng.normal(size=n) + 0.4 * rel}
    )
    at = _serve(tmp_path, monkeypatch, t)
    assert not at.error, [e.value for e in at.error]
    assert (at.selectbox(key="server_label").value, at.text_input(key="server_pos").value) == (
        "rel",
        ">0",
    )
    at.switch_page("pages/threshold.py").run()
    assert not at.exception, at.exception
    said = " ".join([c.value for c in at.caption] + [h.proto.help for h in at.subheader])
    assert "rel \\> 0" in said or "rel > 0" in said, said
    engine = next(d.value for d in at.dataframe if "AUC" in d.value.columns)
    assert engine.set_index("model").loc["bm25", "AUC"] == metrics.roc_auc_score(rel > 0, t.bm25)
    at.switch_page("pages/ranking.py").run()
    assert not at.exception, at.exception
    assert any("Graded relevance from rel" in c.value for c in at.caption)


def test_a_setting_the_engine_refuses_keeps_the_last_server_view(tmp_path, monkeypatch):
    """A positive class the engine cannot use: the sidebar says why, and the pages keep the
    server dataset as it last worked, with a warning (they fell back to the sample dataset)."""
    t = _table(n=800)
    at = _serve(tmp_path, monkeypatch, t)
    at.switch_page("pages/threshold.py").run()
    at.text_input(key="server_pos").set_value("7").run()  # no row has label 7
    assert not at.exception, at.exception
    assert at.error  # the sidebar's sentence
    assert at.caption[0].value.endswith(r"Server dataset: **impressions\.parquet**")
    assert any("as it last could be used" in w.value for w in at.warning)
    at.text_input(key="server_pos").set_value("").run()
    assert not at.error
    assert not any("as it last could be used" in w.value for w in at.warning)


def test_another_positive_class_is_another_dataset_for_every_cache(tmp_path, monkeypatch):
    """The server dataset's key carries the label, positive class, group and weight the engine
    read: the default threshold (the k-th highest score, k the positives) followed the first
    positive class after it was changed, from a cache keyed by the files alone."""
    t = _table(n=900, seed=6)
    at = _serve(tmp_path, monkeypatch, t)
    at.switch_page("pages/threshold.py").run()
    for pos, y in (("", t.clicked == 1), ("0", t.clicked == 0), ("1", t.clicked == 1)):
        at.text_input(key="server_pos").set_value(pos).run()
        assert not at.exception, at.exception
        at.button(key="threshold_reset").click().run()
        k = int(y.sum())
        want = np.sort(t.model_a.to_numpy())[::-1][k - 1]  # the k-th highest score
        assert at.slider(key="threshold_slider").value == pytest.approx(want), pos


def test_scores_of_the_other_class_say_how_to_turn_the_label_on_the_server(tmp_path, monkeypatch):
    t = _table(2000, seed=3)
    t["model_a"] = -t["model_a"]  # lower scores mean a click: AUC far below 0.5
    at = _serve(tmp_path, monkeypatch, t)
    at.selectbox(key="server_model").set_value("model_a").run()
    at.switch_page("pages/threshold.py").run()
    assert not at.exception, at.exception
    said = [w.value for w in at.warning if "ranks" in w.value]
    assert len(said) == 1, said
    assert "model\\_a ranks" in said[0]
    # (the markdown escapes the brackets of the field's name)
    assert 'type the other class in "Positive class \\(when not 0/1\\)" under Columns' in said[0]
    at.selectbox(key="server_model").set_value("model_b").run()
    assert not [w.value for w in at.warning if "ranks" in w.value]

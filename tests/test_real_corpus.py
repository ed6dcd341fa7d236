"""Every file of the real-shaped corpus through the loader, against its manifest.

The manifest (``tests/data/real/manifest.json``, written with the files by ``make_real.py``)
says what a careful data scientist would pick: the label and its positive value, the models and
their scales and first thresholds, the group and weight, the slices, and the columns that must
never be taken as a model.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from tests.apptest_utils import APP, upload
from ui.compute import thresholds
from ui.compute.reading import read_table
from ui.frame import shell
from ui.tables.checking import prepare
from ui.tables.loading import guess_mapping
from ui.tables.roles import default_threshold, infer_roles, infer_scale

REAL = Path(__file__).resolve().parent / "data" / "real"
MANIFEST = json.loads((REAL / "manifest.json").read_text())


def test_the_corpus_is_large_and_varied_enough():
    assert len(MANIFEST) >= 15
    scales = {s["scale"] for spec in MANIFEST.values() for s in spec["scores"].values()}
    assert scales == {"probability", "percent", "margin", "rank"}
    assert sum(bool(spec["ignore"]) for spec in MANIFEST.values()) >= 5


@pytest.fixture(params=sorted(MANIFEST), ids=lambda name: name)
def case(request):
    name = request.param
    frame, _ = read_table(name, (REAL / name).read_bytes())
    return name, frame, MANIFEST[name]


def test_mapping_guess(case):
    _, frame, spec = case
    m = guess_mapping(frame)
    assert m.label == spec["label"]
    assert m.pos_label == spec["pos_label"]
    assert type(m.pos_label) is type(spec["pos_label"])
    assert list(m.scores) == list(spec["scores"])
    assert m.group == spec["group"]
    assert m.weight == spec["weight"]
    assert list(m.slices) == spec["slice"]


def test_roles_with_reasons(case):
    _, frame, spec = case
    roles = infer_roles(frame)
    assert all(r.reason for r in roles.values())
    for col in spec["ignore"]:
        assert roles[col].role == "ignore", (col, roles[col])
    for col in spec["scores"]:
        assert roles[col].role == "score", (col, roles[col])
    for col in spec["slice"]:
        assert roles[col].role == "slice", (col, roles[col])
    assert roles[spec["label"]].role == "label"


def test_scales_and_default_thresholds(case):
    _, frame, spec = case
    m = guess_mapping(frame)
    prepared = prepare(frame, m, drop_bad_rows=True)
    assert prepared.ok, [p.message for p in prepared.problems]
    for col, expected in spec["scores"].items():
        scale = infer_scale(prepared.scores[col], col)
        assert scale.kind == expected["scale"], (col, scale)
        # The manifest counts every row with a score; so does the loader after dropping blanks.
        t = default_threshold(scale.kind, prepared.y, prepared.scores[col], prepared.weight)
        assert t == pytest.approx(expected["threshold"], rel=1e-12, abs=0)


def test_a_default_threshold_never_flags_every_row_or_none_when_both_classes_exist(case):
    _, frame, spec = case
    m = guess_mapping(frame)
    prepared = prepare(frame, m, drop_bad_rows=True)
    for col in spec["scores"]:
        s = prepared.scores[col]
        t = default_threshold(infer_scale(s, col).kind, prepared.y, s, prepared.weight)
        flagged = np.mean(s >= t)
        assert 0 < flagged < 1, (col, t, flagged)


# Every page of the dashboard, opened on each export as a user uploads it (AppTest: what a page
# shows is checked here; tests/test_browser_real.py keeps what needs a browser, the real upload
# and the first screen, on a sample of the files).
PAGE_FILES = [path for path, _title, _icon in shell.PAGES]


def test_every_export_opens_on_every_page_as_uploaded(case):
    name, _, spec = case
    at = AppTest.from_file(APP, default_timeout=60)
    upload(at, name, (REAL / name).read_bytes())
    if any("Drop those rows to go on" in t for t in _texts(at)):  # blank scores: drop them
        at.checkbox(key="map_drop_bad_rows").check().run()
    assert not at.exception, at.exception
    first = next(iter(spec["scores"]))
    assert at.selectbox(key="model").value == first
    assert sorted(at.multiselect(key="map_scores").value) == sorted(spec["scores"])
    frame, _ = read_table(name, (REAL / name).read_bytes())  # as the app reads it
    column = pd.to_numeric(frame[first], errors="coerce").dropna()
    written = thresholds.label_on(
        np.unique(column.to_numpy(dtype=float)), spec["scores"][first]["threshold"]
    )
    assert any(f"Scores ≥ **{written}** are predicted" in t for t in _texts(at)), name
    for path in PAGE_FILES:
        at.switch_page(path).run()
        assert not at.exception, (name, path, at.exception)
        assert at.title or at.header, (name, path)


def _texts(at: AppTest) -> list[str]:
    return [
        e.value for kind in (at.markdown, at.error, at.warning, at.info, at.caption) for e in kind
    ]

"""Real-shaped exports uploaded in a real browser.

A sample of the corpus in ``tests/data/real/`` (see its manifest) goes through the browser's
file input: the models offered must be the manifest's score columns (never an id or a
timestamp), the Threshold page must open at the manifest's default threshold for the first
model, not at the lowest score, and the table must survive a page change. Every page on every
file of the corpus is checked headlessly (``tests/test_real_corpus.py``).
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from tests.lens_browser import settle
from tests.test_browser import (  # noqa: F401  (fixtures, and the skip without Chromium)
    ARTIFACTS,
    _upload,
    _wait_for_app,
    browser,
    page,
    pytestmark,
    server,
)
from ui.compute import thresholds
from ui.compute.reading import read_table

REAL = Path(__file__).resolve().parent / "data" / "real"
MANIFEST = json.loads((REAL / "manifest.json").read_text())


def _sample() -> list[str]:
    """One file for each guess a first screen can get wrong in a browser: blank scores (the
    "drop rows" button), percentages beside probabilities, margins with a session id, and a
    wide export whose many id and timestamp columns must not be offered as models. Every file
    of the corpus is checked on every page headlessly (tests/test_real_corpus.py)."""
    picked = []
    for wanted in (
        lambda spec, kinds: "percent" in kinds and "probability" in kinds,
        lambda spec, kinds: spec.get("group") and kinds == {"margin"},
        lambda spec, kinds: len(spec.get("ignore", [])) >= 10,
    ):
        picked.append(next(n for n, spec in sorted(MANIFEST.items())
                            if wanted(spec, {s["scale"] for s in spec["scores"].values()})))  # fmt: skip
    return ["blank_scores.csv", *picked]


@pytest.mark.parametrize("name", _sample())
def test_a_real_export_opens_on_every_page(server, page, name):  # noqa: F811
    from playwright.sync_api import expect

    spec = MANIFEST[name]
    page.goto(server)
    _wait_for_app(page)
    _upload(page, REAL / name)
    page.get_by_text("Score columns (one per model)").wait_for(timeout=30_000)
    _wait_for_app(page)
    if page.get_by_text("Drop those rows to go on").count():  # blank scores: drop them
        page.get_by_text("Drop rows with missing or bad values").click()
        _wait_for_app(page)
    first = next(iter(spec["scores"]))
    model = page.get_by_role("combobox", name="Model (score column)")
    expect(model).to_have_value(first, timeout=20_000)
    chosen = page.locator('[data-testid="stMultiSelect"]', has_text="Score columns")
    tags = chosen.locator("[data-tag] > span[title]").filter(visible=True)
    expect(tags).to_have_count(len(spec["scores"]), timeout=20_000)
    assert sorted(t.strip() for t in tags.all_inner_texts()) == sorted(spec["scores"])
    expected = spec["scores"][first]["threshold"]
    # The sentence under the slider states the threshold in use, with the digits that keep the
    # rows it selects (ui.compute.thresholds.label_on, on the column's scores).
    frame, _ = read_table(name, (REAL / name).read_bytes())  # as the app reads it
    column = pd.to_numeric(frame[first], errors="coerce").dropna()
    written = thresholds.label_on(np.unique(column.to_numpy(dtype=float)), expected)
    expect(page.get_by_text(f"Scores ≥ {written} are predicted")).to_be_visible()
    # Every page on every export is AppTest's (tests/test_real_corpus.py); here, the upload's
    # table survives a page change in the browser.
    page.get_by_role("link", name="Curves").click()
    _wait_for_app(page)
    settle(page)
    assert page.locator('[data-testid="stException"]').count() == 0, name
    expect(page.get_by_role("combobox", name="Model (score column)")).to_have_value(first)
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=ARTIFACTS / f"real-{Path(name).stem}.png")

"""The documentation's tour: every page of the navigation on a bundled dataset, opened in
Chromium at 1280x800 without an exception, its first screen saved.

``make screenshots`` runs this file with ``DOCS_SHOTS=docs/screenshots``, so the tour's pictures
are taken from the browser suite and never go stale; in the suite they go to ``test-artifacts/``.
A page added to the navigation needs a line in ``TOUR`` (its dataset) and a section in
``docs/tour.md``: ``tests/test_docs.py`` fails until both exist.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.lens_browser import ROOT, settle, wait_for_app
from tests.test_browser import browser, server  # noqa: F401 (the file's fixtures)
from tests.tour_pages import TOUR

SHOTS = Path(os.environ.get("DOCS_SHOTS") or ROOT / "test-artifacts")


@pytest.fixture(scope="module")
def tab(browser):  # noqa: F811
    """One 1280x800 tab for the whole tour: each page is opened by its link (a new session on
    the server), and the browser keeps the dashboard's scripts cached between pages, as a
    reader's browser does."""
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    yield context.new_page()
    context.close()


@pytest.mark.parametrize(("slug", "dataset"), TOUR.items())
def test_every_page_of_the_tour_opens_and_is_photographed(server, tab, slug, dataset):  # noqa: F811
    path = "" if slug == "threshold" else slug
    tab.goto(f"{server}/{path}?dataset={dataset}")
    wait_for_app(tab)
    # A widget whose script chunk is still loading shows a grey skeleton, which the page's
    # rest does not wait for: a picture for people waits for the widgets themselves.
    tab.wait_for_function(
        "() => !document.querySelector('[data-testid=\"stSkeleton\"]')", timeout=60_000
    )
    settle(tab)
    assert tab.locator('[data-testid="stException"]').count() == 0
    assert tab.locator('[data-testid="stAlert"]', has_text="cannot be used").count() == 0
    assert tab.get_by_text("Page not found").count() == 0, slug
    SHOTS.mkdir(parents=True, exist_ok=True)
    tab.screenshot(path=SHOTS / f"tour-{slug}.png")

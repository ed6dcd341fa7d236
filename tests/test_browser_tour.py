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


@pytest.mark.parametrize(("slug", "dataset"), TOUR.items())
def test_every_page_of_the_tour_opens_and_is_photographed(server, browser, slug, dataset):  # noqa: F811
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    page = context.new_page()
    try:
        path = "" if slug == "threshold" else slug
        page.goto(f"{server}/{path}?dataset={dataset}")
        wait_for_app(page)
        # A widget whose script chunk is still loading shows a grey skeleton, which the page's
        # rest does not wait for: a picture for people waits for the widgets themselves.
        page.wait_for_function(
            "() => !document.querySelector('[data-testid=\"stSkeleton\"]')", timeout=60_000
        )
        settle(page)
        assert page.locator('[data-testid="stException"]').count() == 0
        assert page.locator('[data-testid="stAlert"]', has_text="cannot be used").count() == 0
        SHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=SHOTS / f"tour-{slug}.png")
    finally:
        context.close()

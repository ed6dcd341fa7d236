"""The front door: a README that fits on two screens, and a documentation site whose tour shows
every page of the navigation with a current screenshot (``make docs`` builds the site strictly
in CI; ``make screenshots`` takes the pictures again)."""

from __future__ import annotations

import re
from pathlib import Path

from tests.tour_pages import TOUR

ROOT = Path(__file__).resolve().parent.parent


def _nav_slugs() -> list[str]:
    from ui.frame.navigation import PAGES

    return [Path(path).stem for path, _, _ in PAGES]


def test_the_readme_fits_on_two_screens():
    lines = (ROOT / "README.md").read_text(encoding="utf-8").splitlines()
    assert len(lines) <= 150, f"README.md has {len(lines)} lines; the docs site holds the rest"


def test_every_page_of_the_navigation_is_in_the_tour_with_its_screenshot():
    tour = (ROOT / "docs" / "tour.md").read_text(encoding="utf-8")
    for slug in _nav_slugs():
        assert slug in TOUR, f"pages/{slug}.py is not in tests/tour_pages.py's TOUR"
        picture = f"screenshots/tour-{slug}.png"
        assert picture in tour, f"docs/tour.md shows no {picture}"
        assert (ROOT / "docs" / picture).is_file(), f"docs/{picture} is missing: make screenshots"
    assert set(TOUR) == set(_nav_slugs()), "TOUR names a page the navigation no longer has"


def test_every_docs_page_is_in_the_site_navigation():
    nav = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    pages = {p.relative_to(ROOT / "docs").as_posix() for p in (ROOT / "docs").rglob("*.md")}
    listed = set(re.findall(r":\s*([\w./-]+\.md)\s*$", nav, flags=re.M))
    assert pages == listed, (
        f"not in mkdocs.yml's nav: {sorted(pages - listed)}; gone: {sorted(listed - pages)}"
    )

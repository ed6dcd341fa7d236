"""The navigation (ui.frame.navigation): every page file listed once, in its section."""

from __future__ import annotations

from pathlib import Path

from ui.frame import navigation

ROOT = Path(__file__).resolve().parent.parent


def test_every_page_file_is_listed_once():
    listed = [path for path, _title, _icon in navigation.PAGES]
    assert len(set(listed)) == len(listed)
    assert sorted(listed) == sorted(f"pages/{p.name}" for p in (ROOT / "pages").glob("*.py"))


def test_the_sections_in_order_and_the_threshold_page_first():
    assert list(navigation.SECTIONS) == ["Explore", "Compare", "Learn", "Data"]
    assert navigation.PAGES[0][:2] == ("pages/threshold.py", "Threshold")
    assert navigation.SECTIONS["Data"] == [("pages/data.py", "Data", ":material/table:")]

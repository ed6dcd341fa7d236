"""The notes that say which data a page shows (ui.frame.notes)."""

from __future__ import annotations

from types import SimpleNamespace

from ui.frame import notes


def _dataset(models: tuple[str, ...], group: str | None = None, weight: str | None = None):
    return SimpleNamespace(
        mapping=SimpleNamespace(group=group, weight=weight),
        positive_name="relevance above 0",
        models=models,
    )


def test_the_settings_name_four_models_at_most():
    ds = _dataset(("m1", "m2", "m3", "m4", "m5"), group="qid", weight="w")
    assert notes.settings_text(ds) == (
        "positive relevance above 0; user/query qid; weight w; models m1, m2, m3, m4, ..."
    )
    assert notes.settings_text(_dataset(("m1",))) == "positive relevance above 0; model m1"


def test_the_dataset_line_names_the_source_unless_it_is_the_name():
    sample = SimpleNamespace(source_id="bundled:query_ranking", name="Search ranking")
    assert notes.dataset_line(sample) == ":material/table_chart: Sample dataset: **Search ranking**"
    example = SimpleNamespace(source_id="example:abc", name="Your example")
    assert notes.dataset_line(example) == ":material/table_chart: **Your example**"

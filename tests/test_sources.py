"""The data sources behind one protocol: a new source is a module and a registry line.

A toy sixth source, registered in a few lines, must reach every page; and nothing outside
``ui/sources`` may tell one kind of dataset from another by its label or ``source_id``."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from tests.apptest_utils import APP
from ui.tables.dataset import Dataset

ROOT = Path(__file__).resolve().parent.parent


def _toy_frame() -> pd.DataFrame:
    rng = np.random.default_rng(6)
    n = 60
    y = np.arange(n) % 3 == 0
    return pd.DataFrame(
        {
            "y": y.astype(int),
            "toy_a": np.round(rng.random(n) + 0.6 * y, 3),
            "toy_b": np.round(rng.random(n) + 0.3 * y, 3),
            "user": np.repeat(np.arange(6), 10),
        }
    )


@pytest.fixture
def toy_source():
    from ui import sources
    from ui.tables.checking import prepare
    from ui.tables.loading import ColumnMapping

    frame = _toy_frame()
    mapping = ColumnMapping(label="y", scores=("toy_a", "toy_b"), pos_label=1, group="user")

    def sidebar():
        return Dataset(
            source_id="toy:six", name="Toy table", frame=frame, mapping=mapping,
            prepared=prepare(frame, mapping), description="A sixth source, made in a test.",
        )  # fmt: skip

    source = sources.Source(label="Toy", prefix="toy", sidebar=sidebar,
                            rows=lambda ds: f"Toy rows: {len(ds.frame)}")  # fmt: skip
    sources.register(source)
    try:
        yield frame
    finally:
        del sources.REGISTRY["Toy"]


def test_the_registry_holds_each_source_once():
    from ui import sources

    labels = sources.labels()
    assert labels[0] == sources.DEFAULT == "Sample dataset"
    assert set(labels) == {
        "Sample dataset",
        "Upload",
        "Server dataset",
        "Your example",
        "Synthetic",
    }
    prefixes = [s.prefix for s in sources.REGISTRY.values()]
    assert len(set(prefixes)) == len(prefixes)


def test_a_toy_sixth_source_reaches_every_page(toy_source):
    from ui.frame import shell

    at = AppTest.from_file(APP, default_timeout=90)
    at.run()
    assert "Toy" in at.segmented_control(key="source").options
    at.segmented_control(key="source").set_value("Toy").run()
    assert not at.exception, at.exception
    for path, title, _ in shell.PAGES:
        at.switch_page(path).run()
        assert not at.exception, (title, at.exception)
        assert any(c.value == "Toy rows: 60" for c in at.sidebar.caption), title
    # The numbers come from the toy table: the Threshold page's prevalence is its own.
    at.switch_page("pages/threshold.py").run()
    prevalence = [m.value for m in at.metric if m.label == "Prevalence"]
    assert prevalence
    assert float(prevalence[0]) == pytest.approx(toy_source["y"].mean(), abs=5e-4)


# What telling one kind of dataset from another looks like in code: an engine's attribute, a
# source_id's kind prefix, a source's label compared.
_KIND_BRANCH = re.compile(
    r"\.engine\b"
    r"|source_id\.(startswith|split\(\":\"|partition\(\":\")"
    r"|[!=]= *\"(Sample dataset|Upload|Server dataset|Your example|Synthetic)\""
    r"|\"(upload|bundled|example|server|synthetic):\" *(in|==)"
)
# The sources package, and the modules each source keeps beside it (its sidebar, its engine
# passes), may know their own kind; nothing else may.
_SOURCE_MODULES = ("ui/sources/", "ui/compute/server_source", "ui/views/server_")


def _kind_branches(root: Path) -> list[str]:
    found = []
    for path in sorted([root / "app.py", *root.glob("pages/*.py"), *root.glob("ui/**/*.py")]):
        rel = path.relative_to(root).as_posix()
        if rel.startswith(_SOURCE_MODULES):
            continue
        for n, line in enumerate(path.read_text().splitlines(), 1):
            code = line.split("#", 1)[0]
            if _KIND_BRANCH.search(code):
                found.append(f"{rel}:{n}: {line.strip()}")
    return found


def test_no_page_or_layer_branches_on_a_datasets_kind():
    """Pages declare what they need (shell.needs, shell.drawn_by_source, data.state); only the
    sources know what kind of dataset they made."""
    assert _kind_branches(ROOT) == []


def test_the_kind_branch_check_sees_a_branch(tmp_path):
    (tmp_path / "pages").mkdir()
    (tmp_path / "ui" / "views").mkdir(parents=True)
    (tmp_path / "app.py").write_text("")
    (tmp_path / "pages" / "p.py").write_text(
        "if ds.engine is not None:\n    pass\n"
        'if ds.source_id.startswith("upload:"):\n    pass\n'
        'if st.session_state["source"] == "Server dataset":\n    pass\n'
        "x = 1  # ds.engine in a comment is fine\n"
    )
    (tmp_path / "ui" / "views" / "server_x.py").write_text("ds.engine\n")  # a source's own module
    assert [f.split(":")[1] for f in _kind_branches(tmp_path)] == ["1", "3", "5"]

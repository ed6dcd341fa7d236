"""A link names one file (issue 50 §3): ``?source=server&dataset=NAME`` opens the file called
NAME or nothing, never a file NAME would match as a pattern (``a?.csv`` is not ``a1.csv``,
``new?line.csv`` is not ``new\\nline.csv``, ``ok.[c]sv`` is not ``ok.csv``). A glob travels in
its own parameter, ``glob``.

The generated test creates, for a drawn name full of glob characters, newlines and unicode, the
files that name would match as a glob, with or without the name itself, and checks the sandbox
hands back that very file or refuses; the AppTests check the three names of the issue through
a real session, and that a listed file with such a name keeps its link.
"""

from __future__ import annotations

import re
import shutil

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from streamlit.testing.v1 import AppTest

from tests.apptest_utils import APP
from tests.strategies import examples
from ui.compute import server_source
from ui.compute.server_source import OutsideRoot, sandboxed

# Glob characters, a newline, a tab, spaces, braces, backslashes and unicode (combining marks,
# an emoji, right-to-left text): what a file name on a Linux server may hold.
ALPHABET = "ab1?*[]!^-{},\\\n\t é中🙂\u0301\u05d0"


def _decoy(name: str) -> str:
    """A name ``name`` matches as a glob and is not ``name``: each ``?`` read as ``1``, each
    ``*`` as ``zz``, each ``[set]`` as the first character it accepts (a literal ``[`` kept)."""
    out = re.sub(r"\[!?\]?[^]]*\]", lambda m: _first(m.group(0)), name)
    return out.replace("?", "1").replace("*", "zz")


def _first(chars: str) -> str:
    body = chars[1:-1]
    if body.startswith("!"):
        return "~"  # a negated set: any character it does not name
    return body[0] if body and body[0] != "/" else "["


names = st.text(ALPHABET, min_size=1, max_size=12).map(lambda t: t + ".csv")


@settings(max_examples=examples(80), deadline=None, suppress_health_check=[
    HealthCheck.function_scoped_fixture, HealthCheck.too_slow])  # fmt: skip
@given(name=names, made=st.booleans())
def test_an_exact_name_is_that_file_or_nothing(tmp_path, name, made):
    root = tmp_path / "data"
    shutil.rmtree(root, ignore_errors=True)
    root.mkdir()
    decoy = _decoy(name)
    for other in {decoy, decoy.lower(), name.replace("\n", "?")} - {name}:
        (root / other).write_text("y,s\n1,0.5\n")
    if made:
        (root / name).write_text("y,s\n0,0.1\n")
    if made:  # a leading blank or a trailing newline is part of the name: never stripped
        assert [f.name for f in sandboxed(name, root, exact=True)] == [name]
    else:
        with pytest.raises(OutsideRoot, match="No file in the data directory matches"):
            sandboxed(name, root, exact=True)


@pytest.mark.parametrize(("name", "decoy"), [("a?.csv", "a1.csv"), ("new?line.csv",
                         "new\nline.csv"), ("ok.[c]sv", "ok.csv")])  # fmt: skip
def test_the_names_of_the_issue_match_their_decoy_as_globs_but_not_as_names(tmp_path, name, decoy):
    (tmp_path / decoy).write_text("y,s\n1,0.5\n")
    assert _decoy(name) == decoy.replace("\n", "1")
    assert [f.name for f in sandboxed(name, tmp_path)] == [decoy]  # the glob box's reading
    with pytest.raises(OutsideRoot):
        sandboxed(name, tmp_path, exact=True)


def _purchases(root) -> None:
    rows = "purchase,model_a,model_b\n" + "".join(
        f"{i % 2},{(i * 37 % 101) / 101:.4f},{(i * 53 % 97) / 97:.4f}\n" for i in range(60)
    )
    for name in ("a1.csv", "new\nline.csv", "ok.csv", "b?.csv"):
        (root / name).write_text(rows)


@pytest.fixture
def data_dir(tmp_path, monkeypatch):
    root = tmp_path / "data"
    root.mkdir()
    _purchases(root)
    monkeypatch.setenv(server_source.ROOT_ENV, str(root))
    return root


def _session(query: dict) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=180)
    for key, value in query.items():
        at.query_params[key] = value
    at.run()
    assert not at.exception, at.exception
    return at


@pytest.mark.parametrize("dataset", ["a?.csv", "new?line.csv", "ok.[c]sv"])
def test_a_link_whose_name_is_a_pattern_opens_no_other_file(data_dir, dataset):
    at = _session({"source": "server", "dataset": dataset, "label": "purchase"})
    errors = " ".join(e.value for e in at.error).replace("\\", "")
    assert "is not available on this server" in errors
    assert at.selectbox(key="server_file").value is None
    assert "server_glob" not in at.session_state


def test_a_listed_file_named_like_a_pattern_opens_itself_and_links_to_itself(data_dir):
    at = _session({"source": "server", "dataset": "b?.csv", "label": "purchase"})
    assert not at.error
    assert at.selectbox(key="server_file").value == "b?.csv"
    assert "Server dataset: **b?.csv**" in _captions(at)
    assert at.query_params["dataset"] == "b?.csv"  # the link written back names it again
    assert "glob" not in at.query_params
    # A glob travels in its own parameter and still matches.
    at = _session({"source": "server", "glob": "a?.csv", "label": "purchase"})
    assert not at.error
    assert at.text_input(key="server_glob").value == "a?.csv"
    assert "Server dataset: **a1.csv**" in _captions(at)
    assert at.query_params["glob"] == "a?.csv"
    assert "dataset" not in at.query_params


def _captions(at: AppTest) -> str:
    return " ".join(str(c.value) for c in at.caption).replace("\\", "")

"""``metrics-lens app FILE`` and the server directory (issue 31 §7, issue 32 §5).

- The bare address the server prints opens the file (not the bundled sample), as rows exactly
  as if uploaded when it fits the memory budget (Step through and Calibration work, a yes/no
  label reads ``yes``), through the engine when it does not.
- The server directory offers no hidden file, never shows its absolute path, and a link whose
  file is not offered says so instead of showing another file.

The command runs for real (``metrics_lens.cli.main``); only the server process is a stand-in
that, once the address is printed, opens it in an AppTest session with the environment the
command gave the server.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from tests.apptest_utils import APP, app_command
from ui.compute import server_source
from ui.compute.server_source import OutsideRoot, listed, sandboxed

TIMEOUT = 180


def _purchases(n: int = 2_329, seed: int = 4) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    y = rng.random(n) < 0.3
    return pd.DataFrame(
        {
            "customer": np.arange(n),
            "purchase": np.where(y, "yes", "no"),
            "model_a": np.round(np.clip(0.35 * y + rng.random(n) * 0.65, 0, 1), 4),
            "model_b": np.round(rng.random(n), 4),
        }
    )


def _app(path: Path, monkeypatch, then, *options: str):
    """Run ``metrics-lens app PATH``; ``then(url)`` runs while the server would be up, with the
    server's environment in place. Returns (exit status, what ``then`` returned)."""

    def opened(env: dict, url: str):
        for key, value in env.items():
            if key.startswith("METRICS_LENS") and os.environ.get(key) != value:
                monkeypatch.setenv(key, value)
        return then(url)

    args = [str(path), "--no-browser", "--port", "8599", *options]
    return app_command(monkeypatch, args, opened)


def _session(query: dict | None = None) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=TIMEOUT)
    for key, value in (query or {}).items():
        at.query_params[key] = value
    at.run()
    assert not at.exception, at.exception
    return at


def _texts(at: AppTest) -> str:
    parts = [*at.markdown, *at.caption, *at.error, *at.warning, *at.info]
    return " ".join(str(getattr(p, "value", "")) for p in parts).replace("\\", "")


def test_the_bare_address_opens_a_small_file_as_rows_as_an_upload_would(tmp_path, monkeypatch):
    table = _purchases()
    path = tmp_path / "purchases.csv"
    table.to_csv(path, index=False)

    def opened(url):
        assert url == "http://127.0.0.1:8599"  # the bare address is the file's
        at = _session()
        assert at.session_state["source"] == "Upload"
        assert at.selectbox(key="map_label").value == "purchase"
        assert at.selectbox(key="map_pos_purchase").value == "yes"  # not "purchase = true"
        assert at.multiselect(key="map_scores").value == ["model_a", "model_b"]
        upload = next(iter(at.session_state["uploads"].values()))
        pd.testing.assert_frame_equal(
            upload.frame, pd.read_csv(path, dtype_backend="numpy_nullable")
        )
        shown = {}
        for page in ("pages/step_through.py", "pages/calibration.py"):
            at.switch_page(page).run()
            assert not at.exception, at.exception
            shown[page] = _texts(at)
        return shown

    code, shown = _app(path, monkeypatch, opened)
    assert code == 0
    for page, text in shown.items():
        assert "needs the rows" not in text, page
        assert "sample" not in text.lower() or "breast" not in text.lower(), page


def test_the_roles_given_to_the_command_are_the_uploads_mapping(tmp_path, monkeypatch):
    path = tmp_path / "purchases.csv"
    _purchases().to_csv(path, index=False)

    def opened(url):
        at = _session()
        return (
            at.selectbox(key="map_label").value,
            at.multiselect(key="map_scores").value,
            at.selectbox(key="map_pos_purchase").value,
        )

    code, roles = _app(path, monkeypatch, opened, "--score", "model_b", "--pos-label", "no")
    assert code == 0
    assert roles == ("purchase", ["model_b"], "no")


def test_bad_roles_are_refused_by_the_command_before_the_server_starts(tmp_path, monkeypatch,
                                                                       capsys):  # fmt: skip
    path = tmp_path / "purchases.csv"
    _purchases().to_csv(path, index=False)
    code, result = _app(path, monkeypatch, lambda url: "served", "--pos-label", "maybe")
    assert (code, result) == (2, None)
    err = capsys.readouterr().err
    assert "--pos-label 'maybe' is not a value of 'purchase' (its values: 'no', 'yes')" in err


def test_a_file_too_large_for_rows_opens_through_the_engine_at_the_bare_address_too(
    tmp_path, monkeypatch
):
    monkeypatch.setenv("METRICS_LENS_BUDGET_MB", "1")  # rows up to 192 kB
    path = tmp_path / "purchases.csv"
    _purchases(20_000).to_csv(path, index=False)
    assert path.stat().st_size > 200 * 1024

    def opened(url):
        assert "source=server" in url
        assert "dataset=purchases.csv" in url
        at = _session()  # the bare address, not the printed link
        return at.session_state["source"], at.session_state["server_file"]

    code, seen = _app(path, monkeypatch, opened)
    assert code == 0
    assert seen == ("Server dataset", "purchases.csv")


# --- the server directory ---------------------------------------------------------------------


@pytest.fixture
def data_dir(tmp_path, monkeypatch):
    root = tmp_path / "data"
    (root / ".cache").mkdir(parents=True)
    frame = _purchases(300)
    frame.to_csv(root / ".hidden.csv", index=False)
    frame.to_csv(root / ".cache" / "old.csv", index=False)
    frame.to_csv(root / "visible.csv", index=False)
    (root / "alias.csv").symlink_to(root / ".hidden.csv")
    monkeypatch.setenv(server_source.ROOT_ENV, str(root))
    return root


def test_hidden_files_are_not_offered_nor_opened(data_dir):
    assert listed(data_dir) == ["alias.csv", "visible.csv"]
    for name in (".hidden.csv", ".cache/old.csv", "alias.csv", ".*.csv"):
        with pytest.raises(OutsideRoot, match=r"hidden files are not offered|No file"):
            sandboxed(name, data_dir)
    assert [f.name for f in sandboxed("*.csv", data_dir)] == ["visible.csv"]


def test_the_directory_is_shown_relative_never_as_its_absolute_path(data_dir):
    at = _session()
    at.segmented_control(key="source").set_value("Server dataset").run()
    assert not at.exception
    assert at.selectbox(key="server_file").options == ["alias.csv", "visible.csv", "a glob..."]
    at.selectbox(key="server_file").set_value("a glob...").run()
    at.text_input(key="server_glob").set_value("nothing/*.csv").run()
    text = _texts(at)
    assert "No file in the data directory matches nothing/*.csv" in text
    assert str(data_dir) not in text
    assert str(data_dir.parent) not in text


@pytest.mark.parametrize("dataset", ["missing.csv", ".hidden.csv", "../etc/passwd"])
def test_a_link_to_a_file_not_offered_says_so_and_shows_no_other_file(data_dir, dataset):
    at = _session({"source": "server", "dataset": dataset, "label": "purchase"})
    assert at.session_state["source"] == "Server dataset"
    errors = " ".join(e.value for e in at.error).replace("\\", "")
    assert f"The file in the link, {dataset}, is not available on this server" in errors
    assert at.selectbox(key="server_file").value is None  # not the first listed file
    at.selectbox(key="server_file").set_value("visible.csv").run()
    assert not at.exception
    assert not [e for e in at.error if "is not available" in e.value]
    assert at.selectbox(key="server_label").value == "purchase"


def test_a_link_to_a_glob_opens_the_glob(data_dir):
    at = _session({"source": "server", "glob": "vis*.csv"})
    assert at.session_state["server_file"] == "a glob..."
    assert at.text_input(key="server_glob").value == "vis*.csv"
    assert not at.error


def test_a_file_changed_under_the_running_server_opens_anew_in_the_next_session(
    tmp_path, monkeypatch
):
    """The file is read again by each new session; the numbers come from this reading, never
    from caches filled by a session that read the file as it was before."""
    path = tmp_path / "purchases.csv"
    before = _purchases()
    before.to_csv(path, index=False)
    after = before.assign(model_a=before["model_b"], model_b=before["model_a"])

    def precision(at: AppTest) -> str:
        at.switch_page("pages/threshold.py").run()
        assert not at.exception, at.exception
        return next(m.value for m in at.metric if m.label == "Precision")

    def opened(url):
        first = precision(_session())
        with open(path, "w") as f:  # rewritten in place: the server's hard link sees it
            after.to_csv(f, index=False)
        stat = path.stat()
        os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 10**9))  # a later mtime
        return first, precision(_session())

    code, (first, second) = _app(path, monkeypatch, opened, "--score", "model_a")
    assert code == 0
    y = before["purchase"] == "yes"
    for shown, scores in ((first, before["model_a"]), (second, after["model_a"])):
        predicted = scores >= 0.5
        assert shown == f"{(predicted & y).sum() / predicted.sum():.3f}"

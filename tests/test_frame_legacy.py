"""Leaving Streamlit's legacy pages/ mode (ui.frame.legacy): a run under the legacy runner, or
with the process-wide flag on, switches the mode off and reruns; an ordinary run goes on."""

from __future__ import annotations

from streamlit.runtime.pages_manager import PagesManager
from streamlit.runtime.scriptrunner import script_runner

from ui.frame import legacy


def test_a_run_is_legacy_only_inside_the_legacy_runner(monkeypatch):
    def legacy_runner():  # stands in for script_runner._mpa_v1, which runs a page directly
        return legacy.run_is_legacy()

    assert not legacy.run_is_legacy()
    monkeypatch.setattr(script_runner, "_mpa_v1", legacy_runner)
    assert legacy_runner()
    assert not legacy.run_is_legacy()


def test_the_legacy_flag_is_switched_off_and_the_run_starts_again(monkeypatch):
    reruns = []
    monkeypatch.setattr(legacy.st, "rerun", lambda: reruns.append(True))
    monkeypatch.setattr(PagesManager, "uses_pages_directory", True)
    legacy.leave_legacy_pages_mode()
    assert PagesManager.uses_pages_directory is False
    assert reruns == [True]
    legacy.leave_legacy_pages_mode()  # an ordinary run: no rerun
    assert reruns == [True]

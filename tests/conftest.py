"""Shared test set-up."""

from __future__ import annotations

import os

import pytest
from hypothesis import settings
from streamlit.runtime.pages_manager import PagesManager

# Time by file and by kind at the end of every run (tests/suite_timing.py).
pytest_plugins = ["tests.suite_timing"]

# CI (``.ci/run`` sets HYPOTHESIS_PROFILE=ci) draws the same generated inputs on every run, so
# a landing is decided by the code, not by the draw; a local `make test` keeps drawing new ones
# (two CI runs in a row met a new generated case the developer's runs had not).
settings.register_profile("ci", derandomize=True, print_blob=True)
if os.environ.get("HYPOTHESIS_PROFILE"):
    settings.load_profile(os.environ["HYPOTHESIS_PROFILE"])


@pytest.fixture(autouse=True)
def _navigation_mode(monkeypatch):
    """Run AppTest the way a live server runs after its first request.

    A ``pages/`` folder next to ``app.py`` puts Streamlit in its legacy multipage mode until
    ``st.navigation`` runs once; AppTest resets that flag before every run, so each run would
    execute the current page script directly, under another script hash than the last run, and
    widget values set by the test would be dropped. ``app.py`` always calls ``st.navigation``,
    so the legacy mode is switched off here from the start. (``ui.shell.page_context`` still
    covers a live server's first request.)
    """
    original = PagesManager.__init__

    def init(self, *args, **kwargs):
        original(self, *args, **kwargs)
        PagesManager.uses_pages_directory = False

    monkeypatch.setattr(PagesManager, "__init__", init)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """Keep each phase's report on the test item, so fixtures can see whether the test failed."""
    outcome = yield
    setattr(item, f"rep_{call.when}", outcome.get_result())

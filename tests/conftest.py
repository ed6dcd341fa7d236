"""Shared test set-up."""

from __future__ import annotations

import functools
import gc
import inspect
import os
import sys
import threading

import pytest
from hypothesis import settings
from streamlit.components.v2 import manifest_scanner
from streamlit.runtime.pages_manager import PagesManager
from streamlit.runtime.scriptrunner.script_cache import ScriptCache
from streamlit.testing.v1 import AppTest, app_test, local_script_runner

# Time by file and by kind at the end of every run (tests/suite_timing.py).
pytest_plugins = ["tests.suite_timing"]

# A page script a browser test serves, not a module: ``--doctest-modules`` would import it, and
# so draw every lesson 72 times outside a script run, at every collection (1 s a worker).
collect_ignore = ["lessons_latex_page.py"]

# CI (``.ci/run`` sets HYPOTHESIS_PROFILE=ci) draws the same generated inputs on every run, so
# a landing is decided by the code, not by the draw; a local `make test` keeps drawing new ones
# (two CI runs in a row met a new generated case the developer's runs had not).
settings.register_profile("ci", derandomize=True, print_blob=True)
# The edit-run loop (``make test-fast``) draws a quarter of the examples, new ones every run, as
# Hypothesis' own docs suggest for a development profile; a test's own count scales with it
# (``tests.strategies.examples``). ``make test`` and CI draw every example.
settings.register_profile("fast", max_examples=25)
if os.environ.get("HYPOTHESIS_PROFILE"):
    settings.load_profile(os.environ["HYPOTHESIS_PROFILE"])


_SCRIPTS: dict[tuple, object] = {}  # (path, mtime, size) -> the compiled script
_SCRIPTS_LOCK = threading.Lock()


class _SharedScriptCache(ScriptCache):
    """One compiled script per file for the whole test process, as a live server keeps one per
    runtime. AppTest makes a new ``ScriptCache`` for every run, so each run re-read app.py and
    the page and rewrote their syntax trees for Streamlit's magic: about 0.3 s of Compare's
    0.9 s rerun. A file changed on disk (a test that writes its own script) is compiled anew."""

    def get_bytecode(self, script_path: str):
        path = os.path.abspath(script_path)
        stat = os.stat(path)
        key = (path, stat.st_mtime_ns, stat.st_size)
        with _SCRIPTS_LOCK:
            code = _SCRIPTS.get(key)
        if code is None:
            code = super().get_bytecode(path)
            with _SCRIPTS_LOCK:
                _SCRIPTS[key] = code
        return code


app_test.ScriptCache = _SharedScriptCache
local_script_runner.ScriptCache = _SharedScriptCache


def _wait_for_the_script(runner, timeout: float = 3) -> None:
    """Streamlit's ``require_widgets_deltas`` without its polling: AppTest waited for a run by
    waking every millisecond to scan every event the run had sent for SHUTDOWN. Each wake took
    the GIL from the script thread, and each scan grew with the page (hundreds of events): 13%
    of the AppTest tier's time, on the core the other test worker needs. The script thread
    sends SHUTDOWN before it returns, so joining it is the same wait; a run that outlives the
    timeout is stopped and reported as Streamlit does."""
    thread = runner._script_thread
    if thread is not None:
        thread.join(timeout)
    if runner.script_stopped():
        return
    runner.request_stop()
    runner.join()
    raise RuntimeError(f"AppTest script run timed out after {timeout}(s)")


local_script_runner.require_widgets_deltas = _wait_for_the_script

_app_test_init = AppTest.__init__


def _frozen_before(self, *args, **kwargs):
    """Freeze what is alive when a test makes an AppTest, as a live server's freeze covers its
    imports (``ui.compute.budget.freeze_imports``). A run that holds an upload collects garbage,
    and each collection walked what earlier tests had imported and cached since the freeze at
    collection: 27,000 objects, 11 ms a run, in the real-corpus and bad-input files; 1,400 and
    0.9 ms with this. Earlier tests' garbage is collected first; the AppTest's own objects stay
    young, so the product's collections still see everything a session makes."""
    gc.collect()
    gc.freeze()
    _app_test_init(self, *args, **kwargs)


AppTest.__init__ = _frozen_before

# Every AppTest's first run scans the metadata of every installed distribution for Streamlit
# components (about 130 here, with MLflow's and Spark's): 0.3-0.7 s an instance, in a suite
# of about a thousand instances, for a list that cannot change while the tests run. A live
# server scans once at start; the test process now does too (the scan itself is Streamlit's).
manifest_scanner.scan_component_manifests = functools.cache(
    manifest_scanner.scan_component_manifests
)


@pytest.fixture(autouse=True)
def _navigation_mode(monkeypatch):
    """Run AppTest the way a live server runs after its first request.

    A ``pages/`` folder next to ``app.py`` puts Streamlit in its legacy multipage mode until
    ``st.navigation`` runs once; AppTest resets that flag before every run, so each run would
    execute the current page script directly, under another script hash than the last run, and
    widget values set by the test would be dropped. ``app.py`` always calls ``st.navigation``,
    so the legacy mode is switched off here from the start. (``ui.frame.shell.page_context`` still
    covers a live server's first request.)
    """
    original = PagesManager.__init__

    def init(self, *args, **kwargs):
        original(self, *args, **kwargs)
        PagesManager.uses_pages_directory = False

    monkeypatch.setattr(PagesManager, "__init__", init)


@pytest.fixture(autouse=True)
def _sessions_end_with_their_test(request):
    """A test's AppTest sessions end with the test, as a browser tab's end on a server.

    A live server's sweeper releases the uploads of sessions that ended; AppTest has no runtime
    to sweep, so every upload of every earlier test stayed in the process's registry, and with
    an upload held the frame collects garbage at every run (``budget.collect_garbage``): 17 ms
    a run, 18% of the conformance matrix's script time, for sessions long gone. Uploads that a
    module- or session-scoped fixture (a grouped file) keeps for several tests stay.
    """
    from ui.compute import budget

    before = set(budget.REGISTRY.usage())
    yield
    if not request.node.stash.get(SHARED, False):
        for key in set(budget.REGISTRY.usage()) - before:
            budget.REGISTRY.release(key)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """Keep each phase's report on the test item, so fixtures can see whether the test failed."""
    outcome = yield
    setattr(item, f"rep_{call.when}", outcome.get_result())


# Simulations of repeated experiments (coverage and error rates of intervals and tests): the
# suite runs a small seeded version of each; the full ones are in bench/.
STATISTICAL_FILES = {
    "test_coverage.py",
    "test_bands.py",
    "test_calibration_debiased.py",
    "test_guarantees.py",
}

# Files whose tests mostly start other processes: the command, a Streamlit server, a JVM
# (Spark), a fresh virtual environment. The suite's time table calls their kind "process".
SLOW_FILES = {
    "test_cli.py",
    "test_install.py",
    "test_load.py",
    "test_sql_spark.py",
    "test_sql_cluster.py",
    "test_mlflow.py",
    "test_mlflow_server.py",
    "test_server_hostile.py",
    "test_hostile_app_file.py",
    "test_hostile_doors.py",
    "test_hostile_class.py",
    "test_report.py",
    "test_budget_race.py",
}


# AppTest files long enough (a minute or more) that one started last would leave a worker idle.
LONG_FILES = {"test_conformance.py", "test_conformance_runs.py", "test_real_corpus.py"}
SHARED = pytest.StashKey[bool]()  # the test uses a module- or session-scoped fixture of ours


def pytest_collection_modifyitems(config, items):
    """Markers the Makefile selects on, and the order pytest-xdist hands the files out in.

    - ``browser``: drives Chromium (a ``test_browser*`` file, or a test asking for a tab);
    - ``statistical``: a seeded simulation (``STATISTICAL_FILES``);
    - ``slow``: starts other processes (``SLOW_FILES``, or a test marked ``slow`` in its file);
    - ``item.stash[SHARED]``: the test uses a module- or session-scoped fixture of the suite's
      own (a server, a browser, a large table).

    The Makefile runs ``--dist loadfile``: each file on one worker, so a file's server, browser
    or Spark session is built once. (``--dist loadgroup`` with ``xdist_group`` marks did that
    before pytest 9.2, whose structured node ids xdist 3.8 no longer marks: pytest-xdist#1386.
    Every grouped test was then handed out on its own, and module fixtures were built on both
    workers.)
    """
    heavy_files, shared_files = set(), set()
    for item in items:
        names = set(getattr(item, "fixturenames", ()))
        if item.path.name.startswith("test_browser") or names & {"browser", "page", "tab"}:
            item.add_marker(pytest.mark.browser)
        if item.path.name in STATISTICAL_FILES:
            item.add_marker(pytest.mark.statistical)
        if item.path.name in SLOW_FILES:
            item.add_marker(pytest.mark.slow)
        info = getattr(item, "_fixtureinfo", None)
        defs = [d[-1] for d in info.name2fixturedefs.values() if d] if info is not None else []
        ours = [d for d in defs if _defined_here(d.func)]
        item.stash[SHARED] = any(d.scope in ("module", "package", "session") for d in ours)
        if item.get_closest_marker("browser") or item.get_closest_marker("slow"):
            heavy_files.add(item.path)
        if item.stash[SHARED] or item.path.name in LONG_FILES:
            shared_files.add(item.path)

    def start_order(item) -> int:
        """0: a file that starts processes or a browser; 1: another file with a shared fixture,
        or a long one; 2: the rest. Long first: a long file started last leaves one worker
        idle while the other finishes it."""
        return 0 if item.path in heavy_files else 1 if item.path in shared_files else 2

    items.sort(key=start_order)  # stable: each file's tests keep their order


TESTS_DIR = os.path.dirname(os.path.abspath(__file__))


def _defined_here(func) -> bool:
    """A fixture of the suite's own (a test file, this conftest, a helper module here), not of
    pytest or a plugin. Its module's name does not say so: the test files are imported by their
    bare names ("test_load"), so a name test once missed every test file's own fixtures and
    their modules' servers, Spark sessions and virtual environments were built on both workers.
    """
    try:
        path = os.path.abspath(inspect.getsourcefile(func) or "")
    except TypeError:
        return False
    return path.startswith(TESTS_DIR + os.sep)


def pytest_collection_finish(session):
    """Freeze what the test process has loaded once collected (pytest, hypothesis, sklearn, the
    product), as the product freezes its own imports (``ui.compute.budget.freeze_imports``): AppTest
    runs of an upload collect garbage at every run, and each full collection walked every
    object of the whole suite's imports, 58% of a conformance test's time."""
    gc.collect()
    gc.freeze()


def pytest_sessionfinish(session, exitstatus):
    """Stop the server and the Chromium the browser files of this process shared."""
    lens = sys.modules.get("tests.lens_browser")
    if lens is not None:
        lens.stop_shared()

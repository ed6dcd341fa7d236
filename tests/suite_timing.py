"""Where the suite's time goes: a table by file and by kind at the end of every run.

Loaded by ``tests/conftest.py`` as a plugin. Each test is given a *kind* on the process that runs
it (with pytest-xdist, a worker), from what the test actually did, not from its name:

- ``browser``: its file drives Chromium (``test_browser*``) or the test opened a tab;
- ``apptest``: it ran the dashboard headlessly (``AppTest.run``);
- ``process``: it started another process (the command, a server, a JVM);
- ``generated``: a hypothesis test;
- ``library``: anything else.

The kind travels to the controlling process in the report's ``user_properties``, where the
durations (setup + call + teardown) are summed. Nothing here asserts on time: the table is for
people choosing what to make cheaper (``make test`` prints it; ``--durations=25`` lists tests).
"""

from __future__ import annotations

import json
import os
import subprocess
from collections import defaultdict

import pytest

KINDS = ("browser", "apptest", "process", "generated", "library")

_current: dict[str, set[str]] = {"flags": set()}


def _flag(name: str) -> None:
    _current["flags"].add(name)


def _patch(owner, attribute: str, flag: str) -> None:
    original = getattr(owner, attribute)

    def wrapped(*args, **kwargs):
        _flag(flag)
        return original(*args, **kwargs)

    wrapped.__wrapped__ = original
    setattr(owner, attribute, wrapped)


def _install_probes() -> None:
    from streamlit.testing.v1 import AppTest

    _patch(AppTest, "run", "apptest")
    # Popen.__init__ sees every subprocess.run / check_output / Popen of the test.
    _patch(subprocess.Popen, "__init__", "process")
    try:
        from playwright.sync_api import Browser
    except ImportError:  # the dev requirements install it; a bare venv still runs the suite
        return
    # Every browser test opens a tab, in a context of its own or not.
    _patch(Browser, "new_context", "browser")
    _patch(Browser, "new_page", "browser")


def kind_of(item: pytest.Item, flags: set[str]) -> str:
    if item.path.name.startswith("test_browser") or "browser" in flags:
        return "browser"
    if "apptest" in flags:
        return "apptest"
    if "process" in flags:
        return "process"
    function = getattr(item, "function", None)
    if getattr(function, "is_hypothesis_test", False):
        return "generated"
    return "library"


class Timing:
    """Sums each test's phases by file and by kind on the controlling process."""

    def __init__(self) -> None:
        self.by_file: dict[str, float] = defaultdict(float)
        self.by_test: dict[str, float] = defaultdict(float)
        self.kind: dict[str, str] = {}

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_protocol(self, item, nextitem):
        _current["flags"] = set()
        yield

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_makereport(self, item, call):
        outcome = yield
        report = outcome.get_result()
        if call.when == "teardown":
            report.user_properties.append(("kind", kind_of(item, _current["flags"])))

    def pytest_runtest_logreport(self, report) -> None:
        self.by_file[report.nodeid.split("::", 1)[0]] += report.duration
        self.by_test[report.nodeid] += report.duration
        if report.when == "teardown":
            self.kind[report.nodeid] = dict(report.user_properties).get("kind", "library")

    def pytest_terminal_summary(self, terminalreporter) -> None:
        if not self.by_test:
            return
        if os.environ.get("SUITE_TIMING_JSON"):  # every test's kind and seconds, to look into
            with open(os.environ["SUITE_TIMING_JSON"], "w") as out:
                json.dump({n: [self.kind.get(n, "library"), s] for n, s in self.by_test.items()},
                          out, indent=0)  # fmt: skip
        seconds_of: dict[str, float] = defaultdict(float)
        count_of: dict[str, int] = defaultdict(int)
        for nodeid, seconds in self.by_test.items():
            kind = self.kind.get(nodeid, "library")
            seconds_of[kind] += seconds
            count_of[kind] += 1
        write = terminalreporter.write_line
        terminalreporter.section("time by kind (test seconds, summed over workers)")
        total = sum(seconds_of.values()) or 1.0
        for kind in KINDS:
            if count_of[kind]:
                write(
                    f"{kind:<10} {count_of[kind]:>6} tests {seconds_of[kind]:>9.1f} s"
                    f" {100 * seconds_of[kind] / total:>5.1f}%"
                )
        terminalreporter.section("time by file (test seconds, the 30 slowest files)")
        slowest = sorted(self.by_file.items(), key=lambda kv: -kv[1])[:30]
        for path, seconds in slowest:
            write(f"{seconds:>9.1f} s  {path}")


def pytest_configure(config) -> None:
    _install_probes()
    config.pluginmanager.register(Timing(), "suite-timing")

"""The package installed into a fresh virtual environment, used from another directory.

A wheel is built from a copy of the sources and installed with no index (offline), without
dependencies: the fresh environment reaches the project's dependencies through a ``.pth`` file
naming this interpreter's site-packages, so only the project itself comes from the wheel. The
console script then runs from a directory that holds no source.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
import time
import tomllib
import zipfile
from pathlib import Path

import pandas as pd
import pytest

import metrics
from tests.lens_browser import (
    ROOT,
    announced_url,
    chromium,
    free_port,
    needs_chromium,
    open_options,
    wait_for_app,
)

IGNORE = shutil.ignore_patterns(
    ".git", ".venv", ".hypothesis", ".ruff_cache", ".pytest_cache", "__pycache__", "build",
    "dist", "*.egg-info", "test-artifacts", "tests", "bench", "docs", ".tmp",
)  # fmt: skip


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    """(the fresh environment's bin directory, its site-packages, the wheel)."""
    tmp = tmp_path_factory.mktemp("install")
    src = tmp / "src"
    shutil.copytree(ROOT, src, ignore=IGNORE)
    venv = tmp / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    bin_dir = venv / ("Scripts" if os.name == "nt" else "bin")
    python = bin_dir / "python"
    site = Path(
        subprocess.run(
            [python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
            check=True, capture_output=True, text=True,
        ).stdout.strip()
    )  # fmt: skip
    (site / "_metrics_lens_test_deps.pth").write_text(
        sysconfig.get_paths()["purelib"] + "\n", encoding="utf-8"
    )
    dist = tmp / "dist"
    offline = ["--no-deps", "--no-index", "--no-build-isolation", "--quiet"]
    subprocess.run([python, "-m", "pip", "wheel", *offline, "-w", dist, src], check=True)
    (wheel,) = dist.glob("metrics_lens-*.whl")
    subprocess.run([python, "-m", "pip", "install", *offline, wheel], check=True)
    return bin_dir, site, wheel


@pytest.fixture
def elsewhere(tmp_path):
    """A working directory with no source in it, and a copy of a sample table."""
    shutil.copy(ROOT / "sample_data" / "breast_cancer.csv", tmp_path / "scores.csv")
    return tmp_path


def _lens(installed, *args, cwd, timeout=300, env=None) -> subprocess.CompletedProcess:
    bin_dir = installed[0]
    env = env or {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    return subprocess.run([bin_dir / "metrics-lens", *map(str, args)], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=timeout)  # fmt: skip


def test_the_wheel_holds_the_dashboard_its_data_and_settings(installed):
    names = set(zipfile.ZipFile(installed[2]).namelist())
    for path in ("app.py", "pages/threshold.py", "pages/compare.py", "ui/frame/shell.py",
                 "ui/views/chart_export.js", "metrics/__init__.py", "metrics/sql/__main__.py",
                 "sample_data/breast_cancer.csv", "sample_data/user_impressions.csv", "cli.py",
                 "_streamlit/config.toml"):  # fmt: skip
        assert f"metrics_lens/{path}" in names, path
    assert not any(n.startswith(("tests/", "bench/", "docs/")) for n in names)
    entry = next(n for n in names if n.endswith("entry_points.txt"))
    text = zipfile.ZipFile(installed[2]).read(entry).decode()
    assert "metrics-lens = metrics_lens.cli:main" in text


def test_the_packaged_settings_are_the_repos(installed):
    packaged = installed[1] / "metrics_lens" / "_streamlit" / "config.toml"
    assert packaged.read_bytes() == (ROOT / ".streamlit" / "config.toml").read_bytes()


def test_dependencies_are_requirements_txt():
    with open(ROOT / "pyproject.toml", "rb") as f:
        declared = tomllib.load(f)["project"]["dependencies"]
    listed = [
        line.split("#")[0].strip()
        for line in (ROOT / "requirements.txt").read_text(encoding="utf-8").splitlines()
        if line.split("#")[0].strip()
    ]
    assert declared == listed


def test_the_wheel_adds_one_top_level_name(installed):
    """``metrics_lens`` is the only import name the wheel adds: the clone's ``metrics``, ``ui``,
    ``pages``, ``app`` and ``sample_data`` are nested inside it (setup.py)."""
    tops = {n.split("/")[0] for n in zipfile.ZipFile(installed[2]).namelist()}
    assert {t for t in tops if not t.endswith(".dist-info")} == {"metrics_lens"}
    added = {p.name for p in installed[1].iterdir()} - {"_metrics_lens_test_deps.pth"}
    assert {n for n in added if not n.endswith(".dist-info")} == {"metrics_lens"}


def test_the_package_sits_beside_the_full_mlflow(installed):
    """The fresh environment sees this interpreter's packages, the full mlflow 3 among them:
    pip finds every requirement of metrics-lens and of mlflow met by the same versions (with
    pyarrow>=26 required here, mlflow 3.17's pyarrow<26 could not be met). The registry's own
    resolution is .ci/beside_mlflow.py."""
    mlflow = pytest.importorskip("mlflow.version")
    assert int(mlflow.VERSION.split(".")[0]) >= 3
    out = subprocess.run([installed[0] / "python", "-m", "pip", "check"], capture_output=True,
                         text=True)  # fmt: skip
    assert out.returncode == 0, out.stdout + out.stderr


@pytest.fixture
def decoys(elsewhere):
    """A user's own ``metrics``, ``ui`` and ``pages`` packages and ``app.py``, first on the path:
    importing any of them fails loudly, so a module of ours that still reached for a top-level
    name would stop the command."""
    user = elsewhere / "user_code"
    for name in ("metrics", "ui", "pages", "sample_data"):
        (user / name).mkdir(parents=True)
        (user / name / "__init__.py").write_text(
            f"raise ImportError('a user package named {name}')\n"
        )
    (user / "app.py").write_text("raise ImportError('a user module named app')\n")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    return {**env, "PYTHONPATH": str(user)}


def test_imports_come_from_the_installed_package(installed, elsewhere, decoys):
    python = installed[0] / "python"
    code = ("import metrics_lens, metrics_lens.metrics as m, metrics_lens.ui.frame.shell as shell; "
            "print(m.__file__); print(shell.__file__); print(metrics_lens.__version__); "
            "print(m.roc_auc_score([0, 1, 1], [0.2, 0.1, 0.9]))")  # fmt: skip
    out = subprocess.run([python, "-c", code], cwd=elsewhere, env=decoys, capture_output=True,
                         text=True, check=True).stdout.splitlines()  # fmt: skip
    site = str(installed[1] / "metrics_lens")
    assert out[0].startswith(site)
    assert out[1].startswith(site)
    assert out[2] == "0.1.0"
    assert float(out[3]) == 0.5
    # Every module of the package imports with the user's names first on the path (the
    # Streamlit scripts, app and pages, run in the app test below).
    code = ("import pkgutil, importlib, metrics_lens; "
            "[importlib.import_module(m.name) for m in pkgutil.walk_packages("
            "metrics_lens.__path__, 'metrics_lens.') if not m.name.endswith(('__main__', '.app'))"
            " and not m.name.startswith(('metrics_lens.pages', 'metrics_lens.sample_data'))]")  # fmt: skip
    subprocess.run([python, "-c", code], cwd=elsewhere, env=decoys, check=True)


def test_the_console_script_runs_from_another_directory(installed, elsewhere, decoys):
    r = _lens(installed, "--version", cwd=elsewhere)
    assert r.stdout.strip() == "metrics-lens 0.1.0"
    r = _lens(installed, "check", "scores.csv", "--baseline", "naive_bayes", "--candidate",
              "gradient_boosting", "--metric", "auc", "--resamples", "200", cwd=elsewhere,
              env=decoys)  # fmt: skip
    assert r.returncode == 0, r.stderr
    r = _lens(installed, "check", "scores.csv", "--baseline", "gradient_boosting",
              "--candidate", "naive_bayes", "--metric", "auc", "--resamples", "200",
              cwd=elsewhere)  # fmt: skip
    assert r.returncode == 1
    r = _lens(installed, "report", "scores.csv", "-o", "out.html", "--resamples", "100",
              cwd=elsewhere, env=decoys)  # fmt: skip
    assert r.returncode == 0, r.stderr
    assert (elsewhere / "out.html").stat().st_size > 1_000_000  # plotly is inline


def test_sql_is_python_m_metrics_lens_metrics_sql(installed, elsewhere, decoys):
    args = ["scores.csv", "--label", "label", "--score", "naive_bayes", "--json"]
    r = _lens(installed, "sql", *args, cwd=elsewhere, env=decoys)
    assert r.returncode == 0, r.stderr
    direct = subprocess.run([installed[0] / "python", "-m", "metrics_lens.metrics.sql", *args],
                            cwd=elsewhere, capture_output=True, text=True, check=True)  # fmt: skip
    help_text = subprocess.run([installed[0] / "python", "-m", "metrics_lens.metrics.sql", "-h"],
                               cwd=elsewhere, capture_output=True, text=True, check=True).stdout  # fmt: skip
    assert help_text.startswith("usage: python -m metrics_lens.metrics.sql")
    assert json.loads(r.stdout) == json.loads(direct.stdout)
    frame = pd.read_csv(elsewhere / "scores.csv")
    auc = json.loads(r.stdout)["models"]["naive_bayes"]["auc"]
    assert auc == pytest.approx(metrics.roc_auc_score(frame["label"], frame["naive_bayes"]))


def test_bad_input_from_the_console_script_is_one_line(installed, elsewhere):
    for args in (["report", "nowhere.csv", "-o", "r.html"], ["app", "nowhere.csv", "--no-browser"],
                 ["check", "scores.csv", "--baseline", "a", "--candidate", "b", "--metric", "x"]):  # fmt: skip
        r = _lens(installed, *args, cwd=elsewhere)
        assert r.returncode == 2, args
        assert len(r.stderr.strip().splitlines()) == 1, r.stderr
        assert "Traceback" not in r.stderr


def _state(pid: int) -> str:
    """A process's state letter (Z: exited, not yet reaped), or "" when it is gone."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return ""


def _children(pid: int) -> list[int]:
    out = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            out.append(int(stat.parent.name))
    return out


@needs_chromium
def test_app_serves_the_files_numbers_from_the_installed_package(installed, elsewhere, decoys):
    port = free_port()
    server: list[int] = []  # the Streamlit child's pid
    env = decoys  # the user's own ui, pages and app.py are first on the path
    proc = subprocess.Popen(
        [installed[0] / "metrics-lens", "app", "scores.csv", "--score", "naive_bayes",
         "logistic_regression", "--no-browser", "--port", str(port)],
        cwd=elsewhere, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )  # fmt: skip
    try:
        url = announced_url(proc)
        # The file fits the memory budget: the bare address opens it as rows, as an upload.
        assert url == f"http://127.0.0.1:{port}", url
        # The settings of .streamlit/config.toml reach the server as flags.
        if Path("/proc").exists():
            (child,) = _children(proc.pid)
            server.append(child)
            argv = Path(f"/proc/{child}/cmdline").read_bytes().decode().split("\0")
            assert "--runner.postScriptGC=false" in argv
            assert "--server.maxUploadSize=500" in argv
            assert "--client.toolbarMode=minimal" in argv
            script = Path(argv[argv.index("run") + 1])
            # The main script's pages are the installed ones (not a clone's).
            pages = installed[1] / "metrics_lens" / "pages"
            assert (script.parent / "pages").resolve() == pages.resolve()
        frame = pd.read_csv(elsewhere / "scores.csv")
        y = frame["label"].to_numpy() == 1
        c = metrics.confusion_at_threshold(y, frame["naive_bayes"], 0.5)
        with chromium() as browser:
            page = browser.new_page(viewport={"width": 1400, "height": 1000})
            page.goto(url)
            wait_for_app(page)
            want = f"Scores ≥ 0.5 are predicted label = 1: {int(c.tp + c.fp)} of {len(frame)} rows."
            page.get_by_text(want).wait_for(timeout=60_000)
            assert page.get_by_role("heading", name="Threshold · naive_bayes").count() == 1
            card = page.locator('[data-testid="stMetric"]', has_text="Precision").first
            value = card.locator('[data-testid="stMetricValue"]').inner_text().strip()
            assert value == f"{c.precision:.3f}"
            card = page.locator('[data-testid="stMetric"]', has_text="Recall").first
            value = card.locator('[data-testid="stMetricValue"]').inner_text().strip()
            assert value == f"{c.recall:.3f}"
            # The models are the --score columns, not the guess (all three score columns).
            box = page.locator('[data-testid="stSelectbox"]', has_text="Model (score column)")
            open_options(page, box)
            options = page.get_by_role("option").all_inner_texts()
            assert sorted(options) == ["logistic_regression", "naive_bayes"]
    finally:
        proc.terminate()
        proc.wait(timeout=30)
    # A stop (SIGTERM) stops the Streamlit child too: it was left running on its port.
    for pid in server:
        deadline = time.monotonic() + 20
        while Path(f"/proc/{pid}").exists() and _state(pid) != "Z" and time.monotonic() < deadline:
            time.sleep(0.2)
        assert not Path(f"/proc/{pid}").exists() or _state(pid) == "Z", f"server {pid} still runs"

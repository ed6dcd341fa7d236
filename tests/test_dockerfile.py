"""The Dockerfile, read as text (no Docker engine runs here to build it): it runs as a non-root
user, checks Streamlit's health endpoint, and copies every package the app imports."""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DOCKERFILE = (ROOT / "Dockerfile").read_text()


def _instructions(name: str) -> list[str]:
    text = DOCKERFILE.replace("\\\n", " ")
    return [line.split(None, 1)[1] for line in text.splitlines() if line.startswith(name + " ")]


def test_runs_as_a_non_root_user_with_a_health_check():
    users = _instructions("USER")
    assert users
    assert users[-1] not in ("root", "0")
    (check,) = _instructions("HEALTHCHECK")
    assert "/_stcore/health" in check
    (cmd,) = _instructions("CMD")
    assert "app.py" in cmd
    assert "--server.address=0.0.0.0" in cmd


def _local_imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text())
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module.split(".")[0])
    return {n for n in names if (ROOT / n).is_dir() or (ROOT / f"{n}.py").is_file()}


def test_copies_everything_the_app_needs_at_run_time():
    copied = set()
    for args in _instructions("COPY"):
        parts = [p for p in args.split() if not p.startswith("--")]
        copied |= {p.rstrip("/") for p in parts[:-1]}
    needed = {"app.py", "pages", "sample_data", ".streamlit", "requirements.txt", "constraints.txt"}
    for source in [ROOT / "app.py", *ROOT.glob("pages/*.py"), *ROOT.glob("ui/*.py")]:
        needed |= _local_imports(source)
    assert needed <= copied, needed - copied
    ignored = set((ROOT / ".dockerignore").read_text().split())
    assert not (copied & ignored)


def test_installs_only_the_runtime_requirements():
    runs = " ".join(_instructions("RUN"))
    assert re.search(r"pip install -r requirements\.txt -c constraints\.txt", runs)
    assert "requirements-dev" not in DOCKERFILE

"""The layers as run: metrics/ and the pure ui modules import without Streamlit.

pyproject.toml bans ``streamlit`` (and the ui modules that use it) outside the Streamlit side,
so ruff refuses a direct import; this test catches the indirect ones, through any chain of
imports, by importing every pure module in a fresh interpreter and looking for Streamlit."""

from __future__ import annotations

import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _streamlit_side() -> set[str]:
    """The ui modules pyproject.toml lets import Streamlit."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    ignores = config["tool"]["ruff"]["lint"]["per-file-ignores"]
    (pattern,) = [p for p in ignores if p.startswith("ui/{")]
    return {f"ui.{name}" for name in pattern[len("ui/{") : -len("}.py")].split(",")}


def _pure_modules() -> list[str]:
    side = _streamlit_side()
    ui = [f"ui.{p.stem}" for p in sorted((ROOT / "ui").glob("*.py")) if p.stem != "__init__"]
    lib = [
        ".".join(p.relative_to(ROOT).with_suffix("").parts)
        for p in sorted((ROOT / "metrics").rglob("*.py"))
        if p.stem not in ("__init__", "__main__")
    ]
    return [m for m in ui if m not in side] + ["metrics", *lib]


def test_the_streamlit_side_is_listed_and_exists():
    side = _streamlit_side()
    assert "ui.shell" in side
    for module in side:
        assert (ROOT / "ui" / f"{module.split('.')[1]}.py").exists(), module


def test_pure_modules_import_without_streamlit():
    modules = _pure_modules()
    assert {"ui.text", "ui.lessons", "ui.charts"} <= set(modules)
    script = (
        "import importlib, sys\n"
        f"for m in {modules!r}:\n"
        "    importlib.import_module(m)\n"
        "    if 'streamlit' in sys.modules:\n"
        "        print(m); break\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=300
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "", f"{out.stdout.strip()} imports Streamlit (directly or not)"

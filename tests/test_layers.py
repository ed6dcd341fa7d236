"""The layers, as written and as run.

``ui`` is nine packages in one order (:data:`ui.LAYERS`, lowest first): a package imports
``metrics`` and the packages before it, never one after it; the first five are pure and never
import Streamlit. These tests read every import of every module (at module level or inside a
function, where a lazy import would otherwise hide a cycle), so a change that breaks the order
fails here with the import that did; the last one imports the pure packages in a fresh
interpreter and looks for Streamlit, which catches what a reading could miss (an import through
a library). pyproject.toml's ruff ban on ``streamlit`` outside the Streamlit packages says the
same at edit time."""

from __future__ import annotations

import ast
import importlib.util
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

import ui

ROOT = Path(__file__).resolve().parent.parent


def _load_tool():
    spec = importlib.util.spec_from_file_location(
        "import_graph", ROOT / "tools" / "import_graph.py"
    )
    tool = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(tool)
    return tool


# The same reading of the imports as the picture in docs/architecture.md.
TOOL = _load_tool()
FILES = TOOL.module_files()


def _modules(root: str) -> dict[str, Path]:
    return {m: p for m, p in FILES.items() if m.split(".")[0] == root and "__main__" not in m}


def _imports(path: Path) -> set[str]:
    return TOOL.imports(path, set(FILES))


def _package(module: str) -> str | None:
    """The ui package a module belongs to (None for ``ui`` itself and for other roots)."""
    parts = module.split(".")
    return parts[1] if parts[0] == "ui" and len(parts) > 1 else None


def _streamlit_packages() -> set[str]:
    """The ui packages pyproject.toml lets import Streamlit."""
    ignores = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["ruff"]["lint"][
        "per-file-ignores"
    ]
    (pattern,) = [p for p in ignores if p.startswith("ui/{")]
    return set(pattern[len("ui/{") : -len("}/*")].split(","))


def test_every_package_is_in_the_order_and_the_pure_ones_are_first():
    on_disk = {p.name for p in (ROOT / "ui").iterdir() if (p / "__init__.py").exists()}
    assert on_disk == set(ui.LAYERS)
    assert len(ui.LAYERS) <= 9
    assert ui.LAYERS[: len(ui.PURE)] == ui.PURE
    assert _streamlit_packages() == set(ui.LAYERS) - set(ui.PURE)
    for package in ui.LAYERS:  # each says its job and what it may import
        assert ast.get_docstring(ast.parse((ROOT / "ui" / package / "__init__.py").read_text()))


def test_no_package_imports_a_later_one_and_pure_ones_never_import_streamlit():
    rank = {package: i for i, package in enumerate(ui.LAYERS)}
    wrong = []
    for module, path in _modules("ui").items():
        own = _package(module)
        for name in _imports(path):
            other = _package(name)
            if own is None or other is None:
                if name.split(".")[0] in ("pages", "metrics_lens", "app"):
                    wrong.append(f"{module} imports {name} (above ui)")
                continue
            if rank[other] > rank[own]:
                wrong.append(f"{module} imports {name}: {other} comes after {own}")
            if own in ui.PURE and name.split(".")[0] == "streamlit":
                wrong.append(f"{module} imports {name} in the pure package {own}")
    assert not wrong, "\n".join(sorted(wrong))


def test_metrics_never_imports_the_dashboard():
    wrong = [
        f"{module} imports {name}"
        for module, path in _modules("metrics").items()
        for name in _imports(path)
        if name.split(".")[0] in ("ui", "pages", "metrics_lens", "streamlit", "app")
    ]
    assert not wrong, "\n".join(wrong)


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan)."""
    index, low, stack, on, out = {}, {}, [], set(), []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                out.append(sorted(component))

    for v in graph:
        if v not in index:
            visit(v)
    return out


def test_no_import_cycles_among_ui_modules():
    modules = _modules("ui")
    graph = {m: {n for n in _imports(p) if n in modules and n != m} for m, p in modules.items()}
    assert _cycles({"a": {"b"}, "b": {"a"}, "c": {"a"}}) == [["a", "b"]]  # the check finds one
    assert _cycles(graph) == []


@pytest.mark.parametrize("root", ["metrics", "metrics_lens"])
def test_no_import_cycles_within_the_library_and_the_command(root):
    """No circle of imports (at module level or inside a function) among ``metrics``'s modules
    (``metrics.sql`` included) nor among ``metrics_lens``'s: a lazy import inside a function is
    still a circle, only hidden from the interpreter."""
    modules = _modules(root)
    graph = {m: {n for n in _imports(p) if n in modules and n != m} for m, p in modules.items()}
    assert _cycles(graph) == []


@pytest.mark.slow
def test_pure_packages_import_without_streamlit_as_run():
    modules = [m for m in _modules("ui") if _package(m) in ui.PURE]
    modules += ["metrics", *(m for m in _modules("metrics") if m != "metrics")]
    assert {"ui.words.text", "ui.teaching.lessons", "ui.figures.charts"} <= set(modules)
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


def test_the_architecture_page_shows_the_packages_as_the_code_has_them():
    """docs/architecture.md's generated table and graph equal what tools/import_graph.py draws
    from the imports now (``make architecture`` redraws them)."""
    spec = importlib.util.spec_from_file_location(
        "import_graph", ROOT / "tools" / "import_graph.py"
    )
    graph = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(graph)
    assert graph.main(["--check"]) == 0, "run `make architecture`"
    packages, edges = graph.graph()
    assert {f"ui.{p}" for p in ui.LAYERS} <= set(packages)
    rank = {p: i for i, p in enumerate(TOOL.ORDER)}
    assert all(rank[a] > rank[b] for a, b in edges), "an arrow points up the order"

"""The wheel puts the whole product under one import name, ``metrics_lens``.

A clone keeps the product's layout (``app.py``, ``pages/``, ``metrics/``, ``ui/``,
``sample_data/`` at the top) and imports them by those names. Installed beside a user's own
``metrics`` or ``ui`` package, or an ``app.py``, such names would collide, so the wheel nests
them: ``metrics_lens.metrics``, ``metrics_lens.ui``, ``metrics_lens.pages``,
``metrics_lens.app``, ``metrics_lens.sample_data`` (``pyproject.toml`` maps the folders). Their
absolute imports of each other are rewritten on the way into the wheel, as vendoring tools
rewrite a vendored package's imports; the build then fails if any module of the wheel would still
import a top-level name of the product.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

NESTED = ("metrics", "ui", "pages", "sample_data", "app")
_NAMES = "|".join(NESTED)
_REWRITES = (
    # from metrics.sql import x  ->  from metrics_lens.metrics.sql import x (also in doctests)
    (re.compile(rf"^(\s*(?:>>> )?)from ({_NAMES})((?:\.\w+)*) import ", re.M),
     r"\1from metrics_lens.\2\3 import "),
    # import metrics  ->  from metrics_lens import metrics (the name bound stays the same)
    (re.compile(rf"^(\s*(?:>>> )?)import ({_NAMES})$", re.M), r"\1from metrics_lens import \2"),
    # import ui.x as y  ->  import metrics_lens.ui.x as y
    (re.compile(rf"^(\s*)import ({_NAMES})((?:\.\w+)+ as \w+)$", re.M),
     r"\1import metrics_lens.\2\3"),
    # the module's own command line, as its messages name it
    (re.compile(r"python -m metrics\.sql"), "python -m metrics_lens.metrics.sql"),
)  # fmt: skip


def nest_imports(source: str) -> str:
    """The module's text with the product's top-level imports under ``metrics_lens``."""
    for pattern, replacement in _REWRITES:
        source = pattern.sub(replacement, source)
    return source


def top_level_imports(source: str) -> set[str]:
    """The product's top-level names a module imports (none, once nested)."""
    found = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.add(node.module.split(".")[0])
    return found & set(NESTED)


class NestedBuild(build_py):
    """``build_py`` that adds ``app.py`` as ``metrics_lens.app`` and nests every import."""

    def run(self):
        super().run()
        if not self.dry_run:
            app = Path(self.build_lib) / "metrics_lens" / "app.py"
            app.write_text(Path("app.py").read_text(encoding="utf-8"), encoding="utf-8")
            self._nest(app)

    def build_module(self, module, module_file, package):
        outfile, copied = super().build_module(module, module_file, package)
        if not self.dry_run:
            self._nest(Path(outfile))
        return outfile, copied

    @staticmethod
    def _nest(path: Path) -> None:
        source = nest_imports(path.read_text(encoding="utf-8"))
        left = top_level_imports(source)
        if left:
            raise SystemExit(
                f"{path}: imports {sorted(left)} in a form setup.py does not nest; write it as "
                "'from X import y', 'import X' or 'import X.y as z'"
            )
        path.write_text(source, encoding="utf-8")


setup(cmdclass={"build_py": NestedBuild})

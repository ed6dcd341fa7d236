"""Runs: TREC runs against their qrels compared as a reviewer does, paired over queries."""

from __future__ import annotations

from ui.frame import shell
from ui.views import runs_view

shell.page_context(require_usable=False)
runs_view.render()

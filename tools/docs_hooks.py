"""MkDocs hooks: pages generated from the code at build time, so they never go stale.

``<!-- cli-reference -->`` in a page becomes every command's ``--help``, read from the argument
parsers themselves (``metrics_lens.cli`` and ``python -m metrics.sql``).
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MARKER = "<!-- cli-reference -->"


def _help(parser: argparse.ArgumentParser) -> str:
    os.environ["COLUMNS"] = "100"  # argparse wraps at the terminal's width: fix it
    return parser.format_help().rstrip()


def _subcommands(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    for action in parser._actions:  # argparse keeps the subcommands on its private action
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    return {}


def cli_reference() -> str:
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    from metrics.sql.__main__ import _merge_parser
    from metrics.sql.__main__ import _parser as sql_parser
    from metrics_lens import detection_cmd, runs_cmd
    from metrics_lens.cli import _parser

    top = _parser()
    parts = ["## metrics-lens", "", "```text", _help(top), "```", ""]
    for name, sub in _subcommands(top).items():
        if name == "sql":
            sub = sql_parser()
        if name == "detection":
            sub = detection_cmd._detection_parser()
        parts += [f"## metrics-lens {name}", "", "```text", _help(sub), "```", ""]
    more = {
        "metrics-lens sql merge": _merge_parser(),
        "metrics-lens check --qrels (TREC runs)": runs_cmd._parser(),
        "metrics-lens report --qrels (TREC runs)": runs_cmd._report_parser(),
        "metrics-lens check --gt (detectors)": detection_cmd._check_parser(),
    }
    for title, parser in more.items():
        parts += [f"## {title}", "", "```text", _help(parser), "```", ""]
    return "\n".join(parts)


def on_page_markdown(markdown: str, page, config, files) -> str:
    if MARKER in markdown:
        markdown = markdown.replace(MARKER, cli_reference())
    return markdown

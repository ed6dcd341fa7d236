"""``python -m metrics.sql SOURCE --label L --score S [...]``: exact metrics of a large table.

Prints a readable summary, or with ``--json`` one JSON object on stdout::

    {"rows": N, "dropped": D, "models": {"<score>": {"auc": ..., "average_precision": ...,
                                                     "gauc": ...}}}

``gauc`` is there with ``--group`` (impressions weighting). ``--out SUMMARY`` also writes the
per-score tables to a file the dashboard opens instantly. Progress goes to stderr. Bad input
exits with status 2 and one line saying what to fix.
"""

from __future__ import annotations

import argparse
import json
import sys
import time

from metrics.sql._engine import DEFAULT_BINS, DEFAULT_CAP, SQLInputError, summarize


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m metrics.sql",
        description="Exact AUC, average precision and GAUC of a Parquet or CSV table, on "
        "DuckDB (default) or Spark.",
    )
    p.add_argument("source", help="a Parquet or CSV file, or a glob such as 'logs/*.parquet'")
    p.add_argument("--label", required=True, help="the label column")
    p.add_argument("--score", required=True, action="append", help="a score column (repeat)")
    p.add_argument("--group", help="a user or query column: adds GAUC (impressions weighting)")
    p.add_argument("--weight", help="a sample weight column")
    p.add_argument("--pos-label", help="the positive class, when the labels are not 0/1")
    p.add_argument("--engine", choices=["duckdb", "spark"], default="duckdb")
    p.add_argument("--memory-limit", default="2GB", help="DuckDB's memory limit (default 2GB)")
    p.add_argument(
        "--cap", type=int, default=DEFAULT_CAP,
        help="distinct scores up to which the exact per-score table is kept",
    )  # fmt: skip
    p.add_argument("--bins", type=int, default=DEFAULT_BINS, help="score ranges above the cap")
    p.add_argument("--json", action="store_true", help="print one JSON object on stdout")
    p.add_argument("--out", help="write the summary (per-score tables) to this .npz file")
    return p


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    last = [0.0]

    def progress(line: str) -> None:
        now = time.monotonic()
        print(f"[metrics.sql] {line}", file=sys.stderr, flush=True)
        last[0] = now

    try:
        summary = summarize(
            args.source,
            args.label,
            args.score,
            group=args.group,
            weight=args.weight,
            pos_label=args.pos_label,
            engine=args.engine,
            memory_limit=args.memory_limit,
            cap=args.cap,
            bins=args.bins,
            progress=progress,
        )
        if args.out:
            path = summary.save(args.out)
            progress(f"summary written to {path}")
    except SQLInputError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except ImportError as exc:
        print(f"error: {exc}; install it (make test installs pyspark and Java)", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(summary.to_json()))
        return 0
    print(
        f"{summary.rows:,} rows ({summary.dropped:,} dropped), positive class {summary.positive!r}"
    )
    for name, m in summary.models.items():
        line = f"{name}: AUC {m.auc:.6f}  AP {m.average_precision:.6f}"
        if m.gauc is not None:
            line += f"  GAUC {m.gauc:.6f} ({m.groups_used:,} groups, {m.groups_skipped:,} skipped)"
        print(line)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

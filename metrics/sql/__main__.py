"""``python -m metrics.sql SOURCE --label L --score S [...]``: exact metrics of a large table.

Prints a readable summary, or with ``--json`` one JSON object on stdout::

    {"rows": N, "dropped": D, "models": {"<score>": {"auc": ..., "average_precision": ...,
                                                     "gauc": ...}}}

``gauc`` is there with ``--group`` (impressions weighting). ``--delong`` adds one more pass and
``"delong": {"models": {"<score>": {"auc", "std_error", "ci_low", "ci_high"}}, "pairs": [{"a",
"b", "difference", "std_error", "z", "p_value", "ci_low", "ci_high"}]}``: DeLong's 95% intervals
and paired tests, as :func:`metrics.sql.delong`. ``--out SUMMARY`` also writes the
per-score tables to a file the dashboard opens instantly. Progress goes to stderr. Bad input
exits with status 2 and one line saying what to fix.
"""

from __future__ import annotations

import argparse
import json
import sys
import time

from metrics.sql._engine import DEFAULT_BINS, DEFAULT_CAP, SQLInputError, delong, summarize


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
    p.add_argument(
        "--delong", action="store_true",
        help="one more pass: DeLong's interval of each AUC and the paired test of every pair",
    )  # fmt: skip
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

    if args.delong and args.weight:
        print("error: DeLong's test is unweighted: drop --weight or --delong.", file=sys.stderr)
        return 2
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
        tests = None
        if args.delong:
            tests = _delong_json(
                delong(args.source, args.label, args.score, pos_label=args.pos_label,
                       engine=args.engine, memory_limit=args.memory_limit, progress=progress)
            )  # fmt: skip
    except SQLInputError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except ImportError as exc:
        print(f"error: {exc}; install it (make test installs pyspark and Java)", file=sys.stderr)
        return 2
    if args.json:
        out = summary.to_json()
        if tests is not None:
            out["delong"] = tests
        print(json.dumps(out))
        return 0
    print(
        f"{summary.rows:,} rows ({summary.dropped:,} dropped), positive class {summary.positive!r}"
    )
    for name, m in summary.models.items():
        line = f"{name}: AUC {m.auc:.6f}  AP {m.average_precision:.6f}"
        if m.gauc is not None:
            line += f"  GAUC {m.gauc:.6f} ({m.groups_used:,} groups, {m.groups_skipped:,} skipped)"
        print(line)
    if tests is not None:
        for name, m in tests["models"].items():
            print(f"{name}: AUC 95% CI [{m['ci_low']:.6f}, {m['ci_high']:.6f}] (DeLong)")
        for r in tests["pairs"]:
            print(
                f"{r['a']} - {r['b']}: {r['difference']:+.6f} [{r['ci_low']:+.6f}, "
                f"{r['ci_high']:+.6f}], z {r['z']:.3f}, p {r['p_value']:.3g} (DeLong)"
            )
    return 0


def _delong_json(s) -> dict:
    models = {}
    for name in s.models:
        iv = s.interval(name)
        models[name] = {"auc": iv.auc, "std_error": iv.std_error, "ci_low": iv.ci_low,
                        "ci_high": iv.ci_high}  # fmt: skip
    pairs = []
    for i, a in enumerate(s.models):
        for b in s.models[i + 1 :]:
            r = s.test(a, b)
            pairs.append({"a": a, "b": b, "difference": r.difference, "std_error": r.std_error,
                          "z": r.z, "p_value": r.p_value, "ci_low": r.ci_low,
                          "ci_high": r.ci_high})  # fmt: skip
    return {"models": models, "pairs": pairs}


if __name__ == "__main__":
    raise SystemExit(main())

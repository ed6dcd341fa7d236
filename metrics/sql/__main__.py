"""``python -m metrics.sql SOURCE --label L --score S [...]``: exact metrics of a large table.

Prints a readable summary, or with ``--json`` one JSON object on stdout::

    {"rows": N, "dropped": D, "models": {"<score>": {"auc": ..., "average_precision": ...,
                                                     "gauc": ...}}}

``gauc`` is there with ``--group`` (impressions weighting). ``--delong`` adds (on DuckDB in the
same sort as the continuous score's, :func:`metrics.sql.summarize_with_delong`)
``"delong": {"models": {"<score>": {"auc", "std_error", "ci_low", "ci_high"}}, "pairs": [{"a",
"b", "difference", "std_error", "z", "p_value", "ci_low", "ci_high"}], "test": ...}``: DeLong's
95% intervals and paired tests, as :func:`metrics.sql.delong`; with ``--group``, Obuchowski's
clustered ones (``"test": "obuchowski"``, Student t with ``"df"`` degrees of freedom), since rows
of one user are not independent. ``--out SUMMARY`` also writes the
state (per-score counts, per-(user, score) counts: format 2, see :mod:`metrics.sql._state`) to a
file the dashboard opens instantly and that merges with others; it refuses to replace an existing
file unless ``--force``, and never replaces an input file. Progress goes to stderr (held for
the first three seconds, so that a quick refusal is the only line). Bad input exits with
status 2 and one line on stderr saying what to fix.

``python -m metrics.sql merge STATE... [--out MERGED] [--json] [--delong]`` adds states up
(days, shards; a glob is expanded): the metrics of all their rows, bit-identical to one pass.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import threading
from pathlib import Path

from metrics.sql._engine import (
    DEFAULT_BINS,
    DEFAULT_CAP,
    SQLInputError,
    spark_session,
    summarize,
    summarize_with_delong,
)
from metrics.sql._inputs import memory_limit, resolve_files
from metrics.sql._state import PAIRED, merge

HOLD = 3.0  # seconds of progress held back, so that a quick refusal prints one line only


class _Parser(argparse.ArgumentParser):
    def error(self, message: str):  # one line, not the usage block
        print(f"error: {message} (python -m metrics.sql --help)", file=sys.stderr)
        raise SystemExit(2)


class _Progress:
    """Progress lines on stderr, held for the first ``HOLD`` seconds: dropped if the run fails
    by then (its one error line is all that shows), printed once it runs longer or succeeds.
    Shown when stderr is a terminal and the result is not ``--json``, or with ``--verbose``
    wherever stderr goes (a CI log); otherwise nothing is written but the result."""

    def __init__(self, shown: bool = True) -> None:
        self.shown = shown
        self._held: list[str] | None = []
        self._lock = threading.Lock()
        self._timer = threading.Timer(HOLD, self.release)
        self._timer.daemon = True
        self._timer.start()

    def __call__(self, line: str) -> None:
        if not self.shown:
            return
        text = f"[metrics.sql] {line}"
        with self._lock:
            if self._held is not None:
                self._held.append(text)
                return
        print(text, file=sys.stderr, flush=True)

    def release(self) -> None:
        self._timer.cancel()
        with self._lock:
            held, self._held = self._held, None
        for text in held or ():
            print(text, file=sys.stderr, flush=True)

    def drop(self) -> None:
        self._timer.cancel()
        with self._lock:
            if self._held is not None:
                self._held = []


def _parser() -> argparse.ArgumentParser:
    p = _Parser(
        prog="python -m metrics.sql",
        description="Exact AUC, average precision and GAUC of a Parquet or CSV table, on "
        "DuckDB (default) or Spark.",
    )
    p.add_argument("source", help="a Parquet or CSV file, or a glob such as 'logs/*.parquet'")
    p.add_argument("--label", required=True, help="the label column")
    p.add_argument("--score", required=True, action="append", help="a score column (repeat)")
    p.add_argument("--group", help="a user or query column: adds GAUC (impressions weighting)")
    p.add_argument("--weight", help="a sample weight column")
    p.add_argument(
        "--pos-label",
        help="the positive class, when the labels are not 0/1; a cut such as '>0' or '>=3' "
        "makes every numeric label above it positive (graded relevance)",
    )
    p.add_argument("--engine", choices=["duckdb", "spark"], default="duckdb")
    p.add_argument(
        "--spark-master", default="local[2]",
        help="with --engine spark: local[2] (default), a cluster (spark://host:7077, yarn, "
        "k8s://...) or Spark Connect (sc://host:15002)",
    )  # fmt: skip
    p.add_argument("--memory-limit", default="2GB", help="DuckDB's memory limit (default 2GB)")
    p.add_argument(
        "--cap", type=int, default=DEFAULT_CAP,
        help="distinct scores up to which the exact per-score table is kept",
    )  # fmt: skip
    p.add_argument("--bins", type=int, default=DEFAULT_BINS, help="score ranges above the cap")
    p.add_argument(
        "--delong", action="store_true",
        help="DeLong's interval of each AUC and the paired test of every pair (with --group, "
        "Obuchowski's clustered ones: rows of one user are not independent); on DuckDB from "
        "the continuous score's sort, else one more pass",
    )  # fmt: skip
    p.add_argument("--json", action="store_true", help="print one JSON object on stdout")
    _verbose(p)
    p.add_argument("--out", help="write the summary (per-score tables) to this .npz file")
    p.add_argument("--force", action="store_true", help="let --out replace an existing file")
    return p


def _check_out(out: str, inputs: list[str], force: bool) -> Path:
    """``--out`` before any work: a file that can be created, not a directory, not an input,
    and replaced only with ``--force``."""
    path = Path(out)
    if path.is_dir():
        raise SQLInputError(f"--out {out} is a directory: give a file name such as summary.npz.")
    parent = path.parent
    if not parent.is_dir():
        raise SQLInputError(f"--out {out}: the directory {parent} does not exist; create it first.")
    if path.exists():
        for f in inputs:
            if os.path.samefile(path, f):
                raise SQLInputError(
                    f"--out {out} is an input file: writing the summary would destroy the data; "
                    "give another file name."
                )
        if not force:
            raise SQLInputError(
                f"--out {out} exists: pass --force to replace it, or give another file name."
            )
    return path


def _write(summary, path: Path) -> Path:
    """Write through a temporary file in the same directory, then rename: a failed write (a
    full disk) leaves no half file and no replaced one. A device or pipe is written in place."""
    if path.exists() and not path.is_file():
        return summary.save(path)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".part")
    os.close(fd)
    try:
        summary.save(tmp)
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)
    return path


def _merge_parser() -> argparse.ArgumentParser:
    p = _Parser(
        prog="python -m metrics.sql merge",
        description="Merge states written by python -m metrics.sql ... --out (days, shards) "
        "into one: the metrics of all their rows, bit-identical to one pass.",
    )
    p.add_argument("states", nargs="+", help="state files (.npz), or a glob such as 'days/*.npz'")
    p.add_argument("--out", help="write the merged state to this .npz file")
    p.add_argument("--force", action="store_true", help="let --out replace an existing file")
    p.add_argument("--json", action="store_true", help="print one JSON object on stdout")
    _verbose(p)
    p.add_argument(
        "--delong", action="store_true",
        help="each AUC's DeLong interval (with a user column, Obuchowski's clustered one) from "
        "the merged counts; tests between models need the rows and are refused",
    )  # fmt: skip
    return p


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    merging = bool(argv) and argv[0] == "merge"
    args = (_merge_parser() if merging else _parser()).parse_args(argv[1:] if merging else argv)
    progress = _Progress(args.verbose or (not args.json and _terminal(sys.stderr)))
    try:
        code = _merge(args, progress) if merging else _run(args, progress)
    except SQLInputError as exc:
        code = _fail(progress, str(exc))
    except ImportError as exc:
        code = _fail(progress, f"{exc}; install it (make test installs pyspark and Java)")
    except OSError as exc:
        code = _fail(progress, f"{exc.strerror or exc} ({exc.filename or 'no file name'})")
    except ValueError as exc:  # a state that cannot be read or merged: one sentence
        code = _fail(progress, str(exc))
    if code == 0:
        progress.release()
    return code


def _terminal(stream) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


def _verbose(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "-v",
        "--verbose",
        action="store_true",
        help="progress lines on stderr wherever it goes (shown on a terminal without it, "
        "never with --json unless asked)",
    )


def _fail(progress: _Progress, message: str) -> int:
    progress.drop()
    print("error: " + " ".join(message.split()), file=sys.stderr, flush=True)
    return 2


def _merge(args, progress) -> int:
    files = []
    for pattern in args.states:
        files += resolve_files(pattern)
    out = _check_out(args.out, files, args.force) if args.out else None
    progress(f"merging {len(files)} state(s)")
    summary = merge(files)
    if out is not None:
        _save(summary, out, progress)
    tests = _state_intervals(summary) if args.delong else None
    return _print(summary, tests, args.json, summary.group)


def _state_intervals(s) -> dict:
    """Each model's interval from a state: Obuchowski's clustered one when it has the
    per-(user, score) counts, else DeLong's (refused with a sentence when it has a user column
    but not those counts: rows of one user are not independent); tests between models are
    refused with the reason."""
    clustered = s.group is not None
    models, df = {}, None
    for name, m in s.models.items():
        if clustered:
            c = m.clustered_interval(small_sample=True)
            df = c.df
            models[name] = {"auc": c.auc_a, "std_error": c.std_error_a, "ci_low": c.ci_low_a,
                            "ci_high": c.ci_high_a}  # fmt: skip
        else:
            iv = m.auc_interval()
            models[name] = {"auc": iv.auc, "std_error": iv.std_error, "ci_low": iv.ci_low,
                            "ci_high": iv.ci_high}  # fmt: skip
    out = {"models": models, "pairs": [], "test": "obuchowski" if clustered else "delong"}
    if clustered:
        out["df"] = df
    if len(s.models) > 1:
        out["pairs_refused"] = "Tests between models: " + PAIRED
    return out


def _save(summary, out: Path, progress) -> None:
    try:
        _write(summary, out)
    except OSError as exc:
        raise SQLInputError(f"cannot write the summary to {out}: {exc.strerror or exc}.") from None
    progress(f"summary written to {out}")


def _run(args, progress) -> int:
    if args.delong and args.weight:
        raise SQLInputError("DeLong's test is unweighted: drop --weight or --delong.")
    limit = memory_limit(args.memory_limit, what="--memory-limit")
    if args.cap < 0 or args.bins < 1:
        raise SQLInputError("--cap must be 0 or more and --bins 1 or more.")
    inputs = resolve_files(args.source)
    out = _check_out(args.out, inputs, args.force) if args.out else None
    if args.spark_master != "local[2]" and args.engine != "spark":
        raise SQLInputError("--spark-master needs --engine spark.")
    spark = spark_session(args.spark_master) if args.engine == "spark" else None
    options = dict(group=args.group, pos_label=args.pos_label, engine=args.engine,
                   memory_limit=limit, spark=spark, cap=args.cap, bins=args.bins,
                   progress=progress, state=out is not None)  # fmt: skip
    # exactly the files checked above, never globbed again; --out writes a state that merges
    tests = None
    if args.delong:  # one opening: the sorted scores serve the summary and DeLong's sums
        summary, sums = summarize_with_delong(inputs, args.label, args.score, **options)
        tests = _delong_json(sums)
    else:
        summary = summarize(inputs, args.label, args.score, weight=args.weight, **options)
    summary.source = args.source  # as the user named it (a glob stays a glob)
    if out is not None:
        _save(summary, out, progress)
    return _print(summary, tests, args.json, args.group)


def _print(summary, tests, as_json: bool, group) -> int:
    if as_json:
        result = summary.to_json()
        if tests is not None:
            result["delong"] = tests
        print(json.dumps(result))
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
        test = (
            f"Obuchowski, clustered by {group}, t with {tests['df']:.1f} df"
            if tests["test"] == "obuchowski"
            else "DeLong"
        )
        for name, m in tests["models"].items():
            print(f"{name}: AUC 95% CI [{m['ci_low']:.6f}, {m['ci_high']:.6f}] ({test})")
        for r in tests["pairs"]:
            print(
                f"{r['a']} - {r['b']}: {r['difference']:+.6f} [{r['ci_low']:+.6f}, "
                f"{r['ci_high']:+.6f}], z {r['z']:.3f}, p {r['p_value']:.3g} ({test})"
            )
        if "pairs_refused" in tests:
            print(tests["pairs_refused"])
    return 0


def _delong_json(s) -> dict:
    """DeLong's intervals and tests, or with per-user sums Obuchowski's clustered ones (the
    Student t reference of :meth:`metrics.sql.DeLongSummary.clustered`, as the dashboard)."""
    clustered = s.clusters is not None
    models = {}
    df = None
    for name in s.models:
        if clustered:
            c = s.clustered(name, small_sample=True)
            df = c.df
            models[name] = {"auc": c.auc_a, "std_error": c.std_error_a, "ci_low": c.ci_low_a,
                            "ci_high": c.ci_high_a}  # fmt: skip
        else:
            iv = s.interval(name)
            models[name] = {"auc": iv.auc, "std_error": iv.std_error, "ci_low": iv.ci_low,
                            "ci_high": iv.ci_high}  # fmt: skip
    pairs = []
    for i, a in enumerate(s.models):
        for b in s.models[i + 1 :]:
            r = s.clustered(a, b, small_sample=True) if clustered else s.test(a, b)
            pairs.append({"a": a, "b": b, "difference": r.difference, "std_error": r.std_error,
                          "z": r.z, "p_value": r.p_value, "ci_low": r.ci_low,
                          "ci_high": r.ci_high})  # fmt: skip
    out = {"models": models, "pairs": pairs, "test": "obuchowski" if clustered else "delong"}
    if clustered:
        out["df"] = df
    return out


if __name__ == "__main__":
    raise SystemExit(main())

"""The ``metrics-lens`` command: ``app``, ``report``, ``check`` and ``sql``.

Exit status: 0 success (for ``check``: the candidate passed), 1 ``check`` failed, 2 bad input
(a missing file or column, a one-class label, an unknown metric, a bad option), printed as one
line on stderr, never a traceback.
"""

from __future__ import annotations

import argparse
import json
import shlex
import sys
import tempfile
from pathlib import Path

from metrics._bounds import MAX_RESAMPLES
from metrics_lens.inputs import NONE, BadInput

__all__ = ["main"]

# Bounds every command enforces before it works (issue 32): a bad value exits 2 with a sentence.
MIN_RESAMPLES = 100  # and at most the library's bound (1e9 resamples asked for 15 GiB at once)
MAX_SEED = 2**32 - 1
MAX_SLICES = 200  # --slice: one row mask and one bootstrap per value

CHECK_EPILOG = """\
How the gate decides. Both models are scored on the same bootstrap resamples (Poisson counts per
row; with --group, per whole group, since rows of one user or query are not independent; gauc
always resamples groups). For each metric d = candidate - baseline on every resample; U is the
(1 - alpha) quantile of d and L the alpha quantile: one-sided (1 - alpha) bounds.
  default   exit 1 when U < -max_drop: at confidence 1 - alpha the candidate is worse than the
            baseline by more than the allowed drop. Equal models pass.
  --strict  non-inferiority: exit 0 only when L >= -max_drop, i.e. the data show the candidate
            is not worse by more than the allowed drop (give a margin with --max-drop).
Every metric is higher-is-better. With --slice COL the gate also runs on each value of COL and
fails when any slice fails; slices where the metric is undefined (one class) are listed as
skipped. The k tests (metrics x slices) are one family, named in the output: by default each
bound is at alpha / k (Bonferroni), so a wrong FAIL anywhere stays at most alpha; --strict
needs every test to pass, which keeps a wrong PASS at alpha with each bound at alpha.
Never a pass on an undefined value: a candidate that cannot reach what the baseline
reaches (recall@precision=P with its precision never at P) fails; undefined for the baseline or
the data on all rows, the gate refuses (exit 2). Exit status: 0 passed, 1 failed, 2 bad input
or undefined.

Metrics: auc, ap, gauc (needs --group), f1@T (F1 predicting positive when score >= T),
recall@precision=P (the highest recall at precision >= P).

Bounds, checked before any work (exit 2 beyond them): --resamples 100 to 100,000; --seed 0 to
4,294,967,295; --slice on a column of at most 200 distinct values; FILE a regular file of at
most a quarter of METRICS_LENS_BUDGET_MB (default 1024 MB) on disk and decompressed, at most
1,000 columns and a header row of at most 100,000 characters.
"""

FAMILY_HELP = (
    "what the verdicts rest on, declared before looking: a primary metric (auc, the default; "
    "ap, pauc, gauc, brier, log-loss), the others exploratory; or all (Holm across metrics x "
    "pairs)"
)

FILE_HELP = (
    "a CSV or Parquet predictions table: exactly that file (never a glob), a regular file of at "
    "most a quarter of METRICS_LENS_BUDGET_MB (default 1024 MB) on disk and decompressed, "
    "1,000 columns and a 100,000-character header"
)


def _bounded(flag: str, low: int, high: int):
    """An argparse type: a whole number from ``low`` to ``high`` (an error names the bounds)."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"takes a whole number, got {text!r}") from None
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(f"must be from {low:,} to {high:,}, got {value:,}")
        return value

    return parse


def _timeout(text: str) -> float:
    """An argparse type: --mlflow-timeout's seconds, above 0 and at most an hour."""
    from metrics_lens.mlflow_source import MAX_TIMEOUT, check_timeout

    try:
        return check_timeout(float(text))
    except ValueError:  # float("x"), or BadInput (a ValueError) for nan, inf, 0, 1e308...
        raise argparse.ArgumentTypeError(
            f"takes seconds above 0 and at most {MAX_TIMEOUT:,.0f} (an hour), got {text!r}"
        ) from None


class _Parser(argparse.ArgumentParser):
    """argparse with one-line errors (exit 2), as every other bad input."""

    def error(self, message: str):
        hint = ""
        unknown = message.partition("unrecognized arguments: ")[2].split()
        named = [a for a in unknown if a.startswith("-") and not a.startswith("--") and "." in a]
        if named:  # a file whose name starts with "-" reads as an option
            hint = f"; give a file whose name starts with - as ./{named[0]}, or after --"
        self.exit(2, f"{self.prog}: error: {message}{hint} (see {self.prog} --help)\n")


def _resampling_options(p: argparse.ArgumentParser) -> None:
    """The bootstrap's --resamples and --seed, as report and check take them."""
    p.add_argument(
        "--resamples",
        type=_bounded("--resamples", MIN_RESAMPLES, MAX_RESAMPLES),
        default=1000,
        help="bootstrap resamples, 100 to 100,000 (1000)",
    )
    p.add_argument(
        "--seed", type=_bounded("--seed", 0, MAX_SEED), default=0, help="0 to 4,294,967,295 (0)"
    )
    p.add_argument(
        "-v",
        "--verbose",
        action="store_true",
        help="one line per step on stderr, wherever it goes (a terminal shows a progress line "
        "without it)",
    )


def _steps(command: str, args):
    """The run's progress on stderr (metrics_lens.progress): off with --json."""
    from metrics_lens.progress import Steps

    if getattr(args, "json", False):
        return Steps(command, 1, mode="off")
    # 1: reading the table; the rest are counted once it is read (1/?, then 2/3...)
    return Steps(command, 1, mode="lines" if args.verbose else "auto", more=True)


def _table_options(p: argparse.ArgumentParser, *, file_nargs: str = "?") -> None:
    p.add_argument("--label", help="the label column (guessed when omitted)")
    p.add_argument(
        "--score",
        action="extend",
        nargs="+",
        metavar="S",
        help="score column(s), one per model (guessed when omitted)",
    )
    p.add_argument(
        "--group",
        help="a user or query id column: adds GAUC, resamples groups (default: the column the "
        "dashboard would guess, such as user_id; 'none' for no group)",
    )
    p.add_argument(
        "--weight",
        help="a sample weight column (default: one named like a weight; 'none' for no weights)",
    )
    p.add_argument(
        "--pos-label",
        help="the positive class, when it is not guessed right; '>0' or '>=3' makes every "
        "numeric label above the cut positive (graded relevance)",
    )
    p.add_argument(
        "--drop-bad-rows",
        action="store_true",
        help="drop rows with a missing or bad value instead of refusing",
    )
    p.add_argument(
        "--mlflow-run",
        metavar="RUN_ID",
        help="read the predictions table logged by this MLflow run instead of FILE",
    )
    p.add_argument(
        "--tracking-uri",
        metavar="URI",
        help="MLflow tracking URI (file:, sqlite:, http:, https:), read only; default "
        "MLFLOW_TRACKING_URI, else ./mlruns or sqlite:///mlflow.db when present",
    )
    p.add_argument(
        "--artifact", metavar="PATH", help="the run's table artifact, when it logged several"
    )
    p.add_argument(
        "--mlflow-timeout",
        type=_timeout,
        default=60.0,
        metavar="SECONDS",
        help="the most a read from a tracking server may take, every request together, with "
        "no retries: above 0 and at most 3600 (default 60); its answers are read up to 16 MB, "
        "the table up to 1 GB",
    )


def _parser() -> argparse.ArgumentParser:
    p = _Parser(
        prog="metrics-lens",
        description="Metrics Lens: the dashboard, an offline HTML report, a CI metric gate and "
        "exact metrics of large tables. Run `metrics-lens COMMAND --help` for each.",
    )
    p.add_argument("--version", action="version", version=_version())
    sub = p.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)

    a = sub.add_parser(
        "app",
        help="start the dashboard with file(s) loaded",
        description="Start the dashboard with FILE(s) already loaded (the first "
        "one shown; the others listed under Server dataset). Roles are guessed as "
        "for uploads unless given.",
    )
    a.add_argument(
        "files",
        nargs="*",
        metavar="FILE",
        help="CSV or Parquet files (or .npz summaries of python -m metrics.sql), each exactly "
        "that file, never a glob. The first opens at the printed address: as rows, as if "
        "uploaded, when it fits a quarter of the uploads' share of METRICS_LENS_BUDGET_MB "
        "(192 MB by default); a larger CSV or Parquet file through the engine (DuckDB)",
    )
    a.add_argument("--port", type=int, help="port (default: 8501 or the next free one)")
    a.add_argument(
        "--host",
        default="127.0.0.1",
        help="address to listen on (default 127.0.0.1: this machine only)",
    )
    a.add_argument("--no-browser", action="store_true", help="do not open a browser")
    _table_options(a)

    r = sub.add_parser(
        "report",
        help="write a self-contained HTML report",
        description="Write one self-contained HTML file (plotly inline, opens "
        "offline): dataset, metrics with bootstrap intervals, ROC and PR curves, "
        "confusion matrices at each threshold, AP methods, GAUC, verdicts, "
        "settings.",
    )
    r.add_argument("file", nargs="?", metavar="FILE", help=FILE_HELP)
    r.add_argument(
        "-o", "--output", required=True, metavar="report.html", help="never the input file"
    )
    r.add_argument(
        "--threshold",
        action="append",
        default=[],
        metavar="MODEL=T",
        help="a model's threshold (repeat); default per the score's scale",
    )
    _resampling_options(r)
    r.add_argument("--max-fpr", type=float, default=0.1, help="partial AUC's FPR limit (0.1)")
    r.add_argument("--family", default="auc", metavar="METRIC", help=FAMILY_HELP)
    _table_options(r)

    c = sub.add_parser(
        "check",
        help="gate a candidate model against a baseline (CI)",
        description="Exit 0 when the candidate is not worse than the baseline "
        "beyond the allowed drop, 1 when it is, 2 on bad input.",
        epilog=CHECK_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    c.add_argument("file", nargs="?", metavar="FILE", help=FILE_HELP)
    c.add_argument("--baseline", required=True, metavar="A", help="the baseline's score column")
    c.add_argument("--candidate", required=True, metavar="B", help="the candidate's score column")
    c.add_argument(
        "--metric",
        action="append",
        required=True,
        metavar="M",
        help="auc | ap | gauc | f1@T | recall@precision=P | 'recall@precision>=P@C%%' "
        "(pass when a threshold holds precision >= P with C%% confidence; also precision@"
        "recall>=P@C%%, specificity, npv, fpr<=P) (repeat)",
    )
    c.add_argument(
        "--max-drop",
        type=float,
        default=0.0,
        help="allowed drop of candidate - baseline (default 0)",
    )
    c.add_argument(
        "--alpha",
        type=float,
        default=0.05,
        help="one-sided bounds at confidence 1 - alpha (default 0.05)",
    )
    c.add_argument(
        "--slice",
        metavar="COL",
        help=f"also gate every value of this column (at most {MAX_SLICES} distinct values)",
    )
    c.add_argument(
        "--strict",
        action="store_true",
        help="non-inferiority: pass only when the lower bound is >= -max_drop",
    )
    c.add_argument(
        "--rows-independent",
        action="store_true",
        help="with --group: resample rows, not groups, for all but gauc",
    )
    _resampling_options(c)
    c.add_argument("--json", action="store_true", help="print one JSON object on stdout")
    _table_options(c)

    sub.add_parser(
        "sql",
        help="exact metrics of large tables (python -m metrics.sql); takes a glob",
        add_help=False,
    )
    sub.add_parser(
        "detection",
        help="COCO box AP of detections (pycocotools' 12 numbers) and other conventions' AP; "
        "check --gt GT BASELINE CANDIDATE gates two detectors",
        add_help=False,
    )
    return p


def _detection_check(argv: list[str]) -> bool:
    from metrics_lens.detection_cmd import wants_detection_check

    return wants_detection_check(argv)


def _version() -> str:
    from metrics_lens._version import __version__

    return f"metrics-lens {__version__}"


# --- input -----------------------------------------------------------------------------------


def _source(args, into: Path | None = None):
    """(frame, name, notes, path or None) of FILE or --mlflow-run."""
    from metrics_lens.inputs import load_frame

    if args.mlflow_run and args.file:
        raise BadInput("Give FILE or --mlflow-run, not both.")
    if args.mlflow_run:
        from metrics_lens.mlflow_runs import EVAL_TABLE, evaluation_roles, run_table

        frame, name, local = run_table(
            args.mlflow_run,
            tracking_uri=args.tracking_uri,
            artifact=args.artifact,
            into=into,
            timeout=args.mlflow_timeout,
        )
        if Path(local).name == EVAL_TABLE:  # its roles are known: the inputs are not models
            label, score = evaluation_roles(frame, args.mlflow_run, score_given=bool(args.score))
            args.label = args.label or label
            args.score = args.score or [score]
            args.group = args.group or NONE
            args.weight = args.weight or NONE
        return frame, name, [], local
    if not args.file:
        raise BadInput("Give a predictions FILE (CSV or Parquet) or --mlflow-run RUN_ID.")
    frame, notes = load_frame(args.file, columns=_needed_columns(args))
    return frame, Path(args.file).name, notes, Path(args.file)


def _needed_columns(args) -> list[str] | None:
    """The only columns to read when every role is named (the label, the scores, and a group
    and a weight or "none"): a Parquet file's other columns are then never decoded. None (all
    columns) when a role is left to the guess, which looks at every column."""
    roles = (args.label, args.group, args.weight)
    if not args.score or any(r is None for r in roles):
        return None
    return [c for c in (args.label, *args.score, args.group, args.weight) if c != NONE]


def _table(args, into: Path | None = None, score_flags: dict[str, str] | None = None):
    from metrics_lens.inputs import mapped_table

    frame, name, notes, path = _source(args, into)
    table = mapped_table(
        frame,
        score_flags=score_flags,
        name=name,
        label=args.label,
        scores=args.score,
        group=args.group,
        weight=args.weight,
        pos_label=args.pos_label,
        drop_bad_rows=args.drop_bad_rows,
        notes=notes,
    )
    return table, path


def _thresholds(items: list[str]) -> dict[str, float]:
    out = {}
    for item in items:
        model, sep, value = item.rpartition("=")
        try:
            number = float(value)
        except ValueError:
            number = float("nan")
        if not sep or not model or number != number or number in (float("inf"), float("-inf")):
            raise BadInput(f"--threshold takes MODEL=T with a finite number T, got {item!r}.")
        out[model] = number
    return out


# --- commands --------------------------------------------------------------------------------


def _report(args, argv: list[str]) -> int:
    from metrics_lens.report import ReportSettings, build_report, file_digest

    out = Path(args.output)
    if out.is_dir():
        raise BadInput(f"-o {args.output} is a directory; give a file name such as report.html.")
    if not out.parent.exists():
        raise BadInput(f"-o {args.output}: the directory {out.parent} does not exist.")
    thresholds = _thresholds(args.threshold)
    _not_the_input(out, args.file)
    steps = _steps("report", args)
    with tempfile.TemporaryDirectory(prefix="metrics-lens-") as tmp, steps:
        with steps.step(f"reading {args.file or 'the run'}"):
            table, path = _table(args, Path(tmp))
        from metrics_lens.mlflow_source import shown_argv, shown_uri

        if args.mlflow_run:
            where = shown_uri(args.tracking_uri) if args.tracking_uri else "default tracking URI"
        settings = ReportSettings(
            source=table.name if not args.mlflow_run else f"{table.name} ({where})",
            n_resamples=args.resamples,
            seed=args.seed,
            max_fpr=args.max_fpr,
            thresholds=thresholds,
            command="metrics-lens " + shlex.join(shown_argv(argv)),
            file_digest=file_digest(path),
            family=args.family,
        )
        page = build_report(table, settings, steps=steps)
    try:
        page.save(out)
    except OSError as exc:
        raise BadInput(f"Cannot write {out}: {exc.strerror or exc}.") from None
    print(
        f"wrote {out} ({out.stat().st_size / 1e6:.1f} MB): {table.y.size:,} rows, "
        f"{len(table.scores)} model(s)" + (f". {table.notes[-1]}" if table.guessed else "")
    )
    return 0


def _not_the_input(out: Path, source: str | None) -> None:
    """-o is never the file read (nor a symbolic or hard link to it): the data would be gone."""
    from metrics_lens.inputs import same_file

    if source and same_file(source, out):
        raise BadInput(
            f"-o {out} is the input file {source}: writing the report would destroy the data; "
            "give another file name, such as report.html."
        )


def _slices_bounded(table, column: str | None) -> None:
    """--slice on at most ``MAX_SLICES`` values, counted before any mask or resample is made."""
    if column is None or column not in table.frame.columns:
        return  # the gate names a missing column
    n = int(table.frame[column].nunique(dropna=True))
    if n > MAX_SLICES:
        raise BadInput(
            f"--slice {column} has {n:,} distinct values; the gate slices at most {MAX_SLICES} "
            "(one bootstrap each). Slice by a column of categories (country, device), or bin "
            "this one first."
        )


def _check(args) -> int:
    from metrics_lens.check import gate, parse_metric, text_report

    specs = [parse_metric(m) for m in args.metric]
    with _steps("check", args) as steps:
        with tempfile.TemporaryDirectory(prefix="metrics-lens-") as tmp:
            flags = {args.baseline: "--baseline", args.candidate: "--candidate"}
            with steps.step(f"reading {args.file or 'the run'}"):
                table, _ = _table(_with_scores(args), Path(tmp), flags)
        _slices_bounded(table, args.slice)
        result = gate(
            table,
            args.baseline,
            args.candidate,
            specs,
            max_drop=args.max_drop,
            alpha=args.alpha,
            slice_column=args.slice,
            strict=args.strict,
            rows_independent=args.rows_independent,
            n_resamples=args.resamples,
            seed=args.seed,
            steps=steps,
        )
    if args.json:
        print(json.dumps(result.to_json()))
    else:
        print(text_report(result))
    if result.exit_code == 2:  # a metric undefined on all rows: refused, as bad input is
        print(f"metrics-lens check: error: {result.error}", file=sys.stderr)
    return result.exit_code


def _with_scores(args):
    """check scores the two models it compares, whatever else the table holds."""
    if not args.score:
        args.score = [args.baseline, args.candidate]
    return args


def _app(args) -> int:
    from metrics_lens.dashboard import SERVER_SUFFIXES, serve
    from metrics_lens.progress import Steps
    from metrics_lens.usable import usable_rows
    from ui.compute import budget
    from ui.compute.reading import read_path, regular_file
    from ui.tables.loading import LoadError, TooLarge, mapping_with

    run_dir = Path(tempfile.mkdtemp(prefix="metrics-lens-app-"))
    steps = Steps("app")  # a terminal sees each file read and the engine's pass; closed to serve
    try:
        files: list[Path] = []
        first = None  # the first file's table, when it opens as rows
        if args.mlflow_run:
            if args.files:
                raise BadInput("Give FILE(s) or --mlflow-run, not both.")
            args.file = None
            frame, _, _, local = _source(args, run_dir / "download")
            files.append(_as_server_file(frame, local, run_dir))
        for k, f in enumerate(args.files):
            p = Path(f)
            try:
                regular_file(f)  # never a device, a pipe or a glob: exactly this file, as typed
                if p.suffix.lower() == ".npz":
                    files.append(p.resolve())
                    continue
                frame = None
                if k == 0 or p.suffix.lower() not in SERVER_SUFFIXES:
                    with steps.step(f"reading {p.name}"):
                        frame, _ = read_path(p, max_bytes=budget.rows_limit())
            except TooLarge as exc:
                if p.suffix.lower() not in SERVER_SUFFIXES:
                    raise BadInput(str(exc)) from None
                frame = None  # the engine reads it out of core
            except LoadError as exc:
                raise BadInput(str(exc)) from None
            if k == 0 and frame is not None:
                first = frame
            if frame is not None and p.suffix.lower() not in SERVER_SUFFIXES:
                p = _as_server_file(frame, p, run_dir)
            files.append(p.resolve())
        if first is not None and not args.mlflow_run:
            roles = {"label": args.label, "scores": args.score, "group": args.group,
                     "weight": args.weight, "pos_label": args.pos_label}  # fmt: skip
            try:
                usable_rows(first, mapping_with(first, **roles), Path(args.files[0]).name)
            except LoadError as exc:
                raise BadInput(str(exc)) from None
            mapping = {**roles, "scores": args.score or (), "rows": True}
        elif files:
            with steps.step(f"checking {files[0].name} in one pass of the engine"):
                mapping = _validate_for_server(files[0], args)
        else:
            mapping = {}
        steps.close()
        return serve(
            files,
            port=args.port,
            host=args.host,
            open_browser=not args.no_browser,
            run_dir=run_dir,
            **mapping,
        )
    finally:
        import shutil

        steps.close()
        shutil.rmtree(run_dir, ignore_errors=True)


def _as_server_file(frame, original: Path, run_dir: Path) -> Path:
    """A table the Server source cannot read (JSON, TSV, gzip) as Parquet in the run dir."""
    if original.suffix.lower() in (".csv", ".parquet", ".pq"):
        return original
    out = run_dir / "converted" / (original.name.split(".")[0] + ".parquet")
    out.parent.mkdir(parents=True, exist_ok=True)
    frame.to_parquet(out, index=False)
    return out


def _validate_for_server(path: Path, args) -> dict:
    """The mapping the dashboard opens ``path`` with, checked by one engine pass (bad input
    exits 2 here, not in the browser)."""
    if path.suffix.lower() == ".npz":
        from metrics.sql import load_summary

        try:
            load_summary(path)
        except ValueError as exc:
            raise BadInput(str(exc)) from None
        return {}
    from metrics.sql import SQLInputError, summarize
    from metrics.sql._engine import DuckDBEngine
    from ui.tables.loading import guess_mapping

    try:
        # Exactly this file: the engine reads it through a link when its name holds a glob
        # character (a[1].csv beside a1.csv), as the Server dataset source does.
        eng = DuckDBEngine("2GB")
        eng.register([str(path)])
        head = eng.con.execute("SELECT * FROM src LIMIT 20000").df()
    except Exception as exc:  # duckdb raises several types for an unreadable file
        raise BadInput(f"Cannot read {path.name}: {str(exc).splitlines()[0]}") from None
    columns = [str(c) for c in head.columns]
    for flag in ("group", "weight"):  # "none": no such column (the server guesses none either)
        if getattr(args, flag) == NONE:
            setattr(args, flag, None)
    named = ((args.label, "--label"), (args.group, "--group"), (args.weight, "--weight"))
    for column, flag in named:
        if column is not None and column not in columns:
            raise BadInput(
                f"No column named {column!r} ({flag}); {path.name} has "
                f"{', '.join(map(repr, columns[:12]))}."
            )
    for column in args.score or ():
        if column not in columns:
            raise BadInput(
                f"No column named {column!r} (--score); {path.name} has "
                f"{', '.join(map(repr, columns[:12]))}."
            )
    guess = guess_mapping(head)
    label = args.label or guess.label
    if label is None:
        raise BadInput(f"No binary label column was found in {path.name}: name it with --label.")
    scores = list(
        args.score or [c for c in guess.scores if c not in (label, args.group, args.weight)]
    )
    if not scores:
        raise BadInput(f"No score column was found in {path.name}: name one with --score.")
    pos = args.pos_label
    if pos is None and guess.graded and label == guess.label:
        pos = ">0"  # graded relevance (LETOR grades): every grade above 0 is positive
    try:
        summarize([str(path)], label, scores, group=args.group, weight=args.weight, pos_label=pos)
    except SQLInputError as exc:
        guessed = guess.pos_label if label == guess.label else None
        if pos is not None or guessed is None or isinstance(guessed, (bool, int, float)):
            raise BadInput(str(exc)) from None
        pos = str(guessed)
        try:
            summarize(
                [str(path)], label, scores, group=args.group, weight=args.weight, pos_label=pos
            )
        except SQLInputError as again:
            raise BadInput(str(again)) from None
    return {
        "label": label,
        "scores": scores,
        "group": args.group,
        "weight": args.weight,
        "pos_label": pos,
    }


def _sql(argv: list[str]) -> int:
    from metrics.sql.__main__ import main as sql_main

    return sql_main(argv)


# --- entry -----------------------------------------------------------------------------------


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] == "sql":
        return _sql(argv[1:])
    if (argv and argv[0] == "detection") or _detection_check(argv):
        from metrics_lens import detection_cmd

        if argv[0] == "detection":
            return detection_cmd.detection_main(argv[1:])
        return detection_cmd.check_main(argv[1:])
    if argv and argv[0] == "check":  # qrels + runs: the retrieval gate (issue 52)
        from metrics_lens.runs_cmd import check_main, wants_runs

        if wants_runs(argv[1:]):
            return check_main(argv[1:])
    if argv and argv[0] == "report":
        from metrics_lens.runs_cmd import report_main, wants_runs

        if wants_runs(argv[1:]):
            return report_main(argv[1:])
    args = _parser().parse_args(argv)
    if args.command is None:
        _parser().print_help()
        return 2
    try:
        if args.command == "report":
            return _report(args, argv)
        if args.command == "check":
            return _check(args)
        return _app(args)
    except BadInput as exc:
        message = " ".join(str(exc).split())
        if getattr(args, "json", False):
            print(json.dumps({"passed": False, "exit_code": 2, "error": message}))
        print(f"metrics-lens {args.command}: error: {message}", file=sys.stderr)
        return 2
    except MemoryError:  # a bound above should have stopped it: still a sentence, not a trace
        print(
            f"metrics-lens {args.command}: error: the input needs more memory than this machine "
            "has; give a smaller file or fewer --resamples.",
            file=sys.stderr,
        )
        return 2
    except KeyboardInterrupt:
        return 130

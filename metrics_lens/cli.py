"""The ``metrics-lens`` command: ``app``, ``report``, ``check`` and ``sql``.

Exit status: 0 success (for ``check``: the candidate passed), 1 ``check`` failed, 2 bad input
(a missing file or column, a one-class label, an unknown metric, a bad option), printed as one
line on stderr, never a traceback.
"""

from __future__ import annotations

import json
import os
import shlex
import sys
import tempfile
from pathlib import Path

from metrics_lens.cli_parser import MAX_SLICES, _parser
from metrics_lens.inputs import NONE, BadInput

__all__ = ["main"]


def _steps(command: str, args):
    """The run's progress on stderr (metrics_lens.progress): off with --json."""
    from metrics_lens.progress import Steps

    if getattr(args, "json", False):
        return Steps(command, 1, mode="off")
    # 1: reading the table; the rest are counted once it is read (1/?, then 2/3...)
    return Steps(command, 1, mode="lines" if args.verbose else "auto", more=True)


def _detection_check(argv: list[str]) -> bool:
    from metrics_lens.detection_cmd import wants_detection_check

    return wants_detection_check(argv)


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

    if args.qrels is not None and getattr(args, "gt", None) is not None:
        raise BadInput("Give --qrels (runs) or --gt (boxes), not both.")
    if args.qrels is not None:
        return _app_runs(args)
    if getattr(args, "gt", None) is not None:
        return _app_boxes(args)
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


def _app_pair_files(args, flag: str, first: str, what: str) -> list[Path]:
    """The checks ``app --qrels`` and ``app --gt`` share before reading: no MLflow run, no
    score-table columns, no file given twice. Returns the paths, the ``flag``'s file first."""
    if args.mlflow_run:
        raise BadInput(f"Give {flag} with {what}, or --mlflow-run, not both.")
    table_flags = [f"--{n}" for n in ("label", "score", "group", "weight") if getattr(args, n)]
    if table_flags:
        raise BadInput(
            f"{', '.join(table_flags)} name columns of a score table; with {flag} the files are "
            f"{what}: leave them out."
        )
    paths = [Path(first), *(Path(f) for f in args.files)]
    if len({p.resolve() for p in paths}) < len(paths):
        raise BadInput(f"A file is given twice (the {flag} file and one of the {what}, or one "
                       "twice).")  # fmt: skip
    return paths


def _read_then_serve(args, paths: list[Path], read, **kind) -> int:
    """Each file read once by ``read(k, path)`` (a bad one is exit 2 in one line naming it),
    then the dashboard with them (``kind``: ``trec=True`` or ``boxes=True``)."""
    from metrics_lens.dashboard import serve
    from metrics_lens.progress import Steps
    from ui.compute.reading import regular_file
    from ui.tables.loading import LoadError

    steps = Steps("app")
    try:
        for k, p in enumerate(paths):
            try:
                regular_file(str(p))
            except LoadError as exc:
                raise BadInput(str(exc)) from None
            with steps.step(f"reading {p.name}"):
                try:
                    read(k, p)
                except ValueError as exc:
                    message = " ".join(str(exc).split())
                    named = p.name in message  # the TREC reader names the file and line
                    raise BadInput(message if named else f"{p.name}: {message}") from None
    finally:
        steps.close()
    run_dir = Path(tempfile.mkdtemp(prefix="metrics-lens-app-"))
    try:
        return serve(
            [p.resolve() for p in paths],
            port=args.port,
            host=args.host,
            open_browser=not args.no_browser,
            run_dir=run_dir,
            **kind,
        )
    finally:
        import shutil

        shutil.rmtree(run_dir, ignore_errors=True)


def _app_boxes(args) -> int:
    """``app --gt GT DET...``: the boxes read once here (a bad file is exit 2 in one line), then
    the dashboard on the Detection page with them."""
    from metrics.detection import load_detections, load_ground_truth

    paths = _app_pair_files(args, "--gt", args.gt, "detections")
    if not args.files:
        raise BadInput("--gt needs one or more detection files after it: metrics-lens app "
                       "--gt GT.json DETECTIONS.json.")  # fmt: skip
    held = {}

    def read(k: int, path: Path) -> None:
        if k == 0:
            held["gt"] = load_ground_truth(path)
        else:
            load_detections(path, held["gt"])

    return _read_then_serve(args, paths, read, boxes=True)


def _app_runs(args) -> int:
    """``app --qrels QRELS RUN...``: every file read once here (a damaged line is exit 2 with
    its line number), then the dashboard on the Runs page with them."""
    from metrics.trec import read_qrels, read_run

    paths = _app_pair_files(args, "--qrels", args.qrels, "runs (query_id, doc_id, score)")
    if len(args.files) < 2:
        raise BadInput(
            f"--qrels needs two or more runs to compare after it, got {len(args.files)}: "
            "metrics-lens app --qrels QRELS RUN_A RUN_B."
        )
    return _read_then_serve(
        args, paths, lambda k, path: (read_qrels if k == 0 else read_run)(path), trec=True
    )


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


# What a shell reports for a command whose reader left early (128 + SIGPIPE), as ``yes | head``.
EXIT_BROKEN_PIPE = 141


def main(argv: list[str] | None = None) -> int:
    """Every subcommand; a reader that stops early (``| head -1``) ends it quietly, with no
    traceback on stderr."""
    try:
        code = _dispatch(argv)
        sys.stdout.flush()  # a closed pipe fails here, inside the handler, not at exit
        return code
    except BrokenPipeError:
        # Python would flush stdout again at exit and print the error: point it at devnull.
        try:
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
        except (OSError, ValueError, AttributeError):  # a stdout without a file (tests)
            pass
        return EXIT_BROKEN_PIPE


def _dispatch(argv: list[str] | None) -> int:
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

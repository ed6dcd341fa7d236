"""``metrics-lens app``: the dashboard from the installed package, with files already loaded.

The files reach the dashboard through its "Server dataset" source (:mod:`ui.compute.server_source`):
they are linked (or copied) into a fresh directory that ``METRICS_LENS_DATA_DIR`` points at.
``METRICS_LENS_APP_FILE`` names the first one, which every new session opens at the bare
address: as rows, exactly as if uploaded, when it fits the memory budget; otherwise through the
engine, and the command prints the Server dataset link that picks the file and its columns::

    http://127.0.0.1:8501/?source=server&dataset=scores.csv&label=y&score=a&score=b&group=user&model=a

The shell reads only bundled-dataset links today, so :func:`main`, the server's main script,
turns such a link into the source's widget state on a session's first run, then runs the shell.
The main script sits in a run directory beside a ``pages`` link to the installed pages (Streamlit
resolves page paths from the main script's folder).

Streamlit reads ``.streamlit/config.toml`` from the working directory only; the command passes
the packaged copy's settings as ``streamlit run`` flags instead (:func:`config_flags`), so they
hold from any directory, ``runner.postScriptGC = false`` among them.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import tomllib
import urllib.parse
import urllib.request
import webbrowser
from pathlib import Path

__all__ = [
    "Started",
    "config_flags",
    "config_path",
    "link",
    "main",
    "prepare_run_dir",
    "serve",
    "start",
    "wait_healthy",
]

HERE = Path(__file__).resolve().parent
APP_FILE_ENV = "METRICS_LENS_APP_FILE"  # the file the bare address opens (ui.sources.server)
RUNS_ENV = "METRICS_LENS_RUNS"  # app --qrels: the qrels and runs (ui.compute.runs_compute)
BOXES_ENV = "METRICS_LENS_BOXES"  # app --gt: ground truth and detections (detection_compute)
SERVER_SUFFIXES = (".parquet", ".pq", ".csv", ".npz")  # what the Server dataset source reads


def config_path() -> Path:
    """The packaged ``.streamlit/config.toml`` (or the clone's, when run from one)."""
    packaged = HERE / "_streamlit" / "config.toml"
    if packaged.is_file():
        return packaged
    return HERE.parent / ".streamlit" / "config.toml"


def config_flags(path: Path | None = None) -> list[str]:
    """``--section.option=value`` for every setting of the config file."""
    with open(path or config_path(), "rb") as f:
        config = tomllib.load(f)
    flags = []
    for section, options in config.items():
        for option, value in options.items():
            if isinstance(value, bool):
                value = "true" if value else "false"
            flags.append(f"--{section}.{option}={value}")
    return flags


def dashboard_root() -> Path:
    """The directory holding ``app.py``, ``pages/`` and ``sample_data/`` (site-packages when
    installed, the clone otherwise): the parent of the ``ui`` package."""
    import ui

    return Path(ui.__file__).resolve().parent.parent


MAIN_SCRIPT = '''"""Metrics Lens, started by metrics-lens app (see metrics_lens.dashboard)."""

from metrics_lens.dashboard import main

main()
'''


def prepare_run_dir(run_dir: Path) -> Path:
    """The server's main script in ``run_dir``, with ``pages`` beside it; returns the script."""
    run_dir.mkdir(parents=True, exist_ok=True)
    pages = run_dir / "pages"
    if not pages.exists():
        source = dashboard_root() / "pages"
        try:
            pages.symlink_to(source, target_is_directory=True)
        except OSError:  # no symlinks here (some Windows set-ups): a copy of the scripts
            shutil.copytree(source, pages)
    script = run_dir / "app.py"
    script.write_text(MAIN_SCRIPT, encoding="utf-8")
    return script


def place_files(files: list[Path], data_dir: Path) -> list[str]:
    """Hard-link (or copy, across file systems) each file into ``data_dir``; the names under
    it, in order. The source refuses symbolic links that lead outside its directory."""
    data_dir.mkdir(parents=True, exist_ok=True)
    names = []
    for k, f in enumerate(files):
        name = f.name if f.name not in names else f"{k + 1}-{f.name}"
        target = data_dir / name
        try:
            os.link(f, target)
        except OSError:
            shutil.copy2(f, target)
        names.append(name)
    return names


def link(
    base: str,
    dataset: str,
    *,
    label: str | None = None,
    scores: list[str] | tuple[str, ...] = (),
    group: str | None = None,
    weight: str | None = None,
    pos_label: str | None = None,
    model: str | None = None,
) -> str:
    """The URL that opens ``dataset`` (a name under the data directory) on the Server source,
    showing ``model`` (default: the first score) on the pages."""
    query = [("source", "server"), ("dataset", dataset)]
    if label:
        query.append(("label", label))
    query += [("score", s) for s in scores]
    if group:
        query.append(("group", group))
    if weight:
        query.append(("weight", weight))
    if pos_label is not None:
        query.append(("pos", str(pos_label)))
    if model or scores:
        query.append(("model", model or scores[0]))
    return f"{base}/?{urllib.parse.urlencode(query)}"


def main() -> None:
    """The server's main script: the dashboard (a ``source=server`` link is the Server dataset
    source's own, read in :mod:`ui.sources.server`)."""
    from ui.frame import shell

    shell.run_app()


def free_port(start: int = 8501, host: str = "127.0.0.1") -> int:
    """``start`` or the next port above it that is free."""
    for port in range(start, start + 100):
        with socket.socket() as s:
            try:
                s.bind((host, port))
            except OSError:
                continue
            return port
    raise OSError(f"no free port in {start}-{start + 99}")


def streamlit_command(script: Path, port: int, host: str) -> list[str]:
    return [
        sys.executable,
        "-m",
        "streamlit",
        "run",
        str(script),
        *config_flags(),
        f"--server.port={port}",
        f"--server.address={host}",
        "--server.headless=true",
        "--browser.gatherUsageStats=false",
    ]


class Started:
    """A dashboard server started in the background by :func:`start`: its process, the address
    a browser opens (``url``) and the run directory it owns (removed by :meth:`stop`)."""

    def __init__(self, proc, url: str, base: str, run_dir: Path, names: list[str], own: bool):
        self.proc, self.url, self.base, self.run_dir = proc, url, base, run_dir
        self.names, self._own = names, own

    def running(self) -> bool:
        return self.proc.poll() is None

    def stop(self, timeout: float = 15) -> int:
        """End the server (Ctrl+C's signal, then a kill after ``timeout`` seconds); its exit
        status. Safe to call twice."""
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.remove_run_dir()
        return self.proc.returncode

    def remove_run_dir(self) -> None:
        if self._own:
            shutil.rmtree(self.run_dir, ignore_errors=True)


def start(
    files: list[Path],
    *,
    port: int | None = None,
    host: str = "127.0.0.1",
    label: str | None = None,
    scores: list[str] | tuple[str, ...] = (),
    group: str | None = None,
    weight: str | None = None,
    pos_label: str | None = None,
    rows: bool = False,
    run_dir: Path | None = None,
    end_with_parent: bool = False,
    quiet: bool = False,
    trec: bool = False,
    boxes: bool = False,
) -> Started:
    """Start the dashboard in the background; returns once its process is started (not yet
    answering: see :func:`wait_healthy`).

    The first file is what every new session opens, at the bare address as at the printed one
    (``APP_FILE_ENV`` names it to the server): with ``rows``, as rows exactly as if uploaded
    (a file that fits the memory budget); otherwise on the Server dataset source, read by the
    engine, and ``url`` is that source's link. ``end_with_parent`` asks Linux to end the server
    when this process dies, however it dies (a notebook kernel that is killed); ``quiet`` sends the
    server's own output to ``server.log`` in the run directory instead of this process's.

    With ``trec`` the files are a qrels file then two or more runs: ``RUNS_ENV`` names them to
    the server and ``url`` is the Runs page, which opens with them. With ``boxes`` they are a
    ground truth then one or more detection files, named by ``BOXES_ENV``, on the Detection
    page."""
    own = run_dir is None
    run_dir = Path(tempfile.mkdtemp(prefix="metrics-lens-app-")) if own else run_dir
    try:
        script = prepare_run_dir(run_dir)
        data_dir = run_dir / "data"
        names = place_files(files, data_dir) if files else []
        port = port or free_port(8501, host)
        env = dict(os.environ)
        env.pop(APP_FILE_ENV, None)
        env.pop(RUNS_ENV, None)
        env.pop(BOXES_ENV, None)
        if names and boxes:
            env["METRICS_LENS_DATA_DIR"] = str(data_dir)
            env[BOXES_ENV] = json.dumps({"gt": names[0], "detections": names[1:]})
        elif names and trec:
            env["METRICS_LENS_DATA_DIR"] = str(data_dir)
            env[RUNS_ENV] = json.dumps({"qrels": names[0], "runs": names[1:]})
        elif names:
            env["METRICS_LENS_DATA_DIR"] = str(data_dir)
            roles = {"label": label, "scores": list(scores), "group": group, "weight": weight,
                     "pos_label": None if pos_label is None else str(pos_label)}  # fmt: skip
            env[APP_FILE_ENV] = json.dumps({"file": names[0], "rows": bool(rows), **roles})
        # The child imports metrics_lens, ui and metrics from where this process found them.
        env["PYTHONPATH"] = os.pathsep.join(
            [str(HERE.parent), *filter(None, [env.get("PYTHONPATH")])]
        )
        base = f"http://{'127.0.0.1' if host in ('0.0.0.0', '') else host}:{port}"
        url = (
            link(
                base,
                names[0],
                label=label,
                scores=scores,
                group=group,
                weight=weight,
                pos_label=pos_label,
            )
            if names and not rows and not trec and not boxes
            else f"{base}/runs"
            if trec
            else f"{base}/detection"
            if boxes
            else base
        )
        output = open(run_dir / "server.log", "ab") if quiet else None  # noqa: SIM115 (the child's)
        proc = subprocess.Popen(
            streamlit_command(script, port, host),
            cwd=run_dir,
            env=env,
            stdout=output,
            stderr=output,
            preexec_fn=_end_with_parent if end_with_parent and sys.platform == "linux" else None,
            # A notebook's "interrupt" signals the kernel's process group: not the server's.
            start_new_session=end_with_parent,
        )
        if output is not None:
            output.close()
    except BaseException:
        if own:
            shutil.rmtree(run_dir, ignore_errors=True)
        raise
    return Started(proc, url, base, run_dir, names, own)


def _end_with_parent() -> None:  # pragma: no cover - runs in the child before exec
    import ctypes

    pr_set_pdeathsig = 1
    ctypes.CDLL(None, use_errno=True).prctl(pr_set_pdeathsig, signal.SIGTERM)


def serve(
    files: list[Path],
    *,
    open_browser: bool = True,
    out=sys.stdout,
    **options,
) -> int:
    """Run the dashboard until interrupted (:func:`start`'s options); the exit status of the
    server. The address is printed once the server answers."""
    started = start(files, **options)
    previous = _stop_on_sigterm()
    try:
        if wait_healthy(started.base, started.proc):
            print(f"Metrics Lens: {started.url}", file=out, flush=True)
            if options.get("boxes"):
                print(
                    f"The Detection page evaluates {', '.join(started.names[1:])} against "
                    f"{started.names[0]}",
                    file=out,
                    flush=True,
                )
            elif options.get("trec"):
                print(
                    f"The Runs page compares {', '.join(started.names[1:])} on the judgements "
                    f"of {started.names[0]}",
                    file=out,
                    flush=True,
                )
            elif len(started.names) > 1:
                print(
                    f"The other files are under Server dataset: {', '.join(started.names[1:])}",
                    file=out,
                    flush=True,
                )
            if open_browser:
                webbrowser.open(started.url)
        return started.proc.wait()
    except KeyboardInterrupt:
        return started.stop()
    finally:
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)
        started.remove_run_dir()


def _interrupt(signum, frame) -> None:
    raise KeyboardInterrupt


def _stop_on_sigterm():
    """Make SIGTERM (a process manager's stop, ``kill``) stop the server as Ctrl+C does, so the
    Streamlit child is not left running on its port; returns the handler it replaced (None
    off the main thread, where signals cannot be set)."""
    if threading.current_thread() is not threading.main_thread():
        return None
    return signal.signal(signal.SIGTERM, _interrupt)


def wait_healthy(base: str, proc: subprocess.Popen, timeout: float = 90) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and proc.poll() is None:
        try:
            with urllib.request.urlopen(f"{base}/_stcore/health", timeout=2) as r:
                if r.status == 200:
                    return True
        except OSError:
            time.sleep(0.3)
    return False

"""MLflow tracking stores, opened read-only: where a run's artifacts are, and each one's bytes
(:mod:`metrics_lens.mlflow_runs` reads the predictions table from them).

The tracking store is ``tracking_uri`` when given, else ``MLFLOW_TRACKING_URI``, else MLflow's
default (``./mlruns`` when it holds experiments, else ``sqlite:///mlflow.db``). Three kinds of
store are read, and each only read:

* a local file store (``file:///…`` or a plain directory such as ``./mlruns``): its
  ``meta.yaml`` files and the run's artifact directory are read where they are;
* a SQLite store (``sqlite:///path.db``): opened with SQLite's read-only mode; the run's
  ``artifact_uri`` is looked up in MLflow's ``runs`` table;
* a tracking server (``http://`` or ``https://``): three REST calls of the API the MLflow UI
  uses (``runs/get``, ``artifacts/list``, ``get-artifact``), so the server reads its own
  artifact store, whatever it is. The whole read has one deadline (``timeout`` seconds, no
  retries), every JSON answer is read up to :data:`MAX_JSON_BYTES` and the table up to
  :data:`MAX_ARTIFACT_BYTES`; redirects are not followed.

MLflow's own client is not used: opened on a path that is not a store it creates one (a
``.trash`` folder, a 1 MB database with MLflow's tables, a whole store tree), and against a
server it waits 120 s per request with retries and reads any answer whole. Nothing here
creates or changes anything at the tracking URI; a path that is not a store is refused with
"no MLflow tracking store at …" (:class:`BadInput`, exit status 2 on the command line).
"""

from __future__ import annotations

import base64
import contextlib
import http.client
import json
import math
import os
import re
import socket
import sqlite3
import ssl
import threading
import time
import urllib.parse
from pathlib import Path, PurePosixPath

from metrics_lens.inputs import BadInput

__all__ = [
    "DEFAULT_TIMEOUT",
    "MAX_ARTIFACT_BYTES",
    "MAX_JSON_BYTES",
    "MAX_TIMEOUT",
    "check_timeout",
    "open_store",
    "shown_argv",
    "shown_uri",
]

DEFAULT_TIMEOUT = 60.0  # seconds, a tracking server's whole read (--mlflow-timeout)
MAX_TIMEOUT = 3600.0  # an hour; past it a socket's timeout overflows (1e308 s), or never ends
MAX_JSON_BYTES = 16 * 1024 * 1024  # a runs/get or artifacts/list answer
MAX_ARTIFACT_BYTES = 1024 * 1024 * 1024  # the predictions table downloaded from a server
MAX_ARTIFACTS = 10_000  # files listed for one run
MAX_DEPTH = 12  # folders deep
_CHUNK = 1 << 16
_RUN_ID = re.compile(r"[A-Za-z0-9][\w-]{0,255}")  # MLflow's own rule for run ids
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]+")
_OTHER_SCHEMES = ("databricks", "databricks-uc", "uc", "postgresql", "mysql", "mssql")
_READS = "file:, sqlite:, http: and https: tracking URIs"


def _said(text: object, limit: int = 200) -> str:
    """Text from a server or a file, safe to print on one terminal line: control characters
    (ANSI escapes included) as a space, shortened past ``limit``."""
    s = " ".join(_CONTROL.sub(" ", str(text)).split())
    return s if len(s) <= limit else s[: limit - 1] + "…"


_SCHEME = re.compile(r"([A-Za-z][\w+.-]*://)(.*)", re.DOTALL)
_QUERY_VALUE = re.compile(r"([?&;][^=&;#]*=)[^&;#]*")


def shown_uri(uri: object, limit: int = 120) -> str:
    """A tracking URI as a message may print it: without its ``user:password@`` part and
    with every query value blanked (``?token=…``), safe on one line (:func:`_said`)."""
    text = str(uri)
    m = _SCHEME.match(text)
    if m:
        scheme, rest = m.groups()
        cut = min((i for i in (rest.find("?"), rest.find("#")) if i >= 0), default=len(rest))
        where, tail = rest[:cut], rest[cut:]
        # the authority ends at the first "/", but a password may hold one: on a network
        # scheme everything up to the last "@" before the query is the user's part
        end = where.find("/")
        authority = where if end < 0 or scheme.lower() in ("http://", "https://") else where[:end]
        if "@" in authority:
            where = where[authority.rindex("@") + 1 :]
        text = scheme + where + _QUERY_VALUE.sub(r"\1…", tail)
    else:  # no scheme: "user:password@host" (a forgotten http://), or a path
        head, mark, tail = text.partition("?")
        user, at, host = head.rpartition("@")
        if at and ":" in user and "/" not in user:
            head = host
        text = head + (_QUERY_VALUE.sub(r"\1…", mark + tail) if mark else "")
    return _said(text, limit)


def shown_argv(argv: list[str]) -> list[str]:
    """A command line as a report may record it: a --tracking-uri without its password or
    token (:func:`shown_uri`)."""
    out, hide = [], False
    for arg in argv:
        if hide:
            out.append(shown_uri(arg, 10_000))
        elif arg.startswith("--tracking-uri="):
            out.append("--tracking-uri=" + shown_uri(arg.partition("=")[2], 10_000))
        else:
            out.append(arg)
        hide = arg == "--tracking-uri"
    return out


def check_timeout(seconds: object) -> float:
    """``seconds`` as a server read's deadline: a number above 0 and at most
    :data:`MAX_TIMEOUT`; :class:`BadInput` (one sentence) otherwise."""
    ok = isinstance(seconds, (int, float)) and not isinstance(seconds, bool)
    if not (ok and math.isfinite(seconds) and 0 < seconds <= MAX_TIMEOUT):
        raise BadInput(
            f"--mlflow-timeout must be a number of seconds above 0 and at most "
            f"{MAX_TIMEOUT:,.0f} (an hour), got {_said(seconds, 40)}."
        )
    return float(seconds)


def _check_run_id(run_id: str) -> None:
    if not isinstance(run_id, str) or not _RUN_ID.fullmatch(run_id):
        raise BadInput(
            f"--mlflow-run {_said(run_id, 80)!r} is not an MLflow run id (letters, digits, _ "
            "and -, such as the 32 hex digits MLflow gives a run)."
        )


def _safe_relative(path: object, *, under: str | None = None) -> str:
    """An artifact path as listed, checked to stay inside the run's artifacts (and inside the
    folder ``under`` that was listed)."""
    if not isinstance(path, str) or not path:
        raise BadInput(f"The tracking store listed an artifact without a path ({_said(path)}).")
    parts = PurePosixPath(path).parts
    if (
        "\\" in path
        or "\x00" in path
        or path.startswith("/")
        or ":" in parts[0]
        or any(p in ("..", ".") for p in parts)
        or len(path) > 1024
        or (under and not path.startswith(under.rstrip("/") + "/"))
    ):
        raise BadInput(
            f"The tracking store listed an artifact path {_said(path, 120)!r} that is not "
            "inside the run's artifacts; refusing to read it."
        )
    return path


# --- the three kinds of store ----------------------------------------------------------------


class _Store:
    uri: str

    def check_run(self, run_id: str) -> None:
        raise NotImplementedError

    def list(self, run_id: str) -> list[str]:
        raise NotImplementedError

    def fetch(self, run_id: str, path: str, into: Path) -> Path:
        raise NotImplementedError

    def not_found(self, run_id: str, why: str = "") -> BadInput:
        return BadInput(
            f"MLflow run {run_id!r} was not found at {self.uri}" + (f": {why}" if why else ".")
        )


class _LocalArtifacts(_Store):
    """A store on this machine: the run's artifacts are a local folder, read where they are."""

    def artifact_dir(self, run_id: str) -> Path:
        raise NotImplementedError

    def check_run(self, run_id: str) -> None:
        self.artifact_dir(run_id)

    def list(self, run_id: str) -> list[str]:
        root = self.artifact_dir(run_id)
        if not root.is_dir():
            return []
        out: list[str] = []
        for folder, dirs, files in os.walk(root):  # links to folders are not followed
            depth = len(Path(folder).relative_to(root).parts)
            if depth >= MAX_DEPTH:
                dirs.clear()
            for name in files:
                out.append((Path(folder) / name).relative_to(root).as_posix())
                if len(out) > MAX_ARTIFACTS:
                    raise BadInput(
                        f"MLflow run {run_id} has more than {MAX_ARTIFACTS:,} artifact files; "
                        "name the table with --artifact."
                    )
        return out

    def fetch(self, run_id: str, path: str, into: Path) -> Path:
        root = self.artifact_dir(run_id).resolve()
        local = (root / _safe_relative(path)).resolve()
        if root not in local.parents:
            raise BadInput(
                f"Artifact {path} of MLflow run {run_id} links outside the run's artifacts "
                f"({_said(local, 120)}); refusing to read it."
            )
        if not local.is_file():
            raise BadInput(f"Artifact {path} of MLflow run {run_id} is not a regular file.")
        return local  # read in place: nothing is copied out of or written into the store


def _local_artifact_dir(artifact_uri: object, run_id: str, uri: str) -> Path:
    if not isinstance(artifact_uri, str) or not artifact_uri:
        raise BadInput(f"MLflow run {run_id} at {uri} has no artifact location.")
    if artifact_uri.startswith("file:"):
        parsed = urllib.parse.urlparse(artifact_uri)
        if parsed.netloc not in ("", "localhost"):
            raise BadInput(
                f"The artifacts of MLflow run {run_id} are on another machine "
                f"({shown_uri(artifact_uri)}): serve the store with `mlflow server` and pass "
                "its address as --tracking-uri."
            )
        return Path(urllib.parse.unquote(parsed.path))
    if "://" in artifact_uri or re.match(r"[A-Za-z][\w+.-]*:", artifact_uri):
        raise BadInput(
            f"The artifacts of MLflow run {run_id} are at {shown_uri(artifact_uri)}, which is "
            "not on this machine: serve the store with `mlflow server` (it reads its artifact "
            "store for you) and pass its address as --tracking-uri."
        )
    return Path(artifact_uri)  # a plain path, relative to where the run was logged from


class _FileStore(_LocalArtifacts):
    """``./mlruns``: ``<experiment>/<run>/meta.yaml`` holds each run's ``artifact_uri``."""

    def __init__(self, root: Path, uri: str):
        self.root, self.uri = root, uri
        if not root.is_dir() or not _has_experiments(root):
            what = "no such folder" if not root.exists() else None
            if what is None:
                what = (
                    "not a folder"
                    if not root.is_dir()
                    else "a folder without MLflow's experiment folders, <id>/meta.yaml"
                )
            raise BadInput(
                f"No MLflow tracking store at {uri} ({what}); give the folder MLflow wrote, "
                "such as ./mlruns, or a sqlite: or http: tracking URI."
            )

    def artifact_dir(self, run_id: str) -> Path:
        for base in (self.root, self.root / ".trash"):
            if not base.is_dir():
                continue
            for experiment in sorted(base.iterdir()):
                meta = experiment / run_id / "meta.yaml"
                if experiment.name != ".trash" and meta.is_file():
                    return _local_artifact_dir(_meta(meta).get("artifact_uri"), run_id, self.uri)
        raise self.not_found(run_id)


def _has_experiments(root: Path) -> bool:
    try:
        return any(
            child.is_dir() and (child / "meta.yaml").is_file()
            for child in root.iterdir()
            if child.name != ".trash"
        )
    except OSError:
        return False


def _meta(path: Path) -> dict:
    try:
        import yaml
    except ImportError:
        raise BadInput(
            'Reading an MLflow file store needs PyYAML: pip install "metrics-lens[mlflow]".'
        ) from None
    try:
        if path.stat().st_size > MAX_JSON_BYTES:
            raise BadInput(f"{path} is too large to be an MLflow run's meta.yaml.")
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as exc:
        raise BadInput(f"Cannot read {path}: {_said(exc)}.") from None
    if not isinstance(data, dict):
        raise BadInput(f"{path} is not an MLflow run's meta.yaml.")
    return data


class _SqliteStore(_LocalArtifacts):
    """``sqlite:///mlflow.db``, opened read-only: MLflow's ``runs`` table gives the run's
    ``artifact_uri``."""

    def __init__(self, db: Path, uri: str):
        self.db, self.uri = db, uri
        if not db.is_file():
            what = "no such file" if not db.exists() else "not a file"
            raise BadInput(
                f"No MLflow tracking store at {uri} ({what}); give the database MLflow wrote, "
                "such as sqlite:///mlflow.db."
            )
        tables = self._query("SELECT name FROM sqlite_master WHERE type = 'table'")
        if not {"runs", "experiments"} <= {t[0] for t in tables}:
            raise BadInput(
                f"No MLflow tracking store at {uri} (a SQLite database without MLflow's runs "
                "and experiments tables)."
            )

    def _query(self, sql: str, params: tuple = ()) -> list[tuple]:
        target = "file:" + urllib.parse.quote(str(self.db.resolve())) + "?mode=ro"
        try:
            con = sqlite3.connect(target, uri=True)
        except sqlite3.Error as exc:
            raise BadInput(f"No MLflow tracking store at {self.uri}: {_said(exc)}.") from None
        try:
            return con.execute(sql, params).fetchall()
        except sqlite3.DatabaseError as exc:
            raise BadInput(
                f"No MLflow tracking store at {self.uri} ({_said(exc)}; MLflow's default is "
                "sqlite:///mlflow.db)."
            ) from None
        finally:
            con.close()

    def artifact_dir(self, run_id: str) -> Path:
        rows = self._query("SELECT artifact_uri FROM runs WHERE run_uuid = ?", (run_id,))
        if not rows:
            raise self.not_found(run_id)
        return _local_artifact_dir(rows[0][0], run_id, self.uri)


class _Server(_Store):
    """A tracking server, read over its REST API with one deadline and bounded answers."""

    def __init__(self, uri: str, timeout: float):
        parsed = urllib.parse.urlsplit(uri)
        self.uri, self.timeout = shown_uri(uri), check_timeout(timeout)
        if not parsed.hostname:
            raise BadInput(f"--tracking-uri {self.uri}: no host name in the address.")
        try:
            self.port = parsed.port
        except ValueError:
            raise BadInput(f"--tracking-uri {self.uri}: the port is not a number.") from None
        self.https = parsed.scheme == "https"
        self.host = parsed.hostname
        self.base = parsed.path.rstrip("/")
        self.deadline = time.monotonic() + self.timeout
        self.headers = {"User-Agent": "metrics-lens", "Accept": "application/json"}
        token = os.environ.get("MLFLOW_TRACKING_TOKEN")
        user = os.environ.get("MLFLOW_TRACKING_USERNAME")
        password = os.environ.get("MLFLOW_TRACKING_PASSWORD", "")
        if not (token or user) and parsed.username is not None:  # http://user:password@host
            user = urllib.parse.unquote(parsed.username)
            password = urllib.parse.unquote(parsed.password or "")
        if token:
            self.headers["Authorization"] = f"Bearer {token}"
        elif user:
            secret = f"{user}:{password}".encode()
            self.headers["Authorization"] = "Basic " + base64.b64encode(secret).decode()

    # one request: connect, send, read at most ``limit`` bytes, all before the deadline
    def _left(self) -> float:
        left = self.deadline - time.monotonic()
        if left <= 0:
            raise self._late()
        return left

    def _late(self) -> BadInput:
        return BadInput(
            f"The MLflow tracking server at {self.uri} did not answer within "
            f"{self.timeout:g} s (--mlflow-timeout); check the address, or allow longer."
        )

    def _connection(self) -> http.client.HTTPConnection:
        if not self.https:
            return http.client.HTTPConnection(self.host, self.port, timeout=self._left())
        context = ssl.create_default_context(
            cafile=os.environ.get("MLFLOW_TRACKING_SERVER_CERT_PATH") or None
        )
        if os.environ.get("MLFLOW_TRACKING_INSECURE_TLS", "").lower() == "true":
            context.check_hostname = False
            context.verify_mode = ssl.CERT_NONE
        return http.client.HTTPSConnection(
            self.host, self.port, timeout=self._left(), context=context
        )

    def _get(self, route: str, params: dict, *, limit: int, sink=None) -> tuple[int, bytes]:
        """(status, body) of GET ``route``; with ``sink`` a 200 answer's body is written there
        instead (and ``b""`` returned). The connection is shut when the deadline passes, so
        a server that answers a byte at a time is stopped too."""
        target = f"{self.base}{route}?{urllib.parse.urlencode(params)}"
        conn = self._connection()
        watchdog = None
        try:
            conn.connect()
            # the socket itself: the connection lets go of it once a response owns it
            watchdog = threading.Timer(self._left(), _shut, (conn.sock,))
            watchdog.daemon = True
            watchdog.start()
            conn.request("GET", target, headers=self.headers)
            response = conn.getresponse()
            status = response.status
            if 300 <= status < 400:
                where = shown_uri(response.getheader("Location", "elsewhere"))
                raise BadInput(
                    f"The tracking server at {self.uri} redirects to {where}; pass that "
                    "address as --tracking-uri (redirects are not followed)."
                )
            to_sink = sink is not None and status == 200
            limit = limit if to_sink else min(limit, MAX_JSON_BYTES)
            length = response.getheader("Content-Length", "").strip()
            if length.isdigit() and int(length) > limit:
                raise self._too_large(limit, route, to_sink)
            got, chunks = 0, []
            while chunk := response.read1(_CHUNK):
                got += len(chunk)
                if got > limit:
                    raise self._too_large(limit, route, to_sink)
                if to_sink:
                    sink.write(chunk)
                else:
                    chunks.append(chunk)
            if time.monotonic() >= self.deadline:
                raise self._late()  # the watchdog cut the answer short
            return status, b"".join(chunks)
        except (OSError, http.client.HTTPException) as exc:
            if time.monotonic() >= self.deadline or isinstance(exc, TimeoutError):
                raise self._late() from None
            raise BadInput(
                f"Cannot read from the MLflow tracking server at {self.uri}: {_said(exc)}."
            ) from None
        finally:
            if watchdog is not None:
                watchdog.cancel()
            conn.close()  # a body not read to its end is dropped with the connection

    def _too_large(self, limit: int, route: str, table: bool) -> BadInput:
        what = "the table" if table else "an answer"
        return BadInput(
            f"The tracking server at {self.uri} sent {what} larger than "
            f"{limit / 1024 / 1024:,.0f} MB ({route}); refusing to read further."
        )

    def _json(self, route: str, params: dict, run_id: str) -> dict:
        status, body = self._get(route, params, limit=MAX_JSON_BYTES)
        try:
            data = json.loads(body.decode("utf-8"))
        except (UnicodeDecodeError, ValueError):
            data = None
        if status == 200 and isinstance(data, dict):
            return data
        message = _said(data.get("message", "")) if isinstance(data, dict) else ""
        code = data.get("error_code", "") if isinstance(data, dict) else ""
        if status == 404 and code == "RESOURCE_DOES_NOT_EXIST":
            raise self.not_found(run_id, message)
        if isinstance(data, dict) and (code or message):
            raise BadInput(
                f"The tracking server at {self.uri} refused {route} (HTTP {status}, "
                f"{_said(code)}): {message or 'no message'}."
            )
        raise BadInput(
            f"The server at {self.uri} did not answer {route} as an MLflow tracking server "
            f"(HTTP {status}, not a JSON object); check --tracking-uri."
        )

    def check_run(self, run_id: str) -> None:
        data = self._json("/api/2.0/mlflow/runs/get", {"run_id": run_id}, run_id)
        run = data.get("run")
        info = run.get("info") if isinstance(run, dict) else None
        if not isinstance(info, dict) or info.get("run_id", info.get("run_uuid")) != run_id:
            raise BadInput(
                f"The tracking server at {self.uri} answered runs/get for {run_id} with no "
                "such run in it; check --tracking-uri."
            )

    def list(self, run_id: str) -> list[str]:
        out: list[str] = []
        folders: list[tuple[str | None, int]] = [(None, 0)]
        while folders:
            folder, depth = folders.pop()
            token = None
            while True:
                params = {"run_id": run_id, **({"path": folder} if folder else {})}
                if token:
                    params["page_token"] = token
                data = self._json("/api/2.0/mlflow/artifacts/list", params, run_id)
                files = data.get("files", [])
                if not isinstance(files, list):
                    raise BadInput(
                        f"The tracking server at {self.uri} listed the artifacts of {run_id} "
                        "in a shape MLflow does not use."
                    )
                for f in files:
                    if not isinstance(f, dict):
                        raise BadInput(
                            f"The tracking server at {self.uri} listed an artifact of {run_id} "
                            "in a shape MLflow does not use."
                        )
                    path = _safe_relative(f.get("path"), under=folder)
                    if f.get("is_dir"):
                        if depth + 1 < MAX_DEPTH:
                            folders.append((path, depth + 1))
                    else:
                        out.append(path)
                    if len(out) + len(folders) > MAX_ARTIFACTS:
                        raise BadInput(
                            f"MLflow run {run_id} has more than {MAX_ARTIFACTS:,} artifacts; "
                            "name the table with --artifact."
                        )
                token = data.get("next_page_token")
                if not token or not isinstance(token, str):
                    break
        return out

    def fetch(self, run_id: str, path: str, into: Path) -> Path:
        local = into / _local_name(_safe_relative(path))
        with open(local, "wb") as sink:
            status, body = self._get(
                "/get-artifact",
                {"path": path, "run_uuid": run_id},
                limit=MAX_ARTIFACT_BYTES,
                sink=sink,
            )
        if status != 200:
            local.unlink(missing_ok=True)
            raise BadInput(
                f"The tracking server at {self.uri} did not send artifact {path} of run "
                f"{run_id} (HTTP {status}: {_said(body.decode('utf-8', 'replace'), 160)})."
            )
        return local


def _shut(sock: socket.socket) -> None:
    """Unblock a read waiting on ``sock``: the deadline has passed."""
    with contextlib.suppress(OSError):
        sock.shutdown(socket.SHUT_RDWR)


def _local_name(path: str) -> str:
    name = re.sub(r"[^A-Za-z0-9._-]+", "_", PurePosixPath(path).name).strip("._")
    return name[:120] or "artifact"


def _default_uri() -> str:
    """MLflow's own default: ``./mlruns`` when it holds experiments, else ``mlflow.db``."""
    mlruns = Path("mlruns")
    if mlruns.is_dir() and _has_experiments(mlruns):
        return "./mlruns"
    return "sqlite:///mlflow.db"


def open_store(tracking_uri: str | None = None, *, timeout: float = DEFAULT_TIMEOUT) -> _Store:
    """The tracking store at ``tracking_uri`` (else ``MLFLOW_TRACKING_URI``, else MLflow's
    default), opened to read; :class:`BadInput` when it is not one. Nothing is created."""
    timeout = check_timeout(timeout)
    given = tracking_uri or os.environ.get("MLFLOW_TRACKING_URI")
    uri = given or _default_uri()
    shown = shown_uri(uri)  # what every message prints: no password, no token
    scheme = uri.split(":", 1)[0].lower() if re.match(r"[A-Za-z][\w+.-]*:", uri) else ""
    if scheme in ("http", "https"):
        return _Server(uri, timeout)
    if scheme == "sqlite":
        rest = uri[len("sqlite:") :]
        if not rest.startswith("///") or len(rest) == 3:
            raise BadInput(
                f"--tracking-uri {shown}: a SQLite store is sqlite:///relative/path.db "
                "or sqlite:////absolute/path.db."
            )
        db = Path(urllib.parse.unquote(rest[3:].split("?", 1)[0]))
        where = shown if given else f"{shown} (MLflow's default; pass --tracking-uri)"
        return _SqliteStore(db, where)
    if scheme == "file":
        parsed = urllib.parse.urlparse(uri)
        if parsed.netloc not in ("", "localhost"):
            raise BadInput(f"--tracking-uri {shown}: a file: store on another machine.")
        return _FileStore(Path(urllib.parse.unquote(parsed.path)), shown)
    base = scheme.split("+", 1)[0]
    if base in _OTHER_SCHEMES or uri.split("://")[0].lower() in _OTHER_SCHEMES:
        raise BadInput(
            f"--tracking-uri {shown}: this command reads {_READS}; put an `mlflow "
            "server` in front of this store and pass its http: address."
        )
    if "://" in uri or len(scheme) > 1:  # "C:" is a drive, not a scheme
        named = shown_uri(scheme or uri.split("://")[0], 40)
        raise BadInput(
            f"--tracking-uri {shown}: unknown scheme {named!r}; this command reads {_READS}."
        )
    return _FileStore(Path(uri), shown)

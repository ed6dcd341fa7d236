"""``--mlflow-run`` against a tracking server: the REST calls a real MLflow server answers, and
servers that hang, trickle, send a huge answer, list paths outside the run or answer in shapes
MLflow does not use. Each ends, within ``--mlflow-timeout``, in exit 2 and one sentence.

The servers are small ``http.server`` instances on 127.0.0.1 (port 0) in a thread of the test;
the command runs in-process (``metrics_lens.cli.main``). No mlflow package is needed: the
command reads servers over HTTP itself.
"""

from __future__ import annotations

import contextlib
import io
import json
import threading
import urllib.parse
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import numpy as np
import pandas as pd
import pytest

import metrics
from metrics_lens import mlflow_source
from metrics_lens.cli import main

RUN = "0123456789abcdef0123456789abcdef"
TIMEOUT = "2"  # seconds: the hang tests end this fast whatever the machine


def _predictions(n: int = 400, seed: int = 5) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    y = rng.random(n) < 0.4
    return pd.DataFrame(
        {
            "label": y.astype(int),
            "prod_model": 1 / (1 + np.exp(-(y * 1.0 + rng.normal(size=n)))),
            "new_model": 1 / (1 + np.exp(-(y * 2.0 + rng.normal(size=n)))),
        }
    )


class FakeServer:
    """A tracking server whose answers the test writes: ``routes[path](handler, query)``."""

    def __init__(self, routes: dict[str, Callable]):
        self.routes = routes
        self.requests: list[tuple[str, dict, dict]] = []
        self.sent = 0  # bytes of bodies written (the streaming answers count theirs)
        self.release = threading.Event()  # set at teardown: a hanging handler returns
        fake = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.0"

            def do_GET(self):
                url = urllib.parse.urlsplit(self.path)
                query = dict(urllib.parse.parse_qsl(url.query))
                fake.requests.append((url.path, query, dict(self.headers)))
                route = fake.routes.get(url.path)
                if route is None:
                    return self.answer(404, {"error_code": "ENDPOINT_NOT_FOUND"})
                with contextlib.suppress(BrokenPipeError, ConnectionResetError):
                    route(self, query)  # a client that stops reading ends it, as it should

            def answer(self, status: int, body, content_type="application/json"):
                data = body if isinstance(body, bytes) else json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Type", content_type)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args):
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()
        self.uri = f"http://127.0.0.1:{self.httpd.server_address[1]}"

    def close(self):
        self.release.set()
        self.httpd.shutdown()
        self.httpd.server_close()

    def paths(self) -> list[str]:
        return [p for p, _, _ in self.requests]


@pytest.fixture
def serve():
    servers = []

    def start(routes):
        servers.append(FakeServer(routes))
        return servers[-1]

    yield start
    for s in servers:
        s.close()


def _run_info(handler, query, *, info=None):
    run_id = query.get("run_id")
    if run_id != RUN:
        return handler.answer(
            404,
            {"error_code": "RESOURCE_DOES_NOT_EXIST", "message": f"Run '{run_id}' not found"},
        )
    handler.answer(
        200,
        {
            "run": {
                "info": info
                if info is not None
                else {
                    "run_id": RUN,
                    "run_uuid": RUN,
                    "experiment_id": "1",
                    "artifact_uri": f"mlflow-artifacts:/1/{RUN}/artifacts",
                    "lifecycle_stage": "active",
                },
                "data": {},
            }
        },
    )


def mlflow_routes(frame: pd.DataFrame, **overrides) -> dict[str, Callable]:
    """What a real MLflow server answers for a run that logged ``eval/predictions.csv`` and a
    ``model`` folder (the REST API the MLflow UI uses)."""
    csv = frame.to_csv(index=False).encode()

    def listing(handler, query):
        files = {
            None: [
                {"path": "eval", "is_dir": True},
                {"path": "model", "is_dir": True},
            ],
            "eval": [{"path": "eval/predictions.csv", "is_dir": False, "file_size": len(csv)}],
            "model": [{"path": "model/MLmodel", "is_dir": False, "file_size": 10}],
        }[query.get("path")]
        handler.answer(200, {"root_uri": f"mlflow-artifacts:/1/{RUN}/artifacts", "files": files})

    def artifact(handler, query):
        if query.get("path") != "eval/predictions.csv" or query.get("run_uuid") != RUN:
            return handler.answer(404, {"error_code": "RESOURCE_DOES_NOT_EXIST"})
        handler.answer(200, csv, "application/octet-stream")

    routes = {
        "/api/2.0/mlflow/runs/get": _run_info,
        "/api/2.0/mlflow/artifacts/list": listing,
        "/get-artifact": artifact,
    }
    routes.update(overrides)
    return routes


def check(capsys, uri: str, *extra: str, run: str = RUN) -> tuple[int, str, str]:
    code = main(["check", "--mlflow-run", run, "--tracking-uri", uri, "--label", "label",
                 "--baseline", "prod_model", "--candidate", "new_model", "--metric", "auc",
                 "--resamples", "100", "--mlflow-timeout", TIMEOUT, *extra])  # fmt: skip
    out, err = capsys.readouterr()
    return code, out, err


def refused(code: int, err: str, says: str) -> None:
    assert code == 2, err
    assert len(err.strip().splitlines()) == 1, err
    assert "Traceback" not in err
    assert says in err, err


# --- a server that answers as MLflow does ----------------------------------------------------


def test_check_reads_a_run_through_the_server(serve, capsys):
    frame = _predictions()
    server = serve(mlflow_routes(frame))
    code, out, err = check(capsys, server.uri, "--json")
    assert code == 0, err
    (row,) = json.loads(out)["results"]
    y = frame["label"].to_numpy() == 1
    assert row["baseline"] == metrics.roc_auc_score(y, frame["prod_model"])
    assert row["candidate"] == metrics.roc_auc_score(y, frame["new_model"])
    assert server.paths() == [
        "/api/2.0/mlflow/runs/get",
        "/api/2.0/mlflow/artifacts/list",
        "/api/2.0/mlflow/artifacts/list",
        "/api/2.0/mlflow/artifacts/list",
        "/get-artifact",
    ]


def test_a_report_from_a_server_run(serve, capsys, tmp_path):
    server = serve(mlflow_routes(_predictions()))
    out = tmp_path / "r.html"
    code = main(["report", "--mlflow-run", RUN, "--tracking-uri", server.uri, "-o", str(out),
                 "--resamples", "100"])  # fmt: skip
    assert code == 0, capsys.readouterr().err
    assert f"mlflow run {RUN} · eval/predictions.csv" in out.read_text(encoding="utf-8")


def test_a_token_is_sent_as_mlflow_sends_it(serve, capsys, monkeypatch):
    monkeypatch.setenv("MLFLOW_TRACKING_TOKEN", "s3cret")
    server = serve(mlflow_routes(_predictions()))
    code, _, err = check(capsys, server.uri)
    assert code == 0, err
    assert all(h.get("Authorization") == "Bearer s3cret" for _, _, h in server.requests)


def test_an_unknown_run_is_one_sentence(serve, capsys):
    server = serve(mlflow_routes(_predictions()))
    code, _, err = check(capsys, server.uri, run="f" * 32)
    refused(code, err, f"MLflow run '{'f' * 32}' was not found at {server.uri}: Run")


def test_a_server_with_a_path_prefix(serve, capsys):
    """``mlflow server --static-prefix /mlflow``: every route sits under the prefix."""
    routes = {"/mlflow" + k: v for k, v in mlflow_routes(_predictions()).items()}
    server = serve(routes)
    code, _, err = check(capsys, server.uri + "/mlflow/")
    assert code == 0, err


# --- hangs and floods: one deadline for the whole read, a bound on the bytes -----------------


def test_a_server_that_never_answers_is_given_up_at_the_timeout(serve, capsys):
    server = serve({"/api/2.0/mlflow/runs/get": lambda h, q: server.release.wait()})
    code, _, err = check(capsys, server.uri)
    refused(code, err, f"The MLflow tracking server at {server.uri} did not answer within 2 s")
    assert "--mlflow-timeout" in err
    assert server.paths() == ["/api/2.0/mlflow/runs/get"]  # asked once: no retries


def test_a_server_that_answers_a_byte_at_a_time_is_given_up_at_the_timeout(serve, capsys):
    """Each byte arrives well within any per-read timeout; only a deadline for the whole read
    stops it."""

    def trickle(handler, query):
        handler.wfile.write(b"HTTP/1.0 200 OK\r\nContent-Type: application/json\r\n\r\n{")
        handler.wfile.flush()
        while not server.release.wait(0.05):  # the hostile server's pace, not a test's wait
            handler.wfile.write(b" ")
            handler.wfile.flush()

    server = serve(mlflow_routes(_predictions(), **{"/api/2.0/mlflow/runs/get": trickle}))
    code, _, err = check(capsys, server.uri)
    refused(code, err, "did not answer within 2 s")


def test_a_slow_artifact_download_counts_against_the_same_deadline(serve, capsys):
    def slow(handler, query):
        handler.send_response(200)
        handler.end_headers()
        while not server.release.wait(0.05):
            handler.wfile.write(b"label,prod_model,new_model\n")
            handler.wfile.flush()

    server = serve(mlflow_routes(_predictions(), **{"/get-artifact": slow}))
    code, _, err = check(capsys, server.uri)
    refused(code, err, "did not answer within 2 s")


@pytest.mark.parametrize("announced", [True, False])
def test_a_huge_answer_is_refused_before_it_is_read(serve, capsys, announced):
    """A runs/get answer of 2 GB: refused from its Content-Length, or after 16 MB when the
    server does not say its length."""

    def flood(handler, query):
        handler.send_response(200)
        handler.send_header("Content-Type", "application/json")
        if announced:
            handler.send_header("Content-Length", str(2 * 1024**3))
        handler.end_headers()
        block = b"[" * (1 << 16)
        while server.sent < 2 * 1024**3 and not server.release.is_set():
            handler.wfile.write(block)
            server.sent += len(block)

    server = serve({"/api/2.0/mlflow/runs/get": flood})
    code, _, err = check(capsys, server.uri, "--mlflow-timeout", "120")
    refused(code, err, "sent an answer larger than 16 MB (/api/2.0/mlflow/runs/get)")
    assert server.sent < 64 * 1024**2  # the client hung up; socket buffers hold a little more


def test_a_huge_table_is_refused_at_the_artifact_bound(serve, capsys, monkeypatch, tmp_path):
    monkeypatch.setattr(mlflow_source, "MAX_ARTIFACT_BYTES", 1024 * 1024)

    def flood(handler, query):
        handler.send_response(200)
        handler.end_headers()
        line = b"1,0.5,0.5\n" * 6554
        while server.sent < 1024**3 and not server.release.is_set():
            handler.wfile.write(line)
            server.sent += len(line)

    server = serve(mlflow_routes(_predictions(), **{"/get-artifact": flood}))
    code, _, err = check(capsys, server.uri)
    refused(code, err, "sent the table larger than 1 MB (/get-artifact)")
    assert server.sent < 64 * 1024**2


# --- hostile or malformed answers ------------------------------------------------------------


@pytest.mark.parametrize(
    "listed",
    [
        [{"path": "../../x.csv", "is_dir": False}],
        [{"path": "/etc/x.csv", "is_dir": False}],
        [{"path": "eval/../../../x.csv", "is_dir": False}],
        [{"path": "..\\..\\x.csv", "is_dir": False}],
        [{"path": "file:///etc/x.csv", "is_dir": False}],
        [{"path": "eval", "is_dir": True}],  # its listing names a file outside "eval/"
    ],
)
def test_an_artifact_path_outside_the_run_is_refused_unread(serve, capsys, tmp_path, listed):
    def listing(handler, query):
        if query.get("path") == "eval":
            return handler.answer(200, {"files": [{"path": "other/x.csv", "is_dir": False}]})
        handler.answer(200, {"files": listed})

    server = serve(mlflow_routes(_predictions(), **{"/api/2.0/mlflow/artifacts/list": listing}))
    code, _, err = check(capsys, server.uri)
    refused(code, err, "that is not inside the run's artifacts; refusing to read it.")
    assert "/get-artifact" not in server.paths()


@pytest.mark.parametrize(
    "info",
    [
        {"run_id": RUN, "artifact_uri": "mlflow-artifacts"},  # no path at all
        {"run_id": RUN, "artifact_uri": 42},
        {"run_id": RUN},
        {"run_id": RUN, "artifact_uri": "s3://bucket"},
    ],
)
def test_any_artifact_uri_shape_is_read_through_the_server(serve, capsys, info):
    """The server reads its own artifact store (get-artifact), so the command never parses the
    run's ``artifact_uri``: MLflow's client failed with 'not enough values to unpack'."""
    runs_get = lambda h, q: _run_info(h, q, info=info)  # noqa: E731
    server = serve(mlflow_routes(_predictions(), **{"/api/2.0/mlflow/runs/get": runs_get}))
    code, _, err = check(capsys, server.uri)
    assert code == 0, err


@pytest.mark.parametrize(
    ("route", "answer", "says"),
    [
        ("/api/2.0/mlflow/runs/get", (200, b"<html>hello</html>", "text/html"),
         "did not answer /api/2.0/mlflow/runs/get as an MLflow tracking server (HTTP 200"),
        ("/api/2.0/mlflow/runs/get", (200, {"run": {"info": "x"}}, None),
         "answered runs/get for"),
        ("/api/2.0/mlflow/runs/get", (200, [1, 2], None), "as an MLflow tracking server"),
        ("/api/2.0/mlflow/runs/get", (500, {"error_code": "INTERNAL_ERROR",
                                            "message": "\x1b[31mboom\x1b[0m\nsecond line"}, None),
         "refused /api/2.0/mlflow/runs/get (HTTP 500, INTERNAL_ERROR): [31mboom [0m second line"),
        ("/api/2.0/mlflow/artifacts/list", (200, {"files": "all"}, None),
         "in a shape MLflow does not use"),
        ("/api/2.0/mlflow/artifacts/list", (200, {"files": [7]}, None),
         "in a shape MLflow does not use"),
        ("/api/2.0/mlflow/artifacts/list", (200, {"files": [{"is_dir": False}]}, None),
         "listed an artifact without a path"),
        ("/get-artifact", (403, b"no", "text/plain"),
         "did not send artifact eval/predictions.csv of run"),
        ("/api/2.0/mlflow/runs/get", (302, b"", "text/plain"), "redirects to"),
    ],
)  # fmt: skip
def test_malformed_answers_are_one_sentence(serve, capsys, route, answer, says):
    status, body, kind = answer

    def bad(handler, query):
        if status == 302:
            handler.send_response(302)
            handler.send_header("Location", "http://127.0.0.1:1/elsewhere")
            handler.end_headers()
            return
        handler.answer(status, body, kind or "application/json")

    server = serve(mlflow_routes(_predictions(), **{route: bad}))
    code, _, err = check(capsys, server.uri)
    refused(code, err, says)
    assert "\x1b" not in err


def test_a_closed_port_is_one_sentence(capsys):
    import socket

    with socket.socket() as s:  # a port nobody listens on once this closes
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    code, _, err = check(capsys, f"http://127.0.0.1:{port}")
    refused(code, err, f"Cannot read from the MLflow tracking server at http://127.0.0.1:{port}")


@pytest.mark.parametrize("command", ["check", "report"])
@pytest.mark.parametrize("value", ["0", "-1", "nan", "inf", "-inf", "1e12", "1e308", "3600.5", "x"])
def test_the_timeout_must_be_above_0_and_at_most_an_hour(capsys, tmp_path, command, value):
    """1e308 s used to reach socket.settimeout: an OverflowError traceback."""
    args = [
        "--mlflow-run",
        RUN,
        "--tracking-uri",
        "http://127.0.0.1:9",
        f"--mlflow-timeout={value}",
    ]
    if command == "check":
        args += ["--baseline", "a", "--candidate", "b", "--metric", "auc"]
    with pytest.raises(SystemExit) as stop:  # argparse's exit, before any connection
        main([command, *args, *(["-o", str(tmp_path / "r.html")] if command == "report" else [])])
    err = capsys.readouterr().err
    refused(stop.value.code, err, "--mlflow-timeout: takes seconds above 0 and at most 3,600")
    assert f"got {value!r}" in err


@pytest.mark.parametrize("value", [0, -1.0, float("nan"), float("inf"), 1e12, 1e308, True, "60"])
def test_the_library_refuses_the_same_timeouts(value):
    with pytest.raises(mlflow_source.BadInput, match=r"at most 3,600 \(an hour\)"):
        mlflow_source.open_store("http://127.0.0.1:9", timeout=value)


@pytest.mark.parametrize(
    ("uri", "shown"),
    [
        ("http://bob:s3cret@127.0.0.1:9", "http://127.0.0.1:9"),
        ("https://bob:p@ss/w0rd@host.example/base", "https://host.example/base"),
        ("http://127.0.0.1:9/api?token=s3cret&user=bob", "http://127.0.0.1:9/api?token=…&user=…"),
        ("http://bob@127.0.0.1:9/?access_token=s3cret#x", "http://127.0.0.1:9/?access_token=…#x"),
        ("bob:s3cret@127.0.0.1:9", "127.0.0.1:9"),
        ("sqlite:///runs@home/mlflow.db", "sqlite:///runs@home/mlflow.db"),
        ("./mlruns", "./mlruns"),
    ],
)
def test_a_uri_is_shown_without_its_password_or_token(uri, shown):
    assert mlflow_source.shown_uri(uri) == shown


def test_error_lines_and_reports_never_print_the_password(serve, capsys, tmp_path):
    """The refusal of a closed port, a run that is not there, and the report's own record of
    its source and command: none holds the password or the token of --tracking-uri."""
    server = serve(mlflow_routes(_predictions()))
    host = server.uri.removeprefix("http://")
    secret = f"http://bob:s3cret@{host}/?token=t0ken"
    code, _, err = check(capsys, secret, run="f" * 32)
    refused(code, err, f"was not found at http://{host}/?token=…")
    out = tmp_path / "r.html"
    code = main(["report", "--mlflow-run", RUN, "--tracking-uri", secret, "-o", str(out),
                 "--resamples", "100"])  # fmt: skip
    assert code == 0, capsys.readouterr().err
    page = out.read_text(encoding="utf-8")
    assert f"http://{host}/?token=…" in page
    for text in (err, page):
        assert "s3cret" not in text
        assert "t0ken" not in text
    # the password still logs in, as MLflow's client uses it
    assert server.requests[-1][2].get("Authorization") == "Basic Ym9iOnMzY3JldA=="


def test_the_json_table_of_a_server_run(serve, capsys):
    """``eval_results_table.json`` (mlflow.evaluate's table) downloaded and read."""
    frame = _predictions(seed=9)
    table = json.dumps({"columns": list(frame.columns), "data": frame.to_numpy().tolist()})

    def listing(handler, query):
        handler.answer(200, {"files": [{"path": "eval_results_table.json", "is_dir": False}]})

    def artifact(handler, query):
        handler.answer(200, io.BytesIO(table.encode()).getvalue(), "application/json")

    server = serve(
        mlflow_routes(
            frame, **{"/api/2.0/mlflow/artifacts/list": listing, "/get-artifact": artifact}
        )
    )
    code, out, err = check(capsys, server.uri, "--json")
    assert code == 0, err
    y = frame["label"].to_numpy() == 1
    row = json.loads(out)["results"][0]
    assert row["candidate"] == metrics.roc_auc_score(y, frame["new_model"])

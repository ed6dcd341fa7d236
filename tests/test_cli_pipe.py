"""A reader that stops early (``metrics-lens detection GT DET | head -1``) ends the command
quietly: no BrokenPipeError traceback, exit 141 as a shell reports a closed pipe."""

from __future__ import annotations

import json
import os
import sys

import pytest

from metrics.detection import synthetic_coco
from metrics_lens.cli import EXIT_BROKEN_PIPE, main


@pytest.mark.parametrize("extra", [(), ("--json",)])
def test_detection_into_a_closed_pipe_ends_quietly(tmp_path, monkeypatch, capsys, extra):
    gt, dt = synthetic_coco(n_images=4, n_cats=2, dets_per_image=5, seed=1)
    (tmp_path / "gt.json").write_text(json.dumps(gt))
    (tmp_path / "dt.json").write_text(json.dumps(dt))
    read_end, write_end = os.pipe()
    os.close(read_end)  # the reader is gone before the first line: every write fails
    with os.fdopen(write_end, "w") as closed:
        monkeypatch.setattr(sys, "stdout", closed)
        code = main(["detection", str(tmp_path / "gt.json"), str(tmp_path / "dt.json"), *extra])
        assert code == EXIT_BROKEN_PIPE
        closed.write("x" * 100_000)  # stdout now leads nowhere: Python's last flush is quiet
        closed.flush()
    assert capsys.readouterr().err == ""

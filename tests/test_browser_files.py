"""Several files in one browser session: every page shows the numbers of the file it names.

In a real browser a widget keeps its last value and sends it back with the next click, which
AppTest does not do: that is how a second upload once kept the first file's score columns. This
session uploads three differently shaped tables in a row, opens two Server dataset files, and
goes back to its upload, reading the Threshold page's cards each time.
"""

from __future__ import annotations

import numpy as np
import pytest

from tests.lens_browser import table_input
from tests.test_browser import (  # noqa: F401  (fixtures, and the skip without Chromium)
    ARTIFACTS,
    ROOT,
    _choose,
    _expect_metric,
    _serve,
    _upload,
    _wait_for_app,
    browser,
    page,
    pytestmark,
)


def _write(path, header: str, rows) -> None:
    path.write_text(header + "\n" + "\n".join(",".join(str(v) for v in r) for r in rows) + "\n")


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    rng = np.random.default_rng(11)
    d = tmp_path_factory.mktemp("files")
    out = {}
    n = 300
    y = (rng.random(n) < 0.3).astype(int)
    a, b = np.round(rng.random(n) * 0.7 + 0.3 * y, 4), np.round(rng.random(n), 4)
    _write(d / "first.csv", "label,model_a,model_b", zip(y, a, b, strict=True))
    out["first"] = (y, a)
    y2 = (rng.random(n) < 0.55).astype(int)
    c = np.round(rng.random(n) * 0.6 + 0.4 * y2, 4)
    _write(d / "second.csv", "clicked,ctr_new,ctr_old,ctr_big", zip(y2, c, c[::-1], c, strict=True))
    out["second"] = (y2, c)
    p = rng.dirichlet(np.ones(3), n).round(4)
    names = np.array(["cat", "dog", "fox"])[p.argmax(1)]
    _write(d / "third.csv", "label,score_cat,score_dog,score_fox", zip(names, *p.T, strict=True))
    out["third"] = ((names == "cat").astype(int), p[:, 0])
    server = d / "server"
    server.mkdir()
    y3 = (rng.random(n) < 0.2).astype(int)
    s3 = np.round(rng.random(n) * 0.5 + 0.5 * y3, 4)
    _write(server / "srv_a.csv", "label,m1", zip(y3, s3, strict=True))
    out["srv_a"] = (y3, s3)
    y4 = (rng.random(n) < 0.7).astype(int)
    s4 = np.round(rng.random(n) * 0.8 + 0.2 * y4, 4)
    _write(server / "srv_b.csv", "is_fraud,q1", zip(y4, s4, strict=True))
    out["srv_b"] = (y4, s4)
    return d, out


@pytest.fixture(scope="module")
def server_with_data(files):
    d, _ = files
    yield from _serve({"METRICS_LENS_DATA_DIR": str(d / "server")})


def _shows(page, truth) -> None:  # noqa: F811
    """The Threshold page's prevalence card is this file's, and nothing says 'meanwhile'."""
    y, _ = truth
    _expect_metric(page, "Prevalence", f"{y.mean():.3f}")
    assert page.get_by_text("cannot be used yet").count() == 0
    assert page.get_by_text("needs a score_").count() == 0
    assert page.locator('[data-testid="stException"]').count() == 0


def test_three_uploads_two_server_files_and_back(server_with_data, files, page):  # noqa: F811
    d, truth = files
    page.goto(server_with_data)
    _wait_for_app(page)
    for i, name in enumerate(("first", "second", "third")):
        if i == 0:
            _upload(page, d / f"{name}.csv")
        else:  # already on Upload (clicking it again would unselect it): replace the file
            table_input(page).set_input_files(str(d / f"{name}.csv"))
        page.get_by_text("Score table").first.wait_for(timeout=30_000)
        _wait_for_app(page)
        _shows(page, truth[name])
        page.screenshot(path=ARTIFACTS / f"files-{name}.png", full_page=True)
    # A click after the upload (the browser sends its widget values back): still the same file.
    page.get_by_role("radio", name="by actual").click()
    _wait_for_app(page)
    _shows(page, truth["third"])

    page.get_by_role("radio", name="Server dataset").click()
    _wait_for_app(page)
    _choose(page, "Server file", "srv_a.csv")
    _shows(page, truth["srv_a"])
    _choose(page, "Server file", "srv_b.csv")
    _shows(page, truth["srv_b"])
    page.screenshot(path=ARTIFACTS / "files-server-b.png", full_page=True)

    page.get_by_role("radio", name="Upload").click()
    _wait_for_app(page)
    _shows(page, truth["third"])

"""The Calibration page (and the Decision curves page) in a real browser: the reliability
diagram with its bands, the library's ECE in the Explain, recalibration switched by a click,
and a score that is no probability named as such. Screenshots go to test-artifacts/."""

from __future__ import annotations

import numpy as np
import pytest

import metrics
from tests.lens_browser import settle, table_input
from tests.test_browser import (  # noqa: F401  (fixtures, and the skip without Chromium)
    ARTIFACTS,
    _wait_for_app,
    browser,
    page,
    pytestmark,
    server,
)
from ui.compute import data, thresholds
from ui.views.explain import num


def _settle(page) -> None:  # noqa: F811
    page.wait_for_function(
        "() => !document.querySelector('[data-testid=\"stStatusWidget\"]')", timeout=120_000
    )
    settle(page)


def _legend(page) -> list[str]:  # noqa: F811
    """Legend entries of every chart, each scrolled into view first (charts draw lazily)."""
    from playwright.sync_api import expect

    for c in page.locator('[data-testid="stPlotlyChart"]').all():
        if c.is_visible():
            c.scroll_into_view_if_needed()
            settle(page)

    expect(page.locator(".legendtext").first).to_be_attached(timeout=60_000)
    return page.locator(".legendtext").evaluate_all("els => els.map(e => e.textContent.trim())")


def _wait_legend(page, name: str) -> None:  # noqa: F811
    """Wait until a chart's legend shows ``name`` (a rerun or a chart may still be drawing)."""
    page.wait_for_function(
        "name => [...document.querySelectorAll('.legendtext')].some(e => e.textContent.trim()"
        " === name)",
        arg=name,
        timeout=120_000,
    )


def _tex(page) -> str:  # noqa: F811
    """The TeX source of every formula on the page (KaTeX keeps it in an annotation)."""
    return " ".join(
        page.locator(".katex-mathml annotation").evaluate_all("els => els.map(e => e.textContent)")
    )


@pytest.fixture
def scores_csv(tmp_path):
    rng = np.random.default_rng(21)
    n = 600
    y = rng.random(n) < 0.3
    prob = np.round(np.clip(0.3 + 0.5 * (y - 0.3) + rng.normal(0, 0.2, n), 0, 1), 4)
    margin = np.round(rng.normal(0, 1, n) + 1.5 * y, 4)
    path = tmp_path / "scores.csv"
    lines = ["label,prob,margin"] + [
        f"{int(a)},{b},{c}" for a, b, c in zip(y, prob, margin, strict=True)
    ]
    path.write_text("\n".join(lines))
    return path


def test_calibration_page_shows_bands_the_library_ece_and_recalibration(server, page):  # noqa: F811
    from playwright.sync_api import expect

    page.goto(f"{server}/calibration?dataset=breast_cancer")
    _wait_for_app(page)
    _settle(page)
    expect(page.get_by_role("heading", name="Calibration", exact=True)).to_be_visible()
    assert page.locator('[data-testid="stException"]').count() == 0
    ds = data.bundled_dataset("breast_cancer")
    legend = _legend(page)
    assert "perfectly calibrated" in legend
    for m in ds.models:
        assert m in legend
        assert f"{m} after (platt)" in legend
    # three bands (one per model) in the first diagram: filled SVG paths
    assert page.locator(".js-fill").count() >= len(ds.models)
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=ARTIFACTS / "calibration-1400x1000.png", full_page=True)

    page.get_by_text("Explain: ECE, MCE and the Brier decomposition").click()
    m0 = ds.models[0]
    ece = metrics.calibration_error(ds.labels_for(m0), ds.score(m0))
    expect(page.locator(".katex").first).to_be_attached(timeout=20_000)
    assert f"= {num(ece)}" in _tex(page)

    page.get_by_text("isotonic (pool-adjacent-violators)").click()
    _wait_legend(page, f"{m0} after (isotonic)")
    _settle(page)
    legend = _legend(page)
    assert f"{m0} after (isotonic)" in legend
    assert f"{m0} after (platt)" not in legend
    assert page.locator('[data-testid="stException"]').count() == 0

    page.set_viewport_size({"width": 1280, "height": 720})
    settle(page)
    page.get_by_role("heading", name="Reliability").scroll_into_view_if_needed()
    settle(page)
    page.screenshot(path=ARTIFACTS / "calibration-1280x720.png")
    page.get_by_role("heading", name="Recalibration, cross-fitted").scroll_into_view_if_needed()
    settle(page)
    page.screenshot(path=ARTIFACTS / "calibration-recalibration-1280x720.png")


def test_a_score_that_is_no_probability_is_named_and_recalibrated(server, page, scores_csv):  # noqa: F811
    from playwright.sync_api import expect

    page.goto(server)
    _wait_for_app(page)
    page.get_by_role("radio", name="Upload").click()
    dropzone = table_input(page)
    dropzone.wait_for(state="attached", timeout=120_000)
    _settle(page)
    dropzone.set_input_files(str(scores_csv))
    page.get_by_text("Slice columns (optional)").wait_for(timeout=120_000)
    _settle(page)
    page.get_by_role("link", name="Calibration").click()
    _wait_for_app(page)
    _settle(page)
    warning = page.locator('[data-testid="stAlert"]', has_text="not probabilities")
    expect(warning).to_be_visible(timeout=60_000)
    assert "margin" in warning.inner_text()
    _wait_legend(page, "margin after (platt)")
    legend = _legend(page)
    assert "margin before" not in legend
    assert page.locator('[data-testid="stException"]').count() == 0
    page.screenshot(path=ARTIFACTS / "calibration-upload-1400x1000.png", full_page=True)


def test_decision_curves_page_in_a_browser(server, page):  # noqa: F811
    from playwright.sync_api import expect

    page.goto(f"{server}/decisions?dataset=breast_cancer")
    _wait_for_app(page)
    _settle(page)
    expect(page.get_by_role("heading", name="Decision curves")).to_be_visible()
    ds = data.bundled_dataset("breast_cancer")
    for m in ds.models:
        c = metrics.cost_curve(ds.labels_for(m), ds.score(m))
        area = float(np.sum(np.diff(c[0]) * (c[1][1:] + c[1][:-1]) / 2))
        _wait_legend(page, f"{m} envelope (area {area:.4f})")
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=ARTIFACTS / "decisions-cost-1400x1000.png", full_page=True)
    for tab, name in (("Brier curves", "brier"), ("Precision-recall gain", "prg"), ("DET", "det")):
        page.get_by_role("tab", name=tab).click()
        settle(page)
        page.screenshot(path=ARTIFACTS / f"decisions-{name}-1400x1000.png", full_page=True)
    e = metrics.equal_error_rate(ds.labels_for(ds.models[0]), ds.score(ds.models[0]))
    written = thresholds.label_on(np.unique(ds.score(ds.models[0])), e.threshold)
    _wait_legend(page, f"{ds.models[0]} EER {e.rate:.2%} (threshold {written})")
    page.set_viewport_size({"width": 1280, "height": 720})
    settle(page)
    page.screenshot(path=ARTIFACTS / "decisions-det-1280x720.png")
    assert page.locator('[data-testid="stException"]').count() == 0

"""Names from the data are text in every figure: a score column named
``<span style="background:url(http://host/b.png)">s</span>`` or ``<a href=...>`` must neither
fetch from that host nor give a live link when a report or a chart is drawn (plotly renders a
pseudo-HTML subset in names, titles, hover text and tick labels: ``style`` on any tag, ``href``
on ``<a>``).

* the report opened in Chromium with a logging HTTP server on 127.0.0.1: no request, no link,
  and the names shown as the text they are;
* :func:`ui.words.safe.plotly_text` on generated text: no tag plotly would act on survives except the
  bare formatting tags our own figures use;
* every page of the dashboard (AppTest) on an upload whose names are hostile: no chart holds a
  tag with attributes or a link.
"""

from __future__ import annotations

import re
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

import metrics_lens
from tests.lens_browser import ROOT, chromium, needs_chromium
from ui.words.safe import plotly_text, safe_figure

# plotly's own tag grammar (svg_text_utils.js): SPLIT_TAGS and ONE_TAG
SPLIT_TAGS = re.compile(r"(<[^<>]*>)")
ONE_TAG = re.compile(r"<(/?)([^ >]*)(\s+(.*))?>", re.IGNORECASE | re.DOTALL)
BARE = {"b", "i", "em", "sup", "sub", "br", "br/", "extra"}
BARE_TAG = re.compile(r"</?(?:b|i|em|sup|sub|extra)>|<br ?/?>", re.IGNORECASE)


def acting_tags(text: str) -> list[str]:
    """The tags plotly would act on in ``text`` beyond the bare formatting ones: a tag with
    attributes (a style, a link) or another tag."""
    out = []
    for part in SPLIT_TAGS.split(text):
        m = ONE_TAG.fullmatch(part)
        if m and (m.group(3) or m.group(2).lower() not in BARE):
            out.append(part)
    return out


@pytest.fixture
def logging_server():
    """An HTTP server on 127.0.0.1 that records every request (the host a hostile name names)."""
    seen: list[str] = []

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self):
            seen.append(self.path)
            self.send_response(200)
            self.send_header("Content-Type", "image/png")
            self.end_headers()

        def log_message(self, *args):
            pass

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}", seen
    httpd.shutdown()
    httpd.server_close()


def hostile_names(host: str) -> tuple[str, str]:
    return (
        f'<span style="background:url({host}/b.png)">s</span>',
        f'<a href="{host}/link">x</a>',
    )


def hostile_frame(host: str, n: int = 300) -> pd.DataFrame:
    rng = np.random.default_rng(0)
    y = rng.random(n) < 0.4
    styled, linked = hostile_names(host)
    return pd.DataFrame(
        {
            "label": y.astype(int),
            styled: 1 / (1 + np.exp(-(y + rng.normal(size=n)))),
            linked: 1 / (1 + np.exp(-(2 * y + rng.normal(size=n)))),
        }
    )


@needs_chromium
def test_a_report_from_hostile_names_makes_no_request_and_holds_no_link(logging_server, tmp_path):
    host, seen = logging_server
    styled, linked = hostile_names(host)
    page_html = metrics_lens.report_html(
        hostile_frame(host), label="label", score=[styled, linked], n_resamples=100
    )
    path = page_html.save(tmp_path / "report.html")
    with chromium() as browser:
        page = browser.new_page(viewport={"width": 1300, "height": 900})
        # 4 MB of inline plotly: slow to parse on a loaded machine
        page.goto(path.as_uri(), wait_until="domcontentloaded", timeout=180_000)
        page.wait_for_selector("#roc-figure .legendtext", timeout=180_000)
        page.wait_for_selector("#pr-figure .legendtext", timeout=180_000)
        for trace in page.locator("#roc-figure .scatterlayer .trace").all()[:2]:
            box = trace.bounding_box()
            if box:
                page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
        legend = page.locator("#roc-figure .legendtext").all_text_contents()
        links = page.evaluate(
            "() => [...document.querySelectorAll('a[href], [*|href]')]"
            ".map(a => a.getAttribute('href') || a.getAttribute('xlink:href'))"
        )
        styled_urls = page.evaluate(
            "() => [...document.querySelectorAll('[style]')]"
            ".map(e => e.getAttribute('style')).filter(s => s.includes('url('))"
        )
        # a round trip to the page: any fetch it started has reached the server by now
        page.evaluate("() => new Promise(r => requestAnimationFrame(() => setTimeout(r, 0)))")
    assert seen == []
    assert not [h for h in links if h and host in h]
    assert not [s for s in styled_urls if host in s]
    assert styled in legend  # shown as the text it is
    assert linked in legend


def test_the_report_figures_hold_no_acting_tag(monkeypatch):
    from metrics_lens import report_figures

    drawn = []
    monkeypatch.setattr(
        report_figures, "safe_figure", lambda f: drawn.append(safe_figure(f)) or drawn[-1]
    )
    styled, linked = hostile_names("http://127.0.0.1:9")
    metrics_lens.report_html(
        hostile_frame("http://127.0.0.1:9"), label="label", score=[styled, linked],
        n_resamples=100,
    )  # fmt: skip
    assert len(drawn) == 2
    strings = [s for fig in drawn for s in _strings(fig.to_plotly_json())]
    assert styled.replace("<", "&lt;").replace(">", "&gt;") in strings
    assert not [s for s in strings if acting_tags(s)]


def _strings(value) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for v in value.values() for s in _strings(v)]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    return []


# --- the function every figure goes through --------------------------------------------------

tag_text = st.one_of(
    st.text(alphabet=st.sampled_from(list("<>/ \"'=abhrefstylu:().#&;")), max_size=40),
    st.sampled_from(
        ['<a href="http://x">y</a>', "<span style='color:red'>z</span>", "<b style=x>w</b>",
         "<br>", "<b>ok</b>", "a<b", "<", ">", "<<a href=x>>", "<A HREF=x>", "<a\nhref=x>"]
    ),
)  # fmt: skip


@given(st.lists(tag_text, min_size=1, max_size=4).map("".join))
def test_plotly_text_leaves_no_tag_plotly_would_act_on(text):
    out = plotly_text(text)
    assert not acting_tags(out)
    assert plotly_text(out) == out  # idempotent: a builder's escaped name is not escaped twice

    def shown(t: str) -> str:  # plotly: tags dropped, entities turned back into characters
        t = SPLIT_TAGS.sub(lambda m: "" if ONE_TAG.fullmatch(m.group()) else m.group(), t)
        return t.replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&")

    bare = BARE_TAG.sub("", text)
    assert shown(out) == shown(bare.replace("<", "&lt;").replace(">", "&gt;"))


def test_our_own_formatting_tags_stay():
    text = "<b>AUC</b> 0.91<br>n = 10<sup>3</sup> %{x}<extra></extra>"
    assert plotly_text(text) == text


def test_safe_figure_escapes_every_place_a_name_can_sit():
    import plotly.graph_objects as go

    name = '<a href="http://127.0.0.1:9/x">m</a>'
    fig = go.Figure(
        [
            go.Scatter(x=[1, 2], y=[1, 2], name=name, text=[name, "ok"],
                       hovertemplate=f"{name} %{{x}}<extra></extra>"),
            go.Bar(x=[name, "b"], y=[1, 2], name="<b>ours</b>"),
            go.Table(header={"values": [name]}, cells={"values": [[name]]}),
        ],
        layout={"title": {"text": f"<b>ROC</b> of {name}"}, "xaxis": {"title": {"text": name}},
                "annotations": [{"text": name, "x": 1, "y": 1}]},
    )  # fmt: skip
    before = fig.to_json()
    out = safe_figure(fig).to_plotly_json()
    assert fig.to_json() == before  # the net reads the figure's own dicts: it never writes them
    strings = _strings(out)
    assert not [s for s in strings if acting_tags(s)]
    assert "<b>ours</b>" in strings
    assert '<b>ROC</b> of &lt;a href="http://127.0.0.1:9/x"&gt;m&lt;/a&gt;' in strings
    plain = go.Figure(go.Scatter(x=[1], y=[1], name="fine"))
    assert safe_figure(plain) is plain  # nothing to escape: the same figure, no copy
    arrays = go.Figure(go.Scatter(x=[1, 2], y=[1, 2], text=np.array([name, "ok"], object)))
    assert not [s for s in _strings(safe_figure(arrays).to_plotly_json()) if acting_tags(s)]
    framed = go.Figure(plain.data, frames=[go.Frame(data=[go.Scatter(x=[1], y=[1], name=name)])])
    assert framed.frames
    assert not [s for s in _strings(safe_figure(framed).to_plotly_json()) if acting_tags(s)]


# --- every dashboard page on hostile names ---------------------------------------------------

PAGES = sorted(p.name for p in (ROOT / "pages").glob("*.py"))


@pytest.fixture(scope="module")
def hostile_app():
    from tests.apptest_utils import open_page, upload_frame

    at = open_page("pages/threshold.py")
    frame = hostile_frame("http://127.0.0.1:9")
    frame["<a href='http://127.0.0.1:9/u'>user</a>"] = [f"<b style=x>u{k % 7}</b>" for k in
                                                          range(len(frame))]  # fmt: skip
    upload_frame(at, frame, name="<a href='http://127.0.0.1:9/f'>f</a>.csv")
    assert not at.exception, at.exception
    return at


@pytest.mark.parametrize("page", PAGES)
def test_no_dashboard_chart_holds_a_tag_from_the_data(hostile_app, page):
    from tests.apptest_utils import figures

    hostile_app.switch_page(f"pages/{page}").run()
    assert not hostile_app.exception, hostile_app.exception
    strings = [s for fig in figures(hostile_app) for s in _strings(fig)]
    assert not [s for s in strings if acting_tags(s)]

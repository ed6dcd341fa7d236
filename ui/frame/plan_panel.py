"""The lecture plan in the app: the sidebar's "Lecture plan" panel (add this view with a note,
reorder, edit, remove, a sample plan, the plan's file and link) and playing it in presentation
mode, where PageDown / PageUp walk the plan's views and the bar names "view 4 of 12" and the
note. The plan itself (its checks, file and link) is :mod:`ui.teaching.lecture_plan`.

A view opens in two runs, as a click on the sidebar would: the run after the key sets the
view's data (its source's link), model, thresholds and the page's settings before the sidebar
draws its widgets (:func:`open_pending`), then clicks the page's link (:func:`go_to`).
"""

from __future__ import annotations

import html
from collections.abc import Mapping

import streamlit as st

from ui import sources
from ui.frame import presentation_bar
from ui.frame.navigation import PAGES
from ui.teaching import lecture_plan as lp

PLAN, AT, PLAYING = "plan", "plan_at", "plan_playing"  # the Plan, the view shown, playing
_PENDING = "_plan_open"  # the view to open in the next run, before the sidebar
_GO = "_plan_go"  # (page index, title) to click once the view's state is set
QUERY = "plan"  # the link's parameter
# Widget values that cannot be set from the session state, or are not a page's settings.
_SKIP = ("download", "upload", "file", "_for", "_kept", "_seed", "button", "check", "reveal")
# The pages' toggles and checkboxes: their on / off is a setting a view keeps and sets again
# (a button's True cannot be set at all, so no other True or False is). tests/test_frame_plan.py
# finds every st.toggle / st.checkbox keyed after a page in the code and fails until it is here.
SWITCHES = frozenset(
    {
        "calibration_rows_independent",
        "compare_rows_independent",
        "compare_mc_rows_independent",
        "detection_why_range",
        "lessons_reveal_first",
        "multilabel_choose_half",
    }
)
URL_PATHS = ["" if i == 0 else path.removeprefix("pages/").removesuffix(".py")
             for i, (path, _, _) in enumerate(PAGES)]  # fmt: skip
TITLES = {url: title for url, (_, title, _) in zip(URL_PATHS, PAGES, strict=True)}


class _Query(Mapping):
    """A view's link as the query mapping sources read (``get`` and ``get_all``)."""

    def __init__(self, link: Mapping):
        self._link = dict(link)

    def __getitem__(self, key):
        value = self._link[key]
        return value[-1] if isinstance(value, list) else value

    def __iter__(self):
        return iter(self._link)

    def __len__(self) -> int:
        return len(self._link)

    def get_all(self, key) -> list[str]:
        value = self._link.get(key, [])
        return list(value) if isinstance(value, list) else [value]


def plan() -> lp.Plan:
    return st.session_state.get(PLAN) or lp.Plan("My lecture")


def playing() -> bool:
    return bool(st.session_state.get(PLAYING)) and len(plan()) > 0


def read_link(query: Mapping) -> None:
    """A session's first run: ``?plan=`` loads the plan and opens its first view."""
    value = query.get(QUERY)
    if not value:
        return
    try:
        st.session_state[PLAN] = lp.from_link(value, URL_PATHS)
    except ValueError as exc:
        st.session_state["_plan_error"] = str(exc)
        return
    st.session_state[_PENDING] = 0
    # with ?present=1 the link plays the plan: the lecture opens on its first slide
    st.session_state[PLAYING] = query.get("present") in ("1", "true", "on")


# --- capturing and opening a view ------------------------------------------------------------


def _settings(page: str) -> dict:
    """The page's settings: its widgets' values (keys named after the page) that a plan can
    hold and set again (numbers, texts, lists; not buttons or files)."""
    prefix = (page or "threshold") + "_"
    out = {}
    for key, value in st.session_state.items():
        key = str(key)
        if not key.startswith(prefix) or (any(s in key for s in _SKIP) and key not in SWITCHES):
            continue
        if (isinstance(value, bool) and key not in SWITCHES) or not lp._setting_ok(value):
            continue  # a button's True cannot be set again; dicts and objects stay out
        out[key] = list(value) if isinstance(value, tuple) else value
    return out


def capture(ds, page: str, note: str) -> lp.View:
    source = sources.of(ds)
    link = source.link(ds) or {}
    upload = "" if link else ds.name
    link = {k: (list(v) if isinstance(v, list | tuple) else str(v)) for k, v in link.items()}
    return lp.View(page, TITLES.get(page, page), link, _settings(page), note, upload)


def open_pending() -> None:
    """At the start of a run, before the sidebar: set the state of the view to open."""
    at = st.session_state.pop(_PENDING, None)
    current = plan()
    if at is None or not 0 <= at < len(current):
        return
    view = current.views[at]
    st.session_state[AT] = at
    q = _Query(view.link)
    before = st.session_state.get("source"), st.session_state.get("dataset")
    if view.link and not any(source.read_link(q) for source in sources.REGISTRY.values()):
        st.session_state["_plan_error"] = f"View {at + 1}'s data link cannot be opened."
    if (st.session_state.get("source"), st.session_state.get("dataset")) == before:
        # the same table: its thresholds are set now (a new table takes them when it loads)
        pending = st.session_state.pop("thresholds_from_url", {})
        st.session_state["thresholds"] = {**st.session_state.get("thresholds", {}), **pending}
    # Only the page's own settings, as capture() keeps them: a plan file or link made by hand
    # could otherwise set any of the session's state (the dataset, the source, a flag).
    prefix, left_out = (view.page or "threshold") + "_", []
    for key, value in view.settings.items():
        if key.startswith(prefix) and (
            key in SWITCHES or not (any(s in key for s in _SKIP) or isinstance(value, bool))
        ):
            st.session_state[key] = value
        else:
            left_out.append(key)
    if left_out:
        st.session_state["_plan_error"] = (
            f"View {at + 1}'s settings {', '.join(sorted(left_out)[:5])} are not its page's "
            "own, so they were left out."
        )
    st.session_state[_GO] = (URL_PATHS.index(view.page), view.title or TITLES[view.page])


def go_to(current_url: str) -> bool:
    """After the navigation: click the pending view's page (True: the page run can stop)."""
    target = st.session_state.pop(_GO, None)
    if target is None or URL_PATHS[target[0]] == current_url:
        return False
    presentation_bar.go(*target)
    return True


def show(at: int) -> None:
    """A callback: open view ``at`` in the next run."""
    st.session_state[_PENDING] = at


def walk(by: int) -> bool:
    """PageDown / PageUp while a plan plays: the next or previous view (False at an end)."""
    to = lp.step(len(plan()), st.session_state.get(AT), by)
    if to is None:
        return False
    st.session_state[_PENDING] = to
    st.rerun()
    return True


def bar_line(data_name: str = "") -> str:
    """The bar's line while a plan plays: "View 4 of 12" and the note, HTML-escaped; for a view
    made on an upload that is not the data shown (``data_name``), what to upload again."""
    current, at = plan(), st.session_state.get(AT) or 0
    view = current.views[at] if at < len(current) else None
    note = view.note if view is not None else ""
    line = f"<b>View {at + 1} of {len(current)}</b>" + (f" · {html.escape(note)}" if note else "")
    if view is not None and view.upload and view.upload != data_name:
        line += (
            f" · <i>made on the upload {html.escape(view.upload)}: upload it again to see it "
            "as planned</i>"
        )
    return line


# --- the sidebar panel -----------------------------------------------------------------------


def _edit(fn, *args) -> None:
    try:
        st.session_state[PLAN] = fn(plan(), *args)
    except ValueError as exc:
        st.session_state["_plan_error"] = str(exc)


def _add(ds, page: str) -> None:
    _edit(lp.add, capture(ds, page, st.session_state.get("plan_new_note", "")))
    st.session_state["plan_new_note"] = ""


def _noted(at: int) -> None:
    _edit(lp.with_note, at, st.session_state.get(f"plan_note_{at}", ""))


def _load_sample() -> None:
    st.session_state[PLAN] = lp.SAMPLE_PLANS[st.session_state["plan_sample"]]
    st.session_state[AT] = None


def _read_file() -> None:
    upload = st.session_state.get("plan_file")
    if upload is None:
        return
    try:
        st.session_state[PLAN] = lp.from_json(upload.getvalue(), URL_PATHS)
        st.session_state[AT] = None
    except ValueError as exc:
        st.session_state["_plan_error"] = str(exc)


def _play() -> None:
    st.session_state[PLAYING] = True
    st.session_state["_presenting"] = True  # presentation mode's own key (ui.frame.presentation)
    st.session_state[_PENDING] = 0


def panel(ds, page: str) -> None:
    """The sidebar's "Lecture plan" expander."""
    current = plan()
    # one label whatever the plan holds: a new label would be a new, closed expander
    with st.sidebar.expander("Lecture plan", icon=":material/slideshow:"):
        st.caption(f"{current.title}: {len(current)} views" if len(current) else "No views yet.")
        error = st.session_state.pop("_plan_error", None)
        if error:
            st.error(error)
        st.text_input(
            "Note for this view (the slide's caption)", key="plan_new_note", max_chars=lp.MAX_NOTE
        )
        st.button(
            "Add this view to the plan", key="plan_add", icon=":material/add:",
            on_click=_add, args=(ds, page), width="stretch",
            help="The page, its data, model, threshold and settings, with the note.",
        )  # fmt: skip
        for i, view in enumerate(current.views):
            st.session_state[f"plan_note_{i}"] = view.note
            where = (view.upload and f" · upload {view.upload}") or (
                f" · {view.link.get('dataset', '')}" if "dataset" in view.link else ""
            )
            st.text_input(
                f"{i + 1}. {view.title or TITLES.get(view.page, view.page)}{where}",
                key=f"plan_note_{i}", on_change=_noted, args=(i,), max_chars=lp.MAX_NOTE,
            )  # fmt: skip
            row = st.container(horizontal=True)
            row.button("", key=f"plan_show_{i}", icon=":material/visibility:", help="Open",
                       on_click=show, args=(i,))  # fmt: skip
            row.button("", key=f"plan_up_{i}", icon=":material/arrow_upward:", help="Move up",
                       disabled=i == 0, on_click=_edit, args=(lp.move, i, -1))  # fmt: skip
            row.button("", key=f"plan_down_{i}", icon=":material/arrow_downward:",
                       help="Move down", disabled=i == len(current) - 1,
                       on_click=_edit, args=(lp.move, i, 1))  # fmt: skip
            row.button("", key=f"plan_remove_{i}", icon=":material/delete:", help="Remove",
                       on_click=_edit, args=(lp.remove, i))  # fmt: skip
        if len(current):
            st.button(
                "Play in presentation mode", key="plan_play", icon=":material/play_arrow:",
                type="primary", on_click=_play, width="stretch",
                help="PageDown / PageUp walk the views; Esc leaves.",
            )  # fmt: skip
            st.download_button(
                "Download the plan (JSON)", lp.to_json(current), file_name="lecture-plan.json",
                mime="application/json", key="plan_download", width="stretch",
            )  # fmt: skip
            if lp.linkable(current):
                st.caption("The plan's link (bundled, typed and synthetic data travel in it):")
                st.code(f"{_base_url()}?{QUERY}={lp.to_link(current)}", language=None)
            else:
                st.caption("An upload cannot travel in a link: download the plan as a file.")
        st.selectbox("Sample plans", list(lp.SAMPLE_PLANS), key="plan_sample")
        st.button("Load the sample plan", key="plan_load_sample", on_click=_load_sample)
        st.file_uploader("Open a plan file", type=["json"], key="plan_file", on_change=_read_file)


def _base_url() -> str:
    try:
        url = st.context.url or ""
    except Exception:  # an older runtime without the page's address
        url = ""
    return url.split("?", 1)[0]

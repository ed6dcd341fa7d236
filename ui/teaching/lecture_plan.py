"""Lecture plans: a list of views (a page, its data, model, threshold and settings, and a
one-line note) that a lecturer prepares, reorders and plays like slides.

Pure logic, no Streamlit: a :class:`Plan` is made, edited (:func:`add`, :func:`move`,
:func:`remove`, :func:`with_note`), walked (:func:`step`), saved as a small JSON file
(:func:`to_json` / :func:`from_json`) or a link's value (:func:`to_link` / :func:`from_link`),
and every way in is validated: a bad plan gives one sentence (``ValueError``) saying what is
wrong. A view's data is the link its source writes (``{"dataset": "breast_cancer", "model":
..., "threshold": [...]}`` for a bundled sample, a typed example's or a synthetic table's own
parameters); an upload cannot travel in a plan, so a view names it (``upload``) and the
lecturer uploads it again.
"""

from __future__ import annotations

import base64
import json
import math
import re
import zlib
from collections.abc import Collection, Mapping
from dataclasses import dataclass, field, replace

from ui.analyses.threshold_presets import beta_problem, prevalence_problem

__all__ = [
    "FORMAT",
    "MAX_NOTE",
    "MAX_VIEWS",
    "SAMPLE_PLANS",
    "Plan",
    "View",
    "add",
    "from_json",
    "from_link",
    "linkable",
    "move",
    "remove",
    "step",
    "to_json",
    "to_link",
    "with_note",
]

FORMAT = "metrics-lens lecture plan"  # the file's "format" field, so any JSON is not a plan
VERSION = 1
MAX_VIEWS = 60  # a 50-minute class at most a view a minute, with room
MAX_NOTE = 160  # one line under the slide
MAX_BYTES = 200_000  # a plan file is small: a larger one is not a plan
_KEY = re.compile(r"[A-Za-z][A-Za-z0-9_]{0,63}")
_SCALAR = (str, int, float, bool, type(None))
# Settings whose values a page reads as numbers with bounds: a plan that breaks one is refused
# when it is read, in its own sentence (the page checks them again: a link can be old).
_CHECKS = {"threshold_prevalence": prevalence_problem, "threshold_beta": beta_problem}


@dataclass(frozen=True)
class View:
    """One slide: ``page`` (its URL path, "" for the first page), ``link`` (the query
    parameters that open its data, model and thresholds), ``settings`` (the page's widget
    values by key), ``note`` (the caption), ``upload`` (the upload's file name, when the data
    was one) and ``title`` (the page's title, for the list)."""

    page: str
    title: str = ""
    link: Mapping[str, str | list[str]] = field(default_factory=dict)
    settings: Mapping[str, object] = field(default_factory=dict)
    note: str = ""
    upload: str = ""


@dataclass(frozen=True)
class Plan:
    title: str
    views: tuple[View, ...] = ()

    def __len__(self) -> int:
        return len(self.views)


# --- editing ---------------------------------------------------------------------------------


def add(plan: Plan, view: View) -> Plan:
    if len(plan.views) >= MAX_VIEWS:
        raise ValueError(f"A plan holds at most {MAX_VIEWS} views: remove one before adding.")
    return replace(plan, views=(*plan.views, _checked_view(_as_dict(view), len(plan.views))))


def move(plan: Plan, at: int, by: int) -> Plan:
    """The plan with view ``at`` moved ``by`` places (clamped to the list's ends)."""
    views = list(plan.views)
    to = min(max(at + by, 0), len(views) - 1)
    views.insert(to, views.pop(at))
    return replace(plan, views=tuple(views))


def remove(plan: Plan, at: int) -> Plan:
    return replace(plan, views=plan.views[:at] + plan.views[at + 1 :])


def with_note(plan: Plan, at: int, note: str) -> Plan:
    views = list(plan.views)
    views[at] = replace(views[at], note=_note(note, at))
    return replace(plan, views=tuple(views))


def step(n: int, at: int | None, by: int) -> int | None:
    """The view ``by`` places from ``at`` in a plan of ``n`` views (None: not started, so the
    first), or None past either end (the lecture stays where it is)."""
    if n == 0:
        return None
    if at is None:
        return 0
    to = at + by
    return to if 0 <= to < n else None


# --- saving and reading ----------------------------------------------------------------------


def to_json(plan: Plan) -> str:
    body = {
        "format": FORMAT,
        "version": VERSION,
        "title": plan.title,
        "views": [_as_dict(v) for v in plan.views],
    }
    return json.dumps(body, ensure_ascii=False, indent=1)


def from_json(text: str | bytes, pages: Collection[str] | None = None) -> Plan:
    """The plan in a file's text; ``ValueError`` with one sentence when it is not one.
    ``pages``: the app's page paths, so a view of a page that does not exist is refused."""
    if isinstance(text, bytes):
        if len(text) > MAX_BYTES:
            raise ValueError(_too_big(len(text)))
        try:
            text = text.decode("utf-8")
        except UnicodeDecodeError:
            raise ValueError("The plan file is not UTF-8 text: save it as JSON again.") from None
    if len(text) > MAX_BYTES:
        raise ValueError(_too_big(len(text)))
    try:
        body = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(
            f"The plan file is not valid JSON (line {exc.lineno}, column {exc.colno}): "
            "download the plan again and upload that file."
        ) from None
    return _checked_plan(body, pages)


def to_link(plan: Plan) -> str:
    """The plan as one URL-safe value (compressed JSON); refused when a view is an upload."""
    if not linkable(plan):
        names = sorted({v.upload for v in plan.views if v.upload})
        raise ValueError(
            f"A link cannot carry an upload ({', '.join(names)}): save the plan as a file, "
            "or use bundled, typed or synthetic data."
        )
    raw = json.dumps(json.loads(to_json(plan)), separators=(",", ":")).encode()
    return base64.urlsafe_b64encode(zlib.compress(raw, 9)).decode().rstrip("=")


def from_link(value: str, pages: Collection[str] | None = None) -> Plan:
    try:
        raw = zlib.decompress(base64.urlsafe_b64decode(value + "=" * (-len(value) % 4)))
    except (ValueError, zlib.error):
        raise ValueError("The link's plan is damaged: ask for the link again.") from None
    return from_json(raw, pages)


def linkable(plan: Plan) -> bool:
    return not any(v.upload for v in plan.views)


# --- validation ------------------------------------------------------------------------------


def _too_big(n: int) -> str:
    return f"The plan file has {n:,} bytes; a plan is at most {MAX_BYTES:,}: is it the right file?"


def _checked_plan(body, pages: Collection[str] | None) -> Plan:
    if not isinstance(body, dict) or body.get("format") != FORMAT:
        raise ValueError(
            f'This JSON is not a lecture plan (no "format": "{FORMAT}"): upload a file saved '
            'with "Download the plan".'
        )
    if body.get("version") != VERSION:
        raise ValueError(
            f"The plan is version {body.get('version')!r}; this app reads version {VERSION}."
        )
    title = body.get("title", "")
    if not isinstance(title, str) or len(title) > 120 or "\n" in title:
        raise ValueError("The plan's title must be one line of at most 120 characters.")
    views = body.get("views")
    if not isinstance(views, list) or not views:
        raise ValueError('The plan has no views: its "views" must be a list of at least one.')
    if len(views) > MAX_VIEWS:
        raise ValueError(f"The plan has {len(views)} views; a plan holds at most {MAX_VIEWS}.")
    checked = tuple(_checked_view(v, i) for i, v in enumerate(views))
    if pages is not None:
        for i, v in enumerate(checked):
            if v.page not in pages:
                raise ValueError(
                    f"View {i + 1} opens the page {v.page!r}, which this app does not have."
                )
    return Plan(title.strip(), checked)


def _checked_view(v, i: int) -> View:
    where = f"View {i + 1}"
    if not isinstance(v, dict):
        raise ValueError(f"{where} is not an object with a page, its data and a note.")
    page = v.get("page")
    if not isinstance(page, str) or not re.fullmatch(r"[a-z0-9_]{0,40}", page):
        raise ValueError(f'{where} has no page (a name such as "threshold" or "gauc").')
    link = v.get("link", {})
    if not isinstance(link, dict) or not all(_KEY.fullmatch(str(k)) for k in link):
        raise ValueError(f"{where}'s data link must map names to text.")
    for key, value in link.items():
        values = value if isinstance(value, list) else [value]
        if not all(isinstance(x, str) and len(x) <= 20_000 for x in values):
            raise ValueError(f"{where}'s data link has a value for {key!r} that is not text.")
    settings = v.get("settings", {})
    if not isinstance(settings, dict):
        raise ValueError(f"{where}'s settings must map setting names to values.")
    for key, value in settings.items():
        if not _KEY.fullmatch(str(key)) or not _setting_ok(value):
            raise ValueError(
                f"{where}'s setting {str(key)[:40]!r} is not a name with a number, a text, "
                "a yes/no or a list of them."
            )
        if key in _CHECKS and (problem := _CHECKS[key](value)):
            raise ValueError(f"{where}'s setting {key!r}: {problem}")
    upload, title = v.get("upload", ""), v.get("title", "")
    if not isinstance(upload, str) or len(upload) > 255:
        raise ValueError(f"{where}'s upload must be a file name.")
    if not isinstance(title, str) or len(title) > 80:
        raise ValueError(f"{where}'s title must be a short text.")
    return View(page, title, dict(link), dict(settings), _note(v.get("note", ""), i), upload)


def _setting_ok(value) -> bool:
    if isinstance(value, float) and not math.isfinite(value):
        return False
    if isinstance(value, _SCALAR):
        return not isinstance(value, str) or len(value) <= 2_000
    if isinstance(value, list) and len(value) <= 200:
        return all(isinstance(x, _SCALAR) and _setting_ok(x) for x in value)
    return False


def _note(note, i: int) -> str:
    if not isinstance(note, str):
        raise ValueError(f"View {i + 1}'s note must be text.")
    note = " ".join(note.split())  # one line
    if len(note) > MAX_NOTE:
        raise ValueError(
            f"View {i + 1}'s note has {len(note)} characters; a note is one line of at most "
            f"{MAX_NOTE}."
        )
    return note


def _as_dict(v: View) -> dict:
    out = {"page": v.page, "title": v.title, "link": dict(v.link), "settings": dict(v.settings)}
    if v.note:
        out["note"] = v.note
    if v.upload:
        out["upload"] = v.upload
    return out


# --- the plans that ship ---------------------------------------------------------------------


def _bundled(page: str, title: str, dataset: str, model: str, note: str, **settings) -> View:
    link = {"dataset": dataset, "model": model} if model else {"dataset": dataset}
    return View(page, title, link, settings, note)


def _threshold(dataset: str, model: str, value: float, note: str, **settings) -> View:
    link = {"dataset": dataset, "model": model, "threshold": [f"{model}:{value:g}"]}
    return View("", "Threshold", link, settings, note)


# Written from the source articles' worked examples (sample_data/README and the seeds): the
# lecture notes' confusion matrix and precision / recall / F (003), AP as scikit-learn's step
# sum = 5/6 against the trapezoid 0.7917 (000, 002), the 11-point and all-point VOC AP (001),
# mAP 11/12 and the averaging modes (000), ROC AUC by pairs with a tie counting 1/2 (004).
_LR, _BC = "logistic_regression", "breast_cancer"
SAMPLE_PLANS = {
    "Precision, recall and AP in 50 minutes": Plan(
        "Precision, recall and AP in 50 minutes",
        (
            _threshold(_BC, _LR, 0.5, "Every row is a decision: the confusion matrix at 0.5."),
            _threshold(
                _BC,
                _LR,
                0.9,
                "Raise the threshold: precision goes up, recall goes down.",
            ),
            _threshold(
                _BC,
                _LR,
                0.5,
                "Same threshold, another class balance: move Prevalence; ROC stays, PR moves.",
            ),
            _bundled("curves", "Curves", _BC, _LR, "Every threshold at once: ROC and PR curves."),
            _bundled(
                "step_through",
                "Step through",
                _BC,
                _LR,
                "Lower the threshold one distinct score at a time; AP sums precision × Δrecall.",
            ),
            _bundled(
                "ap_lab",
                "AP lab",
                _BC,
                _LR,
                "AP = 5/6 as scikit-learn's step sum; the old trapezoid gives 0.7917.",
            ),
            _bundled(
                "multilabel",
                "Multi-class & multi-label",
                "digits_multilabel",
                "",
                "mAP: the macro average of per-class APs (the worked example's 11/12).",
            ),
            _bundled(
                "lessons",
                "Lessons",
                _BC,
                _LR,
                "Your turn: predict the number, then check it.",
            ),
        ),
    ),
    "Why GAUC": Plan(
        "Why GAUC",
        (
            _bundled(
                "auc_lab",
                "AUC lab",
                _BC,
                _LR,
                "AUC counts ordered positive-negative pairs; a tied pair counts one half.",
            ),
            View(
                "",
                "Threshold",
                {"dataset": "user_impressions", "model": "model_a"},
                {},
                "One global ranking over every user's impressions.",
            ),
            View(
                "gauc",
                "GAUC",
                {"dataset": "user_impressions", "model": "model_a"},
                {},
                "Per-user AUC, weighted by impressions; users with one class are skipped.",
            ),
            View(
                "compare",
                "Compare models",
                {"dataset": "user_impressions", "model": "model_a"},
                {},
                "Global AUC and GAUC can rank two models differently.",
            ),
        ),
    ),
}

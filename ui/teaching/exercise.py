"""The machinery of the lessons: an exercise, a lesson, the verdict on an answer, reading and
checking answers, and the helpers every lesson draws its table with.

Pure logic, no Streamlit. A :class:`Lesson` makes an :class:`Exercise` from a seed: the table,
the question, the answer (always computed by the :mod:`metrics` library, never typed in), the
tolerance an answer is checked with, and the derivation as LaTeX lines for the Explain
expander.
"""

from __future__ import annotations

import math
import re
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from fractions import Fraction

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from ui.words.numbers import decimals

__all__ = [
    "DEFAULT_TOLERANCE",
    "Exercise",
    "Lesson",
    "Verdict",
    "attempt_key",
    "binary_draw",
    "check_answer",
    "distinct_traps",
    "hinted",
    "parse_number",
    "rows_table",
    "seeded_rng",
]

DEFAULT_TOLERANCE = 0.005  # an answer to two decimals counts


@dataclass(frozen=True)
class Exercise:
    """One question on one table. ``answer`` is a float (``kind="number"``) or one of
    ``options`` (``kind="choice"``)."""

    table: pd.DataFrame
    context: str
    question: str
    answer: float | str
    derivation: tuple[str, ...]
    note: str = ""
    kind: str = "number"
    options: tuple[str, ...] = ()
    tolerance: float = DEFAULT_TOLERANCE
    facts: dict[str, float] = field(default_factory=dict)  # other numbers worth showing
    curves: tuple[np.ndarray, np.ndarray] | None = None  # (labels, scores) for ROC and PR
    figure: go.Figure | None = None  # a chart of the lesson's own (beside the ROC when curves)
    # What a wrong first answer is told instead of the answer: the idea most often missed here.
    hint: str = ""
    # Wrong answers a known misconception gives, each with the hint that names it: (value, hint).
    traps: tuple[tuple[float | str, str], ...] = ()


@dataclass(frozen=True)
class Lesson:
    key: str
    title: str
    topic: str
    make: Callable[[int], Exercise]
    source: str = ""  # a public source for a worked example
    worked: bool = False


@dataclass(frozen=True)
class Verdict:
    correct: bool | None  # None: the answer could not be read
    message: str
    hint: str = ""  # for a wrong answer: the misconception it shows, or the lesson's hint


# --- answers ---------------------------------------------------------------------------------


def parse_number(text: str | float) -> float | None:
    """A number as a learner types it: 0.83, .83, 0,83, 83%, 5/6, 99.99 %. None if unreadable."""
    if isinstance(text, (int, float)):
        return float(text) if math.isfinite(float(text)) else None
    s = str(text).strip().replace(" ", "").replace("−", "-")
    if not s:
        return None
    percent = s.endswith("%")
    s = s.rstrip("%")
    if re.fullmatch(r"-?\d+,\d+", s):
        s = s.replace(",", ".")
    try:
        value = float(Fraction(s))
    except (ValueError, ZeroDivisionError):
        return None
    return value / 100 if percent else value


def check_answer(ex: Exercise, given: str | float | None, *, reveal: bool = True) -> Verdict:
    """Right or wrong, with the tolerance for numbers. A wrong answer gets a hint (the
    misconception its value shows when it is a known one, else the lesson's hint); it says the
    answer only with ``reveal`` (a class's second try keeps it hidden)."""
    if ex.kind == "choice":
        if given is None or given == "":
            return Verdict(None, "Pick one of the options first.")
        if given == ex.answer:
            return Verdict(True, f"Right: {ex.answer}.")
        hint = next((h for v, h in ex.traps if v == given), ex.hint)
        if reveal:
            return Verdict(False, f"Not this time: the answer is {ex.answer}, not {given}.", hint)
        return Verdict(False, f"Not this time: not {given}.", hint)
    value = parse_number(given) if given is not None else None
    if value is None:
        return Verdict(None, "Type a number, such as 0.75, 3/4 or 75%, and check again.")
    answer = float(ex.answer)
    within = f"answers within {ex.tolerance:g} count"
    if abs(value - answer) <= ex.tolerance + 1e-12:
        return Verdict(True, f"Right: {_show(answer)} (you said {_show(value)}; {within}).")
    hint = next((h for v, h in ex.traps if abs(value - float(v)) <= ex.tolerance + 1e-12), ex.hint)
    if reveal:
        return Verdict(
            False,
            f"Not quite: the answer is {_show(answer)}, you said {_show(value)} ({within}).",
            hint,
        )
    return Verdict(False, f"Not quite: you said {_show(value)} ({within}).", hint)


def attempt_key(ex: Exercise, given: str | float | None) -> str | None:
    """What makes two submissions one attempt: the option picked, or the number read (0.75,
    3/4 and 75% are one answer). None for an answer that cannot be read (it counts as no
    attempt). Enter in the answer box and a click on Check send the same answer twice; a class
    must not lose its second try, or see the derivation, to that."""
    if ex.kind == "choice":
        return None if given is None or given == "" else str(given)
    value = parse_number(given) if given is not None else None
    return None if value is None else f"{value:.12g}"


def distinct_traps(answer: float, tolerance: float, *pairs: tuple[float, str]) -> tuple:
    """The misconceptions whose value differs from the answer (a trap equal to the answer
    would call a right answer wrong), the first of equal values kept."""
    kept: list[tuple[float, str]] = []
    for value, hint in pairs:
        value = float(value)
        if not math.isfinite(value) or abs(value - answer) <= 2 * tolerance:
            continue
        if all(abs(value - v) > 1e-12 for v, _ in kept):
            kept.append((value, hint))
    return tuple(kept)


def _show(x: float) -> str:
    exact = Fraction(x).limit_denominator(100)
    text = decimals(x).rstrip("0").rstrip(".") if abs(x) >= 1e-4 or x == 0 else f"{x:.2e}"
    if abs(float(exact) - x) < 1e-12 and exact.denominator > 1:
        return f"{text} = {exact.numerator}/{exact.denominator}"
    return text


def hinted(ex: Exercise, hint: str, *traps: tuple[float, str]) -> Exercise:
    """The exercise with its hint and the traps whose value is not the answer."""
    kept = distinct_traps(float(ex.answer), ex.tolerance, *traps) if ex.kind == "number" else traps
    return replace(ex, hint=hint, traps=kept)


def seeded_rng(key: str, seed: int) -> np.random.Generator:
    return np.random.default_rng([zlib.crc32(key.encode()), seed])


def rows_table(y, s, **extra) -> pd.DataFrame:
    table = pd.DataFrame({"row": np.arange(1, len(y) + 1), "label": np.asarray(y).astype(int)})
    table["score"] = np.asarray(s, dtype=float)
    for name, values in extra.items():
        table[name] = values
    return table


def binary_draw(rng: np.random.Generator, n: int, ties: bool) -> tuple[np.ndarray, np.ndarray]:
    """A small table with both classes whose positives score higher on average."""
    while True:
        y = rng.random(n) < 0.5
        if 2 <= y.sum() <= n - 2:
            break
    s = np.clip(rng.normal(0.45 + 0.25 * y, 0.2), 0.01, 0.99)
    s = np.round(s, 1 if ties else 2)
    return y.astype(int), s

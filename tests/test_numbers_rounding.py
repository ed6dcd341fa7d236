"""Displayed numbers round half up, as a student rounds by hand (0.78125 -> 0.7813), and carry
their exact fraction when it is short (25/32). Off the ties, the formatters write exactly what
Python's own format writes, so nothing else on the pages moves."""

from __future__ import annotations

import math
from decimal import Decimal
from fractions import Fraction

import pytest
from hypothesis import assume, example, given
from hypothesis import strategies as st

from ui.words.numbers import decimals, significant, with_fraction
from ui.words.text import num

finite = st.floats(
    allow_nan=False, allow_infinity=False, allow_subnormal=False, min_value=-1e12, max_value=1e12
)
places = st.integers(min_value=0, max_value=8)
digits = st.integers(min_value=1, max_value=8)


def _tie_at(x: float, step: Decimal) -> bool:
    """Whether x, as Python writes it or as the double it is, lies exactly half-way between
    two multiples of step."""
    return any(
        (d / step) % 1 in (Decimal("0.5"), Decimal("-0.5")) for d in (Decimal(repr(x)), Decimal(x))
    )


def _digits(text: str) -> int:
    """Significant digits a fixed-point text asks of the double."""
    return len(text.lstrip("-").replace(".", "").lstrip("0"))


@pytest.mark.parametrize(
    ("x", "p", "text"),
    [(0.78125, 4, "0.7813"), (-0.78125, 4, "-0.7813"), (0.125, 2, "0.13"), (2.675, 2, "2.68"),
     (0.5, 0, "1"), (2.5, 0, "3"), (1.005, 2, "1.01"), (-1e-9, 4, "0.0000"), (7 / 12, 4, "0.5833"),
     (math.nan, 4, "nan"), (math.inf, 2, "inf")],
)  # fmt: skip
def test_decimals_round_half_up(x, p, text):
    assert decimals(x, p) == text


@pytest.mark.parametrize(
    ("x", "d", "text"),
    [(0.78125, 4, "0.7813"), (0.78125, 3, "0.781"), (12345, 4, "1.235e+04"), (1.5e-5, 4, "1.5e-05"),
     (9.99995, 5, "10"), (0.0, 4, "0"), (2 / 3, 4, "0.6667"), (0.000125, 2, "0.00013")],
)  # fmt: skip
def test_significant_rounds_half_up(x, d, text):
    assert significant(x, d) == text


@given(finite, places)
@example(0.78125, 4)
@example(2.675, 2)
@example(549755813888.28125, 5)  # repr stops at 4 decimals: shown as written, 0.28120
def test_decimals_equal_pythons_format_off_the_ties(x, p):
    text = decimals(x, p)
    # beyond 15 significant digits a double's digits are noise: the number as written is shown
    if not _tie_at(x, Decimal(1).scaleb(-p)) and _digits(format(x, f".{p}f")) <= 15:
        expected = format(x, f".{p}f")
        assert text == (expected.lstrip("-") if float(expected) == 0 else expected)
    # always within half a unit of the last place of the number as written, ties away from 0
    error = Decimal(text) - Decimal(repr(x))
    half = Decimal(1).scaleb(-p) / 2
    assert abs(error) <= half
    if abs(error) == half:
        assert abs(Decimal(text)) > abs(Decimal(repr(x)))


@given(finite, digits)
@example(0.78125, 4)
@example(12345.0, 4)
def test_significant_equals_pythons_format_off_the_ties(x, d):
    assume(x != 0)
    step = Decimal(1).scaleb(Decimal(repr(x)).adjusted() - d + 1)
    text = significant(x, d)
    if not _tie_at(x, step):
        assert text == format(x, f".{d}g")
    assert float(text) == pytest.approx(x, rel=10.0 ** (1 - d))


@given(st.integers(-3000, 3000), st.integers(1, 100))
def test_a_short_fraction_is_shown_beside_its_decimals(a, b):
    x = a / b
    f = Fraction(a, b)
    text = with_fraction(x)
    assert text.startswith(decimals(x))
    if f.denominator > 1 and abs(f.numerator) <= 1000:
        assert text.endswith(f" = {f.numerator}/{f.denominator}")
    else:
        assert text == decimals(x)


def test_with_fraction_examples():
    assert with_fraction(12.5 / 16) == "0.7813 = 25/32"
    assert with_fraction(7 / 12) == "0.5833 = 7/12"
    assert with_fraction(0.61803398875) == "0.6180"  # no short fraction
    assert with_fraction(3.0) == "3.0000"  # a whole number has nothing to add
    assert with_fraction(math.nan) == "nan"


def test_latex_numbers_round_half_up():
    assert num(0.78125) == "0.7813"
    assert num(1234) == "1\\,234"
    assert num(2 / 3) == "0.6667"


def _tie_table():
    """Four positives and eight negatives whose model_a ranks 25 of the 32 pairs right:
    AUC = 25/32 = 0.78125 exactly, a tie at four decimals."""
    import pandas as pd

    negatives = [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8]
    positives = [0.85, 0.86, 0.65, 0.35]  # above 8, 8, 6 and 3 negatives
    return pd.DataFrame(
        {
            "label": [1] * 4 + [0] * 8,
            "model_a": positives + negatives,
            "model_b": [0.9, 0.2, 0.8, 0.3, 0.1, 0.7, 0.4, 0.6, 0.5, 0.15, 0.25, 0.35],
        }
    )


def test_compare_shows_a_tie_rounded_half_up():
    """The Compare table writes AUC 25/32 as a student rounds it, 0.7813 (it wrote 0.7812)."""
    from streamlit.testing.v1 import AppTest

    import metrics
    from tests.apptest_utils import APP, upload_frame

    frame = _tie_table()
    assert metrics.roc_auc_score(frame["label"], frame["model_a"]) == 0.78125
    at = AppTest.from_file(APP, default_timeout=60)
    at.run()
    upload_frame(at, frame, "tie.csv")
    at.switch_page("pages/compare.py").run()
    at.select_slider(key="compare_resamples").set_value(0).run()
    assert not at.exception, at.exception
    table = at.dataframe[0].value
    cell = table.loc[table["model"] == "model_a", "AUC"].iloc[0]
    assert cell.lstrip("★ ").startswith("0.7813"), cell

"""Numbers as people read them: values equal up to round-off are shown as equal, and
rounded the way a student rounds by hand.

Two routes to the same number (a step sum and an envelope sum, say) often differ in the last
bits of a double. A difference below a relative 1e-12 of the values is round-off, not a
difference, and is never displayed as one.

Displayed decimals round half up (away from zero) from the number as Python writes it
(``repr``): 0.78125 is shown as 0.7813, as a student writes it, where Python's own format
rounds the double half to even (0.7812), and 2.675 as 2.68 (the double just below 2.675 gives
2.67). :func:`decimals` and :func:`significant` replace ``f"{x:.4f}"`` and ``f"{x:.4g}"``;
:func:`with_fraction` adds the exact fraction when it is short (0.7813 = 25/32).
"""

from __future__ import annotations

import math
from decimal import ROUND_HALF_EVEN, ROUND_HALF_UP, Decimal
from fractions import Fraction

__all__ = [
    "REL_TOL",
    "count",
    "decimals",
    "difference_text",
    "exact_fraction",
    "plural",
    "same",
    "significant",
    "with_fraction",
]

REL_TOL = 1e-12
ABS_TOL = 1e-15  # near 0, where a relative tolerance means nothing


def same(a: float, b: float) -> bool:
    """Whether ``a`` and ``b`` are equal up to round-off (relative 1e-12, absolute 1e-15)."""
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    return math.isclose(a, b, rel_tol=REL_TOL, abs_tol=ABS_TOL)


def _special(x: float) -> str | None:
    """NaN and infinities as Python's format writes them."""
    return None if math.isfinite(x) else format(x, "f")


def _unsigned_zero(text: str) -> str:
    """'-0.0000' (a small negative rounded to nothing) is '0.0000'."""
    return text[1:] if text.startswith("-") and not text.strip("-0.e+") else text


def decimals(x: float, places: int = 4, *, plus: bool = False) -> str:
    """``x`` to ``places`` decimals, a tie rounded away from zero: ``f"{x:.4f}"`` as a student
    rounds (0.78125 -> '0.7813', 0.125 -> '0.13' at 2, -0.78125 -> '-0.7813'); ``plus``
    writes a sign on a number that is not negative, as ``f"{x:+.4f}"``."""
    x = float(x)
    special = _special(x)
    if special is not None:
        return special
    if plus:
        text = decimals(x, places)
        return text if text.startswith("-") else "+" + text
    step = Decimal(1).scaleb(-places)
    rounded = Decimal(repr(x)).quantize(step, rounding=ROUND_HALF_UP)
    return _unsigned_zero(f"{rounded:f}")


def significant(x: float, digits: int = 4) -> str:
    """``x`` to ``digits`` significant digits, a tie rounded away from zero, written as
    ``f"{x:.4g}"`` writes it (no trailing zeros; an exponent below 1e-4 and from 10**digits):
    0.78125 -> '0.7813', 12345 -> '1.235e+04'."""
    x = float(x)
    special = _special(x)
    if special is not None:
        return special
    d = Decimal(repr(x))
    if d.is_zero():
        return "-0" if math.copysign(1.0, x) < 0 else "0"
    rounded = d.quantize(Decimal(1).scaleb(d.adjusted() - digits + 1), rounding=ROUND_HALF_UP)
    exponent = rounded.adjusted()  # 9.9995 -> 10.00: one digit more
    if -4 <= exponent < digits:
        text = f"{rounded.quantize(Decimal(1).scaleb(min(exponent - digits + 1, 0))):f}"
        return text.rstrip("0").rstrip(".") if "." in text else text
    mantissa = f"{rounded.scaleb(-exponent):f}"
    mantissa = mantissa.rstrip("0").rstrip(".") if "." in mantissa else mantissa
    return f"{mantissa}e{exponent:+03d}"


def with_fraction(x: float, places: int = 4, max_denominator: int = 100) -> str:
    """:func:`decimals`, and ``= a/b`` when ``x`` is exactly a short fraction (a denominator up
    to ``max_denominator``, a numerator up to ten times that, not a whole number):
    '0.7813 = 25/32', '0.3333 = 1/3', '0.6180', '123.4500'."""
    text = decimals(x, places)
    f = exact_fraction(x, max_denominator, whole=False)
    if f is None or abs(f.numerator) > 10 * max_denominator:  # 2469/20 is no help
        return text
    return f"{text} = {f.numerator}/{f.denominator}"


def difference_text(value: float, reference: float, name: str) -> str:
    """``value − reference`` for a metric card's delta: "same as <name>" up to round-off."""
    if same(value, reference):
        return f"same as {name}"
    difference = value - reference
    if abs(difference) < 5e-5:
        return f"{difference:+.1e} vs {name}"
    return f"{difference:+.4f} vs {name}"


def count(x: float) -> str:
    """A count as an integer with thousands commas; a sum of sample weights (not a whole
    number) to at most 3 decimals, without trailing zeros: ``"1,234"``, ``"78.5"``,
    ``"1,234.568"`` (so a weighted cell of 78.5 reads like its neighbour 381)."""
    if float(x).is_integer():
        return f"{x:,.0f}"
    return f"{x:,.3f}".rstrip("0").rstrip(".")


def plural(count: float, noun: str, plural_form: str | None = None) -> str:
    """``"1 user"``, ``"2 users"``, ``"1,234 users"`` (an irregular plural may be given)."""
    word = noun if count == 1 else (plural_form or noun + "s")
    return f"{count:,} {word}"


def exact_fraction(
    value: float, max_denominator: int = 1000, *, whole: bool = True
) -> Fraction | None:
    """The fraction with denominator <= ``max_denominator`` that ``value`` is (equal up to
    round-off, as :func:`same` says), or None when there is none, or when it is a whole
    number and ``whole`` is False (a text that shows "= a/b" has nothing to add to "1")."""
    value = float(value)
    if not math.isfinite(value):
        return None
    f = Fraction(value).limit_denominator(max_denominator)
    if not same(float(f), value) or (f.denominator == 1 and not whole):
        return None
    return f


def shortest_cut(
    threshold: float, below: float, above: float | None = None, *, digits: int = 4
) -> float:
    """``threshold`` rounded to ``digits`` significant digits, or to as many more as it takes
    for the rounded number to lie in ``(below, above]``. With ``below`` the highest score under
    ``threshold`` and ``above`` the lowest score at or over it (``threshold`` itself when not
    given), every number there selects the same rows (``score >= cut``): the cut can be
    written, and typed back, without changing the rule (2.7217 for a score of 2.72171…, where
    2.722 would drop that row). Not finite or 0: returned as is."""
    t, low = float(threshold), float(below)
    high = t if above is None else float(above)
    if not math.isfinite(t) or t == 0:
        return t
    exact = Decimal(repr(t))
    first = digits - 1 - math.floor(math.log10(abs(t)))  # decimals of `digits` significant ones
    for decimals in range(first, first + 20):
        cut = float(exact.quantize(Decimal(1).scaleb(-decimals), rounding=ROUND_HALF_EVEN))
        if low < cut <= high:
            return cut if len(repr(cut)) <= len(repr(t)) else t  # not -1e6 for -999,901
    return t

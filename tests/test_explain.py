"""The LaTeX that 'Explain' expanders show substitutes the right numbers."""

from ui.explain import fraction, num


def test_num_formats_integers_and_floats():
    assert num(1234567) == "1\\,234\\,567"
    assert num(0.123456) == "0.1235"
    assert num(2.0) == "2"


def test_fraction_substitutes_and_divides():
    assert fraction("precision", "TP", "TP + FP", 3, 4) == (
        r"\text{precision} = \frac{TP}{TP + FP} = \frac{3}{4} = 0.75"
    )
    assert fraction("recall", "TP", "TP + FN", 0, 0).endswith("= 0")

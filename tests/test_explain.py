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


def test_auc_and_ap_lines_substitute_the_counts():
    from ui.explain import ap_lines, auc_lines

    (auc,) = auc_lines("m", 2, 2, 0.75)
    assert r"\frac{3}{2 \cdot 2} = 0.75" in auc
    (ap,) = ap_lines("m", [1, 1, 2, 2], [0, 1, 1, 2], 5 / 6, terms=3)
    assert r"(0.5 - 0) \cdot 1 + (0.5 - 0.5) \cdot 0.5 + (1 - 0.5) \cdot 0.6667 + \dots" in ap
    assert ap.endswith("= 0.8333")

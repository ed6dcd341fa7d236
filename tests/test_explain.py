"""The LaTeX that 'Explain' expanders show substitutes the right numbers."""

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as hs

from tests.strategies import examples
from ui.words.safe import md, tex_text
from ui.words.text import ap_lines, auc_lines, fraction, num, tex_name


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
    (auc,) = auc_lines("m", 2, 2, 0.75)
    assert r"\frac{3}{2 \cdot 2} = 0.75" in auc
    (ap,) = ap_lines("m", [1, 1, 2, 2], [0, 1, 1, 2], 5 / 6, terms=3)
    assert r"(0.5 - 0) \cdot 1 + (0.5 - 0.5) \cdot 0.5 + (1 - 0.5) \cdot 0.6667 + \dots" in ap
    assert ap.endswith("= 0.8333")


# --- user names inside formulas (issue 20) -----------------------------------------------------

SPECIALS = "%^&#_{}\\~$"
_SYMBOLS = {"{": "{", "}": "}", "#": "#", "$": "$", "%": "%", "&": "&", "_": "_"}
_WORDS = {"textbackslash": "\\", "textasciicircum": "^", "textasciitilde": "~"}


def _read_tex_text(tex: str) -> str:
    """What KaTeX shows for ``\\text{tex}``, token by token; AssertionError on anything that
    would not be plain text (an unescaped special, an unknown command, a brace left open)."""
    out, i = [], 0
    while i < len(tex):
        c = tex[i]
        if c == "\\":
            word = re.match(r"[A-Za-z]+", tex[i + 1 :])
            if word:
                assert word.group() in _WORDS, f"unknown command \\{word.group()} in {tex!r}"
                assert tex[i + 1 + word.end() :].startswith("{}"), tex
                out.append(_WORDS[word.group()])
                i += 1 + word.end() + 2
                continue
            assert i + 1 < len(tex), f"a backslash ends {tex!r}"
            assert tex[i + 1] in _SYMBOLS, f"bad escape in {tex!r}"
            out.append(_SYMBOLS[tex[i + 1]])
            i += 2
            continue
        assert c not in SPECIALS, f"unescaped {c!r} in {tex!r}"
        out.append(c)
        i += 1
    return "".join(out)


def _balanced(tex: str) -> bool:
    depth = 0
    for token in re.findall(r"\\.|[{}]", tex):
        depth += {"{": 1, "}": -1}.get(token, 0)
        if depth < 0:
            return False
    return depth == 0


@pytest.mark.parametrize("special", list(SPECIALS))
def test_every_tex_special_in_a_name_shows_as_itself(special):
    name = f"score{special}a{special}{special}"
    tex = tex_text(name)
    assert _balanced(tex)
    assert _read_tex_text(tex) == name
    (line,) = auc_lines(name, 2, 2, 0.75)
    assert _balanced(line)
    assert rf"\text{{AUC}}_{{\text{{{tex}}}}}" in line


@settings(max_examples=examples(300), deadline=None)
@given(name=hs.text(alphabet=hs.characters(blacklist_categories=("Cs", "Cc")), max_size=60))
def test_any_name_is_text_with_balanced_braces(name):
    tex = tex_text(name)
    assert _balanced(tex)
    assert _read_tex_text(tex) == name
    for line in (
        fraction(name, "TP", "n", 1, 2),
        *auc_lines(name, 1, 1, 1.0),
        *ap_lines(name, [1], [0], 1.0),
    ):
        assert _balanced(line)


def test_a_name_a_page_escaped_for_markdown_shows_without_backslashes():
    assert tex_name(md("model_a.v2-final")) == r"model\_a.v2-final"
    assert tex_name("model_a") == r"model\_a"
    assert tex_name("50% & up") == r"50\% \& up"

"""The positive-class guess, tested directly: the words, their case, and the rarer value."""

from __future__ import annotations

import pandas as pd
import pytest

from ui.tables.loading import guess_pos_label


@pytest.mark.parametrize(
    ("values", "expected"),
    [
        (["ok"] * 9 + ["defect"], "defect"),  # the rarer of two arbitrary values
        (["defect"] * 9 + ["ok"], "ok"),
        (["b", "a", "a"], "b"),
        (["Yes", "No", "No", "No"], "Yes"),
        (["YES", "NO", "YES", "YES"], "YES"),  # capitals, and the majority: still YES
        (["no", "yes"] * 5, "yes"),
        (["True", "False", "False"], "True"),
        (["Spam", "Ham", "Ham"], "Spam"),
        (["spam", "ham", "spam", "spam"], "spam"),
        (["not_clicked", "clicked", "not_clicked"], "clicked"),  # the word, not a substring
        (["not_clicked"] * 2 + ["clicked"] * 8, "clicked"),
        (["negative", "positive", "positive"], "positive"),
        (["neg", "pos"], "pos"),
        (["0", "1", "1", "1"], "1"),
        ([" Yes ", "No"], " Yes "),
    ],
)
def test_words_and_the_rarer_value(values, expected):
    assert guess_pos_label(pd.Series(values)) == expected


@pytest.mark.parametrize(
    ("values", "expected"),
    [
        ([1, 0, 0], 1),
        ([1, 1, 1, 0], 1),  # 1 the majority
        ([-1, 1, -1], 1),
        ([0.0, 1.0], 1),
        ([True, False, False], True),
        ([False, True, True, True], True),
    ],
)
def test_numbers_and_booleans(values, expected):
    got = guess_pos_label(pd.Series(values))
    assert got == expected
    assert type(got) is type(expected)


def test_the_rarer_value_wins_whatever_the_order_of_appearance():
    assert guess_pos_label(pd.Series(["u"] + ["v"] * 5)) == "u"
    assert guess_pos_label(pd.Series(["v"] * 5 + ["u"])) == "u"
    # "y" and "n" are the words yes and no, not arbitrary values
    assert guess_pos_label(pd.Series(["y"] + ["n"] * 5)) == "y"
    assert guess_pos_label(pd.Series(["y"] * 5 + ["n"])) == "y"
    assert guess_pos_label(pd.Series([3, 3, 7, 3])) == 7

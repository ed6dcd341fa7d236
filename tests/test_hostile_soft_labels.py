"""Soft labels outside [0, 1] (issue 50 §6): a column of shares with some values negative, past
1, infinite or missing is one problem naming the rows and what a soft label is, through every
door that reads a label column (the data layer every page and upload uses, and the commands),
never a misleading "a binary label needs two values"; dropping those rows leaves the soft label
the rest of the column is. The library's own metrics take no soft labels: a share there is a
label with too many values, said as such (tests/test_validation.py)."""

from __future__ import annotations

import numpy as np
import pandas as pd
from hypothesis import given, settings
from hypothesis import strategies as st

from metrics_lens.cli import main
from tests.strategies import examples
from ui.tables.checking import prepare
from ui.tables.loading import ColumnMapping

BAD = [-0.2, 1.5, 1 + 1e-9, -1e-300, np.inf, -np.inf, 1e308, -1e308]


@st.composite
def soft_with_hostile(draw):
    n = draw(st.integers(3, 40))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    q = rng.integers(0, 5, n) / 4  # votes of four annotators
    q[0] = 0.5  # at least one share strictly between 0 and 1
    bad_at = draw(st.lists(st.integers(1, n - 1), min_size=1, max_size=4, unique=True))
    values = draw(st.lists(st.sampled_from([*BAD, np.nan]), min_size=len(bad_at),
                           max_size=len(bad_at)))  # fmt: skip
    q[bad_at] = values
    return q, rng.random(n)


@given(soft_with_hostile())
@settings(max_examples=examples(25), deadline=None)
def test_shares_out_of_range_are_one_problem_naming_the_rows_and_dropping_them_is_soft(case):
    q, s = case
    frame = pd.DataFrame({"label": q, "m": s})
    mapping = ColumnMapping("label", ("m",))
    p = prepare(frame, mapping)
    assert not p.ok
    errors = [x for x in p.problems if x.level == "error"]
    outside = ~np.isnan(q) & ~((q >= 0) & (q <= 1))
    missing = np.isnan(q)
    said = " ".join(x.message for x in errors)
    assert "a binary label needs two" not in said
    if outside.any():
        (soft,) = [x.message for x in errors if "holds shares (a soft label)" in x.message]
        rows = soft.split("(row", 1)[1].split(")", 1)[0]  # "s 2, 3" or " 4"
        assert str(np.flatnonzero(outside)[0] + 1) in rows.lstrip("s ").split(", ")
        assert "from 0 to 1" in said
    if missing.any():
        assert "missing value" in said
    # every bad row is fixable: dropping them leaves the rest as the soft label it is
    dropped = prepare(frame, mapping, drop_bad_rows=True)
    keep = ~(outside | missing)
    clean = prepare(frame[keep].reset_index(drop=True), mapping)
    assert dropped.ok == clean.ok
    if clean.ok:
        assert dropped.soft
        np.testing.assert_array_equal(dropped.weight, clean.weight)


def test_the_commands_refuse_shares_out_of_range_in_one_line_with_exit_2(tmp_path, capsys):
    path = tmp_path / "soft.csv"
    pd.DataFrame({"label": [0.3, 0.7, 1.5, 0.2, 0.9], "m": [0.1, 0.5, 0.2, 0.9, 0.3]}).to_csv(
        path, index=False
    )
    assert main(["report", str(path), "-o", str(tmp_path / "r.html")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1
    assert "holds shares (a soft label) but has 1 value (row 3) outside [0, 1]: 1.5" in err[0]
    assert "Pass --drop-bad-rows" in err[0]

"""States that cannot lie: a state file with one field corrupted is refused in one sentence.

Valid states are written by DuckDB (unweighted with per-(user, score) tables, weighted, over
the cap so that its tables are binned, without a user column); hypothesis then corrupts ONE
field of one of them (a count, a score, a dtype, a rank, a header total, a ``.npy`` header's
declared shape, the JSON header's depth) and the file must be refused by ``load_summary`` with
one ``ValueError`` sentence naming the file, before any arithmetic and before any allocation
the file declares. The command ``python -m metrics.sql merge`` turns the same refusals into
one line and exit 2.
"""

from __future__ import annotations

import io
import json
import zipfile
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from numpy.lib import format as npy

from metrics.sql import load_summary, merge, summarize
from metrics.sql.__main__ import main as sql_main
from metrics.sql._files import MAX_HEADER_DEPTH
from tests.strategies import examples

ROOT = Path(__file__).resolve().parent.parent
KINDS = ("pairs", "weighted", "binned", "plain")


@pytest.fixture(scope="module")
def states(tmp_path_factory) -> dict[str, tuple[dict, dict]]:
    """``kind -> (header, arrays)`` of states written by the engine."""
    tmp = tmp_path_factory.mktemp("states")
    rng = np.random.default_rng(5)
    n = 400
    t = pd.DataFrame({
        "y": rng.integers(0, 2, n), "user": rng.integers(0, 25, n),
        "a": rng.integers(0, 60, n) / 60, "b": rng.normal(size=n), "w": rng.random(n) + 0.1,
    })  # fmt: skip
    t.to_parquet(tmp / "t.parquet")
    src = str(tmp / "t.parquet")
    made = {
        "pairs": summarize(src, "y", ["a", "b"], group="user", state=True),
        "weighted": summarize(src, "y", ["a"], group="user", weight="w", state=True),
        "binned": summarize(src, "y", ["b"], state=True, cap=10),
        "plain": summarize(src, "y", ["a"], state=True),
    }
    out = {}
    for kind, s in made.items():
        path = s.save(tmp / f"{kind}.npz")
        assert load_summary(path).rows == n  # the valid state loads
        with np.load(path, allow_pickle=False) as data:
            arrays = {k: data[k] for k in data.files if k != "header"}
            header = json.loads(bytes(data["header"]).decode())
        out[kind] = (header, arrays)
    return out


def _npy(array: np.ndarray, shape=None, descr=None) -> bytes:
    """``array`` as ``.npy`` bytes, its header declaring ``shape`` and ``descr`` if given."""
    buf = io.BytesIO()
    d = npy.header_data_from_array_1_0(array)
    if shape is not None:
        d["shape"] = shape
    if descr is not None:
        d["descr"] = descr
    npy.write_array_header_1_0(buf, d)
    buf.write(np.ascontiguousarray(array).tobytes())
    return buf.getvalue()


def _write(path: Path, header, arrays: dict, raw: dict | None = None, text=None) -> Path:
    """A state file: ``arrays`` as numpy writes them, ``raw`` members as given bytes."""
    members = {k: _npy(v) for k, v in arrays.items()}
    body = text if text is not None else json.dumps(header)
    members["header"] = _npy(np.frombuffer(body.encode(), np.uint8))
    members.update(raw or {})
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        for k, b in members.items():
            z.writestr(f"{k}.npy", b)
    return path


def _counts(arrays: dict) -> list[str]:
    return sorted(k for k in arrays if k.rsplit("_", 1)[1] in ("pos", "neg", "rows"))


@st.composite
def corruptions(draw, states):
    """``(kind, header, arrays, raw, text, words)``: one state with ONE field corrupted, and
    words the refusal must contain."""
    kind = draw(st.sampled_from(KINDS))
    header, arrays = states[kind]
    header, arrays = json.loads(json.dumps(header)), dict(arrays)
    raw, text = {}, None
    how = draw(st.sampled_from((
        "negative count", "fractional count", "nan score", "unsorted scores", "header total",
        "huge shape", "short member", "rank", "object dtype", "complex dtype", "deep header",
        "huge count", "cut array", "rows total",
    )))  # fmt: skip
    key = draw(st.sampled_from(_counts(arrays)))
    a = arrays[key]
    i = draw(st.integers(0, a.size - 1))
    scores = draw(st.sampled_from(sorted(k for k in arrays if k.endswith("_scores"))))
    words = "not a"
    if how == "negative count":
        a = a.copy()
        a[i] = -draw(st.integers(1, 10**6))
        arrays[key], words = a, "negative counts"
    elif how == "fractional count":
        if kind == "weighted" and not key.endswith("_rows"):
            a = a.copy()
            a[i] = draw(st.sampled_from((np.inf, -np.inf, np.nan)))
            words = "finite"
        else:
            a = a.astype(np.float64) + 0.5
            words = "float64" if key.endswith("_rows") else "not whole counts"
        arrays[key] = a
    elif how == "nan score":
        s = arrays[scores].copy()
        s[draw(st.integers(0, s.size - 1))] = np.nan
        arrays[scores], words = s, "NaN scores"
    elif how == "unsorted scores":
        s = arrays[scores].copy()
        j = draw(st.integers(0, s.size - 2))
        s[j + 1] = s[j] if draw(st.booleans()) else s[j] + 1.0  # a tie, or a rise
        assume(not np.array_equal(s, arrays[scores]))
        arrays[scores], words = s, "not"
    elif how == "header total":
        meta = next(iter(header["models"].values()))
        field = draw(st.sampled_from(("n_pos", "n_neg", "distinct_scores")))
        if field == "distinct_scores" and kind == "binned":
            field = "n_pos"
        meta[field] += draw(st.integers(1, 10**9))
        words = "header says"
    elif how == "rows total":
        header["rows"] += draw(st.integers(1, 10**9))
        words = "header says"
    elif how == "huge shape":
        n = draw(st.integers(7, 15))
        raw[f"{key}"] = _npy(a, shape=(10**n,))
        words = "declares a shape"
    elif how == "short member":
        raw[f"{key}"] = _npy(a, shape=(a.size + draw(st.integers(1, 1000)),))
        words = "declares a shape"
    elif how == "rank":
        arrays[key] = a.reshape(-1, 1) if draw(st.booleans()) else np.stack([a, a])
        words = "shape"
    elif how == "object dtype":
        raw[key] = _npy(a, descr="|O")
        words = "not plain numbers"
    elif how == "complex dtype":
        arrays[key] = a.astype(np.complex128)
        words = "not plain numbers"
    elif how == "deep header":
        depth = draw(st.integers(MAX_HEADER_DEPTH + 1, 200_000))
        text = json.dumps(header)[:-1] + ', "x": ' + "[" * depth + "]" * depth + "}"
        words = "levels deep"
    elif how == "huge count":
        a = a.astype(np.int64) if a.dtype.kind == "f" else a.copy()
        a[i] = 2**62 + draw(st.integers(0, 2**62 - 1))
        arrays[key], words = a, "not"
    elif how == "cut array":
        arrays[key], words = a[:i], "not"
    return kind, how, header, arrays, raw, text, words


@settings(
    max_examples=examples(120),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(data=st.data())
def test_a_state_with_one_field_corrupted_is_refused_in_one_sentence(states, tmp_path, data):
    _, how, header, arrays, raw, text, words = data.draw(corruptions(states))
    bad = _write(tmp_path / "bad.npz", header, arrays, raw, text)
    with pytest.raises(ValueError, match=r"bad\.npz") as e:
        load_summary(bad)
    message = str(e.value)
    assert "\n" not in message, (how, message)
    assert words in message, (how, message)


def test_every_state_written_honestly_still_loads_and_merges(states, tmp_path):
    for kind, (header, arrays) in states.items():
        good = _write(tmp_path / f"{kind}.npz", header, arrays)
        s = load_summary(good)
        if kind != "binned":  # score ranges do not merge (a StateError of its own)
            assert merge([s, good]).rows == 2 * s.rows


def test_states_whose_rows_together_pass_2_62_are_not_merged(states, tmp_path):
    header, arrays = states["plain"]
    s = load_summary(_write(tmp_path / "s.npz", header, arrays))
    big = [load_summary(_write(tmp_path / "s.npz", header, arrays)) for _ in range(2)]
    for b in big:
        b.rows = 2**61  # as two honest states of 2^61 rows each would say
    with pytest.raises(ValueError, match="would overflow"):
        merge(big)
    assert merge([s, s]).rows == 2 * s.rows


def test_a_state_that_declares_a_terabyte_is_refused_without_allocating(states, tmp_path):
    header, arrays = states["pairs"]
    a = arrays["0_table_pos"]
    bad = _write(tmp_path / "tb.npz", header, arrays, raw={"0_table_pos": _npy(a, (10**12,))})
    with pytest.raises(ValueError, match=r"declares a shape \(1000000000000,\) of 8,000,000"):
        load_summary(bad)


def test_a_header_too_long_is_refused_before_parsing(states, tmp_path):
    header, arrays = states["plain"]
    text = json.dumps({**header, "pad": " " * (5 << 20)})
    with pytest.raises(ValueError, match="bytes, more than"):
        load_summary(_write(tmp_path / "long.npz", header, arrays, text=text))


def test_merge_refuses_each_lie_in_one_line_with_exit_2(states, tmp_path, capsys):
    """``python -m metrics.sql merge``'s main, in process (test_sql_hostile runs the module)."""
    header, arrays = states["plain"]
    good = _write(tmp_path / "good.npz", header, arrays)
    negative = dict(arrays, **{"0_table_pos": -arrays["0_table_pos"]})
    cases = {
        "negative.npz": (dict(arrays=negative), "negative counts"),
        "huge.npz": (
            dict(arrays=arrays, raw={"0_table_neg": _npy(arrays["0_table_neg"], (10**12,))}),
            "declares a shape",
        ),
        "deep.npz": (dict(arrays=arrays, text="[" * 100_000 + "]" * 100_000), "levels deep"),
    }
    orders = ([0], [0, 1], [1, 0])  # the lie alone, first, and after a good state
    for (name, (kwargs, words)), order in zip(cases.items(), orders, strict=True):
        bad = _write(tmp_path / name, header, **kwargs)
        code = sql_main(["merge", *(str((bad, good)[k]) for k in order)])
        out, err = capsys.readouterr()
        assert code == 2, (name, err)
        lines = [x for x in err.splitlines() if not x.startswith("[metrics.sql] ")]
        assert len(lines) == 1, err
        assert words in lines[0], err
        assert name in lines[0], err
        assert "Traceback" not in err
        assert out == ""

"""Plotly's property paths, parsed once per distinct string.

Every ``update_layout(xaxis_title=...)``, ``fig.layout["plot_bgcolor"]`` or ``"margin_b" in
layout`` parses its key into a path: ``"xaxis_title"`` into ``("xaxis", "title")``. Plotly
skips the parse for plain words only; a key with an underscore (the magic-underscore keys and
properties such as ``plot_bgcolor``) goes through a chain of splits and joins each time. A
page's figures ask for a few hundred distinct keys thousands of times: the parse was a fifth
of a chart's build time (Threshold's four figures: 50 ms, 39 ms with this cache).

The parse is a pure function of the string, so :func:`install` memoises the module function
plotly calls (:func:`plotly.basedatatypes._str_to_dict_path_full`) and hands each caller its
own copy of the mutable part. Nothing changes if plotly renames it or changes what it returns:
the cache is then simply not installed (``tests/test_key_paths.py`` says so, and checks the
cached parse equals plotly's on generated keys and that figures come out the same)."""

from __future__ import annotations

import functools

import plotly.basedatatypes as _plotly

_ORIGINAL = getattr(_plotly, "_str_to_dict_path_full", None)


@functools.lru_cache(maxsize=8192)
def _parsed(key: str) -> tuple[tuple, tuple]:
    path, starts = _ORIGINAL(key)
    return tuple(path), tuple(starts)


def _str_to_dict_path_full(key_path_str):
    if not isinstance(key_path_str, str):  # not hashable as a key (plotly passes strings)
        return _ORIGINAL(key_path_str)
    path, starts = _parsed(key_path_str)
    return path, list(starts)  # plotly returns (tuple, list): the list is each caller's own


_SAMPLES = ("xaxis_title_text", "plot_bgcolor", "error_x", "annotations[0].text", "margin_b")


def _same_shape() -> bool:
    """True when this plotly's parse returns what the cache expects, (tuple, list), for keys of
    each kind: a plotly that changed it keeps its own, uncached."""
    try:
        for key in _SAMPLES:
            got = _ORIGINAL(key)
            if not (isinstance(got, tuple) and len(got) == 2 and isinstance(got[0], tuple)
                    and isinstance(got[1], list)):  # fmt: skip
                return False
    except Exception:
        return False
    return True


def install() -> bool:
    """Memoise plotly's key-path parse (once); True when it is in place."""
    if _ORIGINAL is None or not _same_shape():
        return False
    _plotly._str_to_dict_path_full = _str_to_dict_path_full
    return True


INSTALLED = install()

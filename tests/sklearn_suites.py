"""scikit-learn's own metric tests, run against our functions of the same names.

``metrics`` claims to be a drop-in for the scikit-learn metrics it names. The strongest check
of that claim is scikit-learn's own test suite: the test files installed with the pinned
scikit-learn (never copied into this repository) are loaded a second time, under a name of our
own, while ``sklearn.metrics`` answers with our functions. Every ``from sklearn.metrics import
roc_auc_score`` in the file, and every parametrize list built from those names at import time,
then holds ours; the test functions are handed to pytest from ``tests/test_sklearn_*_suite.py``.

What stays scikit-learn's: private helpers the files import (``_check_targets``,
``_ndcg_sample_scores``...), functions we do not provide (``hinge_loss``, ``d2_log_loss_score``,
``make_scorer``), scorers and estimators.

Lists in each test file say where we knowingly differ, each entry with its reason (see
``export``): ``WORDING`` (same exception or warning class, our words; run with ``match=``
dropped, and must have needed that), ``WORDING_IN_ASSERT`` (a message compared with ``assert``),
``ON_PURPOSE`` (a documented convention of ours), ``THEIRS`` (a test of a scikit-learn function
we do not provide, run with scikit-learn's warning class). Everything else must pass as written.
"""

from __future__ import annotations

import contextlib
import importlib
import importlib.util
import re
import sys
import types
import warnings

import pytest
import sklearn.exceptions
import sklearn.metrics

import metrics

# Our public names that scikit-learn's metrics also export: the names swapped in.
SWAPPED = tuple(sorted(set(metrics.__all__) & set(sklearn.metrics.__all__)))


def load_with_ours(module_name: str) -> types.ModuleType:
    """A second copy of scikit-learn's test module ``module_name`` whose ``sklearn.metrics``
    names (and ``UndefinedMetricWarning``) are ours."""
    # Import the original first, so every module it depends on (estimators, scorers, datasets)
    # is already imported with scikit-learn's own functions before the names are swapped: only
    # the copy's own ``from sklearn.metrics import ...`` reads ours.
    importlib.import_module(module_name)
    origin = importlib.util.find_spec(module_name).origin
    copy_name = "sklearn_suite_with_ours." + module_name.rsplit(".", 1)[1]
    spec = importlib.util.spec_from_file_location(copy_name, origin)
    module = importlib.util.module_from_spec(spec)
    swaps = [(sklearn.metrics, name, getattr(metrics, name)) for name in SWAPPED]
    # Our warning class is not scikit-learn's; the tests' ``pytest.warns(UndefinedMetricWarning)``
    # and ``simplefilter("error", UndefinedMetricWarning)`` must mean ours.
    swaps.append((sklearn.exceptions, "UndefinedMetricWarning", metrics.UndefinedMetricWarning))
    saved = [(owner, name, getattr(owner, name)) for owner, name, _ in swaps]
    try:
        for owner, name, ours in swaps:
            setattr(owner, name, ours)
        with warnings.catch_warnings():
            # scikit-learn's conftest registers its own marks (thread_unsafe); ours does not.
            warnings.simplefilter("ignore", pytest.PytestUnknownMarkWarning)
            spec.loader.exec_module(module)
    finally:
        for owner, name, theirs in saved:
            setattr(owner, name, theirs)
    sys.modules[copy_name] = module
    return module


class _Wording:
    """``pytest.raises`` and ``pytest.warns`` for a test in ``WORDING``: the class is checked as
    before, ``match=`` is not, and a message that would not have matched is counted, so a
    listed test that no longer differs in wording is found."""

    def __init__(self) -> None:
        self.mismatches: list[str] = []

    def _check(self, match, messages) -> None:
        if match is not None and not any(re.search(match, m) for m in messages):
            self.mismatches.append(f"{match!r} against {messages!r}")

    def raises(self, expected, *args, match=None, **kwargs):
        if args:  # pytest.raises(E, func, *args): the call form
            info = pytest.raises(expected, *args, **kwargs)
            self._check(match, [str(info.value)])
            return info
        return self._raises(expected, match, kwargs)

    @contextlib.contextmanager
    def _raises(self, expected, match, kwargs):
        with pytest.raises(expected, **kwargs) as info:
            yield info
        self._check(match, [str(info.value)])

    def warns(self, expected=Warning, *args, match=None, **kwargs):
        if args:
            return pytest.warns(expected, *args, **kwargs)
        return self._warns(expected, match, kwargs)

    @contextlib.contextmanager
    def _warns(self, expected, match, kwargs):
        with pytest.warns(expected, **kwargs) as record:
            yield record
        self._check(match, [str(w.message) for w in record if issubclass(w.category, expected)])


class _PytestForWording(types.ModuleType):
    """The ``pytest`` a wording-listed test sees: ours for ``raises`` / ``warns``, the real one
    for everything else."""

    def __init__(self, wording: _Wording) -> None:
        super().__init__("pytest")
        self.raises = wording.raises
        self.warns = wording.warns

    def __getattr__(self, name):
        return getattr(pytest, name)


def _listed(item, table: dict[str, str]) -> str | None:
    return table.get(item.name, table.get(item.originalname))


def export(
    module: types.ModuleType,
    namespace: dict,
    *,
    wording: dict[str, str],
    wording_in_assert: dict[str, str],
    on_purpose: dict[str, str],
    theirs: dict[str, str],
    slow: dict[str, str],
) -> None:
    """Put ``module``'s tests and fixtures into ``namespace`` (a test file's globals), with the
    lists applied. Keys are test names, or one parametrization's node name (``test_x[a-b]``).

    - ``wording``: run with ``match=`` dropped, and must have needed that (see ``_Wording``);
    - ``wording_in_assert``: the test also compares a message with ``assert ... ==`` / ``in``,
      which cannot be relaxed: run as ``wording``, then ``xfail(strict)`` on ``AssertionError``,
      so it turns red if it passes or fails otherwise;
    - ``on_purpose``: a documented convention of ours that differs from scikit-learn's (not
      wording): ``xfail(strict)`` on ``AssertionError`` likewise;
    - ``slow``: marked ``slow`` (whole test names only), as the suite marks tests that start
      processes;
    - ``theirs``: the test checks a scikit-learn function we do not provide, which warns with
      scikit-learn's ``UndefinedMetricWarning``: run with that class, as it was written.
    """
    tests = {name for name in vars(module) if name.startswith("test_")}
    listed = set(wording) | set(wording_in_assert) | set(on_purpose) | set(theirs) | set(slow)
    unknown = {key for key in listed if key.split("[")[0] not in tests}
    if unknown:
        raise AssertionError(f"no such tests in {module.__name__}: {sorted(unknown)}")
    for name, value in vars(module).items():
        if name.startswith("test_") and callable(value):
            if name in slow:  # the function belongs to our copy of the module
                value = pytest.mark.slow(value)
            namespace[name] = value
        elif type(value).__name__ == "FixtureFunctionDefinition" or hasattr(
            value, "_fixture_function_marker"
        ):
            namespace[name] = value

    @pytest.fixture(autouse=True)
    def _apply_the_lists(request, monkeypatch):
        reason = _listed(request.node, wording_in_assert) or _listed(request.node, on_purpose)
        if reason is not None:
            request.applymarker(
                pytest.mark.xfail(reason=reason, strict=True, raises=AssertionError)
            )
        if _listed(request.node, theirs) is not None:
            warning = sklearn.exceptions.UndefinedMetricWarning
            monkeypatch.setattr(module, "UndefinedMetricWarning", warning)
        checker = _Wording()
        if _listed(request.node, wording_in_assert) is not None:
            monkeypatch.setattr(module, "pytest", _PytestForWording(checker))
        reason = _listed(request.node, wording)
        if reason is None:
            yield
            return
        monkeypatch.setattr(module, "pytest", _PytestForWording(checker))
        yield
        if not checker.mismatches:
            pytest.fail(f"matches scikit-learn's wording now: drop it from WORDING ({reason})")

    namespace["_apply_the_lists"] = _apply_the_lists


# scikit-learn's conftest gives these to its tests; its defaults (seed 42, float64 only unless
# SKLEARN_RUN_FLOAT32_TESTS is set) are kept.
@pytest.fixture
def global_random_seed():
    return 42


@pytest.fixture
def global_dtype():
    import numpy as np

    return np.float64

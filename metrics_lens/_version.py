"""The installed package's version (a clone says so): one place, imported by the package, the
command and the report without importing the package's ``__init__`` back."""

from __future__ import annotations

from importlib import metadata as _metadata

try:
    __version__ = _metadata.version("metrics-lens")
except _metadata.PackageNotFoundError:  # run from a clone, not installed
    __version__ = "0.1.0+clone"

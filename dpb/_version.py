"""The version of ``dpb`` (a leaf module: importing it imports nothing else of ``dpb``).

From a source checkout (``pyproject.toml`` beside the package, as with ``pip install -e .`` or
``PYTHONPATH``) the version is the checkout's own, read from ``pyproject.toml``, so that it never
lags behind an editable install's stale metadata; an installed package reads its metadata.
"""

from __future__ import annotations

import re
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path


def _version() -> str:
    pyproject = Path(__file__).resolve().parent.parent / "pyproject.toml"
    if pyproject.is_file():
        text = pyproject.read_text(encoding="utf-8")
        found = re.search(r'^\[project\][^\[]*?^version\s*=\s*"([^"]+)"', text, re.MULTILINE | re.DOTALL)
        if found:
            return found.group(1)
    try:
        return version("dpb")
    except PackageNotFoundError:  # pragma: no cover - neither installed nor a checkout
        return "0.0.0"


__version__ = _version()

__all__ = ["__version__"]

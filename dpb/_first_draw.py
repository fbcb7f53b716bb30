"""The explorers' first figures, kept on disk for the live book (``make live``).

An explorer (:func:`dpb.widgets.core.explorer`) draws its figure at its default parameters as soon
as it is built.  Some of those figures take seconds (a fresh simulation in chapter 7, the book's
cached runs in chapter 6), and a live page shows several explorers, so ``make live`` keeps each
first figure on disk: when ``$DPB_LIVE_FIGURES`` names a folder, an explorer's first draw looks
there for the PNG of the same figure and shows it instead of drawing it again; a missing one is
drawn as usual and stored.  Every later redraw (a control moved) is computed as always.

A figure is found only under a key that covers everything that makes it: the plotting function
(module and qualified name, and the one it wraps), the explorer's title, the controls' names and
values, the versions of matplotlib and numpy, and :func:`source_digest`, a SHA-256 of every
``.py`` file of the package, so any change of dpb's code makes every stored figure unreachable
(they are drawn afresh).  Without ``$DPB_LIVE_FIGURES`` nothing is read or written: the book's
build, nbval, JupyterLab and the tests draw every figure themselves.

This module imports nothing heavy at import time (``scripts/live.py`` reads :func:`source_digest`).
"""

from __future__ import annotations

import base64
import functools
import hashlib
import json
import os
from pathlib import Path

# (a private module: what the widgets and the live-book scripts use of it)
__all__ = ["ENV", "source_digest", "folder", "figure_key", "load", "store", "first_draw"]

#: The environment variable naming the folder of stored first figures (unset: no store).
ENV = "DPB_LIVE_FIGURES"
PACKAGE = Path(__file__).resolve().parent


@functools.lru_cache(maxsize=1)
def source_digest() -> str:
    """SHA-256 (hex) of the code of every ``.py`` file of the package: its path in the package and
    :func:`dpb.cache.code_digest` (the syntax tree without docstrings, so a comment or a docstring
    edited keeps the figures).

    Computed once per process: a kernel that imported dpb runs that code until it stops.
    """
    from .cache import code_digest

    h = hashlib.sha256()
    for f in sorted(PACKAGE.rglob("*.py")):
        h.update(f.relative_to(PACKAGE).as_posix().encode() + b"\0" + code_digest(f))
    return h.hexdigest()


def folder() -> Path | None:
    """The folder of ``$DPB_LIVE_FIGURES``, or None when the variable is unset or empty."""
    value = os.environ.get(ENV, "")
    return Path(value) if value else None


def _name(fn) -> str:
    return f"{getattr(fn, '__module__', '?')}.{getattr(fn, '__qualname__', type(fn).__name__)}"


def figure_key(plot, values: dict, title) -> str:
    """The key of the figure ``plot(**values)`` of the explorer titled ``title`` (hex SHA-256)."""
    import matplotlib
    import numpy

    wrapped = getattr(plot, "__wrapped__", None)
    spec = {
        "digest": source_digest(),
        "plot": _name(plot),
        "wraps": _name(wrapped) if wrapped is not None else None,
        "title": title,
        "values": {k: repr(v) for k, v in sorted(values.items())},
        "versions": [matplotlib.__version__, numpy.__version__],
    }
    return hashlib.sha256(json.dumps(spec, sort_keys=True).encode()).hexdigest()


def load(key: str) -> dict | None:
    """The stored output (``display_data`` with the PNG) under ``key``, or None."""
    where = folder()
    if where is None:
        return None
    try:
        png = (where / f"{key}.png").read_bytes()
        label = (where / f"{key}.txt").read_text()
    except OSError:
        return None
    if not png.startswith(b"\x89PNG\r\n\x1a\n"):
        return None
    return {"output_type": "display_data", "metadata": {},
            "data": {"image/png": base64.b64encode(png).decode("ascii"), "text/plain": label}}


def store(key: str, output: dict) -> bool:
    """Keep ``output`` (a figure's ``display_data``) under ``key``; False when there is no store
    or it cannot be written (a read-only folder only costs the next page a redraw)."""
    where = folder()
    data = output.get("data", {}) if isinstance(output, dict) else {}
    if where is None or "image/png" not in data:
        return False
    from ._io import write_atomic  # (numpy: not at import time)

    try:
        for suffix, payload in ((".txt", str(data.get("text/plain", "")).encode()),
                                (".png", base64.b64decode(data["image/png"]))):
            # the PNG last: its presence marks a whole entry
            write_atomic(where / f"{key}{suffix}", lambda tmp, payload=payload: tmp.write_bytes(payload))
    except OSError:
        return False
    return True


def first_draw(box, plot, title) -> bool:
    """Show the explorer ``box``'s first figure: the stored one if there is one, else draw it (and
    store it when it drew without error).  Returns whether the figure came from the store."""
    values = {name: c.value for name, c in box.controls.items()}
    key = figure_key(plot, values, title) if folder() is not None else None
    stored = load(key) if key else None
    if stored is not None:
        box.output.outputs = (stored,)
        return True
    box.redraw()
    if key and box.last_error is None and box.output.outputs:
        store(key, box.output.outputs[0])
    return False

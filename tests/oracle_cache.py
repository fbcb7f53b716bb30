"""The per-step reference's samples, kept on disk between runs of the tests.

The literal per-step simulator (:mod:`dpb.reference`) is the oracle the fast paths are compared
with, and by far the slowest part of those comparisons (one Bernoulli reward, one Beta draw, one kl
bisection at a time): about four fifths of ``test_reference_agreement.py``'s time.  Its output
depends only on its arguments and on the code it runs, so each sample is stored in
``tests/data/reference/<name>.npz`` with a key made of the arguments, numpy's version and the
package's own source hash (:func:`dpb.cache.source_hash`, as for cached results) of ``dpb.reference``,
the policies and every ``dpb`` module they import.  A stored sample is used only when its key
matches; otherwise the reference runs and the sample is stored again (written to a temporary
file, then renamed, so two test workers never read half a file).  Commit the refreshed files
after changing the package (``make oracle`` recomputes the stale ones), or CI pays the
reference's time again.

Only what the comparisons read is kept: the pseudo-regret at mid-horizon and at the horizon, and the
pull counts (a few kilobytes a sample).
"""

from __future__ import annotations

import json
import os
import tempfile
from functools import lru_cache
from pathlib import Path
from types import SimpleNamespace

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
DATA = Path(__file__).resolve().parent / "data" / "reference"


def closure() -> set[str]:
    """The ``dpb`` modules whose code a reference sample depends on: :func:`dpb.cache.source_files`
    of ``dpb.reference`` and of every module of ``dpb.policies`` (the reference finds the policies
    by listing that package, which no import shows)."""
    from dpb.cache import source_files

    return {".".join(f.relative_to(ROOT).with_suffix("").parts) for f in source_files(*_roots())}


def _roots() -> list[Path]:
    return [ROOT / "dpb" / "reference.py", *sorted((ROOT / "dpb" / "policies").glob("*.py"))]


@lru_cache(maxsize=None)
def code_stamp() -> str:
    """numpy's version and :func:`dpb.cache.source_hash` of :func:`closure`'s roots (code only:
    editing a docstring or a comment keeps the samples)."""
    from dpb.cache import source_hash

    return f"numpy {np.__version__} {source_hash(*_roots())}"


def summary(res) -> dict[str, np.ndarray]:
    """What the comparisons read of a :class:`dpb.Result`: regret at mid-horizon (the first
    checkpoint at or after ``T // 2``) and at ``T``, pull counts."""
    mid = int(np.searchsorted(res.checkpoints, res.T // 2))
    return {"regret": res.regret[:, [mid, -1]], "checkpoints": res.checkpoints[[mid, -1]],
            "pulls": res.pulls, "T": np.asarray(res.T)}


def as_result(arrays: dict) -> SimpleNamespace:
    """A stored summary with the attributes of a :class:`dpb.Result` that the tests read."""
    regret = np.asarray(arrays["regret"])
    return SimpleNamespace(regret=regret, checkpoints=np.asarray(arrays["checkpoints"]),
                           pulls=np.asarray(arrays["pulls"]), T=int(arrays["T"]),
                           runs=regret.shape[0], final_regret=regret[:, -1])


def reference_sample(name: str, **kwargs) -> SimpleNamespace:
    """``dpb.reference.reference_simulate(**kwargs)``, summarised, read from ``DATA/<name>.npz``
    when its key matches, else computed and stored."""
    from dpb.reference import reference_simulate

    key = json.dumps({"args": kwargs, "code": code_stamp()}, sort_keys=True, default=repr)
    path = DATA / f"{name}.npz"
    if path.exists():
        with np.load(path) as stored:
            if str(stored["key"]) == key:
                return as_result({k: stored[k] for k in stored.files})
    arrays = summary(reference_simulate(**kwargs))
    DATA.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=DATA, suffix=".npz.tmp")
    with os.fdopen(fd, "wb") as f:
        np.savez_compressed(f, key=np.asarray(key), **arrays)
    os.replace(tmp, path)
    return as_result(arrays)

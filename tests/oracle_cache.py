"""The per-step reference's samples, kept on disk between runs of the tests.

The literal per-step simulator (:mod:`dpb.reference`) is the oracle the fast paths are compared
with, and by far the slowest part of those comparisons (one Bernoulli reward, one Beta draw, one kl
bisection at a time): about four fifths of ``test_reference_agreement.py``'s time.  Its output
depends only on its arguments and on the code it runs, so each sample is stored in
``tests/data/reference/<name>.npz`` with a key made of the arguments, the SHA-256 of the sources of
``dpb.reference`` and of every ``dpb`` module it imports (directly or not: a superset of the code it
runs), and numpy's version.  A stored sample is used only when its key matches; otherwise the
reference runs and the sample is stored again (written to a temporary file, then renamed, so two
test workers never read half a file).  Commit the refreshed files after changing the package
(``make oracle`` recomputes the stale ones), or CI pays the reference's time again.

Only what the comparisons read is kept: the pseudo-regret at mid-horizon and at the horizon, and the
pull counts (a few kilobytes a sample).
"""

from __future__ import annotations

import ast
import hashlib
import json
import os
import tempfile
from functools import lru_cache
from pathlib import Path
from types import SimpleNamespace

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
DATA = Path(__file__).resolve().parent / "data" / "reference"


def _module_file(name: str) -> Path | None:
    base = ROOT.joinpath(*name.split("."))
    for f in (base.with_suffix(".py"), base / "__init__.py"):
        if f.exists():
            return f
    return None


def _imports(name: str, path: Path) -> set[str]:
    """The ``dpb`` modules that the module ``name`` imports, anywhere in its code."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    source = path.read_text(encoding="utf-8")
    out = set()
    if path.name == "__init__.py" and "iter_modules(" in source:
        # a package that imports its modules by listing them (dpb.policies): all of them
        out.update(f"{name}.{f.stem}" for f in path.parent.glob("*.py") if f.stem != "__init__")
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names if a.name.split(".")[0] == "dpb")
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(parts + ([base] if base else []))
            if base.split(".")[0] != "dpb":
                continue
            out.add(base)
            out.update(f"{base}.{a.name}" for a in node.names)  # a submodule, if it is one
    # a module imports its packages' __init__ too
    parts = name.split(".")
    out.update(".".join(parts[:i]) for i in range(1, len(parts)))
    return {m for m in out if _module_file(m) is not None}


def closure(module: str = "dpb.reference") -> set[str]:
    """``module`` and every ``dpb`` module it imports, transitively."""
    seen, todo = set(), [module]
    while todo:
        name = todo.pop()
        if name not in seen:
            seen.add(name)
            todo.extend(_imports(name, _module_file(name)) - seen)
    return seen


@lru_cache(maxsize=None)
def code_stamp(module: str = "dpb.reference") -> str:
    """SHA-256 of numpy's version and the sources of :func:`closure` of ``module``."""
    digest = hashlib.sha256(np.__version__.encode())
    for name in sorted(closure(module)):
        digest.update(name.encode() + b"\0" + _module_file(name).read_bytes())
    return digest.hexdigest()


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

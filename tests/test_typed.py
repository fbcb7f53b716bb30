"""The public API is typed (issue 33, item 5): ``dpb/py.typed`` ships with the package, and every
public function and method (names in ``__all__`` of the public modules, the public methods of
their classes) annotates every parameter and its return.  mypy checks the annotated code in
``make lint`` (settings: ``[tool.mypy]`` in ``pyproject.toml``).

:data:`NOT_YET` (empty now) would list modules still having public functions without complete
annotations (at most the number given); a module may not add one, and leaves the list when it has
none (this test fails when a listed module is complete, so that the list only shrinks)."""

from __future__ import annotations

import importlib
import inspect
import pkgutil
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import dpb  # noqa: E402

#: module -> its public functions still without complete annotations (the list is empty: every
#: public function is annotated; a module may not come back to it)
NOT_YET: dict = {}


def public_functions() -> dict:
    """``qualified name -> function`` of every public function and public method of a public class."""
    found = {}
    for info in pkgutil.walk_packages(dpb.__path__, "dpb."):
        if any(part.startswith("_") for part in info.name.split(".")[1:]):
            continue
        module = importlib.import_module(info.name)
        for name in getattr(module, "__all__", ()):
            obj = getattr(module, name, None)
            if inspect.isfunction(obj) and obj.__module__.startswith("dpb"):
                found[f"{obj.__module__}.{obj.__qualname__}"] = obj
            elif inspect.isclass(obj) and obj.__module__.startswith("dpb"):
                for key, value in vars(obj).items():
                    if key.startswith("_") and key != "__init__":
                        continue
                    f = (value.__func__ if isinstance(value, (staticmethod, classmethod))
                         else value.fget if isinstance(value, property) else value)
                    if inspect.isfunction(f) and f.__module__.startswith("dpb"):  # not typing's own
                        found[f"{obj.__module__}.{obj.__qualname__}.{key}"] = f
    return found


def missing(f) -> list:
    sig = inspect.signature(f)
    out = [n for i, (n, p) in enumerate(sig.parameters.items())
           if p.annotation is p.empty and not (i == 0 and n in ("self", "cls"))]
    if sig.return_annotation is sig.empty and f.__name__ != "__init__":
        out.append("return")
    return out


def test_py_typed_ships():
    assert (Path(dpb.__file__).parent / "py.typed").is_file()
    assert '"dpb" = ["py.typed"]' in (Path(dpb.__file__).parents[1] / "pyproject.toml").read_text()


def test_every_public_function_is_annotated():
    counts: dict = {}
    untyped = []
    for name, f in public_functions().items():
        if missing(f):
            module = f.__module__
            counts[module] = counts.get(module, 0) + 1
            if module not in NOT_YET:
                untyped.append(f"{name}: {', '.join(missing(f))}")
    assert not untyped, "public functions without complete annotations:\n" + "\n".join(untyped)
    over = {m: (n, NOT_YET[m]) for m, n in counts.items() if m in NOT_YET and n > NOT_YET[m]}
    assert not over, f"untyped public functions added to {over}"
    done = sorted(m for m in NOT_YET if m not in counts)
    assert not done, f"{done} are typed now: remove them from NOT_YET"

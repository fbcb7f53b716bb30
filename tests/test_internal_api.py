"""The internal API of ``dpb`` is written down: a name one module takes from another is public (in
that module's ``__all__``) or private (a leading underscore).

Every module of the package is parsed; every ``from dpb.x import name`` and relative ``from .x
import name`` of a name defined in another ``dpb`` module (not a submodule), and every ``mod.name``
read through a ``dpb`` module imported as ``mod`` (``from . import store``, ``import dpb.cache as
cache``), is checked against the ``__all__`` of the module it comes from.  A helper that loses its
underscore while other modules still take it, or a public-looking helper that no ``__all__`` lists,
fails here.  ``import *`` takes the ``__all__`` by definition and is not checked.

A private module (leading underscore) lists in its ``__all__`` the names other modules of the package
take from it: its module-internal API.  No exception list.
"""

from __future__ import annotations

import ast
import functools
import importlib
import importlib.util
from pathlib import Path

import dpb

PACKAGE = Path(dpb.__file__).resolve().parent


def module_name(path: Path, root: Path = PACKAGE) -> str:
    """``dpb.experiments.store`` for ``<root>/experiments/store.py`` (a package: its ``__init__``)."""
    parts = [root.name, *path.relative_to(root).with_suffix("").parts]
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


@functools.lru_cache(maxsize=None)
def _is_submodule(target: str, name: str) -> bool:
    mod = importlib.import_module(target)
    return hasattr(mod, "__path__") and importlib.util.find_spec(f"{target}.{name}") is not None


def imported_names(source: str, module: str, is_package: bool = False, is_submodule=_is_submodule) -> list:
    """``(line, target module, name)`` of every name ``source`` (the code of ``module``) takes from
    another ``dpb`` module: absolute and relative ``from ... import`` of a name that is not a
    submodule, at any depth (imports inside functions too; ``*`` left out), and ``mod.name`` for a
    submodule imported as ``mod`` (by ``from ... import`` or ``import dpb.x as mod``)."""
    out, aliases = [], {}
    tree = ast.parse(source)
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            aliases.update({a.asname: a.name for a in node.names if a.name.startswith("dpb.") and a.asname})
        if not isinstance(node, ast.ImportFrom):
            continue
        if node.level:
            base = module.split(".") if is_package else module.split(".")[:-1]
            base = base[: len(base) - (node.level - 1)]
            target = ".".join(base + ([node.module] if node.module else []))
        else:
            target = node.module or ""
        if target != "dpb" and not target.startswith("dpb."):
            continue
        for a in node.names:
            if a.name == "*":
                continue
            if is_submodule(target, a.name):
                aliases[a.asname or a.name] = f"{target}.{a.name}"
            else:
                out.append((node.lineno, target, a.name))
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in aliases:
            out.append((node.lineno, aliases[node.value.id], node.attr))
    return sorted(out)


def offending(imports, public_of, is_submodule=_is_submodule) -> list:
    """The ``(where, target, name)`` of ``imports`` whose name is neither underscored nor in
    ``public_of(target)`` (that module's ``__all__``), submodules left out."""
    return [(where, target, name) for where, target, name in imports
            if not name.startswith("_") and name not in public_of(target)
            and not is_submodule(target, name)]


@functools.lru_cache(maxsize=None)
def _all_of(target: str) -> tuple:
    return tuple(getattr(importlib.import_module(target), "__all__", ()))


def package_imports() -> list:
    """``(file:line, target, name)`` of every name a module of ``dpb`` imports from another."""
    out = []
    for path in sorted(PACKAGE.rglob("*.py")):
        module = module_name(path)
        for line, target, name in imported_names(path.read_text(), module, path.name == "__init__.py"):
            out.append((f"{path.relative_to(PACKAGE.parent)}:{line}", target, name))
    return out


def test_every_name_a_module_takes_from_another_is_public_or_private():
    bad = offending(package_imports(), _all_of)
    assert not bad, ("names taken from another dpb module that are neither in its __all__ nor "
                     "underscored (add them to __all__ and document them if public, else rename "
                     "them with a leading underscore):\n" + "\n".join(" ".join(b) for b in bad))


def test_the_rule_finds_a_helper_outside_all_and_lets_the_others_pass():
    source = ("from dpb.experiments.store import load, helper, _private\n"
              "from . import store as S\n"
              "import dpb.cache as cache\n"
              "def f():\n"
              "    from ..tables import format_table, not_listed\n"
              "    return S.status, S.inner, cache._p, other.attr\n")
    submodule = lambda target, name: name == "store"  # noqa: E731
    imports = imported_names(source, "dpb.experiments.scale", is_submodule=submodule)
    store = "dpb.experiments.store"
    assert imports == [(1, store, "_private"), (1, store, "helper"), (1, store, "load"),
                       (5, "dpb.tables", "format_table"), (5, "dpb.tables", "not_listed"),
                       (6, "dpb.cache", "_p"), (6, store, "inner"), (6, store, "status")]
    public = {store: ("load", "status"), "dpb.tables": ("format_table",), "dpb.cache": ()}
    found = offending(imports, public.__getitem__, submodule)
    assert found == [(1, store, "helper"), (5, "dpb.tables", "not_listed"), (6, store, "inner")]
    assert imported_names("from .x import y\n", "dpb.a", True, submodule) == [(1, "dpb.a.x", "y")]
    assert module_name(PACKAGE / "experiments" / "__init__.py") == "dpb.experiments"


def _code_measures():
    path = PACKAGE.parent / "benchmarks" / "code_measures.py"
    spec = importlib.util.spec_from_file_location("code_measures", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _circles(measures, root: Path) -> list:
    # as benchmarks/code_measures.py counts them: function-level imports included, a package's
    # __init__ importing its own submodules left out
    graph = measures.import_graph(root)
    return measures.circles({m: {d for d in deps if not m.startswith(d + ".")} for m, deps in graph.items()})


def test_no_import_circle_between_the_modules_of_the_package():
    found = _circles(_code_measures(), PACKAGE)
    assert not found, "import circles (function-level imports included):\n" + "\n".join(
        " <-> ".join(c) for c in found)


def test_the_circle_count_finds_a_function_level_circle(tmp_path):
    root = tmp_path / "pkg"
    (root / "sub").mkdir(parents=True)
    (root / "__init__.py").write_text("from . import a\n")  # a package importing its submodule: no circle
    (root / "a.py").write_text("from .sub import b\n")
    (root / "sub" / "__init__.py").write_text("")
    (root / "sub" / "b.py").write_text("def f():\n    from .. import c\n")
    (root / "c.py").write_text("import pkg.a\n")
    (root / "lone.py").write_text("from . import a\n")
    assert _circles(_code_measures(), root) == [["pkg.a", "pkg.c", "pkg.sub.b"]]

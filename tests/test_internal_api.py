"""The internal API of ``dpb`` is written down: a name one module takes from another is public (in
that module's ``__all__``) or private (a leading underscore).

Every module of the package is parsed; every ``from dpb.x import name`` and relative ``from .x
import name`` of a name defined in another ``dpb`` module (not a submodule) is checked against the
``__all__`` of the module it comes from.  A helper that loses its underscore while other modules
still take it, or a public-looking helper that no ``__all__`` lists, fails here.  ``import *`` takes
the ``__all__`` by definition and is not checked.

``PENDING`` lists the names of modules another piece of issue 35 restructures (the simulators, the
engine, the policies, the cost of a call): they are to be made public or private there.  The last
test fails as soon as an entry is no longer needed, so the list only shrinks.
"""

from __future__ import annotations

import ast
import importlib
import importlib.util
from pathlib import Path

import dpb

PACKAGE = Path(dpb.__file__).resolve().parent

#: (module, name): taken by other modules, neither in the module's __all__ nor underscored, left to
#: the restructuring of the simulators, engine and policies (issue 35, items 1 and 2).
PENDING = {
    ("dpb.cost", "call_cost"), ("dpb.cost", "check_cost"), ("dpb.cost", "transcript_cost"),
    ("dpb.cost", "uses_fast_path"),
    ("dpb.engine", "policy_generators"), ("dpb.engine", "resolve_checkpoints"),
    ("dpb.engine", "rounds_until"), ("dpb.engine", "run_seeds"), ("dpb.engine", "takes_engine"),
    ("dpb.interaction", "check_transcript"), ("dpb.interaction", "check_work"),
    ("dpb.interaction", "rewards_list"),
    ("dpb.plans", "is_integer"),
    ("dpb.policies._numerics", "xlogy"), ("dpb.policies._private_runs", "compiled"),
    ("dpb.policies._tapes", "check_engine"),
    ("dpb.policies.base", "InitialRoundRobin"), ("dpb.policies.base", "SUBCLASS_HOOKS"),
    ("dpb.policies.base", "standard_laplace"),
    ("dpb.simulate", "warm_kernels"),
}


def module_name(path: Path, root: Path = PACKAGE) -> str:
    """``dpb.experiments.store`` for ``<root>/experiments/store.py`` (a package: its ``__init__``)."""
    parts = [root.name, *path.relative_to(root).with_suffix("").parts]
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imported_names(source: str, module: str, is_package: bool = False) -> list:
    """``(line, target module, name)`` of every name imported from a ``dpb`` module in ``source``
    (the code of ``module``): absolute and relative ``from ... import``, at any depth (imports
    inside functions too), ``*`` left out."""
    out = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.ImportFrom):
            continue
        if node.level:
            base = module.split(".") if is_package else module.split(".")[:-1]
            base = base[: len(base) - (node.level - 1)]
            target = ".".join(base + ([node.module] if node.module else []))
        else:
            target = node.module or ""
        if target == "dpb" or target.startswith("dpb."):
            out += [(node.lineno, target, a.name) for a in node.names if a.name != "*"]
    return out


def _is_submodule(target: str, name: str) -> bool:
    mod = importlib.import_module(target)
    return hasattr(mod, "__path__") and importlib.util.find_spec(f"{target}.{name}") is not None


def offending(imports, public_of, is_submodule=_is_submodule) -> list:
    """The imports of ``(where, target, name)`` whose name is neither underscored nor in
    ``public_of(target)`` (that module's ``__all__``), submodules left out."""
    return [(where, target, name) for where, target, name in imports
            if not name.startswith("_") and name not in public_of(target)
            and not is_submodule(target, name)]


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
    bad = [b for b in offending(package_imports(), _all_of) if (b[1], b[2]) not in PENDING]
    assert not bad, ("names taken from another dpb module that are neither in its __all__ nor "
                     "underscored (add them to __all__ and document them if public, else rename "
                     "them with a leading underscore):\n" + "\n".join(" ".join(b) for b in bad))


def test_the_rule_finds_a_helper_outside_all_and_lets_the_others_pass():
    source = ("from dpb.experiments.store import load, helper, _private\n"
              "from . import store\n"
              "def f():\n"
              "    from ..tables import format_table, not_listed\n")
    imports = imported_names(source, "dpb.experiments.scale")
    assert imports == [(1, "dpb.experiments.store", "load"), (1, "dpb.experiments.store", "helper"),
                       (1, "dpb.experiments.store", "_private"), (2, "dpb.experiments", "store"),
                       (4, "dpb.tables", "format_table"), (4, "dpb.tables", "not_listed")]
    public = {"dpb.experiments.store": ("load",), "dpb.tables": ("format_table",), "dpb.experiments": ()}
    found = offending(imports, public.__getitem__, lambda target, name: name == "store")
    assert found == [(1, "dpb.experiments.store", "helper"), (4, "dpb.tables", "not_listed")]
    assert imported_names("from .x import y\n", "dpb.a", is_package=True) == [(1, "dpb.a.x", "y")]
    assert module_name(PACKAGE / "experiments" / "__init__.py") == "dpb.experiments"


def test_pending_names_are_still_pending():
    taken = {(t, n) for _, t, n in offending(package_imports(), _all_of)}
    done = sorted(PENDING - taken)
    assert not done, f"public or private now: remove from PENDING: {done}"

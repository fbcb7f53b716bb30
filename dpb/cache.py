"""The on-disk cache of computed results: where it lives, which code made a file, and whether a file
is still current.  Used by :mod:`dpb.experiments` (the paper's sweeps) and :mod:`dpb.regret` (the
decomposed runs of the upper-bound chapter).

- **Where.** :func:`default_results_dir`: one rule for the whole package -- ``$DPB_RESULTS`` if set,
  else ``results/`` at the root of a source checkout, else ``~/.cache/dpb``.  The experiments write
  under ``<dir>/cells``, :mod:`dpb.regret` under ``<dir>/regret``.
- **Which code.** :func:`source_hash` hashes the ``dpb`` code that produces a result: the *import
  closure* of a few root modules (every ``dpb`` module they import, transitively), each file as its
  syntax tree without docstrings, so that an edit of documentation or comments keeps the cache and
  any edit of code invalidates it.  :func:`provenance` adds the version of ``dpb``, what the bits
  depend on (:func:`arithmetic`: numpy and numba versions, the machine, the engine's arithmetic tag)
  and whether the compiled kernels were on (``DPB_JIT``, ``dpb._jit``).
- **How written.** Result files are ``.npz`` archives written atomically by
  ``dpb._io.save_npz_atomic`` (unique temporary file, then ``os.replace``): a reader sees
  no file or a complete one, whatever is killed when.
- **Current, stale or damaged.** :func:`file_state` reads every array of a file, checks it
  against the checksums the file carries (and the archive's own CRC-32 of every member), then
  compares what the file records (its ``meta["extra"]``) with what the current code would record.
"""

from __future__ import annotations

from typing import Any

import ast
import functools
import hashlib
import inspect
import json
import os
import sys
import types
from collections.abc import Mapping
from pathlib import Path

import numpy as np

from ._io import array_checksum, json_default
from ._jit import engine_name
from ._validate import as_file, as_instance, as_path
from ._version import __version__

__all__ = [
    "PACKAGE_DIR",
    "default_results_dir",
    "code_digest",
    "source_files",
    "source_hash",
    "object_digest",
    "arithmetic",
    "provenance",
    "cache_key",
    "read_meta",
    "file_state",
    "remove_orphan_temporaries",
]

#: The directory of the ``dpb`` package (file names in hashes are relative to it).
PACKAGE_DIR = Path(__file__).resolve().parent


# ----------------------------------------------------------------------------------------------
# where
# ----------------------------------------------------------------------------------------------
def default_results_dir() -> Path:
    """The results directory of every cache of ``dpb``.

    ``$DPB_RESULTS`` if the variable is set and not empty; else ``results/`` under the repository
    root when ``dpb`` runs from a source checkout (the directory holding ``pyproject.toml`` next to
    the package; ``results/`` is ignored by git); else ``~/.cache/dpb``.  Not created here: writers
    create what they need.
    """
    env = os.environ.get("DPB_RESULTS")
    if env:
        return Path(env)
    root = PACKAGE_DIR.parent
    if (root / "pyproject.toml").is_file():
        return root / "results"
    return Path.home() / ".cache" / "dpb"


# ----------------------------------------------------------------------------------------------
# which code
# ----------------------------------------------------------------------------------------------
def _module_file(parts: list[str], root: Path = PACKAGE_DIR) -> Path | None:
    """The file of the module ``parts`` under ``root`` (``a/b.py`` or ``a/b/__init__.py``); ``[]``
    is the package ``root`` itself when it has an ``__init__.py``."""
    base = root.joinpath(*parts)
    if parts and base.with_name(base.name + ".py").is_file():
        return base.with_name(base.name + ".py")
    if (base / "__init__.py").is_file():
        return base / "__init__.py"
    return None


def _inside_package(path: Path) -> bool:
    try:
        path.relative_to(PACKAGE_DIR)
    except ValueError:
        return False
    return True


def _parse(name: str, path: Path) -> ast.Module:
    """The syntax tree of the Python file ``path``; ``ValueError`` naming ``name`` when it is not
    Python source (not UTF-8, or a syntax error)."""
    try:
        return ast.parse(path.read_text(encoding="utf-8"))
    except (SyntaxError, UnicodeDecodeError, ValueError) as exc:
        raise ValueError(f"{name}: {str(path)!r} is not Python source ({type(exc).__name__}: "
                         f"{exc})") from None


def _per_version(function):
    """``function(path, *rest)`` cached per process on the file's modification time and size (the
    closures of :func:`source_files` read the same files again and again)."""
    cached = functools.lru_cache(maxsize=1024)(lambda path, mtime_ns, size, *rest: function(path, *rest))

    @functools.wraps(function)
    def wrapper(path, *rest):
        st = os.stat(path)
        return cached(path, st.st_mtime_ns, st.st_size, *rest)
    return wrapper


def _where(path: Path, node) -> tuple[Path, list[str]] | None:
    """``(root, parts)`` of the module an import statement ``node`` of ``path`` names: a ``dpb``
    module (absolute, or relative inside the package), or for a file outside the package a module
    next to it (its sibling helper modules); None for any other module."""
    inside = _inside_package(path)
    if isinstance(node, ast.ImportFrom) and node.level:
        rest = node.module.split(".") if node.module else []
        if not inside:  # a relative import of a file outside dpb: its own folder and the ones above
            if node.level - 1 > len(path.parent.parents):
                return None
            return (path.parent if node.level == 1 else path.parent.parents[node.level - 2]), rest
        pkg = list(path.relative_to(PACKAGE_DIR).parent.parts)
        if node.level - 1 > len(pkg):
            return None
        return PACKAGE_DIR, pkg[: len(pkg) - (node.level - 1)] + rest
    name = node.module if isinstance(node, ast.ImportFrom) else node
    if not name:
        return None
    parts = name.split(".")
    if parts[0] == "dpb":
        return PACKAGE_DIR, parts[1:]
    # a module or a package next to the file: a regular package (``__init__.py``) or a namespace
    # package (a folder without one, PEP 420)
    if not inside and (_module_file(parts[:1], path.parent) is not None or (path.parent / parts[0]).is_dir()):
        return path.parent, parts
    return None


@_per_version
def _dpb_imports(path: Path) -> frozenset:
    """The files whose code the Python file at ``path`` uses through its imports (see
    :func:`source_files`)."""
    found: set = set()
    for node in ast.walk(_parse("roots", path)):
        if isinstance(node, ast.Import):  # ``import a.b.c`` uses a.b.c (and runs the packages' __init__)
            wheres = [_where(path, alias.name) for alias in node.names]
            found |= {_module_file(parts, root) for root, parts in filter(None, wheres)}
        elif isinstance(node, ast.ImportFrom) and (where := _where(path, node)) is not None:
            for alias in node.names:  # a module's name, or a package's submodule or re-export
                found |= _from_files(*where, alias.name)
    return frozenset(found - {None})


def _from_files(root: Path, parts: list, name: str, depth: int = 0) -> frozenset:
    """The files that ``from <parts> import name`` uses: the submodule ``name`` of a package, the
    module ``parts`` itself, or the files a package's ``__init__`` takes ``name`` from."""
    sub = _module_file(parts + [name], root) if name != "*" else None
    if sub is not None:
        return frozenset({sub})
    f = _module_file(parts, root)
    if f is None:
        return frozenset()
    return _defining_files(f, name, depth) if f.name == "__init__.py" else frozenset({f})


@_per_version
def _defining_files(init: Path, name: str, depth: int = 0) -> frozenset:
    """The files defining ``name`` that the package ``__init__.py`` at ``init`` re-exports: the
    module it imports ``name`` from (followed through further ``__init__`` files); when the name is
    not found statically (``*``, a name made at import time), the ``__init__`` itself and every
    module of its package, since any of them may define it."""
    tree = _parse("roots", init)
    if name != "*" and depth < 8:
        for node in tree.body:  # the module level of the __init__
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node.name == name:
                return frozenset({init})
            if isinstance(node, ast.ImportFrom):
                alias = next((a for a in node.names if (a.asname or a.name) == name), None)
                where = _where(init, node)
                files = _from_files(*where, alias.name, depth + 1) if alias and where else None
                if files:
                    return files
    package = init.parent
    return frozenset({init, *(p for p in package.glob("*.py") if p.name != "__init__.py")})


@functools.lru_cache(maxsize=1024)
def _resolved(path: str) -> Path:
    return Path(path).resolve()


def _root_file(root) -> Path:
    if isinstance(root, (str, os.PathLike)):
        text = os.fspath(root)
        if isinstance(text, str) and os.path.isabs(text):
            path = _resolved(text)  # (the source closures pass the same absolute paths again and again)
        else:
            path = Path(root).resolve()
    else:
        try:
            path = Path(inspect.getfile(root)).resolve()
        except TypeError:
            raise TypeError(f"roots: a source root must be a path, a module, a class or a function, "
                            f"got {type(root).__name__}") from None
    if path.suffix != ".py" or not path.is_file():
        raise ValueError(f"roots: a source root must be an existing .py file, got {str(path)!r}")
    return path


#: Modules that never change a result: this one (bookkeeping) and the version record (recorded by
#: :func:`provenance` itself).  ``dpb.cost`` is hashed: it chooses the engine (``uses_fast_path``);
#: only its prices are left out (:func:`code_digest`).
_NOT_CODE = frozenset({Path(__file__).resolve(), PACKAGE_DIR / "_version.py"})


@functools.lru_cache(maxsize=256)
def _closure(roots: tuple) -> tuple:
    todo, seen = list(roots), set()
    while todo:
        f = todo.pop()
        if f in seen or f in _NOT_CODE:
            continue
        seen.add(f)
        todo.extend(_dpb_imports(f) - seen)
    return tuple(sorted(seen))


def source_files(*roots: Any) -> tuple:
    """The import closure of ``roots``: the root files and every ``dpb`` module they import,
    transitively, sorted.

    A root is a path to a ``.py`` file, or a module, class or function (its defining file); roots
    outside the package (a reader's own policy file) are included with their ``dpb`` imports.
    Package ``__init__`` files are left out (they only re-export, and what they re-export is
    reached through the modules that define it), and so are this module and ``dpb._version``
    (bookkeeping; the version is recorded by :func:`provenance`).  A module or package next to a
    root outside the package counts as its helper, whether a regular or a namespace package.
    """
    if not roots:
        raise ValueError("source_files needs at least one root")
    return _closure(tuple(sorted({_root_file(r) for r in roots})))


def code_digest(path: str | os.PathLike[str]) -> bytes:
    """SHA-256 of the code of a Python file: its syntax tree (comments are not in it) without the
    docstrings, the type hints of functions and the prices of the cost model, so that editing
    documentation, annotations or a price keeps the cached results.  A price is an assignment to
    ``cost_*`` names only (a policy's attributes, see :mod:`dpb.cost`), or any module-level
    assignment of ``dpb/cost.py`` (its constants: prices, limits, messages; its functions, which
    choose the engine, are hashed).
    Cached per process on the file's modification time and size."""
    return _code_digest(str(as_file("path", path)))


def _is_price(node, module: bool) -> bool:
    """Whether a statement of a module (``module``: of ``dpb/cost.py``) or class body only sets
    prices (see :func:`code_digest`)."""
    if not isinstance(node, (ast.Assign, ast.AnnAssign)):
        return False
    if module:
        return True
    targets = node.targets if isinstance(node, ast.Assign) else [node.target]
    names = [n for t in targets for n in (t.elts if isinstance(t, ast.Tuple) else [t])]
    return bool(names) and all(isinstance(n, ast.Name) and n.id.startswith("cost_") for n in names)


def _is_docstring(node) -> bool:
    return (isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)
            and isinstance(node.value.value, str))


@_per_version
def _code_digest(path: str) -> bytes:
    tree = _parse("path", Path(path))
    prices = Path(path) == PACKAGE_DIR / "cost.py"
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):  # type hints make no number
            node.returns = None
        elif isinstance(node, ast.arg):
            node.annotation = None
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            body = node.body[1:] if node.body and _is_docstring(node.body[0]) else node.body
            if isinstance(node, (ast.Module, ast.ClassDef)):
                body = [n for n in body if not _is_price(n, prices and isinstance(node, ast.Module))]
            node.body = body or [ast.Pass()]
    return hashlib.sha256(ast.dump(tree, include_attributes=False).encode()).digest()


def _label(path: Path) -> str:
    if _inside_package(path):
        return str(path.relative_to(PACKAGE_DIR))
    if path.name == "__init__.py":
        return f"external/{path.parent.name}/{path.name}"
    return f"external/{path.name}"


def source_hash(*roots: Any) -> str:
    """SHA-256 (hex) of the code in :func:`source_files` of ``roots``.

    Every file contributes its name (relative to the package; ``external/<name>`` for a file
    outside it) and its :func:`code_digest`: a change of code anywhere in the closure changes the
    hash, an edit of comments or docstrings does not.
    """
    files = source_files(*roots)
    stats = tuple(os.stat(f) for f in files)
    return _files_hash(files, tuple((st.st_mtime_ns, st.st_size) for st in stats))


@functools.lru_cache(maxsize=256)
def _files_hash(files: tuple, versions: tuple) -> str:
    """:func:`source_hash` of ``files``, cached per process on their modification times and sizes
    ``versions`` (as :func:`code_digest`): a result file's stamp is asked for once per file read."""
    h = hashlib.sha256()
    for f in files:
        h.update(_label(f).encode() + b"\0" + code_digest(f))
    return h.hexdigest()


# ----------------------------------------------------------------------------------------------
# which code, for what has no file: what the interpreter holds
# ----------------------------------------------------------------------------------------------
#: Attributes of a class that are bookkeeping of the interpreter, not code.
_CLASS_BOOKKEEPING = frozenset({"__module__", "__qualname__", "__doc__", "__dict__", "__weakref__",
                                "__firstlineno__", "__static_attributes__", "_abc_impl", "__orig_bases__",
                                "__parameters__"})


def object_digest(obj: Any) -> str:
    """SHA-256 (hex) of what the interpreter holds of ``obj`` (a class, a function or a value):
    the identity of code that has no source file, such as a policy class defined in a notebook
    cell, in ``python -i`` or sent to a Dask worker by value.

    A function contributes its bytecode, constants (nested code objects alike), the names it
    uses, its defaults, keyword defaults and the values of its closure, and, recursively, every
    global it names: its module's functions and classes, numbers, strings, tuples and arrays. A
    class contributes its bases and every attribute of its body (methods, properties, static and
    class methods, values) except docstrings and prices (``cost_*``, see :func:`code_digest`).
    Code that has a file is keyed by that file (:func:`source_hash`), a module of another library
    by its name and version.  Names alone never key code: a class defined again with another
    body has another digest, the same body (re-run, or in another process) the same.  Line numbers
    and file names are left out, so moving a cell keeps the digest; the Python version is in it
    (bytecode differs between versions).
    """
    h = hashlib.sha256(f"python {sys.version_info[0]}.{sys.version_info[1]}".encode())
    _Digest(h).add(obj)
    return h.hexdigest()


class _Digest:
    """The recursive walk of :func:`object_digest` (each object once: cycles are named by their
    order of first visit)."""

    def __init__(self, h) -> None:
        self.h = h
        self.seen: dict[int, int] = {}
        self.keep: list = []

    def put(self, *parts) -> None:
        for part in parts:
            self.h.update(part if isinstance(part, bytes) else repr(part).encode())
            self.h.update(b"\0")

    def add(self, obj) -> None:  # noqa: C901 - one case per kind of object
        if obj is None or isinstance(obj, (bool, int, float, complex, str, bytes)):
            self.put(type(obj).__name__, obj)
            return
        if id(obj) in self.seen:
            self.put("seen", self.seen[id(obj)])
            return
        self.seen[id(obj)] = len(self.seen)
        self.keep.append(obj)  # (ids stay unique while the walk runs)
        if isinstance(obj, (tuple, list, frozenset, set)):
            items = sorted(obj, key=repr) if isinstance(obj, (set, frozenset)) else obj
            self.put(type(obj).__name__, len(items))
            for item in items:
                self.add(item)
        elif isinstance(obj, dict):
            self.put("dict", len(obj))
            for key in sorted(obj, key=repr):
                self.add(key)
                self.add(obj[key])
        elif isinstance(obj, np.ndarray):
            self.put("ndarray", obj.dtype.str, obj.shape, np.ascontiguousarray(obj).tobytes())
        elif isinstance(obj, np.generic):
            self.put("numpy", obj.dtype.str, obj.tobytes())
        elif isinstance(obj, types.ModuleType):
            path = self._file(obj)
            if path is None:
                self.put("module", obj.__name__, self._version(obj.__name__))
            else:
                self._by_file(obj, path)
        elif isinstance(obj, types.CodeType):
            self._code(obj)
        elif isinstance(obj, (staticmethod, classmethod)):
            self.put(type(obj).__name__)
            self.add(obj.__func__)
        elif isinstance(obj, property):
            self.put("property")
            for f in (obj.fget, obj.fset, obj.fdel):
                self.add(f)
        elif isinstance(obj, functools.partial):
            self.put("partial")
            for part in (obj.func, obj.args, obj.keywords):
                self.add(part)
        elif isinstance(obj, types.MethodType):
            self.put("method")
            self.add(obj.__func__)
        elif isinstance(obj, types.FunctionType):
            self._function(obj)
        elif isinstance(obj, type):
            self._class(obj)
        elif isinstance(getattr(obj, "py_func", None), types.FunctionType):
            self.put("compiled")  # a numba dispatcher: the Python function it compiles
            self.add(obj.py_func)
        elif callable(obj) and hasattr(obj, "__qualname__"):  # a builtin function, a numpy ufunc
            module = getattr(obj, "__module__", None)
            self.put("callable", module, obj.__qualname__, self._version(module))
        else:
            self.put("instance")
            self.add(type(obj))
            state = getattr(obj, "__dict__", None)
            self.add(state if isinstance(state, dict) else repr(obj))

    @staticmethod
    def _file(obj) -> Path | None:
        try:
            path = Path(inspect.getfile(obj))
        except (TypeError, OSError):
            return None
        return path.resolve() if path.suffix == ".py" and path.is_file() else None

    def _by_file(self, obj, path: Path) -> None:
        """A module, function or class that has a file: a ``dpb`` module or a user's file keyed by
        its code (:func:`source_hash`), another library's by its name and version."""
        module = isinstance(obj, types.ModuleType)
        name = getattr(obj, "__name__", "?") if module else getattr(obj, "__module__", "?")
        where = getattr(obj, "__qualname__", name)
        if _inside_package(path) or not _is_installed(path):
            self.put("file", where, source_hash(path))
        else:
            self.put("library", name, where, self._version(name))

    @staticmethod
    def _version(module_name) -> str:
        top = str(module_name or "").split(".")[0]
        return str(getattr(sys.modules.get(top), "__version__", None))

    def _code(self, code: types.CodeType) -> None:
        self.put("code", code.co_code, code.co_names, code.co_varnames, code.co_freevars, code.co_cellvars,
                 code.co_argcount, code.co_kwonlyargcount, code.co_flags)
        for const in code.co_consts:
            self.add(const)

    def _function(self, f: types.FunctionType) -> None:
        path = self._file(f)
        if path is not None:
            self._by_file(f, path)
            return
        self.put("function", f.__name__)
        code = f.__code__
        consts = code.co_consts
        if f.__doc__ is not None and consts and consts[0] == f.__doc__:
            code = code.replace(co_consts=(None, *consts[1:]))  # the docstring is not code
        self._code(code)
        self.add(f.__defaults__)
        self.add(f.__kwdefaults__)
        self.add(tuple(_cell_value(c) for c in f.__closure__ or ()))
        glob = f.__globals__
        builtins = glob.get("__builtins__", {})
        builtins = builtins if isinstance(builtins, dict) else vars(builtins)
        for name in _global_names(f.__code__):
            if name in glob:
                self.put("global", name)
                self.add(glob[name])
            elif name in builtins:
                self.put("builtin", name)

    def _class(self, cls: type) -> None:
        path = self._file(cls)
        if path is not None:
            self._by_file(cls, path)
            return
        if cls.__module__ == "builtins" or cls.__module__ in sys.builtin_module_names:
            self.put("builtin class", cls.__qualname__)
            return
        self.put("class", cls.__name__, len(cls.__bases__))
        for base in cls.__bases__:
            self.add(base)
        for name in sorted(vars(cls)):
            if name in _CLASS_BOOKKEEPING or name.startswith("cost_"):
                continue
            self.put("attribute", name)
            self.add(vars(cls)[name])


def _cell_value(cell):
    try:
        return cell.cell_contents
    except ValueError:  # an empty cell
        return "<empty cell>"


def _global_names(code: types.CodeType) -> tuple:
    """The names a code object (and the code nested in it) loads: candidates for globals."""
    names = list(code.co_names)
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            names.extend(_global_names(const))
    return tuple(dict.fromkeys(names))


@functools.lru_cache(maxsize=256)
def _installed_dirs() -> tuple:
    import sysconfig

    paths = sysconfig.get_paths()
    return tuple(str(Path(p).resolve()) for p in {paths.get(k) for k in ("stdlib", "platstdlib", "purelib",
                                                                         "platlib")} if p)


def _is_installed(path: Path) -> bool:
    """Whether ``path`` belongs to the standard library or an installed package (not a user's file)."""
    text = str(path.resolve())
    return any(text.startswith(d + os.sep) for d in _installed_dirs())


def arithmetic() -> dict:
    """What the bits of a result depend on besides the code: ``numpy_version`` and
    ``numba_version`` (their floating-point loops and compiled kernels), ``machine`` (the
    processor's architecture, ``platform.machine()``) and ``arithmetic``, the tag of the engines'
    arithmetic (``dpb.engine.ARITHMETIC`` when the engine defines one, else None).  A result file
    made under other values is stale (recomputed by the runner, refused by a loader), never mixed
    into a cell with files made under these."""
    import platform

    from . import engine

    tag = getattr(engine, "ARITHMETIC", None)
    return {"numpy_version": np.__version__, "numba_version": _numba_version(), "machine": platform.machine(),
            "arithmetic": None if tag is None else str(tag)}


@functools.cache
def _numba_version() -> str | None:
    """The installed numba's version, read from its package metadata once a process (a millisecond
    a reading, and :func:`arithmetic` is asked for once a result file; ``import numba`` would cost
    more)."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("numba")
    except PackageNotFoundError:  # pragma: no cover - numba is a dependency
        return None


def provenance(*roots: Any) -> dict:
    """What a result file records about the code that made it: ``dpb_version``, the
    :func:`arithmetic` it ran under (numpy and numba versions, machine, the engine's arithmetic
    tag), the :func:`source_hash` of ``roots`` and ``engine``, whether the compiled kernels were on
    (``"numba"`` or ``"python"``: with ``DPB_JIT=0`` some fast paths draw in another order, so one
    seed gives other runs)."""
    return {"dpb_version": __version__, **arithmetic(), "source_hash": source_hash(*roots),
            "engine": engine_name()}


# ----------------------------------------------------------------------------------------------
# keys
# ----------------------------------------------------------------------------------------------
def cache_key(kind: str, params: dict) -> str:
    """A file-name-safe key: ``kind``, then the first 24 hex digits of the SHA-256 of the parameters
    (canonical JSON).  The code that made a file is recorded inside it (:func:`provenance`; see
    :func:`dpb.regret.cached_runs`)."""
    if not isinstance(kind, str) or not kind.isidentifier():
        raise ValueError(f"kind must be an identifier-like string, got {kind!r}")
    as_instance("params", params, dict, "dict")
    try:
        text = json.dumps(params, sort_keys=True, default=json_default)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"params must hold JSON-serialisable values (numbers, strings, arrays): "
                        f"{exc}") from None
    digest = hashlib.sha256(text.encode()).hexdigest()[:24]
    return f"{kind}-{digest}"


def _as_recorded(obj):
    """``obj`` as a result file records it (JSON: tuples become lists, numpy scalars and arrays plain
    numbers and lists), to compare with what a file holds (:func:`file_state`)."""
    return json.loads(json.dumps(obj, default=json_default))


# ----------------------------------------------------------------------------------------------
# current or stale
# ----------------------------------------------------------------------------------------------
def read_meta(path: str | os.PathLike[str]) -> dict | None:
    """The metadata (``meta`` member, JSON) of a result file, or None when it cannot be read."""
    as_path("path", path)
    try:
        with np.load(Path(path), allow_pickle=False) as data:
            meta = json.loads(str(data["meta"]))
    except Exception:  # noqa: BLE001 - truncated or foreign files raise many kinds (BadZipFile...)
        return None
    return meta if isinstance(meta, dict) else None


def file_state(path: str | os.PathLike[str], expected: Mapping) -> str:
    """``"missing"``, ``"damaged"``, ``"stale"`` or ``"done"`` for the result file at ``path``.

    *Damaged*: something that is not a regular file (a directory...) stands at ``path``, the file
    cannot be read as an archive, a member fails its CRC-32 or cannot be
    decompressed, or an array differs from the SHA-256 checksum the file records (its
    ``meta["checksums"]``, see ``dpb._io.save_npz_atomic``; files written before checksums
    existed are checked by the CRC-32 only).  Every array is read, so damage anywhere is found.
    *Done*: not damaged, and its ``meta["extra"]`` records every key of ``expected`` with the same
    value (the specification, seed and :func:`provenance` the current code would write).
    *Stale* otherwise.  Damaged and stale files are recomputed by the callers.
    """
    as_instance("expected", expected, Mapping, "mapping")
    return _read_checked(as_path("path", path), expected)[0]


def _read_checked(path: Path, expected: Mapping) -> tuple:
    """``(state, meta, arrays)`` of the result file at ``path``: :func:`file_state`'s answer, and
    when it is ``"done"`` the metadata and every array, read once (unvalidated arguments)."""
    if not path.is_file():
        # a directory (or another non-file) where a result file belongs is damage to repair
        return ("damaged" if path.exists() else "missing"), None, None
    arrays = {}
    try:
        with np.load(path, allow_pickle=False) as data:
            meta = json.loads(str(data["meta"]))
            sums = meta.get("checksums") if isinstance(meta, dict) else None
            names = [n for n in data.files if n != "meta"]
            if sums is not None and (not isinstance(sums, dict) or set(sums) != set(names)):
                return "damaged", None, None
            for name in names:
                array = arrays[name] = data[name]  # reading a member checks its CRC-32
                if sums is not None and array_checksum(array) != sums[name]:
                    return "damaged", None, None
    except Exception:  # noqa: BLE001 - truncated or foreign files raise many kinds (BadZipFile, zlib...)
        return "damaged", None, None
    if not isinstance(meta, dict) or not isinstance(meta.get("extra", {}), dict):
        return "damaged", None, None
    extra = meta.get("extra", {})
    if not all(extra.get(k) == v for k, v in expected.items()):
        return "stale", None, None
    return "done", meta, arrays


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # pragma: no cover - another user's process
        return True
    return True


def remove_orphan_temporaries(folder: str | os.PathLike[str]) -> int:
    """Delete the temporary files that writers killed mid-write left in ``folder`` (names
    ``<file>.<pid>.<random>.tmp`` of ``dpb._io.save_npz_atomic`` whose process is gone);
    returns how many.  Temporary files of running processes are left alone."""
    removed = 0
    where = as_path("folder", folder)
    if not where.is_dir():
        return 0
    for tmp in where.glob("*.tmp"):
        parts = tmp.name.split(".")
        if len(parts) < 4 or not parts[-3].isdigit() or _pid_alive(int(parts[-3])):
            continue
        try:
            tmp.unlink()
            removed += 1
        except FileNotFoundError:  # removed by another run meanwhile
            pass
    return removed

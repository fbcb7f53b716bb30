"""The registry of policies, and the one way to turn a name or an object into a policy.

Subclassing :class:`~dpb.policies.base.Policy` with a ``name`` registers the class here (see
:class:`~dpb.policies.base.Policy`); every list of policies in ``dpb`` is
read from this registry: the exports of :mod:`dpb.policies`, the per-step references of
:mod:`dpb.reference`, the private policies that :mod:`dpb.audit` checks, the paper's parameters
of the experiments and the colours of the figures.  A policy written in a user's file or in a
notebook cell therefore runs everywhere the package's own policies run, as soon as its class is
defined (or loaded with :func:`load_policy`).

:func:`as_policy` is the single coercer used by :func:`dpb.simulate.simulate`,
:mod:`dpb.interaction`, :mod:`dpb.audit`, :mod:`dpb.regret` and the experiments.
"""

from __future__ import annotations

import hashlib
import importlib.util
import inspect
import sys
from collections.abc import Callable, Mapping
from typing import Any
from pathlib import Path

from .base import _SUBCLASS_HOOKS, Policy

__all__ = [
    "register",
    "registered",
    "policy_key",
    "policy_class",
    "as_policy",
    "policy_style",
    "reference_of",
    "load_policy",
    "policy_source",
    "policy_source_hash",
    "is_builtin",
    "PolicyFileError",
    "describe_failure",
]

#: Registered classes by name, in registration order.
_REGISTRY: dict[str, type[Policy]] = {}
#: Lookup by normalised name and normalised class name (see :func:`policy_key`).
_BY_KEY: dict[str, type[Policy]] = {}

# Colours for policies without a declared style: the tab10 colours the package's own policies do
# not use first, then the rest of tab20.
_PALETTE = ("#2ca02c", "#17becf", "#bcbd22", "#aec7e8", "#ffbb78", "#98df8a", "#ff9896",
            "#c5b0d5", "#c49c94", "#f7b6d2", "#dbdb8d", "#9edae5")


def policy_key(name: str) -> str:
    """The lookup key of a name: lower case, letters and digits only (``"DP_imed"`` -> ``"dpimed"``)."""
    if not isinstance(name, str):
        raise TypeError(f"name must be a policy name (str), got {type(name).__name__} {name!r}")
    return "".join(ch for ch in name.lower() if ch.isalnum())


def is_builtin(cls: type[Policy]) -> bool:
    """Whether ``cls`` is one of the package's own policies (defined in :mod:`dpb.policies`)."""
    if not (isinstance(cls, type) and issubclass(cls, Policy)):
        raise TypeError(f"cls must be a Policy subclass, got {cls!r}")
    return cls.__module__.startswith("dpb.policies.")


def register(cls: type[Policy]) -> type[Policy]:
    """Register a policy class under ``cls.name`` (called by ``Policy.__init_subclass__``).

    Raises
    ------
    TypeError
        When ``cls`` is not a :class:`~dpb.policies.base.Policy` subclass.
    ValueError
        For an invalid ``name``, ``index_kind`` or ``style``, or a name (or class name) already
        taken by a different class (the same module and qualified name replace the old class).
    """
    _check_attributes(cls)
    name = cls.name
    keys = {policy_key(name), policy_key(cls.__name__)}
    for key in keys:
        old = _BY_KEY.get(key)
        if old is not None and not _same_definition(old, cls):
            raise ValueError(
                f"policy name {name!r} of {cls.__module__}.{cls.__qualname__} clashes with the "
                f"registered {old.name!r} ({old.__module__}.{old.__qualname__}); choose another name"
            )
    old = _BY_KEY.get(policy_key(name))
    if old is not None:  # a redefinition: drop the old class and its keys
        _REGISTRY.pop(old.name, None)
        for k in [k for k, v in _BY_KEY.items() if v is old]:
            del _BY_KEY[k]
    _REGISTRY[name] = cls
    for key in keys:
        _BY_KEY[key] = cls
    return cls


def _check_attributes(cls) -> None:
    """Refuse a class that is no Policy subclass, or whose registry metadata is malformed."""
    if not (isinstance(cls, type) and issubclass(cls, Policy)):
        raise TypeError(f"cls must be a Policy subclass (only those can be registered), got {cls!r}")
    name = cls.name
    if not isinstance(name, str) or not policy_key(name):
        raise ValueError(f"{cls.__qualname__}.name must be a non-empty string with a letter or digit, "
                         f"got {name!r}")
    if cls.index_kind not in ("max", "min"):
        raise ValueError(f"{cls.__qualname__}.index_kind must be 'max' or 'min', got {cls.index_kind!r}")
    if cls.style is not None and not (isinstance(cls.style, Mapping) and "color" in cls.style):
        raise ValueError(f"{cls.__qualname__}.style must be None or a dict with a 'color', got {cls.style!r}")
    if not isinstance(cls.paper_defaults, Mapping):
        raise ValueError(f"{cls.__qualname__}.paper_defaults must be a dict, got {cls.paper_defaults!r}")


def _same_definition(a: type, b: type) -> bool:
    return a is b or (a.__module__, a.__qualname__) == (b.__module__, b.__qualname__)


def registered(*, private: bool | None = None, builtin: bool | None = None,
               reference: bool | None = None) -> dict[str, type[Policy]]:
    """The registered policy classes by name, in registration order, optionally filtered.

    Parameters
    ----------
    private : bool, optional
        Keep only the private (True) or non-private (False) policies.
    builtin : bool, optional
        Keep only the package's own policies (True) or only the others (False).
    reference : bool, optional
        Keep only the policies with (True) or without (False) a per-step reference implementation.
    """
    out = {}
    for name, cls in _REGISTRY.items():
        if private is not None and cls.private != private:
            continue
        if builtin is not None and is_builtin(cls) != builtin:
            continue
        if reference is not None and (cls.reference is not None) != reference:
            continue
        out[name] = cls
    return out


def policy_class(policy: Any) -> type[Policy]:
    """The registered class of ``policy``: a name (the paper's name or the class name, any case,
    dashes or underscores), a ``"path/to/file.py:Class"`` reference (see :func:`load_policy`), a
    policy class or a policy instance.

    Raises
    ------
    ValueError
        For an unknown name (the message lists the registered names).
    TypeError
        For anything else.
    """
    if isinstance(policy, Policy):
        return type(policy)
    if isinstance(policy, type) and issubclass(policy, Policy):
        return policy
    if not isinstance(policy, str):
        raise TypeError(
            f"policy must be a policy name, a Policy class or a Policy, got {type(policy).__name__}"
        )
    if ".py:" in policy:
        return load_policy(policy)
    cls = _BY_KEY.get(policy_key(policy))
    if cls is None:
        raise ValueError(f"unknown policy {policy!r}; valid names are {', '.join(_REGISTRY)}")
    return cls


def as_policy(policy: Any, params: Mapping | None = None) -> Policy:
    """Turn ``policy`` into a :class:`~dpb.policies.base.Policy` object: the one coercer of ``dpb``.

    Parameters
    ----------
    policy : Policy, str, (str, dict), Policy subclass or callable
        A policy object (returned as is), a registered name or ``"file.py:Class"`` (built with
        ``params``), a ``(name, params)`` pair, a policy class (built with ``params``), or a
        factory called with ``params`` that returns a policy.
    params : dict, optional
        The parameters; not allowed with a policy object or a ``(name, params)`` pair.

    Raises
    ------
    TypeError
        For parameters given twice, bad parameters (the message names the policy), a factory that
        does not return a policy, or an object that is none of the above.
    ValueError
        For an unknown name, or parameter values out of range.
    """
    policy, params = _split_params(policy, params)
    if isinstance(policy, Policy):
        return policy
    if isinstance(policy, str) or (isinstance(policy, type) and issubclass(policy, Policy)):
        cls = policy_class(policy)
        try:
            return cls(**params)
        except TypeError as exc:
            missing = _missing_parameters(cls, params)  # the policy, the parameter and the fix
            raise TypeError(missing or f"bad parameters for {cls.name}: {exc}") from exc
    if callable(policy):
        made = policy(**params)
        if not isinstance(made, Policy):
            raise TypeError(f"the policy factory must return a Policy, got {type(made).__name__}")
        return made
    raise TypeError(
        "policy must be a Policy, a name, a (name, params) tuple, a Policy class or a factory, "
        f"got {policy!r}"
    )


def _split_params(policy, params):
    """(policy, parameters as a dict) of :func:`as_policy`'s arguments: a ``(name, params)`` pair
    unpacked; parameters given twice, or with a policy object, refused."""
    if params is not None and not isinstance(params, Mapping):
        raise TypeError(f"params must be a dict, got {type(params).__name__}")
    if isinstance(policy, Policy):
        if params:
            raise TypeError("params cannot be given together with a Policy instance")
        return policy, {}
    if isinstance(policy, tuple):
        if len(policy) != 2 or not isinstance(policy[0], str) or not isinstance(policy[1], Mapping):
            raise TypeError(f"a policy tuple must be (name, params), got {policy!r}")
        if params:
            raise TypeError("params cannot be given together with a (name, params) tuple")
        policy, params = policy
    return policy, dict(params or {})


def policy_style(policy: Any) -> dict:
    """Colour and line style of ``policy`` (name, class or object) in every figure.

    The class's ``style`` when it declares one; otherwise a colour of a fixed palette that no
    declared style uses, chosen by the policy's rank among the registered policies without a style,
    with a solid line for private policies and a dashed one otherwise.
    """
    cls = policy_class(policy)
    if cls.style is not None:
        return {"ls": "-", **dict(cls.style)}
    plain = [c for c in _REGISTRY.values() if c.style is None]
    rank = plain.index(cls) if cls in plain else len(plain)
    taken = {c.style["color"] for c in _REGISTRY.values() if c.style is not None}
    free = [c for c in _PALETTE if c not in taken] or list(_PALETTE)
    return {"color": free[rank % len(free)], "ls": "-" if cls.private else "--"}


def reference_of(policy: Any) -> Callable | None:
    """The per-step reference implementation of ``policy`` (name, class or object), or None.

    Resolves a ``"module:function"`` string declared by the class (the package's own policies
    name their functions in :mod:`dpb.reference` that way, without importing it).
    """
    ref = policy_class(policy).reference
    if isinstance(ref, str):
        module, _, func = ref.partition(":")
        ref = getattr(importlib.import_module(module), func)
    if ref is not None and not callable(ref):
        raise TypeError(f"{policy_class(policy).name}.reference must be callable, got {ref!r}")
    return ref


# ----------------------------------------------------------------------------------------------
# policies from files
# ----------------------------------------------------------------------------------------------
def load_policy(spec: str) -> type[Policy]:
    """Import the policy class ``Class`` from the file in ``"path/to/file.py:Class"``.

    The file is executed as a module named after its path (once per process and content: a
    changed file is loaded again), which registers every policy it defines.

    Raises
    ------
    ValueError
        For a spec not of the form ``file.py:Class``, a missing file, or a name that is not a
        :class:`~dpb.policies.base.Policy` subclass defined by the file.
    """
    if not isinstance(spec, str) or ".py:" not in spec:
        raise ValueError(f"policy file spec must look like 'path/to/file.py:ClassName', got {spec!r}")
    path_text, cls_name = spec.rsplit(":", 1)
    path = Path(path_text).expanduser().resolve()
    if not path.is_file():
        raise ValueError(f"policy file {path_text!r} does not exist")
    if not cls_name.isidentifier():
        raise ValueError(f"class name {cls_name!r} in {spec!r} is not a Python identifier")
    source = path.read_bytes()
    digest = hashlib.sha256(source).hexdigest()[:16]
    mod_name = f"dpb_user_policy_{policy_key(path.stem)}_{hashlib.sha256(str(path).encode()).hexdigest()[:8]}"
    module = sys.modules.get(mod_name)
    if module is None or getattr(module, "__dpb_source_digest__", None) != digest:
        loader_spec = importlib.util.spec_from_file_location(mod_name, path)
        if loader_spec is None or loader_spec.loader is None:  # pragma: no cover - a .py file loads
            raise ValueError(f"cannot load {path_text!r} as a Python module")
        module = importlib.util.module_from_spec(loader_spec)
        module.__dpb_source_digest__ = digest  # type: ignore[attr-defined]  # (a mark of ours)
        sys.modules[mod_name] = module
        folder = str(path.parent)
        if folder not in sys.path:  # its own helper modules next to it import as in a script
            sys.path.append(folder)
        from .._interrupts import watching

        with watching() as watch:
            try:
                loader_spec.loader.exec_module(module)
            except BaseException as exc:
                sys.modules.pop(mod_name, None)
                if watch.real(exc):
                    raise
                raise PolicyFileError(path, describe_failure(exc, path)) from exc
    cls = getattr(module, cls_name, None)
    if not (isinstance(cls, type) and issubclass(cls, Policy)):
        raise ValueError(f"{path_text!r} defines no Policy subclass named {cls_name!r}")
    if "name" not in cls.__dict__:
        raise ValueError(f"{cls_name} in {path_text!r} must set a class attribute 'name' to be registered")
    return cls


class PolicyFileError(ValueError):
    """A user's policy file failed when loaded (an exception, ``sys.exit`` or ``KeyboardInterrupt``
    raised by its code at import); the message names the file, the cause and the line.

    Attributes
    ----------
    path : str
        The file.
    cause : str
        One line: what was raised, and where (:func:`describe_failure`).
    """

    def __init__(self, path: Any, cause: str) -> None:
        self.path, self.cause = str(path), str(cause)
        super().__init__(f"policy file {self.path!r} failed at import: {self.cause}")

    def __reduce__(self):
        return (type(self), (self.path, self.cause))


def describe_failure(exc: BaseException, path: Any = None) -> str:
    """One line for an exception raised by a user's code: ``"sys.exit(3) called"``, ``"KeyboardInterrupt
    raised"`` or ``"Type: message"``, with ``(file.py, line N)`` of the deepest frame of its traceback
    in the file ``path`` (or, without ``path``, outside ``dpb``, numpy and the standard library)."""
    if isinstance(exc, SystemExit):
        what = f"sys.exit({exc.code!r}) called"
    elif isinstance(exc, KeyboardInterrupt):
        what = "KeyboardInterrupt raised"
    elif isinstance(exc, SyntaxError):
        what = f"SyntaxError: {exc.msg} ({exc.filename}, line {exc.lineno})"
        return what
    else:
        what = f"{type(exc).__name__}: {exc}"
    where = None
    target = str(Path(path).resolve()) if path is not None else None
    tb = exc.__traceback__
    while tb is not None:
        name = tb.tb_frame.f_code.co_filename
        if (name == target) if target else _user_frame(name):
            where = (name, tb.tb_lineno)
        tb = tb.tb_next
    return what if where is None else f"{what} ({where[0]}, line {where[1]})"


def _user_frame(filename: str) -> bool:
    import sysconfig

    if filename.startswith("<"):
        return False
    skip = {str(Path(__file__).resolve().parents[1])}
    skip |= {p for p in (sysconfig.get_paths().get(k) for k in ("stdlib", "platstdlib", "purelib", "platlib"))
             if p}
    return not any(filename.startswith(d) for d in skip)


def policy_source(policy: Any) -> str:
    """The source code that defines ``policy`` (name, class or object): its whole module file.

    For a class defined interactively (a notebook cell) whose file is not available, the source of
    the class itself (``inspect.getsource``), or its qualified name when even that is unavailable.
    """
    cls = policy_class(policy)
    module = sys.modules.get(cls.__module__)
    path = getattr(module, "__file__", None)
    if path and Path(path).is_file():
        return Path(path).read_text(encoding="utf-8")
    try:
        return inspect.getsource(cls)
    except (OSError, TypeError):
        return f"{cls.__module__}.{cls.__qualname__}"


def policy_source_hash(policy: Any) -> str:
    """SHA-256 (hex) of :func:`policy_source`: what keys cached results of a user's policy; for a
    class whose module has no file (a notebook cell, ``python -i``), the digest of what the
    interpreter holds of it (:func:`dpb.cache.object_digest`), never its name."""
    cls = policy_class(policy)
    path = getattr(sys.modules.get(cls.__module__), "__file__", None)
    if not (path and Path(path).is_file()):
        from ..cache import object_digest

        return object_digest(cls)
    return hashlib.sha256(policy_source(policy).encode()).hexdigest()


_SUBCLASS_HOOKS.append(register)  # every named Policy subclass is registered when defined


#: What a missing parameter is, for the message of ``_missing_parameters``.
_MEANING = {"eps": "the privacy budget, a number > 0"}


def _missing_parameters(cls, params: Mapping) -> str | None:
    """The message for a policy class built without a required parameter: the policy's name,
    the parameter and the fix (a keyword, ``params=``, or an experiment file's ``eps`` or
    ``[params.NAME]``); None when every required parameter is given."""
    try:
        sig = inspect.signature(cls.__init__)
    except (TypeError, ValueError):  # pragma: no cover - builtin constructors
        return None
    required = [p.name for p in list(sig.parameters.values())[1:]
                if p.default is p.empty and p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)]
    missing = [name for name in required if name not in params]
    if not missing:
        return None
    name, first = getattr(cls, "name", cls.__name__), missing[0]
    what = f" ({_MEANING[first]})" if first in _MEANING else ""
    where = ("eps = [...] (the budgets of the settings)" if first == "eps"
             else f"[params.{name}] {first} = ...")
    return (f"{name} needs the parameter{'s' if len(missing) > 1 else ''} {', '.join(missing)}{what}: pass "
            f"{first}=... (dpb.simulate({name!r}, means, T, {first}=...) or params={{{first!r}: ...}}), "
            f"or in an experiment file {where}")

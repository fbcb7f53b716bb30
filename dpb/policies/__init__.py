"""Bandit policies, one module per algorithm family, behind one phase-based interface.

Every policy class is registered when it is defined (:mod:`dpb.policies.registry`), and every list
of policies in ``dpb`` is read from that registry: a new policy is one new file in this package
(or in a user's own file, see :func:`~dpb.policies.registry.load_policy`).  The policies of the
package, by family (module):

{table}

:func:`make_policy` builds a policy from its name and parameters (``make_policy("DP-IMED",
eps=0.25)``); the common interface is :class:`~dpb.policies.base.Policy`, and a new private index on
the paper's batches is one method of :class:`~dpb.policies.BatchedPrivatePolicy`, a new per-step index
one method of :class:`~dpb.policies.PerStepPolicy`.
"""

from __future__ import annotations

from typing import Any

import importlib
import pkgutil

from . import registry
from .base import PerStepPolicy, Policy, Recorder
from .dp_batched import BatchedPrivatePolicy
from .registry import as_policy, load_policy, policy_class, policy_style, registered

# The families in the order of the book; any other module of the package is imported after them,
# so that a new policy file needs no edit here.
_FAMILIES = ("dp_batched", "dpse", "adap", "lazy_dpts", "nonprivate")
_SKIP = {"base", "registry"}
for _mod in _FAMILIES + tuple(
    sorted(m.name for m in pkgutil.iter_modules(__path__) if not m.name.startswith("_")
           and m.name not in _FAMILIES and m.name not in _SKIP)
):
    importlib.import_module(f"{__name__}.{_mod}")

#: Policy classes by name: the live registry (the package's policies, then any registered later).
POLICIES: dict[str, type[Policy]] = registry._REGISTRY

_BUILTIN = registered(builtin=True)
globals().update({cls.__name__: cls for cls in _BUILTIN.values()})

__all__ = [
    "Policy",
    "Recorder",
    "BatchedPrivatePolicy",
    "PerStepPolicy",
    *(cls.__name__ for cls in _BUILTIN.values()),
    "POLICIES",
    "make_policy",
    "policy_names",
    "as_policy",
    "policy_class",
    "policy_style",
    "load_policy",
    "registered",
]


def _table() -> str:
    rows = [(f":class:`{c.__name__}`", f"``{n}``", "private" if c.private else "non-private",
             c.__module__.rsplit(".", 1)[-1]) for n, c in _BUILTIN.items()]
    head = ("class", "name", "privacy", "module")
    widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(head)]
    rule = "  ".join("=" * w for w in widths)
    line = lambda r: "  ".join(x.ljust(w) for x, w in zip(r, widths, strict=True)).rstrip()  # noqa: E731
    return "\n".join([rule, line(head), rule, *(line(r) for r in rows), rule])


__doc__ = __doc__.format(table=_table())


def policy_names() -> list[str]:
    """The names accepted by :func:`make_policy`: every registered policy."""
    return list(POLICIES)


def make_policy(name: Any, **params: Any) -> Policy:
    """Build the policy called ``name`` (the paper's name or the class name, any case/dashes, or
    ``"file.py:Class"``) with ``params``; a policy object is returned as is.

    The same as :func:`~dpb.policies.registry.as_policy` with keyword parameters.

    Raises
    ------
    ValueError
        For an unknown name (the message lists the valid names), or invalid parameters.
    TypeError
        For a name that is not a string, or parameters the policy does not take.
    """
    if not isinstance(name, (str, Policy)):
        raise TypeError(f"policy name must be a string, got {type(name).__name__}")
    return as_policy(name, params)

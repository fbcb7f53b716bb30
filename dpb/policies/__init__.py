"""Bandit policies, one module per algorithm family, behind one phase-based interface.

=================  ==============  ===========================================================
class              name            family (module)
=================  ==============  ===========================================================
:class:`DPKLUCB`   ``DP-KLUCB``    the paper's batched, non-forgetting algorithms (dp_batched)
:class:`DPIMED`    ``DP-IMED``     idem
:class:`DPSE`      ``DP-SE``       private successive elimination, forgetting (dpse)
:class:`AdaPKLUCB` ``AdaP-KLUCB``  doubling episodes, forgetting (adap)
:class:`AdaPUCB`   ``AdaP-UCB``    idem
:class:`LazyDPTS`  ``Lazy-DP-TS``  private Thompson sampling, doubling buffers (lazy_dpts)
:class:`IMED`      ``IMED``        non-private references (nonprivate)
:class:`KLUCB`     ``KL-UCB``      idem
=================  ==============  ===========================================================

:func:`make_policy` builds a policy from its name and parameters (``make_policy("DP-IMED",
eps=0.25)``); the common interface is :class:`~dpb.policies.base.Policy`.
"""

from __future__ import annotations

from .adap import AdaPKLUCB, AdaPUCB
from .base import Policy
from .dp_batched import DPIMED, DPKLUCB
from .dpse import DPSE
from .lazy_dpts import LazyDPTS
from .nonprivate import IMED, KLUCB

__all__ = [
    "Policy",
    "DPKLUCB",
    "DPIMED",
    "DPSE",
    "AdaPKLUCB",
    "AdaPUCB",
    "LazyDPTS",
    "IMED",
    "KLUCB",
    "POLICIES",
    "make_policy",
    "policy_names",
]

#: Policy classes by the paper's name.
POLICIES: dict[str, type[Policy]] = {
    cls.name: cls for cls in (DPKLUCB, DPIMED, DPSE, AdaPKLUCB, AdaPUCB, LazyDPTS, IMED, KLUCB)
}


def _key(name: str) -> str:
    return "".join(ch for ch in name.lower() if ch.isalnum())


_BY_KEY = {_key(n): cls for n, cls in POLICIES.items()}
_BY_KEY.update({_key(cls.__name__): cls for cls in POLICIES.values()})


def policy_names() -> list[str]:
    """The names accepted by :func:`make_policy`."""
    return list(POLICIES)


def make_policy(name: str, **params) -> Policy:
    """Build the policy called ``name`` (the paper's name or the class name, any case/dashes).

    Raises
    ------
    ValueError
        For an unknown name (the message lists the valid names), or invalid parameters.
    """
    if isinstance(name, Policy):
        if params:
            raise TypeError("parameters cannot be given together with a Policy instance")
        return name
    if not isinstance(name, str):
        raise TypeError(f"policy name must be a string, got {type(name).__name__}")
    cls = _BY_KEY.get(_key(name))
    if cls is None:
        raise ValueError(f"unknown policy {name!r}; valid names are {', '.join(POLICIES)}")
    try:
        return cls(**params)
    except TypeError as exc:
        raise TypeError(f"bad parameters for {cls.name}: {exc}") from exc

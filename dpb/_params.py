"""Policy parameters given as keywords: ``simulate("DP-KLUCB", mu, T, eps=0.5, alpha=2)``.

The functions that run a policy (:func:`dpb.simulate.simulate`, :func:`dpb.audit.audit_policy`,
``dpb.experiments.cell``...) take the policy's parameters either as ``params={...}``
or as keywords after their own options; :func:`merge_params` joins the two and, for a keyword
that is neither an option of the function nor a parameter of the policy, says so in one line
naming both lists.
"""

from __future__ import annotations

import inspect
from collections.abc import Mapping

__all__ = ["merge_params", "policy_parameter_names"]


def policy_parameter_names(policy) -> tuple | None:
    """The keyword parameters a policy (name, ``"file.py:Class"`` or class) accepts, or None when
    they cannot be told (a factory, or a constructor taking ``**kwargs``)."""
    from .policies import Policy
    from .policies.registry import policy_class

    if isinstance(policy, tuple) and len(policy) == 2:
        policy = policy[0]
    if not (isinstance(policy, str) or (isinstance(policy, type) and issubclass(policy, Policy))):
        return None
    cls = policy_class(policy)
    try:
        sig = inspect.signature(cls.__init__)
    except (TypeError, ValueError):  # pragma: no cover - builtin constructors
        return None
    params = list(sig.parameters.values())[1:]
    if any(p.kind is p.VAR_KEYWORD for p in params):
        return None
    return tuple(p.name for p in params if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY))


def merge_params(function: str, policy, params, keywords: Mapping) -> dict | None:
    """``params`` and the policy keywords ``keywords`` of a call to ``function``, as one dict
    (None when both are empty).

    Raises
    ------
    TypeError
        For ``params`` that is not a dict, a parameter given both ways, keywords with a policy
        object (its parameters are fixed), or a keyword the policy does not take (the message
        lists the policy's parameters, and says that it is no option of ``function`` either).
    """
    from .policies import Policy

    if params is not None and not isinstance(params, Mapping):
        raise TypeError(f"params must be a dict of policy parameters, got {type(params).__name__}")
    if not keywords:
        return None if params is None else dict(params)
    if isinstance(policy, Policy):
        raise TypeError(f"{function}() got policy parameters {', '.join(sorted(keywords))} with a policy "
                        f"object ({policy.name}), whose parameters are fixed: pass a policy name, or "
                        f"build the object with them")
    both = sorted(set(keywords) & set(params or {}))
    if both:
        raise TypeError(f"{function}(): policy parameter {', '.join(both)} given twice (in params and as a "
                        f"keyword)")
    accepted = policy_parameter_names(policy)
    if accepted is not None:
        unknown = [k for k in keywords if k not in accepted]
        if unknown:
            from .policies.registry import policy_class

            name = policy_class(policy[0] if isinstance(policy, tuple) else policy).name
            takes = ", ".join(accepted) if accepted else "none"
            raise TypeError(f"{function}() got an unexpected keyword argument {unknown[0]!r}: it is "
                            f"neither an option of {function} nor a parameter of {name} (its parameters: "
                            f"{takes})")
    return {**(params or {}), **keywords}

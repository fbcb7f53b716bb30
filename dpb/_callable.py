"""Modules that can be called: ``dpb.simulate(...)`` is ``dpb.simulate.simulate(...)``.

The book's two verbs are also the names of their modules (:mod:`dpb.simulate`, :mod:`dpb.audit`).
Rather than rename the modules (every chapter and test imports them) or shadow a module with a
function (``import dpb.simulate as S`` would then give the function, or the function would be
replaced by the module whenever the module is first imported), each of the two modules is made
callable: its class becomes :class:`CallableModule`, whose ``__call__`` forwards to the module's
function of the same role.  So all of these work and mean what they say::

    import dpb
    dpb.simulate("DP-KLUCB", [0.9, 0.8], 10_000, eps=0.5)     # the function
    from dpb import simulate; simulate("IMED", "mu1", 1000)    # the same (a callable module)
    from dpb.simulate import simulate, Result                  # the function and a class
    import dpb.simulate as S; S.Result                         # the module

:mod:`dpb.audit` holds two audits (:func:`~dpb.audit.audit` of two transcripts and the one-call
:func:`~dpb.audit.audit_policy`), so calling the module would be ambiguous: ``dpb.audit(...)``
raises a ``TypeError`` naming both; ``dpb.audit_policy`` is the one-call audit.
"""

from __future__ import annotations

import sys
import types

__all__ = ["CallableModule", "make_callable"]


class CallableModule(types.ModuleType):
    """A module whose call is its function ``__call_target__`` (an attribute name)."""

    def __call__(self, *args, **kwargs):
        target = self.__call_target__
        if target.startswith("!"):  # not callable: the message says what to call instead
            raise TypeError(target[1:])
        return getattr(self, target)(*args, **kwargs)

    @property
    def __signature__(self):  # inspect.signature(dpb.simulate) shows the function's
        import inspect

        if self.__call_target__.startswith("!"):
            raise ValueError(f"module {self.__name__} is not callable")
        return inspect.signature(getattr(self, self.__call_target__))


def make_callable(module_name: str, function_name: str | None, hint: str = "") -> None:
    """Make the module ``module_name`` (already in ``sys.modules``) call ``function_name``; with
    ``function_name=None`` a call raises ``TypeError(hint)`` (what to call instead)."""
    module = sys.modules[module_name]
    module.__call_target__ = function_name if function_name is not None else "!" + hint
    # the class attribute ``CallableModule.__module__`` ("dpb._callable") must not pass for the
    # module's own: tools that read ``obj.__module__`` (Sphinx autodoc) look for its source there
    module.__module__ = module_name
    module.__class__ = CallableModule

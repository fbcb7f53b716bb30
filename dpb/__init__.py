"""dpb: optimal regret of Bernoulli bandits under epsilon-global differential privacy.

The tested package behind the dpb book.  One module a concept:

- :mod:`dpb.divergences`   kl, the paper's d_eps, its minimiser, confidence inversions, tv
- :mod:`dpb.bounds`        asymptotic regret constants (new lower bound, 2022 bound, Lai-Robbins, upper bound)
- :mod:`dpb.coupling`      the double change of environment of the lower-bound proof, maximal couplings
- :mod:`dpb.concentration` exact tails of Binomial + Laplace sums, the private Chernoff bound
- :mod:`dpb.privacy`       the Laplace mechanism and privacy checks
- :mod:`dpb.batching`      batch schedules (the paper's geometric one, doubling, polynomial)
- :mod:`dpb.environments`  Bernoulli bandits and the paper's named instances
- :mod:`dpb.policies`      DP-KLUCB, DP-IMED, DP-SE, AdaP-KLUCB/UCB, Lazy-DP-TS, IMED, KL-UCB
- :mod:`dpb.simulate`      exact, fast, reproducible simulation (phases as Binomial draws)
- :mod:`dpb.reference`     the literal per-step simulator kept as the test oracle
- :mod:`dpb.interaction`   policies against fixed reward lists and reward-feeding adversaries
- :mod:`dpb.audit`         an empirical privacy audit, and deliberately broken variants it catches
- :mod:`dpb.regret`        the regret upper bound measured: normalised pulls, decomposition, alpha
- :mod:`dpb.experiments`   the paper's experiments as specs, resumable sweeps (``python -m dpb``)
- :mod:`dpb.tables`        the chapters' result tables: aligned text (what nbval compares) and HTML
- :mod:`dpb.chapters`, :mod:`dpb.plotting`, :mod:`dpb.widgets`  each chapter's own numbers, its figures
  and its interactive explorers (one module a chapter in each)

The verbs of the book are callable at the top level (each imported on first use)::

    import dpb
    res = dpb.simulate("DP-KLUCB", [0.9, 0.8, 0.8], 10_000, runs=20, seed=1, eps=0.5, alpha=2)
    audit = dpb.audit_policy("DP-IMED", eps=1.0, runs=2000, seed=0)
    report = dpb.run("my_experiment.toml")          # compute, cache, resume (dpb.experiments.run)
    results = dpb.load("my_experiment.toml")        # ... and read back; results.to_frame()

``dpb.simulate`` is the function :func:`dpb.simulate.simulate`; its module stays importable by its
name for the rest (``from dpb.simulate import Result, estimate_cost``).  A function and a submodule
that share a name share one attribute of the package, and the import system sets that attribute to
the submodule whenever it first loads it (``import dpb.simulate``, or any module of the package that
imports it); the package keeps the function there (``_Package`` below), so ``dpb.simulate`` is the
function whatever was imported first, and ``import dpb.simulate as S`` (which reads that attribute)
gives the function too: write ``from dpb.simulate import ...`` to reach the module's names.
:mod:`dpb.audit` is a plain module: the one-call audit is ``dpb.audit_policy``.
"""

import importlib
import sys
import types

from ._version import __version__

# Submodules and the few re-exported names are loaded on first access (module ``__getattr__``,
# PEP 562), so that ``import dpb`` costs little more than numpy: the CLI, the tests' subprocesses
# and every kernel pay it.  ``dpb.simulate``, ``from dpb import audit`` and ``import dpb.audit``
# all keep working; each submodule is imported once, when first used.
_SUBMODULES = (
    "audit",
    "batching",
    "bounds",
    "cache",
    "chapters",
    "concentration",
    "cost",
    "coupling",
    "divergences",
    "engine",
    "environments",
    "estimates",
    "experiments",
    "frames",
    "interaction",
    "plain",
    "plans",
    "plotting",
    "policies",
    "privacy",
    "reference",
    "regret",
    "result",
    "simulate",
    "tables",
    "trace",
    "widgets",
)
#: re-exported names and the submodule defining each
_NAMES = {
    "BernoulliBandit": "environments",
    "instance": "environments",
    "make_policy": "policies",
    "Result": "simulate",
    "simulate_trace": "simulate",
    "audit_policy": "audit",
    "run": "experiments",
    "load": "experiments",
    "read_experiment": "experiments",
    "to_frame": "frames",
}
#: the verbs named like their modules: ``dpb.simulate`` is the function, not the submodule
_VERBS = {"simulate": "simulate"}

__all__ = [*_SUBMODULES, *_NAMES, "__version__"]


def __getattr__(name: str):
    if name in _SUBMODULES and name not in _VERBS:
        return importlib.import_module(f"{__name__}.{name}")  # also binds it as an attribute
    # a verb is the function; its module is loaded (and stays in sys.modules) on the way
    where = _VERBS.get(name, _NAMES.get(name))
    if where is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = globals()[name] = getattr(importlib.import_module(f"{__name__}.{where}"), name)
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))


class _Package(types.ModuleType):
    """The class of the package ``dpb``: a verb stays the function when its submodule loads.

    The import system binds a submodule to its package once it is loaded (``setattr(dpb, "simulate",
    <module dpb.simulate>)``, after the module's body ran); for a name in ``_VERBS`` that binding is
    dropped, so ``dpb.simulate`` stays (or, on first use, becomes) the function.  The submodule is
    still ``sys.modules["dpb.simulate"]``, which is what ``from dpb.simulate import ...`` reads.
    """

    def __setattr__(self, name: str, value: object) -> None:
        if name in _VERBS and isinstance(value, types.ModuleType):
            return
        super().__setattr__(name, value)


sys.modules[__name__].__class__ = _Package

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
- :mod:`dpb.plotting`, :mod:`dpb.widgets`  the book's figures and interactive explorers
"""

from . import (
    audit,
    batching,
    bounds,
    concentration,
    coupling,
    divergences,
    environments,
    experiments,
    interaction,
    policies,
    privacy,
    reference,
    regret,
    simulate,
)
from ._version import __version__
from .environments import BernoulliBandit, instance
from .policies import make_policy
from .simulate import Result, simulate_trace


__all__ = [
    "audit",
    "batching",
    "bounds",
    "concentration",
    "coupling",
    "divergences",
    "environments",
    "experiments",
    "interaction",
    "policies",
    "privacy",
    "reference",
    "regret",
    "simulate",
    "BernoulliBandit",
    "instance",
    "make_policy",
    "Result",
    "simulate_trace",
    "__version__",
]

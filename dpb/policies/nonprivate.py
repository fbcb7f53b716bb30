"""The non-private references IMED (Honda & Takemura 2015) and KL-UCB (Garivier & Cappe 2011).

Both pull every arm once, then decide at every step from the empirical means mu^_a = S_a / N_a:

* IMED: pull argmin_a  N_a kl(mu^_a, mu^*) + log N_a,  mu^* = max_b mu^_b (the paper's non-private
  benchmark; the DP-IMED index of :prf:ref:`alg-dp-klucb-imed` is its private analogue);
* KL-UCB: pull argmax_a  max{q in [mu^_a, 1] : N_a kl(mu^_a, q) <= log t + c log log t}, c = 0 by
  default (the budget is floored at 0 for the first rounds when c != 0).

Ties are broken uniformly at random.  This module holds the rules, as
:meth:`~dpb.policies.base.PerStepPolicy.empirical_index` (the generic phase engine runs them one pull per
phase: exact and simple, a numpy call per step).  Their exact fast paths,
:func:`simulate_imed_fast` and :func:`simulate_klucb_fast` (reward tapes and certified leader
segments, compiled with numba or run as Python: the ``engine`` of :func:`dpb.simulate.simulate`),
are ``dpb.policies._tapes``.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from .._detmath_arrays import log_array

from ._numerics import budget_fast, kl_fast, kl_ucb_fast
from ._tapes import simulate_imed_fast, simulate_klucb_fast
from .base import PerStepPolicy, Recorder, check_real

__all__ = ["IMED", "KLUCB", "simulate_imed_fast", "simulate_klucb_fast"]


class IMED(PerStepPolicy):
    """IMED (Honda & Takemura 2015), Bernoulli form: argmin_a N_a kl(mu^_a, mu^*) + log N_a."""

    name = "IMED"
    style = {"color": "#000000", "ls": "--"}
    reference = "dpb.reference:_imed"
    index_kind = "min"
    # the cost model (dpb.cost): the paper's cells at T = 1e6, 20 runs: 0.006 s a run compiled,
    # about 100 times slower uncompiled, rounded up generously; result files of 160 runs (2 to 4
    # CPU-s at T = 1e6) split the converged scale's large blocks (up to 10 240 runs, over a
    # CPU-minute) into parallel tasks, so that every core of the pool works on them
    cost_fast, cost_fast_python = (6e-8, 1.2e-8), (1e-5, 5e-6)
    cost_chunk_runs = 160
    # compiled kernels; the converged scale starts at 320 runs, 1.6 to 2.0 CPU-s at T = 1e6, about
    # a DP-IMED cell's cost at its first look (dpb.experiments.scale)
    kernel_params, converged_min_runs = {}, 320

    def __init__(self) -> None:
        pass

    @property
    def params(self) -> dict:
        return {}

    def empirical_index(self, mu: np.ndarray, n: np.ndarray, t: np.ndarray) -> np.ndarray:
        return n * kl_fast(mu, mu.max(axis=1, keepdims=True)) + log_array(n)

    def fast_simulate(self, means: np.ndarray, T: int, env_generators: Sequence, policy_generators: Sequence,
                      recorder: Recorder, engine: str | None = None) -> None:
        """Exact fast path (``dpb.policies._tapes``); used by :func:`dpb.simulate.simulate`."""
        simulate_imed_fast(means, T, env_generators, policy_generators, recorder, engine)


class KLUCB(PerStepPolicy):
    """KL-UCB (Garivier & Cappe 2011): argmax_a max{q : N_a kl(mu^_a, q) <= log t + c log log t}.

    Parameters
    ----------
    c : float
        Coefficient of the log log t term, >= 0 (default 0).
    """

    name = "KL-UCB"
    index_kind = "max"
    paper_defaults = {"c": 0.0}
    style = {"color": "#8c564b", "ls": "--"}
    reference = "dpb.reference:_klucb"
    # the cost model (dpb.cost): 0.010 s a run at T = 1e6 compiled, rounded up; the reference's
    # index inversion costs 2e-4 s a round
    cost_fast, cost_fast_python, cost_reference = (2.5e-7, 2.5e-8), (3e-5, 1e-5), 2e-4
    # compiled kernels; the converged scale starts at the paper's 20 runs (dpb.experiments.scale)
    kernel_params, converged_min_runs = {}, 20

    def __init__(self, c: float = 0.0) -> None:
        self.c = check_real("c", c, low=0.0, strict=False)

    @property
    def params(self) -> dict:
        return {"c": self.c}

    def empirical_index(self, mu: np.ndarray, n: np.ndarray, t: np.ndarray) -> np.ndarray:
        return kl_ucb_fast(mu, budget_fast(t, self.c) / n)

    def fast_simulate(self, means: np.ndarray, T: int, env_generators: Sequence, policy_generators: Sequence,
                      recorder: Recorder, engine: str | None = None) -> None:
        """Exact fast path (``dpb.policies._tapes``); used by :func:`dpb.simulate.simulate`."""
        simulate_klucb_fast(means, T, env_generators, policy_generators, recorder, c=self.c, engine=engine)

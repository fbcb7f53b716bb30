"""Lazy-DP-TS (Hu & Hegde, UAI 2022): Thompson sampling on private means, doubling buffers.

Each arm j is pulled once: O_j = 1, r_j = 0, mu~_j = reward + Lap(1/eps), empty buffer.  Then at
every round t::

    m_j = clip( mu~_j + c ln(t) / (eps O_j) )                    (optimism offset)
    theta_j ~ Beta( m_j O_j + 1, (1 - m_j) O_j + 1 )
    J = argmax_j theta_j ;  the reward goes to buffer_J
    if |buffer_J| = 2^{r_J + 1}:  mu~_J = (buffer sum + Lap(1/eps)) / |buffer_J|,
                                   O_J = |buffer_J|,  r_J += 1,  empty buffer_J.

Each reward enters one noisy buffer sum of sensitivity 1 (forgetting, parallel composition), so
the policy is eps-global DP.  **ASSUMPTION** (:doc:`/book/algorithms_as_run`): the offset constant
c = 3 and this initialisation are not confirmed against the original paper; ``c`` is a parameter.

The class is the rule, run by the generic phase engine (one pull per phase); its exact fast path,
:func:`simulate_lazy_dpts_fast` (windows of rounds, skipping the rounds a leader surely wins),
is ``dpb.policies._lazy_windows``.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from .._detmath_arrays import log_array

from ._lazy_windows import simulate_lazy_dpts_fast
from .base import _InitialRoundRobin, Policy, Recorder, check_eps, check_real

__all__ = ["LazyDPTS", "simulate_lazy_dpts_fast"]


class LazyDPTS(_InitialRoundRobin, Policy):
    """Lazy-DP-TS: private Thompson sampling with doubling, forgetting buffers.

    Parameters
    ----------
    eps : float
        Privacy budget, > 0.
    c : float
        Optimism offset constant, >= 0 (default 3; an ASSUMPTION, see the module docstring).

    Attributes
    ----------
    obs : ndarray (R, K)
        O_j, the number of rewards behind each arm's current private mean.

    """
    eps: float  # a private policy's budget (never None)

    name = "Lazy-DP-TS"
    private = True
    index_kind = "max"
    paper_defaults = {"c": 3.0}
    style = {"color": "#9467bd", "ls": "-"}
    reference = "dpb.reference:_lazy_dpts"
    # the cost model (dpb.cost): 0.11 s a run at T = 1e6 on mu1, the slowest instance, rounded up;
    # result files of 10 runs (about 1 CPU-s each) split the converged scale's blocks
    cost_fast, cost_chunk_runs = (5e-7, 3e-7), 10
    # the converged scale starts at the paper's 20 runs: 1.1 to 1.2 CPU-s (dpb.experiments.scale)
    converged_min_runs = 20

    def __init__(self, eps: float, c: float = 3.0) -> None:
        self.eps = check_eps(eps)
        self.c = check_real("c", c, low=0.0, strict=False)

    @property
    def params(self) -> dict:
        return {"eps": self.eps, "c": self.c}

    def _start(self) -> None:
        R, K = self.R, self.K
        self.mu_tilde = np.zeros((R, K))
        self.obs = np.zeros((R, K), dtype=np.int64)
        self.r = np.zeros((R, K), dtype=np.int64)
        self.buf_n = np.zeros((R, K), dtype=np.int64)
        self.buf_sum = np.zeros((R, K))
        self._init_state()

    def statistic(self) -> np.ndarray:
        return np.where(self.obs > 0, self.mu_tilde, np.nan)

    def decide(self, rows: np.ndarray, t: np.ndarray) -> np.ndarray:
        rows = np.asarray(rows, dtype=np.int64)
        return self._one_hot(self._choose_arms(rows, t), np.ones(rows.size, dtype=np.int64))

    def _index(self, rows: np.ndarray, t: np.ndarray) -> np.ndarray:
        """theta_j ~ Beta(m_j O_j + 1, (1 - m_j) O_j + 1) of every arm, each run from its own
        generator."""
        obs = self.obs[rows]
        m = np.clip(self.mu_tilde[rows] + self.c * log_array(t)[:, None] / (self.eps * obs), 0.0, 1.0)
        a, b = m * obs + 1.0, (1.0 - m) * obs + 1.0
        return np.array([self.rand.generators[run].beta(a[i], b[i]) for i, run in enumerate(rows)])

    def update(self, rows: np.ndarray, counts: np.ndarray, sums: np.ndarray) -> None:
        rows = np.asarray(rows, dtype=np.int64)
        arms = np.argmax(counts, axis=1)
        i = np.arange(rows.size)
        first = self.obs[rows, arms] == 0
        if first.any():  # initial pull: mu~ = reward + Lap(1/eps), obs = 1
            r, a = rows[first], arms[first]
            self.mu_tilde[r, a] = sums[i[first], a] + self._noise(r, a)
            self.noise_in_stat[r, a] = 1
            self.obs[r, a] = 1
        rest = ~first
        if rest.any():
            r, a = rows[rest], arms[rest]
            self.buf_n[r, a] += 1
            self.buf_sum[r, a] += sums[i[rest], a]
            full = self.buf_n[r, a] == 2 ** (self.r[r, a] + 1)
            if full.any():
                rf, af = r[full], a[full]
                nb = self.buf_n[rf, af]
                self.mu_tilde[rf, af] = (self.buf_sum[rf, af] + self._noise(rf, af)) / nb
                self.noise_in_stat[rf, af] = 1
                self.obs[rf, af] = nb
                self.r[rf, af] += 1
                self.buf_n[rf, af] = 0
                self.buf_sum[rf, af] = 0.0

    def fast_simulate(self, means: np.ndarray, T: int, env_generators: Sequence, policy_generators: Sequence,
                      recorder: Recorder) -> None:
        """Exact fast path (see the module docstring); used by :func:`dpb.simulate.simulate`."""
        simulate_lazy_dpts_fast(means, T, env_generators, policy_generators, recorder, eps=self.eps, c=self.c)

"""Lazy-DP-TS (Hu & Hegde, UAI 2022): Thompson sampling on private means, doubling buffers.

Each arm j is pulled once: O_j = 1, r_j = 0, mu~_j = reward + Lap(1/eps), empty buffer.  Then at
every round t:

    m_j = clip( mu~_j + c ln(t) / (eps O_j) )                    (optimism offset)
    theta_j ~ Beta( m_j O_j + 1, (1 - m_j) O_j + 1 )
    J = argmax_j theta_j ;  the reward goes to buffer_J
    if |buffer_J| = 2^{r_J + 1}:  mu~_J = (buffer sum + Lap(1/eps)) / |buffer_J|,
                                   O_J = |buffer_J|,  r_J += 1,  empty buffer_J.

Each reward enters one noisy buffer sum of sensitivity 1 (forgetting, parallel composition), so
the policy is eps-global DP.  **ASSUMPTION** (ALGORITHMS.md): the offset constant c = 3 and this
initialisation are not confirmed against the original paper; ``c`` is a parameter.

Two simulators: the class (generic phase protocol, one pull per phase) and
:func:`simulate_lazy_dpts_fast`.  The latter uses that (i) the private statistics only change
when a buffer fills, so between fills the Beta samples of a window of rounds can be drawn in one
vectorised call (their parameters depend on t only through ln t), and (ii) the policy never looks
at individual rewards: a buffer's sum is drawn as one Binomial(|buffer|, mu_J) when it fills.
Both are exact in distribution.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from .base import InitialRoundRobin, Policy, check_eps, check_real, pick_max

__all__ = ["LazyDPTS", "simulate_lazy_dpts_fast"]


class LazyDPTS(InitialRoundRobin, Policy):
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

    name = "Lazy-DP-TS"
    private = True
    index_kind = "max"
    paper_defaults = {"c": 3.0}
    style = {"color": "#9467bd", "ls": "-"}
    reference = "dpb.reference:_lazy_dpts"

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
        self._init_state(1)

    def statistic(self) -> np.ndarray:
        return np.where(self.obs > 0, self.mu_tilde, np.nan)

    def decide(self, rows: np.ndarray, t: np.ndarray) -> np.ndarray:
        rows = np.asarray(rows, dtype=np.int64)
        arms = np.empty(rows.size, dtype=np.int64)
        init = self._in_init(rows)
        if init.any():
            arms[init] = self._init_plan(rows[init])
            self.index[rows[init]] = np.nan
        main = np.flatnonzero(~init)
        if main.size:
            r = rows[main]
            obs = self.obs[r]
            m = np.clip(self.mu_tilde[r] + self.c * np.log(t[main])[:, None] / (self.eps * obs), 0.0, 1.0)
            a, b = m * obs + 1.0, (1.0 - m) * obs + 1.0
            theta = np.empty((r.size, self.K))
            for i, run in enumerate(r):  # each run samples from its own generator
                theta[i] = self.rand.generators[run].beta(a[i], b[i])
            self.index[r] = theta
            arms[main] = pick_max(theta, r, self.rand)
        return self._one_hot(arms, np.ones(rows.size, dtype=np.int64))

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

    def fast_simulate(self, means, T, env_generators, policy_generators, recorder) -> None:
        """Exact fast path (see the module docstring); used by :func:`dpb.simulate.simulate`."""
        simulate_lazy_dpts_fast(means, T, env_generators, policy_generators, recorder, eps=self.eps, c=self.c)


def simulate_lazy_dpts_fast(
    means,
    T: int,
    env_generators: Sequence,
    policy_generators: Sequence,
    recorder,
    *,
    eps: float,
    c: float = 3.0,
) -> None:
    """Exact fast Lazy-DP-TS simulation, one run at a time, windows of rounds vectorised.

    For run ``r``: rewards come from ``env_generators[r]`` (one Bernoulli per initial pull, one
    Binomial per filled buffer), Beta samples, Laplace noise and tie-breaks from
    ``policy_generators[r]``.  The Beta samples of a window of rounds are drawn together; the
    window is cut just after the first round whose pull fills a buffer (the unused samples are
    discarded: they are independent of everything, so discarding them is exact).
    """
    means = np.asarray(means, dtype=float)
    K = means.size
    T = int(T)
    if T < K:
        raise ValueError(f"T must be >= K={K} (every arm is pulled once first), got T={T}")
    eye = np.eye(K, dtype=np.int64)
    for run, (genv, gpol) in enumerate(zip(env_generators, policy_generators, strict=True)):
        row = np.array([run])
        laplace = _LaplaceBuffer(gpol)
        mu_tilde = np.empty(K)
        for j in range(K):  # initialisation, in arm order: mu~_j = reward + Lap(1/eps)
            recorder.record(row, np.array([j + 1]), eye[j][None, :])
            mu_tilde[j] = genv.binomial(1, means[j]) + laplace.draw() / eps
        recorder.laplace[run] += K
        obs = np.ones(K)
        bonus = np.full(K, c / eps)  # c / (eps O_j)
        cap = np.full(K, 2, dtype=np.int64)  # buffer size that triggers a release: 2^{r_j + 1}
        fill = np.zeros(K, dtype=np.int64)  # current buffer lengths
        t = K + 1
        window = 256
        while t <= T:
            L = min(window, T - t + 1)
            # m_j = clip(mu~_j + c ln(t) / (eps O_j)); theta_j ~ Beta(m_j O_j + 1, (1 - m_j) O_j + 1)
            m = np.log(np.arange(t, t + L, dtype=float))[:, None] * bonus + mu_tilde
            np.minimum(m, 1.0, out=m)
            np.maximum(m, 0.0, out=m)
            a = m * obs
            a += 1.0
            theta = gpol.beta(a, obs + 2.0 - a)
            J = np.argmax(theta, axis=1)
            top = theta[np.arange(L), J]
            if np.count_nonzero(theta == top[:, None]) > L:  # a tie: probability ~0, handled exactly
                for s in np.flatnonzero(np.count_nonzero(theta == top[:, None], axis=1) > 1):
                    cand = np.flatnonzero(theta[s] == top[s])
                    J[s] = cand[min(int(gpol.random() * cand.size), cand.size - 1)]
            counts = np.bincount(J, minlength=K)
            need = cap - fill
            j, used = -1, L
            if np.any(counts >= need):  # some buffer fills in this window: cut just after it
                first = np.full(K, L)
                for arm in np.flatnonzero(counts >= need):
                    first[arm] = np.flatnonzero(J == arm)[need[arm] - 1]
                j = int(np.argmin(first))  # one arm per round, so the first fill is unique
                used = int(first[j]) + 1
                counts = np.bincount(J[:used], minlength=K)
            recorder.record_steps(run, t, J[:used])
            fill += counts
            if j >= 0:  # release: the buffer's sum is one Binomial draw, plus one Laplace draw
                nb = int(cap[j])
                mu_tilde[j] = (genv.binomial(nb, means[j]) + laplace.draw() / eps) / nb
                recorder.laplace[run] += 1
                obs[j] = nb
                bonus[j] = (c / eps) / nb
                cap[j] *= 2
                fill[j] = 0
            t += used
            # next window: about the expected time to the next fill at the current pull rates
            rate = counts / used
            with np.errstate(divide="ignore", invalid="ignore"):
                eta = np.min(np.where(rate > 0, (cap - fill) / rate, np.inf))
            window = int(np.clip(1.5 * eta if np.isfinite(eta) else 4 * window, 64, 1 << 14))


class _LaplaceBuffer:
    """Standard Laplace draws from one generator, pre-drawn in blocks."""

    def __init__(self, gen: np.random.Generator, block: int = 64) -> None:
        self.gen, self.block = gen, block
        self.buf = gen.laplace(0.0, 1.0, block)
        self.i = 0

    def draw(self) -> float:
        if self.i == self.block:
            self.buf = self.gen.laplace(0.0, 1.0, self.block)
            self.i = 0
        self.i += 1
        return float(self.buf[self.i - 1])

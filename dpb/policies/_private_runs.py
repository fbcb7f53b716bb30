"""The runs of DP-KLUCB and DP-IMED (:mod:`dpb.policies.dp_batched`) as plain Python that numba
compiles: all runs of a chunk in one call, every draw from the runs' counter-based streams
(``dpb._streams``), every checkpoint recorded as the run goes.

:func:`run_chunk` is the specification and the only implementation of the fast path:
:mod:`dpb.policies._private_kernel` compiles it (``engine="numba"``) and ``engine="python"`` runs
it as it stands (the same numbers, about a hundred times slower).  The generic phase engine
(``fast=False``) draws from the same streams through :class:`EnvStream` and
:class:`PolicyStream` and evaluates the same scalar indexes (:func:`klucb_indexes`,
:func:`imed_indexes`), so it makes the same numbers too.

A run: the initial round-robin (``B_0`` pulls of each arm in arm order), then each phase the arm
of largest DP-KLUCB index (smallest DP-IMED index), ties broken by one uniform of the run's tie
stream, ``B_m`` pulls (cut at the horizon), their sum one Binomial(B_m, mu_a) draw of the
environment stream, one standard Laplace draw of the noise stream scaled by 1/eps added to the
arm's private running sum.  The regret at a checkpoint q inside a phase that starts at round t0
with c pulls of arm a is reg0 + (q - t0 + 1) (c Delta_a) / c, reg0 the regret before the phase
(the arithmetic of :class:`dpb.engine.Recorder`).
"""

from __future__ import annotations

import math

import numpy as np

from .._streams import ENV, LAPLACE, TIES, binomial, laplace, run_key, stream_key, u64, uniform
from . import _scalar

from .._detmath import exp, expm1, log

__all__ = ["KLUCB", "IMED", "run_chunk", "dpse_chunk", "adap_chunk", "klucb_indexes", "imed_indexes",
           "d_eps_ucb_edge", "d_eps_ucb_given", "EnvStream", "PolicyStream", "CounterStreams",
           "adap_index", "adap_rows", "d_eps_ucb", "imed_rows", "klucb_rows", "record_phase",
           "se_epoch_terms"]

KLUCB, IMED = 0, 1  # the index of run_chunk's ``kind``
_kl, _kl_ucb = _scalar.kl, _scalar.kl_ucb
_d_eps_terms, _d_eps_below = _scalar.d_eps_terms, _scalar.d_eps_below
_count_tied, _nth_tied = _scalar.count_tied, _scalar.nth_tied


def d_eps_ucb_edge(x, eps):
    """kl(x, e) at the edge e = max(expit(logit(x) + eps), x) of the two regimes of d_eps(x, .) above
    x (e = x at x = 0 or 1): below it the DP-KLUCB index is the KL-UCB index, above it the explicit
    inverse of :func:`d_eps_ucb_given`.  A function of the arm's private mean alone, so the fast
    path computes it once per phase of the arm."""
    if x <= 0.0:
        edge = 0.0
    elif x >= 1.0:
        edge = 1.0
    else:
        edge = 1.0 / (1.0 + exp(-(log(x / (1.0 - x)) + eps)))
        if edge < x:
            edge = x
    return _kl(x, edge)


def d_eps_ucb_given(x, c, eps, kl_edge, em):
    """The DP-KLUCB index max{mu in [x, 1] : d_eps(x, mu) <= c} of one arm, given
    ``kl_edge`` = :func:`d_eps_ucb_edge` (x, eps) and ``em`` = expm1(-eps): 1 if c >= eps (1 - x);
    (1 - e^{-(c + eps x)}) / (1 - e^{-eps}) clipped to [x, 1] if c > kl_edge; else the KL-UCB index
    (the case split of :func:`dpb.policies._numerics.d_eps_ucb_fast`)."""
    if c >= eps * (1.0 - x):
        return 1.0
    if c > kl_edge:
        v = expm1(-(c + eps * x)) / em
        if v < x:
            v = x
        return v if v < 1.0 else 1.0
    return _kl_ucb(x, c)


def d_eps_ucb(x, c, eps):
    """The DP-KLUCB index of one arm (the scalar twin of
    :func:`dpb.policies._numerics.d_eps_ucb_fast`): :func:`d_eps_ucb_given` with its two terms."""
    if c >= eps * (1.0 - x):
        return 1.0
    return d_eps_ucb_given(x, c, eps, d_eps_ucb_edge(x, eps), expm1(-eps))


def klucb_indexes(x, kl_edge, n, t, eps, em, idx):
    """Fill ``idx`` with the DP-KLUCB index of every arm (clipped private means ``x``, their
    :func:`d_eps_ucb_edge` terms ``kl_edge``, pulls ``n``, round ``t``, ``em`` = expm1(-eps)) and
    return the largest (NaN if an index is NaN)."""
    lt = log(float(t))
    best = -math.inf
    for k in range(n.shape[0]):
        v = d_eps_ucb_given(x[k], lt / n[k], eps, kl_edge[k], em)
        if v != v:
            return math.nan
        idx[k] = v
        if v > best:
            best = v
    return best


def imed_indexes(x, log_n, n, eps, below, terms, changed, idx):
    """Fill ``idx`` with the DP-IMED index n_k d_eps(x_k, x*) + log n_k of every arm (clipped
    private means ``x``, ``log_n`` = log n_k) and return the smallest (NaN if an index is NaN).

    ``below[k]`` holds d_eps(x_k, x*) and ``terms`` (x*, z, log_term) of :func:`dpb.policies._scalar.
    d_eps_terms` from the previous call: all are computed again when x* changed, else only arm
    ``changed``'s (the one arm pulled since; -1: none)."""
    K = n.shape[0]
    x_star = x[0]
    for k in range(1, K):
        if x[k] > x_star:
            x_star = x[k]
    if x_star != terms[0]:
        terms[0] = x_star
        terms[1], terms[2] = _d_eps_terms(x_star, eps)
        for k in range(K):
            below[k] = _d_eps_below(x[k], x_star, terms[1], terms[2], eps)
    elif changed >= 0:
        below[changed] = _d_eps_below(x[changed], x_star, terms[1], terms[2], eps)
    best = math.inf
    for k in range(K):
        v = n[k] * below[k] + log_n[k]
        if v != v:
            return math.nan
        idx[k] = v
        if v < best:
            best = v
    return best


def klucb_rows(x, n, t, eps, out):
    """The DP-KLUCB index of every arm of every row (clipped private means ``x``, pulls ``n``,
    rounds ``t``), the arithmetic of :func:`klucb_indexes`: for the generic engine."""
    for i in range(x.shape[0]):
        lt = log(float(t[i]))
        for k in range(x.shape[1]):
            out[i, k] = d_eps_ucb(x[i, k], lt / n[i, k], eps)


def imed_rows(x, n, eps, out):
    """The DP-IMED index of every arm of every row, the arithmetic of :func:`imed_indexes`."""
    for i in range(x.shape[0]):
        x_star = x[i, 0]
        for k in range(1, x.shape[1]):
            if x[i, k] > x_star:
                x_star = x[i, k]
        z, log_term = _d_eps_terms(x_star, eps)
        for k in range(x.shape[1]):
            out[i, k] = n[i, k] * _d_eps_below(x[i, k], x_star, z, log_term, eps) + log(float(n[i, k]))


def run_chunk(kind, words, ids, means, gaps, sizes, T, eps, ck, regret, pulls, phases):
    """Simulate run ``ids[r]`` of root ``words[r]`` for every r, to horizon ``T``, into row r of
    ``regret`` (at the checkpoints ``ck``), ``pulls`` and ``phases`` (= its Laplace draws).

    ``kind``: :data:`KLUCB` or :data:`IMED`.  Returns -1, or the first row whose index was NaN.
    """
    K = means.shape[0]
    last = sizes.shape[0] - 1
    C = ck.shape[0]
    S = np.zeros(K)
    n = np.zeros(K, dtype=np.int64)
    ph = np.zeros(K, dtype=np.int64)
    idx = np.zeros(K)
    # what an arm's index needs of its own state, updated when it is pulled: the clipped private
    # mean, and log n (DP-IMED) or the kl term of the regime edge (DP-KLUCB); DP-IMED's d_eps to x*
    x = np.zeros(K)
    own = np.zeros(K)
    below = np.zeros(K)
    terms = np.zeros(3)
    em = expm1(-eps)
    for r in range(ids.shape[0]):
        key = run_key(u64(words[r, 0]), u64(words[r, 1]), u64(ids[r]))
        k_env = stream_key(key, ENV)
        k_lap = stream_key(key, LAPLACE)
        k_tie = stream_key(key, TIES)
        c_env = 0
        c_lap = 0
        c_tie = 0
        for k in range(K):
            S[k] = 0.0
            n[k] = 0
            ph[k] = 0
        terms[0] = math.nan
        arm = -1
        t = 1
        step = 0
        reg = 0.0
        nxt = 0
        while t <= T:
            if step < K:
                arm = step
            else:
                if kind == KLUCB:
                    best = klucb_indexes(x, own, n, t, eps, em, idx)
                else:
                    best = imed_indexes(x, own, n, eps, below, terms, arm, idx)
                if best != best:
                    return r
                n_tied, arm = _count_tied(idx, best)
                if n_tied > 1:
                    u, c_tie = uniform(k_tie, c_tie)
                    arm = _nth_tied(idx, best, u, n_tied)
            cnt = min(sizes[min(ph[arm], last)], T - t + 1)
            s, c_env = binomial(k_env, c_env, cnt, means[arm])
            y, c_lap = laplace(k_lap, c_lap)
            S[arm] += s + y / eps
            n[arm] += cnt
            ph[arm] += 1
            x[arm] = min(max(S[arm] / n[arm], 0.0), 1.0)
            own[arm] = d_eps_ucb_edge(x[arm], eps) if kind == KLUCB else log(float(n[arm]))
            added = cnt * gaps[arm]
            slope = added / cnt
            end = t + cnt - 1
            while nxt < C and ck[nxt] <= end:
                regret[r, nxt] = reg + (ck[nxt] - t + 1) * slope
                nxt += 1
            reg += added
            pulls[r, arm] += cnt
            t += cnt
            step += 1
        phases[r] = step
    return -1


# ----------------------------------------------------------------------------------------------
# the same streams as objects, for the generic phase engine (Python, one draw per call)
# ----------------------------------------------------------------------------------------------
class EnvStream:
    """A run's environment stream with the ``binomial`` method of a numpy ``Generator`` (scalar, or
    arrays drawn in order), for :func:`dpb.engine.run_phases`."""

    def __init__(self, key: int) -> None:
        self.key = stream_key(key, ENV)
        self.count = 0

    def binomial(self, n, p):
        if np.ndim(n) == 0 and np.ndim(p) == 0:
            x, self.count = binomial(self.key, self.count, int(n), float(p))
            return x
        n, p = np.broadcast_arrays(np.asarray(n, dtype=np.int64), np.asarray(p, dtype=float))
        out = np.empty(n.shape, dtype=np.int64)
        for i in np.ndindex(n.shape):
            out[i], self.count = binomial(self.key, self.count, int(n[i]), float(p[i]))
        return out


class PolicyStream:
    """A run's noise and tie-break streams with the ``laplace`` and ``random`` methods of a numpy
    ``Generator`` that :class:`dpb.policies.base.RunRandom` calls: its blocks of variates are the
    streams' next words in order, so a block of 64 is 64 single draws."""

    counter_stream = True  # (what RunRandom accepts besides numpy Generators)

    def __init__(self, key: int) -> None:
        self.keys = (stream_key(key, LAPLACE), stream_key(key, TIES))
        self.counts = [0, 0]

    def _draw(self, j, sampler, size):
        out = np.empty(1 if size is None else size)
        for i in range(out.size):
            out[i], self.counts[j] = sampler(self.keys[j], self.counts[j])
        return out[0] if size is None else out

    def laplace(self, loc=0.0, scale=1.0, size=None):
        if loc != 0.0 or scale != 1.0:
            raise ValueError("a PolicyStream draws standard Laplace variates only (loc=0, scale=1)")
        return self._draw(0, laplace, size)

    def random(self, size=None):
        return self._draw(1, uniform, size)


class CounterStreams:
    """Mixin of the policies whose runs draw from counter-based streams (``dpb._streams``) in
    every engine: :func:`dpb.engine.run_streams` asks them for the streams of runs."""

    #: (:func:`dpb.engine.uses_streams`)
    streams = "counter"

    def make_streams(self, words, ids) -> tuple[list, list]:
        """The environment and policy streams of the runs of keys ``(words, ids)``
        (``dpb.engine._seed_keys``)."""
        env, pol = [], []
        for w, i in zip(words, ids, strict=True):
            key = run_key(u64(w[0]), u64(w[1]), u64(i))
            env.append(EnvStream(key))
            pol.append(PolicyStream(key))
        return env, pol


# ----------------------------------------------------------------------------------------------
# DP-SE and AdaP-KLUCB / AdaP-UCB: the same streams, their own phase logic
# ----------------------------------------------------------------------------------------------
def record_phase(regret, r, ck, nxt, t, cnt, arms_gaps, m, reg):
    """Record a phase of run ``r`` from round ``t``: ``cnt`` pulls round-robin over ``m`` arms whose
    gaps are ``arms_gaps[:m]`` (in arm order), with regret ``reg`` before it, at the checkpoints
    from index ``nxt``; return the next checkpoint index.  The arithmetic of
    :meth:`dpb.engine.Recorder.record` (one arm: reg + k (c Delta) / c)."""
    end = t + cnt - 1
    C = ck.shape[0]
    if m == 1:
        slope = (cnt * arms_gaps[0]) / cnt
        while nxt < C and ck[nxt] <= end:
            regret[r, nxt] = reg + (ck[nxt] - t + 1) * slope
            nxt += 1
        return nxt
    g_m = 0.0
    for j in range(m):
        g_m += arms_gaps[j]
    while nxt < C and ck[nxt] <= end:
        k = ck[nxt] - t + 1
        g = 0.0
        for j in range(k % m):
            g += arms_gaps[j]
        regret[r, nxt] = reg + (k // m) * g_m + g
        nxt += 1
    return nxt


def se_epoch_terms(n_act, e, eps, beta):
    """(R_e, h_e, c_e) of DP-SE's epoch ``e`` with ``n_act`` active arms: the arithmetic of
    :meth:`dpb.policies.dpse.DPSE._epoch_terms` for one run."""
    delta = math.ldexp(1.0, -e)
    log8 = log(8.0 * n_act * (e * e) / beta)
    log4 = log(4.0 * n_act * (e * e) / beta)
    v = max(32.0 * log8 / (delta * delta), 8.0 * log4 / (eps * delta))
    cap = 2.0**62 / n_act
    r_e = int(math.ceil(v if v < cap else cap))
    return r_e, math.sqrt(log8 / (2.0 * r_e)), log4 / (eps * r_e)


def dpse_chunk(rule, words, ids, means, gaps, T, eps, beta, ck, regret, pulls, phases, laplace_out):
    """Runs of DP-SE (elimination rule ``rule``: 0 radius, 1 half-gap, 2 gap), as :func:`run_chunk`;
    ``laplace_out`` receives each run's Laplace draws (one per active arm and complete epoch)."""
    K = means.shape[0]
    act = np.ones(K, dtype=np.bool_)
    cnts = np.zeros(K, dtype=np.int64)
    sums = np.zeros(K)
    noisy = np.zeros(K)
    g = np.zeros(K)
    for r in range(ids.shape[0]):
        key = run_key(u64(words[r, 0]), u64(words[r, 1]), u64(ids[r]))
        k_env = stream_key(key, ENV)
        k_lap = stream_key(key, LAPLACE)
        c_env = 0
        c_lap = 0
        for k in range(K):
            act[k] = True
        epoch = 0
        t = 1
        reg = 0.0
        nxt = 0
        n_ph = 0
        n_lap = 0
        while t <= T:
            n_act = 0
            for k in range(K):
                if act[k]:
                    n_act += 1
            rem = T - t + 1
            full = False
            r_e, h_e, c_e = 0, 0.0, 0.0
            if n_act == 1:
                for k in range(K):
                    cnts[k] = rem if act[k] else 0
            else:
                epoch += 1
                r_e, h_e, c_e = se_epoch_terms(n_act, epoch, eps, beta)
                if r_e * n_act > rem:  # cut at the horizon: round-robin until T
                    q, rr = rem // n_act, rem % n_act
                    pos = 0
                    for k in range(K):
                        if act[k]:
                            cnts[k] = q + (1 if pos < rr else 0)
                            pos += 1
                        else:
                            cnts[k] = 0
                else:
                    full = True
                    for k in range(K):
                        cnts[k] = r_e if act[k] else 0
            m = 0
            added = 0.0
            total = 0
            for k in range(K):
                added += cnts[k] * gaps[k]
                if cnts[k] > 0:
                    s, c_env = binomial(k_env, c_env, cnts[k], means[k])
                    sums[k] = s
                    g[m] = gaps[k]
                    m += 1
                    total += cnts[k]
                    pulls[r, k] += cnts[k]
            nxt = record_phase(regret, r, ck, nxt, t, total, g, m, reg)
            reg += added
            n_ph += 1
            t += total
            if full:
                best = -math.inf
                for k in range(K):
                    if act[k]:
                        y, c_lap = laplace(k_lap, c_lap)
                        n_lap += 1
                        noisy[k] = (sums[k] + y / eps) / r_e
                        if noisy[k] > best:
                            best = noisy[k]
                if rule == 0:
                    threshold = 2.0 * (h_e + c_e)
                else:
                    threshold = math.ldexp(1.0, -epoch) * (0.5 if rule == 1 else 1.0)
                for k in range(K):
                    if act[k] and best - noisy[k] > threshold:
                        act[k] = False
        phases[r] = n_ph
        laplace_out[r] = n_lap
    return -1


ADAP_KLUCB, ADAP_UCB = 0, 1  # the index of adap_chunk's ``kind``


def adap_index(kind, mu, level, eps):
    """The AdaP-KLUCB (``kind`` 0) or AdaP-UCB (1) index of one arm from its private mean ``mu``
    and ``level`` = alpha log(t) / n_last (the arithmetic of :mod:`dpb.policies.adap`)."""
    if kind == ADAP_KLUCB:
        return _kl_ucb(min(max(mu + level / eps, 0.0), 1.0), level)
    return mu + math.sqrt(0.5 * level) + level / eps


def adap_rows(kind, mu, level, eps, out):
    """:func:`adap_index` of every entry (the generic engine's index of AdaP-KLUCB)."""
    for i in range(mu.shape[0]):
        for k in range(mu.shape[1]):
            out[i, k] = adap_index(kind, mu[i, k], level[i, k], eps)


def adap_chunk(kind, words, ids, means, gaps, T, eps, alpha, ck, regret, pulls, phases):
    """Runs of AdaP-KLUCB (``kind`` 0) or AdaP-UCB (1), as :func:`run_chunk`: one pull of each arm,
    then episodes that double the chosen arm's count, each with its own private mean."""
    K = means.shape[0]
    mu = np.zeros(K)
    n_last = np.zeros(K, dtype=np.int64)
    N = np.zeros(K, dtype=np.int64)
    idx = np.zeros(K)
    g = np.zeros(1)
    for r in range(ids.shape[0]):
        key = run_key(u64(words[r, 0]), u64(words[r, 1]), u64(ids[r]))
        k_env = stream_key(key, ENV)
        k_lap = stream_key(key, LAPLACE)
        k_tie = stream_key(key, TIES)
        c_env = 0
        c_lap = 0
        c_tie = 0
        for k in range(K):
            mu[k] = 0.0
            n_last[k] = 0
            N[k] = 0
        t = 1
        step = 0
        reg = 0.0
        nxt = 0
        while t <= T:
            if step < K:
                arm = step
                want = 1
            else:
                lt = log(float(t))
                best = -math.inf
                for k in range(K):
                    v = adap_index(kind, mu[k], alpha * lt / n_last[k], eps)
                    if v != v:
                        return r
                    idx[k] = v
                    if v > best:
                        best = v
                n_tied, arm = _count_tied(idx, best)
                if n_tied > 1:
                    u, c_tie = uniform(k_tie, c_tie)
                    arm = _nth_tied(idx, best, u, n_tied)
                want = N[arm]
            cnt = min(want, T - t + 1)
            s, c_env = binomial(k_env, c_env, cnt, means[arm])
            y, c_lap = laplace(k_lap, c_lap)
            mu[arm] = (s + y / eps) / cnt
            n_last[arm] = cnt
            N[arm] += cnt
            added = cnt * gaps[arm]
            g[0] = gaps[arm]
            nxt = record_phase(regret, r, ck, nxt, t, cnt, g, 1, reg)
            reg += added
            pulls[r, arm] += cnt
            t += cnt
            step += 1
        phases[r] = step
    return -1

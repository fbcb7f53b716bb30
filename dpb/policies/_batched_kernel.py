"""Compiled (numba) run of DP-IMED: the lock-step fast path of :mod:`dpb.policies.dp_batched`, one
run at a time in machine code.

Imported lazily by :meth:`dpb.policies.dp_batched.BatchedPrivatePolicy.simulate_phases` (never by
``import dpb``).  A run draws exactly what the numpy path draws, from the same generators and in
the same order: one ``Binomial(B, mu_a)`` per phase from the run's environment generator, and
from its policy generator the standard Laplace and uniform variates in blocks of 64, as
:class:`dpb.policies.base.RunRandom` hands them out (numba's ``Generator.binomial``,
``.laplace`` and ``.random`` follow numpy's algorithms draw for draw).  The index is the same
formula (:func:`dpb.policies._scalar.d_eps_below`) evaluated with scalar ``math`` functions
instead of numpy's vectorised ones; the two may differ in the last bit, which changes a decision
only when two different arms' indexes agree to about 1e-15 (exact ties, from equal statistics,
stay exact ties and are broken at random alike).
"""

from __future__ import annotations

import math

import numba
import numpy as np
from numba.extending import register_jitable

from .. import _detmath, _detmath_kernels  # noqa: F401  (_detmath_kernels: its functions compilable)
from . import _scalar

# the scalar maths (plain Python, :mod:`dpb.policies._scalar`), compiled where the kernel calls it
register_jitable(_scalar.kl)
_d_eps_below = register_jitable(_scalar.d_eps_below)
_d_eps_terms = register_jitable(_scalar.d_eps_terms)
_count_tied, _nth_tied = (register_jitable(inline="always")(f)
                          for f in (_scalar.count_tied, _scalar.nth_tied))

_BLOCK = 64  # RunRandom's default block


@numba.njit(cache=True)
def _dp_imed_indexes(S, n, idx, eps):
    """Fill ``idx`` with the DP-IMED index n_k d_eps(x_k, x*) + log n_k of every arm (x_k the
    clipped private means S_k / n_k, x* their maximum) and return the smallest, or NaN when an
    index is NaN."""
    K = n.size
    x_star = 0.0
    for k in range(K):
        x = min(max(S[k] / n[k], 0.0), 1.0)
        idx[k] = x
        if k == 0 or x > x_star:
            x_star = x
    z, log_term = _d_eps_terms(x_star, eps)
    best = math.inf
    for k in range(K):
        v = n[k] * _d_eps_below(idx[k], x_star, z, log_term, eps) + _detmath.log(n[k])
        if math.isnan(v):
            return math.nan
        idx[k] = v
        if v < best:
            best = v
    return best


@numba.njit(cache=True)
def _standard_laplace(gen):
    """numpy's Laplace(0, 1) algorithm (inversion of one uniform, a new one if it is 0) with
    :func:`dpb._detmath.log`: :func:`dpb.policies.base.standard_laplace` draw for draw."""
    while True:
        u = gen.random()
        if u >= 0.5:
            return -_detmath.log(2.0 - u - u)
        if u > 0.0:
            return _detmath.log(u + u)


@numba.njit(cache=True)
def _refill(buf, gen, laplace):
    """A new block of standard Laplace (``laplace``) or uniform variates, as ``RunRandom`` draws it."""
    for j in range(buf.size):
        buf[j] = _standard_laplace(gen) if laplace else gen.random()


@numba.njit(cache=True)
def dp_imed_run(env_gen, pol_gen, means, sizes, T, eps, arms_out, counts_out):
    """One run of DP-IMED to horizon ``T``; fills ``arms_out``/``counts_out`` with its phases and
    returns their number (-1 if an index was NaN)."""
    K = means.size
    last = sizes.size - 1
    S = np.zeros(K)
    n = np.zeros(K, dtype=np.int64)
    ph = np.zeros(K, dtype=np.int64)
    lap = np.empty(_BLOCK)
    uni = np.empty(_BLOCK)
    lap_ptr = _BLOCK
    uni_ptr = _BLOCK
    idx = np.empty(K)
    t = 1
    step = 0
    while t <= T:
        if step < K:
            arm = step
        else:
            best = _dp_imed_indexes(S, n, idx, eps)
            if math.isnan(best):
                return -1
            n_tied, arm = _count_tied(idx, best)
            if n_tied > 1:
                if uni_ptr >= _BLOCK:
                    _refill(uni, pol_gen, False)
                    uni_ptr = 0
                arm = _nth_tied(idx, best, uni[uni_ptr], n_tied)
                uni_ptr += 1
        c = sizes[min(ph[arm], last)]
        c = min(c, T - t + 1)
        s = float(env_gen.binomial(c, means[arm]))
        if lap_ptr >= _BLOCK:
            _refill(lap, pol_gen, True)
            lap_ptr = 0
        y = lap[lap_ptr] / eps
        lap_ptr += 1
        S[arm] += s + y
        n[arm] += c
        ph[arm] += 1
        arms_out[step] = arm
        counts_out[step] = c
        t += c
        step += 1
    return step


_scalar.stamp_kernels([_dp_imed_indexes, _standard_laplace, _refill, dp_imed_run])

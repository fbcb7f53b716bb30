"""The IMED and KL-UCB exact fast paths, one run at a time: reward tapes and certified leader
segments (the method and its exactness: :mod:`dpb.policies._tapes`).

These functions are the specification of the fast paths and their only implementation: numba
compiles them (``engine="numba"``, the default) and :func:`uncompiled` runs the very same code as
Python (``engine="python"``; slow, for reading and debugging).  Both draw the same random numbers
from the same generators in the same order (numba's ``Generator.binomial`` and ``.random`` follow
numpy's algorithms draw for draw; ``tests/test_fast_nonprivate.py`` checks the two engines
bitwise), so one seed gives the same run under both.  New segments are ``Generator.binomial``
draws, single reads of a tape are Bernoulli(s / L) from one uniform each, and splits use
:func:`hypergeometric`, an exact sampler written here (numba's generator has none).  The scalar
maths (kl, the KL-UCB inversion, the budget) is :mod:`dpb.policies._scalar`.  This private
module imports numba at its top, so it is imported only when a fast run of IMED or KL-UCB is
first asked for (never by ``import dpb``).

State of a run, a :class:`TapeRun` (so that a kernel call can stop after ``budget`` decisions and
be resumed: the caller checks for Ctrl-C between calls; a resumed run gives the same numbers as an
uninterrupted one, the indexes being recomputed from the counts):

* ``means, T, c``: the arms' means, the horizon, KL-UCB's coefficient c;
* ``st``: int64 ``[t, number of stretches]`` (t = 0 before the initial round robin);
* ``N, S``: int64 pulls and reward sums per arm;
* ``tl, ts, tn``: the tapes, arm a's stack of segments (length ``tl[a, i]``, sum ``ts[a, i]``)
  for ``i < tn[a]``, top last;
* ``anc, ancn``: per-arm tangents (float64 rows) and the count N_a they belong to (-1: none);
* ``oarm, olen``: the stretches (arm, length) written so far.

The kernels return a status: 0 when the horizon is reached, 1 when the budget is spent, 2 when
the caller must enlarge the tapes or the stretches (arrays are allocated by the caller only, and
only an integer is returned: a Ctrl-C that arrives while numba converts a returned array to a
Python object surfaces as a SystemError instead of a KeyboardInterrupt).  A leader block that
runs out of room on its tape stops early (the next decision is then an exact step, which is
always correct).
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numba
import numpy as np
from numba.extending import register_jitable

from .. import _detmath, _detmath_kernels  # noqa: F401  (_detmath_kernels: its functions compilable)
from .._jit import stamp_kernels
from . import _scalar

__all__ = ["BLOCK_CAP", "ROOM", "CORRECT", "FIRST_STEP", "END_MEAN", "REANCHOR", "SPLIT_SAFETY", "TapeRun",
           "log_hypergeom_pmf", "hypergeometric", "klucb_steps", "imed_steps", "uncompiled"]

# the scalar maths (plain Python, :mod:`dpb.policies._scalar`), compiled where a kernel calls it
_kl, _kl_ucb, _budget = (register_jitable(f) for f in (_scalar.kl, _scalar.kl_ucb, _scalar.budget))
_count_tied, _nth_tied = (register_jitable(inline="always")(f)
                          for f in (_scalar.count_tied, _scalar.nth_tied))

BLOCK_CAP = 1 << 28  # longest segment drawn at once (numpy's hypergeometric needs counts < 1e9)
ROOM = 16  # a kernel returns to its caller for larger arrays when a tape has fewer free places
_LN_SQRT_2PI = 0.5 * _detmath.log(2.0 * math.pi)
#: n! for n = 0..16, exact in float64 (16! < 2**53): log(n!) without the C library's lgamma
_FACTORIALS = tuple(float(math.factorial(i)) for i in range(17))
#: the private argument ``wrong`` of the kernels, for the tests' power checks only: the correct
#: certification, or a segment checked at its first step instead of its last, or (KL-UCB) at its
#: end point's mean instead of its worst path
CORRECT, FIRST_STEP, END_MEAN = 0, 1, 2
REANCHOR = 0.01  # re-anchor a threshold tangent when log N_A has grown by this much
SPLIT_SAFETY = 0.8  # split length = this fraction of the linearised all-zeros safe length


class TapeRun(NamedTuple):
    """The state of one run (see the module docstring), handed to a kernel whole."""

    means: np.ndarray
    T: int
    c: float  # KL-UCB's coefficient of log log t (0 for IMED)
    N: np.ndarray
    S: np.ndarray
    st: np.ndarray
    tl: np.ndarray
    ts: np.ndarray
    tn: np.ndarray
    anc: np.ndarray
    ancn: np.ndarray
    oarm: np.ndarray
    olen: np.ndarray


# ----------------------------------------------------------------------------------------------
# an exact hypergeometric sampler (inversion from the mode)
# ----------------------------------------------------------------------------------------------
@numba.njit(cache=True)
def _stirlerr(n):
    """log(n!) - log(sqrt(2 pi n) (n / e)^n) for an integer n >= 1 (Loader 2000)."""
    if n <= 15.0:
        return _detmath.log(_FACTORIALS[int(n)]) - (n + 0.5) * _detmath.log(n) + n - _LN_SQRT_2PI
    nn = n * n
    s0, s1, s2, s3, s4 = 1.0 / 12, 1.0 / 360, 1.0 / 1260, 1.0 / 1680, 1.0 / 1188
    if n > 500.0:
        return (s0 - s1 / nn) / n
    if n > 80.0:
        return (s0 - (s1 - s2 / nn) / nn) / n
    if n > 35.0:
        return (s0 - (s1 - (s2 - s3 / nn) / nn) / nn) / n
    return (s0 - (s1 - (s2 - (s3 - s4 / nn) / nn) / nn) / nn) / n


@numba.njit(cache=True)
def _bd0(x, m):
    """x log(x / m) + m - x, without cancellation when x is close to m (Loader 2000)."""
    if abs(x - m) < 0.1 * (x + m):
        v = (x - m) / (x + m)
        s = (x - m) * v
        ej = 2.0 * x * v
        v = v * v
        for j in range(1, 1000):
            ej *= v
            s1 = s + ej / (2 * j + 1)
            if s1 == s:
                return s1
            s = s1
        return s
    return x * _detmath.log(x / m) + m - x


@numba.njit(cache=True)
def _log_binom_pmf(x, n, p, q):
    """log of C(n, x) p^x q^(n - x) (q = 1 - p), accurate to rounding for n up to 2^62 (Loader's
    saddle-point form)."""
    if n == 0:
        return 0.0
    if x == 0:
        return n * _detmath.log(q)
    if x == n:
        return n * _detmath.log(p)
    xf, nf = float(x), float(n)
    lc = _stirlerr(nf) - _stirlerr(xf) - _stirlerr(nf - xf) - _bd0(xf, nf * p) - _bd0(nf - xf, nf * q)
    return lc - _LN_SQRT_2PI - 0.5 * (_detmath.log(xf) + _detmath.log1p(-xf / nf))


@numba.njit(cache=True)
def log_hypergeom_pmf(k, good, bad, n):
    """log P(X = k), X ~ Hypergeometric(good, bad, n) (n draws without replacement from ``good``
    ones and ``bad`` zeros): the ratio of three binomial pmfs at p = n / (good + bad), each in
    Loader's form (as R's ``dhyper``), so that no log-factorial of a large count cancels."""
    tot = good + bad
    p = n / tot
    q = (tot - n) / tot
    return (_log_binom_pmf(k, good, p, q) + _log_binom_pmf(n - k, bad, p, q)
            - _log_binom_pmf(n, tot, p, q))


@numba.njit(cache=True)
def hypergeometric(gen, good, bad, n):
    """One Hypergeometric(good, bad, n) variate: the number of ones among ``n`` entries drawn
    without replacement from ``good`` ones and ``bad`` zeros.

    Inversion of one uniform over the support enumerated from the mode outwards (alternately one
    step up and one step down): P(mode) in Loader's form, then the ratios
    P(k + 1) / P(k) = (good - k)(n - k) / ((k + 1)(bad - n + k + 1)).  The expected number of
    steps is of the order of the standard deviation.  Should rounding leave the uniform above the
    total mass of the enumerated support (a relative deficit of order 1e-15), the draw is
    repeated with a new uniform.
    """
    lo_k = n - bad if n > bad else 0
    hi_k = n if n < good else good
    if lo_k == hi_k:
        return lo_k
    mode = ((n + 1) * (good + 1)) // (good + bad + 2)
    if mode < lo_k:
        mode = lo_k
    if mode > hi_k:
        mode = hi_k
    pm = _detmath.exp(log_hypergeom_pmf(mode, good, bad, n))
    if not 0.0 < pm <= 1.0 + 1e-9:  # (cannot happen for valid counts; never loop on a NaN)
        raise ValueError("hypergeometric: invalid counts")
    while True:
        k = _hypergeom_walk(gen.random() - pm, good, bad, n, mode, pm, lo_k, hi_k)
        if k >= 0:
            return k


@numba.njit(cache=True, inline="always")
def _hypergeom_walk(u, good, bad, n, mode, pm, lo_k, hi_k):
    """The variate where the uniform's excess ``u`` over P(mode) is used up, walking the support
    from the mode alternately one step up and one step down; -1 when the enumerated mass falls
    short of it (rounding: the caller draws again)."""
    if u <= 0.0:
        return mode
    lo, hi, plo, phi = mode, mode, pm, pm
    while lo > lo_k or hi < hi_k:
        if hi < hi_k:
            phi *= (good - hi) * (n - hi) / ((hi + 1.0) * (bad - n + hi + 1.0))
            hi += 1
            u -= phi
            if u <= 0.0:
                return hi
        if lo > lo_k:
            plo *= lo * (bad - n + lo) / ((good - lo + 1.0) * (n - lo + 1.0))
            lo -= 1
            u -= plo
            if u <= 0.0:
                return lo
        if phi == 0.0 and plo == 0.0:
            break  # both tails underflowed: the rest of the support has no float mass
    return -1


# ----------------------------------------------------------------------------------------------
# tapes and stretches
# ----------------------------------------------------------------------------------------------
@numba.njit(cache=True)
def _ensure_top(tl, ts, tn, a, t, T, means, gen):
    """Draw a new Binomial segment of at most the T - t + 1 remaining rounds if arm a's tape is
    empty."""
    if tn[a] == 0:
        L = T - t + 1
        if L > BLOCK_CAP:
            L = BLOCK_CAP
        tl[a, 0] = L
        ts[a, 0] = gen.binomial(L, means[a])
        tn[a] = 1


@numba.njit(cache=True)
def _split_top(tl, ts, tn, a, L1, gen):
    """Split arm a's top segment after its first L1 entries (the caller made room for one more
    segment); the first part becomes the top."""
    i = tn[a] - 1
    L, s = tl[a, i], ts[a, i]
    if s == 0:
        s1 = 0
    elif s == L:
        s1 = L1
    else:
        s1 = hypergeometric(gen, s, L - s, L1)
    tl[a, i], ts[a, i] = L - L1, s - s1
    tl[a, i + 1], ts[a, i + 1] = L1, s1
    tn[a] = i + 2


@numba.njit(cache=True)
def _pull(tl, ts, tn, a, t, T, means, gen):
    """The reward of one pull of arm a at round t: the first entry of its tape, a
    Bernoulli(s / L) given its top segment (L, s)."""
    _ensure_top(tl, ts, tn, a, t, T, means, gen)
    i = tn[a] - 1
    L, s = tl[a, i], ts[a, i]
    if L == 1:
        tn[a] = i
        return s
    x = 1 if gen.random() * L < s else 0
    tl[a, i], ts[a, i] = L - 1, s - x
    return x


@numba.njit(cache=True)
def _resume(run, env_gen):
    """(t, number of stretches, empirical means) of a run, after its initial round robin (played
    on the first call)."""
    if run.st[0] == 0:
        _start(run, env_gen)
    return run.st[0], run.st[1], run.S / run.N


@numba.njit(cache=True)
def _pause(run, t, nout, budget):
    """The status a kernel returns now, -1 to go on: 0 when the horizon is reached, 1 when the
    ``budget`` of decisions is spent, 2 when the tapes (fewer than ``ROOM`` free places on one) or
    the stretches (no room for one more) need more room; then the run's (t, nout) is saved in
    ``st``."""
    code = -1
    if t > run.T:
        code = 0
    elif budget <= 0:
        code = 1
    elif run.tn.max() + ROOM > run.tl.shape[1] or nout + 2 > run.oarm.shape[0]:
        code = 2
    if code >= 0:
        run.st[0], run.st[1] = t, nout
    return code


@numba.njit(cache=True)
def _leader_top(tl, ts, tn, a, t, T, means, gen):
    """Arm a's next segment (L, s) for a leader block from round t: a new Binomial segment if the
    tape is empty, and its first T - t + 1 entries split off if it is longer than the rounds left
    (the caller made room for one more segment)."""
    _ensure_top(tl, ts, tn, a, t, T, means, gen)
    i = tn[a] - 1
    if tl[a, i] > T - t + 1:
        _split_top(tl, ts, tn, a, T - t + 1, gen)
        i += 1
    return tl[a, i], ts[a, i]


@numba.njit(cache=True)
def _add_stretch(oarm, olen, nout, a, n):
    """Append n pulls of arm a to the stretches (merged with the last one if it is arm a's; the
    caller made room); returns the new number of stretches."""
    if oarm[nout - 1] == a:
        olen[nout - 1] += n
        return nout
    oarm[nout], olen[nout] = a, n
    return nout + 1


@numba.njit(cache=True)
def _start(run, gen):
    """The initial round robin: each arm once, in arm order (rounds 1..K)."""
    means, T, N, S, st, tl, ts, tn, oarm, olen = (run.means, run.T, run.N, run.S, run.st, run.tl, run.ts,
                                                   run.tn, run.oarm, run.olen)
    K = N.shape[0]
    for a in range(K):
        S[a] = _pull(tl, ts, tn, a, a + 1, T, means, gen)
        N[a] = 1
        oarm[a], olen[a] = a, 1
    st[0], st[1] = K + 1, K


# ----------------------------------------------------------------------------------------------
# KL-UCB
# ----------------------------------------------------------------------------------------------
@numba.njit(cache=True)
def _klucb_exact(a, f, mu, N, anc, ancn):
    """KL-UCB index of arm a at budget f, storing its tangent (f, value + 1e-9, slope,
    value - 1e-9) valid while N_a does not change."""
    v = _kl_ucb(mu[a], f / N[a])
    if mu[a] >= 1.0:
        anc[a, 0], anc[a, 1], anc[a, 2], anc[a, 3] = f, 1.0 + 1e-9, 0.0, v - 1e-9
        ancn[a] = N[a]
    elif v - mu[a] > 1e-8 and v < 1.0:
        slope = v * (1.0 - v) / ((v - mu[a] - 1e-9) * N[a]) * (1.0 + 1e-6)
        anc[a, 0], anc[a, 1], anc[a, 2], anc[a, 3] = f, v + 1e-9, slope, v - 1e-9
        ancn[a] = N[a]
    else:
        ancn[a] = -1
    return v


@numba.njit(cache=True)
def _klucb_bound(a, f, N, anc, ancn):
    if ancn[a] != N[a] or f < anc[a, 0]:
        return 2.0
    return anc[a, 1] + anc[a, 2] * (f - anc[a, 0])


@numba.njit(cache=True, inline="always")
def _pick_tied(idx, best, pol_gen):
    """The arm whose index equals ``best``, ties broken uniformly at random (one uniform)."""
    n, first = _count_tied(idx, best)
    return first if n == 1 else _nth_tied(idx, best, pol_gen.random(), n)


@numba.njit(cache=True)
def _split_length(guess, L):
    """Where to split a segment of length L that failed its check: ``int(guess)`` entries (at least
    one) when the linearised safe length ``guess`` is below L, else half of it.  The split point
    only changes the cost, never the law."""
    if guess < L:
        L1 = int(guess)
        if L1 < 1:
            L1 = 1
        return L1
    return L >> 1


@numba.njit(cache=True)
def _klucb_others(A, f0, mu, N, anc, ancn):
    """(U0, smax): the largest upper bound at budget f0 of the indexes of the arms other than A
    (their tangents, after an inversion where none is valid) and the largest tangent slope
    (inf when an arm has none)."""
    U0, smax = -1.0, 0.0
    for k in range(N.shape[0]):
        if k == A:
            continue
        v = _klucb_bound(k, f0, N, anc, ancn)
        if v > 1.0:
            _klucb_exact(k, f0, mu, N, anc, ancn)
            v = _klucb_bound(k, f0, N, anc, ancn)
        if v > U0:
            U0 = v
        if ancn[k] != N[k]:
            smax = math.inf
        elif anc[k, 2] > smax:
            smax = anc[k, 2]
    return U0, smax


@numba.njit(cache=True)
def _leader_block(run, A, t, t_stop, p, klucb, env_gen, wrong):
    """A leader block of arm A from round t to at most round t_stop: the segments of A's tape
    certified one after the other (:func:`_klucb_check` when ``klucb``, else :func:`_imed_check`,
    with the block's parameters ``p``), split where a check fails, until a step is uncertain or
    the block ends.  Returns (t, N_A, S_A, pulls of A in the block)."""
    means, T, tl, ts, tn = run.means, run.T, run.tl, run.ts, run.tn
    nA, sA, acc = run.N[A], run.S[A], 0
    while t <= t_stop:
        if tn[A] + 2 > tl.shape[1]:
            break  # (no room to split: leave the rest to the next decision)
        L, s = _leader_top(tl, ts, tn, A, t, T, means, env_gen)
        if klucb:
            L1 = _klucb_check(L, s, t, nA, sA, p, wrong)
        else:
            L1 = _imed_check(L, s, nA, sA, p, wrong)
        if L1 == L:  # the whole segment is the leader's
            tn[A] -= 1
            nA, sA, t, acc = nA + L, sA + s, t + L, acc + L
            continue
        if L1 == 0:
            break  # the next step is uncertain: the exact rule decides it
        _split_top(tl, ts, tn, A, L1, env_gen)
    return t, nA, sA, acc


@numba.njit(cache=True, inline="always")
def _lowest_mean(L, s, nA, sA):
    """The lowest mean of the leader along a segment (L, s) read from (N_A, S_A): its zeros first."""
    return sA / (nA + (L - s if s else L - 1))


@numba.njit(cache=True, inline="always")
def _klucb_check(L, s, t, nA, sA, p, wrong):
    """The verdict on the leader's segment (L, s) at round t of a KL-UCB leader block, with
    ``p = (U0, ku, t0, fmarg, 0)`` (the others' indexes below U0 + ku (t - t0), the budget margin
    fmarg): L when every step of it is surely the leader's, 0 when even the next step is
    uncertain, else the length of a first part to examine (a split)."""
    U0, ku, t0, fmarg = p[0], p[1], p[2], p[3]
    w = _lowest_mean(L, s, nA, sA) if wrong != END_MEAN else (sA + s) / (nA + L)
    u = U0 + ku * ((t + L - 1 if wrong != FIRST_STEP else t) - t0)
    if u < 1.0 and (w > u or (nA + L - 1) * _kl(w, u) < fmarg - 1e-13 * (nA + L)):
        return L
    if L == 1:
        return 0
    w0 = sA / nA
    u0 = U0 + ku * (t - t0)
    if u0 >= 1.0:
        return 0
    if w0 > u0 or w0 <= 0.0:
        return L >> 1
    g0 = fmarg - 1e-13 * nA - nA * _kl(w0, u0)
    if g0 <= 0.0:
        return 0
    dz = _detmath.log((1.0 - w0) / (1.0 - u0))
    du = nA * (u0 - w0) / (u0 * (1.0 - u0)) * ku
    return _split_length(SPLIT_SAFETY * g0 / ((1.0 - w0) * dz + du), L)


@numba.njit(cache=True)
def _klucb_exact_step(f, mu, N, anc, ancn, ubs, vals, done, pol_gen):
    """The arm of one exact step at budget f: argmax of the indexes (random ties).  Indexes are
    computed in decreasing order of their upper bounds until the best value found exceeds every
    remaining bound (an arm below the best cannot tie with it); none when one arm's lower bound
    is above every other arm's upper bound."""
    K = N.shape[0]
    b = _klucb_sure_arm(f, N, anc, ancn, ubs)
    if b >= 0:
        return b
    best = -1.0
    for a in range(K):
        done[a] = False
    for _ in range(K):
        j = -1
        for a in range(K):  # the unvisited arm of largest bound (first in arm order)
            if not done[a] and (j < 0 or ubs[a] > ubs[j]):
                j = a
        if ubs[j] < best:
            break
        done[j] = True
        v = _klucb_exact(j, f, mu, N, anc, ancn)
        vals[j] = v
        if v > best:
            best = v
    for a in range(K):
        if not done[a]:
            vals[a] = -math.inf  # (not computed: below the best)
    return _pick_tied(vals, best, pol_gen)


@numba.njit(cache=True, inline="always")
def _klucb_sure_arm(f, N, anc, ancn, ubs):
    """Fill ``ubs`` with the upper bounds of the indexes at budget f and return the arm whose
    lower bound is above every other arm's upper bound, or -1 when there is none."""
    b, lbb = 0, -2.0
    for a in range(N.shape[0]):
        ubs[a] = _klucb_bound(a, f, N, anc, ancn)
        lb = -1.0 if ubs[a] > 1.0 else anc[a, 3]
        if lb > lbb:
            b, lbb = a, lb
    for a in range(N.shape[0]):
        if a != b and ubs[a] >= lbb:
            return -1
    return b


@numba.njit(cache=True)
def klucb_steps(run, env_gen, pol_gen, budget, wrong):
    """Advance one KL-UCB run (a :class:`TapeRun`) by at most ``budget`` decisions (leader blocks
    or exact steps); see the module docstring for the state and :mod:`dpb.policies._tapes` for the
    method; ``wrong`` is :data:`CORRECT` but in the tests' power checks.  ``anc[a]`` holds arm a's
    tangent (f_a, value + 1e-9, slope, value - 1e-9), valid while ``ancn[a] == N[a]``."""
    means, T, c, N, S, st, tl, ts, tn, anc, ancn, oarm, olen = run
    K = N.shape[0]
    t, nout, mu = _resume(run, env_gen)
    ubs, vals, done = np.empty(K), np.empty(K), np.zeros(K, dtype=np.bool_)
    while True:
        code = _pause(run, t, nout, budget)
        if code >= 0:
            return code
        budget -= 1
        # leader block of the most pulled arm A (first in arm order): the others do not move and
        # their indexes grow with t only, below U0 + ku (t - t0) (tangents, and
        # f(t) - f(t0) <= (t - t0)(1 + c / log t0) / t0)
        A = 0
        for a in range(1, K):
            if N[a] > N[A]:
                A = a
        f0 = _budget(t, c)
        U0, smax = _klucb_others(A, f0, mu, N, anc, ancn)
        ku = smax * (1.0 + c / _detmath.log(t)) / t if U0 <= 1.0 and smax < math.inf else math.inf
        # (a block of at most t / 64 rounds, none when an index has no tangent)
        t_stop = min(t + (t >> 6), T) if ku < math.inf else t - 1
        p = (U0, ku, float(t), f0 - 1e-9 * (1.0 + f0), 0.0)
        t, nA, sA, acc = _leader_block(run, A, t, t_stop, p, True, env_gen, wrong)
        if acc:
            N[A], S[A] = nA, sA
            mu[A] = sA / nA
            nout = _add_stretch(oarm, olen, nout, A, acc)
            continue
        b = _klucb_exact_step(_budget(t, c), mu, N, anc, ancn, ubs, vals, done, pol_gen)
        x = _pull(tl, ts, tn, b, t, T, means, env_gen)
        valid = ancn[b] == N[b]
        S[b] += x
        N[b] += 1
        mu[b] = S[b] / N[b]
        if valid and x == 0:
            ancn[b] = N[b]
            anc[b, 3] = -1.0  # a zero lowers the index: the upper bound stays
        nout = _add_stretch(oarm, olen, nout, b, 1)
        t += 1


# ----------------------------------------------------------------------------------------------
# IMED
# ----------------------------------------------------------------------------------------------
@numba.njit(cache=True)
def _imed_leader(idx, mu, N, top):
    """The arm A of the largest mean (first in arm order) and whether the next step is surely
    A's (A the unique best, every other index above log N_A by the rounding margin)."""
    K = N.shape[0]
    A, ntop = -1, 0
    for a in range(K):
        if mu[a] == top:
            ntop += 1
            if A < 0:
                A = a
    if ntop != 1:
        return A, False
    ln0 = _detmath.log(N[A])
    for j in range(K):
        if j != A and idx[j] - 1e-9 - 1e-13 * N[j] <= ln0:
            return A, False
    return A, True


@numba.njit(cache=True)
def _imed_envelope(A, mu, N, anc, ancn):
    """(ok, mmax, thr0, slope) for a leader block of arm A: the largest other mean, and the upper
    envelope of the other arms' threshold tangents theta_j at log N_A as one line (its value thr0
    at log N_A and the largest slope); the tangents are re-anchored when stale.  ok is False when
    an arm has no valid tangent (the exact rule decides)."""
    ln0 = _detmath.log(N[A])
    mmax, thr0, slope = -1.0, -1.0, 0.0
    for j in range(N.shape[0]):
        if j == A:
            continue
        if mu[j] > mmax:
            mmax = mu[j]
        if ancn[j] != N[j] or not 0.0 <= ln0 - anc[j, 0] <= REANCHOR:
            ancn[j] = -1
            cj = (ln0 + 1e-9 + 1e-13 * N[j] - _detmath.log(N[j])) / N[j]
            if cj > 0.0:
                q = _kl_ucb(mu[j], cj)
                if q - mu[j] > 1e-8 and q < 1.0:
                    b = q * (1.0 - q) / ((q - mu[j] - 1e-9) * N[j])
                    anc[j, 0], anc[j, 1], anc[j, 2] = ln0, q + 1e-9 - b * ln0, b
                    ancn[j] = N[j]
            if ancn[j] < 0:
                return False, mmax, thr0, slope
        v = anc[j, 1] + anc[j, 2] * ln0
        if v > thr0:
            thr0 = v
        if anc[j, 2] > slope:
            slope = anc[j, 2]
    return True, mmax, thr0, slope


@numba.njit(cache=True, inline="always")
def _imed_check(L, s, nA, sA, p, wrong):
    """The verdict on the leader's segment (L, s) of an IMED leader block, as
    :func:`_klucb_check`, with ``p = (thr0, k, n0, mmax, slope)``: the leader's mean must stay
    above mmax and the threshold envelope thr0 + k (n - n0) at every count n of the segment."""
    thr0, k, n0, mmax, slope = p[0], p[1], p[2], p[3], p[4]
    w = _lowest_mean(L, s, nA, sA)
    thr = thr0 + k * ((nA + L - 1 if wrong != FIRST_STEP else nA) - n0)
    if w > thr and w > mmax:
        return L
    if L == 1:
        return 0
    w0 = sA / nA
    thr = thr0 + k * (nA - n0)
    if thr < mmax:
        thr = mmax
    if w0 <= thr:
        return 0
    if w0 >= 1.0:
        return L >> 1
    return _split_length(SPLIT_SAFETY * (w0 - thr) * nA / ((w0 + slope) * (1.0 - w0)), L)


@numba.njit(cache=True)
def imed_steps(run, env_gen, pol_gen, budget, wrong):
    """Advance one IMED run (a :class:`TapeRun`) by at most ``budget`` decisions (leader blocks or
    exact steps); see the module docstring for the state and :mod:`dpb.policies._tapes` for the
    method; ``wrong`` is :data:`CORRECT` but in the tests' power checks.  ``anc[j]`` holds arm
    j's threshold tangent (log n_0, intercept, slope), valid while ``ancn[j] == N[j]``."""
    means, T, c, N, S, st, tl, ts, tn, anc, ancn, oarm, olen = run
    K = N.shape[0]
    t, nout, mu = _resume(run, env_gen)
    idx = np.empty(K)
    top = -1.0
    dirty = -1  # arm whose index is stale (-1: all of them)
    while True:
        code = _pause(run, t, nout, budget)
        if code >= 0:
            return code
        budget -= 1
        new_top = mu.max()
        if new_top != top or dirty < 0:
            top = new_top
            for a in range(K):
                idx[a] = N[a] * _kl(mu[a], top) + _detmath.log(N[a])
        else:
            idx[dirty] = N[dirty] * _kl(mu[dirty], top) + _detmath.log(N[dirty])
        A, lead = _imed_leader(idx, mu, N, top)
        if lead:  # leader block: the thresholds' envelope, then A's segments
            lead, mmax, thr0, slope = _imed_envelope(A, mu, N, anc, ancn)
        if lead:
            p = (thr0, slope / N[A], float(N[A]), mmax + 1e-12, slope)
            t, nA, sA, acc = _leader_block(run, A, t, T, p, False, env_gen, wrong)
            N[A], S[A] = nA, sA
            if acc:
                nout = _add_stretch(oarm, olen, nout, A, acc)
                mu[A] = sA / nA
                dirty = -1
                continue
        # one exact step of the rule (random ties), as in the per-step reference
        b = _pick_tied(idx, idx.min(), pol_gen)
        S[b] += _pull(tl, ts, tn, b, t, T, means, env_gen)
        N[b] += 1
        mu[b] = S[b] / N[b]
        nout = _add_stretch(oarm, olen, nout, b, 1)
        t += 1
        dirty = b


# ----------------------------------------------------------------------------------------------
# the two engines of one source
# ----------------------------------------------------------------------------------------------
_DISPATCHERS = [f for f in list(globals().values()) if isinstance(f, numba.core.dispatcher.Dispatcher)]


stamp_kernels(_DISPATCHERS, [_scalar.__file__, _detmath.__file__])


def uncompiled(module):
    """The functions of ``module`` (a kernel module) as plain Python: each compiled function
    replaced by its Python source, calling the others' Python versions (what ``NUMBA_DISABLE_JIT=1``
    does for a whole process, here for one namespace)."""
    import types

    ns = dict(vars(module))
    for name, f in vars(module).items():
        if isinstance(f, numba.core.dispatcher.Dispatcher):
            py = f.py_func
            ns[name] = types.FunctionType(py.__code__, ns, name, py.__defaults__, py.__closure__)
    return types.SimpleNamespace(**ns)

"""Counter-based random streams and exact samplers, written once as plain Python that numba compiles.

The batched private policies (:mod:`dpb.policies.dp_batched`) draw every number of a run from
three *streams* derived from the run's key, not from numpy ``Generator`` objects: building two
Generators per run in Python costs more than simulating the run, and a counter-based stream can
be derived inside compiled code.  Run ``i`` of root seed ``s`` (the child
``SeedSequence(s).spawn(n)[i]`` of :mod:`dpb.engine`) has the key

    run_key = hash(root words, i),   root words = SeedSequence(s).generate_state(2, uint64)

(:func:`dpb.engine.root_words`),

and stream ``j`` of the run (0: the environment's rewards, 1: the policy's Laplace noise, 2: its
tie-breaks) the key ``stream_key(run_key, j)``.  The ``c``-th 64-bit word of a stream is
``fmix(key ^ fmix((c + 1) * GAMMA))``, with ``fmix`` the finaliser of SplitMix64 (a bijection of
64-bit words; Steele, Lea and Flood 2014): a hash of (key, counter), so any word of any run can be
computed anywhere, in any order, and nothing a run draws depends on the other runs.

Samplers (each takes a stream key and its counter, returns the variate and the next counter):

* :func:`uniform`: ``((w >> 11) + 0.5) 2^-53``, in (0, 1), one word;
* :func:`laplace`: a standard Laplace variate, ``+-(-log u)`` (the sign from the word's lowest
  bit, which the uniform's 53 bits do not use), one word;
* :func:`binomial`: an exact Binomial(n, p) variate for any ``n < 2^53``: inversion (sequential
  search from 0 with the pmf recurrence) when ``n min(p, 1 - p) < 10``, else Hörmann's
  transformed rejection with squeeze (BTRS; W. Hörmann, "The generation of binomial random
  variates", J. Statist. Comput. Simul. 46, 1993), whose acceptance test compares with the exact
  log-pmf ratio written with ``log1p`` of ratios near 1 and Stirling's series (tabulated below
  10), accurate to about 1e-12 even at n = 10^9.

All arithmetic that decides a number is IEEE-754 ``+ - * /``, ``sqrt``, ``floor`` and the
deterministic ``log``/``log1p``/``exp`` of ``dpb._detmath``: the same bits in plain Python, in
numba's compiled code and on every CPU.  The 64-bit words are Python ints masked to 64 bits, which
numba types as ``uint64`` (the masks are then free).
"""

from __future__ import annotations

import math

import numpy as np

from ._detmath import exp, log, log1p

__all__ = ["MASK", "u64", "fmix", "word", "run_key", "stream_key", "uniform", "laplace", "binomial", "ENV",
           "LAPLACE", "TIES", "INVERSION_MAX_MEAN"]

MASK = 0xFFFFFFFFFFFFFFFF
GAMMA = 0x9E3779B97F4A7C15  # SplitMix64's increment (2^64 / golden ratio, odd)
_STREAM_GAMMA = 0xD1B54A32D192ED03
#: The streams of a run: the environment's rewards, the policy's Laplace noise, its tie-breaks.
ENV, LAPLACE, TIES = 0, 1, 2
#: Below this mean n min(p, 1-p) the binomial sampler inverts the cdf, from it on it rejects (BTRS).
INVERSION_MAX_MEAN = 10.0
_TWO_M53 = 2.0**-53
_HALF_LOG_2PI = 0.9189385332046728  # log(2 pi) / 2

# Stirling's remainder fc(k) = log k! - [(k + 1/2) log(k + 1) - (k + 1) + log(2 pi)/2], k = 0..9
# (digits of log k! from the exact factorials; beyond 9 the series of _fc is accurate to 1e-14)
_FC = np.array([
    0.08106146679532726, 0.04134069595540929, 0.02767792568499834, 0.02079067210376509,
    0.01664469118982119, 0.01387612882307075, 0.01189670994589177, 0.01041126526197209,
    0.009255462182712733, 0.008330563433362871])


def u64(x):
    """``x`` as an unsigned 64-bit word (compiled: a cast to ``uint64``, see
    :mod:`dpb.policies._phase_kernel`; numba would otherwise mix signed and unsigned words)."""
    return int(x) & MASK


def fmix(z):
    """SplitMix64's finaliser: a bijection of 64-bit words that mixes every bit into every bit."""
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
    return z ^ (z >> 31)


def word(key, c):
    """The ``c``-th 64-bit word of the stream of key ``key``."""
    return fmix(key ^ fmix((u64(c + 1) * GAMMA) & MASK))


def run_key(r0, r1, run_id):
    """The key of run ``run_id`` of the root whose words are ``r0``, ``r1``
    (:func:`dpb.engine.root_words`)."""
    return fmix((r0 + fmix((r1 ^ ((u64(run_id) * GAMMA) & MASK)) & MASK)) & MASK)


def stream_key(key, stream):
    """The key of stream ``stream`` (:data:`ENV`, :data:`LAPLACE`, :data:`TIES`) of a run."""
    return fmix((key + ((u64(stream + 1) * _STREAM_GAMMA) & MASK)) & MASK)


# ----------------------------------------------------------------------------------------------
# samplers: (stream key, counter, ...) -> (variate, next counter)
# ----------------------------------------------------------------------------------------------
def uniform(key, c):
    """A uniform variate in (0, 1) (53 random bits, centred in its cell)."""
    return ((word(key, c) >> 11) + 0.5) * _TWO_M53, c + 1


def laplace(key, c):
    """A standard Laplace variate (density e^-|y| / 2): an Exp(1) variate -log u with a random sign."""
    w = word(key, c)
    e = -log(((w >> 11) + 0.5) * _TWO_M53)
    return (e if (w & 1) else -e), c + 1


def _fc(k):
    """Stirling's remainder fc(k) = log k! - (k + 1/2) log(k + 1) + (k + 1) - log(2 pi)/2."""
    if k < 10:
        return _FC[int(k)]
    r = 1.0 / (k + 1.0)
    r2 = r * r
    return (1.0 / 12.0 - (1.0 / 360.0 - r2 / 1260.0) * r2) * r


def _binomial_inversion(key, c, n, p):
    """Binomial(n, p) for n p < 10 (p <= 1/2): the cdf inverted by a sequential search from 0."""
    q = 1.0 - p
    s = p / q
    a = (n + 1) * s
    r0 = exp(n * log1p(-p))  # P(X = 0) >= e^-20 here
    while True:
        u, c = uniform(key, c)
        r = r0
        x = 0
        while u > r and r > 0.0 and x < n:
            u -= r
            x += 1
            r *= a / x - s
        if u <= r:
            return x, c
        # (u left above the summed pmf by rounding, probability < 1e-15: draw again)


def _binomial_btrs(key, c, n, p):
    """Binomial(n, p) for n p >= 10 (p <= 1/2): Hörmann's BTRS (transformed rejection with squeeze)."""
    q = 1.0 - p
    spq = math.sqrt(n * p * q)
    b = 1.15 + 2.53 * spq
    a = -0.0873 + 0.0248 * b + 0.01 * p
    cc = n * p + 0.5
    v_r = 0.92 - 4.2 / b
    alpha = (2.83 + 5.1 / b) * spq
    m = math.floor((n + 1) * p)
    fcm = _fc(m) + _fc(n - m)
    pn2 = p * (n + 2.0)
    while True:
        u, c = uniform(key, c)
        v, c = uniform(key, c)
        u -= 0.5
        us = 0.5 - abs(u)
        k = math.floor((2.0 * a / us + b) * u + cc)
        if k < 0 or k > n:
            continue
        if us >= 0.07 and v <= v_r:
            return int(k), c
        lhs = log(v * alpha / (a / (us * us) + b))
        # log f(k)/f(m) for the Binomial(n, p) pmf f, each log of a ratio near 1 by log1p
        rhs = ((m + 0.5) * log1p((m - k) / (k + 1.0))
               + (n - m + 0.5) * log1p((k - m) / (n - k + 1.0))
               + (k - m) * log1p((pn2 - (k + 1.0)) / (q * (k + 1.0)))
               + fcm - _fc(k) - _fc(n - k))
        if lhs <= rhs:
            return int(k), c


def binomial(key, c, n, p):
    """An exact Binomial(n, p) variate (``0 <= n < 2^53``, ``0 <= p <= 1``) and the next counter."""
    if n <= 0 or p <= 0.0:
        return 0, c
    if p >= 1.0:
        return n, c
    flip = p > 0.5
    if flip:
        p = 1.0 - p  # (exact for p > 1/2)
    if n * p < INVERSION_MAX_MEAN:
        x, c = _binomial_inversion(key, c, n, p)
    else:
        x, c = _binomial_btrs(key, c, n, p)
    return (n - x if flip else x), c

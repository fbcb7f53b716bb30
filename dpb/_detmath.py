"""Elementary functions that give the same bits on every machine: ``log``, ``exp``, ``log1p``,
``expm1``, written with only + - * / (IEEE-754 operations, correctly rounded everywhere) and the
exact ``frexp``/``ldexp``.

Why.  The C library's ``log``/``exp`` and numpy's vectorised ``np.log``/``np.exp`` are accurate to
about an ulp, but *which* last bit they return depends on the processor: glibc picks an FMA
variant of ``exp``, ``log``, ``pow``... on CPUs that have FMA (measured on one machine: 405 of
600,000 ``exp`` values and 13 of 600,000 ``log`` values differ in the last bit when the FMA variant
is switched off with ``GLIBC_TUNABLES=glibc.cpu.hwcaps=-AVX2,-FMA``), and numpy takes Intel's SVML
loops (up to 4 ulp) on CPUs with AVX-512.  A simulator whose decisions compare such numbers flips a
decision now and then from one machine to the next (a DP-SE elimination, a near tie of indexes),
and the same seed no longer gives the same run.  Every number that decides something in dpb's
engines is computed with the functions below instead (``tests/test_golden.py`` runs the
golden cells under several forced instruction sets and asserts one set of digests).

Each function is written once, as plain Python on floats.  The same source serves three callers:

* plain Python (the Python engines, ``DPB_JIT=0``);
* numba kernels, which compile it where they call it (``register_jitable``; numba compiles
  without fast-math, so no operation is fused or reordered: the same bits as Python);
* numpy arrays: ``log_array``, ``exp_array``, ``log1p_array``, ``expm1_array`` of
  ``dpb._detmath_arrays``, the same scalar function compiled by numba as a ufunc (elementwise, so
  SIMD changes nothing).

Accuracy: within 1 ulp of the correctly rounded result on the tests' grids (``tests/test_detmath.py``
compares with ``math`` and mpmath-free exact references); the series are the Taylor series of
``2 atanh(s)`` and of ``exp``, long enough for double precision, and ``k ln 2`` is split into an
exact high part and a low part (the classic Cody-Waite reduction).
"""

from __future__ import annotations

import math

__all__ = ["log", "exp", "log1p", "expm1"]

# ln 2 split: LN2_HI has its low 32 bits zero, so k * LN2_HI is exact for |k| < 2**20.
LN2_HI = 6.93147180369123816490e-01
LN2_LO = 1.90821492927058770002e-10
INV_LN2 = 1.44269504088896338700e00
SQRT_HALF = 0.70710678118654752440
# exp overflows above this argument and underflows to 0 below the second
EXP_MAX = 709.782712893383973096
EXP_MIN = -745.13321910194110842
INF = float("inf")
NAN = float("nan")


def _atanh_tail(s2):
    """R(s^2) = 2 (s^2/3 + s^4/5 + ... + s^24/25): 2 atanh(s) = 2 s + s R, for s^2 <= 0.0295."""
    return s2 * (0.6666666666666666 + s2 * (0.4 + s2 * (0.2857142857142857 + s2 * (
        0.2222222222222222 + s2 * (0.18181818181818182 + s2 * (0.15384615384615385 + s2 * (
            0.13333333333333333 + s2 * (0.11764705882352941 + s2 * (0.10526315789473684 + s2 * (
                0.09523809523809523 + s2 * (0.08695652173913043 + s2 * 0.08)))))))))))


def _log_core(f, k, c):
    """log(2**k (1 + f) + tiny) for f in [sqrt(1/2) - 1, sqrt(2) - 1), with c the correction term
    (the part of the argument lost when 1 + f was rounded, divided by 1 + f).

    log(1 + f) = 2 atanh(s) with s = f / (2 + f); 2 s = f - s f, so
    log(1 + f) = f - f^2/2 + s (f^2/2 + R(s^2))."""
    s = f / (2.0 + f)
    hfsq = 0.5 * f * f
    r = _atanh_tail(s * s)
    dk = float(k)
    return dk * LN2_HI - ((hfsq - (s * (hfsq + r) + (dk * LN2_LO + c))) - f)


def log(x):
    """Natural logarithm, deterministic (NaN for x < 0 or NaN, -inf at 0, inf at inf)."""
    if not x > 0.0:
        if x == 0.0:
            return -INF
        return NAN
    if x == INF:
        return INF
    m, k = math.frexp(x * 1.0)  # x = m 2^k, m in [1/2, 1) (x * 1.0: an int argument too)
    if m < SQRT_HALF:
        m = m + m
        k -= 1
    return _log_core(m - 1.0, k, 0.0)  # m - 1 is exact (Sterbenz)


def log1p(x):
    """log(1 + x), accurate for small x (NaN below -1, -inf at -1)."""
    if not x > -1.0:
        if x == -1.0:
            return -INF
        return NAN
    if x == INF:
        return INF
    if -0.2928932188134524 <= x < 0.41421356237309503:
        return _log_core(x, 0, 0.0)  # 1 + x already in range: no rounding at all
    u = 1.0 + x
    m, k = math.frexp(u)
    if m < SQRT_HALF:
        m = m + m
        k -= 1
    c = (x - (u - 1.0)) / u if k < 54 else 0.0  # what rounding 1 + x lost, relative to u
    return _log_core(m - 1.0, k, c)


def _expm1_small(r):
    """exp(r) - 1 for |r| <= ln(2)/2 + tiny: the Taylor series to r^18/18! (error < 1e-21)."""
    return r * (1.0 + r * (0.5 + r * (0.16666666666666666 + r * (0.041666666666666664 + r * (
        0.008333333333333333 + r * (0.001388888888888889 + r * (0.0001984126984126984 + r * (
            2.48015873015873e-05 + r * (2.7557319223985893e-06 + r * (2.755731922398589e-07 + r * (
                2.505210838544172e-08 + r * (2.08767569878681e-09 + r * (1.6059043836821613e-10 + r * (
                    1.1470745597729725e-11 + r * (7.647163731819816e-13 + r * (4.779477332387385e-14 + r * (
                        2.8114572543455206e-15 + r * 1.5619206968586225e-16)))))))))))))))))


def _reduce(x):
    """(k, r, c) with x = k ln 2 + r + c, |r| <= ln(2)/2 (to rounding) and c the rounding error
    of r (|c| <= ulp(r)/2): the Cody-Waite reduction, hi = x - k LN2_HI being exact."""
    k = math.floor(x * INV_LN2 + 0.5)
    dk = float(k)
    hi = x - dk * LN2_HI
    lo = dk * LN2_LO
    r = hi - lo
    return int(k), r, (hi - r) - lo


def exp(x):
    """e**x, deterministic (0 below about -745, inf above about 709.78, NaN for NaN)."""
    if x != x:
        return NAN
    if x > EXP_MAX:
        return INF
    if x < EXP_MIN:
        return 0.0
    k, r, c = _reduce(x)
    p = _expm1_small(r)
    return math.ldexp(1.0 + (p + c * (1.0 + p)), k)  # (exact, or one rounding to a subnormal)


def expm1(x):
    """e**x - 1, accurate for small x (-1 below about -38, inf above about 709.78)."""
    if x != x:
        return NAN
    if -0.34657359027997264 <= x <= 0.34657359027997264:
        return _expm1_small(x)
    if x > EXP_MAX:
        return INF
    if x < -40.0:  # e^x < 2^-57: e^x - 1 rounds to -1
        return -1.0
    k, r, c = _reduce(x)
    p = _expm1_small(r)
    p = p + c * (1.0 + p)  # e^(r + c) - 1
    if k > 56:  # 2^k - 1 is 2^k to double precision
        return math.ldexp(1.0 + p, k)
    # e^x - 1 = 2^k (1 + p) - 1 = 2^k p + (2^k - 1): both terms exact, one rounding
    return math.ldexp(p, k) + (math.ldexp(1.0, k) - 1.0)

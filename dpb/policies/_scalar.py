"""The scalar maths of the fast engines (and their tie-breaking), written once, as plain Python that
numba compiles.

The compiled kernels (:mod:`dpb.policies._tape_kernel`, :mod:`dpb.policies._private_kernel`) make
these functions compilable where they call them (``numba.extending.register_jitable``), and the
same kernels run uncompiled (``engine="python"``) call them as they stand, so both engines evaluate
the same formulas with the same float operations.  No numba here: ``import dpb`` does not import
it.

Their vectorised twins, for the numpy engines (the lock-step of the batched policies, the
generic phase engine), are :mod:`dpb.policies._numerics`; the two cannot be one function without
changing the numbers (numpy's array functions may round differently from ``math``'s, and the
vectorised Newton iteration stops for a whole array at once).  :func:`kl` has the float form of
the per-step reference's, so that IMED's kernel breaks exactly the ties the reference breaks.
The validated references are :mod:`dpb.divergences`.

Every logarithm and exponential here is ``dpb._detmath``'s (plain + - * /, the same bits on
every CPU), not the C library's, whose last bit depends on the processor.
"""

from __future__ import annotations

import math

from .. import _detmath

__all__ = ["ONE_MINUS", "kl", "kl_ucb", "budget", "d_eps_terms", "d_eps_below", "count_tied", "nth_tied"]

ONE_MINUS = 1.0 - 2.0**-53  # the largest float below 1 (numpy.nextafter(1.0, 0.0))


def kl(p, q):
    """Bernoulli kl(p, q) = p log(p / q) + (1 - p) log((1 - p) / (1 - q)) for two floats
    (0 log 0 = 0; +inf where q is 0 or 1 and p differs; floored at 0)."""
    if p == q:
        return 0.0
    out = 0.0
    if p > 0.0:
        if q <= 0.0:
            return math.inf
        out += p * _detmath.log(p / q)
    if p < 1.0:
        if q >= 1.0:
            return math.inf
        out += (1.0 - p) * _detmath.log((1.0 - p) / (1.0 - q))
    return max(out, 0.0)


def kl_ucb(x, c):
    """max{q in [x, 1] : kl(x, q) <= c} for two floats, by the monotone Newton iteration of
    :func:`dpb.policies._numerics.kl_ucb_fast` (the same start, bounds and steps with scalar
    comparisons): 1 when x >= 1 or c is infinite, x when c <= 0."""
    if x >= 1.0 or c == math.inf:
        return 1.0
    if not c > 0.0:
        return x
    one_m_x = 1.0 - x
    neg_ent = (x * _detmath.log(x) if x > 0.0 else 0.0) + one_m_x * _detmath.log(one_m_x)
    upper = min(x + math.sqrt(0.5 * c), -_detmath.expm1(-(c - neg_ent) / one_m_x), ONE_MINUS)
    guess = x + math.sqrt(2.0 * c * x * one_m_x)
    q = min(guess, upper) if guess > x else upper
    x_safe = x if x > 0.0 else 1.0
    for _ in range(60):
        d = q - x
        r = d / x_safe
        g = -(x * _detmath.log1p(r if r < 1e300 else 1e300) + one_m_x * _detmath.log1p(-d / one_m_x)) - c
        q_new = q - g * q * (1.0 - q) / (d if d > 1e-300 else 1e-300)
        if q_new < x:
            q_new = x
        if q_new > upper:
            q_new = upper
        delta = q_new - q
        q = q_new
        if -1e-9 <= delta <= 1e-9:
            break
    return q


def budget(t, c):
    """KL-UCB's exploration budget f(t) = log t + c log log t at round t, floored at 0."""
    lt = _detmath.log(t)
    if c == 0.0:
        return lt
    if lt > 0.0:
        v = lt + c * _detmath.log(lt)
        return v if v > 0.0 else 0.0
    return 0.0


def d_eps_terms(y, eps):
    """(z, log_term) of :func:`d_eps_below` for the upper argument y: z = expit(logit(y) - eps)
    and log(1 - y (1 - e^-eps)), each form accurate on its side of y = 1/2 (as
    :func:`dpb.policies._numerics.d_eps_below_fast`)."""
    if y == 0.0:
        logit = -math.inf
    elif y == 1.0:
        logit = math.inf
    else:
        logit = _detmath.log(y / (1.0 - y))
    z = 1.0 / (1.0 + _detmath.exp(-(logit - eps)))
    if y > 0.5:
        log_term = _detmath.log((1.0 - y) + y * _detmath.exp(-eps))
    else:
        log_term = _detmath.log1p(y * _detmath.expm1(-eps))
    return z, log_term


def d_eps_below(x, y, z, log_term, eps):
    """d_eps(x, y) for x <= y, given z = expit(logit(y) - eps) and
    log_term = log(1 - y (1 - e^-eps)): :func:`kl` (x, y) if x >= z, else -eps x - log_term
    (floored at 0)."""
    if x >= z:
        return kl(x, y)
    return max(-eps * x - log_term, 0.0)


def count_tied(idx, best):
    """(how many entries of ``idx`` equal ``best``, the first of them or -1)."""
    n, first = 0, -1
    for a in range(idx.shape[0]):
        if idx[a] == best:
            n += 1
            if first < 0:
                first = a
    return n, first


def nth_tied(idx, best, u, n):
    """The entry of ``idx`` equal to ``best`` of rank min(int(u n), n - 1) among the ``n`` such
    entries: a tie broken uniformly at random by one uniform ``u``."""
    rank = min(int(u * n), n - 1)
    for a in range(idx.shape[0]):
        if idx[a] == best:
            if rank == 0:
                return a
            rank -= 1
    return -1

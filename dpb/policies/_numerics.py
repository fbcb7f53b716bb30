"""Fast, unvalidated index computations for the numpy engines' hot loops, written once.

:mod:`dpb.divergences` is the reference implementation (validated inputs, bisection to the last
ulp).  The simulators evaluate indexes millions of times on small arrays, where validation and 64
bisection steps dominate, so this module re-implements the few inversions they need with a
monotone Newton iteration, vectorised for the engines that advance many runs in numpy (the
lock-step of the batched policies, the generic phase engine).  The compiled kernels' scalar twins
are :mod:`dpb.policies._scalar` (why they are not one function is said there).
``tests/test_policies.py`` checks every function here against :mod:`dpb.divergences` to 1e-10.

The logarithms and exponentials are ``dpb._detmath``'s (the same bits on every CPU), never
numpy's ``np.log``/``np.exp`` (whose vectorised loops round differently on CPUs with AVX-512) or
scipy's ``xlogy``/``expit``/``logit`` (which call the C library's).
"""

from __future__ import annotations

import numpy as np

from .._detmath_arrays import exp_array, expm1_array, log1p_array, log_array

__all__ = ["kl_fast", "kl_ucb_fast", "budget_fast", "d_eps_ucb_fast", "d_eps_below_fast", "xlogy"]

_NEWTON_MAX_ITER = 60
_ONE_MINUS = np.nextafter(1.0, 0.0)
# Newton converges quadratically: a step below 1e-9 leaves an error far below the 1e-10 target
_NEWTON_TOL = 1e-9


def xlogy(a, b):
    """a log(b), 0 where a is 0 (scipy's ``xlogy``, with :func:`dpb._detmath.log`)."""
    a, b = np.broadcast_arrays(np.asarray(a, dtype=float), np.asarray(b, dtype=float))
    with np.errstate(invalid="ignore"):
        return np.where(a == 0.0, 0.0, a * log_array(b))


def expit(z):
    """1 / (1 + e^-z), elementwise."""
    return 1.0 / (1.0 + exp_array(-np.asarray(z, dtype=float)))


def logit(y):
    """log(y / (1 - y)), elementwise (-inf at 0, inf at 1)."""
    y = np.asarray(y, dtype=float)
    with np.errstate(divide="ignore"):
        return log_array(y / (1.0 - y))


def kl_fast(p: np.ndarray, q: np.ndarray) -> np.ndarray:
    """Bernoulli kl(p, q) = p log(p/q) + (1-p) log((1-p)/(1-q)) (unvalidated, 0 log 0 = 0).

    Returns +inf where q is 0 or 1 and p differs from q.  Accurate to ~1e-15 absolute, which is
    what the index comparisons need (the reference :func:`dpb.divergences.kl` is accurate to
    full *relative* precision near the diagonal).
    """
    p = np.asarray(p, dtype=float)
    q = np.asarray(q, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        out = xlogy(p, p) - xlogy(p, q) + xlogy(1.0 - p, 1.0 - p) - xlogy(1.0 - p, 1.0 - q)
    return np.maximum(np.where(p == q, 0.0, out), 0.0)


def kl_ucb_fast(x: np.ndarray, c: np.ndarray) -> np.ndarray:
    """The KL-UCB inversion max{q in [x, 1] : kl(x, q) <= c}, by Newton's method.

    ``q -> kl(x, q) - c`` is convex and increasing on [x, 1), so Newton's iteration from a point
    above the root decreases monotonically to it, and from a point below it jumps above it in one
    step.  The start is the second-order guess x + sqrt(2 c x (1 - x)) (kl ~ (q-x)^2 / (2x(1-x))),
    kept below two upper bounds of the root, which also clip the first jump: Pinsker's inequality
    kl(x, q) >= 2 (q - x)^2, and kl(x, q) >= -H(x) - (1 - x) log(1 - q) (drop -x log q >= 0), i.e.
    q <= 1 - exp(-(c + H(x)) / (1 - x)).  kl is evaluated as -x log1p(d/x) - (1-x) log1p(-d/(1-x))
    with d = q - x, accurate near the diagonal; about 4 iterations for typical bandit levels.

    Parameters
    ----------
    x : ndarray in [0, 1];  c : ndarray in [0, +inf] (broadcast together).
    """
    x, c = np.broadcast_arrays(np.asarray(x, dtype=float), np.asarray(c, dtype=float))
    out = np.where((x >= 1.0) | np.isinf(c), 1.0, x)
    todo = (x < 1.0) & (c > 0.0) & np.isfinite(c)
    if not todo.any():
        return out
    xs, cs = x[todo], c[todo]
    one_m_x = 1.0 - xs
    neg_ent = xlogy(xs, xs) + xlogy(one_m_x, one_m_x)  # -H(x) <= 0
    target = cs - neg_ent  # kl(x, q) - c = -x log q - (1-x) log(1-q) - (c + H(x))
    # Upper bounds of the root (Pinsker; dropping -x log q >= 0), and the second-order guess
    # x + sqrt(2 c x (1-x)); Newton from a point below the root jumps above it in one step (we
    # clip that jump at the upper bound) and then decreases monotonically to the root.
    upper = np.minimum(np.minimum(xs + np.sqrt(0.5 * cs), -expm1_array(-target / one_m_x)), _ONE_MINUS)
    guess = xs + np.sqrt(2.0 * cs * xs * one_m_x)
    q = np.where(guess > xs, np.minimum(guess, upper), upper)
    # kl(x, q) = -x log1p(d/x) - (1-x) log1p(-d/(1-x)) with d = q - x: accurate near the diagonal
    x_safe = np.where(xs > 0.0, xs, 1.0)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        for _ in range(_NEWTON_MAX_ITER):
            d = q - xs
            # (the ratio d/x only exceeds 1e300 when x < 1e-300, where x log(.) is negligible)
            g = -(xs * log1p_array(np.minimum(d / x_safe, 1e300)) + one_m_x * log1p_array(-d / one_m_x)) - cs
            q_new = q - g * q * (1.0 - q) / np.maximum(q - xs, 1e-300)
            np.maximum(q_new, xs, out=q_new)
            np.minimum(q_new, upper, out=q_new)
            delta = np.abs(q_new - q).max()
            q = q_new
            if delta <= _NEWTON_TOL:
                break
    out[todo] = q
    return out


def budget_fast(t: np.ndarray, c: float) -> np.ndarray:
    """KL-UCB's exploration budget f(t) = log t + c log log t (floored at 0) for an array of
    rounds."""
    lt = log_array(t)
    if c == 0.0:
        return lt
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.maximum(lt + c * log_array(lt), 0.0)


def d_eps_ucb_fast(x: np.ndarray, c: np.ndarray, eps: float) -> np.ndarray:
    """DP-KLUCB index max{mu in [x, 1] : d_eps(x, mu) <= c}, :prf:ref:`alg-dp-klucb-imed` (unvalidated).

    d_eps(x, .) increases on [x, 1] to d_eps(x, 1) = eps (1 - x), so the index is 1 when
    c >= eps (1 - x).  Below the point m = expit(logit(x) + eps) (where the minimiser z* of
    :prf:ref:`def-d-eps` leaves x) d_eps(x, mu) = kl(x, mu); beyond it, by :prf:ref:`prop-d-eps-closed-form`,
    d_eps(x, mu) = -eps x - log(1 - mu (1 - e^{-eps})), inverted in closed form:
    mu = expm1(-(c + eps x)) / expm1(-eps).
    """
    x, c = np.broadcast_arrays(np.asarray(x, dtype=float), np.asarray(c, dtype=float))
    out = np.ones(x.shape)
    sat = c >= eps * (1.0 - x)
    todo = ~sat
    if not todo.any():
        return out
    xs, cs = x[todo], c[todo]
    edge = np.maximum(expit(logit(xs) + eps), xs)  # (>= x; guards underflow at tiny x)
    high = cs > kl_fast(xs, edge)
    res = np.empty(xs.shape)
    if high.any():
        xh, ch = xs[high], cs[high]
        res[high] = np.minimum(np.maximum(expm1_array(-(ch + eps * xh)) / expm1_array(-eps), xh), 1.0)
    low = ~high
    if low.any():
        res[low] = kl_ucb_fast(xs[low], cs[low])
    out[todo] = res
    return out


def d_eps_below_fast(x: np.ndarray, y: np.ndarray, eps: float) -> np.ndarray:
    """d_eps(x, y) of :prf:ref:`def-d-eps` for 0 <= x <= y <= 1 (unvalidated; the DP-IMED index).

    :prf:ref:`prop-d-eps-closed-form`: with z = y / (y + (1 - y) e^eps) = expit(logit(y) - eps),
    d_eps(x, y) = kl(x, y) if x >= z, and otherwise
    eps (z - x) + kl(z, y) = -eps x - log(1 - y (1 - e^{-eps})).
    """
    x, y = np.broadcast_arrays(np.asarray(x, dtype=float), np.asarray(y, dtype=float))
    z = expit(logit(y) - eps)
    with np.errstate(divide="ignore"):
        # log(1 - y (1 - e^{-eps})) = log((1 - y) + y e^{-eps}); each form is accurate on one side
        log_term = np.where(y > 0.5, log_array((1.0 - y) + y * exp_array(-eps)),
                            log1p_array(y * expm1_array(-eps)))
        high = -eps * x - log_term
    return np.where(x >= z, kl_fast(x, y), np.maximum(high, 0.0))

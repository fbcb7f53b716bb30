r"""Divergences between Bernoulli distributions: ``kl``, ``tv`` and the paper's ``d_eps``.

Every quantity in the paper is a function of two Bernoulli means.  Three divergences matter:

* ``kl(p, q)`` -- the relative entropy between Bernoulli(p) and Bernoulli(q).  It governs the
  non-private regret (Lai--Robbins) and the non-private KL-UCB / IMED indexes.
* ``tv(p, q) = |p - q|`` -- the total variation between Bernoulli(p) and Bernoulli(q).  Under
  epsilon-DP, reward sequences that differ in ``k`` entries change the law of the output by at most a
  factor ``e^{k eps}`` (group privacy), so the lower bound's coupling argument charges ``eps`` per
  unit of total variation.
* ``d_eps(x, y)`` -- :prf:ref:`def-d-eps`, the information-theoretic quantity of the
  regret lower bound under epsilon-global DP:

  .. math::

     d_\varepsilon(x, y) = \inf_{z \in [x \wedge y,\, x \vee y]}
         \bigl\{ \varepsilon\,|z - x| + \mathrm{kl}(z, y) \bigr\}.

  One first travels from ``x`` to an intermediate mean ``z`` paying ``eps`` per unit of total
  variation, then pays the ordinary ``kl`` from ``z`` to ``y``.  It interpolates between the two
  regimes: ``d_eps = kl`` as soon as ``eps >= |logit(y) - logit(x)|`` (the *low-privacy* regime,
  where privacy is free), and ``d_eps ~ eps |x - y|`` as ``eps -> 0`` (the *high-privacy* regime).

The minimiser ``z*`` has the closed form of the lemma "Explicit solution of d_eps" of the paper's
regret appendix (:prf:ref:`prop-d-eps-closed-form`), so ``d_eps`` is evaluated in closed form, with
no numerical optimisation.  The module also provides the confidence *inversions* used as indexes by
the bandit algorithms: ``kl_ucb``/``kl_lcb`` (the KL-UCB index) and ``d_eps_ucb``/``d_eps_lcb`` (the
DP-KLUCB index, :prf:ref:`alg-dp-klucb-imed`).

All functions are vectorised over numpy arrays with broadcasting, return a Python ``float`` when
every argument is a scalar, are exact at the boundary means 0 and 1 (``0 log 0 = 0``, ``+inf``
where the divergence is infinite, never NaN) and emit no floating-point warnings.

A derived identity used below: writing ``z*(y) = expit(logit(y) - eps)`` for the unconstrained
minimiser when ``x <= y``, the first-order condition ``logit(z*) = logit(y) - eps`` gives

.. math::

   \varepsilon (z^* - x) + \mathrm{kl}(z^*, y) = -\varepsilon x - \log\bigl(1 - y(1 - e^{-\varepsilon})\bigr),

so in the high-privacy regime ``d_eps(x, .)`` has an explicit inverse, which ``d_eps_ucb`` and
``d_eps_lcb`` use, and ``d_eps`` itself uses this form where it is the more accurate evaluation (the
mirror identity ``eps x - log(1 + y (e^eps - 1))`` holds for ``x >= y``).  It is the Chernoff form
``-eps x - log E[exp(-eps X)]``, ``X ~ Bernoulli(y)``, of the private concentration bound.
"""

from __future__ import annotations

from typing import overload

import numpy as np
from numpy.typing import ArrayLike
from scipy.special import expit, logit

from ._validate import as_positive, as_probability, broadcast

__all__ = [
    "kl",
    "tv",
    "z_star",
    "d_eps",
    "regime_threshold",
    "kl_ucb",
    "kl_lcb",
    "d_eps_ucb",
    "d_eps_lcb",
]

#: Convergence tolerance of the inversions in the logit variable u = log(q / (1 - q)): the bracket
#: [a, b] around the root is shrunk until b - a <= 1e-13, i.e. |q - root| <= 2.5e-14 absolutely and
#: 1e-13 relatively near 0 and 1 -- far below the promised 1e-10.
_LOGIT_TOL = 1e-13
#: Hard cap on the solver's iterations.  Every two iterations at least halve the bracket (width
#: <= 745 in logit units), so 53 halvings (<= 106 iterations) always reach the tolerance; typical
#: inputs need 4-12 iterations (Newton/secant converge superlinearly).
_MAX_ITERATIONS = 200
#: Largest logit the upper inversion probes: expit of it is 1 - 2**-52 < 1, where kl is still finite
#: (the root may lie beyond it only if it is within 2.3e-16 of 1).
_V_CAP_UPPER = float(logit(1.0 - 2.0**-52))
#: Largest (negated) logit the lower inversion probes: expit(-708) ~ 3e-308 > 0 (scipy's expit
#: underflows to 0 below about -709), so kl stays finite there.
_V_CAP_LOWER = 708.0

# ----------------------------------------------------------------------------------------------
# helpers
# ----------------------------------------------------------------------------------------------
def _finish(arr: np.ndarray) -> float | np.ndarray:
    """Return a Python float for a 0-d result, else a fresh ndarray."""
    arr = np.asarray(arr, dtype=float)
    if arr.ndim == 0:
        return float(arr)
    return np.array(arr, dtype=float)


def _expit(u: np.ndarray) -> np.ndarray:
    """``1 / (1 + e^-u)`` down to the subnormal range (scipy's ``expit`` returns 0 below about -709)."""
    far = u < -700.0
    return np.where(far, np.exp(np.where(far, u, 0.0)), expit(u))


def _eps(value) -> np.ndarray:
    return as_positive("eps", value, allow_inf=True, allow_zero=False)


def _probabilities(*eps, **named) -> list[np.ndarray]:
    """The named probabilities (and ``eps`` when given) validated, in order, and broadcast together."""
    arrays = {k: as_probability(k, v) for k, v in named.items()}
    return broadcast(**arrays, eps=_eps(eps[0])) if eps else broadcast(**arrays)


def _bound_args(x: ArrayLike, c: ArrayLike, *eps: ArrayLike) -> list[np.ndarray]:
    """The arguments of a confidence bound validated (``x``, then ``c``, then ``eps`` if given) and
    broadcast together."""
    x, c = as_probability("x", x), as_positive("c", c, allow_inf=True, allow_zero=True)
    return broadcast(x=x, c=c, eps=_eps(eps[0])) if eps else broadcast(x=x, c=c)


def _a_log_a_over_b(a: np.ndarray, b: np.ndarray, b_minus_a: np.ndarray) -> np.ndarray:
    """``a log(a / b)`` for ``a, b`` in [0, 1], accurate when ``b`` is close to ``a``.

    ``b_minus_a`` is ``b - a`` computed from the original (unrounded) means.  When
    ``|b - a| <= a / 2`` we use ``-a log1p((b - a) / a)``, whose absolute error is a few ulps of
    ``|b - a|`` instead of a few ulps of ``a``; this is what keeps ``kl(p, p + h)`` (which is of
    order ``h**2``) accurate to full relative precision near the diagonal.
    """
    pos = a > 0
    a_s = np.where(pos, a, 1.0)
    b_s = np.where(b > 0, b, 1.0)
    near = np.abs(b_minus_a) <= 0.5 * a_s
    r = np.where(near, b_minus_a, 0.0) / a_s
    val = np.where(near, -a_s * np.log1p(r), a_s * (np.log(a_s) - np.log(b_s)))
    val = np.where(b > 0, val, np.inf)
    return np.where(pos, val, 0.0)


def _kl(p: np.ndarray, q: np.ndarray) -> np.ndarray:
    """Unvalidated Bernoulli relative entropy (arrays in [0, 1])."""
    p, q = np.broadcast_arrays(np.asarray(p, dtype=float), np.asarray(q, dtype=float))
    diff = q - p
    out = _a_log_a_over_b(p, q, diff) + _a_log_a_over_b(1.0 - p, 1.0 - q, -diff)
    return np.maximum(out, 0.0)


def _z_star(x: np.ndarray, y: np.ndarray, eps: np.ndarray) -> np.ndarray:
    """Unvalidated minimiser of ``z -> eps |z - x| + kl(z, y)`` over ``[x ^ y, x v y]``."""
    x, y, eps = np.broadcast_arrays(x, y, eps)
    finite = np.isfinite(eps)
    eps_f = np.where(finite, eps, 0.0)
    ly = logit(y)  # +-inf at y in {0, 1}, no warning
    below = _expit(ly - eps_f)  # y / (y + (1 - y) e^eps), the stationary point when x <= y
    above = _expit(ly + eps_f)  # y e^eps / (y e^eps + 1 - y), the stationary point when x >= y
    z = np.where(x <= y, np.minimum(np.maximum(x, below), y), np.maximum(np.minimum(x, above), y))
    return np.where(finite, z, x)


def _d_eps(x: np.ndarray, y: np.ndarray, eps: np.ndarray) -> np.ndarray:
    """Unvalidated ``d_eps`` = ``eps |z* - x| + kl(z*, y)``.

    In the high-privacy regime (``eps < regime_threshold(x, y)``, ``y`` in (0, 1)) the same value
    has the explicit form
    ``-eps x - log1p(y expm1(-eps))`` (``x <= y``; mirrored for ``x >= y``).  The two evaluations err
    differently: rounding ``z*`` costs about ``ulp(z*)**2 / (2 z* (1 - z*))`` (the objective is
    stationary at ``z*`` but very curved when ``z*`` is within a few ulps of 0 or 1), the explicit form
    cancels ``eps x`` against the logarithm.  Each element uses the one with the smaller error bound.
    """
    x, y, eps = np.broadcast_arrays(x, y, eps)
    z = _z_star(x, y, eps)
    finite = np.isfinite(eps)
    # where eps = inf we have z* = x, so the transport term is 0 (avoid inf * 0)
    eps_f = np.where(finite, eps, 0.0)
    transport = np.where(z == x, 0.0, eps_f * np.abs(z - x))
    d_z = transport + _kl(z, y)
    # high-privacy regime, decided from the threshold rather than from z* != x: near 0 and 1 the
    # rounded z* can land on x although the exact minimiser lies strictly inside (x, y)
    high = finite & (eps_f < _threshold(x, y)) & (y > 0) & (y < 1)
    if not np.any(high):
        return d_z
    below = x <= y
    # x <= y: w = y, x_eff = x; x >= y: the mirror image w = 1 - y, x_eff = 1 - x
    w = np.where(below, y, 1.0 - y)
    x_eff = np.where(below, x, 1.0 - x)
    # log(1 - w (1 - e^-eps)) = log(w_bar + w e^-eps): log1p where the argument is moderate, else
    # logaddexp of the two logs, each taken from y directly (no 1 - y rounding, no log(0))
    t = w * np.expm1(-eps_f)
    mod = t > -0.5
    y_s = np.where(high, y, 0.5)
    log_y, log_1my = np.log(y_s), np.log1p(-y_s)
    log_w = np.where(below, log_y, log_1my)
    log_w_bar = np.where(below, log_1my, log_y)
    log_term = -np.where(mod, np.log1p(np.where(mod, t, 0.0)), np.logaddexp(log_w_bar, log_w - eps_f))
    d_c = np.maximum(log_term - eps_f * x_eff, 0.0)
    err_c = (eps_f * x_eff + log_term) * 2.3e-16
    zz = z * (1.0 - z)
    err_z = np.where(zz > 0, np.spacing(z) ** 2 / np.where(zz > 0, 2.0 * zz, 1.0), np.inf) + d_z * 2.3e-16
    return np.where(high & (err_c < err_z), d_c, d_z)


def _threshold(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Unvalidated ``|logit(y) - logit(x)|`` (0 when x == y, inf when x != y touches {0, 1})."""
    edge = (x == 0) | (x == 1) | (y == 0) | (y == 1)
    xs = np.where(edge, 0.5, x)
    ys = np.where(edge, 0.5, y)
    out = np.where(edge, np.inf, np.abs(logit(ys) - logit(xs)))
    return np.where(x == y, 0.0, out)


def _logit_ulp(q: np.ndarray) -> np.ndarray:
    """Logit distance ``spacing(q) / (q (1 - q))`` between ``q`` and the next float (0 at q in {0, 1})."""
    w = q * (1.0 - q)
    return np.where(w > 0, np.spacing(q) / np.where(w > 0, w, 1.0), 0.0)


def _kl_root(x: np.ndarray, c: np.ndarray, upper: bool) -> np.ndarray:
    """Solve ``kl(x, q) = c`` for ``q > x`` (``upper``) or ``q < x``; ``x`` in (0, 1), ``0 < c < inf``.

    Works in ``v = +-logit(q)`` (sign chosen so that the root lies to the right of ``v = +-logit(x)``).
    There ``f(v) = kl(x, expit(+-v)) - c`` is increasing and convex with ``f'(v) = |q - x| <= 1`` and
    ``f'' = q (1 - q)``, so from a bracket ``[a, b]`` (``f(a) <= 0 < f(b)``) the Newton step from ``b``
    stays infeasible and the secant through ``a`` and ``b`` stays feasible.  Every candidate is
    classified by the *computed* sign of ``f``, so the bracket invariant holds in floating point;
    candidates leaving the bracket, and stalls (width not halved in an iteration), fall back to the
    midpoint.  Returns the feasible end ``expit(+-a)``: ``kl(x, q) <= c`` holds as computed.
    """
    sgn = 1.0 if upper else -1.0
    x_s = np.where(x > 0, x, 0.5)
    xb_s = np.where(x < 1, 1.0 - x, 0.5)
    # Infeasible starting point b: the better of Pinsker (kl >= 2 (q - x)^2) and the bound that drops
    # the log-term of the other outcome, e.g. kl(x, q) >= x log x + (1 - x) log((1 - x) / (1 - q)).
    root_c = np.sqrt(0.5 * c)
    # the side's own end and the other one: upper (x, q) <-> lower (1 - x, 1 - q), mirrored
    near, far, x_side = (xb_s, x_s, x) if upper else (x_s, xb_s, 1.0 - x)
    qp = x + sgn * root_c
    inside = (qp < 1.0) if upper else (qp > 0.0)
    v_p = np.where(inside, sgn * logit(np.where(inside, qp, 0.5)), np.inf)
    # log(1 - q_up) or log(q_low); the quotient is clamped at 1e3 (a larger value is cut by the cap)
    log_w = np.log(near) - np.minimum(c - x_side * np.log(far), 1e3 * near) / near
    v_e = np.log(-np.expm1(log_w)) - log_w  # log_w < 0: log(1 - w) without log(0)
    v_b = np.minimum(np.minimum(v_p, v_e), _V_CAP_UPPER if upper else _V_CAP_LOWER)

    def f(v, xx, cc):
        q = expit(sgn * v)
        return _kl(xx, q) - cc, sgn * (q - xx), q

    n = x.size  # x is 1-d here; both probes of an iteration are evaluated in one call
    x2 = np.concatenate([x, x])
    c2 = np.concatenate([c, c])
    a0 = sgn * logit(x)
    a, fa = a0.copy(), -c
    b = np.maximum(v_b, a0)
    fb, dfb, qb = f(b, x, c)
    start_ok = fb <= 0  # the bound is tight to rounding: b is (computed-)feasible and is the answer
    a = np.where(start_ok, b, a)
    fa = np.where(start_ok, fb, fa)
    qa = np.where(start_ok, qb, x)
    width = np.where(start_ok, 0.0, b - a)
    slow = np.zeros(x.shape, dtype=bool)
    for _ in range(_MAX_ITERATIONS):
        # done when the bracket is below tol in logit units, or when its ends are within 4 ulps in q
        # (near q = 0 or 1 the map v -> expit(v) is a staircase and nothing much finer exists)
        active = (width > _LOGIT_TOL) & (np.abs(qb - qa) > 4.0 * np.spacing(np.minimum(qa, qb)))
        if not np.any(active):
            break
        mid = a + 0.5 * (b - a)
        finite = np.isfinite(fb) & (dfb > 0)
        with np.errstate(all="ignore"):  # masked out below where fb = inf
            newton = b - fb / np.where(finite, dfb, 1.0)
            secant = a - fa * (b - a) / (fb - fa)
        newton = np.where(finite & np.isfinite(newton), newton, mid)
        secant = np.where(np.isfinite(fb) & ~slow & np.isfinite(secant), secant, mid)
        # Never probe closer to an end of the bracket than 0.75 tol, nor than two floating-point
        # steps of q (Brent's rule): once one end is within rounding of the root, the probe lands
        # just beyond it and the bracket closes, instead of creeping by sub-ulp Newton steps.
        lo_c = a + np.maximum(0.75 * _LOGIT_TOL, 2.0 * _logit_ulp(qa))
        hi_c = b - np.maximum(0.75 * _LOGIT_TOL, 2.0 * _logit_ulp(qb))
        wide = lo_c < hi_c
        newton = np.where(wide, np.clip(newton, lo_c, hi_c), mid)
        secant = np.where(wide, np.clip(secant, lo_c, hi_c), mid)
        f_2, df_2, q_2 = f(np.concatenate([newton, secant]), x2, c2)
        for k, v_k in enumerate((newton, secant)):
            part = slice(k * n, (k + 1) * n)
            f_k, df_k, q_k = f_2[part], df_2[part], q_2[part]
            inside = active & (v_k > a) & (v_k < b)
            feas = inside & (f_k <= 0)
            infeas = inside & (f_k > 0)
            a = np.where(feas, v_k, a)
            fa = np.where(feas, f_k, fa)
            qa = np.where(feas, q_k, qa)
            b = np.where(infeas, v_k, b)
            fb = np.where(infeas, f_k, fb)
            dfb = np.where(infeas, df_k, dfb)
            qb = np.where(infeas, q_k, qb)
        new_width = np.where(active, b - a, 0.0)
        slow = new_width > 0.5 * width
        width = new_width
    # qa is x itself while the feasible end has not moved; near 1 expit cannot return every float,
    # and a probe below x (for upper; above x for lower) is never better than x, which is feasible
    return np.maximum(qa, x) if upper else np.minimum(qa, x)


def _polish(value, q: np.ndarray, x: np.ndarray, c: np.ndarray) -> np.ndarray:
    """Move a root ``q`` towards ``x`` by the fewest ulps (up to a factor 2) until ``value(q) <= c``.

    An explicit inverse is accurate in absolute terms, but where ``value`` is steep (``q`` near 0 or
    1), or where the formula cancels (``c`` close to its saturation level), the computed root can
    violate the constraint it solves by a few rounding errors.  Stepping towards ``x`` (where the
    constraint holds, ``value(x) = 0``) by 1, 2, 4, ... ulps returns a point that satisfies it as
    computed, moved by at most twice the distance that was needed.
    """
    for i in range(64):
        bad = value(q) > c
        if not np.any(bad):
            break
        gap = x - q
        step = np.minimum(np.spacing(np.abs(q)) * 2.0**i, np.abs(gap))
        q = np.where(bad, q + np.sign(gap) * step, q)
    return q


def _kl_bound(x: np.ndarray, c: np.ndarray, upper: bool) -> np.ndarray:
    """The KL-UCB (``upper``) or KL-LCB index for validated ``x`` in [0, 1] and ``c >= 0``."""
    x, c = np.broadcast_arrays(x, c)
    far = 1.0 if upper else 0.0
    out = np.where((x == far) | np.isinf(c), far, x).astype(float)  # c = 0 -> x
    todo = (x != far) & (c > 0) & np.isfinite(c)
    edge = todo & (x == 1.0 - far)  # kl(0, q) = -log(1 - q), kl(1, q) = -log(q): explicit inverses
    if np.any(edge):
        xe, ce = x[edge], c[edge]
        out[edge] = _polish(lambda q: _kl(xe, q), -np.expm1(-ce) if upper else np.exp(-ce), xe, ce)
    todo &= ~edge
    if np.any(todo):
        out[todo] = _kl_root(x[todo], c[todo], upper=upper)
    return out


def _d_eps_bound(x: np.ndarray, c: np.ndarray, eps: np.ndarray, upper: bool) -> np.ndarray:
    """Unvalidated :func:`d_eps_ucb` (``upper``) or :func:`d_eps_lcb`: saturated at the far end
    (1 or 0) when ``c >= d_eps(x, far end)``; else the KL bound while the root lies in the
    low-privacy regime of ``(x, mu)``, the explicit high-privacy inverse beyond it, polished so
    that ``d_eps(x, mu) <= c`` holds as computed."""
    far = 1.0 if upper else 0.0
    out = np.where(c == 0, x, far).astype(float)
    finite = np.isfinite(eps)
    eps_f = np.where(finite, eps, 1.0)
    # saturation: d_eps(x, far) = eps |far - x| <= c  (x = far or c = inf included; eps = inf only if c = inf)
    sat = (x == far) | np.isinf(c) | (finite & (c >= eps_f * ((1.0 - x) if upper else x)))
    todo = ~sat & (c > 0)
    if not np.any(todo):
        return out
    xs, cs, es, fs = x[todo], c[todo], eps_f[todo], finite[todo]
    # the mean beyond which (x, mu) is in the high-privacy regime
    edge = _expit(logit(xs) + es) if upper else _expit(logit(xs) - es)
    high = cs > np.where(fs, _kl(xs, edge), np.inf)
    res = np.empty_like(xs)
    if np.any(high):
        xh, ch, eh = xs[high], cs[high], es[high]
        with np.errstate(over="ignore"):  # c + eps x <= eps may round past the largest float
            if upper:
                res[high] = np.clip(np.expm1(-(ch + eh * xh)) / np.expm1(-eh), xh, 1.0)
            else:
                res[high] = np.clip(np.exp(-(ch + eh * (1.0 - xh))) * np.expm1(ch - eh * xh) / np.expm1(-eh),
                                    0.0, xh)
    low = ~high
    if np.any(low):
        res[low] = _kl_bound(xs[low], cs[low], upper)
    # near the regime edge kl(x, mu) and the d_eps evaluation differ by rounding: make the
    # returned mean satisfy d_eps(x, mu) <= c as computed by d_eps itself
    e_all = eps[todo]
    out[todo] = _polish(lambda m: _d_eps(xs, m, e_all), res, xs, cs)
    return out


# ----------------------------------------------------------------------------------------------
# public API
# ----------------------------------------------------------------------------------------------
@overload
def kl(p: float, q: float) -> float: ...
@overload
def kl(p: ArrayLike, q: ArrayLike) -> float | np.ndarray: ...
def kl(p: ArrayLike, q: ArrayLike) -> float | np.ndarray:
    r"""Bernoulli relative entropy ``kl(p, q)``.

    .. math::

       \mathrm{kl}(p, q) = p \log\frac{p}{q} + (1 - p) \log\frac{1 - p}{1 - q},

    the Kullback--Leibler divergence between Bernoulli(p) and Bernoulli(q) (background section of
    Azize et al. (2025), Bernoulli bandits; it is the Lai--Robbins constant and the divergence of
    the non-private KL-UCB index).  Boundary conventions are exact: ``0 log 0 = 0``, and the value
    is ``+inf`` when ``q`` puts zero mass on an outcome that ``p`` charges (e.g. ``kl(0.5, 0)``).
    Near the diagonal the two first-order terms are summed in ``log1p`` form so that
    ``kl(p, p + h) ~ h**2 / (2 p (1 - p))`` keeps full relative precision.

    Parameters
    ----------
    p, q : float or array_like
        Bernoulli means in [0, 1]; broadcast together.

    Returns
    -------
    float or ndarray
        ``kl(p, q)`` in ``[0, +inf]``; a float when both arguments are scalars.

    Raises
    ------
    ValueError
        If ``p`` or ``q`` is NaN or outside [0, 1], or the shapes do not broadcast.
    TypeError
        If an argument is not numeric.

    Examples
    --------
    >>> round(kl(0.5, 0.25), 6)
    0.143841
    >>> kl(0.0, 0.0), kl(1.0, 1.0), kl(0.5, 0.0)
    (0.0, 0.0, inf)
    """
    p, q = _probabilities(p=p, q=q)
    return _finish(_kl(p, q))


@overload
def tv(p: float, q: float) -> float: ...
@overload
def tv(p: ArrayLike, q: ArrayLike) -> float | np.ndarray: ...
def tv(p: ArrayLike, q: ArrayLike) -> float | np.ndarray:
    r"""Total variation distance between Bernoulli(p) and Bernoulli(q): ``|p - q|``.

    .. math::

       \mathrm{TV}(\mathrm{Ber}(p), \mathrm{Ber}(q)) = |p - q|.

    It is the transport cost of :prf:ref:`def-d-eps`: ``d_eps`` pays ``eps`` per unit
    of total variation, and ``d_eps(x, y) <= eps * tv(x, y)``.

    Parameters and errors as in :func:`kl`; returns ``|p - q|`` in [0, 1] (a float for scalars).

    Examples
    --------
    >>> tv(0.2, 0.5)
    0.3
    """
    p, q = _probabilities(p=p, q=q)
    return _finish(np.abs(p - q))


@overload
def z_star(x: float, y: float, eps: float) -> float: ...
@overload
def z_star(x: ArrayLike, y: ArrayLike, eps: ArrayLike) -> float | np.ndarray: ...
def z_star(x: ArrayLike, y: ArrayLike, eps: ArrayLike) -> float | np.ndarray:
    r"""Minimiser ``z*`` of ``z -> eps |z - x| + kl(z, y)`` over ``[x ^ y, x v y]``.

    :prf:ref:`prop-d-eps-closed-form` (the paper's explicit solution of d_eps, in its regret
    appendix):

    .. math::

       z^* = \begin{cases}
         \max\Bigl(x, \dfrac{y}{y + (1 - y) e^{\varepsilon}}\Bigr) & x \le y,\\[1ex]
         \min\Bigl(x, \dfrac{y e^{\varepsilon}}{y e^{\varepsilon} + 1 - y}\Bigr) & x \ge y,
       \end{cases}

    computed as ``expit(logit(y) -+ eps)`` so that ``y`` in {0, 1}, tiny ``eps`` and huge ``eps`` do
    not overflow.  For ``eps = +inf`` (no privacy) ``z* = x``.  For ``y = 1 > x`` and finite ``eps``
    the minimiser is ``z* = 1`` (``kl(z, 1) = inf`` for ``z < 1``), and symmetrically ``z* = 0`` for
    ``y = 0``.  ``z* = x`` exactly in the low-privacy regime ``eps >= regime_threshold(x, y)``.

    Parameters
    ----------
    x : float or array_like
        Mean in [0, 1] (the arm being tested, ``mu_a`` in the lower bound).
    y : float or array_like
        Mean in [0, 1] (the alternative, ``mu*`` in the lower bound).
    eps : float or array_like
        Privacy budget in (0, +inf].

    Returns
    -------
    float or ndarray
        ``z*`` in ``[min(x, y), max(x, y)]``.

    Errors as in :func:`d_eps`.

    Examples
    --------
    >>> round(z_star(0.1, 0.5, 1.0), 6)  # 1 / (1 + e), inside [0.1, 0.5]
    0.268941
    >>> z_star(0.4, 0.5, 1.0)  # low-privacy regime: z* = x
    0.4
    """
    x, y, eps = _probabilities(eps, x=x, y=y)
    return _finish(_z_star(x, y, eps))


@overload
def d_eps(x: float, y: float, eps: float) -> float: ...
@overload
def d_eps(x: ArrayLike, y: ArrayLike, eps: ArrayLike) -> float | np.ndarray: ...
def d_eps(x: ArrayLike, y: ArrayLike, eps: ArrayLike) -> float | np.ndarray:
    r"""The paper's divergence ``d_eps(x, y)`` between Bernoulli means (:prf:ref:`def-d-eps`).

    .. math::

       d_\varepsilon(x, y) = \inf_{z \in [x \wedge y,\, x \vee y]}
           \bigl\{ \varepsilon |z - x| + \mathrm{kl}(z, y) \bigr\}
         = \varepsilon |z^* - x| + \mathrm{kl}(z^*, y),

    :prf:ref:`def-d-eps`,
    evaluated at the closed-form minimiser ``z*`` of :prf:ref:`prop-d-eps-closed-form` (see
    :func:`z_star`); in the high-privacy branch the equivalent explicit form
    ``-eps x - log(1 - y (1 - e^{-eps}))`` (module docstring) is used where it is the more accurate
    of the two, so the result has a relative error of a few ulps even when ``z*`` is within an ulp of
    0 or 1.  Hence (Implication (b)) ``d_eps = kl`` when
    ``eps >= regime_threshold(x, y)`` and otherwise, for ``x <= y``,
    ``d_eps = kl(z*, y) + eps (z* - x)`` with ``z* = y / (y + (1 - y) e^eps)``.

    Properties: ``0 <= d_eps(x, y) <= min(kl(x, y), eps |x - y|)``; nondecreasing in ``eps``;
    ``d_eps -> kl`` as ``eps -> inf`` (``eps = inf`` gives ``kl`` exactly) and
    ``d_eps ~ eps |x - y|`` as ``eps -> 0``.  At the boundary it is *finite* even where ``kl`` is not:
    ``d_eps(x, 1) = eps (1 - x)`` and ``d_eps(x, 0) = eps x``.

    Parameters
    ----------
    x : float or array_like
        Mean in [0, 1] (``mu_a``).
    y : float or array_like
        Mean in [0, 1] (``mu*``).
    eps : float or array_like
        Privacy budget in (0, +inf].

    Returns
    -------
    float or ndarray
        ``d_eps(x, y)`` in ``[0, +inf]`` (infinite only when ``eps = inf`` and ``kl(x, y) = inf``).

    Raises
    ------
    ValueError
        If ``x`` or ``y`` is outside [0, 1] or NaN, ``eps`` is not in (0, +inf], or the shapes do not
        broadcast.
    TypeError
        If an argument is not numeric.

    Examples
    --------
    >>> round(d_eps(0.3, 0.5, 10.0), 6) == round(kl(0.3, 0.5), 6)  # low-privacy regime
    True
    >>> round(d_eps(0.3, 0.5, 0.1), 6)  # high-privacy regime, close to eps * |x - y| = 0.02
    0.018751
    >>> d_eps(0.25, 1.0, 2.0)  # eps * (1 - x), finite although kl(0.25, 1) = inf
    1.5
    """
    x, y, eps = _probabilities(eps, x=x, y=y)
    return _finish(_d_eps(x, y, eps))


@overload
def regime_threshold(x: float, y: float) -> float: ...
@overload
def regime_threshold(x: ArrayLike, y: ArrayLike) -> float | np.ndarray: ...
def regime_threshold(x: ArrayLike, y: ArrayLike) -> float | np.ndarray:
    r"""Privacy-regime threshold ``eps*(x, y) = |logit(y) - logit(x)|``.

    .. math::

       \varepsilon^*(x, y) = \Bigl|\log\frac{y}{x} + \log\frac{1 - x}{1 - y}\Bigr|,

    Implication (b) after the lower-bound theorem of Azize et al. (2025): ``d_eps(x, y) = kl(x, y)``
    if and only if ``eps >= eps*(x, y)`` (low-privacy regime: privacy is free), and
    ``d_eps(x, y) < kl(x, y)`` for ``eps < eps*(x, y)`` (high-privacy regime).  It equals 0 when
    ``x = y`` and ``+inf`` when ``x != y`` and one of them is 0 or 1 (then no finite ``eps`` recovers
    ``kl``).

    Parameters
    ----------
    x, y : float or array_like
        Means in [0, 1]; broadcast together.

    Returns
    -------
    float or ndarray
        ``eps*(x, y)`` in ``[0, +inf]``.

    Raises
    ------
    ValueError
        If ``x`` or ``y`` is outside [0, 1] or NaN, or the shapes do not broadcast.
    TypeError
        If an argument is not numeric.

    Examples
    --------
    >>> round(regime_threshold(0.25, 0.5), 6)  # log 2 + log 1.5 = log 3
    1.098612
    >>> regime_threshold(0.0, 0.5)
    inf
    """
    x, y = _probabilities(x=x, y=y)
    return _finish(_threshold(x, y))


@overload
def kl_ucb(x: float, c: float) -> float: ...
@overload
def kl_ucb(x: ArrayLike, c: ArrayLike) -> float | np.ndarray: ...
def kl_ucb(x: ArrayLike, c: ArrayLike) -> float | np.ndarray:
    r"""Upper KL confidence bound: ``max{q in [x, 1] : kl(x, q) <= c}``.

    .. math::

       U_{\mathrm{kl}}(x, c) = \max\{ q \in [x, 1] : \mathrm{kl}(x, q) \le c \},

    the KL-UCB index (the non-private analogue of the DP-KLUCB index of :prf:ref:`alg-dp-klucb-imed`; with
    ``c = log(t) / n`` it is the index of KL-UCB).  Computed by a vectorised bracketed root finder
    in the logit variable (Newton from the infeasible side, secant from the feasible side, midpoint
    safeguard; see ``_kl_root``) that returns the feasible end of the final bracket, so
    ``kl(x, U) <= c`` holds as computed and ``U`` is within about 1e-13 (relative to
    ``min(U, 1 - U)``, hence absolutely within 2.5e-14) of the exact root.  ``x = 0`` uses the explicit
    inverse ``1 - exp(-c)``.  ``c = 0`` gives ``x``; ``c = inf`` gives 1.

    Parameters
    ----------
    x : float or array_like
        Empirical mean in [0, 1].
    c : float or array_like
        Confidence level (exploration budget) in [0, +inf].

    Returns
    -------
    float or ndarray
        The index, in ``[x, 1]``.

    Raises
    ------
    ValueError
        If ``x`` is outside [0, 1] or NaN, ``c`` is negative or NaN, or the shapes do not broadcast.
    TypeError
        If an argument is not numeric.

    Examples
    --------
    >>> round(kl_ucb(0.5, 0.1), 6)  # root of 4 q (1 - q) = exp(-0.2)
    0.712879
    >>> kl_ucb(0.5, 0.0), kl_ucb(0.5, float("inf"))
    (0.5, 1.0)
    """
    x, c = _bound_args(x, c)
    return _finish(_kl_bound(x, c, upper=True))


@overload
def kl_lcb(x: float, c: float) -> float: ...
@overload
def kl_lcb(x: ArrayLike, c: ArrayLike) -> float | np.ndarray: ...
def kl_lcb(x: ArrayLike, c: ArrayLike) -> float | np.ndarray:
    r"""Lower KL confidence bound: ``min{q in [0, x] : kl(x, q) <= c}``.

    .. math::

       L_{\mathrm{kl}}(x, c) = \min\{ q \in [0, x] : \mathrm{kl}(x, q) \le c \},

    the mirror of :func:`kl_ucb` (background section of Azize et al. (2025), Bernoulli bandits).
    Same vectorised root finder as :func:`kl_ucb` (accurate to about 1e-13 relative to ``L``, so
    roots near 0 keep their significant digits); ``x = 1`` uses the explicit inverse ``exp(-c)``.
    ``c = 0`` gives ``x``;
    ``c = inf`` gives 0.

    Parameters and errors as in :func:`kl_ucb`; returns the bound (float or ndarray), in
    ``[0, x]``.

    Examples
    --------
    >>> round(kl_lcb(0.5, 0.1), 6)
    0.287121
    """
    x, c = _bound_args(x, c)
    return _finish(_kl_bound(x, c, upper=False))


@overload
def d_eps_ucb(x: float, c: float, eps: float) -> float: ...
@overload
def d_eps_ucb(x: ArrayLike, c: ArrayLike, eps: ArrayLike) -> float | np.ndarray: ...
def d_eps_ucb(x: ArrayLike, c: ArrayLike, eps: ArrayLike) -> float | np.ndarray:
    r"""DP-KLUCB index: ``max{mu in [x, 1] : d_eps(x, mu) <= c}`` (:prf:ref:`alg-dp-klucb-imed`).

    .. math::

       \bar\mu(x, c) = \max\{ \mu \in [x, 1] : d_\varepsilon(x, \mu) \le c \},

    The DP-KLUCB index of :prf:ref:`alg-dp-klucb-imed`, with ``x`` the clipped
    private mean and ``c = log(t) / n``.  ``mu -> d_eps(x, mu)`` is increasing on ``[x, 1]`` with the
    finite end value ``d_eps(x, 1) = eps (1 - x)``, so the index is exactly 1 whenever
    ``c >= eps (1 - x)`` (frequent at small ``eps``).  Otherwise:

    * if ``c <= kl(x, m)`` with ``m = expit(logit(x) + eps)`` (the root lies in the low-privacy
      regime of ``(x, mu)``), the index equals ``kl_ucb(x, c)``;
    * else the root lies in the high-privacy regime, where
      ``d_eps(x, mu) = -eps x - log(1 - mu (1 - e^{-eps}))``, and inverting gives
      ``mu = expm1(-(c + eps x)) / expm1(-eps)``.

    Finally the result is moved by a few ulps towards ``x`` where needed, so that
    ``d_eps(x, mu) <= c`` holds as computed by :func:`d_eps`; ``mu`` is within about 1e-13 of the
    exact index (the tests check the defining property to 1e-9).

    Parameters
    ----------
    x : float or array_like
        Clipped private mean in [0, 1].
    c : float or array_like
        Confidence level in [0, +inf].
    eps : float or array_like
        Privacy budget in (0, +inf]; ``eps = inf`` gives :func:`kl_ucb`.

    Returns
    -------
    float or ndarray
        The DP-KLUCB index, in ``[x, 1]``; errors as in :func:`kl_ucb`, and a ``ValueError`` for
        ``eps`` outside (0, +inf].

    Examples
    --------
    >>> round(d_eps_ucb(0.5, 0.1, 10.0), 6) == round(kl_ucb(0.5, 0.1), 6)  # low privacy
    True
    >>> d_eps_ucb(0.5, 0.1, 0.2)  # c >= eps (1 - x): saturated
    1.0
    """
    x, c, eps = _bound_args(x, c, eps)
    return _finish(_d_eps_bound(x, c, eps, upper=True))


@overload
def d_eps_lcb(x: float, c: float, eps: float) -> float: ...
@overload
def d_eps_lcb(x: ArrayLike, c: ArrayLike, eps: ArrayLike) -> float | np.ndarray: ...
def d_eps_lcb(x: ArrayLike, c: ArrayLike, eps: ArrayLike) -> float | np.ndarray:
    r"""Lower ``d_eps`` confidence bound: ``min{mu in [0, x] : d_eps(x, mu) <= c}``.

    .. math::

       \underline\mu(x, c) = \min\{ \mu \in [0, x] : d_\varepsilon(x, \mu) \le c \},

    the mirror of :func:`d_eps_ucb` (the DP-KLUCB index of :prf:ref:`alg-dp-klucb-imed` reflected by
    ``mu -> 1 - mu``; ``d_eps(x, y) = d_eps(1 - x, 1 - y)``).  ``mu -> d_eps(x, mu)`` is decreasing on
    ``[0, x]`` with ``d_eps(x, 0) = eps x``, so the bound is exactly 0 whenever ``c >= eps x``.
    Otherwise it is ``kl_lcb(x, c)`` when ``c <= kl(x, expit(logit(x) - eps))`` and else the explicit
    high-privacy inverse ``mu = exp(-(c + eps (1 - x))) expm1(c - eps x) / expm1(-eps)``, moved by a
    few ulps towards ``x`` where needed so that ``d_eps(x, mu) <= c`` holds as computed.

    Parameters and errors as in :func:`d_eps_ucb`; returns the bound (float or ndarray), in
    ``[0, x]``.

    Examples
    --------
    >>> d_eps_lcb(0.5, 0.1, 0.2)  # c >= eps x: saturated at 0
    0.0
    >>> round(d_eps_lcb(0.5, 0.1, 10.0), 6) == round(kl_lcb(0.5, 0.1), 6)
    True
    """
    x, c, eps = _bound_args(x, c, eps)
    return _finish(_d_eps_bound(x, c, eps, upper=False))

"""Concentration of the private sum of Bernoulli rewards plus Laplace noise.

The object of study is the paper's private summation (:prf:ref:`lem-private-sum`, and :prf:ref:`prop-conc`)

.. math::

    \\tilde S_{n,m} = S_n + Z_m, \\qquad S_n = \\sum_{i=1}^n X_i \\sim \\mathrm{Bin}(n, \\mu),
    \\qquad Z_m = \\sum_{j=1}^m Y_j, \\quad Y_j \\sim \\mathrm{Lap}(1/\\epsilon) \\text{ i.i.d.}

This module holds

* the *exact* law of the noise :math:`Z_m` (density, survival function, log survival function,
  accurate in the deep tails) and the *exact* two-sided tails of :math:`\\tilde S_{n,m}` by
  convolution in log space;
* the paper's bounds: the tail bound of cumulative Laplace noise (:prf:ref:`lem-tail-cum-lap`), the constant
  :math:`A_\\epsilon` and the
  private Chernoff bound :math:`A_\\epsilon e^{-n d_\\epsilon(x/n, \\mu)}` of Lemma
  :prf:ref:`lem-private-sum`;
* the bounds it is compared with: the noise-free Chernoff bound for Bernoulli sums and
  the "separate" bound that splits the deviation between the Bernoulli sum and the noise;
* a Monte Carlo estimator with a Clopper-Pearson interval and the finite-n tail exponent
  :math:`-\\frac1n \\log P[\\tilde S_{n,m} \\ge n x]`.

Exact law of :math:`Z_m`
------------------------
:math:`Z_m = G_1 - G_2` with :math:`G_1, G_2` i.i.d. :math:`\\mathrm{Gamma}(m, \\text{rate } \\epsilon)`
(each Laplace variable is a difference of two exponentials).  Conditioning on :math:`G_2` and
expanding :math:`(z + y)^{m-1}` binomially gives, for :math:`m \\ge 1`,

.. math::

    f_m(z) = \\frac{\\epsilon e^{-\\epsilon |z|}}{(m-1)!\\, 2^{2m-1}}
             \\sum_{k=0}^{m-1} \\frac{(2m-2-k)!}{k!\\,(m-1-k)!} (2\\epsilon |z|)^k ,

and, integrating term by term (:math:`\\int_z^\\infty t^k e^{-\\epsilon t} dt = k!\\,
\\epsilon^{-k-1} e^{-\\epsilon z} \\sum_{i \\le k} (\\epsilon z)^i / i!`), for :math:`z \\ge 0`

.. math::

    P[Z_m \\ge z] = \\sum_{k=0}^{m-1} w_k\\, Q(k+1, \\epsilon z)
                 = e^{-\\epsilon z} \\sum_{i=0}^{m-1} W_i \\frac{(\\epsilon z)^i}{i!},
    \\qquad w_k = \\binom{2m-2-k}{m-1} 2^{-(2m-1-k)}, \\quad W_i = \\sum_{k \\ge i} w_k ,

where :math:`Q` is the regularised upper incomplete gamma function (:math:`\\sum_k w_k = 1/2`:
given :math:`Z_m > 0`, :math:`Z_m` is a mixture of :math:`\\mathrm{Gamma}(k+1, \\epsilon)`).
Every term is positive, so the sum is evaluated with ``logsumexp`` and keeps full *relative*
accuracy however small the tail; :math:`P[Z_m \\ge z] = 1 - P[Z_m \\ge -z]` for :math:`z < 0`.

Limits: the exact laws sum ``m * size(z)`` (Laplace sum) or ``(n + 1) * max(m, 1) * size(s)``
(private sum) terms; above 1e8 terms (a few seconds) they raise a ``ValueError`` naming the
product, and :func:`monte_carlo_tail` draws at most 2e8 variates (``runs * (m + 1)``).
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike
from scipy import special, stats

from ._validate import (MAX_HORIZON, as_choice, as_finite, as_flag, as_float_array, as_int, as_positive,
                        as_probability, as_real, broadcast, plain)
from .divergences import d_eps, kl

__all__ = [
    "laplace_sum_tail_bound",
    "laplace_sum_pdf",
    "laplace_sum_logpdf",
    "laplace_sum_sf",
    "laplace_sum_logsf",
    "private_sum_sf",
    "private_sum_logsf",
    "private_sum_cdf",
    "private_sum_logcdf",
    "A_eps",
    "private_chernoff_bound",
    "separate_bound",
    "chernoff_bound",
    "monte_carlo_tail",
    "tail_exponent",
]

_SIDES = ("upper", "lower")
_A_VARIANTS = ("proof", "tight", "as_written")
# Upper bound on the number of float64 entries of a temporary array in the convolution.
_CHUNK_ELEMENTS = 2_000_000


# --------------------------------------------------------------------------------------------
# validation helpers
# --------------------------------------------------------------------------------------------
def _check_n(n) -> int:
    return as_int("n", n, minimum=1)


def _check_m(m) -> int:
    return as_int("m", m, minimum=0)


def _check_eps(eps) -> np.ndarray:
    return as_positive("eps", eps, allow_inf=False)


def _check_mu(mu) -> np.ndarray:
    return as_probability("mu", mu, open_left=True, open_right=True)


_check_finite = as_finite

#: Largest work (terms summed) of one call of the exact laws: ``m * size(z)`` for the Laplace
#: sum, ``(n + 1) * max(m, 1) * size(s)`` for the private sum; a few seconds of numpy at most.
MAX_EXACT_WORK = 10**8

#: Largest number of random draws of one :func:`monte_carlo_tail` call, ``runs * (m + 1)``.
MAX_MONTE_CARLO_DRAWS = 2 * 10**8


def _check_work(what: str, work: int, limit: int = MAX_EXACT_WORK) -> None:
    if work > limit:
        raise ValueError(f"{what} = {work} is too large: the exact computation sums that many terms, "
                         f"the limit is {limit:.0e} (a few seconds); lower it or use the bounds")


def _check_side(side) -> str:
    return as_choice("side", side, _SIDES)


def _check_x_in_0_n(x, n: int) -> np.ndarray:
    arr = as_float_array("x", x)
    bad = np.isnan(arr) | (arr < 0) | (arr > n)
    if np.any(bad):
        offending = arr[bad].ravel()[0] if arr.ndim else float(arr)
        raise ValueError(f"x must lie in [0, n] = [0, {n}] (x/n in [0, 1]), got {plain(offending)!r}")
    return arr


def _scalar(name: str, arr: np.ndarray) -> float:
    if arr.ndim != 0:
        raise ValueError(f"{name} must be a scalar for the exact distribution functions")
    return float(arr)


def _by_chunks(flat: np.ndarray, width: int, rows) -> np.ndarray:
    """``rows(chunk)`` over column chunks ``flat[i:j, None]`` of at most ``_CHUNK_ELEMENTS / width`` rows."""
    out = np.empty_like(flat)
    step = max(1, _CHUNK_ELEMENTS // width)
    for start in range(0, flat.size, step):
        out[start : start + step] = rows(flat[start : start + step, None])
    return out


def _out(arr: np.ndarray) -> float | np.ndarray:
    """Return a Python float for 0-d results, the array otherwise."""
    return float(arr) if np.ndim(arr) == 0 else arr


# --------------------------------------------------------------------------------------------
# tail of a sum of Laplace noises (the book's lemma lem-tail-cum-lap)
# --------------------------------------------------------------------------------------------
def laplace_sum_tail_bound(z: ArrayLike, m: int, eps: ArrayLike, *, log: bool = False) -> float | np.ndarray:
    """The paper's tail bound for a sum of ``m`` i.i.d. Laplace(1/eps) variables.

    :prf:ref:`lem-tail-cum-lap`: for :math:`z > 0`,

    .. math::

        P[Z_m \\ge z] \\le \\exp(-f(z)), \\qquad f(z) = \\epsilon z - 1 - m \\log(1 + m \\epsilon z).

    Returned is :math:`\\min\\{1, e^{-f(z)}\\}`.  The lemma is stated for :math:`z > 0`; for
    :math:`z \\le 0` the trivial (and only valid) bound 1 is returned (:math:`P[Z_m \\ge 0] = 1/2`
    for :math:`m \\ge 1`, and :math:`e^{-f(0^+)} = e > 1` anyway).

    Parameters
    ----------
    z : array_like
        Threshold(s).
    m : int
        Number of Laplace variables, ``m >= 0`` (``m = 0`` means no noise; the bound
        :math:`e^{1 - \\epsilon z}` still holds trivially).
    eps : float or array_like
        Privacy parameter, ``eps > 0`` (the Laplace scale is ``1/eps``).
    log : bool, default False
        Return the natural logarithm of the bound (useful when it underflows).

    Returns
    -------
    float or ndarray
        ``min(1, exp(-f(z)))`` (or its log), broadcast over ``z`` and ``eps``.
    """
    log = as_flag("log", log)
    z = _check_finite("z", z)
    m = _check_m(m)
    eps = _check_eps(eps)
    z, eps = broadcast(z=z, eps=eps)
    logb = _log_laplace_sum_tail_bound(z, m, eps)
    return _out(logb if log else np.exp(logb))


def _log_laplace_sum_tail_bound(z, m: int, eps):
    """log min{1, exp(-f(z))}, f(z) = eps z - 1 - m log(1 + m eps z), on validated input (0 for z <= 0)."""
    zp = np.maximum(z, 0.0)
    neg_f = -(eps * zp - 1.0 - m * np.log1p(m * eps * zp))
    return np.where(z > 0, np.minimum(neg_f, 0.0), 0.0)


# --------------------------------------------------------------------------------------------
# exact law of Z_m
# --------------------------------------------------------------------------------------------
def _log_tail_weights(m: int) -> np.ndarray:
    """log W_i, i = 0..m-1, with W_i = sum_{k >= i} w_k, w_k = C(2m-2-k, m-1) 2^{-(2m-1-k)}."""
    k = np.arange(m, dtype=float)
    logw = (
        special.gammaln(2 * m - 1 - k)
        - special.gammaln(m)
        - special.gammaln(m - k)
        - (2 * m - 1 - k) * math.log(2.0)
    )
    return np.logaddexp.accumulate(logw[::-1])[::-1]


def _laplace_sum_logsf_pos(t: np.ndarray, m: int, logW: np.ndarray) -> np.ndarray:
    """log P[Z_m >= z] for t = eps z >= 0 (any shape), m >= 1.

    Equals -t + logsumexp_i(log W_i + i log t - log i!).
    """
    i = np.arange(m, dtype=float)
    logfact = special.gammaln(i + 1.0)
    flat = t.ravel()

    def rows(tt):
        with np.errstate(invalid="ignore", over="ignore"):
            terms = logW[None, :] + special.xlogy(i[None, :], tt) - logfact[None, :]
            return special.logsumexp(terms, axis=1) - tt[:, 0]

    out = _by_chunks(flat, m, rows)
    # eps * z may overflow to +inf: the tail beyond is exactly 0
    out[np.isinf(flat)] = -np.inf
    return out.reshape(t.shape)


def _laplace_sum_logsf(z: np.ndarray, m: int, eps: float, logW: np.ndarray | None = None) -> np.ndarray:
    """Vectorised log P[Z_m >= z] on validated input (m >= 0)."""
    if m == 0:
        # Z_0 = 0: P[0 >= z] = 1 if z <= 0 else 0.
        with np.errstate(divide="ignore"):
            return np.where(z <= 0, 0.0, -np.inf)
    if logW is None:
        logW = _log_tail_weights(m)
    with np.errstate(over="ignore"):
        t = np.abs(z) * eps
    lpos = _laplace_sum_logsf_pos(t, m, logW)
    # symmetric continuous law: P[Z >= z] = 1 - P[Z >= -z] = 1 - P[Z >= |z|] for z < 0.
    with np.errstate(divide="ignore"):
        lneg = np.log1p(-np.exp(lpos))
    return np.where(z >= 0, lpos, lneg)


def laplace_sum_logsf(z: ArrayLike, m: int, eps: float) -> float | np.ndarray:
    """Exact log survival function :math:`\\log P[Z_m \\ge z]` of a sum of Laplace noises.

    :math:`Z_m = \\sum_{j=1}^m Y_j`, :math:`Y_j \\sim \\mathrm{Lap}(1/\\epsilon)` i.i.d. (the noise of
    :prf:ref:`lem-tail-cum-lap`).  For :math:`z \\ge 0` and :math:`m \\ge 1` (see the module docstring
    for the derivation from :math:`Z_m = G_1 - G_2`, :math:`G_i \\sim \\mathrm{Gamma}(m, \\epsilon)`)

    .. math::

        \\log P[Z_m \\ge z] = -\\epsilon z + \\log \\sum_{i=0}^{m-1} W_i \\frac{(\\epsilon z)^i}{i!},
        \\qquad W_i = \\sum_{k=i}^{m-1} \\binom{2m-2-k}{m-1} 2^{-(2m-1-k)},

    a sum of positive terms evaluated by ``logsumexp`` (full relative accuracy in the deep tail,
    no overflow for ``m`` in the hundreds); :math:`P[Z_m \\ge z] = 1 - P[Z_m \\ge -z]` for
    :math:`z < 0`.  For ``m = 0``, :math:`Z_0 = 0` and the result is 0 for :math:`z \\le 0`,
    :math:`-\\infty` otherwise.

    Parameters
    ----------
    z : array_like
        Threshold(s), finite.
    m : int
        Number of Laplace variables, ``m >= 0``.
    eps : float
        Privacy parameter, ``eps > 0``.

    Returns
    -------
    float or ndarray
        :math:`\\log P[Z_m \\ge z]`, same shape as ``z``.
    """
    z = _check_finite("z", z)
    m = _check_m(m)
    eps = _scalar("eps", _check_eps(eps))
    _check_work("m * size(z)", m * z.size)
    return _out(_laplace_sum_logsf(z, m, eps))


def laplace_sum_sf(z: ArrayLike, m: int, eps: float) -> float | np.ndarray:
    """Exact survival function :math:`P[Z_m \\ge z]` of a sum of ``m`` Laplace(1/eps) noises.

    ``exp(laplace_sum_logsf(z, m, eps))``, same parameters; see :func:`laplace_sum_logsf` for
    the closed form (the exact counterpart of the bound of :prf:ref:`lem-tail-cum-lap`).
    """
    return _out(np.exp(laplace_sum_logsf(z, m, eps)))


def laplace_sum_logpdf(z: ArrayLike, m: int, eps: float) -> float | np.ndarray:
    """Exact log density of :math:`Z_m`, the sum of ``m >= 1`` i.i.d. Laplace(1/eps) variables.

    .. math::

        f_m(z) = \\frac{\\epsilon e^{-\\epsilon |z|}}{(m-1)!\\, 2^{2m-1}}
                 \\sum_{k=0}^{m-1} \\frac{(2m-2-k)!}{k!\\,(m-1-k)!} (2\\epsilon |z|)^k

    (the density :math:`f_m` in the proof of :prf:ref:`lem-private-sum`), evaluated in log
    space.  For ``m = 1`` it is the Laplace density :math:`\\frac{\\epsilon}{2} e^{-\\epsilon|z|}`.

    Parameters
    ----------
    z : array_like
        Point(s), finite.
    m : int
        Number of Laplace variables, ``m >= 1`` (``Z_0 = 0`` is a point mass without a density).
    eps : float
        Privacy parameter, ``eps > 0``.

    Returns
    -------
    float or ndarray
        :math:`\\log f_m(z)`.
    """
    z = _check_finite("z", z)
    m = as_int("m", m, minimum=1)
    eps = _scalar("eps", _check_eps(eps))
    _check_work("m * size(z)", m * z.size)
    k = np.arange(m, dtype=float)
    logc = (
        special.gammaln(2 * m - 1 - k)
        - special.gammaln(k + 1)
        - special.gammaln(m - k)
        - special.gammaln(m)
        - (2 * m - 1) * math.log(2.0)
    )
    a = 2.0 * eps * np.abs(z)

    def rows(aa):
        return special.logsumexp(logc[None, :] + special.xlogy(k[None, :], aa), axis=1)

    return _out(_by_chunks(a.ravel(), m, rows).reshape(a.shape) + math.log(eps) - eps * np.abs(z))


def laplace_sum_pdf(z: ArrayLike, m: int, eps: float) -> float | np.ndarray:
    """Exact density :math:`f_m(z)` of the sum of ``m >= 1`` i.i.d. Laplace(1/eps) variables.

    ``exp(laplace_sum_logpdf(z, m, eps))``, same parameters; see :func:`laplace_sum_logpdf` for
    the formula.
    """
    return _out(np.exp(laplace_sum_logpdf(z, m, eps)))


# --------------------------------------------------------------------------------------------
# exact tails of the private sum S~_{n,m} = Bin(n, mu) + Z_m
# --------------------------------------------------------------------------------------------
def _private_sum_log_tail(s, n, m, mu, eps, *, upper: bool):
    s = _check_finite("s", s)
    n = _check_n(n)
    m = _check_m(m)
    mu = _scalar("mu", _check_mu(mu))
    eps = _scalar("eps", _check_eps(eps))
    _check_work("(n + 1) * max(m, 1) * size(s)", (n + 1) * max(m, 1) * s.size)
    k = np.arange(n + 1, dtype=float)
    logpmf = stats.binom.logpmf(k, n, mu)
    logW = _log_tail_weights(m) if m > 0 else None

    def rows(ss):
        # upper: P[S + Z >= s] = sum_k pmf(k) P[Z >= s - k];
        # lower: P[S + Z <= s] = sum_k pmf(k) P[Z <= s - k] = sum_k pmf(k) P[Z >= k - s]
        # (Z symmetric; for m = 0 both read 1{k >= s} and 1{k <= s}: the integer ties are kept).
        t = ss - k[None, :] if upper else k[None, :] - ss
        terms = logpmf[None, :] + _laplace_sum_logsf(t, m, eps, logW)
        with np.errstate(divide="ignore"):
            return special.logsumexp(terms, axis=1)

    out = np.minimum(_by_chunks(s.ravel(), (n + 1) * max(m, 1), rows).reshape(s.shape), 0.0)
    return _out(out)


def private_sum_logsf(s: ArrayLike, n: int, m: int, mu: float, eps: float) -> float | np.ndarray:
    """Exact :math:`\\log P[\\tilde S_{n,m} \\ge s]` by convolution in log space.

    :math:`\\tilde S_{n,m} = S_n + Z_m` (:prf:ref:`lem-private-sum`), with
    :math:`S_n \\sim \\mathrm{Bin}(n, \\mu)` independent of the Laplace sum :math:`Z_m`:

    .. math::

        P[\\tilde S_{n,m} \\ge s] = \\sum_{k=0}^{n} \\binom{n}{k}\\mu^k(1-\\mu)^{n-k}\\, P[Z_m \\ge s - k],

    every term in log space (``binom.logpmf`` + :func:`laplace_sum_logsf`), summed by
    ``logsumexp``: relative accuracy is kept in deep tails (1e-300 and far below).  For ``m = 0``
    this is the binomial :math:`P[S_n \\ge s]` (ties at integer ``s`` included).

    Parameters
    ----------
    s : array_like
        Threshold(s), finite.
    n, m : int
        Numbers of Bernoulli variables (``n >= 1``) and of Laplace variables (``m >= 0``).
    mu, eps : float
        Bernoulli mean in (0, 1) and privacy parameter ``eps > 0``.

    Returns
    -------
    float or ndarray
        :math:`\\log P[\\tilde S_{n,m} \\ge s]`, same shape as ``s``.

    Notes
    -----
    Cost :math:`O(|s|\\, n\\, m)`: about 15-20 ms per threshold for ``n = 1e4, m = 20``.
    """
    return _private_sum_log_tail(s, n, m, mu, eps, upper=True)


def private_sum_sf(s: ArrayLike, n: int, m: int, mu: float, eps: float) -> float | np.ndarray:
    """Exact :math:`P[\\tilde S_{n,m} \\ge s]` (Binomial(n, mu) plus ``m`` Laplace(1/eps) noises).

    ``exp(private_sum_logsf(s, n, m, mu, eps))``, same parameters; see :func:`private_sum_logsf`
    for the convolution formula (the exact left-hand side of :prf:ref:`lem-private-sum`).
    """
    return _out(np.exp(private_sum_logsf(s, n, m, mu, eps)))


def private_sum_logcdf(s: ArrayLike, n: int, m: int, mu: float, eps: float) -> float | np.ndarray:
    """Exact :math:`\\log P[\\tilde S_{n,m} \\le s]` by convolution in log space.

    .. math::

        P[\\tilde S_{n,m} \\le s] = \\sum_{k=0}^{n} \\binom{n}{k}\\mu^k(1-\\mu)^{n-k}\\, P[Z_m \\ge k - s]

    (the noise is symmetric); the lower-tail counterpart of :func:`private_sum_logsf`, i.e. the
    left-hand side of the ``x <= n mu`` half of :prf:ref:`lem-private-sum`.  For ``m = 0``
    this is the binomial cdf :math:`P[S_n \\le s]`.

    Parameters
    ----------
    s, n, m, mu, eps
        As in :func:`private_sum_logsf`.

    Returns
    -------
    float or ndarray
        :math:`\\log P[\\tilde S_{n,m} \\le s]`.
    """
    return _private_sum_log_tail(s, n, m, mu, eps, upper=False)


def private_sum_cdf(s: ArrayLike, n: int, m: int, mu: float, eps: float) -> float | np.ndarray:
    """Exact :math:`P[\\tilde S_{n,m} \\le s]`: ``exp(private_sum_logcdf(s, n, m, mu, eps))``.

    Same parameters as :func:`private_sum_logcdf`, the lower-tail counterpart of
    :func:`private_sum_sf`.
    """
    return _out(np.exp(private_sum_logcdf(s, n, m, mu, eps)))


# --------------------------------------------------------------------------------------------
# concentration of the private sum (the book's lemma lem-private-sum)
# --------------------------------------------------------------------------------------------
def _log_A_eps(m, n, x, mu, eps, side, variant):
    """log A_eps on validated, broadcast input; the upper side with x >= n mu (lower side mirrored)."""
    as_choice("variant", variant, _A_VARIANTS)
    if side == "lower":  # X -> 1 - X, mu -> 1 - mu, x -> n - x (noise symmetric)
        x, mu = n - x, 1.0 - mu
    delta = np.maximum(x - n * mu, 0.0)
    log_poly = 1.0 + m * np.log1p(m * eps * delta)  # log[ e (1 + m eps (x - n mu))^m ]
    log_inv_mu = -np.log(mu)  # kl(1, mu)
    if variant == "proof":
        # (P2): n e (1 + m eps (x - n mu))^m kl(1, mu); (P3): e (1 + ...)^m; (P1): 1.
        log_first = np.log(n * log_inv_mu)
    elif variant == "tight":
        # (P2) before its last step: n e (1 + ...)^m kl(x/n, mu).
        with np.errstate(divide="ignore"):
            log_first = np.log(n * np.maximum(kl(np.clip(x / n, 0.0, 1.0), mu), 0.0))
    else:  # "as_written": the lemma's statement, (x - n mu) max_y{e (1 + m eps (x - y n))^m log(1/mu)}
        with np.errstate(divide="ignore"):
            log_first = np.log(delta * log_inv_mu)
    return np.logaddexp(log_poly + np.logaddexp(log_first, 0.0), 0.0)


def _prepare_bound_args(x: ArrayLike, n: int, mu: ArrayLike, *eps_m: ArrayLike
                        ) -> tuple[int, int, list[np.ndarray]]:
    """``n``, ``m`` (0 when no noise is given) and ``x``, ``mu`` (and ``eps``) broadcast together."""
    m = _check_m(eps_m[1]) if eps_m else 0
    n = _check_n(n)
    arrays = {"x": _check_x_in_0_n(x, n), "mu": _check_mu(mu)}
    if eps_m:
        arrays["eps"] = _check_eps(eps_m[0])
    return n, m, broadcast(**arrays)


def A_eps(m: int, n: int, x: ArrayLike, mu: ArrayLike, eps: ArrayLike, side: str = "upper", *,
          variant: str = "proof", log: bool = False) -> float | np.ndarray:
    """The constant :math:`A_\\epsilon(m, n, x, \\mu)` of :prf:ref:`lem-private-sum`.

    :prf:ref:`lem-private-sum` states, for :math:`x \\ge n\\mu`,
    :math:`P[\\tilde S_{n,m} \\ge x] \\le A_\\epsilon(m, n, x, \\mu) e^{-n d_\\epsilon(x/n, \\mu)}` with

    .. math::

        A_\\epsilon = (x - n\\mu) \\max_{y \\in [\\mu, x/n]}
                      \\{ e (1 + m\\epsilon(x - yn))^m \\log\\tfrac{1}{\\mu} \\}
                      + e (1 + m\\epsilon(x - n\\mu))^m + 1 .   \\quad (\\text{as written})

    **Correction.**  The lemma's *proof* (the "fix with a slight improvement", eq. (P2)) bounds
    the convolution term by :math:`n\\, e (1 + m\\epsilon(x - n\\mu))^m \\mathrm{kl}(x/n, \\mu)
    \\le n\\, e (1 + m\\epsilon(x - n\\mu))^m \\log\\frac1\\mu`, i.e. with prefactor :math:`n`, not
    :math:`(x - n\\mu)`.  The statement mixes the prefactor :math:`(x - n\\mu)` of the older
    argument (kept in a commented-out block of the source, where the maximum was over
    :math:`\\mathrm{kl}'(y, \\mu)`, which is unbounded as :math:`y \\to 1`) with the
    :math:`\\log(1/\\mu)` of the new one.  The statement's version is *not* implied by the
    proof: :math:`n\\,\\mathrm{kl}(x/n, \\mu) \\le (x - n\\mu)\\log(1/\\mu)` fails near
    :math:`x = n` (e.g. at :math:`x = n`: :math:`n\\log\\frac1\\mu > n(1-\\mu)\\log\\frac1\\mu`);
    the chord of the convex :math:`\\mathrm{kl}(\\cdot, \\mu)` only gives
    :math:`(x - n\\mu)\\log(1/\\mu)/(1-\\mu)`.  Since :math:`\\max_y` is attained at
    :math:`y = \\mu`, the default ``variant="proof"`` returns the constant the proof establishes

    .. math::

        A_\\epsilon = e (1 + m\\epsilon(x - n\\mu))^m \\left(n \\log\\tfrac1\\mu + 1\\right) + 1 ,

    ``variant="tight"`` keeps :math:`n\\,\\mathrm{kl}(x/n, \\mu)` in place of
    :math:`n\\log\\frac1\\mu` (the proof before its last step; also rigorous) and
    ``variant="as_written"`` is the statement verbatim (not proven; the package's tests found no
    numerical violation of it on their grids, the proof being loose elsewhere).

    The lower side (``x <= n mu``, bounding :math:`P[\\tilde S_{n,m} \\le x]`) follows by symmetry
    :math:`X \\to 1 - X`, :math:`\\mu \\to 1 - \\mu`, :math:`x \\to n - x`:
    :math:`\\log\\frac1\\mu \\to \\log\\frac1{1-\\mu}` and :math:`x - n\\mu \\to n\\mu - x`.  (The
    proof's final display for this side writes :math:`(x - n\\mu)` and :math:`y \\in [\\mu, x/n]`,
    a sign typo; the lemma's statement has it right.)

    Parameters
    ----------
    m : int
        Number of Laplace variables, ``m >= 0``.
    n : int
        Number of Bernoulli variables, ``n >= 1``.
    x : array_like
        Threshold on the sum, in ``[0, n]``.  Outside the lemma's side (``x < n mu`` for
        ``side="upper"``) the deviation is clipped at 0.
    mu : float or array_like
        Bernoulli mean in (0, 1).
    eps : float or array_like
        Privacy parameter, ``eps > 0``.
    side : {"upper", "lower"}
        Which tail.
    variant : {"proof", "tight", "as_written"}
        See above; ``"proof"`` by default.
    log : bool, default False
        Return :math:`\\log A_\\epsilon` (``A_eps`` overflows for ``m`` in the hundreds).

    Returns
    -------
    float or ndarray
        :math:`A_\\epsilon` (or its log).
    """
    log = as_flag("log", log)
    side = _check_side(side)
    n, m, (x, mu, eps) = _prepare_bound_args(x, n, mu, eps, m)
    logA = _log_A_eps(m, n, x, mu, eps, side, variant)
    if log:
        return _out(logA)
    with np.errstate(over="ignore"):
        return _out(np.exp(logA))


def _bound_on_side(logb, x, n, mu, side, log):
    """The bound min{1, exp(logb)} (or its log) on the lemma's side of the mean, 1 on the other."""
    inside = x >= n * mu if side == "upper" else x <= n * mu
    logb = np.where(inside, np.minimum(logb, 0.0), 0.0)
    return _out(logb if log else np.exp(logb))


def private_chernoff_bound(x: ArrayLike, n: int, m: int, mu: ArrayLike, eps: ArrayLike, side: str = "upper",
                           *, variant: str = "proof", log: bool = False) -> float | np.ndarray:
    """The private Chernoff bound of :prf:ref:`lem-private-sum`.

    :prf:ref:`lem-private-sum` (and, asymptotically, :prf:ref:`prop-conc`):

    .. math::

        P[\\tilde S_{n,m} \\ge x] \\le A_\\epsilon(m, n, x, \\mu)\\, e^{-n\\, d_\\epsilon(x/n, \\mu)},
        \\quad x \\ge n\\mu; \\qquad
        P[\\tilde S_{n,m} \\le x] \\le A_\\epsilon(m, n, x, \\mu)\\, e^{-n\\, d_\\epsilon(x/n, \\mu)},
        \\quad x \\le n\\mu,

    with :math:`d_\\epsilon(x, y) = \\inf_{z \\in [x\\wedge y, x \\vee y]} \\epsilon|z - x| +
    \\mathrm{kl}(z, y)` (eq. (d_eps)) and :math:`A_\\epsilon` from :func:`A_eps` (corrected
    prefactor by default, see there).  Returned is :math:`\\min\\{1, \\cdot\\}`; on the wrong side of
    the mean (``x < n mu`` for ``side="upper"``) the lemma does not apply and 1 is returned.

    Parameters
    ----------
    x : array_like
        Threshold on the sum, in ``[0, n]``.
    n : int
        ``n >= 1``.
    m : int
        ``m >= 0``.
    mu : float or array_like
        In (0, 1).
    eps : float or array_like
        ``eps > 0``.
    side : {"upper", "lower"}
        ``"upper"`` bounds :math:`P[\\tilde S \\ge x]`, ``"lower"`` bounds :math:`P[\\tilde S \\le x]`.
    variant : {"proof", "tight", "as_written"}
        Which :math:`A_\\epsilon` (see :func:`A_eps`).
    log : bool, default False
        Return the natural log of the bound.

    Returns
    -------
    float or ndarray
        The bound (or its log).
    """
    log = as_flag("log", log)
    side = _check_side(side)
    n, m, (x, mu, eps) = _prepare_bound_args(x, n, mu, eps, m)
    logA = _log_A_eps(m, n, x, mu, eps, side, variant)
    logb = logA - n * np.asarray(d_eps(x / n, mu, eps), dtype=float)
    return _bound_on_side(logb, x, n, mu, side, log)


def chernoff_bound(x: ArrayLike, n: int, mu: ArrayLike, side: str = "upper", *,
                   log: bool = False) -> float | np.ndarray:
    """Noise-free Chernoff bound for Bernoulli sums: :math:`e^{-n\\,\\mathrm{kl}(x/n, \\mu)}`.

    .. math::

        P[S_n \\ge x] \\le e^{-n\\,\\mathrm{kl}(x/n, \\mu)} \\ (x \\ge n\\mu), \\qquad
        P[S_n \\le x] \\le e^{-n\\,\\mathrm{kl}(x/n, \\mu)} \\ (x \\le n\\mu),

    for :math:`S_n \\sim \\mathrm{Bin}(n, \\mu)`; 1 on the wrong side of the mean.  It is the
    :math:`m = 0` reference the private bounds are compared with (it does *not* bound the
    private sum when :math:`m \\ge 1`).  Parameters ``x, n, mu, side, log`` as in
    :func:`private_chernoff_bound`; returns the bound (or its log).
    """
    log = as_flag("log", log)
    side = _check_side(side)
    n, _, (x, mu) = _prepare_bound_args(x, n, mu)
    logb = -n * np.asarray(kl(x / n, mu), dtype=float)
    return _bound_on_side(logb, x, n, mu, side, log)


def separate_bound(x: ArrayLike, n: int, m: int, mu: ArrayLike, eps: ArrayLike, side: str = "upper", *,
                   log: bool = False, grid: int = 129) -> float | np.ndarray:
    """The "separate" bound: deviation split between the Bernoulli sum and the noise.

    The analysis that :prf:ref:`prop-conc` improves on (its discussion (c)) treats the two
    sums separately: for any split :math:`u \\in [0, x - n\\mu]`,

    .. math::

        P[S_n + Z_m \\ge x] \\le P[S_n \\ge x - u] + P[Z_m \\ge u]
        \\le e^{-n\\,\\mathrm{kl}((x - u)/n, \\mu)} + \\min\\{1, e^{-f(u)}\\},

    with :math:`f` of :prf:ref:`lem-tail-cum-lap`.  Returned is the minimum over :math:`u` (a
    vectorised grid search in log space followed by one refinement grid around the best point;
    every grid point is a valid bound, so the result is a valid bound), capped at 1.  (The
    paper's text writes the split as :math:`\\Pr(X + Y \\ge a) \\le \\Pr(X \\ge a) + \\Pr(Y \\ge 0)`,
    which is a typo: the second term is then at least 1/2; the intended split is the one above.)
    The lower side follows by the symmetry :math:`x \\to n - x`, :math:`\\mu \\to 1 - \\mu`.  For
    ``m = 0`` the noise vanishes and the Chernoff bound is returned (the limit :math:`u \\to 0^+`
    with the exact :math:`P[Z_0 \\ge u] = 0`).

    Parameters
    ----------
    x, n, m, mu, eps, side, log
        As in :func:`private_chernoff_bound`.
    grid : int, default 129
        Grid size of each of the two search stages (``>= 3``).

    Returns
    -------
    float or ndarray
        The smallest bound over the grids of splits ``u`` (or its log).
    """
    log = as_flag("log", log)
    side = _check_side(side)
    grid = as_int("grid", grid, minimum=3, maximum=100_000)
    n, m, (x, mu, eps) = _prepare_bound_args(x, n, mu, eps, m)
    if m == 0:
        return chernoff_bound(x, n, mu, side=side, log=log)
    if side == "lower":
        xu, muu = n - x, 1.0 - mu
    else:
        xu, muu = x, mu
    delta = np.maximum(xu - n * muu, 0.0)

    def log_bound_at(frac):
        # frac in [0, 1] (trailing grid axis): u = frac * delta
        u = delta[..., None] * frac
        y = np.clip((xu[..., None] - u) / n, 0.0, 1.0)
        log_first = -n * np.asarray(kl(y, muu[..., None]), dtype=float)
        return np.logaddexp(log_first, _log_laplace_sum_tail_bound(u, m, eps[..., None]))

    frac = np.linspace(0.0, 1.0, grid)
    vals = log_bound_at(frac)
    best = np.argmin(vals, axis=-1)
    lo = frac[np.maximum(best - 1, 0)]
    hi = frac[np.minimum(best + 1, grid - 1)]
    frac2 = lo[..., None] + (hi - lo)[..., None] * np.linspace(0.0, 1.0, grid)
    vals2 = log_bound_at(frac2)
    logb = np.minimum(vals.min(axis=-1), vals2.min(axis=-1))
    return _bound_on_side(logb, x, n, mu, side, log)


# --------------------------------------------------------------------------------------------
# Monte Carlo and the tail exponent
# --------------------------------------------------------------------------------------------
def monte_carlo_tail(s: ArrayLike, n: int, m: int, mu: float, eps: float, runs: int,
                     seed: int | np.random.SeedSequence, side: str = "upper", *, confidence: float = 0.99
                     ) -> tuple[float | np.ndarray, float | np.ndarray, float | np.ndarray]:
    """Monte Carlo estimate of a tail of :math:`\\tilde S_{n,m}` with a Clopper-Pearson interval.

    Draws ``runs`` i.i.d. copies of :math:`\\tilde S_{n,m} = S_n + \\sum_{j=1}^m Y_j` (binomial
    :math:`S_n`, ``m`` explicit Laplace(1/eps) draws summed) and estimates
    :math:`p = P[\\tilde S_{n,m} \\ge s]` (``side="upper"``) or :math:`P[\\tilde S_{n,m} \\le s]`
    (``side="lower"``) by the empirical frequency :math:`\\hat p = K/N`, with the exact
    (Clopper-Pearson) two-sided interval at level ``confidence``:
    :math:`[\\mathrm{Beta}^{-1}(\\alpha/2; K, N-K+1), \\mathrm{Beta}^{-1}(1-\\alpha/2; K+1, N-K)]`,
    :math:`\\alpha = 1 - \\text{confidence}`.  All thresholds share the same draws.

    Parameters
    ----------
    s : array_like
        Threshold(s), finite.
    n, m : int
        ``n >= 1`` Bernoulli and ``m >= 0`` Laplace variables.
    mu : float
        In (0, 1).
    eps : float
        ``eps > 0``.
    runs : int
        Number of draws, ``>= 1``.
    seed : int or numpy.random.SeedSequence
        Seed of the generator (``numpy.random.default_rng(SeedSequence(seed))``).
    side : {"upper", "lower"}
        Which tail.
    confidence : float, default 0.99
        Level of the interval, in (0, 1).

    Returns
    -------
    estimate, lower, upper : float or ndarray
        :math:`\\hat p` and the interval, each of the shape of ``s``.
    """
    s = _check_finite("s", s)
    n = as_int("n", n, minimum=1, maximum=MAX_HORIZON)  # a Binomial(n, mu) draw is int64
    m = _check_m(m)
    mu = _scalar("mu", _check_mu(mu))
    eps = _scalar("eps", _check_eps(eps))
    runs = as_int("runs", runs, minimum=1)
    if runs * (m + 1) > MAX_MONTE_CARLO_DRAWS:
        raise ValueError(f"runs * (m + 1) = {runs * (m + 1)} random draws is more than the limit "
                         f"{MAX_MONTE_CARLO_DRAWS:.0e}; lower runs or m")
    side = _check_side(side)
    confidence = as_real("confidence", confidence, low=0.0, high=1.0, low_open=True, high_open=True)
    if isinstance(seed, np.random.SeedSequence):
        ss = seed
    else:
        ss = np.random.SeedSequence(as_int("seed", seed, minimum=0))
    rng = np.random.default_rng(ss)
    flat = s.ravel()
    counts = np.zeros(flat.size, dtype=np.int64)
    chunk = max(1, _CHUNK_ELEMENTS // max(m, 1, flat.size))
    done = 0
    while done < runs:
        size = min(chunk, runs - done)
        total = rng.binomial(n, mu, size=size).astype(float)
        if m > 0:
            total = total + rng.laplace(0.0, 1.0 / eps, size=(size, m)).sum(axis=1)
        total = np.sort(total)
        if side == "upper":  # number of draws >= s
            counts += size - np.searchsorted(total, flat, side="left")
        else:  # number of draws <= s
            counts += np.searchsorted(total, flat, side="right")
        done += size
    alpha = 1.0 - confidence
    est = counts / runs
    with np.errstate(invalid="ignore"):
        lower = np.where(counts > 0, stats.beta.ppf(alpha / 2, counts, runs - counts + 1), 0.0)
        upper = np.where(counts < runs, stats.beta.ppf(1 - alpha / 2, counts + 1, runs - counts), 1.0)
    shape = s.shape
    return _out(est.reshape(shape)), _out(lower.reshape(shape)), _out(upper.reshape(shape))


def tail_exponent(x: ArrayLike, n: int, m: int, mu: float, eps: float, side: str = "upper"
                  ) -> float | np.ndarray:
    """Finite-n tail exponent :math:`-\\frac1n \\log P[\\tilde S_{n,m} \\ge n x]` from the exact tail.

    :prf:ref:`prop-conc` says that, when :math:`m / n \\to 0`, this exponent is asymptotically
    at least :math:`d_\\epsilon(x, \\mu)` (for :math:`x \\ge \\mu`), the private counterpart of the
    Chernoff exponent :math:`\\mathrm{kl}(x, \\mu)`.  ``side="lower"`` returns
    :math:`-\\frac1n \\log P[\\tilde S_{n,m} \\le n x]`.  Computed from :func:`private_sum_logsf` /
    :func:`private_sum_logcdf`, so it stays finite in the deep tails.

    Parameters
    ----------
    x : array_like
        Normalised threshold (mean scale), finite.
    n : int
        ``n >= 1``.
    m : int
        ``m >= 0``.
    mu : float
        In (0, 1).
    eps : float
        ``eps > 0``.
    side : {"upper", "lower"}
        Which tail.

    Returns
    -------
    float or ndarray
        The exponent (``+inf`` where the tail is exactly 0, e.g. ``m = 0`` and ``x > 1``).
    """
    x = _check_finite("x", x)
    n = _check_n(n)
    side = _check_side(side)
    fn = private_sum_logsf if side == "upper" else private_sum_logcdf
    return _out(-np.asarray(fn(n * x, n, m, mu, eps)) / n)

"""The numbers of chapter 3 (*Concentration*): the tables and figures comparing exact tails with bounds.

Built on :mod:`dpb.concentration` (the exact law of the private sum and the bounds on its tail);
:mod:`dpb.plotting.concentration` draws these numbers and the chapter prints them.  Everything is
in natural-log scale, so that tails far below the smallest double stay finite.
"""

from __future__ import annotations

import math
from typing import overload

import numpy as np
from numpy.typing import ArrayLike
from scipy import stats

from .._validate import as_choice, as_int, as_positive, as_probability, check_elements, plain
from ..concentration import (
    chernoff_bound,
    laplace_sum_logsf,
    monte_carlo_tail,
    private_chernoff_bound,
    private_sum_logsf,
    separate_bound,
    tail_exponent,
)
from ..divergences import d_eps, kl, z_star

__all__ = ["M_RULES", "m_of_n", "tail_comparison", "tail_contributions", "exponent_curves",
           "rates_against_eps"]

#: Rules giving the number of Laplace noises ``m`` as a function of the number of samples ``n``.
M_RULES = ("log n", "1", "sqrt n", "n/20")


def m_of_n(n: int, rule: str = "log n") -> int:
    """Number of Laplace noises ``m`` summed with ``n`` Bernoulli samples under a growth rule.

    ``"log n"``: :math:`m = \\lceil \\log n \\rceil` (what a geometric batching of the samples
    produces: one noise per batch); ``"1"``: a single noise; ``"sqrt n"``:
    :math:`m = \\lceil\\sqrt n\\rceil`; ``"n/20"``: :math:`m = \\lfloor n/20 \\rfloor` (not
    :math:`o(n)`: :prf:ref:`prop-conc` does not cover it).

    Parameters
    ----------
    n : int
        Number of samples, ``n >= 1``.
    rule : {"log n", "1", "sqrt n", "n/20"}
        Growth rule.

    Returns
    -------
    int
        ``m >= 0``.
    """
    n = as_int("n", n, minimum=1)
    if rule == "log n":
        return math.ceil(math.log(n))
    if rule == "1":
        return 1
    if rule == "sqrt n":
        return math.ceil(math.sqrt(n))
    if rule == "n/20":
        return n // 20
    raise ValueError(f"rule must be one of {M_RULES}, got {rule!r}")


@overload
def _upper_tail(x: ArrayLike, mu: float) -> tuple[np.ndarray, float]: ...
@overload
def _upper_tail(x: ArrayLike, mu: float, eps: float) -> tuple[np.ndarray, float, float]: ...
def _upper_tail(x, mu, *eps):
    """``mu`` in (0, 1), the thresholds ``x`` in [mu, 1] (upper tail) and ``eps > 0`` when given."""
    mu = float(as_probability("mu", mu, open_left=True, open_right=True))
    out = [mu, *(float(as_positive("eps", e, allow_inf=False)) for e in eps)]
    arr = as_probability("x", x)
    if np.any(arr < mu):
        bad = arr[arr < mu].ravel()[0]
        raise ValueError(f"x must lie in [mu, 1] = [{mu:g}, 1] (upper tail), got {plain(bad)!r}")
    return arr, *out


def tail_comparison(x: ArrayLike, n: int, m: int, mu: float, eps: float, runs: int = 20_000, seed: int = 0,
                    confidence: float = 0.99) -> dict:
    """Exact upper tail of the private sum and every bound on it, in natural-log scale.

    For normalised thresholds ``x`` (so the event is :math:`\\tilde S_{n,m} \\ge n x`), returns

    * ``"exact"``: :math:`\\log P[\\tilde S_{n,m} \\ge nx]` (:func:`dpb.concentration.private_sum_logsf`);
    * ``"private"``: the log of the private Chernoff bound
      :math:`\\min\\{1, A_\\epsilon e^{-n d_\\epsilon(x, \\mu)}\\}` of :prf:ref:`lem-private-sum`
      with the corrected constant (:func:`dpb.concentration.private_chernoff_bound`, ``variant="proof"``);
    * ``"separate"``: the log of the split bound
      :math:`\\min_u P[S_n \\ge nx - u] + P[Z_m \\ge u]`, each term bounded separately
      (:func:`dpb.concentration.separate_bound`);
    * ``"chernoff"``: the log of the noise-free Chernoff bound :math:`e^{-n\\,\\mathrm{kl}(x, \\mu)}`
      (the Chernoff bound for Bernoulli sums; a bound on the private sum only when ``m = 0``);
    * ``"mc"``, ``"mc_lower"``, ``"mc_upper"``: log of the Monte Carlo frequency and of its
      Clopper-Pearson interval at level ``confidence`` (``-inf`` where no run crossed;
      :func:`dpb.concentration.monte_carlo_tail`), or ``None`` when ``runs = 0``.

    Parameters
    ----------
    x : float or array_like
        Normalised thresholds in ``[mu, 1]`` (upper tail).
    n : int
        Number of Bernoulli samples, ``n >= 1``.
    m : int
        Number of Laplace noises, ``m >= 0``.
    mu : float
        Bernoulli mean in (0, 1).
    eps : float
        Privacy parameter, ``eps > 0``.
    runs : int, default 20000
        Monte Carlo runs (``0`` to skip the simulation).
    seed : int, default 0
        Seed of the simulation.
    confidence : float, default 0.99
        Level of the Clopper-Pearson interval.

    Returns
    -------
    dict
        ``"x"`` and the keys above, each an array of the shape of ``x`` (natural logs).
    """
    n = as_int("n", n, minimum=1)
    m = as_int("m", m, minimum=0)
    x, mu, eps = _upper_tail(x, mu, eps)
    runs = as_int("runs", runs, minimum=0)
    s = n * x
    out = {
        "x": x,
        "exact": np.asarray(private_sum_logsf(s, n, m, mu, eps), dtype=float),
        "private": np.asarray(private_chernoff_bound(s, n, m, mu, eps, log=True), dtype=float),
        "separate": np.asarray(separate_bound(s, n, m, mu, eps, log=True), dtype=float),
        "chernoff": np.asarray(chernoff_bound(s, n, mu, log=True), dtype=float),
        "mc": None,
        "mc_lower": None,
        "mc_upper": None,
    }
    if runs > 0:
        est, lo, hi = monte_carlo_tail(s, n, m, mu, eps, runs=runs, seed=seed, confidence=confidence)
        with np.errstate(divide="ignore"):
            out["mc"] = np.log(np.asarray(est, dtype=float))
            out["mc_lower"] = np.log(np.asarray(lo, dtype=float))
            out["mc_upper"] = np.log(np.asarray(hi, dtype=float))
    return out


def tail_contributions(x: float, n: int, m: int, mu: float, eps: float) -> dict:
    """Where the tail comes from: the terms of the convolution behind :math:`P[\\tilde S_{n,m} \\ge nx]`.

    .. math::

        P[\\tilde S_{n,m} \\ge nx] = \\sum_{k=0}^n P[S_n = k]\\, P[Z_m \\ge nx - k]

    (the convolution that starts the proof of :prf:ref:`lem-private-sum`).  The largest term sits
    near :math:`k = n z^\\star`, with :math:`z^\\star` the minimiser in
    :math:`d_\\epsilon(x, \\mu) = \\min_{z \\in [\\mu, x]} \\epsilon (x - z) + \\mathrm{kl}(z, \\mu)`: the
    data go part of the way, to :math:`z^\\star`, the noise covers the rest.

    Parameters
    ----------
    x : float
        Normalised threshold in ``[mu, 1]``.
    n, m : int
        ``n >= 1`` Bernoulli samples, ``m >= 0`` Laplace noises.
    mu : float
        In (0, 1).
    eps : float
        ``eps > 0``.

    Returns
    -------
    dict
        ``"k_over_n"`` (the grid :math:`k/n`), ``"log_term"`` (log of each term), ``"log_pmf"``
        (:math:`\\log P[S_n = k]`), ``"log_noise"`` (:math:`\\log P[Z_m \\ge nx - k]`), ``"z_star"`` and
        ``"log_total"`` (log of the sum, equal to the exact log tail); natural logs, ``-inf`` for
        zero terms.
    """
    n = as_int("n", n, minimum=1)
    check_elements("n (one term for each k = 0..n)", n + 1)
    m = as_int("m", m, minimum=0)
    x, mu, eps = _upper_tail(x, mu, eps)  # type: ignore[assignment]  # x: an array, then its float
    x = float(x)
    k = np.arange(n + 1, dtype=float)
    log_pmf = stats.binom.logpmf(k, n, mu)
    log_noise = np.asarray(laplace_sum_logsf(n * x - k, m, eps), dtype=float)
    log_term = log_pmf + log_noise
    return {
        "k_over_n": k / n,
        "log_term": log_term,
        "log_pmf": log_pmf,
        "log_noise": log_noise,
        "z_star": float(z_star(x, mu, eps)),
        "log_total": float(private_sum_logsf(n * x, n, m, mu, eps)),
    }


def exponent_curves(x: float, mu: float, eps: float, m_rule: str = "log n", ns: ArrayLike | None = None
                    ) -> dict:
    """Finite-n exponents :math:`-\\frac1n \\log(\\cdot)` of the exact tail and of the two bounds.

    For each ``n`` in ``ns`` with ``m = m_of_n(n, m_rule)`` noises: the exact exponent
    :math:`-\\frac1n \\log P[\\tilde S_{n,m} \\ge nx]` (:func:`dpb.concentration.tail_exponent`),
    and :math:`-\\frac1n \\log` of the private Chernoff bound (:prf:ref:`lem-private-sum`) and of
    the separate bound (0 where a bound is trivial).  :prf:ref:`prop-conc` says the exact exponent
    is asymptotically at least :math:`d_\\epsilon(x, \\mu)` when ``m = o(n)``.

    Parameters
    ----------
    x : float
        Normalised threshold in ``[mu, 1]``.
    mu : float
        In (0, 1).
    eps : float
        ``eps > 0``.
    m_rule : {"log n", "1", "sqrt n", "n/20"}
        How ``m`` grows with ``n`` (see :func:`m_of_n`).
    ns : array_like of int, optional
        Sample sizes; default 9 log-spaced sizes from 10 to 10000.

    Returns
    -------
    dict
        ``"n"``, ``"m"``, ``"exact"``, ``"private"``, ``"separate"`` (arrays), ``"d_eps"`` and ``"kl"``
        (the limits :math:`d_\\epsilon(x, \\mu)` and :math:`\\mathrm{kl}(x, \\mu)`).
    """
    x, mu, eps = _upper_tail(x, mu, eps)  # type: ignore[assignment]  # x: an array, then its float
    x = float(x)
    as_choice("m_rule", m_rule, M_RULES)
    if ns is None:
        ns = np.unique(np.round(np.logspace(1, 4, 9)).astype(int))
    ns = [as_int("ns", v, minimum=1) for v in np.atleast_1d(ns)]
    ms = [m_of_n(n, m_rule) for n in ns]
    exact, private, separate = [], [], []
    for n, m in zip(ns, ms, strict=True):
        exact.append(tail_exponent(x, n, m, mu, eps))
        private.append(-private_chernoff_bound(n * x, n, m, mu, eps, log=True) / n)
        separate.append(-separate_bound(n * x, n, m, mu, eps, log=True) / n)
    return {
        "n": np.array(ns),
        "m": np.array(ms),
        "exact": np.array(exact, dtype=float),
        "private": np.abs(np.array(private, dtype=float)),  # abs: -0.0 -> 0.0 for trivial bounds
        "separate": np.abs(np.array(separate, dtype=float)),
        "d_eps": float(d_eps(x, mu, eps)),
        "kl": float(kl(x, mu)),
    }



def rates_against_eps(x: float = 0.9, mu: float = 0.5, n: int = 1_000_000) -> dict:
    """Rates of decay of the upper tail at ``x`` on 61 budgets :math:`\\epsilon` from 0.01 to 10**1.5.

    The noise-free rate :math:`\\mathrm{kl}(x, \\mu)`, the private rate :math:`d_\\epsilon(x, \\mu)` of
    :prf:ref:`prop-conc`, and the rate the separate analysis certifies at ``n`` samples and
    :math:`m = \\lceil \\log n \\rceil` noises, :math:`-\\frac1n \\log` of
    :func:`dpb.concentration.separate_bound`.

    Returns
    -------
    dict
        ``"x"``, ``"mu"``, ``"kl"`` (floats), ``"eps"``, ``"d_eps"``, ``"separate"`` (arrays).
    """
    x, mu = _upper_tail(x, mu)  # type: ignore[assignment]  # x: an array, then its float
    x = float(x)
    n = as_int("n", n, minimum=1)
    m = m_of_n(n, "log n")
    eps = np.logspace(-2, 1.5, 61)
    d = np.asarray(d_eps(x, mu, eps), dtype=float)
    sep = np.abs(np.asarray(separate_bound(n * x, n, m, mu, eps, log=True), dtype=float)) / n
    return {"x": x, "mu": mu, "kl": kl(x, mu), "eps": eps, "d_eps": d, "separate": sep}

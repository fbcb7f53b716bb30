"""Figures of the Concentration chapter: exact tails of the private sum against the bounds.

The private sum is :math:`\\tilde S_{n,m} = S_n + Z_m` with :math:`S_n \\sim \\mathrm{Bin}(n, \\mu)` and
:math:`Z_m` a sum of ``m`` i.i.d. :math:`\\mathrm{Lap}(1/\\epsilon)` noises (:prf:ref:`lem-private-sum`, and
:prf:ref:`prop-conc` of Azize et al., 2025).
Every number drawn here comes from :mod:`dpb.concentration`; the helpers :func:`tail_comparison`,
:func:`tail_contributions` and :func:`exponent_curves` gather those numbers (in natural-log scale,
so that tails far below the smallest double stay finite) for both the figures and the chapter's
tables.
"""

from __future__ import annotations

import math

import numpy as np
from scipy import stats

from .. import concentration as conc
from .._validate import as_float_array, as_int, as_positive, as_probability
from ..divergences import d_eps, kl, z_star
from .style import COLORS, new_figure

__all__ = [
    "M_RULES",
    "m_of_n",
    "tail_comparison",
    "tail_contributions",
    "exponent_curves",
    "plot_exponents_vs_eps",
    "plot_tail_bounds",
    "plot_tail_exponent",
]

#: Colours of the curves of this chapter (the exact tail is black).
_C = {
    "exact": "k",
    "private": COLORS["d_eps"],
    "separate": COLORS["tv"],
    "chernoff": COLORS["kl"],
    "mc": COLORS["neighbour"],
    "noise": COLORS["laplace"],
}
_LOG10 = math.log(10.0)

#: Rules giving the number of Laplace noises ``m`` as a function of the number of samples ``n``.
M_RULES = ("log n", "1", "sqrt n", "n/20")


def m_of_n(n, rule: str = "log n") -> int:
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


def _threshold_means(x, mu: float) -> np.ndarray:
    arr = as_probability("x", x)
    if np.any(arr < mu):
        bad = arr[arr < mu].ravel()[0]
        raise ValueError(f"x must lie in [mu, 1] = [{mu:g}, 1] (upper tail), got {bad!r}")
    return arr


def tail_comparison(x, n, m, mu, eps, runs: int = 20_000, seed: int = 0, confidence: float = 0.99):
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
    mu = float(as_probability("mu", mu, open_left=True, open_right=True))
    eps = float(as_positive("eps", eps, allow_inf=False))
    runs = as_int("runs", runs, minimum=0)
    x = _threshold_means(x, mu)
    s = n * x
    out = {
        "x": x,
        "exact": np.asarray(conc.private_sum_logsf(s, n, m, mu, eps), dtype=float),
        "private": np.asarray(conc.private_chernoff_bound(s, n, m, mu, eps, log=True), dtype=float),
        "separate": np.asarray(conc.separate_bound(s, n, m, mu, eps, log=True), dtype=float),
        "chernoff": np.asarray(conc.chernoff_bound(s, n, mu, log=True), dtype=float),
        "mc": None,
        "mc_lower": None,
        "mc_upper": None,
    }
    if runs > 0:
        est, lo, hi = conc.monte_carlo_tail(s, n, m, mu, eps, runs=runs, seed=seed, confidence=confidence)
        with np.errstate(divide="ignore"):
            out["mc"] = np.log(np.asarray(est, dtype=float))
            out["mc_lower"] = np.log(np.asarray(lo, dtype=float))
            out["mc_upper"] = np.log(np.asarray(hi, dtype=float))
    return out


def tail_contributions(x, n, m, mu, eps):
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
    m = as_int("m", m, minimum=0)
    mu = float(as_probability("mu", mu, open_left=True, open_right=True))
    eps = float(as_positive("eps", eps, allow_inf=False))
    x = float(_threshold_means(as_float_array("x", x), mu))
    k = np.arange(n + 1, dtype=float)
    log_pmf = stats.binom.logpmf(k, n, mu)
    log_noise = np.asarray(conc.laplace_sum_logsf(n * x - k, m, eps), dtype=float)
    log_term = log_pmf + log_noise
    return {
        "k_over_n": k / n,
        "log_term": log_term,
        "log_pmf": log_pmf,
        "log_noise": log_noise,
        "z_star": float(z_star(x, mu, eps)),
        "log_total": float(conc.private_sum_logsf(n * x, n, m, mu, eps)),
    }


def exponent_curves(x, mu, eps, m_rule: str = "log n", ns=None):
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
    mu = float(as_probability("mu", mu, open_left=True, open_right=True))
    eps = float(as_positive("eps", eps, allow_inf=False))
    x = float(_threshold_means(as_float_array("x", x), mu))
    if m_rule not in M_RULES:
        raise ValueError(f"m_rule must be one of {M_RULES}, got {m_rule!r}")
    if ns is None:
        ns = np.unique(np.round(np.logspace(1, 4, 9)).astype(int))
    ns = [as_int("ns", v, minimum=1) for v in np.atleast_1d(ns)]
    ms = [m_of_n(n, m_rule) for n in ns]
    exact, private, separate = [], [], []
    for n, m in zip(ns, ms, strict=True):
        exact.append(conc.tail_exponent(x, n, m, mu, eps))
        private.append(-conc.private_chernoff_bound(n * x, n, m, mu, eps, log=True) / n)
        separate.append(-conc.separate_bound(n * x, n, m, mu, eps, log=True) / n)
    return {
        "n": np.array(ns),
        "m": np.array(ms),
        "exact": np.array(exact, dtype=float),
        "private": np.abs(np.array(private, dtype=float)),  # abs: -0.0 -> 0.0 for trivial bounds
        "separate": np.abs(np.array(separate, dtype=float)),
        "d_eps": float(d_eps(x, mu, eps)),
        "kl": float(kl(x, mu)),
    }


# --------------------------------------------------------------------------------------------
# figures
# --------------------------------------------------------------------------------------------
def plot_exponents_vs_eps(x: float = 0.9, mu: float = 0.5, n: int = 1_000_000):
    """Rates of decay against the privacy budget: kl, d_eps and the separate analysis.

    The noise-free Chernoff rate :math:`\\mathrm{kl}(x, \\mu)`, the private rate
    :math:`d_\\epsilon(x, \\mu)` of :prf:ref:`prop-conc`, and the rate the separate analysis
    certifies, :math:`-\\frac1n \\log` of :func:`dpb.concentration.separate_bound` at a large ``n``
    (with :math:`m = \\lceil \\log n \\rceil`), against :math:`\\epsilon` on a log axis.  The right
    panel shows the ratio of the separate rate to :math:`d_\\epsilon`.
    """
    mu = float(as_probability("mu", mu, open_left=True, open_right=True))
    x = float(_threshold_means(as_float_array("x", x), mu))
    n = as_int("n", n, minimum=1)
    m = m_of_n(n, "log n")
    eps = np.logspace(-2, 1.5, 61)
    d = np.asarray(d_eps(x, mu, eps), dtype=float)
    sep = np.abs(np.asarray(conc.separate_bound(n * x, n, m, mu, eps, log=True), dtype=float)) / n
    fig, (ax1, ax2) = new_figure(2, width=4.3, height=3.3)
    ax1.axhline(kl(x, mu), color=_C["chernoff"], ls=":", label=r"$\mathrm{kl}(x,\mu)$ (no noise)")
    ax1.plot(eps, d, color=_C["private"], label=r"$d_\varepsilon(x,\mu)$ (coupled)")
    ax1.plot(eps, sep, color=_C["separate"], ls="--", label="separate analysis")
    ax1.set(xscale="log", xlabel=r"privacy budget $\varepsilon$", ylabel="rate of decay (per sample)",
            title=f"$x = {x:g}$, $\\mu = {mu:g}$")
    ax1.legend(frameon=False, loc="upper left", fontsize=8)
    ax2.plot(eps, sep / d, color=_C["separate"])
    ax2.axhline(1.0, color="grey", lw=0.8)
    ax2.set(xscale="log", xlabel=r"privacy budget $\varepsilon$", ylabel=r"separate rate / $d_\varepsilon$",
            ylim=(0, 1.05), title="share of the rate kept by the separate analysis")
    return fig


def plot_tail_bounds(n: int = 1000, m: int = 7, eps: float = 0.25, mu: float = 0.5, x: float = 0.7,
                     runs: int = 20_000, seed: int = 0):
    """Exact upper tail of the private sum against the bounds, and where the tail comes from.

    Left: :math:`\\log_{10} P[\\tilde S_{n,m} \\ge n t]` for thresholds :math:`t` from :math:`\\mu` to 1
    (exact, Monte Carlo with 99% Clopper-Pearson intervals where some run crossed), with the private
    Chernoff bound of :prf:ref:`lem-private-sum`, the separate bound and the noise-free Chernoff
    bound (which is *not* a bound once ``m >= 1``).  Right: at the chosen threshold ``x``, the
    terms :math:`\\log_{10} P[S_n = k] P[Z_m \\ge nx - k]` of the convolution, peaking near
    :math:`k/n = z^\\star` (see :func:`tail_contributions`).  Values ``x < mu`` are moved to ``mu``.
    """
    mu = float(as_probability("mu", mu, open_left=True, open_right=True))
    x = min(max(float(x), mu), 1.0)
    t = np.linspace(mu, 1.0, 41)
    data = tail_comparison(t, n, m, mu, eps, runs=runs, seed=seed)
    fig, (ax1, ax2) = new_figure(2, width=4.6, height=3.8)
    ax1.plot(t, data["exact"] / _LOG10, color=_C["exact"], lw=2, label="exact")
    ax1.plot(t, data["private"] / _LOG10, color=_C["private"],
             label=r"private Chernoff $A_\varepsilon e^{-nd_\varepsilon}$")
    ax1.plot(t, data["separate"] / _LOG10, color=_C["separate"], ls="--", label="separate bound")
    ax1.plot(t, data["chernoff"] / _LOG10, color=_C["chernoff"], ls=":",
             label=r"$e^{-n\,\mathrm{kl}}$ (no noise)" + ("" if m == 0 else ", not a bound"))
    if data["mc"] is not None:
        seen = np.isfinite(data["mc"])
        if np.any(seen):
            mid = data["mc"][seen] / _LOG10
            lo = data["mc_lower"][seen] / _LOG10
            hi = data["mc_upper"][seen] / _LOG10
            lo = np.where(np.isfinite(lo), lo, mid - 1.0)
            ax1.errorbar(t[seen], mid, yerr=[mid - lo, hi - mid], fmt="o", ms=3, color=_C["mc"],
                         label=f"Monte Carlo ({runs} runs)")
    ax1.axvline(x, color="grey", lw=0.8)
    bottom = max(np.min(data["exact"]) / _LOG10, -330.0) * 1.08 - 0.5
    ax1.set(xlabel=r"threshold $t$ (event $\tilde S_{n,m} \geq nt$)", ylabel=r"$\log_{10}$ probability",
            ylim=(bottom, 0.5), title=f"$n={n}$, $m={m}$, $\\varepsilon={eps:g}$, $\\mu={mu:g}$")
    ax1.legend(frameon=False, fontsize=7.5, loc="lower left")

    parts = tail_contributions(x, n, m, mu, eps)
    k = parts["k_over_n"]
    term = parts["log_term"] / _LOG10
    fin = np.isfinite(term)
    ax2.plot(k, parts["log_pmf"] / _LOG10, color=_C["chernoff"], ls=":", label=r"$P[S_n = k]$")
    ax2.plot(k[fin], term[fin], color=_C["exact"], lw=2, label=r"$P[S_n = k]\,P[Z_m \geq nx-k]$")
    ax2.axvline(parts["z_star"], color=_C["private"], ls="--", label=f"$z^\\star = {parts['z_star']:.3f}$")
    ax2.axvline(x, color="grey", lw=0.8)
    top = np.max(term[fin]) if np.any(fin) else 0.0
    ax2.set(xlabel="$k/n$", ylabel=r"$\log_{10}$ term", xlim=(max(mu - 0.15, 0.0), 1.0),
            ylim=(top - max(8.0, 0.6 * abs(top)), max(top, 0.0) + 1.0),
            title=f"terms of $P[\\tilde S_{{n,m}} \\geq nx]$ at $x = {x:.3g}$")
    ax2.legend(frameon=False, fontsize=7.5, loc="upper right")
    return fig


def plot_tail_exponent(x: float = 0.9, mu: float = 0.5, eps: float = 0.25, m_rule: str = "log n"):
    """The finite-n exponent of the exact tail approaching :math:`d_\\epsilon(x, \\mu)`, not kl.

    Plots :math:`-\\frac1n \\log P[\\tilde S_{n,m} \\ge nx]` against ``n`` (log axis, ``m`` growing by
    ``m_rule``, see :func:`m_of_n`), with :math:`-\\frac1n \\log` of the private Chernoff bound and of
    the separate bound, and the horizontal levels :math:`d_\\epsilon(x, \\mu)` (:prf:ref:`prop-conc`) and
    :math:`\\mathrm{kl}(x, \\mu)` (the noise-free rate).  Values ``x < mu``
    are moved to ``mu``.
    """
    mu = float(as_probability("mu", mu, open_left=True, open_right=True))
    x = min(max(float(x), mu), 1.0)
    data = exponent_curves(x, mu, eps, m_rule)
    fig, ax = new_figure(1, width=6.4, height=3.6)
    ns = data["n"]
    ax.axhline(data["kl"], color=_C["chernoff"], ls=":", label=r"$\mathrm{kl}(x,\mu)$")
    ax.axhline(data["d_eps"], color=_C["private"], lw=0.9, label=r"$d_\varepsilon(x,\mu)$")
    ax.plot(ns, data["exact"], "o-", color=_C["exact"], lw=2, ms=4, label="exact tail")
    ax.plot(ns, data["private"], "s--", color=_C["private"], ms=3, label="private Chernoff bound")
    ax.plot(ns, data["separate"], "^--", color=_C["separate"], ms=3, label="separate bound")
    ax.set(xscale="log", xlabel="number of samples $n$",
           ylabel=r"$-\frac{1}{n}\log P[\tilde S_{n,m}\geq nx]$",
           ylim=(0, 1.15 * max(data["kl"], np.max(data["exact"]))),
           title=f"$x={x:g}$, $\\mu={mu:g}$, $\\varepsilon={eps:g}$, $m$ = {m_rule} (up to {data['m'][-1]})")
    ax.legend(frameon=False, fontsize=8, loc="center left", bbox_to_anchor=(1.0, 0.5))
    return fig

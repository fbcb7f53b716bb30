"""Figures of the Concentration chapter: exact tails of the private sum against the bounds.

The private sum is :math:`\\tilde S_{n,m} = S_n + Z_m` with :math:`S_n \\sim \\mathrm{Bin}(n, \\mu)` and
:math:`Z_m` a sum of ``m`` i.i.d. :math:`\\mathrm{Lap}(1/\\epsilon)` noises (:prf:ref:`lem-private-sum`, and
:prf:ref:`prop-conc` of Azize et al., 2025).
Every number drawn here comes from :mod:`dpb.chapters.concentration` (built on
:mod:`dpb.concentration`), where :func:`~dpb.chapters.concentration.tail_comparison`,
:func:`~dpb.chapters.concentration.tail_contributions` and :func:`~dpb.chapters.concentration.exponent_curves`
gather them (in natural-log scale, so that tails far
below the smallest double stay finite) for both the figures and the chapter's tables.
"""

from __future__ import annotations

from matplotlib.figure import Figure

import math

import numpy as np

from .._validate import as_probability, as_real
from ..chapters.concentration import exponent_curves, rates_against_eps, tail_comparison, tail_contributions
from .style import color, new_figure

__all__ = [
    "plot_exponents_vs_eps",
    "plot_tail_bounds",
    "plot_tail_exponent",
]

#: Colours of the curves of this chapter (the exact tail is black).
_LOG10 = math.log(10.0)

def plot_exponents_vs_eps(x: float = 0.9, mu: float = 0.5, n: int = 1_000_000) -> Figure:
    """Rates of decay against the privacy budget: kl, d_eps and the separate analysis.

    The noise-free Chernoff rate :math:`\\mathrm{kl}(x, \\mu)`, the private rate
    :math:`d_\\epsilon(x, \\mu)` of :prf:ref:`prop-conc`, and the rate the separate analysis
    certifies, :math:`-\\frac1n \\log` of :func:`dpb.concentration.separate_bound` at a large ``n``
    (with :math:`m = \\lceil \\log n \\rceil`), against :math:`\\epsilon` on a log axis.  The right
    panel shows the ratio of the separate rate to :math:`d_\\epsilon`.
    """
    r = rates_against_eps(x, mu, n)
    x, mu, eps, d, sep = r["x"], r["mu"], r["eps"], r["d_eps"], r["separate"]
    fig, (ax1, ax2) = new_figure(2, width=4.3, height=3.3)
    ax1.axhline(r["kl"], color=color("chernoff"), ls=":", label=r"$\mathrm{kl}(x,\mu)$ (no noise)")
    ax1.plot(eps, d, color=color("d_eps"), label=r"$d_\varepsilon(x,\mu)$ (coupled)")
    ax1.plot(eps, sep, color=color("separate"), ls="--", label="separate analysis")
    ax1.set(xscale="log", xlabel=r"privacy budget $\varepsilon$", ylabel="rate of decay (per sample)",
            title=f"$x = {x:g}$, $\\mu = {mu:g}$")
    ax1.legend(frameon=False, loc="lower right", fontsize=8)
    ax2.plot(eps, sep / d, color=color("separate"))
    ax2.axhline(1.0, color="grey", lw=0.8)
    ax2.set(xscale="log", xlabel=r"privacy budget $\varepsilon$", ylabel=r"separate rate / $d_\varepsilon$",
            ylim=(0, 1.05), title="share of the rate kept\nby the separate analysis")
    return fig


def plot_tail_bounds(n: int = 1000, m: int = 7, eps: float = 0.25, mu: float = 0.5, x: float = 0.7,
                     runs: int = 20_000, seed: int = 0) -> Figure:
    """Exact upper tail of the private sum against the bounds, and where the tail comes from.

    Left: :math:`\\log_{10} P[\\tilde S_{n,m} \\ge n t]` for thresholds :math:`t` from :math:`\\mu` to 1
    (exact, Monte Carlo with 99% Clopper-Pearson intervals where some run crossed), with the private
    Chernoff bound of :prf:ref:`lem-private-sum`, the separate bound and the noise-free Chernoff
    bound (which is *not* a bound once ``m >= 1``).  Right: at the chosen threshold ``x``, the
    terms :math:`\\log_{10} P[S_n = k] P[Z_m \\ge nx - k]` of the convolution, peaking near
    :math:`k/n = z^\\star` (see :func:`~dpb.chapters.concentration.tail_contributions`).  Values
    ``x < mu`` are moved to ``mu``.
    """
    mu = float(as_probability("mu", mu, open_left=True, open_right=True))
    x = max(as_real("x", x, low=0.0, high=1.0), mu)  # documented: x < mu is moved to mu
    t = np.linspace(mu, 1.0, 41)
    data = tail_comparison(t, n, m, mu, eps, runs=runs, seed=seed)
    fig, (ax1, ax2) = new_figure(2, width=4.6, height=3.8)
    ax1.plot(t, data["exact"] / _LOG10, color=color("exact"), lw=2, label="exact")
    ax1.plot(t, data["private"] / _LOG10, color=color("private Chernoff bound"),
             label=r"private Chernoff $A_\varepsilon e^{-nd_\varepsilon}$")
    ax1.plot(t, data["separate"] / _LOG10, color=color("separate"), ls="--", label="separate bound")
    ax1.plot(t, data["chernoff"] / _LOG10, color=color("chernoff"), ls=":",
             label=r"$e^{-n\,\mathrm{kl}}$ (no noise)" + ("" if m == 0 else ", not a bound"))
    if data["mc"] is not None:
        seen = np.isfinite(data["mc"])
        if np.any(seen):
            mid = data["mc"][seen] / _LOG10
            lo = data["mc_lower"][seen] / _LOG10
            hi = data["mc_upper"][seen] / _LOG10
            lo = np.where(np.isfinite(lo), lo, mid - 1.0)
            ax1.errorbar(t[seen], mid, yerr=[mid - lo, hi - mid], fmt="o", ms=3, color=color("mc"),
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
    ax2.plot(k, parts["log_pmf"] / _LOG10, color="grey", ls=":", label=r"$P[S_n = k]$")
    ax2.plot(k[fin], term[fin], color=color("exact"), lw=2, label=r"$P[S_n = k]\,P[Z_m \geq nx-k]$")
    ax2.axvline(parts["z_star"], color=color("d_eps"), ls="--",
                label=f"$z^\\star = {parts['z_star']:.3f}$ (minimiser in $d_\\varepsilon$)")
    ax2.axvline(x, color="grey", lw=0.8)
    top = np.max(term[fin]) if np.any(fin) else 0.0
    ax2.set(xlabel="$k/n$", ylabel=r"$\log_{10}$ term", xlim=(max(mu - 0.15, 0.0), 1.0),
            ylim=(top - max(8.0, 0.6 * abs(top)), max(top, 0.0) + 1.0),
            title=f"terms of $P[\\tilde S_{{n,m}} \\geq nx]$ at $x = {x:.3g}$")
    ax2.legend(frameon=False, fontsize=7.5, loc="upper right")
    return fig


def plot_tail_exponent(x: float = 0.9, mu: float = 0.5, eps: float = 0.25, m_rule: str = "log n") -> Figure:
    """The finite-n exponent of the exact tail approaching :math:`d_\\epsilon(x, \\mu)`, not kl.

    Plots :math:`-\\frac1n \\log P[\\tilde S_{n,m} \\ge nx]` against ``n`` (log axis, ``m`` growing by
    ``m_rule``, see :func:`~dpb.chapters.concentration.m_of_n`), with :math:`-\\frac1n \\log` of the private
    Chernoff bound and of the separate bound, and the horizontal levels
    :math:`d_\\epsilon(x, \\mu)` (:prf:ref:`prop-conc`) and :math:`\\mathrm{kl}(x, \\mu)` (the
    noise-free rate).  Values ``x < mu`` are moved to ``mu``.
    """
    mu = float(as_probability("mu", mu, open_left=True, open_right=True))
    x = max(as_real("x", x, low=0.0, high=1.0), mu)  # documented: x < mu is moved to mu
    data = exponent_curves(x, mu, eps, m_rule)
    fig, ax = new_figure(1, width=6.4, height=3.6)
    ns = data["n"]
    ax.axhline(data["kl"], color=color("chernoff"), ls=":", label=r"$\mathrm{kl}(x,\mu)$")
    ax.axhline(data["d_eps"], color=color("d_eps"), lw=0.9, label=r"$d_\varepsilon(x,\mu)$")
    ax.plot(ns, data["exact"], "o-", color=color("exact"), lw=2, ms=4, label="exact tail")
    ax.plot(ns, data["private"], "s--", color=color("private Chernoff bound"), ms=3,
            label="private Chernoff bound")
    ax.plot(ns, data["separate"], "^--", color=color("separate"), ms=3, label="separate bound")
    ax.set(xscale="log", xlabel="number of samples $n$",
           ylabel=r"$-\frac{1}{n}\log P[\tilde S_{n,m}\geq nx]$",
           ylim=(0, 1.15 * max(data["kl"], np.max(data["exact"]))),
           title=f"$x={x:g}$, $\\mu={mu:g}$, $\\varepsilon={eps:g}$, $m$ = {m_rule} (up to {data['m'][-1]})")
    ax.legend(frameon=False, fontsize=8, loc="center left", bbox_to_anchor=(1.0, 0.5))
    return fig

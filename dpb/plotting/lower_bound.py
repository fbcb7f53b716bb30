r"""Figures of the lower-bound chapter: ``d_eps``, the three regret constants, the double change.

Every function returns a matplotlib ``Figure`` and is what both the chapter's static figure and the
corresponding explorer of :mod:`dpb.widgets.lower_bound` call.

* :func:`plot_d_eps` -- the objective ``z -> eps abs(z - mu_a) + kl(z, mu*)`` of :prf:ref:`def-d-eps` of
  Azize et al. (2025), its minimiser ``z*`` and the regime; ``d_eps`` against ``eps``.
* :func:`plot_lower_bound_constants` -- the constants of :prf:ref:`thm-lower-bound`, :eq:`eq-lb-2022` and
  Lai--Robbins against ``eps`` for one environment, with the regime thresholds ``eps*_a``.
* :func:`plot_double_change` -- the per-pull cost of the double change of environment (TV leg +
  KL leg) as a function of the intermediate mean ``mu_2'`` (Step 4 of the proof of Theorem
  'Regret lower bound under eps-global DP').
* :func:`plot_coupled_hamming` -- a simulation of the coupled environment ``gamma`` (Step 1 of the
  proof): the Hamming distance between the coupled reward lists against ``N_2 TV(P_2, P_2')``.

The environments are the paper's named instances of ``dpb.environments`` (``mu1`` ... ``mu4`` of
Appendix 'Extended Experiments' and ``sweep``) or any vector of means.
"""

from __future__ import annotations

from matplotlib.figure import Figure

from typing import Any

import numpy as np

from .._validate import as_int, as_positive, as_probability
from ..bounds import (
    azize_basu_2022_constant,
    lai_robbins_constant,
    lower_bound_constant,
    regime_thresholds,
)
from ..chapters.lower_bound import binned_means, coupled_runs
from ..coupling import optimal_intermediate, pure_routes, transport_cost
from ..divergences import d_eps, kl, regime_threshold, z_star
from ..environments import as_bandit
from .style import color, new_figure

__all__ = [
    "plot_d_eps",
    "plot_lower_bound_constants",
    "plot_double_change",
    "plot_coupled_hamming",
]

# ----------------------------------------------------------------------------------------------
# figures
# ----------------------------------------------------------------------------------------------
def _panel(ax, title: str, legend_loc: str | None = None, *, title_size: float = 9, **props) -> None:
    """Axis properties ``props``, a small title and (at ``legend_loc``) a frameless legend."""
    ax.set(**props)
    ax.set_title(title, fontsize=title_size)
    if legend_loc is not None:
        ax.legend(frameon=False, fontsize=8.5, loc=legend_loc)


def _regime_text(eps: float, threshold: float) -> str:
    if eps >= threshold:
        return (rf"low privacy: $\varepsilon = {eps:.3g} \geq \varepsilon^\star = {threshold:.3g}$, "
                r"$d_\varepsilon = \mathrm{kl}$")
    thr = r"\infty" if not np.isfinite(threshold) else f"{threshold:.3g}"
    return rf"high privacy: $\varepsilon = {eps:.3g} < \varepsilon^\star = {thr}$"


def plot_d_eps(mu_a: float = 0.3, mu_star: float = 0.7, eps: float = 0.5) -> Figure:
    r"""The objective defining ``d_eps(mu_a, mu*)`` and ``d_eps`` as a function of ``eps``.

    Left: on ``z`` between ``mu_a`` and ``mu*``, the transport part ``eps abs(z - mu_a)``, the part
    ``kl(z, mu*)`` and their sum, whose minimum over ``z`` is

    .. math::

       d_\varepsilon(\mu_a, \mu^\star)
       = \inf_{z} \varepsilon\lvert z - \mu_a\rvert + \mathrm{kl}(z, \mu^\star)

    (:prf:ref:`def-d-eps`), attained at the closed-form ``z*`` of
    :func:`dpb.divergences.z_star`; the title says which regime ``eps`` is in
    (``eps >= eps* = abs(logit(mu*) - logit(mu_a))``: low privacy, ``z* = mu_a``, ``d_eps = kl``).
    Right: ``eps -> d_eps(mu_a, mu*)`` on log-log axes with its two ceilings ``kl(mu_a, mu*)`` and
    ``eps abs(mu* - mu_a)``, the threshold ``eps*`` and the current ``eps``.

    Parameters
    ----------
    mu_a, mu_star : float
        Means in [0, 1] (the arm and the optimal mean); they must differ.
    eps : float
        Privacy budget, finite and > 0.

    Raises
    ------
    ValueError
        If a mean is outside [0, 1], ``mu_a == mu_star``, or ``eps`` is not finite and positive.
    """
    x = float(as_probability("mu_a", mu_a))
    y = float(as_probability("mu_star", mu_star))
    eps = float(as_positive("eps", eps, allow_inf=False))
    if x == y:
        raise ValueError("mu_a and mu_star must differ (d_eps(x, x) = 0 for every eps)")
    lo, hi = min(x, y), max(x, y)
    z = np.linspace(lo, hi, 801)
    tv_part = eps * np.abs(z - x)
    kl_part = kl(z, y)
    total = tv_part + kl_part
    zs, dv, thr = z_star(x, y, eps), d_eps(x, y, eps), regime_threshold(x, y)
    kxy = kl(x, y)

    fig, (ax1, ax2) = new_figure(2, width=4.4, height=3.6)
    ax1.plot(z, tv_part, color=color("eps*TV"), ls="--", label=r"$\varepsilon\,|z-\mu_a|$")
    ax1.plot(z, kl_part, color=color("kl"), ls="--", label=r"$\mathrm{kl}(z, \mu^\star)$")
    ax1.plot(z, total, color="k", lw=2, label="sum")
    ax1.plot([zs], [dv], "o", color=color("d_eps"), ms=8, zorder=5,
             label=rf"$z^\star = {zs:.3f}$, $d_\varepsilon = {dv:.4f}$")
    finite = total[np.isfinite(total)]
    top = 1.15 * float(np.max(finite)) if finite.size else 1.0
    _panel(ax1, _regime_text(eps, thr), "upper right" if x < y else "upper left", title_size=9.5,
           xlabel="intermediate mean $z$", ylabel="cost per pull", ylim=(0, max(top, 1e-3)), xlim=(lo, hi))

    grid = np.logspace(-3, 2, 400)
    ax2.loglog(grid, d_eps(x, y, grid), color=color("d_eps"), lw=2,
               label=r"$d_\varepsilon(\mu_a, \mu^\star)$")
    ax2.loglog(grid, grid * abs(y - x), color=color("eps*TV"), ls="--", label=r"$\varepsilon\,\Delta$")
    if np.isfinite(kxy):
        ax2.axhline(kxy, color=color("kl"), ls="--", label=r"$\mathrm{kl}(\mu_a, \mu^\star)$")
    if np.isfinite(thr):
        ax2.axvline(thr, color="grey", lw=0.8, ls=":")
        ax2.text(thr, 1.5e-3 * abs(y - x), r" $\varepsilon^\star$", color="grey", fontsize=9)
    ax2.plot([eps], [dv], "o", color="k", zorder=5, label=rf"$\varepsilon = {eps:g}$")
    ymin = 1e-3 * abs(y - x) * 0.8
    ymax = (kxy if np.isfinite(kxy) else float(d_eps(x, y, grid[-1]))) * 30  # headroom for the legend
    ax2.set(xlabel=r"privacy budget $\varepsilon$", ylabel="divergence", ylim=(ymin, ymax),
            title=rf"$\mu_a = {x:g}$, $\mu^\star = {y:g}$")
    ax2.legend(frameon=False, fontsize=8.5, loc="upper left")
    return fig


def plot_lower_bound_constants(env: Any="mu2", eps_min: float = 1e-2, eps_max: float = 10.0,
                               n_eps: int = 300) -> Figure:
    r"""The three regret constants of an environment against ``eps``, with the regime thresholds.

    Left (log-log): the new constant ``sum_a Delta_a / d_eps(mu_a, mu*)`` (:prf:ref:`thm-lower-bound`,
    :func:`dpb.bounds.lower_bound_constant`), the earlier
    ``sum_a Delta_a / min{kl(mu_a, mu*), 6 eps Delta_a}`` (:eq:`eq-lb-2022`,
    :func:`dpb.bounds.azize_basu_2022_constant`) and Lai--Robbins ``sum_a Delta_a / kl(mu_a, mu*)``;
    dotted verticals at the per-arm thresholds ``eps*_a`` (:func:`dpb.bounds.regime_thresholds`).
    Right: the ratio of the new constant to the 2022 one.  It tends to 6 (from above) as ``eps -> 0``, is
    at least 6 while ``6 eps Delta_a <= kl(mu_a, mu*)`` for every arm, and equals 1
    exactly when ``eps >= max_a eps*_a`` (every arm in the low-privacy regime, where all three
    constants coincide).

    Parameters
    ----------
    env : str, sequence of floats or dpb.environments.BernoulliBandit
        A name of ``dpb.environments.INSTANCES`` (``mu1`` ... ``mu4``, ``sweep``) or arm means
        (``K >= 2``, not all equal).
    eps_min, eps_max : float
        The range of ``eps`` (``0 < eps_min < eps_max < inf``), log-spaced.
    n_eps : int
        Number of grid points ``>= 2``.

    Raises
    ------
    ValueError
        For an unknown name, invalid means, all-equal means or an invalid range.
    """
    bandit = as_bandit(env)
    if bandit.K < 2:
        raise ValueError("the environment needs at least 2 arms")
    mu = np.asarray(bandit.means)
    if np.all(bandit.gaps == 0):
        raise ValueError("env: all arms have the same mean, every constant is 0")
    eps_min = float(as_positive("eps_min", eps_min, allow_inf=False))
    eps_max = float(as_positive("eps_max", eps_max, allow_inf=False))
    if not eps_min < eps_max:
        raise ValueError(f"need eps_min < eps_max, got {eps_min!r} and {eps_max!r}")
    n_eps = as_int("n_eps", n_eps, minimum=2, maximum=10**5)  # points of one curve
    grid = np.logspace(np.log10(eps_min), np.log10(eps_max), n_eps)
    new = lower_bound_constant(mu, grid)
    old = azize_basu_2022_constant(mu, grid)
    lr = lai_robbins_constant(mu)
    thr = regime_thresholds(mu)[bandit.gaps > 0]

    label = bandit.name or "custom"
    fig, (ax1, ax2) = new_figure(2, width=4.4, height=3.6)
    ax1.loglog(grid, new, color=color("d_eps"), lw=2, label=r"new: $\sum \Delta_a / d_\varepsilon$")
    ax1.loglog(grid, old, color=color("earlier bound"), ls="--",
               label=r"2022: $\sum \Delta_a / \min\{\mathrm{kl}, 6\varepsilon\Delta_a\}$")
    if np.isfinite(lr) and lr > 0:
        ax1.axhline(lr, color=color("kl"), ls=":", label=r"Lai–Robbins $\sum \Delta_a / \mathrm{kl}$")
    for t in np.unique(np.round(thr[np.isfinite(thr)], 6)):
        if eps_min <= t <= eps_max:
            for ax in (ax1, ax2):
                ax.axvline(t, color="grey", lw=0.7, ls=":")
    means = ", ".join(f"{m:g}" for m in mu)
    _panel(ax1, f"{label}: [{means}]", "upper right", xlabel=r"privacy budget $\varepsilon$",
           ylabel=r"constant $C$ in $\mathrm{Reg}_T \gtrsim C \log T$")

    ratio = new / old
    top = float(np.max(thr))
    ax2.semilogx(grid, ratio, color="k", lw=2)
    ax2.axhline(6.0, color="grey", lw=0.8, ls="--")
    ax2.axhline(1.0, color="grey", lw=0.8)
    if np.isfinite(top) and top < eps_max:
        ax2.axvspan(max(top, eps_min), eps_max, color=color("band"), alpha=0.35)
        ax2.text(eps_min * 1.2, 2.4,
                 "shaded: every arm in the\nlow-privacy regime; the\nthree bounds coincide",
                 fontsize=8, va="top")
    _panel(ax2, r"improvement factor (dotted: thresholds $\varepsilon^\star_a$)",
           xlabel=r"privacy budget $\varepsilon$", ylabel="new constant / 2022 constant",
           ylim=(0.8, max(6.5, 1.05 * float(np.max(ratio)))))
    return fig


def plot_double_change(mu2: float = 0.3, mu1: float = 0.7, eps: float = 0.5,
                       mu2_prime: float = 0.45) -> Figure:
    r"""The per-pull cost of the double change of environment, as a function of the intermediate mean.

    Going from ``nu = (mu1, mu2)`` to ``nu''`` (arm 2 made optimal) through ``nu' = (mu1, mu2_prime)``
    costs, per pull of arm 2, the TV leg ``eps (mu2' - mu2)`` (group privacy, ``nu -> nu'``) plus the
    KL leg ``kl(mu2', mu1)`` (Lai--Robbins, ``nu' -> nu''`` with ``mu2'' -> mu1``); see
    :func:`dpb.coupling.transport_cost`.  Its minimum over ``mu2'`` is ``d_eps(mu2, mu1)``, reached
    at ``z*`` (:func:`dpb.coupling.optimal_intermediate`), and the lower bound says arm 2 is pulled at
    least ``log T / cost`` times.

    Left: both legs and their sum against ``mu2'``, the chosen ``mu2'`` and the optimum.  Right: the
    cost of four routes split into their legs: the chosen one, the optimal one, all-KL
    (``mu2' = mu2``, Lai--Robbins) and all-TV (``mu2' = mu1``, group privacy only).

    Parameters
    ----------
    mu2, mu1 : float
        Means in [0, 1] with ``mu2 < mu1 < 1`` (arm 2 sub-optimal).
    eps : float
        Privacy budget, finite and > 0.
    mu2_prime : float
        The intermediate mean; values outside ``[mu2, mu1]`` are clipped into it (said in the title).

    Raises
    ------
    ValueError
        If a mean is outside [0, 1], ``mu2 >= mu1``, ``mu1 = 1`` or ``eps`` is not finite and positive.
    """
    mu2 = float(as_probability("mu2", mu2))
    mu1 = float(as_probability("mu1", mu1))
    mp = float(as_probability("mu2_prime", mu2_prime))
    eps = float(as_positive("eps", eps, allow_inf=False))
    if not mu2 < mu1:
        raise ValueError(f"arm 2 must be sub-optimal: need mu2 < mu1, got mu2={mu2!r}, mu1={mu1!r}")
    if mu1 >= 1.0:
        raise ValueError("mu1 = 1 makes the KL leg infinite for every mu2' < 1; take mu1 < 1")
    clipped = not (mu2 <= mp <= mu1)
    mp = min(max(mp, mu2), mu1)

    grid = np.linspace(mu2, mu1, 601)
    cost = transport_cost(grid, mu2, mu1, eps, return_legs=True)
    mine = transport_cost(mp, mu2, mu1, eps, return_legs=True)
    opt = optimal_intermediate(mu2, mu1, eps)
    opt_legs = transport_cost(opt.z_star, mu2, mu1, eps, return_legs=True)
    pure = pure_routes(mu2, mu1, eps)

    fig, (ax1, ax2) = new_figure(2, width=4.4, height=3.6)
    ax1.plot(grid, cost.tv_leg, color=color("eps*TV"), ls="--", label=r"TV leg $\varepsilon(\mu_2' - \mu_2)$")
    ax1.plot(grid, cost.kl_leg, color=color("kl"), ls="--", label=r"KL leg $\mathrm{kl}(\mu_2', \mu_1)$")
    ax1.plot(grid, cost.total, color="k", lw=2, label="total cost per pull")
    ax1.axvline(mp, color="grey", lw=0.8)
    ax1.plot([mp], [mine.total], "o", color="k", zorder=5)
    ax1.plot([opt.z_star], [opt.cost], "*", color=color("d_eps"), ms=14, zorder=6,
             label=rf"optimum $z^\star = {opt.z_star:.3f}$: $d_\varepsilon = {opt.cost:.4f}$")
    top = 1.15 * float(max(np.max(cost.total), pure.all_kl))
    note = " (clipped)" if clipped else ""
    _panel(ax1, rf"$\mu_2 = {mu2:g}$, $\mu_1 = {mu1:g}$, $\varepsilon = {eps:g}$, $\mu_2' = {mp:.3f}${note}",
           "upper right", xlabel=r"intermediate mean $\mu_2'$", ylabel="cost per pull of arm 2",
           xlim=(mu2, mu1), ylim=(0, top))

    names = [rf"your route $\mu_2'={mp:.2f}$", r"optimal $\mu_2'=z^\star$", "all KL (Lai–Robbins)",
             "all TV (group privacy)"]
    tv_parts = [mine.tv_leg, opt_legs.tv_leg, 0.0, pure.all_tv]
    kl_parts = [mine.kl_leg, opt_legs.kl_leg, pure.all_kl, 0.0]
    ypos = np.arange(4)[::-1]
    ax2.barh(ypos, tv_parts, color=color("eps*TV"), label="TV leg")
    ax2.barh(ypos, kl_parts, left=tv_parts, color=color("kl"), label="KL leg")
    xmax = max(t + k for t, k in zip(tv_parts, kl_parts, strict=True))
    for yv, t, k in zip(ypos, tv_parts, kl_parts, strict=True):
        ax2.text(t + k + 0.02 * xmax, yv, f"{t + k:.4f}", va="center", fontsize=8.5)
    ax2.axvline(opt.cost, color=color("d_eps"), lw=1, ls=":")
    ax2.set_yticks(ypos, names, fontsize=8.5)
    _panel(ax2, "four routes from $\\nu$ to $\\nu''$", "lower right", xlabel="cost per pull of arm 2",
           xlim=(0, 1.3 * xmax))
    return fig


def plot_coupled_hamming(mu2: float = 0.3, mu2_prime: float = 0.5, mu1: float = 0.7,
                         policy: str = "random rate", horizon: int = 1000, n_runs: int = 300,
                         xi: float = 0.2, seed: int = 0) -> Figure:
    r"""The coupled environment of the proof, simulated: Hamming distance against ``N_2 TV(P_2, P_2')``.

    Runs :func:`~dpb.chapters.lower_bound.coupled_runs` (the policy sees the rewards of ``nu = (mu1, mu2)``;
    the rewards of ``nu' = (mu1, mu2_prime)`` come from the maximal coupling).  Left: one point per run,
    ``(N_2(T), d_Ham(r, r'))``, with the line ``d_Ham = TV N_2`` and the boundary
    ``(1 + xi) TV N_2`` of the event ``L`` of Step 2 of the proof.  Right: the per-run ratio
    ``d_Ham / N_2`` against ``N_2``, its means in quantile bins of ``N_2``, and the pooled ratio
    ``sum d_Ham / sum N_2``, which estimates ``TV`` for every rule (``E[d_Ham] = TV E[N_2]``); for a
    reward-dependent rule (``"follow the leader"``) the per-run ratio is biased when ``N_2`` is small.

    Parameters
    ----------
    mu2, mu2_prime, mu1 : float
        Means in [0, 1], ``mu2 != mu2_prime``.
    policy : str
        One of :data:`~dpb.chapters.lower_bound.PULLING_RULES`.
    horizon, n_runs : int
        ``T >= 1`` and the number of runs ``>= 1``.
    xi : float
        Slack :math:`\xi > 0` of the event ``L`` (the proof lets it tend to 0).
    seed : int
        Seed of the simulation.

    Raises
    ------
    ValueError
        On invalid means, ``mu2 == mu2_prime``, an unknown policy, or invalid sizes.
    """
    mu2 = float(as_probability("mu2", mu2))
    mp = float(as_probability("mu2_prime", mu2_prime))
    xi = float(as_positive("xi", xi, allow_inf=False))
    if mu2 == mp:
        raise ValueError("mu2_prime must differ from mu2 (otherwise the two reward lists are identical)")
    h = coupled_runs(mu1, mu2, mp, policy=policy, horizon=horizon, n_runs=n_runs, seed=seed)
    tv = float(h.tv[1])
    n2, dh = h.n2, h.d_ham
    ratio = h.hamming_ratio()
    pooled = float(dh.sum() / n2.sum()) if n2.sum() > 0 else float("nan")

    fig, (ax1, ax2) = new_figure(2, width=4.4, height=3.6)
    line = np.linspace(0, max(int(n2.max()), 1), 100)
    ax1.scatter(n2, dh, s=8, alpha=0.5, color=color("Monte Carlo"), label="one run")
    ax1.plot(line, tv * line, color="k", lw=2, label=rf"$\mathrm{{TV}}\cdot N_2$, TV $= {tv:g}$")
    ax1.plot(line, (1 + xi) * tv * line, color="k", ls="--", lw=1,
             label=rf"$(1+\xi)\mathrm{{TV}}\cdot N_2$, $\xi = {xi:g}$")
    _panel(ax1, f"{policy}: {n_runs} runs, T = {horizon}", "upper left", xlabel=r"pulls of arm 2, $N_2(T)$",
           ylabel=r"$d_{\mathrm{Ham}}(\mathbf{r}, \mathbf{r}')$")

    ok = n2 > 0
    ax2.scatter(n2[ok], ratio[ok], s=8, alpha=0.35, color=color("Monte Carlo"), label="one run")
    cx, cy, _ = binned_means(n2[ok].astype(float), ratio[ok], n_bins=8)
    ax2.plot(cx, cy, "s-", color=color("binned mean"), ms=5, label=r"mean in bins of $N_2$")
    ax2.axhline(tv, color="k", lw=2, label="TV")
    ax2.axhline(pooled, color=color("pooled estimate"), ls="--",
                label=rf"pooled $\sum d_{{\mathrm{{Ham}}}}/\sum N_2 = {pooled:.3f}$")
    if np.any(ok) and n2[ok].max() > 50 * max(n2[ok].min(), 1):
        ax2.set_xscale("log")
    _panel(ax2, r"per-run ratio $d_{\mathrm{Ham}} / N_2$ against $N_2$", "upper right",
           xlabel=r"pulls of arm 2, $N_2(T)$", ylabel=r"$d_{\mathrm{Ham}} / N_2$", ylim=(-0.02, 1.02))
    return fig

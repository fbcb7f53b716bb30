"""Figures of the Background chapter: the Laplace mechanism and the Bernoulli kl."""

from __future__ import annotations

from matplotlib.figure import Figure

import numpy as np

from .._validate import as_positive, as_probability, as_real
from ..divergences import kl, kl_ucb
from ..privacy import laplace_log_density_ratio, laplace_pdf
from .style import color, new_figure

__all__ = ["plot_laplace_mechanism", "plot_kl"]


def plot_laplace_mechanism(eps: float = 1.0, s: float = 3.0, s_prime: float = 4.0,
                           sensitivity: float = 1.0) -> Figure:
    r"""Two sums released through the Laplace mechanism, and the log ratio of their output densities.

    Left: the densities of ``s + Lap(sensitivity/eps)`` and ``s_prime + Lap(sensitivity/eps)``.
    Right: the log of their ratio at every output, against the band [-eps, eps] that eps-DP allows
    (:prf:ref:`thm-laplace`).  It stays inside exactly when
    ``abs(s - s_prime) <= sensitivity`` (neighbouring sums); otherwise it reaches
    ``eps abs(s - s_prime) / sensitivity``, the group-privacy bound for inputs that differ in
    ``k = abs(s - s_prime) / sensitivity`` records (Proposition 'Group Privacy'), drawn dashed.

    Parameters
    ----------
    eps : float
        Privacy budget, in (0, +inf).
    s, s_prime : float
        The two true sums f(D) and f(D').
    sensitivity : float
        The sensitivity of the sum, in (0, +inf).

    Returns
    -------
    matplotlib.figure.Figure
    """
    eps = float(as_positive("eps", eps, allow_inf=False))
    sensitivity = float(as_positive("sensitivity", sensitivity, allow_inf=False))
    s = as_real("s", s, low=-1e300, high=1e300)
    s_prime = as_real("s_prime", s_prime, low=-1e300, high=1e300)
    scale = sensitivity / eps
    lo, hi = min(s, s_prime) - 6 * scale, max(s, s_prime) + 6 * scale
    x = np.linspace(lo, hi, 801)
    fig, (ax1, ax2) = new_figure(2, height=4.0)
    ax1.plot(x, laplace_pdf(x, s, eps, sensitivity), color=color("Laplace noise"), label=f"$S = {s:g}$")
    ax1.plot(x, laplace_pdf(x, s_prime, eps, sensitivity), color=color("neighbouring list"), ls="--",
             label=f"$S' = {s_prime:g}$")
    ax1.set(xlabel="released value $o$", ylabel="density", title=f"Laplace mechanism, $\\varepsilon={eps:g}$")
    ax1.legend(frameon=False, loc="upper center", bbox_to_anchor=(0.5, -0.2), ncol=2, fontsize="small")
    ratio = laplace_log_density_ratio(x, s, s_prime, eps, sensitivity)
    k = abs(s - s_prime) / sensitivity
    top = 1.3 * max(eps, k * eps)
    ax2.axhspan(-eps, eps, color=color("band"), alpha=0.4, label=r"$[-\varepsilon, \varepsilon]$")
    ax2.plot(x, ratio, color="k", label=r"$\log p(o\mid S)/p(o\mid S')$")
    inside = k <= 1
    if not inside:
        for sign in (-1, 1):
            ax2.axhline(sign * k * eps, color=color("upper bound"), ls="--", lw=1,
                        label=f"group bound $\\pm{k:g}\\varepsilon$" if sign > 0 else None)
    ax2.set(xlabel="released value $o$", ylabel="log density ratio", ylim=(-top, top))
    ax2.set_title("neighbours: ratio within $e^{\\pm\\varepsilon}$" if inside
                  else "not neighbours: ratio leaves the band")
    ax2.legend(frameon=False, loc="upper center", bbox_to_anchor=(0.5, -0.2), ncol=2, fontsize="small")
    return fig


def plot_kl(p: float = 0.1, c: float = 0.1, eps: float = 1.0) -> Figure:
    r"""The Bernoulli relative entropy q -> kl(p, q), the KL-UCB index it defines, and eps times TV.

    Left: ``kl(p, q)`` against ``q`` with Pinsker's lower bound ``2 (p - q)^2``, the privacy price
    ``eps abs(p - q)`` (eps times the total variation between Bernoulli(p) and Bernoulli(q), the
    other ingredient of the paper's divergence d_eps), the level ``c`` and the largest ``q`` with
    ``kl(p, q) <= c`` -- the KL-UCB index of an arm with empirical mean ``p`` when
    ``c = log(t) / N``.  Right: the KL-UCB index against the level ``c`` (log scale), next to the
    Hoeffding index ``min(1, p + sqrt(c / 2))`` that Pinsker's inequality gives; the KL index is
    never larger.

    Parameters
    ----------
    p : float
        Empirical mean, in [0, 1].
    c : float
        Level (exploration budget), in (0, +inf).
    eps : float
        Privacy budget of the TV line, in (0, +inf).

    Returns
    -------
    matplotlib.figure.Figure
    """
    p = float(as_probability("p", p))
    c = float(as_positive("c", c, allow_inf=False))
    eps = float(as_positive("eps", eps, allow_inf=False))
    q = np.linspace(0.0, 1.0, 1001)
    fig, (ax1, ax2) = new_figure(2, height=4.0)
    ax1.plot(q, kl(p, q), color=color("kl"), label=r"$\mathrm{kl}(p, q)$")
    ax1.plot(q, 2 * (p - q) ** 2, color=color("Pinsker"), ls=":", label=r"Pinsker $2(p-q)^2$")
    ax1.plot(q, eps * np.abs(p - q), color=color("eps*TV"), ls="-.",
             label=r"$\varepsilon\,\mathrm{TV} = \varepsilon|p-q|$")
    ax1.axhline(c, color="grey", lw=0.8)
    u = kl_ucb(p, c)
    ax1.axvline(u, color=color("KL-UCB"), ls="--", label=f"KL-UCB index {u:.3f}")
    ax1.set(xlabel="$q$", ylabel="divergence", ylim=(0, max(4 * c, 0.5)),
            title=f"$p = {p:g}$, level $c = {c:g}$, $\\varepsilon = {eps:g}$")
    ax1.legend(frameon=False, loc="upper center", bbox_to_anchor=(0.5, -0.2), ncol=2, fontsize="small")
    levels = np.geomspace(1e-3, 10.0, 200)
    ax2.plot(levels, kl_ucb(p, levels), color=color("KL-UCB"), label="KL-UCB index")
    ax2.plot(levels, np.minimum(1.0, p + np.sqrt(levels / 2)), color=color("Hoeffding"), ls=":",
             label=r"Hoeffding $p + \sqrt{c/2}$")
    ax2.axvline(c, color="grey", lw=0.8)
    ax2.plot([c], [u], "o", color=color("KL-UCB"))
    ax2.set(xscale="log", xlabel="level $c = \\log t / N$", ylabel="upper confidence index",
            ylim=(min(p, 0.95) - 0.05, 1.05), title="two optimistic indexes")
    ax2.legend(frameon=False, loc="upper center", bbox_to_anchor=(0.5, -0.2), ncol=2, fontsize="small")
    return fig

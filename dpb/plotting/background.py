"""Figures of the Background chapter: the Laplace mechanism and the Bernoulli kl."""

from __future__ import annotations

import numpy as np

from ..divergences import kl, kl_ucb
from ..privacy import laplace_log_density_ratio, laplace_pdf
from .style import COLORS, new_figure

__all__ = ["plot_laplace_mechanism", "plot_kl"]


def plot_laplace_mechanism(eps: float = 1.0, s: float = 3.0, s_prime: float = 4.0, sensitivity: float = 1.0):
    """Two neighbouring sums released through the Laplace mechanism.

    Left: the densities of ``s + Lap(sensitivity/eps)`` and ``s_prime + Lap(sensitivity/eps)``.
    Right: the log of their ratio at every output, against the band [-eps, eps] that eps-DP allows;
    it stays inside exactly when ``|s - s_prime| <= sensitivity`` (neighbouring sums).
    """
    scale = sensitivity / eps
    lo, hi = min(s, s_prime) - 6 * scale, max(s, s_prime) + 6 * scale
    x = np.linspace(lo, hi, 801)
    fig, (ax1, ax2) = new_figure(2)
    ax1.plot(x, laplace_pdf(x, s, eps, sensitivity), color=COLORS["laplace"], label=f"$S = {s:g}$")
    ax1.plot(x, laplace_pdf(x, s_prime, eps, sensitivity), color=COLORS["neighbour"], ls="--",
             label=f"$S' = {s_prime:g}$")
    ax1.set(xlabel="released value $o$", ylabel="density", title=f"Laplace mechanism, $\\varepsilon={eps:g}$")
    ax1.legend(frameon=False)
    ratio = laplace_log_density_ratio(x, s, s_prime, eps, sensitivity)
    ax2.axhspan(-eps, eps, color=COLORS["band"], alpha=0.4, label=r"$[-\varepsilon, \varepsilon]$")
    ax2.plot(x, ratio, color="k", label=r"$\log p(o\mid S)/p(o\mid S')$")
    ax2.set(xlabel="released value $o$", ylabel="log density ratio",
            ylim=(-1.3 * max(eps, np.max(np.abs(ratio))), 1.3 * max(eps, np.max(np.abs(ratio)))))
    inside = abs(s - s_prime) <= sensitivity
    ax2.set_title("neighbours: ratio within $e^{\\pm\\varepsilon}$" if inside
                  else "not neighbours: ratio leaves the band")
    ax2.legend(frameon=False, loc="lower right")
    return fig


def plot_kl(p: float = 0.3, c: float = 0.1):
    """The Bernoulli relative entropy q -> kl(p, q), and the KL-UCB index it defines.

    Left: ``kl(p, q)`` against q with Pinsker's lower bound 2(p - q)^2; the level c and the largest
    q with kl(p, q) <= c (the KL-UCB index of an arm whose empirical mean is p, with
    c = log(t) / N).  Right: ``kl(p, q)`` as a heat map over (p, q).
    """
    q = np.linspace(0.0, 1.0, 1001)
    fig, (ax1, ax2) = new_figure(2)
    ax1.plot(q, kl(p, q), color=COLORS["kl"], label=r"$\mathrm{kl}(p, q)$")
    ax1.plot(q, 2 * (p - q) ** 2, color=COLORS["tv"], ls=":", label=r"Pinsker $2(p-q)^2$")
    ax1.axhline(c, color="grey", lw=0.8)
    u = kl_ucb(p, c)
    ax1.axvline(u, color=COLORS["d_eps"], ls="--", label=f"KL-UCB index {u:.3f}")
    ax1.set(xlabel="$q$", ylabel="divergence", ylim=(0, max(4 * c, 0.5)),
            title=f"$p = {p:g}$, level $c = {c:g}$")
    ax1.legend(frameon=False, loc="upper center")
    grid = np.linspace(0.005, 0.995, 199)
    P, Q = np.meshgrid(grid, grid, indexing="ij")
    im = ax2.imshow(np.log10(kl(P, Q) + 1e-6).T, origin="lower", extent=(0, 1, 0, 1), cmap="viridis",
                    aspect="auto")
    ax2.plot([p], [u], "o", color=COLORS["d_eps"])
    ax2.set(xlabel="$p$", ylabel="$q$", title=r"$\log_{10}\,\mathrm{kl}(p, q)$")
    fig.colorbar(im, ax=ax2)
    return fig

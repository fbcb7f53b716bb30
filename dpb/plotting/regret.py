r"""Figures of the upper-bound chapter: convergence of ``N_i(T)/log T``, the proof's decomposition,
the ``alpha`` trade-off and the distribution of the regret over runs.

Every function returns a matplotlib ``Figure`` and is what both the chapter's static figure and the
corresponding explorer of :mod:`dpb.widgets.regret` call.  The data are the book's standard runs
(:func:`dpb.chapters.regret.book_runs`: ``T = 1e8``, 400 runs, cached on disk), so a redraw only reads a file
once the cache is warm.

* :func:`plot_convergence` -- ``N_i(t) / log t`` of DP-IMED or DP-KLUCB against ``t`` with the two
  asymptotes ``alpha / d_eps(mu_i, mu*)`` (:prf:ref:`thm-upper-bound`) and ``1 / d_eps`` (lower bound).
* :func:`plot_decomposition` -- the regret split into the initialisation, pre-convergence (A) and
  post-convergence (B) terms of :eq:`eq-ch06-decomposition`, and the tail of term (A) over runs.
* :func:`plot_alpha_tradeoff` -- ``Reg_T / log T`` against ``alpha`` at several horizons.
* :func:`plot_regret_distribution` -- the histogram of ``Reg_T / log T`` over runs and its quantiles
  against ``t``.
"""

from __future__ import annotations

from matplotlib.figure import Figure

from typing import Any

import matplotlib.pyplot as plt
import numpy as np

from .._validate import as_choice, as_directory, as_int, as_real
from ..chapters.regret import POLYNOMIAL, alpha_tradeoff, book_runs
from ..regret import TERMS, pull_summary
from .style import color, series_color

__all__ = [
    "ALPHAS",
    "HORIZONS",
    "alpha_label",
    "plot_convergence",
    "plot_decomposition",
    "plot_alpha_tradeoff",
    "plot_regret_distribution",
]

#: The batch ratios of the chapter's trade-off figure.
ALPHAS = (1.1, 1.25, 1.5, 2, 3, 4)
#: The horizons of the chapter's trade-off figure.
HORIZONS = (10**4, 10**6, 10**8)

#: concept colours of this chapter's figures (the palette of :mod:`dpb.plotting.style`); a
#: simulated policy's mean and median are drawn in the policy's own colour (median dashed)


def _panels(width: float = 7.0, height: float = 3.9):
    """A figure with two panels stacked vertically (readable at the width of a book page).

    Fixed margins instead of a layout engine: the log axes make constrained layout cost about a
    second per drawing, and the widgets redraw often.
    """
    fig, axes = plt.subplots(2, 1, figsize=(width, 2 * height))
    fig.subplots_adjust(left=0.11, right=0.975, bottom=0.065, top=0.96, hspace=0.3)
    return fig, axes


def _dress(ax, xlabel: str, ylabel: str, title: str, *, scales: str = "xy", title_size: float = 10,
           **legend) -> None:
    """Log scale on the axes named in ``scales``, labels, title and legend (``legend``: its options)."""
    for axis in scales:
        getattr(ax, f"set_{axis}scale")("log")
    ax.set(xlabel=xlabel, ylabel=ylabel)
    ax.set_title(title, fontsize=title_size)
    ax.legend(fontsize=8.5, **legend)


def alpha_label(alpha: Any) -> str:
    """``"α = 2"``, or a description of the polynomial schedule for :data:`dpb.chapters.regret.POLYNOMIAL`."""
    if isinstance(alpha, str):
        as_choice("alpha", alpha, (POLYNOMIAL,))
        return "polynomial batches $B_m=(m+1)^3$"
    return f"α = {_ratio('alpha', alpha):g}"


def _ratio(name: str, value) -> float:
    return as_real(name, value, low=1.0, low_open=True, high=np.inf, high_open=True)


def _check(instance, directory, alphas=None, horizons=None) -> None:
    """Refuse a bad ``instance``, ``directory`` or ``alphas`` before any run is read or computed."""
    if isinstance(instance, (bool, bytes, int, float)) or instance is None:
        raise TypeError(f"instance must be an instance name or a sequence of arm means, got {instance!r}")
    if directory is not None:
        as_directory("directory", directory)
    if alphas is not None:
        if isinstance(alphas, (str, bytes)) or not hasattr(alphas, "__iter__"):
            raise TypeError(f"alphas must be a sequence of batch ratios > 1, got {alphas!r}")
        for i, a in enumerate(alphas):
            _ratio(f"alphas[{i}]", a)
    if horizons is not None:
        if isinstance(horizons, (str, bytes)) or not hasattr(horizons, "__iter__"):
            raise TypeError(f"horizons must be a sequence of horizons, got {horizons!r}")
        for i, h in enumerate(horizons):
            as_int(f"horizons[{i}]", h, minimum=2)


def _upper_label(res) -> str:
    return "α / d_ε" if res.alpha is not None else "1 / d_ε (α → 1)"


def _hardest_arm(res) -> int:
    sub = np.flatnonzero(res.gaps > 0)
    return int(sub[np.argmax(res.means[sub])])


def plot_convergence(instance: Any="mu2", eps: float = 0.25, alpha: Any=2, policy: str = "DP-KLUCB",
                     arm: Any=None,
                     *, directory: Any=None) -> Figure:
    r"""Normalised pulls ``N_i(t) / log t`` against ``t``, with the asymptotes of both bounds.

    Top: one sub-optimal arm ``i`` (default: the one with the largest mean, the hardest) -- the
    mean over runs with its 95% confidence band, the median with the band of the central 80% of
    the runs, and the lines ``alpha / d_eps(mu_i, mu*)`` (:prf:ref:`thm-upper-bound`: the limsup of the
    mean is at most this) and ``1 / d_eps(mu_i, mu*)`` (lower bound: the liminf is at least this).
    Bottom: ``N_i(t) d_eps(mu_i, mu*) / log t`` for every sub-optimal arm (median over runs), on
    the common scale where the lower bound is 1 and the upper bound ``alpha``.

    Parameters
    ----------
    instance : str
        Instance name (:func:`dpb.environments.instance_names`) or means.
    eps : float
        Privacy budget.
    alpha : float or str
        Batch ratio, or :data:`dpb.chapters.regret.POLYNOMIAL`.
    policy : {"DP-IMED", "DP-KLUCB"}
    arm : int, optional
        The arm of the top panel (0-based, sub-optimal).
    directory : path, optional
        Cache directory (default :func:`dpb.regret.cache_dir`).
    """
    _check(instance, directory)
    res = book_runs(instance, eps, alpha, policy, directory=directory)
    c = res.constants()
    sub = np.flatnonzero(c["suboptimal"])
    arm = _hardest_arm(res) if arm is None else as_int("arm", arm, minimum=0, maximum=res.K - 1)
    if arm not in sub:
        raise ValueError(f"arm {arm} is optimal; choose a sub-optimal arm among {sub.tolist()}")
    s = pull_summary(res, level=0.95, band=0.8)
    t = res.grid
    fig, (ax1, ax2) = _panels()

    up, lo = c["upper_pulls"][arm], c["lower_pulls"][arm]
    ax1.fill_between(t, s["q_low"][:, arm], s["q_high"][:, arm], color=color("band"), alpha=0.5,
                     label="10%–90% of runs")
    own = color(res.policy)
    ax1.plot(t, s["median"][:, arm], color=own, ls="--", lw=1.6, label=f"median, {res.policy}")
    ax1.fill_between(t, np.maximum(s["ci_low"][:, arm], 1e-9), s["ci_high"][:, arm], color=own,
                     alpha=0.2, lw=0)
    ax1.plot(t, s["mean"][:, arm], color=own, lw=1.6, label=f"mean (95% CI), {res.policy}")
    ax1.axhline(up, color=color("upper"), ls="--", lw=1.2, label=f"{_upper_label(res)} = {up:.1f}")
    ax1.axhline(lo, color=color("lower"), ls=":", lw=1.4, label=f"1 / d_ε = {lo:.1f}")
    # arms are numbered from 1 in the book (arm 1 is the optimal arm of mu1..mu4)
    _dress(ax1, "horizon t", r"$N_i(t)\,/\,\log t$",
           f"{res.policy}, {alpha_label(alpha)}, ε = {res.eps:g}: arm {arm + 1} (μ = {res.means[arm]:g})",
           loc="upper left")
    ax1.set_ylim(0.2 * lo, max(3.0 * up, float(np.nanmax(s["ci_high"][:, arm])) * 1.5))

    d = 1.0 / c["lower_pulls"][sub]
    ratio = np.median(res.total_pulls()[:, :, sub] * d / np.log(t)[None, :, None], axis=0)
    for k, a in enumerate(sub):
        ax2.plot(t, ratio[:, k], color=series_color(int(a)), lw=1.4,
                 label=f"arm {a + 1} (μ = {res.means[a]:g})")
    a_up = res.alpha if res.alpha is not None else 1.0
    ax2.axhline(a_up, color=color("upper"), ls="--", lw=1.2, label="upper bound (α)")
    ax2.axhline(1.0, color=color("lower"), ls=":", lw=1.4, label="lower bound (1)")
    _dress(ax2, "horizon t", r"$N_i(t)\, d_\varepsilon(\mu_i, \mu^\star) / \log t$",
           f"median over {res.runs} runs, every sub-optimal arm", scales="x", loc="upper right", ncol=2)
    ax2.set_ylim(0, max(2.0, 1.8 * a_up))
    return fig


def plot_decomposition(instance: Any="mu2", eps: float = 0.25, alpha: Any=2, policy: str = "DP-IMED",
                       alphas: Any=(1.1, 1.5, 2, 3), *, directory: Any=None) -> Figure:
    r"""The proof's decomposition of the regret, measured.

    Top: the mean (solid) and median (dashed) over runs of the pre-convergence term (A) and the
    post-convergence term (B) of :eq:`eq-ch06-decomposition` against ``t``,
    with the leading terms ``alpha C log t`` and ``C log t`` (``C`` the lower-bound constant).
    Term (A) stops growing (it is ``O(1)`` in expectation); term (B) grows like ``log t``.
    Bottom: the tail ``P[(A) > x]`` over runs of the pre-convergence regret at ``T = 1e8`` for
    several ``alpha`` (log-log): heavy, and heavier for ``alpha`` close to 1.

    Parameters
    ----------
    instance, eps, alpha, policy
        As in :func:`plot_convergence` (``alpha`` is the top panel's).
    alphas : sequence of float
        The ratios of the bottom panel.
    directory : path, optional
        Cache directory.
    """
    _check(instance, directory, alphas)
    res = book_runs(instance, eps, alpha, policy, directory=directory)
    c = res.constants()
    t = res.grid
    terms = res.regret_terms()
    fig, (ax1, ax2) = _panels()
    for name in ("pre", "post"):
        k = TERMS.index(name)
        label = "pre-convergence (A)" if name == "pre" else "post-convergence (B)"
        mean = terms[..., k].mean(axis=0)
        med = np.median(terms[..., k], axis=0)
        col = color(name)
        ax1.plot(t, np.where(mean > 0, mean, np.nan), color=col, lw=1.7, label=f"{label}, mean")
        ax1.plot(t, np.where(med > 0, med, np.nan), color=col, lw=1.2, ls="--", label=f"{label}, median")
    ax1.plot(t, c["upper_regret"] * np.log(t), color=color("upper"), lw=1.0, ls="--", label="α C log t")
    ax1.plot(t, c["lower_regret"] * np.log(t), color=color("lower"), lw=1.2, ls=":", label="C log t")
    _dress(ax1, "horizon t", "regret of the term",
           f"{res.policy}, {alpha_label(alpha)}, ε = {res.eps:g}, δ = {res.delta:g}", loc="upper left")

    k = TERMS.index("pre")
    for j, a in enumerate(alphas):
        r = book_runs(instance, eps, a, policy, directory=directory)
        pre = np.sort(r.regret_terms()[:, -1, k])
        surv = 1.0 - np.arange(pre.size) / pre.size  # P[(A) >= pre[i]]
        keep = pre > 0
        ax2.step(pre[keep], surv[keep], where="post", color=series_color(j), lw=1.5,
                 label=f"{alpha_label(a)}: mean {pre.mean():,.0f}")
    _dress(ax2, f"pre-convergence regret (A) at T = {res.T:.0e}".replace("e+0", "e"), "fraction of runs ≥ x",
           f"tail over {res.runs} runs", loc="lower left")
    ax2.set_ylim(0.5 / res.runs, 1.2)
    return fig


def plot_alpha_tradeoff(instance: Any="mu2", eps: float = 0.25, policy: str = "DP-KLUCB", alphas: Any=ALPHAS,
                        horizons: Any=HORIZONS, *, directory: Any=None) -> Figure:
    r"""``Reg_T / log T`` against the batch ratio ``alpha`` at a few horizons.

    Top: mean (markers, with two standard errors, the lower bar cut at half the mean on the log
    scale) and median (dashed) of ``Reg_T / log T`` over
    runs at each horizon, with the leading constant ``alpha C`` of :prf:ref:`thm-upper-bound` and the
    lower-bound constant ``C``.  Bottom: at the largest horizon, the mean of the pre-convergence
    and post-convergence terms divided by ``log T``: the first falls with ``alpha`` (fewer phases,
    fewer noises), the second rises like ``alpha C``.

    Parameters
    ----------
    instance, eps, policy
        As in :func:`plot_convergence`.
    alphas : sequence of float
        Batch ratios (> 1).
    horizons : sequence of int
        Horizons (grid points of the book's runs: powers of 10 from 1e2 to 1e8).
    directory : path, optional
        Cache directory.
    """
    _check(instance, directory, alphas, horizons)
    tr = alpha_tradeoff(policy, instance, eps=eps, alphas=alphas, horizons=horizons, directory=directory)
    a = tr["alphas"]
    logs = np.log(tr["horizons"].astype(float))
    C = tr["lower"][0] / logs[0]
    fig, (ax1, ax2) = _panels()
    for h, T in enumerate(tr["horizons"]):
        col = series_color(h)
        lab = f"T = 1e{round(np.log10(T))}"
        m, e = tr["mean"][:, h] / logs[h], 2 * tr["sem"][:, h] / logs[h]
        ax1.errorbar(a, m, yerr=[np.minimum(e, 0.5 * m), e], color=col, marker="o",
                     ms=4, lw=1.4, capsize=2, label=f"{lab}: mean")
        ax1.plot(a, tr["median"][:, h] / logs[h], color=col, ls="--", lw=1.1, label=f"{lab}: median")
    grid = np.linspace(1.0, a.max() * 1.05, 50)
    ax1.plot(grid, grid * C, color=color("upper"), lw=1.0, label="α C (upper bound)")
    ax1.axhline(C, color=color("lower"), ls=":", lw=1.4, label="C (lower bound)")
    _dress(ax1, "batch ratio α", r"$\mathrm{Reg}_T / \log T$", f"{policy}, ε = {eps:g}, instance {instance}",
           scales="y", loc="upper right", ncol=2)
    lo_y, hi_y = ax1.get_ylim()
    ax1.set_ylim(lo_y, hi_y * 12)  # room for the legend above the curves

    last = len(tr["horizons"]) - 1
    pre = tr["pre_mean"][:, last] / logs[last]
    ax2.plot(a, np.where(pre > 0, pre, np.nan), color=color("pre"), marker="o", ms=4, lw=1.5,
             label="pre-convergence (A), mean (0: not drawn)")
    ax2.plot(a, tr["post_mean"][:, last] / logs[last], color=color("post"), marker="s", ms=4, lw=1.5,
             label="post-convergence (B), mean")
    ax2.plot(grid, grid * C, color=color("upper"), lw=1.0, label="α C")
    ax2.axhline(C, color=color("lower"), ls=":", lw=1.4, label="C")
    _dress(ax2, "batch ratio α", r"term $/ \log T$",
           f"the two terms at T = 1e{round(np.log10(tr['horizons'][last]))}; phases per run: "
           f"{tr['phases'][0]:.0f} (α = {a[0]:g}) to {tr['phases'][-1]:.0f} (α = {a[-1]:g})",
           scales="y", title_size=9, loc="upper right")
    return fig


def plot_regret_distribution(instance: Any="mu2", eps: float = 0.25, alpha: Any=2, policy: str = "DP-IMED",
                             T: int = 10**8, *, directory: Any=None) -> Figure:
    r"""The distribution of ``Reg_T / log T`` over runs, and its quantiles against ``t``.

    Top: histogram (log-spaced bins) of ``Reg_T / log T`` over the runs, split by which term of the
    decomposition dominates a run's regret, with the constants ``C`` and ``alpha C`` and the mean
    and median.  Bottom: the median, the 25%-75% and 10%-90% bands and the mean of
    ``Reg_t / log t`` against ``t``, with the same two constants.

    Parameters
    ----------
    instance, eps, alpha, policy
        As in :func:`plot_convergence`.
    T : int
        The horizon of the histogram, a grid point of the book's runs (e.g. a power of 10 from 1e2
        to 1e8).
    directory : path, optional
        Cache directory.
    """
    _check(instance, directory)
    res = book_runs(instance, eps, alpha, policy, directory=directory)
    c = res.constants()
    col = res.at(T)
    reg = res.regret()
    x = reg[:, col] / np.log(T)
    pre_share = res.regret_terms()[:, col, TERMS.index("pre")] / np.maximum(reg[:, col], 1e-12)
    fig, (ax1, ax2) = _panels()
    lo_edge = max(min(x[x > 0].min() if np.any(x > 0) else 1.0, c["lower_regret"]) / 1.5, 1e-3)
    hi_edge = max(x.max(), c["upper_regret"]) * 1.5
    bins = np.geomspace(lo_edge, hi_edge, 40)
    dominated = pre_share > 0.5
    ax1.hist([x[~dominated], x[dominated]], bins=bins, stacked=True, color=[color("post"), color("pre")],
             label=[f"post-convergence dominates ({np.sum(~dominated)})",
                    f"pre-convergence dominates ({np.sum(dominated)})"])
    ax1.axvline(c["lower_regret"], color=color("lower"), ls=":", lw=1.6, label=f"C = {c['lower_regret']:.1f}")
    ax1.axvline(c["upper_regret"], color=color("upper"), ls="--", lw=1.2,
                label=f"α C = {c['upper_regret']:.1f}")
    own = color(res.policy)
    ax1.axvline(x.mean(), color=own, lw=1.4, label=f"mean = {x.mean():.1f}, {res.policy}")
    ax1.axvline(np.median(x), color=own, ls="--", lw=1.4, label=f"median = {np.median(x):.1f}, {res.policy}")
    _dress(ax1, r"$\mathrm{Reg}_T / \log T$", "runs (log scale)",
           f"{res.policy}, {alpha_label(alpha)}, ε = {res.eps:g}, T = 1e{round(np.log10(T))}",
           loc="upper right")
    ax1.set_ylim(0.7, res.runs * 3)

    t = res.grid
    y = reg / np.log(t)[None, :]
    q10, q25, q50, q75, q90 = np.quantile(y, [0.1, 0.25, 0.5, 0.75, 0.9], axis=0)
    ax2.fill_between(t, q10, q90, color=color("band"), alpha=0.45, lw=0, label="10%–90%")
    ax2.fill_between(t, q25, q75, color=color("band"), alpha=0.9, lw=0, label="25%–75%")
    ax2.plot(t, q50, color=own, ls="--", lw=1.6, label=f"median, {res.policy}")
    ax2.plot(t, y.mean(axis=0), color=own, lw=1.6, label=f"mean, {res.policy}")
    ax2.axhline(c["upper_regret"], color=color("upper"), ls="--", lw=1.2, label="α C")
    ax2.axhline(c["lower_regret"], color=color("lower"), ls=":", lw=1.6, label="C")
    _dress(ax2, "horizon t", r"$\mathrm{Reg}_t / \log t$", f"quantiles over {res.runs} runs",
           loc="upper left", ncol=2)
    return fig

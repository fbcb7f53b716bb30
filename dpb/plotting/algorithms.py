"""Figures of the Algorithms chapter: batches, forgetting, phase traces.

The numbers come from :mod:`dpb.chapters.algorithms`:

* :func:`plot_schedules` -- how many Laplace draws a batch schedule costs
  (:func:`~dpb.chapters.algorithms.schedule_comparison`, :func:`~dpb.batching.phases_to_reach`);
* :func:`plot_forgetting` -- what not forgetting costs and what it buys: the noise and the exact
  tail of the private mean, accumulated or forgotten
  (:func:`~dpb.chapters.algorithms.forgetting_comparison`);
* :func:`plot_trace_phase` -- one run phase by phase (:func:`~dpb.chapters.algorithms.trace_for`,
  :func:`~dpb.chapters.algorithms.trace_rows`): the indexes and private means at any phase.
"""

from __future__ import annotations

from matplotlib.figure import Figure

from typing import Any

import math

import matplotlib.pyplot as plt
import numpy as np

from .._validate import as_int
from ..chapters.algorithms import DESIGNS, forgetting_comparison, schedule_comparison, trace_for, trace_rows
from ..environments import as_bandit
from ..policies import POLICIES
from .style import color, new_figure, series_color

__all__ = [
    "plot_forgetting",
    "plot_schedules",
    "plot_trace_phase",
]

_LOG10 = math.log(10.0)


def plot_trace_phase(policy: str = "DP-IMED", env: str = "mu2", eps: float = 0.25, seed: int = 0,
                     phase: int = 25, T: int = 2000) -> Figure:
    r"""One run of a policy at one of its phases: the indexes, the private means, and a table.

    Top left: the index of every arm at the decision that opened phase ``phase`` (the played arm
    highlighted; DP-IMED and IMED play the *smallest*, the others the largest, and for those the
    true means are drawn as ticks).  Top right: every arm's private (or empirical) mean after each
    phase up to ``phase``, from the round at which it becomes available (log axis), with the true
    means dashed and the band [0, 1], to which the index clips a private mean, shaded.  The means
    themselves are drawn raw (a private mean can lie far outside [0, 1]); the few beyond
    [-0.5, 1.5] are drawn on the edge of the axis, which says so.  Bottom:
    :func:`~dpb.chapters.algorithms.trace_rows` up to ``phase``.  The run is
    :func:`~dpb.chapters.algorithms.trace_for` (``policy``, ``env``, ``eps``, ``seed``, ``T``);
    ``phase`` beyond the last phase is moved to the last one.

    Returns
    -------
    matplotlib.figure.Figure
    """
    trace = trace_for(policy, env, eps, seed, T)
    phase = min(as_int("phase", phase, minimum=0), len(trace) - 1)
    tab = trace.table()
    means = np.asarray(as_bandit(env).means)
    K = means.size
    cur = trace.phases[phase]
    kind = POLICIES[policy].index_kind

    fig = plt.figure(figsize=(8.8, 6.8), constrained_layout=True)
    gs = fig.add_gridspec(2, 2, height_ratios=[3.0, 1.7])
    ax1, ax2, ax3 = fig.add_subplot(gs[0, 0]), fig.add_subplot(gs[0, 1]), fig.add_subplot(gs[1, :])

    arms = np.arange(1, K + 1)
    idx = cur["index"]
    played = cur["counts"] > 0
    colors = [color("played") if pl else color("band") for pl in played]
    if np.isfinite(idx).any():
        ax1.bar(arms, np.where(np.isfinite(idx), idx, 0.0), color=colors, edgecolor="k", lw=0.5)
        rule = "smallest" if kind == "min" else "largest"
        ax1.set_title(f"{policy}, phase {phase} (t = {cur['t']}):\nindexes; plays the {rule}",
                      fontsize=10)
    else:
        ax1.bar(arms, np.zeros(K), color=colors, edgecolor="k", lw=0.5)
        ax1.text(0.5, 0.5, "initialisation: every arm in turn,\nno index used", ha="center",
                 va="center", transform=ax1.transAxes)
        ax1.set_title(f"{policy}: phase {phase} (t = {cur['t']})", fontsize=10)
    if kind == "max":  # the index is an optimistic mean (or a sample of one): compare with the truth
        ax1.plot(arms, means, "_", color="k", ms=22, mew=2, label=r"true mean $\mu_a$")
        ax1.legend(frameon=False, fontsize=8, loc="upper right")
    ax1.set(xlabel="arm", ylabel="index", xticks=arms)

    # a phase's new mean is available from the round after it ends: t + pulls
    t_avail = tab["t"][: phase + 1] + tab["pulls"][: phase + 1]
    stat = np.clip(tab["statistic"][: phase + 1], -0.5, 1.5)
    for a in range(K):
        col = series_color(a)
        ax2.step(t_avail, stat[:, a], where="post", color=col, lw=1.4, label=f"arm {a + 1}")
        ax2.axhline(means[a], color=col, ls="--", lw=0.8)
    ax2.axhspan(0.0, 1.0, color="0.92", zorder=0, label="[0, 1]: what the index uses (clipped)")
    ax2.set(xscale="log", xlabel="round t", ylabel="raw private mean (cut at the axis)",
            ylim=(-0.55, 1.55), xlim=(1, max(2, trace.T + 1)))
    ax2.set_title(f"{env}, $\\varepsilon = {eps:g}$, seed {seed}:\nprivate means after each phase",
                  fontsize=10)
    ax2.legend(frameon=False, fontsize=8, ncol=3, loc="upper center", bbox_to_anchor=(0.5, -0.17))

    ax3.axis("off")
    rows = trace_rows(trace, phase, window=6)
    ax3.text(0.5, 1.0, "\n".join(rows), family="monospace", fontsize=11.5, va="top", ha="center",
             transform=ax3.transAxes)
    # an invisible point so that the axes reports data (tests and the site check figures have data)
    ax3.plot([0], [0], alpha=0.0)
    return fig


# ----------------------------------------------------------------------------------------------
# figures
# ----------------------------------------------------------------------------------------------
def plot_forgetting(n0: int = 1, alpha: Any=2.0, eps: float = 0.25, mu: float = 0.5, x: float = 0.6,
                    n_max: int = 20_000, runs: int = 4000, seed: int = 0) -> Figure:
    r"""Accumulating (no forgetting) against forgetting: noise of the private mean, and its tail.

    Left (log-log): the standard deviation of the noise part of the private mean at each phase
    end n of the geometric schedule, exact (lines, :func:`~dpb.chapters.algorithms.noise_std_of_private_mean`)
    and simulated (markers; the band runs from the median to the 95% quantile of the simulated
    absolute noise values), with the sampling spread :math:`\sqrt{\mu(1-\mu)/\text{rewards}}`
    (thin).  Right: the exact :math:`\log_{10} P[\text{private mean} \ge x]` for both designs
    (:func:`~dpb.chapters.algorithms.forgetting_comparison`).
    Accumulating carries more noise but uses every reward, so its tail decays faster.
    """
    data = forgetting_comparison(n0, alpha, eps, mu, x, n_max, runs, seed)
    n = data["n"]
    fig, (ax1, ax2) = new_figure(2, width=4.4, height=3.8)
    labels = {"accumulate": "accumulate (paper)", "forget": "forget (earlier designs)"}
    for design in DESIGNS:
        d, col = data[design], color(design)
        ax1.plot(n, d["noise_std"], color=col, lw=1.8, label=labels[design])
        ax1.plot(n, d["mc_std"], "o", color=col, ms=3.5)
        ax1.fill_between(n, d["mc_med"], d["mc_hi"], color=col, alpha=0.15)
        ax1.plot(n, d["sampling_std"], color=col, lw=1.0, ls=":")
        ax2.plot(n, d["log_tail"] / _LOG10, "o-", color=col, ms=3.5, label=labels[design])
    ax1.plot([], [], color="k", lw=1.8, label="noise part (points: simulated)")
    ax1.plot([], [], color="k", lw=1.0, ls=":", label="sampling part")
    ax1.set(xscale="log", yscale="log", xlabel="pulls of the arm $n$ (phase ends)",
            ylabel="standard deviation of the private mean",
            title=f"noise vs sampling, $\\varepsilon = {eps:g}$, $\\alpha = {alpha:g}$")
    ax1.legend(frameon=False, fontsize=7.5, loc="lower left")
    ax2.set(xscale="log", xlabel="pulls of the arm $n$ (phase ends)",
            ylabel=r"$\log_{10} P[\mathrm{private\ mean} \geq x]$",
            title=f"tail at $x = {x:g}$, $\\mu = {mu:g}$ (exact)")
    ax2.legend(frameon=False, fontsize=8, loc="lower left")
    return fig


def plot_schedules(n0: int = 1, alpha: Any=1.1, power: Any=2, n_max: int = 10**6) -> Figure:
    r"""Three batch schedules: batch sizes, and phases (Laplace draws) against pulls.

    Left: :math:`B_m` against m (log scale) for the geometric schedule (n0, alpha), doubling
    (n0) and polynomial (n0, power).  Right: the number of phases an arm completes before being
    pulled n times (:func:`~dpb.batching.phases_to_reach`), against n on a log axis: a straight line for the
    geometric schedules (slope :math:`1/\log\alpha`), a power :math:`n^{1/(p+1)}` for the
    polynomial one.  All three make a vanishing fraction of Laplace draws per pull, the condition
    :math:`m = o(n)` of Proposition 'Concentration Bound of Private Mean'.
    """
    data = schedule_comparison(n0, alpha, power, n_max)
    n = data["n"]
    fig, (ax1, ax2) = new_figure(2, width=4.4, height=3.5)
    labels = {
        "geometric": f"geometric $\\alpha = {float(alpha):g}$",
        "doubling": "doubling",
        "polynomial": f"polynomial $p = {float(power):g}$",
    }
    for name in ("geometric", "doubling", "polynomial"):
        d, col = data[name], color(name)
        ls = "--" if name == "doubling" else "-"
        ax1.plot(np.arange(d["sizes"].size), d["sizes"], ls, color=col, marker=".", ms=3, label=labels[name])
        ax2.plot(n, d["phases"], ls, color=col, label=labels[name])
    ax1.set(yscale="log", xlabel="phase $m$", ylabel="batch size $B_m$", title=f"batches ($n_0 = {n0}$)")
    ax2.set(xscale="log", xlabel="pulls $n$", ylabel="phases = Laplace draws",
            title="Laplace draws in an arm's running sum")
    ax1.legend(frameon=False, fontsize=8)
    ax2.legend(frameon=False, fontsize=8)
    return fig

"""Figures of the privacy chapter: continual release, the adaptive game, the audit, the noise bill.

Every number drawn here comes from :mod:`dpb.chapters.privacy` (built on :mod:`dpb.privacy`,
:mod:`dpb.interaction` and :mod:`dpb.audit`).
"""

from __future__ import annotations

from matplotlib.figure import Figure

import matplotlib.pyplot as plt
import numpy as np

from ..chapters.privacy import audit_curves, continual_release_example, game_curves, noise_cost
from ..chapters.privacy import release_starts  # noqa: F401 - its former home: the name still works here
from .style import color, new_figure

__all__ = [
    "plot_continual_release",
    "plot_game",
    "plot_audit",
    "plot_noise_cost",
]

def plot_continual_release(T: int = 24, t_star: int = 5, eps: float = 1.0, schedule: str = "doubling",
                           seed: int = 2) -> Figure:
    r"""A reward stream, its phases, the noisy running sums on two neighbouring streams, the ratio.

    The numbers are :func:`dpb.chapters.privacy.continual_release_example`'s.  Top: a seeded
    Bernoulli(0.6) stream ``r`` and its neighbour ``r'`` (reward ``t_star`` flipped), with the phase
    boundaries.  Middle: the exact running sums of both streams at the phase ends and the released
    ones, ``C_k = sum_{j<=k} (s_j + Y_j)`` with the *same* noise draws
    (:func:`dpb.privacy.continual_release`): after the phase of ``t_star`` the two releases differ
    by the changed reward, forever -- nothing is forgotten.  Bottom: the contribution of each
    release to the exact log density ratio of the whole release vector at the released value
    (:func:`dpb.privacy.continual_release_log_ratio`, :prf:ref:`lem-ch05-continual`): only the phase
    containing ``t_star`` contributes, and its term lies in
    [-eps, eps].

    Parameters
    ----------
    T : int
        Stream length (>= 2).
    t_star : int
        The changed step, 1-based, in ``1..T``.
    eps : float
        Privacy budget, in (0, +inf).
    schedule : {"doubling", "constant", "steps"}
        Phase structure (:func:`dpb.chapters.privacy.release_starts`).
    seed : int
        Seed of the stream and the noise.

    Returns
    -------
    matplotlib.figure.Figure
    """
    d = continual_release_example(T, t_star, eps, schedule, seed)
    T, t_star, eps = len(d["r"]), int(t_star), float(eps)
    r, rp, st, ends, o, op = d["r"], d["r_prime"], d["starts"], d["ends"], d["released"], d["released_prime"]
    terms, total, k_star = d["terms"], d["log_ratio"], d["k_star"]

    fig, axes = plt.subplots(3, 1, figsize=(8.5, 8.0), sharex=True, constrained_layout=True)
    ax1, ax2, ax3 = axes
    steps = np.arange(1, T + 1)
    ax1.vlines(steps - 0.12, 0, r, color=color("list"), lw=3, label=r"stream $\mathbf{r}$")
    ax1.vlines(steps + 0.12, 0, rp, color=color("neighbouring list"), lw=3, label=r"neighbour $\mathbf{r}'$")
    ax1.plot([t_star], [1.12], "v", color="k", label=f"changed reward $t^\\star = {t_star}$")
    ax1.set(ylabel="reward", ylim=(0, 1.3), yticks=[0, 1],
            title=f"{st.size} phases, one $\\mathrm{{Lap}}(1/\\varepsilon)$ noise each, "
                  f"$\\varepsilon = {eps:g}$")
    ax1.legend(frameon=False, loc="upper center", bbox_to_anchor=(0.5, -0.08), ncol=3, fontsize="small")
    for ax in axes:
        for b in st[1:]:
            ax.axvline(b + 0.5, color="grey", lw=0.7, ls=":")
    ax2.plot(steps, np.cumsum(r), drawstyle="steps-mid", color=color("list"), alpha=0.6,
             label="exact running sum of r")
    ax2.plot(steps, np.cumsum(rp), drawstyle="steps-mid", color=color("neighbouring list"), alpha=0.6,
             ls="--",
             label="exact running sum of r'")
    ax2.plot(ends, o, "o", color=color("list"), label="released on r")
    ax2.plot(ends, op, "s", mfc="none", color=color("neighbouring list"), label="released on r' (same noise)")
    for k, (e_k, o_k) in enumerate(zip(ends, o, strict=True)):
        ax2.annotate(f"{k + 1}", (e_k, o_k), textcoords="offset points", xytext=(-10, 4), fontsize="x-small")
    ax2.set(ylabel="running sum", title="release $k$ carries $k$ noises: nothing is forgotten")
    ax2.legend(frameon=False, loc="upper left", fontsize="small", ncol=2)
    ax3.axhspan(-eps, eps, color=color("band"), alpha=0.4, label=r"$[-\varepsilon, \varepsilon]$")
    mine = np.arange(st.size) == k_star  # the release of the phase that holds t*: one swatch each
    ax3.bar(ends[~mine], terms[~mine], width=0.8, color="k", label="other releases")
    ax3.bar(ends[mine], terms[mine], width=0.8, color=color("neighbouring list"),
            label=r"release holding $t^\star$ (neighbour differs)")
    ax3.axhline(total, color="k", ls="--", lw=1,
                label=f"total log ratio: {total:.3f}")
    ax3.set(xlabel="step $t$ (bars at the release ending each phase)",
            ylabel=r"$\log p_{\mathbf{r}}(o)/p_{\mathbf{r}'}(o)$", ylim=(-1.6 * eps, 1.6 * eps))
    ax3.legend(frameon=False, loc="upper center", bbox_to_anchor=(0.5, -0.3), ncol=4, fontsize="small")
    ax3.set_xlim(0.3, T + 0.7)
    return fig


def plot_game(policy: str = "DP-IMED", eps: float = 1.0, T: int = 24, t_star: int = 6, runs: int = 3000,
              seed: int = 0) -> Figure:
    r"""The adaptive continual release game with the :class:`~dpb.interaction.LeaderAdversary`.

    The numbers are :func:`dpb.chapters.privacy.game_curves`'s.  Left: at each step ``s``, the
    share of runs playing the arm they played at the challenge step, ``a_s = a_{t_star}``, when the
    secret bit is ``b = L`` and ``b = R`` (independent runs).
    Right: the p-value of the two-sample test that the prefixes ``(a_1, ..., a_s)`` have the same
    law under both bits (:func:`dpb.audit.prefix_law_test`), against the step ``s``, with the
    0.001 false-alarm line.
    Up to ``t_star`` the laws coincide exactly (the paper's remark 'Expanding the View of the
    Reward-feeding Adversary'); after it a private policy keeps them within a factor e^eps, a
    broken one (e.g. ``"DP-IMED [no-noise]"``) separates them.

    Parameters
    ----------
    policy : str
        A name of :func:`dpb.audit.audit_policy_names`.
    eps : float
        Privacy budget, in (0, +inf).
    T : int
        Horizon (>= 3).
    t_star : int
        Challenge step, in ``1..T``.
    runs : int
        Runs per bit (>= 10).
    seed : int
        Seed (the two bits use disjoint children of it).

    Returns
    -------
    matplotlib.figure.Figure
    """
    d = game_curves(policy, eps, T, t_star, runs, seed)
    pol, T, t_star = d["policy"], d["T"], d["t_star"]
    fig, (ax1, ax2) = new_figure(2, height=3.8)
    steps = np.arange(1, T + 1)
    ax1.plot(steps, d["same_L"], "o-", ms=3, color=color("list"), label="$b = L$")
    ax1.plot(steps, d["same_R"], "s--", ms=3, mfc="none", color=color("neighbouring list"),
             label="$b = R$")
    ax1.axvline(t_star, color="k", lw=0.8, ls=":", label=f"challenge $t^\\star = {t_star}$")
    ax1.set(xlabel="step $s$", ylabel=f"share of runs with $a_s = a_{{{t_star}}}$", ylim=(-0.02, 1.02),
            title=f"{pol.name}, $\\varepsilon = {pol.eps:g}$, leader adversary")
    ax1.legend(frameon=False, loc="upper center", bbox_to_anchor=(0.5, -0.2), ncol=3, fontsize="small")
    floor = 1e-30
    pv = d["pvalues"]
    ax2.semilogy(steps, np.maximum(pv, floor), "o-", ms=3, color=color("p-value"),
                 label=f"p-value (shown at {floor:g} when below)")
    ax2.axhline(1e-3, color="grey", ls="--", lw=0.8, label="false-alarm rate 0.001")
    ax2.axvline(t_star, color="k", lw=0.8, ls=":")
    ax2.set(xlabel="prefix length $s$", ylabel="p-value: same law of $(a_1..a_s)$?",
            ylim=(floor / 10, 3), title="two-sample test, prefix by prefix")
    ax2.legend(frameon=False, loc="upper center", bbox_to_anchor=(0.5, -0.2), ncol=1, fontsize="small")
    return fig


def plot_audit(policy: str = "DP-IMED", eps: float = 1.0, runs: int = 2000, T: int = 30, t_star: int = 1,
               pattern: str = "ones", seed: int = 0) -> Figure:
    r"""Audit one policy on two neighbouring lists: the trajectories, and eps_lower against eps.

    Runs :func:`dpb.audit.audit_lists` on :func:`dpb.audit.audit_lists_default` (two arms, all
    rewards equal to the ``pattern`` except the flipped one at ``t_star``) through
    :func:`dpb.chapters.privacy.audit_curves`.  Left: the share of
    runs playing arm 1 at each step on both lists.  Right: the chosen event's log ratio -- the
    point estimate, the two-sided interval (lower end = ``eps_lower``) -- against the claimed
    budget; a lower end above the budget is a refutation at the stated confidence.

    Parameters
    ----------
    policy : str
        A name of :func:`dpb.audit.audit_policy_names` (private or broken).
    eps : float
        Claimed budget, in (0, +inf).
    runs : int
        Runs per list (>= 20); half choose the event, half estimate it.
    T : int
        Horizon (>= 4).
    t_star : int
        Changed step, in ``1..T``.
    pattern : {"ones", "zeros", "alternate"}
        The base list.
    seed : int
        Seed.

    Returns
    -------
    matplotlib.figure.Figure
    """
    d = audit_curves(policy, eps, runs, T, t_star, pattern, seed)
    pol, T, t_star, runs, res = d["policy"], d["T"], d["t_star"], d["runs"], d["result"]
    eps = float(eps)
    fig, (ax1, ax2) = new_figure(2, height=3.9)
    steps = np.arange(1, T + 1)
    ax1.plot(steps, d["share"], "o-", ms=3, color=color("list"), label=r"list $\mathbf{r}$")
    ax1.plot(steps, d["share_prime"], "s--", ms=3, mfc="none", color=color("neighbouring list"),
             label=f"neighbour: $r_{{{t_star}}}$ flipped")
    ax1.axvline(t_star, color="k", lw=0.8, ls=":")
    ax1.set(xlabel="step $s$", ylabel="share of runs playing arm 1", ylim=(-0.02, 1.02),
            title=f"{pol.name}: {runs} runs per list")
    ax1.legend(frameon=False, loc="upper center", bbox_to_anchor=(0.5, -0.2), ncol=2, fontsize="small")
    lo, hi = res.interval
    top = max(2.5 * eps, (lo if np.isfinite(lo) else 0) + 1.0, min(hi, 12) + 0.5,
              (res.eps_hat if np.isfinite(res.eps_hat) else 0) + 0.5)
    bottom = min(-0.5, (lo if np.isfinite(lo) else -1) - 0.5)
    ax2.axhspan(eps, top + 10, color=color("refutes the claim"), alpha=0.12, label="refutes the claim")
    ax2.axhline(eps, color="k", lw=1.2, ls="--", label=f"claimed $\\varepsilon = {eps:g}$")
    est = res.eps_hat if np.isfinite(res.eps_hat) else top - 0.2
    hi_draw = min(hi, top + 10)
    lo_draw = lo if np.isfinite(lo) else bottom
    ax2.errorbar([0], [est], yerr=[[est - lo_draw], [hi_draw - est]], fmt="o", color="k", capsize=6,
                 label=r"$\log\hat p_1/\hat p_2$ and interval")
    ax2.plot([0], [lo_draw], "^", color=color("audit lower bound"), ms=9,
             label=f"$\\hat\\varepsilon_{{\\mathrm{{lower}}}} = {lo:.2f}$")
    verdict = "CAUGHT: not eps-DP" if res.caught else "no violation found"
    ax2.set(xlim=(-1, 1), xticks=[], ylim=(bottom, top), ylabel="privacy loss (log ratio)",
            title=f"{verdict} ({100 * res.confidence:g}% confidence)")
    ax2.legend(frameon=False, loc="upper center", bbox_to_anchor=(0.5, -0.05), ncol=2, fontsize="small")
    fig.audit_result = res  # for tests and the curious reader
    return fig


def plot_noise_cost(eps: float = 0.5, mu: float = 0.5, alpha: float = 2.0, n_max: int = 100_000) -> Figure:
    r"""What no forgetting costs in noise: the spread of the private mean with and without it.

    The numbers are :func:`dpb.chapters.privacy.noise_cost`'s.  For an arm pulled in the paper's
    geometric phases (``n0 = 1``, ratio ``alpha``), after phase
    ``m`` (``n_m`` pulls, batch ``B_m``) the two designs estimate the mean by

    * accumulating (DP-KLUCB, DP-IMED): ``(S_{n_m} + Y_0 + ... + Y_m) / n_m``, variance
      ``mu (1 - mu) / n_m + 2 (m + 1) / (eps n_m)^2``;
    * forgetting (DP-SE, AdaP-KLUCB, Lazy-DP-TS): ``(sum of the last batch + Y_m) / B_m``,
      variance ``mu (1 - mu) / B_m + 2 / (eps B_m)^2``.

    Left: both standard deviations against ``n_m`` (log-log), with the noise-free
    ``sqrt(mu (1 - mu) / n_m)``.  Right: their ratio, forgetting over accumulating.  While the noise
    dominates (small ``eps n``) one noise on the last batch can beat ``m + 1`` noises on all the
    rewards; once sampling dominates the ratio tends to ``sqrt(alpha / (alpha - 1))`` (``sqrt 2``
    for doubling): keeping every reward pays for the extra noises many times over.

    Parameters
    ----------
    eps : float
        Privacy budget, in (0, +inf).
    mu : float
        Mean of the arm, in [0, 1].
    alpha : float
        Batch ratio, > 1.
    n_max : int
        Largest number of pulls shown (>= 10).

    Returns
    -------
    matplotlib.figure.Figure
    """
    d = noise_cost(eps, mu, alpha, n_max)
    eps, mu = float(eps), float(mu)
    n, acc, fgt, base = d["n"], d["accumulating"], d["forgetting"], d["no_privacy"]
    fig, (ax1, ax2) = new_figure(2, height=3.8)
    ax1.loglog(n, fgt, "s--", ms=3, color=color("forget"), label="forgetting: last batch + 1 noise")
    ax1.loglog(n, acc, "o-", ms=3, color=color("accumulate"),
               label="accumulating: all rewards + $(m+1)$ noises")
    if mu * (1 - mu) > 0:
        ax1.loglog(n, base, ":", color="grey", label="no privacy, no forgetting")
    ax1.set(xlabel="pulls of the arm $n_m$", ylabel="std of the private mean",
            title=f"$\\varepsilon = {eps:g}$, $\\mu = {mu:g}$, $\\alpha = {alpha:g}$")
    ax1.legend(frameon=False, loc="upper center", bbox_to_anchor=(0.5, -0.2), fontsize="small")
    ax2.semilogx(n, fgt / acc, "o-", ms=3, color="k", label="forgetting / accumulating")
    ax2.axhline(np.sqrt(alpha / (alpha - 1)), color="grey", ls="--", lw=0.8,
                label=r"$\sqrt{\alpha/(\alpha-1)}$")
    ax2.axhline(1.0, color="k", lw=0.6)
    ax2.set(xlabel="pulls of the arm $n_m$", ylabel="ratio of standard deviations",
            ylim=(min(0.9, float((fgt / acc).min()) - 0.05), None),
            title="the price of forgetting")
    ax2.legend(frameon=False, loc="upper center", bbox_to_anchor=(0.5, -0.2), ncol=2, fontsize="small")
    return fig

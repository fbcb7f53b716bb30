"""Figures of the privacy chapter: continual release, the adaptive game, the audit, the noise bill."""

from __future__ import annotations

from matplotlib.figure import Figure

import matplotlib.pyplot as plt
import numpy as np

from .._validate import as_int, as_positive, as_probability
from ..audit import audit_lists, audit_lists_default, make_audit_policy, prefix_law_test
from ..batching import DoublingSchedule, make_schedule
from ..interaction import LeaderAdversary, run_game
from ..privacy import continual_release_log_ratio, partial_sums
from .style import color, new_figure

__all__ = [
    "release_starts",
    "plot_continual_release",
    "plot_game",
    "plot_audit",
    "plot_noise_cost",
]


#: Longest stream the release figures draw (one marker per step).
MAX_STREAM = 10**5


def release_starts(T: int, schedule: str = "doubling") -> np.ndarray:
    """0-based phase starts of a stream of length ``T``: ``"doubling"`` (phases 1, 2, 4, ...),
    ``"constant"`` (phases of 3 steps) or ``"steps"`` (one release per step)."""
    T = as_int("T", T, minimum=1, maximum=MAX_STREAM)
    if schedule == "doubling":  # a phase ends where a batch of the doubling schedule ends
        ends = np.cumsum(DoublingSchedule(1).sizes_until(T))
        return np.append(0, ends[ends < T]).astype(np.int64)
    if schedule == "constant":
        return np.arange(0, T, 3, dtype=np.int64)
    if schedule == "steps":
        return np.arange(T, dtype=np.int64)
    raise ValueError(f"schedule must be 'doubling', 'constant' or 'steps', got {schedule!r}")


def plot_continual_release(T: int = 24, t_star: int = 5, eps: float = 1.0, schedule: str = "doubling",
                           seed: int = 2) -> Figure:
    r"""A reward stream, its phases, the noisy running sums on two neighbouring streams, the ratio.

    Top: a seeded Bernoulli(0.6) stream ``r`` and its neighbour ``r'`` (reward ``t_star``
    flipped), with the phase boundaries.  Middle: the exact running sums of both streams at the
    phase ends and the released ones, ``C_k = sum_{j<=k} (s_j + Y_j)`` with the *same* noise draws
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
        Phase structure (:func:`release_starts`).
    seed : int
        Seed of the stream and the noise.

    Returns
    -------
    matplotlib.figure.Figure
    """
    T = as_int("T", T, minimum=2, maximum=MAX_STREAM)
    t_star = as_int("t_star", t_star, minimum=1, maximum=T)
    eps = float(as_positive("eps", eps, allow_inf=False))
    seed = as_int("seed", seed, minimum=0)
    rng = np.random.default_rng(seed)
    r = (rng.random(T) < 0.6).astype(float)
    rp = r.copy()
    rp[t_star - 1] = 1.0 - r[t_star - 1]
    st = release_starts(T, schedule)
    ends = np.append(st[1:], T)  # 1-based step at which each phase ends = release time
    y = rng.laplace(0.0, 1.0 / eps, st.size)
    s, sp = partial_sums(r, st), partial_sums(rp, st)
    o = np.cumsum(s + y)
    op = np.cumsum(sp + y)
    terms = eps * (np.abs(np.diff(o, prepend=0.0) - sp) - np.abs(np.diff(o, prepend=0.0) - s))
    total = continual_release_log_ratio(o, r, rp, st, eps)
    k_star = int(np.searchsorted(st, t_star - 1, side="right") - 1)

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


def _game_args(policy, eps, T, t_star, runs, *, min_T: int, min_runs: int):
    """The audit policy named ``policy`` and the checked horizon, challenge step and runs."""
    T = as_int("T", T, minimum=min_T)
    t_star = as_int("t_star", t_star, minimum=1, maximum=T)
    runs = as_int("runs", runs, minimum=min_runs)
    if not isinstance(policy, str):
        raise TypeError(f"policy must be a name of dpb.audit.audit_policy_names(), got {policy!r}")
    return make_audit_policy(policy, eps), T, t_star, runs


def _arm_share(tr) -> np.ndarray:
    """Fraction of runs playing the first arm at each step."""
    return (tr.actions == 0).mean(axis=0)


def _same_as(tr, t_star: int) -> np.ndarray:
    """Fraction of runs playing, at each step, the arm they played at step ``t_star``."""
    return (tr.actions == tr.actions[:, [t_star - 1]]).mean(axis=0)


def plot_game(policy: str = "DP-IMED", eps: float = 1.0, T: int = 24, t_star: int = 6, runs: int = 3000,
              seed: int = 0) -> Figure:
    r"""The adaptive continual release game with the :class:`~dpb.interaction.LeaderAdversary`.

    Left: at each step ``s``, the share of runs playing the arm they played at the challenge step,
    ``a_s = a_{t_star}``, when the secret bit is ``b = L`` and ``b = R`` (independent runs).
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
    pol, T, t_star, runs = _game_args(policy, eps, T, t_star, runs, min_T=3, min_runs=10)
    adv = LeaderAdversary()
    trL = run_game(pol, adv, t_star, "L", runs, T, seed=seed)
    trR = run_game(pol, adv, t_star, "R", runs, T, seed=seed, offset=runs)
    fig, (ax1, ax2) = new_figure(2, height=3.8)
    steps = np.arange(1, T + 1)
    ax1.plot(steps, _same_as(trL, t_star), "o-", ms=3, color=color("list"), label="$b = L$")
    ax1.plot(steps, _same_as(trR, t_star), "s--", ms=3, mfc="none", color=color("neighbouring list"),
             label="$b = R$")
    ax1.axvline(t_star, color="k", lw=0.8, ls=":", label=f"challenge $t^\\star = {t_star}$")
    ax1.set(xlabel="step $s$", ylabel=f"share of runs with $a_s = a_{{{t_star}}}$", ylim=(-0.02, 1.02),
            title=f"{pol.name}, $\\varepsilon = {pol.eps:g}$, leader adversary")
    ax1.legend(frameon=False, loc="upper center", bbox_to_anchor=(0.5, -0.2), ncol=3, fontsize="small")
    floor = 1e-30
    pv = np.array([prefix_law_test(trL, trR, s)["pvalue"] for s in steps])
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
    rewards equal to the ``pattern`` except the flipped one at ``t_star``).  Left: the share of
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
    pol, T, t_star, runs = _game_args(policy, eps, T, t_star, runs, min_T=4, min_runs=20)
    r, rp = audit_lists_default(T, t_star, pattern)
    res = audit_lists(pol, r, rp, runs, seed)
    tr1, tr2 = res.transcripts
    fig, (ax1, ax2) = new_figure(2, height=3.9)
    steps = np.arange(1, T + 1)
    ax1.plot(steps, _arm_share(tr1), "o-", ms=3, color=color("list"), label=r"list $\mathbf{r}$")
    ax1.plot(steps, _arm_share(tr2), "s--", ms=3, mfc="none", color=color("neighbouring list"),
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

    For an arm pulled in the paper's geometric phases (``n0 = 1``, ratio ``alpha``), after phase
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
    eps = float(as_positive("eps", eps, allow_inf=False))
    mu = float(as_probability("mu", mu))
    n_max = as_int("n_max", n_max, minimum=10)
    sched = make_schedule(None, n0=1, alpha=alpha)
    B = np.asarray(sched.sizes_until(n_max), dtype=float)
    n = np.cumsum(B)
    m = np.arange(B.size)
    acc = np.sqrt(mu * (1 - mu) / n + 2 * (m + 1) / (eps * n) ** 2)
    fgt = np.sqrt(mu * (1 - mu) / B + 2 / (eps * B) ** 2)
    base = np.sqrt(mu * (1 - mu) / n)
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

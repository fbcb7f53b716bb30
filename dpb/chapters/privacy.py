"""The numbers of chapter 5 (*Privacy*): continual release, the adaptive game, the audit, the noise bill.

Built on :mod:`dpb.privacy` (the Laplace mechanism and continual release), :mod:`dpb.interaction`
(the adaptive game) and :mod:`dpb.audit` (the empirical audit); :mod:`dpb.plotting.privacy` draws
these numbers and the chapter prints them.  Each function returns a dict of plain arrays and
objects, so that a figure and the text that quotes it read the same numbers.
"""

from __future__ import annotations

import numpy as np

from .._validate import as_int, as_positive, as_probability
from ..audit import audit_lists, audit_lists_default, make_audit_policy, prefix_law_test
from ..batching import DoublingSchedule, make_schedule
from ..interaction import LeaderAdversary, run_game
from ..privacy import continual_release_log_ratio, partial_sums

__all__ = ["MAX_STREAM", "release_starts", "continual_release_example", "game_curves", "audit_curves",
           "noise_cost"]

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


def continual_release_example(T: int = 24, t_star: int = 5, eps: float = 1.0, schedule: str = "doubling",
                              seed: int = 2) -> dict:
    r"""A reward stream and its neighbour released by phases with the *same* noise draws.

    A seeded Bernoulli(0.6) stream ``r`` of length ``T`` and its neighbour ``r'`` (reward
    ``t_star``, 1-based, flipped); phases from :func:`release_starts`; one Laplace(1/eps) noise
    ``Y_k`` a phase.  The releases are the running sums at the phase ends,
    ``C_k = sum_{j<=k} (s_j + Y_j)`` on ``r`` and ``C'_k`` on ``r'`` with the same ``Y``
    (:func:`dpb.privacy.continual_release`).  ``terms[k]`` is release ``k``'s contribution to the
    exact log density ratio of the whole release vector at the values released on ``r``,
    ``eps (|o_k - s'_k| - |o_k - s_k|)`` with ``o_k = C_k - C_{k-1}`` (:prf:ref:`lem-ch05-continual`):
    only the phase holding ``t_star`` (``k_star``, 0-based) contributes, within [-eps, eps], and
    ``log_ratio`` is their sum (:func:`dpb.privacy.continual_release_log_ratio`).

    Returns ``{"r", "r_prime", "starts", "ends", "noise", "released", "released_prime", "terms",
    "log_ratio", "k_star"}`` (``ends``: the 1-based step at which each phase ends, its release time).
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
    return {"r": r, "r_prime": rp, "starts": st, "ends": ends, "noise": y, "released": o,
            "released_prime": op, "terms": terms, "log_ratio": float(total), "k_star": k_star}


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


def game_curves(policy: str = "DP-IMED", eps: float = 1.0, T: int = 24, t_star: int = 6, runs: int = 3000,
                seed: int = 0) -> dict:
    r"""The adaptive continual release game with the :class:`~dpb.interaction.LeaderAdversary`.

    ``runs`` runs of the audit policy ``policy`` (a name of :func:`dpb.audit.audit_policy_names`)
    under each secret bit ``b = L`` and ``b = R`` (disjoint children of ``seed``), horizon ``T``,
    challenge step ``t_star``.  ``same_L[s-1]`` and ``same_R[s-1]`` are the shares of runs with
    ``a_s = a_{t_star}``; ``pvalues[s-1]`` is the p-value of the two-sample test that the prefixes
    ``(a_1, ..., a_s)`` have the same law under both bits (:func:`dpb.audit.prefix_law_test`).  Up
    to ``t_star`` the laws coincide exactly; after it a private policy keeps them within a factor
    e^eps, a broken one (e.g. ``"DP-IMED [no-noise]"``) separates them.

    Returns ``{"policy", "T", "t_star", "runs", "same_L", "same_R", "pvalues"}`` (``policy``: the
    policy object played).
    """
    pol, T, t_star, runs = _game_args(policy, eps, T, t_star, runs, min_T=3, min_runs=10)
    adv = LeaderAdversary()
    trL = run_game(pol, adv, t_star, "L", runs, T, seed=seed)
    trR = run_game(pol, adv, t_star, "R", runs, T, seed=seed, offset=runs)
    pv = np.array([prefix_law_test(trL, trR, s)["pvalue"] for s in range(1, T + 1)])
    return {"policy": pol, "T": T, "t_star": t_star, "runs": runs, "same_L": _same_as(trL, t_star),
            "same_R": _same_as(trR, t_star), "pvalues": pv}


def audit_curves(policy: str = "DP-IMED", eps: float = 1.0, runs: int = 2000, T: int = 30, t_star: int = 1,
                 pattern: str = "ones", seed: int = 0) -> dict:
    r"""Audit one policy on two neighbouring lists (:func:`dpb.audit.audit_lists`).

    The lists are :func:`dpb.audit.audit_lists_default` (two arms, every reward equal to the
    ``pattern`` except the flipped one at ``t_star``), ``runs`` runs per list (half choose the
    event, half estimate it).  ``share`` and ``share_prime`` are the shares of runs playing arm 1
    at each step on the list and on its neighbour; ``result`` is the audit
    (:class:`dpb.audit.AuditResult`: ``eps_hat``, the interval whose lower end is ``eps_lower``,
    ``caught``); a lower end above the claimed ``eps`` refutes the claim at the stated confidence.

    Returns ``{"policy", "T", "t_star", "runs", "result", "share", "share_prime"}``.
    """
    pol, T, t_star, runs = _game_args(policy, eps, T, t_star, runs, min_T=4, min_runs=20)
    r, rp = audit_lists_default(T, t_star, pattern)
    res = audit_lists(pol, r, rp, runs, seed)
    assert res.transcripts is not None  # audit_lists keeps the transcripts of both lists
    tr1, tr2 = res.transcripts
    return {"policy": pol, "T": T, "t_star": t_star, "runs": runs, "result": res,
            "share": _arm_share(tr1), "share_prime": _arm_share(tr2)}


def noise_cost(eps: float = 0.5, mu: float = 0.5, alpha: float = 2.0, n_max: int = 100_000) -> dict:
    r"""What no forgetting costs in noise: the spread of the private mean with and without it.

    For an arm pulled in the paper's geometric phases (``n0 = 1``, ratio ``alpha``), after phase
    ``m`` (``n_m`` pulls, batch ``B_m``, up to ``n_max`` pulls) the two designs estimate the mean by

    * accumulating (DP-KLUCB, DP-IMED): ``(S_{n_m} + Y_0 + ... + Y_m) / n_m``, standard deviation
      ``sqrt(mu (1 - mu) / n_m + 2 (m + 1) / (eps n_m)^2)``;
    * forgetting (DP-SE, AdaP-KLUCB, Lazy-DP-TS): ``(sum of the last batch + Y_m) / B_m``,
      standard deviation ``sqrt(mu (1 - mu) / B_m + 2 / (eps B_m)^2)``;

    and without privacy or forgetting ``sqrt(mu (1 - mu) / n_m)``.  Once sampling dominates, the
    ratio forgetting / accumulating tends to ``sqrt(alpha / (alpha - 1))``.

    Returns ``{"n", "batch", "accumulating", "forgetting", "no_privacy"}``, arrays over the phases.
    """
    eps = float(as_positive("eps", eps, allow_inf=False))
    mu = float(as_probability("mu", mu))
    n_max = as_int("n_max", n_max, minimum=10)
    sched = make_schedule(None, n0=1, alpha=alpha)
    B = np.asarray(sched.sizes_until(n_max), dtype=float)
    n = np.cumsum(B)
    m = np.arange(B.size)
    base = np.sqrt(mu * (1 - mu) / n)
    # sqrt(a^2 + b^2) as hypot(a, b): no square of a noise term overflows at a tiny eps
    acc = np.hypot(base, np.sqrt(2 * (m + 1)) / (eps * n))
    fgt = np.hypot(np.sqrt(mu * (1 - mu) / B), np.sqrt(2.0) / (eps * B))
    return {"n": n, "batch": B, "accumulating": acc, "forgetting": fgt, "no_privacy": base}

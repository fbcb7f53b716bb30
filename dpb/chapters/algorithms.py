r"""The numbers of chapter 4 (*Algorithms*): what batching, accumulating and forgetting cost.

Built on :mod:`dpb.batching` (the schedules), :mod:`dpb.concentration` (the exact tail of the
private mean) and :mod:`dpb.simulate` (one run recorded phase by phase);
:mod:`dpb.plotting.algorithms` draws these numbers and the chapter prints them.

After its phase M an arm's private mean is either the *accumulated* sum of all n_M rewards plus
M+1 Laplace draws, divided by n_M (the paper's design, DP-KLUCB and DP-IMED), or the *forgetting*
mean of the last batch only, B_M rewards plus one draw, divided by B_M (DP-SE, AdaP-KLUCB,
Lazy-DP-TS).
"""

from __future__ import annotations

import functools
import math
from fractions import Fraction

import numpy as np
from numpy.typing import ArrayLike

from .._validate import (as_choice, as_counts, as_exact, as_int, as_positive, as_probability, check_elements,
                         check_eps, plain)
from ..batching import (BatchSchedule, DoublingSchedule, GeometricSchedule, PolynomialSchedule, make_schedule,
                        phases_to_reach)
from ..environments import instance_names
from ..policies import POLICIES
from ..simulate import Trace, simulate_trace

__all__ = [
    "DESIGNS",
    "private_mean_composition",
    "noise_std_of_private_mean",
    "noise_monte_carlo",
    "forgetting_comparison",
    "schedule_comparison",
    "formula_sizes",
    "trace_for",
    "trace_rows",
]

#: The two ways of turning phase sums into a private mean.
DESIGNS = ("accumulate", "forget")


def _last_phase(n, n0, alpha, design, schedule):
    """The counts ``n``, the schedule's batches, their cumulative sums and the last completed phase M."""
    design = as_choice("design", design, DESIGNS)
    sched = make_schedule(schedule, n0=n0, alpha=alpha)
    counts = as_counts("n", n, sched.n0)
    sizes = sched.sizes_until(int(counts.max()))
    cum = np.cumsum(sizes)
    return counts, sizes, cum, np.searchsorted(cum, counts, side="right") - 1


def private_mean_composition(n: ArrayLike, n0: int = 1, alpha: float = 2, design: str = "accumulate",
                             schedule: BatchSchedule | str | dict | None = None
                             ) -> tuple[int, int] | tuple[np.ndarray, np.ndarray]:
    r"""Rewards and Laplace noises behind an arm's private mean after ``n`` pulls.

    The arm plays phases m = 0, 1, ... of sizes :math:`B_m` (:prf:ref:`def-batch-schedule` for the
    default geometric schedule), with cumulative counts :math:`n_m = B_0 + \dots + B_m`.  After
    ``n`` pulls its last *completed* phase is :math:`M = \max\{m : n_m \le n\}`, and the private
    mean it holds is

    * ``"accumulate"`` (DP-KLUCB, DP-IMED: no forgetting):
      :math:`(X_1 + \dots + X_{n_M} + Y_0 + \dots + Y_M) / n_M`, i.e. :math:`n_M` rewards and
      :math:`M + 1` Laplace noises;
    * ``"forget"`` (DP-SE, AdaP-KLUCB, Lazy-DP-TS): the last batch only,
      :math:`(X_{n_{M-1}+1} + \dots + X_{n_M} + Y_M) / B_M`, i.e. :math:`B_M` rewards and one noise.

    Parameters
    ----------
    n : int or array_like of int
        Number of pulls, ``n >= B_0`` (the first phase must be complete).
    n0 : int
        First batch size of the geometric schedule (ignored when ``schedule`` is given).
    alpha : float
        Ratio > 1 of the geometric schedule (ignored when ``schedule`` is given).
    design : {"accumulate", "forget"}
        How the phase sums are combined.
    schedule : BatchSchedule, str or dict, optional
        Any other schedule (e.g. :class:`dpb.batching.PolynomialSchedule`, or what
        :func:`dpb.batching.make_schedule` reads).

    Returns
    -------
    (rewards, noises) : tuple of int or of int arrays (the shape of ``n``)
    """
    counts, sizes, cum, M = _last_phase(n, n0, alpha, design, schedule)
    if design == "accumulate":
        rewards, noises = cum[M], M + 1
    else:
        rewards, noises = sizes[M], np.ones_like(M)
    r, k = (np.asarray(v, dtype=np.int64) for v in (rewards, noises))
    return (r.item(), k.item()) if counts.ndim == 0 else (r, k)


def noise_std_of_private_mean(n: ArrayLike, n0: int = 1, alpha: float = 2, eps: float = 1.0,
                              design: str = "accumulate", schedule: BatchSchedule | str | dict | None = None
                              ) -> float | np.ndarray:
    r"""Standard deviation of the noise part of an arm's private mean after ``n`` pulls.

    A :math:`\mathrm{Lap}(1/\epsilon)` variable has variance :math:`2/\epsilon^2`.  With the rewards
    and noises of :func:`private_mean_composition` (last completed phase :math:`M`):

    * ``"accumulate"``: :math:`\sqrt{2(M+1)} / (\epsilon\, n_M)`, the :math:`M+1` accumulated
      noises of Algorithm 'DP-KLUCB and DP-IMED' divided by all :math:`n_M` pulls;
    * ``"forget"``: :math:`\sqrt{2} / (\epsilon\, B_M)`, one noise divided by the last batch.

    With doubling batches :math:`B_M \approx n_M / 2`, so the accumulated noise is the *larger*
    one, by a factor about :math:`\sqrt{M+1}/2`; both are :math:`O(\sqrt{\log n}/n)`, far below
    the sampling spread :math:`\sqrt{\mu(1-\mu)/n}` (see :func:`forgetting_comparison`).

    Parameters
    ----------
    n : int or array_like of int
        Number of pulls, ``n >= B_0``.
    n0, alpha : int, float
        The geometric schedule, :prf:ref:`def-batch-schedule` (ignored when ``schedule`` is given).
    eps : float
        Privacy budget, > 0.
    design : {"accumulate", "forget"}
    schedule : BatchSchedule, str or dict, optional

    Returns
    -------
    float or ndarray
    """
    eps = check_eps(eps)
    rewards, noises = private_mean_composition(n, n0, alpha, design, schedule)
    std = np.sqrt(2.0 * np.asarray(noises, dtype=float)) / (eps * np.asarray(rewards, dtype=float))
    return float(std) if np.ndim(std) == 0 else std


def noise_monte_carlo(n: ArrayLike, n0: int = 1, alpha: float = 2, eps: float = 1.0,
                      design: str = "accumulate", runs: int = 4000, seed: int = 0,
                      schedule: BatchSchedule | str | dict | None = None) -> dict:
    r"""Simulated noise part of the private mean after ``n`` pulls, with one Laplace draw per phase.

    Each run draws :math:`Y_0, Y_1, \dots \sim \mathrm{Lap}(1/\epsilon)`, one per phase, and forms
    the noise part of the private mean of :func:`private_mean_composition`:
    :math:`(Y_0 + \dots + Y_M)/n_M` (accumulate) or :math:`Y_M / B_M` (forget).  The same draws
    serve every ``n`` (one trajectory per run), as in an actual arm.

    Parameters
    ----------
    n : array_like of int
        Numbers of pulls, each ``>= B_0``.
    n0, alpha, eps, design, schedule
        As in :func:`noise_std_of_private_mean`.
    runs : int
        Number of simulated arms, >= 2.
    seed : int
        Seed of ``numpy.random.default_rng``.

    Returns
    -------
    dict
        ``"n"``; ``"std"`` (empirical standard deviation at each ``n``); ``"abs_q50"``,
        ``"abs_q95"`` (median and 95% quantile of the absolute noise part); ``"samples"``
        (runs x len(n)).
    """
    eps = check_eps(eps, floor=1e-150)
    runs = as_int("runs", runs, minimum=2)
    seed = as_int("seed", seed, minimum=0)
    counts, sizes, cum, M = _last_phase(n, n0, alpha, design, schedule)
    counts, M = np.atleast_1d(counts), np.atleast_1d(M)
    check_elements("runs (runs x phases Laplace draws)", runs * (sizes.size + counts.size))
    draws = np.random.default_rng(seed).laplace(0.0, 1.0 / eps, size=(runs, sizes.size))
    if design == "accumulate":
        samples = np.cumsum(draws, axis=1)[:, M] / cum[M]
    else:
        samples = draws[:, M] / sizes[M]
    a = np.abs(samples)
    return {
        "n": counts,
        "std": samples.std(axis=0, ddof=1),
        "abs_q50": np.quantile(a, 0.5, axis=0),
        "abs_q95": np.quantile(a, 0.95, axis=0),
        "samples": samples,
    }


def forgetting_comparison(n0: int = 1, alpha: float = 2, eps: float = 0.25, mu: float = 0.5, x: float = 0.6,
                          n_max: int = 20_000, runs: int = 4000, seed: int = 0) -> dict:
    r"""Accumulating against forgetting, at every phase end of one arm up to ``n_max`` pulls.

    For each design (:data:`DESIGNS`) and each phase end :math:`n = n_M \le n_{\max}` of the
    geometric schedule (n0, alpha), returns the rewards and noises behind the private mean
    (:func:`private_mean_composition`), the standard deviation of its noise part (exact,
    :func:`noise_std_of_private_mean`, and simulated, :func:`noise_monte_carlo`), the sampling
    standard deviation :math:`\sqrt{\mu(1-\mu)/\text{rewards}}`, and the exact natural log of
    :math:`P[\text{private mean} \ge x]`, i.e. of :math:`P[\tilde S_{r, k} \ge r x]` for
    :math:`r` rewards and :math:`k` noises (:func:`dpb.concentration.private_sum_logsf`).  By
    Proposition 'Concentration Bound of Private Mean' this tail decays like
    :math:`e^{-r\, d_\epsilon(x, \mu)}`: with :math:`r = n` when accumulating and
    :math:`r = B_M \approx n (\alpha - 1)/\alpha` when forgetting.

    Parameters
    ----------
    n0 : int
        First batch size, >= 1.
    alpha : float
        Geometric ratio, > 1.
    eps : float
        Privacy budget, > 0.
    mu : float
        Mean of the arm, in (0, 1).
    x : float
        Threshold of the tail, in [mu, 1].
    n_max : int
        Largest number of pulls shown, >= n0.
    runs, seed : int
        Monte Carlo runs and seed (:func:`noise_monte_carlo`).

    Returns
    -------
    dict
        ``"n"`` (the phase ends) and, for each design, a dict with keys ``"rewards"``,
        ``"noises"``, ``"noise_std"``, ``"mc_std"``, ``"mc_med"``, ``"mc_hi"`` (median and 95% quantile
        of the simulated absolute noise part), ``"sampling_std"``,
        ``"log_tail"``.
    """
    from ..concentration import private_sum_logsf  # scipy-heavy: only when needed

    n0 = as_int("n0", n0, minimum=1)
    runs = as_int("runs", runs, minimum=2)
    check_elements("runs (runs x phases Laplace draws, at least 2 phases)", 2 * runs)
    eps = check_eps(eps, floor=1e-150)
    mu = float(as_probability("mu", mu, open_left=True, open_right=True))
    x = float(as_probability("x", x))
    if x < mu:
        raise ValueError(f"x must lie in [mu, 1] = [{mu:g}, 1] (upper tail), got {plain(x)!r}")
    n_max = as_int("n_max", n_max, minimum=n0)
    sched = GeometricSchedule(n0=n0, alpha=alpha)
    cum = np.cumsum(sched.sizes_until(n_max))
    ends = cum[cum <= n_max]
    out: dict = {"n": ends}
    for design in DESIGNS:
        rewards, noises = private_mean_composition(ends, design=design, schedule=sched)
        mc = noise_monte_carlo(ends, eps=eps, design=design, runs=runs, seed=seed, schedule=sched)
        log_tail = np.array([float(private_sum_logsf(r * x, int(r), int(k), mu, eps))
                             for r, k in zip(np.atleast_1d(rewards), np.atleast_1d(noises), strict=True)])
        out[design] = {
            "rewards": rewards,
            "noises": noises,
            "noise_std": noise_std_of_private_mean(ends, eps=eps, design=design, schedule=sched),
            "mc_std": mc["std"],
            "mc_med": mc["abs_q50"],
            "mc_hi": mc["abs_q95"],
            "sampling_std": np.sqrt(mu * (1.0 - mu) / rewards),
            "log_tail": log_tail,
        }
    return out


def schedule_comparison(n0: int = 1, alpha: float = 2.0, power: float = 2, n_max: int = 10**6,
                        points: int = 60) -> dict:
    r"""Phases (Laplace draws per arm) against pulls for three schedules, and their first batches.

    The schedules are the paper's geometric one (``n0``, ``alpha``; :prf:ref:`def-batch-schedule`), doubling
    (``n0``, ratio 2) and polynomial (:math:`B_m = \lceil n_0 (m+1)^p \rceil`, ``power`` p).

    Parameters
    ----------
    n0 : int
        First batch size of all three, from 1 to 2**53.
    alpha : float
        Ratio of the geometric schedule, > 1.
    power : float
        Exponent of the polynomial schedule, > 0.
    n_max : int
        Largest number of pulls, from n0 to 2**53 (the float grid of n is exact up to there).
    points : int
        Number of log-spaced values of n, >= 2.

    Returns
    -------
    dict
        ``"n"`` (log-spaced integers from n0 to n_max) and, for each of ``"geometric"``,
        ``"doubling"``, ``"polynomial"``, a dict with ``"schedule"``, ``"phases"`` (at each n) and
        ``"sizes"`` (the batches B_0, ..., B_M up to n_max).
    """
    # the grid of n is float (geomspace): exact up to 2**53 (2**62 - 1 rounds to 2**62, past the limit)
    n0 = as_int("n0", n0, minimum=1, maximum=2**53)
    n_max = as_int("n_max", n_max, minimum=n0, maximum=2**53)
    points = as_int("points", points, minimum=2, maximum=10**5)
    ns = np.unique(np.rint(np.geomspace(n0, n_max, points)).astype(np.int64))
    scheds = {
        "geometric": GeometricSchedule(n0=n0, alpha=alpha),
        "doubling": DoublingSchedule(n0=n0),
        "polynomial": PolynomialSchedule(n0=n0, power=power),
    }
    out: dict = {"n": ns}
    for name, s in scheds.items():
        out[name] = {"schedule": s, "phases": phases_to_reach(ns, s), "sizes": s.sizes_until(n_max)}
    return out


#: Most batch sizes :func:`formula_sizes` computes (exact rationals: ``alpha ** count`` grows fast).
MAX_FORMULA_SIZES = 200


def formula_sizes(n0: int, alpha: float | Fraction, count: int) -> list[int]:
    r"""The first ``count`` batch sizes of :prf:ref:`def-batch-schedule`, in exact rational arithmetic.

    :math:`n_m = \lceil n_0 (\alpha^{m+1} - 1) / (\alpha - 1) \rceil` and
    :math:`B_m = n_m - n_{m-1}` (:math:`n_{-1} = 0`), for :math:`m = 0, \dots,` ``count - 1``, with
    ``alpha`` read as the decimal it prints as (``1.1`` is 11/10, not the nearest double) and every
    step a :class:`fractions.Fraction` (Azize et al., Section 4).  The formula written out, which
    chapter 4 checks :func:`dpb.batching.batch_sizes` (the schedule the policies run) against.

    Examples
    --------
    >>> formula_sizes(2, 1.5, 5)
    [2, 3, 5, 7, 10]
    """
    n0 = as_int("n0", n0, minimum=1, maximum=10**9)
    a = as_exact("alpha", alpha)
    if not a > 1:
        raise ValueError(f"alpha must be > 1 (geometric growth), got {plain(alpha)!r}")
    count = as_int("count", count, minimum=1, maximum=MAX_FORMULA_SIZES)
    n = [math.ceil(n0 * (a ** (m + 1) - 1) / (a - 1)) for m in range(count)]
    return [n[0]] + [n[m] - n[m - 1] for m in range(1, count)]


def _check_policy_env(policy: str, env: str) -> None:
    if policy not in POLICIES:
        raise ValueError(f"policy must be one of {', '.join(POLICIES)}, got {policy!r}")
    if env not in instance_names():
        raise ValueError(f"env must be one of {', '.join(instance_names())}, got {env!r}")


@functools.lru_cache(maxsize=32)
def _cached_trace(policy: str, env: str, eps: float, seed: int, T: int) -> Trace:
    params = {"eps": eps} if POLICIES[policy].private else {}
    return simulate_trace(policy, env, T, seed=seed, params=params)


def trace_for(policy: str = "DP-IMED", env: str = "mu2", eps: float = 0.25, seed: int = 0,
              T: int = 2000) -> Trace:
    """One run of ``policy`` on the paper's environment ``env``, recorded phase by phase (cached).

    A thin cached wrapper of :func:`dpb.simulate.simulate_trace` (run 0 of ``SeedSequence(seed)``);
    ``eps`` is ignored by the non-private policies.  Per-step policies record one phase per round.

    Parameters
    ----------
    policy : str
        A name of :data:`dpb.policies.POLICIES`.
    env : str
        An instance name (:func:`dpb.environments.instance_names`).
    eps : float
        Privacy budget, > 0.
    seed : int
        Root seed, >= 0.
    T : int
        Horizon, between K n0 and 10^5.

    Returns
    -------
    dpb.simulate.Trace
    """
    _check_policy_env(policy, env)
    eps = float(as_positive("eps", eps, allow_inf=False))
    seed = as_int("seed", seed, minimum=0)
    T = as_int("T", T, minimum=1, maximum=100_000)
    return _cached_trace(policy, env, eps, seed, T)


def _fmt(v: float, width: int = 8, digits: int = 3) -> str:
    return f"{'-':>{width}}" if not np.isfinite(v) else f"{v:>{width}.{digits}f}"


def trace_rows(trace: Trace, phase: int | None = None, window: int = 8) -> list[str]:
    """The phases ``phase - window + 1 .. phase`` of ``trace`` as lines of a text table.

    Columns: phase, first round t, arm played (1-based; ``all`` for a round-robin epoch of DP-SE),
    pulls B, reward sum, the Laplace value added (``-`` if none; for an epoch, the number of draws),
    the arm's private (or empirical) mean after the phase, and the index of that arm at the
    decision (``-`` during initialisation and for epochs).

    Parameters
    ----------
    trace : dpb.simulate.Trace
    phase : int, optional
        Last phase shown (0-based; default: the last one; clipped to the trace).
    window : int
        Number of phases shown, >= 1.

    Returns
    -------
    list of str
        A header line and one line per phase.
    """
    if not isinstance(trace, Trace) or len(trace) == 0:
        raise ValueError("trace must be a non-empty dpb.simulate.Trace")
    window = as_int("window", window, minimum=1)
    last = len(trace) - 1 if phase is None else min(as_int("phase", phase, minimum=0), len(trace) - 1)
    lines = ["phase      t  arm      B    sum     noise    mean   index"]
    for p in trace.phases[max(0, last - window + 1): last + 1]:
        arm = p["arm"]
        if arm >= 0:
            noise, stat, idx, s = p["noise"][arm], p["statistic"][arm], p["index"][arm], p["reward_sums"][arm]
            arm_s = f"{arm + 1:>4d}"
        else:  # a round-robin epoch: totals over the arms played
            played = p["counts"] > 0
            draws = int(np.isfinite(p["noise"][played]).sum())
            stat = idx = np.nan
            s = float(p["reward_sums"].sum())
            arm_s = f"{'all':>4}"
        noise_s = _fmt(noise, 9) if arm >= 0 else f"{str(draws) + ' draws':>9}"
        lines.append(f"{p['phase']:>5d} {p['t']:>6d} {arm_s} {p['pulls']:>6d} {s:>6.0f} {noise_s}"
                     f" {_fmt(stat, 7)} {_fmt(idx, 7)}")
    return lines

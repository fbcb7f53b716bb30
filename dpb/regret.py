r"""The regret upper bound of DP-IMED and DP-KLUCB, measured: constants, convergence, decomposition.

:prf:ref:`thm-upper-bound` states that, with the geometric batches of :prf:ref:`def-batch-schedule`
of ratio ``alpha > 1`` and ``mu* < 1``,

.. math::

    \mathrm{Reg}_T \le \sum_{i:\Delta_i > 0} \frac{\alpha\,\Delta_i \log T}{d_\varepsilon(\mu_i, \mu^\star)}
    + o(\log T),

i.e. ``limsup E[N_i(T)] / log T <= alpha / d_eps(mu_i, mu*)`` for every sub-optimal arm, against
``liminf >= 1 / d_eps`` for every consistent eps-global DP policy (the lower bound).  This module
computes what the book's chapter on the theorem shows:

* :func:`asymptotic_constants` -- the per-arm pull constants ``1/d_eps`` and ``alpha/d_eps`` and the
  regret constants (thin wrappers over :mod:`dpb.bounds`);
* :func:`decompose_runs` -- many runs of DP-IMED or DP-KLUCB through the exact phase engine of
  :mod:`dpb.simulate`, recording every phase, so that the pull counts ``N_i(T)`` at *every* horizon
  of a grid are exact (pulls are linear inside a phase, and the horizon cuts the last one), and
  every pull is labelled with the term of the proof's decomposition (:eq:`eq-ch06-decomposition`) it belongs
  to: initialisation, pre-convergence (A) or post-convergence (B);
* :class:`DecomposedRuns` -- the result, with normalised pulls, regret, regret by term, quantiles;
* :func:`cached_runs` -- the same, cached on disk by :mod:`dpb.cache` (keyed by the parameters,
  recording a hash of the ``dpb`` code that produces them, regenerated when missing or stale,
  written atomically);
* :func:`pull_summary`, :func:`regret_quantiles` -- the summaries the figures draw (the chapter's
  own, the ``alpha`` trade-off and the book's standard runs, are :mod:`dpb.chapters.regret`).

The decomposition (:eq:`eq-ch06-decomposition`, in the proof of :prf:ref:`thm-upper-bound`): fix
``delta > 0`` and an optimal arm ``j``.  A decision at round ``t`` (an arm and its next batch) is

* *pre-convergence* (term (A)) when, for DP-IMED, the optimal arm's private mean is still low,
  ``S~_j / n_j < mu* - delta``; for DP-KLUCB when the largest index is low,
  ``max_i mu-bar_i(t) < mu* - delta``;
* *post-convergence* (term (B)) otherwise.

The initial round-robin (``n0`` pulls of every arm) is the term ``n0 sum_i Delta_i``.  The three
terms partition the pulls, so they add up to the regret exactly.  The proof shows
``E[(A)] = O(1)`` and ``E[(B)] <= alpha log T / (d_eps(mu_i, mu*) - 2 delta') + o(1)`` with
``delta' = delta / (1 - mu*)`` (Steps 2 and 3 of the proof of :prf:ref:`thm-upper-bound`).  With
several optimal arms the pre-convergence test of DP-IMED uses the largest private mean among them
(every optimal arm below ``mu* - delta``); this is the paper's event when the optimal arm is unique.
"""

from __future__ import annotations

import json
import zipfile
from typing import Any
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from . import cache
from ._io import save_npz_atomic
from ._validate import (MAX_HORIZON, MAX_RUNS, as_choice, as_directory, as_float_array, as_instance, as_int,
                        as_positive, as_real, as_flag)
from .batching import BatchSchedule, make_schedule
from .bounds import lower_bound_constant, per_arm_constants, upper_bound_constant
from .divergences import d_eps
from .environments import as_bandit
from .policies import Policy
from .policies.dp_batched import DPIMED, DPKLUCB
from .policies.registry import as_policy
from ._validate import MAX_SECONDS
from .cost import _refuse
from .engine import SeedChildren, _rounds_until, _run_seeds

__all__ = [
    "TERMS",
    "DEFAULTS",
    "asymptotic_constants",
    "horizon_grid",
    "DecomposedRuns",
    "decompose_runs",
    "cached_runs",
    "pull_summary",
    "regret_quantiles",
    "mean_overshoot",
    "schedule_profile",
    "imed_optimal_index",
    "cache_dir",
    "cache_key",
]

#: Names of the three terms of the proof's decomposition, in the order of the last axis of
#: :attr:`DecomposedRuns.pulls`.
TERMS = ("init", "pre", "post")

#: The book's standard experiment: horizon, runs, seed, delta and points of the horizon grid.
DEFAULTS: dict[str, Any] = {"T": 10**8, "runs": 400, "seed": 2025, "delta": 0.05, "n_grid": 49, "t_min": 100}

# ----------------------------------------------------------------------------------------------
# constants
# ----------------------------------------------------------------------------------------------
def asymptotic_constants(mu: Any, eps: Any, alpha: Any) -> dict:
    r"""Pull and regret constants of the lower bound and of :prf:ref:`thm-upper-bound`, per arm and in total.

    For a sub-optimal arm ``i`` (``Delta_i > 0``):

    * ``lower_pulls[i] = 1 / d_eps(mu_i, mu*)``: every consistent eps-global DP policy has
      ``liminf E[N_i(T)] / log T >= 1 / d_eps`` (proof of :prf:ref:`thm-lower-bound`);
    * ``upper_pulls[i] = alpha / d_eps(mu_i, mu*)``: DP-IMED and DP-KLUCB with geometric batches of
      ratio ``alpha`` have ``E[N_i(T)] <= alpha log T / d_eps + o(log T)`` (:prf:ref:`thm-upper-bound`).

    Optimal arms get 0 (they are outside both statements).  The regret constants are the sums
    weighted by the gaps: ``lower_regret = sum_i Delta_i / d_eps`` (:prf:ref:`thm-lower-bound`,
    :func:`dpb.bounds.lower_bound_constant`) and ``upper_regret = alpha * lower_regret``
    (:func:`dpb.bounds.upper_bound_constant`).

    Parameters
    ----------
    mu : array_like, shape (K,)
        Arm means in [0, 1], ``K >= 2``.
    eps : float
        Privacy budget in ``(0, +inf]``.
    alpha : float
        Batch ratio in ``(1, +inf)``.

    Returns
    -------
    dict
        ``lower_pulls``, ``upper_pulls`` (arrays (K,)), ``lower_regret``, ``upper_regret``
        (floats), ``suboptimal`` (bool mask (K,)) and ``gaps`` (K,).
    """
    mu = as_float_array("mu", mu)
    if mu.ndim != 1:
        raise ValueError(f"mu must be a 1-D array of arm means, got shape {mu.shape}")
    eps = _scalar("eps", as_positive("eps", eps))
    alpha = _scalar("alpha", as_float_array("alpha", alpha))
    lower = per_arm_constants(mu, eps, bound="lower", weighted=False)
    upper = per_arm_constants(mu, eps, bound="upper", alpha=alpha, weighted=False)
    gaps = mu.max() - mu
    return {
        "lower_pulls": np.asarray(lower, dtype=float),
        "upper_pulls": np.asarray(upper, dtype=float),
        "lower_regret": float(lower_bound_constant(mu, eps)),
        "upper_regret": float(upper_bound_constant(mu, eps, alpha)),
        "suboptimal": gaps > 0,
        "gaps": gaps,
    }


def _scalar(name: str, arr: np.ndarray) -> float:
    if arr.ndim != 0:
        raise ValueError(f"{name} must be a scalar, got shape {arr.shape}")
    return float(arr)


def horizon_grid(T: int, n: int = 49, t_min: int = 100) -> np.ndarray:
    """Log-spaced horizons ``t_min <= t <= T`` (rounded, unique, sorted, always containing T).

    Parameters
    ----------
    T : int
        Largest horizon, ``>= t_min``.
    n : int
        Number of log-spaced points before rounding (``>= 2``).
    t_min : int
        Smallest horizon, ``>= 1``.
    """
    T = as_int("T", T, minimum=1)
    t_min = as_int("t_min", t_min, minimum=1, maximum=T)
    n = as_int("n", n, minimum=2, maximum=10**6)
    grid = np.unique(np.rint(np.logspace(np.log10(t_min), np.log10(T), n)).astype(np.int64))
    return np.union1d(grid.clip(t_min, T), [T]).astype(np.int64)


def mean_overshoot(alpha: Any) -> float | np.ndarray:
    """Mean factor ``(alpha - 1) / ln(alpha)`` by which a geometric grid overshoots a log-uniform threshold.

    An arm stops being explored once its pull count passes a threshold ``L ~ log T / d_eps``, but
    it can only stop at a cumulative count ``n_m ~ c alpha^m`` of its schedule, so it ends at the
    first ``n_m >= L``: ``L <= N < alpha L`` (the factor ``alpha`` of :prf:ref:`thm-upper-bound`).  If
    ``log L`` falls uniformly within a period ``[log n_m, log n_{m+1})`` -- over horizons, or over
    the randomness of the stopping point -- then ``N / L = alpha^U`` with ``U`` uniform on
    ``[0, 1)`` and ``E[N / L] = integral_0^1 alpha^u du = (alpha - 1) / ln(alpha)``: about
    ``1 + (alpha - 1)/2`` for ``alpha`` near 1, ``1.443`` for ``alpha = 2``.

    Parameters
    ----------
    alpha : float or array_like
        Ratios in ``(1, +inf)``.

    Returns
    -------
    float or numpy.ndarray
        Values in ``(1, alpha)``.
    """
    a = as_float_array("alpha", alpha)
    if np.any(~np.isfinite(a) | (a <= 1)):
        raise ValueError("alpha must lie in (1, +inf)")
    out = (a - 1.0) / np.log(a)
    return float(out) if out.ndim == 0 else out


def schedule_profile(schedule: Any, n: Any) -> dict:
    """How many noises a schedule puts in a running sum of ``n`` pulls, and its local growth ratio.

    For each ``n``, with ``m`` the first batch index such that ``n_m >= n`` (cumulative counts
    ``n_m = B_0 + ... + B_m`` of :mod:`dpb.batching`):

    * ``noises = m + 1``: the Laplace draws in the private sum once ``n_m`` pulls are made (one per
      batch, Algorithm 'DP-KLUCB and DP-IMED');
    * ``ratio = n_{m+1} / n_m``: the factor by which the next batch multiplies the pull count --
      ``alpha`` (up to rounding) for the geometric schedule of :prf:ref:`def-batch-schedule`, and
      ``1 + (p + 1)/m`` roughly, tending to 1 slowly, for the polynomial one ``B_m = n0 (m+1)^p``.

    Parameters
    ----------
    schedule : BatchSchedule or float
        A schedule, or a ratio ``alpha > 1`` (the geometric schedule with ``n0 = 1``).
    n : int or array_like of int
        Pull counts, ``>= 1``.

    Returns
    -------
    dict
        ``n_m`` (the cumulative count reached), ``noises`` and ``ratio``, arrays shaped like ``n``.
    """
    if not isinstance(schedule, BatchSchedule):
        try:
            schedule = make_schedule(None, n0=1, alpha=schedule)
        except (TypeError, ValueError) as exc:
            raise type(exc)(f"schedule must be a BatchSchedule or a ratio alpha: {exc}") from exc
    n_arr = np.asarray(n)
    if not np.issubdtype(n_arr.dtype, np.integer) or np.any(n_arr < 1):
        raise ValueError("n must be integers >= 1")
    top = int(n_arr.max())
    sizes = schedule.sizes_until(top)  # B_0..B_M with n_M >= top
    cum = np.cumsum(np.append(sizes, schedule.sizes(sizes.size + 1)[-1]))
    m = np.searchsorted(cum, n_arr, side="left")
    return {"n_m": cum[m], "noises": m + 1, "ratio": cum[m + 1] / cum[m]}


def imed_optimal_index(res: Any) -> np.ndarray:
    """DP-IMED index of the optimal arm at the end of each run, ``n_j d_eps([x_j], [x*]) + log n_j``.

    :prf:ref:`alg-dp-klucb-imed` with the final state: ``x_i`` the clipped private means, ``x*`` their
    maximum,
    ``j`` the first optimal arm.  The pulled arm minimises the index and the empirical leader's
    index is ``log n_leader < log t``, so while the private means stay as they are the optimal arm
    cannot be pulled again before ``log t >= I_j``: a run stuck in pre-convergence at ``T`` stays
    stuck until about ``t = exp(I_j)``.  This is the quantity ``I-bar_j`` whose exponential the proof
    of :prf:ref:`thm-upper-bound` shows to be integrable (Step 3 of its proof).

    Parameters
    ----------
    res : DecomposedRuns
        Runs of DP-IMED.

    Returns
    -------
    numpy.ndarray, shape (runs,)
    """
    res = _decomposed(res)
    if res.policy != "DP-IMED":
        raise ValueError(f"imed_optimal_index needs runs of DP-IMED, got {res.policy}")
    x = np.clip(res.final_means, 0.0, 1.0)
    j = int(np.argmax(res.means))
    x_star = x.max(axis=1)
    n_j = res.total_pulls()[:, -1, j].astype(float)
    return n_j * np.asarray(d_eps(np.minimum(x[:, j], x_star), x_star, res.eps)) + np.log(n_j)


# ----------------------------------------------------------------------------------------------
# the result
# ----------------------------------------------------------------------------------------------
@dataclass(eq=False)
class DecomposedRuns:
    """Runs of DP-IMED / DP-KLUCB with exact pull counts on a horizon grid, split by proof term.

    Attributes
    ----------
    policy : str
        ``"DP-IMED"`` or ``"DP-KLUCB"``.
    params : dict
        The policy's parameters (``eps`` and the batch ``schedule``).
    means : ndarray (K,)
        Arm means.
    T : int
        Horizon of the runs (the last grid point).
    seed : int
        Root seed; run ``r`` is child ``r`` of ``SeedSequence(seed)``, as in :func:`dpb.simulate.simulate`.
    delta : float
        The ``delta`` of the decomposition.
    grid : ndarray (G,)
        Horizons ``t`` at which the pulls are reported.
    pulls : ndarray (runs, G, K, 3), int64
        ``N_i(t)`` split into the terms :data:`TERMS` (initialisation, pre-, post-convergence).
    n_phases : ndarray (runs,)
        Phases (decisions, initialisation included) made up to ``T``.
    last_pre : ndarray (runs,)
        First round of the last pre-convergence phase of each run (0 if there was none): after it,
        every decision is post-convergence.
    pre_at_end : ndarray (runs,), bool
        Whether the last decision of the run (before ``T``) was still pre-convergence.
    final_means : ndarray (runs, K)
        Every arm's private mean ``S~_i / n_i`` (unclipped) at the end of the run.
    """

    policy: str
    params: dict
    means: np.ndarray
    T: int
    seed: int
    delta: float
    grid: np.ndarray
    pulls: np.ndarray
    n_phases: np.ndarray
    last_pre: np.ndarray
    pre_at_end: np.ndarray
    final_means: np.ndarray
    extra: dict = field(default_factory=dict)

    _ARRAYS = ("means", "grid", "pulls", "n_phases", "last_pre", "pre_at_end", "final_means")
    #: The parameters, each with the type it is read back as (the seed is written as a string).
    _META = {"policy": str, "params": dict, "T": int, "seed": int, "delta": float}

    @property
    def K(self) -> int:  # noqa: N802 - the paper's notation
        return int(self.means.size)

    @property
    def runs(self) -> int:
        return int(self.pulls.shape[0])

    @property
    def gaps(self) -> np.ndarray:
        return self.means.max() - self.means

    @property
    def eps(self) -> float:
        return float(self.params["eps"])

    @property
    def alpha(self) -> float | None:
        """The geometric ratio, or None for another schedule."""
        sch = self.params["schedule"]
        if sch["kind"] == "geometric":
            return float(sch["alpha"])
        return 2.0 if sch["kind"] == "doubling" else None

    def total_pulls(self) -> np.ndarray:
        """``N_i(t)`` of every run, grid point and arm, shape (runs, G, K) (sum of the three terms)."""
        return self.pulls.sum(axis=-1)

    def normalised_pulls(self) -> np.ndarray:
        """``N_i(t) / log t``, shape (runs, G, K): the quantity bounded by ``alpha / d_eps``."""
        return self.total_pulls() / np.log(self.grid)[None, :, None]

    def regret(self) -> np.ndarray:
        """Pseudo-regret ``sum_i Delta_i N_i(t)`` of every run at every grid point, shape (runs, G)."""
        total = self.total_pulls()
        out = np.zeros(total.shape[:2])
        for k, gap in enumerate(np.asarray(self.gaps, dtype=float)):  # arm after arm: no BLAS, one order
            out = out + total[:, :, k] * gap
        return out

    def regret_terms(self) -> np.ndarray:
        """Regret of each term of :data:`TERMS`, shape (runs, G, 3); it sums to :meth:`regret` (to
        rounding)."""
        out = np.zeros(self.pulls.shape[:2] + self.pulls.shape[3:])
        for k, gap in enumerate(np.asarray(self.gaps, dtype=float)):  # arm after arm: no BLAS, one order
            out = out + self.pulls[:, :, k, :] * gap
        return out

    def constants(self) -> dict:
        """:func:`asymptotic_constants` of this instance with the schedule's ``alpha``.

        For a non-geometric schedule (polynomial: the ratio of consecutive cumulative counts tends
        to 1) the upper constants are set to the lower ones, the limit ``alpha -> 1``.
        """
        alpha = self.alpha
        if alpha is not None:
            return asymptotic_constants(self.means, self.eps, alpha)
        out = asymptotic_constants(self.means, self.eps, 2.0)
        out["upper_pulls"] = out["lower_pulls"].copy()
        out["upper_regret"] = out["lower_regret"]
        return out

    def at(self, t: int) -> int:
        """Index of horizon ``t`` in :attr:`grid` (raises ``ValueError`` if it is not a grid point)."""
        t = as_int("t", t, minimum=1)
        pos = int(np.searchsorted(self.grid, t))
        if pos >= self.grid.size or self.grid[pos] != t:
            raise ValueError(
                f"t={t} is not a grid point; the grid runs from {self.grid[0]} to {self.grid[-1]}"
            )
        return pos

    # -- persistence ---------------------------------------------------------------------------
    def save(self, path: Any) -> Path:
        """Write to ``path`` (``.npz``) atomically (temporary file, then rename); returns the path."""
        path = Path(path)
        if path.suffix != ".npz":
            path = path.with_suffix(".npz")
        meta = {k: getattr(self, k) for k in self._META} | {"seed": str(self.seed), "extra": self.extra}
        return save_npz_atomic(path, meta, {k: getattr(self, k) for k in self._ARRAYS})

    @classmethod
    def load(cls, path: Any) -> DecomposedRuns:
        """Read a result written by :meth:`save`."""
        with np.load(Path(path), allow_pickle=False) as data:
            meta = json.loads(str(data["meta"]))
            arrays = {k: data[k] for k in cls._ARRAYS}
        known = {k: read(meta[k]) for k, read in cls._META.items()}
        return cls(**known, extra=meta.get("extra", {}), **arrays)

    def same_as(self, other: DecomposedRuns) -> bool:
        """True when every parameter and array is identical."""
        return all(getattr(self, k) == getattr(other, k) for k in self._META) and all(
            np.array_equal(getattr(self, k), getattr(other, k)) for k in self._ARRAYS
        )


# ----------------------------------------------------------------------------------------------
# the driver
# ----------------------------------------------------------------------------------------------
class _PhaseLog:
    """Hook of the phase engine: labels every phase with its term of the decomposition."""

    def __init__(self, policy: Policy, means: np.ndarray, delta: float) -> None:
        self.policy = policy
        self.mu_star = float(means.max())
        self.optimal = np.flatnonzero(means == means.max())
        self.delta = delta
        self.imed = isinstance(policy, DPIMED)
        self.chunks: list[tuple[np.ndarray, ...]] = []

    def before_update(self, rows, t0, counts, sums) -> None:
        p: Any = self.policy  # DP-IMED or DP-KLUCB (their private sums S and counts n)
        rows = np.asarray(rows, dtype=np.int64)
        arm = np.argmax(counts, axis=1)
        cnt = counts[np.arange(rows.size), arm]
        idx = p.index[rows]
        init = np.isnan(idx).all(axis=1)
        level = self.mu_star - self.delta
        # the decomposition of the proof of the upper bound (chapter 6)
        if self.imed:  # DP-IMED: the optimal arm's private mean (unclipped) is still low
            with np.errstate(invalid="ignore", divide="ignore"):
                best = (p.S[rows][:, self.optimal] / p.n[rows][:, self.optimal]).max(axis=1)
            pre = best < level
        else:  # DP-KLUCB: the largest DP-KLUCB index is still low
            with np.errstate(invalid="ignore"):
                pre = np.nanmax(np.where(init[:, None], 0.0, idx), axis=1) < level
        cat = np.where(init, 0, np.where(pre, 1, 2)).astype(np.int64)
        t0 = np.asarray(t0, dtype=np.int64).copy()
        self.chunks.append((rows.copy(), t0, arm, cnt.astype(np.int64), cat))

    def after_update(self, rows, t0, counts, sums) -> None:
        pass


def _pulls_on_grid(chunks, R: int, K: int, T: int, grid: np.ndarray):
    """Exact split pull counts on the grid from the phase log (linear inside a phase)."""
    run, t0, arm, cnt, cat = (np.concatenate(c) for c in zip(*chunks, strict=True))
    order = np.lexsort((t0, run))
    run, t0, arm, cnt, cat = run[order], t0[order], arm[order], cnt[order], cat[order]
    P = run.size
    col = arm * len(TERMS) + cat
    contrib = np.zeros((P, K * len(TERMS)), dtype=np.int64)
    contrib[np.arange(P), col] = cnt
    before = np.cumsum(contrib, axis=0) - contrib  # pulls before each phase (all runs chained)
    first = np.searchsorted(run, np.arange(R))  # first phase of each run
    key = run * (T + 2) + t0
    G = grid.size
    query = (np.arange(R)[:, None] * (T + 2) + grid[None, :]).ravel()
    p = np.searchsorted(key, query, side="right") - 1  # last phase starting at or before t
    run_q = np.repeat(np.arange(R), G)
    out = before[p] - before[first[run_q]]
    partial = np.minimum(cnt[p], np.tile(grid, R) - t0[p] + 1)
    out[np.arange(out.shape[0]), col[p]] += partial
    n_phases = np.bincount(run, minlength=R)
    last_pre = np.zeros(R, dtype=np.int64)
    is_pre = cat == 1
    np.maximum.at(last_pre, run[is_pre], t0[is_pre])
    last = np.searchsorted(run, np.arange(R), side="right") - 1  # last phase of each run
    pre_at_end = cat[last] == 1
    return out.reshape(R, G, K, len(TERMS)), n_phases, last_pre, pre_at_end


def _as_dp_policy(policy, params) -> Policy:
    if not isinstance(policy, (str, Policy)):
        raise TypeError(f"policy must be a policy name or a Policy, got {type(policy).__name__}")
    pol = as_policy(policy, params)
    if not isinstance(pol, (DPIMED, DPKLUCB)):
        raise ValueError(f"the decomposition is defined for DP-IMED and DP-KLUCB only, got {pol.name}")
    return pol


def decompose_runs(
    policy: Any,
    env: Any,
    T: int,
    runs: int,
    seed: int,
    *,
    params: dict | None = None,
    delta: float | None = None,
    grid: Any = None,
    max_seconds: float | None = MAX_SECONDS,
) -> DecomposedRuns:
    """Simulate ``runs`` runs of DP-IMED or DP-KLUCB and split every run's pulls by proof term.

    The runs go through the exact phase engine of :mod:`dpb.simulate` with a hook that records
    every phase (its first round, arm, length after truncation at ``T``) and labels it, at its
    decision, as initialisation, pre-convergence or post-convergence (module docstring;
    :eq:`eq-ch06-decomposition`).  ``N_i(t)`` at a grid horizon ``t`` is then exact:
    the pulls of the phases finished by ``t`` plus ``t - t0 + 1`` pulls of the phase running at
    ``t`` (started at ``t0``) -- the same trajectory stopped at ``t``, because a policy's decisions
    before ``t`` do not depend on ``T``.  Run ``r`` is the run ``r`` of
    ``simulate(policy, env, T, runs, seed)`` (same seeds, same pulls at ``T``).

    Parameters
    ----------
    policy : str or Policy
        ``"DP-IMED"`` / ``"DP-KLUCB"`` (with ``params``: ``eps``, ``n0``, ``alpha``, ``schedule``)
        or a :class:`~dpb.policies.DPIMED` / :class:`~dpb.policies.DPKLUCB` instance.
    env : BernoulliBandit, str or array_like
        Environment (an instance name such as ``"mu2"`` or a vector of means).
    T : int
        Horizon.
    runs : int
        Number of independent runs (``>= 1``).
    seed : int
        Root seed (non-negative).
    params : dict, optional
        Policy parameters when ``policy`` is a name.
    delta : float, optional
        The ``delta > 0`` of the decomposition (default ``DEFAULTS["delta"]``, 0.05).
    grid : array_like of int, optional
        Horizons at which to report the pulls (default :func:`horizon_grid` ``(T)``); ``T`` is
        always added.
    max_seconds : float or None
        Refuse a call whose estimated cost exceeds this many CPU-seconds, as
        :func:`dpb.simulate.simulate` does (None: no limit).

    Returns
    -------
    DecomposedRuns
    """
    pol = _as_dp_policy(policy, params)
    bandit = as_bandit(env)
    T = as_int("T", T, minimum=1, maximum=MAX_HORIZON)
    runs = as_int("runs", runs, minimum=1, maximum=MAX_RUNS)
    seed = as_int("seed", seed, minimum=0)
    delta = DEFAULTS["delta"] if delta is None else delta
    delta = _scalar("delta", as_positive("delta", delta, allow_inf=False))
    if T < pol.min_horizon(bandit.K):
        raise ValueError(
            f"T must be >= {pol.min_horizon(bandit.K)} for {pol.name} on K={bandit.K} arms, got {T}"
        )
    if grid is None:
        grid = horizon_grid(T, DEFAULTS["n_grid"], min(DEFAULTS["t_min"], T))
    grid = _rounds_until("grid", grid, T)
    _refuse(f"decompose_runs({pol.name!r})", T, runs, max_seconds, pol, bandit.K, "phases")

    means = np.asarray(bandit.means, dtype=float)
    hook = _PhaseLog(pol, means, delta)
    seeds = SeedChildren(np.random.SeedSequence(seed), range(runs))
    # the generic engine (no fast path: no engine)
    rec, _ = _run_seeds(pol, bandit, T, seeds, np.array([T]), None, "python", hook)
    pulls, n_phases, last_pre, pre_at_end = _pulls_on_grid(hook.chunks, runs, bandit.K, T, grid)
    if not np.array_equal(pulls[:, -1].sum(axis=-1), rec.pulls):  # pragma: no cover - defensive
        raise RuntimeError("internal error: the phase log does not reproduce the engine's pull counts")
    return DecomposedRuns(
        policy=pol.name,
        params=dict(pol.params),
        means=means.copy(),
        T=T,
        seed=seed,
        delta=delta,
        grid=grid,
        pulls=pulls,
        n_phases=n_phases,
        last_pre=last_pre,
        pre_at_end=pre_at_end,
        final_means=pol.statistic().copy(),
    )


# ----------------------------------------------------------------------------------------------
# caching
# ----------------------------------------------------------------------------------------------
def cache_dir(path: Any = None) -> Path:
    """Directory of the on-disk cache of this module: ``path`` if given, else ``regret/`` under
    :func:`dpb.cache.default_results_dir` (``$DPB_RESULTS``, a checkout's ``results/`` or
    ``~/.cache/dpb``)."""
    if path is not None:
        return as_directory("path", path)
    return cache.default_results_dir() / "regret"


def _provenance(policy: Policy) -> dict:
    """:func:`dpb.cache.provenance` of this module and of the policy's module (and what they import)."""
    return cache.provenance(Path(__file__), type(policy))


#: The file-name-safe key of a set of parameters (:func:`dpb.cache.cache_key`).
cache_key = cache.cache_key


def cached_runs(
    policy: str,
    env: Any,
    *,
    eps: float,
    alpha: Any = None,
    schedule: Any = None,
    n0: int = 1,
    T: int | None = None,
    runs: int | None = None,
    seed: int | None = None,
    delta: float | None = None,
    grid: Any = None,
    directory: Any = None,
    refresh: bool = False,
) -> DecomposedRuns:
    """:func:`decompose_runs` with an on-disk cache.

    The file name is :func:`cache_key` of every parameter (policy, means, eps, schedule, T, runs,
    seed, delta, grid); the file records them and the :func:`dpb.cache.provenance` of the code
    (this module, the policy's module and what they import).  A missing, unreadable or stale file
    (:func:`dpb.cache.file_state`), or ``refresh=True``, is computed and saved atomically; a current
    one is loaded.  Changing a parameter changes the file, changing the code makes it stale.

    Parameters
    ----------
    policy : {"DP-IMED", "DP-KLUCB"}
        The algorithm.
    env : str or array_like
        Instance name or means.
    eps : float
        Privacy budget.
    alpha : float, optional
        Geometric ratio (default 2 unless ``schedule`` is given).
    schedule : BatchSchedule, optional
        Another batch schedule (e.g. :class:`dpb.batching.PolynomialSchedule`); overrides ``alpha``.
    n0 : int
        First batch size.
    T, runs, seed, delta, grid
        As in :func:`decompose_runs`; None means the value in :data:`DEFAULTS` (read at call time).
    directory : path, optional
        Cache directory (default :func:`cache_dir`).
    refresh : bool
        Recompute even when the file exists.
    """
    refresh = as_flag("refresh", refresh)
    as_choice("policy", policy, ("DP-IMED", "DP-KLUCB"))
    if schedule is not None and alpha is not None:
        raise ValueError("give either alpha (geometric batches) or schedule, not both")
    kwargs = {"eps": eps, "n0": n0}
    if schedule is not None:
        kwargs["schedule"] = schedule
    else:
        kwargs["alpha"] = 2 if alpha is None else alpha
    pol = _as_dp_policy(policy, kwargs)
    bandit = as_bandit(env)
    T = as_int("T", DEFAULTS["T"] if T is None else T, minimum=1)
    runs = DEFAULTS["runs"] if runs is None else runs
    seed = DEFAULTS["seed"] if seed is None else seed
    delta = float(as_positive("delta", DEFAULTS["delta"] if delta is None else delta, allow_inf=False))
    if grid is None:
        grid = horizon_grid(T, DEFAULTS["n_grid"], min(DEFAULTS["t_min"], T))
    grid = np.union1d(np.asarray(grid, dtype=np.int64), [T])
    key_params = {
        "policy": pol.name,
        "params": pol.params,
        "means": bandit.means.tolist(),
        "T": T,
        "runs": as_int("runs", runs, minimum=1),
        "seed": as_int("seed", seed, minimum=0),
        "delta": delta,
        "grid": grid.tolist(),
    }
    folder = cache_dir(None if directory is None else as_directory("directory", directory))
    path = folder / f"{cache_key('runs', key_params)}.npz"
    # as the file will record it (JSON: tuples become lists, numpy scalars plain numbers)
    expected = cache._as_recorded({"key": key_params, **_provenance(pol)})
    if not refresh and cache.file_state(path, expected) == "done":
        try:
            return DecomposedRuns.load(path)
        except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile):  # damaged: recompute
            pass
    res = decompose_runs(pol, bandit, T, runs, seed, delta=delta, grid=grid)
    res.extra.update(expected, env_name=bandit.name)
    res.save(path)
    return res


# ----------------------------------------------------------------------------------------------
# summaries
# ----------------------------------------------------------------------------------------------
def _check_level(level, name: str = "level") -> float:
    return as_real(name, level, low=0.0, high=1.0, low_open=True, high_open=True)


def _decomposed(res) -> DecomposedRuns:
    return as_instance("res", res, DecomposedRuns, "dpb.regret.DecomposedRuns")


def pull_summary(res: DecomposedRuns, *, level: float = 0.95, band: float = 0.8) -> dict:
    """Mean, confidence interval of the mean and quantile band of ``N_i(t) / log t`` over runs.

    Parameters
    ----------
    res : DecomposedRuns
        The runs.
    level : float
        Level of the normal-approximation confidence interval of the mean,
        ``mean +- z_{(1+level)/2} sd / sqrt(runs)``.
    band : float
        Central quantile band of the runs (e.g. 0.8: the 10% and 90% quantiles).

    Returns
    -------
    dict of arrays of shape (G, K)
        ``mean``, ``ci_low``, ``ci_high``, ``median``, ``q_low``, ``q_high``; plus ``grid`` (G,).
    """
    from scipy.stats import norm

    res = _decomposed(res)
    level, band = _check_level(level), _check_level(band, "band")
    x = res.normalised_pulls()
    mean = x.mean(axis=0)
    sd = x.std(axis=0, ddof=1) if res.runs > 1 else np.zeros_like(mean)
    half = norm.isf((1 - level) / 2) * sd / np.sqrt(res.runs)  # isf: finite up to level = 1 - 1e-16
    q_low, median, q_high = np.quantile(x, [0.5 - band / 2, 0.5, 0.5 + band / 2], axis=0)
    return {
        "grid": res.grid,
        "mean": mean,
        "ci_low": mean - half,
        "ci_high": mean + half,
        "median": median,
        "q_low": q_low,
        "q_high": q_high,
    }


def regret_quantiles(res: DecomposedRuns, qs: Any = (0.1, 0.5, 0.9), *,
                     term: str | None = None) -> np.ndarray:
    """Quantiles over runs of the regret (or of one term of it) at every grid horizon.

    Parameters
    ----------
    res : DecomposedRuns
    qs : sequence of float
        Quantile levels in [0, 1].
    term : {None, "init", "pre", "post"}
        None for the whole regret, else one term of :data:`TERMS`.

    Returns
    -------
    ndarray, shape (len(qs), G)
    """
    res = _decomposed(res)
    qs = as_float_array("qs", qs)
    if qs.ndim != 1 or not np.all((qs >= 0) & (qs <= 1)):  # NaN fails too
        raise ValueError("qs must be a 1-d sequence of levels in [0, 1]")
    if term is None:
        reg = res.regret()
    elif term in TERMS:
        reg = res.regret_terms()[..., TERMS.index(term)]
    else:
        raise ValueError(f"term must be None or one of {TERMS}, got {term!r}")
    return np.quantile(reg, qs, axis=0)

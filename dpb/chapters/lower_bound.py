"""The numbers of chapter 2 (*Lower bound*): the coupled environment simulated under named pulling rules.

Built on :mod:`dpb.coupling` (the maximal coupling and the simulator of the coupled environment of
Step 1 of the proof of :prf:ref:`thm-lower-bound`); :mod:`dpb.plotting.lower_bound` draws these
runs and :mod:`dpb.widgets.lower_bound` lets the reader pick the rule.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from numpy.typing import ArrayLike

from .._validate import as_finite, as_float_array, as_int, as_probability
from ..coupling import CoupledHistory, simulate_coupled_environment

__all__ = ["PULLING_RULES", "pulling_rule", "follow_the_leader", "coupled_runs", "binned_means"]

#: Pulling rules offered by :func:`coupled_runs` and the coupled-simulation explorer.
PULLING_RULES = ("random rate", "uniform", "follow the leader")


def follow_the_leader(t: int, counts: ArrayLike, sums: ArrayLike, rng: np.random.Generator) -> np.ndarray:
    """Adaptive (reward-dependent) two-armed rule: try each arm once, then pull the best observed mean.

    The signature is the ``rule(t, counts, sums, rng)`` of
    :func:`dpb.coupling.simulate_coupled_environment`: ``t`` is the 1-based step, ``counts`` and
    ``sums`` of shape ``(n_runs, 2)`` hold each run's pulls and *observed* reward sums per arm.
    Step 1 pulls arm 1, step 2 pulls arm 2; afterwards arm 2 is pulled when its empirical mean is
    larger, ties broken by a fair coin.  It abandons arm 2 after observing zeros, which is what biases
    the per-run ratio ``d_Ham / N_2`` at small ``N_2`` (see :func:`dpb.coupling.hamming_ratio`).

    Returns
    -------
    ndarray of bool, shape (n_runs,)
        ``True`` where arm 2 is pulled.
    """
    counts = np.asarray(counts)
    n_runs = counts.shape[0]
    if t <= 2:
        return np.full(n_runs, t == 2)
    means = np.asarray(sums, dtype=float) / np.maximum(counts, 1)
    tie = means[:, 0] == means[:, 1]
    return np.where(tie, rng.random(n_runs) < 0.5, means[:, 1] > means[:, 0])


def _random_rate_rule():
    """A reward-oblivious rule: each run pulls arm 2 with its own probability, drawn uniformly in [0, 1]."""
    state = {}

    def rule(t, counts, sums, rng):
        n_runs = np.asarray(counts).shape[0]
        if "p" not in state:
            state["p"] = rng.random(n_runs)
        return rng.random(n_runs) < state["p"]

    return rule


def pulling_rule(name: str
                 ) -> float | Callable[[int, np.ndarray, np.ndarray, np.random.Generator], np.ndarray]:
    """The ``policy_pulls_arm2`` argument of :func:`dpb.coupling.simulate_coupled_environment` for ``name``.

    * ``"uniform"``: pull arm 2 with probability 1/2 at every step (reward-oblivious);
    * ``"random rate"``: each run draws its own rate ``p ~ U[0, 1]`` once and pulls arm 2 with
      probability ``p`` at every step (reward-oblivious; spreads ``N_2`` over ``[0, T]`` across runs);
    * ``"follow the leader"``: :func:`follow_the_leader` (adaptive, reward-dependent).

    Raises
    ------
    ValueError
        For an unknown name (the message lists :data:`PULLING_RULES`).
    """
    if name == "uniform":
        return 0.5
    if name == "random rate":
        return _random_rate_rule()
    if name == "follow the leader":
        return follow_the_leader
    raise ValueError(f"unknown policy (pulling rule) name {name!r}; choose one of {', '.join(PULLING_RULES)}")


def coupled_runs(mu1: float = 0.7, mu2: float = 0.3, mu2_prime: float = 0.5, *, policy: str = "random rate",
                 horizon: int = 1000, n_runs: int = 300, seed: int = 0) -> CoupledHistory:
    """Simulate the coupled environment of ``nu = (mu1, mu2)`` and ``nu' = (mu1, mu2_prime)``.

    Step 1 of the proof of :prf:ref:`thm-lower-bound`: the policy sees the
    rewards ``r`` of ``nu``; the rewards ``r'`` of ``nu'`` are drawn from the maximal coupling, so
    only arm-2 rewards can differ, each with probability ``TV(P_2, P_2') = abs(mu2_prime - mu2)``.
    A thin wrapper of :func:`dpb.coupling.simulate_coupled_environment` with a named rule
    (:func:`pulling_rule`).

    Parameters
    ----------
    mu1, mu2, mu2_prime : float
        Means in [0, 1] of arm 1 (unchanged), of arm 2 in ``nu`` and of arm 2 in ``nu'``.
    policy : str
        One of :data:`PULLING_RULES`.
    horizon, n_runs : int
        ``T >= 1`` and the number of independent runs ``>= 1``.
    seed : int
        Seed of the simulation (reproducible).

    Returns
    -------
    dpb.coupling.CoupledHistory
    """
    mu = {k: float(as_probability(k, v)) for k, v in (("mu1", mu1), ("mu2", mu2), ("mu2_prime", mu2_prime))}
    try:
        rule = pulling_rule(policy)
    except ValueError as exc:
        raise ValueError(f"policy: {exc}") from exc
    return simulate_coupled_environment(
        [mu["mu1"], mu["mu2"]], [mu["mu1"], mu["mu2_prime"]], rule, horizon=horizon,
        n_runs=n_runs, seed=seed,
    )


def binned_means(x: ArrayLike, y: ArrayLike, n_bins: int = 8) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Means of ``y`` in ``n_bins`` quantile bins of ``x`` (NaN entries of ``y`` dropped).

    Used to show the average ratio ``d_Ham / N_2`` as a function of ``N_2``.

    Parameters
    ----------
    x, y : array_like of shape (n,)
        Abscissae and values.
    n_bins : int
        Number of bins ``>= 1`` (fewer when ``x`` has few distinct values).

    Returns
    -------
    centres, means, counts : ndarrays
        Mean ``x`` of each non-empty bin, mean ``y`` in it, and its number of points.
    """
    x = as_finite("x", x)
    y = as_float_array("y", y)
    if x.shape != y.shape or x.ndim != 1:
        raise ValueError(f"x and y must be 1-d arrays of the same length, got shapes {x.shape} and {y.shape}")
    n_bins = as_int("n_bins", n_bins, minimum=1, maximum=10**6)
    keep = ~np.isnan(y)
    x, y = np.asarray(x[keep]), np.asarray(y[keep])  # (asarray: an ndarray to mypy)
    if x.size == 0:
        return np.empty(0), np.empty(0), np.empty(0, dtype=int)
    edges = np.unique(np.quantile(x, np.linspace(0, 1, n_bins + 1)))
    if edges.size < 2:
        return np.array([x.mean()]), np.array([y.mean()]), np.array([x.size])
    idx = np.clip(np.searchsorted(edges, x, side="right") - 1, 0, edges.size - 2)
    centres, means, counts = [], [], []
    for b in range(edges.size - 1):
        sel = idx == b
        if np.any(sel):
            centres.append(x[sel].mean())
            means.append(y[sel].mean())
            counts.append(int(sel.sum()))
    return np.array(centres), np.array(means), np.array(counts)

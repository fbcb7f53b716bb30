"""The double change of environment of the lower-bound proof, as computation.

The proof of :prf:ref:`thm-lower-bound` compares a
two-armed Bernoulli bandit ``nu = (P_1, P_2)`` (means ``mu_1 >= mu_2``) with two alternatives that
only change arm 2: ``nu' = (P_1, P_2')`` and ``nu'' = (P_1, P_2'')`` with
``mu_2 <= mu_2' <= mu_1 <= mu_2''``.  It goes from ``nu`` to ``nu''`` in two legs:

1. ``nu -> nu'`` through **group privacy** (the TV leg of Step 3 of the proof of :prf:ref:`thm-lower-bound`):
   the policy is fed the
   rewards of a *coupled* environment ``gamma`` (Step 1), in which ``(r_t, r'_t)`` is drawn from the
   maximal coupling of ``(P_{a_t}, P'_{a_t})`` (Definition 'Maximal Couplings').  Only arm-2 rewards
   can differ, each with probability ``TV(P_2, P_2') = mu_2' - mu_2``, so on the event
   ``L = {d_Ham(r, r') <= (1 + alpha) n_2 TV(P_2, P_2')}`` (Step 2) an eps-DP policy changes the
   probability of any event by at most ``exp(eps (1 + alpha) n_2 TV)``: the **TV leg** costs
   ``eps (mu_2' - mu_2)`` per pull of arm 2.
2. ``nu' -> nu''`` through the classic Lai-Robbins change of measure on the event ``A``: the
   **KL leg** costs ``kl(mu_2', mu_2'')`` per pull of arm 2.

Step 4 lets ``mu_2'' -> mu_1`` and optimises over the intermediate mean ``mu_2'``: the per-pull cost
``c(mu_2') = eps (mu_2' - mu_2) + kl(mu_2', mu_1)`` is minimised at the closed-form ``z*`` of
:func:`dpb.divergences.z_star` and its minimum is ``d_eps(mu_2, mu_1)`` (:prf:ref:`def-d-eps`), giving
``liminf E[N_2(T)] / log T >= 1 / d_eps(mu_2, mu_1)``.

This module provides the cost and its two legs (:func:`transport_cost`, :func:`tv_leg`,
:func:`kl_leg`), the optimum (:func:`optimal_intermediate`) and the two pure routes
(:func:`pure_routes`), a sampler of the maximal coupling of two Bernoullis
(:func:`maximal_coupling`), and a simulator of the coupled environment ``gamma``
(:func:`simulate_coupled_environment`) with the statistics of Step 3 of the proof of
:prf:ref:`thm-lower-bound`
(:func:`hamming_ratio`, :func:`event_L`, :func:`event_L_frequency`).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal, NamedTuple, overload

import numpy as np
from numpy.typing import ArrayLike

from ._validate import (
    MAX_ELEMENTS,
    MAX_SECONDS,
    MAX_SIZE,
    as_choice,
    as_float_array,
    as_int,
    as_positive,
    as_probability,
    as_rng,
    broadcast,
    check_elements,
    check_seconds,
    as_flag,
)
from .divergences import d_eps, kl, z_star

__all__ = [
    "TransportCost",
    "OptimalIntermediate",
    "PureRoutes",
    "CoupledHistory",
    "tv_leg",
    "kl_leg",
    "transport_cost",
    "optimal_intermediate",
    "pure_routes",
    "maximal_coupling",
    "simulate_coupled_environment",
    "hamming_ratio",
    "event_L",
    "event_L_frequency",
]

def _finish(arr: ArrayLike) -> float | np.ndarray:
    """A Python float for a 0-d result (as :mod:`dpb.divergences` does), else an ndarray."""
    arr = np.asarray(arr, dtype=float)
    return float(arr) if arr.ndim == 0 else arr


# --------------------------------------------------------------------------------------------
# the cost of the double change of environment
# --------------------------------------------------------------------------------------------
class TransportCost(NamedTuple):
    """Per-pull cost of the double change of environment and its two legs."""

    total: np.ndarray | float
    """``tv_leg + kl_leg``."""
    tv_leg: np.ndarray | float
    """``eps |mu_2' - mu_2|``: the group-privacy leg ``nu -> nu'``."""
    kl_leg: np.ndarray | float
    """``kl(mu_2', mu_1)``: the Lai-Robbins leg ``nu' -> nu''`` (with ``mu_2'' -> mu_1``)."""


class OptimalIntermediate(NamedTuple):
    """Optimal intermediate mean ``z*`` and the optimal per-pull cost ``d_eps(mu_2, mu_1)``."""

    z_star: np.ndarray | float
    cost: np.ndarray | float


class PureRoutes(NamedTuple):
    """Costs of the two extreme routes from ``mu_2`` to ``mu_1``."""

    all_kl: np.ndarray | float
    """``kl(mu_2, mu_1)``: skip the privacy leg (``mu_2' = mu_2``), the Lai-Robbins cost."""
    all_tv: np.ndarray | float
    """``eps |mu_1 - mu_2|``: do everything with group privacy (``mu_2' = mu_1``, ``kl(mu_1, mu_1) = 0``)."""


def _means(*eps, **named) -> list[np.ndarray]:
    """The named means in [0, 1] (and ``eps`` in (0, +inf] when given), validated and broadcast."""
    arrays = {k: as_probability(k, v) for k, v in named.items()}
    return broadcast(**arrays, eps=as_positive("eps", eps[0], allow_inf=True)) if eps else broadcast(**arrays)


def _eps_times_distance(eps: np.ndarray, dist: np.ndarray) -> np.ndarray:
    """``eps * dist`` with ``inf * 0 = 0`` (no change of environment costs nothing)."""
    eps_f = np.where(np.isfinite(eps), eps, 1.0)
    return np.where(dist == 0, 0.0, np.where(np.isfinite(eps), eps_f * dist, np.inf))


def tv_leg(mu2_prime: ArrayLike, mu2: ArrayLike, eps: ArrayLike) -> float | np.ndarray:
    """Group-privacy leg ``eps TV(P_2, P_2') = eps |mu_2' - mu_2|`` per pull of arm 2.

    The TV leg of Step 3 of the proof of :prf:ref:`thm-lower-bound`: on the event ``L`` the Hamming distance
    between the coupled
    reward lists is at most ``(1 + alpha) n_2 TV(P_2, P_2')``, and eps-DP (group privacy) costs a
    factor ``e^{eps}`` per differing reward.  ``eps = inf`` with ``mu_2' = mu_2`` gives 0.

    Parameters
    ----------
    mu2_prime, mu2 : float or array_like
        Means in [0, 1].
    eps : float or array_like
        Privacy budget in (0, +inf].

    Returns
    -------
    float or ndarray
        ``eps |mu_2' - mu_2|`` in ``[0, +inf]``.
    """
    mu2_prime, mu2, eps = _means(eps, mu2_prime=mu2_prime, mu2=mu2)
    return _finish(_eps_times_distance(eps, np.abs(mu2_prime - mu2)))


def kl_leg(mu2_prime: ArrayLike, mu1: ArrayLike) -> float | np.ndarray:
    """Lai-Robbins leg ``kl(mu_2', mu_1)`` per pull of arm 2.

    The KL leg of Step 3 of the proof of :prf:ref:`thm-lower-bound`, with ``mu_2'' -> mu_1`` (Step 4 of the
    proof): the log-likelihood ratio
    of ``nu'`` against ``nu''`` per pull of arm 2 has mean ``kl(mu_2', mu_2'')``.

    Parameters
    ----------
    mu2_prime, mu1 : float or array_like
        Means in [0, 1].

    Returns
    -------
    float or ndarray
        ``kl(mu_2', mu_1)`` in ``[0, +inf]``.
    """
    mu2_prime, mu1 = _means(mu2_prime=mu2_prime, mu1=mu1)
    return kl(mu2_prime, mu1)


@overload
def transport_cost(mu2_prime: ArrayLike, mu2: ArrayLike, mu1: ArrayLike, eps: ArrayLike, *,
                   return_legs: Literal[False] = False) -> float | np.ndarray: ...
@overload
def transport_cost(mu2_prime: ArrayLike, mu2: ArrayLike, mu1: ArrayLike, eps: ArrayLike, *,
                   return_legs: Literal[True]) -> TransportCost: ...
@overload
def transport_cost(mu2_prime: ArrayLike, mu2: ArrayLike, mu1: ArrayLike, eps: ArrayLike, *,
                   return_legs: bool) -> float | np.ndarray | TransportCost: ...
def transport_cost(mu2_prime: ArrayLike, mu2: ArrayLike, mu1: ArrayLike, eps: ArrayLike, *,
                   return_legs: bool = False) -> float | np.ndarray | TransportCost:
    """Per-pull cost ``c(mu_2') = eps (mu_2' - mu_2) + kl(mu_2', mu_1)`` of the double change of environment.

    Step 3 of the proof of :prf:ref:`thm-lower-bound` bounds ``P(Omega cap L cap A)`` by
    ``exp((1 + alpha) n_2 (eps TV(P_2, P_2') + kl(mu_2', mu_2'')))`` times a vanishing factor; Step 4
    takes ``mu_2'' -> mu_1`` and minimises over ``mu_2'`` the per-pull cost ``c(mu_2')``, whose minimum
    over ``[mu_2, mu_1]`` is ``d_eps(mu_2, mu_1)`` (:prf:ref:`def-d-eps`).  Written with ``|mu_2' - mu_2|``
    the
    formula also covers ``mu_2 > mu_1`` (the other side of :prf:ref:`def-d-eps`).

    Parameters
    ----------
    mu2_prime : float or array_like
        Intermediate mean(s) ``mu_2'``; must lie between ``mu2`` and ``mu1`` (inclusive).
    mu2 : float or array_like
        Mean of the sub-optimal arm 2, in [0, 1].
    mu1 : float or array_like
        Mean of the optimal arm 1, in [0, 1] (``mu_2'' -> mu_1``).
    eps : float or array_like
        Privacy budget in (0, +inf].
    return_legs : bool
        If true, return a :class:`TransportCost` ``(total, tv_leg, kl_leg)`` instead of the total.

    Returns
    -------
    float, ndarray or TransportCost
        The broadcast cost ``c(mu_2')`` in ``[0, +inf]`` (``+inf`` only when ``kl(mu_2', mu_1)`` is,
        e.g. ``mu_1 = 1 > mu_2'``, or ``eps = inf`` with ``mu_2' != mu_2``).

    Raises
    ------
    ValueError
        If a mean is outside [0, 1], ``eps`` is not in (0, +inf], ``mu2_prime`` is not between
        ``mu2`` and ``mu1``, or the shapes do not broadcast.
    """
    return_legs = as_flag("return_legs", return_legs)
    mu2_prime, mu2, mu1, eps = _means(eps, mu2_prime=mu2_prime, mu2=mu2, mu1=mu1)
    lo, hi = np.minimum(mu2, mu1), np.maximum(mu2, mu1)
    outside = (mu2_prime < lo) | (mu2_prime > hi)
    if np.any(outside):
        i = np.flatnonzero(outside.ravel())[0]
        raise ValueError(
            f"mu2_prime must lie between mu2 and mu1 (inclusive), got mu2_prime={mu2_prime.ravel()[i]!r} "
            f"outside [{lo.ravel()[i]!r}, {hi.ravel()[i]!r}]"
        )
    tv_part = _eps_times_distance(eps, np.abs(mu2_prime - mu2))
    kl_part = np.asarray(kl(mu2_prime, mu1), dtype=float)
    total = tv_part + kl_part
    if return_legs:
        return TransportCost(_finish(total), _finish(tv_part), _finish(kl_part))
    return _finish(total)


def optimal_intermediate(mu2: ArrayLike, mu1: ArrayLike, eps: ArrayLike) -> OptimalIntermediate:
    """Optimal intermediate mean ``z* = argmin c`` and the optimal cost ``c(z*) = d_eps(mu_2, mu_1)``.

    Step 4 of the proof of :prf:ref:`thm-lower-bound` (supremum over ``mu_2'``) solved in closed
    form (Implication (b)): for ``mu_2 <= mu_1``,
    ``z* = max(mu_2, mu_1 / (mu_1 + (1 - mu_1) e^eps))``; ``z* = mu_2`` (all-KL route) exactly in
    the low-privacy regime ``eps >= regime_threshold(mu_2, mu_1)``.  Delegates to
    :func:`dpb.divergences.z_star` and :func:`dpb.divergences.d_eps`.

    Parameters
    ----------
    mu2, mu1 : float or array_like
        The sub-optimal and the optimal mean, in [0, 1].
    eps : float or array_like
        Privacy budget in (0, +inf] (``inf``: the all-KL route of Lai and Robbins).

    Returns
    -------
    OptimalIntermediate
        ``(z_star, cost)``, broadcast.
    """
    mu2, mu1, eps = _means(eps, mu2=mu2, mu1=mu1)
    return OptimalIntermediate(z_star(mu2, mu1, eps), d_eps(mu2, mu1, eps))


def pure_routes(mu2: ArrayLike, mu1: ArrayLike, eps: ArrayLike) -> PureRoutes:
    """Costs of the two pure routes: all-KL ``kl(mu_2, mu_1)`` and all-TV ``eps |mu_1 - mu_2|``.

    The endpoints ``mu_2' = mu_2`` and ``mu_2' = mu_1`` of the transport cost ``c`` (Step 4 of the
    proof): the first is the non-private Lai-Robbins argument, the second uses group privacy alone
    (``kl(mu_1, mu_1) = 0``).  Both are ``>= d_eps(mu_2, mu_1)``, which is why
    ``d_eps <= min{kl, eps Delta}`` (Implication (a)).  Parameters as in
    :func:`optimal_intermediate`; returns ``PureRoutes(all_kl, all_tv)``, broadcast.
    """
    mu2, mu1, eps = _means(eps, mu2=mu2, mu1=mu1)
    return PureRoutes(kl(mu2, mu1), _finish(_eps_times_distance(eps, np.abs(mu1 - mu2))))


# --------------------------------------------------------------------------------------------
# maximal coupling and the coupled environment gamma
# --------------------------------------------------------------------------------------------
def _as_size(size) -> tuple[int, ...]:
    if size is None:
        return ()
    if isinstance(size, (int, np.integer)) and not isinstance(size, (bool, np.bool_)):
        return (check_elements("size", as_int("size", size, minimum=0)),)
    try:
        dims = tuple(size)
    except TypeError as exc:
        raise TypeError(f"size must be None, an int or a tuple of ints, got {type(size).__name__}") from exc
    out = tuple(as_int("size", d, minimum=0, maximum=MAX_ELEMENTS) for d in dims)
    check_elements("size", math.prod(out))
    return out


def maximal_coupling(p: ArrayLike, q: ArrayLike, size: int | tuple[int, ...] | None = None,
                     rng: np.random.Generator | np.random.SeedSequence | int | None = None
                     ) -> tuple[np.ndarray, np.ndarray]:
    """Sample the maximal coupling of Bernoulli(p) and Bernoulli(q).

    Definition 'Maximal Couplings': ``X ~ Ber(p)``, ``Y ~ Ber(q)`` and
    ``P(X != Y) = TV(Ber(p), Ber(q)) = |p - q|``, the smallest disagreement of any coupling.
    Construction: one uniform ``U``, ``X = 1{U < p}``, ``Y = 1{U < q}``; they differ exactly when
    ``U`` falls between ``p`` and ``q``.  This is the reward coupling ``c_a`` of the coupled
    environment ``gamma`` (Step 1 of the proof of :prf:ref:`thm-lower-bound`).

    Parameters
    ----------
    p, q : float or array_like
        Means in [0, 1]; broadcast together and with ``size``.
    size : int, tuple of ints or None
        Output shape; ``None`` means the broadcast shape of ``p`` and ``q``.
    rng : numpy.random.Generator, SeedSequence, int or None
        Randomness; an int/``SeedSequence`` seeds ``default_rng(SeedSequence(seed))``; ``None`` is
        fresh OS entropy (not reproducible).

    Returns
    -------
    (X, Y) : tuple of int8 ndarrays
        Rewards in {0, 1} of the requested shape.
    """
    p = as_probability("p", p)
    q = as_probability("q", q)
    p, q = broadcast(p=p, q=q)
    shape = p.shape if size is None else _as_size(size)
    try:
        p = np.broadcast_to(p, shape)
        q = np.broadcast_to(q, shape)
    except ValueError as exc:
        raise ValueError(
            f"shape mismatch: p and q of shape {p.shape} do not broadcast to size {shape}"
        ) from exc
    gen = as_rng("rng", rng)
    u = gen.random(shape)
    return (u < p).astype(np.int8), (u < q).astype(np.int8)


@dataclass(frozen=True)
class CoupledHistory:
    """Outcome of :func:`simulate_coupled_environment`, one entry per run.

    Attributes
    ----------
    d_ham : ndarray of int64, shape (n_runs,)
        ``d_Ham(r, r') = sum_t 1{r_t != r'_t}``.
    n2 : ndarray of int64, shape (n_runs,)
        Number of pulls ``N_2(T)`` of arm 2.
    tv : ndarray, shape (2,)
        ``(TV(P_1, P_1'), TV(P_2, P_2')) = |mu - mu'|``.
    horizon : int
        ``T``.
    arms, r, r_prime : ndarray of int8, shape (n_runs, T), or None
        The pulled arm (0 for arm 1, 1 for arm 2) and the coupled reward streams, when requested
        with ``return_streams=True`` (per-step method only).
    """

    d_ham: np.ndarray
    n2: np.ndarray
    tv: np.ndarray
    horizon: int
    arms: np.ndarray | None = None
    r: np.ndarray | None = None
    r_prime: np.ndarray | None = None

    @property
    def n1(self) -> np.ndarray:
        """Number of pulls ``N_1(T) = T - N_2(T)`` of arm 1."""
        return self.horizon - self.n2

    def hamming_ratio(self) -> np.ndarray:
        """``d_Ham / N_2`` per run (see :func:`hamming_ratio`)."""
        return np.asarray(hamming_ratio(self.d_ham, self.n2))  # one entry per run: never a float

    def event_L_frequency(self, alpha: float, n2: ArrayLike | None = None) -> float:
        """Frequency of ``L = {d_Ham <= (1 + alpha) n_2 TV(P_2, P_2')}`` over the runs (see :func:`event_L`).

        ``n2=None`` uses each run's own ``N_2(T)``.
        """
        return event_L_frequency(self.d_ham, self.n2 if n2 is None else n2, self.tv[1], alpha)


def _validate_two_arms(name: str, value) -> np.ndarray:
    arr = as_probability(name, value)
    if arr.shape != (2,):
        raise ValueError(f"{name} must be a pair (mu_1, mu_2) of means in [0, 1], got shape {arr.shape}")
    return arr


def _as_policy(policy, horizon: int):
    """Return ``("prob", p)``, ``("schedule", bool array)`` or ``("rule", callable)``."""
    if callable(policy):
        return "rule", policy
    arr = as_float_array("policy_pulls_arm2", policy)
    if arr.ndim == 0:
        return "prob", float(as_probability("policy_pulls_arm2", arr))
    if arr.shape != (horizon,):
        raise ValueError(
            "policy_pulls_arm2 must be a probability in [0, 1], a 0/1 schedule of length horizon "
            f"({horizon}) or a callable rule, got an array of shape {arr.shape}"
        )
    if not np.all((arr == 0) | (arr == 1)):
        raise ValueError("policy_pulls_arm2 as a schedule must contain only 0/1 (False/True) entries")
    return "schedule", arr.astype(bool)


# An adaptive rule of simulate_coupled_environment: rule(t, counts, sums, rng) -> pull_arm_2.
_Rule = Callable[[int, np.ndarray, np.ndarray, np.random.Generator], ArrayLike]


def _rule_pulls(pull2, n_runs: int) -> np.ndarray:
    """The answer of an adaptive rule checked: one boolean (or 0/1) per run."""
    pull2 = np.asarray(pull2)
    if pull2.shape != (n_runs,):
        raise ValueError(f"policy_pulls_arm2 rule must return an array of shape ({n_runs},), "
                         f"got shape {pull2.shape}")
    if pull2.dtype != bool and not np.all((pull2 == 0) | (pull2 == 1)):
        raise ValueError("policy_pulls_arm2 rule must return booleans (or 0/1)")
    return pull2.astype(bool)


def simulate_coupled_environment(
    mu: ArrayLike,
    mu_prime: ArrayLike,
    policy_pulls_arm2: ArrayLike | _Rule = 0.5,
    *,
    horizon: int,
    n_runs: int,
    seed: np.random.Generator | np.random.SeedSequence | int | None = None,
    method: str = "per_step",
    return_streams: bool = False,
    max_seconds: float | None = MAX_SECONDS,
) -> CoupledHistory:
    """Simulate the coupled bandit environment ``gamma`` of Step 1 of the lower-bound proof.

    Two arms; ``mu = (mu_1, mu_2)`` is the environment ``nu`` and ``mu_prime = (mu_1', mu_2')`` the
    environment ``nu'`` (in the proof ``mu_1' = mu_1``: only arm 2 changes).  At every step ``t``:

    (a) the policy chooses ``a_t`` from the *observed* history ``a_1, r_1, ..., a_{t-1}, r_{t-1}``
        only -- it never sees ``r'``;
    (b) the pair ``(r_t, r'_t)`` is drawn from the maximal coupling ``c_{a_t}`` of
        ``(P_{a_t}, P'_{a_t})`` (:func:`maximal_coupling`), independently of the past.

    Since ``r_t != r'_t`` has probability ``TV(P_{a_t}, P'_{a_t})``, with ``mu_1' = mu_1`` only arm-2
    rewards ever differ and ``d_Ham(r, r') = sum_{s <= N_2(T)} Z_s`` with ``Z_s`` i.i.d.
    Bernoulli(``mu_2' - mu_2``) (Step 3 of the proof of :prf:ref:`thm-lower-bound`): ``d_Ham / N_2``
    concentrates at
    ``TV(P_2, P_2')``, which is why the event ``L`` has probability tending to 1.

    Parameters
    ----------
    mu, mu_prime : array_like, shape (2,)
        Means ``(mu_1, mu_2)`` of ``nu`` and ``(mu_1', mu_2')`` of ``nu'``, in [0, 1].
    policy_pulls_arm2 : float, array_like of shape (horizon,), or callable
        The pulling rule.

        * a probability ``p`` in [0, 1]: at every step pull arm 2 with probability ``p``,
          independently (default 0.5, the uniform-random policy);
        * a 0/1 array of length ``horizon``: a fixed schedule (``N_2(T)`` = its sum, for every run);
        * a callable ``rule(t, counts, sums, rng) -> pull_arm_2`` (adaptive; per-step method only):
          ``t`` is the 1-based step, ``counts`` and ``sums`` are int arrays of shape ``(n_runs, 2)``
          with each run's pulls and *observed* reward sums (of ``r``, never ``r'``) per arm so far,
          ``rng`` is the simulation's Generator; it returns a boolean array of shape ``(n_runs,)``.
    horizon : int
        ``T >= 1``.
    n_runs : int
        Number of independent runs ``>= 1`` (vectorised).
    seed : int, SeedSequence, numpy.random.Generator or None
        The runs share one Generator, ``default_rng(SeedSequence(seed))`` (or the given Generator);
        ``None`` is fresh OS entropy (not reproducible).
    method : {"per_step", "binomial"}
        ``"per_step"``: the literal process (one coupled pair per step).  ``"binomial"``: exact in
        distribution for the reward-oblivious rules (a probability or a schedule), where the pulls do
        not depend on the rewards: ``N_2 ~ Binomial(T, p)`` (or the schedule's sum) and, given
        ``N_2``, ``d_Ham ~ Binomial(N_2, TV_2) + Binomial(T - N_2, TV_1)``.  For an adaptive rule
        ``N_2`` depends on the rewards, and since ``Z_s`` is correlated with ``r_{2,s}`` (for
        ``mu_2 < mu_2'``, ``Z_s = 1`` iff ``r = 0, r' = 1``) ``d_Ham`` given ``N_2`` need not be
        Binomial, so ``"binomial"`` is refused for callables.
    return_streams : bool
        Keep the ``(n_runs, T)`` arrays of arms and coupled rewards (per-step method only).
    max_seconds : float or None
        Refuse, before any work, a per-step simulation estimated above this many CPU-seconds
        (about ``horizon (1e-4 + n_runs 2e-7)``, pessimistic; default 120); None lifts the limit.

    Returns
    -------
    CoupledHistory

    Raises
    ------
    ValueError, TypeError
        On invalid means, horizon, run count, method, schedule, or a rule returning a wrong shape.
    """
    return_streams = as_flag("return_streams", return_streams)
    mu = _validate_two_arms("mu", mu)
    mu_prime = _validate_two_arms("mu_prime", mu_prime)
    horizon = as_int("horizon", horizon, minimum=1, maximum=MAX_SIZE)
    n_runs = as_int("n_runs", n_runs, minimum=1, maximum=MAX_ELEMENTS)
    as_choice("method", method, ("per_step", "binomial"))
    if method == "per_step" and horizon * n_runs > MAX_ELEMENTS // 4:
        raise ValueError(f"horizon * n_runs = {horizon * n_runs} steps is too much for the per-step method "
                         f"(at most {MAX_ELEMENTS // 4}); use method='binomial' or fewer steps")
    if method == "per_step":  # one Python step per round: 3.3e-5 s, + 5.7e-8 s per run (measured)
        check_seconds(f"the per-step coupled simulation for horizon={horizon} and n_runs={n_runs}",
                      horizon * (1e-4 + n_runs * 2e-7), max_seconds,
                      advice="use method='binomial', a shorter horizon or fewer runs, or pass "
                             "max_seconds=None (or a larger limit) to run it anyway")
    kind, policy = _as_policy(policy_pulls_arm2, horizon)
    if method == "binomial" and kind == "rule":
        raise ValueError(
            'method="binomial" needs a reward-oblivious policy_pulls_arm2 (a probability or a schedule); '
            'use method="per_step" for an adaptive rule'
        )
    if return_streams and method != "per_step":
        raise ValueError('return_streams=True needs method="per_step"')
    gen = as_rng("seed", seed)
    tv = np.abs(mu_prime - mu)

    if method == "binomial":
        if kind == "prob":
            n2 = gen.binomial(horizon, policy, size=n_runs).astype(np.int64)
        else:
            n2 = np.full(n_runs, int(policy.sum()), dtype=np.int64)
        d_ham = gen.binomial(n2, tv[1]) + gen.binomial(horizon - n2, tv[0])
        return CoupledHistory(d_ham=d_ham.astype(np.int64), n2=n2, tv=tv, horizon=horizon)

    counts = np.zeros((n_runs, 2), dtype=np.int64)
    sums = np.zeros((n_runs, 2), dtype=np.int64)
    d_ham = np.zeros(n_runs, dtype=np.int64)
    rows = np.arange(n_runs)
    streams = np.empty((3, n_runs, horizon), dtype=np.int8) if return_streams else [None] * 3
    for t in range(horizon):
        if kind == "prob":
            pull2 = gen.random(n_runs) < policy
        elif kind == "schedule":
            pull2 = np.full(n_runs, policy[t])
        else:
            pull2 = _rule_pulls(policy(t + 1, counts.copy(), sums.copy(), gen), n_runs)
        arm = pull2.astype(np.int64)
        r, r_prime = maximal_coupling(mu[arm], mu_prime[arm], rng=gen)
        d_ham += r != r_prime
        counts[rows, arm] += 1
        sums[rows, arm] += r
        if return_streams:  # arms, r and r' of step t
            streams[:, :, t] = arm, r, r_prime  # type: ignore[call-overload]  # an ndarray here
    return CoupledHistory(d_ham, counts[:, 1].copy(), tv, horizon, *streams)


# --------------------------------------------------------------------------------------------
# statistics of the event L (Step 3 of the proof of the lower bound)
# --------------------------------------------------------------------------------------------
def hamming_ratio(d_ham: ArrayLike, n2: ArrayLike) -> float | np.ndarray:
    """``d_Ham(r, r') / N_2`` per run: it concentrates at ``TV(P_2, P_2')`` (Step 3 of the proof of
    :prf:ref:`thm-lower-bound`).

    Runs that never pulled arm 2 (``N_2 = 0``, hence ``d_Ham = 0`` when arm 1 is unchanged) have
    no ratio: they get NaN, deliberately -- any number would be made up.  Filter them with
    ``n2 > 0`` (or ``np.nanmean``).

    For a reward-oblivious rule the ratio given ``N_2 = n`` is ``Binomial(n, TV) / n``.  For an
    adaptive rule the per-run ratio can be biased at small ``N_2`` (a rule that abandons arm 2 after
    observing zeros selects exactly the rewards that can disagree, since for ``mu_2 < mu_2'``
    ``r != r'`` means ``r = 0, r' = 1``); what holds for every rule is the martingale identity
    ``E[d_Ham] = TV E[N_2]``, i.e. the pooled ratio ``sum d_Ham / sum N_2`` is consistent.

    Parameters
    ----------
    d_ham, n2 : array_like of non-negative integers
        Hamming distances and arm-2 pull counts, broadcast together.

    Returns
    -------
    ndarray of float
    """
    d_ham = as_positive("d_ham", d_ham, allow_inf=False, allow_zero=True)
    n2 = as_positive("n2", n2, allow_inf=False, allow_zero=True)
    d_ham, n2 = broadcast(d_ham=d_ham, n2=n2)
    with np.errstate(invalid="ignore", divide="ignore"):
        out = np.where(n2 > 0, d_ham / np.where(n2 > 0, n2, 1.0), np.nan)
    return _finish(out)


def event_L(d_ham: ArrayLike, n2: ArrayLike, tv: ArrayLike, alpha: ArrayLike) -> np.ndarray | np.bool_:
    """Indicator of ``L = {d_Ham(r, r') <= (1 + alpha) n_2 TV(P_2, P_2')}`` (Step 2 of the proof).

    In the proof ``n_2`` is the deterministic threshold of ``Omega = {N_2(T) <= n_2}``; passing each
    run's own ``N_2(T)`` instead gives a smaller event that implies ``L`` on ``Omega``.  The proof
    (Step 3 of the proof of :prf:ref:`thm-lower-bound`) shows ``P(Omega cap L^c) -> 0`` as ``n_2 -> inf``, for
    every ``alpha > 0``.

    Parameters
    ----------
    d_ham : array_like of non-negative numbers
        Hamming distances.
    n2 : array_like of non-negative numbers
        The threshold ``n_2`` (scalar) or per-run ``N_2(T)``; broadcast with ``d_ham``.
    tv : float
        ``TV(P_2, P_2')`` in [0, 1].
    alpha : float
        Slack ``alpha > 0``.

    Returns
    -------
    ndarray of bool
    """
    d_ham = as_positive("d_ham", d_ham, allow_inf=False, allow_zero=True)
    n2 = as_positive("n2", n2, allow_inf=False, allow_zero=True)
    tv = as_probability("tv", tv)
    alpha = as_positive("alpha", alpha, allow_inf=False)
    d_ham, n2, tv, alpha = broadcast(d_ham=d_ham, n2=n2, tv=tv, alpha=alpha)
    return d_ham <= (1.0 + alpha) * n2 * tv


def event_L_frequency(d_ham: ArrayLike, n2: ArrayLike, tv: ArrayLike, alpha: ArrayLike) -> float:
    """Fraction of runs in which the event ``L`` of :func:`event_L` holds (an estimate of ``P(L)``)."""
    hits = event_L(d_ham, n2, tv, alpha)
    if np.size(hits) == 0:
        raise ValueError("d_ham and n2 must hold at least one run (the frequency of no runs is undefined)")
    return float(np.mean(hits))

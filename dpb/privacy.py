"""Differential privacy primitives: the Laplace mechanism, and policies seen as batch mechanisms.

A mechanism M is eps-DP when, for all neighbouring inputs D ~ D' (differing in one record) and all
events E, M_D(E) <= e^eps M_{D'}(E) (the paper's definition 'eps-DP', after Dwork et al., 2006).
The Laplace mechanism releases f(D) + Lap(s/eps) where s is the sensitivity of f: the largest
abs(f(D) - f(D')) over neighbours.  For a sum of rewards in [0, 1], s = 1, so every algorithm of the
book adds Lap(1/eps) noise to each phase sum (:prf:ref:`thm-laplace`).

Helpers for checking these facts numerically: the output law of the mechanism
(:func:`laplace_pdf`, :func:`laplace_cdf`, :func:`laplace_interval_probability`), its privacy loss
(:func:`laplace_log_density_ratio`, :func:`laplace_vector_log_density_ratio`,
:func:`histogram_log_ratio`) and the phase sums it protects (:func:`partial_sums`).

The second half turns a bandit policy into a mechanism in the three ways of the paper's
background section and appendix 'Adaptive Continual Release Model for Bandits': on a list of
rewards (View DP, :func:`view_mechanism`), on a table of potential rewards (Table DP,
:func:`table_mechanism`) and against a reward-feeding adversary (:func:`adaptive_view`), and
computes exact worst-case privacy losses of small examples by enumeration
(:func:`worst_case_privacy_loss`).

The last part is the mechanism inside DP-KLUCB and DP-IMED: the continual release of noisy
running sums over phases (:func:`continual_release`) with its exact density and privacy loss
(:func:`continual_release_log_density`, :func:`continual_release_log_ratio`).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable

import numpy as np
from numpy.typing import ArrayLike

from ._validate import (
    as_choice,
    as_finite,
    as_float_array,
    as_int,
    as_positive,
    as_rng,
    broadcast,
    check_elements,
)

__all__ = [
    "laplace_mechanism",
    "laplace_pdf",
    "laplace_log_density_ratio",
    "laplace_cdf",
    "laplace_interval_probability",
    "histogram_log_ratio",
    "partial_sums",
    "laplace_vector_log_density_ratio",
    "exponential_weights_policy",
    "view_mechanism",
    "table_mechanism",
    "adaptive_view",
    "pure_privacy_loss",
    "worst_case_privacy_loss",
    "MAX_ENUMERATION",
    "continual_release",
    "phase_releases",
    "continual_release_log_density",
    "continual_release_log_ratio",
]

# A policy as these functions take it: ``policy(actions, rewards, K) -> probabilities`` (see
# :func:`exponential_weights_policy`), and a seed of the Laplace draws (see ``_validate.as_rng``).
_Policy = Callable[[tuple[int, ...], tuple[float, ...], int], ArrayLike]
_Rng = np.random.Generator | np.random.SeedSequence | int | None


def laplace_mechanism(value: ArrayLike, eps: float, sensitivity: float = 1.0, rng: _Rng = None
                      ) -> float | np.ndarray:
    """Release ``value + Lap(sensitivity / eps)``.

    Parameters
    ----------
    value : float or array_like
        The true statistic f(D), e.g. a phase sum of rewards.
    eps : float
        Privacy budget, in (0, +inf).
    sensitivity : float, default 1
        The L1 sensitivity s of f, in (0, +inf); 1 for a sum of rewards in [0, 1].
    rng : numpy.random.Generator, optional
        Source of randomness (pass one for reproducible runs).

    Returns
    -------
    float or ndarray
        The noisy release, same shape as ``value``.

    Notes
    -----
    eps-DP by :prf:ref:`thm-laplace` (Dwork & Roth, 2014, Thm 3.6): the
    density ratio of the outputs on neighbours is at most exp(eps abs(f(D) - f(D')) / s) <= e^eps.
    """
    v = as_finite("value", value)
    e, s = _eps_and_sensitivity(eps, sensitivity)
    rng = as_rng("rng", rng)
    out = v + rng.laplace(0.0, s / e, size=np.shape(v) if np.ndim(v) else None)
    return float(out) if np.ndim(out) == 0 else out


def _eps_and_sensitivity(eps, sensitivity) -> tuple[np.ndarray, np.ndarray]:
    """Validated ``eps`` and ``sensitivity`` whose Laplace scale ``sensitivity / eps`` is a finite float."""
    e = as_positive("eps", eps, allow_inf=False)
    s = as_positive("sensitivity", sensitivity, allow_inf=False)
    with np.errstate(over="ignore", divide="ignore"):
        too_small, too_large = ~np.isfinite(s / e), ~np.isfinite(e / s)
    if np.any(too_small):
        raise ValueError("eps is too small: the Laplace scale sensitivity / eps overflows to inf "
                         "(eps must be above about 1e-300 times the sensitivity)")
    if np.any(too_large):
        raise ValueError("sensitivity is too small: eps / sensitivity overflows to inf "
                         "(sensitivity must be above about 1e-300 times eps)")
    return e, s


def laplace_pdf(x: ArrayLike, loc: ArrayLike, eps: float, sensitivity: float = 1.0) -> float | np.ndarray:
    """Density of the Laplace mechanism's output: (eps / 2s) exp(-eps abs(x - loc) / s).

    Parameters
    ----------
    x : array_like
        Points at which to evaluate the density.
    loc : array_like
        The true statistic f(D) (the centre).
    eps, sensitivity : float
        As in :func:`laplace_mechanism`.
    """
    x = as_finite("x", x)
    loc = as_finite("loc", loc)
    e, s = _eps_and_sensitivity(eps, sensitivity)
    x, loc = broadcast(x=x, loc=loc)
    out = e / (2 * s) * np.exp(-e * np.abs(x - loc) / s)
    return float(out) if out.ndim == 0 else out


def laplace_log_density_ratio(x: ArrayLike, loc: ArrayLike, loc_prime: ArrayLike, eps: float,
                              sensitivity: float = 1.0) -> float | np.ndarray:
    """log of p(x | loc) / p(x | loc') for the Laplace mechanism.

    Equals (eps / s)(abs(x - loc') - abs(x - loc)), which by the triangle inequality lies in
    [-eps abs(loc - loc') / s, eps abs(loc - loc') / s]: within [-eps, eps] for neighbours, whose
    statistics differ by at most the sensitivity s.
    """
    x = as_finite("x", x)
    loc = as_finite("loc", loc)
    loc_prime = as_finite("loc_prime", loc_prime)
    e, s = _eps_and_sensitivity(eps, sensitivity)
    x, loc, loc_prime = broadcast(x=x, loc=loc, loc_prime=loc_prime)
    out = e / s * (np.abs(x - loc_prime) - np.abs(x - loc))
    return float(out) if out.ndim == 0 else out


# ----------------------------------------------------------------------------------------------
# events, samples and vectors of Laplace releases
# ----------------------------------------------------------------------------------------------
def _not_nan(name: str, value) -> np.ndarray:
    """A float array that may hold +-inf but no NaN."""
    arr = as_float_array(name, value)
    if np.any(np.isnan(arr)):
        raise ValueError(f"{name} must not be NaN")
    return arr


def laplace_cdf(x: ArrayLike, loc: ArrayLike, eps: float, sensitivity: float = 1.0) -> float | np.ndarray:
    r"""Distribution function of the Laplace mechanism's output ``loc + Lap(sensitivity / eps)``.

    .. math::

       F(x) = \tfrac12 e^{-(loc - x)\varepsilon/s} \text{ if } x < loc, \qquad
       F(x) = 1 - \tfrac12 e^{-(x - loc)\varepsilon/s} \text{ otherwise}.

    Parameters
    ----------
    x : array_like
        Points at which to evaluate; ``-inf`` and ``+inf`` are allowed (0 and 1).
    loc : array_like
        The true statistic f(D).
    eps, sensitivity : float
        As in :func:`laplace_mechanism`.

    Returns
    -------
    float or ndarray
        ``P(loc + Lap(s / eps) <= x)``, broadcast over ``x`` and ``loc``.
    """
    x = _not_nan("x", x)
    loc = as_finite("loc", loc)
    e, s = _eps_and_sensitivity(eps, sensitivity)
    x, loc = broadcast(x=x, loc=loc)
    z = e * (x - loc) / s
    with np.errstate(over="ignore"):
        out = np.where(z < 0, 0.5 * np.exp(np.minimum(z, 0.0)), 1.0 - 0.5 * np.exp(-np.maximum(z, 0.0)))
    return float(out) if out.ndim == 0 else out


def laplace_interval_probability(lo: ArrayLike, hi: ArrayLike, loc: ArrayLike, eps: float,
                                 sensitivity: float = 1.0) -> float | np.ndarray:
    r"""Probability that the Laplace mechanism's output falls in the event ``[lo, hi]``.

    ``P(lo <= loc + Lap(s / eps) <= hi) = F(hi) - F(lo)`` with ``F`` from :func:`laplace_cdf`,
    computed from the tail on the far side of ``loc`` so that tiny probabilities keep their
    relative precision.  ε-DP (the definition 'eps-DP' of Azize et al., 2025) asks that this
    probability change by at most a factor ``e^eps`` between neighbouring inputs, for *every* event.

    Parameters
    ----------
    lo, hi : array_like
        Ends of the interval, ``lo <= hi`` (infinite ends allowed).
    loc, eps, sensitivity
        As in :func:`laplace_cdf`.

    Returns
    -------
    float or ndarray
        The probability, in [0, 1].
    """
    lo, hi = _not_nan("lo", lo), _not_nan("hi", hi)
    loc = as_finite("loc", loc)
    e, s = _eps_and_sensitivity(eps, sensitivity)
    lo, hi, loc = broadcast(lo=lo, hi=hi, loc=loc)
    if np.any(lo > hi):
        raise ValueError("lo must be <= hi")
    a = e * (lo - loc) / s
    b = e * (hi - loc) / s
    with np.errstate(over="ignore", invalid="ignore"):
        # exp(-a) - exp(-b) = exp(-a) (1 - exp(-(b - a))), with b - a from hi - lo: no cancellation
        # for narrow intervals
        d = e * (hi - lo) / s
        gap = -np.expm1(-d)
        right = 0.5 * np.exp(-np.maximum(a, 0.0)) * gap  # both ends >= loc
        left = 0.5 * np.exp(np.minimum(b, 0.0)) * gap  # both ends <= loc
        across = 1.0 - 0.5 * np.exp(np.minimum(a, 0.0)) - 0.5 * np.exp(-np.maximum(b, 0.0))
    out = np.where(a >= 0, right, np.where(b <= 0, left, across))
    out = np.clip(out, 0.0, 1.0)
    return float(out) if out.ndim == 0 else out


def histogram_log_ratio(samples: ArrayLike, samples_prime: ArrayLike, bins: int | ArrayLike,
                        min_count: int = 100) -> tuple[np.ndarray, np.ndarray]:
    """Empirical log ratio of two output histograms: a Monte Carlo look at a privacy loss.

    Counts both samples on the same bins and returns ``log(c / n) - log(c' / n')`` on the bins
    where both counts reach ``min_count`` (elsewhere the estimate is too noisy to mean anything).
    For samples of the Laplace mechanism on neighbouring inputs it fluctuates around the exact
    :func:`laplace_log_density_ratio` averaged over the bin, hence stays within about [-eps, eps].

    Parameters
    ----------
    samples, samples_prime : array_like
        Outputs of a mechanism on D and on D' (1-d, finite).
    bins : int or array_like
        Passed to ``numpy.histogram_bin_edges`` over the pooled samples (an array gives the edges).
    min_count : int, default 100
        Minimal count in both histograms for a bin to be reported (>= 1).

    Returns
    -------
    centres, log_ratio : ndarray
        Centres of the reported bins and the empirical log ratios there.
    """
    a = as_finite("samples", samples).ravel()
    b = as_finite("samples_prime", samples_prime).ravel()
    if a.size == 0 or b.size == 0:
        raise ValueError("samples and samples_prime must be non-empty")
    min_count = as_int("min_count", min_count, minimum=1)
    if isinstance(bins, (str, bytes)) or np.ndim(bins) == 0:
        bins = as_int("bins", bins, minimum=1, maximum=10**6)
    else:
        bins = as_finite("bins", bins)
        if bins.ndim != 1 or bins.size < 2 or np.any(np.diff(bins) <= 0):
            raise ValueError("bins must be a count in [1, 1e6] or >= 2 strictly increasing finite edges")
        if bins.size > 10**6 + 1:
            raise ValueError("bins must hold at most 1e6 + 1 edges")
    edges = np.histogram_bin_edges(np.concatenate([a, b]), bins=bins)
    ca, _ = np.histogram(a, bins=edges)
    cb, _ = np.histogram(b, bins=edges)
    keep = (ca >= min_count) & (cb >= min_count)
    centres = 0.5 * (edges[:-1] + edges[1:])
    ratio = np.log(ca[keep] / a.size) - np.log(cb[keep] / b.size)
    return centres[keep], ratio


def _as_starts(starts, size: int) -> np.ndarray:
    """Validated phase starts: integers increasing strictly from 0, below ``size``."""
    st = np.asarray(starts)
    if st.ndim != 1 or st.size == 0 or not np.issubdtype(st.dtype, np.integer):
        raise ValueError("starts must be a non-empty 1-d array of integers")
    if st[0] != 0 or st[-1] >= size or np.any(np.diff(st) <= 0):
        raise ValueError("starts must increase strictly from 0 and stay below len(rewards)")
    return st.astype(np.int64)


def partial_sums(rewards: ArrayLike, starts: ArrayLike) -> np.ndarray:
    """Sums of a reward sequence over consecutive, non-overlapping phases.

    Phase ``k`` covers the positions ``starts[k], ..., starts[k+1] - 1`` (the last phase runs to the
    end), as in the paper's privacy proof of DP-KLUCB/DP-IMED (proof sketch after Proposition
    'privacy'): each reward belongs to exactly one phase, so changing one reward moves one partial
    sum by at most 1 when rewards lie in [0, 1].

    Parameters
    ----------
    rewards : array_like, shape (n,)
        The rewards, finite.
    starts : array_like of int
        Strictly increasing phase starts with ``starts[0] == 0`` and ``starts[-1] < n``.

    Returns
    -------
    ndarray, shape (len(starts),)
    """
    r = as_float_array("rewards", rewards)
    if r.ndim != 1 or r.size == 0 or not np.all(np.isfinite(r)):
        raise ValueError("rewards must be a non-empty 1-d array of finite numbers")
    return np.add.reduceat(r, _as_starts(starts, r.size))


def laplace_vector_log_density_ratio(o: ArrayLike, f: ArrayLike, f_prime: ArrayLike, eps: float,
                                     sensitivity: float = 1.0) -> float | np.ndarray:
    r"""Log density ratio of a vector release ``f + (Y_1, ..., Y_k)``, ``Y_i`` i.i.d. ``Lap(s / eps)``.

    .. math::

       \log\frac{p(o \mid f)}{p(o \mid f')} = \frac{\varepsilon}{s}\sum_{i=1}^k
       \bigl(\lvert o_i - f'_i\rvert - \lvert o_i - f_i\rvert\bigr)
       \in \Bigl[-\tfrac{\varepsilon}{s}\lVert f - f'\rVert_1,\
                 \tfrac{\varepsilon}{s}\lVert f - f'\rVert_1\Bigr],

    the computation behind :prf:ref:`thm-laplace` with its l1 sensitivity.
    The last axis is the coordinate axis ``i``.

    Parameters
    ----------
    o, f, f_prime : array_like, shape (..., k)
        Output and the two true statistics f(D), f(D').
    eps, sensitivity : float
        As in :func:`laplace_mechanism` (``sensitivity`` is the l1 sensitivity).

    Returns
    -------
    float or ndarray
        Shape of the broadcast inputs without the last axis.
    """
    o = as_finite("o", o)
    f = as_finite("f", f)
    f_prime = as_finite("f_prime", f_prime)
    e, s = _eps_and_sensitivity(eps, sensitivity)
    o, f, f_prime = broadcast(o=o, f=f, f_prime=f_prime)
    if o.ndim == 0:
        raise ValueError("o, f and f_prime need a last (coordinate) axis")
    out = e / s * np.sum(np.abs(o - f_prime) - np.abs(o - f), axis=-1)
    return float(out) if np.ndim(out) == 0 else out


# ----------------------------------------------------------------------------------------------
# policies as batch mechanisms: Table DP, View DP and the adaptive continual release model
# ----------------------------------------------------------------------------------------------
#: Largest number of input pairs (or adversaries) :func:`worst_case_privacy_loss` enumerates.
MAX_ENUMERATION = 200_000


def exponential_weights_policy(eta: float) -> Callable[[tuple[int, ...], tuple[float, ...], int], np.ndarray]:
    r"""A toy randomised policy: play arm ``a`` with probability proportional to ``exp(eta S_a)``.

    ``S_a`` is the sum of the rewards observed so far from arm ``a`` (0 at the start, so the first
    action is uniform).  Changing one observed reward in [0, 1] moves one ``S_a`` by at most 1,
    which changes each later action probability by a factor at most ``e^eta``; over a horizon
    ``T`` the policy is therefore ``eta (T - 1)``-View DP (chain of the per-step factors, the
    composition property of the paper's appendix 'Existing technical results').  It is not a
    good bandit algorithm, only a small, exactly computable example for the definitions
    'Table DP and View DP' and 'DP in the Adaptive Continual Release Model'.

    Parameters
    ----------
    eta : float
        Inverse temperature, in [0, +inf).

    Returns
    -------
    callable
        ``policy(actions, rewards, K) -> probabilities`` (an ndarray of shape (K,)), where
        ``actions`` and ``rewards`` are the history ``a_1, r_1, ..., a_{t-1}, r_{t-1}`` as tuples.
    """
    e = float(as_positive("eta", eta, allow_inf=False, allow_zero=True))

    def policy(actions, rewards, K):
        sums = np.zeros(K)
        if len(actions):
            np.add.at(sums, np.asarray(actions, dtype=int), np.asarray(rewards, dtype=float))
        w = np.exp(e * (sums - sums.max()))
        return w / w.sum()

    policy.eta = e  # type: ignore[attr-defined]
    return policy


def _check_policy_args(K, T, what="K and T"):
    K = as_int("K", K, minimum=1)
    T = as_int("T", T, minimum=1)
    if T > 16 or (K > 1 and T * math.log2(K) > 16):
        raise ValueError(f"{what}: K**T action sequences (K = {K}, T = {T}) is too many to enumerate: "
                         "K**T must be <= 65536 and T <= 16")
    if K ** T > 65_536:
        raise ValueError(f"{what}: K**T = {K ** T} action sequences is too many to enumerate (max 65536)")
    return K, T


def _checked(policy, K):
    """Wrap ``policy`` so that each of its answers is validated once and remembered per history."""
    if getattr(policy, "_dpb_checked", False):
        return policy
    if not callable(policy):
        raise TypeError("policy must be a callable policy(actions, rewards, K)")
    memo = {}

    def checked(actions, rewards, k):
        key = (actions, rewards)
        if key not in memo:
            p = np.asarray(policy(actions, rewards, k), dtype=float)
            if p.shape != (K,) or np.any(~(p >= 0)) or not np.isclose(p.sum(), 1.0):
                raise ValueError(f"policy must return K = {K} probabilities summing to 1, got {p!r}")
            memo[key] = p.tolist()
        return memo[key]

    checked._dpb_checked = True
    return checked


def _action_distribution(policy, K, T, reward_of):
    """P(a_1..a_T) when the reward observed at step s (0-based) is ``reward_of(s, actions[:s+1])``."""
    out = np.zeros((K,) * T)
    policy = _checked(policy, K)

    def walk(actions, rewards, prob):
        t = len(actions)
        if t == T:
            out[tuple(actions)] = prob
            return
        p = policy(tuple(actions), tuple(rewards), K)
        for a in range(K):
            if p[a] > 0:
                acts = actions + [a]
                walk(acts, rewards + [reward_of(t, tuple(acts))], prob * p[a])

    walk([], [], 1.0)
    return out


def view_mechanism(policy: _Policy, rewards: ArrayLike, K: int) -> np.ndarray:
    r"""The View-DP batch mechanism of a policy: the law of its actions on a fixed list of rewards.

    .. math::

       \mathcal{V}^\pi_{\mathbf r}(\mathbf a)
         = \prod_{t=1}^T \pi_t(a_t \mid a_1, r_1, \dots, a_{t-1}, r_{t-1}),

    the mechanism of definition 'Table DP and View DP' (b) of Azize et al. (2025), after Azize &
    Basu (2024): the reward of step t is ``r_t`` whatever the action.

    Parameters
    ----------
    policy : callable
        ``policy(actions, rewards, K) -> probabilities``, e.g. :func:`exponential_weights_policy`.
    rewards : array_like, shape (T,)
        The list of rewards.
    K : int
        Number of arms (``K**T <= 65536``).

    Returns
    -------
    ndarray, shape (K,) * T
        ``out[a_1, ..., a_T]`` (arms numbered from 0) is the probability of that action sequence.
    """
    r = as_finite("rewards", rewards)
    if r.ndim != 1 or r.size == 0:
        raise ValueError("rewards must be a non-empty 1-d array")
    K, T = _check_policy_args(K, r.size, "K and len(rewards)")
    return _action_distribution(policy, K, T, lambda s, acts: float(r[s]))


def table_mechanism(policy: _Policy, table: ArrayLike) -> np.ndarray:
    r"""The Table-DP batch mechanism of a policy: the law of its actions on a table of rewards.

    .. math::

       \mathcal{M}^\pi_{\mathbf x}(\mathbf a)
         = \prod_{t=1}^T \pi_t(a_t \mid a_1, x_{1,a_1}, \dots, a_{t-1}, x_{t-1,a_{t-1}}),

    definition 'Table DP and View DP' (a) of Azize et al. (2025): row ``t`` holds the potential
    rewards of user ``t`` for every arm, and the policy sees the entry of the arm it played.

    Parameters
    ----------
    policy : callable
        As in :func:`view_mechanism`.
    table : array_like, shape (T, K)
        The table of potential rewards (``K**T <= 65536``).

    Returns
    -------
    ndarray, shape (K,) * T
    """
    x = as_finite("table", table)
    if x.ndim != 2 or x.size == 0:
        raise ValueError("table must be a non-empty 2-d array of shape (T, K)")
    K, T = _check_policy_args(x.shape[1], x.shape[0], "table of shape (T, K)")
    return _action_distribution(policy, K, T, lambda s, acts: float(x[s, acts[s]]))


def adaptive_view(policy: _Policy, adversary: Callable[[tuple[int, ...]], tuple[float, float]], t_star: int,
                  b: str, K: int, T: int) -> np.ndarray:
    r"""The adversary's view in the adaptive continual release model (law of ``a_1, ..., a_T``).

    Runs the protocol of the paper's appendix 'Adaptive Continual Release Model for Bandits'
    (after Jain et al., 2023): at step t the reward-feeding adversary maps the actions
    ``a_1, ..., a_t`` to a pair ``(r_t^L, r_t^R)``; the policy observes ``r_t^L``, except at the
    challenge step ``t_star`` where it observes ``r_{t_star}^b``.

    Parameters
    ----------
    policy : callable
        As in :func:`view_mechanism`.
    adversary : callable
        ``adversary(actions) -> (r_left, r_right)`` with ``actions`` the tuple ``(a_1, ..., a_t)``.
    t_star : int
        Challenge step, in ``{1, ..., T}`` (numbered from 1 as in the paper).
    b : {"L", "R"}
        The secret channel.
    K, T : int
        Arms and horizon (``K**T <= 65536``).

    Returns
    -------
    ndarray, shape (K,) * T
        ``Pr[View^{b, t_star} = (a_1, ..., a_T)]`` (arms numbered from 0).
    """
    K, T = _check_policy_args(K, T)
    if not callable(adversary):
        raise TypeError(f"adversary must be a callable adversary(actions), got {type(adversary).__name__}")
    t_star = as_int("t_star", t_star, minimum=1, maximum=T)
    as_choice("b", b, ("L", "R"))

    def reward_of(s, acts):
        pair = adversary(acts)
        return float(pair[1] if (b == "R" and s == t_star - 1) else pair[0])

    return _action_distribution(policy, K, T, reward_of)


def pure_privacy_loss(p: ArrayLike, q: ArrayLike) -> float:
    r"""Largest absolute log ratio of two discrete laws over their atoms: ``max_a abs(log p(a) / q(a))``.

    For laws on a finite set (here, action sequences), the pair ``(p, q)`` satisfies both
    ``p(E) <= e^eps q(E)`` and ``q(E) <= e^eps p(E)`` for every event E exactly when
    ``eps >= pure_privacy_loss(p, q)``: pure DP can be checked on atoms (the last step of the proof
    of Proposition 'Link between the Adaptive Continual Release Model, View DP, and Table DP').

    Parameters
    ----------
    p, q : array_like
        Probabilities of the same atoms (same shape, each in [0, 1]).

    Returns
    -------
    float
        In ``[0, +inf]``; atoms with ``p = q = 0`` are ignored, one-sided zeros give ``+inf``.
    """
    p = as_float_array("p", p)
    q = as_float_array("q", q)
    if p.shape != q.shape:
        raise ValueError(f"p and q must have the same shape, got {p.shape} and {q.shape}")
    for name, arr in (("p", p), ("q", q)):
        bad = ~((arr >= 0) & (arr <= 1))  # NaN too
        if np.any(bad):
            raise ValueError(f"{name} must be probabilities in [0, 1], got {arr[bad].ravel()[0]!r}")
    both = (p > 0) & (q > 0)
    if np.any((p > 0) != (q > 0)):
        return float("inf")
    if not np.any(both):
        return 0.0
    return float(np.max(np.abs(np.log(p[both]) - np.log(q[both]))))


def worst_case_privacy_loss(policy: _Policy, K: int, T: int, model: str,
                            alphabet: ArrayLike = (0.0, 1.0)) -> float:
    """Exact worst-case pure privacy loss of a policy, by enumerating neighbouring inputs.

    Rewards take values in ``alphabet``.  The three models of the paper's appendix 'Adaptive
    Continual Release Model for Bandits':

    * ``"view"``: every pair of reward lists of length T differing in one entry
      (:func:`view_mechanism`);
    * ``"table"``: every pair of (T, K) tables differing in one row, i.e. one user's potential
      rewards (:func:`table_mechanism`);
    * ``"adaptive"``: every deterministic reward-feeding adversary and every challenge step
      (:func:`adaptive_view`, views with ``b = "L"`` against ``b = "R"``).  Randomised adversaries
      are mixtures of deterministic ones and cannot do worse.  Rewards fed at step T are never
      observed before the end, so only the tree nodes of depth < T are enumerated.

    The policy is ε-DP in the model exactly when ``eps >=`` the returned value; for pure DP the
    three values coincide (Proposition 'Link between the Adaptive Continual Release Model, View DP,
    and Table DP' of Azize et al., 2025).

    Parameters
    ----------
    policy : callable
        As in :func:`view_mechanism`.
    K, T : int
        Arms and horizon (small: at most :data:`MAX_ENUMERATION` pairs or adversaries).
    model : {"view", "table", "adaptive"}
    alphabet : sequence of float, default (0, 1)
        The possible rewards (at least 2 distinct values).

    Returns
    -------
    float
        ``max`` of :func:`pure_privacy_loss` over the enumerated neighbouring pairs.
    """
    K, T = _check_policy_args(K, T)
    policy = _checked(policy, K)  # many inputs share a history: evaluate the policy once per history
    as_choice("model", model, ("view", "table", "adaptive"))
    alpha = np.unique(as_float_array("alphabet", alphabet).ravel())
    if alpha.size < 2 or not np.all(np.isfinite(alpha)):
        raise ValueError("alphabet must hold at least 2 distinct finite rewards")
    if model == "view":
        return _worst_over_neighbours(lambda r: view_mechanism(policy, r, K), list(alpha), T,
                                      "reward lists to enumerate; lower T or the alphabet size")
    if model == "table":
        return _worst_over_neighbours(lambda x: table_mechanism(policy, x),
                                      list(itertools.product(alpha, repeat=K)), T,
                                      "reward tables to enumerate; lower K, T or the alphabet size")
    return _worst_adaptive(policy, alpha, K, T)


def _worst_over_neighbours(mechanism, symbols: list, T: int, what: str) -> float:
    """Largest pure privacy loss between inputs of ``T`` symbols that differ in one position."""
    if len(symbols) ** T * T * (len(symbols) - 1) > MAX_ENUMERATION:
        raise ValueError(f"too many {what}")
    law = {x: mechanism(np.array(x)) for x in itertools.product(symbols, repeat=T)}
    return max(pure_privacy_loss(p, law[x[:s] + (v,) + x[s + 1:]])
               for x, p in law.items() for s in range(T) for v in symbols if v != x[s])


def _worst_adaptive(policy, alpha: np.ndarray, K: int, T: int) -> float:
    """Largest pure privacy loss over deterministic adversaries (nodes: action prefixes of length < T)."""
    worst = 0.0
    nodes = [pre for t in range(1, T) for pre in itertools.product(range(K), repeat=t)]
    for t_star in range(1, T):
        star_nodes = [pre for pre in nodes if len(pre) == t_star]
        if alpha.size ** (len(nodes) + len(star_nodes)) > MAX_ENUMERATION:
            raise ValueError("too many adversaries to enumerate; lower K, T or the alphabet size")
        for left in itertools.product(alpha, repeat=len(nodes)):
            lmap = dict(zip(nodes, left, strict=True))
            for right in itertools.product(alpha, repeat=len(star_nodes)):
                rmap = dict(zip(star_nodes, right, strict=True))

                def adversary(acts, lmap=lmap, rmap=rmap):
                    r_left = lmap.get(acts, alpha[0])
                    return r_left, rmap.get(acts, r_left)

                p = adaptive_view(policy, adversary, t_star, "L", K, T)
                q = adaptive_view(policy, adversary, t_star, "R", K, T)
                worst = max(worst, pure_privacy_loss(p, q))
    return worst


# ----------------------------------------------------------------------------------------------
# the continual release of noisy running sums (the book's lemma lem-ch05-continual), the mechanism
# inside DP-KLUCB and DP-IMED
# ----------------------------------------------------------------------------------------------
def _check_stream(rewards, starts, name="rewards"):
    """Validate a reward stream in [0, 1] and its phase starts; return (rewards, starts)."""
    r = as_float_array(name, rewards)
    if r.ndim != 1 or r.size == 0 or np.any(np.isnan(r)) or np.any(r < 0) or np.any(r > 1):
        raise ValueError(f"{name} must be a non-empty 1-d array of rewards in [0, 1]")
    return r, _as_starts(starts, r.size)


def continual_release(rewards: ArrayLike, starts: ArrayLike, eps: float, rng: _Rng = None,
                      size: int | None = None) -> np.ndarray:
    r"""Release the running sums of a reward stream at the end of each phase, with Laplace noise.

    Phase ``k`` covers the 0-based positions ``starts[k] .. starts[k+1] - 1`` (the last one runs to
    the end); in the paper's 1-based notation the phase boundaries are ``t_k = starts[k-1] + 1``
    and ``t_ell = T + 1``.  With one fresh ``Y_k ~ Lap(1/eps)`` per phase, the release is

    .. math::

       C_k = \sum_{j \le k} \Bigl(\sum_{s \in \text{phase } j} r_s + Y_j\Bigr),
       \qquad k = 1, \dots, \ell - 1,

    the mechanism of :prf:ref:`lem-ch05-continual` (eps-DP for rewards
    in [0, 1]): the phase releases ``s_k + Y_k`` are eps-DP by parallel composition, and the
    running sums are a post-processing of them.  This is how DP-KLUCB and DP-IMED maintain the
    private sum of each arm: no reward is forgotten, and the k-th running sum carries k noises.

    Parameters
    ----------
    rewards : array_like, shape (T,)
        The stream, in [0, 1].
    starts : array_like of int
        Strictly increasing 0-based phase starts, ``starts[0] == 0``, ``starts[-1] < T``.
    eps : float
        Privacy budget, in (0, +inf).
    rng : numpy.random.Generator, optional
        Source of the Laplace draws.
    size : int, optional
        Number of independent releases; ``None`` gives one release of shape (number of phases,).

    Returns
    -------
    ndarray
        Shape ``(len(starts),)``, or ``(size, len(starts))``.
    """
    r, st = _check_stream(rewards, starts)
    e = float(_eps_and_sensitivity(eps, 1.0)[0])
    rng = as_rng("rng", rng)
    s = np.add.reduceat(r, st)
    shape = (st.size,) if size is None else (as_int("size", size, minimum=1), st.size)
    check_elements("size * len(starts)", shape[0] * st.size)
    y = rng.laplace(0.0, 1.0 / e, size=shape)
    return np.cumsum(s + y, axis=-1)


def phase_releases(running: ArrayLike) -> np.ndarray:
    """Invert the running sums of :func:`continual_release` into the phase releases ``s_k + Y_k``.

    The map from phase releases to running sums is linear, lower triangular with ones on the
    diagonal (Jacobian 1), so its inverse is the first difference along the last axis.
    """
    c = as_finite("running", running)
    if c.ndim == 0 or c.shape[-1] == 0:
        raise ValueError("running must have a non-empty last axis")
    return np.diff(c, axis=-1, prepend=0.0)


def _phase_releases(o, phases: int) -> np.ndarray:
    """The phase releases of running releases ``o`` whose last axis has one value per phase."""
    o = as_finite("o", o)
    if o.ndim == 0 or o.shape[-1] != phases:
        raise ValueError(f"o must have a last axis of length {phases} (one value per phase)")
    return phase_releases(o)


def continual_release_log_density(o: ArrayLike, rewards: ArrayLike, starts: ArrayLike, eps: float
                                  ) -> float | np.ndarray:
    r"""Log density of the running-sum release of :func:`continual_release` at ``o``.

    The phase releases are independent, ``s_k + Lap(1/eps)``, and the running sums are their image
    under an invertible linear map of determinant 1, so

    .. math::

       \log p_{\mathbf r}(o) = \sum_k \Bigl(\log\tfrac{\varepsilon}{2}
          - \varepsilon\,\lvert (o_k - o_{k-1}) - s_k\rvert\Bigr), \qquad o_0 = 0.

    Parameters
    ----------
    o : array_like, shape (..., number of phases)
        Released running sums.
    rewards, starts, eps
        As in :func:`continual_release`.

    Returns
    -------
    float or ndarray
        Shape of ``o`` without its last axis.
    """
    r, st = _check_stream(rewards, starts)
    e = float(as_positive("eps", eps, allow_inf=False))
    u = _phase_releases(o, st.size)
    s = np.add.reduceat(r, st)
    out = np.sum(np.log(e / 2) - e * np.abs(u - s), axis=-1)
    return float(out) if np.ndim(out) == 0 else out


def continual_release_log_ratio(o: ArrayLike, rewards: ArrayLike, rewards_prime: ArrayLike,
                                starts: ArrayLike, eps: float) -> float | np.ndarray:
    r"""Exact log density ratio of the running-sum release on two reward streams.

    Because the running sums are an invertible linear image (determinant 1) of the phase
    releases ``o_k - o_{k-1}``, the ratio of their densities equals the ratio for the phase
    releases, and only the phases whose sums differ contribute:

    .. math::

       \log\frac{p_{\mathbf r}(o)}{p_{\mathbf r'}(o)}
         = \varepsilon \sum_k \bigl(\lvert u_k - s'_k\rvert - \lvert u_k - s_k\rvert\bigr),
         \qquad u_k = o_k - o_{k-1}.

    For neighbouring streams (one reward changed, in phase ``k``) it is the single term
    ``eps (abs(u_k - s'_k) - abs(u_k - s_k))``, at most ``eps abs(s_k - s'_k) <= eps`` in absolute
    value: :prf:ref:`lem-ch05-continual`, with parallel composition and
    post-processing made explicit.  For streams differing in ``m`` rewards the bound is ``m eps``
    (group privacy).

    Parameters
    ----------
    o : array_like, shape (..., number of phases)
        Released running sums.
    rewards, rewards_prime : array_like, shape (T,)
        The two streams, in [0, 1], same length.
    starts, eps
        As in :func:`continual_release`.

    Returns
    -------
    float or ndarray
        The log ratio, of the shape of ``o`` without its last axis.
    """
    r, st = _check_stream(rewards, starts)
    rp, _ = _check_stream(rewards_prime, starts, "rewards_prime")
    if rp.size != r.size:
        raise ValueError("rewards and rewards_prime must have the same length")
    e = float(as_positive("eps", eps, allow_inf=False))
    u = _phase_releases(o, st.size)
    s = np.add.reduceat(r, st)
    sp = np.add.reduceat(rp, st)
    out = e * np.sum(np.abs(u - sp) - np.abs(u - s), axis=-1)
    return float(out) if np.ndim(out) == 0 else out

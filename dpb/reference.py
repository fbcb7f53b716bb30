"""Literal per-step reference simulator: the test oracle of :mod:`dpb.simulate`.

Each policy's pseudo-code (:doc:`/book/algorithms_as_run`; :prf:ref:`alg-dp-klucb-imed`) is
transcribed line by line, in plain Python, one Bernoulli reward per round: no phase sums, no
Binomial draws, no vectorisation across runs, no look-ahead.  It shares no logic with the fast
path: batch sizes are recomputed here from :prf:ref:`def-batch-schedule` in exact rational arithmetic, indexes
come from :mod:`dpb.divergences` (bisection), ties are broken with ``rng.choice``.  It is slow
(microseconds per round) and meant for small horizons.  Its scalar kl and KL-UCB inversion
are its own copies on purpose, not ``dpb.policies._scalar``: an oracle that shared the fast
engines' maths could not catch an error in it (its kl has the float form of IMED's kernel, so
that the two break the same exact ties).

:func:`reference_simulate` returns a :class:`dpb.simulate.Result` (same checkpoints and fields as
:func:`dpb.simulate.simulate`) so that tests can compare the two in distribution.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Mapping
from typing import Any, cast
from fractions import Fraction
from functools import partial

import numpy as np

from . import _detmath

from . import divergences as dv
from ._validate import MAX_HORIZON, MAX_RUNS, MAX_SECONDS, as_int, as_seed_sequence, check_elements
from .cost import _refuse
from .engine import child_seeds, _resolve_checkpoints
from .environments import as_bandit
from .plans import PlanError, _is_integer
from .policies.base import Policy, check_horizon
from .policies.registry import as_policy, policy_class, reference_of, registered
from .result import Result

__all__ = ["reference_run", "reference_simulate", "reference_policies", "ReferenceBandit"]


# ----------------------------------------------------------------------------------------------
# small literal helpers
# ----------------------------------------------------------------------------------------------
def _clip01(x: float) -> float:
    return min(max(x, 0.0), 1.0)


def _argbest(values, rng, maximise: bool) -> int:
    """Index of the best value, ties broken uniformly at random."""
    best = max(values) if maximise else min(values)
    tied = [i for i, v in enumerate(values) if v == best]
    return tied[0] if len(tied) == 1 else int(rng.choice(tied))


def _kl_scalar(p: float, q: float) -> float:
    """Bernoulli kl(p, q) with 0 log 0 = 0, written out for one pair."""
    if p == q:
        return 0.0
    out = 0.0
    if p > 0.0:
        if q <= 0.0:
            return math.inf
        out += p * _detmath.log(p / q)
    if p < 1.0:
        if q >= 1.0:
            return math.inf
        out += (1.0 - p) * _detmath.log((1.0 - p) / (1.0 - q))
    return max(out, 0.0)


def _kl_ucb_scalar(x: float, c: float) -> float:
    """max{q in [x, 1] : kl(x, q) <= c} by plain bisection (60 halvings: width < 1e-18)."""
    if x >= 1.0:
        return 1.0
    lo, hi = x, 1.0
    for _ in range(60):
        mid = 0.5 * (lo + hi)
        if _kl_scalar(x, mid) <= c:
            lo = mid
        else:
            hi = mid
    return lo


def _paper_batch_sizes(n0: int, alpha, total: int) -> list[int]:
    """B_0, B_1, ... of :prf:ref:`def-batch-schedule` in exact rational arithmetic, until n_m >= total."""
    a = Fraction(repr(float(alpha))) if not isinstance(alpha, (int, Fraction)) else Fraction(alpha)
    sizes, prev, m = [], 0, 0
    while prev < total:
        value = n0 * (a ** (m + 1) - 1) / (a - 1)
        n_m = -((-value.numerator) // value.denominator)  # exact ceil
        sizes.append(n_m - prev)
        prev, m = n_m, m + 1
    return sizes


def _schedule_sizes(params: dict, total: int) -> list[int]:
    sched = params.get("schedule")
    if sched is None:
        return _paper_batch_sizes(int(params.get("n0", 1)), params.get("alpha", 2), total)
    kind = sched["kind"]
    if kind in ("geometric", "doubling"):
        return _paper_batch_sizes(int(sched["n0"]), sched.get("alpha", 2), total)
    if kind == "polynomial":  # B_m = ceil(n0 (m+1)^p), integer p only here
        p = sched["power"]
        if int(p) != p:
            raise ValueError("the reference supports integer polynomial powers only")
        sizes, cum, m = [], 0, 0
        while cum < total:
            sizes.append(int(sched["n0"]) * (m + 1) ** int(p))
            cum += sizes[-1]
            m += 1
        return sizes
    raise ValueError(f"unknown schedule kind {kind!r}")


class ReferenceBandit:
    """One run's environment for a per-step reference: a Bernoulli reward per round, and the regret.

    A policy's ``reference(env, rng, params)`` (:attr:`dpb.policies.base.Policy.reference`) plays
    one run on this object: it reads ``env.K``, ``env.T`` and ``env.t`` (the next round, 1-based),
    calls :meth:`pull` once per round until :meth:`done`, and takes all its own randomness from
    ``rng``.  The rewards come from the same ``rng``.

    Attributes
    ----------
    K, T, t : int
        Number of arms, horizon, next round.
    pulls : list of int
        Pulls of each arm so far.
    curve : numpy.ndarray
        Shape (T,): the pseudo-regret after each round.
    """

    def __init__(self, means: Any, T: int, rng: np.random.Generator, policy: str = "reference") -> None:
        bandit = as_bandit(means)  # arm means in [0, 1], K >= 2, finite
        T = as_int("T", T, minimum=1, maximum=MAX_HORIZON)
        check_elements("T (one regret value per round)", T)
        if not isinstance(rng, np.random.Generator):
            raise TypeError(f"rng must be a numpy Generator (np.random.default_rng(seed)), got "
                            f"{type(rng).__name__}")
        self.means = [float(m) for m in bandit.means]
        self.gaps = [max(self.means) - m for m in self.means]
        self.K, self.T, self.rng = len(self.means), T, rng
        self.policy = policy  # named by the errors of a bad pull
        self.t = 1  # the next round
        self.pulls = [0] * self.K
        self.reg = 0.0
        self.curve = np.zeros(T)

    def done(self) -> bool:
        return self.t > self.T

    def _arm(self, arm) -> int:
        if not _is_integer(arm) or not 0 <= arm < self.K:
            raise PlanError(f"policy {self.policy!r} pulled arm {arm!r}: an arm must be an integer "
                            f"from 0 to K-1={self.K - 1}")
        if self.done():
            raise PlanError(f"policy {self.policy!r} pulled arm {arm} in round {self.t}: the horizon "
                            f"T={self.T} is over (a reference stops when done() is true)")
        return int(arm)

    def pull(self, arm: int) -> float:
        arm = self._arm(arm)
        reward = 1.0 if self.rng.random() < self.means[arm] else 0.0
        self.pulls[arm] += 1
        self.reg += self.gaps[arm]
        self.curve[self.t - 1] = self.reg
        self.t += 1
        return reward

    def pull_many(self, arm: int, n: int) -> tuple[float, int]:
        """Pull ``arm`` up to ``n`` times (stopping at the horizon); (reward sum, pulls made)."""
        arm = self._arm(arm)
        if not _is_integer(n) or not 1 <= n <= MAX_HORIZON:
            raise PlanError(f"policy {self.policy!r} planned {n!r} pulls of arm {arm}: the pulls of a "
                            f"phase must be an integer from 1 to 2**62 (a phase is cut at the horizon)")
        total, made = 0.0, 0
        for _ in range(n):
            if self.done():
                break
            total += self.pull(arm)
            made += 1
        return total, made


# ----------------------------------------------------------------------------------------------
# the policies, line by line
# ----------------------------------------------------------------------------------------------
def _dp_batched(env: ReferenceBandit, rng, params: dict, kind: str) -> None:
    """Algorithm 'DP-KLUCB and DP-IMED' (the paper)."""
    eps = float(params["eps"])
    K = env.K
    B = _schedule_sizes(params, env.T)
    S, n, m = [0.0] * K, [0] * K, [0] * K
    for i in range(K):  # pull each arm B_0 times; S~_{i,0} = sum + Lap(1/eps)
        s, _ = env.pull_many(i, B[0])
        S[i] = s + rng.laplace(0.0, 1.0 / eps)
        n[i], m[i] = B[0], 0
    while not env.done():
        t = env.t
        x = [_clip01(S[i] / n[i]) for i in range(K)]
        if kind == "klucb":
            levels = [_detmath.log(t) / n[j] for j in range(K)]
            idx = np.asarray(dv.d_eps_ucb(np.array(x), np.array(levels), eps)).tolist()
            i = _argbest(idx, rng, maximise=True)
        else:
            x_star = _clip01(max(S[j] / n[j] for j in range(K)))
            d = np.asarray(dv.d_eps(np.array(x), x_star, eps)).tolist()
            idx = [n[j] * d[j] + _detmath.log(n[j]) for j in range(K)]
            i = _argbest(idx, rng, maximise=False)
        b = B[m[i] + 1]
        s, _ = env.pull_many(i, b)
        S[i] = S[i] + s + rng.laplace(0.0, 1.0 / eps)  # no forgetting
        m[i] += 1
        n[i] += b


def _dpse(env: ReferenceBandit, rng, params: dict) -> None:
    """DP-SE (:doc:`/book/algorithms_as_run`): epochs of round-robin pulls, forgetting, elimination."""
    eps = float(params["eps"])
    beta = params.get("beta")
    beta = 1.0 / env.T if beta is None else float(beta)
    rule = params.get("elimination", "radius")
    S = list(range(env.K))
    e = 0
    while len(S) > 1 and not env.done():
        e += 1
        delta = 2.0**-e
        l8 = _detmath.log(8 * len(S) * e * e / beta)
        l4 = _detmath.log(4 * len(S) * e * e / beta)
        R_e = math.ceil(max(32 * l8 / delta**2, 8 * l4 / (eps * delta)))
        sums = {a: 0.0 for a in S}
        for _ in range(R_e):
            for a in S:
                if env.done():
                    return
                sums[a] += env.pull(a)
        mu = {a: (sums[a] + rng.laplace(0.0, 1.0 / eps)) / R_e for a in S}
        h = math.sqrt(l8 / (2 * R_e))
        c = l4 / (eps * R_e)
        best = max(mu.values())
        threshold = {"radius": 2 * (h + c), "half-gap": delta / 2, "gap": delta}[rule]
        S = [a for a in S if not (best - mu[a] > threshold)]
    while not env.done():
        env.pull(S[0])


def _adap(env: ReferenceBandit, rng, params: dict, kind: str) -> None:
    """AdaP-KLUCB / AdaP-UCB (:doc:`/book/algorithms_as_run`): doubling episodes, forgetting."""
    eps, alpha = float(params["eps"]), float(params.get("alpha", 3.1))
    K = env.K
    mu_t, n_last, N = [0.0] * K, [1] * K, [1] * K
    for a in range(K):
        r = env.pull(a)
        mu_t[a] = (r + rng.laplace(0.0, 1.0 / eps)) / 1
    while not env.done():
        t_l = env.t  # pulls so far + 1
        lev = [alpha * _detmath.log(t_l) / n_last[a] for a in range(K)]
        if kind == "klucb":
            mb = [_clip01(mu_t[a] + lev[a] / eps) for a in range(K)]
            idx = np.asarray(dv.kl_ucb(np.array(mb), np.array(lev))).tolist()
        else:
            idx = [mu_t[a] + math.sqrt(lev[a] / 2) + lev[a] / eps for a in range(K)]
        A = _argbest(idx, rng, maximise=True)
        s, made = env.pull_many(A, N[A])
        if made == 0:
            break
        n_last[A] = made
        N[A] = 2 * N[A]
        mu_t[A] = (s + rng.laplace(0.0, 1.0 / eps)) / made


def _lazy_dpts(env: ReferenceBandit, rng, params: dict) -> None:
    """Lazy-DP-TS (:doc:`/book/algorithms_as_run`): per-round Beta samples, doubling buffers, forgetting."""
    eps, c = float(params["eps"]), float(params.get("c", 3.0))
    K = env.K
    obs, r, mu_t = [1] * K, [0] * K, [0.0] * K
    buf: list[list[float]] = [[] for _ in range(K)]
    for j in range(K):
        mu_t[j] = env.pull(j) + rng.laplace(0.0, 1.0 / eps)
    while not env.done():
        t = env.t
        theta = []
        for j in range(K):
            m = _clip01(mu_t[j] + c * _detmath.log(t) / (eps * obs[j]))
            theta.append(rng.beta(m * obs[j] + 1, (1 - m) * obs[j] + 1))
        J = _argbest(theta, rng, maximise=True)
        buf[J].append(env.pull(J))
        if len(buf[J]) == 2 ** (r[J] + 1):
            mu_t[J] = (sum(buf[J]) + rng.laplace(0.0, 1.0 / eps)) / len(buf[J])
            obs[J] = len(buf[J])
            r[J] += 1
            buf[J] = []


def _per_step(env: ReferenceBandit, rng, index, maximise: bool) -> None:
    """Pull every arm once, then at every round the arm of best ``index(mu_a, N_a, t)`` (random ties)."""
    K = env.K
    S, N = [0.0] * K, [0] * K
    for a in range(K):
        S[a] += env.pull(a)
        N[a] += 1
    while not env.done():
        mu = [S[a] / N[a] for a in range(K)]
        top = max(mu)
        a = _argbest([index(mu[a], N[a], env.t, top) for a in range(K)], rng, maximise)
        S[a] += env.pull(a)
        N[a] += 1


def _imed(env: ReferenceBandit, rng, params: dict) -> None:
    """IMED (Honda & Takemura 2015), Bernoulli form: argmin N_a kl(mu_a, max_b mu_b) + log N_a."""
    _per_step(env, rng, lambda mu, n, t, top: n * _kl_scalar(mu, top) + _detmath.log(n), maximise=False)


def _klucb(env: ReferenceBandit, rng, params: dict) -> None:
    """KL-UCB (Garivier & Cappe 2011) with budget log t + c log log t (floored at 0)."""
    c = float(params.get("c", 0.0))

    def index(mu, n, t, top):
        budget = max(_detmath.log(t) + (c * _detmath.log(_detmath.log(t)) if c else 0.0), 0.0)
        return _kl_ucb_scalar(mu, budget / n)

    _per_step(env, rng, index, maximise=True)


# the references the policy classes name ("dpb.reference:_dp_klucb", ...)
_dp_klucb, _dp_imed = partial(_dp_batched, kind="klucb"), partial(_dp_batched, kind="imed")
_adap_klucb, _adap_ucb = partial(_adap, kind="klucb"), partial(_adap, kind="ucb")


def reference_policies() -> dict:
    """The per-step references by policy name: every registered policy that declares one
    (:attr:`dpb.policies.base.Policy.reference`), including policies registered later."""
    return {name: reference_of(cls) for name, cls in registered(reference=True).items()}


def reference_run(policy: Any, params: dict, means: Any, T: int, rng: np.random.Generator, *,
                  max_seconds: float | None = None) -> tuple[np.ndarray, np.ndarray]:
    """One literal run; returns (regret after each round, shape (T,); final pulls, shape (K,)).

    ``policy`` is a registered name (or class, or ``"file.py:Class"``) with a reference.
    ``max_seconds`` (default None here, no limit) refuses a run estimated above that many
    CPU-seconds, as :func:`dpb.simulate.simulate` does; :func:`reference_simulate` sets it.
    """
    cls, ref = _with_reference(policy)
    T = as_int("T", T, minimum=1, maximum=MAX_HORIZON)
    if not isinstance(params, Mapping):
        raise TypeError(f"params must be a dict of the policy's parameters, got {type(params).__name__}")
    pol = as_policy(policy, dict(params))  # the policy's own constructor checks the parameters
    bandit = as_bandit(means)
    check_horizon(pol, bandit.K, T)
    _refuse(f"reference_run({cls.name!r})", T, 1, max_seconds, pol, bandit.K, "reference")
    return _literal_run(cls.name, ref, bandit.means, T, rng, params)


def _with_reference(policy: Any) -> tuple[type[Policy], Callable]:
    """The class of ``policy`` and its reference (``ValueError`` for a policy without one)."""
    cls = policy_class(policy)
    ref = reference_of(cls)
    if ref is None:
        raise ValueError(f"policy {cls.name!r} has no per-step reference; policies with one are "
                         f"{', '.join(reference_policies())}")
    return cls, ref


def _literal_run(name: str, ref: Callable, means: np.ndarray, T: int, rng: np.random.Generator,
                 params: Mapping) -> tuple[np.ndarray, np.ndarray]:
    """One run of the reference ``ref`` of the policy ``name``, on checked arguments."""
    env = ReferenceBandit(means, T, rng, name)
    ref(env, rng, dict(params))
    if not env.done():
        raise PlanError(f"policy {name!r}: its reference returned after {env.t - 1} of T={T} rounds "
                        f"(a reference pulls until done() is true)")
    return env.curve, np.array(env.pulls, dtype=np.int64)


def reference_simulate(
    policy: str, env: Any, T: int, runs: int = 1, seed: Any = None, *, params: dict | None = None,
    checkpoints: Any = None, max_seconds: float | None = MAX_SECONDS,
) -> Result:
    """Simulate ``runs`` literal runs and package them like :func:`dpb.simulate.simulate`.

    Run i uses ``np.random.default_rng(child_i)`` with child_i the i-th child of
    ``SeedSequence(seed)`` (a single generator for rewards and policy: the reference does not
    try to reproduce the fast path's streams, only its law).  ``max_seconds`` refuses, before
    any work, a call estimated above that many CPU-seconds (:func:`dpb.simulate.estimate_cost`
    with ``engine="reference"``; None lifts the limit).
    """
    t0 = time.perf_counter()
    bandit = as_bandit(env)
    params = dict(params or {})
    pol = as_policy(policy, params)  # the policy's own constructor checks the parameters
    T = as_int("T", T, minimum=1, maximum=MAX_HORIZON)
    runs = as_int("runs", runs, minimum=1, maximum=MAX_RUNS)
    _refuse(f"reference_simulate({pol.name!r})", T, runs, max_seconds, pol, bandit.K, "reference")
    root = as_seed_sequence("seed", seed)
    ck, log_mask, lin_mask = _resolve_checkpoints(T, checkpoints)
    cls, ref = _with_reference(policy)
    check_horizon(pol, bandit.K, T)
    regret = np.empty((runs, ck.size))
    pulls = np.empty((runs, bandit.K), dtype=np.int64)
    for i, child in enumerate(child_seeds(root, range(runs))):
        curve, n = _literal_run(cls.name, ref, bandit.means, T, np.random.default_rng(child), params)
        regret[i] = curve[ck - 1]
        pulls[i] = n
    return Result(
        policy=pol.name,
        params=params,
        means=np.asarray(bandit.means, dtype=float).copy(),
        env_name=bandit.name,
        T=T,
        seed=int(cast(int, root.entropy)),  # (as_seed_sequence: an int's)
        spawn_key=tuple(root.spawn_key),
        run_ids=np.arange(runs),
        checkpoints=ck,
        log_grid=log_mask,
        linear_grid=lin_mask,
        regret=regret,
        pulls=pulls,
        n_phases=np.full(runs, -1, dtype=np.int64),
        laplace_draws=np.full(runs, -1, dtype=np.int64),
        engine="reference",
        elapsed=time.perf_counter() - t0,
    )

"""The lock-step fast path of a per-step policy of one's own (dpb/policies/_perstep.py).

* The same numbers as the generic phase engine (``fast=False``), array by array, for the rules of
  IMED and KL-UCB run on the lock-step path, with ties and arms of mean 0 and 1, with and without
  look-ahead; its Bernoulli rewards are numpy's ``binomial(1, p)`` draws from the same uniforms.
* A user's rule agrees in distribution with the literal per-step reference (dpb.reference), and
  the same test detects a wrong exploration constant.
* Bad indexes are refused with a PlanError naming the policy (NaN, wrong shape, wrong type);
  infinite indexes are ordinary values (ties at random), as on the generic engine.
* The cost model prices the user's index (timed on synthetic states), not a fixed constant.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.stats import ks_2samp

from dpb.cost import estimate_cost
from dpb.plans import PlanError
from dpb.policies import IMED, KLUCB, PerStepPolicy
from dpb.policies import _perstep
from dpb.reference import reference_simulate
from dpb.simulate import simulate


class LockstepIMED(IMED, register=False):
    fast_simulate = PerStepPolicy.fast_simulate


class LockstepKLUCB(KLUCB, register=False):
    fast_simulate = PerStepPolicy.fast_simulate


def _literal_ucb(env, rng, params):
    """Pull every arm once, then argmax mu + sqrt(c log t / n), ties at random (one run)."""
    c = float(params.get("c", 2.0))
    S, N = [0.0] * env.K, [0] * env.K
    for a in range(env.K):
        S[a] += env.pull(a)
        N[a] += 1
    while not env.done():
        idx = [S[a] / N[a] + math.sqrt(c * math.log(env.t) / N[a]) for a in range(env.K)]
        tied = [a for a in range(env.K) if idx[a] == max(idx)]
        a = tied[0] if len(tied) == 1 else int(rng.choice(tied))
        S[a] += env.pull(a)
        N[a] += 1


class UserUCB(PerStepPolicy, register=False):
    """A rule of one's own: mu + sqrt(c log t / n) (registered only by the test that needs its
    reference, so that collecting this file registers nothing)."""

    name = "Test-User-UCB"

    def __init__(self, c: float = 2.0) -> None:
        self.c = float(c)

    @property
    def params(self) -> dict:
        return {"c": self.c}

    def empirical_index(self, mu, n, t):
        return mu + np.sqrt(self.c * np.log(t) / n)


class UserUCBNoLookahead(UserUCB, register=False):
    lookahead = False


ARRAYS = ("regret", "pulls", "n_phases", "laplace_draws")
ENVS = ["mu1", [0.5, 0.5, 0.3], [0.9, 0.9, 0.9, 0.1], [0.0, 1.0, 0.5, 0.7], [0.5, 0.5]]


def _same(a, b) -> bool:
    return all(np.array_equal(getattr(a, k), getattr(b, k)) for k in ARRAYS)


@pytest.mark.parametrize("cls", [LockstepIMED, LockstepKLUCB, UserUCB, UserUCBNoLookahead])
@pytest.mark.parametrize("env", ENVS, ids=str)
def test_same_numbers_as_the_generic_engine(cls, env):
    for seed in (0, 7):
        fast = simulate(cls(), env, 800, runs=3, seed=seed)
        generic = simulate(cls(), env, 800, runs=3, seed=seed, fast=False)
        assert fast.engine == "fast" and generic.engine == "phases"
        assert _same(fast, generic), (cls.__name__, env, seed)


def test_runs_split_anyhow_give_the_same_numbers():
    whole = simulate(UserUCB(), "mu2", 3000, runs=5, seed=3)
    parts = [simulate(UserUCB(), "mu2", 3000, seed=3, run_ids=[i]) for i in range(5)]
    assert np.array_equal(whole.regret, np.vstack([p.regret for p in parts]))
    assert np.array_equal(whole.pulls, np.vstack([p.pulls for p in parts]))


@pytest.mark.parametrize("p", [0.0, 1.0, 0.5, 0.25, 0.75, 1e-300, 1 - 2**-53, 2**-53, 0.1, 0.9, 0.3333])
def test_rewards_are_numpys_binomial_draws(p):
    ss = np.random.SeedSequence(11)
    draws = np.random.default_rng(ss).binomial(1, p, size=5000)
    again = np.random.default_rng(ss)
    singles = [again.binomial(1, p) for _ in range(5000)]
    after = again.random()
    stream = _perstep.BernoulliStream(np.array([p]), [np.random.default_rng(ss)])
    used = stream.uses[0] * 5000
    u = np.random.default_rng(ss).random(max(used, 1))
    ours = stream.rewards(u[:used] if used else np.zeros(5000), np.zeros(5000, dtype=np.int64))
    assert np.array_equal(ours, draws) and np.array_equal(draws, singles)
    # the same number of uniforms consumed: the next draw of the stream is the same
    assert np.random.default_rng(ss).random(used + 1)[-1] == after


def test_a_second_uniform_falls_back_to_the_generic_engine(monkeypatch):
    # numpy's sampler redraws with probability below 2**-50 per pull; force the case mid-run
    calls = {"n": 0}
    original = _perstep.BernoulliStream.rewards

    def rewards(self, u, arms):
        calls["n"] += 1
        if calls["n"] == 40:
            raise _perstep._Redraw
        return original(self, u, arms)

    monkeypatch.setattr(_perstep.BernoulliStream, "rewards", rewards)
    fast = simulate(UserUCB(), [0.5, 0.5, 0.3], 1000, runs=3, seed=4)
    assert calls["n"] >= 40
    monkeypatch.setattr(_perstep.BernoulliStream, "rewards", original)
    assert _same(fast, simulate(UserUCB(), [0.5, 0.5, 0.3], 1000, runs=3, seed=4, fast=False))


@pytest.mark.slow
def test_a_user_rule_agrees_with_the_per_step_reference():
    class Registered(UserUCB):
        name = "Test-User-UCB"
        reference = staticmethod(_literal_ucb)

    fast = simulate(Registered(), "mu2", 1500, runs=400, seed=2000)
    ref = reference_simulate("Test-User-UCB", "mu2", 1500, runs=200, seed=1000, params={"c": 2.0})
    # two-sample KS at level 1e-3 (as tests/test_reference_agreement.py), fixed seeds
    assert ks_2samp(np.round(ref.final_regret, 9), np.round(fast.final_regret, 9)).pvalue > 1e-3
    assert ks_2samp(ref.pulls[:, 0], fast.pulls[:, 0]).pvalue > 1e-3
    # power: half the exploration is detected by the same test
    other = simulate(Registered(1.0), "mu2", 1500, runs=400, seed=3000)
    assert ks_2samp(np.round(ref.final_regret, 9), np.round(other.final_regret, 9)).pvalue < 1e-3


def _bad(value=None, at=60, shape=None, dtype=None, rows_only=False):
    class Bad(PerStepPolicy, register=False):
        name = "Bad-Index"

        def __init__(self):
            pass

        @property
        def params(self):
            return {}

        def empirical_index(self, mu, n, t):
            out = mu + np.sqrt(np.log(t) / n)
            if value is not None:
                out = np.where(t >= at, value, out)
            if shape is not None:
                out = out[:, :shape]
            return out.astype(dtype) if dtype is not None else out

    return Bad()


def test_a_nan_index_is_refused_naming_the_policy():
    with pytest.raises(PlanError, match=r"policy 'Bad-Index' computed a NaN index"):
        simulate(_bad(np.nan), "mu1", 200, runs=3, seed=0)
    with pytest.raises(PlanError, match="NaN"):
        simulate(_bad(np.nan, at=200), "mu1", 200, runs=3, seed=0)  # only the last round


def test_an_index_of_the_wrong_shape_or_type_is_refused():
    with pytest.raises(PlanError, match=r"policy 'Bad-Index' computed an index of shape"):
        simulate(_bad(shape=2), "mu1", 200, runs=3, seed=0)
    with pytest.raises(PlanError, match="of type"):
        simulate(_bad(dtype=object), "mu1", 200, runs=3, seed=0)


@pytest.mark.parametrize("value", [np.inf, -np.inf])
def test_infinite_indexes_are_ties_as_on_the_generic_engine(value):
    fast = simulate(_bad(value), "mu1", 300, runs=4, seed=5)
    generic = simulate(_bad(value), "mu1", 300, runs=4, seed=5, fast=False)
    assert _same(fast, generic)
    # from round 60 every arm ties: the pulls after it spread over the arms at random
    assert (fast.pulls.min(axis=1) > 30).all()


def test_the_cost_model_prices_the_users_index():
    class Costly(UserUCB, register=False):
        def empirical_index(self, mu, n, t):
            for _ in range(3000):
                np.log(t)
            return super().empirical_index(mu, n, t)

    cheap = estimate_cost(UserUCB(), "mu1", 10**5, 20)
    costly = estimate_cost(Costly(), "mu1", 10**5, 20)
    assert cheap.engine == costly.engine == "fast" and cheap.phases == 10**5
    assert costly.seconds > 5 * cheap.seconds
    # no look-ahead: one call per round, so more calls priced than with look-ahead
    assert estimate_cost(UserUCBNoLookahead(), "mu1", 10**5, 20).seconds > cheap.seconds


def test_a_long_call_is_priced_by_a_pilot_of_its_switching():
    """How often a rule changes arm sets the calls of the index: a pilot on the first rounds
    measures it (a rule that changes arm every round costs one call a round, one that never
    changes about one per 64 rounds)."""

    class Constant(UserUCB, register=False):
        def empirical_index(self, mu, n, t):
            return np.broadcast_to(-np.arange(mu.shape[1], dtype=float), mu.shape).copy()

    class Alternating(UserUCB, register=False):
        def empirical_index(self, mu, n, t):
            return (np.arange(mu.shape[1]) == t % mu.shape[1]).astype(float)

    still = estimate_cost(Constant(), "mu1", 10**6, 20).seconds
    moving = estimate_cost(Alternating(), "mu1", 10**6, 20).seconds
    assert moving > 10 * still
    res = simulate(Alternating(), "mu1", 500, runs=2, seed=0)  # and it does alternate
    assert np.array_equal(res.pulls, np.full((2, 5), 100))

"""Tests of dpb.policies: index numerics, tie-breaking, random streams, privacy bookkeeping.

The index formulas are re-derived here from dpb.divergences (the reference inversions, bisection
to the last ulp) and compared with what each policy used, phase by phase, in a trace.
"""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.special import expit, logit
from scipy.stats import chisquare

import dpb.policies as policies_pkg
from dpb import divergences as dv
from dpb.batching import GeometricSchedule, PolynomialSchedule
from dpb.environments import BernoulliBandit
from dpb.policies import (
    DPIMED,
    DPKLUCB,
    DPSE,
    KLUCB,
    POLICIES,
    AdaPKLUCB,
    AdaPUCB,
    LazyDPTS,
    _scalar,
    make_policy,
    policy_names,
    registered,
)
from dpb.policies._numerics import d_eps_below_fast, d_eps_ucb_fast, kl_fast, kl_ucb_fast
from dpb.policies.base import RunRandom, pick_max, pick_min
from dpb.policies.dp_ucb import DPUCB
from dpb.simulate import simulate, simulate_trace

# Significance of each statistical test below: 1e-3 (fixed seeds, so a failure is reproducible;
# with the ~10 such tests in this file the family-wise false-alarm rate is < 1%, Bonferroni).
ALPHA = 1e-3

probs = st.one_of(st.floats(0, 1), st.sampled_from([0.0, 1.0, 1e-12, 1 - 1e-12, 0.5]))
levels = st.one_of(st.floats(0, 50), st.sampled_from([0.0, 1e-12, 1e-6, math.inf]))
epsilons = st.one_of(st.floats(1e-4, 100), st.sampled_from([0.01, 0.25, 1.0]))


# ----------------------------------------------------------------------------------------------
# fast numerics against dpb.divergences
# ----------------------------------------------------------------------------------------------
@settings(max_examples=300, deadline=None)
@given(p=probs, q=probs)
def test_kl_fast(p, q):
    ref = dv.kl(p, q)
    got = float(kl_fast(np.array(p), np.array(q)))
    assert (math.isinf(ref) and math.isinf(got)) or abs(got - ref) <= 1e-12 * max(1.0, ref)


@settings(max_examples=300, deadline=None)
@given(x=probs, c=levels)
def test_kl_ucb_fast(x, c):
    assert abs(float(kl_ucb_fast(np.array(x), np.array(c))) - dv.kl_ucb(x, c)) <= 1e-10


@settings(max_examples=300, deadline=None)
@given(x=probs, c=levels, eps=epsilons)
def test_d_eps_ucb_fast(x, c, eps):
    got = float(d_eps_ucb_fast(np.array(x), np.array(c), eps))
    assert abs(got - dv.d_eps_ucb(x, c, eps)) <= 1e-10
    if c >= eps * (1 - x):  # saturation is exact (ties at 1 must be detected exactly)
        assert got == 1.0


@settings(max_examples=300, deadline=None)
@given(x=probs, y=probs, eps=epsilons)
def test_d_eps_below_fast(x, y, eps):
    x, y = min(x, y), max(x, y)
    ref = dv.d_eps(x, y, eps)
    assert abs(float(d_eps_below_fast(np.array(x), np.array(y), eps)) - ref) <= 1e-10 * max(1.0, ref)


# the fast engines' means: ratios S / N of counts below 2^62, so 0 or at least 2e-19 (a subnormal
# q overflows p / q in the engines' kl, which never sees one)
engine_means = st.one_of(st.floats(1e-18, 1), st.sampled_from([0.0, 1.0, 1e-12, 1 - 1e-12, 0.5]))


@settings(max_examples=300, deadline=None)
@given(p=engine_means, q=engine_means, x=engine_means, c=levels, eps=epsilons)
def test_scalar_maths_of_the_engines(p, q, x, c, eps):
    """The plain-Python scalar maths that the kernels compile (one source for both engines)
    against dpb.divergences, and d_eps_below against its vectorised twin to rounding."""
    ref = dv.kl(p, q)
    got = _scalar.kl(p, q)
    assert (math.isinf(ref) and math.isinf(got)) or abs(got - ref) <= 1e-12 * max(1.0, ref)
    assert abs(_scalar.kl_ucb(x, c) - dv.kl_ucb(x, c)) <= 1e-10
    lo, hi = min(p, q), max(p, q)
    z, log_term = _scalar.d_eps_terms(hi, eps)
    with np.errstate(divide="ignore"):
        assert abs(z - float(expit(logit(hi) - eps))) <= 1e-15
    got = _scalar.d_eps_below(lo, hi, z, log_term, eps)
    vectorised = float(d_eps_below_fast(np.array(lo), np.array(hi), eps))
    assert abs(got - vectorised) <= 1e-13 * max(1.0, got)  # (scalar and numpy logs: ulps apart)
    assert abs(got - dv.d_eps(lo, hi, eps)) <= 1e-10 * max(1.0, got)


@pytest.mark.parametrize("c", [0.0, 1.0, 3.0])
def test_scalar_budget_is_the_vectorised_one(c):
    from dpb.policies._numerics import budget_fast

    t = np.array([1, 2, 3, 10, 1000, 10**9])
    assert [_scalar.budget(int(v), c) for v in t] == budget_fast(t, c).tolist()


def test_scalar_ties_are_broken_by_the_uniform_rank():
    # the kernels' tie-break: the entry of rank floor(u n) among the n tied ones, in arm order
    idx = np.array([0.5, 0.2, 0.5, 0.1, 0.5])
    assert _scalar.count_tied(idx, 0.5) == (3, 0) and _scalar.count_tied(idx, 0.3) == (0, -1)
    ranks = [_scalar.nth_tied(idx, 0.5, u, 3) for u in (0.0, 0.33, 0.34, 0.66, 0.67, 1.0)]
    assert ranks == [0, 0, 2, 2, 4, 4]


def test_fast_numerics_vectorised():
    rng = np.random.default_rng(0)
    x = rng.random((50, 5))
    c = rng.exponential(0.05, (50, 5))
    assert np.allclose(kl_ucb_fast(x, c), dv.kl_ucb(x, c), rtol=0, atol=1e-10)
    assert np.allclose(d_eps_ucb_fast(x, c, 0.3), dv.d_eps_ucb(x, c, 0.3), rtol=0, atol=1e-10)


# ----------------------------------------------------------------------------------------------
# tie-breaking and random streams
# ----------------------------------------------------------------------------------------------
def test_pick_max_breaks_ties_uniformly():
    # 6000 rows with arms 1, 2, 4 tied for the max: each should get 1/3 (chi-square, 2 dof)
    R = 6000
    vals = np.tile([0.1, 0.9, 0.9, 0.2, 0.9], (R, 1))
    rand = RunRandom([np.random.default_rng(i) for i in range(R)])
    choice = pick_max(vals, np.arange(R), rand)
    assert set(np.unique(choice)) == {1, 2, 4}
    counts = np.bincount(choice, minlength=5)[[1, 2, 4]]
    assert chisquare(counts).pvalue > ALPHA
    # a unique optimum consumes no randomness and is always chosen
    before = rand.count["uniform"].copy()
    assert pick_min(np.tile([3.0, 1.0, 2.0], (R, 1)), np.arange(R), rand).tolist() == [1] * R
    assert np.array_equal(rand.count["uniform"], before)


def test_pick_rejects_nan():
    rand = RunRandom([np.random.default_rng(0)])
    with pytest.raises(FloatingPointError):
        pick_max(np.array([[np.nan, 1.0]]), np.array([0]), rand)


def test_run_random_streams_do_not_depend_on_grouping():
    seeds = [11, 12, 13]
    together = RunRandom([np.random.default_rng(s) for s in seeds], block=4)
    alone = [RunRandom([np.random.default_rng(s)], block=4) for s in seeds]
    rng = np.random.default_rng(99)
    for _ in range(50):  # random subsets of runs ask for draws of random kinds
        rows = np.flatnonzero(rng.random(3) < 0.6)
        kind = "laplace" if rng.random() < 0.5 else "uniform"
        got = getattr(together, kind)(rows)
        for r, v in zip(rows, got, strict=True):
            assert v == getattr(alone[r], kind)(np.array([0]))[0]


# ----------------------------------------------------------------------------------------------
# construction and validation
# ----------------------------------------------------------------------------------------------
def test_registry_and_names():
    # the package's policies, in the book's order; the registry may hold more (user policies)
    assert policy_names()[:9] == [
        "DP-KLUCB",
        "DP-IMED",
        "DP-SE",
        "AdaP-KLUCB",
        "AdaP-UCB",
        "Lazy-DP-TS",
        "IMED",
        "KL-UCB",
        "DP-UCB",
    ]
    assert isinstance(make_policy("dp_imed", eps=1), DPIMED)
    assert isinstance(make_policy("DPKLUCB", eps=1), DPKLUCB)
    assert isinstance(make_policy("kl-ucb"), KLUCB)
    assert isinstance(make_policy("dp-ucb", eps=1), DPUCB)
    for name, cls in POLICIES.items():
        assert cls.name == name
    for name, cls in registered(builtin=True).items():
        assert cls.private == (name not in ("IMED", "KL-UCB"))
        assert getattr(policies_pkg, cls.__name__) is cls and cls.__name__ in policies_pkg.__all__
        assert f"``{name}``" in policies_pkg.__doc__  # the docstring table lists it


def test_unknown_policy_lists_names():
    with pytest.raises(ValueError) as err:
        make_policy("UCB1")
    assert "DP-IMED" in str(err.value) and "Lazy-DP-TS" in str(err.value)


@pytest.mark.parametrize("cls", [DPKLUCB, DPIMED, DPSE, AdaPKLUCB, AdaPUCB, LazyDPTS])
@pytest.mark.parametrize("eps", [0, -1, float("nan"), float("inf")])
def test_eps_must_be_positive_finite(cls, eps):
    with pytest.raises(ValueError, match="eps"):
        cls(eps=eps)


def test_parameter_validation():
    with pytest.raises(ValueError, match="beta"):
        DPSE(eps=1, beta=1.5)
    with pytest.raises(ValueError, match="beta"):
        DPSE(eps=1, beta=0)
    with pytest.raises(ValueError, match="alpha"):
        AdaPKLUCB(eps=1, alpha=0)
    with pytest.raises(ValueError, match="alpha"):
        DPIMED(eps=1, alpha=1)
    with pytest.raises(ValueError, match="n0"):
        DPKLUCB(eps=1, n0=0)
    with pytest.raises(ValueError, match="c"):
        KLUCB(c=-1)
    with pytest.raises(TypeError, match="DP-IMED"):
        make_policy("DP-IMED", epsilon=1)
    with pytest.raises(TypeError, match="eps"):
        DPIMED(eps="high")


def test_horizon_must_fit_the_initialisation():
    pol = DPKLUCB(eps=1, n0=3)
    with pytest.raises(ValueError, match="T must be >= 15"):
        pol.start(5, 14, [np.random.default_rng(0)])


def test_params_are_recorded():
    assert DPIMED(eps=0.5, n0=2, alpha=1.1).params == {
        "eps": 0.5,
        "schedule": {"kind": "geometric", "n0": 2, "alpha": 1.1},
    }
    assert AdaPKLUCB(eps=0.5).params == {"eps": 0.5, "alpha": 3.1}
    assert LazyDPTS(eps=0.5).params == {"eps": 0.5, "c": 3.0}
    assert "DPSE" in repr(DPSE(eps=1))


# ----------------------------------------------------------------------------------------------
# indexes recomputed from traces with dpb.divergences
# ----------------------------------------------------------------------------------------------
ENV = BernoulliBandit([0.7, 0.5, 0.45, 0.2])


def _states(trace, K):
    """Yield (row, t, n, stat, n_last) for every decision phase: the state before that phase."""
    n = np.zeros(K)
    n_last = np.zeros(K)
    stat = np.full(K, np.nan)
    for row in trace.phases:
        if not np.isnan(row["index"]).all():
            yield row, row["t"], n.copy(), stat.copy(), n_last.copy()
        n += row["counts"]
        n_last = np.where(row["counts"] > 0, row["counts"], n_last)
        stat = row["statistic"]


@pytest.mark.parametrize(
    "name, params",
    [
        ("DP-KLUCB", {"eps": 0.3}),
        ("DP-KLUCB", {"eps": 3.0, "alpha": 1.5, "n0": 2}),
        ("DP-IMED", {"eps": 0.3}),
        ("DP-IMED", {"eps": 3.0, "schedule": PolynomialSchedule(1, 2)}),
        ("AdaP-KLUCB", {"eps": 0.8}),
        ("AdaP-UCB", {"eps": 0.8}),
        ("IMED", {}),
        ("KL-UCB", {}),
        ("KL-UCB", {"c": 3.0}),
        ("DP-UCB", {"eps": 0.3}),
        ("DP-UCB", {"eps": 3.0, "alpha": 1.5, "n0": 2}),
    ],
)
def test_indexes_match_their_formulas(name, params):
    T = 3000 if name not in ("IMED", "KL-UCB") else 300
    trace = simulate_trace(name, ENV, T, seed=3, params=params)
    K = ENV.K
    checked = 0
    for row, t, n, stat, n_last in _states(trace, K):
        x = np.clip(stat, 0, 1)
        if name == "DP-KLUCB":
            expected = dv.d_eps_ucb(x, np.log(t) / n, params["eps"])
        elif name == "DP-IMED":
            expected = n * dv.d_eps(x, x.max(), params["eps"]) + np.log(n)
        elif name == "AdaP-KLUCB":
            lev = 3.1 * np.log(t) / n_last
            expected = dv.kl_ucb(np.clip(stat + lev / params["eps"], 0, 1), lev)
        elif name == "AdaP-UCB":
            lev = 3.1 * np.log(t) / n_last
            expected = stat + np.sqrt(lev / 2) + lev / params["eps"]
        elif name == "IMED":
            expected = n * dv.kl(stat, stat.max()) + np.log(n)
        elif name == "DP-UCB":  # k = phases of each arm, i.e. Laplace draws in its sum
            k = np.array([sum(1 for r in trace.phases if r["t"] < t and r["counts"][a] > 0)
                          for a in range(K)])
            lt = np.log(t)
            expected = x + np.sqrt(lt / (2 * n)) + np.maximum(np.sqrt(8 * k * lt), 2 * np.sqrt(2) * lt) / (
                params["eps"] * n)
        else:
            c = params.get("c", 0.0)
            expected = dv.kl_ucb(stat, (np.log(t) + c * np.log(np.log(t))) / n)
        assert np.allclose(row["index"], expected, rtol=1e-9, atol=1e-9), (t, row["index"], expected)
        best = row["index"].max() if POLICIES[name].index_kind == "max" else row["index"].min()
        assert row["index"][row["arm"]] == best  # the policy played an optimal arm of its index
        checked += 1
    assert checked > 5


# ----------------------------------------------------------------------------------------------
# phases, batch sizes and Laplace bookkeeping
# ----------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "sched", [GeometricSchedule(1, 2), GeometricSchedule(2, 1.5), PolynomialSchedule(1, 2)]
)
@pytest.mark.parametrize("cls", [DPKLUCB, DPIMED])
def test_paper_batches_and_accumulated_noise(cls, sched):
    T = 5000
    pol = cls(eps=0.5, schedule=sched)
    trace = simulate_trace(pol, ENV, T, seed=7)
    sizes = sched.sizes_until(T)
    total = np.zeros(ENV.K)  # reward sums + noises, accumulated (no forgetting)
    n = np.zeros(ENV.K, dtype=int)
    phases = np.zeros(ENV.K, dtype=int)
    for i, row in enumerate(trace.phases):
        a = row["arm"]
        last = i == len(trace) - 1
        assert row["pulls"] == sizes[phases[a]] or (last and row["pulls"] < sizes[phases[a]])
        drawn = ~np.isnan(row["noise"])
        assert drawn.tolist() == [k == a for k in range(ENV.K)]  # one Laplace draw, this arm only
        total[a] += row["reward_sums"][a] + row["noise"][a]
        n[a] += row["pulls"]
        phases[a] += 1
        assert row["statistic"][a] == pytest.approx(total[a] / n[a], rel=1e-12, abs=1e-12)
    assert n.sum() == T
    assert [row["arm"] for row in trace.phases[: ENV.K]] == list(range(ENV.K))  # initialisation
    assert np.array_equal(pol.noise_in_stat[0], phases)  # m + 1 Laplace draws after m + 1 phases
    assert pol.laplace_draws[0] == len(trace)


@pytest.mark.parametrize("cls", [AdaPKLUCB, AdaPUCB])
def test_adap_doubling_and_forgetting(cls):
    T = 4000
    pol = cls(eps=0.5)
    trace = simulate_trace(pol, ENV, T, seed=2)
    N = np.zeros(ENV.K, dtype=int)
    for i, row in enumerate(trace.phases):
        a = row["arm"]
        expected = 1 if N[a] == 0 else N[a]  # initial pull, then the count doubles
        assert row["pulls"] == expected or (i == len(trace) - 1 and row["pulls"] < expected)
        assert np.isnan(row["noise"]).sum() == ENV.K - 1
        fresh = (row["reward_sums"][a] + row["noise"][a]) / row["pulls"]  # this episode only
        assert row["statistic"][a] == pytest.approx(fresh, rel=1e-12, abs=1e-12)
        N[a] += row["pulls"]
    assert np.all(pol.noise_in_stat[0] == 1)
    assert N.sum() == T


def test_lazy_dpts_buffers_and_forgetting():
    T = 3000
    pol = LazyDPTS(eps=1.0)
    trace = simulate_trace(pol, ENV, T, seed=4)
    buf = [[] for _ in range(ENV.K)]
    size = np.full(ENV.K, 2)
    releases = 0
    for i, row in enumerate(trace.phases):
        a = row["arm"]
        assert row["pulls"] == 1
        drawn = ~np.isnan(row["noise"])
        if i < ENV.K:  # initial pull: mu~ = reward + Lap(1/eps)
            assert drawn[a] and row["statistic"][a] == pytest.approx(row["reward_sums"][a] + row["noise"][a])
            releases += 1
            continue
        buf[a].append(row["reward_sums"][a])
        if len(buf[a]) == size[a]:  # the buffer is full: release its noisy mean, forget it
            assert drawn.tolist() == [k == a for k in range(ENV.K)]
            assert row["statistic"][a] == pytest.approx((sum(buf[a]) + row["noise"][a]) / size[a])
            buf[a], size[a] = [], 2 * size[a]
            releases += 1
        else:
            assert not drawn.any()
    assert pol.laplace_draws[0] == releases
    assert np.all(pol.noise_in_stat[0] == 1)


def test_dpse_epochs():
    # epoch 1 pulls every arm R_1 times round-robin, R_1 from DP-SE's formula (appendix "Algorithms as run")
    eps, beta, K = 1.0, 0.1, ENV.K
    T = 40_000
    trace = simulate_trace("DP-SE", ENV, T, seed=1, params={"eps": eps, "beta": beta})
    first = trace.phases[0]
    r1 = math.ceil(max(32 * math.log(8 * K / beta) / 0.25, 8 * math.log(4 * K / beta) / (eps * 0.5)))
    assert first["counts"].tolist() == [r1] * K
    assert first["arm"] == -1
    assert (~np.isnan(first["noise"])).all()  # one Laplace draw per active arm
    stat = first["statistic"]
    assert np.allclose(stat, (first["reward_sums"] + first["noise"]) / r1)
    # eliminations follow the threshold 2 (h_1 + c_1)
    h1 = math.sqrt(math.log(8 * K / beta) / (2 * r1))
    c1 = math.log(4 * K / beta) / (eps * r1)
    survivors = stat.max() - stat <= 2 * (h1 + c1)
    second = trace.phases[1]
    assert np.array_equal(second["counts"] > 0, survivors)
    assert sum(row["pulls"] for row in trace.phases) == T


def test_horizon_cuts_last_phase():
    T = 1000  # DP-KLUCB, n0 = 1, alpha = 2: a phase is cut at T
    trace = simulate_trace("DP-KLUCB", ENV, T, seed=0, params={"eps": 1.0})
    assert sum(row["pulls"] for row in trace.phases) == T
    assert trace.phases[-1]["t"] + trace.phases[-1]["pulls"] - 1 == T


# ----------------------------------------------------------------------------------------------
# ties: identical arms are treated identically
# ----------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "name, params",
    [
        ("DP-KLUCB", {"eps": 0.01}),  # every index saturates at 1 after initialisation
        ("DP-IMED", {"eps": 0.01}),
        ("AdaP-KLUCB", {"eps": 0.5}),
        ("AdaP-UCB", {"eps": 0.5}),
        ("IMED", {}),
        ("KL-UCB", {}),
        ("Lazy-DP-TS", {"eps": 0.5}),
        ("DP-UCB", {"eps": 0.5}),
    ],
)
def test_first_decision_is_uniform_over_identical_arms(name, params):
    # K = 4 identical arms: by symmetry the arm played at round K + 1 is uniform; 2000 runs,
    # chi-square with 3 dof at level ALPHA.  Lowest-index tie-breaking would pick arm 0 far too often.
    K = 4
    env = BernoulliBandit([0.5] * K)
    res = simulate(name, env, K + 1, runs=2000, seed=9, params=params)
    chosen = np.argmax(res.pulls - 1, axis=1)
    assert np.all(res.pulls.sum(axis=1) == K + 1)
    assert chisquare(np.bincount(chosen, minlength=K)).pvalue > ALPHA


def test_a_per_step_index_is_one_method():
    """PerStepPolicy: a new per-step rule is its empirical_index; it runs on the lock-step fast path,
    with the generic engine's numbers (tests/test_per_step_lockstep.py)."""
    from dpb.policies import PerStepPolicy

    class UCB1(PerStepPolicy, register=False):
        name = "UCB1-test"

        def __init__(self):
            pass

        @property
        def params(self):
            return {}

        def empirical_index(self, mu, n, t):
            assert mu.shape == n.shape and t.shape == (mu.shape[0], 1) and (n >= 1).all()
            return mu + np.sqrt(2.0 * np.log(t) / n)

    res = simulate(UCB1(), "mu2", 2000, runs=3, seed=0)
    assert res.engine == "fast" and np.all(res.pulls.sum(axis=1) == 2000)
    generic = simulate(UCB1(), "mu2", 2000, runs=3, seed=0, fast=False)
    assert generic.engine == "phases" and np.array_equal(generic.regret, res.regret)
    assert np.all(res.pulls.argmax(axis=1) == 0)  # the best arm of mu2 is pulled most
    with pytest.raises(TypeError, match="abstract"):
        PerStepPolicy()
    # IMED and KL-UCB are such rules: their index is the formula of the module docstring
    from dpb.policies import IMED

    mu, n, t = np.array([[0.2, 0.5, 0.7]]), np.array([[3, 5, 9]]), np.array([[17]])
    assert np.allclose(IMED().empirical_index(mu, n, t), n * kl_fast(mu, 0.7) + np.log(n))
    assert np.allclose(KLUCB().empirical_index(mu, n, t), kl_ucb_fast(mu, np.log(17) / n))


def test_random_streams_refuse_huge_buffers():
    from dpb.policies import base

    with pytest.raises(ValueError, match=r"block .*asks for"):
        base.RunRandom([np.random.default_rng(0)], block=2**31)

"""Tests of dpb.coupling: the double change of environment of the lower-bound proof.

Deterministic parts are checked against brute force on a grid (with an error bound from the
convexity of the cost) and against closed forms.  Random parts use fixed seeds and 5-sigma CLT
bounds: a two-sided normal tail beyond 5 sigma has probability ~5.7e-7, so even over the few dozen
checks below a false alarm is a ~1e-5 event, while a wrong rate would be caught at these sample sizes.
Goodness-of-fit and exact binomial tests reject at p < 1e-6 for the same reason.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats
from scipy.special import rel_entr

from dpb import coupling
from dpb.chapters import lower_bound as chapter
from dpb.divergences import d_eps, z_star

SIGMA = 5.0  # see module docstring
P_REJECT = 1e-6  # p-value threshold of the exact / goodness-of-fit tests (false alarm 1e-6 each)


def _kl_scipy(x, y):
    return rel_entr(x, y) + rel_entr(1 - x, 1 - y)


# ---------------------------------------------------------------------------------------------
# the transport cost c(mu2') = eps (mu2' - mu2) + kl(mu2', mu1)
# ---------------------------------------------------------------------------------------------
@settings(max_examples=60, deadline=None)
@given(
    a=st.floats(1e-3, 0.999),
    b=st.floats(1e-3, 0.999),
    eps=st.floats(1e-3, 50.0),
)
def test_grid_minimum_of_cost_is_d_eps_at_z_star(a, b, eps):
    mu2, mu1 = min(a, b), max(a, b)
    n = 20_000
    grid = np.linspace(mu2, mu1, n + 1)
    h = (mu1 - mu2) / n
    cost = coupling.transport_cost(grid, mu2, mu1, eps)
    # independent evaluation of the cost from scipy's rel_entr
    np.testing.assert_allclose(cost, eps * (grid - mu2) + _kl_scipy(grid, mu1), rtol=1e-9, atol=1e-15)
    i = int(np.argmin(cost))
    best = cost[i]
    target = d_eps(mu2, mu1, eps)
    zs = z_star(mu2, mu1, eps)
    # c is convex with c'' = 1/(z(1-z)), bounded on [mu2, mu1] by M = max over the endpoints.
    # The grid point nearest z* is within h/2 of it and c'(z*) = 0 (interior) or z* = mu2 is a
    # grid point, so min_grid c - d_eps <= M (h/2)^2 / 2.  Float rounding of c is ~1e-15 (values O(1)).
    curv_max = max(1 / (mu2 * (1 - mu2)), 1 / (mu1 * (1 - mu1)))
    tol_c = curv_max * (h / 2) ** 2 / 2 + 1e-12
    assert target - 1e-12 <= best <= target + tol_c
    # strong convexity (c'' >= 4): c(z) - c(z*) >= 2 (z - z*)^2, so the grid argmin is within
    # sqrt(tol_c / 2) of z*.
    assert abs(grid[i] - zs) <= math.sqrt(tol_c / 2)
    # the optimum is no worse than either pure route (Step 4; Implication (a))
    opt = coupling.optimal_intermediate(mu2, mu1, eps)
    routes = coupling.pure_routes(mu2, mu1, eps)
    assert opt.z_star == zs and opt.cost == target
    assert opt.cost <= routes.all_kl * (1 + 1e-12)
    assert opt.cost <= routes.all_tv * (1 + 1e-12)
    assert coupling.transport_cost(zs, mu2, mu1, eps) == pytest.approx(target, rel=1e-12, abs=1e-300)


def test_pure_routes_and_legs_closed_forms():
    mu2, mu1, eps = 0.2, 0.6, 0.7
    routes = coupling.pure_routes(mu2, mu1, eps)
    assert routes.all_kl == pytest.approx(_kl_scipy(0.2, 0.6), rel=1e-12)
    assert routes.all_tv == pytest.approx(0.7 * 0.4, rel=1e-12)
    # the endpoints of c are the pure routes
    ends = coupling.transport_cost([mu2, mu1], mu2, mu1, eps, return_legs=True)
    np.testing.assert_allclose(ends.total, [routes.all_kl, routes.all_tv], rtol=1e-12)
    z = np.linspace(mu2, mu1, 7)
    legs = coupling.transport_cost(z, mu2, mu1, eps, return_legs=True)
    np.testing.assert_allclose(legs.tv_leg, eps * (z - mu2), rtol=1e-12, atol=1e-17)
    np.testing.assert_allclose(legs.kl_leg, _kl_scipy(z, mu1), rtol=1e-9, atol=1e-17)
    np.testing.assert_allclose(legs.total, legs.tv_leg + legs.kl_leg, rtol=1e-15)
    np.testing.assert_allclose(coupling.tv_leg(z, mu2, eps), legs.tv_leg, rtol=1e-15)
    np.testing.assert_allclose(coupling.kl_leg(z, mu1), legs.kl_leg, rtol=1e-15)
    # strict improvement over both routes in the high-privacy regime (eps < threshold = log 6)
    opt = coupling.optimal_intermediate(mu2, mu1, eps)
    assert mu2 < opt.z_star < mu1
    assert opt.cost < min(routes)
    # the other side of the definition of d_eps: mu2 > mu1
    assert coupling.transport_cost(0.7, 0.9, 0.4, 1.0) == pytest.approx(0.2 + _kl_scipy(0.7, 0.4), rel=1e-12)


def test_cost_edge_cases():
    # mu1 = 1: kl(z, 1) = inf for z < 1, so the only finite route is all-TV, which equals d_eps
    z = np.array([0.3, 0.5, 0.999, 1.0])
    c = coupling.transport_cost(z, 0.3, 1.0, 2.0)
    assert np.all(np.isinf(c[:-1])) and c[-1] == pytest.approx(2.0 * 0.7, rel=1e-12)
    assert coupling.optimal_intermediate(0.3, 1.0, 2.0).cost == pytest.approx(1.4, rel=1e-12)
    # eps = inf: no privacy leg is affordable, c(mu2) = kl and c = inf elsewhere; no NaN
    c = coupling.transport_cost([0.2, 0.4], 0.2, 0.6, math.inf)
    assert c[0] == pytest.approx(_kl_scipy(0.2, 0.6), rel=1e-12) and np.isinf(c[1])
    assert coupling.tv_leg(0.2, 0.2, math.inf) == 0.0
    assert coupling.pure_routes(0.2, 0.2, math.inf) == (0.0, 0.0)


def test_cost_validation():
    with pytest.raises(ValueError, match="mu2_prime must lie between"):
        coupling.transport_cost(0.7, 0.2, 0.6, 1.0)
    with pytest.raises(ValueError, match="mu2_prime must lie between"):
        coupling.transport_cost([0.3, 0.1], 0.2, 0.6, 1.0)
    with pytest.raises(ValueError, match="mu1"):
        coupling.transport_cost(0.3, 0.2, 1.5, 1.0)
    with pytest.raises(ValueError, match="eps"):
        coupling.transport_cost(0.3, 0.2, 0.6, 0.0)
    with pytest.raises(ValueError, match="eps"):
        coupling.optimal_intermediate(0.2, 0.6, -1.0)
    with pytest.raises(ValueError, match="mu2"):
        coupling.pure_routes(math.nan, 0.6, 1.0)
    with pytest.raises(TypeError):
        coupling.transport_cost("a", 0.2, 0.6, 1.0)


# ---------------------------------------------------------------------------------------------
# maximal coupling
# ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("p, q", [(0.3, 0.5), (0.9, 0.1), (0.02, 0.05), (0.5, 0.5), (0.0, 1.0)])
def test_maximal_coupling_marginals_and_disagreement(p, q):
    n = 200_000
    x, y = coupling.maximal_coupling(p, q, size=n, rng=np.random.SeedSequence(2024))
    assert x.shape == y.shape == (n,)
    assert set(np.unique(x)) <= {0, 1} and set(np.unique(y)) <= {0, 1}
    for sample, mean in ((x, p), (y, q), (x != y, abs(p - q))):
        sd = math.sqrt(mean * (1 - mean) / n)
        assert abs(sample.mean() - mean) <= SIGMA * sd  # sd = 0 when mean in {0, 1}: exact
    # the construction is monotone: the smaller mean's variable never exceeds the other's
    if p <= q:
        assert np.all(x <= y)
    else:
        assert np.all(x >= y)


def test_maximal_coupling_shapes_seeding_and_validation():
    p = np.array([0.1, 0.5, 0.9])
    x, y = coupling.maximal_coupling(p, 0.5, size=(4, 3), rng=7)
    assert x.shape == (4, 3)
    x2, y2 = coupling.maximal_coupling(p, 0.5, size=(4, 3), rng=7)
    np.testing.assert_array_equal(x, x2)
    np.testing.assert_array_equal(y, y2)
    assert coupling.maximal_coupling(p, 0.5, rng=np.random.default_rng(1))[0].shape == (3,)
    with pytest.raises(ValueError, match="p must lie"):
        coupling.maximal_coupling(1.5, 0.5, size=3, rng=0)
    with pytest.raises(ValueError, match="q must lie"):
        coupling.maximal_coupling(0.5, -0.1, size=3, rng=0)
    with pytest.raises(ValueError, match="size"):
        coupling.maximal_coupling(p, 0.5, size=(4, 2), rng=0)
    with pytest.raises(ValueError, match="size"):
        coupling.maximal_coupling(0.5, 0.5, size=-1, rng=0)
    with pytest.raises(TypeError, match="rng"):
        coupling.maximal_coupling(0.5, 0.5, size=2, rng="seed")


# ---------------------------------------------------------------------------------------------
# the coupled environment gamma
# ---------------------------------------------------------------------------------------------
def _binomial_gof_pvalue(samples: np.ndarray, n: int, p: float) -> float:
    """Chi-square goodness of fit of integer samples to Binomial(n, p), bins pooled to >= 5 expected."""
    k = np.arange(n + 1)
    expected = stats.binom.pmf(k, n, p) * samples.size
    observed = np.bincount(samples, minlength=n + 1).astype(float)
    # pool the tails and sparse bins from the left into groups of expected count >= 5
    obs_bins, exp_bins, o_acc, e_acc = [], [], 0.0, 0.0
    for o, e in zip(observed, expected, strict=True):
        o_acc += o
        e_acc += e
        if e_acc >= 5:
            obs_bins.append(o_acc)
            exp_bins.append(e_acc)
            o_acc = e_acc = 0.0
    obs_bins[-1] += o_acc
    exp_bins[-1] += e_acc
    obs_bins, exp_bins = np.array(obs_bins), np.array(exp_bins)
    exp_bins *= obs_bins.sum() / exp_bins.sum()
    return float(stats.chisquare(obs_bins, exp_bins).pvalue)


@pytest.mark.parametrize("method", ["per_step", "binomial"])
def test_uniform_policy_matches_exact_distribution(method):
    # With the reward-oblivious rule "pull arm 2 w.p. p", each step independently pulls arm 2 and
    # disagrees with probability p * TV_2 + (1 - p) * TV_1, so exactly
    #   N_2 ~ Binomial(T, p)  and  d_Ham ~ Binomial(T, p TV_2 + (1 - p) TV_1).
    # Both methods must match these laws (chi-square GOF, reject at p < 1e-6).  Arm 1 also differs
    # here (0.5 vs 0.55) to exercise the general coupling.
    mu, mu_p, p, T = [0.5, 0.2], [0.55, 0.6], 0.3, 300
    h = coupling.simulate_coupled_environment(mu, mu_p, p, horizon=T, n_runs=3000, seed=11, method=method)
    np.testing.assert_allclose(h.tv, [0.05, 0.4], rtol=1e-12)
    assert _binomial_gof_pvalue(h.n2, T, p) > P_REJECT
    assert _binomial_gof_pvalue(h.d_ham, T, p * 0.4 + (1 - p) * 0.05) > P_REJECT
    np.testing.assert_array_equal(h.n1, T - h.n2)


def test_per_step_and_binomial_agree_for_a_fixed_schedule():
    # Fixed schedule: N_2 is deterministic and d_Ham ~ Binomial(N_2, TV_2) exactly (arm 1 equal).
    T = 400
    schedule = (np.arange(T) % 4 == 0).astype(int)  # N_2 = 100
    mu, mu_p = [0.7, 0.3], [0.7, 0.45]
    out = {
        m: coupling.simulate_coupled_environment(mu, mu_p, schedule, horizon=T, n_runs=3000, seed=5, method=m)
        for m in ("per_step", "binomial")
    }
    for h in out.values():
        np.testing.assert_array_equal(h.n2, 100)
        assert _binomial_gof_pvalue(h.d_ham, 100, 0.15) > P_REJECT
    # two-sample test between the methods; KS is conservative on discrete data, so the false
    # alarm rate at p < 1e-6 is at most 1e-6
    assert stats.ks_2samp(out["per_step"].d_ham, out["binomial"].d_ham).pvalue > P_REJECT


def test_streams_are_consistent_with_the_coupling():
    h = coupling.simulate_coupled_environment(
        [0.6, 0.2], [0.6, 0.5], 0.5, horizon=200, n_runs=50, seed=3, return_streams=True
    )
    assert h.arms.shape == h.r.shape == h.r_prime.shape == (50, 200)
    np.testing.assert_array_equal(h.d_ham, np.sum(h.r != h.r_prime, axis=1))
    np.testing.assert_array_equal(h.n2, np.sum(h.arms == 1, axis=1))
    # arm 1 has identical marginals, so its coupled rewards never differ (proof of Lemma
    # 'p_omega_L_c'); on arm 2, mu2 < mu2' and the monotone coupling gives r <= r'
    assert np.all(h.r[h.arms == 0] == h.r_prime[h.arms == 0])
    assert np.all(h.r[h.arms == 1] <= h.r_prime[h.arms == 1])
    # reproducible from the seed
    h2 = coupling.simulate_coupled_environment(
        [0.6, 0.2], [0.6, 0.5], 0.5, horizon=200, n_runs=50, seed=3, return_streams=True
    )
    np.testing.assert_array_equal(h.r_prime, h2.r_prime)


def test_hamming_ratio_concentrates_at_tv_and_spread_shrinks():
    # Fixed N_2 = n (schedule pulling arm 2 every step): d_Ham / n has mean TV and
    # sd sqrt(TV (1 - TV) / n).  Mean: 5-sigma CLT bound over R runs.  Spread: the sample variance
    # s^2 of R runs has relative sd sqrt((2 + kurt_excess) / R) with kurt_excess = (1 - 6 TV(1-TV)) /
    # (n TV (1-TV)) for a Binomial; we allow 5 of those.
    tv, runs = 0.3, 4000
    sds = []
    for n in (25, 100, 400, 1600):
        method = "per_step" if n <= 100 else "binomial"
        h = coupling.simulate_coupled_environment(
            [0.8, 0.2], [0.8, 0.5], np.ones(n), horizon=n, n_runs=runs, seed=n, method=method
        )
        ratio = h.hamming_ratio()
        var = tv * (1 - tv) / n
        assert abs(ratio.mean() - tv) <= SIGMA * math.sqrt(var / runs)
        kurt = (1 - 6 * tv * (1 - tv)) / (n * tv * (1 - tv))
        assert abs(ratio.var(ddof=1) / var - 1) <= SIGMA * math.sqrt((2 + kurt) / runs)
        sds.append(ratio.std(ddof=1))
    assert all(a > b for a, b in zip(sds[:-1], sds[1:], strict=True))


def test_hamming_mean_under_random_and_adaptive_policies():
    # E[d_Ham - TV N_2] = 0 for ANY policy that chooses a_t from the observed past: the terms
    # 1{a_t = 2} (Z_t - TV) are martingale differences, each of conditional variance TV (1 - TV) on
    # arm-2 pulls, so Var(d_Ham - TV N_2) = TV (1 - TV) E[N_2]; 5-sigma CLT bound on the mean.
    tv, T, runs = 0.3, 400, 2000

    def follow_the_leader(t, counts, sums, rng):
        # pull each arm once, then the arm with the higher observed mean (ties: random)
        if t <= 2:
            return np.full(counts.shape[0], t == 2)
        means = sums / counts
        tie = means[:, 0] == means[:, 1]
        return np.where(tie, rng.random(counts.shape[0]) < 0.5, means[:, 1] > means[:, 0])

    for policy in (0.5, follow_the_leader):
        h = coupling.simulate_coupled_environment(
            [0.55, 0.45], [0.55, 0.75], policy, horizon=T, n_runs=runs, seed=99
        )
        dev = h.d_ham - tv * h.n2
        assert abs(dev.mean()) <= SIGMA * math.sqrt(tv * (1 - tv) * h.n2.mean() / runs)
        assert np.all(h.n2 >= 1)
    # Note: the per-run ratio d_Ham / N_2 is NOT unbiased under the adaptive rule (follow-the-leader
    # drops arm 2 after observing zeros, the very rewards that can disagree, so runs with small N_2
    # have inflated ratios); the pooled identity above is what holds for every policy.


def test_event_L_probability_tends_to_one():
    # L = {d_Ham <= (1 + alpha) n_2 TV} with a fixed schedule of N_2 = n_2 pulls: exactly
    # P(L) = P(Binomial(n_2, TV) <= (1 + alpha) n_2 TV).  alpha = TV = 0.25 make the threshold an
    # exact float.  Each frequency must pass an exact binomial test against the exact P(L)
    # (reject at p < 1e-6); the exact P(L) increases to 1 (Step 3 of the lower-bound proof).
    tv, alpha, runs = 0.25, 0.25, 4000
    exact, freq = [], []
    for n2 in (16, 64, 256, 1024):
        h = coupling.simulate_coupled_environment(
            [0.5, 0.25], [0.5, 0.5], np.ones(n2), horizon=n2, n_runs=runs, seed=n2, method="binomial"
        )
        p_l = stats.binom.cdf(math.floor((1 + alpha) * n2 * tv), n2, tv)
        f = h.event_L_frequency(alpha)
        assert f == coupling.event_L_frequency(h.d_ham, n2, tv, alpha)  # N_2 = n_2 here
        assert stats.binomtest(round(f * runs), runs, p_l).pvalue > P_REJECT
        exact.append(p_l)
        freq.append(f)
    assert all(a < b for a, b in zip(exact[:-1], exact[1:], strict=True)) and exact[-1] > 1 - 1e-4
    assert freq[-1] > freq[0]


def test_event_L_and_ratio_helpers():
    np.testing.assert_array_equal(coupling.event_L([0, 3, 4], 10, 0.3, 0.1), [True, True, False])
    r = coupling.hamming_ratio([0, 3, 2], [0, 10, 4])
    assert np.isnan(r[0]) and r[1] == pytest.approx(0.3) and r[2] == 0.5
    with pytest.raises(ValueError, match="alpha"):
        coupling.event_L([1], 10, 0.3, 0.0)
    with pytest.raises(ValueError, match="tv"):
        coupling.event_L([1], 10, 1.3, 0.1)
    with pytest.raises(ValueError, match="d_ham"):
        coupling.hamming_ratio([-1], [3])


def test_simulation_validation():
    sim = coupling.simulate_coupled_environment
    ok = dict(horizon=10, n_runs=5, seed=0)
    with pytest.raises(ValueError, match="mu must be a pair"):
        sim([0.5, 0.2, 0.1], [0.5, 0.3, 0.1], **ok)
    with pytest.raises(ValueError, match="mu_prime"):
        sim([0.5, 0.2], [0.5, 1.3], **ok)
    with pytest.raises(ValueError, match="horizon"):
        sim([0.5, 0.2], [0.5, 0.3], horizon=0, n_runs=5, seed=0)
    with pytest.raises(ValueError, match="n_runs"):
        sim([0.5, 0.2], [0.5, 0.3], horizon=5, n_runs=0, seed=0)
    with pytest.raises(ValueError, match="method"):
        sim([0.5, 0.2], [0.5, 0.3], method="fast", **ok)
    with pytest.raises(ValueError, match="policy_pulls_arm2"):
        sim([0.5, 0.2], [0.5, 0.3], 1.5, **ok)
    with pytest.raises(ValueError, match="policy_pulls_arm2"):
        sim([0.5, 0.2], [0.5, 0.3], np.ones(9), **ok)
    with pytest.raises(ValueError, match="policy_pulls_arm2"):
        sim([0.5, 0.2], [0.5, 0.3], np.full(10, 0.5), **ok)
    with pytest.raises(ValueError, match="reward-oblivious"):
        sim([0.5, 0.2], [0.5, 0.3], lambda t, c, s, g: np.ones(5, bool), method="binomial", **ok)
    with pytest.raises(ValueError, match="shape"):
        sim([0.5, 0.2], [0.5, 0.3], lambda t, c, s, g: np.ones(4, bool), **ok)
    with pytest.raises(ValueError, match="return_streams"):
        sim([0.5, 0.2], [0.5, 0.3], method="binomial", return_streams=True, **ok)
    with pytest.raises(TypeError, match="seed"):
        sim([0.5, 0.2], [0.5, 0.3], horizon=5, n_runs=5, seed="x")


# ----------------------------------------------------------------------------------------------
# the computations behind the coupled-simulation figure
# ----------------------------------------------------------------------------------------------
def test_pulling_rules():
    assert chapter.pulling_rule("uniform") == 0.5
    assert chapter.pulling_rule("follow the leader") is chapter.follow_the_leader
    rule = chapter.pulling_rule("random rate")
    rng = np.random.default_rng(0)
    counts = np.zeros((2000, 2), dtype=int)
    first = rule(1, counts, counts, rng)
    # each run keeps its own rate: the per-run frequency over many steps is spread over [0, 1]
    freq = np.mean([rule(t, counts, counts, rng) for t in range(2, 202)], axis=0)
    assert first.shape == (2000,) and first.dtype == bool
    assert freq.min() < 0.1 and freq.max() > 0.9 and abs(freq.mean() - 0.5) < 0.03
    with pytest.raises(ValueError, match="unknown policy"):
        chapter.pulling_rule("greedy")


def test_follow_the_leader_rule():
    rng = np.random.default_rng(1)
    counts = np.array([[1, 1], [1, 1], [3, 2]])
    assert not chapter.follow_the_leader(1, counts, counts, rng).any()
    assert chapter.follow_the_leader(2, counts, counts, rng).all()
    sums = np.array([[1, 0], [0, 1], [2, 2]])  # means (1, 0), (0, 1), (2/3, 1)
    np.testing.assert_array_equal(chapter.follow_the_leader(3, counts, sums, rng), [False, True, True])
    ties = chapter.follow_the_leader(3, np.ones((4000, 2)), np.zeros((4000, 2)), rng)
    assert 0.45 < ties.mean() < 0.55


def test_coupled_runs_uniform_matches_the_coupling():
    h = chapter.coupled_runs(0.7, 0.3, 0.5, policy="uniform", horizon=400, n_runs=500, seed=3)
    assert np.allclose(h.tv, [0.0, 0.2])
    assert np.all(h.d_ham <= h.n2)
    # E[d_Ham] = TV E[N_2]: 5-sigma bound (Var(d_Ham - TV N_2) = TV (1 - TV) E[N_2])
    dev = h.d_ham - 0.2 * h.n2
    assert abs(dev.mean()) <= 5 * np.sqrt(0.2 * 0.8 * h.n2.mean() / 500)
    again = chapter.coupled_runs(0.7, 0.3, 0.5, policy="uniform", horizon=400, n_runs=500, seed=3)
    np.testing.assert_array_equal(h.d_ham, again.d_ham)


def test_follow_the_leader_ratio_is_biased_but_pooled_ratio_is_not():
    h = chapter.coupled_runs(0.7, 0.3, 0.5, policy="follow the leader", horizon=300, n_runs=3000, seed=1)
    ratio = h.hamming_ratio()
    one = h.n2 == 1  # runs that gave up arm 2 after one pull: mostly after a 0, where Z = 1 w.p. 2/7
    assert one.sum() > 1000
    se = np.std(ratio[one]) / np.sqrt(one.sum())
    assert ratio[one].mean() > 0.2 + 4 * se
    dev = h.d_ham - 0.2 * h.n2
    assert abs(dev.mean()) <= 5 * np.sqrt(0.2 * 0.8 * h.n2.mean() / 3000)


def test_binned_means():
    x = np.arange(100, dtype=float)
    y = np.where(x < 50, 1.0, 3.0)
    c, m, n = chapter.binned_means(x, y, n_bins=2)
    np.testing.assert_allclose(m, [1.0, 3.0])
    assert n.sum() == 100 and c[0] < c[1]
    c, m, n = chapter.binned_means(np.ones(5), np.array([1.0, 2.0, 3.0, np.nan, 4.0]))
    assert np.allclose(m, [2.5]) and n.tolist() == [4]
    assert chapter.binned_means(np.ones(2), np.full(2, np.nan))[0].size == 0
    with pytest.raises(ValueError):
        chapter.binned_means(np.ones(3), np.ones(4))
    with pytest.raises(ValueError):
        chapter.binned_means(np.ones(3), np.ones(3), n_bins=0)

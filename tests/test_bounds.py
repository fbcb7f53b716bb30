"""Tests of dpb.bounds: the asymptotic regret constants of the paper.

Oracles: the paper's closed forms (the lower bound, the 2022 bound, the regime threshold of Implication
(b)), an independent scipy minimisation of the definition of d_eps, and a second-order expansion of d_eps as
eps -> 0 derived in the comments.  Floating-point tolerances are stated where used.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from scipy.optimize import minimize_scalar
from scipy.special import rel_entr

from dpb import bounds
from dpb.divergences import d_eps, kl

# ---------------------------------------------------------------------------------------------
# strategies
# ---------------------------------------------------------------------------------------------
# Subnormal means (< 2.2e-308) are excluded: there dpb.divergences.z_star underflows to 0 and
# d_eps(0, y) returns kl(0, y) > eps * y, a precision limit of that module, not of the bounds.
means = st.lists(st.floats(0.0, 1.0, allow_nan=False, allow_subnormal=False), min_size=2, max_size=6)
interior_means = st.lists(st.floats(0.01, 0.99, allow_nan=False), min_size=2, max_size=6)
budgets = st.one_of(st.floats(1e-3, 1e3, allow_nan=False), st.just(math.inf))

# Relative tolerance for identities between two floating-point evaluations of the same number
# (sums of at most 6 terms, each a handful of ulps): 1e-12 leaves three orders of margin.
RTOL = 1e-12


def _kl_scipy(x, y):
    """Independent Bernoulli kl from scipy's rel_entr (exact at 0 and 1)."""
    return rel_entr(x, y) + rel_entr(1 - x, 1 - y)


# ---------------------------------------------------------------------------------------------
# ordering of the constants (Implication (a))
# ---------------------------------------------------------------------------------------------
@settings(max_examples=200, deadline=None)
@given(mu=means, eps=budgets)
def test_constants_are_ordered_and_nan_free(mu, eps):
    # d_eps <= min{kl, eps Delta} <= min{kl, 6 eps Delta} <= kl  (take z = mu_a or z = mu* in
    # the definition of d_eps), hence Lai-Robbins <= Azize-Basu 2022 <= new lower bound, and
    # eps * new >= #{sub-optimal arms}.
    new = bounds.lower_bound_constant(mu, eps)
    old = bounds.azize_basu_2022_constant(mu, eps)
    lr = bounds.lai_robbins_constant(mu)
    for value in (new, old, lr):
        assert not math.isnan(value) and value >= 0
    # d_eps evaluates eps (z* - mu_a) with z* rounded to an absolute ulp (up to 2.2e-16 near 1),
    # a relative error up to ~2.2e-16 / Delta_a on top of the RTOL of the sums.
    gap = np.max(mu) - np.asarray(mu)
    rtol = RTOL + (1e-15 / gap[gap > 0].min() if np.any(gap > 0) else 0.0)
    assert new >= old * (1 - rtol)
    assert old >= lr * (1 - RTOL)
    n_sub = int(np.sum(bounds.suboptimal_arms(mu)))
    if np.isfinite(eps) and np.isfinite(new):
        assert eps * new >= n_sub * (1 - rtol)


@settings(max_examples=100, deadline=None)
@given(mu=interior_means, frac=st.floats(1e-3, 0.5))
def test_new_bound_is_strictly_larger_in_the_high_privacy_regime(mu, frac):
    # If some sub-optimal arm has eps < eps*_a, its minimiser z* is interior: d_eps < kl, and
    # d_eps <= eps Delta < 6 eps Delta, so its term is strictly larger than in the 2022 bound.
    # eps = frac * eps*_a with frac <= 1/2 keeps the gap well above rounding (checked at 1e-9).
    mu = np.asarray(mu)
    thr = bounds.regime_thresholds(mu)
    gap = mu.max() - mu
    assume(np.any(gap > 1e-3))
    eps = frac * thr[gap > 1e-3].max()
    new = bounds.per_arm_constants(mu, eps)
    old = bounds.per_arm_constants(mu, eps, bound="azize_basu_2022")
    high = (gap > 1e-3) & (eps <= 0.5 * thr)
    assert np.all(new[high] > old[high] * (1 + 1e-9))


@settings(max_examples=150, deadline=None)
@given(mu=means, stretch=st.floats(0.0, 10.0))
def test_all_constants_equal_lai_robbins_in_the_low_privacy_regime(mu, stretch):
    # eps >= max_a eps*_a puts every arm in the low-privacy regime: d_eps = kl, and since then
    # kl = d_eps <= eps Delta, also min{kl, 6 eps Delta} = kl.  So the paper's improvement over
    # the 2022 bound is strict only in the high-privacy regime.
    lr = bounds.lai_robbins_constant(mu)
    assert bounds.lower_bound_constant(mu, math.inf) == pytest.approx(lr, rel=RTOL, abs=0)
    assert bounds.azize_basu_2022_constant(mu, math.inf) == pytest.approx(lr, rel=RTOL, abs=0)
    top = float(np.max(bounds.regime_thresholds(mu)))
    assume(np.isfinite(top) and top > 0)
    eps = top * (1 + stretch)
    assert bounds.lower_bound_constant(mu, eps) == pytest.approx(lr, rel=1e-10, abs=0)
    assert bounds.azize_basu_2022_constant(mu, eps) == pytest.approx(lr, rel=1e-10, abs=0)


# ---------------------------------------------------------------------------------------------
# against an independent minimisation of the definition of d_eps
# ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "mu, eps",
    [
        ([0.9, 0.5, 0.2], 0.3),
        ([0.9, 0.5, 0.2], 2.0),
        ([0.3, 0.1, 0.05, 0.3], 0.05),
        ([0.55, 0.45], 0.01),
        ([0.8, 0.02, 0.79], 1.5),
    ],
)
def test_lower_bound_matches_brute_force_minimisation(mu, eps):
    # Minimise f(z) = eps (z - mu_a) + kl(z, mu*) on [mu_a, mu*] with scipy's bounded Brent at
    # xatol = 1e-12 and keep the best of the optimum and the two endpoints.  f is convex with
    # f'' = 1/(z(1-z)) <= 1/(0.02 * 0.98) ~ 51 here, so a z-error of 1e-8 (Brent's practical
    # accuracy) costs at most 51 * 1e-16 / 2 in f: rel 1e-9 is ample.
    mu = np.asarray(mu)
    star = mu.max()
    expected = 0.0
    for m in mu[mu < star]:
        f = lambda z, m=m: eps * (z - m) + _kl_scipy(z, star)  # noqa: E731
        res = minimize_scalar(f, bounds=(m, star), method="bounded", options={"xatol": 1e-12})
        expected += (star - m) / min(res.fun, f(m), f(star))
    assert bounds.lower_bound_constant(mu, eps) == pytest.approx(expected, rel=1e-9)


def test_lai_robbins_and_2022_against_closed_forms():
    mu = np.array([0.7, 0.4, 0.1, 0.7])
    star = 0.7
    sub = mu[mu < star]
    gap = star - sub
    assert bounds.lai_robbins_constant(mu) == pytest.approx(np.sum(gap / _kl_scipy(sub, star)), rel=RTOL)
    for eps in (0.01, 0.2, 5.0):
        expected = np.sum(gap / np.minimum(_kl_scipy(sub, star), 6 * eps * gap))
        assert bounds.azize_basu_2022_constant(mu, eps) == pytest.approx(expected, rel=RTOL)


# ---------------------------------------------------------------------------------------------
# the high-privacy limit eps -> 0
# ---------------------------------------------------------------------------------------------
@settings(max_examples=60, deadline=None)
@given(mu=interior_means)
def test_small_eps_expansion(mu):
    # In the high-privacy regime (x = mu_a <= z*) the divergences module's identity gives
    #   d_eps(x, y) = -eps x - log(1 - y (1 - e^{-eps}))
    #              = eps D - eps^2 v / 2 + eps^3 v (1 - 2y) / 6 + O(eps^4),  D = y - x, v = y (1 - y),
    # so eps * D / d_eps = 1 + eps v/(2D) + eps^2 (v^2/(4 D^2) - v (1 - 2y)/(6 D)) + O(eps^3) and
    #   (eps * C - n_sub) / eps -> sum_a v / (2 D_a),
    # with an error at most ~ eps * sum_a (v^2/(4 D_a^2) + v/(6 D_a)); we allow twice that.  Gaps
    # >= 0.05 keep eps = 1e-5 far below every threshold; rounding in eps*C - n_sub is ~1e-15 * n_sub,
    # i.e. ~1e-9 after dividing by eps, covered by the 1e-7 absolute slack.
    mu = np.asarray(mu)
    y = mu.max()
    gap = y - mu
    assume(np.all((gap == 0) | (gap >= 0.05)))
    d = gap[gap > 0]
    assume(d.size > 0)
    v = y * (1 - y)
    eps = 1e-5
    first = np.sum(v / (2 * d))
    second = np.sum(v**2 / (4 * d**2) + v / (6 * d))
    got = (eps * bounds.lower_bound_constant(mu, eps) - d.size) / eps
    assert abs(got - first) <= 2 * eps * second + 1e-7


def test_eps_times_constant_tends_to_number_of_suboptimal_arms():
    mu = [0.6, 0.5, 0.5, 0.1, 0.6]
    eps = np.logspace(-1, -7, 7)
    scaled = eps * bounds.lower_bound_constant(mu, eps)
    err = scaled - 3
    assert np.all(err > 0)  # d_eps < eps Delta strictly when mu* < 1
    assert np.all(np.diff(err) < 0)  # and the excess shrinks with eps ...
    assert err[-1] < 1e-5  # ... linearly (first-order coefficient ~1.1 here)


def test_mu_star_one_gives_exactly_one_over_eps_per_arm():
    # d_eps(mu_a, 1) = eps (1 - mu_a) = eps Delta_a for every finite eps: C = n_sub / eps exactly,
    # while kl(mu_a, 1) = inf makes the Lai-Robbins term (and the eps = inf constant) 0.
    mu = [1.0, 0.3, 0.0, 0.999]
    eps = np.array([1e-3, 0.5, 7.0, 300.0])
    np.testing.assert_allclose(bounds.lower_bound_constant(mu, eps), 3 / eps, rtol=RTOL)
    np.testing.assert_allclose(bounds.azize_basu_2022_constant(mu, eps), 3 / (6 * eps), rtol=RTOL)
    assert bounds.lai_robbins_constant(mu) == 0.0
    assert bounds.lower_bound_constant(mu, math.inf) == 0.0
    np.testing.assert_array_equal(bounds.regime_thresholds(mu), [0.0, np.inf, np.inf, np.inf])


# ---------------------------------------------------------------------------------------------
# regime thresholds
# ---------------------------------------------------------------------------------------------
@settings(max_examples=100, deadline=None)
@given(mu=interior_means)
def test_regime_threshold_is_where_d_eps_switches_formula(mu):
    mu = np.asarray(mu)
    star = mu.max()
    thr = bounds.regime_thresholds(mu)
    sub = mu < star
    # the paper's formula, Implication (b).  Both evaluations subtract logits of size <= log(99) ~ 4.6,
    # so nearly equal means cancel to an absolute error of a few ulps of 4.6 (~1e-15): atol 1e-14.
    expected = np.log(star / mu[sub]) + np.log((1 - mu[sub]) / (1 - star))
    np.testing.assert_allclose(thr[sub], expected, rtol=RTOL, atol=1e-14)
    np.testing.assert_array_equal(thr[~sub], 0.0)
    assume(np.any(sub & (thr > 1e-3)))
    for a in np.flatnonzero(sub & (thr > 1e-3)):
        k = kl(mu[a], star)
        # just above: d_eps = kl (the minimiser is z* = mu_a); 1e-12 relative covers rounding of
        # the two evaluations of the same kl.
        assert d_eps(mu[a], star, thr[a] * (1 + 1e-6)) == pytest.approx(k, rel=RTOL)
        # just below: d_eps < kl strictly (interior minimiser).  At eps = thr (1 - 1e-3) the slope of
        # f(z) = eps (z - mu_a) + kl(z, mu*) at mu_a is -1e-3 thr, so the gain kl - d_eps is about
        # (1e-3 thr)^2 / (2 f'') >= 5e-9 thr^2 (f'' = 1/(z(1-z)) <= 101 on [0.01, 0.99]), while the
        # rounding of kl <= thr * Delta <= thr is ~1e-16 thr: a ratio >= 5e4 for thr > 1e-3.
        assert d_eps(mu[a], star, thr[a] * (1 - 1e-3)) < k


def test_regime_thresholds_edge_cases():
    np.testing.assert_array_equal(bounds.regime_thresholds([0.0, 0.5, 0.5]), [np.inf, 0.0, 0.0])
    np.testing.assert_array_equal(bounds.regime_thresholds([0.3, 0.3]), [0.0, 0.0])
    np.testing.assert_array_equal(bounds.regime_thresholds([0.0, 0.0]), [0.0, 0.0])
    assert bounds.regime_thresholds([0.25, 0.5]) == pytest.approx([math.log(3), 0.0], rel=RTOL)


# ---------------------------------------------------------------------------------------------
# upper bound, per-arm terms
# ---------------------------------------------------------------------------------------------
@settings(max_examples=100, deadline=None)
@given(mu=means, eps=budgets, alpha=st.floats(1.0 + 1e-9, 10.0))
def test_upper_is_alpha_times_lower(mu, eps, alpha):
    up = bounds.upper_bound_constant(mu, eps, alpha)
    assert up == pytest.approx(alpha * bounds.lower_bound_constant(mu, eps), rel=RTOL, abs=0)


def test_upper_bound_vectorised_and_strict():
    mu = [0.8, 0.5, 0.3]
    eps = np.array([[0.1], [1.0]])
    alpha = np.array([1.1, 2.0, 4.0])
    up = bounds.upper_bound_constant(mu, eps, alpha)
    assert up.shape == (2, 3)
    np.testing.assert_allclose(up, alpha * bounds.lower_bound_constant(mu, eps), rtol=RTOL)
    # mu* = 1 is outside the regret upper bound (chapter 6): formula by default, ValueError when strict
    # d_eps(0.5, 1) = eps (1 - 0.5): alpha * Delta / d_eps = 2 * 0.5 / 0.5
    assert bounds.upper_bound_constant([1.0, 0.5], 1.0, 2.0) == pytest.approx(2.0 * 0.5 / 0.5, rel=RTOL)
    with pytest.raises(ValueError, match="mu\\* = 1"):
        bounds.upper_bound_constant([1.0, 0.5], 1.0, 2.0, strict=True)
    assert bounds.upper_bound_constant(mu, 1.0, 2.0, strict=True) > 0
    for bad in (1.0, 0.5, math.inf, math.nan):
        with pytest.raises(ValueError, match="alpha"):
            bounds.upper_bound_constant(mu, 1.0, bad)


def test_per_arm_terms():
    mu = np.array([0.2, 0.9, 0.6, 0.9])
    eps = np.array([0.05, 1.0, math.inf])
    star = 0.9
    gap = star - mu
    terms = bounds.per_arm_constants(mu, eps)
    assert terms.shape == (3, 4)
    np.testing.assert_allclose(terms.sum(axis=-1), bounds.lower_bound_constant(mu, eps), rtol=RTOL)
    pulls = bounds.per_arm_constants(mu, eps, weighted=False)
    sub = gap > 0
    expected_pulls = 1.0 / d_eps(mu[sub], star, eps[:, None])
    np.testing.assert_allclose(pulls[:, sub], expected_pulls, rtol=RTOL)
    np.testing.assert_array_equal(pulls[:, ~sub], 0.0)  # optimal arms (a tie here) are masked to 0
    np.testing.assert_allclose(pulls * gap, terms, rtol=RTOL)
    up = bounds.per_arm_constants(mu, eps, bound="upper", alpha=1.5, weighted=False)
    np.testing.assert_allclose(up, 1.5 * pulls, rtol=RTOL)
    lr = bounds.per_arm_constants(mu, bound="lai_robbins", weighted=False)
    np.testing.assert_allclose(lr[sub], 1.0 / _kl_scipy(mu[sub], star), rtol=RTOL)
    np.testing.assert_array_equal(bounds.suboptimal_arms(mu), sub)
    with pytest.raises(ValueError, match="alpha"):
        bounds.per_arm_constants(mu, 1.0, bound="upper")
    with pytest.raises(ValueError, match="alpha"):
        bounds.per_arm_constants(mu, 1.0, alpha=2.0)
    with pytest.raises(ValueError, match="bound"):
        bounds.per_arm_constants(mu, 1.0, bound="nonsense")


# ---------------------------------------------------------------------------------------------
# edge cases, shapes, validation
# ---------------------------------------------------------------------------------------------
def test_ties_and_equal_arms():
    # extra optimal arms contribute 0; all arms equal -> every constant is 0
    for eps in (0.1, 2.0, math.inf):
        assert bounds.lower_bound_constant([0.5, 0.5, 0.3], eps) == pytest.approx(
            bounds.lower_bound_constant([0.5, 0.3], eps), rel=RTOL
        )
        for mu in ([0.4, 0.4, 0.4], [0.0, 0.0], [1.0, 1.0]):
            assert bounds.lower_bound_constant(mu, eps) == 0.0
            assert bounds.azize_basu_2022_constant(mu, eps) == 0.0
            assert bounds.upper_bound_constant(mu, eps, 2.0) == 0.0
    assert bounds.lai_robbins_constant([0.4, 0.4]) == 0.0


def test_zero_mean_arm():
    # mu_a = 0: kl(0, mu*) = -log(1 - mu*) finite, threshold inf (never in the low-privacy regime)
    mu = [0.0, 0.6]
    assert bounds.lai_robbins_constant(mu) == pytest.approx(0.6 / -math.log(0.4), rel=RTOL)
    # (the gain over kl is about z* = expit(logit(mu*) - eps) ~ 1.5 e^-eps: visible up to eps = 10,
    # below float resolution at eps ~ 40 although still positive mathematically)
    for eps in (0.01, 1.0, 10.0):
        c = bounds.lower_bound_constant(mu, eps)
        assert np.isfinite(c) and c > bounds.lai_robbins_constant(mu)


def test_vectorised_shapes_match_scalar_calls():
    mu = [0.8, 0.4, 0.75]
    eps = np.array([[0.01, 0.1, 1.0, 10.0], [0.5, math.inf, 3.0, 0.2]])
    for fn in (bounds.lower_bound_constant, bounds.azize_basu_2022_constant):
        out = fn(mu, eps)
        assert out.shape == eps.shape
        np.testing.assert_allclose(out, [[fn(mu, e) for e in row] for row in eps], rtol=RTOL)
    assert isinstance(bounds.lower_bound_constant(mu, 0.3), float)
    # a stack of instances on the leading axes, broadcast with eps
    stack = np.array([[0.8, 0.4, 0.75], [0.2, 0.9, 0.5]])
    out = bounds.lower_bound_constant(stack, np.array([[0.1], [1.0], [math.inf]]))
    assert out.shape == (3, 2)
    assert out[1, 1] == pytest.approx(bounds.lower_bound_constant(stack[1], 1.0), rel=RTOL)
    assert bounds.lai_robbins_constant(stack).shape == (2,)
    assert bounds.regime_thresholds(stack).shape == (2, 3)


@pytest.mark.parametrize("fn", [bounds.lower_bound_constant, bounds.azize_basu_2022_constant])
def test_validation(fn):
    with pytest.raises(ValueError, match="at least 2 arms"):
        fn([0.5], 1.0)
    with pytest.raises(ValueError, match="at least 2 arms"):
        fn(0.5, 1.0)
    with pytest.raises(ValueError, match="at least 2 arms"):
        fn([], 1.0)
    for bad_mu in ([0.5, 1.2], [-0.1, 0.5], [0.5, math.nan]):
        with pytest.raises(ValueError, match="mu"):
            fn(bad_mu, 1.0)
    for bad_eps in (0.0, -1.0, math.nan, [1.0, -2.0]):
        with pytest.raises(ValueError, match="eps"):
            fn([0.5, 0.2], bad_eps)
    with pytest.raises(TypeError, match="mu"):
        fn("abc", 1.0)
    with pytest.raises(TypeError, match="eps"):
        fn([0.5, 0.2], None)
    with pytest.raises(ValueError, match="at least 2 arms"):
        bounds.lai_robbins_constant([0.3])
    with pytest.raises(ValueError, match="at least 2 arms"):
        bounds.regime_thresholds([0.3])

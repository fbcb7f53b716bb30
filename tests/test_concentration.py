"""Tests for dpb.concentration: exact laws of the noise and of the private sum, the paper's bounds.

References used (never the module's own output):
- scipy.stats.binom / scipy.stats.laplace (m = 0 and m = 1 exact tails);
- the density of the sum of two Laplace(1/eps) variables derived by hand in ``test_m2_closed_form``;
- numerical convolution / integration with scipy.integrate.quad;
- Monte Carlo with exact Clopper-Pearson intervals (own sampler, fixed seeds);
- elementary probability inequalities (for the exponent sandwich).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import integrate, special, stats

from dpb import concentration as conc
from dpb.chapters import concentration as chapter
from dpb.divergences import d_eps, kl, z_star

# ----------------------------------------------------------------------------------------------
# helpers
# ----------------------------------------------------------------------------------------------
TINY = 1e-290  # below this the linear-space scipy references lose relative accuracy / underflow


def assert_close_rel_or_abs(ours, ref, rtol=1e-10, atol=1e-12):
    """Relative agreement where the reference is tiny (< 1e-3), absolute-or-relative elsewhere."""
    ours = np.asarray(ours, dtype=float)
    ref = np.asarray(ref, dtype=float)
    keep = ref > TINY
    small = keep & (ref < 1e-3)
    np.testing.assert_allclose(ours[small], ref[small], rtol=rtol, atol=0)
    big = keep & ~small
    np.testing.assert_allclose(ours[big], ref[big], rtol=rtol, atol=atol)


def laplace_conv_sf(s, n, mu, eps):
    """Reference P[Bin(n, mu) + Lap(1/eps) >= s] = sum_k pmf(k) laplace.sf(s - k) (scipy only)."""
    k = np.arange(n + 1)
    pmf = stats.binom.pmf(k, n, mu)
    return (pmf[None, :] * stats.laplace.sf(np.asarray(s)[:, None] - k[None, :], scale=1 / eps)).sum(1)


def laplace_conv_cdf(s, n, mu, eps):
    k = np.arange(n + 1)
    pmf = stats.binom.pmf(k, n, mu)
    return (pmf[None, :] * stats.laplace.cdf(np.asarray(s)[:, None] - k[None, :], scale=1 / eps)).sum(1)


# ----------------------------------------------------------------------------------------------
# exact law of the noise Z_m
# ----------------------------------------------------------------------------------------------
@pytest.mark.parametrize("eps", [0.05, 1.0, 7.0])
def test_m1_is_scipy_laplace(eps):
    z = np.concatenate([-np.logspace(-3, 2, 20) / eps, [0.0], np.logspace(-3, 2.8, 30) / eps])
    np.testing.assert_allclose(
        conc.laplace_sum_pdf(z, 1, eps), stats.laplace.pdf(z, scale=1 / eps), rtol=1e-12
    )
    np.testing.assert_allclose(conc.laplace_sum_sf(z, 1, eps), stats.laplace.sf(z, scale=1 / eps), rtol=1e-12)
    # deep tail (e^{-600}) in log space: log P[Lap >= z] = log(1/2) - eps z for z >= 0
    zz = np.array([10.0, 100.0, 600.0]) / eps
    np.testing.assert_allclose(conc.laplace_sum_logsf(zz, 1, eps), np.log(0.5) - eps * zz, rtol=1e-13)


@pytest.mark.parametrize("eps", [0.3, 2.0])
def test_m2_closed_form(eps):
    # By hand: f_2(z) = int (eps/2)^2 e^{-eps|y| - eps|z-y|} dy.  For z >= 0 split y < 0, 0 <= y <= z, y > z:
    # (eps^2/4)[e^{-eps z}/(2 eps) + z e^{-eps z} + e^{-eps z}/(2 eps)] = (eps/4)(1 + eps z) e^{-eps z},
    # and P[Z_2 >= z] = int_z^inf f_2 = (1/4)(2 + eps z) e^{-eps z}  (z >= 0; = 1/2 at z = 0).
    z = np.linspace(0, 40 / eps, 57)
    np.testing.assert_allclose(
        conc.laplace_sum_pdf(z, 2, eps), eps / 4 * (1 + eps * z) * np.exp(-eps * z), rtol=1e-12
    )
    np.testing.assert_allclose(conc.laplace_sum_pdf(-z, 2, eps), conc.laplace_sum_pdf(z, 2, eps), rtol=1e-14)
    np.testing.assert_allclose(
        conc.laplace_sum_sf(z, 2, eps), (2 + eps * z) * np.exp(-eps * z) / 4, rtol=1e-12
    )
    np.testing.assert_allclose(
        conc.laplace_sum_sf(-z, 2, eps), 1 - (2 + eps * z) * np.exp(-eps * z) / 4, rtol=1e-12, atol=1e-15
    )


@pytest.mark.parametrize("m", [3, 6])
def test_density_is_convolution(m):
    # f_m = f_{m-1} * Lap(1/eps): numerical convolution by quad (the m = 1, 2 cases are checked
    # against scipy / the hand formula above, so this closes the induction on a few points).
    eps = 0.8
    lap = stats.laplace(scale=1 / eps)
    for z in [-3.0, 0.0, 0.7, 5.0, 20.0]:
        val, err = integrate.quad(
            lambda y, z=z: conc.laplace_sum_pdf(z - y, m - 1, eps) * lap.pdf(y),
            -np.inf,
            np.inf,
            points=None,
            epsabs=0,
            epsrel=1e-12,
            limit=200,
        )
        assert conc.laplace_sum_pdf(z, m, eps) == pytest.approx(val, rel=1e-9)


@pytest.mark.parametrize("m", [1, 3, 10, 100])
def test_pdf_integrates_to_one_and_sf_is_its_integral(m):
    eps = 1.3
    half, _ = integrate.quad(
        lambda z: conc.laplace_sum_pdf(z, m, eps), 0, np.inf, epsabs=0, epsrel=1e-12, limit=400
    )
    assert 2 * half == pytest.approx(1.0, abs=1e-9)  # symmetric density, total mass 1
    for z in [0.5, 4.0, 30.0]:
        tail, _ = integrate.quad(
            lambda t: conc.laplace_sum_pdf(t, m, eps), z, np.inf, epsabs=0, epsrel=1e-12, limit=400
        )
        assert conc.laplace_sum_sf(z, m, eps) == pytest.approx(tail, rel=1e-8)


@pytest.mark.parametrize("m,z", [(20, 150.0), (50, 400.0), (300, 900.0)])
def test_laplace_sum_deep_tail_vs_gamma_difference_integral(m, z):
    # Independent route: Z_m = G1 - G2, G_i ~ Gamma(m, rate eps) i.i.d., so
    # P[Z_m >= z] = int_0^inf g_m(y) Q(m, eps (z + y)) dy  (Q = regularised upper gamma).
    # Done in log space with a shift so the integrand is O(1) at its peak.
    eps = 1.0

    def log_integrand(y):
        with np.errstate(divide="ignore"):  # Q underflows to 0 far out: log -> -inf, integrand -> 0
            return stats.gamma.logpdf(y, m, scale=1 / eps) + np.log(special.gammaincc(m, eps * (z + y)))

    ys = np.linspace(1e-6, 20 * m + 10 * z, 20001)
    vals = log_integrand(ys)
    shift, peak = np.max(vals), ys[np.argmax(vals)]
    # finite range (the integrand is < e^{-700} of its peak beyond it) with the peak as a break point,
    # otherwise quad on [0, inf) can miss the narrow peak for large m
    val, _ = integrate.quad(
        lambda y: np.exp(log_integrand(y) - shift),
        0,
        ys[-1],
        points=[peak],
        epsabs=0,
        epsrel=1e-12,
        limit=500,
    )
    ref = np.log(val) + shift
    assert ref < -100  # genuinely deep (below e^{-100})
    assert conc.laplace_sum_logsf(z, m, eps) == pytest.approx(ref, rel=1e-9)


def test_m0_noise_is_a_point_mass_and_large_m_has_no_overflow():
    np.testing.assert_array_equal(conc.laplace_sum_sf([-1.0, 0.0, 1e-9, 3.0], 0, 1.0), [1, 1, 0, 0])
    out = conc.laplace_sum_logsf(np.array([-50.0, 0.0, 50.0, 5000.0]), 400, 0.5)
    assert np.all(np.isfinite(out)) and np.all(np.diff(out) < 0)
    assert out[1] == pytest.approx(np.log(0.5), rel=1e-13)
    assert np.isfinite(conc.laplace_sum_logpdf(5000.0, 400, 0.5))


# ----------------------------------------------------------------------------------------------
# exact tails of the private sum
# ----------------------------------------------------------------------------------------------
@pytest.mark.parametrize("n,mu", [(1, 0.3), (17, 0.5), (200, 0.05), (1000, 0.9)])
def test_m0_is_binomial(n, mu):
    s = np.concatenate([np.arange(-1, n + 2, max(1, n // 40)), np.linspace(-0.5, n + 0.5, 37)])
    # P[S >= s] = binom.sf(ceil(s) - 1); P[S <= s] = binom.cdf(floor(s)): ties at integers included.
    assert_close_rel_or_abs(conc.private_sum_sf(s, n, 0, mu, 1.0), stats.binom.sf(np.ceil(s) - 1, n, mu))
    assert_close_rel_or_abs(conc.private_sum_cdf(s, n, 0, mu, 1.0), stats.binom.cdf(np.floor(s), n, mu))


@pytest.mark.parametrize("n,mu,eps", [(1, 0.4, 1.0), (30, 0.2, 0.1), (150, 0.7, 3.0), (60, 0.5, 20.0)])
def test_m1_is_laplace_convolution(n, mu, eps):
    s = np.linspace(-20 / eps - 2, n + 60 / eps, 61)
    assert_close_rel_or_abs(conc.private_sum_sf(s, n, 1, mu, eps), laplace_conv_sf(s, n, mu, eps))
    assert_close_rel_or_abs(conc.private_sum_cdf(s, n, 1, mu, eps), laplace_conv_cdf(s, n, mu, eps))


def test_lower_tail_is_mirrored_upper_tail():
    # S~ <= s  <=>  (n - S) + (-Z) >= n - s with n - S ~ Bin(n, 1 - mu) and -Z ~ Z.
    n, m, mu, eps = 40, 4, 0.3, 0.6
    s = np.linspace(-10, 50, 23)
    np.testing.assert_allclose(
        conc.private_sum_logcdf(s, n, m, mu, eps),
        conc.private_sum_logsf(n - s, n, m, 1 - mu, eps),
        rtol=1e-11,
        atol=1e-13,  # log of probabilities near 1: absolute accuracy is the meaningful one there
    )


def test_deep_tail_is_finite_in_log_space():
    # P[S~ >= n] is far below the smallest double here; its log must be finite and lie between
    # the elementary lower bound max_k P[S = k] P[Y_1 >= n - k] P[Y_2 + ... + Y_m >= 0]
    # = max_k pmf(k) e^{-eps (n - k)} / 4 and the lemma's upper bound.
    n, m, mu, eps = 3000, 8, 0.2, 2.0
    lsf = conc.private_sum_logsf([n, n + 100], n, m, mu, eps)
    k = np.arange(n + 1)
    elementary = np.max(stats.binom.logpmf(k, n, mu) - eps * (n - k)) - 2 * math.log(2)
    assert np.all(np.isfinite(lsf)) and lsf[1] < lsf[0] < -1000 * math.log(10)
    assert elementary <= lsf[0] <= conc.private_chernoff_bound(n, n, m, mu, eps, log=True)
    # sf + cdf = 1 away from the tails (continuous law for m >= 1)
    s = np.array([500.0, 600.0, 700.0])
    assert np.allclose(
        conc.private_sum_sf(s, n, m, mu, eps) + conc.private_sum_cdf(s, n, m, mu, eps), 1, atol=1e-12
    )


MC_CASES = [
    # (n, m, mu, eps, thresholds, side)
    (20, 3, 0.3, 0.5, [2.0, 6.0, 10.0, 16.0], "upper"),
    (100, 10, 0.6, 1.0, [50.0, 60.0, 70.0], "upper"),
    (50, 0, 0.5, 1.0, [25.0, 30.0, 35.0], "upper"),  # integer ties of the pure binomial
    (50, 2, 0.5, 0.2, [10.0, 20.0, 25.0], "lower"),
]


@pytest.mark.parametrize("n,m,mu,eps,s,side", MC_CASES)
def test_exact_tail_inside_monte_carlo_interval(n, m, mu, eps, s, side):
    # 2e5 runs, Clopper-Pearson at 0.999 per threshold: 13 checks -> false-alarm rate <= 1.3%
    # (seeds are fixed, so the outcome is deterministic; the rate is what a reseed would risk).
    est, lo, hi = conc.monte_carlo_tail(
        s, n, m, mu, eps, runs=200_000, seed=12345 + n + m, side=side, confidence=0.999
    )
    exact = (conc.private_sum_sf if side == "upper" else conc.private_sum_cdf)(s, n, m, mu, eps)
    assert np.all(lo <= exact) and np.all(exact <= hi), (est, lo, hi, exact)
    assert np.all(lo <= est) and np.all(est <= hi)


def test_monte_carlo_is_reproducible():
    a = conc.monte_carlo_tail([3.0, 5.0], 10, 2, 0.4, 1.0, runs=5000, seed=7)
    b = conc.monte_carlo_tail([3.0, 5.0], 10, 2, 0.4, 1.0, runs=5000, seed=np.random.SeedSequence(7))
    np.testing.assert_array_equal(a, b)


# ----------------------------------------------------------------------------------------------
# every bound dominates the exact tail (hypothesis)
# ----------------------------------------------------------------------------------------------
ROUND = 1e-9  # slack in log space for floating-point rounding only


@settings(max_examples=40, deadline=None)
@given(
    m=st.integers(0, 60),
    log10_eps=st.floats(-2, 1.5),
    ez=st.floats(1e-3, 300.0),
)
def test_laplace_tail_lemma_dominates_exact(m, log10_eps, ez):
    eps = 10**log10_eps
    z = ez / eps
    assert conc.laplace_sum_tail_bound(z, m, eps, log=True) >= conc.laplace_sum_logsf(z, m, eps) - ROUND
    assert conc.laplace_sum_tail_bound(z, m, eps) <= 1.0


@settings(max_examples=40, deadline=None)
@given(
    n=st.integers(1, 300),
    m=st.integers(0, 8),
    mu=st.floats(0.02, 0.98),
    log10_eps=st.floats(-2, 1.5),
    side=st.sampled_from(["upper", "lower"]),
)
def test_bounds_dominate_exact_private_tail(n, m, mu, log10_eps, side):
    eps = 10**log10_eps
    # thresholds from the mean to the extreme end of the support on the chosen side: deep tails included
    far = float(n) if side == "upper" else 0.0
    x = n * mu + (far - n * mu) * np.array([0.0, 0.1, 0.3, 0.6, 0.9, 1.0])
    exact = (conc.private_sum_logsf if side == "upper" else conc.private_sum_logcdf)(x, n, m, mu, eps)
    for variant in ("proof", "tight", "as_written"):
        b = conc.private_chernoff_bound(x, n, m, mu, eps, side=side, variant=variant, log=True)
        assert np.all(b >= exact - ROUND), variant
    assert np.all(conc.separate_bound(x, n, m, mu, eps, side=side, log=True) >= exact - ROUND)
    if m == 0:
        assert np.all(conc.chernoff_bound(x, n, mu, side=side, log=True) >= exact - ROUND)


def test_bound_shapes_and_orderings():
    n, m, mu, eps = 50, 3, 0.4, 0.5
    x = np.linspace(20, 50, 7)
    proof = conc.A_eps(m, n, x, mu, eps)
    tight = conc.A_eps(m, n, x, mu, eps, variant="tight")
    written = conc.A_eps(m, n, x, mu, eps, variant="as_written")
    assert np.all(tight <= proof) and np.all(written <= proof)
    # the corrected constant at x = n mu: e(n log(1/mu) + 1) + 1 (deviation 0)
    assert conc.A_eps(m, n, n * mu, mu, eps) == pytest.approx(math.e * (n * math.log(1 / mu) + 1) + 1)
    np.testing.assert_allclose(np.log(proof), conc.A_eps(m, n, x, mu, eps, log=True), rtol=1e-13)
    # lower side is the mirror image: x -> n - x, mu -> 1 - mu
    np.testing.assert_allclose(
        conc.private_chernoff_bound(n - x, n, m, 1 - mu, eps, side="lower"),
        conc.private_chernoff_bound(x, n, m, mu, eps, side="upper"),
        rtol=1e-9,
    )
    # wrong side of the mean: trivial bound 1
    assert conc.private_chernoff_bound(10.0, n, m, mu, eps) == 1.0
    assert conc.chernoff_bound(10.0, n, mu) == 1.0
    assert conc.separate_bound(10.0, n, m, mu, eps) == 1.0
    # noise-free Chernoff is the closed form exp(-n kl(x/n, mu))
    np.testing.assert_allclose(conc.chernoff_bound(x, n, mu), np.exp(-n * kl(x / n, mu)), rtol=1e-12)
    # m = 0 separate bound is the Chernoff bound
    np.testing.assert_allclose(
        conc.separate_bound(x, n, 0, mu, eps), conc.chernoff_bound(x, n, mu), rtol=1e-12
    )
    # Lemma TailCumLap in closed form, and the trivial bound 1 for z <= 0
    z = np.array([-1.0, 0.0, 5.0, 40.0])
    f = eps * z[2:] - 1 - m * np.log(1 + m * eps * z[2:])
    np.testing.assert_allclose(
        conc.laplace_sum_tail_bound(z, m, eps), np.r_[1.0, 1.0, np.minimum(1, np.exp(-f))]
    )


def test_noise_free_chernoff_does_not_bound_the_private_sum():
    # With one Laplace noise the tail is much fatter than the binomial Chernoff bound (scipy reference).
    n, mu, eps, x = 100, 0.5, 0.5, 90.0
    ref = laplace_conv_sf(np.array([x]), n, mu, eps)[0]
    assert ref > 1e6 * conc.chernoff_bound(x, n, mu)
    assert ref <= conc.private_chernoff_bound(x, n, 1, mu, eps)


def test_coupled_bound_beats_separate_bound_for_large_n():
    # Discussion (c) after the private Chernoff bound.  Since e^{-f(u)} >= e^{-eps u}, the separate bound is
    # >= min_u max(e^{-n kl((x-u)/n, mu)}, e^{-eps u}) = e^{-n c_sep} with
    # c_sep = max_{z in [mu, x]} min(kl(z, mu), eps (x - z)) (crossing point, solved by brentq here),
    # for every n.  The coupled bound is <= A e^{-n d_eps}, and d_eps - log(A)/n > c_sep at n = 1e4.
    from scipy.optimize import brentq

    x, mu, eps, n = 0.9, 0.5, 0.25, 10_000
    m = math.ceil(math.log(n))
    z_cross = brentq(lambda z: kl(z, mu) - eps * (x - z), mu, x)
    c_sep = eps * (x - z_cross)
    sep = conc.separate_bound(n * x, n, m, mu, eps, log=True)
    coupled = conc.private_chernoff_bound(n * x, n, m, mu, eps, log=True)
    assert -sep / n <= c_sep + 1e-12
    assert coupled < sep - 0.02 * n  # e^{-200} times smaller
    assert conc.private_sum_logsf(n * x, n, m, mu, eps) <= coupled


# ----------------------------------------------------------------------------------------------
# the private Chernoff bound: the exponent tends to d_eps, not kl
# ----------------------------------------------------------------------------------------------
def test_tail_exponent_tends_to_d_eps_not_kl():
    # High-privacy regime: kl(0.9, 0.5) = 0.368 while d_eps = 0.092 at eps = 0.25.
    x, mu, eps = 0.9, 0.5, 0.25
    d, k = float(d_eps(x, mu, eps)), float(kl(x, mu))
    assert k - d > 0.25
    ns = [100, 1000, 10_000]
    dist = []
    for n in ns:
        m = math.ceil(math.log(n))
        e_n = conc.tail_exponent(x, n, m, mu, eps)
        # Sandwich, both sides independent of the convolution code:
        # lower: the private-sum lemma gives E_n >= d - log(A_eps)/n;
        # upper: P[S~ >= nx] >= P[S >= k*] P[Y_1 >= nx - k*] P[Y_2 + ... + Y_m >= 0]
        #        = binom.sf(k* - 1) * e^{-eps (nx - k*)}/2 * 1/2  (k* = ceil(n z*), z* the d_eps minimiser).
        lower = d - conc.A_eps(m, n, n * x, mu, eps, log=True) / n
        kstar = math.ceil(n * (mu * math.exp(eps) / (1 - mu + mu * math.exp(eps))))
        log_p = stats.binom.logsf(kstar - 1, n, mu) - eps * (n * x - kstar) - 2 * math.log(2)
        upper = -log_p / n
        assert lower <= e_n <= upper, (n, lower, e_n, upper)
        dist.append(abs(e_n - d))
    # the distance to d_eps shrinks with n (sandwich width is O(m log n / n))
    assert dist[0] > dist[1] > dist[2]
    # at n = 1e4 the sandwich width is < 0.02 (log A/n ~ 0.01 and the upper side's O(log n / n) ~ 0.003),
    # so the exponent is within 0.02 of d_eps, while kl is 0.28 away: much closer to d_eps than to kl.
    assert dist[2] < 0.02
    assert dist[2] < 0.1 * abs(conc.tail_exponent(x, 10_000, 10, mu, eps) - k)


# ----------------------------------------------------------------------------------------------
# bad input
# ----------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "call,exc,match",
    [
        (lambda: conc.private_sum_sf(1.0, 0, 1, 0.5, 1.0), ValueError, "n"),
        (lambda: conc.private_sum_sf(1.0, 2.5, 1, 0.5, 1.0), ValueError, "n"),
        (lambda: conc.private_sum_sf(1.0, 10, -1, 0.5, 1.0), ValueError, "m"),
        (lambda: conc.private_sum_sf(1.0, 10, True, 0.5, 1.0), TypeError, "m"),
        (lambda: conc.private_sum_sf(1.0, 10, 1, 0.0, 1.0), ValueError, "mu"),
        (lambda: conc.private_sum_sf(1.0, 10, 1, 1.0, 1.0), ValueError, "mu"),
        (lambda: conc.private_sum_cdf(1.0, 10, 1, 0.5, 0.0), ValueError, "eps"),
        (lambda: conc.private_sum_cdf(np.nan, 10, 1, 0.5, 1.0), ValueError, "s"),
        (lambda: conc.private_sum_cdf("a", 10, 1, 0.5, 1.0), TypeError, "s"),
        (lambda: conc.laplace_sum_sf(1.0, 2, -1.0), ValueError, "eps"),
        (lambda: conc.laplace_sum_sf(1.0, 2, np.inf), ValueError, "eps"),
        (lambda: conc.laplace_sum_pdf(1.0, 0, 1.0), ValueError, "m"),
        (lambda: conc.laplace_sum_tail_bound(np.inf, 2, 1.0), ValueError, "z"),
        (lambda: conc.private_chernoff_bound(11.0, 10, 1, 0.5, 1.0), ValueError, "x"),
        (lambda: conc.private_chernoff_bound(5.0, 10, 1, 0.5, 1.0, side="both"), ValueError, "side"),
        (lambda: conc.A_eps(1, 10, 5.0, 0.5, 1.0, variant="paper"), ValueError, "variant"),
        (lambda: conc.separate_bound(-1.0, 10, 1, 0.5, 1.0), ValueError, "x"),
        (lambda: conc.chernoff_bound(5.0, 10, 1.5), ValueError, "mu"),
        (lambda: conc.monte_carlo_tail(1.0, 10, 1, 0.5, 1.0, runs=0, seed=1), ValueError, "runs"),
        (
            lambda: conc.monte_carlo_tail(1.0, 10, 1, 0.5, 1.0, runs=10, seed=1, confidence=1.0),
            ValueError,
            "confidence",
        ),
        (lambda: conc.tail_exponent(0.5, 10, 1, 0.5, 1.0, side="up"), ValueError, "side"),
    ],
)
def test_bad_input_raises_named_error(call, exc, match):
    with pytest.raises(exc, match=match):
        call()


# ----------------------------------------------------------------------------------------------
# data helpers
# ----------------------------------------------------------------------------------------------
def test_m_of_n_rules():
    assert [chapter.m_of_n(n, "log n") for n in (1, 3, 100, 10_000)] == [0, 2, 5, 10]
    assert chapter.m_of_n(7, "1") == 1
    assert [chapter.m_of_n(n, "sqrt n") for n in (1, 10, 100)] == [1, 4, 10]
    assert [chapter.m_of_n(n, "n/20") for n in (10, 20, 1000)] == [0, 1, 50]
    with pytest.raises(ValueError, match="rule"):
        chapter.m_of_n(10, "n")
    with pytest.raises(ValueError, match="n"):
        chapter.m_of_n(0)


def test_tail_comparison_m1_against_scipy_and_bounds_dominate():
    n, m, mu, eps = 40, 1, 0.3, 0.7
    x = np.linspace(mu, 1.0, 9)
    r = chapter.tail_comparison(x, n, m, mu, eps, runs=0)
    k = np.arange(n + 1)
    ref = (stats.binom.pmf(k, n, mu)[None, :] * stats.laplace.sf(n * x[:, None] - k, scale=1 / eps)).sum(1)
    np.testing.assert_allclose(np.exp(r["exact"]), ref, rtol=1e-10)
    assert r["mc"] is None and r["mc_lower"] is None
    assert np.all(r["private"] >= r["exact"] - 1e-9)
    assert np.all(r["separate"] >= r["exact"] - 1e-9)
    np.testing.assert_allclose(r["chernoff"], -n * np.asarray(kl(x, mu)), rtol=1e-12, atol=1e-14)


def test_tail_comparison_monte_carlo_interval_contains_exact():
    x = np.array([0.5, 0.6, 0.7])
    r = chapter.tail_comparison(x, 60, 3, 0.5, 1.0, runs=50_000, seed=3, confidence=0.999)
    assert np.all(r["mc_lower"] <= r["exact"]) and np.all(r["exact"] <= r["mc_upper"])
    # same seed, same draws
    r2 = chapter.tail_comparison(x, 60, 3, 0.5, 1.0, runs=50_000, seed=3, confidence=0.999)
    np.testing.assert_array_equal(r["mc"], r2["mc"])


def test_tail_comparison_rejects_lower_side_thresholds():
    with pytest.raises(ValueError, match="x must lie in"):
        chapter.tail_comparison(0.2, 10, 1, 0.5, 1.0, runs=0)
    with pytest.raises(ValueError, match="runs"):
        chapter.tail_comparison(0.7, 10, 1, 0.5, 1.0, runs=-1)
    with pytest.raises(ValueError, match="eps"):
        chapter.tail_comparison(0.7, 10, 1, 0.5, 0.0)


def test_tail_contributions_sum_to_the_tail_and_peak_near_z_star():
    n, m, mu, eps, x = 2000, 8, 0.5, 0.25, 0.7
    parts = chapter.tail_contributions(x, n, m, mu, eps)
    total = np.logaddexp.reduce(parts["log_term"])
    assert total == pytest.approx(parts["log_total"], rel=1e-10)
    assert parts["z_star"] == pytest.approx(z_star(x, mu, eps))
    peak = parts["k_over_n"][np.argmax(parts["log_term"])]
    assert abs(peak - parts["z_star"]) < 0.015
    # m = 0: the terms are the binomial pmf at k >= nx and nothing below
    p0 = chapter.tail_contributions(0.6, 50, 0, 0.5, 1.0)
    assert np.all(np.isneginf(p0["log_term"][:30])) and np.all(np.isfinite(p0["log_term"][30:]))
    np.testing.assert_allclose(np.exp(p0["log_term"][30:]), stats.binom.pmf(np.arange(30, 51), 50, 0.5),
                               rtol=1e-10)


def test_exponent_curves_tend_to_d_eps_and_bounds_are_below():
    x, mu, eps = 0.9, 0.5, 0.25
    ex = chapter.exponent_curves(x, mu, eps, "log n", ns=[100, 1000, 10_000])
    assert ex["d_eps"] == pytest.approx(d_eps(x, mu, eps)) and ex["kl"] == pytest.approx(kl(x, mu))
    np.testing.assert_array_equal(ex["m"], [5, 7, 10])
    gap = np.abs(ex["exact"] - ex["d_eps"])
    assert gap[0] > gap[1] > gap[2] and gap[2] < 0.005
    # a valid bound has a smaller exponent than the exact tail; trivial bounds give exactly 0
    assert np.all(ex["private"] <= ex["exact"] + 1e-12) and np.all(ex["separate"] <= ex["exact"] + 1e-12)
    assert ex["private"][0] == 0.0 and not np.signbit(ex["private"][0])
    with pytest.raises(ValueError, match="m_rule"):
        chapter.exponent_curves(x, mu, eps, "n")


def test_exponent_curves_linear_m_stays_below_d_eps():
    ex = chapter.exponent_curves(0.9, 0.5, 0.25, "n/20", ns=[1000, 4000])
    assert np.all(ex["exact"] < 0.6 * ex["d_eps"])

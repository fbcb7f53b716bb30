"""Tests of :mod:`dpb.divergences`: kl, tv, the paper's d_eps, its minimiser and the inversions.

References are independent of the code under test: the textbook formula for kl, scipy's
``rel_entr`` / ``stats.entropy``, a Taylor series near the diagonal, brute-force minimisation of
the definition of d_eps over a grid and with ``scipy.optimize.minimize_scalar``, the paper's explicit
solution (the closed form of d_eps, the book's Proposition prop-d-eps-closed-form) written out
naively, and ``scipy.optimize.brentq`` for the inversions.  Every tolerance is justified next to
the assertion that uses it.
"""

from __future__ import annotations

import decimal
import math
import warnings
from decimal import Decimal

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from scipy.optimize import brentq, minimize_scalar
from scipy.special import rel_entr
from scipy.stats import entropy

from dpb.divergences import (
    d_eps,
    d_eps_lcb,
    d_eps_ucb,
    kl,
    kl_lcb,
    kl_ucb,
    regime_threshold,
    tv,
    z_star,
)

SETTINGS = settings(max_examples=100, deadline=None, derandomize=True)
FEW = settings(max_examples=50, deadline=None, derandomize=True)

unit = st.floats(0.0, 1.0)
interior = st.floats(1e-6, 1.0 - 1e-6)
moderate = st.floats(0.02, 0.98)
epsilons = st.floats(1e-3, 50.0)
levels = st.one_of(st.just(0.0), st.floats(0.0, 50.0), st.floats(1e-15, 1e-6))


def kl_textbook(p, q):
    """p log(p/q) + (1 - p) log((1 - p)/(1 - q)) for p, q in (0, 1), written directly."""
    return p * math.log(p / q) + (1 - p) * math.log((1 - p) / (1 - q))


def kl_rel_entr(p, q):
    """kl via scipy's elementwise relative entropy summed over the two outcomes (handles 0, 1)."""
    return rel_entr(p, q) + rel_entr(1.0 - p, 1.0 - q)


def objective(z, x, y, eps):
    """The function minimised in the definition of d_eps: eps |z - x| + kl(z, y), with scipy's kl."""
    return eps * np.abs(z - x) + kl_rel_entr(z, y)


# ----------------------------------------------------------------------------------------------
# kl and tv
# ----------------------------------------------------------------------------------------------
@SETTINGS
@given(p=interior, q=interior)
def test_kl_matches_textbook_formula(p, q):
    # The textbook formula has absolute rounding error ~1e-16 * (|p log(p/q)| + |...|) <= 1e-16 * 30
    # on [1e-6, 1 - 1e-6]; 1e-13 absolute + 1e-12 relative is far above that.
    assert kl(p, q) == pytest.approx(kl_textbook(p, q), rel=1e-12, abs=1e-13)


@SETTINGS
@given(p=unit, q=unit)
def test_kl_matches_scipy_rel_entr_and_entropy(p, q):
    ref = kl_rel_entr(p, q)
    # scipy.stats.entropy(pk, qk) = sum pk log(pk/qk) after normalising (p + (1 - p) = 1 up to 1 ulp)
    ref2 = entropy([p, 1 - p], [q, 1 - q])
    value = kl(p, q)
    if math.isinf(ref):
        assert value == math.inf and ref2 == math.inf
    else:
        assert value == pytest.approx(ref, rel=1e-12, abs=1e-14)
        assert value == pytest.approx(ref2, rel=1e-12, abs=1e-14)


def test_kl_boundary_values_are_exact():
    assert kl(0.0, 0.0) == 0.0
    assert kl(1.0, 1.0) == 0.0
    assert kl(0.0, 1.0) == math.inf
    assert kl(1.0, 0.0) == math.inf
    assert kl(0.5, 0.0) == math.inf
    assert kl(0.5, 1.0) == math.inf
    qs = np.linspace(0.01, 0.99, 99)
    # 0 log 0 = 0: kl(0, q) = -log(1 - q), kl(1, q) = -log q
    np.testing.assert_allclose(kl(0.0, qs), -np.log1p(-qs), rtol=1e-14)
    np.testing.assert_allclose(kl(1.0, qs), -np.log(qs), rtol=1e-14)
    np.testing.assert_array_equal(kl(qs, qs), 0.0)
    assert kl(5e-324, 5e-324) == 0.0


@SETTINGS
@given(p=st.floats(0.01, 0.99), log_rel=st.floats(-7.0, -3.0), sign=st.sampled_from([-1.0, 1.0]))
def test_kl_near_diagonal_matches_taylor_series(p, log_rel, sign):
    # kl(p, p + h) = sum_{k>=2} h^k / k * [(-1)^k p^(1-k) + (1-p)^(1-k)] for |h| < min(p, 1 - p).
    # With |h| = 10**log_rel * min(p, 1-p) <= 1e-3 min(p, 1-p) the truncation after k = 8 is < 1e-20
    # relatively.  A careful kl has absolute error ~1e-15 |h|, i.e. relative error
    # <= 2e-15 p (1-p) / |h| <= 2e-8 here (tolerance 1e-7); a naive p log(p/q) + ... has absolute error
    # ~1e-16 and misses by orders of magnitude (relative ~1e-2 at |h| = 1e-7 min(p, 1-p)).
    h = sign * 10**log_rel * min(p, 1 - p)
    q = p + h
    h = q - p  # the step actually represented
    series = sum(h**k / k * ((-1) ** k * p ** (1 - k) + (1 - p) ** (1 - k)) for k in range(2, 9))
    assert kl(p, q) == pytest.approx(series, rel=1e-7)


def test_kl_near_diagonal_random_batch():
    # Same reference and tolerance as above on 400 seeded random points: hypothesis favours "simple"
    # floats for which p / q happens to round exactly, which would let a naive formula slip through.
    rng = np.random.default_rng(np.random.SeedSequence(7))
    p = rng.uniform(0.01, 0.99, 400)
    h = rng.choice([-1.0, 1.0], 400) * 10 ** rng.uniform(-7, -3, 400) * np.minimum(p, 1 - p)
    q = p + h
    h = q - p
    series = sum(h**k / k * ((-1) ** k * p ** (1 - k) + (1 - p) ** (1 - k)) for k in range(2, 9))
    np.testing.assert_allclose(kl(p, q), series, rtol=1e-7)


@SETTINGS
@given(p=unit, q=unit)
def test_kl_nonnegative_pinsker_and_tv(p, q):
    value = kl(p, q)
    assert value >= 0.0
    assert (value == 0.0) == (p == q) or abs(p - q) < 1e-300
    assert tv(p, q) == abs(p - q) == tv(q, p)
    # Pinsker's inequality kl >= 2 tv^2 (strict margin 1e-15 for rounding)
    assert value >= 2 * tv(p, q) ** 2 - 1e-15


# ----------------------------------------------------------------------------------------------
# d_eps and z_star against brute force
# ----------------------------------------------------------------------------------------------
def _objective_slope(z, x, y, eps):
    """d/dz of the objective at an interior z: eps * sign(z - x) + logit(z) - logit(y)."""
    side = 1.0 if y >= x else -1.0
    return side * eps + np.log(z / (1 - z)) - np.log(y / (1 - y))


def grid_bounds(x, y, eps, n=2001):
    """Rigorous (up to rounding) upper and lower bounds on inf of the convex objective over [x^y, x v y].

    Upper: the smallest value on a two-level grid (every grid point is feasible).  Lower: the
    minimiser of a convex function lies within one cell of the grid argmin; on a cell next to an
    interior argmin g_i the function stays above the extension of the chord of the other adjacent
    cell, so inf >= f(g_i) - max(f(g_i-1), f(g_i+1)) + f(g_i); if the argmin is an end of the grid we
    use the tangent at its neighbour g_n instead: inf >= f(g_n) - |f'(g_n)| h.
    """
    lo, hi = min(x, y), max(x, y)
    coarse = np.linspace(lo, hi, n)
    k = int(np.argmin(objective(coarse, x, y, eps)))
    fine = np.linspace(coarse[max(k - 1, 0)], coarse[min(k + 1, n - 1)], n)
    vals = objective(fine, x, y, eps)
    i = int(np.argmin(vals))
    upper = vals[i]
    if 0 < i < n - 1:
        lower = upper - (max(vals[i - 1], vals[i + 1]) - upper)
    elif y in (0.0, 1.0):  # infinite slopes: no lower bound from this argument
        lower = -np.inf
    else:
        nb = 1 if i == 0 else n - 2
        lower = vals[nb] - abs(_objective_slope(fine[nb], x, y, eps)) * abs(fine[1] - fine[0])
    return upper, lower


@SETTINGS
@given(x=unit, y=unit, eps=epsilons)
def test_d_eps_equals_grid_minimum_on_both_sides(x, y, eps):
    lo, hi = min(x, y), max(x, y)
    d = d_eps(x, y, eps)
    z = z_star(x, y, eps)
    assert lo <= z <= hi
    if lo == hi:
        assert d == 0.0
        return
    upper, lower = grid_bounds(x, y, eps)
    # rounding of the objective is ~1e-16 * (eps + kl) <= 1e-14, covered by 1e-12 (1 + value)
    assert d <= upper + 1e-12 * (1 + upper)
    if np.isfinite(lower):  # the lower bound needs finite slopes (y in (0, 1))
        assert d >= lower - 1e-12 * (1 + upper)
    # z* attains the value: the objective at z* reproduces d_eps
    assert objective(z, x, y, eps) == pytest.approx(d, rel=1e-10, abs=1e-13)


@FEW
@given(x=st.floats(1e-3, 1 - 1e-3), y=st.floats(1e-3, 1 - 1e-3), eps=epsilons)
def test_d_eps_equals_minimize_scalar(x, y, eps):
    assume(abs(x - y) > 1e-4)
    lo, hi = min(x, y), max(x, y)
    res = minimize_scalar(objective, bounds=(lo, hi), args=(x, y, eps), method="bounded",
                          options={"xatol": 1e-12})
    d = d_eps(x, y, eps)
    # res.x is feasible, so d <= res.fun up to rounding of the objective.
    assert d <= res.fun + 1e-12
    # scipy's bounded Brent stops once its bracket is below sqrt(machine eps) |z| + xatol / 3, i.e.
    # within 1.5e-8 of the minimiser (3e-8 allowed).  The objective's slope on the interval is at most
    # eps + |logit(x) - logit(y)|, so res.fun exceeds the minimum by at most slope * 3e-8.
    slope = eps + abs(math.log(x / (1 - x)) - math.log(y / (1 - y)))
    assert res.fun - d <= slope * 3e-8 + 1e-12


def _paper_explicit(x, y, eps):
    """Implication (b) of the lower-bound theorem and the high-privacy closed form, with naive exp/log."""
    if x <= y:
        m = y / (y + (1 - y) * math.exp(eps))
        if eps >= math.log(y / x) + math.log((1 - x) / (1 - y)):
            return kl_textbook(x, y)
        return kl_textbook(m, y) + eps * (m - x)
    m = y * math.exp(eps) / (y * math.exp(eps) + 1 - y)
    if x <= m:
        return kl_textbook(x, y)
    return kl_textbook(m, y) + eps * (x - m)


@SETTINGS
@given(x=st.floats(1e-4, 1 - 1e-4), y=st.floats(1e-4, 1 - 1e-4), eps=st.floats(1e-3, 30.0))
def test_d_eps_matches_paper_explicit_solution(x, y, eps):
    assume(x != y)
    # naive formula: relative error ~1e-16 * (terms / result); 1e-9 relative + 1e-13 absolute
    assert d_eps(x, y, eps) == pytest.approx(_paper_explicit(x, y, eps), rel=1e-9, abs=1e-13)


@SETTINGS
@given(x=moderate, y=moderate, eps=epsilons)
def test_chernoff_form_of_high_privacy_branch(x, y, eps):
    # Identity derived in the module docstring from the first-order condition
    # logit(z*) = logit(y) -+ eps, checked against the paper's explicit solution written naively:
    # x <= y: d_eps = -eps x - log(1 - y (1 - e^-eps)); x >= y: d_eps = eps x - log(1 + y (e^eps - 1)).
    # d_eps uses it where it is the more accurate evaluation, d_eps_ucb / d_eps_lcb invert it.
    assume(eps < regime_threshold(x, y))
    if x < y:
        chernoff = -eps * x - math.log1p(-y * -math.expm1(-eps))
    else:
        chernoff = eps * x - math.log1p(y * math.expm1(eps))
    paper = _paper_explicit(x, y, eps)
    assert chernoff == pytest.approx(paper, rel=1e-9, abs=1e-12)
    assert d_eps(x, y, eps) == pytest.approx(paper, rel=1e-9, abs=1e-12)


@SETTINGS
@given(i=st.integers(0, 1024), j=st.integers(0, 1024), eps=epsilons)
def test_d_eps_is_invariant_under_relabelling(i, j, eps):
    # Swapping the Bernoulli outcomes maps (x, y) to (1 - x, 1 - y); dyadic means keep 1 - x exact.
    x, y = i / 1024, j / 1024
    assert d_eps(x, y, eps) == pytest.approx(d_eps(1 - x, 1 - y, eps), rel=1e-12, abs=1e-14)


def _d_eps_decimal(x, y, eps, digits=80):
    """The paper's explicit solution of d_eps in 80-digit decimal arithmetic.

    80 digits keep 1 - y and 1 - m exact enough for means down to 1e-30 from 0 or 1.
    """
    with decimal.localcontext() as ctx:
        ctx.prec = digits
        X, Y, E = Decimal(x), Decimal(y), Decimal(eps)  # exact conversions of the floats
        one = Decimal(1)

        def dkl(p, q):
            out = Decimal(0)
            if p > 0:
                out += p * (p / q).ln()
            if p < 1:
                out += (one - p) * ((one - p) / (one - q)).ln()
            return out

        if X <= Y:
            m = Y / (Y + (one - Y) * E.exp())
            return dkl(X, Y) if X >= m else dkl(m, Y) + E * (m - X)
        m = Y * E.exp() / (Y * E.exp() + one - Y)
        return dkl(X, Y) if X <= m else dkl(m, Y) + E * (X - m)


@pytest.mark.parametrize("eps", [1e-6, 1e-3, 1.0, 30.0])
@pytest.mark.parametrize("k", [1, 2, 5, 1000])
@pytest.mark.parametrize("x", [0.0, 0.3, 1.0])
def test_d_eps_relative_accuracy_near_boundary_means(x, k, eps):
    # y within a few ulps of 1 (or of 0, mirrored): z* is then within ulps of y, where rounding z*
    # alone would cost ~ulp^2 / (2 z*(1 - z*)) ~ 1e-16 absolutely -- a large relative error when
    # d_eps is small.  Relative accuracy 1e-12 against 80-digit arithmetic.
    for y in (1.0 - k * 2.0**-53, k * 2.0**-53):
        if x == y:
            continue
        ref = float(_d_eps_decimal(x, y, eps))
        assert d_eps(x, y, eps) == pytest.approx(ref, rel=1e-12, abs=1e-300)


def test_d_eps_relative_accuracy_random_points():
    # Random means (some within 1e-12 of each other or of the boundary) and eps spanning 1e-6..40;
    # 80-digit reference; relative tolerance 1e-10 (an ulp-level evaluation is ~1e-15 except under the
    # cancellation of nearly equal means, still ~1e-12 at the gaps drawn here).
    rng = np.random.default_rng(np.random.SeedSequence(11))
    xs = rng.random(150)
    ys = np.where(rng.random(150) < 0.3, xs + rng.choice([-1, 1], 150) * 10 ** rng.uniform(-6, -2, 150),
                  rng.random(150))
    ys = np.clip(ys, 0.0, 1.0)
    edge = rng.random(150) < 0.2
    ys[edge] = np.where(rng.random(edge.sum()) < 0.5, 10 ** rng.uniform(-30, -12, edge.sum()),
                        1 - 10 ** rng.uniform(-15, -12, edge.sum()))
    es = 10 ** rng.uniform(-6, 1.6, 150)
    got = d_eps(xs, ys, es)
    ref = np.array([float(_d_eps_decimal(a, b, e)) for a, b, e in zip(xs, ys, es, strict=True)])
    np.testing.assert_allclose(got, ref, rtol=1e-10, atol=1e-300)


# ----------------------------------------------------------------------------------------------
# properties of d_eps
# ----------------------------------------------------------------------------------------------
@SETTINGS
@given(x=unit, y=unit, eps=epsilons)
def test_d_eps_bounds(x, y, eps):
    d = d_eps(x, y, eps)
    assert d >= 0.0
    # Implication (a): d_eps <= min(kl, eps |x - y|) (rounding margin 1e-12 relative)
    assert d <= min(kl(x, y), eps * abs(x - y)) * (1 + 1e-12) + 1e-300
    assert d_eps(x, x, eps) == 0.0


@SETTINGS
@given(x=unit, y=unit, e1=epsilons, e2=epsilons)
def test_d_eps_nondecreasing_in_eps(x, y, e1, e2):
    lo, hi = sorted((e1, e2))
    d_lo, d_hi = d_eps(x, y, lo), d_eps(x, y, hi)
    assert d_lo <= d_hi * (1 + 1e-12) + 1e-15


@SETTINGS
@given(x=unit, y=unit)
def test_d_eps_at_infinite_eps_is_kl(x, y):
    assert d_eps(x, y, math.inf) == kl(x, y)
    assert z_star(x, y, math.inf) == x


@SETTINGS
@given(x=interior, y=interior)
def test_d_eps_large_eps_is_kl(x, y):
    # the threshold |logit y - logit x| is < 30 here, so eps = 1e6 is in the low-privacy regime
    assert d_eps(x, y, 1e6) == pytest.approx(kl(x, y), rel=1e-12, abs=1e-15)


@SETTINGS
@given(x=unit, y=unit)
def test_d_eps_small_eps_is_eps_times_tv(x, y):
    assume(abs(x - y) >= 0.01)
    eps = 1e-6
    ratio = d_eps(x, y, eps) / (eps * abs(x - y))
    # d_eps = eps |x - y| - eps^2 y (1 - y) / 2 + O(eps^3), so 1 - ratio <= eps / (8 * 0.01) ~ 1.3e-5
    assert ratio <= 1 + 1e-12
    assert ratio >= 1 - 1e-4


def test_z_star_stays_in_interval_for_tiny_eps():
    # With eps ~ 1e-300 the stationary point expit(logit(y) -+ eps) equals y only up to the
    # logit/expit round trip (an ulp either way); z* must still lie in [x ^ y, x v y] and
    # d_eps(y, y) must be exactly 0.
    rng = np.random.default_rng(np.random.SeedSequence(3))
    y = rng.random(500)
    x = np.concatenate([y[:250], y[250:] + rng.choice([-1, 1], 250) * np.spacing(y[250:])])
    for eps in (1e-300, 1e-20):
        z = z_star(x, y, eps)
        assert np.all((np.minimum(x, y) <= z) & (z <= np.maximum(x, y)))
        np.testing.assert_array_equal(d_eps(y, y, eps), 0.0)


@pytest.mark.parametrize("eps", [1e-3, 0.5, 2.0, 40.0])
def test_d_eps_finite_at_boundary_means(eps):
    xs = np.linspace(0, 1, 21)
    np.testing.assert_allclose(d_eps(xs, 1.0, eps), eps * (1 - xs), rtol=1e-15)
    np.testing.assert_allclose(d_eps(xs, 0.0, eps), eps * xs, rtol=1e-15)
    np.testing.assert_array_equal(z_star(xs[:-1], 1.0, eps), 1.0)
    np.testing.assert_array_equal(z_star(xs[1:], 0.0, eps), 0.0)
    assert d_eps(0.3, 1.0, math.inf) == math.inf


# ----------------------------------------------------------------------------------------------
# regime threshold
# ----------------------------------------------------------------------------------------------
@SETTINGS
@given(x=interior, y=interior)
def test_regime_threshold_formula(x, y):
    lo, hi = min(x, y), max(x, y)
    ref = math.log(hi / lo) + math.log((1 - lo) / (1 - hi))  # Implication (b)
    assert regime_threshold(x, y) == pytest.approx(ref, rel=1e-9, abs=1e-12)
    assert regime_threshold(x, y) == regime_threshold(y, x)


def test_regime_threshold_boundaries():
    assert regime_threshold(0.0, 0.5) == math.inf
    assert regime_threshold(0.5, 1.0) == math.inf
    assert regime_threshold(0.0, 1.0) == math.inf
    assert regime_threshold(0.0, 0.0) == 0.0
    assert regime_threshold(1.0, 1.0) == 0.0
    assert regime_threshold(0.4, 0.4) == 0.0


@SETTINGS
@given(x=moderate, y=moderate, factor=st.floats(1.0, 10.0))
def test_d_eps_equals_kl_above_threshold(x, y, factor):
    assume(x != y)
    eps = regime_threshold(x, y) * factor * (1 + 1e-12)
    assume(eps > 0)  # x and y one ulp apart: logit(y) - logit(x) rounds to 0
    assert d_eps(x, y, eps) == pytest.approx(kl(x, y), rel=1e-12, abs=1e-15)
    assert z_star(x, y, eps) == pytest.approx(x, abs=1e-15)


@SETTINGS
@given(x=moderate, y=moderate, shrink=st.floats(0.05, 0.95))
def test_d_eps_below_kl_below_threshold(x, y, shrink):
    assume(abs(x - y) >= 0.01)
    thr = regime_threshold(x, y)
    eps = thr * (1 - shrink)
    # At z = x the objective has slope eps - thr = -shrink * thr <= -0.05 * 0.04 and curvature
    # <= 1 / (0.0196) ~ 51, so the minimum is below kl(x, y) by >= min(slope^2 / 102, |slope| |x-y| / 2)
    # >= 4e-8, far above rounding (1e-15).
    assert kl(x, y) - d_eps(x, y, eps) > 1e-12


# ----------------------------------------------------------------------------------------------
# derivative lemmas of the regret appendix
# ----------------------------------------------------------------------------------------------
@SETTINGS
@given(x=moderate, y=moderate, eps=epsilons)
def test_lemma_derivative_in_first_argument(x, y, eps):
    # Lemma lem_deriv_first: |d/dx d_eps(x, y)| <= eps; the proof also gives the sign (<= 0 for
    # x <= y, >= 0 for x >= y).  Central difference with h = 1e-6: d_eps is C^1 in x with
    # |d2/dx2| <= 1 / (x (1 - x)) <= 1 / (0.0196 * 0.98) ~ 52, so the difference quotient is within
    # h * 52 ~ 5e-5 of a derivative value; rounding adds <= 2 * 1e-16 * 60 / h ~ 1e-8.  tol = 1e-4.
    h, tol = 1e-6, 1e-4
    fd = (d_eps(x + h, y, eps) - d_eps(x - h, y, eps)) / (2 * h)
    assert abs(fd) <= eps + tol
    if x + h <= y:
        assert fd <= tol
    if x - h >= y:
        assert fd >= -tol


@SETTINGS
@given(x=moderate, y=moderate, eps=epsilons)
def test_lemma_derivative_in_second_argument(x, y, eps):
    # Lemma lem_deriv_second: d/dy d_eps(x, y) <= d/dy kl(x, y) = (y - x) / (y (1 - y)) <= 1/(1 - y)
    # for x <= y < 1.  h = 1e-7; |d2/dy2| <= x / y^2 + (1 - x) / (1 - y)^2 <= 2 / 0.02^2 = 5000, so
    # the quotient is within 5e-4 of a derivative value; rounding <= 2e-16 * 60 / h ~ 1.2e-7.
    assume(x <= y)
    h, tol = 1e-7, 1e-3
    fd = (d_eps(x, y + h, eps) - d_eps(x, y - h, eps)) / (2 * h)
    assert fd <= (y - x) / (y * (1 - y)) + tol
    assert fd <= 1 / (1 - y) + tol


# ----------------------------------------------------------------------------------------------
# confidence inversions
# ----------------------------------------------------------------------------------------------
STEP = 1e-9  # the optimality probe: moving the returned point by STEP must break the constraint


@SETTINGS
@given(x=unit, c=levels)
def test_kl_ucb_defining_property(x, c):
    q = kl_ucb(x, c)
    assert x <= q <= 1.0
    assert kl(x, q) <= c + 1e-12
    if q + STEP <= 1.0:
        assert kl(x, q + STEP) > c


@SETTINGS
@given(x=unit, c=levels)
def test_kl_lcb_defining_property(x, c):
    q = kl_lcb(x, c)
    assert 0.0 <= q <= x
    assert kl(x, q) <= c + 1e-12
    if q - STEP >= 0.0:
        assert kl(x, q - STEP) > c


eps_or_inf = st.one_of(epsilons, st.just(math.inf))


@SETTINGS
@given(x=unit, c=levels, eps=eps_or_inf)
def test_d_eps_ucb_defining_property(x, c, eps):
    q = d_eps_ucb(x, c, eps)
    assert x <= q <= 1.0
    assert d_eps(x, q, eps) <= c + 1e-12
    if q + STEP <= 1.0:
        assert d_eps(x, q + STEP, eps) > c


@SETTINGS
@given(x=unit, c=levels, eps=eps_or_inf)
def test_d_eps_lcb_defining_property(x, c, eps):
    q = d_eps_lcb(x, c, eps)
    assert 0.0 <= q <= x
    assert d_eps(x, q, eps) <= c + 1e-12
    if q - STEP >= 0.0:
        assert d_eps(x, q - STEP, eps) > c


@SETTINGS
@given(x=unit, frac=st.floats(0.0, 1.0), eps=epsilons)
def test_d_eps_inversions_below_saturation(x, frac, eps):
    # Levels c = frac * (saturation level) cover both branches of the inverse: the kl branch (small
    # frac) and the explicit high-privacy branch (frac near 1), which generic levels rarely reach.
    c = frac * eps * (1 - x)
    q = d_eps_ucb(x, c, eps)
    assert x <= q <= 1.0 and d_eps(x, q, eps) <= c + 1e-12
    if q + STEP <= 1.0:
        assert d_eps(x, q + STEP, eps) > c
    c = frac * eps * x
    q = d_eps_lcb(x, c, eps)
    assert 0.0 <= q <= x and d_eps(x, q, eps) <= c + 1e-12
    if q - STEP >= 0.0:
        assert d_eps(x, q - STEP, eps) > c


@FEW
@given(x=st.floats(0.01, 0.99), c=st.floats(1e-6, 5.0), eps=epsilons)
def test_inversions_agree_with_brentq(x, c, eps):
    # brentq with xtol = 1e-15 brackets the root to ~1e-15; the promised accuracy is 1e-10.
    top = 1.0 - 2.0**-52
    if kl(x, top) > c:
        assert kl_ucb(x, c) == pytest.approx(brentq(lambda q: kl(x, q) - c, x, top, xtol=1e-15), abs=1e-10)
    if kl(x, 1e-300) > c:
        assert kl_lcb(x, c) == pytest.approx(brentq(lambda q: kl(x, q) - c, 1e-300, x, xtol=1e-15), abs=1e-10)
    if c < eps * (1 - x):  # otherwise saturated at 1 (tested below)
        ref = brentq(lambda m: d_eps(x, m, eps) - c, x, 1.0, xtol=1e-15)
        assert d_eps_ucb(x, c, eps) == pytest.approx(ref, abs=1e-10)
    if c < eps * x:
        ref = brentq(lambda m: d_eps(x, m, eps) - c, 0.0, x, xtol=1e-15)
        assert d_eps_lcb(x, c, eps) == pytest.approx(ref, abs=1e-10)


@pytest.mark.parametrize("x", [0.0, 1e-12, 0.3, 0.5, 0.999, 1.0])
def test_inversions_trivial_levels(x):
    assert kl_ucb(x, 0.0) == x and kl_lcb(x, 0.0) == x
    assert d_eps_ucb(x, 0.0, 0.7) == x and d_eps_lcb(x, 0.0, 0.7) == x
    assert kl_ucb(x, math.inf) == 1.0 and kl_lcb(x, math.inf) == 0.0
    assert d_eps_ucb(x, math.inf, 0.7) == 1.0 and d_eps_lcb(x, math.inf, 0.7) == 0.0


@SETTINGS
@given(x=unit, eps=epsilons, extra=st.floats(0.0, 10.0))
def test_d_eps_ucb_saturates_at_one(x, eps, extra):
    # d_eps(x, 1) = eps (1 - x) is finite, so the index is exactly 1 from c = eps (1 - x) on ...
    assert d_eps_ucb(x, eps * (1 - x) * (1 + extra), eps) == 1.0
    assert d_eps_lcb(x, eps * x * (1 + extra), eps) == 0.0
    # ... and strictly below 1 just under it
    if x < 1:
        assert d_eps_ucb(x, eps * (1 - x) * (1 - 1e-3), eps) < 1.0
    if x > 0:
        assert d_eps_lcb(x, eps * x * (1 - 1e-3), eps) > 0.0


@SETTINGS
@given(x=unit, c=levels)
def test_d_eps_inversions_at_infinite_eps_are_kl_inversions(x, c):
    assert d_eps_ucb(x, c, math.inf) == kl_ucb(x, c)
    assert d_eps_lcb(x, c, math.inf) == kl_lcb(x, c)


def test_small_eps_indexes_mostly_saturate():
    # DP-KLUCB at small eps: with c = log(t)/n above eps (1 - x) the index is exactly 1
    x = np.linspace(0, 1, 11)
    assert np.all(d_eps_ucb(x, 0.2, 0.1) == 1.0)


def test_vectorised_calls_equal_elementwise_calls():
    rng = np.random.default_rng(np.random.SeedSequence(20250101))
    x = rng.random((6, 1))
    x[0, 0], x[-1, 0] = 0.0, 1.0
    y = rng.random(5)
    c = np.concatenate([[0.0, 1e-12], rng.exponential(0.5, 3)])
    eps = np.array([1e-3, 0.1, 1.0, 10.0, math.inf])
    cases = [
        (kl, (x, y)),
        (tv, (x, y)),
        (regime_threshold, (x, y)),
        (z_star, (x, y, eps)),
        (d_eps, (x, y, eps)),
        (kl_ucb, (x, c)),
        (kl_lcb, (x, c)),
        (d_eps_ucb, (x, c, eps)),
        (d_eps_lcb, (x, c, eps)),
        (d_eps_ucb, (x, c, 0.3)),
    ]
    for func, args in cases:
        out = func(*args)
        assert isinstance(out, np.ndarray) and out.shape == (6, 5)
        bargs = np.broadcast_arrays(*[np.asarray(a, dtype=float) for a in args])
        for idx in np.ndindex(6, 5):
            single = func(*[float(a[idx]) for a in bargs])
            assert isinstance(single, float)
            assert single == out[idx], (func.__name__, idx)


# ----------------------------------------------------------------------------------------------
# bad input
# ----------------------------------------------------------------------------------------------
TWO = [kl, tv, regime_threshold]
THREE_Y = [z_star, d_eps]
THREE_C = [d_eps_ucb, d_eps_lcb]


@pytest.mark.parametrize("func", THREE_Y + THREE_C)
@pytest.mark.parametrize("bad", [0.0, -1.0, math.nan, -math.inf, [0.5, -0.1]])
def test_bad_eps_raises(func, bad):
    with pytest.raises(ValueError, match=r"eps must lie in \(0, \+inf\]"):
        func(0.3, 0.5, bad)


@pytest.mark.parametrize("func", TWO + THREE_Y + THREE_C + [kl_ucb, kl_lcb])
@pytest.mark.parametrize("bad", [1.5, -0.2, math.nan, math.inf])
def test_bad_first_mean_raises(func, bad):
    name = "p" if func in (kl, tv) else "x"
    args = (bad, 0.5) if func in TWO + [kl_ucb, kl_lcb] else (bad, 0.5, 1.0)
    with pytest.raises(ValueError, match=rf"{name} must lie in \[0, 1\]"):
        func(*args)


def test_bad_first_mean_message_names_value():
    with pytest.raises(ValueError, match=r"x must lie in \[0, 1\], got 1\.5"):
        d_eps(1.5, 0.5, 1.0)


@pytest.mark.parametrize("func", TWO + THREE_Y)
@pytest.mark.parametrize("bad", [1.0001, -1e-300, math.nan])
def test_bad_second_mean_raises(func, bad):
    name = "q" if func in (kl, tv) else "y"
    args = (0.5, bad) if func in TWO else (0.5, bad, 1.0)
    with pytest.raises(ValueError, match=rf"{name} must lie in \[0, 1\]"):
        func(*args)


@pytest.mark.parametrize("func", [kl_ucb, kl_lcb] + THREE_C)
@pytest.mark.parametrize("bad", [-1e-3, math.nan, -math.inf])
def test_bad_level_raises(func, bad):
    args = (0.5, bad) if func in (kl_ucb, kl_lcb) else (0.5, bad, 1.0)
    with pytest.raises(ValueError, match=r"c must lie in \[0, \+inf\]"):
        func(*args)


@pytest.mark.parametrize("func", TWO + THREE_Y + THREE_C + [kl_ucb, kl_lcb])
def test_mismatched_shapes_raise(func):
    args = (np.full(3, 0.5), np.full(4, 0.5))
    if func in THREE_Y + THREE_C:
        args = args + (1.0,)
    with pytest.raises(ValueError, match="shape mismatch"):
        func(*args)


@pytest.mark.parametrize("func", THREE_Y + THREE_C)
def test_non_numeric_raises_type_error(func):
    with pytest.raises(TypeError, match="x must be a number"):
        func("0.5", 0.5, 1.0)
    with pytest.raises(TypeError, match="eps must be a number"):
        func(0.3, 0.5, "big")
    with pytest.raises(TypeError, match="must be a number"):
        func(0.3, [0.5, "a"], 1.0)


def test_non_numeric_raises_type_error_two_arguments():
    with pytest.raises(TypeError, match="p must be a number"):
        kl("a", 0.5)
    with pytest.raises(TypeError, match="c must be a number"):
        kl_ucb(0.5, None)


# ----------------------------------------------------------------------------------------------
# no warnings, no NaN on extreme inputs
# ----------------------------------------------------------------------------------------------
def test_no_warnings_and_no_nan_on_boundary_inputs():
    means = np.array([0.0, 5e-324, 1e-300, 1e-12, 0.3, 0.5, 1 - 1e-12, 1 - 2.0**-53, 1.0])
    epss = np.array([5e-324, 1e-300, 1e-8, 1.0, 700.0, 1e300, 1.7e308, math.inf])
    cs = np.array([0.0, 5e-324, 1e-300, 1e-12, 1.0, 700.0, 1e300, 1.7e308, math.inf])
    x3, y3, e3 = means[:, None, None], means[None, :, None], epss[None, None, :]
    c3 = cs[None, :, None]
    with warnings.catch_warnings(), np.errstate(divide="raise", over="raise", invalid="raise"):
        warnings.simplefilter("error")
        outs = [kl(means[:, None], means), tv(means[:, None], means), regime_threshold(means[:, None], means),
                z_star(x3, y3, e3), d_eps(x3, y3, e3), kl_ucb(means[:, None], cs), kl_lcb(means[:, None], cs)]
        up, low = d_eps_ucb(x3, c3, e3), d_eps_lcb(x3, c3, e3)
        # the returned indexes satisfy their constraint as computed, even at these extremes
        assert np.all(d_eps(x3, up, e3) <= c3) and np.all(d_eps(x3, low, e3) <= c3)
        assert np.all(kl(means[:, None], outs[5]) <= cs) and np.all(kl(means[:, None], outs[6]) <= cs)
        for scalar_args in [(0.0, 1.0), (1.0, 0.0), (0.5, 0.0)]:
            kl(*scalar_args), d_eps(*scalar_args, math.inf), d_eps(*scalar_args, 5e-324)
    for out in outs + [up, low]:
        assert not np.any(np.isnan(out))
    assert np.all((up >= x3) & (up <= 1)) and np.all((low <= x3) & (low >= 0))

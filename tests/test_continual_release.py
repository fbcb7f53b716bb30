"""The continual release of noisy running sums (the book's Lemma lem-ch05-continual)."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import integrate, stats

from dpb.privacy import (
    continual_release,
    continual_release_log_density,
    continual_release_log_ratio,
    partial_sums,
    phase_releases,
)


@st.composite
def neighbouring_streams(draw):
    """(r, r', starts, t_star, eps, o): neighbouring streams in [0, 1], phases and a release value."""
    T = draw(st.integers(1, 40))
    r = np.array(draw(st.lists(st.floats(0, 1), min_size=T, max_size=T)))
    t_star = draw(st.integers(1, T))
    rp = r.copy()
    rp[t_star - 1] = draw(st.floats(0, 1))
    cuts = draw(st.sets(st.integers(1, T - 1), max_size=T - 1)) if T > 1 else set()
    starts = np.array(sorted({0} | cuts), dtype=np.int64)
    eps = draw(st.floats(1e-3, 20))
    # release values: either drawn from the mechanism, or arbitrary points (densities are > 0)
    if draw(st.booleans()):
        o = continual_release(r, starts, eps, rng=np.random.default_rng(draw(st.integers(0, 2**32 - 1))))
    else:
        o = np.array(draw(st.lists(st.floats(-60, 60), min_size=starts.size, max_size=starts.size)))
    return r, rp, starts, t_star, eps, o


def direct_log_density(o, r, starts, eps):
    """log density of C = L (s + Y) by the change of variables, with an explicit matrix L."""
    s = partial_sums(r, starts)
    k = s.size
    L = np.tril(np.ones((k, k)))
    y = np.linalg.solve(L, o) - s
    _, logdet = np.linalg.slogdet(L)
    # log Laplace density written out (scipy's logpdf is exact too, but this keeps the digits)
    return np.sum(np.log(eps / 2) - eps * np.abs(y)) - logdet


@settings(max_examples=300, deadline=None)
@given(neighbouring_streams())
def test_log_ratio_of_neighbours_is_at_most_eps(case):
    r, rp, starts, t_star, eps, o = case
    lr = continual_release_log_ratio(o, r, rp, starts, eps)
    gap = abs(r[t_star - 1] - rp[t_star - 1])
    assert abs(lr) <= eps * gap * (1 + 1e-12) + 1e-9
    # only the phase containing t_star contributes: eps (|u_k - s'_k| - |u_k - s_k|)
    k = int(np.searchsorted(starts, t_star - 1, side="right") - 1)
    u = phase_releases(o)[k]
    s, sp = partial_sums(r, starts)[k], partial_sums(rp, starts)[k]
    assert lr == pytest.approx(eps * (abs(u - sp) - abs(u - s)), rel=1e-9, abs=1e-9)


@settings(max_examples=200, deadline=None)
@given(neighbouring_streams())
def test_log_ratio_equals_direct_density_computation(case):
    r, rp, starts, _, eps, o = case
    lp = direct_log_density(o, r, starts, eps)
    lq = direct_log_density(o, rp, starts, eps)
    scale = 1 + eps * (np.abs(o).sum() + r.size)
    assert continual_release_log_density(o, r, starts, eps) == pytest.approx(lp, rel=1e-9, abs=1e-9 * scale)
    assert continual_release_log_ratio(o, r, rp, starts, eps) == pytest.approx(
        lp - lq, rel=1e-8, abs=1e-8 * scale
    )


def test_density_integrates_to_one_and_matches_scipy():
    r = np.array([0.3, 1.0, 0.0, 0.7, 1.0])
    starts = np.array([0, 2])
    eps = 0.8
    # two releases: integrate the joint density of the running sums over the plane
    def dens(c2, c1):
        return np.exp(continual_release_log_density([c1, c2], r, starts, eps))

    s = partial_sums(r, starts)
    lo, hi = s[0] - 40 / eps, s[0] + 40 / eps
    total, _ = integrate.dblquad(dens, lo, hi, lambda c1: c1 + s[1] - 40 / eps,
                                 lambda c1: c1 + s[1] + 40 / eps)
    assert total == pytest.approx(1.0, abs=1e-6)
    o = np.array([1.7, 2.4])
    u = np.diff(o, prepend=0)
    expected = stats.laplace.logpdf(u, loc=s, scale=1 / eps).sum()
    assert continual_release_log_density(o, r, starts, eps) == pytest.approx(expected, rel=1e-12)


def test_releases_have_the_right_law_and_are_reproducible():
    r = np.r_[np.ones(7), np.zeros(8), np.ones(5)]
    starts = np.array([0, 1, 3, 7, 15])
    eps = 0.5
    out = continual_release(r, starts, eps, rng=np.random.default_rng(7), size=20_000)
    assert out.shape == (20_000, 5)
    u = phase_releases(out) - partial_sums(r, starts)
    for k in range(5):  # each phase release is its sum plus Lap(1/eps); KS at a fixed seed
        assert stats.kstest(u[:, k], stats.laplace(0, 1 / eps).cdf).pvalue > 1e-3
    # independent phases: the noises of two phases are uncorrelated
    assert abs(np.corrcoef(u[:, 1], u[:, 2])[0, 1]) < 0.03
    # release k carries k noises: variance 2 k / eps^2
    np.testing.assert_allclose((out - np.cumsum(partial_sums(r, starts))).var(axis=0),
                               2 * np.arange(1, 6) / eps**2, rtol=0.06)
    again = continual_release(r, starts, eps, rng=np.random.default_rng(7), size=20_000)
    np.testing.assert_array_equal(out, again)
    assert continual_release(r, starts, eps, rng=np.random.default_rng(1)).shape == (5,)


def test_event_probability_ratio_within_e_eps():
    """The running sums' event {C_2 <= c} on neighbours: ratio within e^{+-eps}, tight in the tail."""
    r = np.array([1.0, 0.0, 1.0, 1.0])
    rp = np.array([1.0, 0.0, 0.0, 1.0])  # reward 3 changed: phase 2 (starts 0, 2)
    starts = np.array([0, 2])
    eps = 0.7
    draws = 400_000
    rng = np.random.default_rng(3)
    a = continual_release(r, starts, eps, rng=rng, size=draws)[:, 1]
    b = continual_release(rp, starts, eps, rng=rng, size=draws)[:, 1]
    # C_2 = s_1 + s_2 + Y_1 + Y_2: far in the lower tail the ratio tends to e^{-eps}
    c = 0.0
    pa, pb = (a <= c).mean(), (b <= c).mean()
    assert np.exp(-eps) * 0.95 <= pa / pb <= 1.0


@pytest.mark.parametrize("kwargs, match", [
    ({"rewards": [0.5, 1.5], "starts": [0], "eps": 1.0}, "rewards"),
    ({"rewards": [0.5, 0.5], "starts": [1], "eps": 1.0}, "starts"),
    ({"rewards": [0.5, 0.5], "starts": [0, 0], "eps": 1.0}, "starts"),
    ({"rewards": [0.5, 0.5], "starts": [0.0, 1.0], "eps": 1.0}, "starts"),
    ({"rewards": [0.5, 0.5], "starts": [0], "eps": 0.0}, "eps"),
])
def test_bad_input_is_named(kwargs, match):
    with pytest.raises(ValueError, match=match):
        continual_release(**kwargs)


def test_bad_release_shapes():
    with pytest.raises(ValueError, match="last axis"):
        continual_release_log_density([1.0, 2.0], [1.0, 0.0], [0], 1.0)
    with pytest.raises(ValueError, match="same length"):
        continual_release_log_ratio([1.0], [1.0, 0.0], [1.0], [0], 1.0)
    with pytest.raises(ValueError, match="running"):
        phase_releases(3.0)
